"""Proof steps of Ding et al. checked themselves (proofs/freegap/claims_proofsteps.py):
hand-worked values, the verdicts with their refuted twins, the printed display refuted under
its reading, replayers."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from audit.falsifiability import needs_twin, twin_problem
from proofs.freegap import claims_proofsteps as cp


@pytest.fixture(scope="module")
def findings() -> dict:
    out = {}
    for run in (cp.sec8_proof_steps, cp.sec51_cost_steps, cp.sec61_cost_steps,
                cp.a2_proof_steps):
        out.update({f.id: f for f in run(0, 0)})
    return out


def test_instance_hand_worked() -> None:
    # q = 0, H = (1, 0, -1), k = 1: index 0 wins by 1
    assert cp.output((0, 0, 0), (1, 0, -1), 1) == ((0,), (1,))
    assert cp.output((0, 0, 0), (1, 1, -1), 1) is None  # a tie for the top: no output
    # q' = (1, 0, 0): shift = max(0, -1) - max(0, -1) = 0, eta'_0 = 1 + 0 - 1 = 0
    hp = cp.align((0, 0, 0), (1, 0, 0), (1, 0, -1), (0,), 1)
    assert hp == [0, 0, -1] and cp.output((1, 0, 0), tuple(hp), 1) == ((0,), (1,))
    assert cp.invert((0, 0, 0), (1, 0, 0), hp, (0,)) == [1, 0, -1]
    assert cp.mass((0, 0, 0)) == 2 ** 12 and cp.mass((1, -1, 0)) == 2 ** 10
    # eq. (2) without its shift loses the gap: q' = (-1, -1, -1), H = (-2, -2, -1), k = 1
    w = cp.output((0, 0, 0), (-2, -2, -1), 1)
    bad = cp.align((0, 0, 0), (-1, -1, -1), (-2, -2, -1), w[0], 1, "no-shift")
    assert cp.output((-1, -1, -1), tuple(bad), 1) != w


def test_lemma3_and_thm2_hand_worked() -> None:
    assert cp.lemma3_violation((F(0),), (F(-1),)) is None
    assert cp.lemma3_violation((F(0),), (F(-1),), F(1, 2))["step"] == "Lemma 3"
    # q = 0, q' = (0, -1, -1), H = -2, I = {0}: md = -3 - (-2) = -1, t_0 = -1, cost 1 (x 2k)
    assert cp.thm2_terms((0, 0, 0), (0, -1, -1), (-2, -2, -2), (0,)) == ([-1], -1)
    r = cp.printed_cost_readings((0, 0, 0), (0, -1, -1), (-2, -2, -2), (0,))
    assert r == {"outside": False, "inside": False, "bars": True}  # printed: 0 - 1 != |-1|
    # q = (1, 0, 0), q' = (0, 1, 1), H = 0: t_0 = 1 + (1 - 0) = 2, cost = 2/(2k) = eps
    assert cp.thm2_violation((1, 0, 0), (0, 1, 1), (0, 0, 0), (0,), 1) is None
    assert cp.thm2_violation((1, 0, 0), (0, 1, 1), (0, 0, 0), (0,), 1, term_bound=1)
    # Theorem 4: pattern "T", q - q' = -1: |1 + d| = 0; theta = 1/2, k = 1: eps_0 = 1/2
    assert cp.thm4_violation(("T",), (F(-1), F(0), F(0)), 1, F(1, 2)) is None
    assert cp.thm4_violation(("T",), (F(1), F(0), F(0)), 1, F(1, 2), term_bound=F(3, 2))


def test_symbolic_steps() -> None:
    assert cp.a2_step_problems(2) == ([], 10)
    assert len(cp.a2_step_problems(2, perturb=True)[0]) == 10
    assert cp.jacobian_problems() == []
    assert cp.jacobian_problems("reversed")  # the reversed order is not triangular


def test_verdicts_twins_and_replay(findings: dict) -> None:
    verified = ("text.freegap.sec8-lemma1-steps", "text.freegap.sec8-thm5-chain",
                "text.freegap.lemma3-proof", "text.freegap.thm2-cost-steps",
                "text.freegap.thm4-cost-steps", "text.freegap.a2-proof-steps")
    for fid in verified:
        f = findings[fid]
        assert f.verdict == "verified", fid
        assert needs_twin(fid) and twin_problem(f.evidence) == "", fid
        for part in f.evidence.get("twins", {}).values():
            assert part["outcome"] == "refuted" and part.get("witness"), (fid, part)
    printed = findings["text.freegap.thm2-cost-display-printed"]
    assert printed.verdict in ("refuted", "refuted-under-reading")
    assert set(printed.evidence["readings"].values()) == {"holds", "refuted"}
    still, *_ = cp.replay_printed(printed.counterexample["inputs"])
    assert still
    assert not cp.replay_thm2({"q": [1, 0, 0], "q'": [0, 1, 1], "H": [0, 0, 0],
                               "selected": [0]})[0]
    assert not cp.replay_a2({"k": 2})[0]
    # the chain's twin (a halved) is refuted with exact probabilities
    tw = findings["text.freegap.sec8-thm5-chain"].evidence["twin"]["witness"]
    assert F(tw["P_D"]) > F(tw["a_P_phi"])  # a_P_phi already carries the halved a
