"""Calibration of the claim testers on the Gaussian mechanism, whose every curve is known:
false-alarm rate on the correct mechanism and power on broken twins, per definition.

The mechanism: sum(D) + N(0, sigma^2) on D = [0], D' = [1] (sensitivity 1): mu = 1 / sigma
(Dong, Roth & Su 2019, Thm 2.7), rho = mu^2 / 2, RDP alpha mu^2 / 2 (Mironov 2017), delta(eps)
by Balle & Wang 2018 (:mod:`audit.privacy.claims.references`).  The correct claims are those of
sigma = 1: ``gdp:mu=1``, ``zcdp:rho=0.5``, ``rdp:alpha=2:eps=1`` and
``approx:eps=4.886554117462211,delta=1e-6`` (the eps whose delta is 1e-6).  Twins: sigma
5 / 10 / 30 % small under each claim; a zCDP claim off by a factor 2 (rho = 0.25 on sigma
= 1); a Renyi claim at the wrong order (alpha 2's value 1 claimed at alpha 8, truth 4).

Testers, as ``dpaudit test`` runs them (:mod:`audit.privacy.claims.user_claim`): the event
tester (:func:`audit.privacy.claims.certify.certify_claim`) and, for zCDP / RDP, the
histogram certificate at half the error budget each; for (eps, delta) also the Gaussian
family tester (:func:`audit.privacy.claims.gaussian_findings.run_under_family`) as its own
row.  Confidence 0.9 throughout; every repetition seeded (seed, case, repetition).

One Finding per case (``calibration.claims.<case>``): on a correct mechanism, refuted when
the flag rate is significantly above 1 - confidence (exact one-sided binomial test at
0.01), else not-refuted; on a twin, not-refuted when flagged at least ``floor`` of the
time, inconclusive (a miss, reported with the rate) otherwise.  Work is counted in outputs,
never seconds: the default (``full=False``) is 1 repetition per case at 2 x 10^5 +
5 x 10^4 outputs per data set on the cases that size decides; ``full=True`` is 20
repetitions on the correct mechanism and 5 per twin at 10^7 + 10^6.

Nothing here prints or writes files.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.privacy.blackbox.accounting import confidence_share
from audit.privacy.blackbox.settings import TesterSettings
from audit.privacy.blackbox.statistics import clopper_pearson_lower, clopper_pearson_upper
from audit.privacy.claims import parse_claim
from audit.privacy.claims.certify import certify_claim
from audit.privacy.claims.histogram_renyi import certify_histogram
from audit.privacy.claims.rdp import RenyiDP
from audit.privacy.claims.references import ShiftedNoise
from audit.privacy.claims.zcdp import ZCDP
from audit.protocols import NeighbourPair
from audit.registry import REPLAYERS

__all__ = ["CASES", "ClaimCase", "claim_cases", "run_claim_calibration"]

EPS6 = "4.886554117462211"  # delta(eps) of mu = 1 is 1e-6 here
PAIRS = [NeighbourPair([0.0], [1.0], "replace-one")]
CONFIDENCE = 0.9
#: test level of "the false-alarm rate exceeds 1 - confidence"
LEVEL = 0.01


@dataclass(frozen=True)
class ClaimCase:
    """One (definition, mechanism, tester) case; ``floor``: the flag rate a twin must
    reach (None on a correct mechanism)."""

    key: str
    claim: str
    sigma: float
    tester: str  # "event" (+ histogram for zCDP / RDP) or "family"
    broken: bool
    truth: str
    floor: float | None = None
    cheap: bool = False  # decided at the default size


def _cases() -> tuple[ClaimCase, ...]:
    out: list[ClaimCase] = []
    defs = (("gdp", "gdp:mu=1", "event"), ("zcdp", "zcdp:rho=0.5", "event"),
            ("rdp", "rdp:alpha=2:eps=1", "event"),
            ("approx", f"approx:eps={EPS6},delta=1e-6", "event"),
            ("approx-family", f"approx:eps={EPS6},delta=1e-6", "family"))
    for name, spec, tester in defs:
        out.append(ClaimCase(f"{name}.correct", spec, 1.0, tester, False,
                             "sigma = 1: the claim holds exactly", cheap=name == "gdp"))
        for s in (0.95, 0.9, 0.7):
            out.append(ClaimCase(
                f"{name}.sigma-{s:g}", spec, s, tester, True,
                f"sigma {round(100 * (1 - s))} % small: mu = {1 / s:.4f}",
                floor=0.8, cheap=(s == 0.7 and name in ("gdp", "zcdp"))
                or (s == 0.9 and name == "approx-family")))
    out.append(ClaimCase("zcdp.off-by-2", "zcdp:rho=0.25", 1.0, "event", True,
                         "claim rho 0.25, truth 0.5", floor=0.8, cheap=True))
    out.append(ClaimCase("rdp.wrong-order", "rdp:alpha=8:eps=1", 1.0, "event", True,
                         "alpha 2's value 1 claimed at alpha 8 (truth 4)", floor=0.8,
                         cheap=True))
    return tuple(out)


CASES = _cases()


def claim_cases(full: bool) -> list[ClaimCase]:
    """The cases of a run: all (``full``) or the cheap ones."""
    return [c for c in CASES if full or c.cheap]


def _one(case: ClaimCase, seed: int, n_sel: int, n_cert: int) -> tuple[bool, dict[str, Any]]:
    from audit.privacy.claims.gaussian_findings import run_under_family

    claim = parse_claim(case.claim)
    mech = ShiftedNoise("gaussian", case.sigma)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    if case.tester == "family":
        r = run_under_family(claim, mech, PAIRS, rng, n_sel, n_cert, 1 - CONFIDENCE,
                             chunk_size=1_000_000)
        return r.refuted, {"mu_lower": r.fit.mu_lower, "family_rejected": r.gof["rejected"]}
    both = isinstance(claim, (ZCDP, RenyiDP))
    # the split the user's --claim run makes (user_claim.run_claim): exact, never 1 ulp over
    conf = confidence_share(CONFIDENCE, 2 if both else 1)
    t = TesterSettings(n_select=n_sel, n_certify=n_cert, confidence=conf,
                       chunk_size=1_000_000)
    res = certify_claim(claim, mech, PAIRS, rng, t)
    flagged, fig = res.refuted, dict(res.verdict.strongest)
    if both:
        h = certify_histogram(claim, mech, PAIRS, np.random.default_rng(
            np.random.SeedSequence(seed, spawn_key=(1,))), t)
        flagged = flagged or h.refuted
        fig = {k: max(v, h.strongest.get(k, 0.0)) for k, v in fig.items()}
    return flagged, fig


def _finding(case: ClaimCase, hits: int, reps: int, figs: list[dict[str, Any]],
             n_sel: int, n_cert: int, seed: int, cpu: float) -> Finding:
    rate = hits / reps
    lo = float(clopper_pearson_lower(hits, reps, 0.025))
    hi = float(clopper_pearson_upper(hits, reps, 0.025))
    nominal = 1 - CONFIDENCE
    p_excess = float(stats.binomtest(hits, reps, nominal, alternative="greater").pvalue)
    cx = None
    if not case.broken:
        verdict = Verdict.REFUTED if p_excess < LEVEL else Verdict.NOT_REFUTED
        if verdict is Verdict.REFUTED:
            cx = counterexample_document(
                f"calibration.claims.{case.key}", "testers:audit.privacy.claims",
                {"case": case.key, "seed": seed, "reps": reps, "n_select": n_sel,
                 "n_certify": n_cert},
                expected=f"false-alarm rate <= {nominal:g}", actual=f"{hits}/{reps}",
                tolerance={"binomial_test_level": LEVEL},
                note="replay re-runs the same seeded repetitions")
        what = (f"false-alarm rate {hits}/{reps} (95 % interval [{lo:.3f}, {hi:.3f}]; "
                f"nominal <= {nominal:g}, excess p = {p_excess:.3g})")
    else:
        verdict = (Verdict.NOT_REFUTED if case.floor is not None and rate >= case.floor
                   else Verdict.INCONCLUSIVE)
        what = (f"power {hits}/{reps} (95 % interval [{lo:.3f}, {hi:.3f}]; floor "
                f"{case.floor:g})")
    return Finding(
        id=f"calibration.claims.{case.key}",
        claim=(f"the {case.tester} tester {'does not flag' if not case.broken else 'flags'} "
               f"{case.claim} on the Gaussian mechanism with sigma {case.sigma:g} "
               f"({case.truth})"),
        reference="issue 40; Dong, Roth & Su 2019; Balle & Wang 2018; Mironov 2017",
        method=Method.EMPIRICAL, verdict=verdict, counterexample=cx,
        scope=(f"{reps} seeded repetitions, {n_sel:,} selection + {n_cert:,} certification "
               f"outputs per data set, confidence {CONFIDENCE:g}; {what}"),
        evidence={"case": case.key, "claim": case.claim, "sigma": case.sigma,
                  "tester": case.tester, "broken": case.broken, "flagged": hits,
                  "runs": reps, "rate": rate, "interval95": [lo, hi],
                  "excess_p_value": p_excess, "floor": case.floor, "figures": figs,
                  "cpu_s_per_run": cpu / reps,
                  "outcome": "not-refuted" if verdict is Verdict.NOT_REFUTED else None},
        seed=seed, subject="testers:audit.privacy.claims")


def _seed(seed: int, index: int, rep: int) -> int:
    return seed * 1_000_003 + index * 1000 + rep


def _rate(case: ClaimCase, index: int, seed: int, reps: int, n_sel: int,
          n_cert: int) -> tuple[int, list[dict[str, Any]]]:
    hits, figs = 0, []
    for j in range(reps):
        flagged, fig = _one(case, _seed(seed, index, j), n_sel, n_cert)
        hits += flagged
        figs.append(fig)
    return hits, figs


def _replay(inputs: dict[str, Any]) -> tuple[bool, Any, Any, str]:
    """Re-run the stored case's seeded repetitions; still fails while the rate is high."""
    i, case = next((i, c) for i, c in enumerate(CASES) if c.key == inputs["case"])
    reps, n_sel, n_cert = int(inputs["reps"]), int(inputs["n_select"]), int(inputs["n_certify"])
    hits, _ = _rate(case, i, int(inputs["seed"]), reps, n_sel, n_cert)
    f = _finding(case, hits, reps, [], n_sel, n_cert, int(inputs["seed"]), 0.0)
    return (f.verdict is Verdict.REFUTED, f"false-alarm rate <= {1 - CONFIDENCE:g}",
            f"{hits}/{reps}", case.truth)


for _c in CASES:
    REPLAYERS[f"calibration.claims.{_c.key}"] = _replay


def run_claim_calibration(seed: int = 0, full: bool = False,
                          on_finding: Callable[[Finding], None] | None = None,
                          reps: tuple[int, int] | None = None) -> list[Finding]:
    """Every case of :func:`claim_cases` (module docstring); ``reps`` = (correct, twin)
    repetitions overrides the defaults ((20, 5) full, (1, 1) default)."""
    n_sel, n_cert = (1_000_000, 10_000_000) if full else (50_000, 200_000)
    r_ok, r_bad = reps if reps is not None else ((20, 5) if full else (1, 1))
    out = []
    for case in claim_cases(full):
        k = r_bad if case.broken else r_ok
        c0 = time.process_time()
        hits, figs = _rate(case, CASES.index(case), seed, k, n_sel, n_cert)
        f = _finding(case, hits, k, figs, n_sel, n_cert, seed, time.process_time() - c0)
        out.append(f)
        if on_finding is not None:
            on_finding(f)
    return out
