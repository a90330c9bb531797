"""The statistics whose global sensitivity Liu's supplement computes (Sections 1-5).

Every function is written with plain ``+ - * /`` on the records, so Fraction records give an
exact Fraction result and float records a float (the exact reference of
:mod:`proofs.global_sensitivity` feeds Fractions).  Conventions (as in the supplement):

* sample variance / covariance divide by ``n - 1`` (Section 2, first display; Section 3, eq. (2));
* pooled variance / covariance divide the within-cell sums of squares / products by ``n - J``
  (Section 4, first display; Section 5, first display); every cell needs >= 1 record here
  (the supplement assumes >= 2; a cell left with one record after a removal contributes 0 to the
  sum and 0 to the degrees of freedom, which is what the supplement's ``n - 1 - J`` assumes);
* a histogram / proportion vector over ``K`` categories labelled ``0..K-1`` (Section 1, last
  paragraph).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kernels.errors import InvalidParameterError, TooFewRecordsError

__all__ = [
    "covariance",
    "histogram",
    "mean",
    "pooled_covariance",
    "pooled_variance",
    "proportion",
    "proportion_vector",
    "sum_of_products",
    "sum_of_squares",
    "variance",
]


def _need(xs: Sequence[Any], least: int, what: str) -> int:
    n = len(xs)
    if n < least:
        raise TooFewRecordsError(f"{what} needs at least {least} records, got {n}")
    return n


def mean(xs: Sequence[Any]) -> Any:
    """Sample mean (Section 1)."""
    n = _need(xs, 1, "the mean")
    return sum(xs[1:], xs[0]) / n


def proportion(bits: Sequence[int]) -> Any:
    """Share of records equal to 1 among 0/1 records (Section 1: a mean with c0 = 0, c1 = 1)."""
    if any(b not in (0, 1) for b in bits):
        raise InvalidParameterError("a proportion needs 0/1 records")
    return mean([_as_count(b) for b in bits])


def _as_count(b: int) -> Any:
    from fractions import Fraction

    return Fraction(int(b))


def histogram(labels: Sequence[int], k: int) -> list[int]:
    """Counts of the categories 0..k-1 (Section 1, "a whole histogram H")."""
    if k < 1:
        raise InvalidParameterError(f"the number of categories k must be >= 1, got {k}")
    h = [0] * k
    for lab in labels:
        if not 0 <= int(lab) < k:
            raise InvalidParameterError(f"category label {lab!r} is outside 0..{k - 1}")
        h[int(lab)] += 1
    return h


def proportion_vector(labels: Sequence[int], k: int) -> list[Any]:
    """Proportions of the categories 0..k-1 (Section 1, "a whole vector of proportions p")."""
    from fractions import Fraction

    n = _need(labels, 1, "a proportion vector")
    return [Fraction(c, n) for c in histogram(labels, k)]


def sum_of_squares(xs: Sequence[Any]) -> Any:
    """sum_i (x_i - xbar)^2 (0 for one record)."""
    if len(xs) == 0:
        return 0
    m = mean(xs)
    return sum(((x - m) * (x - m) for x in xs), 0 * m)


def sum_of_products(pts: Sequence[tuple[Any, Any]]) -> Any:
    """sum_i (x_i - xbar)(y_i - ybar) (0 for one record)."""
    if len(pts) == 0:
        return 0
    mx = mean([p[0] for p in pts])
    my = mean([p[1] for p in pts])
    return sum(((p[0] - mx) * (p[1] - my) for p in pts), 0 * mx)


def variance(xs: Sequence[Any]) -> Any:
    """Sample variance with divisor n - 1 (Section 2)."""
    n = _need(xs, 2, "the sample variance")
    return sum_of_squares(xs) / (n - 1)


def covariance(pts: Sequence[tuple[Any, Any]]) -> Any:
    """Sample covariance with divisor n - 1 (Section 3)."""
    n = _need(pts, 2, "the sample covariance")
    return sum_of_products(pts) / (n - 1)


def _cells(cells: Sequence[Sequence[Any]]) -> int:
    if len(cells) < 1:
        raise InvalidParameterError("a pooled statistic needs at least one cell")
    for j, c in enumerate(cells):
        if len(c) < 1:
            raise TooFewRecordsError(f"cell {j} is empty")
    n = sum(len(c) for c in cells)
    if n - len(cells) < 1:
        raise TooFewRecordsError(
            f"a pooled statistic needs n - J >= 1; got n = {n}, J = {len(cells)}")
    return n


def pooled_variance(cells: Sequence[Sequence[Any]]) -> Any:
    """s_p^2 = sum_j sum_i (x_ij - xbar_j)^2 / (n - J) (Section 4)."""
    n = _cells(cells)
    return sum((sum_of_squares(c) for c in cells), 0) / (n - len(cells))


def pooled_covariance(cells: Sequence[Sequence[tuple[Any, Any]]]) -> Any:
    """cov_p = sum_j sum_i (x_ij - xbar_j)(y_ij - ybar_j) / (n - J) (Section 5)."""
    n = _cells(cells)
    return sum((sum_of_products(c) for c in cells), 0) / (n - len(cells))
