"""Section 5's term-1 case lines of Liu's supplement (proofs/global_sensitivity/
claims_proofsteps.py): hand-worked term 1, the printed lines under their readings, the overall
range verified with a refuted twin, replayers."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from audit.falsifiability import needs_twin, twin_problem
from proofs.global_sensitivity import claims_maximiser as cm
from proofs.global_sensitivity import claims_proofsteps as cp


@pytest.fixture(scope="module")
def findings() -> dict:
    return {f.id: f for f in cp.term1_steps(0, 0)}


def test_term1_hand_worked() -> None:
    # n_1 = 3, n = 3, J = 1, cell 1 = (x_11, y_11) = (0, 0) and rows (0, 0), (1, 1):
    # xbar = ybar = 1/2; lead = (2/3)(1/4) = 1/6; cross = 1/4 + 1/4 = 1/2 over n - 1 - J = 1;
    # term 1 = (1/6 - 1/2)/(n - J = 2) = -1/6 < 0, outside case (0, 0)'s printed [0, a]
    assert cp.term1((0, 0), [(0, 0), (1, 1)], 3, 1) == F(-1, 6)
    assert cp.printed_second((0, 0), 3, 3, 1, 1, 1, 1) == F(-1, 6)
    c = {"n1": 3, "n": 3, "J": 1, "rest": [(0, 0), (1, 1)], "case": (0, 0), "k": (1, 1, 1)}
    assert not cp._in_range(c, "displays") and cp._in_range(c, "together")
    # case (0, 0) at k_1 = n_1 - 1 = 2, k_3 = k_2 = 1, n = 6, J = 2: term 1 = k_2/(n_1(n - J))
    rest = [(1, 1), (1, 0)]
    truth = cp.term1((0, 0), rest, 6, 2)
    assert truth == F(1, 3 * 4)
    assert cp.printed_bullet((0, 0), 3, 6, 2, 2, 1, "n") == truth
    assert cp.printed_bullet((0, 0), 3, 6, 2, 2, 1, "printed") == F(1, 3 * 1)  # n_1(n_1 - J)


def test_verdicts_and_replay(findings: dict) -> None:
    rng = findings["text.liu.sec5-term1-ranges"]
    assert rng.verdict == "verified" and needs_twin(rng.id) and twin_problem(rng.evidence) == ""
    for fid in ("text.liu.sec5-term1-displays", "text.liu.sec5-term1-bullets"):
        f = findings[fid]
        assert f.verdict == "refuted-under-reading", fid
        assert cp._replay_split(fid)(f.counterexample["inputs"])[0], fid
    case = findings["text.liu.sec5-term1-case-ranges"]
    assert case.verdict == "refuted"  # under both readings: interior k_1 leaves the range
    assert set(case.evidence["readings"].values()) == {"refuted"}
    assert cp._replay_split("text.liu.sec5-term1-case-ranges")(
        {**case.evidence["first_failure"]["n"]})[0]


def test_section5_linearity_tested_on_the_displays_by_hand() -> None:
    # n_1 = 3, n = 3, J = 1: the k_1 k_2 coefficient (n - J + n_1 - 1)/(n_1 (n_1 - 1)(n - J)
    # (n - 1 - J)) = 4/12 = 1/3, the same in all four cases; removing it leaves a linear display
    assert {cp.mixed_difference(c, 3, 3, 1) for c in cp._CASES} == {F(1, 3)}
    assert cp.mixed_difference((1, 1), 3, 3, 1, bump=F(-1, 3)) == 0
    f = cp.k_linear_finding(0)
    assert f.verdict == "refuted" and f.evidence["twin"]["outcome"] == "refuted"
    still, *_ = cp.replay_k_linear(f.counterexample["inputs"])
    assert still


def test_eq1_maximiser_by_hand_and_twin() -> None:
    # x = {1, 0, 0} -> x' = {0, 0, 0}: s^2 = (4/9 + 1/9 + 1/9)/2 = 1/3 = 1/n, s'^2 = 0; the
    # condition holds ((1 - 0)^2 = 1, (0 - 0)^2 = 0); x'_1 = 1/4 instead breaks it
    assert cm.stated((F(0), F(0)), F(1), F(0)) and not cm.stated((F(0), F(0)), F(1), F(1, 4))
    top = max(p[3] for p in cm.points(3))
    assert top == F(1, 3)
    assert cm.violation(3) is None and cm.violation(3, F(1, 16)) is not None
    (f,) = cm.var_def1_maximiser(0, 0)
    assert f.verdict == "verified" and twin_problem(f.evidence) == ""
