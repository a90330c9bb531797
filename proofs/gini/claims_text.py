"""Running-text rules of Lan & Reiter (2025), Section 3, that had no claim: how the minimum
Gini after replacing k records is attained ("when k = 1, the Gini index is minimized when
setting x equal to one of the points in X_{-i}"; "to minimize the Gini index we should replace
k consecutive elements with (x, y) equal to the largest value in X_{-ij}").  Checked by exact
exhaustive search (eq. (2), Fractions) against the brute-force oracle
(:func:`proofs.gini.oracles.extremes_bruteforce`), each plausible reading separately.
"""

from __future__ import annotations

import itertools
import time
from fractions import Fraction as Q
from typing import Any

import sympy as sp

from audit import falsifiability
from audit.findings import Finding, Method, Verdict, counterexample_document, from_jsonable
from audit.registry import replayer
from proofs.gini import NAME, claim, oracles
from proofs.text_findings import SPLIT, paper_finding

SUBJECT = f"paper:{NAME}"
REF = "Lan & Reiter 2025, Section 3"
L, U = Q(0), Q(10)


def rule_min(x: list[Q], k: int, windows: str) -> Q:
    """Smallest eq.-(2) Gini when the k replaced records all take the largest kept value;
    ``windows`` = "consecutive" (the sentence: k consecutive elements replaced), "window"
    (Theorem 4.2: n - k consecutive elements kept, the rest replaced) or "any"."""
    n = len(x)
    if windows == "consecutive":
        sets = [tuple(range(s, s + k)) for s in range(n - k + 1)]
    elif windows == "window":
        sets = [tuple(i for i in range(n) if not s <= i < s + n - k) for s in range(k + 1)]
    else:
        sets = list(itertools.combinations(range(n), k))
    best = None
    for R in sets:
        kept = [x[i] for i in range(n) if i not in R]
        g = oracles.gini2(kept + [max(kept)] * k)
        if g is not None and (best is None or g < best):
            best = g
    return best


def at_a_point_min(x: list[Q], largest_only: bool = False) -> Q:
    """k = 1: smallest Gini with the replaced value restricted to the kept points
    (``largest_only``: the twin's narrower claim, to the largest kept point)."""
    vals = [oracles.gini2([*x[:i], *x[i + 1:], c]) for i in range(len(x))
            for c in ([max(x[:i] + x[i + 1:])] if largest_only else x[:i] + x[i + 1:])]
    return min(v for v in vals if v is not None)


def _true_min(x: list[Q], k: int) -> Q:
    return oracles.extremes_bruteforce(x, L, U, k)[2]


def _data(max_n: int) -> list[list[Q]]:
    grid = [Q(v) for v in (1, 2, 3, 5, 8)]
    return [list(c) for n in range(3, max_n + 1)
            for c in itertools.combinations_with_replacement(grid, n)]


@claim("text.sec3.min-replacement-rules", "Section 3 running text: the minimum Gini after k "
       "replacements is attained at a kept point (k = 1) / by k consecutive records set to the "
       "largest kept value (k = 2)", "prove", reference="Section 3 (toy-example walk-through)")
