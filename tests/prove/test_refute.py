"""Exact refutations (audit.prove.refute): hand-worked witness values, independent figures
from kernels/freegap/broken.py (computed there by quadrature), the law of total
probability over the traced paths, JSON replay, and agreement with the black-box tester."""

from __future__ import annotations

import json
from fractions import Fraction as F

import mpmath
import pytest

from audit.prove.benchmark import noisy_max, sparse_vector, sums
from audit.prove.exact_event import event_probability
from audit.prove.refute import (
    Event,
    blackbox_agreement,
    evaluate_pair,
    refute,
    replay_witness,
    trace_paths,
)


def test_paths_partition_the_probability_space() -> None:
    # the traced paths of Sparse Vector are disjoint and exhaustive: their probabilities sum
    # to exactly 1 (closed form 1 = 1 * e^0), whatever the queries
    for q in ([F(0), F(1)], [F(3, 2), F(-1), F(0)]):
        paths = trace_paths(sparse_vector.svt_lyu1, q, 1)
        draws = {k: v for p in paths for k, v in p.draws.items()}
        prob = event_probability(draws, [list(p.constraints) for p in paths])
        assert prob.closed_form == ((F(1), F(0)),)
    pats = {p.pattern for p in trace_paths(sparse_vector.svt_lyu1, [F(0), F(0)], 1)}
    assert pats == {(True,), (False, True), (False, False)}


def test_noisy_max_small_noise_witness_is_two_minus_ln2() -> None:
    # q = (0, 0), q' = (-1, 1), output index 0, Lap(1) noise (eps = 1): the winner's margin
    # moves by 2, P(Z > 0)/P(Z > 2) = (1/2) / (e^{-2}(1 + 1)/2) = e^2 / 2 (Z = difference of
    # two Lap(1), tail e^{-d}(1 + d/2)/2): epsilon_witness = 2 - ln 2 = 1.3069 > 1
    res = refute(noisy_max.noisy_max_small_noise, n_max=2)
    assert res.verdict == "refuted"
    w = res.witness
    assert w is not None and w.refutes
    with mpmath.workdps(50):
        want = 2 - mpmath.log(2)
        assert abs(w.eps_value - want) < mpmath.mpf(10) ** -35
        assert w.eps_lower <= want


# witnesses of kernels/freegap/broken.py (BROKEN_VARIANTS: log-ratio to 4 decimals and
# P(event) to 3 significant digits, computed there by quadrature and Monte Carlo)
FREEGAP_FIGURES = [
    ("chen", sparse_vector.svt_chen, [0, 0, 1, 1], [1, 1, 0, 0], {},
     Event((False, False, True, True)), 1.5295, 6.63e-2),
    ("lee_clifton", sparse_vector.svt_lee_clifton, [0, 0, 0, 0, 1], [1, 1, 1, 1, 0], {},
     Event((False, False, False, False, True)), 1.6739, 4.28e-2),
    ("no_threshold_noise", sparse_vector.svt_no_threshold_noise, [0] * 16, [1] * 16,
     {"T": 2}, Event((False,) * 16), 2.1114, 3.08e-3),
    ("release_value", sparse_vector.svt_roth_release, [0] * 5, [1, 1, 1, 1, 0], {},
     Event((False, False, False, False, "num"), 4, "<", F(2)), 1.5885, 9.84e-3),
]


@pytest.mark.parametrize("fig", FREEGAP_FIGURES, ids=[f[0] for f in FREEGAP_FIGURES])
def test_matches_the_freegap_quadrature_figures(fig) -> None:
    _, prog, q, qp, params, ev, log_ratio, p = fig
    w, skipped = evaluate_pair(prog, q, qp, 1, params, events=[ev])
    assert skipped == 0 and w is not None
    assert abs(float(w.eps_value) - log_ratio) < 1e-4  # 4 decimals, rounded or cut
    got_p = float(w.p.mid) if w.q == tuple(F(v) for v in q) else float(w.p_prime.mid)
    assert abs(got_p - p) < 0.006 * p
    assert w.refutes


def test_witness_json_replays() -> None:
    res = refute(sparse_vector.svt_lee_clifton, n_max=2)
    assert res.verdict == "refuted" and res.witness is not None
    doc = json.loads(json.dumps(res.witness.as_doc()))
    again = replay_witness(doc)
    assert again.refutes
    assert again.eps_lower == res.witness.eps_lower
    assert again.p.closed_form == res.witness.p.closed_form
    # a doctored document (the pair swapped back) no longer refutes in that direction
    doc["q"], doc["q_prime"] = doc["q_prime"], doc["q"]
    assert not replay_witness(doc).refutes


def test_correct_programs_are_not_refuted_in_scope() -> None:
    for prog in (sparse_vector.svt_lyu1, noisy_max.noisy_max):
        res = refute(prog, n_max=2)
        assert res.verdict == "not-refuted"  # never "verified"
        assert res.witness is None and res.best is not None
        assert res.best.eps_lower <= 1
        assert res.pairs_checked > 0 and res.skipped_events == 0


