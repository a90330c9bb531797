"""The steps of Lemma 4.2's proof and of the k > 3 (Theorem 4.1) and k >= 3 (Theorem 4.2)
proofs of Lan & Reiter (2025), Appendix A.2, each tested itself (issue 42), and eq. (58).

Every check is exhaustive and exact (Fractions; the Gini index of every data set and subset by
eq. (2), :func:`proofs.gini.oracles.gini2`, eq. (1) by
:func:`proofs.gini.oracles.gini1_double_sum`) over every multiset of a stated size drawn from
{1, 2, 3, 5, 8} (tie-free ones first, so a counterexample is tie-free whenever one exists).

Lemma 4.2 is about X_{+x}: x inserted at rank m (x_{m-1} <= x <= x_m).  On that interval
eq. (2) is linear-fractional in x, g(X_{+x}) = (A + B x) / (n (S + x)), so its derivative is
T(m) / (n (S + x)^2) with T(m) = B S - A; T(m) is read off two exact eq.-(2) values,
T = n (S + lo)(S + hi)(g(hi) - g(lo)) / (hi - lo), and agrees with the closed form
T(m) = (2m - n - 2) S - C_m (C_m = sum_{i<m} (2i - n - 2) x_i + sum_{i>=m} (2i - n) x_i),
which the checks use where the interval is a point (tied values).

In the proofs of the theorems Q_{-m} is Q without its element of rank m and "adding x" inserts
x at rank m; the candidates are the elements of X strictly between the runs that Q keeps.
A verified finding carries a twin (:func:`audit.falsifiability.twin`): the same check on a
perturbed statement (a candidate or a rank moved, an increment tightened past the truth,
directions swapped), refuted in the same scope.  A step that fails is refuted "as printed" (or
under the reading stated) with a counterexample ``dpaudit replay`` re-runs.
"""

from __future__ import annotations

import functools
import itertools
import time
from collections.abc import Callable
from fractions import Fraction as Q
from typing import Any

from audit.falsifiability import decide, twin
from audit.findings import Finding, Method, Verdict, counterexample_document, from_jsonable
from audit.registry import replayer
from proofs.gini import NAME, claim, oracles
from proofs.gini.claims_appendix import GRID, first_violation
from proofs.text_findings import SPLIT, exhaustive_step_finding, paper_finding

SUBJECT = f"paper:{NAME}"
REF = "Lan & Reiter 2025, Appendix A.2"
SCOPE = ("every multiset of size {sizes} on {{1, 2, 3, 5, 8}} ({count} data sets){extra}; "
         "exact Fractions, eq. (2) (gini2) on every data set and subset")
SCOPE_T = ("every set of {sizes} distinct values from {{1, ..., 10}} and every multiset with ties "
           "of that size on {{1, 2, 3, 5, 8}} ({count} data sets){extra}; exact Fractions, "
           "eq. (2) (gini2) on every subset")
#: the two readings of a proof written for "n real numbers in ascending order"
TIES = {"distinct": "(a) the values of X distinct",
        "ties": "(b) as printed: X any sorted reals (ties allowed)"}

#: a sorted data set: exact integers (the grids) or Fractions (a point inserted between them)
Vec = list[Any]
Data = list[Vec]
Bad = Callable[[Vec], "dict | None"]


def multisets(sizes: range) -> Data:
    """Sorted multisets of the given sizes on :data:`GRID`, tie-free ones first."""
    sets = [list(c) for n in sizes for c in itertools.combinations_with_replacement(GRID, n)]
    return sorted(sets, key=lambda x: len(set(x)) < len(x))


def theorem_data(sizes: range) -> Data:
    """Every set of distinct values from {1, ..., 10} of the given sizes, then every multiset
    with ties on :data:`GRID` (the theorems' proofs need n >= 5: more values than GRID has)."""
    distinct = [list(c) for n in sizes for c in itertools.combinations(range(1, 11), n)]
    return distinct + [x for x in multisets(sizes) if len(set(x)) < len(x)]


def gini(ys: Vec) -> Q:
    """Eq. (2) of the sorted ``ys`` (positive data: never undefined)."""
    g = oracles.gini2(sorted(ys))
    if g is None:
        raise ValueError(f"eq. (2) is undefined for {ys} (total 0)")
    return g


# ------------------------------------------------------------------ Lemma 4.2 on X_{+x}
def inserted(x: Vec, m: int, v: Q) -> Vec:
    """X_{+x}: ``v`` at rank ``m`` (1-based) of the sorted ``x``."""
    return x[:m - 1] + [v] + x[m - 1:]


def interval(x: Vec, m: int) -> tuple[Q, Q]:
    """Where x may lie at rank m: [x_{m-1}, x_m], with x_0 = 0 and x_{n+1} = 2 x_n + 1."""
    lo = x[m - 2] if m > 1 else Q(0)
    hi = x[m - 1] if m <= len(x) else 2 * x[-1] + 1
    return lo, hi


def t_oracle(x: Vec, m: int) -> Q | None:
    """T(m) = n (S + x)^2 d g(X_{+x}) / dx from two exact eq.-(2) values at the interval's
    ends (None when the interval is a point)."""
    lo, hi = interval(x, m)
    if lo == hi:
        return None
    n, S = len(x), sum(x)
    return n * (S + lo) * (S + hi) * (gini(inserted(x, m, hi)) - gini(inserted(x, m, lo))) \
        / (hi - lo)


def t_closed(x: Vec, m: int) -> Q:
    """T(m) = (2m - n - 2) S - C_m (the numerator of d g(X_{+x}) / dx, rank m)."""
    n = len(x)
    c = sum(((2 * i - n - 2) if i < m else (2 * i - n)) * v for i, v in enumerate(x, 1))
    return (2 * m - n - 2) * sum(x) - c


def i_printed(x: Vec, m: int) -> Q:
    """(I) of eq. (55) as printed: ((2m-2)/n - 1) n xbar - sum_{i>=m} x_i/n + sum_{i<m} x_i/n."""
    n = len(x)
    return (Q(2 * m - 2, n) - 1) * sum(x) - Q(sum(x[m - 1:]), n) + Q(sum(x[:m - 1]), n)


def sign_of(v: Q) -> int:
    return (v > 0) - (v < 0)