def min_rules(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    data = _data(6)
    k1_bad, cases1 = [], 0
    readings: dict[str, list[dict]] = {"window": [], "consecutive": [], "any": []}
    cases2 = 0
    for x in data:
        cases1 += 1
        truth1 = _true_min(x, 1)
        if at_a_point_min(x) != truth1 and len(k1_bad) < 3:
            k1_bad.append({"data": x, "k": 1, "true_min": truth1})
        for k in range(2, len(x)):
            cases2 += 1
            truth = _true_min(x, k)
            for w, bad in readings.items():
                got = rule_min(x, k, w)
                if got != truth and len(bad) < 3:
                    bad.append({"data": x, "k": k, "windows": w, "rule_min": got,
                                "true_min": truth})
    scope = ("every multiset of size 3..6 on {1, 2, 3, 5, 8} (L = 0, U = 10), eq. (2), "
             "exact; the true minimum from the brute-force oracle over every replaced set")
    # the twin (issue 42): the kept points narrowed to the largest one, the same exhaustive
    # comparison with the oracle, stopped at the first data set where it fails
    twin_at = next((x for x in data if at_a_point_min(x, largest_only=True)
                    != _true_min(x, 1)), None)
    tw = falsifiability.twin("x set to the largest point of X_{-i} only (the candidate set "
                             "narrowed): the same exhaustive comparison with the oracle",
                             "refuted" if twin_at else "not-refuted",
                             witness={"data": twin_at, "k": 1} if twin_at else None)
    out = [paper_finding(
        id="text.sec3.min-at-a-kept-point",
        reading="as printed",
        claim="Section 3: 'when k = 1, the Gini index is minimized when setting x equal to one "
              "of the points in X_{-i}'",
        reference=REF, method=Method.EXHAUSTIVE,
        verdict=falsifiability.decide(not k1_bad, tw, failed=Verdict.REFUTED,
                                      vacuous_reason="the largest kept point is always a "
                                      "minimiser in this scope"),
        scope=f"{scope} ({cases1} data sets)",
        evidence={"violations": k1_bad, "readings": {"as printed": "refuted" if k1_bad
                                                     else "holds"}, "twin": tw},
        counterexample=counterexample_document("text.sec3.min-at-a-kept-point", SUBJECT,
                                               {"data": k1_bad[0]["data"], "k": 1}, True,
                                               False, None) if k1_bad else None,
        seed=seed, duration_s=time.perf_counter() - t0, subject=SUBJECT)]
    names = {"window": "(b) n - k consecutive records kept (Theorem 4.2), the rest replaced",
             "consecutive": "(a) k consecutive records replaced",
             "any": "(c) any k records replaced"}
    failed = [w for w in readings if readings[w]]
    held = [w for w in readings if not readings[w]]
    text = ("; ".join(f"refuted under {names[w]}" for w in failed) +
            ("; " if failed and held else "") +
            "; ".join(f"holds under {names[w]}" for w in held))
    text += (" (all replaced records set to the largest kept value). The minimum is attained "
             "with a common value at some kept point, not always the largest (Algorithm 1 "
             "searches the kept points with Findminindex: subsets.findminindex)")
    verdict = (Verdict.VERIFIED if not failed else
               Verdict.REFUTED if not held else SPLIT)
    first = readings[failed[0]][0] if failed else None
    out.append(paper_finding(
        id="text.sec3.min-largest-kept-value",
        reading=names[failed[0]] if failed else "",
        claim="Section 3: 'to minimize the Gini index we should replace k consecutive elements "
              "with (x, y) equal to the largest value in X_{-ij}' (tested for every k >= 2). "
              f"{text}",
        reference=REF, method=Method.EXHAUSTIVE, verdict=verdict,
        scope=f"{scope}, every 2 <= k < n ({cases2} (data, k) cases)",
        evidence={**{f"{w}_reading_violations": readings[w] for w in readings},
                  "readings": {names[w]: "refuted" if readings[w] else "holds"
                               for w in readings}},
        counterexample=counterexample_document(
            "text.sec3.min-largest-kept-value", SUBJECT,
            {"data": first["data"], "k": first["k"], "windows": first["windows"]}, True, False,
            None, note=text) if first else None,
        seed=seed, duration_s=time.perf_counter() - t0, subject=SUBJECT))
    return out


@replayer("text.sec3.min-at-a-kept-point")
def replay_at_point(inputs: dict) -> tuple[bool, Any, Any, str]:
    inputs = from_jsonable(inputs)  # raw JSON or already decoded
    x = sorted(Q(v) for v in inputs["data"])
    got, truth = at_a_point_min(x), _true_min(x, 1)
    return got != truth, str(truth), str(got), f"kept-point min {got}, true min {truth}"


@replayer("text.sec3.min-largest-kept-value")
def replay_largest(inputs: dict) -> tuple[bool, Any, Any, str]:
    inputs = from_jsonable(inputs)  # raw JSON or already decoded
    x = sorted(Q(v) for v in inputs["data"])
    k = int(inputs["k"])
    got, truth = rule_min(x, k, inputs.get("windows", "consecutive")), _true_min(x, k)
    return got != truth, str(truth), str(got), (f"rule min {got} = {float(got):.4f}, true min "
                                                f"{truth} = {float(truth):.4f}")


# ============================================================ "A^(k)(X) = 1 for k = 3, 4"
def a_k_limit() -> dict[str, Any]:
    """Section 3's 'when replacing k = 3 or k = 4 points, A^(k)(X) = 1' for X = (3, 6, 7, 7.5),
    [L, U] = [0, 10]: SymPy.  Upper bound: for non-negative data eq. (2) lies in [0, 1]
    ((n-1) sum x - sum (2i-n-1) x_(i) = sum 2(n-i) x_(i) >= 0), so every local sensitivity is
    <= 1.  Witness sequence: X' = (d, d, d, 7.5) keeps one record of X (distance 3) and its
    neighbour (d, d, d, d) has Gini 0; LS(X') >= g(X') -> 1 as d -> 0+ (never attained: d = 0
    makes the neighbour's mean 0).  Under eq. (1) the same sequence gives (n-1)/n = 3/4."""
    d = sp.Symbol("d", positive=True)
    xs = [d, d, d, sp.Rational(15, 2)]
    n = 4
    g2 = sum((2 * i - n - 1) * x for i, x in enumerate(xs, 1)) / (n * (sum(xs) / n) * (n - 1))
    g1 = sum(abs(a - b) for a in xs for b in xs) / (2 * n**2 * (sum(xs) / n))
    i = sp.Symbol("i", integer=True, positive=True)
    nn = sp.Symbol("n", integer=True, positive=True)
    slack = sp.simplify((nn - 1) - (2 * i - nn - 1) - 2 * (nn - i))
    # eq. (1) = (n-1)/n eq. (2) on sorted data (n = 4, gaps p, q, t >= 0): so LS <= 3/4 < 1
    a, p, q, t = sp.symbols("a p q t", positive=True)
    ys = [a, a + p, a + p + q, a + p + q + t]
    e1 = sum(sp.Abs(u - v) for u in ys for v in ys) / (2 * n**2 * (sum(ys) / n))
    e2 = sum((2 * k - n - 1) * y for k, y in enumerate(ys, 1)) / ((n - 1) * sum(ys))
    ratio = sp.simplify(e1 / e2)
    return {"eq2_limit": sp.limit(g2, d, 0, "+"), "eq1_limit": sp.limit(g1, d, 0, "+"),
            "eq1_over_eq2_sorted_n4": ratio,
            "eq2_upper_bound_identity": slack == 0,
            "eq2_at_d_1_over_100": g2.subs(d, sp.Rational(1, 100))}


@claim("text.sec3.a-k-equals-1", "Section 3: 'when replacing k = 3 or k = 4 points, A^(k)(X) "
       "= 1' (toy example; SymPy limit and bound)", "prove", reference="Section 3")
def a_k_equals_1(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    r = a_k_limit()
    holds2 = r["eq2_limit"] == 1 and r["eq2_upper_bound_identity"]
    holds1 = r["eq1_limit"] == 1 or r["eq1_over_eq2_sorted_n4"] != sp.Rational(3, 4)
    readings = {"(a) eq. (2), the paper's working Gini (A^(k) as a supremum)":
                "holds" if holds2 else "refuted",
                "(b) eq. (1)": "holds" if holds1 else "refuted"}
    failing = next((k for k, v in readings.items() if v == "refuted"), "")
    vals = set(readings.values())
    verdict = (Verdict.VERIFIED if vals == {"holds"} else
               Verdict.REFUTED if vals == {"refuted"} else SPLIT)
    return [paper_finding(
        id="text.sec3.a-k-equals-1",
        claim="Section 3: for X = (3, 6, 7, 7.5), [L, U] = [0, 10], 'when replacing k = 3 or "
              "k = 4 points, A^(k)(X) = 1'. Under eq. (2) the supremum of LS over the k-ball is "
              "1 (approached by (d, d, d, 7.5) as d -> 0+, not attained: the max in (7) is a "
              f"sup); under eq. (1) the same sequence gives {r['eq1_limit']}",
        reference=REF, reading=failing, method=Method.SYMBOLIC, verdict=verdict,
        scope="SymPy: limit of g(d, d, d, 7.5) - g(d, d, d, d) as d -> 0+; the identity "
              "(n-1) - (2i-n-1) = 2(n-i) >= 0 bounding eq. (2) by 1 for non-negative data; "
              "eq. (1) / eq. (2) = 3/4 on sorted symbolic data (n = 4), so under eq. (1) "
              "every LS <= 3/4",
        evidence={**{k: str(v) for k, v in r.items()}, "readings": readings},
        counterexample=counterexample_document(
            "text.sec3.a-k-equals-1", SUBJECT, {"d": "0+", "x": [0, 0, 0, 7.5]}, 1,
            str(r["eq1_limit"]), None, "eq. (1) supremum along the witness sequence")
        if failing else None,
        seed=seed, duration_s=time.perf_counter() - t0, subject=SUBJECT)]


@replayer("text.sec3.a-k-equals-1")
def replay_a_k(inputs: dict) -> tuple[bool, Any, Any, str]:
    inputs = from_jsonable(inputs)  # raw JSON or already decoded
    r = a_k_limit()
    return (r["eq1_limit"] != 1, 1, str(r["eq1_limit"]),
            f"eq. (1) limit {r['eq1_limit']}, eq. (2) limit {r['eq2_limit']}")
