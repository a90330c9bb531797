"""The proof steps of Appendix D of Dick, Kulesza, Sun & Suresh (D.2: the proof of Lemma 7 and of
Theorem 3, Algorithm 4; D.1: the group-privacy display of Lemma 3's proof), each tested itself
-- not through the theorem it proves.

Every step is a statement about a finite data set, thresholds l <= u and Algorithm 4's
quantised and shifted data, so it is checked exhaustively and exactly (Fractions) on small
grids, with beta = 1 (the quantisation grid is the integers; L = 1 for the mean and the lower
median with l(a, b) = |a - b|), and with the paper's notation: L_k / U_k the k smallest /
largest points, D_[l,u] = D cap [l, u], CDF_D(v) = #{x in D : x <= v} / |D| (Definition 6),
ranks(tau, D) = {#{x < tau}, .., #{x <= tau}} (Lemma 5), and D'_quant Algorithm 4 line 5's data
(the points of rank i <= 3r/2 moved down by beta, those of rank i >= n - 3r/2 up by beta).

A step that holds carries a twin (:mod:`audit.falsifiability`): the same step with a constant
tightened past what the scope attains, refuted in the same scope
(:func:`proofs.subset_optimal.claims_proofsteps.family_findings`).  A step that fails as
printed is reported with the reading under which it fails, the one under which it holds, and
a replayable counterexample.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterator
from fractions import Fraction as F
from typing import Any

from audit.findings import Finding, Method, Verdict, counterexample_document, from_jsonable
from audit.registry import replayer
from proofs.subset_optimal import NAME, claim
from proofs.subset_optimal.claims_proofsteps import (
    Family,
    Printed,
    Step,
    family_findings,
    memo,
    mu,
    printed_findings,
    register_replayers,
)
from proofs.subset_optimal.reference import ranks_exact
from proofs.text_findings import SPLIT, paper_finding

SUBJECT = f"paper:{NAME}"
REF = "Dick, Kulesza, Sun & Suresh (subset optimality), Appendix D.2"


def cnt(d: list[F], v: F) -> int:
    """#{x in d : x <= v}."""
    return sum(1 for x in d if x <= v)


