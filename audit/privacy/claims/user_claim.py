"""``dpaudit test --claim SPEC``: a user's mechanism tested against a trade-off claim.

* ``pure:`` and ``approx:`` claims are exactly ``--epsilon`` / ``--delta``: they take the
  (epsilon, delta) black-box path of :mod:`audit.privacy.user_audit` unchanged
  (:func:`claim_option` returns them as epsilon, delta).
* ``gdp:``, ``zcdp:``, ``rdp:`` and ``fdp:`` claims run the select-then-certify claim tester
  (:mod:`audit.privacy.claims.certify`, fixed sizes: ``--n-select`` outputs per data set to
  select, ``--max-samples`` fresh ones to certify) on the plan's pairs, with its own
  generator stream spawned from the seed; one finding ``user.claim`` with the verdict, the
  strongest refuted parameter of the family (``mu >= 1.37`` at the confidence), the
  event, and a counterexample that ``dpaudit replay`` re-runs (same generator state, same
  counts, same corner verdict).

Nothing here prints or writes files.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.privacy.blackbox.accounting import confidence_share
from audit.privacy.blackbox.crashes import MechanismCrash
from audit.privacy.blackbox.events import Event
from audit.privacy.blackbox.settings import TesterSettings
from audit.privacy.claims.accounting import check_claim_alpha, event_record, histogram_record
from audit.privacy.claims.approx import ApproxDP
from audit.privacy.claims.base import Claim
from audit.privacy.claims.certify import ClaimResult, certified_corner, certify_claim
from audit.privacy.claims.histogram_renyi import (
    BINS,
    HistogramResult,
    certify_histogram,
    recount_histogram,
)
from audit.privacy.claims.parse import parse_claim
from audit.privacy.claims.rdp import RenyiDP
from audit.privacy.claims.zcdp import ZCDP
from audit.privacy.import_root import ensure_on_path, import_root
from audit.privacy.user_mechanism import load_object, wrap_mechanism
from audit.registry import replayer
from kernels.errors import InputError, InvalidParameterError

__all__ = ["CHECK_CLAIM", "CHECK_HISTOGRAM", "CLAIM_STREAM", "claim_option", "claim_words",
           "level_record", "replay_claim", "replay_histogram", "run_claim"]

#: the counterexample check id of a refuted claim
CHECK_CLAIM = "user-mechanism.claim-corner"
#: the counterexample check id of a claim refuted by the histogram certificate
CHECK_HISTOGRAM = "user-mechanism.claim-histogram"
#: spawn key of the claim run's generator
CLAIM_STREAM = 41


def claim_option(text: str | None, epsilon: float | None, delta: float,
                 declared: Any = None) -> tuple[Claim | None, float | None, float]:
    """Validate ``--claim`` against ``--epsilon`` / ``--delta``.  Returns (claim to run
    with the claim tester or None, epsilon, delta): a pure / approx claim becomes
    epsilon / delta (the shorthands' own path).  Errors name the flag (exit 2).
    ``declared``: the mechanism's own ``claim`` attribute (a :class:`Claim`, e.g. read by
    an adapter from OpenDP or Tumult), used when neither flag is given."""
    if text is None and epsilon is None and isinstance(declared, Claim):
        if isinstance(declared, ApproxDP):
            return None, declared.eps, declared.delta
        return declared, None, 0.0
    if text is None:
        return None, epsilon, delta
    if epsilon is not None or delta:
        raise InputError(f"--claim {text!r} and --epsilon / --delta exclude each other "
                         "(--epsilon E --delta D is the claim approx:eps=E,delta=D)")
    try:
        claim = parse_claim(text)
    except InvalidParameterError as exc:
        raise InputError(f"--claim: {exc}") from None
    if isinstance(claim, ApproxDP):
        if claim.eps <= 0:
            raise InputError(f"--claim {text!r}: epsilon must be > 0")
        return None, claim.eps, claim.delta
    return claim, None, 0.0


def claim_words(res: ClaimResult) -> str:
    """The verdict in one line: "refuted: mu >= 1.37 at 0.9 (event ...)"."""
    strong = ", ".join(f"{k} >= {v:.4g}" for k, v in res.verdict.strongest.items())
    word = "refuted" if res.refuted else "not refuted"
    return (f"{word}: {strong} at confidence {res.confidence:g} on the event "
            f"'{res.event}' ({res.samples_total:,} outputs)")


def run_claim(plan: Any, claim: Claim,
              progress: Callable[[str, int, int], None] | None = None) -> Any:
    """Run the claim tester on a plan of :func:`audit.privacy.user_audit.plan_audit` and
    return its :class:`~audit.privacy.user_audit.UserAudit` (one ``user.claim``
    finding)."""
    from audit.privacy.claims.gaussian_findings import decidable, gaussian_findings
    from audit.privacy.user_audit import UserAudit, not_refuted_verdict, overall_outcome

    t0 = time.perf_counter()
    mech, seed = plan.mech, plan.seed
    base = plan.tester
    # zCDP / RDP: the event tester and the histogram certificate share alpha (Bonferroni),
    # and with them the Gaussian family tester when the plan has one
    both = isinstance(claim, (ZCDP, RenyiDP))
    conf = float(plan.params["confidence"])
    family_part = bool(plan.params.get("family")) and decidable(claim)
    parts = (2 if both else 1) + int(family_part)
    share = confidence_share(conf, parts)
    family_level = 1.0 - share if family_part else None
    t = TesterSettings(n_select=base.n_select, n_certify=base.certify_samples,
                       confidence=share,
                       chunk_size=base.chunk_size)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(CLAIM_STREAM,)))
    subject = f"user-mechanism:{plan.ref or mech.name}"
    text = f"{mech.name} is {claim.describe()} under {mech.relation}"
    params = {**plan.params, "claim": claim.spec(), "claim_words": claim.describe(),
              "epsilon": None, "delta": None, "sequential": False}
    try:
        res = certify_claim(claim, mech, plan.pairs, rng, t, progress)
    except MechanismCrash as exc:
        f = Finding(id="user.claim", claim=text, reference="the mechanism author's claim",
                    method=Method.EMPIRICAL, verdict=Verdict.INCONCLUSIVE,
                    scope="the mechanism crashed; nothing decided",
                    evidence={"outcome": "crashed", "reason": f"the mechanism crashed: "
                              f"{exc}"}, seed=seed, subject=subject)
        return UserAudit([f], "inconclusive", params, None, [], time.perf_counter() - t0)
    hist, hist_note = None, ""
    if both:
        rng_h = np.random.default_rng(np.random.SeedSequence(seed,
                                                             spawn_key=(CLAIM_STREAM, 1)))
        try:
            hist = certify_histogram(claim, mech, plan.pairs, rng_h, t)
        except InvalidParameterError as exc:  # several output columns
            hist_note = str(exc)
    # the union bound re-counted exactly from the run's record (a miscount: exit 4)
    account = check_claim_alpha(level_record(res, hist, claim, conf, family_level), conf,
                                int(t.certify_samples))
    dur = time.perf_counter() - t0
    refuted = res.refuted or bool(hist is not None and hist.refuted)
    strongest = dict(res.verdict.strongest)
    if hist is not None:
        for k, v in hist.strongest.items():
            strongest[k] = max(v, strongest.get(k, 0.0))
    words = claim_words(res) + (
        f"; histogram of {BINS} bins at alpha {hist.alpha:g}: "
        + ", ".join(f"{k} >= {v:.4g}" for k, v in hist.strongest.items())
        + (" (refutes)" if hist.refuted else "") if hist is not None else "")
    ev = {**res.as_dict(), "outcome": "flagged" if refuted else "not-refuted",
          "event_refuted": res.refuted, "strongest_refuted": strongest,
          "confidence": conf, "in_words": words, "pairs": len(plan.pairs),
          "histogram": None if hist is None else {
              "refuted": hist.refuted, "strongest": hist.strongest, "alpha": hist.alpha,
              "pair_index": hist.pair_index, "direction": hist.direction,
              "bins": len(hist.edges) + 1, "n": hist.n,
              "level_per_bound": hist.level_per_bound},
          "histogram_note": hist_note,
          "levels": {"alpha_total": 1.0 - conf, "event_level_per_bound": res.alpha_per_bound,
                     "histogram_level_per_bound": None if hist is None
                     else hist.level_per_bound, "n_select": int(t.n_select),
                     "n_certify": int(t.certify_samples)},
          "alpha_accounting": account,
          "pairs_rejected": plan.rejected, "kind": "trade-off claim",
          "guarantee": "with probability >= confidence over the certification draws the "
                       "event's probabilities lie in the Clopper-Pearson box; its corner "
                       "outside the claim's trade-off region refutes the claim (and every "
                       "stronger claim of the family up to the strongest_refuted values)"}
    scope = (f"{len(plan.pairs)} neighbouring pairs ({mech.relation}); select-then-certify "
             f"against the trade-off curve of {claim.describe()}; {res.samples_total} "
             f"outputs; confidence {conf:g}"
             + (f"; event and histogram certificates at 1/{parts} of the error budget each"
                if both else ""))
    cx: dict[str, Any] | None = None
    if res.refuted:
        inputs = {**_replay_inputs(plan, claim, res.pair_index),
                  "event": res.event_spec, "event_text": res.event, "counts": res.counts,
                  "alpha_per_bound": res.alpha_per_bound, **res.replay}
        cx = counterexample_document(
            CHECK_CLAIM, subject, inputs, expected=f"corner inside {claim.spec()}",
            actual=res.verdict.strongest, tolerance={"confidence": res.confidence},
            note=("replay re-draws the same outputs from the stored generator state"
                  if mech.reproducible else "the mechanism is not reproducible: replay "
                  "re-draws fresh outputs"))
    elif hist is not None and hist.refuted:
        inputs = {**_replay_inputs(plan, claim, hist.pair_index),
                  "edges": hist.edges, "direction": hist.direction, "alpha": hist.alpha,
                  "n": hist.n, "level": hist.level_per_bound, "counts": hist.counts,
                  "rng_state": hist.rng_state, "chunk_size": int(t.chunk_size)}
        cx = counterexample_document(
            CHECK_HISTOGRAM, subject, inputs, expected=f"Renyi bound inside {claim.spec()}",
            actual=hist.strongest, tolerance={"confidence": conf},
            note="replay recounts the bins on the same draws (fresh ones if the mechanism "
                 "is not reproducible)")
    if cx is not None:
        f = Finding(id="user.claim", claim=text, reference="the mechanism author's claim",
                    method=Method.EMPIRICAL, verdict=Verdict.REFUTED, scope=scope,
                    evidence=ev, counterexample=cx, seed=seed, duration_s=dur,
                    subject=subject)
        outcome = "flagged"
    else:
        f = Finding(id="user.claim", claim=text, reference="the mechanism author's claim",
                    method=Method.EMPIRICAL, verdict=not_refuted_verdict(),
                    scope=scope + "; NOT REFUTED (a sampled test that found nothing is not "
                    "a proof)", evidence=ev, seed=seed, duration_s=dur, subject=subject)
        outcome = "not-flagged"
    found = [f, *gaussian_findings(plan, claim, level=1.0 - share, subject=subject)]
    if len(found) > 1:
        outcome = overall_outcome(found)
    return UserAudit(found, outcome, params, None, [], time.perf_counter() - t0)


def level_record(res: ClaimResult, hist: HistogramResult | None, claim: Claim,
                 conf: float, family_level: float | None = None) -> dict[str, Any]:
    """What the run spent, as :func:`audit.privacy.claims.accounting.check_claim_alpha`
    re-counts it: the event's counts, level and corner; the histogram's counts, level,
    order and every bin's bounds; the Gaussian family tester's level when it shares the
    run's alpha."""
    d = int(res.replay["direction_index"])
    k_first, k_second = int(res.counts["first"]), int(res.counts["second"])
    k_oth, k_fav = (k_first, k_second) if d == 0 else (k_second, k_first)
    ev = event_record(k_oth, k_fav, int(res.counts["n"]), res.alpha_per_bound,
                      res.corner["a_up"], res.corner["b_up"])
    h = None if hist is None else histogram_record(
        hist.counts, hist.direction, hist.n, hist.level_per_bound, hist.alpha, hist.p_lower,
        hist.q_upper, hist.divergence, hist.strongest, isinstance(claim, RenyiDP))
    return {"alpha_total": 1.0 - float(conf), "event": ev, "histogram": h,
            "family_level": family_level}