def sign_change_in_x(x: Vec) -> dict | None:
    """'With m held constant, the sign of the derivative is the same for all x': at the ends,
    the quarter points and the midpoint of every rank's interval, do the successive
    differences of g(X_{+x}) keep one sign?"""
    for m in range(1, len(x) + 2):
        lo, hi = interval(x, m)
        if lo == hi:
            continue
        pts = [lo + (hi - lo) * Q(j, 4) for j in range(5)]
        g = [gini(inserted(x, m, p)) for p in pts]
        signs = {sign_of(b - a) for a, b in itertools.pairwise(g)}
        if len(signs) > 1:
            return {"m": m, "points": [str(p) for p in pts], "gini": [str(v) for v in g]}
    return None


def sign_same_all_m(x: Vec) -> dict | None:
    """The twin: the sign is the same for every rank m too (m not held constant)?"""
    signs = {sign_of(t) for m in range(1, len(x) + 2) if (t := t_oracle(x, m)) is not None}
    return None if len(signs) <= 1 else {"signs_over_m": sorted(signs)}


def i_not_increasing(x: Vec, tightened: bool = False) -> dict | None:
    """'This (I) term increases monotonically in m': (I) as printed strictly increasing in m,
    and so is T(m) from the eq.-(2) values (where defined), which equals the closed form.
    ``tightened`` (the twin): (I)(m+1) - (I)(m) >= 2 xbar + 2 x_{m+1} / n (past the true
    increment 2 xbar + 2 x_m / n)."""
    n = len(x)
    for m in range(1, n + 1):
        step = i_printed(x, m + 1) - i_printed(x, m)
        if tightened:
            if m < n and step < Q(2 * sum(x) + 2 * x[m], n):
                return {"m": m, "increment": str(step)}
            continue
        if step <= 0:
            return {"m": m, "increment_printed_I": str(step)}
    if tightened:
        return None
    ts = [(m, t) for m in range(1, n + 2) if (t := t_oracle(x, m)) is not None]
    for m, t in ts:
        if t != t_closed(x, m):
            return {"m": m, "T_from_eq2": str(t), "T_closed_form": str(t_closed(x, m))}
    for (m1, t1), (m2, t2) in itertools.pairwise(ts):
        if t2 <= t1:
            return {"m": m1, "T_m": str(t1), "next_m": m2, "T_next": str(t2)}
    return None


def end_sign_violation(x: Vec, twin_rank_n: bool = False) -> dict | None:
    """(56), (57): the derivative is > 0 at rank n + 1 and < 0 at rank 1 (from eq.-(2)
    values).  ``twin_rank_n``: the twin claims '> 0' at rank n instead of n + 1."""
    n = len(x)
    checks = [(n, 1)] if twin_rank_n else [(n + 1, 1), (1, -1)]
    for m, want in checks:
        t = t_oracle(x, m)
        if t is not None and sign_of(t) != want:
            return {"m": m, "T": str(t)}
    return None


def end_display_violation(x: Vec, twin_rank_two: bool = False) -> dict | None:
    """(56), (57) as displays: their brackets are (I) of (55) at m = n + 1 and at m = 1, i.e.
    (56) n xbar + sum_{1 <= i < n} x_i/n = (I)(n + 1) and (57) -n xbar - sum_{i=1..n} x_i/n =
    (I)(1), exactly.  ``twin_rank_two``: (57)'s bracket claimed to be (I) at m = 2."""
    n = len(x)
    total = sum(x)
    printed = {n + 1: total + Q(sum(x[:n - 1]), n), 1: -total - Q(total, n)}
    ranks = [(2, printed[1])] if twin_rank_two else sorted(printed.items(), reverse=True)
    for m, bracket in ranks:
        if bracket != i_printed(x, m):
            return {"m": m, "printed_bracket": str(bracket), "I_of_55": str(i_printed(x, m))}
    return None


def m_a_values(x: Vec) -> list[int]:
    """Every integer m_A in [1, n + 1] with d/dx < 0 for every rank m < m_A and > 0 for every
    m > m_A (signs by the closed form T(m), checked against eq. (2) in
    :func:`i_not_increasing`)."""
    s = [sign_of(t_closed(x, m)) for m in range(1, len(x) + 2)]
    return [a for a in range(1, len(x) + 2)
            if all(v < 0 for v in s[:a - 1]) and all(v > 0 for v in s[a:])]


def m_a_missing(x: Vec, swapped: bool = False) -> dict | None:
    """No m_A exists? ``swapped`` (the twin): an m_A with the directions swapped (> 0 below,
    < 0 above) exists for every data set?"""
    if swapped:
        s = [sign_of(t_closed(x, m)) for m in range(1, len(x) + 2)]
        ok = any(all(v > 0 for v in s[:a - 1]) and all(v < 0 for v in s[a:])
                 for a in range(1, len(x) + 2))
        return None if ok else {"signs": s}
    return None if m_a_values(x) else {"signs": [sign_of(t_closed(x, m))
                                                  for m in range(1, len(x) + 2)]}


def m_a_not_unique(x: Vec) -> dict | None:
    """More than one integer m_A?"""
    vals = m_a_values(x)
    return {"m_A": vals} if len(vals) > 1 else None


def continuity_violation(x: Vec, skip: int = 1) -> dict | None:
    """The display after (57): g with x_r inserted at rank r equals g with it at rank r + 1
    (both the eq.-(2) Gini of X with x_r added), for 1 <= r < n (the formula of eq. (53)'s first
    line, evaluated at x = x_r).  ``skip = 2`` (the twin): rank r + 2 instead of r + 1."""
    n, S = len(x), sum(x)

    def formula(m: int, v: Q) -> Q:
        num = sum(((2 * i - n - 2) if i < m else (2 * (i + 1) - n - 2)) * xi
                  for i, xi in enumerate(x, 1)) + (2 * m - n - 2) * v
        return Q(num) / (n * (S + v))

    for r in range(1, n):
        if r + skip > n + 1:
            continue
        left, right = formula(r, x[r - 1]), formula(r + skip, x[r - 1])
        if left != right or (skip == 1 and left != gini(x + [x[r - 1]])):
            return {"r": r, "left": str(left), "right": str(right)}
    return None


def rank(x: Vec, v: Q) -> int:
    """The rank m of ``v`` in X_{+v} when no x_i equals v: x_{m-1} < v < x_m."""
    return next((m for m in range(1, len(x) + 1) if v < x[m - 1]), len(x) + 1)


