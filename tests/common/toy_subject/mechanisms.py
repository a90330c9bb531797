"""The toy release: the sum of the records plus b Z, Z hyperbolic secant
(:mod:`.noise_law`).

Replace-one neighbours of records in [lower, upper] have sums at most d = upper - lower
apart, so the loss is (pi/2) d / b (:mod:`.noise_law`); ``ToySum`` sets b = (pi/2) d / eps
(eps-DP exactly), its broken twin ``laplace_scale=True`` sets b = d / eps, the Laplace
mechanism's scale, whose loss is (pi/2) eps > eps.  A record outside [lower, upper] is refused
(:class:`kernels.errors.OutOfBoundsError`): the mechanism's domain.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from audit.protocols import REPLACE_ONE
from kernels.errors import OutOfBoundsError

from .noise_law import HYPERBOLIC_SECANT, sample

__all__ = ["ToySum", "catalogue"]


@dataclass
class ToySum:
    """A location-scale mechanism (:class:`audit.protocols.LocationScaleMechanism`)."""

    lower: float
    upper: float
    epsilon: float
    laplace_scale: bool = False  # the broken twin
    name: str = "toy-sum"
    relation: str = REPLACE_ONE
    noise_law = HYPERBOLIC_SECANT

    @property
    def claimed_epsilon(self) -> float:
        return self.epsilon

    @property
    def scale(self) -> float:
        d = self.upper - self.lower
        return d / self.epsilon if self.laplace_scale else (math.pi / 2) * d / self.epsilon

    def location_scale(self, data: Any) -> tuple[float, float]:
        x = np.asarray(data, dtype=np.float64)
        out = x[(x < self.lower) | (x > self.upper)]
        if out.size:
            raise OutOfBoundsError(f"record {float(out[0])!r} lies outside "
                                   f"[{self.lower:g}, {self.upper:g}]", param="data")
        return float(np.sum(x)), self.scale

    def noise_logpdf(self, z: np.ndarray) -> np.ndarray:
        return HYPERBOLIC_SECANT.logpdf(z)

    def noise_logpdf_mp(self, z: Any) -> Any:
        return HYPERBOLIC_SECANT.logpdf_mp(z)

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        a, b = self.location_scale(data)
        return a + b * sample(rng, size)


def catalogue() -> dict[str, str]:
    """The mechanisms this subject offers to the privacy testers."""
    return {"toy-sum": "sum + hyperbolic secant noise, scale (pi/2)(U - L)/eps (eps-DP)",
            "toy-sum-laplace-scale": "broken twin: scale (U - L)/eps, loss (pi/2) eps"}
