"""Mutation meta-test of dpaudit: does dpaudit itself (not pytest) catch plausible kernel bugs?

Every mutant of :data:`bench.mutations.CATALOGUE` (one source-level edit of a fresh copy of
``kernels/``) is run through dpaudit's own commands and the verdict is theirs:

* ``regress`` - the subject's regress suite (what ``dpaudit regress --kernels MODULE --quick``
  runs; called directly so a run can stop at the first refuted check): Gini mutants through
  ``<copy>.gini.api`` (``<copy>.gini.printed`` for printed.py), free-gap mutants through
  ``<copy>.freegap.api``; validate.py mutants through both.  Killed = a refuted or errored
  check (the command would exit 1).  printed.py already fails regress unmutated, so there a
  kill is any check whose verdict differs from the unmutated printed module's (full run).
* ``certify`` - :func:`proofs.gini.certify.chain.certify` (``dpaudit certify --quick``) on the
  built-in CPS sample with the mutant's ``release_gini`` through ``CertifyConfig.release``
  (the door for a third party's release; bound ``tight`` for tight.py mutants).  Killed =
  anything but CERTIFIED (the command exits 1 or 3).
* ``search`` - ``dpaudit search --paper P --only KEY`` in a subprocess whose ``kernels``
  package is the mutated copy (it shadows the real one on ``sys.path``), for the claims a
  mutant lists.  Killed = exit code != 0 (a must-hold finding refuted, or an error) or any
  finding whose verdict differs from the unmutated copy's run with the same seed.

* engine mutants (``audit/...`` files: neighbour generation, the black-box statistics,
  sequential schedule, event families, the exact-loss optimiser, CSV reading, the
  confidentiality filter) run on a *shadow tree* (copies of audit/, kernels/, proofs/ with
  the mutation, first on ``PYTHONPATH``) through their named runs (``ENGINE_RUNS`` in
  :func:`engine_run`): ``calibrate --coverage`` (quick, or ``coverage-full``: default R),
  ``calibrate --quick``, ``dpaudit test`` on known-answer twins, ``dpaudit release`` on good
  and bad CSV files, ``certify --quick`` and ``test --data`` on planted records (reports
  scanned for leaks), and ``pytest:<files>``: the default test suite's files that check the
  area, run on the shadow tree.  Killed = an exit code or a verdict/output differs from the
  unmutated tree's.
* the Dick et al. and Liu kernels: their subjects' claims (each through its own command,
  ``prove``/``search``/``reproduce``) and, once installed, their regress suites (any
  subject's suite is picked up through ``registry``).

Kill rates are printed per *area* (each subject's kernels, validate.py, and each engine
area) as well as per command, module and operator.

Usage::

    python tests/bench/mutation_kill.py                 # whole catalogue + false alarms, seeds 0-2
    python tests/bench/mutation_kill.py --only fg.      # mutants whose id starts with fg.
    python tests/bench/mutation_kill.py --seeds 0 --no-false-alarm --json out.json
    python tests/bench/mutation_kill.py --only seq.,el. --stop-at-kill --no-false-alarm
    # issue 39's table: dpaudit's commands and pytest apart, then merged (two columns)
    python tests/bench/mutation_kill.py --only st.,seq. --no-pytest --stop-at-kill \
        --no-false-alarm --json cmd.json
    python tests/bench/mutation_kill.py --only st.,seq. --pytest-only --stop-at-kill \
        --no-false-alarm --json py.json
    python tests/bench/mutation_kill.py --merge cmd.json py.json

``--stop-at-kill`` stops each mutant at its first killing run, cheapest runs first (the
kill verdicts are the same; per-command rates then cover only the runs that ran).  Time on
the shared 2-core machine (load ~9), with ``--stop-at-kill``: an engine mutant killed by a
``pytest:`` run ~20-40 s, a confidentiality run ~50 s, a Dick et al. / Liu mutant ~20-60 s
(regress); coverage runs 2-10 min each.  Run area by area (``--only``) and combine the
``--json`` files with ``--merge``.

Prints the kill rate per command and per module, every survivor (with the catalogue's
equivalence note), and the false-alarm rate of the unmutated copy over the seeds.  A mutant
counts as killed only by dpaudit's own commands; kills by ``pytest:`` runs are a separate
column of the per-area table (issue 39).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "bench"))
sys.path.insert(0, str(ROOT))

import mutations as M  # noqa: E402

GINI = "lan-reiter-2025"
FREEGAP = "ding-et-al-free-gap"
SUBSET = "dick-et-al-subset-optimal"
LIU = "liu-global-sensitivity"
#: kernel folder -> the subject that audits it
KERNEL_SUBJECT = {"gini/": GINI, "freegap/": FREEGAP, "subset_optimal/": SUBSET,
                  "global_sensitivity/": LIU}
CPS = "cpssw8_earnings"
#: per-mutant, per-command wall-clock cap (a hang counts as killed: CI would time out)
TIMEOUT_S = 240


class _Stop(BaseException):
    """Raised from ``on_finding`` to stop a suite at its first refuted check."""


class _Timeout(BaseException):
    pass


@dataclass
class CommandResult:
    command: str
    killed: bool
    detail: str
    seconds: float
    checks: list[str] = field(default_factory=list)  # the checks that killed it


@dataclass
class MutantResult:
    mutant: M.Mutant
    results: list[CommandResult]

    @property
    def killed(self) -> bool:
        """Killed by dpaudit's own commands (the issue-39 standard: pytest kills apart)."""
        return any(r.killed for r in self.results if not is_pytest(r.command))

    @property
    def killed_by_pytest(self) -> bool:
        """Killed by a ``pytest:`` run (the catalogue's test files on the shadow tree)."""
        return any(r.killed for r in self.results if is_pytest(r.command))

    @property
    def pytest_ran(self) -> bool:
        return any(is_pytest(r.command) for r in self.results)

    @property
    def commands_ran(self) -> bool:
        return any(not is_pytest(r.command) for r in self.results)


