"""``dpaudit test`` on a Gaussian mechanism: the two Gaussian findings beside the black-box
ones.

* ``user.exact-gaussian`` — the mechanism *declares* Gaussian location-scale noise
  (``location_scale``, ``noise = "gaussian"`` with a matching ``noise_logpdf``): the claim
  is decided exactly on the declared density of every tested pair
  (:func:`audit.privacy.claims.exact_gaussian.gaussian_claim_verdicts`): refuted when a
  pair's declared mu violates it, verified (scope: the declared density on the tested
  pairs, not the sampler) when every pair holds, with a refuted twin (the claim tightened
  just below the value the worst pair attains).
* ``user.gaussian-family`` — the outputs are taken to be a Gaussian shift (declared by the
  mechanism, or by ``--family gaussian``): the pair with the largest estimated mu on
  ``n_select`` outputs per data set is fitted on ``n_certify`` fresh ones, a certified
  lower bound mu_L at the run's level for this finding
  (:func:`audit.privacy.claims.gaussian_fit.fit_gaussian_shift`) is decided exactly
  against the claim, after the family check on ``n_select`` further outputs
  (:func:`~audit.privacy.claims.gaussian_fit.family_check`).  Refuted "under the declared
  Gaussian family" when mu_L violates the claim and the family check passes; not refuted
  otherwise; inconclusive when the family check rejects (no verdict under a family the
  outputs contradict) or the outputs are not one real number.  This is the route that
  reaches an (epsilon, delta = 1e-6) claim with sigma 10 % small at 10^7 outputs, which no
  single-event binomial test can (:mod:`audit.privacy.claims.event_power`).

Nothing here prints or writes files.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.privacy.blackbox.sampling import draw, rng_record
from audit.privacy.claims.approx import ApproxDP
from audit.privacy.claims.base import Claim
from audit.privacy.claims.exact_gaussian import gaussian_claim_verdicts, gaussian_pair_verdict
from audit.privacy.claims.fdp import ExplicitFDP
from audit.privacy.claims.gaussian_fit import (
    GOF_LEVEL,
    GaussianFit,
    Moments,
    family_check,
    fit_gaussian_shift,
    verdict_under_family,
)
from audit.privacy.claims.gdp import GaussianDP
from audit.privacy.claims.rdp import RenyiDP
from audit.privacy.claims.zcdp import ZCDP
from audit.privacy.import_root import import_root
from audit.privacy.noise_laws import Gaussian, noise_law
from audit.protocols import Mechanism, NeighbourPair
from audit.registry import replayer
from kernels.errors import InputError, InvalidParameterError

__all__ = ["CHECK_EXACT_GAUSSIAN", "CHECK_FAMILY", "FAMILIES", "FAMILY_STREAM",
           "FamilyResult", "declares_gaussian", "exact_gaussian_finding", "family_finding",
           "family_source", "gaussian_findings", "run_under_family", "tightened_claim"]

CHECK_EXACT_GAUSSIAN = "user-mechanism.exact-gaussian"
CHECK_FAMILY = "user-mechanism.gaussian-family"
#: spawn key of the family tester's generator
FAMILY_STREAM = 43
#: the values of ``--family``
FAMILIES = ("gaussian", "none")


def declares_gaussian(mech: Any) -> bool:
    """Does the mechanism declare Gaussian location-scale noise (confirmed law)?"""
    return callable(getattr(mech, "location_scale", None)) and isinstance(noise_law(mech),
                                                                         Gaussian)


def family_source(mech: Any, family: str | None) -> str | None:
    """Who declares the Gaussian family: ``"--family gaussian"``, the mechanism's own
    declaration, or None (no family test; ``family="none"`` turns a declared one off)."""
    if family is not None and family not in FAMILIES:
        raise InputError(f"--family {family!r}: must be one of {', '.join(FAMILIES)}")
    if family == "none":
        return None
    if family == "gaussian":
        return "--family gaussian"
    return ("declared by the mechanism (noise = 'gaussian', location_scale)"
            if declares_gaussian(mech) else None)


def gaussian_findings(plan: Any, claim: Claim, level: float | None = None,
                      subject: str | None = None, exact_done: bool = False
                      ) -> list[Finding]:
    """The Gaussian findings of a run (module docstring) on a plan of
    :func:`audit.privacy.user_audit.plan_audit`: ``user.exact-gaussian`` when the mechanism
    declares Gaussian noise (unless ``exact_done``: the pure-DP exact-loss tester already
    decided it), ``user.gaussian-family`` when the plan has a family, at ``level``
    (default: the plan's ``family_level``).  Explicit f-DP claims get neither."""
    mech = plan.mech
    if not decidable(claim):
        return []
    subject = subject or f"mechanism:{plan.ref or mech.name}"
    out: list[Finding] = []
    if plan.params.get("exact", True) and declares_gaussian(mech) and not exact_done:
        out.append(exact_gaussian_finding(claim, mech, plan.pairs, plan.ref, plan.seed,
                                          subject))
    source = plan.params.get("family")
    if source:
        t = plan.tester
        out.append(family_finding(
            claim, mech, plan.pairs, plan.seed, int(t.n_select), int(t.certify_samples),
            float(plan.params["family_level"] if level is None else level),
            int(t.chunk_size), plan.ref, subject, source))
    return out


def decidable(claim: Claim) -> bool:
    """Claims the Gaussian family decides in closed form (not explicit f-DP curves)."""
    return isinstance(claim, (GaussianDP, ZCDP, RenyiDP, ApproxDP)) and not isinstance(
        claim, ExplicitFDP)


# ------------------------------------------------------------------ declared density
def tightened_claim(claim: Claim, mu: Fraction | float) -> Claim | None:
    """The claim of the same family tightened just below what a Gaussian shift with this mu
    attains (None when mu = 0: nothing positive to tighten below)."""
    m = float(mu)
    if m <= 0:
        return None
    k = 1.0 + 2.0**-20
    if isinstance(claim, GaussianDP):
        return GaussianDP(m / k)
    if isinstance(claim, ZCDP):
        return ZCDP(m * m / 2 / k)
    if isinstance(claim, RenyiDP):
        return RenyiDP([(a, a * m * m / 2 / k) for a, _ in claim.orders])
    if isinstance(claim, ApproxDP):
        from audit.privacy.claims.event_power import gaussian_delta

        d = gaussian_delta(m, claim.eps)
        return ApproxDP(claim.eps, d / k) if 0 < d / k < 1 else None
    return None


def exact_gaussian_finding(claim: Claim, mech: Any, pairs: list[NeighbourPair],
                           ref: str | None, seed: int, subject: str) -> Finding:
    """``user.exact-gaussian`` (module docstring)."""
    from audit.falsifiability import decide, twin

    t0 = time.perf_counter()
    res = gaussian_claim_verdicts(claim, mech, pairs)
    rows = [r for r in res["pairs"] if r["status"] != "unsupported"]
    text = f"{mech.name} is {claim.describe()} under {mech.relation} (declared Gaussian density)"
    scope = (f"{len(pairs)} neighbouring pairs ({mech.relation}); the claim decided exactly "
             "for the declared location_scale and Gaussian noise density (mu = |a - a'| / "
             "(b sigma): GDP / zCDP / RDP in rationals, (eps, delta) in mpmath at 60 digits); "
             "assumes the declared density is the mechanism's output law (its sampler is "
             "not examined here)")
    ev: dict[str, Any] = {**res, "claim_words": claim.describe()}
    dur = time.perf_counter() - t0
    common: dict[str, Any] = {"claim": text, "reference": "declared density",
                              "method": Method.EXACT_LOSS, "seed": seed, "subject": subject}
    if res["status"] == "violates":
        worst = max((r for r in rows if r["status"] == "violates"), key=lambda r: r["mu_up"])
        p = pairs[worst["pair_index"]]
        cx = counterexample_document(
            CHECK_EXACT_GAUSSIAN, subject,
            {"mechanism": ref, "import_path": import_root(ref) if ref else None,
             "claim": claim.spec(), "relation": mech.relation,
             "style": mech.style, "randomness": mech.randomness,
             "pair": {"first": np.asarray(p.first).tolist(),
                      "second": np.asarray(p.second).tolist()}},
            expected=f"declared mu inside {claim.spec()}", actual=worst["checks"],
            tolerance={"rounding": "exact rationals / mpmath 60 digits, directed"})
        return Finding(id="user.exact-gaussian", verdict=Verdict.REFUTED, scope=scope,
                       evidence={**ev, "outcome": "flagged"}, counterexample=cx,
                       duration_s=dur, **common)
    if res["status"] != "holds" or not rows:
        return Finding(id="user.exact-gaussian", verdict=Verdict.INCONCLUSIVE, scope=scope,
                       evidence={**ev, "outcome": "undecided",
                                 "reason": "some pair is undecided or unsupported (unequal "
                                 "scales)"}, duration_s=dur, **common)
    worst = max(rows, key=lambda r: r["mu_up"])
    wp = pairs[worst["pair_index"]]
    a, b = mech.location_scale(wp.first)
    a2, _ = mech.location_scale(wp.second)
    scale = Fraction(float(b)) * Fraction(noise_law(mech).sigma)  # type: ignore[union-attr]
    mu = abs(Fraction(float(a)) - Fraction(float(a2))) / scale
    tc = tightened_claim(claim, mu)
    if tc is None:
        tw = twin(f"{claim.spec()} tightened below the worst pair's value", "not-refuted",
                  detail="the worst declared pair has mu = 0: no tightened claim fails")
    else:
        st = gaussian_pair_verdict(tc, float(a), float(a2), scale)["status"]
        tw = twin(f"{tc.spec()} (the claim tightened just below the worst pair's value)",
                  "refuted" if st == "violates" else "not-refuted",
                  witness={"pair_index": worst["pair_index"]})
    verdict = decide(True, tw, failed=Verdict.REFUTED,
                     vacuous_reason="every declared pair has mu = 0")
    return Finding(id="user.exact-gaussian", verdict=verdict, scope=scope,
                   evidence={**ev, "outcome": "within-claim", "twin": tw}, duration_s=dur,
                   **common)


@replayer(CHECK_EXACT_GAUSSIAN)
def replay_exact_gaussian(inputs: dict[str, Any]) -> tuple[bool, Any, Any, str]:
    """Decide the stored claim again on the stored pair's declared density."""
    from audit.privacy.claims.parse import parse_claim

    mech, claim = _load(inputs), parse_claim(inputs["claim"])
    pair = NeighbourPair(np.asarray(inputs["pair"]["first"], dtype=np.float64),
                         np.asarray(inputs["pair"]["second"], dtype=np.float64),
                         inputs["relation"])
    res = gaussian_claim_verdicts(claim, mech, [pair])
    return (res["status"] == "violates", f"declared mu inside {claim.spec()}",
            res["pairs"][0].get("checks"), f"declared mu <= {res['pairs'][0].get('mu_up')}")


# ------------------------------------------------------------------ fitted family
@dataclass
class FamilyResult:
    """What :func:`run_under_family` returns (plain data for the finding)."""

    pair_index: int
    fit: GaussianFit
    gof: dict[str, Any]
    verdict: dict[str, Any]
    samples_total: int
    rng_state: dict[str, Any]
    n_certify: int
    n_gof: int
    chunk_size: int
    selection: list[dict[str, Any]]

    @property
    def refuted(self) -> bool:
        return bool(self.verdict["refuted"]) and not self.gof["rejected"]


def _moments(mech: Mechanism, data: Any, n: int, rng: np.random.Generator,
             chunk: int) -> Moments:
    m = Moments()
    done = 0
    while done < n:
        k = min(chunk, n - done)
        y = draw(mech, data, k, rng, 1)
        m.add(y)
        done += k
    return m


def _scalar(mech: Mechanism, data: Any, rng: np.random.Generator) -> None:
    y = draw(mech, data, 2, rng, None)
    if y.shape[1] != 1:
        raise InvalidParameterError(f"the Gaussian family is fitted to one real output; "
                                    f"the mechanism returns {y.shape[1]} columns")


def run_under_family(claim: Claim, mech: Mechanism, pairs: list[NeighbourPair],
                      rng: np.random.Generator, n_select: int, n_certify: int, level: float,
                      chunk_size: int = 1_000_000, gof_level: float = GOF_LEVEL
                      ) -> FamilyResult:
    """Select the pair (largest estimated mu on ``n_select`` outputs per data set; no
    selection with one pair), fit it on ``n_certify`` fresh outputs per data set at
    ``level``, check the family on ``n_select`` further ones, decide the claim at mu_L."""
    if not decidable(claim):
        raise InvalidParameterError(f"the Gaussian family does not decide {claim.spec()} "
                                    "(explicit f-DP curves are tested by sampling)")
    drawn = 0
    selection: list[dict[str, Any]] = []
    usable: list[int] = []
    for i, p in enumerate(pairs):
        try:
            _scalar(mech, p.first, rng)
        except InputError as exc:
            selection.append({"pair_index": i, "skipped": str(exc)})
            continue
        usable.append(i)
    if not usable:
        raise InvalidParameterError("no pair the mechanism accepts: nothing to fit")
    best = usable[0]
    if len(usable) > 1:
        scores = []
        for i in usable:
            m1 = _moments(mech, pairs[i].first, n_select, rng, chunk_size)
            m2 = _moments(mech, pairs[i].second, n_select, rng, chunk_size)
            drawn += 2 * n_select
            sd = float(np.sqrt((m1.m2 + m2.m2) / max(1, m1.n + m2.n - 2)))
            mu = abs(m2.mean - m1.mean) / sd if sd > 0 else float("inf")
            scores.append(mu)
            selection.append({"pair_index": i, "mu_estimate": mu})
        best = usable[int(np.argmax(scores))]
    pair = pairs[best]
    state = rng_record(rng)
    f1 = _moments(mech, pair.first, n_certify, rng, chunk_size)
    f2 = _moments(mech, pair.second, n_certify, rng, chunk_size)
    g1 = draw(mech, pair.first, n_select, rng, 1)
    g2 = draw(mech, pair.second, n_select, rng, 1)
    drawn += 2 * n_certify + 2 * n_select
    fit = fit_gaussian_shift(f1, f2, level)
    gof = family_check(fit, f1, f2, g1, g2, gof_level)
    return FamilyResult(best, fit, gof, verdict_under_family(claim, fit.mu_lower), drawn,
                        state, n_certify, n_select, chunk_size, selection)


def family_finding(claim: Claim, mech: Any, pairs: list[NeighbourPair], seed: int,
                   n_select: int, n_certify: int, level: float, chunk_size: int,
                   ref: str | None, subject: str, source: str) -> Finding:
    """``user.gaussian-family`` (module docstring); ``source`` says who declared the family
    (the mechanism or ``--family gaussian``)."""
    t0 = time.perf_counter()
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(FAMILY_STREAM,)))
    text = f"{mech.name} is {claim.describe()} under {mech.relation} (Gaussian family)"
    common: dict[str, Any] = {"claim": text, "method": Method.EMPIRICAL, "seed": seed,
                              "reference": f"the mechanism author's claim; family: {source}",
                              "subject": subject}
    try:
        r = run_under_family(claim, mech, pairs, rng, n_select, n_certify, level,
                              chunk_size)
    except InvalidParameterError as exc:
        return Finding(id="user.gaussian-family", verdict=Verdict.INCONCLUSIVE,
                       scope="not decided", evidence={"outcome": "not-run", "reason": str(exc)},
                       duration_s=time.perf_counter() - t0, **common)
    fit = r.fit
    strong = r.verdict["strongest"]
    words = (", ".join(f"{k} >= {v:.6g}" for k, v in strong.items())
             + f" at confidence {1 - level:g} (mu estimate {fit.mu_hat:.6g}, "
             f"interval [{fit.mu_lower:.6g}, {fit.mu_upper:.6g}])")
    ev = {"fit": fit.as_dict(), "family_check": r.gof, "verdict": r.verdict,
          "strongest_refuted": strong if r.refuted else {}, "pair_index": r.pair_index,
          "samples_total": r.samples_total, "selection": r.selection,
          "confidence": 1 - level, "family_source": source, "in_words": words,
          "guarantee": "if the outputs are Gaussian with one scale on both data sets, "
                       "mu >= mu_lower with probability >= confidence; a refutation is "
                       "'refuted under the declared Gaussian family'"}
    scope = (f"{len(pairs)} neighbouring pairs; the pair with the largest estimated mu fitted "
             f"as a Gaussian shift on {n_certify:,} outputs per data set (chi-square bound "
             f"on the scale, normal bound on the shift, confidence {1 - level:g}), the "
             f"family checked on {n_select:,} more (KS, tail counts at 3 and 4 scales, equal "
             f"scales; level {r.gof['level']:g}); UNDER THE DECLARED GAUSSIAN FAMILY "
             f"({source})")
    dur = time.perf_counter() - t0
    if r.gof["rejected"]:
        return Finding(id="user.gaussian-family", verdict=Verdict.INCONCLUSIVE,
                       scope=scope + "; the family check rejected the family: no verdict",
                       evidence={**ev, "outcome": "family-rejected",
                                 "reason": "the outputs are not a Gaussian shift with one "
                                 "scale: " + "; ".join(r.gof["reasons"])},
                       duration_s=dur, **common)
    if r.refuted:
        pair = pairs[r.pair_index]
        cx = counterexample_document(
            CHECK_FAMILY, subject,
            {"mechanism": ref, "import_path": import_root(ref) if ref else None,
             "claim": claim.spec(), "relation": mech.relation,
             "style": mech.style, "randomness": mech.randomness,
             "reproducible": mech.reproducible, "seed_bits": mech.seed_bits,
             "pair": {"first": np.asarray(pair.first).tolist(),
                      "second": np.asarray(pair.second).tolist()},
             "rng_state": r.rng_state, "n": r.n_certify, "n_gof": r.n_gof,
             "chunk_size": r.chunk_size, "level": level,
             "fit": {"means": list(fit.means), "sd": fit.sd, "mu_lower": fit.mu_lower}},
            expected=f"mu_lower inside {claim.spec()}", actual=strong,
            tolerance={"confidence": 1 - level, "under": "the declared Gaussian family"},
            note=("replay re-draws the same outputs from the stored generator state"
                  if mech.reproducible else "the mechanism is not reproducible: replay "
                  "re-draws fresh outputs"))
        return Finding(id="user.gaussian-family", verdict=Verdict.REFUTED,
                       scope=scope, evidence={**ev, "outcome": "flagged"},
                       counterexample=cx, duration_s=dur, **common)
    return Finding(id="user.gaussian-family", verdict=Verdict.NOT_REFUTED,
                   scope=scope + "; NOT REFUTED (a sampled test that found nothing is not a "
                   "proof)", evidence={**ev, "outcome": "not-refuted"}, duration_s=dur,
                   **common)


