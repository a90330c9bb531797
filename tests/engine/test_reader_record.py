"""The reader's record in the confidential report (issue 39): ``certify`` and ``test --data``
keep what the CSV reader read (column named and read, records read, the file's data lines
counted by Python's csv module) in their confidential report, never in the public one, and
a run that audited other records than the reader read ends INCONCLUSIVE with the reasons.

Truths: the files are written here (their data lines and column are known by
construction); the departures are injected as a pipeline bug would make them (one record
dropped after the read, the record of another column), each against the unmutated run.
On neighbouring files (one record changed) certify's public streams are identical apart
from the start time (tests/common/report_attacks.normalised) while the confidential
reports differ.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from audit import datasets
from audit.cli import main
from audit.reader_record import PUBLIC_REASON, reader_problems
from tests.common.report_attacks import normalised

MOD = __name__
REC = {"column_named": "x", "column": "x", "n": 40, "data_lines": 40,
       "compared": "every record"}


def test_reader_problems_name_every_departure() -> None:
    assert reader_problems(REC, "x", 40) == []
    assert reader_problems(None, "x", 40) == []  # nothing read by the reader: nothing to say
    assert reader_problems({**REC, "column": "y"}, "x", 40) == [
        "the reader read column 'y', the user named 'x'"]
    assert reader_problems({**REC, "column_named": None}, "x", 40) == [
        "the reader was asked for column None, the user named 'x'"]
    assert reader_problems({**REC, "data_lines": 41}, "x", 40) == [
        "40 records read from a file of 41 data lines"]
    assert reader_problems(REC, "x", 39) == ["the run audited 39 records, the reader read 40"]


def _csv(path: Path, values: list[float]) -> Path:
    # a decoy column first: reading the wrong one would show in the record
    path.write_text("id,x\n" + "".join(f"{i},{v:.3f}\n" for i, v in enumerate(values)),
                    encoding="utf-8")
    return path


def _values() -> list[float]:
    return np.random.default_rng(3).uniform(1.0, 99.0, 40).round(3).tolist()


def _certify(data: Path, root: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    capsys.readouterr()
    code = main(["certify", "--data", str(data), "--column", "x", "--lower", "0", "--upper",
                 "100", "--epsilon", "1", "--quick", "--out", str(root), "--run-id", "run"])
    out, err = capsys.readouterr()
    return {"code": code, "dir": root / "run", "root": root, "stdout": out, "stderr": err}


def _input(run: dict, part: str) -> dict:
    path = run["dir"] / ("confidential/report.json" if part == "secret" else "report.json")
    rep = json.loads(path.read_text(encoding="utf-8"))
    return next(f for f in rep["findings"] if f["id"] == "certify.input")


def test_certify_keeps_the_record_confidential_on_neighbouring_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    xs = _values()
    ys = [*xs[:7], 50.0, *xs[8:]]  # one record replaced
    runs = [_certify(_csv(tmp_path / f"{k}.csv", v), tmp_path / k, capsys)
            for k, v in (("X", xs), ("Y", ys))]
    for r in runs:
        assert r["code"] == 0, r["stderr"][-2000:]
        sec = _input(r, "secret")
        assert sec["confidential"]["reader"] == {**REC, "n": 40, "data_lines": 40}
        assert sec["confidential"]["reader_problems"] == []
        pub = (r["dir"] / "report.json").read_text(encoding="utf-8")
        assert "data_lines" not in pub and "column_named" not in pub
        assert "reader's record" in _input(r, "public")["scope"]
    a, b = (normalised(r) for r in runs)
    assert a == b  # public streams identical apart from the start time
    assert _input(runs[0], "secret") != _input(runs[1], "secret")  # the data did differ


def test_certify_of_other_records_than_read_is_inconclusive(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    real = datasets.read_csv_column

    def one_fewer(path, column=None):  # noqa: ANN001, ANN202 - a bug after the read
        x, rec = real(path, column)
        return x[:-1].copy(), rec

    monkeypatch.setattr(datasets, "read_csv_column", one_fewer)
    r = _certify(_csv(tmp_path / "X.csv", _values()), tmp_path / "X", capsys)
    assert r["code"] == 3 and "INCONCLUSIVE" in r["stdout"]
    sec = _input(r, "secret")
    assert sec["verdict"] == "inconclusive"
    assert sec["confidential"]["reader_problems"] == [
        "the run audited 39 records, the reader read 40"]
    pub = _input(r, "public")
    assert PUBLIC_REASON in pub["scope"] and "reader read" not in json.dumps(pub)


def noisy_mean(data, size, rng):  # noqa: ANN001, ANN201 - a correct user mechanism
    x = np.clip(np.asarray(data, dtype=float), 0.0, 100.0)
    return x.mean() + rng.laplace(0.0, 100.0 / x.size, size)


FAST = ["--max-samples", "2000", "--n-select", "2000", "--no-float-bits", "--no-exact",
        "--no-progress", "--epsilon", "1", "--max-pairs", "4", "--fixed", "--lower", "0",
        "--upper", "100"]


@pytest.mark.parametrize("bug", [None, "other-column"])
def test_test_data_keeps_the_record_and_a_departure_is_inconclusive(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, bug: str | None) -> None:
    if bug:  # the record of another column than the one named (a reader bug's trace)
        real = datasets.read_csv_column

        def other(path, column=None):  # noqa: ANN001, ANN202
            x, rec = real(path, column)
            return x, {**rec, "column": "id"}

        monkeypatch.setattr(datasets, "read_csv_column", other)
    data = _csv(tmp_path / "X.csv", _values())
    code = main(["test", f"{MOD}:noisy_mean", "--data", str(data), "--column", "x", *FAST,
                 "--out", str(tmp_path), "--run-id", "run"])
    secret = json.loads((tmp_path / "run" / "confidential" / "report.json").read_text())
    public = (tmp_path / "run" / "report.json").read_text()
    assert "data_lines" not in public and "'id'" not in public
    reader = secret["parameters"]["confidential"]["reader"]
    ids = [f["id"] for f in secret["findings"]]
    if bug is None:
        assert code == 0 and reader == {**REC, "n": 40, "data_lines": 40}
        assert "user.reader" not in ids
    else:
        assert code == 3 and "user.reader" in ids
        f = next(f for f in secret["findings"] if f["id"] == "user.reader")
        assert f["verdict"] == "inconclusive"
        assert f["confidential"]["reader_problems"] == [
            "the reader read column 'id', the user named 'x'"]
