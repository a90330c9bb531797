"""Tests of the deliberately broken variants (kernels/freegap_broken.py) and their witnesses.

* Each broken core differs from the correct one exactly where documented (same noise in,
  same output out, except for the documented change).
* Each witness: neighbouring inputs; its log-ratio recomputed exactly (mpmath quadrature in
  :mod:`proofs.freegap.mechanisms`) exceeds the claimed epsilon and matches the table;
  Monte-Carlo frequencies of the *samplers* agree with those exact probabilities (5 SE).
* Specificity: the correct mechanisms on the same pairs / events stay within epsilon, and an
  exhaustive small check of the correct Sparse Vector finds no event above epsilon.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from audit.protocols import Mechanism
from kernels.freegap import broken as fb
from kernels.freegap import mechanisms as fg
from proofs.freegap.mechanisms import (
    BROKEN_MECHANISMS,
    AdaptiveSVTWithGap,
    Condition,
    SparseVector,
    event_indicator,
    event_log_ratio,
    mechanism_for_variant,
    svt_event_probability,
    top1_gap_probability,
    witness_exact,
)

VARIANTS = sorted(fb.BROKEN_VARIANTS)


def _random_svt_inputs(rng, n_max=10):
    n = int(rng.integers(1, n_max))
    return n, rng.normal(0, 2, n), float(rng.normal()), rng.normal(0, 2, n)


def test_svt_cores_differ_only_where_documented():
    rng = np.random.default_rng(7)
    for _ in range(300):
        n, q, eta, nu = _random_svt_inputs(rng)
        c = int(rng.integers(1, 4))
        assert fb.svt_no_threshold_noise_core(q, 0.3, nu, c) == fg.sparse_vector_core(
            q, 0.3, 0.0, nu, c
        )
        assert fb.svt_no_query_noise_core(q, 0.3, eta) == fg.sparse_vector_core(
            q, 0.3, eta, np.zeros(n), n
        )
        assert fb.svt_no_halting_core(q, 0.3, eta, nu) == fg.sparse_vector_core(
            q, 0.3, eta, nu, n
        )
        assert fb.svt_lee_clifton_core(q, 0.3, eta, nu, c) == fg.sparse_vector_core(
            q, 0.3, eta, nu, c
        )
        rel = fb.svt_release_value_core(q, 0.3, eta, nu, c)
        ref = fg.sparse_vector_core(q, 0.3, eta, nu, c)
        assert [v is not None for v in rel] == ref
        assert all(v == q[i] + nu[i] for i, v in enumerate(rel) if v is not None)


def test_noisy_max_and_top_k_cores():
    rng = np.random.default_rng(8)
    for _ in range(100):
        n = int(rng.integers(2, 8))
        q, eta = rng.normal(size=n), rng.normal(size=n)
        j, v = fb.noisy_max_with_value_core(q, eta)
        assert j == fg.noisy_max_core(q, eta) and v == q[j] + eta[j]
        k = int(rng.integers(1, n))
        a, b = fb.top_k_with_gap_half_noise_core(q, eta, k), fg.top_k_with_gap_core(q, eta, k)
        assert a[0].tolist() == b[0].tolist() and a[1].tolist() == b[1].tolist()


def test_adaptive_wrong_stop_extends_correct_output():
    """The wrong rule only changes *when* the run stops: the correct output is a prefix of the
    wrong one, and they differ iff the correct run stopped with units in (2k - 2, 2k]."""
    rng = np.random.default_rng(9)
    differ = 0
    for _ in range(300):
        n, q, eta, nu = _random_svt_inputs(rng, 12)
        xi = rng.normal(0, 2, n)
        k = int(rng.integers(1, 3))
        args = (q * 3, 0.0, eta, xi, nu, 1.0, k, 0.5)
        ok = fg.adaptive_svt_with_gap_core(*args, sigma=2.0)
        bad = fb.adaptive_svt_wrong_stop_core(*args, sigma=2.0)
        assert bad[: len(ok)] == ok
        units = sum(1 if o[0] == "top" else 2 if o[0] == "middle" else 0 for o in ok)
        stopped = units > 2 * k - 2
        if len(bad) > len(ok):
            differ += 1
            assert stopped and units <= 2 * k
    assert differ > 20


def test_broken_samplers_replay_documented_scales():
    q = np.array([0.0, 2.0, 1.0, 3.0])
    eps, n_runs = 1.0, 200
    # Lee & Clifton: threshold Lap(4/eps), queries Lap(4/(3 eps)), halt after c
    out = fb.sample_svt_lee_clifton(q, 1.0, eps, 2, np.random.default_rng(1), n_runs)
    g = np.random.default_rng(1)
    eta, nu = g.laplace(0, 4.0, n_runs), g.laplace(0, 4.0 / 3.0, (n_runs, 4))
    for row, e, v in zip(out, eta, nu, strict=True):
        ref = fg.sparse_vector_core(q, 1.0, e, v, 2)
        assert row[: len(ref)].tolist() == [float(x) for x in ref]
    # Chen: Lap(1/eps2), eps2 = eps/2, never halts
    out = fb.sample_svt_no_halting(q, 1.0, eps, np.random.default_rng(2), n_runs)
    g = np.random.default_rng(2)
    eta, nu = g.laplace(0, 2.0, n_runs), g.laplace(0, 2.0, (n_runs, 4))
    assert out.tolist() == [[float(x) for x in fb.svt_no_halting_core(q, 1.0, e, v)]
                            for e, v in zip(eta, nu, strict=True)]
    # Roth: Lap(c/eps2), values released
    out = fb.sample_svt_release_value(q, 1.0, eps, 2, np.random.default_rng(3), n_runs)
    g = np.random.default_rng(3)
    eta, nu = g.laplace(0, 2.0, n_runs), g.laplace(0, 4.0, (n_runs, 4))
    for row, e, v in zip(out, eta, nu, strict=True):
        ref = fb.svt_release_value_core(q, 1.0, e, v, 2)
        assert row[: len(ref)].tolist() == [0.0 if x is None else x for x in ref]
        assert row[4: 4 + len(ref)].tolist() == [0.0 if x is None else 1.0 for x in ref]
    # no threshold noise: Lap(2c/eps2) only
    out = fb.sample_svt_no_threshold_noise(q, 1.0, eps, 2, np.random.default_rng(4), n_runs)
    nu = np.random.default_rng(4).laplace(0, 8.0, (n_runs, 4))
    for row, v in zip(out, nu, strict=True):
        ref = fb.svt_no_threshold_noise_core(q, 1.0, v, 2)
        assert row[: len(ref)].tolist() == [float(x) for x in ref]
    # Stoddard: threshold Lap(1/eps1) only, no halting
    out = fb.sample_svt_no_query_noise(q, 1.0, eps, np.random.default_rng(5), n_runs)
    eta = np.random.default_rng(5).laplace(0, 2.0, n_runs)
    assert out.tolist() == [[float(x) for x in fb.svt_no_query_noise_core(q, 1.0, e)]
                            for e in eta]
    # Noisy max with value: Lap(2/eps)
    out = fb.sample_noisy_max_with_value(q, eps, np.random.default_rng(6), n_runs)
    eta = np.random.default_rng(6).laplace(0, 2.0, (n_runs, 4))
    assert out.tolist() == [list(map(float, fb.noisy_max_with_value_core(q, e))) for e in eta]
    # Top-k half noise == correct sampler at twice the epsilon (Lap(k/eps) = Lap(2k/(2 eps)))
    a = fb.sample_top_k_with_gap_half_noise(q, 2, eps, np.random.default_rng(7), n_runs)
    b = fg.sample_top_k_with_gap(q, 2, 2 * eps, np.random.default_rng(7), n_runs)
    np.testing.assert_array_equal(a, b)
    # Wrong stop: same draws as the correct sampler; correct output is a prefix
    a = fb.sample_adaptive_svt_wrong_stop(q * 20, 1.0, eps, 1, np.random.default_rng(8), 500)
    b = fg.sample_adaptive_svt_with_gap(q * 20, 1.0, eps, 1, np.random.default_rng(8), 500)
    reached = ~np.isnan(b[:, 4:])
    np.testing.assert_array_equal(a[:, 4:][reached], b[:, 4:][reached])
    assert (np.isnan(b[:, 4:]) & ~np.isnan(a[:, 4:])).any()


# ------------------------------------------------------------------------- witnesses
@pytest.mark.parametrize("variant", VARIANTS)
def test_witness_exact_loss_exceeds_claim(variant):
    entry = fb.BROKEN_VARIANTS[variant]
    w = entry["witness"]
    q, qp = np.array(w["q"]), np.array(w["q_prime"])
    assert q.shape == qp.shape and np.abs(q - qp).max() <= 1.0
    for key in ("description", "reference", "differences", "core", "sampler",
                "claimed_epsilon", "true_cost", "true_epsilon_factor", "witness"):
        assert key in entry
    assert callable(getattr(fb, entry["core"])) and callable(getattr(fb, entry["sampler"]))
    p, pp, loss = witness_exact(variant)
    eps = w["params"]["epsilon"]
    assert loss > eps
    # the stored figure is the exact value (3 for noisy_max_with_value); the computed loss is
    # a 30-digit quadrature rounded DOWN to a float, so it may sit one ulp below it
    slack = 0.0 if math.isinf(w["log_ratio"]) else 4 * math.ulp(max(1.0, w["log_ratio"]))
    assert loss >= w["log_ratio"] - slack and (
        math.isinf(loss) or loss - w["log_ratio"] < 1e-4)
    assert float(p) == pytest.approx(w["p"], rel=5e-3)


@pytest.mark.parametrize("variant", VARIANTS)
def test_witness_monte_carlo_matches_exact(variant):
    w = fb.BROKEN_VARIANTS[variant]["witness"]
    mech = mechanism_for_variant(variant)
    assert isinstance(mech, Mechanism) and mech.claimed_epsilon == w["params"]["epsilon"]
    p, pp, _ = witness_exact(variant, dps=20)
    n_runs = 100_000
    rng = np.random.default_rng(1000 + VARIANTS.index(variant))
    for data, prob in ((w["q"], float(p)), (w["q_prime"], float(pp))):
        freq = event_indicator(mech.sample(np.array(data), n_runs, rng), w["event"]).mean()
        se = math.sqrt(max(prob * (1 - prob), 1e-12) / n_runs)
        assert abs(freq - prob) < 5 * se + 1e-9, (variant, data, freq, prob)


def test_true_epsilon_attributes():
    assert BROKEN_MECHANISMS["top_k_with_gap_half_noise"].witness().true_epsilon == 2.0
    assert BROKEN_MECHANISMS["svt_no_query_noise"].witness().true_epsilon == math.inf
    assert BROKEN_MECHANISMS["svt_lee_clifton"].witness().true_epsilon is None


def test_correct_mechanisms_within_epsilon_on_witnesses():
    """Specificity of the exact computation: the correct mechanisms on the same pairs and
    (expressible) events stay <= eps."""
    b, a = Condition("bottom"), Condition("above")
    cases = [  # (mechanism law, q, q', T, conditions)
        (SparseVector(2.0, 1.0, 1, theta=0.5).svt_law(), [0.0] * 16, [1.0] * 16, 2.0, [b] * 16),
        (SparseVector(0.5, 1.0, 1, theta=0.5).svt_law(), [0.0, 1.0], [1.0, 0.0], 0.5, [b, a]),
        (SparseVector(0.0, 1.0, 1, theta=0.5).svt_law(), [0.0] * 5, [1.0] * 4 + [0.0], 0.0,
         [b] * 4 + [a]),
        (SparseVector(0.0, 1.0, 2, theta=0.5).svt_law(), [0, 0, 1, 1], [1, 1, 0, 0], 0.0,
         [b, b, a, a]),
        (SparseVector(0.0, 1.0, 1, theta=0.5).svt_law(), [0.0] * 4 + [1.0],
         [1.0] * 4 + [0.0], 0.0, [b] * 4 + [a]),
        (AdaptiveSVTWithGap(0.0, 1.0, 2, theta=0.2).svt_law(), [0, 0, 0, 1, 1],
         [1, 1, 1, 0, 0], 0.0, [b] * 3 + [a, a]),
    ]
    for law, q, qp, t, conds in cases:
        for x, y in ((q, qp), (qp, q)):
            loss = event_log_ratio(svt_event_probability(x, t, conds, law, dps=20),
                                   svt_event_probability(y, t, conds, law, dps=20))
            assert loss <= 1.0 + 1e-9
    # Top-1 with gap at the correct scale Lap(2k/eps): closed form 1 + log(3/4) <= 1
    pa = top1_gap_probability([1.0, 0.0], 2.0, 0, 3.0, dps=20)
    pb = top1_gap_probability([0.0, 1.0], 2.0, 0, 3.0, dps=20)
    assert event_log_ratio(pa, pb) == pytest.approx(1 + math.log(0.75), abs=1e-12)


def test_correct_svt_exhaustive_small():
    """Every complete output of classical SVT (c = 1, n = 3) on every pair q, q' in {0,1}^3
    has exact log-ratio <= eps (Lyu et al. Alg. 1 / Dwork & Roth; 64 pairs x 4 outputs)."""
    law = SparseVector(0.5, 1.0, 1, theta=0.5).svt_law()
    b, a = Condition("bottom"), Condition("above")
    outputs = [[a], [b, a], [b, b, a], [b, b, b]]
    worst = 0.0
    probs = {}
    for q in itertools.product([0.0, 1.0], repeat=3):
        probs[q] = [svt_event_probability(q, 0.5, o, law, dps=15) for o in outputs]
        assert float(sum(probs[q])) == pytest.approx(1.0, abs=1e-12)
    for q, qp in itertools.product(probs, repeat=2):
        for pa, pb in zip(probs[q], probs[qp], strict=True):
            worst = max(worst, event_log_ratio(pa, pb))
    assert 0.3 < worst <= 1.0 + 1e-9
