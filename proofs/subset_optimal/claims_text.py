"""Claims of Dick, Kulesza, Sun & Suresh that were proof steps or lemmas without a claim:
Lemma 7 (stochastic dominance of the trimmed data sets, Appendix D.2) and the Theorem 1 proof
step "the bias from clipping the points to l' is at most the bias from deleting them"
(Appendix B.3).  Both exhaustive and exact (Fractions) over the finite scope each states.
"""

from __future__ import annotations

import itertools
import time
from fractions import Fraction as F
from typing import Any

from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.registry import replayer
from proofs.subset_optimal import NAME, claim
from proofs.text_findings import paper_finding

SUBJECT = f"paper:{NAME}"
REF = "Dick, Kulesza, Sun & Suresh (subset optimality)"


def cdf(d: list[F], v: F) -> F:
    """Empirical CDF of multiset ``d`` at ``v`` (Definition 6's left-hand side)."""
    return F(sum(1 for x in d if x <= v), len(d))


def dominates(a: list[F], b: list[F]) -> bool:
    """``a`` dominates ``b`` (Definition 6: CDF_a(v) <= CDF_b(v) for every real v); the CDFs
    are step functions, so checking v at every point of a and b is exact (integer
    cross-multiplication, no rounding)."""
    na, nb = len(a), len(b)
    return all(sum(1 for x in a if x <= v) * nb <= sum(1 for x in b if x <= v) * na
               for v in set(a) | set(b))


def lemma7_case(D: list[F], r: int, lo_cut: F, hi_cut: F, Dp: list[F],
                trim: int = 4) -> tuple[bool, bool]:
    """(D minus its ``trim`` r smallest dominates D', D' dominates D minus its ``trim`` r
    largest); Lemma 7 has ``trim`` = 4 (the cuts enter only through the choice of D')."""
    s = sorted(D)
    lo, hi = s[trim * r:], s[:len(s) - trim * r]
    return dominates(lo, Dp), dominates(Dp, hi)


def _neighbours(base: list[F], grid: list[F]) -> list[list[F]]:
    """``base`` and every multiset at add/remove distance 1 from it with points in ``grid``."""
    out = [list(base)]
    out += [base[:i] + base[i + 1:] for i in range(len(base))]
    out += [sorted(base + [g]) for g in grid]
    return [d for d in out if d]


@claim("text.subset.lemma7-dominance", "Lemma 7: D \\ L_4r(D) > D' > D \\ U_4r(D) for every D' "
       "in [l, u] within r/2 of D_[l,u] (exhaustive, exact)", "prove",
       reference="Lemma 7; Appendix D.2; Definition 6")
