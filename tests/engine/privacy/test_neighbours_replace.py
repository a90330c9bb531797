"""``audit.privacy.neighbours.replace``: the O(n) insertion on sorted data equals replacing
the record and sorting a copy (the definition), for every rank, value and tie pattern."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from audit.privacy.neighbours import replace

small = st.lists(st.sampled_from([0.0, 0.5, 1.0, 1.0, 2.0, 3.5, 7.0]), min_size=1, max_size=12)


def _definition(xs: np.ndarray, i: int, v: float) -> np.ndarray:
    out = xs.copy()
    out[i] = v
    out.sort()
    return out


@settings(max_examples=300, deadline=None)
@given(small, st.data(), st.sampled_from([-1.0, 0.0, 0.25, 1.0, 2.0, 7.0, 9.0]))
@example([1.0], None, 5.0)
@example([0.0, 1.0, 1.0, 1.0], None, 1.0)
def test_replace_equals_sort_definition(values: list[float], data, v: float) -> None:
    xs = np.sort(np.asarray(values))
    i = 0 if data is None else data.draw(st.integers(0, xs.size - 1))
    got = replace(xs, i, v)
    assert np.array_equal(got, _definition(xs, i, v))
    assert got is not xs and np.array_equal(xs, np.sort(np.asarray(values)))  # input intact


def test_replace_unsorted_input_and_negative_index() -> None:
    xs = np.array([3.0, 1.0, 2.0])
    assert np.array_equal(replace(xs, 0, 0.5), [0.5, 1.0, 2.0])
    ys = np.array([1.0, 2.0, 3.0])
    assert np.array_equal(replace(ys, -1, 0.0), [0.0, 1.0, 2.0])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.0, 1.0, 2.5, 3.0, 9.0]), min_size=1, max_size=20),
       st.integers(1, 6), st.booleans())
def test_candidate_indices_sorted_fast_path_equals_unique(values: list[float], k: int,
                                                          presort: bool) -> None:
    """The O(n) path for sorted data gives the indices np.unique(return_index) gives."""
    from audit.privacy.neighbours import candidate_indices

    xs = np.sort(np.asarray(values)) if presort else np.asarray(values)
    uniq, first = np.unique(np.sort(xs) if presort else xs, return_index=True)
    n = xs.size
    if uniq.size <= k:
        want = sorted({int(i) for i in first} | {n - 1})
    else:
        want = sorted(i for i in {0, 1, n // 4, n // 2, (3 * n) // 4, n - 2, n - 1}
                      if 0 <= i < n)
    assert candidate_indices(xs, k) == want
