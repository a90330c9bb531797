"""The neighbour search as `dpaudit test` uses it (audit/privacy/search_pairs.py).

Truths: the brute-force ordered-neighbour oracle of tests/engine/privacy/test_neighbour_search.py
(re-stated here); the float-sum examples whose claims are right or wrong by construction
(audit/examples/float_sums.py)."""

from __future__ import annotations

from audit.examples.float_sums import BoundedErrorFloatSum, IntegerSum, NaiveFloatSum
from audit.findings import Verdict
from audit.privacy.neighbour_search import SearchSpace
from audit.privacy.search_pairs import (
    blackbox_pairs,
    declared_sensitivity,
    sensitivity_check_finding,
)
from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE


def _ordered_neighbours(a, b, rel):
    if rel == REPLACE_ONE:
        return len(a) == len(b) and sum(x != y for x, y in zip(a, b, strict=True)) <= 1
    big, small = (a, b) if len(a) > len(b) else (b, a)
    return len(big) == len(small) + 1 and any(big[:i] + big[i + 1:] == small
                                              for i in range(len(big)))


def test_blackbox_pairs_cover_families_small_and_capped():
    for rel in (REPLACE_ONE, ADD_REMOVE_ONE):
        ps = blackbox_pairs(SearchSpace(0.0, 1.0, rel, n_max=2**20), max_pairs=12,
                            max_records=64)
        assert len(ps) == 12
        fams = {p.change["family"] for p in ps}
        assert {"bounds", "large-magnitude", "dyadic-grid", "binade-straddle"} <= fams
        for p in ps:
            assert max(p.first.size, p.second.size) <= 64
            assert _ordered_neighbours(p.first.tolist(), p.second.tolist(), rel)


def test_declared_sensitivity_and_finding():
    assert declared_sensitivity(object()) is None
    sp = SearchSpace(0.0, 1.0, REPLACE_ONE, n_max=2**12)
    bad = sensitivity_check_finding(NaiveFloatSum(), sp, name="naive")
    assert bad.verdict == Verdict.REFUTED and bad.id == "user.sensitivity"
    for ok in (IntegerSum(), BoundedErrorFloatSum()):
        assert sensitivity_check_finding(ok, sp, name="ok").verdict == Verdict.NOT_REFUTED
