"""Lemma 7 (stochastic dominance) and the Appendix B.3 clipping step: hand-worked values, a
broken twin the check must catch, the replayers, and (slow) the registered claims' verdicts."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from proofs.subset_optimal import claims_text as ct


def test_dominance_hand_worked() -> None:
    # CDF of {1, 2}: 0, 1/2, 1 at v = 0, 1, 2; CDF of {0, 1}: 1/2, 1, 1 -> {1, 2} > {0, 1}
    assert ct.dominates([F(1), F(2)], [F(0), F(1)])
    assert not ct.dominates([F(0), F(1)], [F(1), F(2)])
    # equal multisets dominate each other; sizes may differ
    assert ct.dominates([F(1), F(1)], [F(1)]) and ct.dominates([F(1)], [F(1), F(1)])


def test_lemma7_instance_and_broken_twin() -> None:
    # r = 2: 3 points below l = 1/2, 3 above u = 7/2, D_[l,u] = {1, 2, 3, 3}
    D = [F(0)] * 3 + [F(1), F(2), F(3), F(3)] + [F(4)] * 3
    Dp = [F(1), F(2), F(3)]  # one point removed from D_[l,u]
    assert ct.lemma7_case(D, 2, F(1, 2), F(7, 2), Dp) == (True, True)
    # trimming nothing (trim = 0) is no longer enough: D itself does not dominate D'
    assert ct.lemma7_case(D, 2, F(1, 2), F(7, 2), Dp, trim=0) != (True, True)


def test_clip_vs_delete_hand_worked() -> None:
    # D = {0, 2}, l' = 1: clip -> {1, 2}, mean 3/2 (bias 1/2); delete q = 1 -> {2} (bias 1)
    assert ct.clip_vs_delete([F(0), F(2)], F(1)) == (F(1, 2), F(1))
    still, _, _, _ = ct.replay_clip({"D": ["0", "2"], "l_prime": "1"})
    assert not still


def test_lemma7_replayer_detects_a_failing_input() -> None:
    D = [F(0)] * 3 + [F(1), F(2), F(3), F(3)] + [F(4)] * 3
    still, _, _, _ = ct.replay_lemma7({"D": D, "r": 2, "l": "1/2", "u": "7/2",
                                       "Dp": [F(1), F(2), F(3)]})
    assert not still
    # a D' outside the lemma's hypotheses (points below l) breaks the conclusion: replay says so
    still, _, _, _ = ct.replay_lemma7({"D": D, "r": 2, "l": "1/2", "u": "7/2",
                                       "Dp": [F(5)]})
    assert still


@pytest.mark.slow
def test_registered_claims_verdicts() -> None:
    """~20 s: PYTHONPATH=. pytest -m slow tests/subset_optimal/test_claims_text.py"""
    (f7,) = ct.lemma7(0, 0)
    assert f7.verdict == "verified" and f7.evidence["cases"] > 20000
    (fc,) = ct.clip_delete(0, 0)
    assert fc.verdict == "verified" and fc.evidence["cases"] > 10000


def test_def3_prose_hand_worked() -> None:
    # D = {0}, r = 1, tau = -1/2: formula: #{x < tau} = 0 <= 1 but #{x <= tau} = 0 < 1 -> no;
    # the literal sentence ('at least 1 point >= tau') says yes
    D = [F(0)]
    assert not ct.rank_formula(F(-1, 2), 1, D)
    assert ct.rank_prose(F(-1, 2), 1, D, literal=True)
    assert not ct.rank_prose(F(-1, 2), 1, D, literal=False)
    (f,) = ct.def3_prose(0, 0)
    assert f.verdict in ("refuted", "refuted-under-reading")
    assert set(f.evidence["readings"].values()) == {"refuted", "holds"}
    assert ct.replay_def3({"D": ["0"], "r": 1, "tau": "-1/2"})[0]
    assert not ct.replay_def3({"D": ["0"], "r": 1, "tau": "0"})[0]  # tau = 0: both agree


def test_footnotes_hand_worked() -> None:
    assert ct.footnote1(F(2, 5)) == F(1, 3)  # ceil(5/2) = 3; 1/5 < 1/3 <= 2/5
    assert ct.footnote1(F(1)) == F(1)
    # D = {0, 1, 1}: tau = 1 is rank 1, 2 and 3; -1 is rank 2, 1, 0 of {-1, -1, 0}
    D = [F(0), F(1), F(1)]
    assert all(ct.negation_ok(D, r, F(1)) for r in range(4))
    f1, f2 = ct.footnotes(0, 0)
    assert f1.verdict == f2.verdict == "verified"


def test_lemma3_counterexample_by_hand() -> None:
    # D = {0, 0}, eps = 1: every subset of size >= 1 has mean 0, so R(D, 1) = 0 (constant 0);
    # the printed S contains ({0, 0}, {0, 1}) (sizes 2, distance 2) with l = 1/2
    assert ct.constant_upper_bound([F(0), F(0)], 1) == 0
    d1, d2 = ct.lemma3_literal_pair([F(0), F(0)], 1, F(1))
    assert d2 == [F(0), F(1)] and abs(ct.mean(d1) - ct.mean(d2)) == F(1, 2)
    lit, const = ct.lemma3(0, 0)
    assert lit.verdict in ("refuted", "refuted-under-reading")
    assert const.verdict in ("refuted", "refuted-under-reading")
    from audit.findings import from_jsonable
    for f in (lit, const):
        still, _, _, _ = ct.replay_lemma3(from_jsonable(f.counterexample["inputs"]))
        assert still
    # a data set with all its subset means equal cannot refute the subset reading
    assert not ct.replay_lemma3({"D": ["1", "1", "1"], "k": 1, "constant": "eps"})[0]


def test_lipschitz_hand_worked() -> None:
    assert not ct.replay_lipschitz({"D": ["0", "0"], "D2": ["1", "1"], "property": "mean"})[0]
    bad, count = ct.lipschitz_violations(max_n=3)
    assert not bad and count > 100


def test_lemma2_step_and_constants() -> None:
    step, consts = ct.lemma2_proof(0, 0)
    assert step.verdict == "refuted" and consts.verdict == "verified"
    # s = 1, Z_s = 0, Z_n = 1, n = 2: (1 + 0)/3 - 1/2 = -1/6; the printed line gives 0
    still, truth, printed, _ = ct.replay_lemma2({"s": "1", "Z_s": "0", "Z_n": "1", "n": "2"})
    assert still and truth == "-1/6" and printed == "0"
    assert not ct.replay_lemma2({"s": "0", "Z_s": "3", "Z_n": "1", "n": "2"})[0]  # s = 0: equal


def test_cor1_rounding_hand_worked_and_twin() -> None:
    grid = [F(v) for v in range(5)]
    # D = {1, 2}, tau = 1.4: ranks(1.4) = {1}; nearest grid point 1: ranks(1) = {0, 1}
    assert ct.grid_rounding_ok([F(1), F(2)], F(7, 5), grid)
    # broken twin: a grid that skips the data's grid point (D = {2}, grid {3}): rounding
    # tau = 1.4 (ranks {0}) to 3 (ranks {1}) jumps over a data point and loses rank 0
    assert not ct.grid_rounding_ok([F(2)], F(7, 5), [F(3)])
    (f,) = ct.cor1_rounding(0, 0)
    assert f.verdict == "verified" and f.evidence["cases"] > 10000


def test_thm3_failure_term() -> None:
    (f,) = ct.thm3_failure(0, 0)
    assert set(f.evidence["readings"].values()) == {"refuted", "holds"}
    # L = 1, beta = 1/100, B = 1 (eta = 1/100): 4/100 + (1 - 2/100) * 1 = 51/50 > 6/100
    assert ct.replay_thm3_failure({"L": "1", "beta": "1/100", "B": "1"}) == (
        True, "3/50", "51/50", "51/50 vs 3/50")
    # B <= 4 L beta: the literal term no longer exceeds (no refutation from such inputs)
    assert not ct.replay_thm3_failure({"L": "1", "beta": "1", "B": "2"})[0]
