"""(alpha, epsilon)-Renyi DP (Mironov 2017) at one or several orders as a trade-off region.

Exact region (:mod:`audit.privacy.claims.bernoulli_renyi`): (p, q) = (P[E|D], P[E|D']) is
feasible iff D_alpha(Bern(p) || Bern(q)) <= eps_alpha at every claimed order (both orders
of the pair).  The strongest refuted claim is, per order, "eps_alpha >= D_alpha(corner)"
(computed in mpmath, rounded down); the claim is refuted when that exceeds the claimed
eps_alpha at some order.  The (epsilon, delta(epsilon)) conversion of the same claim
(Canonne-Kamath-Steinke 2020, Proposition 12) is
:func:`audit.privacy.claims.conversions.rdp_delta`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from audit.privacy.claims import mp
from audit.privacy.claims.base import Claim, CornerVerdict
from audit.privacy.claims.bernoulli_renyi import corner_mp, renyi_bern_mp, sym_renyi_bern
from audit.privacy.claims.zcdp import curve_by_bisection
from kernels.errors import InvalidParameterError

__all__ = ["RenyiDP"]

_FLOAT_MARGIN = 2.0**-30


class RenyiDP(Claim):
    """(alpha_i, eps_i)-RDP for every claimed order (module docstring)."""

    family = "rdp"

    def __init__(self, orders: Any) -> None:
        pairs = []
        try:
            items = [(float(a), float(e)) for a, e in orders]
        except (TypeError, ValueError):
            raise InvalidParameterError(
                f"RDP orders must be (alpha, epsilon) pairs, got {orders!r}") from None
        for a, e in items:
            if not (math.isfinite(a) and a > 1):
                raise InvalidParameterError(f"RDP order alpha must be a finite number > 1, "
                                            f"got {a!r}")
            if not (math.isfinite(e) and e > 0):
                raise InvalidParameterError(f"RDP epsilon at alpha={a!r} must be a finite "
                                            f"number > 0, got {e!r}")
            pairs.append((a, e))
        if not pairs:
            raise InvalidParameterError("an RDP claim needs at least one (alpha, epsilon)")
        if len({a for a, _ in pairs}) != len(pairs):
            raise InvalidParameterError(f"RDP orders repeat: {[a for a, _ in pairs]!r}")
        self.orders = tuple(sorted(pairs))
        self._al = np.array([a for a, _ in self.orders])
        self._eps = np.array([e for _, e in self.orders])

    def _infeasible(self, a: float, b: float) -> bool:
        v = sym_renyi_bern(self._al, a, 1.0 - b) * (1 - _FLOAT_MARGIN)
        return bool(np.any(v > self._eps))

    def f_lower(self, a: Any) -> np.ndarray:
        return curve_by_bisection(self._infeasible, a)

    def excess(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        p = np.asarray(a, dtype=np.float64)[:, None]
        q = 1.0 - np.asarray(b, dtype=np.float64)[:, None]
        v = sym_renyi_bern(self._al[None, :], p, q) / self._eps[None, :]
        return np.max(v, axis=1) - 1.0

    def certify_corner(self, a_up: float, b_up: float) -> CornerVerdict:
        strongest: dict[str, float] = {}
        refuted = False
        with mp.workprec():
            p, q = corner_mp(a_up, b_up)
            for al, eps in self.orders:
                a_mp = mp.param(al)
                val = max(renyi_bern_mp(a_mp, p, q), renyi_bern_mp(a_mp, q, p))
                refuted = refuted or bool(val > mp.param(eps))
                strongest[f"eps@alpha={al:g}"] = max(0.0, mp.down(val))
        return CornerVerdict(refuted, strongest)

    def spec(self) -> str:
        return "rdp:" + ",".join(f"alpha={a!r}:eps={e!r}" for a, e in self.orders)

    def describe(self) -> str:
        return "RDP " + ", ".join(f"(alpha {a:g}, eps {e:g})" for a, e in self.orders)

    def parameters(self) -> dict[str, Any]:
        return {"orders": [{"alpha": a, "epsilon": e} for a, e in self.orders]}
