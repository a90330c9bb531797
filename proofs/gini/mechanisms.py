"""The DP Gini release as a mechanism for the privacy testers (:mod:`audit.protocols`).

* :class:`GiniRelease` — the DP Gini release of Lan & Reiter (2025), eq. (9):
  ``g(X) + (S(X)/alpha) Z``, ``Z`` ~ density (10), ``S`` the beta-smooth sensitivity of
  :func:`kernels.gini.sensitivity.smooth_sensitivity` (eq. 23 corrected, k from 0), ``(alpha,
  beta)`` from :func:`kernels.gini.release.noise_constants`.  Neighbour relation: replace one
  record (data sets of the same size n in [L, U]^n).  Its ``variant`` selects a
  *deliberately broken* version, kept as an audit target (never a default):

  - ``"wrong-scale"``: the noise scale is ``scale_factor`` (default 1/10) times the correct
    one, i.e. alpha is 10x too large;
  - ``"laplace-noise"``: Laplace(1) noise in place of density (10), same scale ``S/alpha``
    (the smooth-sensitivity framework needs a heavy-tailed law for pure DP; with Laplace the
    log-density ratio of two different scales grows linearly in |y|: not epsilon-DP);
  - ``"local-sensitivity"``: scale ``A^(0)(X)/alpha`` — an upper bound on the *local*
    sensitivity instead of the smooth one (the classical mistake smooth sensitivity exists to
    fix: the scale itself leaks).

  ``snap`` (default True, as :func:`kernels.gini.release.release_gini`): the float output is
  clamped and rounded to a coarse power-of-two grid; ``snap=False`` is the plain float64
  sum, whose low-order bits leak (an audit target for the float-level testers).

The float64 ``location_scale`` computed here is the *kernel's* value (what the release
really uses); :meth:`GiniRelease.exact_location_scale` recomputes it with
:mod:`proofs.gini.reference` for the exact testers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

import mpmath
import numpy as np

from audit.privacy.noise_laws import LAPLACE, NoiseLaw
from audit.protocols import REPLACE_ONE
from kernels.errors import InvalidParameterError
from kernels.gini.index import gini_sorted
from kernels.gini.noise import laplace_logpdf, powerlaw, powerlaw_logpdf, sample_laplace
from kernels.gini.release import NoiseConstants, noise_constants, snap, snap_grid
from kernels.gini.sensitivity import local_sensitivity_bound, smooth_sensitivity
from kernels.gini.validate import as_incomes
from kernels.validate import check_positive, check_rng
from proofs.gini.noise_law import PowerLaw, powerlaw_logpdf_mp

__all__ = ["GINI_VARIANTS", "GiniRelease", "powerlaw_logpdf_mp"]

GiniVariant = Literal["correct", "wrong-scale", "laplace-noise", "local-sensitivity"]
GINI_VARIANTS: tuple[str, ...] = ("correct", "wrong-scale", "laplace-noise", "local-sensitivity")


def _as_mpf(v: Any) -> Any:
    if isinstance(v, Fraction):
        return mpmath.mpf(v.numerator) / v.denominator
    return mpmath.mpf(v)


@dataclass(frozen=True)
class GiniRelease:
    """The DP Gini release ``g(X) + (S(X)/alpha) Z`` (Lan & Reiter 2025, eqs. 9-10).

    ``claimed_epsilon`` is ``epsilon``: the guarantee the release claims under
    replace-one.  ``location_scale(X)`` validates X against [L, U] (values outside raise
    :class:`kernels.errors.OutOfBoundsError`; the release itself would have to clip).
    """

    lower: float
    upper: float
    epsilon: float
    gamma: float = 2.0
    constants: str = "alg3"
    bound: str = "thm43"
    variant: GiniVariant = "correct"
    scale_factor: float = 0.1
    snap: bool = True
    name: str = field(default="", compare=False)
    relation: str = field(default=REPLACE_ONE, init=False)
    relation_note: str = field(
        default="the Gini release is defined for replace-one neighbours only (fixed n; its "
        "smooth sensitivity is over size-n data sets)", init=False, compare=False)

    def __post_init__(self) -> None:
        if self.variant not in GINI_VARIANTS:
            raise InvalidParameterError(
                f"variant must be one of {GINI_VARIANTS}, got {self.variant!r}"
            )
        check_positive(self.scale_factor, "scale_factor")
        # validates epsilon, gamma and the constants' name
        c = noise_constants(self.epsilon, self.gamma, self.constants)  # type: ignore[arg-type]
        object.__setattr__(self, "_c", c)
        if not self.name:
            label = f"gini-release[{self.constants},{self.bound},gamma={self.gamma:g}]"
            if self.variant != "correct":
                label += f"<BROKEN:{self.variant}>"
            if not self.snap:
                label += "<unsnapped float64 output>"
            object.__setattr__(self, "name", label)
        object.__setattr__(self, "_grid", snap_grid(c.alpha) if self.snap else None)

    @property
    def noise_constants(self) -> NoiseConstants:
        return self._c  # type: ignore[attr-defined]

    @property
    def claimed_epsilon(self) -> float:
        return float(self.epsilon)

    @property
    def noise_name(self) -> str:
        return "laplace" if self.variant == "laplace-noise" else "powerlaw"

    @property
    def noise_law(self) -> NoiseLaw:
        """The law of Z: density (10) with this ``gamma`` (unit Laplace for the
        "laplace-noise" variant), for the exact-loss tester."""
        return LAPLACE if self.variant == "laplace-noise" else PowerLaw(self.gamma)

    def location_scale(self, dataset: Any) -> tuple[float, float]:
        xs, lo, hi = as_incomes(dataset, self.lower, self.upper, copy=False)
        c = self.noise_constants
        if self.variant == "local-sensitivity":
            s = local_sensitivity_bound(xs, lo, hi, bound=self.bound)  # type: ignore[arg-type]
        else:
            s = smooth_sensitivity(xs, lo, hi, c.beta, bound=self.bound).value  # type: ignore[arg-type]
        scale = s / c.alpha
        if self.variant == "wrong-scale":
            scale *= self.scale_factor
        return gini_sorted(xs), float(scale)

    def exact_location_scale(self, dataset: Any) -> tuple[Fraction, Any]:
        """(g(X) exactly, S(X)/alpha at 50 digits) from :mod:`proofs.gini.reference`: eq. (2)
        in Fractions and the smooth sensitivity (8) with the release's beta, bound and
        variant (A^(0) for "local-sensitivity", times ``scale_factor`` for "wrong-scale");
        alpha and beta are the floats the kernel uses, converted exactly."""
        from proofs.gini import reference

        c = self.noise_constants
        a, ss = reference.gini_and_smooth(dataset, self.lower, self.upper, c.beta,
                                          bound=self.bound)
        return self.location_scale_from_exact(a, ss)

    def location_scale_from_exact(self, a: Fraction, ss: Any) -> tuple[Fraction, Any]:
        """:meth:`exact_location_scale` from an already computed exact g(X) and
        :class:`proofs.gini.reference.SmoothRef` of this release's beta and bound (certify
        computes them once per run and passes them on instead of recomputing)."""
        c = self.noise_constants
        with mpmath.workdps(60):
            s = ss.value
            if self.variant == "local-sensitivity":
                s = _as_mpf(ss.A[0])
            b = s / mpmath.mpf(c.alpha)
            if self.variant == "wrong-scale":
                b = b * mpmath.mpf(self.scale_factor)
            b = +b
        return a, b

    def noise_logpdf(self, z: np.ndarray) -> np.ndarray:
        if self.noise_name == "laplace":
            return np.asarray(laplace_logpdf(z, 1.0))
        return np.asarray(powerlaw_logpdf(z, self.gamma))

    def noise_logpdf_mp(self, z: Any) -> Any:
        return self.noise_law.logpdf_mp(z)

    def sample_noise(self, size: int, rng: np.random.Generator) -> np.ndarray:
        rng = check_rng(rng)
        if self.noise_name == "laplace":
            return sample_laplace(rng, 1.0, size)
        return powerlaw(self.gamma).sample(rng, size)

    def output(self, location: float, scale: float, z: np.ndarray) -> np.ndarray:
        """The released values for noise draws ``z``: the float sum location + scale*z,
        snapped (:func:`kernels.gini.release.snap`) unless ``snap=False``.  Snapping is
        post-processing of the real-number output, so the exact-loss testers (which use
        ``location_scale`` and the real-number densities) bound the snapped release too."""
        y = location + scale * np.asarray(z, dtype=np.float64)
        grid = self._grid  # type: ignore[attr-defined]
        return y if grid is None else snap(y, grid)

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        loc, scale = self.location_scale(dataset)
        return self.output(loc, scale, self.sample_noise(size, rng))




# ----------------------------------------------------------------- Section 5.1 upper bound
def above_threshold_law(
    x: Any,
    epsilon_count: float,
    epsilon_threshold: float,
    *,
    start: float = 1.0,
    ratio: float = 1.001,
    max_guess: float = 1e15,
    inflation: float = 2.5,
    n: int | None = None,
    dps: int = 25,
) -> dict[float, Any]:
    """Exact law of the Section 5.1 DP upper bound U = inflation * x~ (Lan & Reiter 2025,
    Section 5.1; AboveThreshold of Dwork & Roth 2014, Algorithm 1), as written in the
    docstring of :func:`kernels.gini.release.dp_upper_bound` - an independent transcription,
    not a call of the kernel.

    n~ = n + Lap(1/e1), T^ = n~ + Lap(2/e2); guess t_i = start * ratio^i (i < m); query
    q_i = #{x <= t_i}; the first i with q_i + Lap(4/e2) >= T^ is x~; no hit gives the last
    guess.  With T = T^ - n = L1 + L2 (density of a sum of two Laplaces, closed form),

        P(x~ = t_i) = int f_T(t) prod_{j<i} F(n + t - q_j) (1 - F(n + t - q_i)) dt,

    F the Lap(4/e2) cdf (the last guess also collects the no-hit mass).  ``mpmath.quad`` on
    the pieces between the kinks (t = q_j - n and t = 0), ``dps`` digits.  ``n`` overrides
    the count (add/remove neighbours change it).  Returns {U value: probability} (mpf).
    The guesses are computed in float64 exactly as the kernel does (start * ratio**i)."""
    xs = np.sort(np.asarray(x, dtype=np.float64))
    nn = int(xs.size if n is None else n)
    m = int(math.floor(math.log(max_guess / start) / math.log(ratio))) + 1
    guesses = start * ratio ** np.arange(m, dtype=np.float64)
    q = np.searchsorted(xs, guesses, side="right")
    with mpmath.workdps(dps):
        b1 = mpmath.mpf(1) / mpmath.mpf(epsilon_count)
        b2 = mpmath.mpf(2) / mpmath.mpf(epsilon_threshold)
        b3 = mpmath.mpf(4) / mpmath.mpf(epsilon_threshold)

        def f_t(t: Any) -> Any:
            a = abs(t)
            if b1 == b2:
                return (b1 + a) * mpmath.exp(-a / b1) / (4 * b1 * b1)
            return (b1 * mpmath.exp(-a / b1) - b2 * mpmath.exp(-a / b2)) / (2 * (b1**2 - b2**2))

        def cdf(z: Any) -> Any:
            return mpmath.exp(z / b3) / 2 if z < 0 else 1 - mpmath.exp(-z / b3) / 2

        qs = [mpmath.mpf(int(v)) for v in q]
        kinks = sorted({mpmath.mpf(0)} | {v - nn for v in qs})
        pts = [-mpmath.inf, *kinks, mpmath.inf]
        out: dict[float, Any] = {}
        for i in range(m):
            last = i == m - 1

            def integrand(t: Any, i: int = i, last: bool = last) -> Any:
                p = f_t(t)
                for j in range(i):
                    p *= cdf(nn + t - qs[j])
                    if p == 0:
                        return p
                return p if last else p * (1 - cdf(nn + t - qs[i]))

            u = float(inflation * float(guesses[i]))
            out[u] = out.get(u, 0) + mpmath.quad(integrand, pts)
        return out


def above_threshold_max_log_ratio(p: dict[float, Any], p2: dict[float, Any]) -> float:
    """max over outputs of |log P(u) - log P'(u)| (mpmath; +inf if one is 0 and not the
    other), as a float rounded UP (a loss is never understated)."""
    worst = mpmath.mpf(0)
    for u in set(p) | set(p2):
        a, b = p.get(u, mpmath.mpf(0)), p2.get(u, mpmath.mpf(0))
        if a == 0 and b == 0:
            continue
        if a == 0 or b == 0:
            return math.inf
        worst = max(worst, abs(mpmath.log(a) - mpmath.log(b)))
    w = float(worst)
    return w if mpmath.mpf(w) >= worst else math.nextafter(w, math.inf)


class ShippedRelease:
    """The *shipped* release function (default :func:`kernels.gini.release.release_gini`,
    what ``dpaudit release`` runs; a third party passes its own callable with the same
    signature and ``size`` keyword) as a location-scale mechanism for the privacy testers.

    ``sample`` draws through the release function itself (``size`` draws per call);
    ``location_scale`` is the release's *declared* (gini, scale).  Everything exact
    (``exact_location_scale``, the noise densities) comes from the reference-side
    :class:`GiniRelease` with the same parameters, so the exact-loss link compares the
    shipped declaration with the exact reference.  No ``output``/``sample_noise``: a tester
    cannot bypass the release by drawing the noise itself."""

    _HIDDEN = ("output", "sample_noise")

    def __init__(self, release: Any, lower: float, upper: float, epsilon: float,
                 gamma: float = 2.0, constants: str = "alg3", bound: str = "thm43",
                 snap: bool = True) -> None:
        self.release = release
        self._ref = GiniRelease(lower, upper, epsilon, gamma, constants, bound, snap=snap)
        self.name = f"shipped:{getattr(release, '__module__', '?')}." \
                    f"{getattr(release, '__name__', 'release')}[{constants},{bound}]"
        self._kw = {"gamma": gamma, "constants": constants, "bound": bound, "snap_output": snap}

    def __getattr__(self, name: str) -> Any:
        if name in ShippedRelease._HIDDEN or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._ref, name)

    def declared(self, dataset: Any, rng: np.random.Generator, size: int) -> Any:
        r = self._ref
        return self.release(dataset, r.lower, r.upper, r.epsilon, rng, size=size, **self._kw)

    def location_scale(self, dataset: Any) -> tuple[float, float]:
        res = self.declared(dataset, np.random.default_rng(0), 1)
        return float(res.gini), float(res.scale)

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.asarray(self.declared(dataset, rng, size).value, dtype=np.float64)
