"""The truncated SPRT of ``calibrate --coverage --quick`` (audit/privacy/coverage_sprt.py).

Truths: (1) brute force -- every one of the 2^r outcome sequences of a small design run
through :func:`run_sprt`, its probability summed exactly in Fractions, must give exactly
the refutation probability and expected runs of :func:`operating` (integer path sums);
(2) an independent float forward recursion (numpy) of the quick design must agree with the
exact figures to 1e-12; (3) the quick design's size is <= 0.01 and its power against the
doubled rate 0.2 is 0.8973 (exact), against 0.424 for the fixed R = 60 test it replaces
(hand-checked: P(Bin(60, 0.2) >= 13)).  Seeded statistical checks: a synthetic case of
error rate 0.1 (nominal) is not refuted (false alarm <= 0.0078 by the exact size) and one
of rate 0.2 is refuted (miss rate 0.103, exact); a real tester broken to certify on its
selection draws is refuted through the SPRT, and the correct one is not.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from audit.findings import Verdict
from audit.privacy import coverage_calibration as C
from audit.privacy.coverage_sprt import (
    design_figures,
    operating,
    quick_design,
    run_sprt,
    sprt_design,
)
from tests.common.broken_testers import certify_on_selection_draws


def test_operating_equals_brute_force_over_every_path() -> None:
    d = sprt_design(Fraction(1, 5), Fraction(1, 10), Fraction(1, 5), 11)
    p = Fraction(3, 10)
    refute = runs = Fraction(0)
    for path in itertools.product((0, 1), repeat=d.r_max):
        prob = Fraction(1)
        for x in path:
            prob *= p if x else 1 - p
        out = run_sprt(d, lambda i, path=path: bool(path[i]))
        refute += prob * (out.decision == "refute")
        runs += prob * out.runs
    assert operating(d, p) == (refute, runs)
    assert operating(d, d.p0)[0] <= d.level  # the size is within the level, exactly


def _float_recursion(d, p: float) -> tuple[float, float]:
    dist = np.zeros(d.r_max + 2)
    dist[0] = 1.0
    rej = en = 0.0
    for n in range(1, d.r_max + 1):
        new = dist * (1 - p)
        new[1:] += dist[:-1] * p
        u, lo = d.upper[n - 1], d.lower[n - 1]
        r = new[u:].sum()
        if n == d.r_max:
            return rej + r, en + n * new.sum()
        a = new[:max(lo + 1, 0)].sum()
        rej, en = rej + r, en + n * (r + a)
        new[u:] = 0.0
        new[:max(lo + 1, 0)] = 0.0
        dist = new
    raise AssertionError


def test_quick_design_figures() -> None:
    d = quick_design(0.1)
    assert (d.p0, d.p1, d.r_max) == (Fraction(1, 10), Fraction(1, 5), 300)
    fig = design_figures(d)
    for p, (rej, en) in ((0.1, ("size", "expected_runs_at_nominal")),
                         (0.2, ("power_against_doubled_rate", "expected_runs_at_doubled"))):
        fr, fe = _float_recursion(d, p)
        assert abs(fr - fig[rej]) < 1e-12 and abs(fe - fig[en]) < 1e-9
    assert fig["size"] <= 0.01
    assert round(fig["power_against_doubled_rate"], 4) == 0.8973
    assert 60 < fig["expected_runs_at_nominal"] < 65
    fixed60 = stats.binom.sf(12, 60, 0.2)  # the old quick test refutes at >= 13 of 60
    assert round(fixed60, 3) == 0.424 and fig["power_against_doubled_rate"] > 2 * fixed60


def _synthetic(rate: float) -> C.CoverageCase:
    def trial(seed: int, factor: float) -> C.Trial:
        return C.Trial(bool(np.random.default_rng(seed).random() < rate), False)

    return C.CoverageCase(f"synthetic-{rate:g}", "synthetic", "Bernoulli errors", 0.1,
                          "a Bernoulli draw", trial, reps=60, power_reps=0,
                          sprt=quick_design(0.1))


def test_sprt_in_run_case_passes_the_nominal_rate_and_refutes_a_doubled_one() -> None:
    ok = C.run_case(_synthetic(0.1), seed=1)
    assert ok.verdict is Verdict.NOT_REFUTED, ok.evidence
    assert ok.evidence["sprt"]["decision"] == "accept"
    assert "truncated SPRT" in ok.scope and ok.evidence["runs"] <= 300
    bad = C.run_case(_synthetic(0.2), seed=1)
    assert bad.verdict is Verdict.REFUTED, bad.evidence
    assert bad.evidence["sprt"]["decision"] == "refute"
    # --reps: the fixed-size test as before
    fixed = C.run_case(_synthetic(0.1), seed=1, reps=30)
    assert fixed.evidence["runs"] == 30 and "sprt" not in fixed.evidence


def _case(key: str) -> C.CoverageCase:
    return next(c for c in C.generic_cases(quick=True) if c.key == key)


@pytest.mark.parametrize("broken", [False, True])
def test_quick_sprt_on_a_real_tester(monkeypatch: pytest.MonkeyPatch, broken: bool) -> None:
    if broken:  # certification counts taken on the selection draws (reused)
        certify_on_selection_draws(monkeypatch)
    f = C.run_case(_case("blackbox-fixed-laplace"), seed=3, power_reps=0)
    assert f.evidence["sprt"]["decision"] == ("refute" if broken else "accept"), f.evidence
    assert f.verdict is (Verdict.REFUTED if broken else Verdict.NOT_REFUTED)
