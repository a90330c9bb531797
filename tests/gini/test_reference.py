"""proofs.gini.reference (exact reference) vs brute force, the paper's toy example and the
kernels."""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction as Q

import mpmath
import numpy as np
import pytest

from proofs.gini import reference as ref
from tests.common.exact import (
    ball_lower_bound_A,
    extremes_bruteforce,
    gini1_double_sum,
    gini2,
    local_sensitivity,
)


def _dist(a: list[Q], b: list[Q]) -> int:
    """Replacement distance between two multisets of equal size."""
    return len(a) - sum((Counter(a) & Counter(b)).values())


def _random_cases(seed: int, count: int, max_n: int = 7):
    """Small exact data sets: grid values (ties, zeros, L and U themselves), L > 0, and
    non-dyadic fractions (exercises the common-denominator scaling)."""
    rng = random.Random(seed)
    for i in range(count):
        L = rng.choice([Q(0), Q(0), Q(1), Q(5, 2), Q(1, 3)])
        width = rng.choice([Q(1), Q(3), Q(10), Q(7, 3)])
        U = L + width
        n = rng.randint(2, max_n)
        if i % 5 == 4:
            x = [L + width * Q(rng.randint(0, 30), 30) for _ in range(n)]
        elif i % 7 == 6:  # mostly zeros
            x = [L if rng.random() < 0.7 else L + width * Q(rng.randint(1, 8), 8)
                 for _ in range(n)]
        else:
            x = [L + width * Q(rng.randint(0, 8), 8) for _ in range(n)]
        if sum(x) == 0:
            x[-1] = U
        yield x, L, U


CASES = list(_random_cases(20250611, 160))


# ------------------------------------------------------------------------ toy example
def test_section3_toy() -> None:
    x, L, U = [3, 6, 7, Q(15, 2)], 0, 10
    assert ref.gini_eq2(x) == Q(29, 141)
    assert ref.gini_eq2([3.0, 6.0, 7.0, 7.5]) == Q(29, 141)  # floats converted exactly
    t = ref.extremes(x, L, U)
    assert [e["k"] for e in t] == [0, 1, 2, 3, 4]
    assert t[0]["min_gini"] == t[0]["max_gini"] == Q(29, 141)
    assert t[1]["min_gini"] == Q(3, 55)
    assert t[2]["min_gini"] == Q(1, 59)
    assert t[1]["max_gini"] == Q(17, 33)
    assert t[2]["max_gini"] == Q(17, 21)
    assert t[3]["max_gini"] == 1
    # the witnesses named in Section 3
    assert t[1]["min_witness"] == [6, 7, 7, Q(15, 2)]
    assert t[2]["min_witness"] == [7, Q(15, 2), Q(15, 2), Q(15, 2)]
    assert t[1]["max_witness"] == [0, 3, 6, Q(15, 2)]
    assert t[2]["max_witness"] == [0, 0, 3, Q(15, 2)]
    assert ref.extremes_k(x, L, U, 2) == t[2]


# ---------------------------------------------------------------------- Gini formulas
@pytest.mark.parametrize("case", CASES[:60])
def test_gini_forms(case) -> None:
    x, _, _ = case
    n = len(x)
    assert ref.gini_eq2(x) == gini2(x)
    assert ref.gini_eq1(x) == gini1_double_sum(x)
    assert ref.gini_eq2(x) == Q(n, n - 1) * ref.gini_eq1(x)
    assert ref.gini_eq2(list(reversed(x))) == ref.gini_eq2(x)


# ------------------------------------------------------------- extremes vs brute force
def test_extremes_all_k_match_bruteforce() -> None:
    assert len(CASES) >= 100
    assert any(L > 0 for _, L, _ in CASES)
    assert any(0 in x for x, _, _ in CASES)
    assert any(len(set(x)) < len(x) for x, _, _ in CASES)
    for x, L, U in CASES:
        table = ref.extremes(x, L, U)
        assert len(table) == len(x) + 1
        for k, e in enumerate(table):
            mmin, mmax, gmin, gmax = extremes_bruteforce(x, L, U, k)
            got = (e["min_mean"], e["max_mean"], e["min_gini"], e["max_gini"])
            assert got == (mmin, mmax, gmin, gmax), (x, L, U, k)
            for key, opt in (("max_witness", gmax), ("min_witness", gmin)):
                w = e[key]
                assert w == sorted(w) and len(w) == len(x)
                assert all(L <= v <= U for v in w)
                assert _dist(w, x) <= k, (key, x, k, w)
                assert gini2(w) == opt, (key, x, k, w)


