"""The mutation harness's engine runs (tests/bench/mutation_kill.py): every run a catalogue
entry names exists (``pytest:`` runs name test files found exactly once under tests/), the
``--stop-at-kill`` order runs the cheap runs first, and - slow - a ``pytest:`` run on a shadow
tree kills a neighbour-generation mutant that the unmutated tree passes, and the extended
confidentiality run finds the leak of a mutant that copies a finding's confidential part
into its public scope text.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "bench"))

import mutation_kill as MK  # noqa: E402
import mutations as M  # noqa: E402

KNOWN = ("coverage:", "coverage-full:", "calibrate", "test:neighbours", "test:directions",
         "test:schedule", "test:claims", "csv", "confidentiality", "pytest:", "regress",
         "reader")


def test_every_engine_run_is_known_and_every_pytest_file_exists() -> None:
    for m in M.CATALOGUE:
        for run in m.runs:
            assert run.startswith(KNOWN), (m.id, run)
            if run.startswith("pytest:"):
                files = MK.test_files(run.split(":", 1)[1])
                assert files and all(f.is_file() for f in files), (m.id, run)
    with pytest.raises(ValueError, match="found 0 times"):
        MK.test_files("test_no_such_file_here.py")


def test_stop_at_kill_orders_cheap_runs_first() -> None:
    # "regress" = regress --only engine. (the self-checks alone): before coverage and calibrate
    runs = ["coverage-full:sequential", "confidentiality", "pytest:test_sequential.py",
            "coverage:exact-loss", "regress", "test:neighbours", "calibrate"]
    assert sorted(runs, key=MK._run_cost) == [
        "pytest:test_sequential.py", "confidentiality", "test:neighbours", "regress",
        "coverage:exact-loss", "calibrate", "coverage-full:sequential"]


@pytest.mark.slow
def test_pytest_run_kills_neighbour_mutant_and_passes_unmutated(tmp_path: Path) -> None:
    run = "pytest:test_neighbour_pairs.py"
    ok = MK._pytest_run(run, M.make_tree(tmp_path / "ok", None))
    bad = MK._pytest_run(run, M.make_tree(tmp_path / "bad", M.by_id("nb.values-outside")))
    assert ok[1] == 0, ok
    assert bad[1] == 1 and "test_neighbour_pairs.py" in bad[2]["failed"], bad


@pytest.mark.slow
def test_confidentiality_run_finds_confidential_part_in_public_scope(tmp_path: Path) -> None:
    clean = MK.engine_run("confidentiality", M.make_tree(tmp_path / "ok", None),
                          tmp_path / "w-ok", 0)
    leaky = MK.engine_run("confidentiality", M.make_tree(
        tmp_path / "bad", M.by_id("conf.scope-copies-confidential")), tmp_path / "w-bad", 0)
    assert not [k for k in clean[0][2] if k.startswith("leak:")], clean
    assert any(k.startswith("leak:") and "confidential value" in k for k in leaky[0][2]), leaky


def test_claim_command_takes_one_claim_or_a_comma_list_of_one_command() -> None:
    # the catalogue's search keys are claim keys or comma lists of them (as --only takes
    # them); the slow whole-catalogue run raised KeyError on the prefix "tight." it had
    assert MK.claim_command("lan-reiter-2025", M._TIGHT) == "search"
    assert MK.claim_command("lan-reiter-2025", "subsets.smt") == "prove"
    with pytest.raises(KeyError, match="no claim"):
        MK.claim_command("lan-reiter-2025", "tight.")
    with pytest.raises(KeyError, match="not one command"):
        MK.claim_command("lan-reiter-2025", "tight.ratio,tight.ball-exhaustive")
    for m in M.CATALOGUE:  # every search key of the catalogue resolves
        for key in m.search:
            MK.claim_command(MK.paper_of(m), key)