def rank_step_violation(x: Vec, exactly_one: bool = False) -> dict | None:
    """'The rank m is a step function that increases each time x exceeds some x_i': between
    consecutive points of a grid of step 1/2 (off the integer data) the rank rises by the
    number of x_i crossed, and only then.  ``exactly_one`` (the twin): by exactly one."""
    pts = [Q(j, 2) for j in range(1, 2 * int(x[-1]) + 2, 2)]
    for a, b in itertools.pairwise(pts):
        crossed = sum(a < v < b for v in x)
        rise = rank(x, b) - rank(x, a)
        want = (1 if crossed else 0) if exactly_one else crossed
        if rise != want:
            return {"from": str(a), "to": str(b), "crossed": crossed, "rise": rise}
    return None


def rank_limits_violation(x: Vec, shift: int = 0) -> dict | None:
    """'As x -> x_r^-, m = r; as x -> x_r^+, m = r + 1' for 1 <= r < n (x_r -/+ 1/4).
    ``shift = 1`` (the twin): m = r + 1 below and r + 2 above."""
    for r in range(1, len(x)):
        lo, hi = rank(x, x[r - 1] - Q(1, 4)), rank(x, x[r - 1] + Q(1, 4))
        if (lo, hi) != (r + shift, r + 1 + shift):
            return {"r": r, "rank_below": lo, "rank_above": hi}
    return None


def eq58_violation(x: Vec, k_for_n: bool = False, factor: int = 2) -> dict | None:
    """Eq. (58), g(Q) = sum_{i,j} |y_i - y_j| / (2 n^2 ybar), against eq. (1) of every k-subset Q
    (1 < k < n) of X; ``k_for_n``: n read as k (the subset's size); ``factor`` 3 (the twin of
    that reading): 3 k^2 in the denominator."""
    n = len(x)
    for k in range(2, n):
        for idx in itertools.combinations(range(n), k):
            y = [x[i] for i in idx]
            size = k if k_for_n else n
            num = sum(abs(a - b) for a in y for b in y)
            got = Q(num * k, factor * size * size * sum(y))
            want = oracles.gini1_double_sum([Q(v) for v in y])
            if got != want:
                return {"k": k, "subset": list(idx), "eq58": str(got), "eq1": str(want)}
    return None


# ----------------------------------------------------- Theorem 4.1, k > 3: one outsider
def _outsider_cases(x: Vec, k: int) -> list[tuple[int, int, int]]:
    """(l, j, u), 1-based: Q = x_1..x_l, x_j, x_u..x_n with l + 1 < j < u - 1 (x_j is not in
    the prefix / suffix runs and the candidates x_{l+1}, x_{u-1} differ from it)."""
    n = len(x)
    out: list[tuple[int, int, int]] = []
    for l_ in range(k):
        u = n - (k - 1 - l_) + 1
        out.extend((l_, j, u) for j in range(l_ + 2, u - 1))
    return out


def _removed(x: Vec, l_: int, u: int) -> Vec:
    """Q_{-m} = x_1..x_l, x_u..x_n."""
    return x[:l_] + x[u - 1:]


def _g_with(x: Vec, l_: int, u: int, c: int) -> Q:
    """g(Q_{-m} + x_c) for a candidate index l < c < u."""
    return gini(_removed(x, l_, u) + [x[c - 1]])


def _direction(x: Vec, l_: int, u: int) -> int:
    """The sign of d g(Q_{+x}) / dx at rank m = l + 1 in Q_{-m} (Lemma 4.2: -1 when m < m_A,
    +1 when m > m_A, 0 when m = m_A)."""
    return sign_of(t_closed(_removed(x, l_, u), l_ + 1))


def _t41_cases(x: Vec) -> list[tuple[int, int, int, int]]:
    return [(k, *c) for k in range(4, len(x) - 1) for c in _outsider_cases(x, k)]


def insert_direction_violation(x: Vec, reading: str = "monotone") -> dict | None:
    """'Then, adding any element x to Q_{-m} selected from {x_{l+1}, ..., x_{u-1}} decreases
    (m_A > m) / increases (m_A < m) g(Q_{+x})'.  Readings: "monotone", g(Q_{+x}) decreases
    (increases) as x runs over the candidates; "versus-q-minus-m", g(Q_{+x}) < (>)
    g(Q_{-m}) for every candidate."""
    for k, l_, j, u in _t41_cases(x):
        d = _direction(x, l_, u)
        if d == 0:
            continue
        cands = range(l_ + 1, u)
        vals = [_g_with(x, l_, u, c) for c in cands]
        if reading == "monotone":  # strictly, between candidates of different values
            ok = all(sign_of(gb - ga) == (d if x[b - 1] != x[a - 1] else 0)
                     for (a, ga), (b, gb) in itertools.pairwise(zip(cands, vals, strict=True)))
        else:
            base = gini(_removed(x, l_, u))
            ok = all(sign_of(v - base) == d for v in vals)
        if not ok:
            return {"k": k, "l": l_, "j": j, "u": u, "direction": d,
                    "g_over_candidates": [str(v) for v in vals]}
    return None


def selection_violation(x: Vec, swapped: bool = False) -> dict | None:
    """'(m_A > m) ... we select x_{u-1}'; '(m_A < m) ... we should select x_{l+1}': does the
    selected candidate give the largest g(Q_{+x}) (the contradiction needs it)?  ``swapped``:
    the opposite selections (x_{l+1} when m_A > m, x_{u-1} when m_A < m)."""
    for k, l_, j, u in _t41_cases(x):
        d = _direction(x, l_, u)
        if d == 0:
            continue
        pick = (u - 1 if d < 0 else l_ + 1) if not swapped else (l_ + 1 if d < 0 else u - 1)
        vals = {c: _g_with(x, l_, u, c) for c in range(l_ + 1, u)}
        best = max(vals.values())
        if vals[pick] != best:
            return {"k": k, "l": l_, "j": j, "u": u, "m_A_above_m": d < 0, "selected": pick,
                    "g_selected": str(vals[pick]), "g_best": str(best)}
    return None


