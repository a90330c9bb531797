"""Gini eq. (2) and eq. (1) against exact Fractions; the exact relation between them."""

from __future__ import annotations

from fractions import Fraction as Q

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kernels.errors import (
    NonFiniteError,
    NotNumericError,
    TooFewRecordsError,
    ZeroMeanError,
)
from kernels.gini.errors import NegativeIncomeError
from kernels.gini.index import gini, gini_mean_difference, prefix_tables
from tests.common.exact import gini1_double_sum, gini2

RTOL = 1e-12  # float64 kernel vs exact value; n <= 200 here, values are small dyadics/ints

incomes = st.lists(
    st.one_of(st.integers(0, 10**6).map(Q), st.fractions(0, 1000, max_denominator=64)),
    min_size=2,
    max_size=60,
).filter(lambda v: sum(v) > 0)


def test_toy_example_section3() -> None:
    """Section 3: X = (3, 6, 7, 7.5), 'g(X) ~ 0.206'. Exactly 29/141 by eq. (2)."""
    x = [Q(3), Q(6), Q(7), Q(15, 2)]
    assert gini2(x) == Q(29, 141)
    assert gini([3, 6, 7, 7.5]) == pytest.approx(29 / 141, rel=RTOL, abs=0)
    assert round(29 / 141, 3) == 0.206
    # eq. (1) gives a different number: 29/188 = 0.154..., not the 0.206 printed
    assert gini1_double_sum(x) == Q(29, 188)
    assert gini_mean_difference([3, 6, 7, 7.5]) == pytest.approx(29 / 188, rel=RTOL)


@given(incomes)
@example([Q(0), Q(1)])  # one record holds everything: eq. (2) = 1
@example([Q(5), Q(5), Q(5)])  # perfect equality
@example([Q(0), Q(0), Q(0), Q(7)])
@settings(max_examples=200, deadline=None)
def test_eq2_and_eq1_match_exact(x: list[Q]) -> None:
    xf = [float(v) for v in x]
    g2 = gini2(x)
    g1 = gini1_double_sum(x)
    n = len(x)
    # the exact relation, derived in kernels/gini.py: g2 = n/(n-1) * g1
    assert g2 == Q(n, n - 1) * g1
    assert gini(xf) == pytest.approx(float(g2), rel=RTOL, abs=1e-15)
    assert gini_mean_difference(xf) == pytest.approx(float(g1), rel=RTOL, abs=1e-15)


def test_range_extremes() -> None:
    assert gini([0, 0, 0, 9]) == pytest.approx(1.0, rel=1e-15)
    assert gini_mean_difference([0, 0, 0, 9]) == pytest.approx(3 / 4, rel=1e-15)
    assert gini([2, 2, 2]) == 0.0


def test_unsorted_input_is_sorted_not_mutated() -> None:
    z = np.array([7.5, 3.0, 7.0, 6.0])
    before = z.copy()
    assert gini(z) == pytest.approx(29 / 141, rel=RTOL)
    np.testing.assert_array_equal(z, before)


def test_prefix_tables_exact_small() -> None:
    pt = prefix_tables(np.array([3.0, 6.0, 7.0, 7.5]))
    assert [float(v) for v in pt.P] == [0, 3, 9, 16, 23.5]
    assert [float(v) for v in pt.R] == [0, 3, 15, 36, 66]
    # C_i = sum_{t<=i} (2t-n-1) x_t with n = 4: -9, -6, 7, 22.5
    assert [float(v) for v in pt.C] == [0, -9, -15, -8, 14.5]


@pytest.mark.parametrize(
    "bad, exc, text",
    [
        ([1.0], TooFewRecordsError, "n = 1"),
        ([], TooFewRecordsError, "n = 0"),
        ([1.0, float("nan")], NonFiniteError, "nan"),
        ([1.0, float("inf")], NonFiniteError, "inf"),
        ([0.0, 0.0, 0.0], ZeroMeanError, "mean 0"),
        ([-1.0, 2.0], NegativeIncomeError, "-1.0"),
        (["a", "b"], NotNumericError, "'a'"),
        ("12", NotNumericError, "'12'"),
        ([[1.0, 2.0], [3.0, 4.0]], NotNumericError, "1-dimensional"),
    ],
)
def test_bad_input(bad: object, exc: type[Exception], text: str) -> None:
    with pytest.raises(exc, match=None) as info:
        gini(bad)
    assert text in str(info.value)
    assert issubclass(exc, (ValueError, TypeError))
