"""Tests of the Dick et al. subject: kernels vs exact reference, sampler vs exact pieces,
privacy checks pass correct mechanisms and catch broken ones, claims' verdicts."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest

from kernels.subset_optimal import mean as km
from kernels.subset_optimal import monotone as mo
from kernels.subset_optimal import thresholds as th
from proofs.subset_optimal import claims as cl
from proofs.subset_optimal import oracles as orc
from proofs.subset_optimal.privacy import alg2_loss
from proofs.subset_optimal.reference import exact_pieces, window_loss_exact


def test_window_loss_matches_bruteforce() -> None:
    d = [F(0), F(1), F(1), F(3)]
    xs = np.array([0.0, 1.0, 1.0, 3.0])
    for tau in [F(k, 4) for k in range(-4, 17)]:
        for r in range(5):
            want = window_loss_exact(tau, r, F(1, 2), d)
            assert float(th.window_loss(float(tau), r, 0.5, xs)) == float(want)


def test_sampler_matches_exact_piece_masses() -> None:
    # chi-square style check: 4e5 draws, each piece mass within 5 binomial s.e. (alpha ~ 1e-5
    # per piece); a sampler with the eps/2 factor dropped fails (checked below)
    d = [0.0, 0.2, 0.2, 0.9]
    p = exact_pieces([F(x) for x in d], -1, 1, F(1, 10))
    import mpmath
    with mpmath.workdps(30):
        pr = [float(v) for v in p.probabilities(2, F(1))]
    rng = np.random.default_rng(1)
    y = th.sample(np.array(d), 2, -1.0, 1.0, 0.1, 1.0, 400_000, rng)
    edges = np.array([float(v) for v in p.lo] + [1.0])
    counts = np.histogram(y, edges)[0] / y.size
    se = np.sqrt(np.array(pr) * (1 - np.array(pr)) / y.size)
    assert np.all(np.abs(counts - pr) <= 5 * se + 1e-12)
    bad = th.sample(np.array(d), 2, -1.0, 1.0, 0.1, 4.0, 400_000, rng)  # wrong eps
    cb = np.histogram(bad, edges)[0] / bad.size
    assert np.any(np.abs(cb - pr) > 5 * se + 1e-12)


def test_alg2_exact_loss_public_params_within_eps_and_catches_broken() -> None:
    d1 = [F(0), F(1, 2), F(1, 2)]
    d2 = d1 + [F(-1)]
    ok = alg2_loss(d1, 1, F(1, 4), d2, 1, F(1, 4), -1, 1, 1)
    assert ok.epsilon_up <= 1.0
    # broken twin: the window alpha moves with |D| (as in Algorithm 3 line 1)
    br = alg2_loss([F(0)] * 20, 5, F(1, 20), [F(0)] * 21, 5, F(1, 21), -1, 1, 1)
    assert br.value_down > 2.0


def test_alg3_privacy_refuted_with_replayable_counterexample() -> None:
    (f,) = cl.alg3_privacy(10, 0)
    assert f.verdict.value == "refuted"
    still, claimed, got, _ = cl.replay_alg3(f.counterexample["inputs"])
    assert still and got > claimed == 3.0


def test_alg3_sampler_runs_and_stays_in_range() -> None:
    rng = np.random.default_rng(0)
    d = np.clip(rng.normal(0, 0.2, 500), -1, 1)
    y = km.alg3_sample(d, 1.0, 1.0, 1.0, 2000, rng)
    assert np.all(np.abs(y) <= 1.0) and abs(np.median(y) - d.mean()) < 0.2


def test_alg1_laplace_scales() -> None:
    rng = np.random.default_rng(3)
    y = km.alg1_sample(np.zeros(1000), -1.0, 1.0, 1.0, 200_000, rng)
    # mu-hat ~ clip(Lap(2)/ (1000 + Lap(2))): E|.| ~ 2/1000 within 5%
    assert abs(np.abs(y).mean() - 0.002) < 0.0002


def test_len_quantile_and_mean_vs_bfs() -> None:
    # independent truth: breadth-first search over add/remove edits on grid {0..3}
    from collections import Counter

    def bfs(ks, t, prop, lo=0, hi=3, depth=6):
        start = tuple(sorted(ks))
        frontier, seen = {start}, {start}
        for dist in range(depth + 1):
            for s in frontier:
                if s and mo.property_value(list(s), prop) == t:
                    return dist
            nxt = set()
            for s in frontier:
                for i in range(len(s)):
                    nxt.add(s[:i] + s[i + 1:])
                for v in range(lo, hi + 1):
                    nxt.add(tuple(sorted(s + (v,))))
            frontier = nxt - seen
            seen |= frontier
        return None
    for ks in ([0, 1, 1], [3], [0, 3], [2, 2, 2]):
        for t in range(4):
            for prop in ("median", ("quantile", 0.25)):
                assert mo.len_quantile(ks, t, 0.5 if prop == "median" else 0.25, 0, 3) == \
                    bfs(ks, t, prop)
            assert mo.len_mean(ks, t, 0, 3) == bfs(ks, t, "mean")
    assert Counter()  == Counter()


def test_lp_oracle_lower_bound_and_lemma6() -> None:
    d = [F(0), F(0), F(1), F(3)]
    assert orc.subset_risk_lp(d, F(1)) >= float(orc.lemma1_bound(d, 1)) / (2 * math.e**2)
    assert all(orc.lemma6_holds([F(0), F(1), F(2), F(5)], 1, 2))


@pytest.mark.parametrize("fn", ["theorem1_constants", "theorem3_constants", "alg5_privacy",
                                "alg4_privacy", "definitions", "lemma6", "lemma8",
                                "definition7"])
def test_claim_verdicts(fn: str) -> None:
    expected = {"theorem1_constants": "refuted", "theorem3_constants": "refuted",
                "alg5_privacy": "refuted", "alg4_privacy": "refuted"}.get(fn, "verified")
    (f,) = getattr(cl, fn)(10, 0)
    assert f.verdict.value == expected
