"""Theorem 4.1's proof for k = 2, 3 (proofs/gini/claims_proofsteps.py): hand-worked Gini
values, verdicts with refuted twins, 'either x_2 or x_{n-1}' refuted under its 'each of'
reading, replayers."""

from __future__ import annotations

from fractions import Fraction as Q

from audit.falsifiability import needs_twin, twin_problem
from proofs.gini import claims_proofsteps as cp
from proofs.gini import oracles


def test_hand_worked() -> None:
    x = [Q(1), Q(2), Q(3), Q(5)]
    # eq. (2) on 3 points: sum (2i - 4) y_(i) / (2 sum y); {1, 2, 5}: (-2 + 0 + 10)/(2 * 8) = 1/2
    assert oracles.gini2([Q(1), Q(2), Q(5)]) == Q(1, 2)
    assert oracles.gini2([Q(1), Q(3), Q(5)]) == Q(4, 9)  # (-2 + 10)/(2 * 9)
    assert cp.k_max(x, 3) == Q(1, 2)
    assert cp.third_element_violation(x, "second") is None
    assert cp.third_element_violation(x, "penultimate")["subset_gini"] == "4/9"


def test_verdicts_and_replay() -> None:
    f = {g.id: g for g in cp.small_k_steps(0, 0)}
    for fid in ("text.a2.two-maximal-removal", "text.a2.three-maximal-removal"):
        assert f[fid].verdict == "verified" and needs_twin(fid)
        assert twin_problem(f[fid].evidence) == ""
    either = f["text.a2.three-maximal-either"]
    assert either.verdict == "refuted-under-reading"
    assert either.evidence["numerator_constant_over_third_element"] is True
    assert cp.replay_either(either.counterexample["inputs"])[0]
    assert not cp.replay_block({"data": ["1", "2", "3", "5"]})[0]