def lower_median(d: list[F]) -> F:
    return sorted(d)[(len(d) - 1) // 2]


#: the monotone properties the steps are checked for (Definition 7; both 1-Lipschitz)
THETAS: tuple[tuple[str, Callable[[list[F]], F]], ...] = (("mean", mu),
                                                          ("lower median", lower_median))


# ----------------------------------------------------------------- Lemma 7's proof (case 3)
def lemma7_cases() -> Iterator[dict]:
    """r = 2 (r/2 = 1, 3r/2 = 3, 2r = 4, 4r = 8); every multiset D of size 13 on {0..3} (the
    smallest size at which D \\ L_4r reaches below u, so that the third case has values v);
    l <= u in {-1/2, 0, 1/2, .., 7/2} with 3r/2 <= #{x < l} <= 2r and 3r/2 <= #{x > u} <= 2r
    (the lemma's hypotheses); every D' with points in [l, u] at add/remove distance <= r/2 = 1
    from D_[l,u]."""
    grid = [F(v) for v in range(4)]
    cuts = [F(v, 2) for v in range(-1, 8)]
    r = 2
    for n in (13,):
        for combo in itertools.combinations_with_replacement(grid, n):
            D = list(combo)
            for lo, hi in itertools.combinations_with_replacement(cuts, 2):
                below = sum(1 for x in D if x < lo)
                above = sum(1 for x in D if x > hi)
                if not (3 <= below <= 2 * r and 3 <= above <= 2 * r):
                    continue
                mid = [x for x in D if lo <= x <= hi]
                neighbours = [mid] + [mid[:i] + mid[i + 1:] for i in range(len(mid))
                                      if i == 0 or mid[i] != mid[i - 1]]
                neighbours += [sorted(mid + [g]) for g in grid if lo <= g <= hi]
                for Dp in neighbours:
                    if Dp:
                        yield {"D": D, "r": F(r), "l": lo, "u": hi, "Dp": Dp}


_VS = [F(v, 2) for v in range(-2, 9)]  # every step point of the CDFs and between them


def _trim(c: dict) -> list[F]:
    """D \\ L_4r(D)."""
    return memo(c, "_trim", lambda: sorted(c["D"])[int(4 * c["r"]):])


def _third(c: dict) -> list[F]:
    """The v of Lemma 7's third case: min(D \\ L_4r) <= v < u."""
    return memo(c, "_third", lambda: [v for v in _VS if min(_trim(c)) <= v < c["u"]])


def _lu(c: dict) -> list[F]:
    return memo(c, "_lu", lambda: [x for x in c["D"] if c["l"] <= x <= c["u"]])


def _cdf(d: list[F], v: F) -> F:
    return F(cnt(d, v), len(d))


def _s1(c: dict, slack: F | None = None) -> bool:
    """CDF_D'(v) >= (#{D_[l,u] <= v} - r/2) / (|D_[l,u]| + r/2) (``slack`` replaces r/2)."""
    h = c["r"] / 2 if slack is None else slack
    lu = _lu(c)
    return all(_cdf(c["Dp"], v) >= (cnt(lu, v) - h) / (len(lu) + h) for v in _third(c))


def _s2(c: dict) -> bool:
    """|D_[l,u]| + r/2 <= |D| - 5r/2 <= |D \\ L_4r| + 3r/2, hence the second line of the
    display (same numerator, larger denominator)."""
    r, lu, n = c["r"], _lu(c), len(c["D"])
    big = len(_trim(c)) + 3 * r / 2
    return (len(lu) + r / 2 <= n - 5 * r / 2 <= big and all(
        (cnt(lu, v) - r / 2) / (len(lu) + r / 2) >= (cnt(lu, v) - r / 2) / big
        for v in _third(c)))


def _s3(c: dict, drop: F | None = None) -> bool:
    """#{D_[l,u] <= v} - r/2 >= #{D <= v} - 2r - r/2 and #{D <= v} - 5r/2 = #{D \\ L_4r <= v}
    + 4r - 5r/2 (``drop`` replaces the 2r)."""
    r = c["r"]
    dr = 2 * r if drop is None else drop
    return all(cnt(_lu(c), v) - r / 2 >= cnt(c["D"], v) - dr - r / 2
               and cnt(c["D"], v) - 5 * r / 2 == cnt(_trim(c), v) + 4 * r - 5 * r / 2
               for v in _third(c))


def _s4(c: dict, grow: bool = True) -> bool:
    """CDF_D'(v) >= (#{D \\ L_4r <= v} + 3r/2) / (|D \\ L_4r| + 3r/2) >= CDF_{D \\ L_4r}(v)
    (``grow`` False: the twin, the denominator left at |D \\ L_4r|)."""
    t, h = _trim(c), 3 * c["r"] / 2
    return all(_cdf(c["Dp"], v) >= (cnt(t, v) + h) / (len(t) + (h if grow else 0))
               >= _cdf(t, v) for v in _third(c))


LEMMA7_STEPS: tuple[Step, ...] = (
    ("case v < min(D \\ L_4r): CDF_{D \\ L_4r}(v) = 0 <= CDF_D'(v)",
     lambda c: all(cnt(_trim(c), v) == 0 for v in _VS if v < min(_trim(c))),
     lambda c: all(cnt(c["Dp"], v) > 0 for v in _VS if v < min(_trim(c)))),
    ("case v >= u: CDF_{D \\ L_4r}(v) <= 1 = CDF_D'(v) ('all points of D' lie below u')",
     lambda c: all(_cdf(c["Dp"], v) == 1 for v in _VS if v >= c["u"]),
     lambda c: all(_cdf(_trim(c), v) < 1 for v in _VS if v >= c["u"])),
    ("case min(D \\ L_4r) <= v < u: since d(D_[l,u], D') <= r/2, CDF_D'(v) >= (sum_{x in "
     "D_[l,u]} 1{x <= v} - r/2) / (|D_[l,u]| + r/2)", _s1, lambda c: _s1(c, F(0))),
    ("|D_[l,u]| + r/2 <= |D| - 5r/2 <= |D \\ L_4r| + 3r/2 ('the assumptions in the lemma "
     "imply'), so (sum_{D_[l,u]} 1{x <= v} - r/2)/(|D_[l,u]| + r/2) >= (sum_{D_[l,u]} 1{x <= v}"
     " - r/2)/(|D \\ L_4r| + 3r/2)", _s2,
     lambda c: len(_lu(c)) + c["r"] / 2 <= len(c["D"]) - 3 * c["r"]),
    ("for v in [min(D \\ L_4r), u): sum_{D_[l,u]} 1{x <= v} - r/2 >= sum_D 1{x <= v} - 2r - r/2 "
     "= sum_D 1{x <= v} - 5r/2 = sum_{D \\ L_4r} 1{x <= v} + 4r - 5r/2", _s3,
     lambda c: _s3(c, 3 * c["r"] / 2)),
    ("hence CDF_D'(v) >= (sum_{D \\ L_4r} 1{x <= v} + 3r/2)/(|D \\ L_4r| + 3r/2) >= "
     "CDF_{D \\ L_4r}(v)", _s4, lambda c: _s4(c, grow=False)),
)


# ------------------------------------------------- Theorem 3's proof: the counts after line 5
def shifted(D: list[F], r: F, beta: F = F(1)) -> list[F]:
    """Algorithm 4 line 5 on the quantised data D: y_i = x_i - beta for i <= 3r/2, x_i + beta
    for i >= n - 3r/2, else x_i (ranks 1..n; the two index sets are disjoint in the scopes
    below, n >= 3r + 2)."""
    s = sorted(D)
    n = len(s)
    out = [x - beta if i <= 3 * r / 2 else x + beta if i >= n - 3 * r / 2 else x
           for i, x in enumerate(s, start=1)]
    return sorted(out)


def count_cases() -> Iterator[dict]:
    """r in {2, 3}; every multiset Dq of size 3r + 2 .. 3r + 3 on {0, 1, 2, 3} (the quantised
    data, beta = 1); every integer l <= u in -1..4 with ranks(l, Dq) meeting [3r/2, 2r] and
    ranks(u, Dq) meeting [n - 2r, n - 3r/2] (line 3's and 4's thresholds on the event E)."""
    grid = [F(v) for v in range(4)]
    cuts = [F(v) for v in range(-1, 5)]
    for r in (2, 3):
        for n in (3 * r + 2, 3 * r + 3):
            for combo in itertools.combinations_with_replacement(grid, n):
                D = list(combo)
                for lo, hi in itertools.combinations_with_replacement(cuts, 2):
                    if (any(F(3 * r, 2) <= k <= 2 * r for k in ranks_exact(lo, D))
                            and any(n - 2 * r <= k <= n - F(3 * r, 2)
                                    for k in ranks_exact(hi, D))):
                        yield {"D": D, "r": F(r), "l": lo, "u": hi}


def _below(c: dict) -> int:
    return sum(1 for y in shifted(c["D"], c["r"]) if y < c["l"])


def _above(c: dict) -> int:
    return sum(1 for y in shifted(c["D"], c["r"]) if y > c["u"])


COUNT_STEPS: tuple[Step, ...] = (
    ("R(l, D_quant) cap [3r/2, 2r] != {} implies |D_quant cap (-inf, l)| <= 2r",
     lambda c: sum(1 for x in c["D"] if x < c["l"]) <= 2 * c["r"],
     lambda c: sum(1 for x in c["D"] if x < c["l"]) <= 2 * c["r"] - 1),
    ("similarly 3r/2 <= |D'_quant cap (u, inf)| <= 2r",
     lambda c: 3 * c["r"] / 2 <= _above(c) <= 2 * c["r"],
     lambda c: _above(c) <= 2 * c["r"] - 1),
)


def _below_printed(c: dict) -> bool:
    """dbd7c4fe as printed: 3r/2 <= |D'_quant cap (-inf, l)| <= 2r."""
    return 3 * c["r"] / 2 <= _below(c) <= 2 * c["r"]


# ------------------------------------------ Theorem 3's proof: quantisation, pruning, monotone
def thm3_cases() -> Iterator[dict]:
    """r = 2, beta = 1: every multiset D of size 9 on {0, 1/3, 5/3, 3} (points on and off
    the quantisation grid), D_quant its points rounded to the nearest integer, every integer
    l <= u in -1..5 meeting the conditions of :func:`count_cases` for D_quant."""
    vals = [F(0), F(1, 3), F(5, 3), F(3)]
    cuts = [F(v) for v in range(-1, 6)]
    r, n = 2, 9
    for combo in itertools.combinations_with_replacement(vals, n):
        D = list(combo)
        q = quantise(D)
        for lo, hi in itertools.combinations_with_replacement(cuts, 2):
            if (any(3 <= k <= 2 * r for k in ranks_exact(lo, q))
                    and any(n - 2 * r <= k <= n - 3 for k in ranks_exact(hi, q))):
                yield {"D": D, "r": F(r), "l": lo, "u": hi}


def quantise(D: list[F], beta: F = F(1)) -> list[F]:
    """Algorithm 4 line 1: each value to the nearest multiple of beta (no ties in scope)."""
    return sorted(beta * round(x / beta) for x in D)


def _parts(c: dict) -> tuple[list[F], list[F], list[F], list[F]]:
    """(D sorted, D_quant, D'_quant, D_[l,u] = D'_quant cap [l, u])."""
    def make() -> tuple[list[F], list[F], list[F], list[F]]:
        q = quantise(c["D"])
        dq = shifted(q, c["r"])
        return sorted(c["D"]), q, dq, [y for y in dq if c["l"] <= y <= c["u"]]
    return memo(c, "_parts", make)


_OUTS = [F(v) for v in range(-2, 7, 2)]  # outputs a of the mechanism, for the triangle steps


def _thetas(c: dict) -> list[tuple[F, ...]]:
    """Per property: theta of (D, D_quant, D'_quant, D_[l,u])."""
    return memo(c, "_thetas", lambda: [tuple(th(d) for d in _parts(c)) for _, th in THETAS])


def _quant_step(c: dict, bound: F = F(1)) -> bool:
    return all(abs(q - d) <= bound and all(abs(a - d) <= abs(a - q) + abs(q - d) for a in _OUTS)
               for d, q, _, _ in _thetas(c))


def _triangle(c: dict, with_term: bool = True) -> bool:
    return all(abs(a - dq) <= abs(a - lu) + (abs(dq - lu) if with_term else 0)
               for a in _OUTS for _, _, dq, lu in _thetas(c))


def _monotone(c: dict, pick: Callable[[F, F], F] = max) -> bool:
    """l(theta(D'_quant), theta(D_[l,u])) <= max over the two trims of D'_quant."""
    _, _, dq, lu = _parts(c)
    k = int(4 * c["r"])
    lo_trim, hi_trim = dq[k:], dq[:len(dq) - k]
    return all(abs(th(dq) - th(lu)) <= pick(abs(th(dq) - th(lo_trim)),
                                            abs(th(dq) - th(hi_trim))) for _, th in THETAS)


def _trim_shift(c: dict, extra: F = F(4)) -> bool:
    """l(theta(D'_quant), theta(D'_quant \\ L'_4r)) <= l(theta(D), theta(D \\ L_4r)) + 4 L beta
    and the same with U (``extra`` replaces 4 L beta)."""
    D, _, dq, _ = _parts(c)
    k = int(4 * c["r"])
    return all(abs(th(dq) - th(dq[k:])) <= abs(th(D) - th(D[k:])) + extra
               and abs(th(dq) - th(dq[:len(dq) - k])) <= abs(th(D) - th(D[:len(D) - k])) + extra
               for _, th in THETAS)


def _final(c: dict, extra: F = F(4)) -> bool:
    """l(theta(D'_quant), theta(D_[l,u])) <= max(l(theta(D), theta(D \\ L_4r)),
    l(theta(D), theta(D \\ U_4r))) + 4 L beta; (D, D \\ L_4r) and (D, D \\ U_4r) are pairs of
    subsets of D at distance 4r, so this is <= max_{D1, D2 subset of D, d <= 4r} + 4 L beta."""
    D, _, dq, lu = _parts(c)
    k = int(4 * c["r"])
    return all(abs(th(dq) - th(lu)) <= max(abs(th(D) - th(D[k:])),
                                           abs(th(D) - th(D[:len(D) - k]))) + extra
               for _, th in THETAS)


def _same_output(c: dict, offset: F = F(0)) -> bool:
    """Line 1 is the only place D enters: quantising D and quantising D_quant (``offset``:
    D shifted by it, the twin) give the same data, so the same output distribution."""
    D, q, _, _ = _parts(c)
    return quantise(q) == quantise([x + offset for x in D])


THM3_STEPS: tuple[Step, ...] = (
    ("the output of the algorithm does not change for inputs D and D_quant (line 1 maps both "
     "to D_quant)", _same_output, lambda c: _same_output(c, F(1, 2))),
    ("E l(A(D), theta(D)) = E l(A(D_quant), theta(D)) <= E l(A(D_quant), theta(D_quant)) + "
     "l(theta(D_quant), theta(D)) <= ... + L beta (triangle inequality; the Lipschitz property: "
     "rounding moves each point by <= beta)", _quant_step, lambda c: _quant_step(c, F(1, 4))),
    ("E l(A(D'_quant), theta(D'_quant)) <= E l(A(D'_quant), theta(D_[l,u])) + "
     "l(theta(D'_quant), theta(D_[l,u])) (triangle inequality; the display's D_[l,h] read as "
     "D_[l,u])", _triangle, lambda c: _triangle(c, with_term=False)),
    ("conditioned on E, by Lemma 7 and the monotonicity property: l(theta(D'_quant), "
     "theta(D_[l,u])) <= max(l(theta(D'_quant), theta(D'_quant \\ L'_4r)), l(theta(D'_quant), "
     "theta(D'_quant \\ U'_4r)))", _monotone, lambda c: _monotone(c, min)),
    ("l(theta(D'_quant), theta(D'_quant \\ L'_4r)) <= l(theta(D), theta(D \\ L_4r)) + 4 L beta "
     "and similarly with U'_4r, U_4r (the left side read as D'_quant, as in the next display)",
     _trim_shift, lambda c: _trim_shift(c, F(1))),
    ("hence l(theta(D'_quant), theta(D_[l,u])) <= max(l(theta(D), theta(D \\ L_4r)), "
     "l(theta(D), theta(D \\ U_4r))) + 4 L beta <= max_{D1, D2 subset of D: d(D1, D2) <= 4r} "
     "l(theta(D1), theta(D2)) + 4 L beta", _final, lambda c: _final(c, F(1, 2))),
)


# -------------------------------------------------- Appendix D.1: Lemma 3's group-privacy step
def em_probs(count: int, top: int) -> list[F]:
    """The exponential mechanism for theta(D) = #{x = 1} (sensitivity 1) over outputs 0..top
    with eps = 2 ln 2: Pr(o) proportional to exp(-eps |o - count|/2) = 2^-|o - count|."""
    w = [F(1, 2 ** abs(o - count)) for o in range(top + 1)]
    z = sum(w, F(0))
    return [x / z for x in w]


def group_cases() -> Iterator[dict]:
    """D1 = (n0 zeros, n1 ones), n0 + n1 in 1..6; D2 = D1 or one record added or removed (d <=
    1 <= 2/eps = 1/ln 2); the exponential mechanism over 0..top, top in {4, 8}."""
    for n in range(1, 7):
        for n1 in range(n + 1):
            n0 = n - n1
            others = {(n0, n1), (n0 + 1, n1), (n0, n1 + 1)}
            others |= {(n0 - 1, n1)} if n0 and n > 1 else set()
            others |= {(n0, n1 - 1)} if n1 and n > 1 else set()
            for m0, m1 in sorted(others):
                for top in (4, 8):
                    yield {"n0": F(n0), "n1": F(n1), "m0": F(m0), "m1": F(m1), "top": F(top)}


def _group(c: dict, factor: F = F(1, 4)) -> bool:
    """A in A_eps (every output's probability within e^eps = 4 across the pair), then E1 >=
    e^-2 E l(A(D2), theta(D1)) (shown as E1 >= ``factor`` X with 1/4 >= e^-2: e^2 > 4), E1 + E2
    >= e^-2 (X + E2), and X + E2 >= l(theta(D1), theta(D2))."""
    t1, t2, top = int(c["n1"]), int(c["m1"]), int(c["top"])
    p1, p2 = em_probs(t1, top), em_probs(t2, top)
    dp = all(a <= 4 * b and b <= 4 * a for a, b in zip(p1, p2, strict=True))
    e1 = sum((q * abs(o - t1) for o, q in enumerate(p1)), F(0))
    e2 = sum((q * abs(o - t2) for o, q in enumerate(p2)), F(0))
    x = sum((q * abs(o - t1) for o, q in enumerate(p2)), F(0))
    return (dp and e1 >= factor * x and e1 + e2 >= factor * (x + e2)
            and x + e2 >= abs(t1 - t2))


GROUP_STEPS: tuple[Step, ...] = (
    ("'Since d(D1, D2) <= 2/eps, if A in A_eps': E l(A(D1), theta(D1)) + E l(A(D2), theta(D2)) "
     ">= e^{-(2/eps) eps} E l(A(D2), theta(D1)) + E l(A(D2), theta(D2)) >= e^{-2}(E l(A(D2), "
     "theta(D1)) + E l(A(D2), theta(D2))) >= e^{-2} l(theta(D1), theta(D2))", _group,
     lambda c: _group(c, F(1))),
)


FAMILIES: dict[str, Family] = {
    "lemma7": (lemma7_cases, LEMMA7_STEPS, "Lemma 7's proof: r = 2, every multiset D of size "
               "13 on {0..3}, l <= u in {-1/2, 0, .., 7/2} meeting the lemma's hypotheses, "
               "every D' in [l, u] at add/remove distance <= r/2 from D_[l,u], every v in "
               "{-1, -1/2, .., 4}"),
    "counts": (count_cases, COUNT_STEPS, "Theorem 3's proof, the event E: r in {2, 3}, every "
               "multiset D_quant of size 3r + 2 .. 3r + 3 on {0, 1, 2, 3} (beta = 1), every "
               "integer l <= u in -1..4 with R(l, D_quant) meeting [3r/2, 2r] and R(u, D_quant) "
               "meeting [n - 2r, n - 3r/2]"),
    "thm3": (thm3_cases, THM3_STEPS, "Theorem 3's proof: r = 2, beta = 1, L = 1, every "
             "multiset D of size 9 on {0, 1/3, 5/3, 3}, every integer l <= u in -1..5 on "
             "the event E for D_quant; theta the mean and the lower median, l = |.|, outputs a "
             "in {-2, 0, 2, 4, 6}"),
    "group": (group_cases, GROUP_STEPS, "Appendix D.1, eps = 2 ln 2 (so d(D1, D2) <= 2/eps "
              "means d <= 1): every D1 of 1..6 records in {0, 1}, D2 = D1 or a neighbour, theta "
              "= the number of ones, l = |.|, A the exponential mechanism on it over {0..4} "
              "and over {0..8} (each checked eps-DP on the pair, exactly)"),
}


def family_id(name: str) -> str:
    return "text.subset.d1-group-privacy" if name == "group" else f"text.subset.d2-{name}"


def _label(fid: str) -> str:
    return "Appendix D.1: " if fid.startswith("text.subset.d1") else "Appendix D.2: "


# ------------------------------------------------- "in other words": the rank window [3r/2, 2r]
def rank_window_cases() -> Iterator[dict]:
    """Algorithm 4's parameters on a grid: R in {1, 10, 100}, beta in {1/100, 1/10, 1/2},
    eta = L beta / B with L = 1, B in {2R, 4R}; eps = 1 (every quantity scales with 1/eps)."""
    for R, beta, mult in itertools.product((F(1), F(10), F(100)), (F(1, 100), F(1, 10), F(1, 2)),
                                           (2, 4)):
        B = mult * R
        yield {"R": R, "beta": beta, "B": B, "eta": beta / B}


def window_args(c: dict) -> tuple[F, F]:
    """(the log argument of r/4 = (8/eps) log(6R/(eta beta)) (line 2), the log argument of
    Corollary 1's deviation (2/(eps/4)) ln(3m/eta) on the m = 2R/beta + 1 grid points of
    [-R, R] with zeta = eta)."""
    m = 2 * c["R"] / c["beta"] + 1
    return 6 * c["R"] / (c["eta"] * c["beta"]), 3 * m / c["eta"]


def _window_printed(c: dict) -> bool:
    """Reading (b): Corollary 1's deviation <= r/4 (both are 8/eps times a log; compare the
    arguments exactly)."""
    ours, cor1 = window_args(c)
    return cor1 <= ours


def rank_window(seed: int, t0: float) -> Finding:
    """8cdd124c: '|r' - 7r/4| <= (delta/eps) log(6R/(eta beta)) ... In other words R(l,
    D_quant) cap [3r/2, 2r] != {}': the deviation must be <= r/4 = (8/eps) log(6R/(eta beta))."""
    cases = list(rank_window_cases())
    bad = next((c for c in cases if not _window_printed(c)), None)
    # reading (a): delta = 8 with the printed log argument: the deviation (delta/eps) log(6R/(eta
    # beta)) against r/4 = (32/4)(1/eps) log(6R/(eta beta)) (line 2): compare the coefficients
    delta_ok = F(8) <= F(32, 4)
    readings = {"(a) delta = 8 and the log argument 6R/(eta beta) as printed (deviation = r/4 "
                "exactly)": "holds" if delta_ok else "refuted",
                "(b) Corollary 1 as stated, at eps/4 with zeta = eta, on the 2R/beta + 1 grid "
                "points of [-R, R]: deviation (8/eps) ln(3(2R/beta + 1)/eta)":
                "refuted" if bad else "holds"}
    fid = "text.subset.d2-rank-window"
    excess = None
    if bad:
        ours, cor1 = window_args(bad)
        excess = 8 * (math.log(cor1) - math.log(ours))
    return paper_finding(
        id=fid, claim="Appendix D.2: 'By Corollary 1, with probability at least 1 - eta, there "
        "exists r' with |r' - 7r/4| <= (delta/eps) log(6R/(eta beta)) and r' in R(l, D_quant). In "
        "other words, R(l, D_quant) cap [3r/2, 2r] != {}' (delta undefined; the window needs a "
        "deviation <= r/4 = (8/eps) log(6R/(eta beta)), line 2)", reference=REF,
        method=Method.EXHAUSTIVE, reading=next(k for k, v in readings.items() if v == "refuted")
        if bad else "", verdict=SPLIT if bad else Verdict.INCONCLUSIVE,
        scope=f"R in {{1, 10, 100}}, beta in {{1/100, 1/10, 1/2}}, B in {{2R, 4R}}, L = 1, "
              f"eta = L beta/B ({len(cases)} settings); exact comparison of the log arguments",
        evidence={"readings": readings, "first_failure": {k: str(v) for k, v in bad.items()}
                  if bad else None,
                  "excess_of_the_deviation_over_r/4_times_eps": excess},
        counterexample=counterexample_document(
            fid, SUBJECT, {k: str(v) for k, v in bad.items()}, "deviation <= r/4",
            f"deviation - r/4 = {excess:.6f}/eps", None,
            "Corollary 1's 3m = 3(2R/beta + 1) > 6R/beta: the window [3r/2, 2r] is too narrow")
        if bad else None, seed=seed, duration_s=time.perf_counter() - t0, subject=SUBJECT)


_PRINTED: tuple[Printed, ...] = (
    ("text.subset.d2-shifted-below",
     "Appendix D.2: 'and hence, 3r/2 <= |D'_quant cap (-inf, l)| <= 2r' (after |D_quant cap "
     "(-inf, l)| <= 2r and line 5's shift of the points of rank i <= 3r/2 down by beta)",
     "counts", _below_printed,
     "(a) as printed, for every r (line 5 shifts the floor(3r/2) points of rank i <= 3r/2)",
     "(b) only where 3r/2 is an integer (or line 5 shifting ceil(3r/2) points)",
     lambda c: (3 * c["r"] / 2).denominator != 1 or _below_printed(c)),
)


@claim("text.subset.d2-proof-steps", "Appendix D.2: each step of the proof of Lemma 7 (the CDF "
       "bounds of its third case) and of Theorem 3 (quantisation, the counts after line 5, the "
       "triangle and monotonicity steps, the 4 L beta terms) (exhaustive, exact), the rank "
       "window of the event E (exact); Appendix D.1: Lemma 3's group-privacy display", "prove",
       reference="Appendices D.1, D.2")
def d2_proof_steps(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    out = family_findings(FAMILIES, family_id, _label, seed, t0, REF)
    out += printed_findings(seed, t0, _PRINTED, FAMILIES, REF)
    out.append(rank_window(seed, t0))
    return out


@replayer("text.subset.d2-rank-window")
def replay_rank_window(inputs: dict) -> tuple[bool, Any, Any, str]:
    c = {k: F(v) for k, v in from_jsonable(inputs).items()}
    ok = _window_printed(c)
    ours, cor1 = window_args(c)
    return not ok, str(ours), str(cor1), f"log argument of r/4 {ours}, of Corollary 1 {cor1}"


register_replayers(FAMILIES, family_id, _PRINTED)