def _replay_inputs(plan: Any, claim: Claim, pair_index: int) -> dict[str, Any]:
    """What every claim counterexample stores: the mechanism, how it is called, the claim
    and the pair."""
    mech, pair = plan.mech, plan.pairs[pair_index]
    return {"mechanism": plan.ref, "import_path": import_root(plan.ref),
            "style": mech.style, "randomness": mech.randomness,
            "reproducible": mech.reproducible, "seed_bits": mech.seed_bits,
            "relation": mech.relation, "claim": claim.spec(),
            "pair": {"first": np.asarray(pair.first).tolist(),
                     "second": np.asarray(pair.second).tolist()}}


def _replay_setup(inputs: dict[str, Any]) -> tuple[Any, Claim, np.random.Generator]:
    """The mechanism, the claim and the generator a counterexample stores."""
    ref = inputs.get("mechanism")
    if not ref:
        raise InputError("this counterexample names no importable MODULE:OBJECT")
    ensure_on_path(inputs.get("import_path"))
    mech = wrap_mechanism(load_object(ref), epsilon=1.0, relation=inputs["relation"],
                          style=inputs.get("style", "auto"),
                          randomness=inputs.get("randomness", "auto"),
                          seed_bits=int(inputs.get("seed_bits", 32)))
    state = inputs["rng_state"] if inputs.get("reproducible") else None
    if state:
        bg = getattr(np.random, state["bit_generator"])()
        bg.state = state["state"]
        return mech, parse_claim(inputs["claim"]), np.random.Generator(bg)
    return mech, parse_claim(inputs["claim"]), np.random.default_rng()


