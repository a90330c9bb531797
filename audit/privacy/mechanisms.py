"""Mechanisms under privacy test, in the shape of :mod:`audit.protocols`.

* :class:`LaplaceMechanism` — ``f(D) + Lap(sensitivity/epsilon)`` for a real query ``f``
  (default: the sum of records in [0, 1], sensitivity 1 under replace-one and add/remove).
  Used to calibrate the black-box tester (its true epsilon is known exactly).  Its
  ``noise_scale_factor`` / ``noise`` arguments give broken variants for power tests.
* :class:`CachedLocationScale` — any location-scale mechanism with (location, scale)
  computed once per data set.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import mpmath
import numpy as np

from audit.privacy.noise_laws import LAPLACE
from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE
from kernels.errors import InvalidParameterError
from kernels.validate import as_data, check_epsilon, check_positive, check_rng

__all__ = ["CachedLocationScale", "LaplaceMechanism"]


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
            return LAPLACE.logpdf_mp(z)
        return -mpmath.log(4 * mpmath.pi) / 2 - z * z / 4

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        rng = check_rng(rng)
        v = self._value(dataset)
        if self.noise == "laplace":
            return v + rng.laplace(0.0, self.scale, size)
        return v + rng.normal(0.0, self.scale * math.sqrt(2.0), size)


class CachedLocationScale:
    """A location-scale mechanism with its (location, scale) computed once per data set.

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
        if not (hasattr(self.mech, "output") and hasattr(self.mech, "sample_noise")):
            return self.mech.sample(d, size, rng)
        a, b = self.location_scale(d)
        return self.mech.output(a, b, self.mech.sample_noise(size, rng))
