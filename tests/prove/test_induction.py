"""The all-n step (audit/prove/induction.py) and its use by ``dpaudit prove``: a proof for every
number of queries where the loop allows it, never for a program that is DP only for small n.

Independent truths used: the costs of Lyu et al.'s Alg. 1 alignment by hand (threshold shift 1
at scale 2/eps costs eps/2; a query shift of at most 2 at scale 4/eps costs eps/2), and the exact
loss of ``svt_no_threshold_noise`` at n = 5 (each of five ⊥ moved by d_i = 1 costs
1/b = eps2 / (2c) = 1/4 at eps = 1, c = 1: 5/4 > 1, the program's docstring)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from audit.cli import main
from audit.prove import cegis
from audit.prove.alignment import build_problem
from audit.prove.benchmark import noisy_max, sparse_vector, sums
from audit.prove.induction import prove_all_n
from audit.prove.proof import prove_mechanism

F = Fraction


def _synth(mech, n_max=3):
    prob = build_problem(mech, list(range(1, n_max + 1)))
    syn = cegis.synthesise(prob)
    assert syn.status == "verified"
    return prob, syn.theta


# the hand-written Lyu Alg. 1 alignment (c = 1): rho + 1, nu_i + 1 - d_i on ⊤, nothing on ⊥
LYU = {("rho", "any", 0): F(1), ("nu", "T", 0): F(1), ("nu", "T", 1): F(-1),
       ("nu", "F", 0): F(0), ("nu", "F", 1): F(0)}


def test_svt_lyu1_is_proved_for_every_n_with_its_invariant():
    v = prove_mechanism(sparse_vector.svt_lyu1, n_max=3)
    assert v.status == "verified" and v.all_n
    assert v.scope_text().startswith("every number of queries n >= 1")
    ev = v.to_finding("svt").evidence
    assert ev["all_n"] is True
    inv = "\n".join(ev["all_n_invariant"])
    # by hand: the once-per-run cost is the threshold's 1 / (2/eps) = 1/2 (eps-normalised)
    assert "in state (count = 0): cost so far <= 1/2 + 0" in inv
    assert "the largest total is 1 <= 1" in inv


def test_svt_lyu1_with_cutoff_two_has_one_state_per_count():
    mech = sparse_vector.svt_lyu1.at(1, N=2)
    v = prove_mechanism(mech, n_max=3)
    assert v.status == "verified" and v.all_n
    inv = "\n".join(v.invariant)
    # by hand: c = 2, nu ~ Lap(8/eps): one ⊤ shifted by at most 2 costs 2/8 = 1/4
    assert "(count = 0): cost so far <= 1/2 + 0" in inv
    assert "(count = 1): cost so far <= 1/2 + 1/4" in inv


def test_dwork_roth_with_cutoff_one_is_proved_for_every_n():
    v = prove_mechanism(sparse_vector.svt_dwork_roth, n_max=3)
    assert v.status == "verified" and v.all_n


def test_hand_alignment_proves_every_n_and_a_weakened_one_does_not():
    prob, _ = _synth(sparse_vector.svt_lyu1)
    ok = prove_all_n(sparse_vector.svt_lyu1, prob, LYU, retries=0)
    assert ok.status == "proved", ok.reason
    # no shift of the ⊤ query noise: a ⊤ near the threshold on q becomes ⊥ on q + d (output
    # condition fails, Z3 finds the iteration)
    weak = {**LYU, ("nu", "T", 0): F(0), ("nu", "T", 1): F(0)}
    bad = prove_all_n(sparse_vector.svt_lyu1, prob, weak, retries=0)
    assert bad.status == "failed" and "does not keep its path" in bad.reason
    # threshold shifted by 2 and a ⊤ by 2 - d_i: output kept, but by hand the cost is
    # 2 / 2 (threshold, scale 2/eps) + 3 / 4 (|2 - d_i| <= 3 at d_i = -1, scale 4/eps) = 7/4
    dear = {**LYU, ("rho", "any", 0): F(2), ("nu", "T", 0): F(2), ("nu", "T", 1): F(-1)}
    over = prove_all_n(sparse_vector.svt_lyu1, prob, dear, retries=0)
    assert over.status == "failed" and "costs 7/4 > 1" in over.reason


def test_svt_without_threshold_noise_gets_no_all_n_proof():
    prob, theta = _synth(sparse_vector.svt_no_threshold_noise, n_max=4)
    res = prove_all_n(sparse_vector.svt_no_threshold_noise, prob, theta)
    assert res.status == "failed"
    assert "can repeat without limit" in res.reason
    assert ("nu", "F") in res.repeating


def test_svt_without_threshold_noise_ends_refuted_beyond_n_max():
    v = prove_mechanism(sparse_vector.svt_no_threshold_noise, n_max=4)
    assert v.status == "refuted" and not v.all_n
    w = v.witness
    assert len(w["q"]) == 5
    # exact loss 5/4 at eps = 1 (module docstring): certified lower bound above 1
    assert abs(float(w["epsilon_witness"]) - 1.25) < 1e-9
    assert float(w["epsilon_witness_lower"]) > 1
    assert v.partial is not None and v.partial["proved_for_n_up_to"] == 4


@pytest.mark.parametrize("mech,why", [
    (noisy_max.noisy_max, "is not `for i in range(len(q))`"),
    # c = 2: the threshold noise is redrawn after a ⊤ and carried to the next iteration
    (sparse_vector.svt_dwork_roth.at(1, N=2), "carries the noisy or data-dependent value"),
    (sums.partial_sum, "does not end with `return <list>`"),
])
def test_loops_outside_the_step_keep_the_bounded_scope(mech, why):
    v = prove_mechanism(mech, n_max=3)
    assert v.status == "verified" and not v.all_n
    assert "every number of queries n <= 3" in v.scope_text()
    assert any(why in n for n in v.notes)


def test_cli_prints_the_all_n_scope_and_invariant(tmp_path, capsys):
    rc = main(["prove", "audit.prove.benchmark.sparse_vector:svt_lyu1", "--n-max", "2",
               "--out", str(tmp_path), "--run-id", "lyu"])
    out = capsys.readouterr().out
    assert rc == 0 and out.startswith("PROVED")
    assert "scope: every number of queries n >= 1" in out
    assert "invariant: in state (count = 0)" in out


def test_svt_with_gap_all_n_needs_free_rejections():
    # the n <= N alignment may spend on ⊥ (any cost fitting n <= N); an all-n proof must not:
    # Ding et al.'s alignment shifts the threshold by 1 and the ⊤ query by 1 - d_i, ⊥ by 0
    v = prove_mechanism(sparse_vector.svt_with_gap, n_max=3)
    assert v.status == "verified" and v.all_n
    assert v.alignment is not None and v.alignment["v"]["F"] == ["0", "0"]
