"""Exact event probabilities (audit.prove.exact_event) against independent truths: closed
forms worked by hand, scipy quadrature, brute-force finite sums and seeded Monte Carlo."""

from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from scipy import integrate

from audit.prove.exact_event import (
    Constraint,
    DrawLaw,
    UnsupportedEvent,
    conjunction_probability,
    event_probability,
)

X = DrawLaw("x", "laplace", F(2))


@pytest.fixture(autouse=True)
def _references_at_60_digits():
    """The mpmath reference values are computed at 60 digits (the enclosures are 40)."""
    with mpmath.workdps(60):
        yield

Y = DrawLaw("y", "laplace", F(2))


def lap_pdf(v: float, b: float) -> float:
    return math.exp(-abs(v) / b) / (2 * b)


def lap_cdf(v: float, b: float) -> float:
    return 0.5 * math.exp(v / b) if v < 0 else 1 - 0.5 * math.exp(-v / b)


@pytest.mark.parametrize("t", [F(0), F(3), F(1, 3), F(-5, 2)])
def test_laplace_tail_closed_form(t: F) -> None:
    # P(Lap(b) >= t) = exp(-t/b)/2 for t >= 0, 1 - exp(t/b)/2 for t < 0 (direct integration)
    p = conjunction_probability([X], [Constraint({"x": 1}, -t, ">=")])
    b = F(2)
    want = [(F(1, 2), -t / b)] if t >= 0 else [(F(-1, 2), t / b), (F(1), F(0))]
    assert sorted(p.closed_form, key=lambda c: c[1]) == sorted(want, key=lambda c: c[1])
    exact = mpmath.mpf(1) / 2 * mpmath.exp(-mpmath.mpf(t.numerator) / t.denominator / 2) \
        if t >= 0 else 1 - mpmath.exp(mpmath.mpf(t.numerator) / t.denominator / 2) / 2
    assert p.lower <= exact <= p.upper
    assert p.upper - p.lower < mpmath.mpf(10) ** -38


@pytest.mark.parametrize("d,b", [(F(1), F(2)), (F(0), F(1)), (F(5, 2), F(1, 3)), (F(3), F(4))])
def test_noisy_max_two_queries_closed_form(d: F, b: F) -> None:
    # Z = Y - X for i.i.d. Lap(b) has density (1 + |z|/b) e^{-|z|/b} / (4b), hence
    # P(Z > d) = e^{-d/b} (1 + d/(2b)) / 2 for d >= 0 (worked by hand), so
    # P(q1 + X > q2 + Y) = P(Z < d) = 1 - e^{-d/b}(1 + d/(2b))/2 with d = q1 - q2.
    xs, ys = DrawLaw("x", "laplace", b), DrawLaw("y", "laplace", b)
    p = conjunction_probability([xs, ys], [Constraint({"x": 1, "y": -1}, d, ">")])
    want = 1 - mpmath.exp(-mpmath.mpf(d.numerator) / d.denominator
                          / (mpmath.mpf(b.numerator) / b.denominator)) * (
        1 + mpmath.mpf(d.numerator) / d.denominator / (2 * mpmath.mpf(b.numerator)
                                                      / b.denominator)) / 2
    assert p.lower <= want <= p.upper
    assert p.upper - p.lower < mpmath.mpf(10) ** -35


def test_svt_like_2d_against_scipy_dblquad() -> None:
    # rho ~ Lap(2) threshold noise, nu ~ Lap(3): P(q + nu >= T + rho, rho <= 1/2), q=1/2, T=0
    rho, nu = DrawLaw("rho", "laplace", F(2)), DrawLaw("nu", "laplace", F(3))
    cons = [Constraint({"nu": 1, "rho": -1}, F(1, 2), ">="), Constraint({"rho": 1}, F(-1, 2), "<=")]
    p = conjunction_probability([rho, nu], cons)

    def inner(r: float) -> float:
        return lap_pdf(r, 2) * (1 - lap_cdf(r - 0.5, 3))

    val, err = integrate.quad(inner, -np.inf, 0.5, epsabs=1e-13, epsrel=1e-13, limit=200)
    # and a genuine 2-D integral (nested quadrature, split at the kinks nu = 0, rho = 0,
    # rho = -1/2), over a box holding all but ~1e-12 of the mass
    def nu_integral(r: float) -> float:
        lo = r - 0.5
        parts = [(lo, 0.0), (0.0, 90.0)] if lo < 0 else [(lo, 90.0)]
        return sum(integrate.quad(lambda n: lap_pdf(n, 3), a, b, epsabs=1e-14,
                                  epsrel=1e-13)[0] for a, b in parts)

    val2 = sum(integrate.quad(lambda r: lap_pdf(r, 2) * nu_integral(r), a, b,
                              epsabs=1e-14, epsrel=1e-13)[0]
               for a, b in [(-60.0, -0.5), (-0.5, 0.0), (0.0, 0.5)])
    assert abs(float(p.mid) - val) < 1e-11
    assert abs(float(p.mid) - val2) < 1e-10


