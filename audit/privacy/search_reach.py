"""Does the exact-loss neighbour search reach a worst case planted where it must look?

An edit that narrows where :func:`audit.privacy.exact_loss.worst_neighbour` looks (one side
of a record only, no optimisation of the new value, the bounds left out) passes every run
whose worst pair happens to lie where the narrowed search still looks.  Here the worst pair
is *planted*: a Laplace mechanism (b = 1, epsilon = 1) on the query
``f(X) = sum_i w(x_i)`` with records in [0, 1], ``w`` a Gaussian bump of width
:data:`WIDTH` centred at ``v*`` (``sign = +1``) or one minus that bump (a dip,
``sign = -1``); ``v*`` is planted near the lower bound, left of the data, right of it and
near the upper bound, under both neighbour relations: 16 cases.  ``0 <= w <= 1`` so the
query's sensitivity is at most 1 and the mechanism is 1-DP.

Truth, in closed form (no search): the worst loss is ``max |f(X) - f(X')| / b``:
replace-one ``max_i max(w_max - w(x_i), w(x_i) - w_min)``, add/remove
``max(w_max, max_i w(x_i))`` (w >= 0), with ``w_max``/``w_min`` of w over [0, 1]
(a bump: 1 at v*, the minimum at the farther bound; a dip: 0 at v*, the maximum at the
farther bound).

The worst *record* is planted too (:class:`OrderCase`): the query is the smallest or the
largest record, on data whose extreme record sits alone behind a gap, with few distinct
values (every record a candidate) and with 100 (only order statistics are candidates), under
both relations: 8 cases.  Truth: for the minimum ``max(x_(2) - x_(1), x_(1) - L)`` (move
the smallest record above the next one, or put a record at L), for the maximum
``max(x_(n) - x_(n-1), U - x_(n))``, under either relation (removing / adding a record
moves the statistic by the same amounts).  The search must certify a loss within
:data:`TOL` of each truth (its certified lower bound ``value_down``); one planted case it
misses refutes the search's reach.

:func:`check_search_reach` runs the cases at the search's default scope (work units:
``max_evals`` mechanism evaluations) and, as the twin that shows the check can fail, a
narrowed search (no optimisation of the new value: ``refine = 0``) on the same cases,
which must miss some.  Nothing here prints or writes files.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from audit import falsifiability
from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.privacy.exact_loss import worst_neighbour
from audit.privacy.mechanisms import LaplaceMechanism
from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE

__all__ = ["CHECK_ID", "FEW", "MANY", "PLANTS", "WIDTH", "OrderCase", "PlantedCase", "all_cases",
           "check_search_reach", "describe_neighbour_miss", "order_cases", "planted_cases",
           "reach_finding", "replay_search_reach"]

CHECK_ID = "engine.search-reach"

WIDTH = 0.04
TOL = 1e-9
#: where the worst replacement value is planted: near L, left of the data, right, near U
PLANTS = (0.02, 0.3, 0.7, 0.98)
#: the data set searched: records in the middle, away from every plant
DATA = (0.45, 0.5, 0.5, 0.55)
#: order-statistic cases: few distinct values, and 100 distinct values (more than the
#: generator's max_distinct = 64), each with its smallest and largest record behind a gap
FEW = (0.1, 0.5, 0.5, 0.55, 0.95)
MANY = (0.05, *(round(0.3 + 0.3 * i / 97, 12) for i in range(98)), 0.92)


@dataclass(frozen=True)
class PlantedCase:
    """One planted worst case: the bump centre, its sign and the relation."""

    centre: float
    sign: int
    relation: str

    @property
    def key(self) -> str:
        return (f"{'bump' if self.sign > 0 else 'dip'}@{self.centre:g}/"
                f"{'replace' if self.relation == REPLACE_ONE else 'add-remove'}")

    def w(self, v: float) -> float:
        bump = math.exp(-(((v - self.centre) / WIDTH) ** 2))
        return bump if self.sign > 0 else 1.0 - bump

    def mechanism(self) -> LaplaceMechanism:
        w = self.w

        def query(x: np.ndarray) -> float:
            return float(sum(w(float(v)) for v in np.asarray(x, dtype=np.float64)))

        return LaplaceMechanism(1.0, query=query, relation=self.relation,
                                name=f"planted[{self.key}]")

    def truth(self) -> float:
        """The worst loss over every neighbour of :data:`DATA` in [0, 1], closed form."""
        far = 0.0 if self.centre > 0.5 else 1.0
        w_max = 1.0 if self.sign > 0 else self.w(far)
        w_min = self.w(far) if self.sign > 0 else 0.0
        ws = [self.w(x) for x in DATA]
        if self.relation == REPLACE_ONE:
            return max(max(w_max - v, v - w_min) for v in ws)
        return max(w_max, max(ws))


    @property
    def data(self) -> tuple[float, ...]:
        return DATA


@dataclass(frozen=True)
class OrderCase:
    """A planted worst record: the query is the smallest (``stat = "min"``) or largest
    record of ``data`` (in [0, 1]), under ``relation``."""

    stat: str
    data: tuple[float, ...]
    relation: str

    @property
    def key(self) -> str:
        size = "few" if self.data == FEW else f"{len(self.data)}-distinct"
        return (f"{self.stat}/{size}/"
                f"{'replace' if self.relation == REPLACE_ONE else 'add-remove'}")

    def mechanism(self) -> LaplaceMechanism:
        pick = min if self.stat == "min" else max

        def query(x: np.ndarray) -> float:
            return float(pick(np.asarray(x, dtype=np.float64)))

        return LaplaceMechanism(1.0, query=query, relation=self.relation,
                                name=f"planted[{self.key}]")

    def truth(self) -> float:
        xs = sorted(self.data)
        if self.stat == "min":
            return max(xs[1] - xs[0], xs[0] - 0.0)
        return max(xs[-1] - xs[-2], 1.0 - xs[-1])


def planted_cases() -> list[PlantedCase]:
    return [PlantedCase(c, s, r) for c in PLANTS for s in (1, -1)
            for r in (REPLACE_ONE, ADD_REMOVE_ONE)]


def order_cases() -> list[OrderCase]:
    return [OrderCase(s, d, r) for s in ("min", "max") for d in (FEW, MANY)
            for r in (REPLACE_ONE, ADD_REMOVE_ONE)]


def all_cases() -> list[PlantedCase | OrderCase]:
    return [*planted_cases(), *order_cases()]


def _certified(res: Any) -> float:
    """The search's certified lower bound on its worst pair (0 when it certified none)."""
    worst = getattr(res, "worst", None)
    cert = getattr(worst, "certified", None)
    return 0.0 if cert is None else float(cert.kernel.value_down)


