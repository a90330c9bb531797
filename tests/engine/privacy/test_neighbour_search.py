"""Neighbour search for floating-point bug classes (audit/privacy/neighbour_search.py).

Truths: a brute-force neighbour oracle written from the definitions (replace-one: same length,
at most one position differs; add/remove: deleting one position of the longer sequence gives
the shorter; multisets: sorted-list comparison after deleting one element), independent of
the module's vectorised checks.  Every generated pair is checked against it and against the
declared domain.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from audit.privacy.neighbour_search import (
    FAMILIES,
    SearchSpace,
    are_neighbours,
    neighbour_search,
    size_ladder,
    straddle_pair,
)
from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE
from kernels.errors import InvalidParameterError


def oracle(a: list[float], b: list[float], relation: str, ordered: bool) -> bool:
    if relation == REPLACE_ONE:
        if len(a) != len(b):
            return False
        if ordered:
            return sum(x != y for x, y in zip(a, b, strict=True)) <= 1
        for i in range(len(a)):
            for j in range(len(b)):
                if sorted(a[:i] + a[i + 1:]) == sorted(b[:j] + b[j + 1:]):
                    return True
        return len(a) == 0
    big, small = (a, b) if len(a) > len(b) else (b, a)
    if len(big) != len(small) + 1:
        return False
    for i in range(len(big)):
        rest = big[:i] + big[i + 1:]
        if (rest == small) if ordered else (sorted(rest) == sorted(small)):
            return True
    return False


small_lists = st.lists(st.sampled_from([0.0, 1.0, 2.0, -0.5]), max_size=5)


@given(small_lists, small_lists, st.sampled_from([REPLACE_ONE, ADD_REMOVE_ONE]), st.booleans())
def test_are_neighbours_matches_brute_force(a, b, rel, ordered):
    assert are_neighbours(a, b, rel, ordered=ordered) == oracle(a, b, rel, ordered)


def test_ordered_check_rejects_a_pair_differing_in_every_position():
    # a permutation: the same multiset, so the old sorted comparison passed it as replace-one
    a, b = [1.0, 2.0, 3.0], [3.0, 1.0, 2.0]
    assert not are_neighbours(a, b, REPLACE_ONE, ordered=True)
    assert are_neighbours(a, b, REPLACE_ONE, ordered=False)


def test_rows_compare_whole():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    b = np.array([[1.0, 2.0], [3.0, 5.0]])
    c = np.array([[1.0, 9.0], [3.0, 5.0]])
    assert are_neighbours(a, b, REPLACE_ONE)
    assert not are_neighbours(a, c, REPLACE_ONE)
    assert are_neighbours(a, a[:1], ADD_REMOVE_ONE)


@pytest.mark.parametrize("rel", [REPLACE_ONE, ADD_REMOVE_ONE])
@pytest.mark.parametrize("bounds", [(0.0, 1.0), (-3.0, 5.0), (2.0**40, 2.0**40 + 8.0),
                                    (-1.0, -0.25)])
def test_every_generated_pair_is_a_neighbour_in_the_domain(rel, bounds):
    lo, hi = bounds
    sp = SearchSpace(lo, hi, rel, n_max=64)
    fams = set()
    count = 0
    for p in neighbour_search(sp):
        count += 1
        fams.add(p.change["family"])
        a, b = p.first.tolist(), p.second.tolist()
        assert oracle(a, b, rel, ordered=True), (p.change, a, b)
        assert all(lo <= x <= hi for x in a + b), p.change
        assert max(len(a), len(b)) <= 64
        assert p.change["family"] in FAMILIES
    assert count > 10
    assert "bounds" in fams and "large-magnitude" in fams
    if rel == ADD_REMOVE_ONE:
        assert "empty" in fams


def test_unordered_relation_adds_reordered_presentations_that_are_multiset_neighbours():
    sp = SearchSpace(0.0, 1.0, REPLACE_ONE, n_max=64, ordered=False)
    order = [p for p in neighbour_search(sp) if p.change["family"] == "order"]
    assert order
    for p in order:
        assert oracle(p.first.tolist(), p.second.tolist(), REPLACE_ONE, ordered=False)
    # and some of them are NOT positional neighbours (the point of the family)
    assert any(not oracle(p.first.tolist(), p.second.tolist(), REPLACE_ONE, ordered=True)
               for p in order)
    sp_ordered = SearchSpace(0.0, 1.0, REPLACE_ONE, n_max=64, ordered=True)
    assert not [p for p in neighbour_search(sp_ordered) if p.change["family"] == "order"]


def test_clip_family_only_when_the_mechanism_clamps():
    sp = SearchSpace(0.0, 1.0, REPLACE_ONE, n_max=8, clamps=True)
    clip = [p for p in neighbour_search(sp) if p.change["family"] == "clip"]
    assert clip and any(max(p.first) > 1.0 or min(p.first) < 0.0 for p in clip)
    sp2 = SearchSpace(0.0, 1.0, REPLACE_ONE, n_max=8)
    assert not [p for p in neighbour_search(sp2) if p.change["family"] == "clip"]


def test_straddle_pair_hand_worked_at_n_2_20():
    # n = 2^20, [0, 1]: j = 19, m = 2^19 ones (prefix sum 2^19 in D, 2^19 - 1 in D'),
    # k = 2^19 copies of v just above ulp(2^19)/2 = 2^-34: in D each v rounds up to
    # 2^-33, in D' (binade below, ulp 2^-34) each adds 2^-34: gap 1 + 2^19 * 2^-34.
    sp = SearchSpace(0.0, 1.0, REPLACE_ONE, n_max=2**20)
    p = straddle_pair(sp, 2**20)
    assert p.change["m"] == 2**19
    assert p.first.size == 2**20 and np.count_nonzero(p.first != p.second) == 1
    gap = float(np.add.accumulate(p.first)[-1] - np.add.accumulate(p.second)[-1])
    assert gap == 1 + 2.0**-15 == p.change["expected_gap"]
    assert math.fsum(p.first) - math.fsum(p.second) == pytest.approx(1.0, abs=1e-9)


def test_size_ladder_and_bad_n():
    assert size_ladder(1) == [1]
    assert size_ladder(100) == [1, 2, 3, 4, 16, 64, 100]
    with pytest.raises(InvalidParameterError, match="--n"):
        size_ladder(0)
    with pytest.raises(InvalidParameterError, match="--lower"):
        SearchSpace(1.0, 1.0)


def test_fixed_size_pads_every_pair_to_the_size():
    sp = SearchSpace(0.0, 1.0, REPLACE_ONE, size=16)
    ps = list(neighbour_search(sp))
    assert ps and all(p.first.size == p.second.size == 16 for p in ps)
    for p in ps:
        assert oracle(p.first.tolist(), p.second.tolist(), REPLACE_ONE, ordered=True)
    with pytest.raises(InvalidParameterError, match="replace-one"):
        SearchSpace(0.0, 1.0, ADD_REMOVE_ONE, size=16)