def m_equals_m_a_cases(x: Vec) -> list[dict]:
    """Cases with m = m_A (the derivative 0 at rank m): g(Q) and the two replacements."""
    out = []
    for k, l_, j, u in _t41_cases(x):
        if _direction(x, l_, u) == 0:
            q = gini(_removed(x, l_, u) + [x[j - 1]])
            lo, hi = _g_with(x, l_, u, l_ + 1), _g_with(x, l_, u, u - 1)
            out.append({"k": k, "l": l_, "j": j, "u": u, "g_Q": str(q),
                        "g_with_x_l+1": str(lo), "g_with_x_u-1": str(hi),
                        "larger": lo > q or hi > q, "at_least": lo >= q or hi >= q})
    return out


def endpoint_violation(x: Vec, only_lower: bool = False) -> dict | None:
    """'In any of these cases, we can find a Q_{+x} comprising k elements such that
    g(Q_{+x}) >= g(Q)': x_{l+1} or x_{u-1} in lieu of y_m.  ``only_lower`` (the twin): x_{l+1}
    always does."""
    for k, l_, j, u in _t41_cases(x):
        q = _g_with(x, l_, u, j)
        cands = [l_ + 1] if only_lower else [l_ + 1, u - 1]
        if max(_g_with(x, l_, u, c) for c in cands) < q:
            return {"k": k, "l": l_, "j": j, "u": u, "g_Q": str(q)}
    return None


def _runs41(x: Vec, idx: tuple[int, ...]) -> tuple[int, int]:
    """(l, u) 1-based: Q keeps x_1..x_l and x_u..x_n (the longest prefix / suffix runs)."""
    s = set(idx)
    n = len(x)
    l_ = next((i for i in range(n) if i not in s), n)
    u = next((i for i in range(n - 1, -1, -1) if i not in s), -1) + 2
    return l_, u


def iterate41_violation(x: Vec, only_lower: bool = False) -> dict | None:
    """'For any such Q' [more than one element outside the k smallest / largest] ... we can
    increase the Gini index by iteratively replacing elements in the "interior" with elements
    among the k - 1 smallest or largest': some interior element of Q' replaced by x_{l+1} or
    x_{u-1} (extending a run) gives g >= g(Q').  ``only_lower`` (the twin): by x_{l+1}."""
    n = len(x)
    for k in range(4, n - 1):
        for idx in itertools.combinations(range(n), k):
            l_, u = _runs41(x, idx)
            interior = [i for i in idx if l_ <= i < u - 1]
            if len(interior) < 2:
                continue
            base = gini([x[i] for i in idx])
            targets = [l_] if only_lower else [l_, u - 2]
            if not any(gini([x[i] for i in idx if i != e] + [x[t]]) >= base
                       for e in interior for t in targets):
                return {"k": k, "subset": list(idx), "g": str(base)}
    return None


# -------------------------------------------------- Theorem 4.2, k >= 3: one non-neighbour
def _t42_cases(x: Vec) -> list[tuple[int, int, int, str]]:
    """(k, l, u, side) 1-based: the run x_l..x_u of k - 1 >= 2 elements, side "l" (an element
    x_m with m < l - 1 exists) or "u" (m > u + 1 exists)."""
    n = len(x)
    out = []
    for k in range(3, n - 1):
        for l_ in range(1, n - k + 3):
            u = l_ + k - 2
            if l_ - 1 > 1:
                out.append((k, l_, u, "l"))
            if u + 1 < n:
                out.append((k, l_, u, "u"))
    return out


def add_side_violation(x: Vec, side: str, twin_far: bool = False) -> dict | None:
    """'Delta g(Q') decreases the most when we make x as large as possible while maintaining
    m = 1; that is, we add x_{l-1}' (side "l"); '... increases the least when x is as small as
    possible while maintaining m = n + 1; that is, we add x_{u+1}' (side "u").  ``twin_far``:
    the farthest element (x_1 / x_n) instead."""
    for k, l_, u, s in _t42_cases(x):
        if s != side:
            continue
        run = x[l_ - 1:u]
        cands = range(1, l_) if side == "l" else range(u + 1, len(x) + 1)
        vals = {i: gini(run + [x[i - 1]]) for i in cands}
        pick = (l_ - 1 if side == "l" else u + 1) if not twin_far else \
            (1 if side == "l" else len(x))
        if vals[pick] != min(vals.values()):
            return {"k": k, "l": l_, "u": u, "side": side, "picked": pick,
                    "g_picked": str(vals[pick]), "g_min": str(min(vals.values()))}
    return None


def window_smallest_violation(x: Vec, reading: str) -> dict | None:
    """'Thus, when adding one element to Q_{-m}, the set of k consecutive (x_{l-1}, ..., x_u)
    [(x_l, ..., x_{u+1})] has the smallest Gini index'.  Readings: "this-side" among the
    elements added on that side (i < l, resp. i > u); "any-side" among every element added."""
    for k, l_, u, s in _t42_cases(x):
        run = x[l_ - 1:u]
        pick = l_ - 1 if s == "l" else u + 1
        if reading == "this-side":
            cands = list(range(1, l_) if s == "l" else range(u + 1, len(x) + 1))
        else:
            cands = [i for i in range(1, len(x) + 1) if not l_ <= i <= u]
        vals = {i: gini(run + [x[i - 1]]) for i in cands}
        if vals[pick] != min(vals.values()):
            best = min(vals, key=vals.__getitem__)
            return {"k": k, "l": l_, "u": u, "side": s, "window": pick,
                    "g_window": str(vals[pick]), "better_element": best,
                    "g_better": str(vals[best])}
    return None


def contradiction_violation(x: Vec, reverse: bool = False) -> dict | None:
    """'However, this contradicts our assumption that Q_l (Q_u) has the smallest Gini index':
    the window (x_{l-1}, ..., x_u) [(x_l, ..., x_{u+1})] has a strictly smaller Gini index than
    every Q_l = (x_m, x_l, ..., x_u), m < l - 1 [Q_u, m > u + 1].  ``reverse`` (the twin):
    g(Q_l) < g(window)."""
    for k, l_, u, s in _t42_cases(x):
        run = x[l_ - 1:u]
        w = gini(run + [x[(l_ - 2) if s == "l" else u]])
        ms = range(1, l_ - 1) if s == "l" else range(u + 2, len(x) + 1)
        for m in ms:
            q = gini(run + [x[m - 1]])
            if (w >= q) if not reverse else (q >= w):
                return {"k": k, "l": l_, "u": u, "side": s, "m": m, "g_window": str(w),
                        "g_Q": str(q)}
    return None


