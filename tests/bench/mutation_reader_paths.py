"""Driver of the engine mutants' ``reader`` run (``tests/bench/mutation_kill.py``; issue 39,
round 3): the reader's record on the input paths that bypass the single-process CSV reader,
run through dpaudit's own commands in a subprocess on a shadow tree; prints one JSON
document on stdout, ``{case: {"exit": code, "summary": [...]}}``.

* ``certify-workers``: ``dpaudit certify --quick --workers 2`` (a real LocalCluster whose
  worker processes import the shadow tree through ``PYTHONPATH``) on 40 records in column
  ``x`` of a two-column file (a decoy column ``id`` first); the summary is
  ``certify.input``'s verdict and the number of reasons in the confidential report.
* ``test-columns``: ``dpaudit test --data FILE --columns b,a`` of :func:`row_mean` (a
  correct mechanism: the mean of the first column asked for, clipped to [0, 100], +
  Laplace noise of scale 100 / n) on a 12-row table; the summary is the ids of the
  confidential findings and the number of reader reasons.

A mutant is killed when an exit code or summary differs from the unmutated tree's
(unmutated: exit 0 and no reasons in both).
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

import numpy as np


def row_mean(data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    x = np.clip(np.asarray(data, dtype=np.float64)[:, 0], 0.0, 100.0)
    return float(x.mean()) + rng.laplace(0.0, 100.0 / x.size, size)


def _run(args: list[str]) -> int:
    from audit.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            return int(main(args))
        except SystemExit as exc:  # argparse
            return int(exc.code or 0)


def _secret(out: Path, run: str) -> dict:
    try:
        return json.loads((out / run / "confidential" / "report.json").read_text())
    except (OSError, json.JSONDecodeError):
        return {}


def run_reader(work: Path) -> dict:
    out = work / "reports"
    xs = np.random.default_rng(3).uniform(1.0, 99.0, 40).round(3)
    f = work / "two-columns.csv"
    f.write_text("id,x\n" + "".join(f"{i},{v:.3f}\n" for i, v in enumerate(xs)))
    code = _run(["certify", "--data", str(f), "--column", "x", "--lower", "0", "--upper",
                 "100", "--epsilon", "1", "--quick", "--workers", "2", "--out", str(out),
                 "--run-id", "cw"])
    inp = next((g for g in _secret(out, "cw").get("findings", [])
                if g["id"] == "certify.input"), {})
    doc = {"certify-workers": {"exit": code, "summary": [
        str(inp.get("verdict")),
        f"reasons {len((inp.get('confidential') or {}).get('reader_problems') or [])}"]}}
    b = np.random.default_rng(4).uniform(1.0, 99.0, 12).round(3)
    t = work / "table.csv"
    t.write_text("id,a,b\n" + "".join(f"{i},{(i * 7) % 40}.5,{v:.3f}\n"
                                      for i, v in enumerate(b)))
    code = _run(["test", "mutation_reader_paths:row_mean", "--data", str(t), "--columns",
                 "b,a", "--epsilon", "1", "--lower", "0", "--upper", "100", "--max-samples",
                 "2000", "--n-select", "2000", "--no-float-bits", "--no-exact", "--fixed",
                 "--max-pairs", "4", "--no-progress", "--seed", "0", "--out", str(out),
                 "--run-id", "tc"])
    sec = _secret(out, "tc")
    reasons = [g for g in sec.get("findings", []) if g["id"] == "user.reader"]
    doc["test-columns"] = {"exit": code, "summary": [
        ",".join(g["id"] for g in sec.get("findings", [])),
        f"reasons {sum(len(g['confidential'].get('reader_problems', [])) for g in reasons)}"]}
    return doc


if __name__ == "__main__":
    work = Path(sys.argv[1])
    work.mkdir(parents=True, exist_ok=True)
    print(json.dumps(run_reader(work)))
