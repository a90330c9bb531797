"""The certified verdict of a black-box run against a trade-off claim.

For each neighbour pair (D, D'), ``n_select`` outputs per data set are drawn; candidate
events (:func:`audit.privacy.blackbox.candidates.candidates`: thresholds, intervals,
discrete values, patterns) are generated and counted on the first half; in each direction
(the event favoured by D' or by D) the ``shortlist`` best of each family, ranked by
:meth:`Claim.excess` at the corner the certification would give (pessimistic selection
frequencies turned into certification bounds, as in
:func:`audit.privacy.blackbox.statistics.predicted_bound`), are re-counted on the held-out
half and the best held-out score is the pair's pick.  The best pick over the pairs is
certified on ``n_certify`` fresh outputs per data set.

Guarantee.  The event is chosen before the certification draws, so its two counts are
plain binomials.  Two one-sided Clopper-Pearson bounds, each at level (1 - confidence) / 2
(Bonferroni), give with probability >= confidence the box a = P[E | other] <= a_U and
P[E | favoured] >= 1 - b_U.  Every claim's feasible region is upward closed
(:mod:`audit.privacy.claims.base`), so if the corner (a_U, b_U) is infeasible
(:meth:`Claim.verdict`, mpmath, safe rounding) the whole box is, and the mechanism
violates the claim on this pair — a false alarm has probability <= 1 - confidence.  The
strongest refuted parameter (``mu >= ...``) holds with the same confidence.  Selection never
sees the certification outputs; the number of events tried does not enter the correction.
A run that is not refuted is NOT a proof: the report says "not refuted".

Nothing here prints or writes files.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from audit.privacy.blackbox.candidates import candidates
from audit.privacy.blackbox.events import Event, count_on
from audit.privacy.blackbox.sampling import rng_record
from audit.privacy.blackbox.settings import TesterSettings
from audit.privacy.blackbox.statistics import (
    bonferroni_level,
    clopper_pearson_lower,
    clopper_pearson_upper,
)
from audit.privacy.claims.base import Claim, CornerVerdict
from audit.protocols import Mechanism, NeighbourPair
from kernels.errors import InputError, InvalidParameterError

__all__ = ["ClaimPick", "ClaimResult", "certified_corner", "predicted_excess", "certify_claim"]

#: finalists per family and direction re-counted on the held-out half
SHORTLIST = 8


@dataclass(frozen=True)
class ClaimPick:
    """A selected event of one pair: ``direction`` 0 = favoured by pair.second (a = P[E |
    first]), 1 = favoured by pair.first; ``score`` = the predicted excess."""

    pair: int
    direction: int
    event: Event
    score: float


@dataclass
class ClaimResult:
    """What :func:`certify_claim` returns (plain data for the report)."""

    claim: str
    refuted: bool
    verdict: CornerVerdict
    confidence: float
    corner: dict[str, float]
    counts: dict[str, int]
    pair_index: int
    direction: str
    event: str
    event_spec: dict[str, Any]
    alpha_per_bound: float
    samples_total: int
    replay: dict[str, Any]
    selection: list[dict[str, Any]] = field(default_factory=list)
    skipped_pairs: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"claim": self.claim, "refuted": self.refuted,
                "strongest_refuted": dict(self.verdict.strongest),
                "witness": dict(self.verdict.witness), "confidence": self.confidence,
                "corner": self.corner, "counts": self.counts, "pair_index": self.pair_index,
                "direction": self.direction, "event": self.event,
                "event_spec": self.event_spec, "alpha_per_bound": self.alpha_per_bound,
                "samples_total": self.samples_total, "replay": self.replay,
                "selection": self.selection, "skipped_pairs": self.skipped_pairs}


def certified_corner(k_other: int, k_fav: int, n: int, alpha_each: float
                     ) -> tuple[float, float]:
    """(a_U, b_U): the upper Clopper-Pearson bound of P[E | other] and 1 - the lower bound
    of P[E | favoured], each one-sided at ``alpha_each``; 1 - p is rounded up (one ulp)."""
    a_up = float(clopper_pearson_upper(k_other, n, alpha_each))
    p_lo = float(clopper_pearson_lower(k_fav, n, alpha_each))
    return a_up, min(1.0, math.nextafter(1.0 - p_lo, 2.0))


def predicted_excess(claim: Claim, k_other: np.ndarray, k_fav: np.ndarray, n_sel: int,
                     n_cert: int, a_sel: float, a_cert: float) -> np.ndarray:
    """The claim's excess at the corner each event would certify: pessimistic selection
    frequencies (one-sided CP at ``a_sel``) as expected certification counts, bounded at
    ``a_cert`` with ``n_cert`` samples.  For ranking only."""
    if k_other.size == 0:
        return np.zeros(0)
    po = np.asarray(clopper_pearson_upper(k_other, n_sel, a_sel))
    pf = np.asarray(clopper_pearson_lower(k_fav, n_sel, a_sel))
    co = np.minimum(np.ceil(po * n_cert), n_cert)
    cf = np.floor(pf * n_cert)
    a_up = np.asarray(clopper_pearson_upper(co, n_cert, a_cert))
    b_up = 1.0 - np.asarray(clopper_pearson_lower(cf, n_cert, a_cert))
    with np.errstate(all="ignore"):
        s = np.asarray(claim.excess(a_up, b_up), dtype=np.float64)
    # a corner on the far side of the diagonal cannot refute (Claim.verdict)
    return np.where(np.isnan(s) | (a_up + b_up >= 1.0), -np.inf, s)


def _top(score: np.ndarray, k: int) -> np.ndarray:
    ok = np.flatnonzero(np.isfinite(score))
    if ok.size <= k:
        return ok
    return ok[np.argpartition(-score[ok], k - 1)[:k]]


def _select(claim: Claim, idx: int, ya: np.ndarray, yb: np.ndarray, t: TesterSettings,
            n_cert: int, a_sel: float, a_cert: float) -> tuple[list[ClaimPick], int]:
    n = ya.shape[0]
    h = n // 2
    cand = candidates(ya[:h], yb[:h], t.event_settings())
    ka, kb = cand.counts()
    events = cand.events[: t.max_events]
    ka, kb = ka[: t.max_events], kb[: t.max_events]
    fams = np.array([e.family for e in events])
    finalists: list[Event] = []
    seen: set[Event] = set()
    for fam in dict.fromkeys(fams.tolist()):
        where = np.flatnonzero(fams == fam)
        for k_oth, k_fav in ((ka[where], kb[where]), (kb[where], ka[where])):
            score = predicted_excess(claim, k_oth, k_fav, h, n_cert, a_sel, a_cert)
            for j in _top(score, SHORTLIST):
                e = events[int(where[j])]
                if e not in seen:
                    seen.add(e)
                    finalists.append(e)
    if not finalists:
        return [], len(events)
    ca, cb = count_on(finalists, ya[h:]), count_on(finalists, yb[h:])
    picks = []
    for direction, (k_oth, k_fav) in enumerate(((ca, cb), (cb, ca))):
        score = predicted_excess(claim, k_oth, k_fav, n - h, n_cert, a_sel, a_cert)
        j = int(np.argmax(score))
        picks.append(ClaimPick(idx, direction, finalists[j], float(score[j])))
    return picks, len(events)


def certify_claim(claim: Claim, mechanism: Mechanism, pairs: list[NeighbourPair],
               rng: np.random.Generator, t: TesterSettings | None = None,
               progress: Callable[[str, int, int], None] | None = None) -> ClaimResult:
    """Select on ``t.n_select`` outputs per data set, certify the best event on
    ``t.certify_samples`` fresh ones against ``claim`` (module docstring).  Pairs the
    mechanism rejects (:class:`InputError`) are skipped and listed; none left: an error."""
    t = t if t is not None else TesterSettings()
    t0 = time.perf_counter()
    alpha = 1.0 - float(t.confidence)
    a_each = bonferroni_level(alpha, 2)
    a_sel = 1.0 - float(t.selection_confidence)
    n_sel, n_cert = int(t.n_select), int(t.certify_samples)
    picks: list[ClaimPick] = []
    selection: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    d_out: int | None = None
    drawn = 0
    for idx, pair in enumerate(pairs):
        try:
            ya, yb = t.draw_pair(mechanism, pair, n_sel, rng, d_out)
            d_out = ya.shape[1]
        except InputError as exc:
            skipped.append({"pair_index": idx, "reason": str(exc)})
            continue
        drawn += 2 * n_sel
        if progress is not None:
            progress("selection", drawn, 2 * n_sel * len(pairs))
        got, tried = _select(claim, idx, ya, yb, t, n_cert, a_sel, a_each)
        picks.extend(got)
        selection.append({"pair_index": idx, "events_tried": tried,
                          "best_predicted_excess": max((p.score for p in got),
                                                       default=-math.inf)})
    if not picks or d_out is None:
        raise InvalidParameterError(
            f"no usable neighbour pair: none of the {len(pairs)} pairs gave a candidate "
            f"event ({'; '.join(s['reason'] for s in skipped[:3]) or 'no event'})")
    best = max(picks, key=lambda p: p.score)
    pair = pairs[best.pair]
    state = rng_record(rng)
    kf = t.count(mechanism, pair.first, [best.event], n_cert, rng, d_out, None)
    ks = t.count(mechanism, pair.second, [best.event], n_cert, rng, d_out, None)
    k_first, k_second = int(kf[0]), int(ks[0])
    # direction 0: favoured by pair.second, a = P[E | pair.first]
    k_oth, k_fav = (k_first, k_second) if best.direction == 0 else (k_second, k_first)
    a_up, b_up = certified_corner(k_oth, k_fav, n_cert, a_each)
    verdict = claim.verdict(a_up, b_up)
    names = ("D (pair.first)", "D' (pair.second)")
    other, fav = (names[0], names[1]) if best.direction == 0 else (names[1], names[0])
    return ClaimResult(
        claim=claim.spec(), refuted=verdict.refuted, verdict=verdict,
        confidence=float(t.confidence),
        corner={"a_up": a_up, "b_up": b_up, "a_point": k_oth / n_cert,
                "b_point": 1.0 - k_fav / n_cert},
        counts={"first": k_first, "second": k_second, "n": n_cert},
        pair_index=best.pair, direction=f"a = P[{other}](E), 1 - b = P[{fav}](E)",
        event=best.event.describe(d_out), event_spec=best.event.to_dict(),
        alpha_per_bound=a_each, samples_total=drawn + 2 * n_cert,
        replay={"rng_state": state, "chunk_size": int(t.chunk_size), "n": n_cert,
                "direction_index": best.direction, "d": d_out},
        selection=selection, skipped_pairs=skipped, seconds=time.perf_counter() - t0)
