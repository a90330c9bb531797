"""Falsifiability of a verified check: its *twin* and the ``vacuous`` verdict (issue 42).

A check that passes says something only if it could have failed in the same scope.  The
evidence of a ``verified`` finding therefore carries a **twin** (``evidence["twin"]``): the same
check run, in the same scope, on a perturbed claim or kernel -- a constant nudged past the truth,
an inequality tightened below the value the scope attains, a deliberately broken kernel -- and
the twin's outcome, which must be ``"refuted"`` (with the input that refutes it).  A check none
of whose twins can be refuted in its scope is reported ``vacuous`` (never counted as verified)
with the reason in ``evidence["vacuous_reason"]`` (e.g. "the claimed failure bound exceeds every
possible error at n <= 4").

:func:`twin` builds the evidence entry, :func:`tightened_bound_twin` the common twin of a
"worst <= claimed" check whose worst value is *attained* in the scope (a witnessed value, not
only an upper bound), and :func:`decide` turns (passed, twin) into the verdict.  The rule
itself lives beside the other verdict rules (:func:`audit.verdict_rules.check`, rules
``verified-twin`` and ``vacuous``); :func:`tally` counts the verified findings of a report with
and without a refuted twin.

The rule binds the checks converted so far, named by finding-id pattern in
:data:`TWIN_REQUIRED` (a growing list); :func:`tally` counts the verified findings elsewhere
that still lack a twin (the open debt, measured over any set of reports).  Everything here is
pure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from fnmatch import fnmatchcase
from fractions import Fraction
from typing import Any

__all__ = [
    "TWIN_OUTCOMES",
    "all_of",
    "rejection_twin",
    "TWIN_REQUIRED",
    "decide",
    "decide_sampled",
    "gap_twin",
    "needs_twin",
    "tally",
    "tightened_bound_twin",
    "twin",
    "twin_problem",
    "vacuous_reason",
]

#: the outcomes a twin can have (only ``refuted`` makes its check falsifiable)
TWIN_OUTCOMES = ("refuted", "not-refuted", "inconclusive")

#: finding ids (``fnmatch`` patterns) of the checks converted to the twin rule: a verified
#: finding whose id matches one must carry a refuted twin (rule ``verified-twin``).  Checks outside
#: them were written before the rule; :func:`tally` counts their verified findings "without a
#: twin" (the debt still open).  Add a pattern as soon as its checks carry twins.
TWIN_REQUIRED: tuple[str, ...] = (
    # the engine's own self-checks (audit/privacy/self_checks.py)
    "engine.search-reach", "engine.loss-reach", "engine.screen-rank",
    # Dick et al. (proofs/subset_optimal/claims.py)
    "subset.alg1-privacy", "subset.alg2-privacy", "subset.theorem2-accuracy",
    "subset.corollary1", "subset.definitions", "subset.lemma6", "subset.lemma8",
    "subset.definition7-monotone", "subset.lemma1-oracle", "subset.theorem5",
    "subset.replace-one.alg4",
    "text.subset.lemma7-dominance", "text.subset.clip-vs-delete", "text.subset.footnote1-eps",
    "text.subset.footnote2-negation", "text.subset.lipschitz", "text.subset.lemma2-constants",
    "text.subset.cor1-rounding",
    # Liu: the GS upper-bound and tightness checks (proofs/global_sensitivity/claims.py)
    "gs.mean.*", "gs.variance.*", "gs.covariance.*", "gs.proportion.*",
    "gs.proportion-vector.*", "gs.histogram.*", "gs.pooled-variance.*", "gs.pooled-covariance.*",
    # Liu: the exact loss of each Laplace release (proofs/global_sensitivity/privacy.py)
    "release.*.exact-loss",
    # Lan & Reiter: Theorems 4.1 / 4.2 on the exhaustive grid (proofs/gini/subsets.py)
    "paper.thm41.k-maximal-consecutive-removal", "paper.thm42.k-minimal-consecutive",
    # Dick et al. certify chain (proofs/subset_optimal/certify.py)
    "subset.input", "subset.every-neighbour", "subset.step-mean",
    # dpaudit test on a declared Gaussian (audit/privacy/claims/gaussian_findings.py)
    "user.exact-gaussian",
    # regress: every exhaustive kernel check of the engine runner carries a broken-kernel twin
    # (audit/checks/kernel_twin.py); the Liu and Dick et al. suites' ids
    "liu.*", "dick.*",
    # Liu prove: the SymPy displays and steps (proofs/global_sensitivity/derivations.py) and
    # the Z3 GS suprema (proofs/global_sensitivity/claims.py, twin: the GS tightened)
    "derivation.*", "gs.smt.*", "text.liu.*", "release.mean.clip", "release.mean.truncation-redraw",
    # Lan & Reiter / Gini: noise admissibility (proofs/gini/admissibility.py, twin: epsilon
    # tightened below the certified whole loss) and the Gini certify chain
    "certify.input", "certify.kernel-vs-reference",
    "certify.admissibility", "certify.float-sampler", "privacy.admissibility.*",
    # Lan & Reiter prove: SymPy derivations (twin: a constant nudged by 8/7), the Z3 theorem
    # checks (twin: the family with one member dropped), the Section 3 text claim
    "paper.eq1-eq2.relation", "paper.eq14.a-monotone-in-mprime",
    "paper.eq17.continuity-increase", "paper.eq10.normalising-constant",
    "paper.thm41.smt.*", "paper.thm42.smt.*", "text.sec3.min-at-a-kept-point",
    # Lan & Reiter search / reproduce: grid checks (twin: the claim narrowed or shifted by
    # 2^-20, a reversed search, a non-smooth bound) and exact reproductions (constant nudged)
    "paper.alg1.findminindex-unimodal", "paper.alg1.findminindex-ternary-argmin",
    "paper.lemma41.fact1-min-at-sm", "paper.sec411.eq13", "paper.a12.max-at-m1",
    "paper.sec3.toy-witnesses-optimal", "paper.sec42.subset-example",
    "tight.ball-exhaustive.power", "tight.chain-exhaustive", "tight.ratio",
    "repro.sec52.min-iq", "repro.fig4.scale-monotone", "repro.sec2.mean-gs",
    # Ding et al. (free gap): SymPy derivations (a constant nudged by 8/7), the stopping rule
    # (the answer count tightened by one), the text claims, the broken variants' witnesses
    # (twin: the same exact evaluation on the pair (q, q))
    "freegap.deriv.thm3-blue", "freegap.deriv.thm3-appendix-moments",
    "freegap.deriv.blue-linear-time", "freegap.deriv.cor1-mse-ratio",
    "freegap.deriv.sec5-noise-variances", "freegap.deriv.lemma5-tail",
    "freegap.deriv.a1-tie-bound", "freegap.deriv.sec62-variance-ratio",
    "freegap.align.asvt-stopping.at-least-k", "freegap.alg2.stopping-rule-exact",
    "text.freegap.def6-laplace", "text.freegap.examples", "freegap.broken.*",
    # proof steps checked themselves (issue 42: proofs/gini/claims_appendix.py,
    # proofs/*/claims_proofsteps.py)
    "text.a12.s-monotone", "text.a13.q-monotone", "text.a1.f-step", "text.a2.small-k-subsets",
    "text.a4.scale-invariance", "text.sec43.*", "text.freegap.sec8-*",
    "text.freegap.lemma3-proof", "text.freegap.thm2-cost-steps", "text.freegap.thm4-cost-steps",
    "text.freegap.a2-proof-steps", "text.subset.b3-clip", "text.subset.b3-one-sided",
    "text.subset.b3-rank", "text.subset.b3-separation", "text.subset.b3-lemma6",
    "text.subset.b3-one-sided-q", "text.subset.a-neighbour", "text.subset.a-piecewise",
    "text.subset.a-interval", "text.subset.b2-steps", "text.liu.sec5-term1-ranges",
    "text.a2.two-maximal-removal", "text.a2.three-maximal-removal",
    # dpaudit prove MODULE:OBJECT (audit/prove/twin.py: the claim tightened below the loss
    # the program attains, refuted by a confirmed exact witness and by Z3)
    "prove.alignment",
    # Dick et al.: Appendix D.2's and more of B.3's proof steps (r42d)
    "text.subset.d2-lemma7", "text.subset.d2-counts", "text.subset.d2-thm3",
    "text.subset.b3-one-sided-p", "text.subset.b3-decomposition", "text.subset.a-tail",
    "text.subset.a-cor1-grid", "text.subset.a-choice-of-c", "text.subset.e1-lemma8-proof",
    "text.subset.e1-moments", "text.subset.sec31-rank-prose", "text.subset.d1-group-privacy",
    "text.subset.a-cor1-case2",  # issue 42, 3b spot check: Corollary 1's case tau~ != tau~'
    # Lan & Reiter A.2: Lemma 4.2's steps, Theorems 4.1 / 4.2 for k > 3 (claims_a2_steps.py)
    "text.a2.l42.*", "text.a2.t41.*", "text.a2.t42.*", "text.a2.eq58",
    # Lan & Reiter 4.3 / 4.4 / A.4 proof steps (proofs/gini/claims_bound_steps.py; text.sec43.*
    # above covers Theorem 4.5's)
    "text.sec44.*", "text.a4.eq62", "text.a4.any-g", "text.a4.max-alpha", "text.a4.half-only",
    "text.a4.l-zero",
    # Lan & Reiter 4.1.1 / A.1.2 / A.1.3 steps (proofs/gini/claims_s41_steps.py)
    "text.s411.*", "text.s413.*", "text.a12.eq37-39", "text.a13.eq50-51", "text.a13.sign-*",
)


def twin(perturbation: str, outcome: str, *, witness: Any = None, margin: Any = None,
         detail: str = "") -> dict[str, Any]:
    """The evidence entry of a twin: ``perturbation`` says what was changed (in the claim's
    terms), ``outcome`` what the same check gave on it (one of :data:`TWIN_OUTCOMES`),
    ``witness`` the input that refutes it, ``margin`` by how much it fails there."""
    if not perturbation.strip():
        raise ValueError("a twin names its perturbation (empty string given)")
    if outcome not in TWIN_OUTCOMES:
        raise ValueError(f"twin outcome must be one of {', '.join(TWIN_OUTCOMES)}; "
                         f"got {outcome!r}")
    out: dict[str, Any] = {"perturbation": perturbation, "outcome": outcome}
    if witness is not None:
        out["witness"] = witness
    if margin is not None:
        out["margin"] = margin
    if detail:
        out["detail"] = detail
    return out


def tightened_bound_twin(attained: Fraction | int | None, claimed: Fraction | int, *,
                         at: Any, what: str) -> dict[str, Any]:
    """Twin of a check "``what`` <= ``claimed`` everywhere in the scope" whose largest value
    ``attained`` is a value the scope *reaches* (exact, at input ``at``).

    The perturbed claim is "``what`` <= ``attained`` / (1 + 2^-20)" (the bound tightened just
    below what the scope reaches); the same check refutes it at ``at`` exactly.  When nothing
    positive is attained (``attained`` None or <= 0) no tightening of a non-negative bound can
    fail: the twin is ``not-refuted`` and the check is vacuous.
    """
    if attained is None or Fraction(attained) <= 0:
        return twin(f"{what} <= 0 (the tightest non-negative bound)", "not-refuted",
                    detail=f"{what} is 0 at every input of the scope: no tightened bound fails")
    reached = Fraction(attained)
    tight = reached / (1 + Fraction(1, 2 ** 20))
    return twin(f"{what} <= {float(tight)!r} (the claim {claimed} tightened just below the "
                f"value the scope attains)", "refuted", witness=at,
                margin={"attained": reached, "tightened_claim": tight})


def gap_twin(max_gap: float | Fraction | None, *, at: Any, what: str) -> dict[str, Any]:
    """Twin of a check "lhs - rhs <= 0 at every case of the scope" whose largest gap
    ``max_gap`` = max(lhs - rhs) is attained at case ``at`` (exact, or to >= 30 digits).

    The perturbed claim tightens the inequality to "lhs - rhs <= max_gap - delta", delta =
    2^-20 max(1, |max_gap|) (far beyond the precision of the gap): refuted at ``at``."""
    if max_gap is None or at is None:
        return twin(f"{what} tightened past its largest gap", "not-refuted",
                    detail="no case in the scope: nothing can refute a tightened claim")
    delta = 2.0 ** -20 * max(1.0, abs(float(max_gap)))
    return twin(f"{what}: lhs - rhs <= {float(max_gap) - delta!r} (tightened by {delta:.3g} "
                f"past the largest gap the scope attains)", "refuted", witness=at,
                margin={"largest_gap": max_gap, "delta": delta})


def all_of(*parts: Mapping[str, Any]) -> dict[str, Any]:
    """One twin for a check that is a conjunction of parts, each with its own twin: refuted
    only when every part's twin is refuted (so every part of the check can fail); otherwise
    the worst outcome of the parts (``inconclusive`` before ``not-refuted``)."""
    if not parts:
        raise ValueError("all_of needs at least one twin")
    outcomes = [str(p.get("outcome")) for p in parts]
    outcome = ("refuted" if all(o == "refuted" for o in outcomes) else
               "not-refuted" if "not-refuted" in outcomes else "inconclusive")
    witnesses = [p.get("witness") for p in parts]
    return twin("; ".join(f"({i + 1}) {p.get('perturbation', '')}" for i, p in enumerate(parts)),
                outcome, witness=witnesses if any(w is not None for w in witnesses) else None,
                detail="one twin per part of the check, outcomes " + ", ".join(outcomes))


def rejection_twin(run: Callable[[], Any], perturbation: str, rejects: type[BaseException],
                   detail: str = "") -> dict[str, Any]:
    """The twin of an input check: ``run()`` is the same validation on the perturbed input
    (a record outside the bounds); refuted when it raises ``rejects``."""
    try:
        run()
    except rejects:
        outcome = "refuted"
    else:
        outcome = "not-refuted"
    return twin(perturbation, outcome, detail=detail)


def decide(passed: bool, tw: Mapping[str, Any], *, failed: Any, vacuous_reason: str) -> Any:
    """The verdict of a check that ``passed`` (or not, then ``failed``) with twin ``tw``:
    ``verified`` only when the twin is refuted, else ``vacuous`` (``vacuous_reason`` is then
    stored in the twin, which the check puts in its evidence).  ``failed`` is a
    :class:`audit.findings.Verdict`; the verdict returned is of its type."""
    verdict = type(failed)  # audit.findings.Verdict, without importing it (no import cycle:
    if not passed:          # findings -> verdict_rules -> falsifiability)
        return failed
    if tw.get("outcome") == "refuted":
        return verdict("verified")
    if not vacuous_reason.strip():
        raise ValueError("a vacuous verdict states its reason")
    if isinstance(tw, dict):  # the reason travels with the twin into the evidence
        tw["vacuous_reason"] = vacuous_reason
    return verdict("vacuous")


def decide_sampled(failed: bool, exercised: bool, tw: dict[str, Any], *, refuted: Any,
                   vacuous_reason: str) -> Any:
    """The verdict of a comparison on drawn inputs (at most ``not-refuted``): ``refuted``
    (a :class:`audit.findings.Verdict`) when it ``failed``; ``not-refuted`` when the drawn
    inputs ``exercised`` what it compares and its twin ``tw`` was refuted; else ``vacuous``
    (``vacuous_reason`` stored in the twin)."""
    verdict = type(refuted)
    if failed:
        return refuted
    if exercised and tw.get("outcome") == "refuted":
        return verdict("not-refuted")
    tw["vacuous_reason"] = vacuous_reason
    return verdict("vacuous")


def vacuous_reason(evidence: Mapping[str, Any]) -> str:
    """The stated reason a check is vacuous: ``evidence["vacuous_reason"]`` or its twin's."""
    tw = evidence.get("twin")
    twin_reason = tw.get("vacuous_reason", "") if isinstance(tw, Mapping) else ""
    return str(evidence.get("vacuous_reason") or twin_reason or "").strip()


