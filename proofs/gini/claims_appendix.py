"""Appendix sentences of Lan & Reiter (2025) that no claim tested (issue 42, found by the
sentence inventory): the monotonicity of the rank thresholds s_m (A.1.2) and q_m (A.1.3), the
sign of Delta g at s_m (A.1.2), the comparison of (n, q_n) with (m, q_m) (A.1.3), and the two
facts the proof of Proposition 5.1 starts from (A.4): scale invariance, and the Gini index of
unit-mean data written as sum |x_i - x_j| / n^2.

Every check is exhaustive and exact (Fractions) on every multiset of size 3..6 drawn from
{1, 2, 3, 5, 8}; s_m and q_m are :func:`s_t` / :func:`q_t`
(eqs. (15) / (49)) under two readings (m' = m allowed, as printed, or not), Delta g is
recomputed from eq. (2) (:func:`proofs.gini.subsets.delta_true`).
A verified finding carries a twin (:mod:`audit.falsifiability`): the same check on the reversed
or perturbed statement, refuted in the same scope.
"""

from __future__ import annotations

import functools
import itertools
import time
from collections.abc import Callable
from fractions import Fraction as Q
from typing import Any

from audit.falsifiability import decide, twin
from audit.findings import Finding, Method, Verdict, counterexample_document, from_jsonable
from audit.registry import replayer
from proofs.gini import NAME, claim, oracles
from proofs.gini.subsets import delta_true
from proofs.text_findings import SPLIT, paper_finding

SUBJECT = f"paper:{NAME}"
REF = "Lan & Reiter 2025, Appendix"
GRID = (1, 2, 3, 5, 8)
SCOPE = ("every multiset of size 3..6 on {{1, 2, 3, 5, 8}} ({count} data sets), exact "
         "Fractions; s_m by eq. (15) (s_m = n when no m' < n qualifies), q_m by eq. (49)")


def data_sets(max_n: int = 6) -> list[list[Q]]:
    """Sorted multisets of size 3..max_n on :data:`GRID`, as Fractions: those without ties
    first (a counterexample is then tie-free whenever one exists)."""
    sets = [[Q(v) for v in c] for n in range(3, max_n + 1)
            for c in itertools.combinations_with_replacement(GRID, n)]
    return sorted(sets, key=lambda x: len(set(x)) < len(x))


# ---------------------------------------------------------------- the per-data-set relations
#: the two readings of the thresholds: eqs. (15) / (49) let m' = m (then a = 0 and Delta g = 0);
#: "moved" requires the rank to move (m' > m for s_m, m' < m for q_m)
READINGS = {"printed": "(a) as printed: m' = m allowed in eqs. (15) / (49)",
            "moved": "(b) the rank moves: m' > m in s_m, m' < m in q_m"}


def _F(x: list[Q], m: int, mp: int, sign: int) -> Q:
    """sign = +1: eq. (15)'s (2m'/(n-1) - w - g0) n xbar + 2/(n-1) sum_{i=m}^{m'} (x_i - x_m);
    sign = -1: eq. (49)'s (g0 - 2m'/(n-1) + w) n xbar + 2/(n-1) sum_{i=m'}^{m} (x_i - x_m)."""
    n, S, g0 = len(x), sum(x), oracles.gini2(x)
    if g0 is None:
        raise ValueError(f"eq. (2) is undefined for {x} (mean 0)")
    coef = Q(2 * mp, n - 1) - Q(n + 1, n - 1) - g0
    lo, hi = (m, mp) if sign > 0 else (mp, m)
    return sign * coef * S + Q(2, n - 1) * sum(x[i - 1] - x[m - 1] for i in range(lo, hi + 1))


def s_t(x: list[Q], m: int, reading: str) -> int:
    """s_m: the smallest m' < n (m' > m under "moved") with eq. (15)'s expression >= 0, else n
    (the reading of :func:`proofs.gini.subsets.s_m`, which this equals under "printed")."""
    first = m + (reading == "moved")
    return next((mp for mp in range(first, len(x)) if _F(x, m, mp, 1) >= 0), len(x))


