"""Every public kernel rejects bad input with a specific exception naming the value, and
never mutates its input; unsorted input is sorted, not rejected."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from kernels import errors as E
from kernels.gini.extremes import (
    extremes,
    max_gini,
    max_gini_witness,
    max_mean,
    min_gini,
    min_gini_witness,
    min_mean,
)
from kernels.gini.index import gini, gini_mean_difference
from kernels.gini.release import release_gini
from kernels.gini.sensitivity import local_sensitivity_bound, smooth_sensitivity

RNG = np.random.default_rng(0)

# each entry: name -> callable(x, L, U) using otherwise valid parameters
BOUNDED: dict[str, Callable] = {
    "extremes": lambda x, L, U: extremes(x, L, U),
    "min_gini": lambda x, L, U: min_gini(x, 1, L, U),
    "max_gini": lambda x, L, U: max_gini(x, 1, L, U),
    "min_mean": lambda x, L, U: min_mean(x, 1, L, U),
    "max_mean": lambda x, L, U: max_mean(x, 1, L, U),
    "max_gini_witness": lambda x, L, U: max_gini_witness(x, 1, L, U),
    "min_gini_witness": lambda x, L, U: min_gini_witness(x, 1, L, U),
    "local_sensitivity_bound": lambda x, L, U: local_sensitivity_bound(x, L, U),
    "smooth_sensitivity": lambda x, L, U: smooth_sensitivity(x, L, U, 0.1),
    "release_gini": lambda x, L, U: release_gini(x, L, U, 1.0, RNG),
}

CASES = [
    # (x, L, U, exception, text that must appear in the message)
    ([1.0, float("nan"), 2.0], 0, 10, E.NonFiniteError, "nan"),
    ([1.0, float("-inf")], 0, 10, E.NonFiniteError, "inf"),
    ([1.0], 0, 10, E.TooFewRecordsError, "n = 1"),
    ([1.0, 12.0], 0, 10, E.OutOfBoundsError, "12.0"),
    ([0.5, 3.0], 1, 10, E.OutOfBoundsError, "0.5"),
    ([1.0, 2.0], 5, 5, E.InvalidBoundsError, "U=5"),
    ([1.0, 2.0], 5, 3, E.InvalidBoundsError, "U=3"),
    ([1.0, 2.0], -1, 10, E.InvalidBoundsError, "-1"),
    ([1.0, 2.0], float("nan"), 10, E.NonFiniteError, "nan"),
    ([0.0, 0.0, 0.0], 0, 10, E.ZeroMeanError, "mean 0"),
    (["1", "x"], 0, 10, E.NotNumericError, "'x'"),
    ([1.0, 2.0], "0", 10, E.NotNumericError, "'0'"),
]


@pytest.mark.parametrize("fn_name", sorted(BOUNDED))
@pytest.mark.parametrize("x, L, U, exc, text", CASES)
def test_bad_data_and_bounds(fn_name: str, x, L, U, exc, text: str) -> None:
    with pytest.raises(exc) as info:
        BOUNDED[fn_name](x, L, U)
    assert text in str(info.value), str(info.value)
    assert isinstance(info.value, (ValueError, TypeError))


@pytest.mark.parametrize("fn_name", sorted(BOUNDED))
def test_clip_and_unsorted_and_no_mutation(fn_name: str) -> None:
    x = np.array([7.5, 12.0, 3.0, 6.0])
    before = x.copy()
    with pytest.raises(E.OutOfBoundsError):
        BOUNDED[fn_name](x, 0, 10.0)
    np.testing.assert_array_equal(x, before)
    # unsorted, in-bounds input is accepted and not modified
    y = np.array([7.5, 3.0, 7.0, 6.0])
    yb = y.copy()
    BOUNDED[fn_name](y, 0, 10.0)
    np.testing.assert_array_equal(y, yb)


def test_clip_true_clips() -> None:
    assert max_gini([7.5, 12.0, 3.0, 6.0], 0, 0, 10, clip=True) == pytest.approx(
        gini([7.5, 10.0, 3.0, 6.0]), rel=1e-14
    )
    assert smooth_sensitivity([1, 20], 0, 10, 0.1, clip=True).value > 0


@pytest.mark.parametrize("k, text", [(-1, "got -1"), (5, "got 5"), (1.5, "1.5"), (True, "True")])
def test_k_out_of_range(k, text: str) -> None:
    for fn in (min_gini, max_gini, min_mean, max_mean, max_gini_witness, min_gini_witness):
        with pytest.raises(E.InvalidKError) as info:
            fn([1, 2, 3, 4], k, 0, 10)
        assert text in str(info.value)


@pytest.mark.parametrize(
    "kwargs, exc, text",
    [
        ({"epsilon": 0.0}, E.InvalidEpsilonError, "0.0"),
        ({"epsilon": -2}, E.InvalidEpsilonError, "-2"),
        ({"epsilon": float("inf")}, E.NonFiniteError, "inf"),
        ({"gamma": 1.0}, E.InvalidShapeError, "1.0"),
        ({"gamma": 0.5}, E.InvalidShapeError, "0.5"),
    ],
)
def test_privacy_parameters(kwargs: dict, exc: type[Exception], text: str) -> None:
    args = {"epsilon": 1.0, "gamma": 2.0} | kwargs
    with pytest.raises(exc) as info:
        release_gini([1, 2, 3], 0, 5, args["epsilon"], RNG, gamma=args["gamma"])
    assert text in str(info.value)


def test_gini_functions_reject_like_kernels() -> None:
    for fn in (gini, gini_mean_difference):
        with pytest.raises(E.TooFewRecordsError):
            fn([3.0])
        with pytest.raises(E.ZeroMeanError):
            fn([0, 0])
        with pytest.raises(E.NonFiniteError):
            fn([1, float("nan")])


@pytest.mark.parametrize("bad", [[True, False, True], np.array([1, 0, 1], dtype=bool),
                                 np.array([1.0, True, 2.0], dtype=object)])
def test_booleans_are_not_incomes(bad) -> None:
    """Booleans used to be converted silently to 0/1 incomes."""
    from kernels.errors import NotNumericError
    from kernels.gini.index import gini

    with pytest.raises(NotNumericError, match="boolean"):
        gini(bad)
