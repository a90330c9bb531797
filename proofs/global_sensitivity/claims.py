"""GS claims: printed GS vs the exact supremum, per statistic x neighbour relation
(``dpaudit search``), Z3 confirmations (``dpaudit prove``), and the quantities each GS needs
that are private under its relation.

Per statistic and relation two Findings (both directions):

* ``gs.<stat>.<def>`` - "the printed GS is an upper bound on sup |T(x) - T(x')|" (too small
  would make the Laplace release not epsilon-DP).  Refuted with an exact pair exceeding it.
* ``gs.<stat>.<def>.tight`` - "the printed GS is not larger than the sup" (too large wastes
  accuracy).  Refuted with the exact sup over the stated scope.

The exact sup comes from :mod:`.exact_sup` (exhaustive enumeration in Fractions; for variance
and pooled variance the grid lower bound must equal the proved upper bound
:func:`kernels.global_sensitivity.formulas.exact_gs`, else inconclusive).  Unit ranges
(R = R1 = R2 = 1) suffice: every statistic scales exactly with R, R^2 or R1 R2 and is
translation-invariant (the proportion / histogram statistics have no range).

Proofs of the corrected values (the general-n arguments the enumeration instantiates):

* covariance, Def 2: on the unit square, n Delta = P - n SP/((n-1)(n-2)) with
  P = (u-a)(v-b) <= max(X, Y), X = (1-a)(1-b), Y = ab, and SP = sum x_i y_i - m a b >=
  -m min(X, Y) (m = n-1).  With X >= Y (i.e. a + b <= 1): X + n Y/(n-2) <= 1 because
  1 - X - Y = a + b - 2ab >= 2ab >= 2Y/(n-2) for n >= 3 (4ab <= (a+b)^2 <= a+b).  The lower
  side is the same with y -> 1 - y.  So |Delta| <= 1/n, attained.  Pooled covariance term 1
  is the same inequality with n - 2 replaced by n - 1 - J >= n1 - 2.
* variance / pooled variance, Def 2: Delta = (A - B)/d with A, B >= 0, so |Delta| <= max(A,B)/d;
  max A = (1 - 1/n_j) R^2, max B from the largest sums of squares floor(m^2/4)/m per cell.
* proportion vector, Def 2: removing a record of category c from counts h:
  ||p - p'||_1 = 2 (n - h_c)/(n(n-1)), maximal (2/n) at h_c = 1.
* pooled statistics, Def 1 with the cell label changing: removing from cell a and adding to
  cell b change the two cells' sums independently: the changes add (covariance: both signs
  possible) or the larger counts (variance: both non-negative, opposite signs).
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

import mpmath

from audit import falsifiability, verdict_rules
from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.registry import replayer
from kernels.global_sensitivity import formulas as fo
from proofs.global_sensitivity import claim, smt
from proofs.global_sensitivity import oracles as es

SUBJECT = "paper:liu-global-sensitivity"
REF = "Liu, supplement"
DEFNAME = {fo.DEF1: "def1", fo.DEF2: "def2"}
SECTION = {"mean": "Section 1", "proportion": "Section 1", "histogram": "Section 1",
           "proportion-vector": "Section 1", "variance": "Section 2", "covariance": "Section 3",
           "pooled-variance": "Section 4", "pooled-covariance": "Section 5"}
HALF = Fraction(1, 2)
GRID = (Fraction(0), HALF, Fraction(1))
#: default search scope (the claims); tests use smaller ones
FLAT_N = {fo.DEF1: range(2, 8), fo.DEF2: range(3, 8)}
POOLED_SIZES = ((2, 2), (3, 2), (3, 3), (4, 2), (2, 2, 2))
HIST_K = (2, 3)


def values_for(stat: str, k: int | None = None) -> tuple[Any, ...]:
    """Candidate record values (see :mod:`.exact_sup` for why they are exhaustive)."""
    if stat in ("covariance", "pooled-covariance"):
        return es.corners()
    if stat == "proportion":
        return (Fraction(0), Fraction(1))
    if stat in ("histogram", "proportion-vector"):
        return tuple(range(int(k or 2)))
    return GRID


def exhaustive(stat: str) -> bool:
    """True when the candidate set makes the enumeration the exact sup (no proof needed)."""
    return stat not in ("variance", "pooled-variance")


def _fl(v: Any) -> float:
    return float(v) if not isinstance(v, mpmath.mpf) else float(v)


def _exceeds(a: Any, b: Any) -> bool:
    """a > b exactly (b may be an mpf at 50 digits)."""
    if isinstance(a, mpmath.mpf) or isinstance(b, mpmath.mpf):
        with mpmath.workdps(50):
            fa = mpmath.mpf(a.numerator) / a.denominator if isinstance(a, Fraction) else a
            fb = mpmath.mpf(b.numerator) / b.denominator if isinstance(b, Fraction) else b
            return bool(fa > fb * (1 + mpmath.mpf(10) ** -40))
    return a > b


def _str(v: Any) -> str:
    return str(v) if not isinstance(v, mpmath.mpf) else mpmath.nstr(v, 30)


#: printed GS values the supplement itself calls not exact (an upper bound, not the sup): their
#: slack is reported as ``not-tight`` with its exact value, never as a refuted tightness claim
NOT_EXACT_BY_PAPER = {
    ("pooled-covariance", fo.DEF2): "Section 5, Def 2: 'n_1 being exactly = 2 sqrt(n-1-J) is "
                                    "likely not to occur ... so delta_COV_p as given above is "
                                    "not an exact bound'",
}


def _slack(printed: Any, sup: Fraction) -> Fraction | str:
    """printed - sup, exact when ``printed`` is rational, else to 30 digits (a string)."""
    if isinstance(printed, Fraction | int):
        return Fraction(printed) - sup
    with mpmath.workdps(50):
        return mpmath.nstr(mpmath.mpf(printed) - mpmath.mpf(sup.numerator) / sup.denominator, 30)


# ------------------------------------------------------------------------- replayers
@replayer("gs.pair")
def replay_pair(inputs: dict) -> tuple[bool, Any, Any, str]:
    """Recompute |T(first) - T(second)| exactly; still fails if it exceeds the printed GS."""
    stat = inputs["stat"]
    T = es.statistic(stat, inputs.get("k"))
    first, second = _records(stat, inputs["first"]), _records(stat, inputs["second"])
    d = es.diff(T(first), T(second))
    printed = Fraction(inputs["printed"])
    return (d > printed, printed, d,
            f"|T(x) - T(x')| = {d} vs printed GS {printed} ({inputs['relation']})")


def _records(stat: str, data: Any) -> Any:
    if stat == "pooled-covariance":
        return [[(Fraction(p[0]), Fraction(p[1])) for p in c] for c in data]
    if stat == "pooled-variance":
        return [[Fraction(v) for v in c] for c in data]
    if stat == "covariance":
        return [(Fraction(p[0]), Fraction(p[1])) for p in data]
    if stat in ("histogram", "proportion-vector"):
        return [int(v) for v in data]
    return [Fraction(v) for v in data]


@replayer("gs.sup")
def replay_sup(inputs: dict) -> tuple[bool, Any, Any, str]:
    """Re-run the exhaustive sup; still fails if the printed GS exceeds it."""
    s = _search(inputs["stat"], inputs["relation"], inputs.get("n"), inputs.get("sizes"),
                inputs.get("k"), bool(inputs.get("label_change", False)))
    printed = inputs["printed"]
    p = Fraction(str(printed)) if not isinstance(printed, Fraction) else printed
    still = p > s.value
    return still, s.value, printed, f"exact sup {s.value} vs printed {printed}"


def _search(stat: str, relation: str, n: int | None, sizes: Any, k: int | None,
            label_change: bool = False) -> es.Sup:
    if stat in ("pooled-variance", "pooled-covariance"):
        return es.sup_pooled(stat, relation, tuple(sizes), values_for(stat), label_change)
    return es.sup_flat(stat, relation, int(n), values_for(stat, k), k)


# ------------------------------------------------------------------------- the check
def _cases(stat: str, relation: str, flat_n: Any, pooled_sizes: Any) -> list[dict]:
    if stat in ("pooled-variance", "pooled-covariance"):
        return [{"sizes": s} for s in pooled_sizes]
    if stat in ("histogram", "proportion-vector"):
        return [{"n": m, "k": k} for k in HIST_K for m in flat_n[relation] if m <= 6]
    return [{"n": m} for m in flat_n[relation]]


def gs_findings(stat: str, relation: str, flat_n: Any = None, pooled_sizes: Any = None,
                label_change: bool = False) -> list[Finding]:
    """The two Findings (upper bound, tightness) of one statistic x relation."""
    t0 = time.perf_counter()
    flat_n = flat_n or FLAT_N
    pooled_sizes = pooled_sizes or POOLED_SIZES
    rows, worst_small, worst_large, undecided = [], None, None, []
    attained: tuple[Any, Any] | None = None  # the largest exact sup the scope reaches
    for case in _cases(stat, relation, flat_n, pooled_sizes):
        n, sizes, k = case.get("n"), case.get("sizes"), case.get("k")
        s = _search(stat, relation, n, sizes, k, label_change)
        kw = {"n": n, "sizes": sizes, "k": k}
        proved = fo.exact_gs(stat, relation, label_change=label_change, **kw)
        printed = fo.printed_gs(stat, relation, **kw)
        exact_ok = s.value == proved
        if not exact_ok and exhaustive(stat):
            undecided.append({**case, "enumerated": s.value, "formula": proved})
        elif not exact_ok:
            undecided.append({**case, "grid_lower_bound": s.value, "proved_upper": proved})
        row = {**case, "printed": _str(printed), "exact_sup": s.value,
               "printed_float": _fl(printed), "exact_float": float(s.value),
               "pairs_examined": s.n_pairs, "witness": s.as_dict()}
        rows.append(row)
        if exact_ok and (attained is None or s.value > attained[0]):
            attained = (s.value, {**case, "witness": s.as_dict()})
        if exact_ok and _exceeds(s.value, printed) and worst_small is None:
            worst_small = (case, s, printed)
        if exact_ok and _exceeds(printed, s.value) and worst_large is None:
            worst_large = (case, s, printed)
    dn = DEFNAME[relation]
    suffix = "-label-change" if label_change else ""
    fid = f"gs.{stat}.{dn}{suffix}"
    rel_txt = "Def 1 (replace one record, same n)" if relation == fo.DEF1 else (
        "Def 2 (add/remove one record; n = size of the larger data set)")
    if label_change:
        rel_txt += ", the changed record may move to another cell"
    scope = _scope(stat, relation, rows, label_change)
    ev = {"table": rows, "undecided": undecided, "ranges": "unit (R = R1 = R2 = 1)"}
    # twins (issue 42): the printed GS replaced by the largest attained exact sup nudged just
    # below it (too small) / just above it (too large): the same comparison refutes each at
    # the attaining case
    top = None if attained is None or attained[0] <= 0 else attained
    tw_small = falsifiability.tightened_bound_twin(
        None if top is None else Fraction(top[0]), "the printed GS",
        at=None if top is None else top[1], what="sup |T(x) - T(x')| (a GS nudged below it)")
    tw_large = falsifiability.twin(
        "the printed GS replaced by the largest attained sup times (1 + 2^-20): the same "
        "comparison", "refuted" if top is not None else "not-refuted",
        witness=None if top is None else top[1],
        margin=None if top is None else {"sup": top[0]})
    out = []
    # upper-bound direction
    if worst_small is not None:
        case, s, printed = worst_small
        inputs = {"stat": stat, "relation": relation, "first": s.first, "second": s.second,
                  "k": case.get("k"), "printed": printed, "change": s.change}
        cx = counterexample_document("gs.pair", "kernels:kernels.global_sensitivity.formulas",
                                     inputs, printed, s.value, None,
                                     f"true GS {s.value} at {case}; printed {printed}")
        verdict = Verdict.REFUTED
    else:
        cx = None
        verdict = Verdict.INCONCLUSIVE if undecided else falsifiability.decide(
            True, tw_small, failed=Verdict.REFUTED,
            vacuous_reason="every sup in the scope is 0: no printed GS can be too small")
    out.append(Finding(
        id=fid, claim=f"{REF}, {SECTION[stat]}, {rel_txt}: the printed GS of the {stat} is >= "
        "sup |T(x) - T(x')| (not too small: the Laplace release with it is epsilon-DP)",
        reference=f"{SECTION[stat]}, {rel_txt.split(' (')[0]}",
        method=Method.EXHAUSTIVE, verdict=verdict, scope=scope,
        evidence={**ev, "twin": tw_small}, counterexample=cx,
        duration_s=time.perf_counter() - t0, subject=SUBJECT,
        reading=verdict_rules.reading_for(verdict)))
    # tightness direction
    disclaimed = NOT_EXACT_BY_PAPER.get((stat, relation)) if not label_change else None
    ev2 = ev
    if worst_large is not None and disclaimed:
        case, s, printed = worst_large
        cx2, verdict2 = None, Verdict.NOT_TIGHT
        ev2 = {**ev, "slack": _slack(printed, s.value), "slack_at": case,
               "printed_at": _str(printed), "exact_sup_at": s.value, "paper_says": disclaimed}
        claim2 = (f"{REF}, {SECTION[stat]}, {rel_txt}: the printed GS of the {stat} is an upper "
                  "bound the supplement itself calls not exact; how far above sup |T(x) - T(x')| "
                  "it is (slack, not a refutation)")
    else:
        claim2 = (f"{REF}, {SECTION[stat]}, {rel_txt}: the printed GS of the {stat} is not "
                  "larger than sup |T(x) - T(x')| (no wasted accuracy; the supplement states it "
                  "as the GS)")
        if worst_large is not None:
            case, s, printed = worst_large
            inputs = {"stat": stat, "relation": relation, "n": case.get("n"),
                      "sizes": case.get("sizes"), "k": case.get("k"), "printed": _str(printed),
                      "label_change": label_change}
            cx2 = counterexample_document(
                "gs.sup", "kernels:kernels.global_sensitivity.formulas", inputs, s.value,
                _str(printed), None, f"printed GS {_str(printed)} exceeds the exact sup "
                f"{s.value} at {case}: noise larger than needed (wasted accuracy), not a "
                "privacy failure")
            verdict2 = Verdict.REFUTED
        else:
            cx2 = None
            verdict2 = Verdict.INCONCLUSIVE if undecided else falsifiability.decide(
                True, tw_large, failed=Verdict.REFUTED,
                vacuous_reason="every sup in the scope is 0")
    out.append(Finding(
        id=fid + ".tight", claim=claim2,
        reference=f"{SECTION[stat]}, {rel_txt.split(' (')[0]}",
        method=Method.EXHAUSTIVE, verdict=verdict2, scope=scope,
        evidence={**ev2, "twin": tw_large},
        counterexample=cx2, duration_s=time.perf_counter() - t0, subject=SUBJECT,
        reading=verdict_rules.reading_for(verdict2)))
    return out


def _scope(stat: str, relation: str, rows: list[dict], label_change: bool) -> str:
    keys = [r.get("sizes") or (r["n"], r.get("k")) for r in rows]
    what = ("cell sizes " + ", ".join(str(tuple(k)) for k in keys)
            if stat.startswith("pooled") else
            "n in " + ", ".join(str(k[0]) + (f" (k={k[1]})" if k[1] else "") for k in keys))
    vals = {"covariance": "the 4 corners of [0,1]^2 (multilinear: vertices exhaustive)",
            "pooled-covariance": "the 4 corners of [0,1]^2 (multilinear: vertices exhaustive)",
            "variance": "the grid {0, 1/2, 1} (lower bound) = the proved upper bound",
            "pooled-variance": "the grid {0, 1/2, 1} (lower bound) = the proved upper bound",
            "mean": "{0, 1/2, 1} (linear: vertices exhaustive)",
            "proportion": "{0, 1} (the domain)",
            "histogram": "categories 0..k-1 (the domain)",
            "proportion-vector": "categories 0..k-1 (the domain)"}[stat]
    return (f"every data set (a multiset per cell) at {what}, and every {relation} neighbour"
            f"{' including moves between cells' if label_change else ''}; record values "
            f"{vals}; unit ranges; exact Fractions")

ALL = [(s, r) for s in fo.STATISTICS for r in fo.RELATIONS]


@claim("gs.sup", "Printed GS vs the exact sup |T(x) - T(x')|, every statistic x Def 1 / Def 2, "
       "both directions (exhaustive, exact)", "search", reference="Sections 1-5")
def gs_sup(budget_s: float, seed: int) -> list[Finding]:
    out: list[Finding] = []
    for stat, rel in ALL:
        out.extend(gs_findings(stat, rel))
    return out


@claim("gs.label-change", "Pooled statistics under Def 1 when the cell label is an attribute "
       "that can change (exhaustive, exact)", "search", reference="Sections 4-5, Def 1")
def gs_label_change(budget_s: float, seed: int) -> list[Finding]:
    out: list[Finding] = []
    for stat in ("pooled-variance", "pooled-covariance"):
        out.extend(gs_findings(stat, fo.DEF1, label_change=True))
    return out


#: Z3 scope: flat statistics (n values) and pooled cell sizes per relation
SMT_FLAT_N = {fo.DEF1: (3, 4, 5), fo.DEF2: (3, 4)}
SMT_SIZES = ((2, 2), (3, 2), (2, 2, 2))


def smt_findings(stat: str, relation: str, flat_n: Any = None, sizes_list: Any = None,
                 rlimit: int = smt.RLIMIT_PER_QUERY) -> Finding:
    """Z3: no neighbour pair exceeds the exact GS (UNSAT) and the exact GS is attained (SAT),
    and the printed GS compared with it."""
    t0 = time.perf_counter()
    pooled = stat.startswith("pooled")
    cases = ([{"sizes": s} for s in (sizes_list or SMT_SIZES)] if pooled else
             [{"n": m} for m in (flat_n or SMT_FLAT_N)[relation]])
    rows, failed, unknown = [], None, False
    for case in cases:
        g = fo.exact_gs(stat, relation, **case)
        above = smt.exceeds(stat, relation, g, rlimit=rlimit, **case)
        hit = smt.exceeds(stat, relation, g, attain=True, rlimit=rlimit, **case)
        printed = fo.printed_gs(stat, relation, **case)
        rows.append({**case, "exact_gs": g, "printed": _str(printed),
                     "exceeds_exact": above.status, "attains_exact": hit.status,
                     "duration_s": above.duration_s + hit.duration_s})
        unknown |= "unknown" in (above.status, hit.status)
        if above.status == "sat" and failed is None:
            failed = (case, above, g)
    fid = f"gs.smt.{stat}.{DEFNAME[relation]}"
    text = (f"{REF}, {SECTION[stat]}: the exact GS of the {stat} under {relation} "
            "(the corrected value; equal to the printed one where the table says so) is the "
            "supremum: no neighbour pair exceeds it and some pair attains it")
    scope = (f"Z3 {z3_version()} nlsat, records real in [0,1], "
             + ("cell sizes " + ", ".join(str(c["sizes"]) for c in cases) if pooled else
                "n in " + ", ".join(str(c["n"]) for c in cases))
             + f", first record (of each cell) changed/removed (symmetry), "
               f"Z3 resource limit {rlimit:,} per query (deterministic work units, not time)")
    cx = None
    if failed is not None:
        case, res, g = failed
        cx = counterexample_document("gs.pair", "kernels:kernels.global_sensitivity.formulas",
                                     {"stat": stat, "relation": relation, "first": res.first,
                                      "second": res.second, "printed": g}, g, "exceeds",
                                     None, f"Z3 model exceeding {g} at {case}")
        verdict = Verdict.REFUTED
    evidence: dict[str, Any] = {"table": rows}
    if failed is None:
        not_attained = [c for c, r in zip(cases, rows, strict=True) if r["attains_exact"] != "sat"]
        if unknown or not_attained:
            verdict = Verdict.INCONCLUSIVE
            if not_attained:
                evidence["not_shown_attained"] = not_attained
        else:
            evidence["twin"] = tw = _smt_twin(stat, relation, cases, rlimit)
            verdict = falsifiability.decide(
                True, tw, failed=Verdict.INCONCLUSIVE,
                vacuous_reason="Z3 finds no pair above the exact GS tightened by 2^-20")
    return Finding(id=fid, claim=text, reference=SECTION[stat], method=Method.SMT,
                   verdict=verdict, scope=scope, evidence=evidence, counterexample=cx,
                   duration_s=time.perf_counter() - t0, subject=SUBJECT,
                   reading=verdict_rules.reading_for(verdict))


def _smt_twin(stat: str, relation: str, cases: list[dict], rlimit: int) -> dict[str, Any]:
    """The twin of a Z3 GS check (issue 42): the same query ("a pair exceeds g?", strict) with
    g the exact GS tightened by a relative 2^-20, on the cases in order until Z3 answers SAT
    (its model is the witness); UNSAT or unknown on every case: not refuted."""
    for case in cases:
        g = fo.exact_gs(stat, relation, **case) * (1 - Fraction(1, 2 ** 20))
        res = smt.exceeds(stat, relation, g, rlimit=rlimit, **case)
        if res.status == "sat":
            return falsifiability.twin(
                f"GS <= {g} (the exact GS tightened by a relative 2^-20): the same Z3 query",
                "refuted", witness={**case, "x": res.first, "x'": res.second},
                margin={"tightened_bound": g})
    return falsifiability.twin("GS tightened by a relative 2^-20: the same Z3 query",
                               "not-refuted", detail="no case answered SAT")


def z3_version() -> str:
    import z3

    return z3.get_version_string()


@claim("gs.smt", "Z3: the exact GS is the supremum (UNSAT above it, SAT at it) for mean, "
       "variance, covariance and the pooled statistics at small n", "prove",
       reference="Sections 1-5")
def gs_smt(budget_s: float, seed: int) -> list[Finding]:
    out = []
    for stat in ("mean", "variance", "covariance", "pooled-variance", "pooled-covariance"):
        for rel in fo.RELATIONS:
            out.append(smt_findings(stat, rel))
    return out
