"""The exact reference's fast path for float arrays (issue 16) equals its general path and
the brute-force oracles, value for value (exact Fractions, no tolerance)."""

from __future__ import annotations

from fractions import Fraction
from itertools import accumulate

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from proofs.gini import oracles
from proofs.gini import reference as R
from proofs.gini.reference import rational
from proofs.gini.reference.extremes import Scaled, _LazyTable

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


# ---- the lean exact tables of issue 16: block prefix values every _BLOCK records, limb sums,
# build chunks.  Each case compares with the general Fraction path (lists of Fractions).
@pytest.mark.parametrize("n", [2, 63, 64, 65, 129, 200])
def test_block_seams_equal_general(n: int) -> None:
    rng = np.random.default_rng(n)
    arr = np.round(rng.lognormal(3.0, 1.5, n), 2)
    arr[: n // 7] = 0.0  # zeros first (frexp exponent 0) before tiny values
    arr[-1] = max(arr[-1], 1.0)
    fr = [Fraction(v) for v in arr.tolist()]
    assert R.gini_eq2(arr) == R.gini_eq2(fr)
    U = float(np.ceil(arr.max() * 2))
    fast = R.smooth_sensitivity(arr, 0.0, U, Fraction(1, 5))
    slow = R.smooth_sensitivity(fr, 0.0, U, Fraction(1, 5))
    assert fast.A == slow.A and fast.value == slow.value
    assert R.extremes_k(arr, 0.0, U, min(3, n)) == R.extremes_k(fr, 0.0, U, min(3, n))


def test_lazy_tables_equal_full_prefix_lists(monkeypatch) -> None:
    """Every entry of the lazy P, R, C (and xs, slices, iteration) equals the accumulate()
    lists of the general path, with build chunks much smaller than n (chunk seams)."""
    monkeypatch.setattr(rational, "BUILD_CHUNK", 128)
    rng = np.random.default_rng(11)
    arr = np.sort(np.concatenate([rng.lognormal(5, 2, 700), [0.0, 5e-324, 1e-300, 3e5]]))
    sc = Scaled(arr, 0.0, 1e6)
    assert isinstance(sc.P, _LazyTable)
    den = sc.den
    xs = [int(Fraction(v) * den) for v in arr.tolist()]
    n = len(xs)
    P = [0, *accumulate(xs)]
    Rr = [0, *accumulate(i * v for i, v in enumerate(xs, 1))]
    C = [0, *accumulate((2 * i - n - 1) * v for i, v in enumerate(xs, 1))]
    for t in range(n + 1):
        assert (sc.P[t], sc.R[t], sc.C[t]) == (P[t], Rr[t], C[t])
    assert list(sc.xs) == xs and sc.xs[5:300] == xs[5:300] and sc.xs[-1] == xs[-1]
    with pytest.raises(IndexError):
        sc.xs[n]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(min_value=0.0, max_value=1e9, allow_nan=False, allow_subnormal=True),
                min_size=2, max_size=150))
@example([0.0] * 70 + [1e-300, 1e9])  # about 4000-bit integers: many limbs
@example([2.0**-1074] * 65 + [1.0])
def test_gini_and_smooth_equal_general_any_floats(values: list[float]) -> None:
    arr = np.asarray(values, dtype=np.float64)
    if arr.max() == 0:
        return
    fr = [Fraction(v) for v in values]
    assert R.gini_eq2(arr) == R.gini_eq2(fr)
    U = 2e9
    assert R.smooth_sensitivity(arr, 0.0, U, Fraction(1, 3)).A == \
        R.smooth_sensitivity(fr, 0.0, U, Fraction(1, 3)).A


def test_negative_or_unsorted_input_takes_the_right_path() -> None:
    with pytest.raises(R.NegativeIncomeError):
        R.gini_eq2(np.array([-1.0, 2.0, 3.0]))
    arr = np.array([3.0, 1.0, 2.0, 0.5])
    assert R.gini_eq2(arr) == R.gini_eq2([Fraction(v) for v in sorted(arr.tolist())])


# ------------------------------------------------ one exact pass for g and S (issue 16)
@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(min_value=0, max_value=1e6, allow_nan=False), min_size=2,
                max_size=40),
       st.sampled_from(["thm43", "thm44", "tight"]))
def test_gini_and_smooth_equals_the_two_separate_functions(xs, bound) -> None:
    from proofs.gini import reference as R

    x = np.sort(np.asarray(xs, dtype=np.float64))
    if x[-1] == 0:
        x[-1] = 1.0
    U = float(x[-1]) * 2 + 1
    g, ss = R.gini_and_smooth(x, 0.0, U, 0.3, bound=bound)
    want = (R.smooth_sensitivity_tight(x, 0.0, U, 0.3) if bound == "tight"
            else R.smooth_sensitivity(x, 0.0, U, 0.3, bound=bound))
    assert g == R.gini_eq2(x)
    assert ss.value == want.value and ss.k_argmax == want.k_argmax and ss.A == want.A


def test_gini_and_smooth_raises_like_the_reference() -> None:
    from proofs.gini import reference as R

    neg = np.array([-1.0, 2.0, 3.0])
    for fn in (R.smooth_sensitivity, R.gini_and_smooth):  # same error as the separate call
        with pytest.raises(R.OutOfBoundsError):
            fn(neg, 0.0, 10.0, 0.3)
    with pytest.raises(R.ZeroTotalError):
        R.gini_and_smooth(np.zeros(4), 0.0, 10.0, 0.3)
    with pytest.raises(R.InvalidParameterError):
        R.gini_and_smooth(np.ones(4), 0.0, 10.0, 0.3, bound="thm99")


def test_location_scale_from_exact_equals_exact_location_scale() -> None:
    from proofs.gini import reference as R
    from proofs.gini.mechanisms import GiniRelease

    x = np.sort(np.random.default_rng(8).lognormal(3, 1, 500))
    U = float(3 * x.max())
    for bound in ("thm43", "tight"):
        m = GiniRelease(0.0, U, 1.0, bound=bound)
        g, ss = R.gini_and_smooth(x, 0.0, U, m.noise_constants.beta, bound=bound)
        a, b = m.location_scale_from_exact(g, ss)
        a2, b2 = m.exact_location_scale(x)
        assert a == a2 == R.gini_eq2(x) and b == b2
