"""``dpaudit certify``: bad input writes nothing, a small real run writes json/md/html with a
verdict, confidential records never appear in the report, broken constants are caught."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from audit.cli import EXIT_BAD_INPUT, main


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _csv(tmp_path: Path, values: np.ndarray, name: str = "inc.csv") -> Path:
    f = tmp_path / name
    f.write_text("income\n" + "\n".join(repr(float(v)) for v in values) + "\n")
    return f


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["/nonexistent/x.csv", "--lower", "0", "--upper", "1"], "/nonexistent/x.csv"),
        (["--epsilon", "-1"], "-1"),
        (["--epsilon", "0"], "epsilon"),
        (["--gamma", "1"], "gamma"),
        (["--sample", "nope"], "nope"),
        (["--upper", "10"], "above the upper bound"),
        (["--lower", "5"], "below the lower bound"),
        (["--lower", "3", "--upper", "2"], "upper"),
    ],
)
def test_bad_input_one_line_no_report(
    argv: list[str], needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "out"
    code, out, err = _run(["certify", *argv, "--out", str(out_dir)], capsys)
    assert code == EXIT_BAD_INPUT
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], err
    assert not out_dir.exists()  # nothing written


def test_csv_needs_bounds_and_numeric_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = _csv(tmp_path, np.array([1.0, 2.0, 3.0]))
    code, _, err = _run(["certify", str(f), "--out", str(tmp_path / "o")], capsys)
    assert code == EXIT_BAD_INPUT and "--lower and --upper" in err
    bad = tmp_path / "bad.csv"
    bad.write_text("income\n1\nabc\n")
    code, _, err = _run(
        ["certify", str(bad), "--lower", "0", "--upper", "5", "--out", str(tmp_path / "o")],
        capsys,
    )
    assert code == EXIT_BAD_INPUT and "abc" in err and "line 3" in err
    assert not (tmp_path / "o").exists()
