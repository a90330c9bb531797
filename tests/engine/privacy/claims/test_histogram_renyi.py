"""The histogram Renyi certificate: bounds below the truth on the correct Gaussian
(rho = 0.5), power on sigma too small where single events fail, and the CLI run that it
refutes replays.

Seeded; 2 x 10^5 selection + 10^6 certification outputs per data set.  A correct claim is
refuted with probability <= 10 % per run (Clopper-Pearson + Bonferroni over the 2 x 101
bin bounds); measured at 10^7 in reports/bench/tradeoff-claims.txt."""

from __future__ import annotations

import json

import numpy as np

from audit.cli import main
from audit.privacy.blackbox.settings import TesterSettings as Settings
from audit.privacy.claims import parse_claim
from audit.privacy.claims.histogram_renyi import certify_histogram
from audit.privacy.claims.references import ShiftedNoise
from audit.protocols import NeighbourPair

PAIRS = [NeighbourPair([0.0], [1.0], "replace-one")]
T = Settings(n_select=200_000, n_certify=1_000_000, chunk_size=1_000_000)
MOD = __name__


def _run(spec: str, sigma: float, seed: int):
    return certify_histogram(parse_claim(spec), ShiftedNoise("gaussian", sigma), PAIRS,
                             np.random.default_rng(seed), T)


def test_correct_claims_hold_and_bounds_stay_below_truth() -> None:
    for seed in range(3):
        r = _run("zcdp:rho=0.5", 1.0, seed)
        assert not r.refuted and r.strongest["rho"] <= 0.5
        r = _run("rdp:alpha=1.5:eps=0.75", 1.0, seed)  # truth alpha mu^2 / 2 = 0.75
        assert not r.refuted and r.strongest["eps@alpha=1.5"] <= 0.75


def test_sigma_10_percent_small_is_refuted_under_zcdp() -> None:
    """Single events cannot (best binary rho ~0.52 of the true 0.617); bins do."""
    for seed in range(3):
        r = _run("zcdp:rho=0.5", 0.9, seed)
        assert r.refuted and 0.5 < r.strongest["rho"] <= 0.5 / 0.81


def gauss_small(data, size, rng):
    return float(np.sum(data)) + 0.8 * rng.standard_normal(size)


def test_cli_zcdp_refuted_by_the_histogram_and_replayed(tmp_path, capsys) -> None:
    pairs = tmp_path / "pairs.json"
    pairs.write_text(json.dumps([[[0.0], [1.0]]]))
    out = tmp_path / "r"
    code = main(["test", f"{MOD}:gauss_small", "--pairs", str(pairs), "--relation",
                 "trusted", "--claim", "zcdp:rho=0.5", "--max-samples", "400000",
                 "--n-select", "100000", "--no-progress", "--out", str(out),
                 "--run-id", "z"])
    assert code == 1
    rep = json.loads((out / "z" / "report.json").read_text())
    f = next(x for x in rep["findings"] if x["id"] == "user.claim")
    assert f["evidence"]["histogram"]["refuted"]
    assert 0.5 < f["evidence"]["strongest_refuted"]["rho"] <= 0.5 / 0.64
    capsys.readouterr()
    assert main(["replay", str(out / "z" / "counterexamples" / "user.claim.json")]) == 1
    assert "identical to" in capsys.readouterr().out
