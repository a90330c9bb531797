"""Exact sup |T(x) - T(x')| over neighbours at small n, by exhaustive enumeration in Fractions.

Independent of :mod:`kernels.global_sensitivity.formulas`: the statistics are evaluated from
their definitions (:mod:`kernels.global_sensitivity.statistics`) on every data set whose
records take values in a finite candidate set V, and on every neighbour of it.  Data sets are
enumerated as multisets (the statistics are symmetric in the records; pooled statistics are
symmetric within each cell), so "the first record differs" (the supplement's WLOG) is covered
by "some record differs".

Why the enumeration gives the exact supremum (the argument per statistic):

* **mean, proportion** (Section 1): T(x) - T(x') is linear in every record, so its max and min
  over the box [c0, c1]^records are attained at vertices: V = {c0, c1} is exhaustive.
  Proportions have 0/1 records: V = {0, 1} is the whole domain.
* **histogram, proportion vector**: records are categories; V = {0..K-1} is the domain.
* **covariance** (Section 3) **and pooled covariance** (Section 5), both relations: T is a sum
  of products x_i * y_j of *different* scalar variables (x_i and y_i are distinct coordinates),
  so T(x) - T(x') is multilinear in all the scalar coordinates of x and x' (the shared records
  included); a multilinear function on a box attains its max and min at a vertex: V = the four
  corners of the rectangle is exhaustive.  (The supplement says "linear"; it is multilinear,
  not linear - claim ``derivation.cov-def2-linear``.)
* **variance, pooled variance**: not multilinear (x_i^2 terms).  The enumeration over
  V = {c0, (c0+c1)/2, c1} gives a LOWER bound attained by an explicit pair.  The UPPER bound is
  the proof: by the identities re-derived in :mod:`.derivations` (eq. (1), the Def 2 display of
  Section 2, the Def 2 Delta of Section 4), Delta = (A - B)/d with A, B >= 0, so
  |Delta| <= max(A, B)/d, and max A, max B are maxima of convex functions over a box (at
  vertices, computed in closed form: (1 - 1/n_j) R^2 and floor(m^2/4)/m R^2 per cell).  Z3
  (:mod:`.smt`) independently confirms "no pair exceeds it" at small n.  The claims call the sup
  verified only where lower bound = upper bound.

Each search returns a :class:`Sup`: the value, one maximising pair, the edit and the count of
pairs examined.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from kernels.global_sensitivity import statistics as st
from kernels.global_sensitivity.formulas import DEF2

__all__ = ["Sup", "corners", "diff", "statistic", "sup_flat", "sup_pooled"]

Value = Any


@dataclass(frozen=True)
class Sup:
    """The best pair found: |T(first) - T(second)| = value."""

    value: Fraction
    first: Any
    second: Any
    change: dict[str, Any]
    n_pairs: int
    candidates: tuple[Any, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"value": self.value, "first": _jsonable(self.first),
                "second": _jsonable(self.second), "change": self.change,
                "pairs_examined": self.n_pairs, "candidate_values": _jsonable(self.candidates)}


def _jsonable(x: Any) -> Any:
    if isinstance(x, (tuple, list)):
        return [_jsonable(v) for v in x]
    return x


def corners(lo: Value = 0, hi: Value = 1, lo2: Value = 0, hi2: Value = 1) -> tuple:
    """The four vertices of [lo, hi] x [lo2, hi2] (records of a covariance)."""
    return tuple((a, b) for a in (Fraction(lo), Fraction(hi)) for b in (Fraction(lo2),
                                                                          Fraction(hi2)))


def statistic(stat: str, k: int | None = None) -> Callable[[Sequence[Any]], Any]:
    """T for a flat data set (pooled statistics: :func:`pooled_statistic`)."""
    table: dict[str, Callable[[Sequence[Any]], Any]] = {
        "mean": st.mean, "proportion": lambda xs: st.proportion([int(v) for v in xs]),
        "variance": st.variance, "covariance": st.covariance,
        "histogram": lambda xs: st.histogram(xs, int(k or 0)),
        "proportion-vector": lambda xs: st.proportion_vector(xs, int(k or 0)),
        "pooled-variance": st.pooled_variance, "pooled-covariance": st.pooled_covariance,
    }
    return table[stat]


def diff(t1: Any, t2: Any) -> Fraction:
    """|T1 - T2| (l1 norm for vectors)."""
    if isinstance(t1, list):
        return sum((abs(Fraction(a) - Fraction(b)) for a, b in zip(t1, t2, strict=True)),
                   Fraction(0))
    return abs(Fraction(t1) - Fraction(t2))


def _minus(ms: tuple, v: Any) -> tuple:
    lst = list(ms)
    lst.remove(v)
    return tuple(lst)


def _flat_pairs(x: tuple, relation: str, values: Sequence[Any]) -> Iterator[tuple[tuple, dict]]:
    for v in dict.fromkeys(x):
        rest = _minus(x, v)
        if relation == DEF2:
            yield rest, {"op": "remove", "value": v}
        else:
            for w in values:
                if w != v:
                    yield tuple(sorted(rest + (w,), key=_key)), {"op": "replace", "old": v,
                                                                 "new": w}


def _key(v: Any) -> Any:
    return v if not isinstance(v, tuple) else tuple(v)


def sup_flat(stat: str, relation: str, n: int, values: Sequence[Any],
             k: int | None = None) -> Sup:
    """Exhaustive sup over data sets of n records with values in ``values`` (x has n records;
    under Def 2 x' has n - 1)."""
    T = statistic(stat, k)
    best: tuple[Fraction, Any, Any, dict] | None = None
    count = 0
    vals = tuple(sorted(values, key=_key))
    for x in itertools.combinations_with_replacement(vals, n):
        tx = T(list(x))
        for x2, change in _flat_pairs(x, relation, vals):
            count += 1
            d = diff(tx, T(list(x2)))
            if best is None or d > best[0]:
                best = (d, x, x2, change)
    assert best is not None
    return Sup(best[0], best[1], best[2], best[3], count, vals)


def _pooled_pairs(x: tuple[tuple, ...], relation: str, values: Sequence[Any],
                  label_change: bool) -> Iterator[tuple[tuple[tuple, ...], dict]]:
    for j, cell in enumerate(x):
        for v in dict.fromkeys(cell):
            rest = _minus(cell, v)
            if relation == DEF2:
                yield x[:j] + (rest,) + x[j + 1:], {"op": "remove", "cell": j, "value": v}
                continue
            for w in values:
                if w != v:
                    new = tuple(sorted(rest + (w,), key=_key))
                    yield x[:j] + (new,) + x[j + 1:], {"op": "replace", "cell": j, "old": v,
                                                       "new": w}
            if label_change and len(cell) >= 3:
                for b in range(len(x)):
                    if b == j:
                        continue
                    for w in values:
                        y = list(x)
                        y[j] = rest
                        y[b] = tuple(sorted(x[b] + (w,), key=_key))
                        yield tuple(y), {"op": "move", "from_cell": j, "to_cell": b, "old": v,
                                         "new": w}


def sup_pooled(stat: str, relation: str, sizes: Sequence[int], values: Sequence[Any],
               label_change: bool = False) -> Sup:
    """Exhaustive sup for a pooled statistic over data sets with cell sizes ``sizes`` (of x;
    Def 2: x' removes one record from one cell) and values in ``values``."""
    T = statistic(stat)
    vals = tuple(sorted(values, key=_key))
    cells = [list(itertools.combinations_with_replacement(vals, m)) for m in sizes]
    best: tuple[Fraction, Any, Any, dict] | None = None
    count = 0
    for x in itertools.product(*cells):
        tx = T([list(c) for c in x])
        for x2, change in _pooled_pairs(x, relation, vals, label_change):
            count += 1
            d = diff(tx, T([list(c) for c in x2]))
            if best is None or d > best[0]:
                best = (d, x, x2, change)
    assert best is not None
    return Sup(best[0], best[1], best[2], best[3], count, vals)


def multiset_counts(x: Sequence[Any]) -> dict[str, int]:
    """A compact, JSON-able description of a multiset of records."""
    return {str(k): v for k, v in Counter(x).items()}