def q_t(x: list[Q], m: int, reading: str) -> int | None:
    """q_m: the largest m' <= m (m' < m under "moved") with eq. (49)'s expression <= 0."""
    last = m - (reading == "moved")
    return max((mp for mp in range(1, last + 1) if _F(x, m, mp, -1) <= 0), default=None)


def s_monotone_violation(x: list[Q], reading: str, reverse: bool = False) -> dict | None:
    """s_{m+1} >= s_m (``reverse``: the twin s_{m+1} <= s_m) violated at some m?"""
    for m in range(1, len(x)):
        a, b = s_t(x, m, reading), s_t(x, m + 1, reading)
        if (b < a) if not reverse else (b > a):
            return {"m": m, "s_m": a, "s_m+1": b}
    return None


def q_monotone_violation(x: list[Q], reading: str, reverse: bool = False) -> dict | None:
    """q_{m+1} >= q_m (``reverse``: q_{m+1} <= q_m) violated at some m (both defined)?"""
    for m in range(1, len(x)):
        a, b = q_t(x, m, reading), q_t(x, m + 1, reading)
        if a is not None and b is not None and ((b < a) if not reverse else (b > a)):
            return {"m": m, "q_m": a, "q_m+1": b}
    return None


def delta_at_q(x: list[Q], m: int, reading: str) -> Q | None:
    """Delta g(m, q_m, a = x_m - x_{q_m}) from eq. (2), or None when q_m is undefined."""
    qm = q_t(x, m, reading)
    return None if qm is None else delta_true(x, m, x[qm - 1])


def qn_violation(x: list[Q], reading: str, reverse: bool = False) -> dict | None:
    """Delta g(n, q_n) <= Delta g(m, q_m) for every m < n (``reverse``: >=) violated?"""
    n = len(x)
    dn = delta_at_q(x, n, reading)
    for m in range(1, n):
        dm = delta_at_q(x, m, reading)
        if dn is not None and dm is not None and ((dn > dm) if not reverse else (dn < dm)):
            return {"m": m, "delta_n": str(dn), "delta_m": str(dm)}
    return None


def s_negative_violation(x: list[Q], reading: str, reverse: bool = False) -> dict | None:
    """Delta g(m, s_m, x_{s_m} - x_m) < 0 for every m whose s_m eq. (15) defines (some m' < n
    qualifies; ``reverse``: the twin '> 0') violated?"""
    for m in range(1, len(x)):
        sm = s_t(x, m, reading)
        if sm >= len(x):
            continue
        d = delta_true(x, m, x[sm - 1])
        if (d >= 0) if not reverse else (d <= 0):
            return {"m": m, "s_m": sm, "delta": str(d)}
    return None


def _start() -> tuple[float, list[list[Q]]]:
    """A check's start time and its scope (:func:`data_sets`)."""
    return time.perf_counter(), data_sets()


def _decoded(inputs: dict) -> tuple[dict, list[Q]]:
    """A replayer's inputs (raw JSON or already decoded) and their sorted data set."""
    inputs = from_jsonable(inputs)
    return inputs, sorted(Q(v) for v in inputs["data"])


def _first(data: list[list[Q]], bad: Callable[[list[Q]], Any]) -> dict | None:
    """The first violation of ``bad`` (a dict or None per data set) over ``data``."""
    for x in data:
        v = bad(x)
        if v is not None:
            return {"data": [str(t) for t in x], **v}
    return None


#: public names for the proof-step modules (proofs/gini/claims_*_steps.py)
first_violation = _first
rank_bracket = _F


