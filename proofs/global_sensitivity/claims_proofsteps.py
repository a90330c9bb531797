"""Section 5 (pooled covariance, Def 2) of Liu's supplement: the case lines that bound "term 1",
each tested against term 1 computed from the data -- not through the final GS they lead to.

Term 1 is the supplement's own definition (the last display before the case analysis):
[(1 - 1/n_1)(x_11 - xbar_1-)(y_11 - ybar_1-) - sum_{i>=2} (x_i1 - xbar_1-)(y_i1 - ybar_1-) /
(n - 1 - J)] / (n - J), on data transformed to [0, 1] and, as in the text, binary (k_1 = #{x_i1 =
1}, k_2 = #{y_i1 = 1}, k_3 = sum x_i1 y_i1 over i = 2..n_1).  Every check is exhaustive and exact
(Fractions): n_1 = 2..5, J = 1..3, n = n_1 + 2(J - 1) + {0, 1, 2} (every other cell has >= 2
observations; n - 1 - J >= 1), every binary cell-1 data set (x_i1, y_i1), i = 2..n_1, with the
text's 'WLOS, assume k_2 <= k_1', and the four (x_11, y_11) in {0, 1}^2.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
from fractions import Fraction as F
from typing import Any

from audit.falsifiability import twin
from audit.findings import Finding, Method, Verdict, counterexample_document, from_jsonable
from audit.registry import replayer
from proofs.global_sensitivity import NAME, claim
from proofs.text_findings import SPLIT, exhaustive_step_finding, paper_finding

SUBJECT = f"paper:{NAME}"
REF = "Liu, supplement, Section 5 (pooled covariance, Def 2)"
SCOPE = ("n_1 = 2..5, J = 1..3, n = n_1 + 2(J - 1) + 0..2, every binary cell-1 data set with k_2 "
         "<= k_1 (the text's WLOS)")


def term1(first: tuple[int, int], rest: list[tuple[int, int]], n: int, J: int) -> F:
    """Term 1 from the data, by its definition."""
    n1 = len(rest) + 1
    xb = F(sum(x for x, _ in rest), n1 - 1)
    yb = F(sum(y for _, y in rest), n1 - 1)
    lead = (1 - F(1, n1)) * (first[0] - xb) * (first[1] - yb)
    cross = sum(((x - xb) * (y - yb) for x, y in rest), F(0))
    return (lead - cross / (n - 1 - J)) / (n - J)


def printed_first(case: tuple[int, int], n1: int, n: int, J: int, k1: int, k2: int, k3: int,
                  reading: str) -> F:
    """The first line of each case's display (cases named by their lead-ins: 'If (x_11, y_11) =
    (0, 1), then term 1 is ...'); ``reading`` "printed" keeps the inner denominator as printed
    (n_1 - 1 - J in cases (0, 0) and (0, 1)), "n" reads it as n - 1 - J."""
    inner_den = (n1 - 1 - J) if (reading == "printed" and case in ((0, 0), (0, 1))) else (n - 1 - J)
    a = F(1) - F(1, n1)
    lead = {(0, 0): a * k1 * k2, (0, 1): -a * k1 * (n1 - 1 - k2),
            (1, 0): -a * k2 * (n1 - 1 - k1), (1, 1): a * (n1 - 1 - k1) * (n1 - 1 - k2)}[case]
    if inner_den == 0:
        return F(10 ** 9)  # the printed denominator vanishes: no value (fails any comparison)
    return (lead / (n1 - 1) ** 2 - (k3 - F(k1 * k2, n1 - 1)) / inner_den) / (n - J)


def printed_second(case: tuple[int, int], n1: int, n: int, J: int, k1: int, k2: int,
                   k3: int) -> F:
    """The second (simplified) line of each case's display."""
    common = (F((n - J + n1 - 1) * k1 * k2, n1 * (n1 - 1) * (n - J) * (n - 1 - J))
              - F(k3, (n - J) * (n - 1 - J)))
    extra = {(0, 0): F(0), (0, 1): -F(k1, n1 * (n - J)), (1, 0): -F(k2, n1 * (n - J)),
             (1, 1): F(n1 - 1, n1 * (n - J)) - F(k1, n1 * (n - J)) - F(k2, n1 * (n - J))}[case]
    return common + extra


