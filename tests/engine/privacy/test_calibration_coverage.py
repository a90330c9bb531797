"""Coverage calibration of the testers (audit/privacy/coverage_calibration.py): the helpers
against independent values, each tester within its nominal error rate at a small R, and two
deliberately broken testers (confidence spent in full at every sequential look; certification
on the selection samples) refuted by the same binomial test.

Rates stated: each case's test refutes a correct tester with probability <= 0.01 (exact
binomial at level 0.01); the seeds below are fixed.  Slow run (default sizes, every case,
R = 200): ``pytest -m slow tests/engine/privacy/test_calibration_coverage.py``."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from audit.findings import Verdict
from audit.privacy import coverage_calibration as C
from audit.privacy.blackbox import Event
from audit.privacy.blackbox import tester as tester_mod
from audit.privacy.blackbox.accounting import AlphaAccountingError
from audit.privacy.blackbox.sequential import Schedule
from tests.common.broken_testers import certify_on_selection_draws


def test_binomial_excess_matches_hand_computation() -> None:
    # P(X >= 3), X ~ Bin(10, 0.1) = 1 - (0.9^10 + 10 * 0.1 * 0.9^9 + 45 * 0.01 * 0.9^8)
    want = 1 - (0.9**10 + 10 * 0.1 * 0.9**9 + 45 * 0.01 * 0.9**8)
    assert C.binomial_excess(3, 10, 0.1) == pytest.approx(want, rel=1e-12)
    assert C.binomial_excess(0, 10, 0.1) == 1.0
    assert C.binomial_excess(1, 10, 0.0) == 0.0


def test_detectable_rate_nominal_zero_closed_form() -> None:
    # nominal 0: one error refutes; power 0.8 needs 1 - (1 - q)^R >= 0.8
    k, q = C.detectable_rate(60, 0.0)
    assert k == 1
    assert q == pytest.approx(1 - 0.2 ** (1 / 60), rel=1e-9)
    k, q = C.detectable_rate(200, 0.1)
    # the critical count is the first with P(X >= k) <= 0.01 under Bin(200, 0.1)
    from math import comb
    tail = lambda k: sum(comb(200, j) * 0.1**j * 0.9 ** (200 - j) for j in range(k, 201))  # noqa: E731
    assert tail(k) <= 0.01 < tail(k - 1)
    assert 0.15 < q < 0.2


def _laplace_mp(kind: str, a: float, b: float, loc: float, scale: float) -> float:
    f = lambda y: mpmath.exp(-abs(y - loc) / scale) / (2 * scale)  # noqa: E731
    lo, hi = {"gt": (a, mpmath.inf), "lt": (-mpmath.inf, a), "in": (a, b)}[kind]
    pts = [lo, loc, hi] if lo < loc < hi else [lo, hi]
    return float(mpmath.quad(f, pts))


@pytest.mark.parametrize("kind,a,b", [("gt", 2.5, math.nan), ("gt", -1.0, math.nan),
                                      ("lt", -30.0, math.nan), ("lt", 0.7, math.nan),
                                      ("in", 3.0, 9.0), ("in", -2.0, 0.5), ("in", -9.0, -3.0)])
def test_laplace_event_probability_vs_quadrature(kind: str, a: float, b: float) -> None:
    got = C.laplace_event_probability(Event(kind, 0, a, b), 0.25, 1.5)
    assert got == pytest.approx(_laplace_mp(kind, a, b, 0.25, 1.5), rel=1e-12)


def test_geometric_event_law_closed_form_and_sampler() -> None:
    m = C.GeometricMechanism(0.5)
    q = math.exp(-0.5)
    pts, pmf = m.support(np.array([1.0, 2.0]))  # location 3
    assert pmf.sum() == pytest.approx(1.0, abs=1e-15)
    # P(G > t) = q^(t+1) / (1 + q) for integer t >= 0
    for t in (0, 3, 20):
        got = C.discrete_event_probability(Event("gt", 0, 3.0 + t), pts, pmf)
        assert got == pytest.approx(q ** (t + 1) / (1 + q), rel=1e-12)
    y = m.sample(np.array([1.0, 2.0]), 200_000, np.random.default_rng(5))
    # the sampler's law: P(y == 3) = (1 - q) / (1 + q) within 5 sd
    p0 = (1 - q) / (1 + q)
    assert abs(np.mean(y == 3.0) - p0) < 5 * math.sqrt(p0 * (1 - p0) / y.size)


def test_bound_misses_counts_each_side() -> None:
    ev = Event("gt", 0, 1.0).to_dict()
    cert = [{"event_spec": ev, "direction_index": 0, "p_favoured_lower": 0.5,
             "p_other_upper": 0.1}]
    assert C.bound_misses(cert, lambda e, w: 0.4 if w == 0 else 0.2) == 2
    assert C.bound_misses(cert, lambda e, w: 0.6 if w == 0 else 0.05) == 0


def _case(key: str) -> C.CoverageCase:
    return next(c for c in C.generic_cases(quick=True) if c.key == key)


@pytest.mark.parametrize("key", ["clopper-pearson-exact", "blackbox-fixed-laplace",
                                 "blackbox-sequential-laplace",
                                 "float-bits-geometric", "exact-loss-mean"])
def test_correct_testers_within_nominal(key: str) -> None:
    f = C.run_case(_case(key), seed=3, reps=40 if key != "exact-loss-mean" else 15,
                   power_reps=10)
    assert f.verdict is Verdict.NOT_REFUTED, f.evidence
    if f.evidence["power_floor_2x"] > 0:
        assert f.evidence["power"]["2x"]["rate"] >= 0.5


def test_unsafe_clopper_pearson_rounding_is_refuted(monkeypatch: pytest.MonkeyPatch) -> None:
    # the broken statistics: no safe-direction widening of the bounds (one-ulp errors)
    from audit.privacy.blackbox import statistics
    monkeypatch.setattr(statistics, "_SAFETY", 0.0)
    f = C.run_case(_case("clopper-pearson-exact"), seed=3, reps=10, power_reps=0)
    assert f.verdict is Verdict.REFUTED, f.evidence


def test_full_confidence_at_every_look_is_refuted(monkeypatch: pytest.MonkeyPatch) -> None:
    # the broken schedule: each look spends the whole alpha (no split over the looks)
    monkeypatch.setattr(Schedule, "alpha_at", lambda s, r: s.alpha)
    # the exact level accounting in the run refuses it at the first repetition ...
    with pytest.raises(AlphaAccountingError, match="miscounted"):
        C.run_case(_case("blackbox-sequential-laplace"), seed=3, reps=1, power_reps=0)
    # ... and with that accounting switched off, the repetitions refute it statistically
    monkeypatch.setattr(tester_mod, "check_alpha", lambda *a: {"ok": False})
    f = C.run_case(_case("blackbox-sequential-laplace"), seed=3, reps=40, power_reps=0)
    assert f.verdict is Verdict.REFUTED, f.evidence
    assert f.evidence["error_rate"] > 0.25
    assert f.evidence["runs_with_exact_level_accounting"] == 0


def test_certifying_on_selection_samples_is_refuted(monkeypatch: pytest.MonkeyPatch) -> None:
    # the broken tester: certification counts are taken on the selection draws (reused)
    certify_on_selection_draws(monkeypatch)
    f = C.run_case(_case("blackbox-fixed-laplace"), seed=3, reps=40, power_reps=0)
    assert f.verdict is Verdict.REFUTED, f.evidence


@pytest.mark.slow
def test_every_case_default_size() -> None:
    findings, _ = C.run_coverage(seed=0)
    bad = {f.id: f.evidence for f in findings if f.verdict is not Verdict.NOT_REFUTED}
    assert not bad
    assert len(findings) >= 5


@pytest.mark.parametrize("args,message", [
    (["--coverage", "--reps", "0"], "--reps: must be >= 1"),
    (["--reps", "3"], "--reps and --only need --coverage"),
    (["--coverage", "--only", "no-such-case"], "no coverage case matches"),
])
def test_calibrate_coverage_bad_input_exit_2_nothing_written(
        args: list[str], message: str, tmp_path, capsys: pytest.CaptureFixture) -> None:
    from audit.cli import main

    out = tmp_path / "rep"
    try:
        code = main(["calibrate", *args, "--out", str(out)])
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    assert code == 2
    assert message.split(":")[-1].strip() in capsys.readouterr().err
    assert not out.exists()


def test_calibrate_coverage_command_writes_a_report(tmp_path) -> None:
    import json

    from audit.cli import main

    code = main(["calibrate", "--coverage", "--quick", "--only", "clopper-pearson",
                 "--reps", "3", "--out", str(tmp_path), "--run-id", "c"])
    rep = json.loads((tmp_path / "c" / "report.json").read_text())
    assert code == 0
    assert [f["id"] for f in rep["findings"]] == ["coverage.clopper-pearson-exact"]
    assert rep["findings"][0]["evidence"]["runs"] == 3


def test_every_installed_subject_contributes_its_cases() -> None:
    """The Gini subject's coverage hook loads and its cases are run (a hook that failed to
    import used to be skipped silently, so `calibrate --coverage` passed without them)."""
    from audit.privacy.coverage_calibration import all_cases

    keys = [c.key for c in all_cases(quick=True)]
    assert any(k.startswith("gini") for k in keys), keys
