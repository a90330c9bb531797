"""Privacy of the Laplace releases with the printed GS (``dpaudit search``).

* ``release.exact-loss`` - per statistic x relation, the certified exact privacy loss
  (:func:`audit.privacy.exact_loss.pair_loss`, 30/60-digit mpmath, rounded up) of
  T(D) + Lap(printed GS/epsilon), epsilon = 1, on the worst neighbour pair of the exhaustive
  search (:mod:`.exact_sup`); vector releases sum the per-coordinate losses (independent
  Laplace coordinates: the sup of the sum is the sum of the sups, each attained far in the
  same tail direction).  Because the pair is the exact maximiser of |T(x) - T(x')| at that
  n / those cell sizes, the loss on it is the release's epsilon there:
  epsilon * exact GS / printed GS.
* ``release.blackbox`` - :class:`audit.privacy.blackbox.BlackBoxTester` (seeded, 90%
  confidence) on representative releases and their broken twins (scale x 1/2): its certified
  lower bound, flagged or not.
* ``gs.private-quantities`` - a GS computed from the data set's own n / cell sizes (n under
  Def 2, n_max under Def 2 and under Def 1 with cell moves) gives neighbours different Laplace
  scales: the exact loss is infinite (Laplace log-ratio grows linearly in the tail).
* ``release.truncation-redraw`` / ``release.clip`` - the bounding constraints (assumed; see
  :mod:`kernels.global_sensitivity.releases`): exact loss of the truncated (re-drawn) and
  the clipped (BIT) Laplace release of the mean.
"""

from __future__ import annotations

import time
import zlib
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from audit import falsifiability, verdict_rules
from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.privacy.blackbox import BlackBoxTester
from audit.privacy.exact_loss import pair_loss
from audit.protocols import NeighbourPair
from audit.registry import replayer
from kernels.global_sensitivity import formulas as fo
from proofs.global_sensitivity import claim
from proofs.global_sensitivity import claims as gc
from proofs.global_sensitivity import oracles as es
from proofs.global_sensitivity.mechanisms import GSRelease

SUBJECT = "paper:liu-global-sensitivity"
REF = "Liu, supplement"
EPS = 1.0
FLAT_N = 4
POOLED = {"pooled-variance": (2, 2), "pooled-covariance": (3, 2)}


def representative(stat: str, relation: str, label_change: bool = False) -> dict[str, Any]:
    """The scope of the release checks: n = 4 (k = 3 categories) or a small cell layout."""
    if stat.startswith("pooled"):
        return {"sizes": (3, 3) if label_change else POOLED[stat]}
    if stat in ("histogram", "proportion-vector"):
        return {"n": FLAT_N, "k": 3}
    return {"n": FLAT_N}


def worst_pair(stat: str, relation: str, label_change: bool = False) -> tuple[es.Sup, dict]:
    case = representative(stat, relation, label_change)
    s = gc._search(stat, relation, case.get("n"), case.get("sizes"), case.get("k"),
                   label_change)
    return s, case


def _data(stat: str, x: Any) -> Any:
    if stat.startswith("pooled"):
        return [list(c) for c in x]
    return list(x)


def release_loss(mech: GSRelease, first: Any, second: Any) -> dict[str, Any]:
    """Certified loss of one pair (sum over coordinates for vector releases)."""
    a, b = mech.exact_location_scale(first)
    a2, b2 = mech.exact_location_scale(second)
    if isinstance(a, list):
        parts = [pair_loss(mech, u, b, v, b2) for u, v in zip(a, a2, strict=True)]
        up = sum(p.epsilon_up for p in parts)
        down = sum(p.value_down for p in parts)
        return {"epsilon_up": up, "value_down": down, "certified": all(p.certified for p in
                                                                         parts),
                "per_coordinate": [p.value_mp for p in parts], "scale": [float(b), float(b2)]}
    p = pair_loss(mech, a, b, a2, b2)
    return {"epsilon_up": p.epsilon_up, "value_down": p.value_down, "certified": p.certified,
            "value_mp": p.value_mp, "y_star": p.y_star, "scale": [float(b), float(b2)],
            "location": [float(a), float(a2)]}