def printed_bullet(case: tuple[int, int], n1: int, n: int, J: int, k1: int, k2: int,
                   reading: str) -> F | None:
    """The bullets' values: k_1 = 0 (then k_2 = k_3 = 0) or k_1 = n_1 - 1 (then k_3 = k_2);
    ``reading`` "printed" keeps case (0, 0)'s 'k_2 / (n_1 (n_1 - J))', "n" reads n_1 - J as
    n - J.  None where no bullet speaks."""
    if k1 == 0:
        return F(n1 - 1, n1 * (n - J)) if case == (1, 1) else F(0)
    if k1 != n1 - 1:
        return None
    if case == (0, 0):
        den = n1 * ((n1 - J) if reading == "printed" else (n - J))
        return F(k2, den) if den else F(10 ** 9)
    if case == (0, 1):
        return F(k2, n1 * (n - J)) - F(n1 - 1, n1 * (n - J))
    return F(0)


def ranges(n1: int, n: int, J: int, reading: str = "displays",
           shrink: F = F(1)) -> dict[tuple[int, int], tuple[F, F]]:
    """The printed range of term 1 per case (transformed units), a = (1 - 1/n_1)/(n - J):
    [0, a] for (0, 0) and (1, 1); [-a, 0] and {0} for the two mixed cases -- by the displays'
    lead-ins ("displays": (0, 1) -> [-a, 0], (1, 0) -> {0}) or by the conclusions' labels as
    printed ("labels": (c_11, c_20) = (1, 0) -> [-a, 0], (c_10, c_21) = (0, 1) -> {0});
    ``reading`` "together": [-a, a] for every case.  ``shrink`` < 1 scales them (the twin)."""
    a = shrink * (1 - F(1, n1)) / (n - J)
    if reading == "together":
        return {c: (-a, a) for c in ((0, 0), (0, 1), (1, 0), (1, 1))}
    neg, zero = ((0, 1), (1, 0)) if reading == "displays" else ((1, 0), (0, 1))
    return {(0, 0): (F(0), a), (1, 1): (F(0), a), neg: (-a, F(0)), zero: (F(0), F(0))}


def cases() -> Iterator[dict]:
    for n1 in range(2, 6):
        for J in range(1, 4):
            for extra in range(3):
                n = n1 + 2 * (J - 1) + extra
                if n - 1 - J < 1:
                    continue
                for rest in itertools.product(((0, 0), (0, 1), (1, 0), (1, 1)), repeat=n1 - 1):
                    k1 = sum(x for x, _ in rest)
                    k2 = sum(y for _, y in rest)
                    k3 = sum(x * y for x, y in rest)
                    if k2 > k1:  # the text's 'WLOS, assume k_2 <= k_1'
                        continue
                    for case in ((0, 0), (1, 0), (0, 1), (1, 1)):
                        yield {"n1": n1, "n": n, "J": J, "rest": list(rest), "case": case,
                               "k": (k1, k2, k3)}


def _args(c: dict) -> tuple:
    return c["case"], c["n1"], c["n"], c["J"], *c["k"]


def _truth(c: dict) -> F:
    return term1(c["case"], [tuple(r) for r in c["rest"]], c["n"], c["J"])


#: the checks: id -> (printed statement, reading where it may fail, check(case, reading))
_SPLIT_CHECKS: dict[str, tuple[str, Callable[[dict, str], bool]]] = {
    "text.liu.sec5-term1-displays": (
        "Section 5, Def 2: each case's display of term 1 in k_1, k_2, k_3 (first line and its "
        "simplification), e.g. for (x_11, y_11) = (c_10, c_20): '((1 - n_1^-1)(n_1 - 1)^-2 k_1 "
        "k_2 - (k_3 - (n_1 - 1)^-1 k_1 k_2)/(n_1 - 1 - J))/(n - J) = (n - J + n_1 - 1) k_1 k_2 / "
        "(n_1 (n_1 - 1)(n - J)(n - 1 - J)) - k_3/((n - J)(n - 1 - J))'",
        lambda c, r: (printed_first(*_args(c), reading=r) == _truth(c)
                      and printed_second(*_args(c)) == _truth(c))),
    "text.liu.sec5-term1-bullets": (
        "Section 5, Def 2: the bullets 'If k_1 = 0, then k_2 = 0, k_3 = 0, and term 1 is 0' (or "
        "(n_1 - 1)/(n_1 (n - J)) for (c_11, c_21)), 'If k_1 = n_1 - 1, then ... k_3 = k_2, and "
        "the term 1 is k_2/(n_1 (n_1 - J))' (case (c_10, c_20)), 'k_2/(n_1(n - J)) - (n_1 - 1)/"
        "(n_1(n - J))' (case (c_11, c_20)), 'also becomes 0' / 'becomes 0 regardless of k_2'",
        lambda c, r: (lambda v: v is None or v == _truth(c))(
            printed_bullet(c["case"], c["n1"], c["n"], c["J"], c["k"][0], c["k"][1], r))),
}
_READINGS = {"printed": "(a) as printed", "n": "(b) the evident typo corrected: n_1 - 1 - J / n_1 "
                                              "- J read as n - 1 - J / n - J (as in the other "
                                              "cases); for the case ranges, each range under "
                                              "its display's lead-in"}