def test_extremes_float_input_and_k_max() -> None:
    x = [0.1, 0.2, 0.2, 0.7, 1.3]
    t = ref.extremes(x, 0.0, 2.0, k_max=2)
    assert len(t) == 3
    xq = [Q(v) for v in x]  # Fraction(float) is exact
    for k in range(3):
        assert (t[k]["min_mean"], t[k]["max_mean"], t[k]["min_gini"], t[k]["max_gini"]) == \
            extremes_bruteforce(xq, Q(0), Q(2), k)
    assert "max_witness" not in ref.extremes(x, 0.0, 2.0, k_max=1, witnesses=False)[1]


# -------------------------------------------------------------- local sensitivity, bounds
def test_local_sensitivity_and_bound_A_at_k0() -> None:
    for x, L, U in CASES[:120]:
        ls = ref.local_sensitivity_exact(x, L, U)
        assert ls == local_sensitivity(x, L, U), (x, L, U)
        e = ref.extremes(x, L, U, k_max=0, witnesses=False)[0]
        a43 = ref.bound_A(len(x), L, U, e["min_gini"], e["max_gini"], e["min_mean"],
                          e["max_mean"])
        a44 = ref.bound_A_iq(len(x), sum(x), L, U, 0)
        assert ls <= a43 <= a44 <= 1, (x, L, U, ls, a43, a44)


def test_bounds_dominate_exact_ls_on_the_1_ball() -> None:
    """A^(1) >= the exact LS of every data set obtained by replacing one record by a grid
    value (a lower bound on the true A^(1)); thm44 >= thm43 for every k."""
    small = [c for c in CASES if len(c[0]) <= 4][:25]
    assert len(small) >= 15
    for x, L, U in small:
        n = len(x)
        values = sorted({L, U, (L + U) / 2} | set(x))
        lower, _ = ball_lower_bound_A(x, L, U, 1, values)
        table = ref.extremes(x, L, U, witnesses=False)
        for k, e in enumerate(table):
            a43 = ref.bound_A(n, L, U, e["min_gini"], e["max_gini"], e["min_mean"],
                              e["max_mean"])
            assert a43 <= ref.bound_A_iq(n, sum(x), L, U, k)
            if k == 1:
                assert lower <= a43, (x, L, U, lower, a43)


def test_bound_A_hand_values() -> None:
    # n = 2, x = (1/2, 1), L = 1/2, U = 1 (the example after Theorem 4.4): s_lo = 3/2 > 1/2
    e = ref.extremes([Q(1, 2), 1], Q(1, 2), 1, k_max=0)[0]
    assert e["min_gini"] == Q(1, 3)
    a = ref.bound_A(2, Q(1, 2), 1, Q(1, 3), Q(1, 3), Q(3, 4), Q(3, 4))
    # C1 = max((1/2)(2/3)/2, 2(3/2 - 1)/(3/2)) = 2/3; C2 = max((1/2)(4/3)/1, 2(2 - 3/2)/1) = 1
    assert a == 1
    # trivial case: n min xbar <= U - L
    assert ref.bound_A(3, 0, 10, 0, 1, 1, 2) == 1
    assert ref.bound_A_iq(3, 30, 0, 10, 3) == 1


# --------------------------------------------------------------- smooth sensitivity
def test_smooth_sensitivity_small_exact_structure() -> None:
    for x, L, U in CASES[:40]:
        for beta in (Q(1, 20), 0.5, 2):
            for bound in ("thm43", "thm44"):
                s = ref.smooth_sensitivity(x, L, U, beta, bound=bound)
                b = Q(beta)
                with mpmath.workdps(60):
                    terms = [mpmath.exp(-k * mpmath.mpf(b.numerator) / b.denominator)
                             * mpmath.mpf(a.numerator) / a.denominator
                             for k, a in enumerate(s.A)]
                    best = max(terms)
                    assert abs(best - s.value) <= mpmath.mpf(10) ** -40 * best
                    assert terms.index(best) == s.k_argmax
                    # pruning is valid: every later term is <= e^{-beta k} <= value
                    if s.k_evaluated < len(x):
                        assert mpmath.exp(-s.k_evaluated * mpmath.mpf(b.numerator)
                                          / b.denominator) <= s.value * (1 + 1e-40)
                assert len(s.A) == s.k_evaluated + 1
                assert s.A[0] >= ref.local_sensitivity_exact(x, L, U)
                assert mpmath.mpf(s.value_float) >= s.value
                assert s.value_float == pytest.approx(float(s.value), rel=1e-15)
                assert s.dps_used >= 35


