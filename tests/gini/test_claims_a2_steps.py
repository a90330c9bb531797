"""Lemma 4.2's proof steps, eq. (58) and the k > 3 / k >= 3 proofs of Theorems 4.1 / 4.2
(proofs/gini/claims_a2_steps.py): hand-worked values, the verdicts of the full claim (each
verified step with a refuted twin), and the counterexamples replaying."""

from __future__ import annotations

from fractions import Fraction as Q

import pytest

from audit.registry import REPLAYERS
from proofs.gini import claims_a2_steps as c
from tests.common.step_findings import check_step_findings


def test_numerator_of_the_derivative_hand_worked() -> None:
    x = [1, 2, 3]
    # rank 1, x in [0, 1]: g(0, 1, 2, 3) = 10/18, g(1, 1, 2, 3) = 7/21 (eq. (2), n + 1 = 4);
    # T = n (S + 0)(S + 1)(g(1) - g(0)) / 1 = 3 * 6 * 7 * (1/3 - 5/9) = -28
    assert c.t_oracle(x, 1) == -28
    # closed form: T(m + 1) - T(m) = 2 (S + x_m): -28, -14, 2, 20
    assert [c.t_closed(x, m) for m in range(1, 5)] == [-28, -14, 2, 20]
    assert all(c.t_oracle(x, m) == c.t_closed(x, m) for m in range(1, 5))
    # no rank has derivative 0: both the last negative and the first positive rank qualify
    assert c.m_a_values(x) == [2, 3]
    assert c.m_a_not_unique(x) == {"m_A": [2, 3]}
    assert c.m_a_missing(x) is None and c.m_a_missing(x, swapped=True) is not None


def test_selection_is_the_wrong_endpoint_hand_worked() -> None:
    x = [1, 2, 3, 4, 5, 6]
    # Q = (x_2, x_4, x_5, x_6): l = 0, y = x_2, u = 4; Q_{-m} = (4, 5, 6), rank m = 1 < m_A
    # g(1, 4, 5, 6) = (-3 - 4 + 5 + 18)/(3 * 16) = 1/3; g(3, 4, 5, 6) = 10/54 = 5/27;
    # g(Q) = 13/51: the printed choice x_{u-1} = 3 even lowers the Gini below g(Q)
    assert c._g_with(x, 0, 4, 1) == Q(1, 3) and c._g_with(x, 0, 4, 3) == Q(5, 27)
    assert c._g_with(x, 0, 4, 2) == Q(13, 51)
    v = c.selection_violation(x)
    assert v is not None and v["selected"] == 3 and v["g_best"] == "1/3"
    assert c.selection_violation(x, swapped=True) is None
    assert c.endpoint_violation(x) is None


def test_eq58_and_theorem42_steps_hand_worked() -> None:
    # Q = (1, 2) of X = (1, 2, 3): sum |y_i - y_j| = 2, ybar = 3/2; printed 2/(2*9*3/2) = 2/27,
    # eq. (1) 2/(2*4*3/2) = 1/6
    v = c.eq58_violation([1, 2, 3])
    assert v is not None and (v["eq58"], v["eq1"]) == ("2/27", "1/6")
    assert c.eq58_violation([1, 2, 3], k_for_n=True) is None
    # run (3, 4) of (1, ..., 5): adding 2 gives (2, 3, 4), g = 4/18; adding 5 gives 4/24
    w = c.window_smallest_violation([1, 2, 3, 4, 5], "any-side")
    assert w is not None and (w["g_window"], w["g_better"]) == ("2/9", "1/6")
    assert c.window_smallest_violation([1, 2, 3, 4, 5], "this-side") is None
    assert c.add_side_violation([1, 2, 3, 4, 5], "l") is None


@pytest.fixture(scope="module")
def findings() -> dict:
    return {f.id: f for f in c.large_k_steps(0.0, 0)}


EXPECTED = {
    **dict.fromkeys((
        "text.a2.l42.sign-constant-in-x", "text.a2.l42.i-increasing", "text.a2.l42.end-signs",
        "text.a2.l42.m-a-exists", "text.a2.l42.continuity", "text.a2.l42.rank-step",
        "text.a2.t41.some-endpoint", "text.a2.t41.iterate", "text.a2.t42.add-below",
        "text.a2.t42.add-above",
    ), "verified"),
    **dict.fromkeys((
        "text.a2.l42.m-a-unique", "text.a2.l42.rank-limits", "text.a2.eq58",
        "text.a2.t41.insert-direction", "text.a2.t41.m-equals-m-a", "text.a2.t42.window-smallest",
        "text.a2.t42.contradiction", "text.a2.t42.iterate",
    ), "refuted-under-reading"),
    **dict.fromkeys((
        "text.a2.t41.selection", "text.a2.l42.end-displays",
    ), "refuted"),
}


def test_eq56_bracket_by_hand() -> None:
    # X = (1, 2, 3): (I) of (55) at m = n + 1 = 4 is (6/3 - 1) 6 + (1 + 2 + 3)/3 = 8; (56)
    # prints 6 + (1 + 2)/3 = 7 (its sum stops at n - 1); (57) at m = 1 agrees: -6 - 6/3 = -8
    x = [Q(1), Q(2), Q(3)]
    assert c.i_printed(x, 4) == 8 and c.i_printed(x, 1) == -8
    assert c.end_display_violation(x) == {"m": 4, "printed_bracket": "7", "I_of_55": "8"}


def test_verdicts_twins_and_replay(findings: dict) -> None:
    check_step_findings(findings, EXPECTED)
    # the selection's opposite choices are best everywhere in the scope
    sel = findings["text.a2.t41.selection"].evidence
    assert sel["opposite_selection_best_everywhere"] is True
    # a replayer does not report a failure on data where the step holds
    assert not REPLAYERS["text.a2.t41.selection"]({"data": ["1", "2", "3", "4", "5"]})[0]