def _in_range(c: dict, reading: str = "together", shrink: F = F(1)) -> bool:
    lo, hi = ranges(c["n1"], c["n"], c["J"], reading, shrink)[c["case"]]
    k1, k2, k3 = c["k"]
    n1 = c["n1"]
    return (lo <= _truth(c) <= hi and max(0, k1 + k2 - (n1 - 1)) <= k3 <= min(k1, k2))


_SPLIT_CHECKS["text.liu.sec5-term1-case-ranges"] = (
    "Section 5, Def 2: 'when (x_11, y_11) = (c_10, c_20), then term 1 is in (c_11 - c_10)(c_21 - "
    "c_20)[0, (1 - n_1^-1)/(n - J)]'; '(c_11, c_20): ... in [(n_1^-1 - 1)/(n - J), 0]'; '(c_10, "
    "c_21): term 1 is 0'; '(c_11, c_21): [0, (1 - n_1^-1)/(n - J)]' -- the two mixed cases' "
    "labels are swapped against their displays' lead-ins ('If (x_11, y_11) = (0, 1)' / '(1, 0)')",
    lambda c, r: _in_range(c, "labels" if r == "printed" else "displays"))


@claim("text.liu.sec5-term1-steps", "Section 5 (Def 2): the case displays, bullets and ranges "
       "of term 1 against term 1 computed from binary cell-1 data (exhaustive, exact)", "prove",
       reference="Section 5")