def test_smooth_sensitivity_pruning_cases() -> None:
    x, L, U = [3, 6, 7, Q(15, 2)], 0, 10
    s = ref.smooth_sensitivity(x, L, U, Q(1, 10**6))
    # A^(1) = 1 already (C2 > 1): the maximum is e^{-beta} at k = 1 and the scan stops at
    # k = 2 (e^{-2 beta} <= e^{-beta})
    assert s.A == [Q(3400, 3807), 1, 1]
    assert (s.k_argmax, s.k_evaluated) == (1, 2)
    s = ref.smooth_sensitivity(x, L, U, 50)  # huge beta: stops at k = 1, argmax 0
    assert (s.k_argmax, s.k_evaluated) == (0, 1)
    with mpmath.workdps(50):
        assert abs(s.value - mpmath.mpf(3400) / 3807) < mpmath.mpf(10) ** -45
    # L > 0 and narrow [L, U]: every A^(k) < 1, so a tiny beta scans all k = 0..n
    x, L, U = [10, Q(21, 2), 11, Q(51, 5)], 10, 11
    s = ref.smooth_sensitivity(x, L, U, Q(1, 10**9))
    assert s.k_evaluated == 4 and len(s.A) == 5 and max(s.A) < 1
    assert s.A == sorted(s.A)  # the k-balls are nested
    assert s.A[s.k_argmax] == max(s.A)


# -------------------------------------------------------------- kernels cross-check
@pytest.fixture(scope="module")
def lognormal_2000():
    x = np.random.default_rng(7).lognormal(10, 1, 2000)
    return x, 0.0, float(2.5 * x.max())


def test_kernels_extremes_agree(lognormal_2000) -> None:
    from kernels.gini.extremes import extremes as k_extremes
    from kernels.gini.extremes import max_gini, max_mean, min_gini, min_mean

    x, L, U = lognormal_2000
    t = k_extremes(x, L, U, k_max=25)
    r = ref.extremes(x, L, U, k_max=25, witnesses=False)
    for k in range(26):
        for name in ("min_mean", "max_mean", "min_gini", "max_gini"):
            assert getattr(t, name)[k] == pytest.approx(float(r[k][name]), rel=1e-9), (k, name)
    fns = {"min_mean": min_mean, "max_mean": max_mean, "min_gini": min_gini,
           "max_gini": max_gini}
    for k in (200, 1000, 1999, 2000):
        e = ref.extremes_k(x, L, U, k, witnesses=False)
        for name, fn in fns.items():
            assert fn(x, k, L, U) == pytest.approx(float(e[name]), rel=1e-9, abs=1e-15), (k, name)


def test_kernels_extremes_agree_with_offset_and_ties() -> None:
    from kernels.gini.extremes import extremes as k_extremes

    g = np.random.default_rng(3)
    x = 100.0 + np.round(g.lognormal(6, 1.5, 800), 0)  # ties, L > 0
    x[:50] = 100.0
    L, U = 100.0, float(2 * x.max())
    t = k_extremes(x, L, U, k_max=30)
    r = ref.extremes(x, L, U, k_max=30, witnesses=False)
    for k in range(31):
        for name in ("min_mean", "max_mean", "min_gini", "max_gini"):
            assert getattr(t, name)[k] == pytest.approx(float(r[k][name]), rel=1e-9), (k, name)


@pytest.mark.parametrize("bound", ["thm43", "thm44"])
@pytest.mark.parametrize("beta", [0.25 / 6, 0.01, 0.5])
def test_kernels_smooth_sensitivity_agree(lognormal_2000, bound, beta) -> None:
    from kernels.gini.sensitivity import smooth_sensitivity as k_smooth

    x, L, U = lognormal_2000
    s = ref.smooth_sensitivity(x, L, U, beta, bound=bound)
    k = k_smooth(x, L, U, beta, bound=bound)
    assert k.value == pytest.approx(s.value_float, rel=1e-9)
    assert k.k_argmax == s.k_argmax
    assert abs(k.k_evaluated - s.k_evaluated) <= 1
    m = min(len(k.bounds), len(s.A))
    assert np.allclose(k.bounds[:m], [float(a) for a in s.A[:m]], rtol=1e-9, atol=0)


