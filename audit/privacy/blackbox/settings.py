"""The black-box tester's settings: sample sizes, confidence, event-family shape, fixed or
sequential schedule, with their validation (one clear error naming the setting).

The fixed and sequential schedules read these settings; :class:`~audit.privacy.blackbox.
tester.BlackBoxTester` adds the ``run`` that chooses between them.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from audit.privacy.blackbox import sampling
from audit.privacy.blackbox.candidates import ALL_FAMILIES, EventSettings
from audit.privacy.blackbox.events import Event
from audit.protocols import Mechanism
from kernels.errors import InvalidParameterError

__all__ = ["DEFAULT_N_CERTIFY", "DEFAULT_N_SELECT", "TesterSettings"]


#: Certification samples per data set when ``n_certify`` is not given.  Sized for the power
#: target: LaplaceMechanism(0.1) on a sensitivity-1 pair certifies >= 0.09 at 90 %
#: confidence with ~3 x 10^5 samples (margin ~1.6 (1/sqrt(n p) + 1/sqrt(n p')) with
#: p ~ p' ~ 0.5); 2 x 10^6 gives ~0.097 and leaves room for tail events (a Gaussian
#: mechanism's growing loss lives at p ~ 10^-3).
DEFAULT_N_CERTIFY = 2_000_000
#: Selection samples per data set.
DEFAULT_N_SELECT = 1_000_000


def _check_int(value: Any, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        raise InvalidParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if int(value) < minimum:
        raise InvalidParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_unit(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating)):
        raise InvalidParameterError(f"{name} must be a number in (0, 1), got {value!r}")
    v = float(value)
    if not 0.0 < v < 1.0:
        raise InvalidParameterError(f"{name} must be in (0, 1), got {value!r}")
    return v


@dataclass(frozen=True)
class TesterSettings:
    """Settings of the select-then-certify tester (documented on
    :class:`~audit.privacy.blackbox.tester.BlackBoxTester`), validated on construction."""


    n_select: int = DEFAULT_N_SELECT
    n_certify: int | None = None
    confidence: float = 0.9
    max_events: int = 5000
    certify: Literal["best", "per-direction"] = "best"
    selection_confidence: float = 0.95
    chunk_size: int = 1_000_000
    n_thresholds: int = 64
    n_tail: int = 24
    intervals: bool = True
    n_interval_points: int = 16
    float_grid: bool = False
    max_levels: int = 16
    max_patterns: int = 32
    n_pattern_thresholds: int = 16
    max_binades: int = 24
    #: restrict selection to these event families (None: all of them); see
    #: :data:`~audit.privacy.blackbox.candidates.ALL_FAMILIES`
    families: tuple[str, ...] | None = None
    #: generate candidates on half the selection outputs and score the finalists on the
    #: other half (:mod:`~audit.privacy.blackbox.select`); False: one sample for both
    heldout_selection: bool = True
    #: the ``learned`` family also fits a logistic-regression score (DP-Sniper's
    #: classifier, scipy L-BFGS-B) beside the least-squares one (vector outputs only); off
    #: by default: with the sequential defaults it doubles SVT3's CPU time (116 s vs 51 s
    #: on the calibration suite) for no change in what the defaults flag
    learned_logistic: bool = False
    #: the ``pattern-ratio`` and ``pattern-union`` families (patterns chosen by imbalance,
    #: likelihood-ratio unions); None: on for the fixed schedule, off for the sequential
    #: one (with them, SVT3 at the dpaudit test defaults drew as many outputs as a run that
    #: never flags, 11.2 M instead of 9.2 M, 64.8 vs 54.5 CPU s, over the 60 s goal; the new
    #: finalists enter the looks' pair ranking, the likely path, not isolated)
    ratio_patterns: bool | None = None
    #: fixed schedule with ``certify="best"``: this many of the ``n_certify`` outputs per
    #: data set re-score each pair's contenders (its best finalists, on fresh outputs used
    #: for the choice only) and the winner is certified on the other n_certify - n_rescore;
    #: 0: the selection pick is certified on all n_certify (the default)
    n_rescore: int = 0
    name: str = "blackbox"
    delta: float = 0.0
    sequential: bool = False
    seq_first: int = 2000
    seq_growth: int = 2
    seq_keep_pairs: int = 2
    seq_prune_at: int = 32_000
    #: share of the sequential alpha spent in proportion to the looks' batch sizes (the
    #: rest evenly): the large late looks, where small violations show, get a wider level
    seq_alpha_by_size: float = 0.0
    #: how the pairs kept once a batch reaches ``seq_prune_at`` are chosen: ``"score"`` (the
    #: pessimistic selection score for the next look) or ``"expected-final"`` (each pair's
    #: point estimate, on held-out selection counts, of what its best finalist would
    #: certify at the final look: a rare event with a large ratio is not dropped for the
    #: width of its selection interval)
    seq_rank_pairs: Literal["score", "expected-final"] = "score"
    #: after the first look that flags: ``"stop"``, or ``"continue"`` the remaining looks
    #: on the flagged pair (the other pairs are no longer sampled) and report the largest
    #: certified bound over all looks (valid: the alpha split covers every look)
    seq_after_flag: Literal["stop", "continue"] = "stop"
    stop_when_cleared: bool = False
    max_seconds: float | None = None
    #: certification counts through :func:`audit.distributed.count_events`: chunk i of the
    #: n draws gets its own generator SeedSequence(entropy, spawn_key=(i,)) (entropy drawn
    #: from the tester's generator), so the counts are the same integers in this process
    #: and on a Dask cluster (``dask_client``).  Off by default: one sequential stream.  A
    #: mechanism may offer ``counting_sampler(dataset) -> (sample, data)``, a cheaper
    #: (picklable) sampler with the same law, used for these counts.
    chunk_streams: bool = False
    dask_client: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        _check_int(self.n_select, "n_select", 10)
        if self.n_certify is not None:
            _check_int(self.n_certify, "n_certify", 1)
        _check_unit(self.confidence, "confidence")
        _check_unit(self.selection_confidence, "selection_confidence")
        _check_int(self.max_events, "max_events", 1)
        _check_int(self.chunk_size, "chunk_size", 1)
        _check_int(self.n_thresholds, "n_thresholds", 1)
        _check_int(self.n_tail, "n_tail", 0)
        _check_int(self.n_interval_points, "n_interval_points", 2)
        _check_int(self.max_levels, "max_levels", 1)
        _check_int(self.max_patterns, "max_patterns", 1)
        _check_int(self.n_pattern_thresholds, "n_pattern_thresholds", 1)
        _check_int(self.max_binades, "max_binades", 1)
        _check_int(self.n_rescore, "n_rescore", 0)
        if self.n_rescore and self.n_rescore >= self.certify_samples:
            raise InvalidParameterError(
                f"n_rescore must be smaller than n_certify ({self.certify_samples}), got "
                f"{self.n_rescore!r}")
        _check_int(self.seq_first, "seq_first", 10)
        _check_int(self.seq_growth, "seq_growth", 2)
        _check_int(self.seq_keep_pairs, "seq_keep_pairs", 1)
        _check_int(self.seq_prune_at, "seq_prune_at", 1)
        sab = self.seq_alpha_by_size
        if isinstance(sab, bool) or not isinstance(sab, (numbers.Real, np.floating)) or not (
                0.0 <= float(sab) <= 1.0):
            raise InvalidParameterError(
                f"seq_alpha_by_size must be a number in [0, 1], got {sab!r}")
        if self.seq_rank_pairs not in ("score", "expected-final"):
            raise InvalidParameterError(
                f"seq_rank_pairs must be 'score' or 'expected-final', got "
                f"{self.seq_rank_pairs!r}")
        if self.seq_after_flag not in ("stop", "continue"):
            raise InvalidParameterError(
                f"seq_after_flag must be 'stop' or 'continue', got {self.seq_after_flag!r}")
        if self.certify not in ("best", "per-direction"):
            raise InvalidParameterError(
                f"certify must be 'best' or 'per-direction', got {self.certify!r}")
        for flag in ("intervals", "float_grid", "sequential", "stop_when_cleared",
                     "heldout_selection", "learned_logistic"):
            if not isinstance(getattr(self, flag), bool):
                raise InvalidParameterError(
                    f"{flag} must be True or False, got {getattr(self, flag)!r}")
        if self.ratio_patterns not in (None, True, False):
            raise InvalidParameterError(
                f"ratio_patterns must be True, False or None, got {self.ratio_patterns!r}")
        d = self.delta
        if isinstance(d, bool) or not isinstance(d, (numbers.Real, np.floating)) or not (
                0.0 <= float(d) < 1.0):
            raise InvalidParameterError(f"delta must be a number in [0, 1), got {d!r}")
        ms = self.max_seconds
        if ms is not None and (isinstance(ms, bool) or not isinstance(
                ms, (numbers.Real, np.floating)) or not float(ms) > 0):
            raise InvalidParameterError(f"max_seconds must be a number > 0, got {ms!r}")
        if self.families is not None:
            bad = [f for f in self.families if f not in ALL_FAMILIES]
            if bad or not self.families:
                raise InvalidParameterError(
                    f"families must be a non-empty subset of {ALL_FAMILIES}, got "
                    f"{self.families!r}")
        if not isinstance(self.name, str) or not self.name:
            raise InvalidParameterError(f"name must be a non-empty str, got {self.name!r}")

    @property
    def certify_samples(self) -> int:
        """Certification outputs per data set (``n_certify`` or the default)."""
        return DEFAULT_N_CERTIFY if self.n_certify is None else int(self.n_certify)

    def event_settings(self) -> EventSettings:
        """The settings that shape the candidate event families."""
        return EventSettings(self.n_thresholds, self.n_tail, self.n_interval_points,
                             self.intervals, self.float_grid, self.max_levels,
                             self.max_patterns, self.n_pattern_thresholds, self.max_binades,
                             None if self.families is None else tuple(self.families),
                             self.learned_logistic, self.use_ratio_patterns)

    @property
    def use_ratio_patterns(self) -> bool:
        """Whether the ``pattern-ratio`` / ``pattern-union`` families are generated."""
        if self.ratio_patterns is None:
            return not self.sequential
        return bool(self.ratio_patterns)

    def settings_dict(self) -> dict[str, Any]:
        """The event-family settings as reported in ``details["settings"]``."""
        return {
            "max_events": self.max_events, "n_thresholds": self.n_thresholds,
            "n_tail": self.n_tail, "intervals": self.intervals,
            "n_interval_points": self.n_interval_points, "float_grid": self.float_grid,
            "max_levels": self.max_levels, "max_patterns": self.max_patterns,
            "n_pattern_thresholds": self.n_pattern_thresholds,
            "max_binades": self.max_binades, "families": self.families,
            "heldout_selection": self.heldout_selection,
            "learned_logistic": self.learned_logistic,
            "ratio_patterns": self.use_ratio_patterns,
            "n_rescore": self.n_rescore,
            "seq_alpha_by_size": self.seq_alpha_by_size,
            "seq_rank_pairs": self.seq_rank_pairs,
            "seq_after_flag": self.seq_after_flag,
        }

    def draw_chunked(self, mechanism: Mechanism, dataset: Any, n: int,
                     rng: np.random.Generator, d: int | None,
                     tick: Callable[[int], None] | None = None) -> np.ndarray:
        """``n`` outputs in calls of at most ``chunk_size`` (:func:`sampling.draw_chunked`)."""
        return sampling.draw_chunked(mechanism, dataset, n, rng, d, self.chunk_size, tick)

    #: the name user code has called (:mod:`audit.privacy.user_audit` replays with it)
    _draw_chunked = draw_chunked

    def draw_pair(self, mechanism: Mechanism, pair: Any, n: int, rng: np.random.Generator,
                  d: int | None, tick: Callable[[int], None] | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
        """``n`` outputs on ``pair.first``, then ``n`` on ``pair.second`` (same columns)."""
        ya = self.draw_chunked(mechanism, pair.first, n, rng, d, tick)
        return ya, self.draw_chunked(mechanism, pair.second, n, rng, ya.shape[1], tick)

    def count(self, mechanism: Mechanism, dataset: Any, events: Sequence[Event], n: int,
              rng: np.random.Generator, d: int,
              tick: Callable[[int], None] | None = None) -> np.ndarray:
        """Event counts on ``n`` fresh outputs (:func:`sampling.count` with these
        settings' chunking and streams)."""
        return sampling.count(mechanism, dataset, events, n, rng, d, self.chunk_size,
                              streams=self.chunk_streams, dask_client=self.dask_client,
                              tick=tick)
