"""Issue 36, class 1 and the independent witness evaluator (audit/prove/enumerate_law.py).

* an integer (geometric) output that equals a constant another path prints is counted in
  the constant's event: the eps-DP program of the issue is no longer refuted (it was, with
  epsilon_witness = inf), its half-noise twin still is;
* the second evaluator agrees with the exact one (hand-worked values, brute-force lattice
  sums, random star / tree conjunctions) and every printed witness carries its agreement;
* a first evaluator with the historic bug put back is caught: INCONCLUSIVE with both
  figures, never REFUTED;
* joint events: a leak only visible in two outputs together is refuted, and is not with
  one-output events alone;
* the search order makes a larger n_max keep every refutation of a smaller one."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction as F

import mpmath
import pytest

from audit.prove import enumerate_law as law
from audit.prove import refute as R
from audit.prove.benchmark import lattice, noisy_max, sparse_vector
from audit.prove.exact_event import Constraint, DrawLaw, event_probability


def _geo_pmf(k: int, b: float) -> float:
    a = math.exp(-1 / b)
    return (1 - a) / (1 + a) * a ** abs(k)


def test_class1_program_is_not_refuted_and_its_constant_event_is_exact() -> None:
    res = R.refute(lattice.geometric_with_constant_path, n_max=2)
    assert res.verdict == "not-refuted" and res.pairs_checked > 0 and res.skipped_events == 0
    # by hand: the output is always q0 + G, G geometric of scale 1 (eps = 1); on q = (0,)
    # the output 1 needs G = 1, on q' = (1,) G = 0: ratio exactly e^1
    ev = R.Event((("c", "1"),))
    for q, k in (((F(0),), 1), ((F(1),), 0)):
        p = R.probability(R.trace_paths(lattice.geometric_with_constant_path, q, 1), ev)
        ind = R.independent_probability(lattice.geometric_with_constant_path, q, F(1), None, ev)
        assert abs(float(p.mid) - _geo_pmf(k, 1.0)) < 1e-15
        assert abs(float(ind.value) - _geo_pmf(k, 1.0)) < 1e-15
    assert res.best is not None and abs(float(res.best.eps_lower) - 1) < 1e-9


def test_class1_broken_twin_is_refuted_and_confirmed() -> None:
    res = R.refute(lattice.geometric_with_constant_path_small_noise, n_max=2)
    assert res.verdict == "refuted" and res.witness is not None
    w = res.witness
    assert w.independent is not None and w.independent["agree"] is True
    assert abs(float(w.eps_value) - 2) < 1e-9  # pmf ratio e^(2 eps) at shift 1
    assert abs(float(mpmath.mpf(w.independent["P"])) - float(w.p.mid)) < 1e-12


def _old_event_paths(paths, ev):
    """The first evaluator's translation before issue 36: a path counts only when its own
    output pattern is the event's (the class-1 bug), half-lines as before."""
    draws, conj = {}, []
    for p in paths:
        if p.pattern != ev.pattern:
            continue
        cs = list(p.constraints)
        for terms, side, t in ev.all_cuts():
            d = sum((a * R._lin(p.output[i]) for i, a in terms), R.Lin()) - R._lin(t)
            cs.append(Constraint(d.terms, d.const, side))
        draws.update(p.draws)
        conj.append(cs)
    return draws, conj


def test_historic_bug_in_the_first_evaluator_is_caught(monkeypatch) -> None:
    monkeypatch.setattr(R, "event_paths", _old_event_paths)
    res = R.refute(lattice.geometric_with_constant_path, n_max=1)
    # the buggy evaluator finds its "exact" epsilon = inf, the independent one disagrees
    assert res.verdict == "inconclusive" and res.witness is None
    assert res.unconfirmed and res.unconfirmed[0].eps_lower == mpmath.inf
    text = " ".join(res.notes)
    assert "not confirmed" in text and "exact P" in text and "independent P" in text
    assert "not confirmed by the independent evaluator" in R.search_note(res)


def test_every_refuted_benchmark_style_witness_agrees() -> None:
    for prog, kw in ((noisy_max.noisy_max_small_noise, {"n_max": 2}),
                     (lattice.mirrored_noisy_copies, {"n_max": 1})):
        res = R.refute(prog, **kw)
        assert res.verdict == "refuted" and res.witness is not None
        assert res.witness.independent["agree"] is True