def scanned_by_bench(key: str) -> bool:
    """A result key that tests/bench/mutation_io.py computes by scanning the written
    reports (a leak it found, the public report's withheld list, the counterexample files
    written), not an exit code or a finding's verdict of dpaudit's command."""
    return key.startswith("leak:") or key in ("withheld", "test-counterexamples")


def is_pytest(command: str) -> bool:
    """A ``pytest:`` run (the catalogue's test files), not one of dpaudit's commands."""
    return command.startswith("pytest:")


def _alarm(seconds: int):
    def handler(signum, frame):  # noqa: ARG001
        raise _Timeout()

    if hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, handler)
        signal.alarm(seconds)


def _alarm_off() -> None:
    if hasattr(signal, "SIGALRM"):
        signal.alarm(0)


# ----------------------------------------------------------------------------- suites
def suites() -> dict[str, Any]:
    """Every installed subject's regress suite (a subject that gains one - e.g. Dick et al.,
    Liu - is picked up without a change here)."""
    from audit import registry

    out = {}
    for n, s in registry.subjects().items():
        if s.regress:
            try:
                out[n] = registry.resolve(s.regress)
            except registry.SubjectLoadError:
                continue
    return out


def area_of(m: M.Mutant) -> str:
    """The area a mutant belongs to (kill rates are reported per area)."""
    if m.area_name:
        return m.area_name
    for prefix, subject in KERNEL_SUBJECT.items():
        if m.file.startswith(prefix):
            return f"kernels:{subject}"
    return "kernels:validate"


def claim_command(paper: str, key: str) -> str:
    """The command (prove / search / reproduce) that runs claim ``key`` of ``paper``; ``key``
    may be a comma list (as ``--only`` takes it) of claims that run under one command."""
    from audit import registry

    by_key = {c.key: c.command for c in registry.load_all([paper])}
    missing = [k for k in key.split(",") if k not in by_key]
    if missing:
        raise KeyError(f"{paper} has no claim {missing[0]!r}")
    commands = {by_key[k] for k in key.split(",")}
    if len(commands) != 1:
        raise KeyError(f"{paper}: the claims {key!r} run under {sorted(commands)}, not one "
                       "command")
    return commands.pop()


def regress(mod: Any, subject: str, seed: int = 0, only: Iterable[str] | None = None,
            stop_first: bool = True) -> tuple[bool, dict[str, str]]:
    """Run the subject's regress suite (quick mode, as ``dpaudit regress --quick``) on
    ``mod``; ``only``: check-id substrings (one ``--only`` run each).  Returns (failed,
    {check id: verdict}) - failed is the command's FAIL (a refuted or errored check)."""
    from audit.findings import Verdict

    suite = suites()[subject]
    verdicts: dict[str, str] = {}
    bad = (Verdict.REFUTED, Verdict.ERROR)

    def on_finding(_i: int, _n: int, f: Any) -> None:
        verdicts[f.id] = f.verdict.value
        if stop_first and f.verdict in bad:
            raise _Stop()

    name = f"kernels:{getattr(mod, '__name__', mod)}"
    try:
        for o in (list(only) if only else [None]):
            suite.run(mod, name, seed, "quick", o, on_finding)
    except _Stop:
        pass
    failed = any(v in ("refuted", "error") for v in verdicts.values())
    return failed, verdicts


_CPS_DATA: Any = None


def certify_release(release_fn: Any, seed: int = 0, bound: str = "thm43") -> tuple[str, list]:
    """``dpaudit certify --quick`` on the CPS sample (L = 0, U = 100, epsilon = 1, gamma = 2)
    with ``release_fn`` as the release under audit.  Returns (verdict word, failing ids)."""
    global _CPS_DATA
    from audit import datasets
    from audit.findings import Verdict
    from proofs.gini.certify.chain import CertifyConfig, certify

    if _CPS_DATA is None:
        _CPS_DATA = datasets.load_sample(CPS)
    cfg = CertifyConfig(data=_CPS_DATA, source={"sample": CPS}, lower=0.0, upper=100.0,
                        epsilon=1.0, gamma=2.0, bound=bound, seed=seed, quick=True,
                        release=release_fn)
    res = certify(cfg)
    bad = [f.id for f in res.findings if f.verdict is not Verdict.VERIFIED
           and f.verdict.value != "not-refuted"]
    return res.certification["verdict"], bad


def search(shadow_root: Path, paper: str, key: str, seed: int, out: Path,
           budget: float = 120.0) -> tuple[int, dict[str, str]]:
    """``dpaudit <prove|search|reproduce> --paper P --only KEY`` (the claim's own command)
    with ``shadow_root/kernels`` shadowing the real package (subprocess, cwd = shadow_root;
    ``audit`` and ``proofs`` from this checkout).  Returns (exit code, {finding id:
    verdict})."""
    run_id = f"s-{key}-{seed}".replace("/", "_")
    env = dict(os.environ, PYTHONPATH=f"{shadow_root}{os.pathsep}{ROOT}",
               DPAUDIT_NO_PROGRESS="1")
    cmd = [sys.executable, "-c",
           "import sys; from audit.cli import main; sys.exit(main(sys.argv[1:]))",
           claim_command(paper, key), "--paper", paper, "--only", key, "--seed", str(seed),
           "--budget", str(budget), "--out", str(out), "--run-id", run_id]
    try:
        p = subprocess.run(cmd, cwd=shadow_root, env=env, capture_output=True, text=True,
                           timeout=TIMEOUT_S)
        code = p.returncode
    except subprocess.TimeoutExpired:
        return 124, {}
    try:
        rep = json.loads((out / run_id / "report.json").read_text())
        verdicts = {f["id"]: f["verdict"] for f in rep.get("findings", [])}
    except (OSError, json.JSONDecodeError):
        verdicts = {}
    return code, verdicts


