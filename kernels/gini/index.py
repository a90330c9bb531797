"""Gini index kernels: eq. (2) (ordered form, used by the DP pipeline) and eq. (1).

Paper: Lan & Reiter (2025), "Differentially Private Computation of the Gini Index for
Income Inequality", Section 2.1.

Relation between the two printed definitions (derived here, checked exactly in
``tests/gini/test_gini.py``).  For sorted data x_1 <= ... <= x_n with total S = n*xbar,

    sum_i sum_j |x_i - x_j| = 2 * sum_i (2i - n - 1) x_i            (each pair counted twice)

so eq. (1) = sum_i (2i-n-1) x_i / (n * S) and eq. (2) = sum_i (2i-n-1) x_i / ((n-1) * S):

    g_eq2 = n / (n - 1) * g_eq1            (exactly, for every data set with S > 0).

The paper calls them "various ways to rewrite (1)", but they differ by the factor
n/(n-1): eq. (2) is the small-sample (unbiased-type) Gini with range [0, 1] (value 1
when a single record holds all income), eq. (1) has range [0, (n-1)/n].  The toy example of
Section 3 (g(3, 6, 7, 7.5) ~ 0.206) is reproduced by eq. (2) only (eq. (1) gives 0.154).

Numerics: the numerator is computed as sum (2i - n - 1) x_i with the centred integer
weights (exact in float64 for n < 2^52) accumulated in extended precision
(``numpy.longdouble`` where the platform has it) to limit cancellation, in chunks of
2^16 records (no n-sized extended-precision temporaries); the result is rounded to float64
once.

Prefix tables (:func:`prefix_tables`, issue 16).  P and R are *stored* as float64 and
C = 2R - (n+1)P is derived on read (in extended precision) instead of stored: 16 bytes per
record instead of 48.  They are built blockwise (:func:`prefix_arrays`: float64 cumsums in
blocks of 256 records, block offsets in extended precision), with relative error at most
(B + 1) u + (n/B) u' per entry (u = 2^-53, u' = 2^-64 on x87; 2^-44.9 at n = 1e7), tested
entry by entry against Fractions (``tests/gini/test_prefix.py``) and checked on every
certified data set by ``certify``'s kernel-vs-reference link.  The direction is not
controlled; the consumers round their *results* up instead
(``kernels.gini.sensitivity.SAFE_MARGIN`` = 2^-36).  ``PrefixTables.gini`` (the g(X) the
smooth sensitivity and the release use) is read from the extended-precision totals of that
pass, N = 2 R[n] - (n+1) P[n], when :func:`gini_from_totals`'s bound guarantees 2^-40
relative on N (typical incomes), and from the chunked sum above otherwise (nearly equal
records, where the subtraction cancels).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernels.errors import ZeroMeanError
from kernels.gini.errors import NegativeIncomeError
from kernels.validate import as_data

__all__ = [
    "gini",
    "gini_mean_difference",
    "gini_sorted",
    "ExtendedView",
    "PrefixTables",
    "gini_from_totals",
    "prefix_arrays",
    "prefix_arrays_ext",
    "prefix_tables",
]

_ACC = np.longdouble


def _check_nonneg_positive_sum(xs: np.ndarray, name: str) -> None:
    if xs[0] < 0:
        raise NegativeIncomeError(f"{name} must be >= 0 (incomes), got minimum {xs[0]!r}")
    if xs[-1] == 0.0:
        raise ZeroMeanError(f"{name} has mean 0 (all {xs.size} records are 0): Gini undefined")


_CHUNK = 1 << 16


def _weighted_sum(xs: np.ndarray) -> tuple[Any, Any]:
    """(sum_i (2i-n-1) x_i, sum_i x_i) of sorted ``xs`` in extended precision, chunk by chunk
    (the weights are integers, exact in both float formats)."""
    n = xs.size
    num = _ACC(0)
    tot = _ACC(0)
    for s in range(0, n, _CHUNK):
        c = xs[s:s + _CHUNK].astype(_ACC)
        w = np.arange(2 * s + 1 - n, 2 * (s + c.size) + 1 - n, 2, dtype=_ACC)
        num += np.dot(w, c)
        tot += np.sum(c)
    return num, tot


def gini_sorted(xs: np.ndarray) -> float:
    """Eq. (2) on an already sorted, validated float64 array (no checks; internal use)."""
    num, tot = _weighted_sum(xs)
    return float(num / ((xs.size - 1) * tot))


def gini(x: Any) -> float:
    """Gini index by Lan & Reiter eq. (2): sum_i (2i-n-1) x_(i) / (n * xbar * (n-1)).

    ``x`` is any 1-D numeric sequence of n >= 2 non-negative incomes with positive mean; it
    is sorted internally (a copy; the input is never modified).  Raises
    :class:`~kernels.errors.TooFewRecordsError`, :class:`~kernels.errors.NonFiniteError`,
    :class:`~kernels.errors.ZeroMeanError`, or an ``InputError`` for negative values.
    Range: [0, 1].  Relation to eq. (1): ``gini(x) == n/(n-1) * gini_mean_difference(x)``.
    """
    xs = as_data(x, "x", copy=False)
    _check_nonneg_positive_sum(xs, "x")
    return gini_sorted(xs)


def gini_mean_difference(x: Any) -> float:
    """Gini index by Lan & Reiter eq. (1): sum_i sum_j |z_i - z_j| / (2 n^2 zbar).

    Computed through the identity sum_{i,j} |z_i - z_j| = 2 sum_i (2i-n-1) x_(i) (O(n log n)
    instead of the O(n^2) double sum; the identity itself is checked against the literal
    double sum in the tests).  Range [0, (n-1)/n].  Equals ``(n-1)/n * gini(x)``.
    """
    xs = as_data(x, "x", copy=False)
    _check_nonneg_positive_sum(xs, "x")
    num, tot = _weighted_sum(xs)
    return float(num / (xs.size * tot))


class _Derived:
    """Read-only table ``C[t] = 2 R[t] - (n+1) P[t]``, evaluated on read in extended
    precision (int or int-array index)."""

    def __init__(self, P: np.ndarray, R: np.ndarray) -> None:
        self._P, self._R = P, R
        self._m = _ACC(P.size)  # n + 1

    def __getitem__(self, idx: Any) -> Any:
        return 2 * ExtendedView(self._R)[idx] - self._m * ExtendedView(self._P)[idx]

    def __len__(self) -> int:
        return int(self._P.size)


class ExtendedView:
    """``view[idx]``: float64 table entries read as extended precision."""

    def __init__(self, a: np.ndarray) -> None:
        self._a = a

    def __getitem__(self, idx: Any) -> Any:
        return np.asarray(self._a[idx], dtype=_ACC)

    def __len__(self) -> int:
        return int(self._a.size)


@dataclass(frozen=True)
class PrefixTables:
    """Prefix sums of sorted data (1-based, index 0 holds 0).

    ``P[i] = sum_{t<=i} x_t``, ``R[i] = sum_{t<=i} t x_t``, ``C[i] = sum_{t<=i} (2t-n-1) x_t``
    — the tables of Algorithms 1 and 2 (and Section 4.4, where the printed definitions
    use ``t < i``; Algorithms 1-2 use ``t <= i``, which is what is implemented here).
    ``P_store``/``R_store`` are the float64 arrays (module docstring: accumulated in extended
    precision, rounded once); ``P``, ``R``, ``C`` read them as extended precision, ``C``
    derived as 2R - (n+1)P.
    """

    x: np.ndarray
    P_store: np.ndarray
    R_store: np.ndarray
    #: (P[n], R[n]) in extended precision as :func:`prefix_arrays` accumulated them (None:
    #: unknown); :attr:`gini` reads eq. (2) from them when their error bound allows
    totals: tuple[Any, Any] | None = None

    @property
    def n(self) -> int:
        return int(self.x.size)

    @functools.cached_property
    def gini(self) -> float:
        """Eq. (2) of ``x``, computed once per table: from the extended totals of the prefix
        pass, N = 2 R[n] - (n+1) P[n] (no second O(n) pass), when the error bound of
        :func:`gini_from_totals` guarantees 2^-40 relative on N; else :func:`gini_sorted`."""
        if self.totals is not None:
            g = gini_from_totals(self.n, *self.totals)
            if g is not None:
                return g
        return gini_sorted(self.x)

    @property
    def P(self) -> ExtendedView:
        return ExtendedView(self.P_store)

    @property
    def R(self) -> ExtendedView:
        return ExtendedView(self.R_store)

    @property
    def C(self) -> _Derived:
        return _Derived(self.P_store, self.R_store)


#: records per block of :func:`prefix_arrays` (in-block float64 cumsum)
_BLOCK = 256
#: block rows per vectorised step of :func:`prefix_arrays` (bounds the temporaries)
_ROWS = 4096


def _ranks(a: int, b: int) -> np.ndarray:
    """1-based ranks a+1 .. b of the records xs[a:b] as float64 (exact below 2^53)."""
    return np.arange(a + 1, b + 1, dtype=np.float64)


def gini_from_totals(n: int, p_tot: Any, r_tot: Any) -> float | None:
    """Eq. (2) as (2 R[n] - (n+1) P[n]) / ((n-1) P[n]) from the extended-precision totals of
    :func:`prefix_arrays`, or None when that is not accurate enough.

    Error: P[n] and R[n] carry at most e = (B + 2) u + (n/B + 2) u' relative (the bound of
    :func:`prefix_arrays`, one more u for the products t x_t); the combination adds a few u'.
    So |N~ - N| <= E = 2 (e + 4 u') (2 R[n] + (n+1) P[n]) (a factor 2 to spare); the value is
    returned only when E <= 2^-40 |N~| (then g is within ~2^-40 relative: far inside the
    2^-36 margin the smooth sensitivity adds and the 1e-9 the audit allows), which fails
    only for nearly equal records (g below ~2^-3 e/2^-40, about 1e-4 at n = 1e7): those take
    the chunked extended-precision sum of :func:`gini_sorted`."""
    if n < 2:
        return None
    P, R = _ACC(p_tot), _ACC(r_tot)
    if not P > 0:
        return None
    up = float(np.finfo(_ACC).eps) / 2
    e = (_BLOCK + 2) * 2.0**-53 + (n / _BLOCK + 2) * up
    N = 2 * R - _ACC(n + 1) * P
    E = 2 * (e + 4 * up) * (2 * R + _ACC(n + 1) * P)
    if not E <= _ACC(2.0**-40) * abs(N):
        return None
    return float(N / (_ACC(n - 1) * P))


def prefix_arrays(xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(P, R) of sorted non-negative ``xs``: see :func:`prefix_arrays_ext`."""
    P, R, _, _ = prefix_arrays_ext(xs)
    return P, R


def prefix_arrays_ext(xs: np.ndarray) -> tuple[np.ndarray, np.ndarray, Any, Any]:
    """(P, R, P[n], R[n]): the tables as float64 arrays of length n + 1 and their totals in
    extended precision (before the final rounding to float64).  For sorted non-negative
    ``xs``:
    P[t] = sum_{j<=t} x_j, R[t] = sum_{j<=t} j x_j (1-based).

    Blocked (issue 16): records in blocks of B = 256; inside a block a float64 cumsum, the
    block offsets (sums of the earlier blocks) accumulated in extended precision and rounded
    to float64 once, then one float64 addition.  Error (all terms >= 0, u = 2^-53, u' the
    extended unit, 2^-64 on x87): |P~[t] - P[t]| <= ((B + 1) u + (n/B) u') P[t] -- about
    2^-44.9 relative at n = 1e7, smaller than recursive summation in extended precision
    (n u' = 2^-40.7) and 4x faster; the same for R, whose terms t x_t carry one more u.  No
    direction is guaranteed: the consumers round their results up
    (``kernels.gini.sensitivity.SAFE_MARGIN`` = 2^-36).  Peak extra memory: the two outputs
    plus one step of ``_ROWS`` blocks."""
    n = xs.size
    P = np.empty(n + 1, dtype=np.float64)
    R = np.empty(n + 1, dtype=np.float64)
    P[0] = R[0] = 0.0
    B = _BLOCK
    m = n // B
    op = _ACC(0)  # offsets: sums of all earlier blocks, extended precision
    orr = _ACC(0)
    for r0 in range(0, m + 1, _ROWS):
        r1 = min(m, r0 + _ROWS)
        if r1 > r0:
            a, b = r0 * B, r1 * B
            x2 = xs[a:b].reshape(r1 - r0, B)
            pv = P[a + 1:b + 1].reshape(r1 - r0, B)
            rv = R[a + 1:b + 1].reshape(r1 - r0, B)
            np.cumsum(x2, axis=1, out=pv)
            w = _ranks(a, b).reshape(r1 - r0, B)
            np.multiply(w, x2, out=w)  # t x_t: t < 2^53 is exact, one rounding of the product
            np.cumsum(w, axis=1, out=rv)
            for v, last, o in ((pv, pv[:, -1], op), (rv, rv[:, -1], orr)):
                offs = np.empty(r1 - r0, dtype=_ACC)
                offs[0] = 0
                np.cumsum(last[:-1].astype(_ACC), out=offs[1:])
                offs += o
                tot = offs[-1] + _ACC(last[-1])
                v += offs.astype(np.float64)[:, None]
                if v is pv:
                    op = tot
                else:
                    orr = tot
        if r1 == m and m * B < n:  # the last, partial block
            a = m * B
            tail = xs[a:]
            pt = np.cumsum(tail)
            rt = np.cumsum(_ranks(a, n) * tail)
            P[a + 1:] = pt + np.float64(op)
            R[a + 1:] = rt + np.float64(orr)
            op, orr = op + _ACC(pt[-1]), orr + _ACC(rt[-1])
            break
    return P, R, op, orr


def prefix_tables(xs: np.ndarray) -> PrefixTables:
    """Build :class:`PrefixTables` for a sorted float64 array (no validation)."""
    P, R, p_tot, r_tot = prefix_arrays_ext(xs)
    return PrefixTables(x=xs, P_store=P, R_store=R, totals=(p_tot, r_tot))