def _reading_finding(fid: str, sentence: str, check: Callable[..., dict | None],
                     data: list[list[Q]], seed: int, t0: float) -> Finding:
    """The check under each reading of the thresholds; a reading under which the statement
    holds carries the twin (the reversed relation), which must be refuted there."""
    bad = {r: _first(data, functools.partial(check, reading=r)) for r in READINGS}
    twins = {r: _first(data, functools.partial(check, reading=r, reverse=True))
             for r in READINGS}
    outcome = {READINGS[r]: "refuted" if bad[r] else "holds" for r in READINGS}
    # under a reading that holds, can the check fail there at all (its reversed relation)?
    live_twins = {READINGS[r]: "refuted" if twins[r] else
                  "not-refuted: the reversed relation holds too (both sides equal)"
                  for r in READINGS if bad[r] is None}
    held = [r for r in READINGS if bad[r] is None]
    live = [r for r in held if twins[r]]
    tw = twin("the reversed relation, under the reading(s) where the statement holds",
              "refuted" if live else "not-refuted", witness=twins[live[0]] if live else None)
    if not held:
        verdict = Verdict.REFUTED
    elif len(held) < len(READINGS):
        verdict = SPLIT  # refuted under one reading; the other's outcome is in the readings
    else:
        verdict = decide(True, tw, failed=Verdict.REFUTED,
                         vacuous_reason="under every reading the reversed relation holds too: "
                                        "both sides are equal (e.g. a = 0)")
    failing = next((r for r in READINGS if bad[r]), None)
    first = bad[failing] if failing else None
    return paper_finding(
        id=fid, claim=sentence, reference=REF, method=Method.EXHAUSTIVE,
        reading=READINGS[failing] if failing else "", verdict=verdict,
        scope=SCOPE.format(count=len(data)),
        evidence={"violations": {READINGS[r]: bad[r] for r in READINGS}, "readings": outcome,
                  "twin": tw, "twin_by_reading": live_twins},
        counterexample=counterexample_document(
            fid, SUBJECT, {"data": first["data"], "reading": failing}, True, False, None,
            note=str(first)) if first else None,
        seed=seed, duration_s=time.perf_counter() - t0, subject=SUBJECT)


_CHECKS: dict[str, tuple[str, Callable[..., dict | None]]] = {
    "text.a12.s-monotone": ("Appendix A.1.2: 'we have s_{m+1} >= s_m'", s_monotone_violation),
    "text.a13.q-monotone": ("Appendix A.1.3: 'Therefore, q_{m+1} >= q_m'",
                            q_monotone_violation),
    "text.a13.qn-smallest": ("Appendix A.1.3: 'We also have Delta g(n, q_n, a = x_n - x_{q_n}) "
                             "<= Delta g(m, q_m, a = x_m - x_{q_m}) for any m < n'",
                             qn_violation),
    "text.a12.delta-at-s-negative": ("Appendix A.1.2: 'When m = 1, Delta g(1, s_1, a = x_{s_1} "
                                     "- x_1) is negative. The definition of s_m also ensures "
                                     "Delta g(m, s_m, a) to be negative'",
                                     s_negative_violation),
}


#: the findings of :func:`thresholds` (each under both readings of s_m / q_m)
_THRESHOLDS = tuple(_CHECKS)


@claim("text.appendix.thresholds", "Appendix A.1.2 / A.1.3: s_{m+1} >= s_m, q_{m+1} >= q_m, "
       "Delta g(n, q_n) <= Delta g(m, q_m), Delta g(m, s_m) < 0 (exhaustive, exact; m' = m "
       "allowed or not)", "prove", reference="Appendix A.1.2, A.1.3")
def thresholds(budget_s: float, seed: int) -> list[Finding]:
    t0, data = _start()
    return [_reading_finding(fid, *_CHECKS[fid], data, seed, t0) for fid in _THRESHOLDS]


def _replay(fid: str) -> Callable[[dict], tuple[bool, Any, Any, str]]:
    def run(inputs: dict) -> tuple[bool, Any, Any, str]:
        inputs, x = _decoded(inputs)
        v = _CHECKS[fid][1](x, inputs.get("reading") or "printed")
        return v is not None, "no violation", v, f"{fid}: {v}"
    return run


for _fid in _CHECKS:
    replayer(_fid)(_replay(_fid))


