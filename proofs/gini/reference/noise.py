"""Noise densities in certified mpmath: density (10) p(z) = c/(1+|z|^gamma) (pdf, cdf, sf,
ppf, constant) and Laplace (pdf, cdf), each evaluated at two precisions.  Mirrors
:mod:`kernels.gini.noise`."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any

import mpmath

from proofs.gini.reference.errors import InvalidParameterError, NonFiniteError, PrecisionError
from proofs.gini.reference.rational import exact


# ------------------------------------------------------------------------------ noise
def _gamma_mp(gamma: Any) -> Fraction:
    g = exact(gamma, "gamma")
    if g <= 1:
        raise InvalidParameterError(f"gamma must be > 1 (density (10) improper), got {gamma!r}")
    return g


def _mp(q: Fraction) -> Any:
    return mpmath.mpf(q.numerator) / q.denominator


def _z_mp(z: Any) -> Any:
    """z as an exact mpf (floats are exact in binary); +/-inf allowed, NaN refused."""
    if isinstance(z, mpmath.mpf) and mpmath.isinf(z):
        return z
    if isinstance(z, float) or (isinstance(z, numbers.Real) and not isinstance(
            z, (numbers.Rational, Decimal)) and hasattr(z, "as_integer_ratio")):
        zf = float(z)
        if math.isnan(zf):
            raise NonFiniteError("z must not be NaN")
        if math.isinf(zf):
            return mpmath.inf if zf > 0 else -mpmath.inf
    return _mp(exact(z, "z"))


def _two_precisions(fn: Callable[[], Any], dps: int, what: str) -> Any:
    """Evaluate ``fn`` at ``dps`` and ``dps + 20`` digits; require relative agreement to
    dps - 10 digits (absolute when the value is 0); return the ``dps`` value."""
    if isinstance(dps, bool) or not isinstance(dps, numbers.Integral) or dps < 15:
        raise InvalidParameterError(f"dps must be an integer >= 15, got {dps!r}")
    with mpmath.workdps(dps):
        a = fn()
    with mpmath.workdps(dps + 20):
        b = fn()
        tol = mpmath.mpf(10) ** (-(dps - 10))
        if mpmath.isinf(b) or b == 0:
            ok = a == b
        else:
            ok = abs(a - b) <= tol * abs(b)
    if not ok:
        raise PrecisionError(f"{what}: {dps} and {dps + 20} digits disagree ({a} vs {b})")
    return a


def powerlaw_constant(gamma: Any, dps: int = 50) -> Any:
    """c = gamma sin(pi/gamma)/(2 pi), the normalising constant of density (10):
    int_R dz/(1+|z|^gamma) = 2 (pi/gamma)/sin(pi/gamma) (Beta-function integral and the
    reflection formula)."""
    g = _gamma_mp(gamma)

    def f() -> Any:
        gm = _mp(g)
        return gm * mpmath.sin(mpmath.pi / gm) / (2 * mpmath.pi)

    return _two_precisions(f, dps, "powerlaw_constant")


def powerlaw_pdf(z: Any, gamma: Any, dps: int = 50) -> Any:
    """Density (10) of Lan & Reiter (2025): p(z) = c/(1 + |z|^gamma),
    c = gamma sin(pi/gamma)/(2 pi), as an mpf (checked at two precisions)."""
    g = _gamma_mp(gamma)

    def f() -> Any:
        gm = _mp(g)
        zz = _z_mp(z)
        if mpmath.isinf(zz):
            return mpmath.mpf(0)
        c = gm * mpmath.sin(mpmath.pi / gm) / (2 * mpmath.pi)
        return c / (1 + abs(zz) ** gm)

    return _two_precisions(f, dps, "powerlaw_pdf")


def _halves(absz: Any, gm: Any) -> tuple[Any, Any]:
    """(E, S) = (F(|z|) - 1/2, 1 - F(|z|)) for |z| >= 0 at the current precision.

    With a = 1/gamma, b = 1 - 1/gamma, t = s^(1/gamma) and u = s/(1+s):
    int_0^x dt/(1+t^gamma) = a B(u; a, b), u = x^gamma/(1+x^gamma), and c a B(a, b) = 1/2, so
    E = I_u(a, b)/2.  Complement: 1 - I_u(a, b) = I_{1-u}(b, a), 1-u = 1/(1+x^gamma), so
    S = I_w(b, a)/2 with w = 1/(1+x^gamma).  The half with argument <= 1/2 is evaluated
    (|z| <= 1: u-form, else w-form) and the other one is 1/2 minus it.
    """
    a = 1 / gm
    b = 1 - a
    if mpmath.isinf(absz):
        return mpmath.mpf(1) / 2, mpmath.mpf(0)
    if absz <= 1:
        p = absz ** gm
        e = mpmath.betainc(a, b, 0, p / (1 + p), regularized=True) / 2
        return e, mpmath.mpf(1) / 2 - e
    w = 1 / (1 + absz ** gm)
    s = mpmath.betainc(b, a, 0, w, regularized=True) / 2
    return mpmath.mpf(1) / 2 - s, s


def powerlaw_cdf(z: Any, gamma: Any, dps: int = 50) -> Any:
    """Cdf of density (10): F(z) = 1/2 + I_u(1/gamma, 1-1/gamma)/2, u = z^gamma/(1+z^gamma)
    for z >= 0, and F(z) = I_w(1-1/gamma, 1/gamma)/2, w = 1/(1+|z|^gamma) for z < 0 (the
    complementary form keeps relative accuracy in the left tail); mpmath, two precisions."""
    g = _gamma_mp(gamma)

    def f() -> Any:
        zz = _z_mp(z)
        e, s = _halves(abs(zz), _mp(g))
        return s if zz < 0 else mpmath.mpf(1) / 2 + e

    return _two_precisions(f, dps, "powerlaw_cdf")


def powerlaw_sf(z: Any, gamma: Any, dps: int = 50) -> Any:
    """Survival function 1 - F(z) of density (10) (= F(-z)), with relative accuracy in the
    right tail (I_w(1-1/gamma, 1/gamma)/2, w = 1/(1+z^gamma))."""
    g = _gamma_mp(gamma)

    def f() -> Any:
        zz = _z_mp(z)
        e, s = _halves(abs(zz), _mp(g))
        return s if zz > 0 else mpmath.mpf(1) / 2 + e

    return _two_precisions(f, dps, "powerlaw_sf")


def powerlaw_ppf(q: Any, gamma: Any, dps: int = 50) -> Any:
    """Quantile of density (10): the z with F(z) = q, as an mpf (ppf(0) = -inf, ppf(1) = inf).

    With m = min(q, 1-q) the magnitude x = |z| solves S(x) = m; solved by Newton's method
    in t = log x (dS/dt = -x p(x)) from the tail / centre asymptotics, safeguarded by a
    bracket (bisection when a step leaves it), to the working precision; the sign is that
    of q - 1/2.  Checked at two precisions like the other functions.
    """
    g = _gamma_mp(gamma)
    qq = exact(q, "q")
    if not 0 <= qq <= 1:
        raise InvalidParameterError(f"q must be in [0, 1], got {q!r}")

    def f() -> Any:
        if qq == 0:
            return -mpmath.inf
        if qq == 1:
            return mpmath.inf
        if 2 * qq == 1:
            return mpmath.mpf(0)
        gm = _mp(g)
        m = _mp(min(qq, 1 - qq))
        c = gm * mpmath.sin(mpmath.pi / gm) / (2 * mpmath.pi)
        # start: tail S ~ c x^(1-g)/(g-1), centre 1/2 - S ~ c x
        if m < mpmath.mpf(1) / 4:
            t = mpmath.log(c / ((gm - 1) * m)) / (gm - 1)
        else:
            t = mpmath.log((mpmath.mpf(1) / 2 - m) / c)
        lo, hi = -mpmath.inf, mpmath.inf  # bracket in t: S(e^lo) > m > S(e^hi)
        eps = mpmath.mpf(10) ** (-(mpmath.mp.dps - 5))
        for _ in range(10 * mpmath.mp.dps + 200):
            x = mpmath.exp(t)
            e, s = _halves(x, gm)
            r = s - m  # decreasing in t
            if r > 0:
                lo = t
            else:
                hi = t
            if r == 0:
                break
            slope = x * c / (1 + x ** gm)
            step = r / slope
            tn = t + step
            if not (lo < tn < hi):
                if mpmath.isinf(lo) or mpmath.isinf(hi):
                    tn = t + (1 if r > 0 else -1) * max(abs(step), 1)
                    tn = min(max(tn, t - 50), t + 50)
                else:
                    tn = (lo + hi) / 2
            if abs(tn - t) <= eps * max(1, abs(t)):
                t = tn
                break
            t = tn
        else:  # pragma: no cover - Newton converges quadratically from these starts
            raise PrecisionError(f"powerlaw_ppf did not converge for q={qq}, gamma={g}")
        x = mpmath.exp(t)
        return x if 2 * qq > 1 else -x

    return _two_precisions(f, dps, "powerlaw_ppf")


def _scale_mp(scale: Any) -> Fraction:
    b = exact(scale, "scale")
    if b <= 0:
        raise InvalidParameterError(f"scale must be > 0, got {scale!r}")
    return b


def laplace_pdf(z: Any, scale: Any = 1, dps: int = 50) -> Any:
    """Laplace density exp(-|z|/b)/(2b), b = ``scale`` > 0 (mpmath, two precisions)."""
    b = _scale_mp(scale)

    def f() -> Any:
        zz, bb = _z_mp(z), _mp(b)
        if mpmath.isinf(zz):
            return mpmath.mpf(0)
        return mpmath.exp(-abs(zz) / bb) / (2 * bb)

    return _two_precisions(f, dps, "laplace_pdf")


def laplace_cdf(z: Any, scale: Any = 1, dps: int = 50) -> Any:
    """Laplace cdf: e^{z/b}/2 for z < 0, 1 - e^{-z/b}/2 for z >= 0 (mpmath, two precisions)."""
    b = _scale_mp(scale)

    def f() -> Any:
        zz, bb = _z_mp(z), _mp(b)
        e = mpmath.exp(-abs(zz) / bb) / 2 if not mpmath.isinf(zz) else mpmath.mpf(0)
        return e if zz < 0 else 1 - e

    return _two_precisions(f, dps, "laplace_cdf")
