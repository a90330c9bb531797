"""Extremes of the mean and of the Gini index (eq. 2) after replacing k records.

Paper: Lan & Reiter (2025), Section 3 (Algorithms 1 and 2), Section 4.2 (Theorems 4.1,
4.2), Appendix A.3 (eqs. 59, 60).  For sorted data x_1 <= ... <= x_n in [L, U] and
k = 0..n this module computes the *true* optima over all data sets at replacement distance
k (equivalently <= k, since a record may be "replaced" by itself):

    min_mean(k), max_mean(k), min_gini(k), max_gini(k).

What is computed, and why it is the true optimum (proof sketches; the brute-force tests
in ``tests/gini/test_extremes.py`` confirm every one on small n, exactly, with Fractions):

* Means.  min_mean(k) = (x_1+...+x_{n-k} + kL)/n, max_mean(k) = (x_{k+1}+...+x_n + kU)/n
  (the MinAve / MaxAve of Algorithm 3; also stated in the proof of Theorem 4.4).

* Maximum Gini.  For a fixed set of replaced positions, g = N/((n-1)D) with N = sum of
  |y_p - y_q| over pairs (convex in the replaced values) and D = sum y (affine, > 0); so g
  is quasi-convex in the replaced values and its maximum over the box [L, U]^k is at a
  vertex: each replaced value is L or U.  With j values at L and u = k - j at U, the
  kept records are a prefix x_1..x_s and a suffix x_{s+k+1}..x_n (a window of k consecutive
  records is replaced, s = 0..n-k).  The Gini of that data set is eq. (59) *divided by
  (n - 1)* (eq. 59 as printed omits the factor 1/(n-1) of eq. 2; Algorithm 2 divides by
  n*D instead, i.e. it returns the eq.-(1) Gini; both are deviations we do not copy).
  Search: Algorithm 2 scans all s = 1..n-k (note: printed loop starts at s = 1 and so
  never replaces the k smallest records, s = 0) and all j: O(k(n-k)) per k.  We instead
  use the exact step identity (derived from eq. 59)

      G(s+1, j) > G(s, j)  <=>  delta_s * [(n-1-2s-2j) D(s, j) + N(s, j)] > 0,
      delta_s = x_{s+k+1} - x_{s+1} >= 0,

  whose bracket, once <= 0, stays <= 0 for all larger s.  Hence G(., j) is unimodal in s
  and its maximiser is the first s at which the bracket is <= 0: a binary search,
  O(log n) per (k, j), O(k log n) per k.

* Minimum Gini.  g is quasi-convex and symmetric in the replaced values, so a common value
  c is optimal (average a minimiser over permutations); as a function of c, g is a ratio of
  a convex piecewise-linear function (kinks at the kept values) and an increasing affine
  one, so it is minimised at a kept value, and the kept records form a consecutive block
  x_{i+1}..x_{n-k+i} ("i lows and k - i highs removed", Algorithm 1, Theorem 4.2).  The Gini
  with all k replaced records set to x_j is eq. (60) divided by (n - 1) (eq. 60 as printed
  omits it; Algorithm 1 divides by n*D).  Algorithm 1 finds j by a ternary search
  ("Findminindex") whose comparison ``g(m1) < g(m2) else lo <- m1+1`` can discard the
  minimiser when g(m1) == g(m2) on a tie of data values; we use instead the exact
  monotone predicate

      g increases on [x_j, x_{j+1}]  <=>  (2j - l - r + 1) D_j - N_j > 0,

  (block l..r), which is false then true (convexity of N), and binary-search it.

Data sets whose total is 0 (all records 0: Gini undefined) are excluded from the optima.
All prefix sums are accumulated in extended precision (numpy.longdouble) and each result is
rounded to float64 once; agreement with the exact reference is tested at rtol 1e-9.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from kernels.gini.index import ExtendedView, PrefixTables, prefix_tables
from kernels.gini.validate import as_incomes
from kernels.validate import check_k

__all__ = [
    "ExtremesTable",
    "extremes",
    "extremes_sorted",
    "min_mean",
    "max_mean",
    "min_gini",
    "max_gini",
    "max_gini_witness",
    "min_gini_witness",
    "max_gini_batch",
    "min_gini_batch",
]

_ACC = np.longdouble


@dataclass(frozen=True)
class ExtremesTable:
    """Optima for k = k_values[0], ..., k_values[-1] (consecutive integers).

    ``max_arg[i] = (s, j)``: the maximiser replaces x_{s+1}..x_{s+k} by j copies of L and
    k - j copies of U.  ``min_arg[i] = (b, j)``: the minimiser keeps x_{b+1}..x_{n-k+b} and
    sets the k replaced records to x_j (1-based j; j = 0 means "any common value", used for
    k = n and k = 0).
    """

    n: int
    lower: float
    upper: float
    k_values: np.ndarray
    min_mean: np.ndarray
    max_mean: np.ndarray
    min_gini: np.ndarray
    max_gini: np.ndarray
    max_arg: np.ndarray
    min_arg: np.ndarray


def _binary_search_first_false(lo: np.ndarray, hi: np.ndarray, pred) -> np.ndarray:
    """Vectorised: for each row the first t in [lo, hi) with pred(t, rows) False, else hi.

    ``pred(t, idx)`` must be monotone True...True False...False on [lo, hi).
    """
    lo = lo.copy()
    hi = hi.copy()
    active = np.flatnonzero(lo < hi)
    while active.size:
        mid = (lo[active] + hi[active]) // 2
        ok = pred(mid, active)
        lo[active[ok]] = mid[ok] + 1
        hi[active[~ok]] = mid[~ok]
        active = active[lo[active] < hi[active]]
    return lo


def max_gini_batch(pt: PrefixTables, L: float, U: float, ks: np.ndarray):
    """Maximum Gini after replacing k records, for each k in ``ks`` (vectorised), from the
    prefix tables ``pt`` of the sorted data."""
    n = pt.n
    P, C = pt.P, pt.C
    counts = ks + 1
    kk = np.repeat(ks, counts)
    offs = np.repeat(np.cumsum(counts) - counts, counts)
    jj = np.arange(kk.size) - offs
    uu = kk - jj
    Ld, Ud = _ACC(L), _ACC(U)
    const_n = Ld * jj * (jj - n) + Ud * uu * (n - uu) + C[n]
    const_d = jj * Ld + uu * Ud

    def nd(s: np.ndarray, idx: np.ndarray):
        k, j = kk[idx], jj[idx]
        sk = s + k
        num = const_n[idx] + C[s] + 2 * j * P[s] - C[sk] - 2 * (k - j) * (P[n] - P[sk])
        den = P[s] + P[n] - P[sk] + const_d[idx]
        return num, den

    def pred(s: np.ndarray, idx: np.ndarray) -> np.ndarray:
        num, den = nd(s, idx)
        return (n - 1 - 2 * s - 2 * jj[idx]) * den + num > 0

    lo = np.zeros(kk.size, dtype=np.int64)
    hi = n - kk  # predicate domain is s in [0, n-k-1]; result in [0, n-k]
    s_star = _binary_search_first_false(lo, hi, pred)
    all_idx = np.arange(kk.size)
    num, den = nd(s_star, all_idx)
    # den == 0 only when L == 0, j == k and every kept record is 0 (then s* = n - k): that
    # data set is all zeros (Gini undefined); the best defined one is s* - 1 (G is
    # non-decreasing up to s*), when it exists.
    bad = den <= 0
    if bad.any():
        fix = bad & (s_star > 0)
        s_star = np.where(fix, s_star - 1, s_star)
        num, den = nd(s_star, all_idx)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.where(den > 0, num / ((n - 1) * np.where(den > 0, den, 1)), -np.inf)
    starts = np.cumsum(counts) - counts
    gmax = np.maximum.reduceat(g, starts)
    # argmax within each group
    best = np.empty((ks.size, 2), dtype=np.int64)
    for t, st in enumerate(starts):
        seg = g[st : st + counts[t]]
        jb = int(np.argmax(seg))
        best[t] = (s_star[st + jb], jb)
    return gmax.astype(np.float64), best


def min_gini_batch(pt: PrefixTables, ks: np.ndarray):
    """Minimum Gini for 1 <= k <= n-1 (callers handle k = 0 and k = n)."""
    n = pt.n
    P, R, x = pt.P, pt.R, ExtendedView(pt.x)
    counts = ks + 1
    kk = np.repeat(ks, counts)
    offs = np.repeat(np.cumsum(counts) - counts, counts)
    bb = np.arange(kk.size) - offs  # number of low records removed
    lft = bb + 1
    rgt = n - kk + bb
    B = P[rgt] - P[lft - 1]
    nblock = 2 * (R[rgt] - R[lft - 1]) - (lft + rgt) * B

    def nd(j: np.ndarray, idx: np.ndarray):
        k, lo_, hi_ = kk[idx], lft[idx], rgt[idx]
        xj = x[j - 1]
        below = (j - lo_ + 1) * xj - (P[j] - P[lo_ - 1])
        above = (P[hi_] - P[j]) - (hi_ - j) * xj
        num = nblock[idx] + k * (below + above)
        den = B[idx] + k * xj
        return num, den

    def pred_not_increasing(j: np.ndarray, idx: np.ndarray) -> np.ndarray:
        num, den = nd(j, idx)
        return ~((2 * j - lft[idx] - rgt[idx] + 1) * den - num > 0)

    j_star = _binary_search_first_false(lft.copy(), rgt.copy(), pred_not_increasing)
    num, den = nd(j_star, np.arange(kk.size))
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.where(den > 0, num / ((n - 1) * np.where(den > 0, den, 1)), np.inf)
    starts = np.cumsum(counts) - counts
    gmin = np.minimum.reduceat(g, starts)
    best = np.empty((ks.size, 2), dtype=np.int64)
    for t, st in enumerate(starts):
        seg = g[st : st + counts[t]]
        ib = int(np.argmin(seg))
        best[t] = (ib, j_star[st + ib])
    return np.maximum(gmin.astype(np.float64), 0.0), best


def extremes_sorted(
    pt: PrefixTables, lower: float, upper: float, k_first: int, k_last: int
) -> ExtremesTable:
    """Extremes for k = k_first..k_last on validated sorted data (no input checks)."""
    n = pt.n
    ks = np.arange(k_first, k_last + 1, dtype=np.int64)
    P = pt.P
    min_mean = ((P[n - ks] + ks * _ACC(lower)) / n).astype(np.float64)
    max_mean = ((P[n] - P[ks] + ks * _ACC(upper)) / n).astype(np.float64)
    gmax, amax = max_gini_batch(pt, lower, upper, ks)
    g0 = pt.gini
    gmin = np.empty(ks.size)
    amin = np.zeros((ks.size, 2), dtype=np.int64)
    mid = (ks >= 1) & (ks <= n - 1)
    if mid.any():
        gm, am = min_gini_batch(pt, ks[mid])
        gmin[mid] = gm
        amin[mid] = am
    gmin[ks == 0] = g0
    gmin[ks == n] = 0.0
    gmax[ks == 0] = g0
    return ExtremesTable(
        n=n,
        lower=lower,
        upper=upper,
        k_values=ks,
        min_mean=min_mean,
        max_mean=max_mean,
        min_gini=gmin,
        max_gini=gmax,
        max_arg=amax,
        min_arg=amin,
    )


def extremes(
    x: Any, lower: Any, upper: Any, k_max: int | None = None, *, clip: bool = False
) -> ExtremesTable:
    """Table of min/max mean and min/max Gini (eq. 2) for k = 0..k_max (default n).

    Validates ``x`` against [lower, upper] (error on values outside unless ``clip``),
    sorts a copy, never modifies the input.  Cost O(n + k_max^2 log n).
    """
    xs, lo, hi = as_incomes(x, lower, upper, clip=clip, copy=False)
    n = xs.size
    km = n if k_max is None else check_k(k_max, n, name="k_max")
    return extremes_sorted(prefix_tables(xs), lo, hi, 0, km)


def _single(x: Any, k: Any, lower: Any, upper: Any, clip: bool) -> tuple[ExtremesTable, int]:
    xs, lo, hi = as_incomes(x, lower, upper, clip=clip, copy=False)
    kk = check_k(k, xs.size)
    return extremes_sorted(prefix_tables(xs), lo, hi, kk, kk), kk


def min_mean(x: Any, k: int, lower: Any, upper: Any, *, clip: bool = False) -> float:
    """Smallest mean after replacing k records by values in [L, U] (MinAve, Alg. 3)."""
    t, _ = _single(x, k, lower, upper, clip)
    return float(t.min_mean[0])


def max_mean(x: Any, k: int, lower: Any, upper: Any, *, clip: bool = False) -> float:
    """Largest mean after replacing k records by values in [L, U] (MaxAve, Alg. 3)."""
    t, _ = _single(x, k, lower, upper, clip)
    return float(t.max_mean[0])


def min_gini(x: Any, k: int, lower: Any, upper: Any, *, clip: bool = False) -> float:
    """True min of eq. (2) over data sets at replacement distance <= k (cf. Algorithm 1)."""
    t, _ = _single(x, k, lower, upper, clip)
    return float(t.min_gini[0])


def max_gini(x: Any, k: int, lower: Any, upper: Any, *, clip: bool = False) -> float:
    """True max of eq. (2) over data sets at replacement distance <= k (cf. Algorithm 2)."""
    t, _ = _single(x, k, lower, upper, clip)
    return float(t.max_gini[0])


def max_gini_witness(x: Any, k: int, lower: Any, upper: Any, *, clip: bool = False) -> np.ndarray:
    """A sorted data set at distance <= k from ``x`` attaining :func:`max_gini`."""
    t, kk = _single(x, k, lower, upper, clip)
    xs = np.sort(np.clip(np.asarray(x, dtype=np.float64), t.lower, t.upper))
    s, j = (int(v) for v in t.max_arg[0])
    kept = np.concatenate([xs[:s], xs[s + kk :]])
    return np.sort(np.concatenate([kept, np.full(j, t.lower), np.full(kk - j, t.upper)]))


def min_gini_witness(x: Any, k: int, lower: Any, upper: Any, *, clip: bool = False) -> np.ndarray:
    """A sorted data set at distance <= k from ``x`` attaining :func:`min_gini`."""
    t, kk = _single(x, k, lower, upper, clip)
    xs = np.sort(np.clip(np.asarray(x, dtype=np.float64), t.lower, t.upper))
    n = xs.size
    if kk == 0:
        return xs
    if kk == n:
        return np.full(n, t.upper)
    b, j = (int(v) for v in t.min_arg[0])
    kept = xs[b : n - kk + b]
    return np.sort(np.concatenate([kept, np.full(kk, xs[j - 1])]))