# ------------------------------------------------------------------ engine mutants
def dpaudit(tree: Path, args: list[str], out: Path, run_id: str,
            timeout: int = TIMEOUT_S) -> tuple[int, dict[str, str], str]:
    """``dpaudit ARGS --out OUT --run-id RUN_ID`` in a subprocess on the shadow tree
    ``tree`` (its audit/kernels/proofs copies shadow the installed ones; tests/bench on the
    path for the known-answer mechanisms).  Returns (exit code, {finding id: verdict}, last
    stderr line)."""
    env = dict(os.environ, PYTHONPATH=f"{tree}{os.pathsep}{ROOT / 'tests' / 'bench'}",
               DPAUDIT_NO_PROGRESS="1")
    cmd = [sys.executable, "-c",
           "import sys; from audit.cli import main; sys.exit(main(sys.argv[1:]))",
           *args, "--out", str(out), "--run-id", run_id]
    try:
        p = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, {}, "timeout"
    try:
        rep = json.loads((out / run_id / "report.json").read_text())
        verdicts = {f["id"]: f["verdict"] for f in rep.get("findings", [])}
    except (OSError, json.JSONDecodeError):
        verdicts = {}
    tail = (p.stderr.strip().splitlines() or [""])[-1]
    return p.returncode, verdicts, tail


_MM = ROOT / "tests" / "bench" / "mutation_mechanisms.py"


def _test_neighbour_args(work: Path) -> list[tuple[str, list[str]]]:
    """``dpaudit test`` on the known-answer twins of tests/bench/mutation_mechanisms.py
    (each must be flagged: exit 1)."""
    three, two = work / "three.csv", work / "two.csv"
    three.write_text("x\n0\n0.2\n0.3\n")
    two.write_text("x\n0\n0.9\n")
    common = ["--epsilon", "1", "--lower", "0", "--upper", "1", "--no-float-bits",
              "--no-exact", "--max-samples", "20000", "--n-select", "20000", "--no-progress"]
    return [
        ("sum-replace", ["test", "mutation_mechanisms:sum_twin", "--data", str(three),
                         "--column", "x", *common]),
        ("sum-add-remove", ["test", "mutation_mechanisms:sum_twin", "--relation",
                            "add-remove", "--data", str(three), "--column", "x", *common]),
        ("max-add-remove", ["test", "mutation_mechanisms:max_twin", "--relation",
                            "add-remove", "--data", str(two), "--column", "x", *common]),
    ]


def _test_claim_args(work: Path) -> list[tuple[str, list[str]]]:
    """``dpaudit test --claim`` on the Gaussian twins of tests/bench/mutation_mechanisms.py:
    gdp:mu=1 and zcdp:rho=0.5 at the claim (not refuted, exit 0) and on the sigma-halved
    twin (true mu = 2, rho = 2: refuted, exit 1)."""
    pairs = work / "claim-pairs.json"
    pairs.write_text("[[[0.0], [1.0]]]")
    common = ["--pairs", str(pairs), "--relation", "trusted", "--max-samples", "40000",
              "--n-select", "20000", "--no-progress"]
    runs = [("gdp-at-claim", "gauss_twin", "gdp:mu=1"),
            ("gdp-half-sigma", "gauss_half_twin", "gdp:mu=1"),
            ("zcdp-at-claim", "gauss_twin", "zcdp:rho=0.5"),
            ("zcdp-half-sigma", "gauss_half_twin", "zcdp:rho=0.5")]
    return [(label, ["test", f"mutation_mechanisms:{m}", "--claim", c, *common])
            for label, m, c in runs]


def test_files(names: str) -> list[Path]:
    """The test files called ``names`` (comma list of file names, or of paths under
    ``tests/`` where a name is not unique, e.g. ``gini/test_exact_loss.py``) under
    ``tests/``; a name found nowhere (or twice) is an error of the catalogue."""
    out = []
    for nm in (x.strip() for x in names.split(",") if x.strip()):
        hits = sorted(h for h in (ROOT / "tests").rglob(nm.rsplit("/", 1)[-1])
                      if h.as_posix().endswith("/" + nm))
        if len(hits) != 1:
            raise ValueError(f"test file {nm!r} found {len(hits)} times under tests/")
        out.append(hits[0])
    return out


def _tree_tests(tree: Path) -> None:
    """Copy ``tests/`` and ``pyproject.toml`` into the shadow tree (once): pytest puts its
    *rootdir* first on ``sys.path`` (``pythonpath = ["."]`` in pyproject.toml), so a run
    rooted in this checkout imported the unmutated packages whatever ``PYTHONPATH`` said
    (the ``pytest:`` runs of issue 39's first table could not kill anything)."""
    if not (tree / "tests").exists():
        shutil.copytree(ROOT / "tests", tree / "tests",
                        ignore=shutil.ignore_patterns("__pycache__", ".hypothesis"))
    if not (tree / "pyproject.toml").exists():
        shutil.copy2(ROOT / "pyproject.toml", tree / "pyproject.toml")


def _pytest_run(name: str, tree: Path) -> tuple[str, int, dict]:
    """``python -m pytest -x FILES`` on copies of the test files inside the shadow tree,
    rooted there (:func:`_tree_tests`): the mutated ``audit``/``kernels``/``proofs`` are the
    ones imported."""
    _tree_tests(tree)
    files = [tree / f.relative_to(ROOT) for f in test_files(name.split(":", 1)[1])]
    env = dict(os.environ, PYTHONPATH=str(tree), DPAUDIT_NO_PROGRESS="1")
    cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
           "--rootdir", str(tree), "-c", str(tree / "pyproject.toml"), *map(str, files)]
    try:
        p = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True,
                           timeout=3 * TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return (name, 124, {})
    failed = [ln.split(" - ")[0].split("tests/", 1)[-1] for ln in p.stdout.splitlines()
              if ln.startswith("FAILED")]
    return (name, p.returncode, {"failed": " | ".join(failed[:3])} if failed else {})


