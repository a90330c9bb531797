"""Every running-text claim (registered keys ``text.*`` of the four subjects' claims_text
modules) states its readings consistently and every refutation it produces replays: the
counterexample, decoded as ``dpaudit replay`` decodes it, makes its replayer report the failure
again.  (``text.subset.lemma7-dominance`` is slow and verified; it runs in
tests/subset_optimal/test_claims_text.py -m slow.)"""

from __future__ import annotations

import pytest

from audit.findings import from_jsonable
from audit.registry import REPLAYERS, load_all

SUBJECTS = ["lan-reiter-2025", "dick-et-al-subset-optimal", "liu-global-sensitivity",
            "ding-et-al-free-gap"]
SLOW = {"text.subset.lemma7-dominance"}


def _claims():
    return [c for c in load_all(SUBJECTS) if c.key.startswith("text.") and c.key not in SLOW]


def test_there_are_text_claims_in_each_subject() -> None:
    papers = {c.paper for c in _claims()}
    assert papers == set(SUBJECTS)


@pytest.mark.parametrize("claim", _claims(), ids=lambda c: c.key)
def test_readings_and_replay(claim) -> None:
    findings = claim.run(0.0, 0)
    assert findings
    for f in findings:
        verdict = str(f.verdict.value if hasattr(f.verdict, "value") else f.verdict)
        readings = f.evidence.get("readings")
        if verdict.startswith("refuted"):
            assert isinstance(readings, dict) and "refuted" in readings.values(), f.id
            assert f.counterexample, f.id
            reading = getattr(f, "reading", None)
            if reading is not None:  # the engine's Finding carries the reading tested
                assert readings.get(reading) == "refuted", (f.id, reading)
            doc = f.counterexample
            replay = REPLAYERS[doc["check"]]
            still, _, _, _ = replay(from_jsonable(doc["inputs"]))
            assert still, f.id
            still, _, _, _ = replay(doc["inputs"])  # raw JSON, as stored in a report
            assert still, f.id
        elif verdict == "verified":
            assert f.counterexample is None and f.scope
            if readings:
                assert set(readings.values()) == {"holds"}, f.id
