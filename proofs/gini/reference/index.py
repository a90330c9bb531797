"""The Gini index, Lan & Reiter (2025) eqs. (1) and (2), exactly (mirrors
:mod:`kernels.gini.index`)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from proofs.gini.reference.rational import exact_floats, nonneg_data


def _weighted(xs: list[Fraction]) -> Fraction:
    """sum_r (2r - n - 1) x_(r) for sorted xs."""
    n = len(xs)
    return sum(((2 * r - n - 1) * v for r, v in enumerate(xs, 1)), Fraction(0))


# ------------------------------------------------------------------------ Gini index
def _gini_parts_fast(x: Any) -> tuple[int, int, int] | None:
    """(sum_r (2r-n-1) v_r, sum_r v_r, n) on the exact scaled integers of a float array (the
    common denominator cancels in g), or None: the general path then validates and raises."""
    ex = exact_floats(x)
    if ex is None:
        return None
    n = ex.n
    if n < 2 or int(ex.M[0]) < 0 or ex.total == 0:
        return None  # the general path raises the right error
    # sum (2r - n - 1) X_r = 2 sum r X_r - (n + 1) sum X_r  (1-based r)
    return 2 * ex.weighted - (n + 1) * ex.total, ex.total, n


def gini_eq2(x: Any) -> Fraction:
    """Gini index, Lan & Reiter eq. (2): sum_i (2i-n-1) x_(i) / ((n-1) sum_i x_i), exactly.

    Range [0, 1] (1 when one record holds the whole total).  Raises for n < 2, a negative
    record or total 0.
    """
    fast = _gini_parts_fast(x)
    if fast is not None:
        N, S, n = fast
        return Fraction(N, (n - 1) * S)
    xs = nonneg_data(x)
    n = len(xs)
    return _weighted(xs) / ((n - 1) * sum(xs))


def gini_eq1(x: Any) -> Fraction:
    """Gini index, Lan & Reiter eq. (1): sum_i sum_j |x_i - x_j| / (2 n^2 xbar), exactly.

    Evaluated through the sorted identity sum_{i,j} |x_i - x_j| = 2 sum_i (2i-n-1) x_(i)
    (each unordered pair counted twice; for sorted data the record of rank i exceeds i-1
    records and is exceeded by n-i), hence eq. (1) = sum_i (2i-n-1) x_(i) / (n S) and
    ``gini_eq1(x) == (n-1)/n * gini_eq2(x)``.  Range [0, (n-1)/n].
    """
    fast = _gini_parts_fast(x)
    if fast is not None:
        N, S, n = fast
        return Fraction(N, n * S)
    xs = nonneg_data(x)
    n = len(xs)
    return _weighted(xs) / (n * sum(xs))