def engine_run(name: str, tree: Path, work: Path, seed: int) -> list[tuple[str, int, dict]]:
    """One named run of ENGINE_RUNS on ``tree``: [(label, exit code, verdicts)].

    * ``coverage:<keys>``: ``calibrate --coverage --quick --only <keys>``;
    * ``coverage-full:<keys>``: the same at the cases' default R;
    * ``calibrate``: ``calibrate --quick``;
    * ``test:neighbours``: ``dpaudit test`` on the known-answer twins;
    * ``test:directions``: ``dpaudit test --fixed`` on a leak in one direction only;
    * ``test:schedule``: ``dpaudit test`` at ``--first-batch 2000 --growth 3 --max-samples
      18000`` (a schedule landing on n_max) with the float-bit kind on;
    * ``test:claims``: ``dpaudit test --claim`` gdp / zcdp on a Gaussian at the claim and
      on its sigma-halved twin;
    * ``csv`` / ``confidentiality``: ``tests/bench/mutation_io.py`` (``dpaudit release`` on
      good and bad CSV files; ``certify --quick`` on planted records, report scanned);
    * ``reader``: ``tests/bench/mutation_reader_paths.py`` (``certify --quick --workers 2``
      and ``test --data --columns``: the reader's record on the Dask and table paths);
    * ``pytest:<file>[,<file>...]``: the default test suite's files of that name (found
      anywhere under ``tests/``, so a file moved to a sub-folder is still found) run by
      pytest on the shadow tree (its ``audit``/``kernels``/``proofs`` first on the path;
      the repository's pytest configuration, so ``slow`` tests stay out): the verdict is
      pytest's exit code and the first failing test."""
    out = work / "reports"
    if name.startswith("pytest:"):
        return [_pytest_run(name, tree)]
    if name.startswith(("coverage:", "coverage-full:")):
        kind, only = name.split(":", 1)
        quick = ["--quick"] if kind == "coverage" else []
        code, v, _ = dpaudit(tree, ["calibrate", "--coverage", *quick, "--only", only,
                                    "--seed", str(seed)], out,
                             f"{kind}-{only.replace(',', '+')}-{seed}", timeout=6 * TIMEOUT_S)
        return [(name, code, v)]
    if name == "calibrate":
        code, v, _ = dpaudit(tree, ["calibrate", "--quick", "--seed", str(seed)], out,
                             f"cal-{seed}", timeout=3 * TIMEOUT_S)
        return [(name, code, v)]
    if name in ("csv", "confidentiality"):
        env = dict(os.environ, PYTHONPATH=f"{tree}{os.pathsep}{ROOT / 'tests' / 'bench'}",
                   DPAUDIT_NO_PROGRESS="1")
        wd = work / f"io-{name}"
        try:
            p = subprocess.run([sys.executable, str(ROOT / "tests" / "bench" / "mutation_io.py"),
                                name, str(wd)], cwd=tree, env=env, capture_output=True,
                               text=True, timeout=3 * TIMEOUT_S)
            doc = json.loads(p.stdout.strip().splitlines()[-1])
        except (subprocess.TimeoutExpired, json.JSONDecodeError, IndexError):
            return [(name, 124, {})]
        if name == "csv":  # one row per file: exit code, printed n / sha256 / Gini
            return [(f"csv:{k}", int(v["exit"]), {"summary": " | ".join(v["summary"]),
                                                   "error": v.get("error", "")})
                    for k, v in doc.items()]
        leaks = {f"leak:{x}": "found" for x in doc["leaks"]}
        return [(name, int(doc["exit"]),
                 {**leaks, "withheld": " | ".join(map(str, doc["withheld"])),
                  "test-exit": str(doc.get("exit_test")),
                  "test-counterexamples": " | ".join(doc.get("counterexamples_test", []))})]
    if name == "reader":  # certify --workers / test --columns: tests/bench/mutation_reader_paths
        env = dict(os.environ, PYTHONPATH=f"{tree}{os.pathsep}{ROOT / 'tests' / 'bench'}",
                   DPAUDIT_NO_PROGRESS="1")
        try:
            p = subprocess.run([sys.executable, str(ROOT / "tests" / "bench" /
                                                    "mutation_reader_paths.py"),
                                str(work / "io-reader")], cwd=tree, env=env,
                               capture_output=True, text=True, timeout=3 * TIMEOUT_S)
            doc = json.loads(p.stdout.strip().splitlines()[-1])
        except (subprocess.TimeoutExpired, json.JSONDecodeError, IndexError):
            return [(name, 124, {})]
        return [(f"reader:{k}", int(v["exit"]), {"summary": " | ".join(v["summary"])})
                for k, v in doc.items()]
    if name == "test:directions":  # the fixed schedule on a one-direction leak: flagged
        three = work / "three.csv"
        three.write_text("x\n0\n0.2\n0.3\n")
        code, v, _ = dpaudit(tree, ["test", "mutation_mechanisms:spike_twin", "--data",
                                    str(three), "--column", "x", "--epsilon", "1", "--lower",
                                    "0", "--upper", "1", "--no-float-bits", "--no-exact",
                                    "--fixed", "--max-samples", "20000", "--n-select",
                                    "20000", "--no-progress", "--seed", str(seed)], out,
                             "t-directions")
        return [(name, code, v)]
    if name == "test:claims":
        return [(f"{name}:{label}", *dpaudit(tree, [*args, "--seed", str(seed)], out,
                                             f"t-claims-{label}")[:2])
                for label, args in _test_claim_args(work)]
    if name == "test:schedule":  # a schedule a user sets; both kinds share the level
        three = work / "three.csv"
        three.write_text("x\n0\n0.2\n0.3\n")
        code, v, _ = dpaudit(tree, ["test", "mutation_mechanisms:sum_twin", "--data",
                                    str(three), "--column", "x", "--epsilon", "1", "--lower",
                                    "0", "--upper", "1", "--no-exact", "--first-batch", "2000",
                                    "--growth", "3", "--max-samples", "18000", "--n-select",
                                    "20000", "--no-progress", "--seed", str(seed)], out,
                             "t-schedule")
        return [(name, code, v)]
    if name == "regress":  # the engine's self-checks in regress (search reach, samplers)
        code, v, _ = dpaudit(tree, ["regress", "--quick", "--only", "engine.", "--seed",
                                    str(seed)], out, f"reg-{seed}", timeout=3 * TIMEOUT_S)
        return [(name, code, v)]
    if name == "test:neighbours":
        rows = []
        for label, args in _test_neighbour_args(work):
            code, v, _ = dpaudit(tree, [*args, "--seed", str(seed)], out, f"t-{label}")
            rows.append((f"{name}:{label}", code, v))
        return rows
    raise KeyError(name)


