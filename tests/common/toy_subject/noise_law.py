"""The hyperbolic secant law as a :class:`audit.privacy.noise_laws.NoiseLaw` (a law the
engine does not own).

Density f(z) = (1/2) sech(pi z / 2) (Johnson, Kotz & Balakrishnan, *Continuous Univariate
Distributions* vol. 2, ch. 23 "hyperbolic secant"), log-density
l(z) = -log 2 - log cosh(pi z / 2).  Its derivative -(pi/2) tanh(pi z / 2) is bounded by pi/2
in absolute value, so for outputs a + b Z and a' + b Z the loss L(y) is bounded by
(pi/2) |a - a'| / b, and as y -> +-inf, log cosh(x) = |x| - log 2 + o(1) gives
L -> +-(pi/2)(a - a')/b: the bound is the supremum.  With different scales the tails differ
in slope (pi/2)(1/b' - 1/b) and |L| is unbounded.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np

from audit.privacy.noise_laws import NoiseLaw

__all__ = ["HYPERBOLIC_SECANT", "HyperbolicSecant", "sample"]

_HALF_PI = math.pi / 2


class HyperbolicSecant(NoiseLaw):
    """Z with density (1/2) sech(pi z / 2): mean 0, variance 1."""

    name = "hyperbolic-secant"
    cross_check = True  # report the closed-form sup beside the certified loss

    def logpdf(self, z: np.ndarray) -> np.ndarray:
        x = _HALF_PI * np.abs(np.asarray(z, dtype=np.float64))
        # log cosh x = x + log1p(e^{-2x}) - log 2, so l = -x - log1p(e^{-2x}) (no overflow)
        return -x - np.log1p(np.exp(-2.0 * x))

    def logpdf_mp(self, z: Any) -> Any:
        return -mpmath.log(2) - mpmath.log(mpmath.cosh(mpmath.pi * mpmath.mpf(z) / 2))

    def tail_limits(self, a: Any, b: Any, a2: Any, b2: Any) -> tuple[Any, Any]:
        h = mpmath.pi / 2
        if b == b2:
            return h * (a - a2) / b, h * (a2 - a) / b
        inf = mpmath.inf if (1 / b2 - 1 / b) > 0 else -mpmath.inf
        return inf, inf

    def sup_loss(self, a: float, b: float, a2: float, b2: float) -> float | None:
        return _HALF_PI * abs(a - a2) / b if b == b2 else math.inf


HYPERBOLIC_SECANT = HyperbolicSecant()


def sample(rng: np.random.Generator, size: Any) -> np.ndarray:
    """Draws of Z by inversion: F^{-1}(u) = (2/pi) log tan(pi u / 2)."""
    u = rng.random(size)
    return (2.0 / math.pi) * np.log(np.tan(math.pi * u / 2.0))
