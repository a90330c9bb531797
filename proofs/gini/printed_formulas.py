"""The printed module computes bounds (21), (22) and (23) exactly as the paper prints them.

:mod:`kernels.gini.printed` is the paper's formulas *as printed* (Lan & Reiter 2025), the
object of every "as printed" claim (``bounds.printed``, ``def21.smooth``, ...): a printed
formula silently repaired there makes those claims audit a formula the paper does not
contain, and their verdicts can stay the same (a larger C2 is still an upper bound).
Here the module's C1, C2 and eq. (23) are compared with our transcription of the printed
text in exact rational arithmetic (Section 4.1.3):

    C1 = max((U-L)(1 - min g)/(n min xbar + (U-L)), 2(n max xbar - nL)/(n min xbar (n-1)))  (21)
    C2 = max((U-L)(max g + 1 - 2/(n-1))/(n min xbar - (U-L)),
             2n(U - min xbar)/((n min xbar - (U-L))(n-1)))                                (22)
    (23): max(C1, C2) if n min xbar - (U-L) > 0 and max(C1, C2) <= 1, else 1

on seeded random inputs (n = 2..40, [L, U] with L in {0, 1, 5}, extremes drawn consistent
with it: L <= min xbar <= max xbar <= U, 0 <= min g <= max g <= 1), within float rounding
(relative :data:`RTOL`).  Drawn inputs, so at most ``not-refuted``.  Twin (the comparison
can fail): eq. (22) with the factor max g + 1 (the term -2/(n-1) dropped) in place of the
module's C2 must differ.  Nothing here prints or writes files.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from fractions import Fraction as Q
from typing import Any

from audit import falsifiability
from audit.findings import Finding, Method, Verdict, counterexample_document

__all__ = ["CASES", "CHECK_ID", "RTOL", "c1", "c2", "check_printed_formulas", "eq23",
           "mismatches", "replay_printed_formula"]

CHECK_ID = "paper.eqs21-23.as-printed"
CASES = 300
#: float rounding of a few operations, relative
RTOL = 1e-12

_Case = dict[str, Any]


def c1(n: int, L: Q, U: Q, min_g: Q, min_x: Q, max_x: Q) -> Q:
    """Eq. (21), last line, as printed."""
    return max((U - L) * (1 - min_g) / (n * min_x + (U - L)),
               2 * (n * max_x - n * L) / (n * min_x * (n - 1)))


def c2(n: int, L: Q, U: Q, max_g: Q, min_x: Q, drop: bool = False) -> Q:
    """Eq. (22), last line, as printed (``drop``: the twin without -2/(n-1))."""
    den = n * min_x - (U - L)
    factor = max_g + 1 - (0 if drop else Q(2, n - 1))
    return max((U - L) * factor / den, 2 * n * (U - min_x) / (den * (n - 1)))


def eq23(n: int, L: Q, U: Q, min_g: Q, max_g: Q, min_x: Q, max_x: Q) -> Q:
    """Theorem 4.3, eq. (23), as printed (with xbar_k read as min xbar_(k))."""
    if not n * min_x - (U - L) > 0:
        return Q(1)
    c = max(c1(n, L, U, min_g, min_x, max_x), c2(n, L, U, max_g, min_x))
    return c if c <= 1 else Q(1)


def _cases(seed: int) -> list[_Case]:
    rng = random.Random(seed * 7919 + 2123)
    out = []
    for _ in range(CASES):
        L = Q(rng.choice([0, 0, 1, 5]))
        U = L + rng.choice([1, 2, 10])
        xs = sorted(L + (U - L) * Q(rng.randint(1, 64), 64) for _ in range(2))
        gs = sorted(Q(rng.randint(0, 64), 64) for _ in range(2))
        out.append({"n": rng.randint(2, 40), "L": L, "U": U, "min_g": gs[0], "max_g": gs[1],
                    "min_x": xs[0], "max_x": xs[1]})
    return out


def _pieces(paper: Any, c: _Case, c2_fn: Callable[..., float] | None = None
            ) -> list[tuple[str, float, Q]]:
    """(name, module value, transcription) for C1, C2 (when n min xbar > U - L) and (23)."""
    f = {k: float(v) if isinstance(v, Q) else v for k, v in c.items()}
    n, L, U = c["n"], c["L"], c["U"]
    rows = [("eq21", paper.bound_eq21(n, f["L"], f["U"], f["min_g"], f["min_x"], f["max_x"]),
             c1(n, L, U, c["min_g"], c["min_x"], c["max_x"]))]
    if n * c["min_x"] - (U - L) > 0:  # (22) is defined
        fn = c2_fn or paper.bound_eq22
        rows.append(("eq22", fn(n, f["L"], f["U"], f["max_g"], f["min_x"]),
                     c2(n, L, U, c["max_g"], c["min_x"])))
    rows.append(("eq23", paper.bound_eq23_printed(n, f["L"], f["U"], f["min_g"], f["max_g"],
                                                  f["min_x"], f["max_x"]),
                 eq23(n, L, U, c["min_g"], c["max_g"], c["min_x"], c["max_x"])))
    return rows


def _off(got: float, want: Q) -> bool:
    return abs(Q(got) - want) > RTOL * max(Q(1), abs(want))


def mismatches(paper: Any, seed: int, c2_fn: Callable[..., float] | None = None
               ) -> tuple[list[dict[str, Any]], int]:
    """(every (formula, case) where the module differs from the transcription, the number
    of cases where (22) is defined)."""
    bad, defined = [], 0
    for c in _cases(seed):
        for name, got, want in _pieces(paper, c, c2_fn):
            defined += name == "eq22"
            if _off(got, want):
                bad.append({"formula": name, "case": c, "module": got, "printed": want})
    return bad, defined


def replay_printed_formula(inp: dict) -> tuple[bool, Any, Any, str]:
    """Re-run one stored case on the installed printed module."""
    from kernels.gini import printed as paper

    c = {k: (Q(v) if k != "n" else int(v)) for k, v in inp["case"].items()}
    row = next(r for r in _pieces(paper, c) if r[0] == inp["formula"])
    return _off(row[1], row[2]), float(row[2]), row[1], f"{inp['formula']} as printed"


def check_printed_formulas(paper: Any, seed: int) -> Finding:
    """The Finding: the printed module's (21), (22), (23) equal the printed text on every
    drawn case (``not-refuted``, twin refuted; else ``vacuous``), or ``refuted``."""
    t0 = time.perf_counter()
    bad, defined = mismatches(paper, seed)

    def dropped(n: int, L: float, U: float, max_g: float, min_x: float) -> float:
        return float(c2(n, Q(L), Q(U), Q(max_g), Q(min_x), drop=True))

    twin_bad, _ = mismatches(paper, seed, dropped)
    twin_bad = [b for b in twin_bad if b["formula"] == "eq22"]
    tw = falsifiability.twin("eq. (22) with the factor max g + 1 (-2/(n-1) dropped) in place "
                             "of the module's C2", "refuted" if twin_bad else "not-refuted",
                             margin={"mismatches": len(twin_bad)} if twin_bad else None)
    verdict = falsifiability.decide_sampled(
        bool(bad), defined > 0, tw, refuted=Verdict.REFUTED,
        vacuous_reason="(22) never defined, or the twin agreed: could not fail here")
    cx = None
    if bad:
        b = bad[0]
        cx = counterexample_document(CHECK_ID, "kernels:kernels.gini.printed",
                                     {"formula": b["formula"], "case": b["case"]},
                                     b["printed"], b["module"], {"rtol": RTOL},
                                     f"{b['formula']} of the printed module vs the paper's text")
    return Finding(
        id=CHECK_ID,
        claim="the printed module computes bounds (21), (22) and (23) exactly as printed",
        reference="Lan & Reiter 2025, Section 4.1.3, eqs. (21)-(22), Theorem 4.3 (23)",
        method=Method.SAMPLED, verdict=verdict,
        scope=f"{CASES} seeded random inputs (n = 2..40, L in {{0, 1, 5}}, U - L in "
        f"{{1, 2, 10}}, extremes on a 1/64 grid; (22) defined in {defined}); module (float) "
        f"vs exact transcription within {RTOL:g} relative; twin (22 without -2/(n-1)) "
        f"differs on {len(twin_bad)}",
        # about dpaudit's own module (not the paper): a refutation fails the command
        evidence={"cases": CASES, "eq22_defined": defined, "mismatches": len(bad), "twin": tw,
                  "must_hold": True},
        counterexample=cx, seed=seed, duration_s=time.perf_counter() - t0,
        subject="kernels:kernels.gini.printed")