def needs_twin(finding_id: str) -> bool:
    """Must a verified ``finding_id`` carry a refuted twin (its check is converted)?"""
    return any(fnmatchcase(finding_id, pattern) for pattern in TWIN_REQUIRED)


def twin_problem(evidence: Mapping[str, Any]) -> str:
    """Why ``evidence`` does not carry a refuted twin ("" when it does)."""
    tw = evidence.get("twin")
    if tw is None:
        return "no twin in the evidence"
    if not isinstance(tw, Mapping):
        return f"evidence['twin'] must be a dict; got {type(tw).__name__}"
    if not str(tw.get("perturbation", "")).strip():
        return "the twin does not name its perturbation"
    if tw.get("outcome") != "refuted":
        return f"the twin's outcome is {tw.get('outcome')!r}, not 'refuted'"
    return ""


def tally(findings: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Counts over report findings (dicts): ``verified``, ``verified_with_twin``,
    ``verified_without_twin`` and ``vacuous``."""
    out = {"verified": 0, "verified_with_twin": 0, "verified_without_twin": 0, "vacuous": 0}
    for f in findings:
        v = f.get("verdict")
        if v == "vacuous":
            out["vacuous"] += 1
        elif v == "verified":
            out["verified"] += 1
            ev = f.get("evidence") or {}
            key = "verified_with_twin" if not twin_problem(ev) else "verified_without_twin"
            out[key] += 1
    return out