# ------------------------------------------------------------------ Appendix A.4 (Prop. 5.1)
def iq(x: list[Q], L: Q, U: Q) -> Q:
    """IQ(X) = (U - L) / xbar."""
    return (U - L) / (Q(sum(x)) / len(x))


def unit_mean_gini(x: list[Q], pairs: str, denominator: Q | None = None) -> Q:
    """A.4's 'with xbar = 1, g(X) = sum_{i,j} |x_i - x_j| / n^2' on x scaled to mean 1:
    ``pairs`` "ordered" (every (i, j)) or "unordered" (i < j); ``denominator`` replaces n^2
    (the twin)."""
    n = len(x)
    y = [v * n / Q(sum(x)) for v in x]
    total = Q(sum(abs(a - b) for i, a in enumerate(y) for j, b in enumerate(y)
                  if pairs == "ordered" or i < j))
    return total / (denominator if denominator is not None else n * n)


def eq1(x: list[Q]) -> Q:
    """Eq. (1): sum_i sum_j |x_i - x_j| / (2 n^2 xbar)."""
    n = len(x)
    return Q(sum(abs(a - b) for a in x for b in x)) / (2 * n * n * (Q(sum(x)) / n))


@claim("text.a4.prop51-facts", "Appendix A.4: IQ(X) and g(X) are scale invariant; with xbar = "
       "1, g(X) = sum_{i,j} |x_i - x_j| / n^2 (exhaustive, exact; both readings of the sum)",
       "prove", reference="Appendix A.4")
def prop51_facts(budget_s: float, seed: int) -> list[Finding]:
    t0, data = _start()
    L, U = Q(0), Q(10)
    scales = (Q(2), Q(1, 3), Q(5, 2))
    bad_scale = twin_scale = None
    for x in data:
        for c in scales:
            y = [c * v for v in x]
            if bad_scale is None and (iq(y, c * L, c * U) != iq(x, L, U)
                                      or oracles.gini2(y) != oracles.gini2(x)):
                bad_scale = {"data": [str(v) for v in x], "c": str(c)}
            if twin_scale is None and iq(y, c * L, c * U) != c * iq(x, L, U):
                twin_scale = {"data": [str(v) for v in x], "c": str(c)}
    tw = twin("IQ(cX) = c IQ(X) (the normalised range read as scaling with the data)",
              "refuted" if twin_scale else "not-refuted", witness=twin_scale)
    out = [paper_finding(
        id="text.a4.scale-invariance",
        claim="Appendix A.4: 'IQ(X) = (U - L)/xbar and g(X) are both scale invariant ... IQ(Y) "
              "= IQ(X) and g(Y) = g(X)' for Y = cX, (L_y, U_y) = (cL, cU)",
        reference=REF, method=Method.EXHAUSTIVE, reading="",
        verdict=decide(bad_scale is None, tw, failed=Verdict.REFUTED,
                       vacuous_reason="IQ(cX) = c IQ(X) also held: no scale in the scope"),
        scope=SCOPE.format(count=len(data)) + "; c in {2, 1/3, 5/2}, [L, U] = [0, 10], "
                                              "g by eq. (2)",
        evidence={"violation": bad_scale, "twin": tw},
        seed=seed, duration_s=time.perf_counter() - t0, subject=SUBJECT)]
    bad: dict[str, dict | None] = {"ordered": None, "unordered": None}
    twin_bad = None
    for x in data:
        truth = eq1(x)
        for pairs in bad:
            got = unit_mean_gini(x, pairs)
            if got != truth and bad[pairs] is None:
                bad[pairs] = {"data": [str(v) for v in x], "printed": str(got),
                              "eq1": str(truth), "pairs": pairs}
        n = len(x)
        if twin_bad is None and unit_mean_gini(x, "unordered", Q(n * n) + 1) != truth:
            twin_bad = {"data": [str(v) for v in x]}
    names = {"ordered": "(a) the sum over every ordered pair (i, j), as eq. (1) writes it",
             "unordered": "(b) the sum over unordered pairs i < j"}
    readings = {names[p]: "refuted" if bad[p] else "holds" for p in bad}
    held = [p for p in bad if bad[p] is None]
    first = bad["ordered"] or bad["unordered"]
    tw2 = twin("the denominator n^2 nudged to n^2 + 1 (reading (b))",
               "refuted" if twin_bad else "not-refuted", witness=twin_bad)
    verdict = (Verdict.REFUTED if not held else SPLIT if len(held) < len(bad) else
               Verdict.VERIFIED)
    out.append(paper_finding(
        id="text.a4.unit-mean-gini",
        claim="Appendix A.4: 'With xbar = 1, g(X) = sum_{i,j} |x_i - x_j| / n^2', against eq. "
              "(1) (sum over all i, j divided by 2 n^2 xbar): a factor 2 apart when the sum runs "
              "over every ordered pair",
        reference=REF, method=Method.EXHAUSTIVE,
        reading=names["ordered"] if bad["ordered"] else "", verdict=verdict,
        scope=SCOPE.format(count=len(data)) + "; each data set scaled to mean 1",
        evidence={"violations": bad, "readings": readings, "twin": tw2},
        counterexample=counterexample_document(
            "text.a4.unit-mean-gini", SUBJECT, {"data": first["data"], "pairs": first["pairs"]},
            first["eq1"], first["printed"], None, note="printed sum / n^2 vs eq. (1)")
        if first else None,
        seed=seed, duration_s=time.perf_counter() - t0, subject=SUBJECT))
    return out


