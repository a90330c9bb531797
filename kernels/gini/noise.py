"""Noise distributions of the DP Gini release: density (10) and the Laplace density.

Paper: Lan & Reiter (2025), eq. (10) (after Nissim, Raskhodnikova & Smith 2007): the
release adds Z with density

    p(z) = c / (1 + |z|^gamma),   gamma > 1.

Derivations (checked against mpmath quadrature in ``tests/gini/test_noise.py``).  Write
a = 1/gamma, b = 1 - 1/gamma (so a + b = 1), B = Beta function, I = regularised incomplete
beta (``scipy.special.betainc``).

* Normalising constant.  With s = t^gamma (dt = a s^{a-1} ds),
  int_0^inf dt/(1+t^gamma) = a int_0^inf s^{a-1}/(1+s) ds = a B(a, b)
  = a Gamma(a) Gamma(1-a) = (pi/gamma)/sin(pi/gamma)  (reflection formula), hence
  int_R dz/(1+|z|^gamma) = 2 (pi/gamma)/sin(pi/gamma) and

      c = gamma sin(pi/gamma) / (2 pi).

* Cdf.  For z >= 0, substitute further u = s/(1+s) (s^{a-1}(1+s)^{-1} ds =
  u^{a-1}(1-u)^{b-1} du): int_0^z dt/(1+t^gamma) = a B(u; a, b) with u = z^gamma/(1+z^gamma).
  Since c a B(a, b) = 1/2,

      F(z) = 1/2 + (1/2) I_u(a, b)   (z >= 0),      F(-z) = 1 - F(z)   (symmetry).

  Survival function for z > 0 (and F at z < 0) via the complement identity
  1 - I_u(a, b) = I_{1-u}(b, a) with 1 - u = 1/(1 + z^gamma):

      S(z) = (1/2) I_w(b, a),  w = 1/(1 + z^gamma),

  which keeps full *relative* accuracy in the tails (1 - F would cancel).

* Evaluation.  With the series I_y(p, q) = y^p (1-y)^q/(p B(p, q)) 2F1(p+q, 1; p+1; y),
  p + q = 1, B(a, b) = pi/sin(pi/gamma) and u^a (1-u)^b = w^b (1-w)^a = x/(1+x^gamma)
  (x = |z|), both halves become "x p(x) times a fast positive series":

      F(x) - 1/2 = c x/(1+x^gamma) 2F1(1, 1; a+1; u)              (x <= 1, u <= 1/2)
      S(x)       = c x/((gamma-1)(1+x^gamma)) 2F1(1, 1; b+1; w)    (x >= 1, w <= 1/2)

  Each factor costs O(1) ulps, so F and S keep ~1e-16 relative accuracy even where u or w
  underflow (scipy's betainc(b, a, w) drifts to ~1e-14 at w ~ 1e-160; betaincc(1/2, 1/2, x)
  is ~1e-12 off at x = 1e-16).  The complementary half is 1/2 minus the computed one when
  that is < 1/4 (no cancellation), else ``scipy.special.betaincc``.  Measured against
  mpmath (``tests/gini/test_noise.py``): <= ~5e-16 relative over gamma in [1.05, 20].
  The quantile starts from ``scipy.special.betaincinv`` of the smaller of u, w and takes
  two Newton steps on those accurate halves.

* gamma = 2 gives c = 1/pi: the standard Cauchy, F(z) = 1/2 + arctan(z)/pi.

* Exact sampler.  If G1 ~ Gamma(a), G2 ~ Gamma(b) are independent then G1/G2 ~ BetaPrime(a, b)
  (its cdf is P(G1/G2 <= s) = I_{s/(1+s)}(a, b)).  Let |Z| = (G1/G2)^{1/gamma} with an
  independent random sign.  Proof that Z has density (10), for z >= 0:
      P(|Z| <= z) = P(G1/G2 <= z^gamma) = I_{z^gamma/(1+z^gamma)}(a, b) = 2 F(z) - 1,
  which is exactly the law of |Z| under (10) (by the cdf formula above and symmetry); a
  symmetric sign then gives F itself.
  The power is computed as exp((log G1 - log G2)/gamma), never as a ratio (overflow).
  Float caveat: for shape < 1, ``standard_gamma`` can return exactly 0.0 (underflow), and a
  magnitude above the largest double (DBL_MAX ~ 1.8e308) cannot be represented.  Entries
  with G2 == 0 or a non-finite result are redrawn (loop until none remain), i.e. the law
  sampled is (10) conditioned on (essentially) |Z| <= DBL_MAX.  The excluded mass
  2 S(DBL_MAX) is float-probability ~0 for the gammas of interest - 1.5e-31 at
  gamma = 1.1, 3.9e-16 at 1.05 - but NOT for gamma very close to 1: 5.6e-10 at 1.03,
  6.8e-7 at 1.02, 8.3e-4 at 1.01, 0.49 at 1.001 (P(G2 underflows) is of the same order).
  G1 == 0 gives Z = 0, a finite value, and is kept.

Laplace (used for counts in Section 5.1, and as a comparison mechanism): density
exp(-|z|/b)/(2b), cdf 1/2 e^{z/b} (z < 0), 1 - 1/2 e^{-z/b} (z >= 0).

Input conventions.  ``z`` and ``q`` may be scalars or arrays of real numbers (int/float;
object arrays only if every element is a real number; bool, str, complex, None raise
:class:`NotNumericError`).  ``z`` may be +/-inf (cdf 0/1, pdf 0) but not NaN
(:class:`NonFiniteError`).  ``q`` must lie in [0, 1] (:class:`InvalidParameterError`,
NaN included); ppf(0) = -inf, ppf(1) = +inf.  Scalar (0-d) input returns a Python float,
array input a float64 array of the same shape.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy import special

from kernels.errors import InvalidParameterError, NonFiniteError, NotNumericError
from kernels.gini.validate import check_gamma
from kernels.validate import check_positive, check_rng, check_size
from kernels.validate import describe as _describe

__all__ = [
    "NoiseDistribution",
    "laplace",
    "laplace_cdf",
    "laplace_logpdf",
    "laplace_pdf",
    "laplace_ppf",
    "laplace_sf",
    "powerlaw",
    "powerlaw_cdf",
    "powerlaw_constant",
    "powerlaw_logpdf",
    "powerlaw_pdf",
    "powerlaw_ppf",
    "powerlaw_sf",
    "sample_laplace",
    "sample_powerlaw",
]

FloatOrArray = float | np.ndarray
Size = int | tuple[int, ...]

# Below this x, I_x(p, q) and its inverse are evaluated by the leading series term in logs.
_TINY = 1e-280


# --------------------------------------------------------------------------- validation
def _as_real_array(x: Any, name: str) -> np.ndarray:
    """float64 copy of real numeric ``x`` (scalar or array); NotNumericError otherwise."""
    if isinstance(x, (str, bytes)) or x is None:
        raise NotNumericError(f"{name} must be real numbers, got {_describe(x)}")
    try:
        arr = np.asarray(x)
    except Exception as exc:  # pragma: no cover - numpy raises many types
        raise NotNumericError(f"{name} could not be read as numbers: {exc}") from exc
    kind = arr.dtype.kind
    if kind == "O":
        flat = arr.ravel()
        for i, v in enumerate(flat):
            if isinstance(v, bool) or not isinstance(v, (numbers.Real, np.integer, np.floating)):
                raise NotNumericError(
                    f"{name} must contain only real numbers, got {_describe(v)} at position {i}"
                )
    elif kind not in "iuf":  # b (bool), c (complex), U/S (strings), M/m (dates), V ...
        sample = arr.ravel()[:3].tolist()
        raise NotNumericError(
            f"{name} must contain only real numbers, got dtype {arr.dtype} "
            f"(first values {sample!r})"
        )
    return np.array(arr, dtype=np.float64, copy=True)


def _as_z(z: Any, name: str = "z") -> np.ndarray:
    arr = _as_real_array(z, name)
    bad = np.isnan(arr)
    if bad.any():
        i = int(np.flatnonzero(bad.ravel())[0])
        raise NonFiniteError(
            f"{name} must not be NaN (+/-inf is allowed), got NaN at flat position {i} "
            f"({int(bad.sum())} NaN)"
        )
    return arr


def _as_q(q: Any, name: str = "q") -> np.ndarray:
    arr = _as_real_array(q, name)
    bad = ~((arr >= 0.0) & (arr <= 1.0))  # NaN is caught here too
    if bad.any():
        i = int(np.flatnonzero(bad.ravel())[0])
        raise InvalidParameterError(
            f"{name} must be a probability in [0, 1], got {float(arr.ravel()[i])!r} at flat "
            f"position {i} ({int(bad.sum())} outside [0, 1])"
        )
    return arr


def _check_size(size: Any) -> tuple[int, ...]:
    """A numpy-style size: a non-negative int or a tuple of them, as a shape tuple."""
    out = check_size(size, low=0, tuple_ok=True, type_error=NotNumericError)
    return out if isinstance(out, tuple) else (out,)


def _out(arr: np.ndarray) -> FloatOrArray:
    return float(arr) if arr.ndim == 0 else arr


# ---------------------------------------------------------------- density (10): power law
def _shapes(g: float) -> tuple[float, float]:
    """(a, b) = (1/g, 1 - 1/g), b formed as (g-1)/g: one rounding each, so both keep full
    relative accuracy even for g near 1 (1 - 1/g would inherit 1/g's error, ~2e-15 relative
    at g = 1.05)."""
    return 1.0 / g, (g - 1.0) / g


def _constant(g: float) -> float:
    """c = g sin(pi/g)/(2 pi) with sin(pi/g) = sin(pi min(a, b)) (argument <= pi/2, no
    cancellation near g = 1 where pi/g ~ pi)."""
    a, b = _shapes(g)
    return g * math.sin(math.pi * min(a, b)) / (2.0 * math.pi)


def powerlaw_constant(gamma: float) -> float:
    """Normalising constant c = gamma sin(pi/gamma)/(2 pi) of density (10).

    Lan & Reiter 2025, eq. (10): p(z) = c/(1+|z|^gamma); int_R dz/(1+|z|^gamma) =
    2 (pi/gamma)/sin(pi/gamma) (module docstring).  c -> 1/2 as gamma -> inf, c -> 0 as
    gamma -> 1 (the density becomes improper); c = 1/pi at gamma = 2 (Cauchy).
    """
    return _constant(check_gamma(gamma))


def _log1p_pow(absz: np.ndarray, g: float) -> np.ndarray:
    """log(1 + |z|^g) without overflow: g log|z| + log1p(|z|^-g) for |z| > 1."""
    out = np.empty_like(absz)
    big = absz > 1.0
    with np.errstate(over="ignore", divide="ignore"):
        out[~big] = np.log1p(np.power(absz[~big], g))
        zb = absz[big]
        out[big] = g * np.log(zb) + np.log1p(np.power(zb, -g))
    return out


def powerlaw_pdf(z: Any, gamma: float) -> FloatOrArray:
    """Density (10) of Lan & Reiter 2025, eq. (10): p(z) = c/(1+|z|^gamma), vectorised.

    Underflows to 0 in the far tail (use :func:`powerlaw_logpdf` there).
    """
    g = check_gamma(gamma)
    c = _constant(g)
    zz = _as_z(z)
    with np.errstate(over="ignore"):
        out = c / (1.0 + np.power(np.abs(zz), g))
    return _out(out)


def powerlaw_logpdf(z: Any, gamma: float) -> FloatOrArray:
    """log p(z) = log c - log(1+|z|^gamma) (Lan & Reiter 2025, eq. (10)); finite for all
    finite z (e.g. z = 1e200 where the pdf underflows), -inf at z = +/-inf."""
    g = check_gamma(gamma)
    zz = _as_z(z)
    return _out(math.log(_constant(g)) - _log1p_pow(np.abs(zz), g))


def _hyp_sum(y: np.ndarray, s: float) -> np.ndarray:
    """sum_{n>=0} n!/(s+1)_n y^n = 2F1(1, 1; s+1; y) for 0 <= y <= 1/2, to float precision.

    Terms are positive and their ratio (n+1)y/(n+1+s) < y <= 1/2, so the truncation error
    after the last term t is < t: stopping at t < 1e-17 * sum is exact to rounding.  Entries
    leave the active set as soon as they converge (at most ~57 terms, at y = 1/2)."""
    total = np.ones_like(y)
    idx = np.flatnonzero(y > 0)
    yi = y.ravel()[idx]
    term = np.ones_like(yi)
    acc = np.ones_like(yi)
    out = total.ravel()
    n = 0.0
    while idx.size:
        term *= yi * ((n + 1.0) / (n + 1.0 + s))
        acc += term
        n += 1.0
        done = term <= 1e-17 * acc
        if done.any():
            out[idx[done]] = acc[done]
            keep = ~done
            idx, yi, term, acc = idx[keep], yi[keep], term[keep], acc[keep]
    return out.reshape(y.shape)


def _inner_half(x: np.ndarray, g: float) -> tuple[np.ndarray, np.ndarray]:
    """For 0 <= x <= 1: E(x) = F(x) - 1/2 and S(x) = 1/2 - E(x), each to a few ulps (relative).

    E = (1/2) I_u(a, b), u = x^g/(1+x^g) <= 1/2.  With the series
    I_y(p, q) = y^p (1-y)^q/(p B(p, q)) 2F1(p+q, 1; p+1; y), p + q = 1,
    B(a, b) = pi/sin(pi/g) and u^a (1-u)^b = x/(1+x^g):

        E(x) = c x/(1+x^g) * 2F1(1, 1; a+1; u)      (E(x) ~ c x as x -> 0),

    which stays accurate where u underflows (large g: u^a is not small).  S = 1/2 - E where
    E < 1/4 (then S > 1/4: no cancellation; this covers all x <= 1 when g <= 2), else
    (1/2) betaincc(a, b, u) (large g, x near 1, where S(1) -> 0).  scipy's
    betaincc(1/2, 1/2, x) is ~1e-12 off at x = 1e-16 (measured); that case never reaches it.
    """
    a, b = _shapes(g)
    c = _constant(g)
    with np.errstate(under="ignore"):
        p = np.power(x, g)
        u = p / (1.0 + p)
        e = c * x / (1.0 + p) * _hyp_sum(u, a)
    sf = 0.5 - e
    hard = e >= 0.25
    sf[hard] = 0.5 * special.betaincc(a, b, u[hard])
    return e, sf


def _outer_half(x: np.ndarray, g: float) -> tuple[np.ndarray, np.ndarray]:
    """For x >= 1 (inf allowed): S(x) = 1 - F(x) and E(x) = 1/2 - S(x), few ulps (relative).

    S = (1/2) I_w(b, a), w = 1/(1+x^g) <= 1/2 (the complement identity); by the same series,
    w^b (1-w)^a = x/(1+x^g) and b = (g-1)/g:

        S(x) = c x/((g-1)(1+x^g)) * 2F1(1, 1; b+1; w)    (S(x) ~ c x^{1-g}/(g-1)),

    evaluated as c x^{1-g}/(1+x^{-g}) so x^g overflowing is harmless; accurate down to the
    underflow threshold (scipy's betainc(b, a, w) drifts to ~1e-14 relative at w ~ 1e-160).
    E = 1/2 - S where S < 1/4 (no cancellation; all x >= 1 when g >= 2), else
    (1/2) betaincc(b, a, w) (g near 1, x near 1).
    """
    a, b = _shapes(g)
    c = _constant(g)
    with np.errstate(over="ignore", under="ignore"):
        p_inv = np.power(x, -g)
        w = p_inv / (1.0 + p_inv)
        sf = c / (g - 1.0) * np.power(x, 1.0 - g) / (1.0 + p_inv) * _hyp_sum(w, b)
    sf[np.isinf(x)] = 0.0
    e = 0.5 - sf
    hard = sf >= 0.25
    e[hard] = 0.5 * special.betaincc(b, a, w[hard])
    return e, sf


def _halves(absz: np.ndarray, g: float) -> tuple[np.ndarray, np.ndarray]:
    """(E(|z|), S(|z|)) for any |z| >= 0: E = F(|z|) - 1/2, S = 1 - F(|z|) = 1/2 - E."""
    e = np.empty_like(absz)
    sf = np.empty_like(absz)
    inner = absz <= 1.0
    e[inner], sf[inner] = _inner_half(absz[inner], g)
    e[~inner], sf[~inner] = _outer_half(absz[~inner], g)
    return e, sf


def powerlaw_cdf(z: Any, gamma: float) -> FloatOrArray:
    """Cdf of density (10) (Lan & Reiter 2025, eq. (10)).

    F(z) = 1/2 + (1/2) I_u(1/gamma, 1-1/gamma), u = z^gamma/(1+z^gamma), for z >= 0;
    F(z) = S(-z) = (1/2) I_{1/(1+|z|^gamma)}(1-1/gamma, 1/gamma) for z < 0, evaluated with
    relative accuracy in the left tail (see :func:`_outer_half`; measured <= ~5e-16 against
    mpmath).  gamma = 2: 1/2 + arctan(z)/pi (standard Cauchy).
    """
    g = check_gamma(gamma)
    zz = _as_z(z)
    absz = np.abs(zz)
    neg = zz < 0
    e, sf = _halves(absz, g)
    out = np.where(neg, sf, 0.5 + e)
    return _out(out)


def powerlaw_sf(z: Any, gamma: float) -> FloatOrArray:
    """Survival function S(z) = 1 - F(z) of density (10) (Lan & Reiter 2025, eq. (10)).

    S(z) = (1/2) I_{1/(1+z^gamma)}(1-1/gamma, 1/gamma) for z > 0 (complement identity; full
    relative accuracy in the right tail down to underflow, see :func:`_outer_half`);
    S(z) = F(-z) = 1/2 + (1/2) I_u(1/gamma, 1-1/gamma) for z <= 0.
    """
    g = check_gamma(gamma)
    zz = _as_z(z)
    absz = np.abs(zz)
    pos = zz > 0
    e, sf = _halves(absz, g)
    out = np.where(pos, sf, 0.5 + e)
    return _out(out)


def _ibeta_inv_log(p: float, q: float, y: np.ndarray) -> np.ndarray:
    """x with I_x(p, q) = y, returned as log x (accurate also where x is below 1e-280)."""
    x = special.betaincinv(p, q, y)
    with np.errstate(divide="ignore"):
        lx = np.log(x)
        tiny = (x < _TINY) & (y > 0)
        if tiny.any():
            # invert the leading term y = x^p/(p B(p, q))
            lx[tiny] = (np.log(y[tiny]) + math.log(p) + special.betaln(p, q)) / p
    return lx


def _polish(x: np.ndarray, m: np.ndarray, centre: np.ndarray, g: float) -> np.ndarray:
    """Two Newton steps on S(x) = m (x = |z|), written with relative residuals.

    Centre (x < 1): solve E(x) = 1/2 - m (exact for m >= 1/4), x <- x - (E - d)/p(x).
    Tail (x >= 1): x <- x + (S(x) - m)/p(x) = x (1 + (S - m)/(x p(x))) with
    x p(x) = c x^{1-g}/(1 + x^{-g}) (no overflow).  Non-finite / zero x are left alone.
    """
    c = _constant(g)
    ok = np.isfinite(x) & (x > 0) & (m > 0)
    for _ in range(2):
        xs = x[ok]
        e, sf = _halves(xs, g)
        with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
            xp = np.where(
                xs <= 1.0,
                c * xs / (1.0 + np.power(xs, g)),
                c * np.power(xs, 1.0 - g) / (1.0 + np.power(xs, -g)),
            )
            resid = np.where(centre[ok], (0.5 - m[ok]) - e, sf - m[ok])
            step = resid / xp
        step = np.where(np.isfinite(step), np.clip(step, -0.5, 0.5), 0.0)
        x[ok] = xs * (1.0 + step)
    return x


def powerlaw_ppf(q: Any, gamma: float) -> FloatOrArray:
    """Quantile function (inverse cdf) of density (10) (Lan & Reiter 2025, eq. (10)).

    With m = min(q, 1-q) (exact in float for q >= 1/2) the magnitude |z| solves
    S(|z|) = m.  For |z| < 1 (m > S(1)) it is found from u = I^{-1}_{1-2m}(a, b) < 1/2,
    |z| = (u/(1-u))^{1/gamma}; for |z| >= 1 from w = I^{-1}_{2m}(b, a) <= 1/2,
    |z| = ((1-w)/w)^{1/gamma} (a, b = 1/gamma, 1-1/gamma), so the small one of u, w is
    always the one inverted (below 1e-280 by the leading series term, in logs), followed by
    two Newton steps on the accurate E / S.  Accuracy: a few ulps times the condition number
    max(1, m/(|z| p(z))) (measured <= 5 such units).  The sign is that of q - 1/2.
    ppf(0) = -inf, ppf(1/2) = 0, ppf(1) = +inf.  Used for quantiles and credible intervals.
    """
    g = check_gamma(gamma)
    qq = _as_q(q)
    a, b = _shapes(g)
    m = np.minimum(qq, 1.0 - qq)
    mag = np.empty_like(qq)
    centre = m > 0.5 * special.betainc(b, a, 0.5)  # S(|z|) = m > S(1)  <=>  |z| < 1
    if centre.any():
        lu = _ibeta_inv_log(a, b, 1.0 - 2.0 * m[centre])  # u = |z|^g/(1+|z|^g) < 1/2
        with np.errstate(divide="ignore"):
            mag[centre] = np.exp((lu - np.log1p(-np.exp(lu))) / g)
    tail = ~centre
    if tail.any():
        lw = _ibeta_inv_log(b, a, 2.0 * m[tail])  # w = 1/(1+|z|^g) <= 1/2
        with np.errstate(divide="ignore", over="ignore"):
            mag[tail] = np.exp((np.log1p(-np.exp(lw)) - lw) / g)
    mag = _polish(mag, m, centre, g)
    return _out(np.where(qq < 0.5, -mag, mag))


def sample_powerlaw(rng: np.random.Generator, gamma: float, size: Size) -> np.ndarray:
    """Exact draws from density (10) (Lan & Reiter 2025, eq. (10)).

    |Z| = (G1/G2)^{1/gamma}, G1 ~ Gamma(1/gamma), G2 ~ Gamma(1-1/gamma) independent, times
    an independent uniform sign (proof in the module docstring:
    P(|Z| <= z) = P(G1/G2 <= z^gamma) = I_{z^gamma/(1+z^gamma)}(1/gamma, 1-1/gamma)).
    Computed as exp((log G1 - log G2)/gamma).  Entries with G2 == 0 (float underflow of a
    shape-< 1 gamma variate) or a magnitude beyond the largest double are redrawn until
    none remain: this conditions on |Z| <= DBL_MAX, an event of float-probability ~0 for
    gamma >= 1.05 (excluded mass 2 S(DBL_MAX) = 3.9e-16 at 1.05, 1.5e-31 at 1.1) but not
    for gamma within a few percent of 1 (8.3e-4 at 1.01; module docstring).  Always
    returns a finite float64 array of shape ``size``.
    """
    rng = check_rng(rng)
    g = check_gamma(gamma)
    shape = _check_size(size)
    a, b = _shapes(g)
    g1 = rng.standard_gamma(a, size=shape)
    g2 = rng.standard_gamma(b, size=shape)
    sign = np.where(rng.random(size=shape) < 0.5, -1.0, 1.0)

    def magnitude(x1: np.ndarray, x2: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            return np.exp((np.log(x1) - np.log(x2)) / g)

    mag = magnitude(g1, g2)
    bad = (g2 == 0) | ~np.isfinite(mag)
    while bad.any():
        k = int(bad.sum())
        mag[bad] = magnitude(rng.standard_gamma(a, size=k), rng.standard_gamma(b, size=k))
        bad = ~np.isfinite(mag)
    return sign * mag


# ------------------------------------------------------------------------------ Laplace
def laplace_pdf(z: Any, scale: float = 1.0) -> FloatOrArray:
    """Laplace density exp(-|z|/b)/(2b), b = ``scale`` > 0."""
    s = check_positive(scale, "scale")
    zz = _as_z(z)
    return _out(np.exp(-np.abs(zz) / s) / (2.0 * s))


def laplace_logpdf(z: Any, scale: float = 1.0) -> FloatOrArray:
    """log of the Laplace density: -|z|/b - log(2b)."""
    s = check_positive(scale, "scale")
    zz = _as_z(z)
    return _out(-np.abs(zz) / s - math.log(2.0 * s))


def laplace_cdf(z: Any, scale: float = 1.0) -> FloatOrArray:
    """Laplace cdf: e^{z/b}/2 for z < 0, 1 - e^{-z/b}/2 for z >= 0."""
    s = check_positive(scale, "scale")
    zz = _as_z(z)
    e = 0.5 * np.exp(-np.abs(zz) / s)
    return _out(np.where(zz < 0, e, 1.0 - e))


def laplace_sf(z: Any, scale: float = 1.0) -> FloatOrArray:
    """Laplace survival function: e^{-z/b}/2 for z > 0 (relative accuracy), 1 - e^{z/b}/2
    otherwise."""
    s = check_positive(scale, "scale")
    zz = _as_z(z)
    e = 0.5 * np.exp(-np.abs(zz) / s)
    return _out(np.where(zz > 0, e, 1.0 - e))


def laplace_ppf(q: Any, scale: float = 1.0) -> FloatOrArray:
    """Laplace quantile: b log(2q) for q < 1/2, -b log(2(1-q)) for q >= 1/2 (1-q exact)."""
    s = check_positive(scale, "scale")
    qq = _as_q(q)
    m = np.minimum(qq, 1.0 - qq)
    with np.errstate(divide="ignore"):
        mag = -s * np.log(2.0 * m)
    return _out(np.where(qq < 0.5, -mag, mag))


def sample_laplace(rng: np.random.Generator, scale: float, size: Size) -> np.ndarray:
    """Draws from the Laplace density exp(-|z|/b)/(2b) (numpy's ``Generator.laplace``)."""
    rng = check_rng(rng)
    s = check_positive(scale, "scale")
    shape = _check_size(size)
    return rng.laplace(0.0, s, size=shape)


# -------------------------------------------------------------------- frozen distribution
_FUNCS: dict[str, tuple[Any, ...]] = {
    # name: (pdf, logpdf, cdf, sf, ppf, sample)
    "powerlaw": (
        powerlaw_pdf, powerlaw_logpdf, powerlaw_cdf, powerlaw_sf, powerlaw_ppf, sample_powerlaw
    ),
    "laplace": (laplace_pdf, laplace_logpdf, laplace_cdf, laplace_sf, laplace_ppf, sample_laplace),
}


@dataclass(frozen=True)
class NoiseDistribution:
    """A validated, frozen noise law: ``name`` in {"powerlaw", "laplace"} and its one
    ``parameter`` (gamma > 1 for density (10) of Lan & Reiter 2025, eq. (10); the scale
    b > 0 for Laplace).  Methods delegate to the module functions."""

    name: Literal["powerlaw", "laplace"]
    parameter: float

    def __post_init__(self) -> None:
        if self.name == "powerlaw":
            object.__setattr__(self, "parameter", check_gamma(self.parameter))
        elif self.name == "laplace":
            object.__setattr__(self, "parameter", check_positive(self.parameter, "scale"))
        else:
            raise InvalidParameterError(
                f"name must be 'powerlaw' or 'laplace', got {_describe(self.name)}"
            )

    @property
    def params(self) -> dict[str, float]:
        """``{"gamma": ...}`` or ``{"scale": ...}``."""
        key = "gamma" if self.name == "powerlaw" else "scale"
        return {key: self.parameter}

    def pdf(self, z: Any) -> FloatOrArray:
        return _FUNCS[self.name][0](z, self.parameter)

    def logpdf(self, z: Any) -> FloatOrArray:
        return _FUNCS[self.name][1](z, self.parameter)

    def cdf(self, z: Any) -> FloatOrArray:
        return _FUNCS[self.name][2](z, self.parameter)

    def sf(self, z: Any) -> FloatOrArray:
        return _FUNCS[self.name][3](z, self.parameter)

    def ppf(self, q: Any) -> FloatOrArray:
        return _FUNCS[self.name][4](q, self.parameter)

    def sample(self, rng: np.random.Generator, size: Size) -> np.ndarray:
        return _FUNCS[self.name][5](rng, self.parameter, size)


def powerlaw(gamma: float) -> NoiseDistribution:
    """Density (10) of Lan & Reiter 2025, eq. (10), with shape ``gamma`` > 1."""
    return NoiseDistribution("powerlaw", gamma)


def laplace(scale: float = 1.0) -> NoiseDistribution:
    """Laplace law with scale b = ``scale`` > 0."""
    return NoiseDistribution("laplace", scale)