def _longest_runs(idx: tuple[int, ...]) -> list[tuple[int, int]]:
    """Every longest block of consecutive indices (0-based, inclusive ends) of ``idx``."""
    runs: list[tuple[int, int]] = []
    for i in idx:
        if runs and runs[-1][1] == i - 1:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    longest = max(b - a for a, b in runs)
    return [r for r in runs if r[1] - r[0] == longest]


def iterate42_violation(x: Vec, only_below: bool = False) -> dict | None:
    """'For any such Q [more than one non-consecutive element], we can decrease the Gini index
    by iteratively replacing the non-consecutive elements with elements that are consecutive to
    [the run]': for every k-subset (k >= 3) that is not k consecutive elements, some element off
    a longest run replaced by the element just below or above that run gives g <= g(Q).
    ``only_below`` (the twin): just below the run only."""
    n = len(x)
    for k in range(3, n):
        for idx in itertools.combinations(range(n), k):
            if idx[-1] - idx[0] == k - 1:
                continue
            base = gini([x[i] for i in idx])
            found = False
            for a, b in _longest_runs(idx):
                adj = [t for t in ((a - 1,) if only_below else (a - 1, b + 1))
                       if 0 <= t < n and t not in idx]
                off = [i for i in idx if not a <= i <= b]
                if any(gini([x[i] for i in idx if i != e] + [x[t]]) <= base
                       for e in off for t in adj):
                    found = True
                    break
            if not found:
                return {"k": k, "subset": list(idx), "g": str(base)}
    return None


# ------------------------------------------------------------------------- the findings
def _scope(data: Data, sizes: str, extra: str = "", template: str = SCOPE) -> str:
    return template.format(sizes=sizes, count=len(data), extra=extra)


def _distinct(bad: Bad) -> Bad:
    """``bad`` on data sets of distinct values only."""
    return lambda x: bad(x) if len(set(x)) == len(x) else None


def _tie_step(fid: str, sentence: str, data: Data, scope: str, bad: Bad, twin_text: str,
              twin_bad: Bad, seed: int, extra: dict | None = None) -> Finding:
    """A theorem-proof step under :data:`TIES`: verified (with its twin) when it holds with
    ties, ``refuted-under-reading`` when only distinct values save it, refuted otherwise."""
    return readings_finding(fid, sentence, data, scope, {"distinct": _distinct(bad), "ties": bad},
                     TIES, twin_text, twin_bad, seed, extra)


def step_finding(fid: str, sentence: str, data: Data, scope: str, bad: Bad, twin_text: str,
          twin_bad: Bad, seed: int, vacuous: str, ref: str = REF) -> Finding:
    """A step checked as printed: refuted with its first violation, else verified when the
    perturbed step (``twin_bad``) is refuted in the same scope, vacuous otherwise."""
    t0 = time.perf_counter()
    v = first_violation(data, bad)
    tv = first_violation(data, twin_bad)
    return exhaustive_step_finding(
        id=fid, claim=sentence, reference=ref, subject=SUBJECT, violation=v,
        twin=twin(twin_text, "refuted" if tv else "not-refuted", witness=tv),
        scope=scope, evidence={"violation": v}, seed=seed, started=t0, vacuous_reason=vacuous)


def step_findings(specs: tuple[tuple[str, str, Bad, str, Bad], ...], data: Data, scope: str,
                  seed: int, ref: str) -> list[Finding]:
    """:func:`step_finding` for each (id, sentence, check, twin text,
    twin check) of ``specs`` over the same ``data``."""
    return [step_finding(fid, sentence, data, scope, bad, twin_text, twin_bad, seed,
                  f"the perturbed step ({twin_text}) held everywhere too", ref=ref)
            for fid, sentence, bad, twin_text, twin_bad in specs]


def readings_finding(fid: str, sentence: str, data: Data, scope: str, bad: dict[str, Bad],
              names: dict[str, str], twin_text: str, twin_bad: Bad, seed: int,
              extra: dict | None = None, ref: str = REF) -> Finding:
    """A step under each of its readings (``names``: reading -> its statement): refuted under
    every reading, ``refuted-under-reading`` when one holds (the first failing reading named,
    its counterexample replayable), else verified with the twin."""
    t0 = time.perf_counter()
    viol = {r: first_violation(data, b) for r, b in bad.items()}
    held = [r for r in bad if viol[r] is None]
    failing = next((r for r in bad if viol[r] is not None), None)
    tv = first_violation(data, twin_bad) if held else None
    tw = twin(twin_text, "refuted" if tv else "not-refuted", witness=tv)
    if failing is None:
        verdict = decide(True, tw, failed=Verdict.REFUTED,
                         vacuous_reason="the perturbed step held everywhere too")
    else:
        verdict = SPLIT if held else Verdict.REFUTED
    first = viol[failing] if failing else None
    return paper_finding(
        id=fid, claim=sentence, reference=ref, method=Method.EXHAUSTIVE,
        reading=names[failing] if failing else "", verdict=verdict, scope=scope,
        evidence={"readings": {names[r]: "refuted" if viol[r] else "holds" for r in bad},
                  "violations": {names[r]: viol[r] for r in bad}, "twin": tw, **(extra or {})},
        counterexample=counterexample_document(
            fid, SUBJECT, {**first, "reading": failing}, True, False, None, note=str(first))
        if first else None,
        seed=seed, duration_s=time.perf_counter() - t0, subject=SUBJECT)


