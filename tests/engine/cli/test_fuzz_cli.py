"""Fuzzing the command line: hypothesis builds argv for every command and small CSV files
(encodings, separators, quoting, blanks, extreme numbers, paths with spaces and unicode) and
runs ``audit.cli.main`` in-process.  Every run must

* return a documented exit code (:data:`audit.cli.outcomes.EXIT_CODES`);
* print no traceback, and exactly one stderr line when it is bad input (exit 2);
* write nothing outside its ``--out`` folder (or the default ``reports/`` of the working
  directory when ``--out`` is not given);
* leave no half-written report: every ``report.json`` parses, has ``finished``, sits next to
  its ``report.md``, and no temporary file is left behind.

The long-running parts (the certify chain, calibration, claims, regress suites) are
replaced by fast fakes that return one finding, so the fuzz exercises the doors, the data
reading and the report writing (the real chains have their own tests).  Default run: 120
examples (a few seconds); ``-m slow`` runs 1,500.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit.cli import main
from audit.cli.outcomes import EXIT_CODES

COMMANDS = ["certify", "release", "calibrate", "regress", "replay", "prove", "search",
            "reproduce", "subjects"]

NUMBERS = ["1", "2", "0", "-1", "1.5", "1e9", "1e308", "1e309", "-0", "nan", "inf", "-inf",
           "abc", "", " 3", "0x10", "1_000", "١", "2e-320", "100", "0.5", "3"]
NAMES = ["r", "run 1", "ü-ñ", "../x", "../../x", "/tmp/abs", ".", "..", "a/b", "x\ty", "  "]
FLAGS = {
    "certify": ["--lower", "--upper", "--epsilon", "--gamma", "--seed", "--column",
                "--sample", "--constants", "--bound", "--quick", "--no-snap",
                "--show-confidential", "--data"],
    "release": ["--lower", "--upper", "--epsilon", "--epsilon-upper", "--gamma", "--seed",
                "--column", "--sample", "--clip", "--data", "--constants"],
    "calibrate": ["--seed", "--quick"],
    "regress": ["--seed", "--only", "--kernels", "--quick", "--full"],
    "replay": ["--kernels"],
    "prove": ["--budget", "--seed", "--only", "--paper", "--list"],
    "search": ["--budget", "--seed", "--only", "--list"],
    "reproduce": ["--budget", "--seed", "--list"],
    "subjects": [],
}
BOOL_FLAGS = {"--quick", "--no-snap", "--show-confidential", "--clip", "--full", "--list"}


@st.composite
def csv_files(draw: st.DrawFn) -> tuple[str, bytes]:
    """A small CSV: one or two columns, odd separators/quoting/blank lines/extreme numbers,
    several encodings; name with spaces or unicode."""
    n = draw(st.integers(0, 6))
    cells = st.one_of(
        st.sampled_from(["1", "1.5", "2", "0", "-3", "1e308", "1e-320", "nan", "", " 2 ",
                         "\"1\"", "1,5", "x", "9" * 400]),
        st.floats(0, 3, allow_nan=False).map(repr),
    )
    sep = draw(st.sampled_from([",", ";", "\t", ", "]))
    header = draw(st.sampled_from(["x", "income", "x" + sep + "y", "\"x\"", "ünï", ""]))
    rows = [sep.join(draw(st.lists(cells, min_size=1, max_size=2))) for _ in range(n)]
    text = header + "\n" + "\n".join(rows) + draw(st.sampled_from(["\n", "", "\n\n", "\r\n"]))
    enc = draw(st.sampled_from(["utf-8", "utf-8-sig", "latin-1", "utf-16"]))
    name = draw(st.sampled_from(["d.csv", "my data.csv", "dätä ü.csv", "x"]))
    try:
        raw = text.encode(enc)
    except UnicodeEncodeError:
        raw = text.encode("utf-8")
    return name, raw


@st.composite
def argvs(draw: st.DrawFn) -> tuple[str, list[str], tuple[str, bytes] | None, bool]:
    cmd = draw(st.sampled_from(COMMANDS))
    argv = [cmd]
    csv = None
    if cmd in ("certify", "release") and draw(st.booleans()):
        csv = draw(csv_files())
        argv.append("{csv}")
    if cmd == "replay":
        argv.append(draw(st.sampled_from(["{csv}", "missing.json", "{cx}"])))
        csv = draw(csv_files())
    for flag in draw(st.lists(st.sampled_from(FLAGS[cmd]), max_size=4)) if FLAGS[cmd] else []:
        argv.append(flag)
        if flag not in BOOL_FLAGS:
            argv.append("{csv}" if flag == "--data" and csv else
                        draw(st.sampled_from(NUMBERS + NAMES + ["cps91_faminc", "alg3"])))
    use_out = cmd not in ("replay", "subjects") and draw(st.booleans())
    if use_out:
        argv += ["--out", "{out}", "--run-id", draw(st.sampled_from(NAMES))]
    return cmd, argv, csv, use_out


@pytest.fixture
def fast_chains(monkeypatch: pytest.MonkeyPatch) -> None:
    """Replace the long-running checks by one quick finding each."""
    from audit import registry
    from audit.findings import Finding, Method, Verdict
    from audit.privacy import calibration
    from proofs.gini.certify import chain as cert_mod

    def one(fid: str = "fuzz.one") -> Finding:
        # not-refuted: a verified certify.input must carry a refuted twin (issue 42)
        return Finding(id=fid, claim="c", reference="r", method=Method.CROSSCHECK,
                       verdict=Verdict.NOT_REFUTED, scope="fuzz", evidence={"cases": 1})

    def fake_certify(cfg, progress=None, on_finding=None):
        cert_mod.validate(cfg)
        res = cert_mod.CertifyResult([one("certify.input")], [], None, {"n": 1}, "data:x")
        if on_finding:
            on_finding(res)
        res.certification = {"verdict": "CERTIFIED", "scope": "fuzz", "reasons": []}
        return res

    monkeypatch.setattr(cert_mod, "certify", fake_certify)
    monkeypatch.setattr(calibration, "run_calibration",
                        lambda seed, quick, on_finding=None: ([one()], []))
    real_load_all = registry.load_all

    class _FakeClaim:
        def __init__(self, c) -> None:
            self.key, self.title, self.command = c.key, c.title, c.command
            self.paper, self.reference = c.paper, getattr(c, "reference", "")

        def run(self, per: float, seed: int) -> list:
            return [one(self.key)]

    def fake_load_all(*a, **k):
        return [_FakeClaim(c) for c in real_load_all(*a, **k)]

    monkeypatch.setattr(registry, "load_all", fake_load_all)

    def fake_suite_run(self, mod, subject, seed, mode, only, on_finding):
        on_finding(1, 1, one(f"fuzz.{id(self)}"))

    from audit.cli.commands.regress import regress_suites as _regress_suites

    real_load_all()
    for suite in _regress_suites().values():
        monkeypatch.setattr(type(suite), "run", fake_suite_run, raising=False)


def _snapshot(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def _check(cmd: str, argv: list[str], csv, use_out: bool) -> None:
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        work = root / "work dir ü"
        work.mkdir()
        out = root / "out"
        cx = root / "cx.json"
        cx.write_text(json.dumps({"schema": "dpaudit.counterexample/1", "check": "nope",
                                  "inputs": {"source": {"file": "gone.csv"}}}),
                      encoding="utf-8")
        path = ""
        if csv is not None:
            path = str(root / csv[0])
            Path(path).write_bytes(csv[1])
        args = [a.replace("{csv}", path).replace("{out}", str(out)).replace("{cx}", str(cx))
                for a in argv]
        before = _snapshot(root)
        err = io.StringIO()
        old = os.getcwd()
        os.chdir(work)
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                code = main(args)
        finally:
            os.chdir(old)
        text = err.getvalue()
        assert code in EXIT_CODES, (args, code, text)
        assert "Traceback" not in text, (args, text)
        assert code != 4, (args, text)  # an internal error is a bug
        if code == 2:
            lines = [ln for ln in text.splitlines() if ln.strip()]
            assert len(lines) == 1, (args, text)
        allowed = [out] if use_out else [work / "reports"]
        for rel in _snapshot(root) - before:
            p = root / rel
            assert any(p == a or a in p.parents for a in allowed), (args, rel)
            assert not p.name.endswith(".tmp"), (args, rel)
            if p.name == "report.json":
                rep = json.loads(p.read_text(encoding="utf-8"))
                assert isinstance(rep.get("finished"), bool), (args, rel)
                assert (p.parent / "report.md").is_file(), (args, rel)
        if code == 2:
            assert _snapshot(root) == before, (args, "bad input wrote files")


@pytest.mark.usefixtures("fast_chains")
@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(argvs())
def test_fuzz_cli(case) -> None:
    _check(*case)


@pytest.mark.slow
@pytest.mark.usefixtures("fast_chains")
@settings(max_examples=1500, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(argvs())
def test_fuzz_cli_long(case) -> None:
    _check(*case)
