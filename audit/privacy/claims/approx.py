"""(epsilon, delta)-DP as a trade-off function.

f_{eps,delta}(a) = max(0, 1 - delta - e^eps a, e^-eps (1 - delta - a))  (Dong, Roth & Su 2019,
Proposition 2.5; Wasserman & Zhou 2010).  A pair (a, b) = (P[E|D], 1 - P[E|D']) is
infeasible iff eps < eps*(a, b) = max(log((1 - b - delta) / a), log((1 - a - delta) / b)),
so the strongest refuted claim of the family (delta fixed) is "epsilon >= eps*".

Rounding: :meth:`ApproxDP.f_lower` is the float64 value lowered by a relative 2^-36
(:func:`~audit.privacy.claims.base.lower_float`); :meth:`ApproxDP.certify_corner` computes
eps* in mpmath from the exact corner and the claim's decimal parameters and rounds it down.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np

from audit.privacy.claims import mp
from audit.privacy.claims.base import Claim, CornerVerdict, lower_float
from kernels.errors import InvalidParameterError

__all__ = ["ApproxDP", "eps_star_float"]


def _check(eps: Any, delta: Any) -> tuple[float, float]:
    try:
        e, d = float(eps), float(delta)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"epsilon and delta must be numbers, got {eps!r}, "
                                    f"{delta!r}") from None
    if not (math.isfinite(e) and e >= 0):
        raise InvalidParameterError(f"epsilon must be a finite number >= 0, got {eps!r}")
    if not 0.0 <= d < 1.0:
        raise InvalidParameterError(f"delta must be in [0, 1), got {delta!r}")
    return e, d


def eps_star_float(a: np.ndarray, b: np.ndarray, delta: float) -> np.ndarray:
    """max(log((1 - b - delta) / a), log((1 - a - delta) / b)) in float64 (log of a
    non-positive number = -inf, of x / 0 = +inf): the smallest refuted-free epsilon."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        u = 1.0 - b - delta
        v = 1.0 - a - delta
        r1 = np.where(u > 0, np.log(np.where(u > 0, u, 1.0)) - np.log(a), -np.inf)
        r2 = np.where(v > 0, np.log(np.where(v > 0, v, 1.0)) - np.log(b), -np.inf)
    return np.maximum(r1, r2)


class ApproxDP(Claim):
    """(epsilon, delta)-DP (module docstring); ``delta = 0`` is pure epsilon-DP."""

    family = "approx"

    def __init__(self, eps: float, delta: float) -> None:
        self.eps, self.delta = _check(eps, delta)

    def f_lower(self, a: Any) -> np.ndarray:
        x = np.asarray(a, dtype=np.float64)
        e = self.eps
        v = np.maximum.reduce([np.zeros_like(x), 1.0 - self.delta - math.exp(e) * x,
                               math.exp(-e) * (1.0 - self.delta - x)])
        return lower_float(v)

    def excess(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        es = eps_star_float(a, b, self.delta)
        return (es - self.eps) / max(self.eps, 1e-12)

    def certify_corner(self, a_up: float, b_up: float) -> CornerVerdict:
        with mp.workprec():
            a, b, d = mp.exact(a_up), mp.exact(b_up), mp.param(self.delta)
            cands = []
            for num, den in ((1 - b - d, a), (1 - a - d, b)):
                if num > 0:
                    cands.append(mpmath.inf if den == 0 else mpmath.log(num / den))
            if not cands:
                return CornerVerdict(False, {"epsilon": 0.0}, {"delta": self.delta})
            best = max(cands)
            refuted = bool(best > mp.param(self.eps))
            lo = mp.down(best)
        return CornerVerdict(refuted, {"epsilon": max(0.0, lo)}, {"delta": self.delta})

    def spec(self) -> str:
        return f"approx:eps={self.eps!r},delta={self.delta!r}"

    def describe(self) -> str:
        return f"({self.eps:g}, {self.delta:g})-DP"

    def parameters(self) -> dict[str, Any]:
        return {"epsilon": self.eps, "delta": self.delta}
