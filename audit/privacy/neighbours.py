"""Neighbour generators (shape: :class:`audit.protocols.NeighbourGenerator`).

* :class:`ReplaceOne` — replace one record of X (size n, values in [L, U]) by another value
  in [L, U].  Which records and which new values: the records at a few order statistics
  (smallest, largest, quartiles, and every distinct value when X has at most
  ``max_distinct`` of them) replaced by L, U, the other data values at those order
  statistics, and any extra ``values`` given (e.g. from a local optimiser).  One index per
  distinct value: for a mechanism that depends on X only through its sorted values (a
  symmetric statistic), the record's position among equal values does not matter.
* :class:`AddRemoveOne` — remove one record (one per distinct value) or add one of L, U or
  an extra value.  Only for mechanisms that define their guarantee under this relation.

Pairs whose second data set leaves the mechanism's domain (e.g. a statistic undefined when
all records are 0) are skipped by the *caller* (it catches the mechanism's ``InputError``),
and counted, so the report can say so.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE, NeighbourPair
from kernels.validate import as_data, check_bounds, is_sorted

__all__ = ["AddRemoveOne", "ReplaceOne", "candidate_indices", "replace"]


def candidate_indices(xs: np.ndarray, max_distinct: int = 64) -> list[int]:
    """Indices (into sorted ``xs``) of one record per distinct value when there are at most
    ``max_distinct`` distinct values, else of the order statistics at 0, 1/4, 1/2, 3/4, 1
    and the first/last two records."""
    n = xs.size
    if is_sorted(xs):  # O(n), no n-sized index array (np.unique argsorts: ~30 B/record)
        change = xs[1:] != xs[:-1]
        if int(np.count_nonzero(change)) + 1 <= max_distinct:
            first = np.concatenate([[0], np.flatnonzero(change) + 1])
            return sorted({int(i) for i in first} | {n - 1})
    else:
        uniq, first = np.unique(xs, return_index=True)
        if uniq.size <= max_distinct:
            return sorted({int(i) for i in first} | {n - 1})
    qs = {0, 1, n // 4, n // 2, (3 * n) // 4, n - 2, n - 1}
    return sorted(i for i in qs if 0 <= i < n)


def replace(xs: np.ndarray, index: int, value: float) -> np.ndarray:
    """A sorted copy of ``xs`` with record ``index`` replaced by ``value``.

    ``xs`` sorted (the callers' data sets are): O(n) -- the records between the old and
    the new position move one place (the value's place found by binary search); otherwise
    a copy is sorted."""
    xs = np.asarray(xs)
    n = xs.size
    i = int(index)
    if i < 0:
        i += n
    if not 0 <= i < n or not is_sorted(xs):
        out = xs.copy()
        out[index] = value
        out.sort()
        return out
    v = xs.dtype.type(value)
    out = np.empty_like(xs)
    p = int(np.searchsorted(xs, v, side="left"))  # rank of v among all records
    if p <= i:  # v moves down: xs[p:i] shift up one place
        out[:p] = xs[:p]
        out[p] = v
        out[p + 1:i + 1] = xs[p:i]
        out[i + 1:] = xs[i + 1:]
    else:  # v moves up: among the others its rank is p - 1
        out[:i] = xs[:i]
        out[i:p - 1] = xs[i + 1:p]
        out[p - 1] = v
        out[p:] = xs[p:]
    return out


@dataclass(frozen=True)
class ReplaceOne:
    """Replace-one neighbours of a data set in [lower, upper]^n (see module docstring)."""

    lower: float
    upper: float
    values: Sequence[float] = ()
    max_distinct: int = 64
    relation: str = field(default=REPLACE_ONE, init=False)

    def __post_init__(self) -> None:
        check_bounds(self.lower, self.upper)

    def new_values(self, xs: np.ndarray, idx: Sequence[int]) -> list[float]:
        vals = {float(self.lower), float(self.upper)}
        vals |= {float(xs[i]) for i in idx}
        vals |= {float(v) for v in self.values if self.lower <= v <= self.upper}
        return sorted(vals)

    def pairs(self, dataset: np.ndarray) -> Iterator[NeighbourPair]:
        xs = as_data(dataset, "dataset")
        idx = candidate_indices(xs, self.max_distinct)
        for i in idx:
            for v in self.new_values(xs, idx):
                if v == xs[i]:
                    continue
                yield NeighbourPair(
                    xs,
                    replace(xs, i, v),
                    REPLACE_ONE,
                    {"op": "replace", "rank": i, "old": float(xs[i]), "new": v},
                )


@dataclass(frozen=True)
class AddRemoveOne:
    """Add-one / remove-one neighbours (remove one record per distinct value, add L, U or
    one of ``values``)."""

    lower: float
    upper: float
    values: Sequence[float] = ()
    max_distinct: int = 64
    relation: str = field(default=ADD_REMOVE_ONE, init=False)

    def pairs(self, dataset: np.ndarray) -> Iterator[NeighbourPair]:
        xs = as_data(dataset, "dataset", min_n=1)
        for i in candidate_indices(xs, self.max_distinct):
            yield NeighbourPair(
                xs, np.delete(xs, i), ADD_REMOVE_ONE, {"op": "remove", "rank": i,
                                                       "old": float(xs[i])}
            )
        extra = {float(self.lower), float(self.upper)}
        extra |= {float(v) for v in self.values if self.lower <= v <= self.upper}
        for v in sorted(extra):
            yield NeighbourPair(
                xs, np.sort(np.append(xs, v)), ADD_REMOVE_ONE, {"op": "add", "new": v}
            )
