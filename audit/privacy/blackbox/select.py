"""Honest selection of the event to certify, for one neighbour pair: generate candidates on
one half of the selection outputs, shortlist the best few of each family there, then score
the shortlist on the other (held-out) half and keep the best per direction.

Why: scoring thousands of candidates on the data that generated them rewards luck (the
winner's curse: a rare event seen 29 vs 4 times in selection certifies 216 vs 127).  The
held-out counts of the shortlisted events are unbiased binomials given the shortlist, so an
event wins only if its held-out evidence is strong (the maximum over the few dozen finalists
keeps a mild optimism; a Bonferroni level over the finalists was tried and cost too much
power on rare, large-ratio events).  Selection never
sees the certification data, so every certified bound stays a valid Clopper-Pearson bound
whatever happens here; this module only decides which event is worth certifying.

Families: those of :mod:`~audit.privacy.blackbox.candidates` (threshold, discrete, pattern,
float-grid, interval) on every output, plus ``aggregate`` and ``learned``
(:mod:`~audit.privacy.blackbox.aggregate_events`) on vector outputs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from audit.privacy.blackbox.aggregate_events import aggregate_candidates
from audit.privacy.blackbox.candidates import (
    ALL_FAMILIES,
    EventSettings,
    candidates,
    quantile_levels,
)
from audit.privacy.blackbox.events import Event, count_on
from audit.privacy.blackbox.results import Pick
from audit.privacy.blackbox.statistics import (
    clopper_pearson_lower,
    clopper_pearson_upper,
    expected_bound,
    log_ratio,
    predicted_bound,
)

__all__ = ["ALL_FAMILIES", "Selection", "select_pair"]

#: below this many selection outputs per data set, no held-out split (too few to halve)
MIN_SPLIT = 40
#: a finalist enters a pair's optimistic log-ratio once its favoured held-out count reaches
#: this (rarer events' upper bounds are too wide to compare pairs by)
MIN_OPTIMISTIC_COUNT = 30
#: one-sided level of the held-out Clopper-Pearson frequencies behind ``expected_picks``:
#: milder than the selection level (the held-out counts are fresh given the finalists), not
#: the point estimate (the maximum over the finalists would reward their noise)
PICK_LEVEL = 0.25


@dataclass
class Selection:
    """The best event per direction of one pair, with what the search tried."""

    picks: list[Pick] = field(default_factory=list)
    families: dict[str, int] = field(default_factory=dict)
    generated: int = 0
    finalists: int = 0
    heldout_rows: int = 0
    optimistic: float = -math.inf  # best finalist's optimistic held-out log-ratio
    #: best finalist's point estimate (held-out frequencies) of the bound it would certify
    #: at the final look (``n_final`` samples, level ``a_final``); -inf when not asked
    expected_final: float = -math.inf
    #: per direction, the finalist with the best point estimate (held-out frequencies) of
    #: the bound it would certify at the next look (``Pick.score`` = that estimate)
    expected_picks: list[Pick] = field(default_factory=list)
    #: every finalist (the shortlist of each family and direction), for a re-scoring stage
    finalist_events: list[Event] = field(default_factory=list)

    def report(self, idx: int) -> dict[str, Any]:
        return {"pair_index": idx, "events_generated": self.generated,
                "events_tried": int(sum(self.families.values())),
                "families": dict(self.families), "finalists": self.finalists,
                "heldout_rows": self.heldout_rows}


def _shortlist(score: np.ndarray, k: int) -> np.ndarray:
    ok = np.flatnonzero(np.isfinite(score))
    if ok.size <= k:
        return ok
    top = np.argpartition(-score[ok], k - 1)[:k]
    return ok[top]


def select_pair(idx: int, ya: np.ndarray, yb: np.ndarray, s: EventSettings, max_events: int,
                n_cert: int, a_sel: float, a_cert: float, delta: float,
                shortlist: int = 8, heldout: bool = True, n_final: int | None = None,
                a_final: float | None = None) -> Selection:
    """Select on outputs ``ya`` (pair.first) and ``yb`` (pair.second) of pair ``idx``:
    candidates on the first half, ``shortlist`` per family and direction, scored on the
    second half (module docstring); each pick's score predicts its certification bound
    with ``n_cert`` samples at level ``a_cert``.  ``heldout=False``: generate and score on
    all outputs (the best-scoring candidate overall wins, luck included).  With ``n_final``
    and ``a_final``, ``expected_final`` is the best finalist's point estimate of what it
    would certify with ``n_final`` samples at level ``a_final`` (used to rank pairs) and
    ``expected_picks`` the finalists with the best such estimate for the next look."""
    n, d = ya.shape
    h = n // 2 if (heldout and n >= MIN_SPLIT) else n
    ga, gb = ya[:h], yb[:h]
    ha, hb = (ya[h:], yb[h:]) if h < n else (ya, yb)
    sel = Selection(heldout_rows=ha.shape[0])
    cand = candidates(ga, gb, s)
    ka, kb = cand.counts()
    sel.generated = len(cand.events)
    events = cand.events[:max_events]
    ka, kb = ka[:max_events], kb[:max_events]
    groups: list[tuple[list[Event], np.ndarray, np.ndarray, int]] = []
    fams = np.array([e.family for e in events])
    for f in dict.fromkeys(fams.tolist()):
        where = np.flatnonzero(fams == f)
        groups.append(([events[i] for i in where], ka[where], kb[where], h))
    if d >= 2:
        for fam in aggregate_candidates(ga, gb, quantile_levels(h, s.n_thresholds, s.n_tail),
                                        s.max_levels, logistic=s.logistic):
            fa, fb = fam.counts()
            groups.append((fam.events, fa, fb, fam.n))
            sel.generated += len(fam.events)
    if s.families is not None:
        groups = [g for g in groups if g[0] and g[0][0].family in s.families]
    finalists: list[Event] = []
    seen: set[Event] = set()
    for evs, k1, k2, m in groups:
        sel.families[evs[0].family if evs else "?"] = len(evs)
        for kf, ko in ((k1, k2), (k2, k1)):
            score = predicted_bound(kf, ko, m, n_cert, a_sel, a_cert, delta)
            for j in _shortlist(score, shortlist):
                e = evs[int(j)]
                if e not in seen:
                    seen.add(e)
                    finalists.append(e)
    sel.finalists = len(finalists)
    sel.finalist_events = finalists
    if not finalists:
        return sel
    ca, cb = count_on(finalists, ha), count_on(finalists, hb)
    nh = ha.shape[0]
    for direction, (kf, ko) in enumerate(((ca, cb), (cb, ca))):
        score = predicted_bound(kf, ko, nh, n_cert, a_sel, a_cert, delta)
        j = int(np.argmax(score))
        sel.picks.append(Pick(idx, direction, finalists[j], float(score[j]),
                              (int(ca[j]), int(cb[j]))))
        # the pair's optimistic log-ratio: over every finalist seen often enough to be
        # compared (not only the pick, which at small sizes is a sure event of ratio 1)
        for i in {j, *np.flatnonzero(kf >= MIN_OPTIMISTIC_COUNT).tolist()}:
            lo = float(clopper_pearson_lower(ko[i], nh, a_sel))
            hi = float(clopper_pearson_upper(kf[i], nh, a_sel))
            sel.optimistic = max(sel.optimistic,
                                 float(log_ratio(hi, max(lo, 0.5 / nh), delta)))
        if n_final is not None and a_final is not None:
            sel.expected_final = max(sel.expected_final, float(np.max(
                expected_bound(kf, ko, nh, int(n_final), float(a_final), delta))))
            point = predicted_bound(kf, ko, nh, n_cert, PICK_LEVEL, a_cert, delta)
            j = int(np.argmax(point))
            sel.expected_picks.append(Pick(idx, direction, finalists[j], float(point[j]),
                                           (int(ca[j]), int(cb[j]))))
    return sel