def test_kernels_noise_agree() -> None:
    from kernels.gini.noise import powerlaw_cdf as k_cdf
    from kernels.gini.noise import powerlaw_pdf as k_pdf

    for gamma in (1.05, 1.5, 2.0, 3.0, 10.0, 20.0):
        for z in (-1e8, -50.0, -3.0, -1.0, -0.3, -1e-8, 0.0, 1e-8, 0.5, 1.0, 7.0, 1e3, 1e8):
            assert k_cdf(z, gamma) == pytest.approx(float(ref.powerlaw_cdf(z, gamma)), rel=1e-9)
            assert k_pdf(z, gamma) == pytest.approx(float(ref.powerlaw_pdf(z, gamma)), rel=1e-9)


# ------------------------------------------------------------------------------ noise
def test_noise_reference_identities() -> None:
    with mpmath.workdps(40):
        for gamma in (Q(3, 2), 2, 5):
            c = ref.powerlaw_constant(gamma)
            g = mpmath.mpf(Q(gamma).numerator) / Q(gamma).denominator
            def dens(t, c=c, g=g):
                return c / (1 + abs(t) ** g)

            total = 2 * mpmath.quad(dens, [0, 1, 10, 100, mpmath.inf])
            assert abs(total - 1) < mpmath.mpf(10) ** -15
            for z in (Q(-7, 2), Q(-1, 3), Q(1, 2), 2):
                zz = mpmath.mpf(z.numerator) / z.denominator
                quad = mpmath.quad(dens, [-mpmath.inf, -100, -10, -1, 0, zz])
                assert abs(ref.powerlaw_cdf(z, gamma) - quad) < mpmath.mpf(10) ** -15
                assert abs(ref.powerlaw_cdf(z, gamma) + ref.powerlaw_cdf(-z, gamma) - 1) \
                    < mpmath.mpf(10) ** -40
                assert abs(ref.powerlaw_sf(z, gamma) - ref.powerlaw_cdf(-z, gamma)) \
                    < mpmath.mpf(10) ** -40
        for z in (-5.0, -0.25, 0.0, 0.75, 9.0):  # gamma = 2: standard Cauchy
            assert abs(ref.powerlaw_cdf(z, 2) - (mpmath.mpf(1) / 2 + mpmath.atan(z) / mpmath.pi)) \
                < mpmath.mpf(10) ** -40
            assert abs(ref.powerlaw_pdf(z, 2) - 1 / (mpmath.pi * (1 + mpmath.mpf(z) ** 2))) \
                < mpmath.mpf(10) ** -40
        # far left tail keeps relative accuracy: F(-z) ~ c z^{1-g}/(g-1)
        z = mpmath.mpf(10) ** 60
        tail = ref.powerlaw_cdf(-z, 3)
        c3 = ref.powerlaw_constant(3)
        assert abs(tail / (c3 * z ** -2 / 2) - 1) < mpmath.mpf(10) ** -30
        for q in (Q(1, 10**9), Q(3, 10), Q(77, 100)):
            zq = ref.powerlaw_ppf(q, Q(3, 2))
            assert abs(ref.powerlaw_cdf(zq, Q(3, 2)) - mpmath.mpf(q.numerator) / q.denominator) \
                < mpmath.mpf(10) ** -35 * q
        assert ref.powerlaw_cdf(float("inf"), 2) == 1 and ref.powerlaw_cdf(float("-inf"), 2) == 0
        for z in (-2.0, 0.0, 1.5):
            e = mpmath.exp(-abs(mpmath.mpf(z)) / 3) / 2
            assert abs(ref.laplace_cdf(z, 3) - (e if z < 0 else 1 - e)) < mpmath.mpf(10) ** -40
            assert abs(ref.laplace_pdf(z, 3) - e / 3) < mpmath.mpf(10) ** -40