def _misses(search: Callable[..., Any], **kw: Any) -> list[dict[str, Any]]:
    out = []
    for case in all_cases():
        res = search(case.mechanism(), np.array(case.data), lower=0.0, upper=1.0,
                     certify_top=1, **kw)
        found = _certified(res)
        truth = case.truth()
        if not truth - TOL <= found <= truth + TOL:  # missed, or beyond every neighbour
            out.append({"case": case.key, "truth": truth, "certified": found,
                        "change": dict(getattr(res.worst, "change", {}) or {})})
    return out


def replay_search_reach(inp: dict) -> tuple[bool, Any, Any, str]:
    """Re-run the search on the stored planted case; still fails while it is missed."""
    case = next((c for c in all_cases() if c.key == inp.get("case")), None)
    if case is None:
        raise ValueError(f"unknown planted case {inp.get('case')!r}")
    res = worst_neighbour(case.mechanism(), np.array(case.data), lower=0.0, upper=1.0)
    found = _certified(res)
    return (not case.truth() - TOL <= found <= case.truth() + TOL, case.truth(), found,
            "closed-form worst loss")


def check_search_reach(search: Callable[..., Any] = worst_neighbour) -> Finding:
    """The Finding: every planted worst case reached (``verified`` over the 16 cases, with
    the narrowed twin refuted), or ``refuted`` with the first case missed."""
    t0 = time.perf_counter()
    n = len(all_cases())
    missed = _misses(search)
    twin = _misses(search, refine=0)
    return reach_finding(
        check_id=CHECK_ID,
        claim="the exact-loss neighbour search certifies every planted worst case (bumps "
        "and dips of the query near each bound and on each side of the data; the smallest "
        "and the largest record behind a gap, with few and with many distinct values; both "
        "relations)",
        reference="audit/privacy/search_reach.py (closed-form truth)",
        scope=f"{n} planted cases ({len(planted_cases())} bumps/dips: centres "
        f"{', '.join(map(str, PLANTS))}, data {list(DATA)}; {len(order_cases())} order "
        f"statistics: min/max of {len(FEW)} records with few distinct values and of "
        f"{len(MANY)} distinct records; replace-one and add/remove; records in [0, 1]) at the "
        f"search's default work units; certified lower bound within {TOL:g} of the "
        f"closed-form worst loss (above it: a pair that is no neighbour); twin (no "
        f"optimisation of the new value) misses {len(twin)} of {n}",
        n=n, missed=missed, twin=twin,
        twin_perturbation="the same search without optimisation of the new value (refine = "
        "0, screening only)", tolerance={"abs": TOL}, t0=t0,
        describe=describe_neighbour_miss)


def describe_neighbour_miss(m: dict[str, Any], why: str = "") -> tuple[dict, dict, str]:
    """(expected, observed, explanation) of a planted worst neighbour the search missed."""
    return ({"certified_at_least": m["truth"]},
            {"certified": m["certified"], "worst_change": m["change"]},
            f"the neighbour search certified {m['certified']:.6g} where the planted worst "
            f"case has loss {m['truth']:.6g}{why}")


def reach_finding(*, check_id: str, claim: str, reference: str, scope: str, n: int,
                  missed: list[dict[str, Any]], twin: list[dict[str, Any]],
                  twin_perturbation: str, tolerance: dict[str, float], t0: float,
                  describe: Callable[[dict[str, Any]], tuple[dict, dict, str]]) -> Finding:
    """The Finding of a planted-truth reach check: ``refuted`` when a planted case was
    ``missed`` (its counterexample from ``describe(first miss)`` = (expected, observed,
    explanation)), else ``verified`` if the narrowed twin missed some (``twin``), else
    ``vacuous`` (the check could not fail)."""
    cx = None
    if missed:
        expected, observed, why = describe(missed[0])
        cx = counterexample_document(check_id, "testers:audit.privacy",
                                     {"case": missed[0]["case"]}, expected, observed,
                                     tolerance, why)
    tw = falsifiability.twin(
        twin_perturbation, "refuted" if twin else "not-refuted",
        witness=twin[0]["case"] if twin else None,
        margin={"missed": len(twin), "of": n} if twin else None)
    verdict = Verdict.REFUTED if missed else falsifiability.decide(
        True, tw, failed=Verdict.REFUTED,
        vacuous_reason="the narrowed twin also reaches every planted case: the check could "
        "not fail in this scope")
    return Finding(
        id=check_id, claim=claim, reference=reference, method=Method.EXHAUSTIVE,
        verdict=verdict, scope=scope,
        evidence={"cases": n, "missed": missed, "twin_missed": len(twin), "twin": tw},
        counterexample=cx, seed=None, duration_s=time.perf_counter() - t0,
        subject="testers:audit.privacy", tolerance=tolerance)
