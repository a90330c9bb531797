"""Z3 (nonlinear real arithmetic, nlsat) checks of the GS suprema at small n.

For a statistic T, a neighbour relation and a bound g, :func:`exceeds` asks Z3 whether there
are records in [0, 1] (the unit box; every statistic here is translation-invariant and scales
by R, R^2 or R1 R2, so the unit box is general) with

    T(x) - T(x') > g   or   T(x) - T(x') < -g,

x' being x with its first record (of cell j, for each j in turn) replaced by a free record
(Def 1) or removed (Def 2).  UNSAT proves sup |T(x) - T(x')| <= g for that n / those cell
sizes; SAT returns a model (a pair exceeding g, converted to exact Fractions when Z3's values
are rational, else to 30-digit rational approximations of its algebraic numbers).  With
``attain=True`` the query is ``>= g`` (is g attained?).  The statistics are the same
definitions as :mod:`kernels.global_sensitivity.statistics` built on Z3 terms.

Each query runs under a Z3 **resource limit** (``rlimit``, :data:`RLIMIT_PER_QUERY` by
default), counted in Z3's own deterministic work units, never in seconds: the same query gives
the same answer on a fast or a loaded machine.  Hitting the limit gives ``"unknown"``; the
claims then say inconclusive.  The default is about 3.5 times the largest count a query of the
shipped scope needs (14.1 million, pooled covariance Def 2 at cell sizes (3, 2), Z3 4.x/5.x).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import z3

from kernels.global_sensitivity import statistics as st
from kernels.global_sensitivity.formulas import DEF1, DEF2
from proofs import smt_solver

__all__ = ["SmtResult", "exceeds"]


@dataclass(frozen=True)
class SmtResult:
    status: str  # "unsat" | "sat" | "unknown"
    first: Any = None
    second: Any = None
    duration_s: float = 0.0
    queries: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"status": self.status, "first": self.first, "second": self.second,
                "duration_s": self.duration_s, "queries": self.queries}


def _val(m: z3.ModelRef, v: z3.ArithRef) -> Fraction:
    r = m.eval(v, model_completion=True)
    if z3.is_rational_value(r):
        return Fraction(r.as_fraction())
    if isinstance(r, z3.AlgebraicNumRef):
        return Fraction(r.approx(30).as_fraction())
    return Fraction(str(r))


def _record(name: str, two: bool, s: z3.Solver) -> Any:
    if two:
        a, b = z3.Real(name + "x"), z3.Real(name + "y")
        s.add(a >= 0, a <= 1, b >= 0, b <= 1)
        return (a, b)
    a = z3.Real(name)
    s.add(a >= 0, a <= 1)
    return a


def _eval(m: z3.ModelRef, rec: Any) -> Any:
    if isinstance(rec, tuple):
        return tuple(_eval(m, r) for r in rec)
    if isinstance(rec, list):
        return [_eval(m, r) for r in rec]
    return _val(m, rec)


def _flat_T(stat: str) -> Any:
    return {"mean": st.mean, "variance": st.variance, "covariance": st.covariance}[stat]


#: Z3 resource units per query (deterministic work, not time)
RLIMIT_PER_QUERY = 50_000_000


def exceeds(stat: str, relation: str, bound: Fraction, *, n: int | None = None,
            sizes: tuple[int, ...] | None = None, attain: bool = False,
            rlimit: int = RLIMIT_PER_QUERY) -> SmtResult:
    """Is there a neighbour pair in the unit box with |T(x) - T(x')| > bound (>= with
    ``attain``)?  Flat statistics: mean, variance, covariance (``n``); pooled: ``sizes``."""
    t0 = time.perf_counter()
    two = stat in ("covariance", "pooled-covariance")
    g = z3.RealVal(f"{Fraction(bound).numerator}/{Fraction(bound).denominator}")
    targets = [0] if sizes is None else list(range(len(sizes)))
    unknown = False
    queries = 0
    for j in targets:
        s = z3.Solver()
        if sizes is None:
            assert n is not None
            x = [_record(f"r{i}", two, s) for i in range(n)]
            x2 = list(x[1:]) if relation == DEF2 else [_record("new", two, s)] + list(x[1:])
            T = _flat_T(stat)
            d = T(x) - T(x2)
        else:
            cells = [[_record(f"c{c}r{i}", two, s) for i in range(m)]
                     for c, m in enumerate(sizes)]
            cells2 = [list(c) for c in cells]
            if relation == DEF2:
                cells2[j] = cells[j][1:]
            else:
                assert relation == DEF1
                cells2[j] = [_record("new", two, s)] + cells[j][1:]
            T = st.pooled_covariance if two else st.pooled_variance
            d = T(cells) - T(cells2)
        if attain:
            s.add(z3.Or(d >= g, d <= -g))
        else:
            s.add(z3.Or(d > g, d < -g))
        queries += 1
        # one fresh context per query from the assertions' SMT-LIB text (proofs.smt_solver):
        # in the shared main context Z3's search depends on term ids, i.e. on what the
        # process built before (a twin query that takes 0.1 s alone ran > 20 min inside
        # `dpaudit prove`)
        status, m = smt_solver.check(s.assertions(), rlimit)
        if status == "sat":
            first = _eval(m, x if sizes is None else cells)
            second = _eval(m, x2 if sizes is None else cells2)
            return SmtResult("sat", first, second, time.perf_counter() - t0, queries)
        if status == "unknown":
            unknown = True
    return SmtResult("unknown" if unknown else "unsat", duration_s=time.perf_counter() - t0,
                     queries=queries)