# ------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "call, exc",
    [
        (lambda: ref.gini_eq2([1.0]), ref.TooFewRecordsError),
        (lambda: ref.gini_eq2([0, 0, 0]), ref.ZeroTotalError),
        (lambda: ref.gini_eq1([-1, 2]), ref.NegativeIncomeError),
        (lambda: ref.gini_eq2([1.0, float("nan")]), ref.NonFiniteError),
        (lambda: ref.gini_eq2([1.0, float("inf")]), ref.NonFiniteError),
        (lambda: ref.gini_eq2(["1", 2]), TypeError),
        (lambda: ref.gini_eq2([True, 2]), TypeError),
        (lambda: ref.extremes([1, 2], 0, 1), ref.OutOfBoundsError),
        (lambda: ref.extremes([1, 2], 1.5, 3), ref.OutOfBoundsError),
        (lambda: ref.extremes([1, 2], 2, 2), ref.InvalidBoundsError),
        (lambda: ref.extremes([1, 2], 3, 2), ref.InvalidBoundsError),
        (lambda: ref.extremes([1, 2], -1, 2), ref.InvalidBoundsError),
        (lambda: ref.extremes([0, 0], 0, 2), ref.ZeroTotalError),
        (lambda: ref.extremes([1], 0, 2), ref.TooFewRecordsError),
        (lambda: ref.extremes([1, 2], 0, 2, k_max=3), ref.InvalidKError),
        (lambda: ref.extremes([1, 2], 0, 2, k_max=-1), ref.InvalidKError),
        (lambda: ref.extremes([1, 2], 0, 2, k_max=1.0), ref.InvalidKError),
        (lambda: ref.extremes_k([1, 2], 0, 2, 3), ref.InvalidKError),
        (lambda: ref.bound_A(1, 0, 1, 0, 1, 0.5, 0.5), ref.TooFewRecordsError),
        (lambda: ref.bound_A(3, 1, 1, 0, 1, 1, 1), ref.InvalidBoundsError),
        (lambda: ref.bound_A(3, -1, 1, 0, 1, 0, 0), ref.InvalidBoundsError),
        (lambda: ref.bound_A(3, 0, 1, 0, 1.5, 0.5, 0.5), ref.InvalidParameterError),
        (lambda: ref.bound_A(3, 0, 1, 0, 1, 0.5, 2), ref.InvalidParameterError),
        (lambda: ref.bound_A_iq(3, 2, 0, 1, 4), ref.InvalidKError),
        (lambda: ref.bound_A_iq(3, 0, 0, 1, 1), ref.ZeroTotalError),
        (lambda: ref.bound_A_iq(3, 5, 0, 1, 1), ref.InvalidParameterError),
        (lambda: ref.smooth_sensitivity([1, 2], 0, 2, 0), ref.InvalidParameterError),
        (lambda: ref.smooth_sensitivity([1, 2], 0, 2, -0.1), ref.InvalidParameterError),
        (lambda: ref.smooth_sensitivity([1, 2], 0, 2, 0.1, bound="x"), ref.InvalidParameterError),
        (lambda: ref.smooth_sensitivity([1, 3], 0, 2, 0.1), ref.OutOfBoundsError),
        (lambda: ref.local_sensitivity_exact([0, 0], 0, 1), ref.ZeroTotalError),
        (lambda: ref.powerlaw_pdf(0.0, 1.0), ref.InvalidParameterError),
        (lambda: ref.powerlaw_cdf(float("nan"), 2), ref.NonFiniteError),
        (lambda: ref.powerlaw_ppf(1.5, 2), ref.InvalidParameterError),
        (lambda: ref.laplace_cdf(0.0, 0), ref.InvalidParameterError),
    ],
)
def test_bad_input_raises(call, exc) -> None:
    with pytest.raises(exc) as info:
        call()
    if issubclass(exc, ref.ReferenceInputError):
        assert isinstance(info.value, ValueError)


def test_error_messages_name_the_value() -> None:
    with pytest.raises(ref.OutOfBoundsError, match="7"):
        ref.extremes([1, 7], 0, 5)
    with pytest.raises(ref.InvalidKError, match="9"):
        ref.extremes([1, 2], 0, 5, k_max=9)
    with pytest.raises(ref.InvalidBoundsError, match="-2"):
        ref.extremes([1, 2], -2, 5)


def test_input_not_modified_and_order_free() -> None:
    x = [5.0, 1.0, 3.0, 3.0, 0.0]
    before = list(x)
    a = ref.extremes(x, 0.0, 6.0, witnesses=False)
    assert x == before
    assert a == ref.extremes(sorted(x), 0.0, 6.0, witnesses=False)
    assert math.isclose(float(ref.gini_eq2(np.array(x))), float(ref.gini_eq2(x)))
