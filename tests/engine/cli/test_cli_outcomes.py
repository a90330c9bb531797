"""Outcome honesty: every command ends through the one outcome table (word + exit code),
bad ``--out``/``--run-id`` are bad input (exit 2, one line, nothing written, never outside
``--out``), a starting run replaces an earlier report before its first check, a replay of a
certify counterexample works from any working directory.

``CASES`` is the table quoted in the issue's closing note: argv -> exit code -> a piece of
the one-line message.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from audit.cli import main
from audit.cli.outcomes import EXIT_CODES, OUTCOMES

TOY = "x\n1\n1\n2\n2\n1.5\n"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def test_outcome_table_is_consistent() -> None:
    words = {o.word for o in OUTCOMES.values()}
    assert {"CERTIFIED", "NOT CERTIFIED", "INCONCLUSIVE", "PASS", "FAIL", "INTERRUPTED"} <= words
    assert OUTCOMES["certified"].code == 0 and OUTCOMES["not-certified"].code == 1
    assert OUTCOMES["inconclusive"].code == 3 and OUTCOMES["interrupted"].code == 130
    assert OUTCOMES["bad-input"].code == 2 and OUTCOMES["pass"].code == 0
    assert EXIT_CODES == {0, 1, 2, 3, 4, 5, 130}
    assert OUTCOMES["flagged-float"].code == 5 != OUTCOMES["flagged"].code


#: (argv with {csv} / {out} / {file} placeholders, exit code, piece of the one stderr line)
CASES = [
    (["certify", "{csv}", "--lower", "1", "--upper", "2", "--epsilon", "abc"], 2,
     "argument --epsilon: not a number: 'abc'"),
    (["certify", "{csv}", "--lower", "1", "--upper", "2", "--epsilon", "1e9"], 2,
     "argument --epsilon: must be > 0 and <= 100, got '1e9'"),
    (["certify", "{csv}", "--lower", "1", "--upper", "2", "--gamma", "1e9"], 2,
     "argument --gamma: must be > 1 and <= 100, got '1e9'"),
    (["certify", "{csv}", "--lower", "1", "--upper", "2", "--epsilon", "nan"], 2,
     "argument --epsilon: must be finite, got 'nan'"),
    (["certify", "{csv}", "--lower", "0", "--upper", "1e308"], 2,
     "argument --upper: must be >= -1e+100 and <= 1e+100, got '1e308'"),
    (["certify", "{csv}", "--lower", "1", "--upper", "1.5"], 2, "above --upper 1.5"),
    (["certify", "{csv}", "--lower", "1", "--upper", "2", "--out", "{file}"], 2,
     "exists and is not a folder"),
    (["certify", "{csv}", "--lower", "1", "--upper", "2", "--run-id", "../../x"], 2,
     "argument --run-id: must be a plain folder name inside --out"),
    (["certify", "{csv}", "--lower", "1", "--upper", "2", "--run-id", "/tmp/abs"], 2,
     "argument --run-id: must be a plain folder name inside --out"),
    (["certify", "{csv}", "--data", "{csv}2", "--lower", "1", "--upper", "2"], 2,
     "either DATA or --data FILE"),
    (["certify", "{csv}", "--sample", "cps91_faminc"], 2, "not both"),
    (["certify", "--column", "x"], 2, "--column needs a data file"),
    (["certify", "{csv}"], 2, "--lower and --upper are required"),
    (["release", "--data", "{csv}", "--upper", "1.5"], 2, "pass --clip"),
    (["release", "{csv}", "--lower", "1", "--upper", "2", "--gamma", "0.5"], 2, "--gamma"),
    (["calibrate", "--seed", "-3"], 2,
     "argument --seed: must be an integer in 0..2^63-1, got '-3'"),
    (["regress", "--run-id", ".."], 2,
     "argument --run-id: must be a plain folder name inside --out"),
    (["prove", "--budget", "inf"], 2, "argument --budget: must be finite, got 'inf'"),
    (["search", "--budget", "-1"], 2, "--budget must be > 0"),
    (["replay", "{csv}"], 2, "cannot read counterexample"),
    (["nope"], 2, "invalid choice"),
    ([], 2, ""),
]


@pytest.mark.parametrize("argv, code, needle", CASES)
def test_bad_input_cases(argv: list[str], code: int, needle: str, tmp_path: Path,
                         capsys: pytest.CaptureFixture[str]) -> None:
    csv = tmp_path / "toy data é.csv"
    csv.write_text(TOY, encoding="utf-8")
    Path(str(csv) + "2").write_text(TOY, encoding="utf-8")
    out = tmp_path / "out"
    afile = tmp_path / "a-file"
    afile.write_text("keep", encoding="utf-8")
    args = [a.replace("{csv}", str(csv)).replace("{file}", str(afile)) for a in argv]
    if "--out" not in args and args and args[0] in ("certify", "calibrate", "regress",
                                                    "prove", "search"):
        args += ["--out", str(out)]
    before = _files(tmp_path)
    got, stdout, err = _run(args, capsys)
    assert got == code, err
    assert "Traceback" not in err
    if args:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and needle in lines[0], err
    assert _files(tmp_path) == before  # nothing written anywhere
    assert afile.read_text(encoding="utf-8") == "keep"


def test_calibrate_word_matches_exit_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """An inconclusive calibration prints INCONCLUSIVE and exits 3 (was: PASS and exit 1)."""
    from audit.findings import Finding, Method, Verdict
    from audit.privacy import calibration

    def fake(seed, quick, on_finding=None):
        fs = [Finding(id="cal.a", claim="c", reference="r", method=Method.EMPIRICAL,
                      verdict=Verdict.NOT_REFUTED, scope="s"),  # empirical: never verified
              Finding(id="cal.b", claim="c", reference="r", method=Method.EMPIRICAL,
                      verdict=Verdict.INCONCLUSIVE, scope="s")]
        for f in fs:
            if on_finding:
                on_finding(f)
        return fs, []

    monkeypatch.setattr(calibration, "run_calibration", fake)
    code, out, _ = _run(["calibrate", "--out", str(tmp_path), "--run-id", "c"], capsys)
    assert code == 3
    assert out.splitlines()[-2].startswith("INCONCLUSIVE:")
    rep = json.loads((tmp_path / "c" / "report.json").read_text(encoding="utf-8"))
    assert rep["outcome"] == {"word": "INCONCLUSIVE", "exit_code": 3}
    assert "PASS" not in (tmp_path / "c" / "report.html").read_text(encoding="utf-8").split(
        'id="summary"')[1].split("</section>")[0]


def test_starting_run_replaces_an_earlier_report_before_its_first_check(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toy_subject,
        capsys: pytest.CaptureFixture[str]) -> None:
    """An earlier finished CERTIFIED report (and its counterexamples) is gone once a new run
    starts, even if the new run is interrupted before its first check ends (the toy
    subject's certify command, through the engine's report lifecycle)."""
    from tests.common.toy_subject import command as toy_command

    d = tmp_path / "r"
    (d / "counterexamples").mkdir(parents=True)
    (d / "report.json").write_text(json.dumps({"finished": True, "certification": {
        "verdict": "CERTIFIED"}}), encoding="utf-8")
    (d / "counterexamples" / "old.json").write_text("{}", encoding="utf-8")
    csv = tmp_path / "d.csv"
    csv.write_text(TOY, encoding="utf-8")

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(toy_command, "certify_sum", interrupted)
    code, _, err = _run(["certify", "--subject", toy_subject.name, str(csv), "--lower", "1",
                         "--upper", "2", "--out", str(tmp_path), "--run-id", "r"], capsys)
    assert code == 130 and len(err.strip().splitlines()) == 1 and "interrupted" in err
    rep = json.loads((d / "report.json").read_text(encoding="utf-8"))
    assert rep["finished"] is False and rep["findings"] == [] and "certification" not in rep
    assert not (d / "counterexamples" / "old.json").exists()
    html = (d / "report.html").read_text(encoding="utf-8")
    assert "UNFINISHED" in html and ">PASS<" not in html


def test_certify_counterexample_replays_from_any_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The unsnapped release on (1, 1, 2, 2) is NOT CERTIFIED (float-bits); its counterexample
    refers to the data relative to the report folder, so replay works from elsewhere and
    is not called a paper claim."""
    data = tmp_path / "data dir"
    data.mkdir()
    (data / "toy4.csv").write_text("x\n1\n1\n2\n2\n", encoding="utf-8")
    monkeypatch.chdir(data)
    code, _, err = _run(["certify", "toy4.csv", "--lower", "1", "--upper", "2", "--no-snap",
                         "--quick", "--out", str(tmp_path / "reports"), "--run-id", "u"],
                        capsys)
    assert code == 1, err
    rep = json.loads((tmp_path / "reports" / "u" / "report.json").read_text(encoding="utf-8"))
    assert rep["outcome"]["word"] == "NOT CERTIFIED"
    cx = tmp_path / "reports" / "u" / rep["certification"]["counterexample"]
    doc = json.loads(cx.read_text(encoding="utf-8"))
    assert not os.path.isabs(doc["inputs"]["source"]["file"])  # no machine path stored
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, out, err = _run(["replay", str(cx)], capsys)
    assert code == 1, err
    assert "STILL FAILS" in out and "paper claim" not in out and "certify link" in out


@pytest.mark.parametrize("argv", [["test", "dpaudit_no_such_module_xyz:mech"],
                                  ["prove", "dpaudit_no_such_module_xyz:prog"]])
def test_a_command_leaves_sys_path_as_it_found_it(argv: list[str], tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # `test` / `prove MODULE:OBJECT` put the working directory on sys.path to import the
    # user's module; run in-process (a notebook, this suite) that must not outlive the
    # command: a later command's metadata scan opened a deleted folder of an earlier one
    import sys

    monkeypatch.setattr(sys, "path", [p for p in sys.path if p])  # no "" standing for cwd
    monkeypatch.chdir(tmp_path)
    before = list(sys.path)
    code = main(argv)
    assert code == OUTCOMES["bad-input"].code  # the module does not exist
    assert sys.path == before
    assert str(tmp_path) not in sys.path