@replayer("text.a4.unit-mean-gini")
def replay_unit_mean(inputs: dict) -> tuple[bool, Any, Any, str]:
    inputs, x = _decoded(inputs)
    got, truth = unit_mean_gini(x, inputs.get("pairs", "ordered")), eq1(x)
    return got != truth, str(truth), str(got), f"printed {got}, eq. (1) {truth}"


# ------------------------------------------------ Appendix A.2: Theorem 4.2 as restated there
THM42_READINGS = {
    "block": "(a) the n - k removed elements form one consecutive block (Q = prefix + suffix)",
    "end": "(b) removed consecutively so that Q is k consecutive elements: Q is the first or "
           "the last k elements",
}


def _subset_min(x: list[Q], k: int, kept: list[tuple[int, ...]]) -> Q:
    vals = [oracles.gini2([x[i] for i in idx]) for idx in kept]
    return min(v for v in vals if v is not None)


def thm42_restated_violation(x: list[Q], k: int, reading: str) -> dict | None:
    """The smallest eq.-(2) Gini over the k-subsets the restated theorem allows vs over every
    k-subset (brute force), or None when they agree."""
    n = len(x)
    if reading == "block":
        kept = [tuple(i for i in range(n) if not s <= i < s + n - k) for s in range(k + 1)]
    else:
        kept = [tuple(range(k)), tuple(range(n - k, n))]
    allowed = _subset_min(x, k, kept)
    truth = _subset_min(x, k, list(itertools.combinations(range(n), k)))
    return None if allowed == truth else {"k": k, "restated_min": str(allowed),
                                          "true_min": str(truth)}


@claim("text.a2.thm42-restated", "Appendix A.2's restatement of Theorem 4.2 ('removing a total of "
       "n - k consecutive elements'), which adds a word to the main text's statement "
       "(exhaustive, exact; two readings)", "search", reference="Appendix A.2")
