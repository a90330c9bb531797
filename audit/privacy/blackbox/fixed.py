"""The fixed-size schedule of the black-box tester: select one event per pair and direction
on ``n_select`` outputs per data set, then certify the kept events on ``n_certify`` fresh
outputs.

With ``n_rescore`` > 0 (and ``certify="best"``) the choice has a second stage: the
finalists of the ``RESCORE_PAIRS`` pairs whose picks score best are counted on
``n_rescore`` fresh outputs per data set, and the one whose counts predict the
largest bound on the remaining ``n_certify - n_rescore`` outputs (re-scoring counts at
their level-``PICK_LEVEL`` bounds) is certified on those.  A
rare event of large ratio (SVT6's best output has probability 3.6e-4) cannot win on the
held-out half of the selection outputs, whose counts are too small for a pessimistic
score to trust, but with a few million fresh outputs its ratio is plain.

Guarantee: the events are chosen before the certification draws, so their counts are plain
binomials; with m certified events the 2m one-sided Clopper-Pearson bounds each hold at
level (1 - confidence) / (2m) (Bonferroni), so with probability >= confidence the largest
certified log-ratio is <= the mechanism's true epsilon on the tested pairs.  The number of
events *tried* in selection does not enter the correction.  Method in the line of StatDP
(Ding et al. 2018) and DP-Sniper (Bichsel et al. 2021); ``README.md`` beside this module
has the full argument and the measured calibration.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from audit.privacy.blackbox.crashes import MechanismCrash, as_crash, crash_entry
from audit.privacy.blackbox.events import Event
from audit.privacy.blackbox.results import (
    Pick,
    certify_pick,
    crashed_result,
    guarantee,
)
from audit.privacy.blackbox.sampling import rng_record
from audit.privacy.blackbox.select import PICK_LEVEL, select_pair
from audit.privacy.blackbox.settings import TesterSettings
from audit.privacy.blackbox.statistics import bonferroni_level, predicted_bound
from audit.protocols import Mechanism, NeighbourPair, TestResult
from kernels.errors import InputError, InvalidParameterError

__all__ = ["RESCORE_PAIRS", "run_fixed"]

#: how many pairs (those with the best-scoring picks) the re-scoring stage samples
RESCORE_PAIRS = 3


def run_fixed(t: TesterSettings, mechanism: Mechanism, pairs: list[NeighbourPair],
              rng: np.random.Generator,
              progress: Callable[[str, int, int], None] | None = None) -> TestResult:
    """Select on ``t.n_select`` outputs per data set, certify on ``t.certify_samples``
    fresh ones (module docstring); ``mechanism`` and ``pairs`` already validated."""
    rng_start = rng_record(rng)
    alpha = 1.0 - float(t.confidence)
    n_sel, n_cert = int(t.n_select), t.certify_samples
    settings = t.event_settings()
    t0 = time.perf_counter()

    # certified events m is fixed before certification: 1, or 2 per usable pair
    m_planned = 1 if t.certify == "best" else 2 * len(pairs)
    a_pred = bonferroni_level(alpha, 2 * m_planned)
    a_sel = 1.0 - float(t.selection_confidence)
    delta = float(t.delta)

    picks: list[Pick] = []
    contenders: dict[int, list[Event]] = {}
    skipped: list[dict[str, Any]] = []
    crashes: list[dict[str, Any]] = []
    tried_total = 0
    per_pair: list[dict[str, Any]] = []
    d_out: int | None = None
    drawn = [0]
    sel_total = 2 * n_sel * len(pairs)

    def tick_sel(m: int) -> None:
        drawn[0] += m
        if progress is not None:
            progress("selection", drawn[0], sel_total)

    for idx, pair in enumerate(pairs):
        try:
            ya, yb = t.draw_pair(mechanism, pair, n_sel, rng, d_out, tick_sel)
            d_out = ya.shape[1]
        except InputError as exc:
            skipped.append({"pair_index": idx, "change": dict(pair.change),
                            "reason": str(exc)})
            continue
        except MechanismCrash as exc:
            crashes.append(crash_entry(exc, idx, pair, "selection"))
            continue
        sel = select_pair(idx, ya, yb, settings, t.max_events, n_cert, a_sel, a_pred, delta,
                          heldout=t.heldout_selection)
        tried_total += sum(sel.families.values())
        per_pair.append(sel.report(idx))
        picks.extend(sel.picks)
        contenders[idx] = sel.finalist_events
    if not picks:
        if crashes:
            return crashed_result(t, mechanism, crashes, skipped, rng_start, len(pairs))
        reasons = "; ".join(s["reason"] for s in skipped[:3])
        raise InvalidParameterError(
            f"no usable neighbour pair: the mechanism rejected all {len(pairs)} pairs "
            f"({reasons})")
    rescore: dict[str, Any] | None = None
    if t.certify == "best":
        best = picks[max(range(len(picks)), key=lambda i: (picks[i].score, -i))]
        if t.n_rescore:
            assert d_out is not None
            n_cert -= int(t.n_rescore)
            best, rescore = _rescore(t, mechanism, pairs, picks, contenders, rng, d_out,
                                     n_cert, bonferroni_level(alpha, 2), delta, best)
        picks = [best]
    t_sel = time.perf_counter() - t0

    # certification on fresh samples
    m = len(picks)
    a_each = bonferroni_level(alpha, 2 * m)
    t1 = time.perf_counter()
    by_pair: dict[int, list[Pick]] = {}
    for p in picks:
        by_pair.setdefault(p.pair, []).append(p)
    certified: list[dict[str, Any]] = []
    assert d_out is not None
    drawn[0] = 0
    cert_total = 2 * n_cert * len(by_pair)

    def tick_cert(k: int) -> None:
        drawn[0] += k
        if progress is not None:
            progress("certification", drawn[0], cert_total)

    for idx, plist in by_pair.items():
        pair = pairs[idx]
        events = [p.event for p in plist]
        state = rng.bit_generator.state
        try:
            cf = t.count(mechanism, pair.first, events, n_cert, rng, d_out, tick_cert)
            cs = t.count(mechanism, pair.second, events, n_cert, rng, d_out, tick_cert)
        except (InputError, MechanismCrash) as exc:
            if isinstance(exc, InputError):  # random domain errors: a crash as well
                exc = as_crash(exc, pair, rng)
            crashes.append(crash_entry(exc, idx, pair, "certification"))
            continue
        for j, p in enumerate(plist):
            c = certify_pick(p, pair, int(cf[j]), int(cs[j]), n_cert, a_each, d_out, delta)
            c["replay"] = {"rng_state": state, "chunk_size": int(t.chunk_size),
                           "n": n_cert}
            certified.append(c)
    t_cert = time.perf_counter() - t1
    if not certified:
        return crashed_result(t, mechanism, crashes, skipped, rng_start, len(pairs))

    best_c = max(certified, key=lambda c: c["epsilon_lower_raw"])
    eps_lower = max(0.0, best_c["epsilon_lower_raw"])
    claimed = float(mechanism.claimed_epsilon)
    witness = dict(best_c)
    details = {
        "guarantee": guarantee(t, mechanism),
        "mode": "fixed",
        "outcome": "flagged" if eps_lower > claimed else "not-flagged",
        "rng_at_start": rng_start,
        "n_select": n_sel,
        "n_certify": n_cert,
        "samples_per_dataset": n_sel + n_cert + int(t.n_rescore if rescore else 0),
        "samples_total": 2 * n_sel * (len(pairs) - len(skipped))
                         + 2 * n_cert * len(by_pair)
                         + (2 * int(t.n_rescore) * len(rescore["pairs"]) if rescore else 0),
        "chunk_size": int(t.chunk_size),
        "pairs": len(pairs),
        "pairs_used": len(pairs) - len(skipped),
        "skipped_pairs": skipped,
        "crashes": crashes,
        "events_tried_in_selection": tried_total,
        "events_per_pair": per_pair,
        "certify": t.certify,
        "certified_events": m,
        "one_sided_bounds": 2 * m,
        "bonferroni_factor": 2 * m,
        "alpha_total": alpha,
        "alpha_per_bound": a_each,
        "delta": delta,
        "selection_confidence": float(t.selection_confidence),
        "rescore": rescore,
        "selection_score": "candidates generated on half of the selection outputs, the best "
                           "8 per family and direction rescored on the other half: the "
                           "certification bound predicted from the held-out counts' "
                           "one-sided Clopper-Pearson bounds at 1 - selection_confidence",
        "certified": certified,
        "settings": t.settings_dict(),
        "output_columns": d_out,
        "selection_s": t_sel,
        "certification_s": t_cert,
    }
    return TestResult(
        tester=t.name,
        mechanism=str(mechanism.name),
        relation=str(mechanism.relation),
        claimed_epsilon=claimed,
        epsilon_estimate=float(best_c["epsilon_point"]),
        epsilon_lower=eps_lower,
        confidence=float(t.confidence),
        violates=bool(eps_lower > claimed),
        witness=witness,
        details=details,
    )


def _rescore(t: TesterSettings, mechanism: Mechanism, pairs: list[NeighbourPair],
             picks: list[Pick], contenders: dict[int, list[Event]], rng: np.random.Generator,
             d: int, n_left: int, a_cert: float, delta: float, fallback: Pick
             ) -> tuple[Pick, dict[str, Any]]:
    """The second selection stage (module docstring): count every finalist of the best
    ``RESCORE_PAIRS`` pairs on ``t.n_rescore`` fresh outputs per data set and return the
    one whose re-scoring counts, taken at their one-sided ``PICK_LEVEL`` Clopper-Pearson
    bounds (milder than the selection level, not the point estimate, which over ~100
    finalists rewards the noise of rare tail events), predict the largest bound on
    ``n_left`` outputs at level ``a_cert`` (``fallback``, the selection's pick, if no pair
    has a finalist), with what was tried.  These outputs choose; they never certify."""
    best_score: dict[int, float] = {}
    for p in picks:
        best_score[p.pair] = max(best_score.get(p.pair, -np.inf), p.score)
    chosen_pairs = sorted(best_score, key=lambda i: -best_score[i])[:RESCORE_PAIRS]
    m = int(t.n_rescore)
    winner: Pick | None = None
    tried = 0
    for idx in chosen_pairs:
        events = contenders.get(idx, [])
        if not events:
            continue
        cf = t.count(mechanism, pairs[idx].first, events, m, rng, d)
        cs = t.count(mechanism, pairs[idx].second, events, m, rng, d)
        tried += len(events)
        for direction, (kf, ko) in enumerate(((cf, cs), (cs, cf))):
            score = predicted_bound(kf, ko, m, n_left, PICK_LEVEL, a_cert, delta)
            j = int(np.argmax(score))
            if winner is None or float(score[j]) > winner.score:
                winner = Pick(idx, direction, events[j], float(score[j]),
                              (int(cf[j]), int(cs[j])))
    if winner is None:  # no finalist anywhere: the selection pick stands
        winner = fallback
    return winner, {"n": m, "pairs": chosen_pairs, "contenders": tried,
                    "score": f"re-scoring counts at one-sided level {PICK_LEVEL}, turned into "
                             f"the bound on the remaining {n_left} outputs",
                    "chosen_score": winner.score}

