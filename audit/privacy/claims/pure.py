"""Pure epsilon-DP as a trade-off function: f_eps(a) = max(0, 1 - e^eps a, e^-eps (1 - a))
(Dong, Roth & Su 2019, Proposition 2.5 with delta = 0): the (epsilon, 0) case of
:mod:`audit.privacy.claims.approx`, same rounding (f down, epsilon* down)."""

from __future__ import annotations

from typing import Any

from audit.privacy.claims.approx import ApproxDP

__all__ = ["PureDP"]


class PureDP(ApproxDP):
    """Pure epsilon-DP: every event has P[E|D] <= e^eps P[E|D'] (both orders)."""

    family = "pure"

    def __init__(self, eps: float) -> None:
        super().__init__(eps, 0.0)

    def spec(self) -> str:
        return f"pure:eps={self.eps!r}"

    def describe(self) -> str:
        return f"{self.eps:g}-DP (pure)"

    def parameters(self) -> dict[str, Any]:
        return {"epsilon": self.eps}