def lemma7(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    grid = [F(v) for v in range(5)]
    cuts = [F(2 * v + 1, 2) for v in range(-1, 5)] + grid
    r = 2  # 3r/2 = 3, 2r = 4, 4r = 8, r/2 = 1: one add or remove
    bad: list[dict[str, Any]] = []
    count = 0
    for n in range(4 * r + 1, 12):
        for D in itertools.combinations_with_replacement(grid, n):
            D = list(D)
            for lo_cut, hi_cut in itertools.product(cuts, cuts):
                if lo_cut > hi_cut:
                    continue
                below = sum(1 for x in D if x < lo_cut)
                above = sum(1 for x in D if x > hi_cut)
                if not (F(3 * r, 2) <= below <= 2 * r and F(3 * r, 2) <= above <= 2 * r):
                    continue
                mid = [x for x in D if lo_cut <= x <= hi_cut]
                inside = [g for g in grid if lo_cut <= g <= hi_cut]
                for Dp in _neighbours(mid, inside):
                    count += 1
                    a, b = lemma7_case(D, r, lo_cut, hi_cut, Dp)
                    if not (a and b) and len(bad) < 5:
                        bad.append({"D": D, "r": r, "l": lo_cut, "u": hi_cut, "Dp": Dp,
                                    "first": a, "second": b})
    cx = (counterexample_document("text.subset.lemma7-dominance", SUBJECT, bad[0], True, False,
                                  None, note="D \\ L_4r > D' > D \\ U_4r fails")
          if bad else None)
    return [paper_finding(
        id="text.subset.lemma7-dominance", reading="as printed (Definition 6's dominance)",
        claim="Lemma 7: if 3r/2 <= |D below l| <= 2r and 3r/2 <= |D above u| <= 2r, every D' "
              "with points in [l, u] and d(D_[l,u], D') <= r/2 satisfies D \\ L_4r(D) > D' > "
              "D \\ U_4r(D) (Definition 6)",
        reference=f"{REF}, Lemma 7, Appendix D.2", method=Method.EXHAUSTIVE,
        verdict=Verdict.VERIFIED if not bad and count else Verdict.REFUTED if bad
        else Verdict.INCONCLUSIVE,
        scope=f"r = 2; every multiset D on {{0..4}} of size 9..11; l, u in {{-1/2, 0, 1/2, .., "
              f"9/2}} meeting the hypotheses; every D' at add/remove distance <= 1 = r/2 from "
              f"D_[l,u] on the grid ({count} cases); exact CDFs at every step point",
        evidence={"cases": count, "violations": bad}, counterexample=cx, seed=seed,
        duration_s=time.perf_counter() - t0, subject=SUBJECT)]


@replayer("text.subset.lemma7-dominance")
def replay_lemma7(inputs: dict) -> tuple[bool, Any, Any, str]:
    D = [F(x) for x in inputs["D"]]
    Dp = [F(x) for x in inputs["Dp"]]
    a, b = lemma7_case(D, int(inputs["r"]), F(inputs["l"]), F(inputs["u"]), Dp)
    return (not (a and b), True, a and b, f"D \\ L_4r > D': {a}; D' > D \\ U_4r: {b}")


def mean(d: list[F]) -> F:
    return sum(d, F(0)) / len(d)


def clip_vs_delete(D: list[F], lp: F) -> tuple[F, F]:
    """(mu(clip(D, [l', inf))) - mu(D), mu(D \\ L_q) - mu(D)) with q = #{x < l'}."""
    s = sorted(D)
    q = sum(1 for x in s if x < lp)
    clipped = [max(x, lp) for x in s]
    return mean(clipped) - mean(s), mean(s[q:]) - mean(s)


@claim("text.subset.clip-vs-delete", "Appendix B.3: clipping the q points below l' to l' "
       "moves the mean by at most deleting them (exhaustive, exact)", "prove",
       reference="Appendix B.3 (proof of Theorem 1)")
def clip_delete(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    grid = [F(v) for v in (-3, -1, 0, 1, 2, 5)]
    cuts = [F(2 * v + 1, 2) for v in range(-4, 6)]
    bad, count = [], 0
    for n in range(1, 8):
        for D in itertools.combinations_with_replacement(grid, n):
            for lp in cuts:
                if all(x < lp for x in D):  # D \ L_q would be empty: the proof has q <= n/2
                    continue
                count += 1
                c, d = clip_vs_delete(list(D), lp)
                if not (F(0) <= c <= d) and len(bad) < 5:
                    bad.append({"D": list(D), "l_prime": lp, "clip_bias": c, "delete_bias": d})
    cx = (counterexample_document("text.subset.clip-vs-delete", SUBJECT,
                                  {"D": bad[0]["D"], "l_prime": bad[0]["l_prime"]}, True, False,
                                  None) if bad else None)
    return [paper_finding(
        id="text.subset.clip-vs-delete", reading="as printed",
        claim="Appendix B.3: with q = #{x in D : x < l'}, 0 <= mu(clip(D, [l', .])) - mu(D) <= "
              "mu(D \\ L_q) - mu(D) ('the bias from clipping the points to l' is at most the "
              "bias from deleting them')",
        reference=f"{REF}, Appendix B.3", method=Method.EXHAUSTIVE,
        verdict=Verdict.VERIFIED if not bad else Verdict.REFUTED,
        scope=f"every multiset on {{-3, -1, 0, 1, 2, 5}} of size 1..7, every l' in "
              f"{{-7/2, .., 11/2}} with at least one point >= l' ({count} cases), exact",
        evidence={"cases": count, "violations": bad}, counterexample=cx, seed=seed,
        duration_s=time.perf_counter() - t0, subject=SUBJECT)]


@replayer("text.subset.clip-vs-delete")
def replay_clip(inputs: dict) -> tuple[bool, Any, Any, str]:
    c, d = clip_vs_delete([F(x) for x in inputs["D"]], F(inputs["l_prime"]))
    return (not (F(0) <= c <= d), "0 <= clip <= delete", (str(c), str(d)),
            f"clip bias {c}, delete bias {d}")
