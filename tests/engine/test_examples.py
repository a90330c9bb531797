"""The committed example reports (reports/examples/) are still reproduced by their commands.

Regenerate them with (README):
    dpaudit regress --out reports/examples --run-id regress-ours
    dpaudit regress --kernels kernels.gini.printed --out reports/examples --run-id regress-paper
    dpaudit search --out reports/examples --run-id search
    dpaudit prove  --out reports/examples --run-id prove
The fast claims are re-run here (smaller budgets) and every verdict they produce must equal
the committed one; the slow ones (Z3 at n = 6, long grid searches) are covered by their own
test modules.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "reports" / "examples"


def _verdicts(path: Path) -> dict[str, str]:
    rep = json.loads((path / "report.json").read_text())
    assert rep["finished"] is True
    return {f["id"]: f["verdict"] for f in rep["findings"]}


@pytest.mark.parametrize(
    "command, key, budget",
    [
        ("search", "sec3.toy-numbers", "10"),
        ("search", "sec43.example", "10"),
        ("search", "thm45.inequality", "10"),
        ("search", "subsets.thm4", "20"),
        ("prove", "deriv.eq1-vs-eq2", "10"),
        ("prove", "deriv.prop51", "10"),
        ("prove", "deriv.insertion", "20"),
        ("prove", "deriv.density-constant", "10"),
    ],
)
def test_claims_reproduce_committed_verdicts(
    command: str, key: str, budget: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    committed = _verdicts(EXAMPLES / command)
    assert main([command, "--only", key, "--budget", budget, "--out", str(tmp_path),
                 "--run-id", "r"]) == 0
    capsys.readouterr()
    now = _verdicts(tmp_path / "r")
    assert now, key
    for fid, verdict in now.items():
        assert committed[fid] == verdict, (fid, committed[fid], verdict)


@pytest.mark.parametrize("run_id, kernels", [
    # the printed kernels' regress runs by default in tests/gini/test_regress.py (its
    # counterexamples checked against independent arithmetic), and every refuted finding of
    # the committed example replays in test_replay_examples.py
    pytest.param("regress-paper", "kernels.gini.printed", marks=pytest.mark.slow),
    # the shipped kernels' full regress (slow in tests/gini/test_regress.py too)
    pytest.param("regress-ours", "kernels.gini.api", marks=pytest.mark.slow)])
def test_regress_reproduces_committed_verdicts(
    run_id: str, kernels: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    main(["regress", "--kernels", kernels, "--out", str(tmp_path), "--run-id", "r"])
    capsys.readouterr()
    assert _verdicts(tmp_path / "r") == _verdicts(EXAMPLES / run_id)


@pytest.mark.parametrize(
    "command, key, budget",
    [
        ("prove", "freegap.deriv-linear-time", "10"),
        ("prove", "freegap.deriv-sec62", "10"),
        ("prove", "freegap.deriv-a1", "10"),
        ("prove", "freegap.align.noisy-max", "5"),
        ("prove", "freegap.align.broken", "10"),
        ("search", "freegap.alg2-stopping-rule", "10"),
        ("search", "freegap.broken-witnesses", "10"),
    ],
)
def test_freegap_claims_reproduce_committed_verdicts(
    command: str, key: str, budget: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Ding et al.'s claims (committed as reports/examples/{prove,search}-freegap)."""
    committed = _verdicts(EXAMPLES / f"{command}-freegap")
    assert main([command, "--paper", "ding-et-al-free-gap", "--only", key, "--budget", budget,
                 "--out", str(tmp_path), "--run-id", "r"]) == 0
    capsys.readouterr()
    now = _verdicts(tmp_path / "r")
    assert now, key
    for fid, verdict in now.items():
        assert committed[fid] == verdict, (fid, committed[fid], verdict)
