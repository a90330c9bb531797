"""``dpaudit test MOD:fn --data FILE`` passes the DP adversary's test: on a data set X and a
neighbour X' (same seed, same flags) every public artefact (``report.{json,md,html}``, stdout,
stderr) is byte-identical apart from the start time and the run's folder, across replace-one,
add-remove (X' = X plus one record), ``--unit`` (one unit's rows added / replaced),
``--columns`` tables, ``--max-seconds`` and a run under a pseudo-terminal (issue 37).  Each
comparison also checks that the confidential reports DO differ (the data reached the run: the
equality is not vacuous).

Also here: public file times set to the start time, the confidential folder's modes,
bad-input errors that name line and column but neither the value nor a count of records,
``--public-verdict-only``.  Leaks each test catches on cebd9d1 (the base of issue 37): the
pair count and ``pairs_source`` (records / rows), ``samples_total`` in a finding's scope, the
``wall`` time on stdout, the wall-clock scope of ``--max-seconds``, the progress bar's
elapsed time and rate on a terminal, the files' modification times and modes, a malformed
cell echoed on stderr, the count of out-of-range records.

Statistical content: the mechanisms are correct (Laplace with the right scale) and every run
is seeded; the verdicts are NOT REFUTED on both neighbours with the fixed seed (the tester's
false-alarm rate is at most 1 - confidence = 0.1 per run; with the seed fixed the outcome is
deterministic, so these tests cannot flicker).
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from audit.cli import main
from tests.common.pty_run import pty_run
from tests.common.report_attacks import PLANTED, data, normalised, write_csv

MOD = __name__
#: small budgets: every run here draws at most a few tens of thousands of outputs
FAST = ["--max-samples", "4000", "--n-select", "4000", "--first-batch", "2000",
        "--no-float-bits", "--no-progress", "--epsilon", "1", "--max-pairs", "6"]


def clipped_mean01(data, size, rng):
    """Laplace mean of records clipped to [0, 1]: replace-one sensitivity 1/n."""
    x = np.clip(np.asarray(data, dtype=float), 0.0, 1.0)
    return x.mean() + rng.laplace(0.0, 1.0 / x.size, size)


def clipped_sum(data, size, rng):
    """Laplace sum of records clipped to [0, 100]: add/remove sensitivity 100."""
    x = np.clip(np.asarray(data, dtype=float), 0.0, 100.0)
    return x.sum() + rng.laplace(0.0, 100.0, size)


def unit_count(table, size, rng):
    """Laplace count of distinct units (rows form: the unit id is column 0): sensitivity 1
    under add/remove or replacement of one unit's rows."""
    return float(len({r[0] for r in table})) + rng.laplace(0.0, 1.0, size)


def sum_first_column(table, size, rng):
    """Laplace sum of column 0 clipped to [0, 100] (array form): add/remove row
    sensitivity 100."""
    x = np.clip(np.asarray(table, dtype=float)[:, 0], 0.0, 100.0)
    return x.sum() + rng.laplace(0.0, 100.0, size)


def timed_mean(data, rng):
    """A per-call Laplace mean on [0, 100] whose time depends on the data (5 ms a call
    when a record exceeds 90, 0.5 ms otherwise): a time-limited run draws a
    data-dependent number of outputs."""
    x = np.clip(np.asarray(data, dtype=float), 0.0, 100.0)
    time.sleep(0.005 if x.max() > 90 else 0.0005)
    return float(x.mean() + rng.laplace(0.0, 100.0 / x.size))


