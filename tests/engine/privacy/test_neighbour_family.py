"""The neighbour generator yields genuine neighbours and its whole documented scope, and the
exact-loss search searches the same family (issue 39: ``engine.neighbour-family``, run by
``dpaudit calibrate`` and ``dpaudit regress``).

The shipped generator passes; generators broken the way a maintainer's slip would break
them (each a small subclass, nothing mocked) are refuted, each for the property it breaks.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from audit.findings import Verdict
from audit.privacy import neighbour_family as NF
from audit.privacy.neighbours import AddRemoveOne, ReplaceOne, candidate_indices
from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE, NeighbourPair


def test_the_shipped_generator_keeps_its_scope() -> None:
    f = NF.check_neighbour_family()
    assert f.id == "engine.neighbour-family"
    assert f.verdict is Verdict.VERIFIED, f.evidence["problems"]
    assert f.evidence["twin"]["outcome"] == "refuted"


class _IdentityPairs(ReplaceOne):
    def pairs(self, dataset: Any) -> Iterator[NeighbourPair]:
        xs = np.sort(np.asarray(dataset, dtype=float))
        yield NeighbourPair(xs, xs.copy(), REPLACE_ONE,
                            {"op": "replace", "rank": 0, "old": float(xs[0]),
                             "new": float(xs[0])})
        yield from super().pairs(dataset)


class _UnsortedAdd(AddRemoveOne):
    def pairs(self, dataset: Any) -> Iterator[NeighbourPair]:
        for p in super().pairs(dataset):
            if p.change["op"] == "add":
                p = NeighbourPair(p.first, np.append(p.first, p.change["new"]), p.relation,
                                  p.change)
            yield p


class _OutsideValues(ReplaceOne):
    def new_values(self, xs: np.ndarray, idx: Any) -> list[float]:
        return sorted({*super().new_values(xs, idx), *map(float, self.values)})


class _LabelNextRank(AddRemoveOne):
    def pairs(self, dataset: Any) -> Iterator[NeighbourPair]:
        for p in super().pairs(dataset):
            if p.change["op"] == "remove" and p.change["rank"] + 1 < len(p.first):
                p = NeighbourPair(p.first, p.second, p.relation,
                                  {**p.change, "rank": p.change["rank"] + 1})
            yield p


class _NoSmallest(ReplaceOne):
    def pairs(self, dataset: Any) -> Iterator[NeighbourPair]:
        for p in super().pairs(dataset):
            if p.change["rank"] != 0:
                yield p


class _SeventyOnly(ReplaceOne):  # 64 distinct values treated as "many"
    def pairs(self, dataset: Any) -> Iterator[NeighbourPair]:
        xs = np.sort(np.asarray(dataset, dtype=float))
        idx = set(candidate_indices(xs, self.max_distinct - 1))
        for p in super().pairs(dataset):
            if p.change["rank"] in idx:
                yield p


_SLOW = pytest.mark.slow  # default run: one broken generator per property (-m slow: all six)


@pytest.mark.parametrize("broken, relation, problem", [
    (_IdentityPairs, REPLACE_ONE, "not a replace neighbour"),
    pytest.param(_UnsortedAdd, ADD_REMOVE_ONE, "not sorted", marks=_SLOW),
    pytest.param(_OutsideValues, REPLACE_ONE, "outside [L, U]", marks=_SLOW),
    (_LabelNextRank, ADD_REMOVE_ONE, "does not name the record"),
    pytest.param(_NoSmallest, REPLACE_ONE, "never proposed", marks=_SLOW),
    (_SeventyOnly, REPLACE_ONE, "never proposed"),
])
def test_a_broken_generator_is_refuted(broken: type, relation: str, problem: str) -> None:
    def gen(rel: str) -> Any:
        return broken(NF.LOWER, NF.UPPER, NF.EXTRAS) if rel == relation else NF._shipped(rel)

    f = NF.check_neighbour_family(gen)
    assert f.verdict is Verdict.REFUTED and f.counterexample is not None
    assert any(problem in p["problem"] for p in f.evidence["problems"]), f.evidence
