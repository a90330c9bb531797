"""``dpaudit test`` agrees with ``dpaudit prove`` on refuted programs: the black-box tester,
run (seeded) on the exact refutation witness pair through the concrete DSL program, flags
the violation and its certified lower bound does not exceed the witness's exact epsilon.

Programs whose witness epsilon is the pair's exact epsilon, each checked against a
hand-worked value: Report Noisy Max with Lap(1) on (0, 0) vs (-1, 1): 2 - ln 2 (the loss of
index 0, 2 eps - log(1 + eps) at eps = 1); Partial Sum with Lap(1/2) and with two-sided
geometric noise of scale 1/2, shift 1: exactly 2 (density / pmf ratio e^(1/b) = e^2).

Rates (tester settings below, confidence 0.95): a sound tester's lower bound exceeds the
pair's epsilon with probability <= 0.05 per program (its certified confidence), so the
``consistent`` assertion is a false alarm with probability <= 0.05 per program and seed;
the miss rate (not flagged although the pair violates eps = 1), measured over seeds 0..19
with these settings (``tests/bench/prove_vs_test.py --seeds 20 --n-select 5000
--n-certify 20000 --only noisy_max_small_noise partial_sum_small_noise
partial_sum_geometric_small_noise``): 0/20 misses and 20/20 consistent for each program, so
the miss rate is <= 0.14 (one-sided 95% Clopper-Pearson, 1 - 0.05^(1/20)).  The seed is
fixed, so the test is deterministic.
"""

from __future__ import annotations

import math

import pytest

from audit.prove.benchmark import PROGRAMS
from audit.prove.refute import blackbox_agreement, refute

BY_NAME = {p.name: p for p in PROGRAMS}
CASES = [("noisy_max_small_noise", 2 - math.log(2)), ("partial_sum_small_noise", 2.0),
         ("partial_sum_geometric_small_noise", 2.0)]


@pytest.mark.parametrize(("name", "exact"), CASES, ids=[c[0] for c in CASES])
def test_blackbox_tester_agrees_with_the_exact_witness(name: str, exact: float) -> None:
    entry = BY_NAME[name]
    res = refute(entry.program, **entry.search)
    assert res.verdict == "refuted"
    w = res.witness
    assert w is not None
    assert float(w.eps_value) == pytest.approx(exact, abs=1e-12)  # the hand-worked value
    ag = blackbox_agreement(entry.program, w, seed=1, n_select=5_000, n_certify=20_000,
                            confidence=0.95)
    assert ag.flagged, ag  # the tester sees the violation of eps = 1
    assert ag.consistent and ag.epsilon_lower <= float(w.eps_value), ag
    assert ag.epsilon_lower <= ag.epsilon_upper