def thm42_restated(budget_s: float, seed: int) -> list[Finding]:
    t0, data = _start()
    bad: dict[str, dict | None] = {r: None for r in THM42_READINGS}
    cases = 0
    for x in data:
        for k in range(2, len(x)):
            cases += 1
            for r in bad:
                if bad[r] is None:
                    v = thm42_restated_violation(x, k, r)
                    if v is not None:
                        bad[r] = {"data": [str(t) for t in x], "reading": r, **v}
    readings = {THM42_READINGS[r]: "refuted" if bad[r] else "holds" for r in bad}
    held = [r for r in bad if bad[r] is None]
    first = next((bad[r] for r in bad if bad[r]), None)
    verdict = (Verdict.REFUTED if not held else SPLIT if len(held) < len(bad) else
               Verdict.VERIFIED)
    return [paper_finding(
        id="text.a2.thm42-restated",
        claim="Appendix A.2 restates Theorem 4.2 as 'the k-minimal Gini subset can be achieved "
              "by removing a total of n - k consecutive elements from X so that Q comprises k "
              "consecutive elements' (Section 4.2: 'removing a total of n - k elements'); "
              "found by reconciling the two printings (audit.inventory_reconcile)",
        reference=REF, method=Method.EXHAUSTIVE,
        reading=THM42_READINGS[first["reading"]] if first else "", verdict=verdict,
        scope=SCOPE.format(count=len(data)) + f"; every 2 <= k < n ({cases} (data, k) cases); "
              "the true minimum over every k-subset, eq. (2)",
        evidence={"violations": {THM42_READINGS[r]: bad[r] for r in bad}, "readings": readings},
        counterexample=counterexample_document(
            "text.a2.thm42-restated", SUBJECT, {"data": first["data"], "k": first["k"],
                                                "reading": first["reading"]},
            first["true_min"], first["restated_min"], None) if first else None,
        seed=seed, duration_s=time.perf_counter() - t0, subject=SUBJECT)]


@replayer("text.a2.thm42-restated")
def replay_thm42(inputs: dict) -> tuple[bool, Any, Any, str]:
    inputs, x = _decoded(inputs)
    v = thm42_restated_violation(x, int(inputs["k"]), inputs.get("reading", "block"))
    return v is not None, v and v["true_min"], v and v["restated_min"], f"{v}"


# ------------------------------------------- proof steps of A.1.2 / A.1.3 and of Theorems 4.1-4.2
def f_step_violation(x: list[Q], reading: str = "", reverse: bool = False) -> dict | None:
    """A.1.2: F(m+1, m') <= F(m, m') for m' >= m + 1 (eq. (15)'s expression); A.1.3:
    F(m+1, m') - F(m, m') = 2/(n-1) (m - m' + 1)(x_m - x_{m+1}) <= 0 for m' <= m (eq. (49)'s).
    ``reverse``: the twin 'F(m+1, m') >= F(m, m')' (A.1.2's direction reversed)."""
    n = len(x)
    for m in range(1, n):
        for mp in range(m + 1, n + 1):
            d = _F(x, m + 1, mp, 1) - _F(x, m, mp, 1)
            if (d > 0) if not reverse else (d < 0):
                return {"where": "A.1.2", "m": m, "m'": mp, "difference": str(d)}
        if reverse:
            continue
        for mp in range(1, m + 1):
            d = _F(x, m + 1, mp, -1) - _F(x, m, mp, -1)
            printed = Q(2, n - 1) * (m - mp + 1) * (x[m - 1] - x[m])
            if d != printed or d > 0:
                return {"where": "A.1.3", "m": m, "m'": mp, "difference": str(d),
                        "printed": str(printed)}
    return None


def subset_step_violation(x: list[Q], reading: str = "", reverse: bool = False) -> dict | None:
    """A.2: a 2-maximal and a 3-maximal Gini subset contain x_1 and x_n; a 2-minimal one is two
    consecutive elements (some optimal subset of each kind does, eq. (2)).  ``reverse``: the
    twin 'every 2-subset containing x_1 and x_n is 2-minimal'."""
    n = len(x)

    def best(k: int, sense: int) -> tuple[Q, list[tuple[int, ...]]]:
        subs = list(itertools.combinations(range(n), k))
        vals = {s: oracles.gini2([x[i] for i in s]) for s in subs}
        top = max(sense * v for v in vals.values() if v is not None)
        return top, [s for s, v in vals.items() if v is not None and sense * v == top]

    if reverse:
        top, mins = best(2, -1)
        return None if (0, n - 1) in mins else {"two-minimal": mins[:2]}
    for k in (2, 3):
        if k < n:
            _, args = best(k, 1)
            if not any(x[s[0]] == x[0] and x[s[-1]] == x[-1] for s in args):
                return {"k": k, "k-maximal": args[:2]}
    _, args = best(2, -1)
    if not any(s[1] == s[0] + 1 for s in args):
        return {"k": 2, "k-minimal": args[:2]}
    return None