def lemma42_findings(seed: int) -> list[Finding]:
    """Lemma 4.2's statement (52), its proof's steps and eq. (58)."""
    data = multisets(range(2, 7))
    sc = _scope(data, "2..6", "; every rank 1 <= m <= n + 1")
    t0 = time.perf_counter()
    out = [
        step_finding("text.a2.l42.sign-constant-in-x",
              "Appendix A.2 (Lemma 4.2's proof): 'With m held constant, the sign of "
              "d Delta g(X_{+x}) / dx is the same for all x: it is either negative or positive'",
              data, sc + "; x at the ends, quarter points and midpoint of [x_{m-1}, x_m]",
              sign_change_in_x, "the sign claimed the same for every rank m too (m not held "
              "constant)", sign_same_all_m, seed, "the sign never changed with m either"),
        step_finding("text.a2.l42.i-increasing",
              "Appendix A.2 (Lemma 4.2's proof): 'The expression labeled (I) in (55) controls "
              "the sign of the derivative. This (I) term increases monotonically in m' ((I) as "
              "printed and the true numerator T(m), from eq. (2), both strictly increasing)",
              data, sc, i_not_increasing, "(I)(m+1) - (I)(m) >= 2 xbar + 2 x_{m+1}/n (the true "
              "increment is 2 xbar + 2 x_m/n)", lambda x: i_not_increasing(x, True), seed,
              "the tightened increment held everywhere (no ties broken)"),
        step_finding("text.a2.l42.end-signs",
              "Appendix A.2, (56) and (57): at rank m = n + 1 the derivative is > 0, at rank "
              "m = 1 it is < 0", data, sc, end_sign_violation,
              "'> 0' claimed at rank m = n instead of n + 1",
              lambda x: end_sign_violation(x, True), seed, "the derivative was > 0 at rank n "
              "everywhere too"),
        step_finding("text.a2.l42.end-displays",
              "Appendix A.2, (56) and (57) as displays: 'When x has rank m = n + 1 ... d/dx = "
              "[n xbar + sum_{1 <= i < n} x_i/n]/(n xbar + x)^2' and at rank m = 1 '[-n xbar - "
              "sum_{i=1..n} x_i/n]/(n xbar + x)^2' (the brackets are (I) of (55) at m = n + 1 "
              "and m = 1; the printed displays' consistency -- (55) itself is refuted as the "
              "derivative by paper.eq55.insertion-derivative)", data, sc, end_display_violation,
              "(57)'s bracket claimed at rank m = 2", lambda x: end_display_violation(x, True),
              seed, "(57)'s bracket equalled (I) at rank 2 everywhere too"),
        step_finding("text.a2.l42.m-a-exists",
              "Appendix A.2, Lemma 4.2 (52): there exists an integer m_A in [1, n + 1] with "
              "d Delta g(X_{+x}) / dx < 0 when m < m_A and > 0 when m > m_A ('Thus, there exists "
              "a point x_{m_A} ...'; for any data set of k > 1 records)", data, sc, m_a_missing,
              "the directions swapped (> 0 below m_A, < 0 above)",
              lambda x: m_a_missing(x, True), seed, "the swapped statement held too"),
        readings_finding("text.a2.l42.m-a-unique",
                  "Appendix A.2, Lemma 4.2: 'There exists a unique integer m_A in [1, n + 1]' "
                  "with the derivative < 0 when m < m_A and > 0 when m > m_A",
                  data, sc, {"integer": m_a_not_unique, "first-non-negative": lambda x: None},
                  {"integer": "(a) as printed: any integer m_A meeting the two conditions "
                              "(nothing is required at m = m_A)",
                   "first-non-negative": "(b) m_A = the first rank whose derivative is not "
                                         "negative (unique by construction)"},
                  "unused", lambda x: None, seed,
                  {"note": "two integers qualify whenever no rank has derivative 0; the proofs "
                           "of Theorems 4.1 / 4.2 use existence only"}),
        step_finding("text.a2.l42.continuity",
              "Appendix A.2 (Lemma 4.2's proof): Delta g(X_{x_r^+}) - Delta g(X_{x_r^-}) = 0; "
              "'the differences in Delta g(X_{+x}) at the endpoints of any two adjacent "
              "intervals are negligible' (rank r and r + 1 at x = x_r give the same value)",
              data, sc, continuity_violation, "x_r at rank r + 2 instead of r + 1 (two "
              "intervals apart)", lambda x: continuity_violation(x, 2), seed,
              "rank r + 2 gave the same value everywhere"),
        step_finding("text.a2.l42.rank-step",
              "Appendix A.2: 'Viewed as a function of x, the rank m of the added element is a "
              "step function that increases each time x exceeds some x_i in X'", data,
              sc + "; x on the half-integers", rank_step_violation,
              "the rank rises by exactly one at each crossing (ties ignored)",
              lambda x: rank_step_violation(x, True), seed, "no tie was crossed"),
        readings_finding("text.a2.l42.rank-limits",
                  "Appendix A.2: 'As x -> x_r^-, we have m = r; as x -> x_r^+, we have "
                  "m = r + 1' (1 <= r < n)",
                  data, sc + "; x = x_r -/+ 1/4",
                  {"ties": rank_limits_violation,
                   "distinct": lambda x: rank_limits_violation(x) if len(set(x)) == len(x)
                   else None},
                  {"ties": TIES["ties"], "distinct": TIES["distinct"]},
                  "m = r + 1 as x -> x_r^- and r + 2 as x -> x_r^+ (the ranks shifted by one)",
                  lambda x: rank_limits_violation(x, 1), seed),
        readings_finding("text.a2.eq58",
                  "Appendix A.2, eq. (58): g(Q) = sum_{i,j} |y_i - y_j| / (2 n^2 ybar) for any "
                  "Q of k elements", multisets(range(3, 7)),
                  _scope(multisets(range(3, 7)), "3..6", "; every k-subset, 1 < k < n"),
                  {"n": eq58_violation, "k": lambda x: eq58_violation(x, True)},
                  {"n": "(a) as printed: n the size of X", "k": "(b) n read as k, the size of "
                                                               "Q (eq. (1) for Q)"},
                  "3 k^2 in place of 2 k^2", lambda x: eq58_violation(x, True, 3), seed,
                  {"note": "for fixed k both readings are a constant times N(Q)/S(Q): the "
                           "k-maximal / k-minimal subsets do not depend on the reading"}),
    ]
    out[0].evidence["scope_time_s"] = round(time.perf_counter() - t0, 3)
    return out