# ---------------------------------------------------------------------- per mutant
def paper_of(m: M.Mutant) -> str:
    for prefix, subject in KERNEL_SUBJECT.items():
        if m.file.startswith(prefix):
            return subject
    return GINI


def regress_targets(m: M.Mutant) -> list[tuple[str, str]]:
    """(module inside the copy, subject) pairs that ``regress`` audits for this mutant."""
    subject = paper_of(m)
    if subject in (SUBSET, LIU):
        suite = suites().get(subject)
        if suite is None:
            return []  # no regress suite installed for this subject (yet)
        mod = str(suite.default_kernels)
        return [(mod.split(".", 1)[1] if mod.startswith("kernels.") else mod, subject)]
    if m.file == "gini/printed.py":
        return [("gini.printed", GINI)]
    if m.file == "gini/tight.py":
        return [("gini.api", GINI)]  # protocol bound_A_tight (and certify --bound tight)
    if m.file == "freegap/broken.py":
        return []  # broken twins: search only
    if m.file.startswith("freegap/"):
        return [("freegap.api", FREEGAP)]
    if m.file == "validate.py":
        return [("gini.api", GINI), ("freegap.api", FREEGAP)]
    return [("gini.api", GINI)]


def certify_applies(m: M.Mutant) -> str | None:
    """The bound certify runs with, if the mutated file is on release_gini's code path."""
    on_path = {"gini/index.py", "gini/extremes.py", "gini/sensitivity.py", "gini/noise.py",
               "gini/release.py", "validate.py"}
    if m.file in on_path:
        return "thm43"
    if m.file == "gini/tight.py":
        return "tight"
    return None


def _run_cost(name: str) -> int:
    """Rough cost rank of an engine run (``--stop-at-kill`` runs the cheap ones first)."""
    # "regress" = regress --quick --only engine. (the self-checks alone: under a minute)
    for i, prefix in enumerate(("pytest:", "csv", "confidentiality", "test:", "regress",
                                "coverage:", "calibrate", "coverage-full:")):
        if name.startswith(prefix):
            return i
    return 99


