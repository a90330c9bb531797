"""Tests of kernels/freegap.py (Ding, Wang, Zhang & Kifer: free-gap Noisy Max / Sparse Vector).

Sources of truth independent of the code under test: hand-worked examples, brute-force
definitions (Python ``sorted``), regenerating the samplers' documented draws and replaying
them through the cores, closed-form Laplace moments, generalised least squares / explicit
covariance algebra for the BLUE, and mpmath quadrature for Lemma 5.  Monte-Carlo checks use
fixed seeds and 5-standard-error tolerances (false-alarm rate < 1e-6 per check).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE, Mechanism
from kernels.errors import (
    InvalidEpsilonError,
    InvalidKError,
    InvalidParameterError,
    NonFiniteError,
    NotNumericError,
)
from kernels.freegap import mechanisms as fg
from proofs.freegap.mechanisms import (
    AdaptiveSVTWithGap,
    NoisyMax,
    SparseVector,
    SVTWithGap,
    TopKWithGap,
)


# ------------------------------------------------------------------- hand-worked cores
def test_noisy_max_core_hand_and_ties():
    assert fg.noisy_max_core([1, 5, 3], [0, 0, 0]) == 1
    assert fg.noisy_max_core([1, 5, 3], [10, 0, 0]) == 0
    assert fg.noisy_max_core([2, 2, 1], [0, 0, 1]) == 0  # three-way tie -> smallest index


def test_top_k_with_gap_core_hand():
    q = [10, 3, 7, 1, 9]
    idx, gaps = fg.top_k_with_gap_core(q, np.zeros(5), 2)
    assert idx.tolist() == [0, 4] and gaps.tolist() == [1.0, 2.0]
    idx, gaps = fg.top_k_with_gap_core(q, np.zeros(5), 4)
    assert idx.tolist() == [0, 4, 2, 1] and gaps.tolist() == [1.0, 2.0, 4.0, 2.0]
    idx, gaps = fg.top_k_with_gap_core([1, 1, 1], [0, 0, 0], 2)  # ties: index order, gap 0
    assert idx.tolist() == [0, 1] and gaps.tolist() == [0.0, 0.0]


def test_top_k_with_gap_core_vs_bruteforce():
    rng = np.random.default_rng(11)
    for _ in range(300):
        n = int(rng.integers(2, 9))
        k = int(rng.integers(1, n))
        q = rng.integers(-3, 4, size=n).astype(float)
        eta = rng.integers(-2, 3, size=n).astype(float)  # integer noise: many ties
        noisy = [q[i] + eta[i] for i in range(n)]
        order = sorted(range(n), key=lambda i: (-noisy[i], i))
        idx, gaps = fg.top_k_with_gap_core(q, eta, k)
        assert idx.tolist() == order[:k]
        assert gaps.tolist() == [noisy[order[i]] - noisy[order[i + 1]] for i in range(k)]
        assert fg.noisy_max_core(q, eta) == order[0]


def test_top_k_needs_k_below_n():
    with pytest.raises(InvalidKError, match="k must be in 1..2, got 3"):
        fg.top_k_with_gap_core([1, 2, 3], [0, 0, 0], 3)
    with pytest.raises(InvalidKError, match="got 0"):
        fg.sample_top_k_with_gap([1, 2, 3], 0, 1.0, np.random.default_rng(0), 5)


def test_sparse_vector_core_hand():
    q = [1, 5, 2, 6, 7]
    assert fg.sparse_vector_core(q, 4, 0.0, [0] * 5, 2) == [False, True, False, True]
    assert fg.sparse_vector_core(q, 4, 0.0, [0] * 5, 5) == [False, True, False, True, True]
    # boundary: q_i + nu_i == T + eta counts as ⊤ (>=)
    assert fg.sparse_vector_core([3.0], 2.0, 1.0, [0.0], 1) == [True]
    assert fg.sparse_vector_core([3.0], 2.0, 1.0, [-1e-12], 1) == [False]


def _adaptive(q, T, eta, xi, eq, eps=1.0, k=2, theta=0.5, **kw):
    return fg.adaptive_svt_with_gap_core(q, T, eta, xi, eq, eps, k, theta, **kw)


def test_adaptive_core_hand():
    b = fg.adaptive_budgets(1.0, 2, 0.5)
    assert (b.eps0, b.eps1, b.eps2) == (0.5, 0.25, 0.125)
    assert b.sigma == pytest.approx(4 * math.sqrt(2) / 0.125)  # 45.25
    q = [100.0, 10.0, 0.0, 10.0, 100.0]
    xi = [0.0, 0.0, 0.0, 0.0, 0.0]
    eq = [5.0, 1.0, -1.0, 0.0, 0.0]
    out = _adaptive(q, 5.0, 0.0, xi, eq)
    # q0: 95 > sigma -> top; q1: 5 < sigma, 10+1-5 = 6 >= 0 -> middle; units 3 > 2 -> stop
    assert out == [("top", 95.0, 0.125), ("middle", 6.0, 0.25)]
    out = _adaptive([0.0, 100.0, 100.0, 100.0], 5.0, 0.0, [0] * 4, [0] * 4)
    assert [o[0] for o in out] == ["bottom", "top", "top", "top"]  # 2k - 1 = 3 tops
    out = _adaptive([100.0] * 4, 5.0, 0.0, [0] * 4, [0] * 4, adaptive=False)
    assert out == [("middle", 95.0, 0.25)] * 2  # k = 2 middle answers, then stop


@pytest.mark.parametrize("k", [1, 2, 3, 7])
def test_adaptive_answer_counts(k):
    n = 4 * k + 3
    big = [1000.0] * n
    xi, eq = [0.0] * n, [0.0] * n
    tops = _adaptive(big, 0.0, 0.0, xi, eq, k=k)
    assert len(tops) == 2 * k - 1 and all(o[0] == "top" for o in tops)
    mids = _adaptive(big, 0.0, 0.0, xi, eq, k=k, sigma=1e9)
    assert len(mids) == k and all(o[0] == "middle" for o in mids)
    for out in (tops, mids):
        assert 0.5 + sum(o[2] for o in out) <= 1.0 + 1e-12  # eps0 + spent <= eps


def test_adaptive_float_printed_stops_early():
    """Line 16 evaluated in doubles at the paper's own setting (eps = 0.7, k = 6,
    theta = 1/(1 + k^(2/3))) stops after 5 middle answers; the exact rule gives k = 6."""
    k = 6
    th = 1.0 / (1.0 + k ** (2 / 3))
    big, z = [1000.0] * 20, [0.0] * 20
    exact = _adaptive(big, 0.0, 0.0, z, z, eps=0.7, k=k, theta=th, sigma=1e9)
    printed = _adaptive(big, 0.0, 0.0, z, z, eps=0.7, k=k, theta=th, sigma=1e9,
                        stopping="float-printed")
    assert len(exact) == 6 and len(printed) == 5


def test_svt_with_gap_core_equals_sparse_vector():
    """Algorithm 2 with sigma = inf is classical SVT with c = k on the middle-branch noise."""
    rng = np.random.default_rng(5)
    for _ in range(200):
        n, k = int(rng.integers(1, 12)), int(rng.integers(1, 4))
        q = rng.normal(0, 3, n)
        eta, nu, xi = rng.normal(), rng.normal(0, 2, n), rng.normal(0, 2, n)
        out = _adaptive(q, 0.5, eta, xi, nu, k=k, adaptive=False)
        ref = fg.sparse_vector_core(q, 0.5, eta, nu, k)
        assert [o[0] == "middle" for o in out] == ref
        for i, o in enumerate(out):
            if o[0] == "middle":
                assert o[1] == q[i] + nu[i] - (0.5 + eta)


# ------------------------------------------------------------- samplers replay the cores
def test_sample_noisy_max_replays_core():
    q = np.array([0.0, 1.0, 0.5, 2.0])
    out = fg.sample_noisy_max(q, 0.7, np.random.default_rng(3), 300)
    eta = np.random.default_rng(3).laplace(0.0, 2.0 / 0.7, size=(300, 4))
    assert out.shape == (300, 1)
    assert out[:, 0].tolist() == [fg.noisy_max_core(q, e) for e in eta]
    out_m = fg.sample_noisy_max(q, 0.7, np.random.default_rng(3), 300, monotone=True)
    eta_m = np.random.default_rng(3).laplace(0.0, 1.0 / 0.7, size=(300, 4))
    assert out_m[:, 0].tolist() == [fg.noisy_max_core(q, e) for e in eta_m]


@pytest.mark.parametrize("n,k,monotone", [(5, 2, False), (6, 1, True), (60, 3, False)])
def test_sample_top_k_replays_core(n, k, monotone):
    q = np.random.default_rng(1).integers(0, 20, n).astype(float)
    out = fg.sample_top_k_with_gap(q, k, 0.5, np.random.default_rng(9), 200, monotone=monotone)
    b = (k if monotone else 2 * k) / 0.5
    eta = np.random.default_rng(9).laplace(0.0, b, size=(200, n))
    for row, e in zip(out, eta, strict=True):
        idx, gaps = fg.top_k_with_gap_core(q, e, k)
        assert row[:k].tolist() == idx.tolist()
        np.testing.assert_allclose(row[k:], gaps, rtol=0, atol=1e-12)


def test_sample_sparse_vector_replays_core():
    q = np.array([0.0, 3.0, 1.0, 4.0, 2.0, 5.0])
    eps, c, th = 0.8, 2, 0.3
    out = fg.sample_sparse_vector(q, 2.0, eps, c, np.random.default_rng(4), 300, theta=th)
    g = np.random.default_rng(4)
    eta = g.laplace(0.0, 1.0 / (th * eps), size=300)
    nu = g.laplace(0.0, 2.0 * c / ((1 - th) * eps), size=(300, 6))
    for row, e, v in zip(out, eta, nu, strict=True):
        ref = fg.sparse_vector_core(q, 2.0, e, v, c)
        assert row[: len(ref)].tolist() == [float(x) for x in ref]
        assert np.isnan(row[len(ref):]).all()


@pytest.mark.parametrize("adaptive,monotone", [(True, False), (True, True), (False, False)])
def test_sample_adaptive_replays_core(adaptive, monotone):
    q = np.array([50.0, 0.0, 30.0, 5.0, 80.0, 2.0, 60.0, 1.0])
    eps, k, th = 1.0, 2, 0.4
    out = fg.sample_adaptive_svt_with_gap(
        q, 3.0, eps, k, np.random.default_rng(8), 300, theta=th, monotone=monotone,
        adaptive=adaptive,
    )
    bud = fg.adaptive_budgets(eps, k, th, monotone=monotone)
    mult = 1.0 if monotone else 2.0
    g = np.random.default_rng(8)
    eta = g.laplace(0.0, 1.0 / bud.eps0, size=300)
    xi = g.laplace(0.0, mult / bud.eps2, size=(300, 8))
    eq = g.laplace(0.0, mult / bud.eps1, size=(300, 8))
    code = {"bottom": fg.BOTTOM, "middle": fg.MIDDLE, "top": fg.TOP}
    for r in range(300):
        ref = fg.adaptive_svt_with_gap_core(q, 3.0, eta[r], xi[r], eq[r], eps, k, th,
                                            adaptive=adaptive, monotone=monotone)
        m = len(ref)
        assert out[r, 8: 8 + m].tolist() == [code[o[0]] for o in ref]
        assert out[r, :m].tolist() == [0.0 if o[1] is None else o[1] for o in ref]
        assert np.isnan(out[r, m:8]).all() and np.isnan(out[r, 8 + m:]).all()


# ----------------------------------------------------------------------- noise scales
@pytest.mark.parametrize("k,monotone", [(1, False), (3, False), (3, True)])
def test_top_k_gap_variance_separated(k, monotone):
    """Well-separated queries (fixed selection): Var(g_i) = 16 k^2/eps^2 (general) and
    4 k^2/eps^2 (monotone) - Section 5.1 re-derived as 2 * Var(Lap(b)), b = 2k/eps or k/eps.
    Var(s^2) of a Laplace difference is 56 b^8/N (kurtosis), so 5 SE ~ 2.1% at N = 2e5."""
    eps, n_runs = 1.0, 200_000
    q = np.arange(k + 3)[::-1] * 1e5
    out = fg.sample_top_k_with_gap(q, k, eps, np.random.default_rng(21), n_runs,
                                   monotone=monotone)
    b = fg.top_k_noise_scale(k, eps, monotone=monotone)
    expected = (4 if monotone else 16) * k * k / eps**2
    assert 2 * 2 * b * b == pytest.approx(expected)
    for i in range(k):
        g = out[:, k + i] - 1e5
        se = math.sqrt(56.0 / n_runs) * b**4
        assert abs(g.var() - expected) < 5 * se


def test_top_k_gaps_biased_near_ties():
    """Discrepancy (documented): with equal queries the released gaps are all >= 0, so the
    fixed-index model (E g = q_a - q_b = 0) behind Theorem 3 fails under near-ties."""
    out = fg.sample_top_k_with_gap(np.zeros(20), 3, 1.0, np.random.default_rng(2), 20_000)
    g = out[:, 3:]
    assert (g >= 0).all()
    assert g[:, 0].mean() > 10 * g[:, 0].std() / math.sqrt(len(g))


def test_svt_gap_variance_matches_samples_and_section62():
    eps_total, k = 0.7, 5
    for monotone in (False, True):
        v = fg.svt_gap_variance(eps_total / 2, k, monotone=monotone)
        r = (k if monotone else 2 * k) ** (2 / 3)
        assert v == pytest.approx(8 * (1 + r) ** 3 / eps_total**2, rel=1e-12)
        q = np.full(k + 2, 1e6)
        out = fg.sample_svt_with_gap(q, 0.0, eps_total / 2, k, np.random.default_rng(13),
                                     200_000, monotone=monotone)
        gaps = out[:, :k] - 1e6
        # Var(s^2) of eta_i - eta: cumulants add; kappa4(Lap b) = 12 b^4
        th = fg.recommended_theta(k, monotone=monotone)
        b0 = 1 / (th * eps_total / 2)
        b1 = (1 if monotone else 2) * k / ((1 - th) * eps_total / 2)
        k4 = 12 * (b0**4 + b1**4)
        se = math.sqrt((k4 + 2 * v * v) / len(gaps))
        assert abs(gaps[:, 0].var() - v) < 5 * se


# ---------------------------------------------------------------------------- BLUE
def test_blue_linear_matrix_printed_agree():
    """Linear-time algorithm == GLS from the covariance model == printed X, Y (rtol 1e-9)."""
    rng = np.random.default_rng(31)
    for _ in range(100):
        k = int(rng.integers(1, 30))
        lam = float(rng.uniform(0.05, 10))
        a = rng.normal(0, 50, k)
        g = rng.normal(0, 20, k - 1)
        lin = fg.blue_top_k(a, g, lam)
        gls = fg.blue_top_k_matrix(a, g, lam)
        x, y = fg.blue_top_k_printed(k, lam)
        printed = (x @ a + y @ g) / ((1 + lam) * k)
        np.testing.assert_allclose(lin, gls, rtol=1e-9, atol=1e-9 * np.abs(a).max())
        np.testing.assert_allclose(printed, gls, rtol=1e-9, atol=1e-9 * np.abs(a).max())


@pytest.mark.parametrize("k,lam", [(2, 1.0), (5, 1.0), (10, 4.0), (25, 0.3)])
def test_corollary1_from_covariance(k, lam):
    """Var(beta_i)/Var(alpha_i) from the explicit linear map beta = W alpha + V g with
    Cov(alpha) = I, Cov(g) = lam N N^T equals (1 + lam k)/(k + lam k) for every i."""
    x, y = fg.blue_top_k_printed(k, lam)
    w, v = x / ((1 + lam) * k), y / ((1 + lam) * k)
    n_mat = np.eye(k - 1, k) - np.eye(k - 1, k, 1)
    var = np.sum(w * w, axis=1) + lam * np.sum((v @ n_mat) ** 2, axis=1)
    np.testing.assert_allclose(var, fg.blue_variance_ratio(k, lam), rtol=1e-12)
    # unbiased: W + V N = I
    np.testing.assert_allclose(w + v @ n_mat, np.eye(k), atol=1e-12)


def test_appendix_a2_inverse_index_typo():
    """Appendix A.2: (tridiag(-1, 2, -1))^{-1}_{ij} = (k - max) min / k.  The printed index
    condition "(k - i) j for all i <= j" gives a different (wrong) matrix for k >= 3."""
    for k in (3, 5, 8):
        m = k - 1
        tri = 2 * np.eye(m) - np.eye(m, k=1) - np.eye(m, k=-1)
        inv = np.linalg.inv(tri)
        i, j = np.meshgrid(np.arange(1, m + 1), np.arange(1, m + 1), indexing="ij")
        right = (k - np.maximum(i, j)) * np.minimum(i, j) / k
        printed = np.where(i <= j, (k - i) * j, (k - j) * i) / k
        np.testing.assert_allclose(inv, right, atol=1e-12)
        assert not np.allclose(inv, printed)


def test_blue_joint_vs_per_query():
    rng = np.random.default_rng(3)
    a, g = rng.normal(size=1), rng.normal(size=1)
    beta, var = fg.svt_gap_blue_joint(a, g, 2.0, 3.0, 5.0, 7.0)
    np.testing.assert_allclose(beta, fg.svt_gap_combine(a, g, 2.0, 3.0, 12.0), rtol=1e-12)
    assert var[0] == pytest.approx(1 / (1 / 3 + 1 / 12))
    a, g = rng.normal(size=6), rng.normal(size=6)
    _, var = fg.svt_gap_blue_joint(a, g, 0.0, 3.0, 5.0, 7.0)
    assert (var < 1 / (1 / 3 + 1 / 12)).all()  # shared threshold noise is estimable


def test_section62_ratio_limits():
    assert fg.svt_measure_ratio_printed(10**6) == pytest.approx(0.8, abs=1e-3)
    assert fg.svt_measure_ratio_printed(10**6, monotone=True) == pytest.approx(0.5, abs=1e-3)
    for k in (1, 4, 20):
        for mono in (False, True):
            v = fg.svt_gap_variance(0.35, k, monotone=mono)
            va = 8 * k * k / 0.7**2
            assert fg.svt_measure_ratio_printed(k, monotone=mono) == pytest.approx(
                v / (v + va), rel=1e-12
            )


# --------------------------------------------------------------------------- Lemma 5
def _lemma5_quad(t: float, e0: float, es: float) -> float:
    with mpmath.workdps(40):
        e0m, esm, tm = mpmath.mpf(e0), mpmath.mpf(es), mpmath.mpf(t)

        def integrand(y):  # eta = y; P(eta_i >= y - t)
            x = y - tm
            sf = 1 - mpmath.exp(esm * x) / 2 if x < 0 else mpmath.exp(-esm * x) / 2
            return e0m / 2 * mpmath.exp(-e0m * abs(y)) * sf

        return float(mpmath.quad(integrand, [-mpmath.inf, 0, tm, mpmath.inf]))


@pytest.mark.parametrize(
    "e0,es", [(0.5, 0.2), (0.2, 0.5), (1.0, 1.0), (1.0, 1.0 + 1e-9), (0.03, 3.0)]
)
def test_lemma5_vs_quadrature(e0, es):
    for t in (0.0, 0.1, 1.0, 5.0, 40.0):
        assert fg.gap_lower_tail_prob(t, e0, es) == pytest.approx(
            _lemma5_quad(t, e0, es), rel=1e-12, abs=1e-15
        )


def test_lemma5_printed_forms_and_bound():
    e0, es, t = 0.5, 0.2, 3.0
    printed = 1 - (e0**2 * math.exp(-es * t) - es**2 * math.exp(-e0 * t)) / (
        2 * (e0**2 - es**2)
    )
    assert fg.gap_lower_tail_prob(t, e0, es) == pytest.approx(printed, rel=1e-14)
    assert fg.gap_lower_tail_prob(t, 0.7, 0.7) == pytest.approx(
        1 - (2 + 0.7 * t) / 4 * math.exp(-0.7 * t), rel=1e-14
    )
    t95 = fg.gap_lower_confidence_bound(0.95, e0, es)
    assert fg.gap_lower_tail_prob(t95, e0, es) == pytest.approx(0.95, abs=1e-12)
    assert fg.gap_lower_confidence_bound(0.5, e0, es) == 0.0


def test_lemma5_rates_for_algorithm2():
    """Discrepancy: Algorithm 2's middle-branch gap noise is eta_i - eta with eta_i ~
    Lap(2/eps1).  The bound with Lemma 5 at rate eps1/2 (adaptive_gap_noise_rates) covers
    95%; at rate eps1 (Section 6.2's wording) it is too short and covers visibly less."""
    eps, k, th = 1.0, 2, 0.4
    n_runs = 400_000
    q = np.full(3, 1e6)
    out = fg.sample_svt_with_gap(q, 0.0, eps, k, np.random.default_rng(17), n_runs, theta=th)
    noise = out[:, 0] - 1e6  # = eta_1 - eta
    e0, e_star = fg.adaptive_gap_noise_rates(eps, k, th, fg.MIDDLE)
    bud = fg.adaptive_budgets(eps, k, th)
    assert e_star == bud.eps1 / 2
    t_right = fg.gap_lower_confidence_bound(0.95, e0, e_star)
    t_printed = fg.gap_lower_confidence_bound(0.95, e0, bud.eps1)
    cover_right = np.mean(noise <= t_right)
    cover_printed = np.mean(noise <= t_printed)
    se = math.sqrt(0.95 * 0.05 / n_runs)
    assert abs(cover_right - 0.95) < 5 * se
    assert cover_printed < 0.95 - 20 * se


# ----------------------------------------------------------------------- validation
def test_validation_errors_name_the_value():
    rng = np.random.default_rng(0)
    with pytest.raises(InvalidEpsilonError, match=r"epsilon must be > 0, got 0"):
        fg.sample_noisy_max([1, 2], 0, rng, 5)
    with pytest.raises(NonFiniteError, match=r"q must be finite, got nan at position 1"):
        fg.noisy_max_core([1, float("nan")], [0, 0])
    with pytest.raises(InvalidParameterError, match=r"eta must have one value per query"):
        fg.noisy_max_core([1, 2, 3], [0, 0])
    with pytest.raises(InvalidParameterError, match=r"theta .* got 1.5"):
        fg.sample_sparse_vector([1, 2], 0, 1.0, 1, rng, 5, theta=1.5)
    with pytest.raises(InvalidKError, match=r"c must be >= 1, got 0"):
        fg.sparse_vector_core([1], 0, 0, [0], 0)
    with pytest.raises(InvalidParameterError, match=r"size must be >= 1, got 0"):
        fg.sample_noisy_max([1, 2], 1.0, rng, 0)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        fg.sample_noisy_max([1, 2], 1.0, 42, 5)
    with pytest.raises(NotNumericError, match="not booleans"):
        fg.noisy_max_core([True, False], [0, 0])
    with pytest.raises(NotNumericError, match="q must be a sequence of numbers"):
        fg.noisy_max_core("12", [0, 0])
    with pytest.raises(InvalidParameterError, match=r"sigma must be > 0 .* got -1.0"):
        fg.adaptive_budgets(1.0, 2, 0.5, sigma=-1.0)
    with pytest.raises(InvalidParameterError, match=r"lam .* got -1"):
        fg.blue_top_k([1, 2], [0.5], -1)
    with pytest.raises(InvalidParameterError, match=r"gaps must have one value per query"):
        fg.blue_top_k([1, 2, 3], [0.5], 1.0)
    with pytest.raises(InvalidParameterError, match=r"level must be in \[0.5, 1\), got 1.0"):
        fg.gap_lower_confidence_bound(1.0, 1.0, 1.0)
    with pytest.raises(InvalidParameterError, match="stopping must be"):
        _adaptive([1.0], 0, 0, [0], [0], stopping="fast")


# ---------------------------------------------------------------- Mechanism protocol
def test_mechanisms_follow_protocol():
    rng = np.random.default_rng(0)
    q = np.array([3.0, 1.0, 2.0, 0.0])
    mechs = [
        NoisyMax(1.0), TopKWithGap(2, 1.0, monotone=True), SparseVector(1.5, 1.0, 2),
        SVTWithGap(1.5, 1.0, 2), AdaptiveSVTWithGap(1.5, 1.0, 2),
    ]
    shapes = [(7, 1), (7, 4), (7, 4), (7, 8), (7, 8)]
    for m, shape in zip(mechs, shapes, strict=True):
        assert isinstance(m, Mechanism)
        assert m.claimed_epsilon == 1.0 and m.true_epsilon is None
        assert m.sample(q, 7, rng).shape == shape
    assert mechs[1].relation == ADD_REMOVE_ONE and mechs[0].relation == REPLACE_ONE
    assert SVTWithGap(0.0, 1.0, 2).adaptive is False
