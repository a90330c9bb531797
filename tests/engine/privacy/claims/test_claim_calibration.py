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
