"""Section 4.1.1's steps and the displays / signs of Appendix A.1.2-A.1.3
(proofs/gini/claims_s41_steps.py): hand-worked values, the verdicts (each verified step with a
refuted twin) and the counterexamples replaying."""

from __future__ import annotations

from fractions import Fraction as Q

from proofs.gini import claims_s41_steps as c
from proofs.gini.claims_appendix import rank_bracket
from tests.common.step_findings import check_step_findings


def test_hand_worked() -> None:
    # n = 4, S = 11, eq. (2): g_0 = (-3 - 2 + 3 + 15)/(3 * 11) = 13/33
    x = [Q(v) for v in (1, 2, 3, 5)]
    assert c.coef(x, 2) == Q(4 - 5, 3) - Q(13, 33)
    # A(2, 3) = (6/3 - 5/3 - 13/33) * 11 + (2/3)(0 + 1) = (1/3 - 13/33) 11 + 2/3 = 0
    assert rank_bracket(x, 2, 3, 1) == 0
    v = c.grow_after_s_violation(x)
    assert v is not None and v["s_m"] == 3 and v["A"][0] == "0"
    assert c.grow_after_s_violation(x, reading="weak") is None
    # B = 2(n - m)/(n - 1) - 1 + g_0: 1 + g_0 at m = 1, g_0 - 1 at m = n
    assert c.b_term(x, 1) == 1 + Q(13, 33) and c.b_term(x, 4) == Q(13, 33) - 1
    assert c.b_signs_violation([0, 0, 1]) == {"B_1": "2", "B_n": "0"}  # g_0 = 1
    # D(m, m') over m' = 1..4 at m = 4 (Lemma A.1's proof): 28/3, 14/3, -2/3, -20/3
    assert [rank_bracket(x, 4, mp, -1) for mp in range(1, 5)] == [Q(28, 3), Q(14, 3), Q(-2, 3),
                                                         Q(-20, 3)]
    assert c.decrease_sign_violation(x) is not None  # 'positive for all m' < m' fails
    # raising x_1 of (1, 2, 3) to 2: (2, 2, 3), g = 1/7 against g_0 = 1/3
    assert c.delta([1, 2, 3], 1, Q(2)) == Q(1, 7) - Q(1, 3)
    # (22)'s first line at (1, 2, 3, 5), x_4 = 5 lowered to x_3 = 3 (m' = q_4 = 3, a = 2):
    # eq. (2) gives g(1, 2, 3, 3) - g_0 = 7/27 - 13/33 = -40/297; the printed coefficient
    # g_0 - 2/3 + 1 = 8/11 gives (16/11 - 4/3)/9 = 4/297
    v22 = c.eq22_first_line_violation([1, 2, 3, 5])
    assert v22 is not None and (v22["printed"], v22["eq2"]) == ("4/297", "40/297")
    # (21)'s sum term at (1, 2, 3): sum_{i=m}^3 (x_i - x_m) = 3, 1, 0 -- largest at m = 1
    assert c.sum_limits_violation([1, 2, 3]) is None
    assert c.sum_limits_violation([1, 2, 3], at_top=True) == {"sums_by_m": ["3", "1", "0"]}


EXPECTED = {
    **dict.fromkeys((
        "text.s411.eq13-signs", "text.s411.monotone-in-a", "text.s411.extreme-at-ends",
        "text.s411.sign-at-m", "text.s411.sign-switch", "text.s411.decrease-then-increase",
        "text.s411.b-decreasing", "text.a12.eq37-39", "text.a13.eq50-51",
        "text.s413.triangle-step", "text.s413.sum-limits",
    ), "verified"),
    **dict.fromkeys((
        "text.s411.positive-case", "text.s411.grow-after-s", "text.s411.b-signs",
    ), "refuted-under-reading"),
    **dict.fromkeys((
        "text.a13.sign-otherwise", "text.a13.sign-switch", "text.s413.eq22-first-line",
    ), "refuted"),
}


def test_verdicts_twins_and_replay() -> None:
    found = {f.id: f for fn in (c.s411_findings, c.a1_findings, c.eq22_findings) for f in fn(0)}
    assert found["text.s413.eq22-first-line"].evidence["cases_compared"]["q-m"] > 0
    check_step_findings(found, EXPECTED)
