"""rho-zero-concentrated DP (Bun & Steinke 2016, Definition 1.1): D_alpha(M(D) || M(D'))
<= rho alpha for every alpha > 1, as a trade-off region.

Exact region (:mod:`audit.privacy.claims.bernoulli_renyi`): an event's (p, q) =
(P[E|D], P[E|D']) is feasible iff sup_{alpha > 1} D_alpha(Bern(p) || Bern(q)) / alpha <= rho
(both orders).  So the strongest refuted claim is "rho >= rho*" with rho* that supremum:
any order alpha gives a sound lower bound D_alpha / alpha; the order is found by a float64
search and the value at that order computed in mpmath and rounded down.

The (epsilon, delta(epsilon)) curve of the claim — the Canonne-Kamath-Steinke 2020
conversion (Proposition 12 of "The discrete Gaussian for differential privacy") over all
alpha, :func:`audit.privacy.claims.conversions.zcdp_delta` — is a weaker region that this
one contains; it is what dp_accounting reports and is used to cross-check.

:meth:`ZCDP.f_lower`: the trade-off curve, by bisection on b of the float64 check with the
divergence lowered by a relative 2^-30 (rounded down: every b below the returned value was
shown infeasible by some order).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from audit.privacy.claims import mp
from audit.privacy.claims.base import Claim, CornerVerdict, lower_float
from audit.privacy.claims.bernoulli_renyi import (
    ALPHA_GRID,
    best_order,
    corner_mp,
    renyi_bern_mp,
    sym_renyi_bern,
)
from kernels.errors import InvalidParameterError

__all__ = ["ZCDP", "curve_by_bisection"]

_FLOAT_MARGIN = 2.0**-30


def curve_by_bisection(infeasible: Any, a: Any) -> np.ndarray:
    """f(a) = inf{b : (a, b) feasible} by bisection on b in [0, 1 - a] of a float check
    ``infeasible(a, b)``; returns the largest b shown infeasible (rounded down)."""
    xs = np.atleast_1d(np.asarray(a, dtype=np.float64))
    out = np.zeros_like(xs)
    for i, x in enumerate(xs):
        lo, hi = 0.0, max(0.0, 1.0 - float(x))
        if hi == 0.0 or not infeasible(float(x), 0.0):
            continue
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            if infeasible(float(x), mid):
                lo = mid
            else:
                hi = mid
        out[i] = lo
    return lower_float(out.reshape(np.shape(a)) if np.ndim(a) else out[0])


class ZCDP(Claim):
    """rho-zCDP (module docstring)."""

    family = "zcdp"

    def __init__(self, rho: float) -> None:
        r = float(rho)
        if not (math.isfinite(r) and r > 0):
            raise InvalidParameterError(f"rho must be a finite number > 0, got {rho!r}")
        self.rho = r

    def _infeasible(self, a: float, b: float) -> bool:
        v = float(np.max(sym_renyi_bern(ALPHA_GRID, a, 1.0 - b) / ALPHA_GRID))
        if v * (1 - _FLOAT_MARGIN) > self.rho:
            return True
        if v < 0.98 * self.rho:  # far from the bound: a refinement cannot reach it
            return False
        # the ratio can peak sharply between grid orders: refine before saying feasible
        al = best_order(a, 1.0 - b, lambda x: 1.0 / np.asarray(x))
        v = float(sym_renyi_bern(al, a, 1.0 - b)) / al
        return bool(v * (1 - _FLOAT_MARGIN) > self.rho)

    def f_lower(self, a: Any) -> np.ndarray:
        return curve_by_bisection(self._infeasible, a)

    def excess(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        p = np.asarray(a, dtype=np.float64)[:, None]
        q = 1.0 - np.asarray(b, dtype=np.float64)[:, None]
        v = sym_renyi_bern(ALPHA_GRID[None, :], p, q) / ALPHA_GRID[None, :]
        return np.max(v, axis=1) / self.rho - 1.0

    def certify_corner(self, a_up: float, b_up: float) -> CornerVerdict:
        alpha = best_order(a_up, 1.0 - b_up, lambda al: 1.0 / np.asarray(al))
        with mp.workprec():
            p, q = corner_mp(a_up, b_up)
            al = mp.exact(alpha)
            val = max(renyi_bern_mp(al, p, q), renyi_bern_mp(al, q, p)) / al
            refuted = bool(val > mp.param(self.rho))
            lo = mp.down(val)
        return CornerVerdict(refuted, {"rho": max(0.0, lo)}, {"alpha": alpha})

    def spec(self) -> str:
        return f"zcdp:rho={self.rho!r}"

    def describe(self) -> str:
        return f"{self.rho:g}-zCDP (rho = {self.rho:g})"

    def parameters(self) -> dict[str, Any]:
        return {"rho": self.rho}