class Runner:
    """Runs mutants; keeps the unmutated baselines it needs (printed, search)."""

    def __init__(self, work: Path, seed: int = 0, area_only: bool = False,
                 commands: tuple[str, ...] = ("regress", "certify", "search"),
                 stop_at_kill: bool = False, no_pytest: bool = False,
                 pytest_only: bool = False) -> None:
        self.work = work
        #: stop a mutant at its first killing run (cheapest runs first): the kill verdict is
        #: the same, the per-command rates only cover the runs that ran
        self.stop_at_kill = stop_at_kill
        #: skip pytest: runs (count only dpaudit's own commands)
        self.no_pytest = no_pytest
        #: only the pytest: runs (the kill table's pytest column)
        self.pytest_only = pytest_only
        self.seed = seed
        self.area_only = area_only
        self.commands = commands
        self._printed_base: dict[str, str] | None = None
        self._search_base: dict[tuple[str, str], tuple[int, dict[str, str]]] = {}
        self._engine_base: dict[str, list[tuple[str, int, dict]]] = {}
        self._n = 0

    def _pkg(self, m: M.Mutant | None) -> str:
        self._n += 1
        tag = "control" if m is None else m.id.replace(".", "_").replace("-", "_")
        return f"kmut{self._n}_{tag}"

    def printed_baseline(self) -> dict[str, str]:
        if self._printed_base is None:
            pkg = self._pkg(None)
            M.make_copy(self.work, pkg, None)
            mod = M.import_copy(self.work, pkg, "gini.printed")
            _, self._printed_base = regress(mod, GINI, self.seed, None, stop_first=False)
        return self._printed_base

    def search_baseline(self, paper: str, key: str) -> tuple[int, dict[str, str]]:
        if (paper, key) not in self._search_base:
            root = self.work / "shadow-control"
            if not (root / "kernels").exists():
                M.make_copy(root, "kernels", None, rename=False)
            self._search_base[(paper, key)] = search(root, paper, key, self.seed,
                                                     self.work / "reports")
        return self._search_base[(paper, key)]

    def engine_baseline(self, name: str) -> list[tuple[str, int, dict]]:
        if name not in self._engine_base:
            root = self.work / "tree-control"
            if not (root / "audit").exists():
                M.make_tree(root, None)
            wd = self.work / "engine-control"
            wd.mkdir(exist_ok=True)
            self._engine_base[name] = engine_run(name, root, wd, self.seed)
        return self._engine_base[name]

    def run_engine(self, m: M.Mutant) -> MutantResult:
        """An engine mutant through its runs; killed = an exit code or a verdict differs
        from the unmutated tree's, or a run fails (exit != 0) that the control passes."""
        out: list[CommandResult] = []
        tag = self._pkg(m)
        root = M.make_tree(self.work / f"tree-{tag}", m)
        wd = self.work / f"engine-{tag}"
        wd.mkdir(exist_ok=True)
        runs = sorted(m.runs, key=_run_cost) if self.stop_at_kill else list(m.runs)
        if self.no_pytest:
            runs = [r for r in runs if not is_pytest(r)]
        if self.pytest_only:
            runs = [r for r in runs if is_pytest(r)]
        for name in runs:
            # stop at the first kill of each column (dpaudit's commands / pytest)
            if self.stop_at_kill and any(c.killed and is_pytest(c.command) == is_pytest(name)
                                         for c in out):
                continue
            base = {lab: (c, v) for lab, c, v in self.engine_baseline(name)}
            t0 = time.perf_counter()
            rows = engine_run(name, root, wd, self.seed)
            for lab, code, v in rows:
                bc, bv = base.get(lab, (None, {}))
                diff = sorted(k for k in set(v) | set(bv) if v.get(k) != bv.get(k))
                own = [k for k in diff if not scanned_by_bench(k)]
                # a difference only the bench's own scan of the written reports sees (a
                # leak, the withheld list, the counterexample files) is not noticed by
                # the user of the command: not a kill by dpaudit's commands
                killed = code != bc or bool(own)
                detail = (f"exit {code} (unmutated {bc})"
                          + (f"; verdicts changed: {', '.join(own[:4])}" if own else "")
                          + (f"; seen only by the bench's report scan: "
                             f"{', '.join(k for k in diff if scanned_by_bench(k))[:160]}"
                             if len(own) < len(diff) else ""))
                out.append(CommandResult(lab, killed, detail, time.perf_counter() - t0,
                                         diff))
        return MutantResult(m, out)

    def run(self, m: M.Mutant) -> MutantResult:
        if m.engine:
            return self.run_engine(m)
        out: list[CommandResult] = []
        pkg = self._pkg(m)
        M.make_copy(self.work, pkg, m)
        only = m.area if (self.area_only and m.area) else None
        if "regress" in self.commands:
            for modname, subject in regress_targets(m):
                t0 = time.perf_counter()
                _alarm(TIMEOUT_S)
                try:
                    mod = M.import_copy(self.work, pkg, modname)
                    if modname == "gini.printed":
                        base = self.printed_baseline()
                        _, v = regress(mod, GINI, self.seed, only, stop_first=False)
                        diff = sorted(k for k in v if base.get(k) != v[k])
                        killed, checks = bool(diff), diff
                        detail = (f"verdicts changed vs unmutated printed: {', '.join(diff)}"
                                  if diff else "same verdicts as unmutated printed")
                    else:
                        killed, v = regress(mod, subject, self.seed, only)
                        checks = [k for k, x in v.items() if x in ("refuted", "error")]
                        detail = (f"FAIL: {', '.join(f'{k} {v[k]}' for k in checks)}" if killed
                                  else f"PASS ({len(v)} checks)")
                except _Timeout:
                    killed, checks, detail = True, [], f"timeout after {TIMEOUT_S} s"
                except Exception as exc:  # import error of the mutant = a crash of regress
                    killed, checks, detail = True, [], f"crash: {type(exc).__name__}: {exc}"
                finally:
                    _alarm_off()
                out.append(CommandResult(f"regress:{subject}", killed, detail,
                                         time.perf_counter() - t0, checks))
        bound = certify_applies(m)
        if self.stop_at_kill and any(c.killed for c in out):
            return MutantResult(m, out)
        if "certify" in self.commands and bound is not None:
            t0 = time.perf_counter()
            _alarm(TIMEOUT_S)
            try:
                rel = M.import_copy(self.work, pkg, "gini.release")
                word, bad = certify_release(rel.release_gini, self.seed, bound)
                killed, detail = word != "CERTIFIED", f"{word}" + (f": {', '.join(bad)}"
                                                                   if bad else "")
            except _Timeout:
                killed, bad, detail = True, [], f"timeout after {TIMEOUT_S} s"
            except Exception as exc:
                killed, bad, detail = True, [], f"crash: {type(exc).__name__}: {exc}"
            finally:
                _alarm_off()
            out.append(CommandResult(f"certify:{bound}", killed, detail,
                                     time.perf_counter() - t0, bad))
        if "search" in self.commands and m.search:
            root = self.work / f"shadow-{pkg}"
            M.make_copy(root, "kernels", m, rename=False)
            paper = paper_of(m)
            for key in m.search:
                if self.stop_at_kill and any(c.killed for c in out):
                    break
                t0 = time.perf_counter()
                base_code, base = self.search_baseline(paper, key)
                code, v = search(root, paper, key, self.seed, self.work / f"reports-{pkg}")
                diff = sorted(k for k in set(v) | set(base) if base.get(k) != v.get(k))
                killed = code != 0 or bool(diff)
                detail = (f"exit {code} (unmutated {base_code})"
                          + (f"; verdicts changed: {', '.join(diff[:6])}"
                             + (" ..." if len(diff) > 6 else "") if diff else ""))
                out.append(CommandResult(f"search:{key}", killed, detail,
                                         time.perf_counter() - t0, diff))
        return MutantResult(m, out)

    def control(self) -> list[CommandResult]:
        """The unmutated copy through every command and every search key of the catalogue:
        any failure is a false alarm."""
        out: list[CommandResult] = []
        pkg = self._pkg(None)
        M.make_copy(self.work, pkg, None)
        extra = [(str(su.default_kernels).split(".", 1)[1], n) for n, su in suites().items()
                 if n in (SUBSET, LIU)]
        for modname, subject in [("gini.api", GINI), ("freegap.api", FREEGAP)] + extra:
            t0 = time.perf_counter()
            mod = M.import_copy(self.work, pkg, modname)
            failed, v = regress(mod, subject, self.seed, None, stop_first=False)
            checks = [k for k, x in v.items() if x in ("refuted", "error")]
            out.append(CommandResult(f"regress:{subject}", failed,
                                     f"{len(v)} checks, failing: {checks or 'none'}",
                                     time.perf_counter() - t0, checks))
        rel = M.import_copy(self.work, pkg, "gini.release")
        for bound in ("thm43", "tight"):
            t0 = time.perf_counter()
            word, bad = certify_release(rel.release_gini, self.seed, bound)
            out.append(CommandResult(f"certify:{bound}", word != "CERTIFIED", word,
                                     time.perf_counter() - t0, bad))
        keys = sorted({(paper_of(m), k) for m in M.CATALOGUE for k in m.search})
        for paper, key in keys:
            t0 = time.perf_counter()
            code, v = self.search_baseline(paper, key)
            bad = [k for k, x in v.items() if x == "error"]
            out.append(CommandResult(f"search:{key}", code != 0, f"exit {code}",
                                     time.perf_counter() - t0, bad))
        return out


