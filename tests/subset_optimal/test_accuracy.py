"""Tests of proofs.subset_optimal.experiments: slope fits against known slopes, hand-worked
Theorem 5 values, the point-mass bound against the kernel's own draws, black-box power on the
broken twin, replace-one bounds, claim verdicts and replayers."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest

from kernels.subset_optimal import mean as km
from proofs.subset_optimal import experiments as ac


def test_slope_fit_recovers_known_slopes() -> None:
    rng = np.random.default_rng(5)
    ns = [500, 1000, 2000, 4000, 8000]
    n = np.asarray(ns, dtype=float)
    err = (n**-0.5)[:, None] * rng.exponential(1.0, (5, 200))      # E = n^-1/2 exactly
    fit = ac.slope_fit(ns, err, n**-0.5, rng)
    assert abs(fit["slope"] + 0.5) < 4 * fit["slope_se"] + 1e-3
    assert fit["excess_ci99"][0] < 0 < fit["excess_ci99"][1]
    slow = (n**-0.25)[:, None] * rng.exponential(1.0, (5, 200))    # a rate-n^-1/4 estimator
    fs = ac.slope_fit(ns, slow, n**-0.5, rng)
    assert fs["excess_ci99"][0] > 0.15


def test_table1_hard_moment_slope_and_twin_power() -> None:
    run = ac.table1_run(1, [500, 1000, 2000, 4000, 8000], 25, 8)
    alg3 = run["rows"]["Bounded Moment (k=3, m_3=1)"]["alg3"]
    # hand derivation: Algorithm 3 clips the ~1 outlier at Delta (t_u keeps ~60 records out),
    # so A ~ 0 and |A - mu| = mu_n = (n eps)^(-2/3)
    assert abs(alg3["slope"] + 2 / 3) < 0.03
    assert run["broken_twin"]["excess_ci99"][0] > run["polylog_allowance"]


def test_theorem5_hand_values() -> None:
    assert ac.omega([-4], 1, -4, 4, "median") == 0
    assert ac.omega([0, 2], 1, -4, 4, "mean") == F(5, 3)     # add -4: mean -2/3 vs 1
    r = ac.theorem5_check(F(1), "printed", 4, 1)
    # D = [-4], median: len = 2 at every t > -4, so E = 36 e^-2 / (1 + 8 e^-2)
    want = 36 * math.exp(-2) / (1 + 8 * math.exp(-2))
    assert r["at"]["D"] == [-4] and abs(r["at"]["E"] - want) < 1e-12 and not r["holds"]
    assert ac.theorem5_check(F(1), "theorem5", 4, 2)["holds"]


def test_point_mass_bound_vs_kernel_draws() -> None:
    lb = ac.point_mass_lower_bound(ac.T4_CX)["E_abs_error_lower"]
    rng = np.random.default_rng(2)
    y = km.alg3_sample(np.zeros(200), 1.0, 1.0, 1.0, 400_000, rng)
    m, se = np.abs(y).mean(), np.abs(y).std() / math.sqrt(y.size)
    assert lb > 0 and m - 4 * se > lb
    # the exact factor c P(l > c) P(u > c) vs the kernel's threshold draws
    lo, hi = km.alg3_thresholds(np.zeros(200), 1.0, 1.0, 1.0, 400_000, rng)
    c = 1 / 400
    p = np.mean(lo > c) * np.mean(hi > c) * c
    assert abs(p - lb) < 5 * c * 0.25 / math.sqrt(400_000) * 2


def test_theorem4_and_theorem1_claims() -> None:
    fs = {f.id: f for f in ac.theorem4_corollary2(5, 0)}
    for key in ("subset.theorem4", "subset.corollary2", "subset.table1.na-point-mass"):
        assert fs[key].verdict.value == "refuted"
        still, _, got, _ = ac._replay_point_mass(fs[key].counterexample["inputs"])
        assert still and got > 0
    rep = fs["subset.theorem4"].evidence["repaired_form_monte_carlo"]
    assert rep["verdict"] == "not-refuted"
    (f,) = ac.theorem1_accuracy(5, 0)
    assert f.verdict.value == "not-refuted"
    # stress family: the m records at -1 are all clipped to ~0, so E ~ m/n and Delta ~ 1/n
    for r in f.evidence["rows"]:
        if r["data"] == "stress":
            m = round(1 + km.alg3_parameters(r["n"], 1.0, 1.0, 1.0)["beta"] / 2)
            assert abs(r["ratio_to_Delta"] - m) / m < 0.05


def test_blackbox_literal_refuted_public_n_not_and_twin_flagged() -> None:
    fs = {f.id: f for f in ac.alg3_blackbox(1, 0)}
    lit = fs["subset.alg3-blackbox.literal"]
    assert lit.verdict.value == "refuted"
    pub = fs["subset.alg3-blackbox.public-n"]
    assert pub.verdict.value == "not-refuted"
    assert pub.evidence["broken_twin"]["violates"]
    still, claimed, got, _ = ac.replay_bb(lit.counterexample["inputs"])
    assert still and got > claimed == 3.0


def test_replace_one_bounds() -> None:
    r = ac.alg3_replace_bound([F(0)] * 20, [F(0)] * 19 + [F(1)], F(1), F(1), F(1, 100))
    assert r["l_hat"] <= 1.0 and r["u_hat"] <= 1.0 and r["total_up"] <= 3.0
    fs = {f.id: f for f in ac.replace_one(5, 0)}
    # hand-picked pairs, not every pair: at most not-refuted
    assert fs["subset.replace-one.alg3"].verdict.value == "not-refuted"
    a5 = fs["subset.replace-one.alg5"]
    assert a5.verdict.value == "refuted"
    still, claimed, got, _ = ac.replay_rep5(a5.counterexample["inputs"])
    assert still and got > claimed


@pytest.mark.slow
def test_table1_claim_full() -> None:
    fs = {f.id: f for f in ac.table1_rates(120, 0)}
    assert fs["subset.table1.bounded-moment-k3.this-work"].verdict.value == "not-refuted"
