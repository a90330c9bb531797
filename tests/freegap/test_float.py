"""Tests of ``proofs/freegap_float.py``: the free-gap mechanisms' float64 outputs leak through
their last mantissa bits (claim ``freegap.float-bits``).

* At the smallest sample sizes (budget 2 s: 2 x 10^4 selection / 10^5 certification draws)
  the float-grid tester refutes all three mechanisms (Top-K-with-Gap, SVT-with-Gap and
  Adaptive-SVT-with-Gap with T = 1) with a bit event, while the real-number events on the same
  pairs and seed stay below the claimed epsilon.
* The stored counterexample replays: the replayer re-runs the tester from the stored seed
  and gets the same epsilon_lower.
* The direct bit computation: the certified event never occurs under one data set (count 0
  in fresh draws), because every released value there lies on the 2^-53 grid - checked
  structurally on the samplers as well (all queries 1 -> all gaps multiples of 2^-53).
* Negative control: large counts (1000 vs 1001) are not flagged by the float-grid tester.
* Snapped output (opt-in ``snap``): values are multiples of the step within [-B, B], NaN /
  0.0 / indices / branch codes untouched; the ``-snapped`` Findings (same pairs and tester
  seed) are verified with the bit events adding nothing over the real-number events, and a
  direct run flags the unsnapped Top-K but not the snapped one.
"""

from __future__ import annotations

import numpy as np
import pytest

from audit.findings import Verdict, from_jsonable
from audit.protocols import NeighbourPair
from audit.registry import CLAIMS, REPLAYERS, load_all
from kernels.errors import InvalidParameterError
from kernels.freegap import mechanisms as fg
from kernels.gini.release import SnapGrid
from proofs.freegap import float_bits as ff
from proofs.freegap import mechanisms as fm


@pytest.fixture(scope="module")
def findings() -> list:
    return ff.float_bits(2.0, 0)


def test_registered() -> None:
    load_all()
    c = [c for c in CLAIMS if c.key == ff.CHECK]
    assert len(c) == 1 and c[0].command == "search" and c[0].paper == "ding-et-al-free-gap"
    assert ff.CHECK in REPLAYERS


def test_small_budget_verdicts(findings: list) -> None:
    keys = [t.key for t in ff.targets()] + [t.key for t in ff.snapped_targets()]
    assert [f.id for f in findings] == [f"{ff.CHECK}.{k}" for k in keys]
    for f in findings[: len(ff.targets())]:
        ev = f.evidence
        assert f.verdict == Verdict.REFUTED, f.id
        assert ev["event_family"] == "float-grid", f.id
        assert ev["epsilon_lower_float"] > 3.0 > 1.0 == ev["claimed_epsilon"]
        assert not ev["real_flagged"] and ev["epsilon_lower_real"] < 1.0, f.id
        assert "explanation" in ev
        assert f.counterexample["check"] == ff.CHECK
        assert ev["n_certify"] == ff.N_CERTIFY_MIN


def test_direct_bit_check_confirms_zero_probability(findings: list) -> None:
    for f in findings[: len(ff.targets())]:
        bc = f.evidence["bit_check"]
        favoured_first = f.evidence["direction"].startswith("P[D (pair.first)]")
        hit, zero = ("q", "q_prime") if favoured_first else ("q_prime", "q")
        assert bc[f"count_{zero}"] == 0, f.id
        assert bc[f"count_{hit}"] > 50, f.id
        # the impossible side lives on the 2^-53 grid, the other has finer bits
        assert bc[f"finest_grid_log2_{zero}"] >= -53 > bc[f"finest_grid_log2_{hit}"], f.id


def test_replayer_reproduces(findings: list) -> None:
    f = findings[0]
    cx = f.counterexample
    still, _, actual, detail = REPLAYERS[cx["check"]](from_jsonable(cx["inputs"]))
    assert still
    assert actual == pytest.approx(f.evidence["epsilon_lower_float"], rel=0, abs=1e-12)
    assert "binade" in detail


def test_finest_grid_exponent() -> None:
    assert ff.finest_grid_exponent(np.array([1.0, 0.5, 3.0])) == -1
    assert ff.finest_grid_exponent(np.array([1.0 + 2.0**-52, -3.0])) == -52
    assert ff.finest_grid_exponent(np.array([0.25 + 2.0**-54])) == -54
    assert ff.finest_grid_exponent(np.array([0.0, np.nan])) is None


def test_all_ones_gaps_on_2_pow_minus_53_grid() -> None:
    rng = np.random.default_rng(7)
    y1 = fg.sample_top_k_with_gap(np.ones(4), 1, 1.0, rng, 200_000)
    y0 = fg.sample_top_k_with_gap(np.zeros(4), 1, 1.0, rng, 200_000)
    assert ff.finest_grid_exponent(y1[:, 1]) >= -53
    assert ff.finest_grid_exponent(y0[:, 1]) < -55
    s1 = fg.sample_svt_with_gap(np.ones(3), 1.0, 1.0, 1, rng, 200_000, theta=0.2)
    assert ff.finest_grid_exponent(s1[:, :3]) >= -53


def test_large_counts_not_flagged() -> None:
    t = ff.targets()[0]
    mech = ff.build_mechanism(t.spec)
    q, qp = np.full(3, 1000.0), np.full(3, 1001.0)
    res = ff.make_tester(20_000, 100_000, True).run(
        mech, [NeighbourPair(q, qp, mech.relation, {})], np.random.default_rng(3))
    assert not res.violates


