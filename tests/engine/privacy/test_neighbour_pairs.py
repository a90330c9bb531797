"""The neighbour generators (``audit.privacy.neighbours``) against brute force by definition,
exhaustively on small data sets: every pair is (X, X') with X' exactly X with the stated
change applied (replace record ``rank`` by ``new``; remove record ``rank``; add ``new``),
sorted, inside [L, U]^n, different from X; and the pairs cover the documented candidate set
(module docstring of :mod:`audit.privacy.neighbours`: one record per distinct value - all
of them when there are at most ``max_distinct`` - replaced by L, U, the other candidates'
values and the extra values inside [L, U]; removals one per distinct value; additions of L,
U and the extra values).

Scope: every multiset of 1..6 records (replace-one: 2..6) on {0, 1/4, 1/2, 1} in
[L, U] = [0, 1], extra values {-1, 0.3, 0.75, 2} (two outside [L, U]), max_distinct in
{64, 2} (2: the order-statistic path).  Exact comparisons of float arrays.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from audit.privacy.neighbours import AddRemoveOne, ReplaceOne

GRID = (0.0, 0.25, 0.5, 1.0)
EXTRA = (-1.0, 0.3, 0.75, 2.0)
L, U = 0.0, 1.0


def _datasets(least: int) -> list[np.ndarray]:
    return [np.array(d) for n in range(least, 7)
            for d in itertools.combinations_with_replacement(GRID, n)]


def _candidates(xs: np.ndarray, max_distinct: int) -> list[int]:
    """The documented candidate records, by definition (not the fast path)."""
    n = xs.size
    distinct = sorted(set(xs.tolist()))
    if len(distinct) <= max_distinct:
        return sorted({int(np.flatnonzero(xs == v)[0]) for v in distinct} | {n - 1})
    return sorted(i for i in {0, 1, n // 4, n // 2, (3 * n) // 4, n - 2, n - 1} if 0 <= i < n)


@pytest.mark.parametrize("max_distinct", [64, 2])
def test_replace_one_pairs_are_the_stated_changes_and_cover_the_candidates(
        max_distinct: int) -> None:
    gen = ReplaceOne(L, U, values=EXTRA, max_distinct=max_distinct)
    for xs in _datasets(2):  # replace-one data sets hold >= 2 records
        seen = set()
        for p in gen.pairs(xs):
            ch = p.change
            assert ch["op"] == "replace" and np.array_equal(p.first, xs)
            i, new = int(ch["rank"]), float(ch["new"])
            assert float(ch["old"]) == xs[i] != new
            assert L <= new <= U, (xs, ch)
            want = xs.copy()
            want[i] = new
            assert np.array_equal(p.second, np.sort(want)), (xs, ch, p.second)
            seen.add((i, new))
        idx = _candidates(xs, max_distinct)
        vals = {L, U} | {float(xs[i]) for i in idx} | {v for v in EXTRA if L <= v <= U}
        want_set = {(i, v) for i in idx for v in vals if v != xs[i]}
        assert seen == want_set, (xs, sorted(seen ^ want_set))


@pytest.mark.parametrize("max_distinct", [64, 2])
def test_add_remove_one_pairs_are_the_stated_changes_and_cover_the_candidates(
        max_distinct: int) -> None:
    gen = AddRemoveOne(L, U, values=EXTRA, max_distinct=max_distinct)
    for xs in _datasets(1):
        removed, added = set(), set()
        for p in gen.pairs(xs):
            ch = p.change
            assert np.array_equal(p.first, xs)
            if ch["op"] == "remove":
                i = int(ch["rank"])
                assert float(ch["old"]) == xs[i]
                assert np.array_equal(p.second, np.delete(xs, i)), (xs, ch)
                removed.add(i)
            else:
                assert ch["op"] == "add"
                v = float(ch["new"])
                assert L <= v <= U, (xs, ch)
                assert np.array_equal(p.second, np.sort(np.append(xs, v))), (xs, ch, p.second)
                added.add(v)
        assert removed == set(_candidates(xs, max_distinct)), xs
        assert added == {L, U} | {v for v in EXTRA if L <= v <= U}, xs
