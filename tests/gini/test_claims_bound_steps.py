"""Theorem 4.5's proof chains (29) / (30), the pruning at k* (Section 4.4) and Proposition 5.1's
proof steps (proofs/gini/claims_bound_steps.py): hand-worked values, the verdicts (each verified
step with a refuted twin) and the counterexamples replaying."""

from __future__ import annotations

from fractions import Fraction as Q

from proofs.gini import claims_bound_steps as c
from tests.common.step_findings import check_step_findings


def test_hand_worked() -> None:
    # f(1) at n = 20, IQ = 1/2: 2/(20 (2 - 1/20) - 1) = 2/38
    assert c.f24(Q(20), Q(1, 2), 1) == Q(1, 19)
    # IQ = 1, n = 42: the denominator of f vanishes at k = n/IQ - 1 = 41
    assert c.f24(Q(42), Q(1), 41) is None
    # (27)'s first term at IQ = 1/2, eps eta = 1/10: 2 (1/2)(20 + 1) = 21; n = 20 gives
    # 2/(20 - 1) = 2/19 > 1/10
    p = [Q(1, 2), Q(1, 2), Q(1, 10), Q(2), Q(21)]
    assert c.n_condition_violation(p) is None
    assert c.n_condition_violation(p, short=True) == {"n": "20", "bound": "2/19",
                                                      "eps_eta": "1/10"}
    # e^-beta = 1/2, A = (1/8, 0, 2/3, 0, 0): terms 1/8, 0, 1/6, 0, 0; k* = 3 (2^-3 <= 1/8)
    seq = [Q(1, 2), Q(1, 8), Q(0), Q(2, 3), Q(0), Q(0)]
    assert c.pruning_violation(seq) is None and c.pruning_violation(seq, 1) is None
    early = c.pruning_violation(seq, 2)
    assert early is not None and early["max"] == "1/6"
    # g = 1/10 at alpha = 1/20: U - L = (1/10)/(19/400) = 40/19, L = 1 - (19/20)(40/19) = -1
    assert c.any_g_violation([Q(1, 10)]) == {"alpha": "1/20", "L": "-1"}
    assert c.any_g_violation([Q(1, 10)], "some-alpha") is None
    assert c.reach(Q(1, 2), Q(1, 4)) == (Q(1, 2), Q(3, 2))  # L = 1 - 2g, U = 1 + 2g
    # (25) at X_(kt) = (3, 3, 3), [L, U] = [1, 3]: IQ = 2/3, 2/(n/IQ - 1) = 2/(9/2 - 1) = 4/7;
    # C_1's second term 2(n xbar - n L)/(n xbar (n - 1)) = 2 * 6/(9 * 2) = 2/3 > 4/7
    assert c.rhs25([3, 3, 3]) == Q(4, 7)
    assert c.c1_c2(3, Q(0), Q(0), Q(3), Q(3)) == Q(2, 3)
    assert c.eq25_violation([3, 3, 3]) == {"C": "2/3", "bound_25": "4/7"}
    assert c.lzero_violation([Q(1, 20)], use_alpha=True) == {"alpha": "1/20", "U": "20",
                                                             "mean": "19"}
    # (62) by hand: alpha = 1/4, g = 1/5: U - L = 16/15, L = 1/5, U = 19/15 (mean 1, eq.-(1)
    # Gini alpha (1 - alpha)(U - L) = 1/5); the twin's 7/8 gives L = 3/10 and Gini 7/40
    assert c.eq62_violation([Q(1, 4), Q(1, 5)]) is None
    assert c.eq62_violation([Q(1, 4), Q(1, 5)], factor=Q(7, 8))["gini_eq1"] == "7/40"


EXPECTED = {
    **dict.fromkeys((
        "text.sec43.eq29-chain", "text.sec43.eq30-chain", "text.a4.any-g",
    ), "refuted-under-reading"),
    **dict.fromkeys((
        "text.sec43.n-condition", "text.sec43.exp-step", "text.sec44.a-at-most-one",
        "text.sec44.k-star", "text.a4.max-alpha", "text.a4.half-only", "text.a4.l-zero",
        "text.a4.eq62",
    ), "verified"),
    "text.sec43.eq25": "refuted",
}


def test_verdicts_twins_and_replay() -> None:
    found = {f.id: f for fn in (c.theorem45_findings, c.pruning_findings, c.prop51_findings,
                                c.eq25_findings) for f in fn(0)}
    check_step_findings(found, EXPECTED)
    assert found["text.sec44.k-star"].evidence["k_star_minus_one_suffices"] is True
