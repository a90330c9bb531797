"""Candidate events on the joint pattern of the discrete output columns, chosen by how
unbalanced a pattern is between the two data sets rather than by how frequent it is.

Families:

* ``pattern-ratio``: single patterns ("the output's pattern is exactly this one"), per
  direction the :data:`N_SINGLE` patterns with the best ranking score at each level of
  :data:`SINGLE_LEVELS`, skipping the ``skip_frequent`` most frequent patterns (those are in
  the ``pattern`` family already).  A rare output with a large ratio (SVT6's "first five
  above, last five below", probability 3.6e-4, log-ratio 0.42 on the half-half pair) ranks
  far below the most frequent patterns and is found only this way.
* ``pattern-union``: likelihood-ratio unions, the Neyman-Pearson shape of an event on a
  finite output space: per direction, the patterns ranked by their score at
  :data:`UNION_LEVEL`, and for each size k in :data:`UNION_SIZES` (at most
  :data:`~audit.privacy.blackbox.pattern_sets.MAX_SET_PATTERNS` = 256 patterns) the union
  of the k best, i.e. {pattern : score >= tau_k} with tau_k the k-th best score; only
  patterns whose score is > 0 enter, and the union of all of them (tau = 0) too when it
  has at most 256 patterns.

Ranking score of a pattern seen kf times on the favoured side and ko on the other, out of
n each: the normal approximation to a lower-confidence log-ratio,
log((kf + 1/2) / (ko + 1/2)) - z sqrt(1 / (kf + 1/2) + 1 / (ko + 1/2)), z the standard
normal quantile of the level (0 at level 1/2: the smoothed point estimate).  It only orders
candidates; no bound uses it.

Validity: everything here is computed on the candidate-generation half of the selection
outputs; selection rescores the finalists on the held-out half and the chosen event is
certified on fresh outputs, where each event is a fixed set of patterns with an exact
indicator (:class:`~audit.privacy.blackbox.pattern_sets.PatternSet`), so its certification
counts are plain binomials and every certified bound stays a valid Clopper-Pearson bound.
The counts returned are exact (the same state codes as the indicator, no hashing).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from audit.privacy.blackbox.events import Event
from audit.privacy.blackbox.pattern_sets import (
    MAX_SET_PATTERNS,
    PatternSet,
    code_radices,
    state_codes,
)

__all__ = ["N_SINGLE", "SINGLE_LEVELS", "UNION_LEVEL", "UNION_SIZES",
           "pattern_ratio_candidates", "ranking_score"]

#: single patterns kept per direction and ranking level
N_SINGLE = 4
#: one-sided levels of the single-pattern rankings: 0.05 favours well-supported imbalances,
#: 0.5 (the smoothed point estimate) rare patterns with a large ratio
SINGLE_LEVELS = (0.05, 0.5)
#: the level of the likelihood-ratio ranking behind the unions
UNION_LEVEL = 0.25
#: union sizes (numbers of best-ranked patterns), capped at MAX_SET_PATTERNS
UNION_SIZES = tuple(k for k in (2, 4, 8, 16, 32, 64, 128, 256) if k <= MAX_SET_PATTERNS)

Family = tuple[list[Event], np.ndarray, np.ndarray]


def ranking_score(kf: np.ndarray, ko: np.ndarray, level: float) -> np.ndarray:
    """The ranking score of the module docstring (vectorised; ranking only)."""
    f = np.asarray(kf, dtype=np.float64) + 0.5
    o = np.asarray(ko, dtype=np.float64) + 0.5
    z = float(stats.norm.isf(level))
    return np.log(f / o) - z * np.sqrt(1.0 / f + 1.0 / o)


def _decode(code: int, radices: tuple[int, ...]) -> tuple[int, ...]:
    out = []
    for r in reversed(radices):
        code, s = divmod(code, r)
        out.append(int(s))
    return tuple(reversed(out))


def pattern_ratio_candidates(a: np.ndarray, b: np.ndarray, columns: tuple[int, ...],
                             levels: tuple[tuple[float, ...], ...],
                             skip_frequent: int) -> dict[str, Family]:
    """The ``pattern-ratio`` and ``pattern-union`` families (module docstring) on outputs
    ``a`` (from D) and ``b`` (from D'), both (n, d), for the joint pattern of ``columns``
    with listed values ``levels``: {family: (events, counts in a, counts in b)}.  Empty if
    fewer than two columns or the state space exceeds 2^62."""
    radices = code_radices(levels)
    if radices is None or len(columns) < 2:
        return {}
    n = a.shape[0]
    code = np.concatenate([state_codes(a, columns, levels), state_codes(b, columns, levels)])
    uk, inv, cnt = np.unique(code, return_inverse=True, return_counts=True)
    ka = np.bincount(inv[:n], minlength=uk.size)
    kb = np.bincount(inv[n:], minlength=uk.size)
    frequent = np.zeros(uk.size, dtype=bool)
    frequent[np.argsort(-cnt, kind="stable")[:skip_frequent]] = True

    def pset(idx: np.ndarray) -> PatternSet:
        return PatternSet.build(columns, levels, [_decode(int(uk[i]), radices) for i in idx])

    single: Family = ([], np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    s_ev: list[Event] = []
    s_idx: list[int] = []
    u_ev: list[Event] = []
    u_ka: list[int] = []
    u_kb: list[int] = []
    for kf, ko in ((ka, kb), (kb, ka)):
        live = np.flatnonzero(kf > ko)  # the point estimate favours this direction
        if live.size == 0:
            continue
        for level in SINGLE_LEVELS:
            cand = live[~frequent[live]]
            sc = ranking_score(kf[cand], ko[cand], level)
            for i in cand[np.argsort(-sc, kind="stable")[:N_SINGLE]]:
                if int(i) not in s_idx:
                    s_idx.append(int(i))
                    s_ev.append(Event("union", int(columns[0]), patterns=pset(np.array([i])),
                                      family="pattern-ratio"))
        sc = ranking_score(kf[live], ko[live], UNION_LEVEL)
        pos = live[sc > 0]
        order = pos[np.argsort(-sc[sc > 0], kind="stable")]
        sizes = [k for k in UNION_SIZES if k < order.size]
        if 2 <= order.size <= MAX_SET_PATTERNS:
            sizes.append(int(order.size))  # tau = 0: every pattern with a positive score
        for k in sizes:
            idx = order[:k]
            u_ev.append(Event("union", int(columns[0]), patterns=pset(idx),
                              family="pattern-union"))
            u_ka.append(int(ka[idx].sum()))
            u_kb.append(int(kb[idx].sum()))
    out: dict[str, Family] = {}
    if s_ev:
        sel = np.array(s_idx, dtype=np.int64)
        single = (s_ev, ka[sel].astype(np.int64), kb[sel].astype(np.int64))
        out["pattern-ratio"] = single
    if u_ev:
        out["pattern-union"] = (u_ev, np.array(u_ka, dtype=np.int64),
                                np.array(u_kb, dtype=np.int64))
    return out