@replayer("release.exact-loss")
def replay_loss(inputs: dict) -> tuple[bool, Any, Any, str]:
    stat = inputs["stat"]
    mech = GSRelease(stat, inputs["relation"], EPS, n=inputs.get("n"),
                     sizes=tuple(inputs["sizes"]) if inputs.get("sizes") else None,
                     k=inputs.get("k"), gs_from=inputs.get("gs_from", "public"))
    first = gc._records(stat, inputs["first"])
    second = gc._records(stat, inputs["second"])
    r = release_loss(mech, first, second)
    return (r["value_down"] > EPS, EPS, r["epsilon_up"],
            f"certified loss {r['epsilon_up']} vs claimed epsilon {EPS}")


def exact_laplace_loss(mech: GSRelease, first: Any, second: Any) -> Fraction | None:
    """The exact loss of a Laplace release with the same scale b on both sides: sup_y |log
    p(y)/p'(y)| = sum_i |a_i - a'_i| / b (attained beyond both centres), in Fractions; None
    when a location or scale is not a Fraction or the scales differ (then only the certified
    float bounds exist)."""
    a, b = mech.exact_location_scale(first)
    a2, b2 = mech.exact_location_scale(second)
    locs = list(zip(a, a2, strict=True)) if isinstance(a, list) else [(a, a2)]
    exact = all(isinstance(v, (int, Fraction)) for pair in locs for v in pair)
    if not (exact and isinstance(b, Fraction) and b == b2 and b > 0):
        return None
    return sum((abs(Fraction(u) - Fraction(v)) for u, v in locs), Fraction(0)) / b


def loss_finding(stat: str, relation: str, label_change: bool = False) -> Finding:
    t0 = time.perf_counter()
    s, case = worst_pair(stat, relation, label_change)
    mech = GSRelease(stat, relation, EPS, n=case.get("n"), sizes=case.get("sizes"),
                     k=case.get("k"))
    first, second = _data(stat, s.first), _data(stat, s.second)
    r = release_loss(mech, first, second)
    printed = fo.printed_gs(stat, relation, **case)
    exact = s.value
    with mpmath.workdps(50):
        pf = printed if not isinstance(printed, Fraction) else mpmath.mpf(
            printed.numerator) / printed.denominator
        predicted = mpmath.mpf(exact.numerator) / exact.denominator / pf * EPS
    dn = gc.DEFNAME[relation] + ("-label-change" if label_change else "")
    fid = f"release.{stat}.{dn}.exact-loss"
    ev = {**r, "pair": s.as_dict(), "printed_gs": gc._str(printed), "exact_gs": exact,
          "predicted_eps": mpmath.nstr(predicted, 20), **case}
    # issue 42: the verdict compares an exact loss with epsilon exactly; the certified float
    # epsilon_up (1.0000000000000002 for an exact loss of 1) never verifies by tolerance
    exact_loss = exact_laplace_loss(mech, first, second)
    eps_q = Fraction(EPS)
    ev["claimed"] = eps_q
    ev["exact_loss"] = exact_loss
    tw = falsifiability.tightened_bound_twin(
        exact_loss if exact_loss is not None else Fraction(r["value_down"]), eps_q,
        at={"first": s.first, "second": s.second, **case}, what="the release's loss")
    ev["twin"] = tw
    cx = None
    over = (exact_loss > eps_q) if exact_loss is not None else r["value_down"] > EPS
    if over:
        verdict = Verdict.REFUTED
        cx = counterexample_document(
            "release.exact-loss", f"mechanism:{mech.name}",
            {"stat": stat, "relation": relation, "first": s.first, "second": s.second,
             **case}, EPS, r["epsilon_up"], None,
            f"the release with the printed GS has exact loss {r['epsilon_up']:.6g} > {EPS}")
    elif exact_loss is not None:
        verdict = falsifiability.decide(True, tw, failed=Verdict.REFUTED,
                                        vacuous_reason="the worst pair has loss 0")
    elif r["certified"] and Fraction(r["epsilon_up"]) <= eps_q:
        verdict = falsifiability.decide(True, tw, failed=Verdict.REFUTED,
                                        vacuous_reason="the worst pair has loss 0")
    else:  # a certified bound above epsilon that no exact value settles
        verdict = Verdict.INCONCLUSIVE
        ev["margin_above_claim"] = Fraction(r["epsilon_up"]) - eps_q
    rel_txt = relation + (" with cell moves" if label_change else "")
    return Finding(
        id=fid, claim=f"{REF}, {gc.SECTION[stat]}: T + Lap(printed GS/epsilon) for the {stat} "
        f"is epsilon-DP under {rel_txt} (epsilon = {EPS:g})", reference=gc.SECTION[stat],
        method=Method.EXACT_LOSS, verdict=verdict,
        scope=f"exact loss sum |a - a'| / b in Fractions (equal scales; else the certified "
        f"mpmath 30/60-digit bound, rounded up) on the worst pair of the exhaustive search at "
        f"{case}, compared with epsilon exactly; that pair maximises |T(x) - T(x')| over all "
        "neighbours at this size, so the loss on it is the release's epsilon there",
        evidence=ev, counterexample=cx, duration_s=time.perf_counter() - t0, subject=SUBJECT,
        reading=verdict_rules.reading_for(verdict))


