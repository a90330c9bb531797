"""An explicit f-DP claim (Dong, Roth & Su 2019, Definition 2.3): every event's
(a, b) = (P[E|D], 1 - P[E|D']) satisfies b >= f(a) for a curve f given by points
(x_0 = 0, y_0), ..., (x_k = 1, y_k) and linear interpolation between them.

The points must be a trade-off function's: x strictly increasing from 0 to 1, y
non-increasing, 0 <= y_i <= 1 - x_i.  The family has no parameter, so the strongest
refuted claim is reported as the largest gap f(a_U) - b_U (rounded down, in mpmath).
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np

from audit.privacy.claims import mp
from audit.privacy.claims.base import Claim, CornerVerdict, lower_float
from kernels.errors import InvalidParameterError

__all__ = ["ExplicitFDP"]


class ExplicitFDP(Claim):
    """f-DP for a piecewise-linear f through the given points (module docstring)."""

    family = "fdp"

    def __init__(self, points: Any) -> None:
        try:
            pts = [(float(x), float(y)) for x, y in points]
        except (TypeError, ValueError):
            raise InvalidParameterError(f"f-DP points must be (x, y) pairs, got "
                                        f"{points!r}") from None
        if len(pts) < 2 or pts[0][0] != 0.0 or pts[-1][0] != 1.0:
            raise InvalidParameterError(f"f-DP points must start at x = 0 and end at x = 1, "
                                        f"got {pts!r}")
        for i, (x, y) in enumerate(pts):
            if not (math.isfinite(y) and 0.0 <= y <= 1.0 - x):
                raise InvalidParameterError(f"f-DP point ({x!r}, {y!r}): a trade-off value "
                                            f"must lie in [0, 1 - x]")
            if i and (x <= pts[i - 1][0] or y > pts[i - 1][1]):
                raise InvalidParameterError(
                    f"f-DP points must have increasing x and non-increasing y, got "
                    f"({pts[i - 1][0]!r}, {pts[i - 1][1]!r}) then ({x!r}, {y!r})")
        self.points = tuple(pts)
        self._x = np.array([p[0] for p in pts])
        self._y = np.array([p[1] for p in pts])

    def f_lower(self, a: Any) -> np.ndarray:
        return lower_float(np.interp(np.asarray(a, dtype=np.float64), self._x, self._y))

    def excess(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.interp(np.asarray(a, dtype=np.float64), self._x, self._y) - np.asarray(b)

    def _f_mp(self, a: Any) -> Any:
        for (x0, y0), (x1, y1) in zip(self.points, self.points[1:], strict=False):
            if a <= mp.param(x1):
                X0, Y0, X1, Y1 = (mp.param(v) for v in (x0, y0, x1, y1))
                return Y0 + (Y1 - Y0) * (a - X0) / (X1 - X0)
        return mpmath.mpf(self.points[-1][1])

    def certify_corner(self, a_up: float, b_up: float) -> CornerVerdict:
        with mp.workprec():
            gap = self._f_mp(mp.exact(a_up)) - mp.exact(b_up)
            return CornerVerdict(bool(gap > 0), {"gap": max(0.0, mp.down(gap))})

    def spec(self) -> str:
        return "fdp:" + ",".join(f"{x!r}:{y!r}" for x, y in self.points)

    def describe(self) -> str:
        return f"f-DP for an explicit curve through {len(self.points)} points"

    def parameters(self) -> dict[str, Any]:
        return {"points": [list(p) for p in self.points]}
