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
"""

from __future__ import annotations

import numpy as np
import pytest

from audit.findings import Verdict, from_jsonable
from audit.privacy.protocols import NeighbourPair
from kernels import freegap as fg
from proofs import freegap_float as ff
from proofs.registry import CLAIMS, REPLAYERS, load_all


@pytest.fixture(scope="module")
def findings() -> list:
    return ff.float_bits(2.0, 0)


def test_registered() -> None:
    load_all()
    c = [c for c in CLAIMS if c.key == ff.CHECK]
    assert len(c) == 1 and c[0].command == "search" and c[0].paper == "ding-et-al-free-gap"
    assert ff.CHECK in REPLAYERS


def test_small_budget_verdicts(findings: list) -> None:
    assert [f.id for f in findings] == [f"{ff.CHECK}.{t.key}" for t in ff.targets()]
    for f in findings:
        ev = f.evidence
        assert f.verdict == Verdict.REFUTED, f.id
        assert ev["event_family"] == "float-grid", f.id
        assert ev["epsilon_lower_float"] > 3.0 > 1.0 == ev["claimed_epsilon"]
        assert not ev["real_flagged"] and ev["epsilon_lower_real"] < 1.0, f.id
        assert "explanation" in ev
        assert f.counterexample["check"] == ff.CHECK
        assert ev["n_certify"] == ff.N_CERTIFY_MIN


def test_direct_bit_check_confirms_zero_probability(findings: list) -> None:
    for f in findings:
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