@claim("release.exact-loss", "Exact privacy loss of every Laplace release with the printed GS "
       "on its worst neighbours", "search", reference="Sections 1-5")
def release_exact_loss(budget_s: float, seed: int) -> list[Finding]:
    out = [loss_finding(s, r) for s, r in gc.ALL]
    out += [loss_finding(s, fo.DEF1, True) for s in ("pooled-variance", "pooled-covariance")]
    return out


# ------------------------------------------------------------------- black-box tester
BB_TARGETS = (
    ("mean", fo.DEF1), ("variance", fo.DEF2), ("covariance", fo.DEF2),
    ("pooled-variance", fo.DEF2), ("proportion-vector", fo.DEF2),
)


def _bb_mech(stat: str, relation: str, case: dict, s: es.Sup, factor: float = 1.0,
             rule: str = "printed") -> GSRelease:
    proj = None
    if stat in ("histogram", "proportion-vector"):
        t1 = es.statistic(stat, case["k"])(list(s.first))
        t2 = es.statistic(stat, case["k"])(list(s.second))
        proj = tuple(1 if u > v else -1 if u < v else 0 for u, v in zip(t1, t2, strict=True))
    return GSRelease(stat, relation, EPS, gs_rule=rule, n=case.get("n"),
                     sizes=case.get("sizes"), k=case.get("k"), scale_factor=factor,
                     projection=proj)


def blackbox_run(stat: str, relation: str, seed: int, n_select: int, n_certify: int,
                 factor: float = 1.0, rule: str = "printed") -> dict[str, Any]:
    s, case = worst_pair(stat, relation)
    mech = _bb_mech(stat, relation, case, s, factor, rule)
    pair = NeighbourPair(_data(stat, s.first), _data(stat, s.second), relation,
                         {"edit": str(s.change)})
    tseed = zlib.crc32(f"{seed}:{stat}:{relation}:{factor}:{rule}".encode())
    t = BlackBoxTester(n_select=n_select, n_certify=n_certify, confidence=0.9)
    res = t.run(mech, [pair], np.random.default_rng(tseed))
    return {"mechanism": mech.name, "epsilon_lower": res.epsilon_lower,
            "violates": bool(res.violates), "tester_seed": tseed, "n_select": n_select,
            "n_certify": n_certify, "witness_event": str(res.witness.get("event", "")),
            "case": case}


@replayer("release.blackbox")
def replay_blackbox(inputs: dict) -> tuple[bool, Any, Any, str]:
    r = blackbox_run(inputs["stat"], inputs["relation"], int(inputs["seed"]),
                     int(inputs["n_select"]), int(inputs["n_certify"]),
                     float(inputs.get("factor", 1.0)), inputs.get("rule", "printed"))
    return (r["violates"], EPS, r["epsilon_lower"],
            f"certified epsilon_lower {r['epsilon_lower']} vs claim {EPS} (90%)")


