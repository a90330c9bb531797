"""The common assertions of the proof-step claim tests (tests/gini/test_claims_*_steps.py):
the verdicts are as measured, a verified step carries a refuted twin, a refuted one a
counterexample that replays, decoded and as raw JSON."""

from __future__ import annotations

from audit.falsifiability import needs_twin, twin_problem
from audit.findings import from_jsonable
from audit.registry import REPLAYERS


def check_step_findings(found: dict, expected: dict[str, str]) -> None:
    """``found``: finding id -> Finding; ``expected``: finding id -> verdict."""
    assert {k: str(f.verdict.value) for k, f in found.items()} == expected
    for fid, f in found.items():
        if expected[fid] == "verified":
            assert needs_twin(fid) and twin_problem(f.evidence) == "", fid
            continue
        doc = f.counterexample
        assert doc is not None, fid
        assert REPLAYERS[doc["check"]](from_jsonable(doc["inputs"]))[0], fid
        assert REPLAYERS[doc["check"]](doc["inputs"])[0], fid
        assert f.evidence["readings"][f.reading] == "refuted", fid
