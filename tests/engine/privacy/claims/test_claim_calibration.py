"""The claim testers' calibration (audit/privacy/claims/claim_calibration.py): the cheap
default cases decide as the truth says (the correct Gaussian not flagged, the twins
flagged: sigma 30 % small under GDP and zCDP, sigma 10 % small under (eps, 1e-6) by the
Gaussian family, zCDP off by 2, RDP at the wrong order), and the verdict rule turns
counts into verdicts (an excess false-alarm rate refutes, a missed twin is inconclusive).
Seeded; about 1 s CPU."""

from __future__ import annotations

from audit.findings import Verdict
from audit.privacy.claims.claim_calibration import (
    CASES,
    _finding,
    claim_cases,
    run_claim_calibration,
)


def test_cheap_cases_decide_as_the_truth_says() -> None:
    found = run_claim_calibration(0, full=False)
    assert [f.id for f in found] == [f"calibration.claims.{c.key}" for c in claim_cases(False)]
    assert {f.evidence["case"] for f in found} >= {"gdp.correct", "zcdp.off-by-2",
                                                   "rdp.wrong-order",
                                                   "approx-family.sigma-0.9"}
    for f in found:
        assert f.verdict is Verdict.NOT_REFUTED, (f.id, f.scope)
        assert f.evidence["flagged"] == (1 if f.evidence["broken"] else 0)


def test_verdict_rule_from_counts() -> None:
    ok = next(c for c in CASES if c.key == "gdp.correct")
    twin = next(c for c in CASES if c.key == "zcdp.sigma-0.9")
    assert _finding(ok, 2, 20, [], 1, 1, 0, 1.0).verdict is Verdict.NOT_REFUTED
    assert _finding(ok, 7, 20, [], 1, 1, 0, 1.0).verdict is Verdict.REFUTED  # p ~ 0.002
    assert _finding(twin, 5, 5, [], 1, 1, 0, 1.0).verdict is Verdict.NOT_REFUTED
    assert _finding(twin, 0, 5, [], 1, 1, 0, 1.0).verdict is Verdict.INCONCLUSIVE
    assert len(claim_cases(True)) == 22 and len(claim_cases(False)) == 6


def test_calibrate_claims_command(tmp_path, monkeypatch, capsys) -> None:
    """dpaudit calibrate --claims writes a report of its cases (the run shrunk to the cheap
    cases here: the full one takes minutes); with --quick it is bad input (exit 2)."""
    import json

    from audit.cli import main
    from audit.privacy.claims import claim_calibration as cc

    real = cc.run_claim_calibration
    monkeypatch.setattr(cc, "run_claim_calibration",
                        lambda seed, full, on_finding=None, reps=None:
                        real(seed, False, on_finding, reps))
    assert main(["calibrate", "--claims", "--out", str(tmp_path), "--run-id", "c"]) == 0
    rep = json.loads((tmp_path / "c" / "report.json").read_text())
    assert len(rep["findings"]) == 6 and "flagged 1/1" in capsys.readouterr().err
    assert main(["calibrate", "--claims", "--quick", "--out", str(tmp_path / "q")]) == 2
    assert not (tmp_path / "q").exists()
