"""The claims' trade-off curves against independent mpmath evaluations: each f_lower is
<= the exact curve (rounded down) and within 1e-9 of it; the zCDP / RDP regions at their
curve points sit on the boundary (mpmath sup over a dense order grid)."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from audit.privacy.claims import ZCDP, ApproxDP, GaussianDP, PureDP, RenyiDP, parse_claim

GRID = np.array([1e-9, 1e-6, 1e-4, 0.003, 0.05, 0.2, 0.37, 0.5, 0.8, 0.97, 0.999999])


def _mp_approx(eps: float, delta: float, x: float) -> mpmath.mpf:
    e, d, a = mpmath.mpf(repr(eps)), mpmath.mpf(repr(delta)), mpmath.mpf(x)
    return max(mpmath.mpf(0), 1 - d - mpmath.exp(e) * a, mpmath.exp(-e) * (1 - d - a))


def _mp_gdp(mu: float, x: float) -> mpmath.mpf:
    a = mpmath.mpf(x)
    z = mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * a)  # Phi^-1(1 - a)
    return mpmath.ncdf(z - mpmath.mpf(repr(mu)))


@pytest.mark.parametrize("claim, exact", [
    (PureDP(1.0), lambda x: _mp_approx(1.0, 0.0, x)),
    (PureDP(0.1), lambda x: _mp_approx(0.1, 0.0, x)),
    (ApproxDP(1.0, 1e-6), lambda x: _mp_approx(1.0, 1e-6, x)),
    (ApproxDP(3.0, 0.01), lambda x: _mp_approx(3.0, 0.01, x)),
    (GaussianDP(1.0), lambda x: _mp_gdp(1.0, x)),
    (GaussianDP(0.3), lambda x: _mp_gdp(0.3, x)),
])
def test_closed_form_curves_round_down_and_are_tight(claim, exact) -> None:
    with mpmath.workdps(50):
        got = claim.f_lower(GRID)
        for x, g in zip(GRID, got, strict=True):
            t = exact(float(x))
            assert mpmath.mpf(float(g)) <= t, (claim, x)  # rounded down
            assert t - mpmath.mpf(float(g)) <= 1e-9 * t + 1e-15  # float cancellation near a = 1


def _mp_ratio(p, q, al, w) -> mpmath.mpf:
    out = mpmath.mpf(-1)
    for x, y in ((p, q), (q, p)):
        s = x**al * y ** (1 - al) + (1 - x) ** al * (1 - y) ** (1 - al)
        out = max(out, w * mpmath.log(s) / (al - 1))
    return out


def _mp_sup_ratio(p, q, weight_orders, refine: bool = False) -> mpmath.mpf:
    """max over the orders of weight * sym D_alpha(Bern(p) || Bern(q)), in mpmath;
    ``refine``: the orders are 1 + 10^t on a grid, then 400 more around the best (the
    ratio can peak within a few % of alpha)."""
    vals = [(_mp_ratio(p, q, al, w), al) for al, w in weight_orders]
    best, al0 = max(vals)
    if refine:
        t0 = mpmath.log10(al0 - 1)
        for i in range(-200, 201):
            al = 1 + mpmath.mpf(10) ** (t0 + mpmath.mpf(i) / 4000)
            best = max(best, _mp_ratio(p, q, al, 1 / al))
    return best


def test_zcdp_curve_points_lie_on_the_exact_boundary() -> None:
    rho = 0.5
    c = ZCDP(rho)
    orders = [(1 + mpmath.mpf(10) ** (t / 40), 1 / (1 + mpmath.mpf(10) ** (t / 40)))
              for t in range(-160, 161)]
    with mpmath.workdps(40):
        for x in (1e-6, 1e-3, 0.1, 0.4, 0.9, 0.99999):
            b = float(c.f_lower(x))
            p = mpmath.mpf(x)
            # f_lower <= f: (x, f_lower(x)) is infeasible or on the edge (some order
            # reaches rho up to the float margin) ...
            assert _mp_sup_ratio(p, 1 - mpmath.mpf(b), orders, refine=True) >= rho * (1 - 1e-7)
            # ... and tight: a point 1e-6 higher is feasible on the dense order grid
            b2 = min(1 - x, b + 1e-6 * max(b, 1e-3))
            assert _mp_sup_ratio(p, 1 - mpmath.mpf(b2), orders, refine=True) <= rho


def test_rdp_curve_is_its_orders_boundary() -> None:
    c = RenyiDP([(2.0, 0.3), (8.0, 1.1)])
    orders = [(mpmath.mpf(2), 1 / mpmath.mpf("0.3")), (mpmath.mpf(8), 1 / mpmath.mpf("1.1"))]
    with mpmath.workdps(40):
        for x in (1e-4, 0.05, 0.3, 0.7):
            b = float(c.f_lower(x))
            assert _mp_sup_ratio(mpmath.mpf(x), 1 - mpmath.mpf(b), orders) >= 1 - 1e-8
            b2 = b + 1e-6
            assert _mp_sup_ratio(mpmath.mpf(x), 1 - mpmath.mpf(b2), orders) <= 1


def test_gaussian_mechanism_satisfies_its_zcdp_and_rdp_claims_and_not_smaller_ones() -> None:
    """G_mu is the true curve of the Gaussian mechanism: it lies above the curve of its
    exact zCDP (mu^2 / 2) and RDP (alpha mu^2 / 2) claims and dips below those of claims
    10 % too small (an independent truth: Mironov 2017, Proposition 7)."""
    from audit.privacy.claims.gdp import gaussian_tradeoff

    xs = np.concatenate([10.0 ** np.linspace(-8, -0.01, 25), 1 - 10.0 ** np.linspace(-8, -1, 15)])
    g = gaussian_tradeoff(1.0, xs)
    pts = list(zip(xs.tolist(), g.tolist(), strict=True))

    def refuted(c):
        return [c.certify_corner(x, y).refuted for x, y in pts]

    assert not any(refuted(ZCDP(0.5)))
    # binary events lose information: 10 % shows only past a = 1e-8, 20 % does
    assert any(refuted(ZCDP(0.4)))
    assert not any(refuted(RenyiDP([(2.0, 1.0), (8.0, 4.0)])))
    assert any(refuted(RenyiDP([(8.0, 3.5)])))  # best binary event: 3.64 of the true 4


def test_corner_verdicts_on_hand_worked_points() -> None:
    # pure eps = 1: P[E|D] = 0.01, P[E|D'] = 0.03 -> eps* = log 3 = 1.0986 > 1
    v = PureDP(1.0).certify_corner(0.01, 0.97)
    with mpmath.workdps(50):  # the exact value at the corner's doubles
        exact = mpmath.log((1 - mpmath.mpf(0.97)) / mpmath.mpf(0.01))
    assert v.refuted and abs(v.strongest["epsilon"] - np.log(3.0)) < 1e-12
    assert mpmath.mpf(v.strongest["epsilon"]) <= exact
    assert not PureDP(1.1).certify_corner(0.01, 0.97).refuted
    # gdp: a = Phi(-2), b = Phi(0.5) -> mu* = 2 - 0.5 = 1.5 exactly
    from scipy.stats import norm

    v = GaussianDP(1.4).certify_corner(float(norm.cdf(-2.0)), float(norm.cdf(0.5)))
    assert v.refuted and abs(v.strongest["mu"] - 1.5) < 1e-9
    assert not GaussianDP(1.6).certify_corner(float(norm.cdf(-2.0)),
                                              float(norm.cdf(0.5))).refuted
    # approx: delta eats the gap
    assert ApproxDP(1.0, 0.02).certify_corner(0.01, 0.97).refuted is False


def test_parse_round_trip_and_errors() -> None:
    from kernels.errors import InvalidParameterError

    for s in ("pure:eps=1", "approx:eps=1,delta=1e-6", "gdp:mu=1", "zcdp:rho=0.5",
              "rdp:alpha=2:eps=0.3,alpha=8:eps=1.1", "fdp:0:1,0.5:0.2,1:0"):
        c = parse_claim(s)
        assert parse_claim(c.spec()).spec() == c.spec()
    for bad in ("zcdp", "zcdp:rho=-1", "gdp:mu=x", "approx:eps=1", "approx:eps=1,delta=1",
                "rdp:alpha=1:eps=1", "rdp:alpha=2", "fdp:0:1,0.5:0.7,1:0", "foo:x=1",
                "pure:eps=1,eps=2", "gdp:mu=inf"):
        with pytest.raises(InvalidParameterError, match="claim"):
            parse_claim(bad)