def blackbox_findings(seed: int, n_select: int = 50_000, n_certify: int = 200_000,
                      targets: Any = BB_TARGETS) -> list[Finding]:
    out = []
    for stat, rel in targets:
        t0 = time.perf_counter()
        main = blackbox_run(stat, rel, seed, n_select, n_certify)
        twin = blackbox_run(stat, rel, seed, n_select, n_certify, factor=0.5)
        ev = {"printed_gs_release": main, "broken_twin_half_scale": twin,
              "power": "broken twin flagged" if twin["violates"] else "broken twin NOT "
              "flagged (no power at this size)",
              "rates": "false alarm <= 10% per run (90% confidence); miss rate on the twin "
              "(true eps = 2 x claim on this pair): measured by the twin's verdict"}
        if stat == "proportion-vector":
            ev["exact_gs_release"] = blackbox_run(stat, rel, seed, n_select, n_certify,
                                                  rule="exact")
            ev["projection"] = ("sample = sum_c sign_c y_c, signs of p(x) - p(x'): "
                                "post-processing, so a lower bound for it bounds the vector "
                                "release")
        cx = None
        if main["violates"]:
            verdict = Verdict.REFUTED
            cx = counterexample_document(
                "release.blackbox", f"mechanism:{main['mechanism']}",
                {"stat": stat, "relation": rel, "seed": seed, "n_select": n_select,
                 "n_certify": n_certify}, EPS, main["epsilon_lower"], None,
                "black-box tester certifies epsilon_lower > claim at 90% confidence")
        else:
            verdict = Verdict.NOT_REFUTED if twin["violates"] else Verdict.INCONCLUSIVE
            ev["outcome"] = "not-refuted (no evidence of a violation; not a proof)"
        out.append(Finding(
            id=f"release.{stat}.{gc.DEFNAME[rel]}.blackbox",
            claim=f"{REF}, {gc.SECTION[stat]}: T + Lap(printed GS/epsilon) for the {stat} is "
            f"epsilon-DP under {rel} (epsilon = {EPS:g}) - black-box lower bound",
            reference=gc.SECTION[stat], method=Method.EMPIRICAL, verdict=verdict,
            scope=f"BlackBoxTester select-then-certify, 90% confidence, {n_select} selection "
            f"/ {n_certify} certification draws per data set, the worst pair at "
            f"{main['case']}", evidence=ev, counterexample=cx, seed=seed,
            duration_s=time.perf_counter() - t0, subject=SUBJECT,
            reading=verdict_rules.reading_for(verdict)))
    return out


@claim("release.blackbox", "Black-box lower bounds on epsilon of representative releases with "
       "the printed GS, with broken twins", "search", reference="Sections 1-3, 4")
def release_blackbox(budget_s: float, seed: int) -> list[Finding]:
    return blackbox_findings(seed)


# ------------------------------------------------------------------ private quantities
PRIVATE_CASES = (
    ("mean", fo.DEF2, (Fraction(0), Fraction(0), Fraction(1)), None,
     "n under Def 2: x has n records, x' has n - 1; GS(n) != GS(n-1)"),
    ("proportion-vector", fo.DEF2, (0, 0, 1), 2,
     "n under Def 2 (proportion vector)"),
    ("pooled-variance", fo.DEF2, ((Fraction(0), Fraction(0), Fraction(1)),
                                  (Fraction(0), Fraction(1))), None,
     "n and n_max under Def 2 (pooled variance)"),
)


def _remove_first(stat: str, x: Any) -> Any:
    if stat.startswith("pooled"):
        return [list(x[0][1:])] + [list(c) for c in x[1:]]
    return list(x[1:])


@replayer("gs.private-quantities")
def replay_private(inputs: dict) -> tuple[bool, Any, Any, str]:
    stat = inputs["stat"]
    mech = GSRelease(stat, inputs["relation"], EPS, k=inputs.get("k"), gs_from="own")
    first = gc._records(stat, inputs["first"])
    second = gc._records(stat, inputs["second"])
    r = release_loss(mech, first, second)
    return (r["epsilon_up"] > EPS, EPS, r["epsilon_up"],
            f"loss {r['epsilon_up']} with scales {r['scale']}")


@claim("gs.private-quantities", "GS values that need a quantity private under their relation "
       "(n under Def 2, cell sizes / n_max)", "search", reference="Sections 1-5")
