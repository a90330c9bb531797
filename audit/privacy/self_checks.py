"""The engine's own self-checks, run by ``dpaudit calibrate`` and by ``dpaudit regress``.

Each checks a part of the testers a user relies on against planted truths, independently
of any subject:

* ``engine.neighbour-family`` (:mod:`audit.privacy.neighbour_family`): the neighbour
  generator yields only genuine neighbours, every one its documented scope promises, and
  the exact-loss search searches the same family;
* ``engine.search-reach`` (:mod:`audit.privacy.search_reach`): the neighbour search certifies
  worst neighbours planted in each direction, near each bound and at the extreme records;
* ``engine.loss-reach`` (:mod:`audit.privacy.loss_reach`): the exact-loss search over outputs
  certifies suprema planted at maxima and minima of the log-ratio, left and right, far out
  and in either tail;
* ``engine.sampler-fit`` (:mod:`audit.privacy.sampler_fit`): the engine's samplers draw
  from the laws they declare (DKW band, level 1e-6 per sampler);
* ``engine.screen-rank`` (:mod:`audit.privacy.screen_rank`): the neighbour search ranks
  neighbours by sup |L|, both signs of the log-ratio (worst neighbours planted at a minimum
  and at a maximum of L behind decoys of larger one-sided supremum).

:func:`run_self_checks` runs those selected by ``only`` (a substring of the id, as
``regress --only``) and registers their replayers.  Nothing here prints or writes files.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from audit.findings import Finding, Method, Verdict
from audit.privacy import loss_reach, neighbour_family, sampler_fit, screen_rank, search_reach

__all__ = ["SELF_CHECK_IDS", "register_replayers", "run_self_checks", "selected"]

_Replay = Callable[[dict], tuple[bool, Any, Any, str]]
#: id -> (run(seed) -> Finding, replayer)
_CHECKS: dict[str, tuple[Callable[[int], Finding], _Replay]] = {
    neighbour_family.CHECK_ID: (lambda _seed: neighbour_family.check_neighbour_family(),
                                neighbour_family.replay_neighbour_family),
    search_reach.CHECK_ID: (lambda _seed: search_reach.check_search_reach(),
                            search_reach.replay_search_reach),
    loss_reach.CHECK_ID: (lambda _seed: loss_reach.check_loss_reach(),
                          loss_reach.replay_loss_reach),
    sampler_fit.CHECK_ID: (sampler_fit.check_sampler_fit, sampler_fit.replay_sampler_fit),
}
# the neighbour search's screen ranks by sup |L| (issue 39, round 3)
_CHECKS[screen_rank.CHECK_ID] = (lambda _seed: screen_rank.check_screen_rank(),
                                 screen_rank.replay_screen_rank)
SELF_CHECK_IDS: tuple[str, ...] = tuple(_CHECKS)


def selected(only: str | None) -> list[str]:
    """The self-check ids whose id contains ``only`` (all of them for None)."""
    return [c for c in SELF_CHECK_IDS if only is None or only in c]


def register_replayers() -> None:
    """Make ``dpaudit replay`` able to re-run a stored self-check counterexample."""
    from audit import registry

    for cid, (_, replay) in _CHECKS.items():
        registry.REPLAYERS[cid] = replay


def run_self_checks(seed: int = 0, only: str | None = None,
                    on_finding: Callable[[Finding], None] | None = None) -> list[Finding]:
    """The Findings of the selected self-checks (the sampled one seeded with ``seed``)."""
    register_replayers()
    out = []
    for cid in selected(only):
        try:
            f = _CHECKS[cid][0](seed)
        except Exception as exc:  # noqa: BLE001 - the engine's own failure, reported as such
            f = _crashed(cid, exc)
        out.append(f)
        if on_finding is not None:
            on_finding(f)
    return out


def _crashed(cid: str, exc: Exception) -> Finding:
    """An ERROR finding for a self-check that raised: the engine failed on its own planted
    inputs (never bad input of the user's), so the run fails naming the exception."""
    return Finding(
        id=cid, claim="the engine's self-check ran to its verdict",
        reference="audit/privacy/self_checks.py", method=Method.EXACT, verdict=Verdict.ERROR,
        scope=f"the self-check raised {type(exc).__name__}: {exc} (on the engine's own planted "
        "inputs: a fault of dpaudit, not of the user's input)",
        evidence={"exception": type(exc).__name__, "must_hold": True},
        subject="testers:audit.privacy")
