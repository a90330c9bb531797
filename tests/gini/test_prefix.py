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
