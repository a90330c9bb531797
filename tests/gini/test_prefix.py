"""``kernels.gini.index.prefix_arrays`` (issue 16): every entry of P and R is within the
stated relative error bound ((B + 1) u + (n/B) u' + u, all terms non-negative) of the exact
prefix sum, computed here in Fractions; block and row seams included."""

from __future__ import annotations

from fractions import Fraction
from itertools import accumulate

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import kernels.gini.index as idx

U64 = Fraction(1, 2**53)
UEXT = Fraction(1, 2 ** (np.finfo(np.longdouble).nmant + 1))


def _bound(n: int) -> Fraction:
    return (idx._BLOCK + 2) * U64 + (Fraction(n, idx._BLOCK) + 1) * UEXT


def _check(x: np.ndarray) -> None:
    P, R = idx.prefix_arrays(x)
    fx = [Fraction(v) for v in x.tolist()]
    Pe = [0, *accumulate(fx)]
    Re = [0, *accumulate(i * v for i, v in enumerate(fx, 1))]
    b = _bound(x.size)
    assert P[0] == 0 and R[0] == 0
    for t in range(1, x.size + 1):
        for got, want in ((P[t], Pe[t]), (R[t], Re[t])):
            assert abs(Fraction(float(got)) - want) <= b * want, (t, got, want)


@pytest.mark.parametrize("n", [1, 2, 255, 256, 257, 1023, 1024, 1025, 3000])
def test_prefix_arrays_within_bound(n: int, monkeypatch) -> None:
    monkeypatch.setattr(idx, "_ROWS", 2)  # row steps of 2 blocks: many row seams
    rng = np.random.default_rng(n)
    _check(np.sort(np.round(rng.lognormal(8.0, 2.0, n), 2)))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(min_value=0.0, max_value=1e12, allow_nan=False,
                          allow_subnormal=True), min_size=1, max_size=700))
@example([0.0] * 300 + [1e12])
@example([1e-300] * 256 + [1e300])
def test_prefix_arrays_any_nonnegative_floats(values: list[float]) -> None:
    _check(np.sort(np.asarray(values, dtype=np.float64)))


# ------------------------------------- eq. (2) from the extended totals (issue 16)
def _exact_gini(x: np.ndarray) -> Fraction:
    fx = sorted(Fraction(v) for v in x.tolist())
    n = len(fx)
    return sum((2 * i - n - 1) * v for i, v in enumerate(fx, 1)) / ((n - 1) * sum(fx))


def _check_totals(x: np.ndarray) -> None:
    P, R, p_tot, r_tot = idx.prefix_arrays_ext(x)
    fx = [Fraction(v) for v in x.tolist()]
    b = _bound(x.size)
    for got, want in ((p_tot, sum(fx)), (r_tot, sum(i * v for i, v in enumerate(fx, 1)))):
        assert abs(Fraction(*got.as_integer_ratio()) - want) <= b * want  # the tables' bound
    g = idx.gini_from_totals(x.size, p_tot, r_tot)
    pt = idx.prefix_tables(x)
    if g is None:  # refused: the table falls back to the extended-precision sum
        assert pt.gini == idx.gini_sorted(x)
    else:  # accepted: its promise, 2^-40 on N plus the final division and rounding
        assert pt.gini == g
        want = _exact_gini(x)
        assert abs(Fraction(g) - want) <= Fraction(1, 2**39) * want, (g, float(want))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 1500), st.sampled_from(["lognormal", "near-equal", "one-rich", "ints"]),
       st.integers(0, 2**32 - 1))
@example(2, "near-equal", 0)
@example(256, "ints", 1)
@example(1025, "near-equal", 2)
def test_gini_from_totals_keeps_its_bound_or_refuses(n: int, kind: str, seed: int,
                                                     ) -> None:
    rng = np.random.default_rng(seed)
    if kind == "lognormal":
        x = rng.lognormal(10, 1.5, n)
    elif kind == "near-equal":  # g ~ 1e-9 .. 1e-12: the bound must refuse
        x = 1000.0 + rng.integers(0, 3, n) * 1e-9
    elif kind == "one-rich":
        x = np.concatenate([np.zeros(n - 1), [5.0]])
    else:
        x = rng.integers(0, 100, n).astype(np.float64)
        x[-1] += 1
    _check_totals(np.sort(x))


def test_equal_records_fall_back() -> None:
    x = np.full(3000, 7.25)
    P, R, p_tot, r_tot = idx.prefix_arrays_ext(x)
    assert idx.gini_from_totals(x.size, p_tot, r_tot) is None
    assert idx.prefix_tables(x).gini == idx.gini_sorted(x)


def test_typical_incomes_take_the_totals() -> None:
    """The shortcut is actually taken on income-like data (else it would be dead code)."""
    x = np.sort(np.random.default_rng(0).lognormal(10, 1, 5000).round(2))
    _, _, p_tot, r_tot = idx.prefix_arrays_ext(x)
    assert idx.gini_from_totals(x.size, p_tot, r_tot) is not None
