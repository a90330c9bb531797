"""The black-box tester: validate the mechanism and its neighbour pairs, then run the fixed
(:mod:`~audit.privacy.blackbox.fixed`) or sequential (:mod:`~audit.privacy.blackbox.
sequential`) select-then-certify schedule.  Nothing here prints or writes files.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from audit.privacy.blackbox.accounting import check_alpha
from audit.privacy.blackbox.fixed import run_fixed
from audit.privacy.blackbox.sequential import run_sequential
from audit.privacy.blackbox.settings import TesterSettings
from audit.privacy.relation import parse_relation
from audit.protocols import RELATIONS, Mechanism, NeighbourPair, TestResult
from kernels.errors import InvalidParameterError
from kernels.validate import check_rng

__all__ = ["BlackBoxTester"]


@dataclass(frozen=True)
class BlackBoxTester(TesterSettings):
    """Select-then-certify black-box tester for any :class:`~audit.protocols.Mechanism`.

    Verdict guarantee: with probability >= ``confidence`` over the tester's sampling, the
    mechanism's true epsilon on this relation is >= ``epsilon_lower`` (the maximum over the
    certified events of log(p_lower / p'_upper), floored at 0); ``violates`` =
    ``epsilon_lower > claimed_epsilon``; a non-violation is NOT a proof of privacy.  See the
    package's README.md for the argument and the event families.

    Settings: ``n_select`` / ``n_certify`` outputs per data set for selection /
    certification (``n_certify=None``: :data:`DEFAULT_N_CERTIFY`); ``confidence``;
    ``max_events`` candidate events per pair (families beyond the budget are cut in the order
    threshold, discrete, pattern, float-grid, interval and the cut is reported);
    ``certify``: ``"best"`` (one event overall, Bonferroni factor 2) or ``"per-direction"``
    (one per pair and direction, factor 4 x pairs); ``selection_confidence``: the level of
    the pessimistic selection estimate; ``chunk_size``: outputs per call to ``sample``
    during certification; ``delta``: test (epsilon, delta)-DP instead of pure DP.  The other
    fields shape the event families.

    Sequential mode (``sequential=True``, :mod:`audit.privacy.blackbox.sequential`):
    batches of ``seq_first``, ``seq_first * seq_growth``, ... outputs per data set up to a
    batch of
    ``n_certify``; the selection pool keeps at most ``n_select`` outputs per data set; after
    each round the pairs the evidence separates from the leader are dropped, and once a
    batch reaches ``seq_prune_at`` only the ``seq_keep_pairs`` best pairs are sampled
    further (``seq_rank_pairs``: ``"score"``, the pessimistic selection score, or
    ``"expected-final"``, the bound the pair's best event is expected to certify at the
    last look); ``seq_after_flag``: ``"stop"`` at the first flag or ``"continue"`` the
    remaining looks on the flagged pair and report the largest certified bound
    (``details["first_flag_round"]`` / ``["first_flag_bound"]`` keep the first flag);
    ``stop_when_cleared`` also stops when the selected event's *upper* bound is <= the claim;
    ``max_seconds`` stops after the first look (round >= 1) that ends past that wall time
    (``details["stopped"] = "time-budget"``: fewer samples than planned, less power).
    """

    def run(self, mechanism: Mechanism, pairs: list[NeighbourPair],
            rng: np.random.Generator,
            progress: Callable[[str, int, int], None] | None = None) -> TestResult:
        """Select on ``n_select`` outputs per data set, certify on ``n_certify`` fresh ones
        (``sequential=True``: see :mod:`audit.privacy.blackbox.sequential`).

        Pairs whose data set the mechanism rejects (an :class:`kernels.errors.InputError`
        from ``sample``) are skipped and listed in ``details["skipped_pairs"]``; pairs on
        which it crashes are listed in ``details["crashes"]``
        (:mod:`~audit.privacy.blackbox.crashes`).
        ``progress(stage, done, total)`` is called after every chunk of draws.
        """
        rng = check_rng(rng)
        _check_mechanism(mechanism)
        checked = _check_pairs(pairs, mechanism)
        run = run_sequential if self.sequential else run_fixed
        res = run(self, mechanism, checked, rng, progress)
        # the union bound re-counted exactly from the run's record (a miscount: exit 4)
        plan = ((int(self.seq_first), int(self.seq_growth), int(self.certify_samples))
                if self.sequential else None)
        res.details["alpha_accounting"] = check_alpha(res.details, float(self.confidence),
                                                      plan)
        return res


def _check_mechanism(mechanism: Any) -> None:
    for attr in ("sample", "claimed_epsilon", "relation", "name"):
        if not hasattr(mechanism, attr):
            raise TypeError(
                f"mechanism must implement the Mechanism protocol (sample, claimed_epsilon, "
                f"relation, name); {type(mechanism).__name__} has no {attr!r}")
    if mechanism.relation not in RELATIONS:
        try:  # a query-vector, trusted or custom relation (audit/privacy/relation.py)
            parse_relation(mechanism.relation)
        except InvalidParameterError:
            raise InvalidParameterError(
                f"mechanism.relation must be one of {RELATIONS} or a relation of "
                f"audit.privacy.relation, got {mechanism.relation!r}") from None
    eps = mechanism.claimed_epsilon
    if isinstance(eps, bool) or not isinstance(eps, (numbers.Real, np.floating)) or not (
            math.isfinite(float(eps)) and float(eps) > 0):
        raise InvalidParameterError(
            f"mechanism.claimed_epsilon must be a finite number > 0, got {eps!r}")


def _check_pairs(pairs: Any, mechanism: Mechanism) -> list[NeighbourPair]:
    if isinstance(pairs, NeighbourPair):
        raise InvalidParameterError(
            "pairs must be a list of NeighbourPair, got a single NeighbourPair (wrap it in [])")
    try:
        out = list(pairs)
    except TypeError:
        raise InvalidParameterError(
            f"pairs must be a non-empty list of NeighbourPair, got {pairs!r}") from None
    if not out:
        raise InvalidParameterError(
            f"pairs must be a non-empty list of NeighbourPair, got {pairs!r}")
    for i, p in enumerate(out):
        if not isinstance(p, NeighbourPair):
            raise InvalidParameterError(
                f"pairs[{i}] must be a NeighbourPair, got {type(p).__name__}: {p!r}")
        if p.relation != mechanism.relation:
            raise InvalidParameterError(
                f"pairs[{i}].relation is {p.relation!r} but {mechanism.name} claims its "
                f"epsilon under {mechanism.relation!r}")
    return out
