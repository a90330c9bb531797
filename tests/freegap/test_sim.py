"""Tests of audit/freegap_sim.py and proofs/freegap_claims.py (small budgets: fast).

The simulations must reproduce the formulas where those are exact (separated queries) and
must *detect* a wrong post-processing (a wrong lambda in the BLUE): the Monte-Carlo
comparison has power, not just tolerance.
"""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from audit.findings import Verdict, from_jsonable
from audit.registry import CLAIMS, REPLAYERS
from kernels.freegap import mechanisms as fg
from proofs.freegap import claims as freegap_claims  # noqa: F401  (registers the claims)
from proofs.freegap import simulations as sim


def test_ratio_with_se_hand():
    num = np.array([1.0, 2.0, 3.0, 4.0])
    den = np.array([2.0, 2.0, 2.0, 2.0])
    r, se = sim.ratio_with_se(num, den)
    assert r == pytest.approx(1.25)
    # den constant: se = sd(num)/sqrt(R)/mean(den)
    assert se == pytest.approx(np.std(num, ddof=1) / 2 / 2 / 1.0, rel=1e-12)


def test_blue_rows_equals_kernel():
    rng = np.random.default_rng(1)
    a, g = rng.normal(size=(20, 6)), rng.normal(size=(20, 5))
    ref = np.array([fg.blue_top_k(x, y, 0.7) for x, y in zip(a, g, strict=True)])
    np.testing.assert_allclose(fg.blue_top_k_rows(a, g, 0.7), ref, rtol=1e-12, atol=1e-12)


def test_topk_separated_reproduces_corollary1_and_detects_wrong_lambda():
    res = sim.simulate_topk_measures([2, 8], 0.7, 20_000, np.random.default_rng(3))
    for r in res["rows"]:
        assert r["correct_selection"] == 1.0
        assert abs(r["ratio"] - r["theory"]) < 4 * r["se"]
    bad = sim.simulate_topk_measures([8], 0.7, 20_000, np.random.default_rng(3), lam=4.0)
    r = bad["rows"][0]
    assert abs(r["ratio"] - r["theory"]) > 10 * r["se"]


def test_svt_separated_reproduces_section62():
    for monotone in (True, False):
        res = sim.simulate_svt_measures([5], 0.7, 20_000, np.random.default_rng(4),
                                        monotone=monotone)
        r = res["rows"][0]
        assert r["runs_with_k_answers"] == 20_000 and r["precision"] == 1.0
        assert abs(r["ratio"] - r["theory"]) < 4 * r["se"]
        assert abs(r["ratio_joint_blue"] - r["theory_joint_blue"]) < 4 * r["se_joint_blue"]
        assert r["theory_joint_blue"] < r["theory"]


def test_adaptive_answers_bounds():
    res = sim.simulate_adaptive_answers([3, 6], 0.7, 300, np.random.default_rng(5))
    for r in res["rows"]:
        assert r["svt_answers"] <= r["k"]
        assert r["k"] <= r["adaptive_answers"] <= 2 * r["k"] - 1
        assert r["extra_answers"] > 4 * r["extra_answers_se"]
        assert 0.0 < r["budget_left_after_k_pct"] < 100.0


def test_sim_validation():
    with pytest.raises(ValueError, match="regime must be"):
        sim.simulate_topk_measures([2], 0.7, 10, np.random.default_rng(0), regime="real")


# -------------------------------------------------------------------------- claims
EXPECTED = {  # finding id -> verdict at small budgets (seed 1)
    "freegap.topk.blue-mse-separated": Verdict.NOT_REFUTED,
    "freegap.topk.blue-mse-zipf": Verdict.REFUTED,
    "freegap.svt.measures-mse-monotone-separated": Verdict.NOT_REFUTED,
    "freegap.svt.measures-mse-general-separated": Verdict.NOT_REFUTED,
    "freegap.adaptive.more-answers": Verdict.NOT_REFUTED,
    "freegap.alg2.stopping-rule-exact": Verdict.VERIFIED,
    "freegap.alg2.stopping-rule-float": Verdict.REFUTED,
    "freegap.lemma5.formula": Verdict.NOT_REFUTED,  # quadrature + Monte Carlo: sampled
    "freegap.sec62.lemma5-rate": Verdict.REFUTED,
    "freegap.broken-cores.svt": Verdict.NOT_REFUTED,  # drawn cases: sampled
}


@pytest.fixture(scope="module")
def findings():
    out = {}
    for c in CLAIMS:
        if c.key.startswith("freegap.") and c.paper == "ding-et-al-free-gap" and c.run.__module__ \
                == "proofs.freegap.claims":
            assert c.command == "search"
            for f in c.run(1.0, 1):
                out[f.id] = f
    return out


def test_claim_verdicts(findings):
    for fid, verdict in EXPECTED.items():
        assert findings[fid].verdict == verdict, fid
    broken = [f for f in findings.values() if f.id.startswith("freegap.broken.")]
    assert len(broken) == 8 and all(f.verdict == Verdict.VERIFIED for f in broken)


def test_refuted_findings_replay(findings):
    for f in findings.values():
        if f.verdict == Verdict.REFUTED:
            cx = f.counterexample
            assert cx["check"] in REPLAYERS, f.id
            still, _, _, detail = REPLAYERS[cx["check"]](from_jsonable(cx["inputs"]))
            assert still, (f.id, detail)


def test_claim_figures_render(findings):
    html = importlib.import_module("audit.report.html")
    figs = [fig for f in findings.values() for fig in f.evidence.get("figures", [])]
    assert len(figs) >= 6
    html.validate_figures(figs)
    for f in findings.values():
        f.to_dict()  # JSON-able
        assert f.method.value in ("empirical", "exhaustive", "crosscheck", "exact-loss", "sampled")


def test_topk_figures_numbers(findings):
    f = findings["freegap.topk.blue-mse-separated"]
    rows = f.evidence["table"]
    assert [r["k"] for r in rows] == freegap_claims.K_VALUES
    assert all(math.isfinite(r["se"]) and r["se"] > 0 for r in rows)