def private_quantities(budget_s: float, seed: int) -> list[Finding]:
    out = []
    for stat, rel, x, k, what in PRIVATE_CASES:
        t0 = time.perf_counter()
        mech = GSRelease(stat, rel, EPS, k=k, gs_from="own")
        first = [list(c) for c in x] if stat.startswith("pooled") else list(x)
        second = _remove_first(stat, x)
        r = release_loss(mech, first, second)
        cx = counterexample_document(
            "gs.private-quantities", f"mechanism:{mech.name}",
            {"stat": stat, "relation": rel, "first": first, "second": second, "k": k},
            EPS, r["epsilon_up"], None,
            f"each side computes the GS from its own size: scales {r['scale']}, "
            f"loss {r['epsilon_up']}")
        verdict = Verdict.REFUTED if r["epsilon_up"] > EPS else Verdict.VERIFIED
        out.append(Finding(
            id=f"gs.private-quantities.{stat}.{gc.DEFNAME[rel]}",
            claim=f"{REF}, {gc.SECTION[stat]}: the Def 2 GS of the {stat} "
            "can be evaluated at the data set's own size (" + what + ")",
            reference=gc.SECTION[stat], method=Method.EXACT_LOSS, verdict=verdict,
            scope="one explicit pair, certified exact loss (Laplace tails analytic)",
            evidence={**r, "quantity": what, "fix": "use a public n (e.g. a public lower "
                      "bound n_min and GS(n_min), or release n privately first); under "
                      "Def 1 n is the same for all neighbours and may be used"},
            counterexample=cx if verdict is Verdict.REFUTED else None,
            duration_s=time.perf_counter() - t0, subject=SUBJECT,
            reading=verdict_rules.reading_for(verdict)))
    # label change under Def 1: the cell sizes are private too
    t0 = time.perf_counter()
    x = [[Fraction(0), Fraction(0), Fraction(0)], [Fraction(1), Fraction(1), Fraction(1)]]
    x2 = [[Fraction(0), Fraction(0), Fraction(0), Fraction(1)], [Fraction(1), Fraction(1)]]
    mech = GSRelease("pooled-variance", fo.DEF1, EPS, gs_from="own")
    r = release_loss(mech, x, x2)
    out.append(Finding(
        id="gs.private-quantities.pooled-variance.def1-label-change",
        claim=f"{REF}, Section 4 Def 1: n_max (the largest cell size) can be used in the GS "
        "(the supplement offers the approximation only 'when n_max cannot be released')",
        reference="Sections 4-5, Def 1", method=Method.EXACT_LOSS,
        verdict=Verdict.REFUTED if r["epsilon_up"] > EPS else Verdict.VERIFIED,
        scope="one explicit pair (a record moves from cell 2 to cell 1), certified exact loss",
        evidence={**r, "quantity": "cell sizes / n_max when the cell label can change under "
                  "Def 1 (and under Def 2 always)"},
        counterexample=counterexample_document(
            "gs.private-quantities", f"mechanism:{mech.name}",
            {"stat": "pooled-variance", "relation": fo.DEF1, "first": x, "second": x2},
            EPS, r["epsilon_up"], None, "own n_max on each side: different scales")
        if r["epsilon_up"] > EPS else None,
        duration_s=time.perf_counter() - t0, subject=SUBJECT,
        reading=verdict_rules.AS_PRINTED if r["epsilon_up"] > EPS else ""))
    return out


# ------------------------------------------------------------------ bounding constraints
def truncated_loss(t: Fraction, t2: Fraction, b: Fraction, lo: Fraction, hi: Fraction,
                   mode: str) -> Any:
    """Exact sup |log p_t(y) - log p_t2(y)| of the truncated ("redraw") or clipped ("clip")
    Laplace release on [lo, hi] (mpmath, 50 digits).  The log-ratio is piecewise linear in y
    between the breakpoints lo, t, t2, hi, so its sup over [lo, hi] is attained at one of
    them; "clip" adds the point masses at lo and hi."""
    with mpmath.workdps(50):
        T, T2, B = (mpmath.mpf(v.numerator) / v.denominator for v in (t, t2, b))
        LO, HI = mpmath.mpf(lo.numerator) / lo.denominator, mpmath.mpf(hi.numerator) / \
            hi.denominator

        def cdf(y: Any, m: Any) -> Any:
            return mpmath.exp((y - m) / B) / 2 if y < m else 1 - mpmath.exp(-(y - m) / B) / 2

        pts = [LO, HI, T, T2]
        if mode == "redraw":
            z1, z2 = cdf(HI, T) - cdf(LO, T), cdf(HI, T2) - cdf(LO, T2)
            vals = [(abs(y - T2) - abs(y - T)) / B + mpmath.log(z2 / z1) for y in pts]
        else:
            vals = [(abs(y - T2) - abs(y - T)) / B for y in pts]
            vals.append(mpmath.log(cdf(LO, T) / cdf(LO, T2)))
            vals.append(mpmath.log((1 - cdf(HI, T)) / (1 - cdf(HI, T2))))
        return max(abs(v) for v in vals)


