"""The exact, sample-free sensitivity check (audit/privacy/sensitivity_check.py).

Truths: exact rational arithmetic (fractions.Fraction) done here by hand; a pure-Python
left-to-right float loop as an independent implementation of the iterative sum; hand-worked
rounding gaps (derivations in the comments).  The check is deterministic (no sampling): no
false-alarm or miss rates apply; it must pass the correct sums (integer sum, float sum with
its stated rounding bound) and refute the naive float sum (the broken twin).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from audit.examples.float_sums import BoundedErrorFloatSum, IntegerSum, NaiveFloatSum
from audit.findings import Verdict
from audit.privacy.neighbour_search import SearchSpace, straddle_pair
from audit.privacy.sensitivity_check import (
    CHECK_SENSITIVITY,
    check_sensitivity,
    exact_distance,
    exceeds,
    sensitivity_finding,
)
from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE, NeighbourPair
from audit.registry import REPLAYERS
from kernels.errors import InvalidParameterError


def py_sum(xs):
    s = 0.0
    for v in xs:
        s += min(max(v, 0.0), 1.0)
    return s


def test_exact_distance_is_exact_where_float_subtraction_rounds():
    a, b = 1.0 + 2.0**-52, -(2.0**-60)
    claim = 1.0 + 2.0**-52
    assert a - b == claim  # float subtraction rounds the excess away ...
    d = exact_distance(a, b, "l1")
    assert d == Fraction(1) + Fraction(1, 2**52) + Fraction(1, 2**60)
    assert exceeds(d, claim, "l1")  # ... the exact comparison does not
    assert not exceeds(d, a + 2.0**-50, "l1")


def test_norms_by_hand():
    assert exact_distance([0.0, 3.0], [4.0, 0.0], "l1") == 7
    assert exact_distance([0.0, 3.0], [4.0, 0.0], "linf") == 4
    assert exact_distance([0.0, 3.0], [4.0, 0.0], "l2") == 25  # squared
    assert not exceeds(Fraction(25), 5.0, "l2")
    assert exceeds(Fraction(25), 4.999999, "l2")
    with pytest.raises(InvalidParameterError, match="norm"):
        exact_distance(1.0, 2.0, "l3")


def test_naive_float_sum_refuted_and_witness_confirmed_independently():
    mech = NaiveFloatSum()
    sp = SearchSpace(0.0, 1.0, REPLACE_ONE, n_max=2**12)
    res = check_sensitivity(mech.query, mech.sensitivity, sp)
    assert res.refuted
    p = res.witness_pair
    # independent recomputation: a pure-Python loop, exact rationals
    gap = Fraction(py_sum(p.first.tolist())) - Fraction(py_sum(p.second.tolist()))
    assert abs(gap) > 1
    assert sum(x != y for x, y in zip(p.first.tolist(), p.second.tolist(), strict=True)) == 1
    assert all(0.0 <= v <= 1.0 for v in p.first.tolist() + p.second.tolist())
    f = sensitivity_finding(res, name="NaiveFloatSum",
                            ref="audit.examples.float_sums:NaiveFloatSum")
    assert f.verdict == Verdict.REFUTED and "no false alarm" in f.scope
    ok, _, actual, _ = REPLAYERS[CHECK_SENSITIVITY](f.counterexample["inputs"])
    assert ok and actual == res.worst["distance"]


def test_dyadic_grid_refutes_at_four_records():
    # records U - q, U - 2q, ... with q = ulp(1)/4 = 2^-54 (n <= 4): the float sums of D and
    # of D' (first record replaced by L = 0) round differently: the exact gap exceeds 1.
    mech = NaiveFloatSum()
    sp = SearchSpace(0.0, 1.0, REPLACE_ONE, n_max=4)
    res = check_sensitivity(mech.query, 1.0, sp, families=("dyadic-grid",))
    assert res.refuted and res.worst["n"] <= 4


@pytest.mark.parametrize("rel", [REPLACE_ONE, ADD_REMOVE_ONE])
def test_correct_sums_not_flagged(rel):
    sp = SearchSpace(0.0, 1.0, rel, n_max=2**16)
    ints = check_sensitivity(IntegerSum().query, 1.0, sp)
    assert not ints.refuted and ints.evaluated > 50
    assert ints.by_family["binade-straddle"]["max_ratio"] <= 1.0
    bounded = BoundedErrorFloatSum()
    res = check_sensitivity(bounded.query, bounded.sensitivity, sp)
    assert not res.refuted and res.evaluated > 50
    f = sensitivity_finding(res, name="BoundedErrorFloatSum")
    assert f.verdict == Verdict.NOT_REFUTED and "NOT REFUTED" in f.scope


def test_broken_claim_on_exact_sum_refuted():
    res = check_sensitivity(IntegerSum().query, 0.5, SearchSpace(0.0, 1.0, n_max=4))
    assert res.refuted and res.worst["distance"] == 1.0


def test_crashing_pairs_are_skipped_not_witnesses():
    def mean(x):
        return float(np.mean(x)) if len(x) else 1 / 0

    sp = SearchSpace(0.0, 1.0, ADD_REMOVE_ONE, n_max=4)
    res = check_sensitivity(mean, 1.0, sp)
    assert res.skipped and all("ZeroDivisionError" in s["error"] for s in res.skipped)
    assert not res.refuted


def test_given_pairs_must_be_ordered_neighbours():
    bad = NeighbourPair(np.array([1.0, 2.0, 3.0]), np.array([3.0, 1.0, 2.0]), REPLACE_ONE)
    with pytest.raises(InvalidParameterError, match="not a neighbouring pair"):
        check_sensitivity(lambda x: float(np.sum(x)), 1.0, pairs=[bad])


def test_large_pair_counterexample_stores_a_recipe_that_replays():
    mech = NaiveFloatSum()
    sp = SearchSpace(0.0, 1.0, REPLACE_ONE, n_max=2**14)
    res = check_sensitivity(mech.query, 1.0, sp, families=("binade-straddle",))
    assert res.refuted and res.worst["n"] == 2**14
    f = sensitivity_finding(res, name="NaiveFloatSum",
                            ref="audit.examples.float_sums:NaiveFloatSum")
    inputs = f.counterexample["inputs"]
    assert "recipe" in inputs and "pair" not in inputs
    ok, _, actual, _ = REPLAYERS[CHECK_SENSITIVITY](inputs)
    assert ok and actual == res.worst["distance"]


@pytest.mark.slow
def test_naive_float_sum_refuted_at_2_26_records():
    # python -m pytest -m slow tests/engine/privacy/test_sensitivity_check.py (about 10 s, 1 GiB)
    # n = 2^26: m = 2^25 ones, k = 2^25 copies of v ~ 2^-28: gap 1 + 2^25 * 2^-28 = 1.125
    sp = SearchSpace(0.0, 1.0, REPLACE_ONE, n_max=2**26)
    p = straddle_pair(sp, 2**26)
    res = check_sensitivity(NaiveFloatSum().query, 1.0, pairs=[p])
    assert res.refuted and res.worst["distance"] == 1.125
    ok = check_sensitivity(IntegerSum().query, 1.0, pairs=[p])
    assert not ok.refuted
