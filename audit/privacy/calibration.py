"""Calibration of the privacy testers: do they pass correct mechanisms and catch broken ones?

Each :class:`CalibrationRun` is a mechanism with a *known* answer, a neighbouring pair and
the expected outcome.  Both testers run on it:

* the black-box tester (:class:`audit.privacy.blackbox.BlackBoxTester`, select-then-certify,
  Clopper-Pearson at 90% confidence with Bonferroni), which only samples the mechanism;
* the exact privacy-loss tester (:func:`audit.privacy.exact_loss.pair_loss`, mpmath
  certified, rounded up), for location-scale mechanisms.

A run's Finding is *verified* when the testers agree with the truth: a correct mechanism is
not flagged (epsilon_lower <= claimed, exact loss <= claimed) and a broken one is flagged
(black-box epsilon_lower > claimed, i.e. a violation certified at 90% confidence).  It is
*refuted* when a correct mechanism is flagged (a false alarm, or a real float-level leak —
see the float runs) and *inconclusive* when a broken mechanism is not flagged (the tester
lacked power at this sample size: a miss).  The black-box lower bound must also never exceed
the exact loss (a soundness check; refuted otherwise).

The runs (neighbour relation replace-one throughout):

- ``laplace-0.1``: f(D) + Lap(1/0.1), D = [0, 0], D' = [0, 1]: true epsilon exactly 0.1 (the
  issue's power target: certify >= 0.09 at 90% with <= 2 x 10^7 samples per data set).
- ``laplace-half-scale``: noise scale halved: true epsilon 0.2 > 0.1.
- ``laplace-gaussian``: Gaussian noise of the same variance: no finite pure epsilon.
- ``gini-correct-*``: the DP Gini release (alg3, gamma = 2) on small data, worst pairs.
- ``gini-wrong-scale``: noise scale 10x too small (exact loss 1.033 epsilon on this pair).
- ``gini-laplace-noise``: Laplace noise in place of density (10): unbounded loss in the tails.
- ``gini-local-sensitivity``: noise scaled by the local-sensitivity bound A^(0), not the
  smooth S: loss ~0.63 nats whatever epsilon, so 6.3 epsilon at epsilon = 0.1.
- ``float-laplace-0.1`` (float-grid events on): numpy's float64 Laplace sampler on the
  ``laplace-0.1`` pair.  Real-number epsilon 0.1, but the float outputs for D and D' lie on
  different grids (module docstring of :mod:`audit.privacy.blackbox`): a true leak of the
  float implementation, so the expected outcome is *flagged*.
- ``float-gini-release`` (float-grid events on): the Gini release with the *correct*
  constants, as computed in float64, on X = (1, 1, 2, 2), X' = (1, 2, 2, 2) in [1, 2].  Found
  by this calibration: fl(g + fl(s Z)) leaks through its last mantissa bit (ties-to-even
  when g(X) = 2/9 sits exactly half-way on the output grid), so the float implementation
  is not epsilon-DP for any epsilon although the real-number mechanism is; expected
  *flagged*.  (The run uses ``snap=False``: the plain float sum.)
- ``calibration.claims.*``: the claim testers (GDP, zCDP, RDP, (eps, delta) by events and
  under the Gaussian family) on the Gaussian mechanism and its broken twins, at the cheap
  size (:mod:`audit.privacy.claims.claim_calibration`; ``dpaudit calibrate --claims``: the
  rates over 20 / 5 seeds at 10^7 outputs).
- ``float-gini-snapped`` (float-grid events on): the same pair with the output snapped to a
  coarse power-of-two grid (the release's default since this finding): expected not
  flagged.

Nothing here prints or writes files.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.privacy.blackbox import BlackBoxTester
from audit.privacy.exact_loss import dataset_pair_loss
from audit.privacy.mechanisms import CachedLocationScale, LaplaceMechanism
from audit.privacy.neighbours import replace
from audit.privacy.self_checks import register_replayers, run_self_checks
from audit.protocols import REPLACE_ONE, NeighbourPair

__all__ = ["GENERIC_RUNS", "CalibrationRun", "all_runs", "run_calibration", "run_one"]


@dataclass(frozen=True)
class CalibrationRun:
    key: str
    description: str
    make: Callable[[], Any]  # the mechanism
    first: tuple[float, ...]
    rank: int  # record (0-based, sorted) replaced in ``first``
    new: float  # its new value
    broken: bool  # expected outcome: flagged iff broken
    truth: str  # the known answer, in words
    float_grid: bool = False
    n_certify: int = 10_000_000
    #: (selection, certification) sizes under --quick, for a run the quick default
    #: (200,000 / <= 2,000,000) cannot decide; None: the quick default
    quick_sizes: tuple[int, int] | None = None

    def pair(self) -> NeighbourPair:
        xs = np.sort(np.asarray(self.first, dtype=np.float64))
        return NeighbourPair(xs, replace(xs, self.rank, self.new), REPLACE_ONE,
                             {"op": "replace", "rank": self.rank, "new": self.new})


#: the engine's own runs (mechanisms that name no paper); subjects add theirs
GENERIC_RUNS: tuple[CalibrationRun, ...] = (
    CalibrationRun("laplace-0.1", "Laplace mechanism, epsilon = 0.1, sum query (sensitivity 1)",
                   lambda: LaplaceMechanism(0.1), (0.0, 0.0), 1, 1.0, False,
                   "epsilon = 0.1 exactly on this pair", n_certify=20_000_000),
    CalibrationRun("laplace-half-scale", "BROKEN: Laplace noise scale halved",
                   lambda: LaplaceMechanism(0.1, noise_scale_factor=0.5), (0.0, 0.0), 1, 1.0,
                   True, "epsilon = 0.2 exactly"),
    CalibrationRun("laplace-gaussian", "BROKEN: Gaussian noise of the Laplace variance",
                   lambda: LaplaceMechanism(0.1, noise="gaussian"), (0.0, 0.0), 1, 1.0, True,
                   "no finite pure epsilon (log-ratio linear in y)"),
    CalibrationRun("float-laplace-0.1",
                   "FLOAT: numpy float64 Laplace sampler, epsilon = 0.1, bit-level events",
                   lambda: LaplaceMechanism(0.1), (0.0, 0.0), 1, 1.0, True,
                   "real-number epsilon 0.1; float outputs on different grids: unbounded",
                   float_grid=True, n_certify=2_000_000),
)




def _tester(run: CalibrationRun, quick: bool) -> BlackBoxTester:
    if quick and run.quick_sizes is not None:
        n_sel, n_cert = run.quick_sizes
    else:
        n_cert = run.n_certify if not quick else min(run.n_certify, 2_000_000)
        n_sel = 1_000_000 if not quick else 200_000
    return BlackBoxTester(n_select=n_sel, n_certify=n_cert, confidence=0.9,
                          float_grid=run.float_grid)


def run_one(run: CalibrationRun, seed: int, quick: bool = False) -> dict[str, Any]:
    """Both testers on one run; a plain dict of figures (no verdict logic)."""
    mech = run.make()
    pair = run.pair()
    t0 = time.perf_counter()
    bb = _tester(run, quick).run(CachedLocationScale(mech), [pair], np.random.default_rng(seed))
    t_bb = time.perf_counter() - t0
    exact = dataset_pair_loss(mech, pair.first, pair.second).kernel
    return {
        "claimed_epsilon": float(mech.claimed_epsilon),
        "blackbox_epsilon_lower": float(bb.epsilon_lower or 0.0),
        "blackbox_confidence": bb.confidence,
        "blackbox_violates": bool(bb.violates),
        "blackbox_event": bb.witness.get("event"),
        "blackbox_counts": bb.witness.get("counts"),
        "blackbox_samples": {"selection": bb.details["n_select"],
                             "certification": bb.details["n_certify"]},
        "blackbox_bonferroni": bb.details["bonferroni_factor"],
        "blackbox_s": t_bb,
        "exact_epsilon_up": exact.epsilon_up,
        "exact_value_down": exact.value_down,
        "exact_y_star": exact.y_star,
        "exact_certified": exact.certified,
    }


def _finding(run: CalibrationRun, r: dict[str, Any], seed: int, quick: bool) -> Finding:
    eps = r["claimed_epsilon"]
    flagged = r["blackbox_violates"]
    exact_over = r["exact_value_down"] > eps
    # soundness: a certified lower bound above the exact real-number loss is impossible for
    # the real mechanism; the float runs measure the float implementation, exempt
    unsound = (not run.float_grid) and r["blackbox_epsilon_lower"] > r["exact_epsilon_up"]
    if unsound or (not run.broken and (flagged or (exact_over and not run.float_grid))):
        verdict = Verdict.REFUTED
    elif run.broken and not flagged:
        verdict = Verdict.INCONCLUSIVE
    else:  # statistical agreement with the known answer: not a proof
        verdict = Verdict.NOT_REFUTED
    cx = None
    if verdict is Verdict.REFUTED:
        cx = counterexample_document(
            f"calibration.{run.key}", "testers:audit.privacy",
            {"run": run.key, "seed": seed, "quick": quick},
            {"flagged": run.broken, "blackbox_at_most_exact": True},
            {"flagged": flagged, "blackbox_epsilon_lower": r["blackbox_epsilon_lower"],
             "exact_epsilon_up": r["exact_epsilon_up"]},
            None, "the testers disagree with the known answer for this run",
        )
    expect = "flags it" if run.broken else "does not flag it"
    tail = ("(the real-number exact loss does not bound a float implementation)"
            if run.float_grid else "and its certified lower bound never exceeds the exact loss")
    return Finding(
        id=f"calibration.{run.key}",
        claim=f"on '{run.description}' ({run.truth}) the black-box tester {expect} {tail}",
        reference="DESIGN.md 'Privacy testing'; StatDP / DP-Sniper; Mironov 2012 (float runs)",
        method=Method.EMPIRICAL,
        verdict=verdict,
        scope=f"pair {run.first} -> rank {run.rank} replaced by {run.new}, replace-one; "
        f"{r['blackbox_samples']['selection']:,} selection + "
        f"{r['blackbox_samples']['certification']:,} certification draws per data set, "
        f"90% confidence (Bonferroni x{r['blackbox_bonferroni']}); "
        f"{'float64 bit-level events on' if run.float_grid else 'threshold/interval events'}; "
        "exact loss by mpmath (30/60 digits, rounded up)",
        evidence={"expected_flagged": run.broken, "truth": run.truth, **r},
        counterexample=cx,
        seed=seed,
        subject="testers:audit.privacy",
    )


def run_calibration(seed: int = 0, quick: bool = False,
                    on_finding: Callable[[Finding], None] | None = None,
                    ) -> tuple[list[Finding], list[dict[str, Any]]]:
    """Every calibration run; returns the Findings and a bar figure (epsilon_lower and exact
    loss over the claimed epsilon, per run)."""
    findings = []
    rows = []
    runs, unloaded = _runs_and_unloaded()
    for i, run in enumerate(runs):
        t0 = time.perf_counter()
        r = run_one(run, seed + i, quick)
        f = _finding(run, r, seed + i, quick)
        f.duration_s = time.perf_counter() - t0
        findings.append(f)
        rows.append((run.key, r))
        if on_finding is not None:
            on_finding(f)
    # the engine's self-checks (the searches' reach on planted worst cases, the samplers'
    # fit to their declared laws: audit/privacy/self_checks.py); the claim testers on the
    # Gaussian mechanism at the cheap default size (dpaudit calibrate --claims runs the full
    # rates); and every subject whose calibration runs could not be loaded, as an error
    # (never a silent skip)
    from audit.privacy.claims.claim_calibration import run_claim_calibration

    findings += run_self_checks(seed, on_finding=on_finding)
    claims = run_claim_calibration(seed, full=False)
    for extra in [*claims, *(_unloaded_finding(n, why) for n, why in sorted(unloaded.items()))]:
        findings.append(extra)
        if on_finding is not None:
            on_finding(extra)
    cap = 10.0
    fig = {
        "id": "calibration.ratios",
        "title": "Black-box lower bound and exact loss, as multiples of the claimed epsilon",
        "kind": "bars",
        "series": [
            {"label": "black-box epsilon_lower / claim (90%)",
             "x": [k for k, _ in rows],
             "y": [min(cap, r["blackbox_epsilon_lower"] / r["claimed_epsilon"]) for _, r in rows]},
            {"label": "exact loss / claim (capped at 10)",
             "x": [k for k, _ in rows],
             "y": [min(cap, r["exact_epsilon_up"] / r["claimed_epsilon"]) for _, r in rows]},
        ],
        "xlabel": "calibration run",
        "ylabel": "loss / claimed epsilon",
        "hlines": [{"y": 1.0, "label": "claim"}],
        "caption": "Flagged = black-box bar above 1. Exact loss is the real-number mechanism's "
        "(the float runs differ from it by construction).",
    }
    return findings, [fig]


def _unloaded_finding(subject: str, why: str) -> Finding:
    from audit import registry

    return registry.load_error_finding("calibration.load", subject, "calibration runs", why)


def _replay(inp: dict) -> tuple[bool, Any, Any, str]:
    """Re-run the stored calibration run with its seed; still fails while refuted."""
    run = next(r for r in all_runs() if r.key == inp["run"])
    r = run_one(run, int(inp["seed"]), bool(inp["quick"]))
    f = _finding(run, r, int(inp["seed"]), bool(inp["quick"]))
    return f.verdict is Verdict.REFUTED, "testers agree with the known answer", r, run.truth


def all_runs() -> list[CalibrationRun]:
    """The engine's runs (the Laplace ones first, the float one last) with every installed
    subject's runs in between (its ``calibration`` hook), in a fixed order; registers a
    replayer for each.  A subject whose hook fails to load is left out here and named by
    :func:`_runs_and_unloaded` (``run_calibration`` turns it into an ERROR finding)."""
    return _runs_and_unloaded()[0]


def _runs_and_unloaded() -> tuple[list[CalibrationRun], dict[str, str]]:
    """:func:`all_runs` and ``subject -> reason`` for every subject whose calibration hook
    (or entry point) failed to load."""
    from audit import registry

    runs = list(GENERIC_RUNS[:3])
    unloaded = dict(registry.subject_errors())
    for s in registry.subjects().values():
        if s.calibration:
            try:
                runs.extend(registry.resolve(s.calibration)())
            except registry.SubjectLoadError as exc:
                unloaded[s.name] = str(exc)
    runs.extend(GENERIC_RUNS[3:])
    for r in runs:
        registry.REPLAYERS[f"calibration.{r.key}"] = _replay
    register_replayers()
    return runs, unloaded
