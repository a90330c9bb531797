"""``dpaudit regress`` never passes when it checked less than its subjects declare (issue 39).

A subject whose regress suite (or whose own kernel module) fails to import used to be left out
silently: the run over every subject printed PASS with 51 of 96 checks.  Each case here fails on
the code before the fix: the unloadable suite is an ERROR finding (exit 1, FAIL), and a suite
whose runner skips a declared check is an ERROR finding naming the count.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from audit.cli import main
from audit.cli.commands.regress import check_account, regress_suites
from tests.common.paths import ROOT

# a meta-path finder that makes one module fail to import, then the real CLI
_BLOCKED_RUN = textwrap.dedent('''
    import sys
    class _Block:
        def find_spec(self, name, path=None, target=None):
            if name == {blocked!r}:
                raise ImportError("planted import failure of " + name)
            return None
    sys.meta_path.insert(0, _Block())
    from audit.cli import main
    sys.exit(main({argv!r}))
''')


def _run_blocked(blocked: str, tmp: Path, only: str) -> tuple[int, dict, str]:
    argv = ["regress", "--only", only, "--out", str(tmp), "--run-id", "r"]
    proc = subprocess.run([sys.executable, "-c", _BLOCKED_RUN.format(blocked=blocked, argv=argv)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    rep = json.loads((tmp / "r" / "report.json").read_text(encoding="utf-8"))
    return proc.returncode, rep, proc.stdout + proc.stderr


@pytest.mark.parametrize("blocked, subject", [
    ("proofs.subset_optimal.regress", "dick-et-al-subset-optimal"),  # the suite itself
    ("kernels.freegap.api", "ding-et-al-free-gap"),  # the subject's own kernels
])
def test_a_subject_that_cannot_load_fails_the_run(blocked: str, subject: str,
                                                   tmp_path: Path) -> None:
    # --only selects one cheap check of the Liu suite; the other subjects still must load
    code, rep, out = _run_blocked(blocked, tmp_path, "liu.stat.mean")
    assert code == 1, out
    assert rep["outcome"]["word"] == "FAIL"
    errs = [f for f in rep["findings"] if f["verdict"] == "error"]
    assert [f["id"] for f in errs] == [f"regress.suite-load.{subject}"], errs
    assert "planted import failure" in errs[0]["scope"]
    assert any(f["id"] == "liu.stat.mean" for f in rep["findings"])


def test_a_runner_that_skips_a_declared_check_fails_the_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    suite = regress_suites()["liu-global-sensitivity"]
    real = type(suite).run

    def skipping(self, mod, subject, seed, mode, only, on_finding):  # drops the 2nd check
        def keep(i, total, f):
            if i != 2:
                on_finding(i, total, f)
        return real(self, mod, subject, seed, mode, only, keep)

    monkeypatch.setattr(type(suite), "run", skipping)
    code = main(["regress", "--subject", "liu-global-sensitivity", "--only", "liu.stat.",
                 "--out", str(tmp_path), "--run-id", "r"])
    capsys.readouterr()
    rep = json.loads((tmp_path / "r" / "report.json").read_text(encoding="utf-8"))
    assert code == 1
    acc = [f for f in rep["findings"] if f["id"] == "regress.check-count.liu-global-sensitivity"]
    assert len(acc) == 1 and acc[0]["verdict"] == "error"
    n_declared = len([c for c in suite.check_ids() if "liu.stat." in c])
    assert acc[0]["evidence"]["expected"] == n_declared
    assert acc[0]["evidence"]["ran"] == n_declared - 1


def test_the_count_is_taken_from_the_suite_table_not_the_runner() -> None:
    class Suite:
        def check_ids(self) -> list[str]:
            return ["a.x", "a.y", "b.z"]

    # the runner announces 1 check and runs it, but the table declares 2 matching "a.":
    # one check is missing (counted once, not once per way of seeing it)
    assert check_account("s", Suite(), "a.", {1}, 1)["missing"] == 1
    assert check_account("s", Suite(), "a.", {1, 2}, 2)["missing"] == 0
    assert check_account("s", Suite(), None, {1, 2, 3}, 3)["missing"] == 0


def test_regress_over_every_subject_runs_the_engine_self_checks(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the sampler-fit check only (the cheapest); counted in the expected-vs-run accounting
    code = main(["regress", "--only", "engine.sampler-fit", "--out", str(tmp_path),
                 "--run-id", "r"])
    capsys.readouterr()
    rep = json.loads((tmp_path / "r" / "report.json").read_text(encoding="utf-8"))
    assert code == 0
    assert [f["id"] for f in rep["findings"]] == ["engine.sampler-fit"]
    acc = {a["subject"]: a for a in rep["parameters"]["checks_expected_vs_run"]}
    assert acc["engine"]["expected"] == acc["engine"]["ran"] == 1
    # auditing one kernel module: the engine's checks are not part of the run, so an
    # --only naming only them checks nothing (bad input, exit 2)
    assert main(["regress", "--kernels", "kernels.gini.api", "--only", "engine.",
                 "--out", str(tmp_path), "--run-id", "r2"]) == 2
    assert "matches no check id" in capsys.readouterr().err
    assert not (tmp_path / "r2").exists()


def test_a_self_check_that_raises_fails_the_run_as_an_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # an engine fault inside a self-check (here an InvalidParameterError, an InputError) is
    # dpaudit's own failure on its own inputs: an ERROR finding (exit 1), never "bad input"
    from audit.privacy import sampler_fit, self_checks
    from kernels.errors import InvalidParameterError

    def broken(seed: int = 0, n: int = 0) -> None:
        raise InvalidParameterError("planted engine fault")

    monkeypatch.setitem(self_checks._CHECKS, "engine.sampler-fit",
                        (broken, sampler_fit.replay_sampler_fit))
    code = main(["regress", "--only", "engine.sampler-fit", "--out", str(tmp_path),
                 "--run-id", "r"])
    capsys.readouterr()
    rep = json.loads((tmp_path / "r" / "report.json").read_text(encoding="utf-8"))
    assert code == 1
    f = rep["findings"][0]
    assert f["id"] == "engine.sampler-fit" and f["verdict"] == "error"
    assert "planted engine fault" in f["scope"]
