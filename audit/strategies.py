"""Hypothesis strategies for neighbouring data sets, in the style of ``hypothesis.extra``:
property tests of a DP library draw the pairs its guarantee is about.

* :func:`datasets` — data sets (1-D float64 arrays) of records in ``[lower, upper]``;
* :func:`neighbours` — :class:`~audit.protocols.NeighbourPair` ``(D, D')`` under
  ``replace-one`` or ``add-remove``, in the order the mechanism sees the records
  (:func:`audit.privacy.neighbour_search.are_neighbours` holds for every draw).

Records are drawn from a mix that finds float bugs, not only uniform floats: the bounds
and midpoint, the rounding-prone values of
:func:`audit.privacy.neighbour_search.rounding_values` (low bits just above half an ulp of
the running sum), and any float in range; the changed record is moved to a bound or to
another drawn value, and a share of the draws are "all records equal, one changed" (the
data sets whose running sums accumulate the most rounding).  Shrinking goes towards short
data sets of bound values.  Example::

    from hypothesis import given
    from audit import strategies as dps

    @given(dps.neighbours(0.0, 1.0, relation="add-remove", max_size=64))
    def test_sum_sensitivity(pair):
        assert abs(my_sum(pair.first) - my_sum(pair.second)) <= my_sensitivity

Nothing here prints or writes files.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from audit.privacy.neighbour_search import SearchSpace, rounding_values
from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE, NeighbourPair
from kernels.errors import InvalidParameterError

__all__ = ["datasets", "neighbours", "records"]


def _space(lower: float, upper: float, relation: str) -> SearchSpace:
    rel = {"replace-one": REPLACE_ONE, "add-remove": ADD_REMOVE_ONE,
           REPLACE_ONE: REPLACE_ONE, ADD_REMOVE_ONE: ADD_REMOVE_ONE}.get(relation)
    if rel is None:
        raise InvalidParameterError(f"relation must be 'replace-one' or 'add-remove', got "
                                    f"{relation!r}")
    return SearchSpace(float(lower), float(upper), rel)


def records(lower: float, upper: float, size_hint: int = 64) -> st.SearchStrategy[float]:
    """One record in ``[lower, upper]``: a bound, the midpoint, a rounding-prone value for
    sums of about ``size_hint`` records, or any float in range (in that shrink order)."""
    sp = _space(lower, upper, "replace-one")
    special = sorted({sp.lower, sp.upper, sp.lower + (sp.upper - sp.lower) / 2,
                      *rounding_values(sp.lower, sp.upper, max(size_hint, 2))})
    return st.one_of(st.sampled_from(special),
                     st.floats(sp.lower, sp.upper, allow_nan=False, allow_infinity=False))


def _check_sizes(min_size: int, max_size: int) -> None:
    if not 0 <= min_size <= max_size:
        raise InvalidParameterError(f"need 0 <= min_size <= max_size, got {min_size}, "
                                    f"{max_size}")


def datasets(lower: float, upper: float, *, min_size: int = 0, max_size: int = 16
             ) -> st.SearchStrategy[np.ndarray]:
    """Data sets of ``min_size..max_size`` records in ``[lower, upper]``: independent
    records (:func:`records`) or ``n`` copies of one record."""
    _check_sizes(min_size, max_size)
    rec = records(lower, upper, max_size)
    free = st.lists(rec, min_size=min_size, max_size=max_size)
    const = st.tuples(rec, st.integers(min_size, max_size)).map(lambda t: [t[0]] * t[1])
    return st.one_of(free, const).map(lambda xs: np.asarray(xs, dtype=np.float64))


@st.composite
def _pair(draw: st.DrawFn, sp: SearchSpace, min_size: int, max_size: int) -> NeighbourPair:
    rel = sp.relation
    lo = max(min_size, 1) if rel == REPLACE_ONE else min_size
    base = draw(datasets(sp.lower, sp.upper, min_size=lo, max_size=max_size))
    rec = records(sp.lower, sp.upper, max_size)
    new = draw(st.one_of(st.sampled_from([sp.lower, sp.upper]), rec))
    if rel == REPLACE_ONE:
        at = draw(st.integers(0, base.size - 1))
        other = base.copy()
        other[at] = new
        return NeighbourPair(base, other, rel, {"op": "replace", "at": at, "new": new,
                                                "family": "hypothesis"})
    if base.size > 0 and (base.size >= max_size or draw(st.booleans())):
        at = draw(st.integers(0, base.size - 1))
        return NeighbourPair(base, np.delete(base, at), rel,
                             {"op": "remove", "at": at, "family": "hypothesis"})
    at = draw(st.integers(0, base.size))
    return NeighbourPair(base, np.insert(base, at, new), rel,
                         {"op": "add", "at": at, "new": new, "family": "hypothesis"})


def neighbours(lower: float, upper: float, *, relation: str = "replace-one",
               min_size: int = 0, max_size: int = 16) -> st.SearchStrategy[NeighbourPair]:
    """Neighbouring pairs ``(D, D')`` under ``relation`` with records in ``[lower, upper]``
    and at most ``max_size`` records (module docstring); ``pair.change`` says which record
    changed (``op``, ``at``, ``new``)."""
    _check_sizes(min_size, max_size)
    sp = _space(lower, upper, relation)
    if sp.relation == REPLACE_ONE and max_size < 1:
        raise InvalidParameterError("replace-one needs max_size >= 1")
    return _pair(sp, min_size, max_size)