def term1_steps(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    all_cases = list(cases())
    out = []
    for fid, (text, check) in _SPLIT_CHECKS.items():
        bad = {r: next(({**c, "reading": r} for c in all_cases if not check(c, r)), None)
               for r in _READINGS}
        readings = {_READINGS[r]: "refuted" if bad[r] else "holds" for r in _READINGS}
        held = [r for r in _READINGS if bad[r] is None]
        verdict = (Verdict.REFUTED if not held else SPLIT if len(held) < len(_READINGS)
                   else Verdict.VERIFIED)
        first = bad["printed"] or bad["n"]
        out.append(paper_finding(
            id=fid, claim=text, reference=REF, method=Method.EXHAUSTIVE,
            reading=_READINGS[first["reading"]] if first else "", verdict=verdict,
            scope=f"{SCOPE}, (x_11, y_11) in {{0, 1}}^2 ({len(all_cases)} cases), exact",
            evidence={"readings": readings, "first_failure": {r: v for r, v in bad.items()}},
            counterexample=counterexample_document(fid, SUBJECT, first, True, False, None)
            if first else None,
            seed=seed, duration_s=time.perf_counter() - t0, subject=SUBJECT))
    out.append(k_linear_finding(seed))
    bad_r = next((c for c in all_cases if not _in_range(c)), None)
    twin_r = next((c for c in all_cases if not _in_range(c, shrink=F(1, 2))), None)
    tw = twin("the range [-(1 - 1/n_1)/(n - J), (1 - 1/n_1)/(n - J)] halved",
              "refuted" if twin_r else "not-refuted", witness=twin_r)
    out.append(exhaustive_step_finding(
        id="text.liu.sec5-term1-ranges",
        claim="Section 5, Def 2: 'k_3 in [max(0, k_1 + k_2 - (n_1 - 1)), min(k_1, k_2)]' and "
              "'taken together, term 1 in [-(1 - n_1^-1)/(n - J), (1 - n_1^-1)/(n - J)]'",
        reference=REF, subject=SUBJECT, violation=bad_r, twin=tw,
        scope=f"{SCOPE} ({len(all_cases)} cases), term 1 from its definition, exact",
        evidence={"violation": bad_r}, seed=seed, started=t0,
        vacuous_reason="the halved ranges also held"))
    return out


# ------------------------------------------- 'Delta is linear in k_1, k_2 and k_3' (Section 5)
_CASES = ((0, 0), (0, 1), (1, 0), (1, 1))


def mixed_difference(case: tuple[int, int], n1: int, n: int, J: int, bump: F = F(0)) -> F:
    """f(1, 1, 0) - f(1, 0, 0) - f(0, 1, 0) + f(0, 0, 0) for f(k_1, k_2, k_3) the case's printed
    display (its second line): 0 for every function linear in (k_1, k_2, k_3), the k_1 k_2
    coefficient otherwise.  ``bump``: the twin adds bump * k_1 k_2 to a display."""
    def f(k1: int, k2: int) -> F:
        return printed_second(case, n1, n, J, k1, k2, 0) + bump * k1 * k2
    return f(1, 1) - f(1, 0) - f(0, 1) + f(0, 0)


def _sizes() -> Iterator[tuple[int, int, int]]:
    """(n_1, n, J) of :data:`SCOPE` (n_1 >= 3: a cell-1 remainder of two records, so that
    k_1 = k_2 = 1 is a possible point)."""
    for n1 in range(3, 6):
        for J in range(1, 4):
            for extra in range(3):
                n = n1 + 2 * (J - 1) + extra
                if n - 1 - J >= 1:
                    yield n1, n, J


def k_linear_finding(seed: int) -> Finding:
    """Section 5, Def 2: 'Delta is linear in k_1, k_2 and k_3, thus the minimum/maximum occurs
    at corners of (k_1, k_2, k_3)' (three cases; 'S is linear ...' in the fourth), tested on
    the cases' own displays -- not on Section 3's formula (derivation.k-linear)."""
    t0 = time.perf_counter()
    sizes = list(_sizes())
    bad = next(({"case": list(c), "n1": n1, "n": n, "J": J,
                 "mixed_difference": str(mixed_difference(c, n1, n, J))}
                for n1, n, J in sizes for c in _CASES if mixed_difference(c, n1, n, J) != 0),
               None)
    twin_at = next(({"n1": n1, "n": n, "J": J} for n1, n, J in sizes
                    if mixed_difference((0, 0), n1, n, J, F(1)) != mixed_difference(
                        (0, 0), n1, n, J)), None)
    tw = twin("the (0, 0) display plus k_1 k_2 (a term no linear function has): the same mixed "
              "difference", "refuted" if twin_at else "not-refuted", witness=twin_at)
    return exhaustive_step_finding(
        id="text.liu.sec5-k-linear",
        claim="Section 5, Def 2, each case (x_11, y_11) in {0, 1}^2: 'Delta [term 1] is linear "
              "in k_1, k_2 and k_3' (the case (1, 1) says 'S is linear ...'): every display has "
              "the term (n - J + n_1 - 1) k_1 k_2 / (n_1 (n_1 - 1)(n - J)(n - 1 - J)), so it is "
              "bilinear in (k_1, k_2), not linear",
        reference=REF, subject=SUBJECT, violation=bad, twin=tw,
        scope=f"the four cases' displays at n_1 = 3..5, J = 1..3, n = n_1 + 2(J - 1) + 0..2 "
              f"({len(sizes)} sizes); f(1,1,0) - f(1,0,0) - f(0,1,0) + f(0,0,0), exact",
        evidence={"first_nonlinear": bad}, seed=seed, started=t0,
        vacuous_reason="a display with an added k_1 k_2 term passed too")


@replayer("text.liu.sec5-k-linear")
def replay_k_linear(inputs: dict) -> tuple[bool, Any, Any, str]:
    """Still fails while the case's display has a non-zero k_1 k_2 coefficient."""
    inputs = from_jsonable(inputs)
    d = mixed_difference(tuple(int(v) for v in inputs["case"]), int(inputs["n1"]),
                         int(inputs["n"]), int(inputs["J"]))
    return d != 0, "0", str(d), f"mixed difference in (k_1, k_2) of the display: {d}"


def _decode(inputs: dict) -> dict:
    d = from_jsonable(inputs)
    return {**d, "case": tuple(d["case"]), "k": tuple(d["k"]),
            "rest": [tuple(r) for r in d["rest"]]}


def _replay_split(fid: str) -> Callable[[dict], tuple[bool, Any, Any, str]]:
    def run(inputs: dict) -> tuple[bool, Any, Any, str]:
        c = _decode(inputs)
        ok = _SPLIT_CHECKS[fid][1](c, c.get("reading", "printed"))
        return not ok, str(_truth(c)), ok, f"term 1 = {_truth(c)}; printed line holds: {ok}"
    return run


for _fid in _SPLIT_CHECKS:
    replayer(_fid)(_replay_split(_fid))


@replayer("text.liu.sec5-term1-ranges")
def replay_ranges(inputs: dict) -> tuple[bool, Any, Any, str]:
    c = _decode(inputs)
    return not _in_range(c), "in the printed range", str(_truth(c)), f"term 1 = {_truth(c)}"
