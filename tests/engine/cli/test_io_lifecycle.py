"""Every record read, every run ends with the truth: input and run-lifecycle cases from a
hostile-user pass (each fails on the code before the fix).

``BAD_INPUT`` is the table of the closing note: argv -> exit code 2 -> a piece of the one
stderr line; nothing may be written.  The other tests cover runs that must end with an
honest outcome (never PASS when nothing was checked or measured), complete reports on
interrupts and time-outs, the report folder lock, and help texts.

Statistical runs are seeded; the correct mechanisms are Laplace sums whose true epsilon is
known in closed form (|f(D) - f(D')| / b), the broken twin halves the noise scale.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from audit.cli import main
from tests.common.paths import ROOT

MODULE = textwrap.dedent('''
    import time
    import numpy as np

    def noisy_sum(data, size, rng):
        return float(np.sum(data)) + rng.laplace(0.0, 1.0, size)

    def noisy_sum_half(data, size, rng):
        return float(np.sum(data)) + rng.laplace(0.0, 0.5, size)

    def all_nan(data, size, rng):
        return np.full(size, np.nan)

    def all_inf(data, size, rng):
        return np.full(size, np.inf) * np.where(rng.random(size) < 0.5, 1, -1)

    def misshaped(data, size, rng):
        return rng.laplace(0.0, 1.0, (size, 2, 3))

    def too_few(data, size, rng):
        return rng.laplace(0.0, 1.0, max(1, size // 2))

    def never_returns(data, size, rng):
        time.sleep(10_000)

    def spins(data, size, rng):
        while True:
            pass

    def slow_big(data, size, rng):
        if size > 100:  # quick in the preflight, slow in the run
            time.sleep(60)
        return float(np.sum(data)) + rng.laplace(0.0, 1.0, size)

    def always_raises(data, size, rng):
        raise TypeError("wrong call")

    def legacy_seed(data, seed):
        # numpy's RandomState accepts seeds < 2**32 only (scikit-learn's random_state too)
        return float(np.sum(data)) + np.random.RandomState(seed).laplace(0.0, 1.0)
''')

SMALL = ["--max-pairs", "4", "--max-samples", "20000", "--n-select", "20000",
         "--first-batch", "1000", "--no-progress", "--no-float-bits"]


@pytest.fixture
def usermod(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    name = f"iomech_{abs(hash(str(tmp_path))) % 10**8}"
    (tmp_path / f"{name}.py").write_text(MODULE, encoding="utf-8")
    (tmp_path / f"{name}_exits.py").write_text("import sys\nsys.exit(3)\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("DPAUDIT_NO_PROGRESS", "1")
    import importlib

    return importlib.import_module(name)


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def _test_argv(mod: str, obj: str, out: Path, run_id: str, *extra: str) -> list[str]:
    return ["test", f"{mod}:{obj}", "--epsilon", "1", "--relation", "add-remove", "--lower",
            "0", "--upper", "1", *SMALL, "--out", str(out), "--run-id", run_id, *extra]


# ------------------------------------------------------------------ bad input: exit 2
#: (argv with placeholders {csv} {out} {file} {mod} {fifo} {wide} {same} {abs}, needle)
BAD_INPUT = [
    (["certify", "{csv}", "--lower", "1", "--upper", "2", "--out", "{out}", "--run-id", ""],
     "argument --run-id: must not be empty"),
    (["regress", "--out", "{out}", "--run-id", ""], "argument --run-id: must not be empty"),
    (["calibrate", "--out", "{out}", "--run-id", ""], "argument --run-id: must not be empty"),
    (["test", "{mod}:noisy_sum", "--epsilon", "1", "--lower", "0", "--upper", "1",
      "--out", "{out}", "--run-id", ""], "argument --run-id: must not be empty"),
    (["certify", "{csv}", "--lower", "1", "--upper", "2", "--out", "{out}", "--run-id",
      "r" * 300], "argument --run-id: is 300 characters long; at most 200"),
    (["test", "{mod}:noisy_sum", "--epsilon", "1", "--lower", "0", "--upper", "1",
      "--out", "{file}"], "exists and is not a folder"),
    (["test", "{mod}:noisy_sum", "--epsilon", "1", "--lower", "0", "--upper", "1",
      "--out", "{out}", "--run-id", "../x"], "argument --run-id: must be a plain folder name"),
    (["test", "{mod}:noisy_sum", "--epsilon", "1", "--lower", "0", "--upper", "1",
      "--out", "{out}", "--run-id", "{abs}"],
     "argument --run-id: must be a plain folder name"),
    (["test", "{mod}:noisy_sum", "--epsilon", "1", "--pairs", "{same}", "--out", "{out}"],
     "--pairs: pairs[0] are not neighbours under replace-one (the two data sets are "
     "identical)"),
    (["test", "{mod}_exits:f", "--epsilon", "1", "--lower", "0", "--upper", "1",
      "--out", "{out}"], "called sys.exit(3) while being imported"),
    (["test", "{mod}:always_raises", "--epsilon", "1", "--lower", "0", "--upper", "1",
      "--out", "{out}"], "raised TypeError on every one of the"),
    (["certify", "{fifo}", "--lower", "1", "--upper", "2", "--out", "{out}"],
     "is a FIFO (named pipe), not a regular file"),
    (["test", "{mod}:noisy_sum", "--epsilon", "1", "--data", "{fifo}", "--lower", "0",
      "--upper", "1", "--out", "{out}"], "is a FIFO (named pipe), not a regular file"),
    (["certify", "{csv}", "--lower", "1", "--upper", "2", "--epsilon", "9" * 5000,
      "--out", "{out}"], "999' (5,002 characters)"),
    (["certify", "{wide}", "--lower", "1", "--upper", "2", "--out", "{out}"],
     "… and 99,990 more"),
    (["regress", "--only", "zzz", "--out", "{out}"], "--only 'zzz' matches no check id"),
    (["test", "{mod}:noisy_sum", "--epsilon", "1", "--data", "{csv}", "--lower", "0",
      "--upper", "1.5", "--out", "{out}"],
     "--data: the record on data row 3 lies outside the bounds, above the upper bound 1.5"),
]


@pytest.mark.skipif(os.name != "posix", reason="FIFOs")
@pytest.mark.parametrize("argv, needle", BAD_INPUT,
                         ids=[f"{i}-{a[0]}" for i, (a, _) in enumerate(BAD_INPUT)])
def test_bad_input_is_one_line_exit_2_nothing_written(
        argv: list[str], needle: str, usermod, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    csv = tmp_path / "toy.csv"
    csv.write_text("x\n1\n1\n2\n2\n1.5\n", encoding="utf-8")
    afile = tmp_path / "a-file"
    afile.write_text("keep", encoding="utf-8")
    same = tmp_path / "same.json"
    same.write_text("[[[0, 1], [0, 1]]]", encoding="utf-8")
    wide = tmp_path / "wide.csv"
    wide.write_text(",".join(f"c{i}" for i in range(100_000)) + "\n"
                    + ",".join("1" for _ in range(100_000)) + "\n", encoding="utf-8")
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    subs = {"{csv}": str(csv), "{out}": str(tmp_path / "out"), "{file}": str(afile),
            "{mod}": usermod.__name__, "{fifo}": str(fifo), "{wide}": str(wide),
            "{same}": str(same), "{abs}": str(tmp_path / "abs")}
    args = []
    for a in argv:
        for k, v in subs.items():
            a = a.replace(k, v)
        args.append(a)
    before = _files(tmp_path)
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], err
    assert len(lines[0]) < 1000  # a long value or list is cut, never echoed whole
    assert "Traceback" not in err
    assert _files(tmp_path) == before  # nothing written (nor outside --out: tmp_path/abs)


def test_unreachable_scheduler_is_bad_input_with_the_timeout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("distributed")
    import audit.distributed as dist

    monkeypatch.setattr(dist, "CONNECT_TIMEOUT_S", 1.0)
    csv = tmp_path / "toy.csv"
    csv.write_text("x\n1\n1\n2\n2\n", encoding="utf-8")
    code = main(["certify", str(csv), "--lower", "1", "--upper", "2", "--scheduler",
                 "tcp://127.0.0.1:9", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "--scheduler 'tcp://127.0.0.1:9': no Dask scheduler answered within 1 s" in err
    assert not (tmp_path / "out").exists()


def test_replay_after_the_data_changed_is_bad_input(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "toy4.csv"
    data.write_text("x\n1\n1\n2\n2\n", encoding="utf-8")
    monkeypatch.setenv("DPAUDIT_NO_PROGRESS", "1")
    code = main(["certify", str(data), "--lower", "1", "--upper", "2", "--no-snap",
                 "--quick", "--out", str(tmp_path / "r"), "--run-id", "u"])
    capsys.readouterr()
    assert code == 1
    rep = json.loads((tmp_path / "r" / "u" / "report.json").read_text(encoding="utf-8"))
    cx = tmp_path / "r" / "u" / rep["certification"]["counterexample"]
    data.write_text("x\n1\n1\n2\n1.5\n", encoding="utf-8")  # the data changed since
    code = main(["replay", str(cx)])
    err = capsys.readouterr().err
    assert code == 2, err
    # the keyed fingerprint of the data no longer matches the one the counterexample recorded
    assert "no longer have the recorded" in err


# ------------------------------------------------------------------ data: no record lost
@pytest.mark.parametrize("text, want", [
    ("46.55\n3\n4\n", [46.55, 3.0, 4.0]),
    ("\ufeff46.55\r\n3\r\n4\r\n", [46.55, 3.0, 4.0]),
    ("1e3\n-2\n\n", [1000.0, -2.0]),
])
def test_a_headerless_file_keeps_its_first_record(tmp_path: Path, text: str,
                                                  want: list[float]) -> None:
    from audit import datasets

    f = tmp_path / "h.csv"
    f.write_text(text, encoding="utf-8", newline="")
    got = datasets.load_csv_column(f)
    assert got.tolist() == want  # the first record is data, not a column name
    assert datasets._load_careful(f, "x", None).tolist() == want  # both readers agree


@pytest.mark.parametrize("text, column, needle", [
    ("46.55\n3\n", "x", "line 1 is numbers, not a header row"),
    ("1,2\n3,4\n", None, "line 1 is numbers, not a header row, and the file has 2 "
     "columns"),
])
def test_a_headerless_file_that_cannot_be_read_names_line_1(
        tmp_path: Path, text: str, column: str | None, needle: str) -> None:
    from audit import datasets

    f = tmp_path / "h.csv"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(datasets.DataFileError, match=r"line 1 is numbers"):
        datasets.load_csv_column(f, column)
    with pytest.raises(datasets.DataFileError) as info:
        datasets._load_careful(f, "data file", column)
    assert needle in str(info.value)


def test_release_on_a_headerless_file_uses_every_record(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(0)
    x = np.round(rng.uniform(1, 100, 50), 2)
    f = tmp_path / "h.csv"
    f.write_text("\n".join(repr(float(v)) for v in x) + "\n", encoding="utf-8")
    code = main(["release", str(f), "--lower", "0", "--upper", "100", "--seed", "1"])
    out = capsys.readouterr().out
    # was n = 49: the first record became the header
    assert code == 0 and re.search(r"\bn = 50\b", out), out


# ------------------------------------------------------------------ nothing checked / measured
def test_regress_that_checked_nothing_never_passes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A suite that cannot list its checks and runs none: INCONCLUSIVE, exit 3."""
    from audit.cli.commands.regress import regress_suites as _regress_suites

    suites = _regress_suites()
    for s in suites.values():
        monkeypatch.setattr(type(s), "run", lambda *a, **k: None, raising=False)
        monkeypatch.delattr(type(s), "check_ids", raising=False)
    code = main(["regress", "--only", "zzz", "--out", str(tmp_path), "--run-id", "r"])
    out = capsys.readouterr().out
    assert code == 3, out
    rep = json.loads((tmp_path / "r" / "report.json").read_text(encoding="utf-8"))
    assert rep["outcome"]["word"] == "INCONCLUSIVE" and rep["findings"] == []
    assert "no check ran" in out and "report.html" in out