_CHECKS.update({
    "text.a1.f-step": ("Appendix A.1.2: 'F(m+1, m') <= F(m, m')' (and A.1.3: 'F(m+1, m') - "
                       "F(m, m') = 2/(n-1)(m - m' + 1)(x_m - x_{m+1}) <= 0')", f_step_violation),
    "text.a2.small-k-subsets": ("Appendix A.2: 'the 2-maximal subset Q includes x_1 and x_n'; "
                                "'the 3-maximal subset Q includes x_1 and x_n'; 'the 2-minimal "
                                "subset Q must include two consecutive elements'",
                                subset_step_violation),
})
for _fid in ("text.a1.f-step", "text.a2.small-k-subsets"):
    replayer(_fid)(_replay(_fid))


@claim("text.appendix.proof-steps", "Appendix A.1.2 / A.1.3 step F(m+1, m') <= F(m, m'), and "
       "A.2's small-k facts (2-/3-maximal contain x_1, x_n; 2-minimal consecutive) (exhaustive, "
       "exact)", "prove", reference="Appendix A.1.2, A.1.3, A.2")
def proof_steps(budget_s: float, seed: int) -> list[Finding]:
    t0, data = _start()
    out = []
    for fid in ("text.a1.f-step", "text.a2.small-k-subsets"):
        sentence, check = _CHECKS[fid]
        bad = _first(data, check)
        twin_bad = _first(data, functools.partial(check, reverse=True))
        tw = twin("A.1.2's inequality reversed" if fid == "text.a1.f-step" else
                  "'every 2-subset containing x_1 and x_n is 2-minimal'",
                  "refuted" if twin_bad else "not-refuted", witness=twin_bad)
        out.append(paper_finding(
            id=fid, claim=sentence, reference=REF, method=Method.EXHAUSTIVE,
            reading="as printed" if bad else "",
            verdict=decide(bad is None, tw, failed=Verdict.REFUTED,
                           vacuous_reason="the twin also holds everywhere in the scope"),
            scope=SCOPE.format(count=len(data)),
            evidence={"violation": bad, "twin": tw},
            counterexample=counterexample_document(fid, SUBJECT, {"data": bad["data"]}, True,
                                                   False, None, note=str(bad)) if bad else None,
            seed=seed, duration_s=time.perf_counter() - t0, subject=SUBJECT))
    return out


# ---------------------------------------------- Section 4.3: the mean and IQ after k changes
def mean_extremes(x: list[Q], k: int, L: Q, U: Q) -> tuple[Q, Q]:
    """(min, max) of the mean over every data set at distance k (k records replaced by values
    in [L, U]): exact, since the mean is linear in the replaced values (extremes at L / U)."""
    n = len(x)
    means = [Q(sum(x) - sum(x[i] for i in R) + sum(vals)) / n
             for R in itertools.combinations(range(n), k)
             for vals in itertools.product((L, U), repeat=k)]
    return min(means), max(means)


