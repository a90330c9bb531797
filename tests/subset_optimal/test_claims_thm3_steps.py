"""Appendix D.2 proof steps of Dick et al. checked themselves
(proofs/subset_optimal/claims_thm3_steps.py): hand-worked values of Algorithm 4's line 5 and of
the steps, verdicts with refuted twins, the two steps refuted under a reading (with the reading
under which they hold), replayers."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from proofs.subset_optimal import claims_thm3_steps as ct
from proofs.subset_optimal.claims_proofsteps import replay_family, replay_printed
from tests.common.step_checks import (
    assert_families_verified,
    assert_refuted_under_a_reading,
)


@pytest.fixture(scope="module")
def findings() -> dict:
    return {f.id: f for f in ct.d2_proof_steps(0, 0)}


def test_hand_worked() -> None:
    # line 5 with r = 2, n = 8: ranks 1..3 down by 1, ranks >= 5 up by 1
    assert ct.shifted([F(v) for v in range(8)], F(2)) == [F(v) for v in
                                                          (-1, 0, 1, 3, 5, 6, 7, 8)]
    # r = 3, eleven zeros, l = u = 0: ranks(0) = 0..11 meets [9/2, 6]; line 5 moves the 4 points
    # of rank <= 9/2 below 0, so |D'_quant below l| = 4 < 3r/2 = 9/2 (the printed step fails)
    c = {"D": [F(0)] * 11, "r": F(3), "l": F(0), "u": F(0)}
    assert ct._below(c) == 4 and not ct._below_printed(c)
    assert ct.COUNT_STEPS[1][1](c)  # the upper side holds there: 5 points moved above u
    # the rank window: R = 1, beta = 1/10, eta = 1/20: 6R/(eta beta) = 1200 < 3(2R/beta + 1)/eta
    # = 1260, so Corollary 1's deviation exceeds r/4
    assert ct.window_args({"R": F(1), "beta": F(1, 10), "eta": F(1, 20)}) == (F(1200), F(1260))
    # Lemma 7's third case, D = 13 points, r = 2: D minus L_8 = {2, 2, 3, 3, 3}; v = 2 < u = 5/2
    D = [F(0)] * 4 + [F(1)] * 4 + [F(2)] * 2 + [F(3)] * 3
    c7 = {"D": D, "r": F(2), "l": F(1, 2), "u": F(5, 2), "Dp": [F(1)] * 4 + [F(2)] * 2}
    assert ct._trim(c7) == [F(2), F(2), F(3), F(3), F(3)] and ct._third(c7) == [F(2)]
    assert all(step[1](c7) for step in ct.LEMMA7_STEPS)
    # D' = D_[l,u] plus one point 5/2 in [l, u] (distance 1 = r/2): CDF_D'(2) = 6/7 >=
    # (6 - 1)/(6 + 1) = 5/7, the step holds; its twin without the r/2 slack (>= 6/6) fails
    near = {"D": D, "r": F(2), "l": F(1, 2), "u": F(5, 2),
            "Dp": [F(1)] * 4 + [F(2)] * 2 + [F(5, 2)]}
    assert ct._s1(near) and not ct._s1(near, F(0))
    # D.1: the exponential mechanism on the count 0 over {0..4}, eps = 2 ln 2: weights 2^-o,
    # probabilities (16, 8, 4, 2, 1)/31, expected loss (8 + 8 + 6 + 4)/31 = 26/31
    assert ct.em_probs(0, 4) == [F(v, 31) for v in (16, 8, 4, 2, 1)]
    pair = {"n0": F(2), "n1": F(0), "m0": F(2), "m1": F(1), "top": F(4)}
    assert ct._group(pair) and not ct._group(pair, F(1))  # E1 = 26/31 < E l(A(D2), 0)


def test_verdicts_twins_and_replay(findings: dict) -> None:
    assert_families_verified(findings, ct.FAMILIES, ct.family_id)
    assert_refuted_under_a_reading(findings["text.subset.d2-shifted-below"],
                                   replay_printed(ct._below_printed))
    assert_refuted_under_a_reading(findings["text.subset.d2-rank-window"],
                                   ct.replay_rank_window)
    ok, *_ = replay_family("counts", ct.FAMILIES)(
        {"D": ["0"] * 11, "r": "3", "l": "0", "u": "0"})
    assert not ok  # the family's steps hold there; only the printed lower count fails
