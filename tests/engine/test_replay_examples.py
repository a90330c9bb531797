"""Every refutation in the committed example reports replays: ``dpaudit replay FILE`` on the
counterexample of every refuted (and refuted-under-reading) finding of every report under
reports/examples/ exits 1 (STILL FAILS).

The default run replays the reports of the claim commands (prove / search / reproduce of
every subject) except the few replays that re-sample a mechanism (listed in ``SLOW``);
``pytest -m slow tests/engine/test_replay_examples.py`` replays those and the regress and
certify reports too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit.cli import main
from audit.cli.outcomes import EXIT_FINDINGS

EXAMPLES = Path(__file__).resolve().parents[2] / "reports" / "examples"
CLAIM_RUNS = ("prove", "search", "reproduce")
#: replays that re-draw samples or re-run a long exact search (seconds to minutes each)
SLOW_CHECKS = ("blackbox", "float-bits", "float_bits", "freegap.bits", "certify.")


def _refutations() -> list:
    out = []
    for rep_path in sorted(EXAMPLES.glob("*/report.json")):
        rep = json.loads(rep_path.read_text(encoding="utf-8"))
        for f in rep["findings"]:
            if f["verdict"] not in ("refuted", "refuted-under-reading"):
                continue
            cx = rep_path.parent / "counterexamples" / f"{f['id']}.json"
            secret = rep_path.parent / "confidential" / "counterexamples" / f"{f['id']}.json"
            cx = secret if secret.is_file() else cx  # a run on confidential data
            run = rep_path.parent.name
            slow = (not run.startswith(CLAIM_RUNS)
                    or any(s in f["id"] for s in SLOW_CHECKS)
                    or any(s in str(f["counterexample"].get("check", "")) for s in SLOW_CHECKS))
            marks = [pytest.mark.slow] if slow else []
            out.append(pytest.param(cx, id=f"{run}/{f['id']}", marks=marks))
    return out


def test_there_are_refutations_to_replay() -> None:
    assert len(_refutations()) >= 100


@pytest.mark.parametrize("cx", _refutations())
def test_refutation_replays(cx: Path, capsys: pytest.CaptureFixture) -> None:
    assert cx.is_file(), f"refuted finding without a counterexample file: {cx}"
    code = main(["replay", str(cx)])
    out = capsys.readouterr()
    assert code == EXIT_FINDINGS, (cx, code, out.out[-600:], out.err[-600:])
    assert "STILL FAILS" in out.out
