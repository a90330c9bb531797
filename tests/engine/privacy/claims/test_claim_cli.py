"""``dpaudit test --claim``: bad claims exit 2 naming the flag, a correct GDP claim is not
refuted (exit 0), sigma halved is refuted (exit 1) with a counterexample that replays."""

from __future__ import annotations

import json

import numpy as np

from audit.cli import main

MOD = __name__
FAST = ["--max-samples", "50000", "--n-select", "20000", "--no-progress",
        "--relation", "trusted"]


def gauss(data, size, rng):
    return float(np.sum(data)) + rng.standard_normal(size)


def gauss_half(data, size, rng):
    return float(np.sum(data)) + 0.5 * rng.standard_normal(size)


def _pairs(tmp_path):
    p = tmp_path / "pairs.json"
    p.write_text(json.dumps([[[0.0], [1.0]]]))
    return str(p)


def test_bad_claims_exit_2_naming_the_flag(tmp_path, capsys) -> None:
    pairs = _pairs(tmp_path)
    for bad in ("zcdp:rho=-1", "gdp", "rdp:alpha=0.5:eps=1", "nope:x=1"):
        code = main(["test", f"{MOD}:gauss", "--pairs", pairs, "--claim", bad,
                     "--out", str(tmp_path / "r"), *FAST])
        err = capsys.readouterr().err
        assert code == 2 and "--claim" in err and bad.split(":")[0] in err
    code = main(["test", f"{MOD}:gauss", "--pairs", pairs, "--claim", "gdp:mu=1",
                 "--epsilon", "1", "--out", str(tmp_path / "r"), *FAST])
    assert code == 2 and "exclude" in capsys.readouterr().err
    assert not (tmp_path / "r").exists() or not any((tmp_path / "r").iterdir())


def test_gdp_claim_correct_and_sigma_halved(tmp_path, capsys) -> None:
    pairs = _pairs(tmp_path)
    out = tmp_path / "r"
    assert main(["test", f"{MOD}:gauss", "--pairs", pairs, "--claim", "gdp:mu=1",
                 "--out", str(out), "--run-id", "ok", *FAST]) == 0
    rep = json.loads((out / "ok" / "report.json").read_text())
    f = next(x for x in rep["findings"] if x["id"] == "user.claim")
    assert f["evidence"]["strongest_refuted"]["mu"] <= 1.0
    assert main(["test", f"{MOD}:gauss_half", "--pairs", pairs, "--claim", "gdp:mu=1",
                 "--out", str(out), "--run-id", "bad", *FAST]) == 1
    rep = json.loads((out / "bad" / "report.json").read_text())
    f = next(x for x in rep["findings"] if x["id"] == "user.claim")
    mu = f["evidence"]["strongest_refuted"]["mu"]
    assert 1.0 < mu <= 2.0  # true mu = 2
    capsys.readouterr()
    cx = out / "bad" / "counterexamples" / "user.claim.json"
    assert main(["replay", str(cx)]) == 1  # still fails: same draws, same corner
    assert "identical to the stored ones" in capsys.readouterr().out