def _load(inputs: dict[str, Any]) -> Any:
    from audit.privacy.import_root import ensure_on_path
    from audit.privacy.user_mechanism import load_object, wrap_mechanism

    ref = inputs.get("mechanism")
    if not ref:
        raise InputError("this counterexample names no importable MODULE:OBJECT")
    ensure_on_path(inputs.get("import_path"))
    return wrap_mechanism(load_object(ref), epsilon=1.0, relation=inputs["relation"],
                          style=inputs.get("style", "auto"),
                          randomness=inputs.get("randomness", "auto"),
                          seed_bits=int(inputs.get("seed_bits", 32)))


@replayer(CHECK_FAMILY)
def replay_family(inputs: dict[str, Any]) -> tuple[bool, Any, Any, str]:
    """Re-draw the fit's outputs (same generator state and chunking), fit again and decide
    the claim at the new mu_lower (the family check is re-run on the same further draws)."""
    from audit.privacy.claims.parse import parse_claim

    mech, claim = _load(inputs), parse_claim(inputs["claim"])
    state = inputs["rng_state"] if inputs.get("reproducible") else None
    if state:
        bg = getattr(np.random, state["bit_generator"])()
        bg.state = state["state"]
        rng = np.random.Generator(bg)
    else:
        rng = np.random.default_rng()
    first = np.asarray(inputs["pair"]["first"], dtype=np.float64)
    second = np.asarray(inputs["pair"]["second"], dtype=np.float64)
    n, chunk = int(inputs["n"]), int(inputs["chunk_size"])
    f1, f2 = _moments(mech, first, n, rng, chunk), _moments(mech, second, n, rng, chunk)
    g1 = draw(mech, first, int(inputs["n_gof"]), rng, 1)
    g2 = draw(mech, second, int(inputs["n_gof"]), rng, 1)
    fit = fit_gaussian_shift(f1, f2, float(inputs["level"]))
    gof = family_check(fit, f1, f2, g1, g2)
    v = verdict_under_family(claim, fit.mu_lower)
    same = "identical to" if fit.mu_lower == inputs["fit"]["mu_lower"] else "different from"
    return (v["refuted"] and not gof["rejected"], f"mu_lower inside {claim.spec()}",
            v["strongest"], f"mu_lower {fit.mu_lower:.9g} ({same} the stored one); family "
            f"check {'rejected' if gof['rejected'] else 'passed'}")