#: the two plausible readings of the unspecified bounding procedure
BOUNDING_READINGS = {
    "redraw": "bounding by re-drawing the Laplace noise until the value lies in [c0, c1] "
              "(truncated Laplace)",
    "clip": "bounding by clipping the sanitized value to [c0, c1] (BIT, post-processing)",
}


@replayer("release.truncation-redraw")
def replay_trunc(inputs: dict) -> tuple[bool, Any, Any, str]:
    v = truncated_loss(Fraction(inputs["t"]), Fraction(inputs["t2"]), Fraction(inputs["b"]),
                       Fraction(0), Fraction(1), "redraw")
    with mpmath.workdps(50):
        still = bool(v - EPS > mpmath.mpf(10) ** -30)
    return still, EPS, float(v), f"exact loss {mpmath.nstr(v, 20)}"


@claim("release.bounding", "Bounding constraints on the sanitized mean: truncation by re-drawing "
       "vs clipping (BIT) - exact loss", "search", reference="title; Section 6 (assumed)")
def bounding(budget_s: float, seed: int) -> list[Finding]:
    out = []
    n = 2
    b = Fraction(1, n) / Fraction(EPS)  # printed GS (c1-c0)/n, [c0, c1] = [0, 1]
    grid = [Fraction(i, 20) for i in range(21)]
    results = {}
    for mode in ("redraw", "clip"):
        t0 = time.perf_counter()
        best = None
        for t in grid:
            for t2 in grid:
                if t2 <= t or t2 - t > Fraction(1, n):
                    continue
                v = truncated_loss(t, t2, b, Fraction(0), Fraction(1), mode)
                if best is None or v > best[0]:
                    best = (v, t, t2)
        assert best is not None
        with mpmath.workdps(50):
            refuted = bool(best[0] - EPS > mpmath.mpf(10) ** -30)
        results[mode] = (best, refuted, time.perf_counter() - t0)
    # the supplement never says how the sanitized value is forced into [c0, c1]: both
    # procedures are plausible readings, and the paper is refuted only if both fail
    outcome = {BOUNDING_READINGS[m]: ("refuted" if r[1] else "holds")
               for m, r in results.items()}
    all_fail = all(r[1] for r in results.values())
    for mode, ((v, t, t2), refuted, dt) in results.items():
        fid = f"release.mean.{'truncation-redraw' if mode == 'redraw' else 'clip'}"
        cx = counterexample_document(
            "release.truncation-redraw", "kernels:kernels.global_sensitivity.releases",
            {"t": t, "t2": t2, "b": b}, EPS, float(v), None,
            "means t, t2 of two neighbouring data sets (n = 2 records in [0, 1]); "
            "re-drawn Laplace with scale b") if refuted else None
        # the twin (issue 42): the claim tightened just below the largest loss the grid
        # attains (at means t, t2): the same exact comparison refutes it there
        tw = falsifiability.tightened_bound_twin(
            Fraction(float(v)), Fraction(EPS), at={"t": t, "t2": t2}, what="the exact loss")
        verdict = (falsifiability.decide(True, tw, failed=Verdict.REFUTED,
                                         vacuous_reason="the loss is 0 on every pair")
                   if not refuted else
                   Verdict.REFUTED if all_fail else Verdict.REFUTED_UNDER_READING)
        out.append(Finding(
            id=fid, claim=f"{REF} (bounding procedure not specified in the supplement; reading "
            f"'{mode}'): the sanitized mean forced into [c0, c1] by "
            f"{'re-drawing the noise' if mode == 'redraw' else 'clipping'}"
            f" keeps epsilon = {EPS:g} with the printed GS (c1-c0)/n",
            reference="title, Section 6 (procedure not specified in the supplement)",
            method=Method.EXACT_LOSS, verdict=verdict,
            scope="n = 2, [c0, c1] = [0, 1], every pair of means t < t2 on the grid k/20 with "
            "t2 - t <= GS (neighbour means); exact sup over y (piecewise-linear log-ratio, "
            "breakpoints) at 50 digits" + ("" if refuted else "; clipping is post-processing, "
                                           "so the bound holds for all pairs"),
            evidence={"max_loss": mpmath.nstr(v, 20), "t": t, "t2": t2, "scale_b": b,
                      "readings": outcome, **({} if refuted else {"twin": tw})},
            counterexample=cx, duration_s=dt, subject=SUBJECT,
            reading=BOUNDING_READINGS[mode]))
    return out