# ------------------------------------------------------------------ snapped output (opt-in)
def test_snapped_findings_verified_same_seed(findings: list) -> None:
    n = len(ff.targets())
    for plain, snapped in zip(findings[:n], findings[n:], strict=True):
        ev, pev = snapped.evidence, plain.evidence
        assert snapped.id == plain.id + "-snapped"
        assert snapped.verdict == Verdict.NOT_REFUTED and not ev["flagged"], snapped.id
        assert snapped.counterexample is None and ev["bit_check"] is None
        assert ev["tester_seed"] == pev["tester_seed"] and ev["pairs"] == pev["pairs"]
        assert ev["n_certify"] == pev["n_certify"] == ff.N_CERTIFY_MIN
        # snapped: the bit events add nothing over the real-number events
        assert ev["epsilon_lower_float"] < 1.0 and not ev["real_flagged"], snapped.id
        assert ev["epsilon_lower_float"] == pytest.approx(ev["epsilon_lower_real"], abs=0.05)
        assert pev["epsilon_lower_float"] > 3.0
        assert "not a proof" in snapped.scope and "90%" in snapped.scope


def test_gap_snap_grid() -> None:
    g = fg.gap_snap_grid(2.0)
    assert g == SnapGrid(128.0, 128.0 * 2.0**-40)
    assert fg.gap_snap_grid(5.0, 1.0).clamp == 512.0  # 2 + 320 -> 2^9
    assert fg.gap_snap_grid(2.0, 1000.0).clamp == 4096.0
    for bad in ((0.0, 0.0), (1.0, -1.0)):
        with pytest.raises(InvalidParameterError):
            fg.gap_snap_grid(*bad)
    with pytest.raises(InvalidParameterError):
        fg.sample_top_k_with_gap(np.ones(3), 1, 1.0, np.random.default_rng(0), 5,
                                 snap=SnapGrid(100.0, 1e-9))
    with pytest.raises(InvalidParameterError):
        fg.sample_top_k_with_gap(np.ones(3), 1, 1.0, np.random.default_rng(0), 5, snap=0.5)


def _on_grid(v: np.ndarray, g: SnapGrid) -> bool:
    v = v[~np.isnan(v)]
    return bool(np.all(np.abs(v) <= g.clamp) and np.all(v / g.step == np.rint(v / g.step)))


def test_snapped_samplers_grid_clamp_nan_and_codes() -> None:
    g = SnapGrid(4.0, 4.0 * 2.0**-40)  # small clamp so that clamping binds
    q = np.array([0.0, 1.0, 3.0, 0.0, 2.0])
    for name, run in (
        ("topk", lambda s, r: fg.sample_top_k_with_gap(q, 2, 1.0, r, 20_000, snap=s)),
        ("svt", lambda s, r: fg.sample_svt_with_gap(q, 1.0, 1.0, 2, r, 20_000, theta=0.2,
                                                    snap=s)),
        ("adaptive", lambda s, r: fg.sample_adaptive_svt_with_gap(
            q, 1.0, 1.0, 2, r, 20_000, theta=0.2, snap=s)),
    ):
        y0 = run(None, np.random.default_rng(11))
        y1 = run(g, np.random.default_rng(11))  # same draws
        half = y0.shape[1] // 2
        idx = slice(0, half) if name == "topk" else slice(half, None)
        val = slice(half, None) if name == "topk" else slice(0, half)
        np.testing.assert_array_equal(y1[:, idx], y0[:, idx], err_msg=name)  # untouched
        np.testing.assert_array_equal(np.isnan(y1), np.isnan(y0), err_msg=name)
        assert _on_grid(y1[:, val], g), name
        assert np.any(np.abs(y1[:, val]) == g.clamp), name  # the clamp bound
        np.testing.assert_array_equal(y1[:, val] == 0.0, y0[:, val] == 0.0, err_msg=name)
        diff = np.abs(y1[:, val] - np.clip(y0[:, val], -g.clamp, g.clamp))
        assert np.nanmax(diff) <= g.step / 2, name
        if name != "topk":
            assert np.isnan(y1[:, val]).any(), name  # NaN markers present and preserved


def test_snapped_wrappers_defaults_and_grid() -> None:
    t = fm.TopKWithGap(1, 1.0)
    assert not t.snap and t.snap_grid() is None
    assert fm.TopKWithGap(1, 1.0, snap=True).snap_grid() == fg.gap_snap_grid(2.0)
    s = fm.SVTWithGap(1.0, 1.0, 1, theta=0.2, snap=True)
    assert s.snap_grid() == fg.gap_snap_grid(5.0, 1.0)
    assert fm.AdaptiveSVTWithGap(1.0, 1.0, 1, theta=0.2, snap=True).snap_grid().clamp == 512.0
    y = s.sample(np.ones(5), 50_000, np.random.default_rng(2))
    assert _on_grid(y[:, :5], s.snap_grid())
    # all answers 1: the unsnapped gaps sit on 2^-53, the snapped ones on the coarse grid
    assert ff.finest_grid_exponent(y[:, :5]) >= -31


def test_snapped_not_flagged_unsnapped_flagged() -> None:
    pair = [NeighbourPair(np.zeros(6), np.ones(6), fm.TopKWithGap(1, 1.0).relation, {})]
    tester = ff.make_tester(20_000, 100_000, True)
    plain = tester.run(fm.TopKWithGap(1, 1.0), pair, np.random.default_rng(5))
    snapped = tester.run(fm.TopKWithGap(1, 1.0, snap=True), pair, np.random.default_rng(5))
    assert plain.violates and plain.epsilon_lower > 3.0
    assert not snapped.violates and snapped.epsilon_lower < 1.0
