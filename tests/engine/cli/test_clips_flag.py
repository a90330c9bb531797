"""``dpaudit test --clips``: a mechanism that clips to [--lower, --upper] takes records
outside them, and the neighbour search puts records beyond the bounds.

Truths: the mechanism below claims the clamped sum's sensitivity U - L = 1 but sums the raw
records exactly (the clipped copy is unused, smartnoise-sdk issue 622's pattern): a record moved
1000 widths beyond U moves its output by 1000 (hand-worked), so with ``--clips`` the exact
check refutes it (exit 1, FLAGGED); without ``--clips`` a data file holding a record outside
the bounds is bad input (exit 2, nothing written).  The correct clipper with ``--clips`` is
not flagged by the exact check (its distance never exceeds 1).  Seeded black-box runs at
confidence 0.9 (false-alarm rate <= 0.1 for the correct twin's black-box part, which this
test does not assert on).
"""

from __future__ import annotations

import json
import sys
import textwrap

from audit.cli.app import main

MODULE = textwrap.dedent("""
    from fractions import Fraction

    import numpy as np

    def _make(clip):
        def total(data):  # exact: no float rounding in the aggregate
            x = np.asarray(data, dtype=float)
            x = np.clip(x, 0.0, 1.0) if clip else x
            return sum((Fraction(v) for v in x.tolist()), Fraction(0))

        def mech(data, size, rng):
            return float(total(data)) + rng.laplace(0.0, 1.0, size)
        mech.query = total
        mech.sensitivity = 1.0
        mech.epsilon = 1.0
        return mech

    raw = _make(False)
    clipped = _make(True)
""")


def _run(tmp_path, capsys, monkeypatch, obj, *extra):
    (tmp_path / "r41clip.py").write_text(MODULE, encoding="utf-8")
    (tmp_path / "d.csv").write_text("x\n0.2\n0.7\n0.4\n3.0\n0.9\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "r41clip", raising=False)
    out = tmp_path / "rep"
    code = main(["test", f"r41clip:{obj}", "--data", "d.csv", "--column", "x", "--lower", "0",
                 "--upper", "1", "--max-samples", "2000", "--first-batch", "1000",
                 "--n-select", "2000", "--no-float-bits", "--no-progress", "--out", str(out),
                 "--run-id", "r", *extra])
    return code, capsys.readouterr().err, out


def test_outside_record_without_clips_is_bad_input(tmp_path, capsys, monkeypatch):
    code, err, out = _run(tmp_path, capsys, monkeypatch, "raw")
    assert code == 2 and not out.exists()
    assert len(err.strip().splitlines()) == 1 and "clipped" in err


def _sensitivity(run_dir):
    """The user.sensitivity finding's detail (kept in the confidential report of a run on
    the holder's data)."""
    doc = json.loads((run_dir / "confidential" / "report.json").read_text("utf-8"))
    f = next(f for f in doc["findings"] if f["id"] == "user.sensitivity")
    return f["verdict"], f["confidential"]["worst"]


def test_clips_reaches_the_clipping_bug_and_spares_the_clipper(tmp_path, capsys,
                                                                monkeypatch):
    code, _, out = _run(tmp_path, capsys, monkeypatch, "raw", "--clips")
    verdict, worst = _sensitivity(out / "r")
    assert code == 1 and verdict == "refuted"
    assert worst["change"]["family"] == "clip" and worst["distance"] >= 999.0
    code, _, out = _run(tmp_path, capsys, monkeypatch, "clipped", "--clips", "--run-id", "c")
    verdict, worst = _sensitivity(out / "c")
    assert verdict != "refuted" and worst["distance"] <= 1.0 + 1e-9
