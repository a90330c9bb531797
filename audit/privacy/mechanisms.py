"""Mechanisms under privacy test, in the shape of :mod:`audit.privacy.protocols`.

* :class:`GiniRelease` — the DP Gini release of Lan & Reiter (2025), eq. (9):
  ``g(X) + (S(X)/alpha) Z``, ``Z`` ~ density (10), ``S`` the beta-smooth sensitivity of
  :func:`kernels.sensitivity.smooth_sensitivity` (eq. 23 corrected, k from 0), ``(alpha,
  beta)`` from :func:`kernels.release.noise_constants`.  Neighbour relation: replace one
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

  ``snap`` (default True, as :func:`kernels.release.release_gini`): the float output is
  clamped and rounded to a coarse power-of-two grid; ``snap=False`` is the plain float64
  sum, whose low-order bits leak (an audit target for the float-level testers).

* :class:`LaplaceMechanism` — ``f(D) + Lap(sensitivity/epsilon)`` for a real query ``f``
  (default: the sum of records in [0, 1], sensitivity 1 under replace-one and add/remove).
  Used to calibrate the black-box tester (its true epsilon is known exactly).  Its
  ``noise_scale_factor`` / ``noise`` arguments give broken variants for power tests.

The float64 ``location_scale`` computed here is the *kernel's* value (what the release
really uses); exact testers recompute it with :mod:`audit.reference` where they need to.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import mpmath
import numpy as np

from audit.privacy.protocols import ADD_REMOVE_ONE, REPLACE_ONE
from kernels.errors import InvalidParameterError
from kernels.gini import gini_sorted
from kernels.noise import laplace_logpdf, powerlaw, powerlaw_logpdf, sample_laplace
from kernels.release import NoiseConstants, noise_constants, snap, snap_grid
from kernels.sensitivity import local_sensitivity_bound, smooth_sensitivity
from kernels.validate import as_data, as_incomes, check_epsilon, check_positive, check_rng

__all__ = [
    "CachedLocationScale",
    "GINI_VARIANTS",
    "GiniRelease",
    "LaplaceMechanism",
    "powerlaw_logpdf_mp",
]

GiniVariant = Literal["correct", "wrong-scale", "laplace-noise", "local-sensitivity"]
GINI_VARIANTS: tuple[str, ...] = ("correct", "wrong-scale", "laplace-noise", "local-sensitivity")


def powerlaw_logpdf_mp(z: Any, gamma: float) -> Any:
    """log of density (10) at mpmath precision: log(c) - log(1 + |z|^gamma),
    c = gamma sin(pi/gamma)/(2 pi) (Lan & Reiter eq. (10); constant derived in
    :mod:`kernels.noise`).  ``gamma`` is converted exactly from its float value."""
    g = mpmath.mpf(gamma)
    c = g * mpmath.sin(mpmath.pi / g) / (2 * mpmath.pi)
    return mpmath.log(c) - mpmath.log1p(mpmath.power(abs(mpmath.mpf(z)), g))


def _laplace_logpdf_mp(z: Any) -> Any:
    return -mpmath.log(2) - abs(mpmath.mpf(z))


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

    def location_scale(self, dataset: Any) -> tuple[float, float]:
        xs, lo, hi = as_incomes(dataset, self.lower, self.upper)
        c = self.noise_constants
        if self.variant == "local-sensitivity":
            s = local_sensitivity_bound(xs, lo, hi, bound=self.bound)  # type: ignore[arg-type]
        else:
            s = smooth_sensitivity(xs, lo, hi, c.beta, bound=self.bound).value  # type: ignore[arg-type]
        scale = s / c.alpha
        if self.variant == "wrong-scale":
            scale *= self.scale_factor
        return gini_sorted(xs), float(scale)

    def noise_logpdf(self, z: np.ndarray) -> np.ndarray:
        if self.noise_name == "laplace":
            return np.asarray(laplace_logpdf(z, 1.0))
        return np.asarray(powerlaw_logpdf(z, self.gamma))

    def noise_logpdf_mp(self, z: Any) -> Any:
        if self.noise_name == "laplace":
            return _laplace_logpdf_mp(z)
        return powerlaw_logpdf_mp(z, self.gamma)

    def sample_noise(self, size: int, rng: np.random.Generator) -> np.ndarray:
        rng = check_rng(rng)
        if self.noise_name == "laplace":
            return sample_laplace(rng, 1.0, size)
        return powerlaw(self.gamma).sample(rng, size)

    def output(self, location: float, scale: float, z: np.ndarray) -> np.ndarray:
        """The released values for noise draws ``z``: the float sum location + scale*z,
        snapped (:func:`kernels.release.snap`) unless ``snap=False``.  Snapping is
        post-processing of the real-number output, so the exact-loss testers (which use
        ``location_scale`` and the real-number densities) bound the snapped release too."""
        y = location + scale * np.asarray(z, dtype=np.float64)
        grid = self._grid  # type: ignore[attr-defined]
        return y if grid is None else snap(y, grid)

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        loc, scale = self.location_scale(dataset)
        return self.output(loc, scale, self.sample_noise(size, rng))


def _sum01(d: np.ndarray) -> float:
    return float(np.sum(d))


@dataclass(frozen=True)
class LaplaceMechanism:
    """``f(D) + Lap(b)`` with ``b = noise_scale_factor * sensitivity / epsilon``.

    Correct (``noise_scale_factor = 1``, ``noise = "laplace"``) it is exactly
    epsilon-DP for any query of that sensitivity, and its privacy loss on a pair with
    ``|f(D) - f(D')| = sensitivity`` is exactly epsilon: a calibration target with a known
    answer.  Broken variants: ``noise_scale_factor < 1`` (true epsilon is
    ``epsilon / noise_scale_factor``) and ``noise = "gaussian"`` (Gaussian with the same
    standard deviation: no finite pure epsilon).  The default query is the sum of the
    records, which must lie in [0, 1] (sensitivity 1 under both relations).
    """

    epsilon: float
    sensitivity: float = 1.0
    query: Callable[[np.ndarray], float] = _sum01
    noise_scale_factor: float = 1.0
    noise: Literal["laplace", "gaussian"] = "laplace"
    relation: str = REPLACE_ONE
    name: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        check_epsilon(self.epsilon)
        check_positive(self.sensitivity, "sensitivity")
        check_positive(self.noise_scale_factor, "noise_scale_factor")
        if self.noise not in ("laplace", "gaussian"):
            raise InvalidParameterError(
                f"noise must be 'laplace' or 'gaussian', got {self.noise!r}"
            )
        if self.relation not in (REPLACE_ONE, ADD_REMOVE_ONE):
            raise InvalidParameterError(f"unknown neighbour relation {self.relation!r}")
        if not self.name:
            label = f"laplace[eps={self.epsilon:g}]"
            if self.noise_scale_factor != 1.0 or self.noise != "laplace":
                label += f"<BROKEN:{self.noise},x{self.noise_scale_factor:g}>"
            object.__setattr__(self, "name", label)

    @property
    def claimed_epsilon(self) -> float:
        return float(self.epsilon)

    @property
    def scale(self) -> float:
        return self.noise_scale_factor * self.sensitivity / self.epsilon

    def _value(self, dataset: Any) -> float:
        d = as_data(dataset, "dataset", min_n=0)
        if self.query is _sum01 and d.size and (d[0] < 0 or d[-1] > 1):
            raise InvalidParameterError(
                f"the default sum query needs records in [0, 1]; got range [{d[0]!r}, {d[-1]!r}]"
            )
        return float(self.query(d))

    def location_scale(self, dataset: Any) -> tuple[float, float]:
        return self._value(dataset), self.scale

    def noise_logpdf(self, z: np.ndarray) -> np.ndarray:
        z = np.asarray(z, dtype=np.float64)
        if self.noise == "laplace":
            return -math.log(2.0) - np.abs(z)
        # unit-variance-matched Gaussian: Laplace(1) has variance 2
        return -0.5 * math.log(2 * math.pi * 2.0) - z * z / 4.0

    def noise_logpdf_mp(self, z: Any) -> Any:
        z = mpmath.mpf(z)
        if self.noise == "laplace":
            return _laplace_logpdf_mp(z)
        return -mpmath.log(4 * mpmath.pi) / 2 - z * z / 4

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        rng = check_rng(rng)
        v = self._value(dataset)
        if self.noise == "laplace":
            return v + rng.laplace(0.0, self.scale, size)
        return v + rng.normal(0.0, self.scale * math.sqrt(2.0), size)


class CachedLocationScale:
    """A :class:`GiniRelease` with its (location, scale) computed once per data set.

    Testers call ``sample`` once per chunk of draws, and the smooth sensitivity of 61,395
    records costs 0.1-4 s; the sampling law is unchanged (``mech.output`` of the release's
    own noise draws, snapped or not as the release is).  Other mechanisms pass through.
    """

    def __init__(self, mech: Any) -> None:
        self.mech = mech
        self.name = mech.name
        self.claimed_epsilon = mech.claimed_epsilon
        self.relation = mech.relation
        self._cache: dict[bytes, tuple[float, float]] = {}

    def location_scale(self, d: Any) -> tuple[float, float]:
        key = np.ascontiguousarray(d, dtype=np.float64).tobytes()
        if key not in self._cache:
            self._cache[key] = self.mech.location_scale(d)
        return self._cache[key]

    def sample(self, d: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        if not isinstance(self.mech, GiniRelease):
            return self.mech.sample(d, size, rng)
        a, b = self.location_scale(d)
        return self.mech.output(a, b, self.mech.sample_noise(size, rng))
