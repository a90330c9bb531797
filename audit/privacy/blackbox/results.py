"""Certificates and results of the black-box tester: the certificate of one selected event
(counts, Clopper-Pearson intervals, certified lower bound and point estimate), the
guarantee sentence, and the result of a run in which every pair crashed.

A certificate's ``epsilon_lower_raw`` = log((p_lower - delta) / p'_upper) with one-sided
Clopper-Pearson bounds at the level given: a lower bound on the event's true log-ratio
with probability >= 1 - 2 x level (Clopper & Pearson 1934).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from audit.privacy.blackbox.events import Event
from audit.privacy.blackbox.settings import TesterSettings
from audit.privacy.blackbox.statistics import (
    clopper_pearson_lower,
    clopper_pearson_upper,
    log_ratio,
)
from audit.protocols import Mechanism, NeighbourPair, TestResult

__all__ = ["Pick", "certify_pick", "crashed_result", "guarantee"]


@dataclass(frozen=True)
class Pick:
    """An event kept by selection, for one pair and direction, with its score."""

    pair: int
    direction: int  # 0: event favoured by pair.first, 1: by pair.second
    event: Event
    score: float
    counts: tuple[int, int]  # selection counts (first, second)


def certify_pick(p: Pick, pair: NeighbourPair, k_first: int, k_second: int, n: int,
                 a_each: float, d: int, delta: float = 0.0) -> dict[str, Any]:
    """The certificate of ``p`` from fresh counts ``k_first``, ``k_second`` out of ``n``
    per data set, each one-sided bound at level ``a_each`` (``d`` output columns)."""
    kf, ko = (k_first, k_second) if p.direction == 0 else (k_second, k_first)
    lo = float(clopper_pearson_lower(kf, n, a_each))
    hi = float(clopper_pearson_upper(ko, n, a_each))
    raw = float(log_ratio(lo, hi, delta))
    if kf == 0 or kf / n <= delta:
        point = 0.0
    elif ko == 0:
        point = math.inf
    else:
        point = math.log((kf / n - delta) / (ko / n))

    def interval(k: int) -> list[float]:
        return [float(clopper_pearson_lower(k, n, a_each)),
                float(clopper_pearson_upper(k, n, a_each))]

    names = ("D (pair.first)", "D' (pair.second)")
    fav, oth = (names[0], names[1]) if p.direction == 0 else (names[1], names[0])
    return {
        "pair_index": p.pair,
        "change": dict(pair.change),
        "relation": pair.relation,
        "direction": f"P[{fav}](E) / P[{oth}](E)",
        "direction_index": p.direction,
        "event": p.event.describe(d),
        "event_spec": p.event.to_dict(),
        "counts": {"first": k_first, "second": k_second, "n": n},
        "selection_counts": {"first": p.counts[0], "second": p.counts[1]},
        "selection_score": p.score,
        "p_first_interval": interval(k_first),
        "p_second_interval": interval(k_second),
        "p_favoured_lower": lo,
        "p_other_upper": hi,
        "alpha_per_bound": a_each,
        "epsilon_lower_raw": raw,
        "epsilon_lower": max(0.0, raw),
        "epsilon_point": point,
    }


def guarantee(t: TesterSettings, mechanism: Mechanism) -> str:
    """The sentence stating what a result of ``t`` on ``mechanism`` guarantees."""
    dp = "epsilon" if not t.delta else f"epsilon at delta = {float(t.delta):g}"
    return (f"with probability >= {t.confidence} over the tester's sampling, the "
            f"mechanism's true {dp} on {mechanism.relation} is >= epsilon_lower; "
            "violates = epsilon_lower > claimed_epsilon; a non-violation is NOT a proof "
            "of privacy")


def crashed_result(t: TesterSettings, mechanism: Mechanism, crashes: list[dict[str, Any]],
                   skipped: list[dict[str, Any]], rng_start: dict[str, Any], n_pairs: int,
                   extra: dict[str, Any] | None = None) -> TestResult:
    """No pair could be certified because the mechanism crashed: a result, not an abort."""
    return TestResult(
        tester=t.name, mechanism=str(mechanism.name), relation=str(mechanism.relation),
        claimed_epsilon=float(mechanism.claimed_epsilon), epsilon_estimate=math.nan,
        epsilon_lower=None, confidence=float(t.confidence), violates=False,
        witness={"crash": crashes[0]},
        details={"guarantee": guarantee(t, mechanism), "outcome": "crashed",
                 "mode": "sequential" if t.sequential else "fixed",
                 "crashes": crashes, "skipped_pairs": skipped, "pairs": n_pairs,
                 "pairs_used": n_pairs - len(skipped), "rng_at_start": rng_start,
                 "delta": float(t.delta), **(extra or {})},
    )