# ------------------------------------------------------------------------- tables
def kill_table(results: list[MutantResult]) -> dict[str, Any]:
    """Kill rates per command (over the mutants the command applies to), per module, and
    overall, counting kills by dpaudit's commands only; per area also the rate of the
    ``pytest:`` runs (``per_area_pytest``, over the mutants whose pytest runs ran);
    equivalent mutants are counted apart (excluded from the rate)."""
    def rate(k: int, n: int) -> str:
        return f"{k}/{n} ({100.0 * k / n:.0f}%)" if n else "-"

    live = [r for r in results if not r.mutant.equivalent]
    per_cmd: dict[str, list[int]] = {}
    for r in live:
        for c in r.results:
            name = c.command.split(":")[0]
            k, n = per_cmd.setdefault(name, [0, 0])
            per_cmd[name] = [k + c.killed, n + 1]
    per_mod: dict[str, list[int]] = {}
    for r in live:
        k, n = per_mod.setdefault(r.mutant.file, [0, 0])
        per_mod[r.mutant.file] = [k + r.killed, n + 1]
    per_area: dict[str, list[int]] = {}
    for r in live:
        k, n = per_area.setdefault(area_of(r.mutant), [0, 0])
        per_area[area_of(r.mutant)] = [k + r.killed, n + 1]
    # the pytest column: over the mutants whose pytest runs ran ("-": none ran)
    per_area_py: dict[str, list[int]] = {}
    for r in live:
        if r.pytest_ran:
            k, n = per_area_py.setdefault(area_of(r.mutant), [0, 0])
            per_area_py[area_of(r.mutant)] = [k + r.killed_by_pytest, n + 1]
    per_op: dict[str, list[int]] = {}
    for r in live:
        k, n = per_op.setdefault(r.mutant.operator, [0, 0])
        per_op[r.mutant.operator] = [k + r.killed, n + 1]
    total_k = sum(r.killed for r in live)
    return {
        "overall": rate(total_k, len(live)),
        "overall_fraction": total_k / len(live) if live else None,
        "per_command": {c: rate(*v) for c, v in sorted(per_cmd.items())},
        "per_area": {a: rate(*v) for a, v in sorted(per_area.items())},
        "per_area_fraction": {a: v[0] / v[1] for a, v in sorted(per_area.items())},
        "per_area_pytest": {a: rate(*per_area_py[a]) if a in per_area_py else "-"
                            for a in sorted(per_area)},
        "per_module": {f: rate(*v) for f, v in sorted(per_mod.items())},
        "per_operator": {o: rate(*v) for o, v in sorted(per_op.items())},
        "equivalent": [(r.mutant.id, r.killed) for r in results if r.mutant.equivalent],
        "survivors": [r.mutant.id for r in live if not r.killed],
    }