def _m_equals_m_a_finding(data: Data, sc: str, seed: int) -> Finding:
    """'When m = m_A ... find a larger Gini index': at m = m_A the derivative is 0, so the two
    replacements give g(Q) again -- refuted if 'larger' is strict, holds as 'at least'."""
    t0 = time.perf_counter()
    cases = [(x, c) for x in data for c in m_equals_m_a_cases(x)]
    strict = next(((x, c) for x, c in cases if not c["larger"]), None)
    weak_holds = all(c["at_least"] for _, c in cases)
    names = {"strict": "(a) 'a larger Gini index': strictly larger",
             "weak": "(b) 'larger' read as 'at least as large'"}
    ev = {"cases_m_equals_m_a": len(cases), "first_case": cases[0][1] if cases else None,
          "readings": {names["strict"]: "refuted" if strict else "holds",
                       names["weak"]: "holds" if weak_holds else "refuted"},
          "why": "at m = m_A the derivative is 0: g(Q_{+x}) is the same for every x in the "
                 "interval, so the replacement gives an equal, not a larger, Gini index"}
    if not cases or not strict:
        verdict = Verdict.INCONCLUSIVE  # no case, or every case strictly larger: no twin here
        ev["why_inconclusive"] = "no case with m = m_A in the scope" if not cases else \
            "every case was strictly larger (no perturbed check to refute)"
    else:
        verdict = SPLIT if weak_holds else Verdict.REFUTED
    return paper_finding(
        id="text.a2.t41.m-equals-m-a", claim=_EQ_TEXT, reference=REF, method=Method.EXHAUSTIVE,
        reading=names["strict"] if strict else "", verdict=verdict, scope=sc, evidence=ev,
        counterexample=counterexample_document(
            "text.a2.t41.m-equals-m-a", SUBJECT,
            {"data": [str(t) for t in strict[0]], **strict[1], "reading": "strict"}, True,
            False, None, note=str(strict[1])) if strict else None,
        seed=seed, duration_s=time.perf_counter() - t0, subject=SUBJECT)


def theorem41_findings(seed: int) -> list[Finding]:
    """The k > 3 steps of Theorem 4.1's proof (one outsider y_m, then several)."""
    data = theorem_data(range(6, 8))
    sc = _scope(data, "6..7", "; every k = 4..n-2 and every Q = x_1..x_l, x_j, x_u..x_n with "
                              "l + 1 < j < u - 1", SCOPE_T)
    swapped = first_violation(data, lambda x: selection_violation(x, True))
    return [
        readings_finding("text.a2.t41.insert-direction", _DIR_TEXT, data, sc,
                  {"monotone": insert_direction_violation,
                   "versus-q-minus-m": lambda x: insert_direction_violation(
                       x, "versus-q-minus-m")},
                  {"monotone": "(a) g(Q_{+x}) decreases (increases) as x runs over the "
                               "candidates",
                   "versus-q-minus-m": "(b) g(Q_{+x}) < (>) g(Q_{-m}) for every candidate x"},
                  "the directions swapped (m_A > m: increases)", _swapped_direction, seed),
        _tie_step("text.a2.t41.selection", _SEL_TEXT, data, sc, selection_violation,
                  "the opposite selections (x_{l+1} when m_A > m, x_{u-1} when m_A < m)",
                  lambda x: selection_violation(x, True), seed,
                  {"opposite_selection_best_everywhere": swapped is None,
                   "opposite_selection_violation": swapped}),
        _m_equals_m_a_finding(data, sc, seed),
        _tie_step("text.a2.t41.some-endpoint",
                  "Appendix A.2 (Theorem 4.1's proof): 'In any of these cases, we can find a "
                  "Q_{+x} comprising k elements such that g(Q_{+x}) >= g(Q)' (x_{l+1} or "
                  "x_{u-1} in lieu of y_m)", data, sc, endpoint_violation,
                  "x_{l+1} alone always suffices", lambda x: endpoint_violation(x, True), seed),
        _tie_step("text.a2.t41.iterate",
                  "Appendix A.2 (Theorem 4.1's proof): 'we need not consider any other Q' "
                  "including more than one element y_m that is not among the k smallest or k "
                  "largest ... we can increase the Gini index by iteratively replacing elements "
                  "in the \"interior\"' (one interior element replaced by x_{l+1} or x_{u-1}: "
                  "g does not fall)", data,
                  _scope(data, "6..7", "; every k-subset, k = 4..n-2, with two or more interior "
                                       "elements", SCOPE_T),
                  iterate41_violation, "the replacement by x_{l+1} only",
                  lambda x: iterate41_violation(x, True), seed),
    ]


def _swapped_direction(x: Vec) -> dict | None:
    """Twin of the insertion direction: the direction read off the opposite sign."""
    for k, l_, j, u in _t41_cases(x):
        d = _direction(x, l_, u)
        vals = [_g_with(x, l_, u, c) for c in range(l_ + 1, u)]
        if d != 0 and sign_of(vals[-1] - vals[0]) == d:
            return {"k": k, "l": l_, "j": j, "u": u, "direction": d}
    return None


_DIR_TEXT = ("Appendix A.2 (Theorem 4.1's proof, k > 3): 'Lemma 4.2 ensures that ... g(Q_{+x}) "
             "decreases when m_A > m and ... increases when m_A < m'; 'Then, adding any element "
             "x to Q_{-m} selected from {x_{l+1}, ..., x_{u-1}} decreases [increases] "
             "g(Q_{+x})'")
_SEL_TEXT = ("Appendix A.2 (Theorem 4.1's proof, k > 3): 'We therefore want to add x that results "
             "in the smallest decrement of g(Q_{+x}). Because of the monotonic decrease in (55) "
             "with x, we select x_{u-1}' (m_A > m); '... the largest increment ... we therefore "
             "should select x_{l+1}' (m_A < m): the selected x gives the largest g(Q_{+x})")
_ADD_TEXT = {
    "l": "Appendix A.2 (Theorem 4.2's proof): 'It is clear that Delta g(Q') decreases the most "
         "when we make x ... as large as possible while maintaining m = 1; that is, we add "
         "x_{l-1}'",
    "u": "Appendix A.2 (Theorem 4.2's proof): 'We see that Delta g(Q') increases the least when "
         "we make x ... as small as possible while maintaining m = n + 1; that is, we add "
         "x_{u+1}'"}
_EQ_TEXT = ("Appendix A.2 (Theorem 4.1's proof): 'When m = m_A, we can select one of x_{l+1} or "
            "x_{u-1} in lieu of x_m and find a larger Gini index'")


