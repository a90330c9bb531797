"""Appendix A.1.2 / A.1.3 / A.4 sentences of Lan & Reiter (proofs/gini/claims_appendix.py):
hand-worked values, the thresholds against the independent implementation in
proofs.gini.subsets, the verdicts, their twins and the replayers."""

from __future__ import annotations

from fractions import Fraction as Q

from audit.findings import from_jsonable
from audit.registry import REPLAYERS
from proofs.gini import claims_appendix as ca
from proofs.gini import subsets


def test_thresholds_by_hand_and_against_subsets() -> None:
    x = [Q(1), Q(2), Q(3)]
    # g0 = (-2 + 0 + 6) / (3 * 2 * 2) = 1/3, w = 2, n xbar = 6: eq. (15)'s expression at m = 1
    # is -8 (m' = 1) and -1 (m' = 2), never >= 0 for m' < 3, so s_1 = n = 3 (the reading)
    assert ca._F(x, 1, 1, 1) == -8 and ca._F(x, 1, 2, 1) == -1
    assert ca.s_t(x, 1, "printed") == 3 == subsets.s_m(x, 1)
    for y in ca.data_sets(5):
        for m in range(1, len(y) + 1):
            assert ca.s_t(y, m, "printed") == subsets.s_m(y, m)
            assert ca.q_t(y, m, "printed") == subsets.q_m(y, m)


def test_unit_mean_gini_by_hand() -> None:
    x = [Q(1), Q(2), Q(3)]
    # eq. (1): sum over ordered pairs 2 (1 + 2 + 1) = 8, over 2 n^2 xbar = 36 -> 2/9; the
    # printed formula on y = (1/2, 1, 3/2): ordered pairs 4 / 9, unordered pairs 2 / 9
    assert ca.eq1(x) == Q(2, 9)
    assert ca.unit_mean_gini(x, "ordered") == Q(4, 9)
    assert ca.unit_mean_gini(x, "unordered") == Q(2, 9)


def test_verdicts_twins_and_replays() -> None:
    found = {f.id: f for f in ca.thresholds(0, 0) + ca.prop51_facts(0, 0)}
    # F(m+1, m') <= F(m, m') (the appendix's own argument): both monotone, with live twins
    for fid in ("text.a12.s-monotone", "text.a13.q-monotone", "text.a4.scale-invariance"):
        assert found[fid].verdict == "verified", fid
        assert found[fid].evidence["twin"]["outcome"] == "refuted", fid
    # as printed q_n = n (the coefficient g0 - 1 < 0), so both sides are 0: not falsifiable
    # there; with m' < m required a tie makes Delta g(n, q_n) = 0 > Delta g(m, q_m)
    assert found["text.a13.qn-smallest"].verdict == "refuted-under-reading"
    assert found["text.a12.delta-at-s-negative"].verdict == "refuted"
    assert found["text.a4.unit-mean-gini"].verdict == "refuted-under-reading"
    for fid, f in found.items():
        if f.counterexample:
            still, _, _, _ = REPLAYERS[fid](from_jsonable(f.counterexample["inputs"]))
            assert still, fid
    # the unordered-pairs reading replays as holding on the same data
    still, _, _, _ = ca.replay_unit_mean({"data": ["1", "2", "3"], "pairs": "unordered"})
    assert not still


def test_theorem_42_restated_by_hand() -> None:
    # X = (1, 2, 3, 5), k = 2, eq. (2) of a pair = (b - a)/(a + b): the minimum 1/5 is the middle
    # window (2, 3); prefix + suffix keeps give (1, 2) 1/3, (1, 5) 2/3, (3, 5) 1/4
    x = [Q(1), Q(2), Q(3), Q(5)]
    for reading in ("block", "end"):
        v = ca.thm42_restated_violation(x, 2, reading)
        assert v == {"k": 2, "restated_min": "1/4", "true_min": "1/5"}
    (f,) = ca.thm42_restated(0, 0)
    assert f.verdict == "refuted"
    assert REPLAYERS["text.a2.thm42-restated"](f.counterexample["inputs"])[0]


def test_proof_steps_by_hand() -> None:
    x = [Q(1), Q(2), Q(3)]
    # F(1, 2) = (2 - 2 - 1/3) 6 + (0 + 1) = -1 and F(2, 2) = -2: F(m+1, m') <= F(m, m')
    assert ca._F(x, 1, 2, 1) == -1 and ca._F(x, 2, 2, 1) == -2
    assert ca.f_step_violation(x) is None
    # 2-subsets of (1, 2, 3): (1, 3) has the largest Gini, (2, 3) the smallest (1/5 < 1/3)
    assert ca.subset_step_violation(x) is None
    found = {f.id: f for f in ca.proof_steps(0, 0)}
    for fid in ("text.a1.f-step", "text.a2.small-k-subsets"):
        assert found[fid].verdict == "verified" and found[fid].evidence["twin"]["outcome"] == \
            "refuted", fid


def test_mean_and_iq_bounds_by_hand() -> None:
    # X = (1, 2, 3), [L, U] = [1, 8], k = 1: the mean ranges over [(1 + 2 + 1)/3, (2 + 3 + 8)/3]
    # = [4/3, 13/3]; IQ(X) = 7/2, and (26)'s lower bound 1/(2/7 + 1/3) = 21/13 = 7/(13/3) is
    # attained (so raising it by any factor fails)
    x = [Q(1), Q(2), Q(3)]
    assert ca.mean_extremes(x, 1, Q(1), Q(8)) == (Q(4, 3), Q(13, 3))
    assert ca.iq_bounds_violation(x, 1, Q(1), Q(8)) is None
    assert ca.iq_bounds_violation(x, 1, Q(1), Q(8), Q(1, 2 ** 20))["failed"] == ["(26) lower"]
    (f,) = ca.mean_iq_bounds(0, 0)
    assert f.verdict == "verified" and f.evidence["twin"]["outcome"] == "refuted"
