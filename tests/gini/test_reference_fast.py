"""The exact reference's fast path for float arrays (issue 16) equals its general path and
the brute-force oracles, value for value (exact Fractions, no tolerance)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from proofs.gini import oracles
from proofs.gini import reference as R

finite = st.floats(min_value=0.0, max_value=1e6, allow_nan=False, allow_infinity=False,
                   allow_subnormal=True)


@settings(max_examples=150)
@given(st.lists(finite, min_size=2, max_size=30))
@example([0.0, 5e-324])  # smallest subnormal: den = 2^1074
@example([0.0, 0.0, 1.0])
@example([1e-300, 1e6])  # ~3000-bit scaled integers
def test_gini_fast_equals_general(xs: list[float]) -> None:
    arr = np.asarray(xs, dtype=np.float64)
    if arr.max() == 0:
        with pytest.raises(R.ZeroTotalError):
            R.gini_eq2(arr)
        return
    assert R.gini_eq2(arr) == R.gini_eq2([Fraction(v) for v in xs])
    assert R.gini_eq1(arr) == R.gini_eq1([Fraction(v) for v in xs])


@settings(max_examples=60)
@given(st.lists(st.floats(min_value=0.0, max_value=8.0, allow_nan=False, allow_subnormal=False),
                min_size=2, max_size=9),
       st.sampled_from([(0.0, 8.0), (0.0, 10.0), (Fraction(0), Fraction(25, 3))]))
def test_extremes_and_smooth_fast_equal_general(xs: list[float], bounds: tuple) -> None:
    arr = np.asarray(xs, dtype=np.float64)
    if arr.max() == 0:
        return
    L, U = bounds  # 25/3 is not dyadic: the fast path must decline, same answer
    fast = R.extremes(arr, L, U)
    slow = R.extremes([Fraction(v) for v in xs], L, U)
    assert fast == slow
    sf = R.smooth_sensitivity(arr, L, U, Fraction(1, 6))
    ss = R.smooth_sensitivity([Fraction(v) for v in xs], L, U, Fraction(1, 6))
    assert sf.A == ss.A and sf.value == ss.value


def test_fast_path_matches_brute_force_ball() -> None:
    rng = np.random.default_rng(7)
    for _ in range(20):
        arr = rng.integers(0, 5, size=4).astype(np.float64) / 4
        if arr.max() == 0:
            continue
        ext = R.extremes_k(arr, 0.0, 1.0, 1, witnesses=False)
        mmin, mmax, gmin, gmax = oracles.extremes_bruteforce(
            [Fraction(v) for v in arr], Fraction(0), Fraction(1), 1)
        assert (ext["min_mean"], ext["max_mean"], ext["min_gini"], ext["max_gini"]) == (
            mmin, mmax, gmin, gmax)


def test_fast_path_rejects_like_general() -> None:
    with pytest.raises(R.NonFiniteError):
        R.gini_eq2(np.array([1.0, np.nan]))
    with pytest.raises(R.OutOfBoundsError, match="above U"):
        R.extremes(np.array([1.0, 3.0]), 0.0, 2.0)
    with pytest.raises(R.NegativeIncomeError):
        R.gini_eq2(np.array([-1.0, 3.0]))