def _run(argv: list[str], root: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    capsys.readouterr()
    code = main([*argv, "--out", str(root), "--run-id", "run"])
    out, err = capsys.readouterr()
    return {"code": code, "dir": root / "run", "root": root, "stdout": out, "stderr": err}


def _secret(run: dict) -> str:
    text = (run["dir"] / "confidential" / "report.json").read_text(encoding="utf-8")
    return re.sub(r'"(started_at|total_duration_s|duration_s)": [^,\n]*', "", text)


def assert_neighbour_invariant(runs: list[dict]) -> None:
    """Public streams equal apart from the start time / folder; confidential ones differ."""
    a, b = (normalised(r) for r in runs)
    assert set(a) == set(b)
    diff = {k: (a[k], b[k]) for k in a if a[k] != b[k]}
    assert not diff, _first_difference(diff)
    assert _secret(runs[0]) != _secret(runs[1]), "the neighbours' runs did not differ at all"


def _first_difference(diff: dict) -> str:
    out = []
    for k, (x, y) in diff.items():
        i = next((i for i, (p, q) in enumerate(zip(x, y, strict=False)) if p != q),
                 min(len(x), len(y)))
        lo = max(0, i - 150)
        out.append(f"{k}: ...{x[lo:i + 150]!r}\n  vs ...{y[lo:i + 150]!r}")
    return "\n".join(out)


def _pair(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv_of: dict) -> list[dict]:
    runs = [_run(argv, tmp_path / k, capsys) for k, argv in argv_of.items()]
    for r in runs:
        assert r["code"] in (0, 1, 3), r["stderr"][-2000:]
    return runs


def test_replace_one_pair_count_not_public(tmp_path: Path, capsys) -> None:
    """A 0/1 column: X all 0 has one distinct replace-one neighbour (a 0 replaced by 1), X'
    with one 1 has two; the public report said "pairs": 1 vs 2 and "12000 vs 24000 outputs
    drawn" on cebd9d1, and stdout carried the wall time."""
    csvs = {}
    for k, ones in (("X", 0), ("X1", 1)):
        csvs[k] = tmp_path / f"{k}.csv"
        csvs[k].write_text("x\n" + "0\n" * (30 - ones) + "1\n" * ones, encoding="utf-8")
    runs = _pair(tmp_path, capsys, {k: ["test", f"{MOD}:clipped_mean01", "--data", str(p),
                                        "--column", "x", "--lower", "0", "--upper", "1",
                                        *FAST] for k, p in csvs.items()})
    assert_neighbour_invariant(runs)
    secrets_ = [json.loads((r["dir"] / "confidential" / "report.json").read_text())
                for r in runs]
    counts = [s["parameters"]["confidential"]["pairs"] for s in secrets_]
    # moved, not lost: the count is data-dependent (X' has more distinct neighbours)
    assert counts[1] > counts[0] >= 1, counts
    assert "wall" not in runs[0]["stdout"]
    _assert_times_and_modes(runs[0])


def test_add_remove_record_count_not_public(tmp_path: Path, capsys) -> None:
    """add/remove: X' = X plus one record; ``pairs_source`` printed "35 records" vs "36
    records" on cebd9d1."""
    x = data(35)
    xs = {"X": x, "X1": np.append(x, 42.42)}
    runs = _pair(tmp_path, capsys, {
        k: ["test", f"{MOD}:clipped_sum", "--data", str(write_csv(tmp_path / f"{k}.csv", v)),
            "--column", "income", "--lower", "0", "--upper", "100", "--relation",
            "add-remove", *FAST] for k, v in xs.items()})
    assert_neighbour_invariant(runs)


def _table(path: Path, extra: str = "", swap: tuple[str, str] | None = None) -> Path:
    rows = [f"u{i // 3},{10 + 7 * i % 80},{20 + i % 50}" for i in range(24)]
    text = "user_id,income,age\n" + "\n".join(rows) + "\n" + extra
    if swap:
        text = text.replace(*swap)
    path.write_text(text, encoding="utf-8")
    return path


def test_unit_add_remove_row_count_not_public(tmp_path: Path, capsys) -> None:
    """``--unit``: X' = X plus one unit's two rows; ``pairs_source`` printed the table's
    row count (24 vs 26 rows) on cebd9d1."""
    tables = {"X": _table(tmp_path / "X.csv"),
              "X1": _table(tmp_path / "X1.csv", "u99,55,40\nu99,66,41\n")}
    runs = _pair(tmp_path, capsys, {
        k: ["test", f"{MOD}:unit_count", "--data", str(p), "--columns", "user_id,income",
            "--unit", "user_id", "--form", "rows", "--relation", "add-remove", *FAST]
        for k, p in tables.items()})
    assert_neighbour_invariant(runs)


@pytest.mark.slow
def test_unit_replace_one_not_public(tmp_path: Path, capsys) -> None:
    """``--unit`` under replace-one: one unit's rows replaced (its values changed)."""
    tables = {"X": _table(tmp_path / "X.csv"),
              "X1": _table(tmp_path / "X1.csv", swap=("u2,52,26", "u2,99,26"))}
    assert tables["X"].read_text() != tables["X1"].read_text()
    runs = _pair(tmp_path, capsys, {
        k: ["test", f"{MOD}:unit_count", "--data", str(p), "--columns", "user_id,income",
            "--unit", "user_id", "--form", "rows", *FAST] for k, p in tables.items()})
    assert_neighbour_invariant(runs)


def test_columns_table_row_added_not_public(tmp_path: Path, capsys) -> None:
    """``--columns`` (array form), X' = X plus one row: the public report named the row
    count (24 vs 25 rows) on cebd9d1."""
    tables = {"X": _table(tmp_path / "X.csv"),
              "X1": _table(tmp_path / "X1.csv", "u99,55,40\n")}
    runs = _pair(tmp_path, capsys, {
        k: ["test", f"{MOD}:sum_first_column", "--data", str(p), "--columns", "income,age",
            "--relation", "add-remove", *FAST] for k, p in tables.items()})
    assert_neighbour_invariant(runs)


def test_max_seconds_scope_not_public(tmp_path: Path, capsys) -> None:
    """``--max-seconds 1`` with a mechanism whose time depends on the data: the run ends
    by the clock (INCONCLUSIVE, never a pass).  cebd9d1 put the wall-clock seconds in the
    public scope and on stdout ("stopped by the time limit after 2.0 s", "wall 2.0 s");
    now no clock reading is public and the public report says only the limit.  (Mostly
    sleep: about 2 s of wall time per run, little CPU.)"""
    x = np.append(np.linspace(1.0, 50.0, 29), 95.0)  # X' = X with the 95 replaced by 45
    xs = {"X": x, "X1": np.where(x == 95.0, 45.0, x)}
    runs = _pair(tmp_path, capsys, {
        k: ["test", f"{MOD}:timed_mean", "--data", str(write_csv(tmp_path / f"{k}.csv", v)),
            "--column", "income", "--lower", "0", "--upper", "100", "--max-seconds", "1",
            "--max-samples", "1000000", "--n-select", "200", "--first-batch", "100",
            "--no-float-bits", "--no-progress", "--epsilon", "1", "--max-pairs", "2"]
        for k, v in xs.items()})
    assert all(r["code"] == 3 for r in runs)  # a time-out is never a pass
    for name, text in normalised(runs[0]).items():
        assert not re.search(r"\d+\.\d+ s\b", text), (name, re.findall(r".{60}\d+\.\d+ s", text))
    assert "--max-seconds 1" in (runs[0]["dir"] / "report.json").read_text()
    assert_neighbour_invariant(runs)


@pytest.mark.slow
def test_terminal_progress_not_public(tmp_path: Path) -> None:
    """Under a pseudo-terminal (progress shown): the bar's elapsed time and draws/s (and
    the stage's draw counts) reached the terminal on cebd9d1."""
    x = data(30)
    texts = []
    for k, v in (("X", x), ("X1", np.where(x == PLANTED[0], 5.55, x))):
        csv = write_csv(tmp_path / f"{k}.csv", v)
        texts.append(pty_run(
            ["test", f"{MOD}:clipped_sum", "--data", str(csv), "--column", "income",
             "--lower", "0", "--upper", "100", "--max-samples", "4000", "--n-select",
             "4000", "--first-batch", "2000", "--no-float-bits", "--epsilon", "1",
             "--max-pairs", "2", "--out", str(tmp_path / k), "--run-id", "run"], tmp_path))
    a, b = (t.replace(str(tmp_path / k), "<OUT>") for t, k in zip(texts, ("X", "X1"),
                                                                    strict=True))
    assert "dpaudit test" in a and "report" in a, a[-2000:]
    assert a == b, _first_difference({"terminal": (a, b)})


def _assert_times_and_modes(run: dict) -> None:
    """Public files (and the run folder) carry the start time as their modification time;
    the confidential folder is 0700 and every file under it 0600."""
    d = run["dir"]
    started = json.loads((d / "report.json").read_text())["timing"]["started_at"]
    t = datetime.fromisoformat(started).timestamp()
    public = [d / n for n in ("report.json", "report.md", "report.html")]
    for p in [*public, d]:
        assert p.stat().st_mtime == t, (p, p.stat().st_mtime, t)
    conf = d / "confidential"
    assert stat.S_IMODE(conf.stat().st_mode) == 0o700
    files = [p for p in conf.rglob("*") if p.is_file()]
    assert files
    for p in files:
        assert stat.S_IMODE(p.stat().st_mode) == 0o600, p
    for p in conf.rglob("*"):
        if p.is_dir():
            assert stat.S_IMODE(p.stat().st_mode) == 0o700, p


def test_confidential_modes_tightened_on_an_existing_folder(tmp_path: Path, capsys) -> None:
    """A report folder left by an earlier run with 0644 confidential files and a 0755
    folder: the new run leaves 0600 / 0700 (atomic writes used to keep the old mode)."""
    csv = tmp_path / "X.csv"
    csv.write_text("x\n" + "0\n" * 29 + "1\n", encoding="utf-8")
    argv = ["test", f"{MOD}:clipped_mean01", "--data", str(csv), "--column", "x", "--lower",
            "0", "--upper", "1", *FAST]
    conf = tmp_path / "r" / "run" / "confidential"
    conf.mkdir(parents=True)
    (conf / "report.json").write_text("{}")
    os.chmod(conf / "report.json", 0o644)
    os.chmod(conf, 0o755)
    run = _run(argv, tmp_path / "r", capsys)
    assert run["code"] == 0, run["stderr"]
    _assert_times_and_modes(run)


# --------------------------------------------------------------------------- bad input
def _bad(tmp_path: Path, capsys, name: str, body: str, *argv: str) -> str:
    p = tmp_path / f"{name}.csv"
    p.write_text(body, encoding="utf-8")
    capsys.readouterr()
    code = main(["test", f"{MOD}:clipped_sum", "--data", str(p), *argv, *FAST, "--out",
                 str(tmp_path / name)])
    err = capsys.readouterr().err.replace(str(p), "<FILE>")
    assert code == 2, err
    assert not (tmp_path / name).exists()  # nothing written
    return err


def test_malformed_cell_named_by_line_and_column_not_echoed(tmp_path: Path, capsys) -> None:
    """A name in a numeric column: the error names line 4 and column income and says what
    is wrong, never the cell (cebd9d1 echoed 'Alice Smith')."""
    errs = [_bad(tmp_path, capsys, k, f"income\n1\n2\n{cell}\n3\n", "--column", "income",
                 "--lower", "0", "--upper", "100")
            for k, cell in (("a", "Alice Smith"), ("b", "Bob Jones"))]
    assert errs[0] == errs[1], errs
    assert "line 4" in errs[0] and "income" in errs[0] and "not a number" in errs[0], errs[0]
    assert "Alice" not in errs[0]


def test_out_of_range_error_gives_no_count(tmp_path: Path, capsys) -> None:
    """Records outside [L, U]: X with one, X' with two: the error was 'has 1 record(s)'
    vs 'has 2 record(s)' on cebd9d1; now it names the first one's line only."""
    errs = [_bad(tmp_path, capsys, k, body, "--column", "income", "--lower", "0", "--upper",
                 "100") for k, body in (("a", "income\n1\n250\n3\n4\n"),
                                        ("b", "income\n1\n250\n3\n777\n"))]
    assert errs[0] == errs[1], errs
    assert "data row 2" in errs[0] and "250" not in errs[0], errs[0]


def test_table_cell_errors_name_row_and_column_not_value(tmp_path: Path, capsys) -> None:
    """A table whose cell overflows ('1e999' vs '-1e999'), and one with a ragged row: the
    errors name the row (and column) and what is wrong, never a cell (cebd9d1 echoed the
    cell, and the whole ragged row)."""
    errs = []
    for k, body in (("a", "user_id,income\nu1,10\nu2,1e999\n"),
                    ("b", "user_id,income\nu1,10\nu2,-1e999\n"),
                    ("c", "user_id,income\nu1,10\nAlice,55,x\n")):
        p = tmp_path / f"{k}.csv"
        p.write_text(body, encoding="utf-8")
        capsys.readouterr()
        code = main(["test", f"{MOD}:unit_count", "--data", str(p), "--columns",
                     "user_id,income", "--form", "rows", *FAST, "--out", str(tmp_path / k)])
        errs.append(capsys.readouterr().err.replace(str(p), "<FILE>"))
        assert code == 2 and not (tmp_path / k).exists(), errs[-1]
    assert errs[0] == errs[1], errs
    assert "row 2, column 'income' is not a finite number" in errs[0], errs[0]
    assert "row 2 has 3 cells" in errs[2] and "Alice" not in errs[2], errs[2]


# --------------------------------------------------------------- --public-verdict-only
def test_public_verdict_only_keeps_the_overall_verdict(tmp_path: Path, capsys) -> None:
    """``--public-verdict-only``: the public report keeps the overall outcome and no
    per-finding verdict; the confidential report keeps everything; the residual names the
    per-link verdict vector when the flag is absent."""
    csv = tmp_path / "X.csv"
    csv.write_text("x\n" + "0\n" * 29 + "1\n", encoding="utf-8")
    base = ["test", f"{MOD}:clipped_mean01", "--data", str(csv), "--column", "x", "--lower",
            "0", "--upper", "1", *FAST]
    full = _run(base, tmp_path / "a", capsys)
    only = _run([*base, "--public-verdict-only"], tmp_path / "b", capsys)
    pub_full = json.loads((full["dir"] / "report.json").read_text())
    pub_only = json.loads((only["dir"] / "report.json").read_text())
    assert "per-link verdict" in pub_full["confidentiality"]["residual"]
    assert pub_full["findings"]
    assert pub_only["findings"] == []
    assert set(pub_only["summary"]) == {"pass"}
    assert pub_only["outcome"] == pub_full["outcome"]
    assert "user.blackbox" not in only["stdout"] and "user.blackbox" in full["stdout"]
    assert "user.blackbox" not in (only["dir"] / "report.md").read_text()
    secret = json.loads((only["dir"] / "confidential" / "report.json").read_text())
    assert [f["id"] for f in secret["findings"]] == [f["id"] for f in pub_full["findings"]]
