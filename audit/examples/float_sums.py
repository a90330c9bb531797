"""Bounded sums as DP libraries write them: subjects for the exact sensitivity check.

Each class exposes its un-noised aggregate ``query(data)`` and its claimed ``sensitivity``
(the ``l1`` bound under replace-one for records in ``[LOWER, UPPER]``), the shape
:func:`audit.privacy.sensitivity_check.check_sensitivity` and ``dpaudit test`` read.

* :class:`NaiveFloatSum` — clamp, then add left to right in float64, claiming ``U - L``:
  the real-number sensitivity, which the float sum exceeds through rounding
  (Casacuberta, Shoemate, Vadhan & Wagaman, CCS 2022, Section 3): **wrong**.
* :class:`IntegerSum` — records are integers in ``[L, U]`` summed exactly (Python ints):
  sensitivity exactly ``U - L``: **correct**.
* :class:`BoundedErrorFloatSum` — the same float sum, claiming ``U - L`` plus twice the
  standard worst-case error bound of recursive summation, ``(n - 1) * 2^-53 * sum |x_i|``
  <= ``n^2 * 2^-53 * max(|L|, |U|)`` for each of the two sums (Higham, *Accuracy and
  Stability of Numerical Algorithms*, 2nd ed., eq. (4.4)), as a function of ``n``: **correct**.

The noise is Laplace with scale ``sensitivity / EPSILON`` (drawn from the given Generator),
so each class is also a full mechanism for ``dpaudit test``.
"""

from __future__ import annotations

import numpy as np

LOWER, UPPER, EPSILON = 0.0, 1.0, 1.0


def _iterative_sum(data: np.ndarray, lo: float, hi: float) -> float:
    x = np.clip(np.asarray(data, dtype=np.float64), lo, hi)
    # np.add.accumulate adds strictly left to right (np.sum would sum pairwise)
    return float(np.add.accumulate(x)[-1]) if x.size else 0.0


class NaiveFloatSum:
    """Clamped left-to-right float sum claiming sensitivity ``U - L`` (wrong in float)."""

    lower, upper, epsilon = LOWER, UPPER, EPSILON
    sensitivity = UPPER - LOWER
    norm = "l1"

    def query(self, data: np.ndarray) -> float:
        return _iterative_sum(data, self.lower, self.upper)

    def sample(self, data: np.ndarray, rng: np.random.Generator) -> float:
        return self.query(data) + rng.laplace(0.0, self.sensitivity / self.epsilon)


class IntegerSum:
    """Records rounded to integers in ``[L, U]``, summed exactly: sensitivity ``U - L``."""

    lower, upper, epsilon = LOWER, UPPER, EPSILON
    sensitivity = UPPER - LOWER
    norm = "l1"

    def query(self, data: np.ndarray) -> int:
        x = np.clip(np.rint(np.asarray(data, dtype=np.float64)), self.lower, self.upper)
        return int(np.sum(x.astype(np.int64)))  # exact: integers, n < 2^62

    def sample(self, data: np.ndarray, rng: np.random.Generator) -> float:
        return self.query(data) + rng.laplace(0.0, self.sensitivity / self.epsilon)


class BoundedErrorFloatSum:
    """The float sum with its rounding error added to the claim, as a function of ``n``."""

    lower, upper, epsilon = LOWER, UPPER, EPSILON
    norm = "l1"

    def sensitivity(self, n: int) -> float:
        m = max(abs(self.lower), abs(self.upper))
        # 2 sums x (n-1) * 2^-53 * n * m, over-approximated by n^2 m 2^-52, plus slack for
        # the rounding of this float expression itself (factor 1 + 2^-40)
        return ((self.upper - self.lower) + n * n * m * 2.0 ** -52) * (1 + 2.0 ** -40)

    def query(self, data: np.ndarray) -> float:
        return _iterative_sum(data, self.lower, self.upper)
