"""Calibration of the privacy testers (audit/privacy/calibration.py): on mechanisms whose
answer is known, correct ones are not flagged (false-alarm control: nominal rate <= 10% per
run, the black-box confidence level) and broken ones are flagged (power), and the black-box
lower bound never exceeds the exact loss.

Observed: seeds 0 (the committed example report) and 1 (default test) agree with the truth
on all 11 runs; seeds 2-4 are in the slow run (``pytest -m slow``)."""

from __future__ import annotations

import pytest

from audit.privacy.calibration import all_runs, run_calibration


def _check(seed: int) -> None:
    found, figures = run_calibration(seed)
    # the engine's self-checks (tests/engine/privacy/test_search_reach.py, test_loss_reach.py,
    # test_sampler_fit.py, test_neighbour_family.py, test_screen_rank.py): the searches'
    # reach, the screen's ranking and the neighbour family are verified, the samplers' fit
    # not refuted
    engine = {f.id: f.verdict.value for f in found if f.id.startswith("engine.")}
    assert engine == {"engine.neighbour-family": "verified", "engine.search-reach": "verified",
                      "engine.loss-reach": "verified", "engine.sampler-fit": "not-refuted",
                      "engine.screen-rank": "verified"}
    findings = [f for f in found if f.id.startswith("calibration.")]
    assert len(findings) == len(found) - 5
    bad = {f.id: (f.verdict.value, f.evidence["blackbox_epsilon_lower"],
                  f.evidence["exact_epsilon_up"]) for f in findings
           if f.verdict.value != "not-refuted"}
    assert not bad, bad
    by = {f.id.split(".", 1)[1]: f.evidence for f in findings}
    # the power target, on the correct Laplace mechanism at epsilon = 0.1
    lap = by["laplace-0.1"]
    assert lap["blackbox_samples"]["certification"] <= 20_000_000
    assert 0.09 <= lap["blackbox_epsilon_lower"] <= 0.1
    assert lap["exact_epsilon_up"] == pytest.approx(0.1, rel=1e-12)
    # broken ones are flagged, with their witness event stated
    for run in all_runs():
        ev = by[run.key]
        assert ev["blackbox_violates"] is run.broken, run.key
        assert ev["blackbox_event"]
    assert "mantissa bit" in by["float-gini-release"]["blackbox_event"]
    # the claim testers' cheap cases (audit/privacy/claims/claim_calibration.py)
    assert sum(k.startswith("claims.") for k in by) == 6
    assert figures and figures[0]["kind"] == "bars"


def test_calibration_seed_1() -> None:
    _check(1)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [2, 3, 4])
def test_calibration_more_seeds(seed: int) -> None:
    _check(seed)


def test_calibration_counterexample_replays(tmp_path, capsys) -> None:
    """`dpaudit replay` finds the engine's calibration replayers (they are registered by
    :func:`all_runs`, which replay calls; a counterexample of a run that agrees with its
    known answer replays as PASSES NOW, exit 0)."""
    import json

    from audit.cli import main
    from audit.cli.outcomes import EXIT_OK

    doc = {"schema": "dpaudit.counterexample/1", "check": "calibration.laplace-half-scale",
           "subject": "testers:audit.privacy",
           "inputs": {"run": "laplace-half-scale", "seed": 1, "quick": True},
           "expected": None, "actual": None, "tolerance": None, "note": ""}
    path = tmp_path / "cx.json"
    path.write_text(json.dumps(doc))
    assert main(["replay", str(path)]) == EXIT_OK
    out = capsys.readouterr().out
    assert "calibration.laplace-half-scale" in out and "PASSES NOW" in out
