"""Sequential stopping (audit/privacy/blackbox/sequential.py): schedule, per-look bounds, error
guarantee, early stop on broken mechanisms, crashes.

Truths: Clopper-Pearson bounds recomputed here from scipy.stats.beta quantiles (the textbook
definition, a different code path from the tester's polished betaincinv); the Laplace
mechanism's true epsilon on D = [0, 0], D' = [0, 1] is exactly 1/b (closed form).  False
alarms: a correct mechanism whose true epsilon equals the claim, 30 seeded runs; the
guarantee allows <= 10 % per run, the expected count is <= 3; we require <= 6 (P(Bin(30, 0.1)
>= 7) ~ 2.6 %, and the runs are seeded, so the outcome is fixed).  Power: a half-scale twin
(true epsilon 2 vs claim 1) is flagged in every seeded run, at the first look.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from audit.privacy.blackbox import BlackBoxTester
from audit.privacy.blackbox.sequential import decide, schedule
from audit.privacy.mechanisms import LaplaceMechanism
from audit.protocols import REPLACE_ONE, NeighbourPair
from kernels.errors import InvalidParameterError

PAIR = NeighbourPair(np.array([0.0, 0.0]), np.array([0.0, 1.0]), REPLACE_ONE,
                     {"op": "replace", "rank": 1, "new": 1.0})


def test_schedule_is_geometric_and_alpha_is_split_evenly():
    s = schedule(1000, 2, 20_000, 0.1)
    assert s.batches == (1000, 2000, 4000, 8000, 16000)
    assert s.looks == 4 and s.alpha_per_look == pytest.approx(0.025)
    assert s.max_samples_per_dataset() == 31000
    assert schedule(5000, 2, 100, 0.1).batches == (5000, 5000)  # at least one look
    with pytest.raises(InvalidParameterError, match="growth must be an integer >= 2"):
        schedule(1000, 1, 20_000, 0.1)
    with pytest.raises(InvalidParameterError, match="alpha must be in"):
        schedule(1000, 2, 20_000, 1.5)


def _cp_lower(k: int, n: int, a: float) -> float:
    return 0.0 if k == 0 else float(stats.beta.ppf(a, k, n - k + 1))


def _cp_upper(k: int, n: int, a: float) -> float:
    return 1.0 if k == n else float(stats.beta.ppf(1 - a, k + 1, n - k))


@pytest.mark.parametrize("kf,ko,n", [(600, 300, 1000), (5000, 4000, 20000), (30, 2, 500)])
def test_look_bounds_match_textbook_clopper_pearson(kf, ko, n):
    a = 0.02
    look = decide(kf, ko, n, a, claimed=0.1)
    want_l = math.log(_cp_lower(kf, n, a / 2) / _cp_upper(ko, n, a / 2))
    want_u = math.log(_cp_upper(kf, n, a / 2) / _cp_lower(ko, n, a / 2))
    assert look.epsilon_lower == pytest.approx(want_l, rel=1e-7)
    assert look.epsilon_upper == pytest.approx(want_u, rel=1e-7)
    assert look.epsilon_lower <= want_l  # rounded in the safe direction
    assert look.decision == ("flag" if want_l > 0.1 else None)


def test_look_decisions_flag_clear_and_delta():
    assert decide(700, 300, 1000, 0.05, claimed=0.5).decision == "flag"
    assert decide(500, 500, 100_000, 0.05, claimed=0.1).decision is None  # undecided
    assert decide(50_000, 50_000, 100_000, 0.05, claimed=0.1).decision == "clear"
    # (epsilon, delta): P(E) <= e^eps P'(E) + delta; with delta = 0.3 the 0.7 vs 0.3 split
    # is within e^0.5 * 0.3 + 0.3 = 0.79, so it no longer flags
    assert decide(700, 300, 1000, 0.05, claimed=0.5, delta=0.3).decision != "flag"


def test_false_alarm_rate_on_a_tight_correct_mechanism():
    mech = LaplaceMechanism(1.0)  # true epsilon exactly 1 on PAIR
    t = BlackBoxTester(n_select=16_000, n_certify=16_000, sequential=True, seq_first=1000,
                       intervals=False)
    flags = any_look_over = 0
    for seed in range(30):
        r = t.run(mech, [PAIR], np.random.default_rng(seed))
        assert r.details["stopped"] == "schedule-exhausted" or r.violates
        flags += r.violates
        # the union bound covers every look at once, not only the reported maximum
        any_look_over += any(lk["epsilon_lower_raw"] > 1.0 for lk in r.details["looks"])
    assert flags == any_look_over  # flagged iff some look exceeded the claim
    assert flags <= 6


def test_broken_twin_is_flagged_at_the_first_look_with_far_fewer_samples():
    mech = LaplaceMechanism(1.0, noise_scale_factor=0.5)  # true epsilon 2
    seq = BlackBoxTester(n_select=100_000, n_certify=100_000, sequential=True, seq_first=1000)
    fixed = BlackBoxTester(n_select=100_000, n_certify=100_000)
    for seed in range(5):
        r = seq.run(mech, [PAIR], np.random.default_rng(seed))
        assert r.violates and r.details["stopped"] == "flagged"
        assert 1.0 < r.epsilon_lower <= 2.0
        assert len(r.details["looks"]) == 1
        assert r.details["samples_total"] == 2 * (1000 + 2000)
    rf = fixed.run(mech, [PAIR], np.random.default_rng(0))
    assert rf.violates and rf.details["samples_total"] == 2 * 200_000


def test_sequential_records_a_crash_and_keeps_testing_the_other_pairs():
    class Crashy:
        name, claimed_epsilon, relation = "crashy", 1.0, REPLACE_ONE

        def sample(self, d, size, rng):
            if d[-1] == 0.5:
                raise ZeroDivisionError("boom")
            return float(np.sum(d)) + rng.laplace(0.0, 0.5, size)

    bad = NeighbourPair(np.array([0.0, 0.5]), np.array([0.0, 1.0]), REPLACE_ONE, {})
    t = BlackBoxTester(n_select=8000, n_certify=8000, sequential=True, seq_first=1000)
    r = t.run(Crashy(), [bad, PAIR], np.random.default_rng(0))
    assert r.violates  # the good pair still shows the half-scale violation
    (c,) = r.details["crashes"]
    assert c["exception"] == "ZeroDivisionError" and c["dataset"] == [0.0, 0.5]
    assert c["which"] == "first" and c["pair_index"] == 0
    # the stored generator state replays the failing call
    rng = np.random.default_rng()
    rng.bit_generator.state = c["rng_state"]
    with pytest.raises(ZeroDivisionError):
        Crashy().sample(np.array(c["dataset"]), c["size"], rng)
    only_bad = t.run(Crashy(), [bad], np.random.default_rng(0))
    assert only_bad.epsilon_lower is None and only_bad.details["outcome"] == "crashed"
