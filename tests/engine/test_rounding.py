"""audit.rounding: directed rounding of exact values to float64, checked against exact
dyadic arithmetic (a double is m * 2**e, so its Fraction is exact)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from audit.rounding import float_down, float_up


@given(st.fractions(min_value=-10**6, max_value=10**6))
@example(Fraction(1, 3))
@example(Fraction(1, 10))
@example(Fraction(0))
@example(Fraction(1, 2**1074))  # the smallest subnormal, exactly
@example(Fraction(1, 2**1080))  # below it: rounds to 0 down, to 2^-1074 up
def test_fraction_brackets_exactly(v: Fraction) -> None:
    lo, hi = float_down(v), float_up(v)
    assert Fraction(lo) <= v <= Fraction(hi)
    # tight: the neighbouring doubles fall outside
    assert Fraction(math.nextafter(lo, math.inf)) > v or lo == hi
    assert Fraction(math.nextafter(hi, -math.inf)) < v or lo == hi
    assert (lo == hi) == (Fraction(lo) == v)


@given(st.integers(min_value=-10**20, max_value=10**20), st.integers(1, 10**20))
def test_mpmath_agrees_with_fraction(num: int, den: int) -> None:
    with mpmath.workdps(60):
        m = mpmath.mpf(num) / den
        # mpf at 60 digits is not the Fraction; bracket both and compare with the mpf exactly
        lo, hi = float_down(m), float_up(m)
        assert mpmath.mpf(lo) <= m <= mpmath.mpf(hi)
        assert lo == hi or math.nextafter(lo, math.inf) == hi


def test_infinities_and_hand_values() -> None:
    assert float_up(mpmath.inf) == math.inf and float_down(-mpmath.inf) == -math.inf
    # 0.1 as a double is above 1/10 (0.1000000000000000055511151231257827...)
    assert float_up(Fraction(1, 10)) == 0.1
    assert float_down(Fraction(1, 10)) == math.nextafter(0.1, 0)
    assert float_down(Fraction(1, 3)) == 0.3333333333333333  # 1/3 double is below 1/3
    assert float_up(Fraction(1, 3)) == math.nextafter(0.3333333333333333, 1)


@pytest.mark.parametrize("v", [0, 7, -3, Fraction(5, 4), 0.5])
def test_exact_values_stay(v: object) -> None:
    assert float_up(v) == float_down(v) == float(v)
