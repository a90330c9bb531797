"""The sequential schedule of the black-box tester: the select-then-certify argument in
rounds of geometrically growing batches, stopping at the first look whose certificate
flags the claim (or, with ``seq_after_flag="continue"``, going on with the flagged pair to
the end of the schedule and reporting the largest certified bound).

Schedule (fixed before any draw): batches b_r = ``seq_first`` * ``seq_growth``^r up to
``n_certify`` (at least two rounds); round 0 only selects, every later round is a *look*
that certifies the event selected on everything drawn before it, on b_r fresh outputs.

Guarantee: alpha = 1 - confidence is spent evenly over the looks and each look's two
one-sided Clopper-Pearson bounds are at alpha_look / 2 on fresh outputs, so by the union
bound, with probability >= confidence, every look's ``epsilon_lower`` is <= the true
epsilon: stopping at the first flag (or reporting the maximum) keeps the fixed schedule's
guarantee.  ``stop_when_cleared`` stops when the selected event's upper bound is <= the
claim (a statement about that event only).  The full argument and the cost of the looks
are in ``README.md`` beside this module.  Between looks the next event is selected on
the pooled earlier outputs (:mod:`~audit.privacy.blackbox.select`: generated on one half,
rescored on the other); a pair stays sampled until its optimistic held-out score falls below
the leader's pessimistic one, and once a batch reaches ``seq_prune_at`` outputs only the
``seq_keep_pairs`` best pairs go on: best by the pessimistic score (``seq_rank_pairs=
"score"``) or by the point estimate, on held-out counts, of what the pair's best finalist
would certify at the final look (``"expected-final"``; the certified event is then the
kept pairs' finalist with the best held-out estimate at a milder level,
:data:`~audit.privacy.blackbox.select.PICK_LEVEL`).  The pessimistic score's penalty grows
like 1 / sqrt(n p), so at a pool of 10^5 it prefers a frequent event of ratio 0.076 to a
rare one (p ~ 0.03) of ratio 0.14 that certifies more at 10^6: that is how Sparse Vector
Alg. 3's half-half pair was dropped.  Ranking only decides what is sampled and certified;
every look still certifies on fresh outputs at its pre-set level.  Nothing here prints or
writes files.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from audit.privacy.blackbox.crashes import MechanismCrash, crash_entry
from audit.privacy.blackbox.results import Pick, certify_pick, crashed_result, guarantee
from audit.privacy.blackbox.sampling import rng_record
from audit.privacy.blackbox.select import select_pair
from audit.privacy.blackbox.settings import TesterSettings
from audit.privacy.blackbox.statistics import (
    clopper_pearson_lower,
    clopper_pearson_upper,
    log_ratio,
)
from audit.protocols import Mechanism, NeighbourPair, TestResult
from audit.rounding import float_down
from kernels.errors import InputError, InvalidParameterError

__all__ = ["Look", "Schedule", "decide", "run_sequential", "schedule"]


@dataclass(frozen=True)
class Schedule:
    """Batch sizes per round and the alpha each look (rounds 1..R-1) spends."""

    batches: tuple[int, ...]
    alpha: float
    #: share of alpha spent in proportion to the looks' batch sizes (the rest evenly)
    by_size: float = 0.0

    @property
    def looks(self) -> int:
        return len(self.batches) - 1

    @property
    def alpha_per_look(self) -> float:
        """alpha / looks rounded down (the looks never spend more than alpha in total)."""
        return float_down(Fraction(self.alpha) / self.looks)

    def alpha_at(self, r: int) -> float:
        """Alpha spent by look ``r`` (1..looks): (1 - by_size) alpha / looks + by_size alpha
        b_r / sum of the looks' batches, computed exactly and rounded down to a float, so the
        looks' shares sum to at most alpha (union bound)."""
        share = ((1 - Fraction(self.by_size)) / self.looks
                 + Fraction(self.by_size) * Fraction(self.batches[r], sum(self.batches[1:])))
        return float_down(Fraction(self.alpha) * share)

    def max_samples_per_dataset(self) -> int:
        return int(sum(self.batches))


