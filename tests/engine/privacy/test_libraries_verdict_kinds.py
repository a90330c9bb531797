"""`dpaudit test` verdicts by kind (real-number bound and float-bit bound, two findings in
one run) and point masses named in the findings.

Truths, independent of the tester:
* ``sum(D) + Laplace(1/eps)`` in float64 is eps-DP over the reals (Dwork et al. 2006), so
  the real-number finding must not be refuted; its outputs for sums 0.0 and 1.0 lie on
  different float grids (Mironov 2012, section 4: the last mantissa bits of ``x + Y`` depend
  on ``x``), so the float-bit finding must be refuted;
* the same sum with half the noise scale is 2 eps-DP and not eps-DP: the real-number
  finding must be refuted (the broken twin);
* a mechanism returning exactly 0.0 on the empty data set (no noise) has a point mass there
  by construction; the same mechanism with noise everywhere has none.

Every run is seeded (seed 0) and therefore deterministic; the tester's own rates: a correct
mechanism is flagged with probability <= 1 - confidence = 0.1 per run (split 0.05 / 0.05
between the two kinds), and the broken twins here are far above the claim (log-ratio inf
on the bit / atom events, 2x on the halved scale), flagged at these sample sizes.
"""

from __future__ import annotations

import json

import numpy as np

from audit import test_mechanism
from audit.cli import main
from audit.findings import Verdict

SMALL = {"n_select": 4000, "n_certify": 4000, "first_batch": 2000, "seed": 0}


def float_laplace_sum(data, size, rng):
    return float(np.sum(data)) + rng.laplace(0.0, 1.0, size)


def float_laplace_sum_half(data, size, rng):
    return float(np.sum(data)) + rng.laplace(0.0, 0.5, size)


def no_noise_when_empty(data, size, rng):
    if len(data) == 0:
        return np.zeros(size)
    return float(np.sum(data)) + rng.laplace(0.0, 1.0, size)


def _by_id(r):
    return {f.id: f for f in r.findings}


def test_real_number_not_refuted_and_float_bits_flagged_in_one_run():
    r = test_mechanism(float_laplace_sum, epsilon=1.0, relation="add-remove", lower=0.0,
                       upper=1.0, **SMALL)
    f = _by_id(r)
    assert f["user.blackbox"].verdict is Verdict.NOT_REFUTED
    assert f["user.blackbox"].evidence["kind"] == "real-number"
    assert f["user.blackbox"].evidence["event_family"] != "float-grid"
    assert f["user.float-bits"].verdict is Verdict.REFUTED
    assert f["user.float-bits"].evidence["event_family"] == "float-grid"
    assert f["user.float-bits"].counterexample is not None
    assert r.outcome == "flagged"
    # the confidence is shared between the two kinds (Bonferroni)
    # exactly: the smallest double c with 2 (1 - c) <= 1 - 0.9 (0.95 itself overspends by
    # an ulp, as 1 - 0.9 rounds below 0.1)
    from fractions import Fraction
    per = r.parameters["confidence_per_kind"]
    assert 2 * Fraction(1 - per) <= Fraction(1 - 0.9) and 0.95 <= per < 0.95 + 1e-15
    assert f["user.blackbox"].evidence["confidence"] == per


def test_broken_twin_flagged_at_the_real_number_level():
    r = test_mechanism(float_laplace_sum_half, epsilon=1.0, relation="add-remove",
                       lower=0.0, upper=1.0, **SMALL)
    assert _by_id(r)["user.blackbox"].verdict is Verdict.REFUTED


def test_no_float_bits_gives_one_kind_at_full_confidence():
    r = test_mechanism(float_laplace_sum, epsilon=1.0, relation="add-remove", lower=0.0,
                       upper=1.0, float_bits=False, **SMALL)
    assert "user.float-bits" not in _by_id(r)
    assert r.parameters["confidence_per_kind"] == 0.9 and r.outcome == "not-flagged"


def test_point_mass_named_in_the_finding():
    r = test_mechanism(no_noise_when_empty, epsilon=1.0, relation="add-remove", lower=0.0,
                       upper=1.0, float_bits=False, **SMALL)
    bb = _by_id(r)["user.blackbox"]
    assert bb.verdict is Verdict.REFUTED
    pm = bb.evidence["point_mass"]
    pair = r.parameters and bb.counterexample["inputs"]["pair"]
    # the side named must be the empty data set of the witness pair
    side = "D" if len(pair["first"]) == 0 else "D'"
    assert len(pair["first"]) == 0 or len(pair["second"]) == 0
    assert pm["sentence"] == f"under {side} the output is a point mass at 0.0: zero noise"
    assert pm["sentence"] in bb.scope
    # the correct twin (noise on every data set) has no point mass to name
    ok = test_mechanism(float_laplace_sum, epsilon=1.0, relation="add-remove", lower=0.0,
                        upper=1.0, float_bits=False, **SMALL)
    assert "point_mass" not in _by_id(ok)["user.blackbox"].evidence


def test_cli_prints_both_kinds_and_the_report_holds_both(tmp_path, capsys):
    out = tmp_path / "rep"
    code = main(["test", f"{__name__}:float_laplace_sum",
                 "--epsilon", "1", "--relation", "add-remove", "--lower", "0", "--upper", "1",
                 "--out", str(out), "--max-samples", "4000", "--n-select", "4000",
                 "--first-batch", "2000", "--no-progress"])
    assert code == 5  # float64-only flag: its own word and exit code (real-number: 1)
    text = capsys.readouterr().out
    assert text.startswith("FLAGGED (float64 only): ")
    assert "by kind: real-number: not-refuted; float-bits: refuted" in text
    rep = json.loads(next(out.rglob("report.json")).read_text())
    assert rep["outcome"] == {"word": "FLAGGED (float64 only)", "exit_code": 5}
    ids = {f["id"]: f["verdict"] for f in rep["findings"]}
    assert ids["user.blackbox"] == "not-refuted" and ids["user.float-bits"] == "refuted"
    cx = next(out.rglob("user.float-bits.json"))
    assert main(["replay", str(cx)]) == 1  # the float-bit refutation reproduces