@replayer(CHECK_HISTOGRAM)
def replay_histogram(inputs: dict[str, Any]) -> tuple[bool, Any, Any, str]:
    """Recount the stored bins on the same draws and re-decide the Renyi bound."""
    mech, claim, rng = _replay_setup(inputs)
    first = np.asarray(inputs["pair"]["first"], dtype=np.float64)
    second = np.asarray(inputs["pair"]["second"], dtype=np.float64)
    refuted, strongest, counts = recount_histogram(
        claim, mech, first, second, inputs["edges"], int(inputs["direction"]),
        float(inputs["alpha"]), int(inputs["n"]), float(inputs["level"]), rng,
        int(inputs["chunk_size"]))
    same = counts == inputs["counts"]
    return refuted, f"Renyi bound inside {claim.spec()}", strongest, (
        f"{len(inputs['edges']) + 1} bins recounted on n={inputs['n']} outputs per data set "
        f"({'identical to' if same else 'different from'} the stored counts)")


@replayer(CHECK_CLAIM)
def replay_claim(inputs: dict[str, Any]) -> tuple[bool, Any, Any, str]:
    """Re-draw the certification outputs (same generator state and chunking), recount the
    event and re-decide the corner against the claim."""
    mech, claim, rng = _replay_setup(inputs)
    n = int(inputs["n"])
    t = TesterSettings(n_select=10, n_certify=n, chunk_size=int(inputs["chunk_size"]))
    ev = Event.from_dict(inputs["event"])
    first = np.asarray(inputs["pair"]["first"], dtype=np.float64)
    second = np.asarray(inputs["pair"]["second"], dtype=np.float64)
    d = int(inputs["d"])
    kf = int(t.count(mech, first, [ev], n, rng, d, None)[0])
    ks = int(t.count(mech, second, [ev], n, rng, d, None)[0])
    k_oth, k_fav = (kf, ks) if int(inputs["direction_index"]) == 0 else (ks, kf)
    a_up, b_up = certified_corner(k_oth, k_fav, n, float(inputs["alpha_per_bound"]))
    v = claim.verdict(a_up, b_up)
    same = (kf, ks) == (inputs["counts"]["first"], inputs["counts"]["second"])
    detail = (f"event: {inputs.get('event_text')}; counts now {kf}, {ks} of n={n} "
              f"({'identical to' if same else 'different from'} the stored ones); corner "
              f"a_U={a_up:.6g}, b_U={b_up:.6g}")
    return v.refuted, f"corner inside {claim.spec()}", v.strongest, detail