def iq_bounds_violation(x: list[Q], k: int, L: Q, U: Q, nudge: Q = Q(0)) -> dict | None:
    """Section 4.3: 'min xbar_(k) = (sum_{i<=n-k} x_i + kL)/n >= xbar - k(U-L)/n', 'max xbar_(k)
    = (sum_{i>k} x_i + kU)/n <= xbar + k(U-L)/n' and (26): 1/(1/IQ(X) + k/n) <= IQ(X_(kt)) <=
    min((U-L)/L, 1/(1/IQ(X) - k/n)) (the last term when 1/IQ(X) > k/n).  ``nudge`` > 0 (the
    twin) raises the lower bound of (26) by the factor (1 + nudge)."""
    n, xbar = len(x), Q(sum(x)) / len(x)
    lo, hi = mean_extremes(x, k, L, U)
    printed_lo = (sum(x[: n - k]) + k * L) / n
    printed_hi = (sum(x[k:]) + k * U) / n
    iq = (U - L) / xbar
    iq_lo, iq_hi = (U - L) / hi, (U - L) / lo  # IQ(X_(kt)) = (U - L) / its mean
    bound_lo = 1 / (1 / iq + Q(k, n)) * (1 + nudge)
    cap = (U - L) / L
    bound_hi = min(cap, 1 / (1 / iq - Q(k, n))) if 1 / iq > Q(k, n) else cap
    checks = {"min mean": lo == printed_lo, "min mean bound": printed_lo >= xbar - k * (U - L) / n,
              "max mean": hi == printed_hi, "max mean bound": printed_hi <= xbar + k * (U - L) / n,
              "(26) lower": iq_lo >= bound_lo, "(26) upper": iq_hi <= bound_hi}
    failed = [name for name, ok in checks.items() if not ok]
    if nudge:
        failed = [f for f in failed if f == "(26) lower"]
    return None if not failed else {"k": k, "failed": failed, "iq_range": [str(iq_lo), str(iq_hi)],
                                    "bounds": [str(bound_lo), str(bound_hi)]}


@claim("text.sec43.mean-iq-bounds", "Section 4.3 (proof of Theorem 4.4): the smallest / largest "
       "mean after k changes and the bounds (26) on IQ(X_(kt)) (exhaustive, exact)", "prove",
       reference="Section 4.3")
def mean_iq_bounds(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    L, U = Q(1), Q(8)  # (U - L)/L is finite only for L > 0; the grid holds both ends
    data = data_sets(5)
    bad = twin_bad = None
    cases = 0
    for x in data:
        for k in range(1, len(x)):
            cases += 1
            if bad is None and (v := iq_bounds_violation(x, k, L, U)) is not None:
                bad = {"data": [str(t) for t in x], **v}
            if twin_bad is None and (v := iq_bounds_violation(x, k, L, U,
                                                              Q(1, 2 ** 20))) is not None:
                twin_bad = {"data": [str(t) for t in x], **v}
    tw = twin("(26)'s lower bound raised by the factor 1 + 2^-20", "refuted" if twin_bad
              else "not-refuted", witness=twin_bad)
    return [paper_finding(
        id="text.sec43.mean-iq-bounds",
        claim="Section 4.3: 'min xbar_(k) = (sum_{i=1}^{n-k} x_i + kL)/n >= xbar - k(U-L)/n and "
              "max xbar_(k) = (sum_{i=k+1}^n x_i + kU)/n <= xbar + k(U-L)/n' and eq. (26): "
              "1/(1/IQ(X) + k/n) <= IQ(X_(kt)) <= min((U-L)/L, 1/(1/IQ(X) - k/n))",
        reference="Lan & Reiter 2025, Section 4.3", method=Method.EXHAUSTIVE,
        reading="as printed" if bad else "",
        verdict=decide(bad is None, tw, failed=Verdict.REFUTED,
                       vacuous_reason="the lower bound of (26) is never attained in the scope"),
        scope=f"every multiset of size 3..5 on {{1, 2, 3, 5, 8}}, [L, U] = [1, 8], every "
              f"1 <= k < n ({cases} (data, k) cases); every set of k replaced records with "
              "values at L or U (the mean is linear in them, so its extremes are exact)",
        evidence={"violation": bad, "twin": tw},
        counterexample=counterexample_document("text.sec43.mean-iq-bounds", SUBJECT,
                                               {"data": bad["data"], "k": bad["k"]}, True,
                                               False, None) if bad else None,
        seed=seed, duration_s=time.perf_counter() - t0, subject=SUBJECT)]


@replayer("text.sec43.mean-iq-bounds")
def replay_mean_iq(inputs: dict) -> tuple[bool, Any, Any, str]:
    inputs, x = _decoded(inputs)
    v = iq_bounds_violation(x, int(inputs["k"]), Q(1), Q(8))
    return v is not None, "bounds hold", v, f"{v}"
