"""A time limit keeps its work (audit/privacy/blackbox/sequential.py, dpaudit test
--max-seconds): the sequential tester ends at a look boundary when the next round would
end past the limit, keeping the looks so far and their bound; the verdict is INCONCLUSIVE
(never a pass) and says which limit stopped it.

Truth: a mechanism that sleeps 0.25 s per call (4 calls a round: 2 pairs x D, D'; rounds
double their batch, not their number of calls) takes >= 1 s a round; with a 3 s limit
the second look's round (round 1) ends at >= 2 s and the next would need >= 2 s more
(predicted: round 1's time x batch ratio 2), so the run must stop after 2 rounds, with one
look certified.  Without the prediction it would start round 2 (elapsed < 3 s) and end
past the limit.  Deterministic in the rounds counted (sleeps only lengthen rounds, and a
longer round 1 only makes the prediction exceed the limit sooner); no error rate applies.
"""

from __future__ import annotations

import time

import numpy as np

from audit import audit_mechanism


def sleepy_laplace(data, size, rng):
    time.sleep(0.25)
    return float(np.sum(data)) + rng.laplace(0.0, 1.0, size)


def test_time_limit_ends_at_a_look_boundary_with_the_bound_so_far():
    t0 = time.perf_counter()
    a = audit_mechanism(sleepy_laplace, epsilon=1.0, relation="add-remove", lower=0.0,
                        upper=1.0, max_pairs=2, float_bits=False, max_seconds=3.0,
                        first_batch=1000, n_select=1000, n_certify=64_000)
    wall = time.perf_counter() - t0
    bb = next(f for f in a.findings if f.id == "user.blackbox")
    assert a.outcome == "inconclusive" and bb.verdict.value == "inconclusive"
    assert bb.evidence["stopped"] == "time-budget"
    assert "stopped at a look boundary by the time limit (--max-seconds" in bb.evidence[
        "reason"]
    assert "certified so far" in bb.evidence["reason"]
    assert bb.evidence["epsilon_lower"] is not None
    assert a.blackbox.details["rounds"] == 2  # round 2 not started: it would end past 3 s
    assert wall < 3.0 + 2.0  # no round overran the limit by a whole round