def _print_results(results: list[MutantResult], w=sys.stdout.write) -> None:
    for r in results:
        m = r.mutant
        tag = "KILLED  " if r.killed else ("equiv.  " if m.equivalent else "SURVIVED")
        py = (f" (pytest: {'killed' if r.killed_by_pytest else 'survived'})"
              if r.pytest_ran else "")
        w(f"{tag} {m.id:<32} [{m.operator}] {m.what}{py}\n")
        for c in r.results:
            w(f"           {c.command:<36} {'kill' if c.killed else 'pass':<5} "
              f"{c.seconds:6.1f} s  {c.detail[:110]}\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default=None,
                    help="mutant ids starting with this text (comma list: any of them)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the mutant runs")
    ap.add_argument("--seeds", default="0,1,2", help="false-alarm seeds (comma list)")
    ap.add_argument("--no-false-alarm", action="store_true")
    ap.add_argument("--area", action="store_true",
                    help="regress only the checks of the mutated area (faster, weaker)")
    ap.add_argument("--json", default=None, help="write the results here")
    ap.add_argument("--commands", default="regress,certify,search",
                    help="comma list of the commands to run (default all)")
    ap.add_argument("--no-pytest", action="store_true",
                    help="skip the pytest: runs (the kill table then counts only kills by "
                    "dpaudit's own commands)")
    ap.add_argument("--pytest-only", action="store_true",
                    help="run only the pytest: runs of engine mutants (the pytest column of "
                    "the kill table; merge with a --no-pytest run's --json)")
    ap.add_argument("--stop-at-kill", action="store_true",
                    help="stop each mutant at its first killing run, cheapest first (same kill "
                    "verdicts; per-command rates then cover only the runs that ran)")
    ap.add_argument("--shard", default=None, help="K/N: run every N-th mutant from the K-th "
                    "(parallel runs; combine their --json files with --merge)")
    ap.add_argument("--merge", nargs="+", default=None, help="print the tables of earlier "
                    "--json files combined (nothing is run)")
    a = ap.parse_args(argv)
    if a.merge:
        return _merge(a.merge)
    problems = M.check_anchors()
    if problems:
        print("catalogue problems:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 2
    prefixes = [p for p in (a.only or "").split(",") if p]
    todo = [m for m in M.CATALOGUE if not prefixes or any(m.id.startswith(p) for p in prefixes)]
    if a.shard:
        k, n = (int(v) for v in a.shard.split("/"))
        todo = todo[k::n]
    w = sys.stdout.write
    w(f"mutation meta-test: {len(todo)} mutants, {len(M.OPERATORS)} operators, modules "
      f"{', '.join(f'{f} ({n})' for f, n in M.modules_covered().items())}\n")
    t_all = time.perf_counter()
    results: list[MutantResult] = []
    control_rows: list[tuple[int, list[CommandResult]]] = []
    with tempfile.TemporaryDirectory(prefix="dpaudit-mut-") as tmp:
        runner = Runner(Path(tmp), a.seed, area_only=a.area,
                        commands=tuple(c.strip() for c in a.commands.split(",")),
                        stop_at_kill=a.stop_at_kill, no_pytest=a.no_pytest,
                        pytest_only=a.pytest_only)
        for i, m in enumerate(todo, 1):
            t0 = time.perf_counter()
            r = runner.run(m)
            results.append(r)
            print(f"[{i:>3}/{len(todo)}] {'killed  ' if r.killed else 'SURVIVED'} {m.id:<32} "
                  + (f"(pytest: {'killed' if r.killed_by_pytest else 'survived'}) "
                     if r.pytest_ran else "")
                  + f"{', '.join(c.command for c in r.results if c.killed) or '-'} "
                  f"({time.perf_counter() - t0:.1f} s)", file=sys.stderr, flush=True)
            if a.json:  # incremental: a long run interrupted keeps what it measured
                _dump(a.json, results, control_rows)
        if not a.no_false_alarm:
            for s in (int(x) for x in a.seeds.split(",") if x.strip()):
                ctl = Runner(Path(tmp) / f"control-{s}", s)
                (Path(tmp) / f"control-{s}").mkdir()
                rows = ctl.control()
                control_rows.append((s, rows))
                print(f"control seed {s}: "
                      f"{sum(c.killed for c in rows)} false alarms of {len(rows)} runs",
                      file=sys.stderr, flush=True)
                if a.json:
                    _dump(a.json, results, control_rows)
    w("\n== per mutant ==\n")
    _print_results(results, w)
    _print_tables(results, control_rows, w)
    w(f"\ntotal {time.perf_counter() - t_all:.0f} s\n")
    if a.json:
        _dump(a.json, results, control_rows)
    return 0


def _dump(path: str, results: list[MutantResult], control_rows: list) -> None:
    Path(path).write_text(json.dumps({
        "mutants": [{"id": r.mutant.id,
                     "commands": [{"command": c.command, "killed": c.killed,
                                   "detail": c.detail, "seconds": round(c.seconds, 2),
                                   "checks": c.checks} for c in r.results]}
                    for r in results],
        "control": [{"seed": s, "command": c.command, "killed": c.killed,
                     "detail": c.detail, "seconds": round(c.seconds, 2), "checks": c.checks}
                    for s, rows in control_rows for c in rows],
    }, indent=1))


def _load(paths: list[str]) -> tuple[list[MutantResult], list]:
    results, control = [], {}
    for p in paths:
        doc = json.loads(Path(p).read_text())
        for r in doc["mutants"]:
            results.append(MutantResult(M.by_id(r["id"]), [
                CommandResult(c["command"], c["killed"], c["detail"], c["seconds"], c["checks"])
                for c in r["commands"]]))
        for c in doc["control"]:
            control.setdefault(c["seed"], []).append(
                CommandResult(c["command"], c["killed"], c["detail"], c["seconds"], c["checks"]))
    order = {m.id: i for i, m in enumerate(M.CATALOGUE)}
    # a mutant in several files (a --no-pytest run and a --pytest-only run, or a re-run
    # after the checks changed): the union of its runs; a run present in several files is
    # taken from the later file
    best: dict[str, dict[str, CommandResult]] = {}
    for r in results:
        runs = best.setdefault(r.mutant.id, {})
        for c in r.results:
            runs[c.command] = c
    results = sorted((MutantResult(M.by_id(i), list(runs.values())) for i, runs in best.items()),
                     key=lambda r: order[r.mutant.id])
    return results, sorted(control.items())


def _merge(paths: list[str]) -> int:
    results, control_rows = _load(paths)
    w = sys.stdout.write
    w("== per mutant ==\n")
    _print_results(results, w)
    _print_tables(results, control_rows, w)
    return 0


def _print_tables(results: list[MutantResult], control_rows: list, w) -> None:
    tab = kill_table(results)
    w(f"\n== kill rate (dpaudit's own commands; equivalent mutants excluded) ==\n"
      f"overall: {tab['overall']}\n")
    w(f"per area:\n  {'area':<36} {'by dpaudit commands':<22} by pytest (catalogue's "
      "test files)\n")
    for a, v in tab["per_area"].items():
        w(f"  {a:<36} {v:<22} {tab['per_area_pytest'][a]}\n")
    w("per command (over the mutants it applies to):\n")
    for c, v in tab["per_command"].items():
        w(f"  {c:<10} {v}\n")
    w("per module:\n")
    for f, v in tab["per_module"].items():
        w(f"  {f:<24} {v}\n")
    w("per operator:\n")
    for o, v in tab["per_operator"].items():
        w(f"  {o:<20} {v}\n")
    eq = [f"{i} ({'killed' if k else 'not killed'})" for i, k in tab["equivalent"]]
    w(f"equivalent mutants (excluded): {', '.join(eq) or 'none'}\n")
    w("survivors (of dpaudit's commands):\n")
    for r in results:
        if r.mutant.id in tab["survivors"]:
            w(f"  {r.mutant.id}: {r.mutant.what} ({r.mutant.file})\n")
    if not tab["survivors"]:
        w("  none\n")
    if control_rows:
        w("\n== false alarms: the unmutated copy through the same commands ==\n")
        n_runs = sum(len(rows) for _, rows in control_rows)
        n_bad = sum(c.killed for _, rows in control_rows for c in rows)
        for s, rows in control_rows:
            for c in rows:
                w(f"  seed {s} {c.command:<36} {'FALSE ALARM' if c.killed else 'ok':<11} "
                  f"{c.seconds:6.1f} s  {c.detail[:80]}\n")
        w(f"false-alarm rate: {n_bad}/{n_runs} command runs\n")


if __name__ == "__main__":
    sys.exit(main())
