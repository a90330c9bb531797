"""Local-sensitivity bounds and smooth sensitivity vs exact brute-force truth.

A bound is checked one-sidedly: bound >= an exact lower bound on the truth (the exact
LS at k = 0; the max exact LS over a grid of the k-ball for k >= 1)."""

from __future__ import annotations

import math
import random
from fractions import Fraction as Q

import numpy as np
import pytest

from kernels.errors import InvalidParameterError, OutOfBoundsError
from kernels.gini.extremes import extremes
from kernels.gini.sensitivity import (
    bound_thm43,
    bound_thm44,
    local_sensitivity_bound,
    smooth_sensitivity,
)
from tests.common.exact import ball_lower_bound_A, local_sensitivity


def _random_case(rng: random.Random, max_n: int):
    n = rng.randint(2, max_n)
    L = Q(rng.choice([0, 0, 1, 5]))
    U = L + rng.choice([1, 2, 10])
    x = [L + (U - L) * Q(rng.randint(0, 8), 8) for _ in range(n)]
    if sum(x) == 0:
        x[-1] = U
    return x, L, U


def test_A0_bounds_exact_local_sensitivity() -> None:
    """k = 0: A^(0) >= exact LS(X) on 600 seeded data sets (n <= 8, ties, zeros, L > 0)."""
    rng = random.Random(11)
    slack = []
    for _ in range(600):
        x, L, U = _random_case(rng, 8)
        xf = [float(v) for v in x]
        ls = float(local_sensitivity(x, L, U))
        for bound in ("thm43", "thm44"):
            a0 = local_sensitivity_bound(xf, float(L), float(U), bound=bound)
            assert a0 >= ls, (x, L, U, bound, a0, ls)
        slack.append(local_sensitivity_bound(xf, float(L), float(U)) / ls if ls else 1)
    assert min(slack) >= 1.0


def test_Ak_bounds_exact_ball_lower_bound() -> None:
    """k = 1, 2: A^(k) >= max exact LS(Y) over Y in a grid of the k-ball (60 data sets)."""
    rng = random.Random(12)
    for _ in range(60):
        x, L, U = _random_case(rng, 5)
        xf = [float(v) for v in x]
        t = extremes(xf, float(L), float(U))
        a43 = bound_thm43(t)
        a44 = bound_thm44(len(x), float(sum(x)), float(L), float(U), np.arange(len(x) + 1))
        values = sorted({L, U, (L + U) / 2, L + (U - L) / 8} | set(x))
        for k in (1, 2):
            if k > len(x):
                continue
            truth, wit = ball_lower_bound_A(x, L, U, k, values)
            assert a43[k] >= float(truth), (x, L, U, k, a43[k], float(truth), wit)
            assert a44[k] >= float(truth)


def test_thm44_dominates_thm43_everywhere() -> None:
    """bound_thm44 is proved >= bound_thm43 (worst-case extremes); check on real-ish data."""
    rng = np.random.default_rng(5)
    for L in (0.0, 1000.0):
        x = L + rng.lognormal(8, 1.5, 3000)
        U = float(2.5 * x.max())
        t = extremes(x, L, U, k_max=300)
        a43 = bound_thm43(t)
        a44 = bound_thm44(x.size, float(x.sum()), L, U, t.k_values)
        assert np.all(a44 >= a43)
        assert np.all(np.diff(a43) >= 0) and np.all(np.diff(a44) >= 0)


def test_bounds_are_in_unit_interval_and_one_when_condition_fails() -> None:
    # n * min mean <= U - L: the theorem's condition fails -> trivial bound 1
    assert local_sensitivity_bound([1, 1], 0, 10) == 1.0
    x = np.random.default_rng(0).lognormal(10, 1, 1000)
    a = local_sensitivity_bound(x, 0, 2.5 * x.max())
    assert 0 < a < 1


def test_smooth_sensitivity_matches_unpruned_max() -> None:
    """The pruned scan returns exactly max_{k=0..n} e^{-beta k} A^(k) of the full table."""
    rng = np.random.default_rng(3)
    for n, beta in ((50, 0.05), (400, 0.01), (2000, 0.2)):
        x = rng.lognormal(5, 1, n)
        U = float(3 * x.max())
        full = bound_thm43(extremes(x, 0, U))
        ref = max(math.exp(-beta * k) * float(a) for k, a in enumerate(full))
        ss = smooth_sensitivity(x, 0, U, beta)
        # S is rounded up by the relative safe margin (kernels.gini.sensitivity.SAFE_MARGIN)
        assert ss.value == pytest.approx(ref * (1 + 2.0**-36), rel=1e-14)
        assert ss.k_evaluated <= n
        np.testing.assert_array_equal(ss.bounds, full[: ss.k_evaluated + 1])


def test_smooth_upper_bound_definition_2_1() -> None:
    """Definition 2.1: (1) S(X) >= LS(X) exactly; (2) S(X) <= e^beta S(X') for random
    replace-one neighbours X' (both directions), 300 seeded pairs, n <= 8."""
    rng = random.Random(13)
    for _ in range(300):
        x, L, U = _random_case(rng, 8)
        beta = rng.choice([0.05, 0.5, 2.0])
        xf = [float(v) for v in x]
        s = smooth_sensitivity(xf, float(L), float(U), beta).value
        assert s >= float(local_sensitivity(x, L, U))
        y = list(x)
        y[rng.randrange(len(y))] = L + (U - L) * Q(rng.randint(0, 8), 8)
        if sum(y) == 0:
            continue
        s2 = smooth_sensitivity([float(v) for v in y], float(L), float(U), beta).value
        assert s <= math.exp(beta) * s2 * (1 + 1e-12)
        assert s2 <= math.exp(beta) * s * (1 + 1e-12)


def test_pruning_stops_early_on_large_n() -> None:
    x = np.random.default_rng(0).lognormal(10, 1, 100_000)
    ss = smooth_sensitivity(x, 0, 2.5 * x.max(), 1 / 6)
    assert ss.k_evaluated < 200
    # every unscanned term is provably <= value: e^{-beta k} <= value at the stop
    assert math.exp(-ss.beta * ss.k_evaluated) <= ss.value


def test_validation() -> None:
    with pytest.raises(InvalidParameterError, match="beta"):
        smooth_sensitivity([1, 2], 0, 3, 0.0)
    with pytest.raises(OutOfBoundsError):
        smooth_sensitivity([1, 5], 0, 3, 0.1)
    with pytest.raises(ValueError, match="bound must be one of"):
        smooth_sensitivity([1, 2], 0, 3, 0.1, bound="eq99")  # type: ignore[arg-type]


def test_Ak_all_k_tiny_n() -> None:
    """Every k = 0..n for n <= 4: A^(k) (thm43) >= exact ball lower bound (25 data sets)."""
    rng = random.Random(14)
    for _ in range(25):
        x, L, U = _random_case(rng, 4)
        t = extremes([float(v) for v in x], float(L), float(U))
        a43 = bound_thm43(t)
        values = sorted({L, U, (L + U) / 2} | set(x))
        for k in range(len(x) + 1):
            truth, wit = ball_lower_bound_A(x, L, U, k, values)
            assert a43[k] >= float(truth), (x, L, U, k, wit)