def test_joint_leak_needs_joint_events() -> None:
    prog = lattice.mirrored_noisy_copies
    q, qp = (F(0),), (F(1),)
    pa, pb = R.trace_paths(prog, q, 1), R.trace_paths(prog, qp, 1)
    one = R.candidate_events(pa, pb, F(1), joint=False)
    w1, sk1 = R.evaluate_pair(prog, q, qp, 1, events=one)
    assert sk1 == 0 and w1 is not None and w1.eps_lower <= 1 + 1e-12  # each output: eps
    w2, sk2 = R.evaluate_pair(prog, q, qp, 1)
    assert sk2 == 0 and w2 is not None and w2.eps_lower == mpmath.inf
    assert w2.event.cuts and len(w2.event.cuts[0][0]) == 2


def test_geometric_lattice_sum_matches_brute_force() -> None:
    # X ~ geo(1), Y ~ geo(1/2): P(X + Y >= 1, X <= 2, Y > -3, X - 2Y == 1) by direct
    # summation over the lattice |x|, |y| <= 60 (tail < 1e-25)
    laws = {"x": ("geometric", F(1)), "y": ("geometric", F(1, 2))}
    cons = [({"x": F(1), "y": F(1)}, F(-1), ">="), ({"x": F(1)}, F(-2), "<="),
            ({"y": F(1)}, F(3), ">"), ({"x": F(1), "y": F(-2)}, F(-1), "==")]
    brute = sum(_geo_pmf(x, 1.0) * _geo_pmf(y, 0.5)
                for x, y in itertools.product(range(-60, 61), repeat=2)
                if x + y >= 1 and x <= 2 and y > -3 and x - 2 * y == 1)
    got = law.conjunction_mass(cons, laws)
    assert brute > 0 and abs(float(got.value) - brute) < 1e-15


def _random_conjunction(rng: random.Random, tree: bool, most: int = 3):
    names = [f"v{i}" for i in range(rng.randint(2, most))]
    scales = {x: F(rng.choice([1, 2, 3]), rng.choice([1, 2])) for x in names}
    cons = []
    for i, x in enumerate(names[1:], 1):
        parent = names[rng.randrange(i)] if tree else names[0]
        a = F(rng.choice([1, -1, 2]))
        cons.append(({x: a, parent: F(rng.choice([-1, 1]))}, F(rng.randint(-3, 3), 2),
                     rng.choice([">=", "<", ">", "<="])))
    cons.append(({names[0]: F(1)}, F(rng.randint(-2, 2)), rng.choice([">=", "<"])))
    return names, scales, cons


def _agree_on_random_conjunctions(seed: int, tree: bool, count: int, most: int) -> None:
    rng = random.Random(seed)
    for _ in range(count):
        names, scales, cons = _random_conjunction(rng, tree, most)
        exact = event_probability([DrawLaw(x, "laplace", scales[x]) for x in names],
                                  [[Constraint(c, k, op) for c, k, op in cons]])
        got = law.conjunction_mass(cons, {x: ("laplace", scales[x]) for x in names})
        assert exact.upper > 0
        assert got.error <= 1e-12 * exact.mid, (cons, got)
        assert abs(got.value - exact.mid) <= 1e-12 * exact.mid, (cons, got, exact)


@pytest.mark.parametrize("tree", [False, True])
def test_laplace_conjunctions_agree_with_the_exact_evaluator(tree: bool) -> None:
    # seeded: stars (a hub and leaves) and trees of up to 3 Laplace draws
    _agree_on_random_conjunctions(36 + tree, tree, 8, 3)


@pytest.mark.slow
@pytest.mark.parametrize("tree", [False, True])
def test_laplace_conjunctions_agree_up_to_five_draws(tree: bool) -> None:
    _agree_on_random_conjunctions(360 + tree, tree, 20, 5)


def test_confirmation_refuses_a_wrong_exact_figure() -> None:
    res = R.refute(lattice.geometric_with_constant_path_small_noise, n_max=1)
    w = res.witness
    assert w is not None
    doctored = R.replace(w, p=R.replace(w.p, lower=w.p.lower * (1 + 1e-6),
                                        upper=w.p.upper * (1 + 1e-6)))
    c = R.confirm(lattice.geometric_with_constant_path_small_noise, doctored)
    assert not c.agree and "independent P" in c.reason
    assert R.confirm(lattice.geometric_with_constant_path_small_noise, w).agree


@pytest.mark.parametrize("prog", [noisy_max.noisy_max_small_noise,
                                  lattice.geometric_with_constant_path_small_noise])
