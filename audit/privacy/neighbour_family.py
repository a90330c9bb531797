"""Does the neighbour generator yield genuine neighbours, and every one its scope promises?

:class:`audit.privacy.neighbours.ReplaceOne` / :class:`~audit.privacy.neighbours.AddRemoveOne`
feed the black-box testers (``dpaudit test``) and, through
:func:`audit.privacy.exact_loss._candidate_changes`, the exact-loss search.  A report's scope
("replace-one neighbours: the smallest, the largest, the quartiles and every distinct value
when there are at most 64, replaced by L, U and the other candidates' values") is only true
if the generator keeps it, and a tester's verdict is only about neighbours if every pair is
one.  On planted data sets (few distinct values with a tie; exactly ``max_distinct`` = 64
distinct values; 100 distinct values) with extra values inside and outside [L, U], each
relation, this check verifies from first principles (multisets, no code of the generator):

* **genuine**: ``first`` is the data set; ``second`` is sorted, inside [L, U], and differs
  from it by exactly one record (replace-one: one out, one in, a real change; add-one: one
  in; remove-one: one out), and its ``change`` label names that record (rank, old, new) so a
  replay rebuilds the same pair;
* **reach** (the documented scope): every candidate record - each distinct value when there
  are at most ``max_distinct``, else the order statistics 0, 1, n//4, n//2, 3n//4, n-2, n-1 -
  is replaced by L, by U, by every other candidate's value and by every extra value inside
  [L, U] (never one outside), and removed; L, U and the extra values inside [L, U] are added;
* **the search sees the same family**: the exact-loss search's candidate changes rebuild
  exactly the generator's pairs, in order.

Exhaustive over the planted data sets (``verified`` with that scope).  Twin: a generator
that never proposes U must be refuted.  Nothing here prints or writes files.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from audit import falsifiability
from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.privacy import exact_loss
from audit.privacy.neighbours import AddRemoveOne, ReplaceOne
from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE, NeighbourPair

__all__ = ["CHECK_ID", "DATASETS", "EXTRAS", "check_neighbour_family", "family_problems",
           "replay_neighbour_family"]

CHECK_ID = "engine.neighbour-family"
LOWER, UPPER = 0.0, 1.0
#: extra values offered to the generator: two inside [L, U], two outside (never proposed)
EXTRAS = (0.25, 0.7, -0.5, 1.5)
#: the planted data sets: few distinct values with a tie; exactly 64 distinct; 100 distinct
DATASETS: tuple[tuple[float, ...], ...] = (
    (0.1, 0.5, 0.5, 0.55, 0.95),
    tuple(round(0.2 + 0.6 * i / 63, 12) for i in range(64)),
    tuple(round(0.05 + 0.9 * i / 99, 12) for i in range(100)),
)
MAX_DISTINCT = 64

Generator = Callable[[str], Any]


def _shipped(relation: str) -> Any:
    cls = ReplaceOne if relation == REPLACE_ONE else AddRemoveOne
    return cls(LOWER, UPPER, EXTRAS)


def _candidates(xs: np.ndarray) -> list[int]:
    """Ranks of the documented candidate records of sorted ``xs``."""
    n = xs.size
    distinct = sorted(set(xs.tolist()))
    if len(distinct) <= MAX_DISTINCT:
        return [int(np.flatnonzero(xs == v)[0]) for v in distinct]
    return sorted({0, 1, n // 4, n // 2, (3 * n) // 4, n - 2, n - 1})


@dataclass(frozen=True)
class _Diff:
    out: list[float]
    into: list[float]


def _diff(first: np.ndarray, second: np.ndarray) -> _Diff:
    a, b = Counter(first.tolist()), Counter(second.tolist())
    return _Diff(sorted((a - b).elements()), sorted((b - a).elements()))


def _pair_problem(xs: np.ndarray, p: NeighbourPair, relation: str) -> str:
    first, second = np.asarray(p.first), np.asarray(p.second)
    ch = dict(p.change or {})
    if p.relation != relation:
        return f"relation {p.relation!r}, expected {relation!r}"
    if not np.array_equal(first, xs):
        return "first data set is not the data"
    if second.size and not (np.all(np.diff(second) >= 0)):
        return "second data set not sorted"
    if second.size and not (second.min() >= LOWER and second.max() <= UPPER):
        return "a record of the neighbour lies outside [L, U]"
    d = _diff(first, second)
    op = ch.get("op")
    shape = {"replace": (1, 1), "add": (0, 1), "remove": (1, 0)}.get(str(op))
    if shape is None or (len(d.out), len(d.into)) != shape:
        return f"not a {op} neighbour: {len(d.out)} record(s) out, {len(d.into)} in"
    if relation == REPLACE_ONE and op != "replace" or relation == ADD_REMOVE_ONE and \
            op == "replace":
        return f"a {op} pair under {relation}"
    if op in ("replace", "remove"):
        r = ch.get("rank")
        if not (isinstance(r, int) and 0 <= r < xs.size and xs[r] == d.out[0]
                and ch.get("old") == d.out[0]):
            return f"the change label {ch} does not name the record taken out ({d.out[0]})"
    if op in ("replace", "add") and ch.get("new") != d.into[0]:
        return f"the change label {ch} does not name the record put in ({d.into[0]})"
    return ""


def family_problems(generator: Generator = _shipped) -> list[dict[str, Any]]:
    """Every violation of the three properties (module docstring) on the planted data sets,
    as {data, relation, problem}; empty when the generator keeps them."""
    out: list[dict[str, Any]] = []

    def bad(xs: np.ndarray, rel: str, why: str) -> None:
        out.append({"data": f"{xs.size} records, {len(set(xs.tolist()))} distinct",
                    "relation": rel, "problem": why})

    inside = sorted({LOWER, UPPER, *(v for v in EXTRAS if LOWER <= v <= UPPER)})
    for data in DATASETS:
        xs = np.array(sorted(data))
        cand = _candidates(xs)
        for rel in (REPLACE_ONE, ADD_REMOVE_ONE):
            pairs = list(generator(rel).pairs(xs))
            for p in pairs:
                why = _pair_problem(xs, p, rel)
                if why:
                    bad(xs, rel, why)
                    break
            diffs = [_diff(np.asarray(p.first), np.asarray(p.second)) for p in pairs]
            if rel == REPLACE_ONE:
                got = {(d.out[0], d.into[0]) for d in diffs if len(d.out) == len(d.into) == 1}
                values = sorted({*inside, *(float(xs[i]) for i in cand)})
                need = {(float(xs[i]), v) for i in cand for v in values if v != xs[i]}
                missing: list[tuple[Any, float]] = sorted(need - got)
            else:
                removed = {d.out[0] for d in diffs if len(d.out) == 1 and not d.into}
                added = {d.into[0] for d in diffs if len(d.into) == 1 and not d.out}
                missing = sorted([("remove", float(xs[i])) for i in cand
                                  if float(xs[i]) not in removed]
                                 + [("add", v) for v in inside if v not in added])
            if missing:
                bad(xs, rel, f"{len(missing)} documented neighbour(s) never proposed, e.g. "
                    f"{missing[0]}")
            problem = _search_mismatch(xs, rel, pairs)
            if problem:
                bad(xs, rel, problem)
    return out


def _search_mismatch(xs: np.ndarray, rel: str, pairs: Iterable[NeighbourPair]) -> str:
    """Whether the exact-loss search's candidate changes rebuild the generator's pairs."""
    changes = exact_loss._candidate_changes(rel, xs, LOWER, UPPER, EXTRAS)
    seconds = [np.asarray(p.second) for p in pairs]
    if len(changes) != len(seconds):
        return (f"the exact-loss search has {len(changes)} candidate neighbours, the "
                f"generator {len(seconds)}")
    for k, (c, s) in enumerate(zip(changes, seconds, strict=True)):
        if not np.array_equal(exact_loss._apply(xs, c), s):
            return f"the search's candidate {k} ({c}) is not the generator's pair {k}"
    return ""


class _NoUpper(ReplaceOne):
    """The twin: replace-one that never proposes U."""

    def new_values(self, xs: np.ndarray, idx: Any) -> list[float]:
        return [v for v in super().new_values(xs, idx) if v != self.upper]


def _twin(relation: str) -> Any:
    return _NoUpper(LOWER, UPPER, EXTRAS) if relation == REPLACE_ONE else _shipped(relation)


def check_neighbour_family(generator: Generator = _shipped) -> Finding:
    """The Finding: ``verified`` over the planted data sets (twin refuted) or ``refuted``
    with the first violation."""
    t0 = time.perf_counter()
    problems = family_problems(generator)
    twin = family_problems(_twin)
    tw = falsifiability.twin("a replace-one generator that never proposes U",
                             "refuted" if twin else "not-refuted",
                             witness=twin[0]["problem"] if twin else None)
    cx = None
    if problems:
        p = problems[0]
        cx = counterexample_document(
            CHECK_ID, "testers:audit.privacy", {"data": p["data"], "relation": p["relation"]},
            {"genuine_and_documented_neighbours": True}, {"problem": p["problem"]}, {},
            f"neighbour generator ({p['relation']}, {p['data']}): {p['problem']}")
    verdict = Verdict.REFUTED if problems else falsifiability.decide(
        True, tw, failed=Verdict.REFUTED,
        vacuous_reason="a generator without U passes too: the check could not fail")
    return Finding(
        id=CHECK_ID,
        claim="the neighbour generator yields only genuine neighbours inside [L, U], with "
        "change labels that rebuild them, and every neighbour its documented scope "
        "promises; the exact-loss search searches the same family",
        reference="audit/privacy/neighbours.py (module docstring); multiset differences",
        method=Method.EXHAUSTIVE,
        verdict=verdict,
        scope=f"{len(DATASETS)} planted data sets (5 records with a tie, 64 and 100 distinct "
        f"values) in [{LOWER:g}, {UPPER:g}] with extra values {list(EXTRAS)}; replace-one and "
        f"add/remove; every pair checked; twin (no U) refuted: {bool(twin)}",
        evidence={"problems": problems, "twin": tw},
        counterexample=cx,
        seed=None,
        duration_s=time.perf_counter() - t0,
        subject="testers:audit.privacy",
    )


def replay_neighbour_family(inp: dict) -> tuple[bool, Any, Any, str]:
    """Re-run the check on the stored data set and relation; still fails while a problem
    remains there."""
    left = [p for p in family_problems() if p["data"] == inp.get("data")
            and p["relation"] == inp.get("relation")]
    return bool(left), "no problem", left[0]["problem"] if left else "none", \
        "genuine and documented neighbours"