def schedule(first: int, growth: int, n_max: int, alpha: float,
             by_size: float = 0.0) -> Schedule:
    """Geometric batches ``first * growth^r`` up to ``n_max`` (at least two rounds);
    ``by_size`` of alpha spent in proportion to the batch sizes (:meth:`Schedule.alpha_at`)."""
    for name, v, least in (("first", first, 1), ("growth", growth, 2), ("n_max", n_max, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < least:
            raise InvalidParameterError(f"{name} must be an integer >= {least}, got {v!r}")
    if not 0.0 < alpha < 1.0:
        raise InvalidParameterError(f"alpha must be in (0, 1), got {alpha!r}")
    batches = [int(first)]
    while batches[-1] * growth <= n_max:
        batches.append(batches[-1] * int(growth))
    if len(batches) < 2:
        batches.append(int(max(first, n_max)))
    if not 0.0 <= by_size <= 1.0:
        raise InvalidParameterError(f"by_size must be in [0, 1], got {by_size!r}")
    return Schedule(tuple(batches), float(alpha), float(by_size))


@dataclass(frozen=True)
class Look:
    """Decision at one look: ``"flag"``, ``"clear"`` or ``None`` (keep sampling)."""

    decision: str | None
    epsilon_lower: float
    epsilon_upper: float
    #: the four one-sided bounds the decision rests on, each at ``alpha_look / 2``:
    #: lower / upper of P[E | favoured], lower / upper of P[E | other] (the run's level
    #: accounting re-derives them, :mod:`~audit.privacy.blackbox.accounting`)
    bounds: dict[str, float] | None = None


def decide(k_fav: int, k_oth: int, n: int, alpha_look: float, claimed: float,
           delta: float = 0.0) -> Look:
    """The look's bounds (each one-sided bound at ``alpha_look / 2``) and decision.

    ``epsilon_lower`` = log((p_fav_lower - delta) / p_oth_upper) (flag if > ``claimed``);
    ``epsilon_upper`` = log((p_fav_upper - delta) / p_oth_lower) (clear if <= ``claimed``;
    +inf when p_oth_lower = 0)."""
    a = alpha_look / 2.0
    lo = float(clopper_pearson_lower(k_fav, n, a))
    hi = float(clopper_pearson_upper(k_oth, n, a))
    eps_l = float(log_ratio(lo, hi, delta))
    up = float(clopper_pearson_upper(k_fav, n, a))
    lo2 = float(clopper_pearson_lower(k_oth, n, a))
    if lo2 <= 0:
        eps_u = math.inf
    elif up - delta <= 0:
        eps_u = -math.inf
    else:
        eps_u = math.log(np.nextafter(up - delta, math.inf)) - math.log(lo2)
    decision = "flag" if eps_l > claimed else ("clear" if eps_u <= claimed else None)
    return Look(decision, eps_l, eps_u, {"favoured_lower": lo, "favoured_upper": up,
                                         "other_lower": lo2, "other_upper": hi})


def run_sequential(t: TesterSettings, mechanism: Mechanism, pairs: list[NeighbourPair],
                   rng: np.random.Generator,
                   progress: Callable[[str, int, int], None] | None = None) -> TestResult:
    """The sequential test (module docstring); same result shape as the fixed tester, with
    ``details["looks"]`` (one entry per look) and ``details["stopped"]``."""
    rng_start = rng_record(rng)
    alpha = 1.0 - float(t.confidence)
    plan = schedule(int(t.seq_first), int(t.seq_growth), t.certify_samples, alpha,
                    float(t.seq_alpha_by_size))
    a_sel = 1.0 - float(t.selection_confidence)
    delta = float(t.delta)
    claimed = float(mechanism.claimed_epsilon)
    settings = t.event_settings()
    cap = int(t.n_select)
    t0 = time.perf_counter()

    pools: dict[int, list[np.ndarray]] = {}
    active = list(range(len(pairs)))
    skipped: list[dict[str, Any]] = []
    crashes: list[dict[str, Any]] = []
    looks: list[dict[str, Any]] = []
    pick: Pick | None = None
    d_out: int | None = None
    drawn = [0]
    stopped = "schedule-exhausted"
    tried_total = 0
    last_reports: dict[int, dict[str, Any]] = {}
    rounds_run = 0
    first_flag: int | None = None
    n_final = plan.batches[-1]
    a_final = plan.alpha_at(plan.looks) / 2.0
    total_planned = 2 * len(pairs) * plan.batches[0] + 2 * sum(
        b * min(len(pairs), int(t.seq_keep_pairs)) for b in plan.batches[1:])

    def tick(m: int) -> None:
        drawn[0] += m
        if progress is not None:
            progress(f"round {rounds_run}", drawn[0], total_planned)

    for r, b in enumerate(plan.batches):
        rounds_run = r
        t_round = time.perf_counter()
        order = active if pick is None else [pick.pair] + [i for i in active if i != pick.pair]
        new: dict[int, tuple[np.ndarray, np.ndarray, Mapping[str, Any]]] = {}
        for idx in order:
            pair = pairs[idx]
            state = rng.bit_generator.state
            try:
                ya = t.draw_chunked(mechanism, pair.first, b, rng, d_out, tick)
                d_out = ya.shape[1]
                yb = t.draw_chunked(mechanism, pair.second, b, rng, d_out, tick)
            except InputError as exc:
                skipped.append({"pair_index": idx, "change": dict(pair.change),
                                "reason": str(exc), "round": r})
                continue
            except MechanismCrash as exc:
                crashes.append({**crash_entry(exc, idx, pair, f"round {r}")})
                continue
            new[idx] = (ya, yb, state)
        active = [i for i in active if i in new]

        if pick is not None and pick.pair in new:
            ya, yb, state = new[pick.pair]
            kf = int(np.count_nonzero(pick.event.mask(ya)))
            ks = int(np.count_nonzero(pick.event.mask(yb)))
            fav, oth = (kf, ks) if pick.direction == 0 else (ks, kf)
            a_look = plan.alpha_at(r)
            look = decide(fav, oth, b, a_look, claimed, delta)
            c = certify_pick(pick, pairs[pick.pair], kf, ks, b, a_look / 2.0, d_out or 1, delta)
            c.update({"round": r, "epsilon_upper": look.epsilon_upper,
                      "decision": look.decision, "decision_bounds": look.bounds,
                      "pairs_sampled": sorted(new),
                      "replay": {"rng_state": state, "chunk_size": int(t.chunk_size), "n": b}})
            looks.append(c)
            if look.decision == "flag" and first_flag is None:
                first_flag = r
                stopped = "flagged"
                if t.seq_after_flag == "stop":
                    break
                # continue the remaining looks on the flagged pair only
                active = [pick.pair]
                for i in list(pools):
                    if i != pick.pair:
                        del pools[i]
                new = {pick.pair: new[pick.pair]}
            if first_flag is None and look.decision == "clear" and t.stop_when_cleared:
                stopped = "cleared"
                break
        if not active:
            stopped = "no-usable-pair"
            break
        if r == len(plan.batches) - 1:
            break
        now = time.perf_counter()
        # end at this look boundary, with the bound certified so far, when the limit has
        # passed or the next round (its batch / this one's, times this round's time) would
        # end past it: a watchdog mid-round would lose every look of the run
        if t.max_seconds is not None and looks and (now - t0 + (now - t_round) * (
                plan.batches[r + 1] / b) > float(t.max_seconds)):
            stopped = "flagged" if first_flag is not None else "time-budget"
            break
        # pool the round's outputs (selection may use everything drawn so far)
        for idx, (ya, yb, _) in new.items():
            if idx in pools:
                pa, pb = pools[idx]
                ya, yb = np.concatenate([pa, ya])[-cap:], np.concatenate([pb, yb])[-cap:]
            pools[idx] = [ya[-cap:], yb[-cap:]]
        # select the next event, scored for the next look's size and level
        n_next = plan.batches[r + 1]
        scored: list[Pick] = []
        optimistic: dict[int, float] = {}
        expected: dict[int, float] = {}
        by_point: dict[int, Pick] = {}
        for idx in active:
            pa, pb = pools[idx]
            sel = select_pair(idx, pa, pb, settings, t.max_events, n_next, a_sel,
                              plan.alpha_at(r + 1) / 2.0, delta,
                              heldout=t.heldout_selection, n_final=n_final,
                              a_final=a_final)
            tried_total += sum(sel.families.values())
            last_reports[idx] = sel.report(idx)
            if sel.picks:
                best = max(sel.picks, key=lambda p: p.score)
                scored.append(best)
                optimistic[idx] = sel.optimistic
                expected[idx] = sel.expected_final
                if sel.expected_picks:
                    by_point[idx] = max(sel.expected_picks, key=lambda p: p.score)
        if not scored:
            stopped = "no-usable-pair"
            break
        scored.sort(key=lambda p: (-p.score, p.pair))
        pick = scored[0]
        # keep a pair until the evidence separates it from the leader (its optimistic
        # held-out log-ratio falls below the leader's pessimistic score); from a batch of
        # seq_prune_at on, keep at most seq_keep_pairs
        keep = {p.pair for p in scored if optimistic[p.pair] >= pick.score}
        if n_next >= int(t.seq_prune_at) and t.seq_rank_pairs == "expected-final":
            # keep the pairs whose best finalist is expected to certify the most at the
            # final look, and certify the event among them with the best held-out
            # estimate (at select.PICK_LEVEL) of its bound at the next look
            ranked = sorted((p for p in scored if p.pair in keep),
                            key=lambda p: (-expected[p.pair], p.pair))
            keep = {p.pair for p in ranked[: int(t.seq_keep_pairs)]}
            kept = sorted((by_point[i] for i in keep if i in by_point),
                          key=lambda p: (-p.score, p.pair))
            pick = kept[0] if kept else next(p for p in scored if p.pair in keep)
        elif n_next >= int(t.seq_prune_at):
            keep &= {p.pair for p in scored[: int(t.seq_keep_pairs)]}
        keep.add(pick.pair)
        active = [i for i in active if i in keep]
        for i in list(pools):
            if i not in keep:
                del pools[i]

    elapsed = time.perf_counter() - t0
    extra = {"mode": "sequential", "looks": looks, "stopped": stopped,
             "schedule": list(plan.batches),
             "alpha_per_look": [plan.alpha_at(i) for i in range(1, len(plan.batches))],
             "samples_total": drawn[0], "rounds": rounds_run + 1, "elapsed_s": elapsed,
             "first_flag_round": first_flag,
             "first_flag_bound": (None if first_flag is None else max(0.0, next(
                 c["epsilon_lower_raw"] for c in looks if c["round"] == first_flag)))}
    if not looks:
        if crashes:
            return crashed_result(t, mechanism, crashes, skipped, rng_start, len(pairs), extra)
        reasons = "; ".join(s["reason"] for s in skipped[:3])
        raise InvalidParameterError(
            f"no usable neighbour pair: the mechanism rejected all {len(pairs)} pairs "
            f"({reasons})")
    best_c = max(looks, key=lambda c: c["epsilon_lower_raw"])
    eps_lower = max(0.0, best_c["epsilon_lower_raw"])
    details = {
        "guarantee": guarantee(t, mechanism) + (
            f"; sequential: alpha = {alpha:g} spent over {plan.looks} looks "
            f"({plan.by_size:g} of it in proportion to the batch sizes, the rest evenly) "
            "(union bound), so the maximum over the looks carries the same guarantee"),
        "outcome": "flagged" if eps_lower > claimed else "not-flagged",
        **extra,
        "rng_at_start": rng_start,
        "n_select": cap,
        "n_certify": t.certify_samples,
        "chunk_size": int(t.chunk_size),
        "pairs": len(pairs),
        "pairs_used": len(pairs) - len(skipped),
        "skipped_pairs": skipped,
        "crashes": crashes,
        "events_tried_in_selection": tried_total,
        "events_per_pair": [last_reports[i] for i in sorted(last_reports)],
        "certify": "best",
        "certified": looks,
        "alpha_total": alpha,
        "alpha_per_bound": float(best_c["alpha_per_bound"]),
        "delta": delta,
        "selection_confidence": float(t.selection_confidence),
        "settings": t.settings_dict(),
        "output_columns": d_out,
    }
    return TestResult(
        tester=t.name, mechanism=str(mechanism.name), relation=str(mechanism.relation),
        claimed_epsilon=claimed, epsilon_estimate=float(best_c["epsilon_point"]),
        epsilon_lower=eps_lower, confidence=float(t.confidence),
        violates=bool(eps_lower > claimed), witness=dict(best_c), details=details)
