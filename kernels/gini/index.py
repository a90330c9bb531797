"""Gini index kernels: eq. (2) (ordered form, used by the DP pipeline) and eq. (1).

Paper: Lan & Reiter (2025), "Differentially Private Computation of the Gini Index for
Income Inequality", Section 2.1.

Relation between the two printed definitions (derived here, checked exactly in
``tests/test_gini.py``).  For sorted data x_1 <= ... <= x_n with total S = n*xbar,

    sum_i sum_j |x_i - x_j| = 2 * sum_i (2i - n - 1) x_i            (each pair counted twice)

so eq. (1) = sum_i (2i-n-1) x_i / (n * S) and eq. (2) = sum_i (2i-n-1) x_i / ((n-1) * S):

    g_eq2 = n / (n - 1) * g_eq1            (exactly, for every data set with S > 0).

The paper calls them "various ways to rewrite (1)", but they differ by the factor
n/(n-1): eq. (2) is the small-sample (unbiased-type) Gini with range [0, 1] (value 1
when a single record holds all income), eq. (1) has range [0, (n-1)/n].  The toy example of
Section 3 (g(3, 6, 7, 7.5) ~ 0.206) is reproduced by eq. (2) only (eq. (1) gives 0.154).

Numerics: the numerator is computed as sum (2i - n - 1) x_i with the centred integer
weights (exact in float64 for n < 2^52) accumulated in extended precision
(``numpy.longdouble`` where the platform has it) to limit cancellation; the result is
rounded to float64 once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from kernels.errors import NegativeIncomeError, ZeroMeanError
from kernels.validate import as_data

__all__ = [
    "gini",
    "gini_mean_difference",
    "gini_sorted",
    "PrefixTables",
    "prefix_tables",
]

_ACC = np.longdouble


def _check_nonneg_positive_sum(xs: np.ndarray, name: str) -> None:
    if xs[0] < 0:
        raise NegativeIncomeError(f"{name} must be >= 0 (incomes), got minimum {xs[0]!r}")
    if xs[-1] == 0.0:
        raise ZeroMeanError(f"{name} has mean 0 (all {xs.size} records are 0): Gini undefined")


def gini_sorted(xs: np.ndarray) -> float:
    """Eq. (2) on an already sorted, validated float64 array (no checks; internal use)."""
    n = xs.size
    w = np.arange(1 - n, n, 2, dtype=_ACC)  # 2i - n - 1 for i = 1..n
    num = np.dot(w, xs.astype(_ACC))
    den = (n - 1) * np.sum(xs, dtype=_ACC)
    return float(num / den)


def gini(x: Any) -> float:
    """Gini index by Lan & Reiter eq. (2): sum_i (2i-n-1) x_(i) / (n * xbar * (n-1)).

    ``x`` is any 1-D numeric sequence of n >= 2 non-negative incomes with positive mean; it
    is sorted internally (a copy; the input is never modified).  Raises
    :class:`~kernels.errors.TooFewRecordsError`, :class:`~kernels.errors.NonFiniteError`,
    :class:`~kernels.errors.ZeroMeanError`, or an ``InputError`` for negative values.
    Range: [0, 1].  Relation to eq. (1): ``gini(x) == n/(n-1) * gini_mean_difference(x)``.
    """
    xs = as_data(x, "x")
    _check_nonneg_positive_sum(xs, "x")
    return gini_sorted(xs)


def gini_mean_difference(x: Any) -> float:
    """Gini index by Lan & Reiter eq. (1): sum_i sum_j |z_i - z_j| / (2 n^2 zbar).

    Computed through the identity sum_{i,j} |z_i - z_j| = 2 sum_i (2i-n-1) x_(i) (O(n log n)
    instead of the O(n^2) double sum; the identity itself is checked against the literal
    double sum in the tests).  Range [0, (n-1)/n].  Equals ``(n-1)/n * gini(x)``.
    """
    xs = as_data(x, "x")
    _check_nonneg_positive_sum(xs, "x")
    n = xs.size
    w = np.arange(1 - n, n, 2, dtype=_ACC)
    num = np.dot(w, xs.astype(_ACC))
    den = n * np.sum(xs, dtype=_ACC)
    return float(num / den)


@dataclass(frozen=True)
class PrefixTables:
    """Prefix sums of sorted data (1-based, index 0 holds 0), extended precision.

    ``P[i] = sum_{t<=i} x_t``, ``R[i] = sum_{t<=i} t x_t``, ``C[i] = sum_{t<=i} (2t-n-1) x_t``
    — the tables of Algorithms 1 and 2 (and Section 4.4, where the printed definitions
    use ``t < i``; Algorithms 1-2 use ``t <= i``, which is what is implemented here).
    """

    x: np.ndarray
    P: np.ndarray
    R: np.ndarray
    C: np.ndarray

    @property
    def n(self) -> int:
        return int(self.x.size)


def prefix_tables(xs: np.ndarray) -> PrefixTables:
    """Build :class:`PrefixTables` for a sorted float64 array (no validation)."""
    n = xs.size
    xa = xs.astype(_ACC)
    t = np.arange(1, n + 1, dtype=_ACC)
    P = np.zeros(n + 1, dtype=_ACC)
    R = np.zeros(n + 1, dtype=_ACC)
    C = np.zeros(n + 1, dtype=_ACC)
    np.cumsum(xa, out=P[1:])
    np.cumsum(t * xa, out=R[1:])
    np.cumsum((2 * t - n - 1) * xa, out=C[1:])
    return PrefixTables(x=xs, P=P, R=R, C=C)
