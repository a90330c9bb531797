"""Cross-checks of the conversions against Google's dp_accounting (an independent
implementation) and of the reference mechanisms' curves against brute-force truths."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from audit.privacy.claims import ZCDP, GaussianDP
from audit.privacy.claims.conversions import rdp_delta, tradeoff_of_delta_curve, zcdp_delta
from audit.privacy.claims.gdp import gaussian_tradeoff
from audit.privacy.claims.references import (
    ShiftedNoise,
    discrete_gaussian_tradeoff,
    laplace_tradeoff,
)

dpa = pytest.importorskip("dp_accounting", reason="dp-accounting (test extra) not installed")


@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_rdp_delta_matches_dp_accounting(eps: float) -> None:
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    orders = [(2.0, 0.3), (8.0, 1.1), (32.0, 5.0)]
    theirs, _ = rdp.compute_delta([a for a, _ in orders], [t for _, t in orders], eps)
    ours = rdp_delta(orders, eps)
    assert ours >= theirs  # rounded up
    assert ours == pytest.approx(theirs, rel=1e-9)


@pytest.mark.parametrize("sigma, eps", [(1.0, 1.0), (1.0, 3.0), (2.0, 0.5)])
def test_zcdp_delta_vs_dp_accounting_gaussian_rdp(sigma: float, eps: float) -> None:
    """dp_accounting's RDP accountant on a Gaussian event (rho = 1 / (2 sigma^2)) takes
    the minimum over its default order grid; ours is the infimum over all alpha, so it is
    <= theirs and within 1 % of it."""
    acc = dpa.rdp.RdpAccountant()
    acc.compose(dpa.GaussianDpEvent(sigma))
    theirs = acc.get_delta(eps)
    ours = zcdp_delta(1.0 / (2 * sigma * sigma), eps)
    assert ours <= theirs * (1 + 1e-9)
    assert ours >= 0.99 * theirs


def test_gdp_curve_matches_dp_accounting_pld_of_the_gaussian() -> None:
    """The Gaussian mechanism's (eps, delta(eps)) from dp_accounting's PLD accountant is a
    supporting line of G_mu: 1 - delta - e^eps a <= G_mu(a) everywhere, with equality
    (to the PLD discretisation) at the tangent point."""
    pld = dpa.pld.privacy_loss_distribution.from_gaussian_mechanism(
        standard_deviation=1.0, sensitivity=1.0, value_discretization_interval=1e-5)
    xs = 10.0 ** np.linspace(-9, -1e-3, 4000)
    f = GaussianDP(1.0).f_lower(xs)
    for eps in (0.5, 1.0, 2.0, 4.0):
        d = pld.get_delta_for_epsilon(eps)
        line = 1.0 - d - math.exp(eps) * xs
        gap = f - line
        assert gap.min() >= -1e-9
        assert gap.min() <= 1e-4


def test_zcdp_region_contains_the_cks_intersection() -> None:
    """Both curves are valid for rho-zCDP; the Bernoulli-Renyi one is exact, so it is >=
    the CKS (eps, delta(eps)) intersection everywhere and strictly above somewhere."""
    xs = np.array([1e-6, 1e-3, 0.05, 0.2, 0.5])
    exact = ZCDP(0.5).f_lower(xs)
    cks = tradeoff_of_delta_curve(lambda e: zcdp_delta(0.5, e), xs)
    assert np.all(exact >= cks - 1e-9)
    assert np.any(exact > cks + 1e-3)


def test_laplace_curve_by_brute_force() -> None:
    """The Neyman-Pearson threshold tests on Lap(0, 1) vs Lap(eps, 1): a = P0[y > t],
    b = P1[y <= t], for many t, lie on the closed-form curve."""
    eps = 0.7

    def cdf(y: float, m: float) -> float:
        return 0.5 * math.exp(y - m) if y < m else 1 - 0.5 * math.exp(m - y)

    for t in np.linspace(-3, 4, 57):
        a = 1 - cdf(t, 0.0)
        b = cdf(t, eps)
        assert float(laplace_tradeoff(eps, a)) == pytest.approx(b, abs=1e-12)


def test_discrete_gaussian_curve_by_summation() -> None:
    """Vertices by an independent mpmath sum at a few thresholds; large sigma approaches
    the continuous G_{1/sigma}."""
    sigma, shift = 1.5, 1
    with mpmath.workdps(30):
        ks = range(-80, 81)
        w = {k: mpmath.exp(-mpmath.mpf(k) ** 2 / (2 * sigma**2)) for k in ks}
        z = mpmath.fsum(w.values())
        for t in (-2, 0, 1, 3):
            a = mpmath.fsum(w[k] for k in ks if k >= t) / z
            b = mpmath.fsum(w[k - shift] for k in ks if k < t and k - shift in w) / z
            assert float(discrete_gaussian_tradeoff(sigma, shift, float(a))) == \
                pytest.approx(float(b), abs=1e-12)
    xs = np.array([0.01, 0.1, 0.3])
    assert np.allclose(discrete_gaussian_tradeoff(30.0, 30, xs), gaussian_tradeoff(1.0, xs),
                       atol=0.02)


def test_discrete_gaussian_sampler_law() -> None:
    """Seeded: the sampler's frequencies of 0, +-1, +-2 match the exact pmf (sigma 1.5,
    2e5 draws; max |z| < 5, a false alarm below 1e-5)."""
    rng = np.random.default_rng(3)
    y = ShiftedNoise("discrete-gaussian", 1.5).sample([0.0], 200_000, rng)
    ks = np.arange(-60, 61)
    pmf = np.exp(-ks**2 / (2 * 1.5**2))
    pmf /= pmf.sum()
    for k in (-2, -1, 0, 1, 2):
        p = pmf[ks == k][0]
        z = (np.mean(y == k) - p) / math.sqrt(p * (1 - p) / y.size)
        assert abs(z) < 5