@pytest.mark.parametrize("obj, reason", [
    ("all_nan", "outputs drawn were NaN or infinite"),
    ("all_inf", "outputs drawn were NaN or infinite"),
    ("misshaped", "outputs are malformed"),
    ("too_few", "outputs are malformed"),
])
def test_nothing_measurable_is_inconclusive_with_the_reason(
        obj: str, reason: str, usermod, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(_test_argv(usermod.__name__, obj, tmp_path, obj))
    out = capsys.readouterr().out
    assert code == 3, out
    assert out.startswith("INCONCLUSIVE") and reason in out
    assert ">= inf" not in out
    rep = json.loads((tmp_path / obj / "report.json").read_text(encoding="utf-8"))
    assert rep["outcome"] == {"word": "INCONCLUSIVE", "exit_code": 3}
    assert not any(f["verdict"] == "refuted" for f in rep["findings"])


def test_seeds_fit_numpy_randomstate_by_default(usermod, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A mechanism seeding numpy's RandomState (< 2^32) runs; it was flagged as crashing on
    every pair (seeds drawn in [0, 2^63)): a harness error reported as a privacy finding."""
    code = main(_test_argv(usermod.__name__, "legacy_seed", tmp_path, "s",
                           "--max-samples", "2000", "--n-select", "2000"))
    out = capsys.readouterr().out
    assert code == 0, out
    assert "user.crash" not in out
    # widening the range is the user's choice, and then every call fails: bad input, exit 2
    code = main(_test_argv(usermod.__name__, "legacy_seed", tmp_path, "s64",
                           "--seed-bits", "64"))
    err = capsys.readouterr().err
    assert code == 2 and "int seeds in [0, 2^64)" in err


# ------------------------------------------------------------------ the report of `test`
def test_test_report_has_the_cli_word_and_no_stale_counterexample(
        usermod, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(_test_argv(usermod.__name__, "noisy_sum_half", tmp_path, "r"))
    assert code == 1
    cx = tmp_path / "r" / "counterexamples" / "user.blackbox.json"
    assert cx.exists()
    rep = json.loads((tmp_path / "r" / "report.json").read_text(encoding="utf-8"))
    assert rep["outcome"] == {"word": "FLAGGED", "exit_code": 1}
    assert "FLAGGED" in (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    code = main(_test_argv(usermod.__name__, "noisy_sum", tmp_path, "r"))
    assert code == 0
    assert not cx.exists()  # the flagged run's counterexample does not outlive it
    rep = json.loads((tmp_path / "r" / "report.json").read_text(encoding="utf-8"))
    assert rep["outcome"] == {"word": "NOT REFUTED", "exit_code": 0}
    md = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "NOT REFUTED" in md and "PASS" not in md
    capsys.readouterr()


def test_test_interrupted_leaves_a_complete_unfinished_report(
        usermod, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import audit.privacy.user_audit as ua

    d = tmp_path / "r"
    (d / "counterexamples").mkdir(parents=True)
    (d / "report.json").write_text(json.dumps({"finished": True}), encoding="utf-8")
    (d / "counterexamples" / "user.blackbox.json").write_text("{}", encoding="utf-8")

    def interrupted(*a, **k):
        raise KeyboardInterrupt("SIGTERM")

    monkeypatch.setattr(ua, "run_plan", interrupted)
    code = main(_test_argv(usermod.__name__, "noisy_sum", tmp_path, "r"))
    err = capsys.readouterr().err
    assert code == 130
    assert err.strip().splitlines()[-1].endswith(
        f"interrupted (SIGTERM); the last report written, {d / 'report.json'}, is complete "
        "and marked unfinished")
    rep = json.loads((d / "report.json").read_text(encoding="utf-8"))
    assert rep["finished"] is False and rep["command"] == "test"
    assert not (d / "counterexamples" / "user.blackbox.json").exists()


def test_an_interrupt_before_any_report_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Interrupted while reading the data (e.g. a pipe that never ends): no report exists,
    and the message must not claim one was kept."""
    from audit import datasets

    def reading(*a, **k):
        raise KeyboardInterrupt("SIGINT")

    monkeypatch.setattr(datasets, "read_csv_column", reading)
    csv = tmp_path / "toy.csv"
    csv.write_text("x\n1\n2\n", encoding="utf-8")
    code = main(["certify", str(csv), "--lower", "1", "--upper", "2", "--out",
                 str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 130
    assert "before any report was written" in err and "kept" not in err
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
@pytest.mark.parametrize("obj", ["never_returns", "spins"])
def test_max_seconds_stops_a_mechanism_that_never_returns(usermod, tmp_path: Path,
                                                          obj: str) -> None:
    """The watchdog ends the run INCONCLUSIVE (exit 3) with the report written, at most 25 %
    (>= 1 s) after --max-seconds; the verdict is a time-out, never a pass."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path]),
           "DPAUDIT_NO_PROGRESS": "1"}
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "audit.cli",
                        *_test_argv(usermod.__name__, obj, tmp_path, "t", "--max-seconds",
                                    "2")], capture_output=True, text=True, env=env,
                       timeout=120)
    assert p.returncode == 3, p.stderr
    assert time.perf_counter() - t0 < 60
    rep = json.loads((tmp_path / "t" / "report.json").read_text(encoding="utf-8"))
    assert rep["finished"] is True and rep["outcome"]["word"] == "INCONCLUSIVE"
    assert "time limit" in p.stdout
    # the mechanism is blamed only because a call of it was still running
    assert "a call of the mechanism had been running for" in p.stdout


@pytest.mark.skipif(os.name != "posix", reason="flock")
def test_a_second_run_into_the_same_folder_is_refused(
        usermod, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Another process holds the report folder: exit 2, its files untouched."""
    d = tmp_path / "r"
    d.mkdir()
    (d / "report.json").write_text('{"theirs": 1}', encoding="utf-8")
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time\n"
         f"fd = os.open({str(d)!r}, os.O_RDONLY)\nfcntl.flock(fd, fcntl.LOCK_EX)\n"
         "print('locked', flush=True)\ntime.sleep(60)\n"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        code = main(_test_argv(usermod.__name__, "noisy_sum", tmp_path, "r"))
        err = capsys.readouterr().err
        assert code == 2, err
        assert "another dpaudit run is writing this report folder" in err
        assert (d / "report.json").read_text(encoding="utf-8") == '{"theirs": 1}'
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_two_real_runs_at_once_one_is_refused(usermod, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path]),
           "DPAUDIT_NO_PROGRESS": "1"}
    argv = [sys.executable, "-m", "audit.cli",
            *_test_argv(usermod.__name__, "slow_big", tmp_path, "same")]
    first = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env)
    try:
        assert first.stderr is not None
        assert first.stderr.readline().startswith("dpaudit test:")  # it holds the folder
        second = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
        assert second.returncode == 2, second.stderr
        assert "another dpaudit run is writing this report folder" in second.stderr
    finally:
        first.send_signal(signal.SIGTERM)
        first.wait(timeout=60)


# ------------------------------------------------------------------ messages and help
def test_help_texts(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["calibrate", "--help"], ["regress", "--help"], ["certify", "--help"]):
        assert main(argv) == 0
    text = capsys.readouterr().out
    cal, rest = text.split("usage: dpaudit regress", 1)
    reg, cert = rest.split("usage: dpaudit certify", 1)
    assert "%%" not in cal and "90%" in cal
    assert "verified when" not in cal and "not-refuted" in cal
    assert "report.html" in " ".join(reg.split())
    usage = cert.split("\n\n")[0]
    assert usage.count("[") == usage.count("]") and usage.count("(") == usage.count(")")
    assert "dick-et-al-subset-optimal" in usage  # the other chain's options are findable


def test_progress_bar_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from audit.cli.commands.test import StageProgress as _Progress

    buf = io.StringIO()  # a redirected stderr: not a terminal
    monkeypatch.setattr(sys, "stderr", buf)
    monkeypatch.delenv("DPAUDIT_NO_PROGRESS", raising=False)
    bar = _Progress(True)
    bar("selection", 10, 100)
    bar.close()
    assert buf.getvalue() == ""


def test_a_long_title_wraps_in_the_html_report() -> None:
    from audit.report import build_report, render_html

    html = render_html(build_report("certify", "data:sha256:" + "f" * 64, 0, [], {},
                                    "2026-01-01T00:00:00+00:00", True))
    css = html.split("<style>")[1].split("</style>")[0]
    h1 = css[css.index("h1{"):].split("}")[0]
    assert "overflow-wrap:anywhere" in h1


def test_the_architecture_is_inside_the_repository() -> None:
    root = ROOT
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert "../shared/DESIGN.md" not in readme  # the architecture is inside the repository
    assert "audit/ARCHITECTURE.md" in readme
    arch = (root / "audit" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    for topic in ("Check -> Finding -> Report", "Bad input", "Adding a subject"):
        assert topic in arch


# ------------------------------------------------------------------ one error layer
def test_library_errors_name_the_parameter_and_the_cli_the_flag(
        usermod, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from audit import test_mechanism
    from kernels.errors import InputError

    with pytest.raises(InputError) as info:
        test_mechanism(usermod.noisy_sum, epsilon=1.0, lower=1.0, upper=0.0)
    assert str(info.value).startswith("upper bound U must be > lower bound L")
    assert info.value.param == "upper"
    assert info.value.render({"upper": "--upper"}).startswith("--upper must be >")
    code = main(["test", f"{usermod.__name__}:noisy_sum", "--epsilon", "1", "--lower", "1",
                 "--upper", "0", "--out", str(tmp_path)])
    assert code == 2
    assert "error: --upper must be > lower bound L" in capsys.readouterr().err


def test_the_cli_catches_one_base_class() -> None:
    """Every bad-input error class of the engine and the subjects is an InputError."""
    from audit import datasets, protocols, registry
    from audit.cli.folders import OutputError
    from audit.privacy.user_mechanism import MechanismLoadError
    from kernels import errors
    from kernels.gini.errors import InvalidGammaError, NegativeIncomeError

    for cls in (datasets.DataFileError, datasets.UnknownSampleError, OutputError,
                protocols.KernelModuleError, registry.SubjectLoadError, MechanismLoadError,
                errors.NotNumericError, InvalidGammaError, NegativeIncomeError):
        assert issubclass(cls, errors.InputError), cls
    src = (ROOT / "audit" / "cli" / "app.py").read_text("utf-8")
    assert "_BAD_INPUT = (" not in src and "except InputError" in src


def test_kernels_errors_and_validate_name_no_subject() -> None:
    root = ROOT / "kernels"
    for name in ("errors.py", "validate.py"):
        text = (root / name).read_text(encoding="utf-8")
        for word in ("Gini", "density (10)", "income"):
            assert word not in text, (name, word)


# ------------------------------------------------------------------ calibrate --quick
def test_quick_calibration_names_a_run_it_cannot_decide(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from audit.findings import Finding, Method, Verdict
    from audit.privacy import calibration

    def fake(seed, quick, on_finding=None):
        f = Finding(id="calibration.hard-run", claim="c", reference="r",
                    method=Method.EMPIRICAL, verdict=Verdict.INCONCLUSIVE, scope="s")
        if on_finding:
            on_finding(f)
        return [f], []

    monkeypatch.setattr(calibration, "run_calibration", fake)
    code = main(["calibrate", "--quick", "--out", str(tmp_path), "--run-id", "c"])
    out = capsys.readouterr().out
    assert code == 3
    assert "undecided at the --quick size: calibration.hard-run; run without --quick" in out


def test_quick_sizes_of_the_laplace_noise_run() -> None:
    """The run the quick default could not decide at seed 6 gets sizes that decide it."""
    from audit.privacy import calibration

    run = next(r for r in calibration.all_runs() if r.key == "gini-laplace-noise")
    t = calibration._tester(run, quick=True)
    assert (t.n_select, t.n_certify) == (1_000_000, 10_000_000)


@pytest.mark.slow
def test_calibrate_quick_decides_every_run_at_its_default_seed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``dpaudit calibrate --quick`` (seed 0): every run matches its known answer, exit 0
    (was INCONCLUSIVE, exit 3: gini-laplace-noise undecided).  About a minute."""
    code = main(["calibrate", "--quick", "--out", str(tmp_path), "--run-id", "q"])
    out = capsys.readouterr().out
    assert code == 0, out
    rep = json.loads((tmp_path / "q" / "report.json").read_text(encoding="utf-8"))
    assert rep["summary"]["inconclusive"] == 0 and rep["outcome"]["word"] == "PASS"
