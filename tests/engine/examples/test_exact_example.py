"""The documented exact-tester example (audit/examples/exact_laplace.py) runs as the README
says.  Truth: the Laplace mechanism's privacy loss is |loc - loc'| / scale in closed form:
mean of n records in [0, 1] moves by at most 1/n under replace-one, scale 1/(n eps) gives
loss eps = 1; the broken twin (half the scale) gives 2.  The black-box part is seeded
(seed 0, confidence 0.9: false-alarm rate <= 10 % by the tester's guarantee; the exact part
is deterministic).  The real-number calibration (scale exactly 1/(n eps)) is refuted by the
exact tester on the neighbour search's rounding pairs: the float mean moves by more than 1/n."""

from __future__ import annotations

import pytest

from audit import audit_mechanism
from audit.examples.exact_laplace import (
    ClampedMeanLaplace,
    ClampedMeanLaplaceBroken,
    ClampedMeanLaplaceNoAllowance,
)
from audit.findings import Verdict


def _run(cls):
    return audit_mechanism(cls, lower=0.0, upper=1.0, float_bits=False, n_select=20_000,
                           n_certify=20_000, seed=0)  # epsilon read from the class


def test_correct_example_verified_by_the_exact_tester():
    r = _run(ClampedMeanLaplace)
    exact = next(f for f in r.findings if f.id == "user.exact-loss")
    assert exact.verdict == Verdict.VERIFIED
    assert exact.evidence["worst"]["value_down"] == pytest.approx(1.0, abs=1e-9)
    assert r.outcome == "not-flagged"


def test_real_number_calibration_refuted_by_a_hair_in_float():
    r = _run(ClampedMeanLaplaceNoAllowance)
    exact = next(f for f in r.findings if f.id == "user.exact-loss")
    assert exact.verdict == Verdict.REFUTED
    assert 1.0 < exact.evidence["worst"]["value_down"] < 1.0 + 1e-9


def test_broken_twin_refuted_by_both_testers():
    r = _run(ClampedMeanLaplaceBroken)
    exact = next(f for f in r.findings if f.id == "user.exact-loss")
    assert exact.verdict == Verdict.REFUTED
    assert exact.evidence["worst"]["value_down"] == pytest.approx(2.0, abs=1e-9)
    assert r.outcome == "flagged"