def test_three_draw_star_against_monte_carlo() -> None:
    # Sparse Vector with 2 queries, output (False, True): q = (0.3, -0.4), T = 0.2
    rho = DrawLaw("rho", "laplace", F(2))
    n1, n2 = DrawLaw("n1", "laplace", F(4)), DrawLaw("n2", "laplace", F(4))
    q1, q2, t = F(3, 10), F(-2, 5), F(1, 5)
    cons = [Constraint({"n1": 1, "rho": -1}, q1 - t, "<"),
            Constraint({"n2": 1, "rho": -1}, q2 - t, ">=")]
    p = float(conjunction_probability([rho, n1, n2], cons).mid)
    rng = np.random.default_rng(20261126)
    m = 2_000_000
    r = rng.laplace(0, 2, m)
    a = rng.laplace(0, 4, m)
    c = rng.laplace(0, 4, m)
    freq = np.mean((float(q1) + a < float(t) + r) & (float(q2) + c >= float(t) + r))
    sd = math.sqrt(p * (1 - p) / m)
    # 5 standard errors: a correct value fails with probability ~6e-7 (seeded: fixed outcome)
    assert abs(freq - p) < 5 * sd
    assert abs(p - (p + 0.01)) > 5 * sd  # the check can fail: a 0.01 error is 20+ sd


def test_union_of_complementary_paths_is_exactly_one() -> None:
    # {x > y + 1} and {x <= y + 1} partition the space: the closed form must be 1 exactly
    a = [Constraint({"x": 1, "y": -1}, F(-1), ">")]
    b = [Constraint({"x": 1, "y": -1}, F(-1), "<=")]
    p = event_probability([X, Y], [a, b])
    assert p.closed_form == ((F(1), F(0)),)


def test_geometric_tail_and_pair_against_brute_force() -> None:
    g, h = DrawLaw("g", "geometric", F(3)), DrawLaw("h", "geometric", F(2))
    a = math.exp(-1 / 3)
    # P(G >= 2) = a^2/(1+a) (sum of the pmf (1-a)/(1+a) a^k over k >= 2)
    p = conjunction_probability([g], [Constraint({"g": 1}, F(-2), ">=")])
    assert abs(float(p.mid) - a ** 2 / (1 + a)) < 1e-14
    assert p.closed_form is None and p.lower <= p.upper
    # strict vs non-strict differ for integers: P(G > 2) = a^3/(1+a)
    p3 = conjunction_probability([g], [Constraint({"g": 1}, F(-2), ">")])
    assert abs(float(p3.mid) - a ** 3 / (1 + a)) < 1e-14
    # P(G + 1/2 > H) by a brute-force double sum over |k| <= 400
    ks = np.arange(-400, 401)
    pg = (1 - a) / (1 + a) * a ** np.abs(ks)
    ah = math.exp(-1 / 2)
    ph = (1 - ah) / (1 + ah) * ah ** np.abs(ks)
    brute = sum(pg[i] * ph[ks < ks[i] + 0.5].sum() for i in range(len(ks)))
    pp = conjunction_probability([g, h], [Constraint({"g": 1, "h": -1}, F(1, 2), ">")])
    assert abs(float(pp.mid) - brute) < 1e-12
    assert pp.upper - pp.lower < mpmath.mpf(10) ** -30


def test_outside_the_class_is_refused() -> None:
    z = DrawLaw("z", "laplace", F(1))
    with pytest.raises(UnsupportedEvent, match="links 3 draws"):
        conjunction_probability([X, Y, z], [Constraint({"x": 1, "y": 1, "z": 1}, 0, ">=")])
    with pytest.raises(UnsupportedEvent, match="cycle"):  # x, y, z compared pairwise
        conjunction_probability([X, Y, z], [Constraint({"x": 1, "y": -1}, 0, ">="),
                                            Constraint({"y": 1, "z": -1}, 0, ">="),
                                            Constraint({"z": 1, "x": -1}, 1, ">=")])
    g = DrawLaw("g", "geometric", F(1))
    with pytest.raises(UnsupportedEvent, match="continuous hub"):
        conjunction_probability([X, g, Y], [Constraint({"x": 1, "g": -1}, 0, ">="),
                                            Constraint({"x": 1, "y": -1}, 0, ">=")])
    with pytest.raises(UnsupportedEvent, match="law"):
        DrawLaw("w", "gaussian", F(1))


