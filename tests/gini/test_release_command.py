"""The ``dpaudit release`` command: default run, public/DP bounds, one-line errors."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from audit.cli import main
from audit.cli.outcomes import EXIT_BAD_INPUT, EXIT_OK


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_release_default_builtin_sample(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["release", "--seed", "3", "--show-confidential"], capsys)
    assert code == EXIT_OK, err
    m = re.search(r"DP Gini index\s+(-?\d+\.\d+)", out)
    assert m is not None
    assert "smooth sensitivity S(X)" in out and "noise scale S(X)/alpha" in out
    assert "cpssw8_earnings" in out and "replace one record" in out
    assert "1.15 total" in out  # 1 for the Gini + 0.15 for the DP upper bound
    assert "NOT private" in out  # seeded runs are flagged


def test_release_public_bounds_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "inc.csv"
    f.write_text("id,income\n1,3\n2,6\n3,7\n4,7.5\n")
    code, out, err = _run(
        ["release", "--data", str(f), "--column", "income", "--upper", "10", "--seed", "1",
         "--show-confidential"],
        capsys,
    )
    assert code == EXIT_OK, err
    assert "U = 10 (public)" in out
    assert "true Gini g(X)           0.205674" in out  # 29/141, the Section 3 toy


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["release", "--data", "/nonexistent/x.csv"], "/nonexistent/x.csv"),
        (["release", "--epsilon", "-1"], "-1"),
        (["release", "--gamma", "1"], "gamma"),
        (["release", "--sample", "nope"], "nope"),
        (["release", "--upper", "10"], "above --upper 10"),
        (["release", "--lower", "-5", "--upper", "100"], "--lower"),
    ],
)
def test_bad_input_one_line_error(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(argv, capsys)
    assert code == EXIT_BAD_INPUT
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], err


def test_non_numeric_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "bad.csv"
    f.write_text("income\n1\nabc\n")
    code, _, err = _run(["release", "--data", str(f), "--upper", "10"], capsys)
    # named by line and column, the cell never echoed (issue 37)
    assert code == EXIT_BAD_INPUT and "abc" not in err and "line 3" in err


def test_module_entry_point_runs() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "audit.cli", "release", "--seed", "0"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "DP Gini index" in proc.stdout