@pytest.mark.parametrize("prog", [noisy_max.noisy_max_small_noise,
                                  sparse_vector.svt_lee_clifton,
                                  sums.partial_sum_small_noise])
def test_blackbox_agrees_with_the_exact_witness(prog) -> None:
    # Discrete outputs: every output pattern is a candidate, both directions, so the witness
    # is the pair's exact epsilon (a union of patterns never has a larger ratio); Partial
    # Sum: Laplace(1/2) shifted by 1, whose log-ratio is 2 on every tail event = the pair's
    # exact epsilon.  The
    # tester's lower bound holds with probability >= 90 % (its guarantee): with a correct
    # exact figure, "consistent" fails with probability <= 10 % per seed (seed fixed: the
    # outcome is deterministic).  Power: the gaps to the claim (0.16 / 0.31 / 1) are flagged.
    res = refute(prog, n_max=2)
    a = blackbox_agreement(prog, res.witness, seed=3, n_select=20_000, n_certify=60_000)
    assert a.consistent and a.epsilon_lower <= float(res.witness.eps_value)
    assert a.flagged


def test_symbolic_executor_paths_give_the_same_probabilities() -> None:
    # the prover's symbolic paths (queries symbolic, substituted afterwards) and this
    # module's concrete-input tracer are two executors: per output pattern, the exact
    # probabilities must agree to the last digit
    from audit.prove.exact_event import from_symbolic_path
    from audit.prove.symbolic import enumerate_paths

    for prog, q in ((sparse_vector.svt_lyu1, [F(1, 2), F(-1), F(0)]),
                    (noisy_max.noisy_max, [F(0), F(1), F(-1, 3)])):
        sym = enumerate_paths(prog, len(q), F(1))
        mine = trace_paths(prog, q, 1)
        by_pattern: dict = {}
        for p in sym:
            out = p.output if isinstance(p.output, tuple) else (p.output,)
            draws, cons = from_symbolic_path(p, q, F(1))
            by_pattern.setdefault(tuple(out), ({}, []))
            by_pattern[tuple(out)][0].update(draws)
            by_pattern[tuple(out)][1].append(cons)
        assert len(by_pattern) == len({p.pattern for p in mine}) >= 3
        for out, (draws, conj) in by_pattern.items():
            ps = event_probability(draws, conj)
            mine_p = [t for t in mine if t.output == out]
            d2 = {k: v for t in mine_p for k, v in t.draws.items()}
            pm = event_probability(d2, [list(t.constraints) for t in mine_p])
            assert ps.closed_form == pm.closed_form, out


def test_finding_and_registered_replayer() -> None:
    from audit import registry
    from audit.findings import Method, Verdict, from_jsonable
    from audit.prove.refute import CHECK_REFUTE, refute_finding

    f = refute_finding(refute(noisy_max.noisy_max_small_noise, n_max=2))
    assert f.verdict == Verdict.REFUTED and f.method == Method.EXACT
    doc = json.loads(json.dumps(f.counterexample))
    assert doc["check"] == CHECK_REFUTE
    rep = registry.replay(doc["check"], from_jsonable(doc["inputs"]))
    assert rep.still_fails and rep.actual.startswith("1.30685")
    bad = dict(doc["inputs"], q_prime=["0", "0"])  # no longer a differing pair: ratio 1
    assert not registry.replay(doc["check"], from_jsonable(bad)).still_fails
    ok = refute_finding(refute(noisy_max.noisy_max, n_max=2))
    assert ok.verdict == Verdict.NOT_REFUTED and ok.counterexample is None
    assert ok.method == Method.SAMPLED and "relation=linf1" in ok.scope


def test_candidate_pairs_cover_each_relation() -> None:
    from audit.prove.refute import candidate_pairs

    for n in (1, 2, 3):
        lin = list(candidate_pairs(n, "linf1", [0]))
        mono = list(candidate_pairs(n, "monotone1", [0]))
        one = list(candidate_pairs(n, "onehot1", [0]))
        assert len(lin) == 3 ** n - 1 and len(mono) == 2 * (2 ** n - 1) and len(one) == 2 * n
        for q, qp in lin + mono + one:
            d = [b - a for a, b in zip(q, qp, strict=True)]
            assert max(abs(v) for v in d) == 1
        for q, qp in mono:
            d = [b - a for a, b in zip(q, qp, strict=True)]
            assert all(v >= 0 for v in d) or all(v <= 0 for v in d)
        assert all(sum(1 for a, b in zip(q, qp, strict=True) if a != b) == 1 for q, qp in one)
    with pytest.raises(Exception, match="relation"):
        list(candidate_pairs(2, "l2", [0]))


def test_a_loop_that_never_ends_is_refused() -> None:
    from audit.dsl import laplace, mechanism
    from audit.prove.exact_event import UnsupportedEvent

    @mechanism(epsilon="eps", relation="linf1", outputs="number")
    def spin(q, eps):
        x = q[0] + laplace(1 / eps)
        while x >= 0:  # noisy loop condition: the always-true branch never ends
            x = x + 1
        return x

    with pytest.raises(UnsupportedEvent, match="comparisons"):
        trace_paths(spin, [0], 1)
