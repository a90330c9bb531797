"""Appendix A's tail / sampler steps and Appendix E.1's steps of Dick et al. checked themselves
(proofs/subset_optimal/claims_tail_steps.py): hand-worked pieces and probabilities (eps =
2 ln 2), Lemma 8's last line, verdicts with refuted twins, replayers."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from audit.falsifiability import needs_twin, twin_problem
from proofs.subset_optimal import claims_tail_steps as ct
from proofs.subset_optimal.claims_proofsteps import replay_family, replay_printed
from tests.common.step_checks import (
    assert_families_verified,
    assert_refuted_under_a_reading,
)


@pytest.fixture(scope="module")
def findings() -> dict:
    return {f.id: f for f in ct.a_e1_steps(0, 0)}


def test_hand_worked() -> None:
    # D = {0}, r = 1, alpha = 1/2, [a, b] = [-1, 8]: loss 1 left of -1/2 (the window holds no
    # point, rank 0 only), 0 elsewhere; normaliser 1/2 * 2^-1 + 1 + 15/2 = 35/4
    c = {"D": [F(0)], "r": F(1), "alpha": F(1, 2), "a": F(-1), "b": F(8)}
    assert ct.pieces(c) == [(F(-1), F(-1, 2), 1), (F(-1, 2), F(1, 2), 0), (F(1, 2), F(8), 0)]
    assert ct._z(c) == F(35, 4) and ct._mass(c, 1) == F(1, 35) and ct._mass(c, 0) == 1
    assert all(step[1](c) for step in ct.TAIL_STEPS)
    assert not ct._sampler(c, widths=False)  # picking I_i by p_i alone is not the density
    # Lemma 8's last line, X = {-2, 0}, 1/eps = 1, k = 2: squared, 4 M^ = 4 on the left and
    # 16 M^ (1/2) = 8 on the right: '<=' holds, the printed '=' does not
    x = {"X": [F(-2), F(0)], "k": 1, "km": 2}
    assert ct._l8_last(x) and not ct._l8_printed(x)
    # the moments, p = uniform on {0, 1}, n = 2: E|mu(X^2) - 1/2| = 1/4, E(...)^2 = 1/8
    m = {"p": F(0), "n": F(2)}
    assert ct._pmoment(m, 2) == F(1, 4) and ct._first_display(m)
    assert ct.choice_of_c()["gap"] == 0 and ct.choice_of_c()["gap_twin"] != 0
    # Section 3.1, D = {1, 1, 1}: #{x <= tau} is 0 or 3, so ranks 1 and 2 have no exact
    # threshold; tau = 1 is a rank-2 threshold by the formula (0 <= 2 <= 3), rank error 0
    d = {"D": [F(1)] * 3}
    assert ct._counts_le(d["D"]) == {0, 3} and ct._runs_without_threshold(d)
    assert not ct._runs_without_threshold(d, 1)  # rank 0 (tau < 1) does have one
    assert all(step[1](d) for step in ct.SEC31_STEPS)


def test_verdicts_twins_and_replay(findings: dict) -> None:
    assert_families_verified(findings, ct.FAMILIES, ct.family_id)
    c = findings["text.subset.a-choice-of-c"]
    assert c.verdict == "verified" and needs_twin(c.id) and twin_problem(c.evidence) == ""
    assert_refuted_under_a_reading(findings["text.subset.e1-lemma8-last-line"],
                                   replay_printed(ct._l8_printed))
    ok, *_ = replay_family("lemma8", ct.FAMILIES)({"X": ["-2", "0"], "k": "1", "km": "2"})
    assert not ok  # every step of the family holds there


def test_corollary1_case2_steps_hand_worked() -> None:
    # grid {0, 1, 2}; tau^ = 5/12 (closest 0), tau' = 7/12 (closest 1): 1/6 apart, no grid
    # point between them, so no data point either; D = {1}: ranks {0} on both sides
    c = {"D": [F(1)], "t1": F(5, 12), "t2": F(7, 12)}
    assert ct._split(c, F(1, 3)) and all(step[1](c) for step in ct.COR1_CASE2_STEPS)
    # the proof needs alpha = gamma/3: at distance 1/2 the interval [0, 1/2] holds the data
    # point 0 while the closest grid points can differ (1/2 is a tie) -- the twin's case
    far = {"D": [F(0)], "t1": F(0), "t2": F(1, 2)}
    assert ct._no_data_between(far) and not ct._no_data_between(far, F(2, 3))
    # tau^ = 0 (a data point), tau' = 1/12: the open interval is empty, the closed one is not,
    # and ranks(0, {0}) = {0, 1} != ranks(1/12, {0}) = {1}
    edge = {"D": [F(0)], "t1": F(0), "t2": F(1, 12)}
    assert ct._same_ranks(edge) and not ct._same_ranks(edge, closed=False)