def test_equality_on_continuous_draw_has_probability_zero() -> None:
    p = conjunction_probability([X], [Constraint({"x": 1}, F(1), "==")])
    assert p.upper == 0 and p.closed_form == ()


def test_tree_elimination_equals_the_star_form_for_noisy_max() -> None:
    # P(argmax = j) of Noisy Max on 4 queries two ways: (a) the union of the program's
    # paths (chains of comparisons with the running maximum: trees, message passing);
    # (b) the single conjunction {q_j + x_j > q_i + x_i for all i != j} (a star around x_j).
    # Different decompositions of the same event: the exact closed forms must be equal.
    from audit.prove.benchmark import noisy_max
    from audit.prove.refute import trace_paths

    q = [F(0), F(1), F(-1, 2), F(1, 3)]
    paths = trace_paths(noisy_max.noisy_max, q, 1)
    assert any(len({d for c in p.constraints for d in c.draws}) == 4
               and len(p.constraints) == 3 for p in paths)  # a chain of 4: no common hub
    draws = {f"x{i}": DrawLaw(f"x{i}", "laplace", F(2)) for i in range(4)}
    total = mpmath.mpf(0)
    for j in range(4):
        mine = [p for p in paths if p.output == (j,)]
        d = {k: v for p in mine for k, v in p.draws.items()}
        a = event_probability(d, [list(p.constraints) for p in mine])
        b = conjunction_probability(draws, [
            Constraint({f"x{j}": 1, f"x{i}": -1}, q[j] - q[i], ">") for i in range(4) if i != j])
        assert a.closed_form == b.closed_form
        total += a.mid
    assert abs(total - 1) < mpmath.mpf(10) ** -35


def test_chain_against_monte_carlo() -> None:
    # x1 < x2 + 1/2, x2 < x3, x3 <= 1 (a chain with an own bound), mixed scales
    a, b, c = (DrawLaw("a", "laplace", F(1)), DrawLaw("b", "laplace", F(2)),
               DrawLaw("c", "laplace", F(1, 2)))
    cons = [Constraint({"a": 1, "b": -1}, F(-1, 2), "<"), Constraint({"b": 1, "c": -1}, 0, "<"),
            Constraint({"c": 1}, F(-1), "<=")]
    p = float(conjunction_probability([a, b, c], cons).mid)
    rng = np.random.default_rng(7)
    m = 2_000_000
    xa, xb, xc = rng.laplace(0, 1, m), rng.laplace(0, 2, m), rng.laplace(0, 0.5, m)
    freq = np.mean((xa < xb + 0.5) & (xb < xc) & (xc <= 1))
    sd = math.sqrt(p * (1 - p) / m)
    assert abs(freq - p) < 5 * sd  # false alarm ~6e-7 for a correct value; seed fixed


def test_geometric_hub_with_laplace_leaf_against_brute_force() -> None:
    # P(G + X > 1/2), G two-sided geometric scale 1, X ~ Lap(1): sum_k p(k) P(X > 1/2 - k)
    g, x = DrawLaw("g", "geometric", F(1)), DrawLaw("x", "laplace", F(1))
    p = conjunction_probability([g, x], [Constraint({"g": 1, "x": 1}, F(-1, 2), ">")])
    a = math.exp(-1)
    brute = sum((1 - a) / (1 + a) * a ** abs(k) * (1 - lap_cdf(0.5 - k, 1))
                for k in range(-200, 201))
    assert abs(float(p.mid) - brute) < 1e-13
    assert p.closed_form is None  # a truncated sum: enclosure only
    assert p.upper - p.lower < mpmath.mpf(10) ** -30


def test_geometric_equalities_are_exact() -> None:
    g, h = DrawLaw("g", "geometric", F(2)), DrawLaw("h", "geometric", F(2))
    a = math.exp(-1 / 2)
    pmf = (1 - a) / (1 + a)
    # P(G == 1) and P(G == 1/2) = 0 (G integer)
    assert abs(float(conjunction_probability([g], [Constraint({"g": 1}, -1, "==")]).mid)
               - pmf * a) < 1e-14
    assert conjunction_probability([g], [Constraint({"g": 2}, -1, "==")]).upper == 0
    # hub equality: P(G == 1, H <= G) = pmf(1) * P(H <= 1)
    p = conjunction_probability([g, h], [Constraint({"g": 1}, -1, "=="),
                                         Constraint({"h": 1, "g": -1}, 0, "<=")])
    want = pmf * a * (1 - a ** 2 / (1 + a))
    assert abs(float(p.mid) - want) < 1e-14
    assert conjunction_probability([g, h], [Constraint({"g": 2}, -1, "=="),
                                            Constraint({"h": 1, "g": -1}, 0, "<=")]).upper == 0
