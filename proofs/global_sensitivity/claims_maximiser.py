"""Section 2 (variance, Def 1) of Liu's supplement: the maximiser of eq. (1), tested itself.

The sentence after eq. (1): "Since both terms in Eq (1) are >= 0, |s^2 - s'^2| is maximized
when (x_1 - xbar_-)^2 reaches its maximum (c_1 - c_0)^2 and (x'_1 - xbar_-)^2 = 0, or when
(x_1 - xbar_-)^2 = 0 and (x'_1 - xbar_-)^2 reaches its maximum (c_1 - c_0)^2".  Checked on
unit range (c_0, c_1) = (0, 1) against |s^2 - s'^2| computed from the data (the kernel's sample
variance, exact Fractions), not through eq. (1): over a finite grid of data sets, the set of
maximisers of |s^2 - s'^2| is exactly the set of points meeting the stated condition.  The
twin moves the condition's "= 0" to "= 1/16" (x'_1 a quarter away from xbar_-); it must be
refuted in the same scope.  (The value of the maximum, the GS, is claim gs.sup's.)
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from fractions import Fraction as F
from typing import Any

from audit.falsifiability import twin
from audit.findings import Finding, from_jsonable
from audit.registry import replayer
from kernels.global_sensitivity import statistics as st
from proofs.global_sensitivity import NAME, claim
from proofs.text_findings import exhaustive_step_finding

SUBJECT = f"paper:{NAME}"
REF = "Liu, supplement, Section 2 (variance, Def 1), after eq. (1)"
REST = (F(0), F(1, 2), F(1))  # the other n - 1 records
CHANGED = tuple(F(i, 4) for i in range(5))  # x_1 and x'_1
NS = range(3, 7)


def points(n: int) -> Iterator[tuple[tuple[F, ...], F, F, F]]:
    """(the other records, x_1, x'_1, |s^2 - s'^2|) over the grid, Def 1 (x_1 replaced by
    x'_1), unit range."""
    for rest in itertools.combinations_with_replacement(REST, n - 1):
        for x1 in CHANGED:
            for x1p in CHANGED:
                d = abs(F(st.variance([x1, *rest])) - F(st.variance([x1p, *rest])))
                yield rest, x1, x1p, d


def stated(rest: tuple[F, ...], x1: F, x1p: F, zero: F = F(0)) -> bool:
    """The sentence's condition (``zero``: the value it gives the other square; the twin's
    1/16)."""
    a = sum(rest, F(0)) / len(rest)
    u, v = (x1 - a) ** 2, (x1p - a) ** 2
    return (u == 1 and v == zero) or (u == zero and v == 1)


def violation(n: int, zero: F = F(0)) -> dict[str, Any] | None:
    """The first point where maximisers and the stated condition disagree at ``n`` (or the
    condition met nowhere), else None."""
    pts = list(points(n))
    top = max(p[3] for p in pts)
    if not any(stated(r, a, b, zero) for r, a, b, _ in pts):
        return {"n": n, "problem": "the condition is met nowhere in the grid"}
    for rest, x1, x1p, d in pts:
        if (d == top) != stated(rest, x1, x1p, zero):
            return {"n": n, "rest": [str(v) for v in rest], "x1": str(x1), "x1p": str(x1p),
                    "value": str(d), "maximum": str(top),
                    "problem": "a maximiser outside the condition" if d == top else
                    "the condition holds but the value is below the maximum"}
    return None


@claim("text.liu.var-def1-maximiser", "Section 2 Def 1: the maximiser of eq. (1) stated after "
       "it, against |s^2 - s'^2| from the data (exhaustive on a grid, exact)", "prove",
       reference="Section 2, Def 1, after eq. (1)")
def var_def1_maximiser(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    bad = next((v for n in NS if (v := violation(n)) is not None), None)
    twin_at = next((v for n in NS if (v := violation(n, F(1, 16))) is not None), None)
    tw = twin("the condition's '(x'_1 - xbar_-)^2 = 0' moved to '= 1/16': the same exhaustive "
              "comparison of maximisers and condition", "refuted" if twin_at else "not-refuted",
              witness=twin_at)
    return [exhaustive_step_finding(
        id="text.liu.var-def1-maximiser",
        claim="Section 2, Def 1: 'Since both terms in Eq (1) are >= 0, |s^2 - s'^2| is maximized "
              "when (x_1 - xbar_-)^2 reaches its maximum (c_1 - c_0)^2 and (x'_1 - xbar_-)^2 = "
              "0, or when (x_1 - xbar_-)^2 = 0 and (x'_1 - xbar_-)^2 reaches its maximum' (the "
              "maximisers of |s^2 - s'^2| are exactly the points meeting the condition)",
        reference=REF, subject=SUBJECT, violation=bad, twin=tw,
        scope=f"unit range, n = {NS.start}..{NS.stop - 1}, the n - 1 other records every "
              "multiset on {0, 1/2, 1}, x_1 and x'_1 on {0, 1/4, 1/2, 3/4, 1}; |s^2 - s'^2| "
              "from the kernel's sample variance, exact Fractions",
        evidence={"first_disagreement": bad}, seed=seed, started=t0,
        vacuous_reason="the moved condition matched the maximisers too")]


@replayer("text.liu.var-def1-maximiser")
def replay_maximiser(inputs: dict) -> tuple[bool, Any, Any, str]:
    """Still fails while maximisers and condition disagree at the input's n."""
    v = violation(int(from_jsonable(inputs)["n"]))
    return v is not None, "maximisers = the stated condition", v, f"{v}"
