"""Exact (Fraction) brute-force oracles: ground truth for small n, trusting no lemma.

Nothing here imports ``kernels`` or ``proofs.gini.reference``.  Each candidate set is justified
in its docstring; the justifications are elementary facts (convexity / piecewise
monotonicity), not the paper's lemmas.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from fractions import Fraction

Q = Fraction


def gini2(y: Iterable[Fraction]) -> Fraction | None:
    """Eq. (2) exactly: sum (2i-n-1) y_(i) / ((n-1) sum y).  None if the total is 0."""
    # exactly, on integers: every value over the common denominator (one Fraction at the
    # end instead of n Fraction additions; the denominator cancels in the ratio)
    return _gini2_int(_numerators(sorted(y)))


def _numerators(vals: Sequence[Fraction]) -> list[int]:
    """The values' numerators over their least common denominator (order kept)."""
    d = math.lcm(*(a.denominator for a in vals)) if vals else 1
    return [a.numerator * (d // a.denominator) for a in vals]


def _gini2_int(v: Sequence[int]) -> Fraction | None:
    """Eq. (2) of sorted integers (values over any common denominator), exactly."""
    n = len(v)
    s = sum(v)
    if s == 0:
        return None
    return Q(sum((2 * i - n - 1) * a for i, a in enumerate(v, 1)), (n - 1) * s)


def gini1_double_sum(y: Sequence[Fraction]) -> Fraction:
    """Eq. (1) literally: sum_i sum_j |z_i - z_j| / (2 n^2 zbar)."""
    n = len(y)
    num = sum(abs(a - b) for a in y for b in y)
    return num / (2 * Q(n) ** 2 * (sum(y) / n))


def extremes_bruteforce(x: Sequence[Fraction], L: Fraction, U: Fraction, k: int):
    """(min mean, max mean, min gini, max gini) over all data sets at distance <= k.

    Every set R of k replaced positions is enumerated.  For fixed R:
    * mean: linear in the replaced values -> extremes at all-L / all-U;
    * max Gini: g = convex / positive-affine is quasi-convex in the replaced values, so its
      max over the box [L, U]^k is at a vertex: each value L or U (only the count of L's
      matters by symmetry);
    * min Gini: quasi-convex and permutation-symmetric -> a common value c is optimal; as a
      function of c it is convex-piecewise-linear / increasing-affine with kinks at the kept
      values, monotone between kinks and monotone outside [min kept, max kept] towards
      the kept range -> c in the kept values (any c if nothing is kept: g = 0).
    Data sets with total 0 (Gini undefined) are skipped.
    """
    n = len(x)
    gmin = gmax = None
    mmin = mmax = None
    for R in itertools.combinations(range(n), k):
        kept = [x[i] for i in range(n) if i not in R]
        lo_m = (sum(kept) + k * L) / n
        hi_m = (sum(kept) + k * U) / n
        mmin = lo_m if mmin is None else min(mmin, lo_m)
        mmax = hi_m if mmax is None else max(mmax, hi_m)
        for j in range(k + 1):
            g = gini2(kept + [L] * j + [U] * (k - j))
            if g is not None and (gmax is None or g > gmax):
                gmax = g
        for c in set(kept) if kept else {U}:
            g = gini2(kept + [c] * k)
            if g is not None and (gmin is None or g < gmin):
                gmin = g
    return mmin, mmax, gmin, gmax


def local_sensitivity(y: Sequence[Fraction], L: Fraction, U: Fraction) -> Fraction:
    """True LS(Y) of eq. (2), replace-one neighbours, exactly.

    For a fixed position m, g(Y with y_m -> v) is, between consecutive values of the other
    records, a ratio of affine functions of v with a positive denominator, hence monotone;
    it is continuous in v.  So the extremes over v in [L, U] are at L, U or another record's
    value: the candidate set is finite and complete.  (Data sets with total 0 skipped.)
    """
    g0 = gini2(y)
    assert g0 is not None
    best = Q(0)
    n = len(y)
    # all values over one common denominator: integer data sets, the same Ginis
    ints = _numerators([Q(a) for a in (*y, L, U)])
    iy = ints[:n]
    cands = set(ints)
    for m in range(n):
        rest = iy[:m] + iy[m + 1:]
        for v in cands:
            g = _gini2_int(sorted(rest + [v]))
            if g is not None:
                best = max(best, abs(g - g0))
    return best


def ball_lower_bound_A(
    x: Sequence[Fraction], L: Fraction, U: Fraction, k: int, values: Sequence[Fraction]
) -> tuple[Fraction, list[Fraction]]:
    """A lower bound on the true A^(k)(x) = max_{d(x,Y) <= k} LS(Y): the max of the exact
    LS(Y) over every Y obtained by replacing k positions with values from ``values``.
    Returns (value, witness Y).  A claimed upper bound below this value is refuted."""
    n = len(x)
    best, wit = Q(-1), list(x)
    for R in itertools.combinations(range(n), k):
        kept = [x[i] for i in range(n) if i not in R]
        for vals in itertools.combinations_with_replacement(values, k):
            y = kept + list(vals)
            if sum(y) == 0:
                continue
            ls = local_sensitivity(y, L, U)
            if ls > best:
                best, wit = ls, sorted(y)
    return best, wit
