"""The self-audit's truth oracle (audit/prove/selfaudit/truth.py) against independent truths:
hand-worked closed forms, normalisation, the exact loss of the sums families, and the
generated DSL programs run concretely (Monte Carlo, seeded).

Monte Carlo tests: each compares the oracle's probability of every output with the
frequency in 10,000 concrete runs of the DSL program (seeded numpy generator); a cell fails
when |z| > 5 (binomial standard error), a false-alarm rate below 6e-7 per cell (Gaussian
approximation; at most ~30 cells per test).  The same check on the program of a *different*
spec (query scale doubled) must fail: the miss rate is measured by that twin at these sizes
(|z| far above 5, printed in the assertion)."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction as F

import numpy as np
import pytest

from audit.dsl import concrete
from audit.prove.selfaudit import families, truth
from audit.prove.selfaudit.spec import Spec


def test_noisy_max_two_queries_hand_worked() -> None:
    # Lap(1) noisy max, q = (0, 0) vs (1, -1): P(argmax = 1) = 1/2 vs P(Z > 2) = e^-2 for
    # Z = X1 - X0 (density (1 + |z|) e^-|z| / 4): log ratio 2 - log 2
    sp = Spec("noisy_max", "laplace", "linf1", F(1), output="index")
    a, ea = truth.probability(sp, (F(0), F(0)), 1)
    b, eb = truth.probability(sp, (F(1), F(-1)), 1)
    assert abs(a - 0.5) < 1e-12 and ea < 1e-11
    assert abs(b - math.exp(-2)) < 1e-12
    w = truth.pair_witness(sp, (F(0), F(0)), (F(1), F(-1)))
    assert w is not None and abs(w.log_ratio_lower - (2 - math.log(2))) < 1e-9


def test_svt_single_query_closed_form() -> None:
    # no threshold noise, one query: P(True | q) = P(nu >= -q) = 1 - e^{-q/s}/2 for q >= 0
    sp = Spec("svt", "laplace", "linf1", F(2), None, 1)
    p, _ = truth.probability(sp, (F(3),), (True,))
    assert abs(p - (1 - 0.5 * math.exp(-1.5))) < 1e-12
    # geometric, threshold 0: P(nu >= -q) with P(nu <= -q - 1) = a^{q+1} / (1 + a)
    sg = Spec("svt", "geometric", "linf1", F(2), None, 1)
    a = math.exp(-0.5)
    p, _ = truth.probability(sg, (F(2),), (False,))
    assert abs(p - a ** 3 / (1 + a)) < 1e-12


@pytest.mark.parametrize("spec, q", [
    (Spec("svt", "laplace", "linf1", F(3), F(2), 2), (F(0), F(1), F(-2), F(4))),
    (Spec("svt", "geometric", "monotone1", F(1), F(1, 2), 1), (F(0), F(1), F(-2))),
    (Spec("noisy_max", "geometric", "linf1", F(1, 2), output="index"), (F(0), F(0), F(1))),
    (Spec("noisy_max", "laplace", "linf1", F(2), output="index"), (F(0), F(3), F(1))),
])
def test_finite_output_laws_sum_to_one(spec: Spec, q: tuple[F, ...]) -> None:
    evs = (truth.svt_outputs(len(q), spec.cutoff) if spec.family == "svt"
           else list(range(len(q))))
    total = sum(truth.probability(spec, q, e)[0] for e in evs)
    assert abs(total - 1) < 1e-10


def test_value_density_integrates_to_one() -> None:
    sp = Spec("noisy_max", "laplace", "linf1", F(1), output="value")
    q = (F(0), F(2))
    step = F(1, 40)
    ys = [F(-20) + k * step for k in range(int(F(44) / step))]
    total = sum(truth.probability(sp, q, y)[0] for y in ys) * float(step)
    # Riemann sum of a Lipschitz density, step 1/40; the tails beyond 20 scales are < 1e-8
    assert abs(total - 1) < 1e-3
    sg = Spec("noisy_max", "geometric", "linf1", F(1), output="value")
    assert abs(sum(truth.probability(sg, q, F(y))[0] for y in range(-60, 60)) - 1) < 1e-12


def test_sums_exact_loss() -> None:
    # histogram under linf1 at n = 3, scale 2: every bin moves by 1: 3/2; onehot1: 1/2
    assert truth.status_at(Spec("histogram", "laplace", "linf1", F(2)), 3)[1] == F(3, 2)
    assert truth.status_at(Spec("histogram", "laplace", "onehot1", F(2)), 3)[1] == F(1, 2)
    # prefix sums under onehot1: changing q_0 moves all n prefixes: n/s
    st = truth.status_at(Spec("prefix", "geometric", "onehot1", F(4)), 5)
    assert st[0] == "not-private" and st[1] == F(5, 4)
    # a shared noise reveals q_1 exactly from n = 2 on
    assert truth.status_at(Spec("shared_prefix", "laplace", "onehot1", F(8)), 2)[1] is None
    assert truth.status_at(Spec("shared_prefix", "laplace", "onehot1", F(8)), 1)[1] == F(1, 8)


def test_oracle_labels_known_programs() -> None:
    # Lyu et al. Alg. 1 (sT = 2, sQ = 4c) private; Lap(1) query noise not, from n = 2
    good = truth.truth(Spec("svt", "laplace", "linf1", F(4), F(2), 1))
    assert good.label() == "private" and not good.conflicts
    bad = truth.truth(Spec("svt", "laplace", "linf1", F(1), F(2), 1), n_max=3)
    assert bad.first_violation() is not None and bad.first_violation() <= 3
    assert bad.witness[bad.first_violation()].log_ratio_lower > 1


def _mc_z(spec_truth: Spec, spec_prog: Spec, q: list[int], runs: int, seed: int) -> float:
    mech = families.build(spec_prog)
    rng = np.random.default_rng(seed)
    with concrete(rng):
        outs = Counter(
            tuple(o) if isinstance(o, list) else o
            for o in (mech(list(map(float, q)) if spec_prog.law == "laplace" else q, 1.0)
                      for _ in range(runs)))
    qs = tuple(F(v) for v in q)
    evs = (truth.svt_outputs(len(q), spec_truth.cutoff) if spec_truth.family == "svt"
           else list(range(len(q))))
    worst = 0.0
    for e in evs:
        p, _ = truth.probability(spec_truth, qs, e)
        se = math.sqrt(max(p * (1 - p), 1e-12) / runs)
        worst = max(worst, abs(outs.get(e, 0) / runs - p) / se)
    return worst


@pytest.mark.parametrize("spec, q", [
    (Spec("svt", "laplace", "linf1", F(2), F(1), 2), [0, 1, -1, 2]),
    (Spec("svt", "geometric", "linf1", F(1), F(1), 1), [0, 1, -1]),
    (Spec("noisy_max", "geometric", "linf1", F(1), output="index"), [0, 0, 1]),
])
def test_oracle_matches_the_dsl_program_run_concretely(spec: Spec, q: list[int]) -> None:
    assert _mc_z(spec, spec, q, 10_000, seed=7) < 5
    twin = Spec(spec.family, spec.law, spec.relation, spec.q_scale * 2, spec.t_scale,
                spec.cutoff, spec.output)
    z = _mc_z(spec, twin, q, 10_000, seed=7)
    assert z > 5, f"the twin (query scale doubled) was not told apart: max |z| = {z:.2f}"