def theorem42_findings(seed: int) -> list[Finding]:
    """The k >= 3 steps of Theorem 4.2's proof (one element off the run, then several)."""
    data = theorem_data(range(5, 8))
    sc = _scope(data, "5..7", "; every k = 3..n-2, run x_l..x_u of k - 1 elements, x_m with "
                              "m < l - 1 (Q_l) or m > u + 1 (Q_u)", SCOPE_T)
    small = theorem_data(range(4, 7))
    lower = "(a) among the elements added on that side (i < l; i > u)"
    anyside = "(b) among every element added to Q_{-m}"
    return [
        *(_tie_step(f"text.a2.t42.add-{where}", _ADD_TEXT[side], data, sc,
                    functools.partial(add_side_violation, side=side),
                    f"{far} added instead",
                    functools.partial(add_side_violation, side=side, twin_far=True), seed)
          for side, where, far in (("l", "below", "x_1 (the smallest)"),
                                   ("u", "above", "x_n (the largest)"))),
        readings_finding("text.a2.t42.window-smallest",
                  "Appendix A.2 (Theorem 4.2's proof): 'Thus, when adding one element to "
                  "Q_{-m}, the set of k consecutive integers (x_{l-1}, ..., x_u) has the smallest "
                  "Gini index'; '... when adding one largest element ... (x_l, ..., x_u, "
                  "x_{u+1}) has the smallest Gini index'", data, sc,
                  {"this-side": lambda x: window_smallest_violation(x, "this-side"),
                   "any-side": lambda x: window_smallest_violation(x, "any-side")},
                  {"this-side": lower, "any-side": anyside},
                  "the farthest element on that side (x_1; x_n) in place of the window",
                  lambda x: add_side_violation(x, "l", True), seed),
        readings_finding("text.a2.t42.contradiction",
                  "Appendix A.2 (Theorem 4.2's proof): 'However, this contradicts our assumption "
                  "that Q_l [Q_u] has the smallest Gini index. Therefore, the assumption is "
                  "untrue' (the window has a strictly smaller Gini index than Q_l, Q_u)", data,
                  sc, {"distinct": _distinct(contradiction_violation),
                       "ties": contradiction_violation}, TIES,
                  "the reverse, g(Q_l) < g(window)",
                  lambda x: contradiction_violation(x, True), seed),
        _tie_step("text.a2.t42.iterate",
              "Appendix A.2 (Theorem 4.2's proof): 'we need not consider any other Q that "
              "includes more than one element y_m that is not consecutive with the remaining "
              "elements ... we can decrease the Gini index by iteratively replacing the "
              "non-consecutive elements with elements that are consecutive' (one element off a "
              "longest run replaced by the element just below or above it: g does not rise)",
              small, _scope(small, "4..6", "; every k-subset that is not k consecutive, "
                                           "k = 3..n-1", SCOPE_T),
              iterate42_violation, "the replacement by the element just below the run only",
              lambda x: iterate42_violation(x, True), seed,
              {"note": "with ties a subset can hold the same values as a window without being "
                       "one by index (e.g. (1, 1, 1, 8, 8) in (1, 1, 1, 1, 8, 8)): the step "
                       "fails there, the theorem does not"}),
    ]


@claim("text.a2.large-k-steps", "Appendix A.2: Lemma 4.2's proof steps, eq. (58), Theorem 4.1's "
       "proof for k > 3 and Theorem 4.2's for k >= 3, each step checked itself (exhaustive, "
       "exact)", "prove", reference="Appendix A.2")
def large_k_steps(budget_s: float, seed: int) -> list[Finding]:
    return [*lemma42_findings(seed), *theorem41_findings(seed), *theorem42_findings(seed)]


# ------------------------------------------------------------------------- replayers
#: finding id -> reading -> the per-data-set check (a violation dict or None)
_REPLAY: dict[str, dict[str, Bad]] = {
    "text.a2.l42.sign-constant-in-x": {"": sign_change_in_x},
    "text.a2.l42.i-increasing": {"": i_not_increasing},
    "text.a2.l42.end-signs": {"": end_sign_violation},
    "text.a2.l42.end-displays": {"": end_display_violation},
    "text.a2.l42.m-a-exists": {"": m_a_missing},
    "text.a2.l42.m-a-unique": {"integer": m_a_not_unique},
    "text.a2.l42.continuity": {"": continuity_violation},
    "text.a2.l42.rank-step": {"": rank_step_violation},
    "text.a2.l42.rank-limits": {"ties": rank_limits_violation},
    "text.a2.eq58": {"n": eq58_violation, "k": lambda x: eq58_violation(x, True)},
    "text.a2.t41.insert-direction": {
        "monotone": insert_direction_violation,
        "versus-q-minus-m": lambda x: insert_direction_violation(x, "versus-q-minus-m")},
    "text.a2.t41.selection": {"": selection_violation},
    "text.a2.t41.m-equals-m-a": {"strict": lambda x: next(
        (c for c in m_equals_m_a_cases(x) if not c["larger"]), None)},
    "text.a2.t41.some-endpoint": {"": endpoint_violation},
    "text.a2.t41.iterate": {"": iterate41_violation},
    "text.a2.t42.add-below": {"": lambda x: add_side_violation(x, "l")},
    "text.a2.t42.add-above": {"": lambda x: add_side_violation(x, "u")},
    "text.a2.t42.window-smallest": {
        "this-side": lambda x: window_smallest_violation(x, "this-side"),
        "any-side": lambda x: window_smallest_violation(x, "any-side")},
    "text.a2.t42.contradiction": {"ties": contradiction_violation},
    "text.a2.t42.iterate": {"": iterate42_violation},
}


Replay = Callable[[dict], tuple[bool, Any, Any, str]]


def replay_table(table: dict[str, dict[str, Bad]], fid: str,
                 convert: Callable[[str], Any] = int) -> Replay:
    """The replayer of finding ``fid``: the check of ``table[fid]`` for the counterexample's
    reading (its data decoded by ``convert``) must report the violation again."""
    def run(inputs: dict) -> tuple[bool, Any, Any, str]:
        inputs = from_jsonable(inputs)
        x = [convert(str(v)) for v in inputs["data"]]
        checks = table[fid]
        check = checks.get(inputs.get("reading") or "", next(iter(checks.values())))
        v = check(x)
        return v is not None, "the step holds on this input", v, f"{fid} on {x}: {v}"
    return run


for _fid in _REPLAY:
    replayer(_fid)(replay_table(_REPLAY, _fid))
