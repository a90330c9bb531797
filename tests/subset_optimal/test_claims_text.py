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
