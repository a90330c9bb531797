"""k-replacement extremes of the mean and of the Gini index vs exact brute force."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction as Q

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kernels.errors import InvalidKError, OutOfBoundsError
from kernels.gini.extremes import (
    extremes,
    max_gini,
    max_gini_witness,
    max_mean,
    min_gini,
    min_gini_witness,
    min_mean,
)
from tests.common.exact import extremes_bruteforce, gini2

RTOL = 1e-12  # small data: float kernel vs exact optimum


def _dist(a: list[Q], b: list[Q]) -> int:
    """Replacement distance between multisets of equal size."""
    return len(a) - sum((Counter(a) & Counter(b)).values())


@st.composite
def datasets(draw, max_n: int = 7):
    L = draw(st.sampled_from([Q(0), Q(0), Q(1), Q(5, 2)]))
    width = draw(st.sampled_from([Q(1), Q(3), Q(10)]))
    U = L + width
    n = draw(st.integers(2, max_n))
    grid = [L + width * Q(i, 8) for i in range(9)]  # ties, L and U themselves
    x = draw(st.lists(st.sampled_from(grid), min_size=n, max_size=n))
    if sum(x) == 0:
        x[-1] = U
    return x, L, U


@given(datasets())
@example(([Q(3), Q(6), Q(7), Q(15, 2)], Q(0), Q(10)))
@example(([Q(0), Q(0), Q(0), Q(1)], Q(0), Q(1)))
@example(([Q(1), Q(1)], Q(1), Q(2)))
@settings(max_examples=150, deadline=None)
def test_all_k_match_bruteforce(case) -> None:
    x, L, U = case
    t = extremes([float(v) for v in x], float(L), float(U))
    for k in range(len(x) + 1):
        mmin, mmax, gmin, gmax = extremes_bruteforce(x, L, U, k)
        assert t.min_mean[k] == pytest.approx(float(mmin), rel=RTOL, abs=1e-15)
        assert t.max_mean[k] == pytest.approx(float(mmax), rel=RTOL, abs=1e-15)
        assert t.min_gini[k] == pytest.approx(float(gmin), rel=RTOL, abs=1e-15), k
        assert t.max_gini[k] == pytest.approx(float(gmax), rel=RTOL, abs=1e-15), k


@given(datasets(max_n=9), st.data())
@settings(max_examples=100, deadline=None)
def test_witnesses_are_feasible_and_attain(case, data) -> None:
    x, L, U = case
    xf = [float(v) for v in x]
    k = data.draw(st.integers(0, len(x)))
    for wit_fn, val_fn in ((max_gini_witness, max_gini), (min_gini_witness, min_gini)):
        w = [Q(v) for v in wit_fn(xf, k, float(L), float(U))]
        assert len(w) == len(x)
        assert all(L <= v <= U for v in w)
        assert _dist(sorted(x), w) <= k
        gw = gini2(w)
        assert gw is not None
        assert val_fn(xf, k, float(L), float(U)) == pytest.approx(float(gw), rel=RTOL, abs=1e-15)


def test_blind_random_search_never_beats_kernel() -> None:
    """No data set found by random search in the k-ball (arbitrary rational replacement
    values, not the candidate sets of the oracle) exceeds max_gini or undercuts min_gini.
    Seeded; 300 data sets x 200 random neighbours each."""
    rng = random.Random(20261122)
    for _ in range(300):
        n = rng.randint(2, 8)
        L = Q(rng.choice([0, 0, 1]))
        U = L + rng.choice([1, 4, 9])
        x = [L + (U - L) * Q(rng.randint(0, 16), 16) for _ in range(n)]
        if sum(x) == 0:
            continue
        k = rng.randint(0, n)
        xf = [float(v) for v in x]
        gmax = max_gini(xf, k, float(L), float(U))
        gmin = min_gini(xf, k, float(L), float(U))
        for _ in range(200):
            pos = rng.sample(range(n), k)
            y = list(x)
            for p in pos:
                y[p] = L + (U - L) * Q(rng.randint(0, 997), 997)
            g = gini2(y)
            if g is None:
                continue
            assert float(g) <= gmax * (1 + 1e-12) + 1e-15
            assert float(g) >= gmin * (1 - 1e-12) - 1e-15


def test_toy_example_section3_exact_values() -> None:
    """Section 3 toy X = (3, 6, 7, 7.5), L = 0, U = 10: exact optima (eq. 2).

    Paper: k=1 min 'approx 0.054' (exact 3/55 = 0.05454..., so the paper truncates),
    k=2 min 'approx 0.017' (1/59 = 0.01695), k=1 max 'approx 0.515' (17/33),
    k=2 max 'approx 0.809' (17/21 = 0.80952..., again truncated), k=3 max 1.
    """
    t = extremes([3, 6, 7, 7.5], 0, 10)
    exact_min = [Q(29, 141), Q(3, 55), Q(1, 59), Q(0), Q(0)]
    exact_max = [Q(29, 141), Q(17, 33), Q(17, 21), Q(1), Q(1)]
    for k in range(5):
        assert t.min_gini[k] == pytest.approx(float(exact_min[k]), rel=RTOL, abs=1e-15)
        assert t.max_gini[k] == pytest.approx(float(exact_max[k]), rel=RTOL, abs=1e-15)
    # the witnesses named in the paper
    np.testing.assert_array_equal(min_gini_witness([3, 6, 7, 7.5], 1, 0, 10), [6, 7, 7, 7.5])
    np.testing.assert_array_equal(min_gini_witness([3, 6, 7, 7.5], 2, 0, 10), [7, 7.5, 7.5, 7.5])
    np.testing.assert_array_equal(max_gini_witness([3, 6, 7, 7.5], 1, 0, 10), [0, 3, 6, 7.5])
    np.testing.assert_array_equal(max_gini_witness([3, 6, 7, 7.5], 2, 0, 10), [0, 0, 3, 7.5])


def _structured_max_exact(x: list[int], L: int, U: int, k: int) -> Q:
    """Exact max of eq. (2) over windows s and j (structure confirmed by brute force)."""
    n = len(x)
    best = None
    for s in range(0, n - k + 1):
        kept = x[:s] + x[s + k :]
        for j in range(k + 1):
            g = gini2([Q(v) for v in kept] + [Q(L)] * j + [Q(U)] * (k - j))
            if g is not None and (best is None or g > best):
                best = g
    return best


def test_larger_n_float_accuracy_against_exact() -> None:
    """n = 300 heavy-tailed integer incomes: kernel max/min vs exact structured optimum,
    rtol 1e-9 (float64 with long-double prefix sums)."""
    rng = np.random.default_rng(7)
    x = sorted(int(v) for v in rng.lognormal(10, 1.2, 300))
    L, U = 0, int(2.5 * max(x))
    t = extremes(x, L, U, k_max=12)
    for k in (1, 4, 12):
        assert t.max_gini[k] == pytest.approx(float(_structured_max_exact(x, L, U, k)), rel=1e-9)
        # min: block of n-k consecutive records, k copies of one block value
        best = None
        xq = [Q(v) for v in x]
        for b in range(k + 1):
            block = xq[b : len(x) - k + b]
            for c in set(block):
                g = gini2(block + [c] * k)
                best = g if best is None or g < best else best
        assert t.min_gini[k] == pytest.approx(float(best), rel=1e-9)


def test_monotone_in_k() -> None:
    x = np.random.default_rng(1).lognormal(3, 1, 400)
    t = extremes(x, 0, 3 * x.max(), k_max=60)
    assert np.all(np.diff(t.max_gini) >= -1e-15)
    assert np.all(np.diff(t.min_gini) <= 1e-15)
    assert np.all(np.diff(t.max_mean) >= 0)
    assert np.all(np.diff(t.min_mean) <= 0)


def test_scalar_wrappers_and_validation() -> None:
    x = [3, 6, 7, 7.5]
    assert min_mean(x, 1, 0, 10) == pytest.approx((3 + 6 + 7) / 4)
    assert max_mean(x, 1, 0, 10) == pytest.approx((6 + 7 + 7.5 + 10) / 4)
    with pytest.raises(InvalidKError, match="got 5"):
        max_gini(x, 5, 0, 10)
    with pytest.raises(InvalidKError, match="got -1"):
        min_gini(x, -1, 0, 10)
    with pytest.raises(OutOfBoundsError, match="11"):
        max_gini([1, 11], 1, 0, 10)
    assert max_gini([1, 11], 1, 0, 10, clip=True) == pytest.approx(1.0)