def test_larger_n_max_keeps_the_refutation(prog) -> None:
    seen = None
    for n_max in (1, 2, 3):
        res = R.refute(prog, n_max=n_max)
        if seen is not None:  # once refuted, the same first witness at every larger n_max
            assert res.verdict == "refuted" and res.witness is not None
            assert res.witness.as_doc() == seen
        if res.verdict == "refuted":
            seen = res.witness.as_doc()
    assert seen is not None


@pytest.mark.parametrize("prog", [sparse_vector.svt_lee_clifton, sparse_vector.svt_stoddard,
                                  noisy_max.noisy_max_small_noise])
def test_prove_never_loses_a_refutation_at_a_larger_n_max(prog) -> None:
    # issue 36: a larger --n-max turned a REFUTED into INCONCLUSIVE; now the search runs
    # up to n_max, size by size, so a refutation at n_max = k stays one at every k' > k
    from audit.prove.proof import prove_mechanism

    statuses = [prove_mechanism(prog, n_max=k).status for k in (1, 2, 3, 4)]
    first = statuses.index("refuted")
    assert all(s == "refuted" for s in statuses[first:]), statuses


def test_search_below_the_proved_size_reaches_n_max() -> None:
    # eps-DP for n <= 3, half the noise from n = 4: no alignment at --n-max 4, and the
    # search (which stopped at n = 3 before issue 36) finds the witness at n = 4
    from audit.prove.proof import prove_mechanism

    v = prove_mechanism(lattice.half_noise_from_four_queries, n_max=4)
    assert v.status == "refuted" and v.witness is not None and len(v.witness["q"]) == 4
    assert float(v.witness["epsilon_witness_lower"]) > 1
    assert prove_mechanism(lattice.half_noise_from_four_queries, n_max=3).status == "verified"
    # the grid alone (no Z3 seeds) reaches n = 4 and finds the exact cost 2 eps there
    res = R.refute(lattice.half_noise_from_four_queries, n_max=4, values=[0])
    assert res.verdict == "refuted" and len(res.witness.q) == 4
    assert abs(float(res.witness.eps_value) - 2) < 1e-9
    assert R.refute(lattice.half_noise_from_four_queries, n_max=3,
                    values=[0]).verdict == "not-refuted"


def test_skipped_events_are_named_never_a_clean_scope() -> None:
    # Noisy-Top-1-with-Gap at n = 3 tracks a runner-up: three draws compared pairwise, a
    # cycle outside the exact class; those events are skipped and the note says so
    res = R.refute(noisy_max.noisy_top1_with_gap, n_min=3, n_max=3, values=[0])
    assert res.verdict == "not-refuted" and res.skipped_events > 0
    note = R.search_note(res)
    assert "skipped" in note and f"{res.skipped_events} event(s)" in note
    assert "no violation over its scope" not in note


def test_replay_of_the_issue_witness_uses_the_independent_evaluator() -> None:
    # the witness the buggy evaluator printed for the eps-DP program of the issue ("exact"
    # epsilon = inf on output 1): replayed now, the independent evaluator gives the true
    # ratio e^1 (P(G = 0) / P(G = 1)), so the counterexample PASSES NOW
    import audit.prove.replay  # noqa: F401  (registers the replayer, as `dpaudit replay` does)
    from audit import registry
    from audit.prove.verdict import FINDING_ID

    doc = {"program": "audit.prove.benchmark.lattice:geometric_with_constant_path",
           "q": ["1"], "q_prime": ["0"], "epsilon": "1", "params": {},
           "event": {"pattern": [["c", "1"]], "index": None, "side": None, "t": None},
           "epsilon_witness_lower": "inf", "digits": 40}
    rep = registry.replay(FINDING_ID, {"witness": doc})
    assert not rep.still_fails
    assert "independent P = 0.46211715726001," in rep.detail  # (1-a)/(1+a), a = e^-1
    bad = dict(doc, program="audit.prove.benchmark.lattice:"
               "geometric_with_constant_path_small_noise")
    again = registry.replay(FINDING_ID, {"witness": bad})
    assert again.still_fails and again.actual.startswith("log-ratio >= 2.0")


def test_prove_with_the_historic_bug_ends_inconclusive_with_both_figures(monkeypatch) -> None:
    from audit.prove.proof import prove_mechanism

    monkeypatch.setattr(R, "event_paths", _old_event_paths)
    v = prove_mechanism(lattice.geometric_with_constant_path, n_max=2)
    assert v.status == "inconclusive" and v.witness is None
    text = " ".join(v.notes)
    assert "not confirmed by the independent evaluator" in text
    assert "exact P" in text and "independent P" in text
