"""A second, independent evaluator of the probability of an output event of a DSL mechanism
on concrete queries: the check every exact refutation must pass before it is printed.

It shares no code with the first evaluator (:mod:`audit.prove.exact_event` with the path
tracer and event translation of :mod:`audit.prove.refute`); only the DSL itself (the
program's semantics) and the event *description* (:class:`audit.prove.refute.Event`, read
through its documented fields) are common.

Method.

1. **Paths** (:func:`output_law`): the program runs under :func:`audit.dsl.symbolic` with a
   tracer of this module; every draw is a named variable, every comparison a branch
   explored breadth-first by replaying decision prefixes.  Each path is a list of linear
   constraints over the draws and its output entries (bools, None, numbers, linear forms
   in the draws).
2. **Membership** (:func:`event_alternatives`): the event is a set of output vectors --
   per entry a fixed value (bool, None, a number) or "a number not in a listed set of
   constants", plus linear cuts ``sum a_i y_i >= t`` / ``< t``.  For each path this gives
   disjoint alternatives (conjunctions of linear constraints): an entry that is a linear
   form of integer (geometric) draws equals a constant with positive probability, and a
   "number" entry of that kind avoids the listed constants on disjoint open intervals.
3. **Probability** (:func:`conjunction_mass`): recursive conditioning.  The draws a
   conjunction links split into independent components (product); a component of one draw
   is an interval probability (Laplace CDF / two-sided geometric CDF, closed form); else a
   pivot is chosen (a geometric draw first, then the draw in most constraints) and

   * a geometric pivot is **summed exactly** over its feasible integers with
     ``|k| <= M``, the rest bounded by the tail mass ``2 a^(M+1) / (1 + a)``
     (a = exp(-1/b)), added to the reported error;
   * a Laplace pivot (then every draw of the component is Laplace) is **integrated** with
     mpmath's tanh-sinh quadrature at :data:`DPS` digits, split at every point where the
     conditional probability can fail to be smooth: the projections on the pivot axis of
     the vertices of the arrangement formed by the constraint hyperplanes and the
     coordinate hyperplanes x_j = 0 (Laplace density kinks), and 0.  Between two such
     points the integrand is analytic, so the quadrature converges fast; its error
     estimate is added to the reported error.  This is high-precision numerical
     integration, not an interval enclosure.

Work is bounded in units (interval evaluations), never seconds: past :data:`MAX_WORK`
the evaluator raises :class:`Unavailable`.  Nothing here prints or writes files.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

from audit import dsl
from audit.dsl import Lin

__all__ = ["DPS", "MAX_WORK", "LawPath", "Mass", "Unavailable", "conjunction_mass",
           "event_alternatives", "event_mass", "output_law"]

#: decimal digits of the quadrature and of every mpmath evaluation
DPS = 15
#: interval evaluations at most per probability (work units)
MAX_WORK = 400_000
#: geometric sums cover |k| <= M with a^(M+1) <= 10^-TAIL_DIGITS
TAIL_DIGITS = 45
#: at most this many hyperplane subsets are solved for breakpoints per integration
MAX_SUBSETS = 20_000
MAX_PATHS = 4096

Coeffs = dict[str, Any]  # draw name -> Fraction or mpf
Cons = tuple[Coeffs, Any, str]  # sum coeffs * x + const  op  0


class Unavailable(ValueError):
    """The independent evaluator cannot compute this event within its work bound."""


@dataclass(frozen=True)
class LawPath:
    """One path: its constraints, draw laws {name: (law, scale)} and output entries."""

    constraints: tuple[Cons, ...]
    laws: Mapping[str, tuple[str, Fraction]]
    output: tuple[Any, ...]


@dataclass(frozen=True)
class Mass:
    """A probability with the evaluator's error estimate (quadrature + truncated tails)."""

    value: mpmath.mpf
    error: mpmath.mpf
    work: int


# =============================================================================================
# 1. paths
# =============================================================================================


class _Recorder:
    """Tracer: draws are variables named ``d<k>:<site>``; comparisons follow ``plan``."""

    def __init__(self, plan: tuple[bool, ...]) -> None:
        self.plan = plan
        self.made: list[bool] = []
        self.cons: list[Cons] = []
        self.laws: dict[str, tuple[str, Fraction]] = {}

    def draw(self, law: str, scale: Any, site: str) -> Lin:
        name = f"d{len(self.laws)}:{site}"
        s = scale.const if isinstance(scale, Lin) else scale
        self.laws[name] = (law, _exact(s))
        return Lin.var(name)

    def decide(self, expr: Lin, op: str) -> bool:
        k = len(self.made)
        if k >= dsl.MAX_DECISIONS:
            raise Unavailable("a path makes more comparisons than the DSL allows")
        took = self.plan[k] if k < len(self.plan) else True
        self.made.append(took)
        flipped = {">=": "<", ">": "<=", "<=": ">", "<": ">="}
        self.cons.append(({v: _exact(c) for v, c in expr.terms.items()}, _exact(expr.const),
                          op if took else flipped[op]))
        return took


def _exact(v: Any) -> Fraction:
    """An int, Fraction or finite float (or anything float() reads) as a Fraction."""
    if not isinstance(v, (int, Fraction)):
        v = float(v)
        if not math.isfinite(v):
            raise Unavailable(f"value {v!r} is not finite")
    return Fraction(v)


def output_law(fn: Any, q: Sequence[Fraction], kwargs: Mapping[str, Any]) -> list[LawPath]:
    """Every path of ``fn(q, **kwargs)`` (queries concrete, draws symbolic), breadth-first."""
    queue: list[tuple[bool, ...]] = [()]
    out: list[LawPath] = []
    while queue:
        plan = queue.pop(0)
        rec = _Recorder(plan)
        with dsl.symbolic(rec):
            res = fn(list(q), **dict(kwargs))
        queue += [tuple(rec.made[:i]) + (not rec.made[i],)
                  for i in range(len(plan), len(rec.made))]
        entries = tuple(res) if isinstance(res, (list, tuple)) else (res,)
        out.append(LawPath(tuple(rec.cons), dict(rec.laws), entries))
        if len(out) > MAX_PATHS:
            raise Unavailable(f"more than {MAX_PATHS} paths")
    return out


# =============================================================================================
# 2. membership of an output vector in the event
# =============================================================================================


def _as_linear(v: Any) -> tuple[Coeffs, Fraction] | None:
    """(coefficients, constant) of a number or linear output entry; None for bool / None."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, Lin):
        return {k: _exact(c) for k, c in v.terms.items() if c != 0}, _exact(v.const)
    if isinstance(v, (int, float, Fraction)):
        return {}, _exact(v)
    raise Unavailable(f"output entry {v!r} is not a bool, None, number or linear value")


def _entry_options(want: Any, v: Any, avoid: Sequence[Fraction],
                   laws: Mapping[str, tuple[str, Fraction]]) -> list[list[Cons]] | None:
    """Disjoint alternatives (lists of constraints) under which entry ``v`` satisfies the
    event's condition ``want`` at its position; None when it never does."""
    if isinstance(want, bool):
        return [[]] if isinstance(v, bool) and v is want else None
    if isinstance(want, (tuple, list)) and list(want) == ["none"]:
        return [[]] if v is None else None
    lin = _as_linear(v)
    if lin is None:
        return None
    coeffs, const = lin
    continuous = any(laws[k][0] == "laplace" for k in coeffs)
    if isinstance(want, (tuple, list)) and len(want) == 2 and want[0] == "c":
        target = Fraction(want[1])
        if not coeffs:
            return [[]] if const == target else None
        if continuous:
            return None  # a continuous value equals a constant with probability 0
        return [[(coeffs, const - target, "==")]]
    if want != "num":
        raise Unavailable(f"event entry {want!r} is not understood")
    cuts = sorted(set(avoid))
    if not coeffs:
        return None if const in cuts else [[]]
    if continuous or not cuts:
        return [[]]
    # integer-valued: the open gaps between the avoided constants, one alternative each
    alts: list[list[Cons]] = [[(coeffs, const - cuts[0], "<")]]
    for lo, hi in itertools.pairwise(cuts):
        alts.append([(coeffs, const - lo, ">"), (coeffs, const - hi, "<")])
    alts.append([(coeffs, const - cuts[-1], ">")])
    return alts


def event_alternatives(path: LawPath, event: Any) -> list[list[Cons]]:
    """Disjoint conjunctions (path constraints included) whose union is the part of the
    event on ``path``; [] when the path never lands in the event."""
    pattern = tuple(event.pattern)
    if len(path.output) != len(pattern):
        return []
    avoid = {int(i): [Fraction(c) for c in cs] for i, cs in (event.exclude or ())}
    alts: list[list[Cons]] = [list(path.constraints)]
    for i, (want, v) in enumerate(zip(pattern, path.output, strict=True)):
        opts = _entry_options(want, v, avoid.get(i, []), path.laws)
        if opts is None:
            return []
        alts = [a + o for a in alts for o in opts]
    cuts = list(event.cuts or ())
    if event.index is not None:
        cuts.insert(0, (((event.index, Fraction(1)),), event.side or ">=", Fraction(event.t)))
    for terms, side, t in cuts:
        acc: Coeffs = {}
        const = -Fraction(t)
        for i, a in terms:
            lin = _as_linear(path.output[int(i)])
            if lin is None:
                return []
            for k, c in lin[0].items():
                acc[k] = acc.get(k, Fraction(0)) + Fraction(a) * c
            const += Fraction(a) * lin[1]
        alts = [a + [(acc, const, ">=" if side == ">=" else "<")] for a in alts]
    return alts


# =============================================================================================
# 3. probability of a conjunction by recursive conditioning
# =============================================================================================


def _mp(v: Any) -> Any:
    """``v`` as an mpf (a Fraction exactly divided at the working precision)."""
    if isinstance(v, Fraction):
        return mpmath.mpf(v.numerator) / v.denominator
    return mpmath.mpf(v)


def _root(c0: Any, a: Any) -> Any:
    """The x with a x + c0 = 0: exact when both are rational."""
    if isinstance(c0, Fraction) and isinstance(a, Fraction):
        return -c0 / a
    return -_mp(c0) / _mp(a)


def _holds(v: Any, op: str) -> bool:
    return {">=": v >= 0, ">": v > 0, "<=": v <= 0, "<": v < 0, "==": v == 0}[op]


class _Budget:
    def __init__(self) -> None:
        self.work = 0
        self.error = mpmath.mpf(0)
        self.depth = 0  # nesting of Laplace integrals in progress

    def spend(self, k: int = 1) -> None:
        self.work += k
        if self.work > MAX_WORK:
            raise Unavailable(f"more than {MAX_WORK:,} interval evaluations")


def _laplace_interval(lo: Any, hi: Any, b: Any) -> Any:
    """P(lo <= X <= hi) for X ~ Laplace(0, b) (None: unbounded), written without the
    cancellation of a difference of two CDF values near 1 (or near 0)."""
    if lo is not None and hi is not None and hi <= lo:
        return mpmath.mpf(0)
    if lo is not None and lo >= 0:  # both on the right: (e^-lo - e^-hi) / 2
        return (mpmath.exp(-lo / b) - (0 if hi is None else mpmath.exp(-hi / b))) / 2
    if hi is not None and hi <= 0:  # both on the left
        return (mpmath.exp(hi / b) - (0 if lo is None else mpmath.exp(lo / b))) / 2
    return 1 - (0 if lo is None else mpmath.exp(lo / b) / 2) - (
        0 if hi is None else mpmath.exp(-hi / b) / 2)


def _geo_ratio(b: Fraction) -> Any:
    """a = exp(-1/b), the ratio of the two-sided geometric of scale b."""
    return mpmath.exp(-mpmath.mpf(b.denominator) / b.numerator)


def _geo_interval(k_lo: int | None, k_hi: int | None, a: Any) -> Any:
    """P(k_lo <= G <= k_hi) for the two-sided geometric with ratio a (None: unbounded),
    summed on each side of 0 without cancellation: sum_{k=m}^{M} a^k = (a^m - a^(M+1))/(1-a)."""
    if k_lo is not None and k_hi is not None and k_hi < k_lo:
        return mpmath.mpf(0)

    def side(m: int, top: int | None) -> Any:  # sum_{k=m}^{top} a^k, 0 <= m
        return (a ** m - (0 if top is None else a ** (top + 1))) / (1 - a)

    total = mpmath.mpf(0)
    if k_hi is None or k_hi >= 0:  # k >= 0
        total += side(0 if k_lo is None else max(k_lo, 0), k_hi)
    if k_lo is None or k_lo < 0:  # k < 0, as |k| = lo_abs .. hi_abs
        total += side(1 if k_hi is None or k_hi >= 0 else -k_hi,
                      None if k_lo is None else -k_lo)
    return (1 - a) / (1 + a) * total


def _single(x: str, cons: Sequence[Cons], law: tuple[str, Fraction]) -> Any:
    """P(every constraint on the single draw x holds)."""
    lo: Any = None
    hi: Any = None
    lo_strict = hi_strict = False
    kind, b = law
    for co, c0, op in cons:
        a = co[x]
        root = _root(c0, a) if kind == "geometric" else _mp(_root(c0, a))
        if op == "==":
            if kind == "laplace":
                return mpmath.mpf(0)
            lo = root if lo is None or root > lo else lo
            hi = root if hi is None or root < hi else hi
            continue
        upper = (op in ("<", "<=")) == (a > 0)
        strict = op in ("<", ">")
        if upper and (hi is None or root < hi or (root == hi and strict)):
            hi, hi_strict = root, strict
        if not upper and (lo is None or root > lo or (root == lo and strict)):
            lo, lo_strict = root, strict
    if kind == "laplace":
        return _laplace_interval(None if lo is None else _mp(lo),
                                 None if hi is None else _mp(hi), _mp(b))
    return _geo_interval(None if lo is None else _int_above(lo, lo_strict),
                         None if hi is None else _int_below(hi, hi_strict), _geo_ratio(b))


def _int_above(v: Any, strict: bool) -> int:
    k = int(mpmath.ceil(v)) if not isinstance(v, Fraction) else math.ceil(v)
    return k + 1 if strict and k == v else k


def _int_below(v: Any, strict: bool) -> int:
    k = int(mpmath.floor(v)) if not isinstance(v, Fraction) else math.floor(v)
    return k - 1 if strict and k == v else k


def _components(cons: Sequence[Cons]) -> list[tuple[list[str], list[Cons]]]:
    """Groups of draws linked by constraints, with their constraints (sorted names)."""
    owner: dict[str, int] = {}
    groups: list[tuple[set[str], list[Cons]]] = []
    for c in cons:
        hit = sorted({owner[x] for x in c[0] if x in owner})
        if hit:
            keep = hit[0]
            for j in hit[1:]:
                groups[keep][0].update(groups[j][0])
                groups[keep][1].extend(groups[j][1])
                for x in groups[j][0]:
                    owner[x] = keep
                groups[j] = (set(), [])
        else:
            keep = len(groups)
            groups.append((set(), []))
        groups[keep][0].update(c[0])
        groups[keep][1].append(c)
        for x in c[0]:
            owner[x] = keep
    return [(sorted(g), cs) for g, cs in groups if g]


def _substitute(cons: Sequence[Cons], x: str, v: Any) -> list[Cons]:
    """The constraints with draw ``x`` fixed at ``v`` (an int stays exact; a real value
    turns the constants it touches into mpf)."""
    out: list[Cons] = []
    for co, c0, op in cons:
        if x in co:
            rest = {k: c for k, c in co.items() if k != x}
            shift = co[x] * v if isinstance(v, (int, Fraction)) else _mp(co[x]) * v
            out.append((rest, (c0 if isinstance(shift, Fraction) else _mp(c0)) + shift, op))
        else:
            out.append((co, c0, op))
    return out


def _mass(cons: Sequence[Cons], laws: Mapping[str, tuple[str, Fraction]], bud: _Budget) -> Any:
    live: list[Cons] = []
    for co, c0, op in cons:
        nz = {k: c for k, c in co.items() if c != 0}
        if not nz:
            if not _holds(c0, op):
                return mpmath.mpf(0)
            continue
        if op == "==" and any(laws[k][0] == "laplace" for k in nz):
            return mpmath.mpf(0)
        live.append((nz, c0, op))
    total = mpmath.mpf(1)
    for names, group in _components(live):
        bud.spend()
        if len(names) == 1:
            total *= _single(names[0], group, laws[names[0]])
        else:
            total *= _pivot_mass(names, group, laws, bud)
        if total == 0:
            return total
    return total


def _pivot_mass(names: list[str], cons: list[Cons], laws: Mapping[str, tuple[str, Fraction]],
                bud: _Budget) -> Any:
    geo = [x for x in names if laws[x][0] == "geometric"]
    # the draw linked to the most others: conditioning on it leaves the most single draws
    links = {x: len(set().union(*[set(c[0]) for c in cons if x in c[0]]) - {x})
             for x in names}
    degree = {x: sum(1 for c in cons if x in c[0]) for x in names}
    pivot = max(geo or names, key=lambda x: (links[x], degree[x], x))
    own = [c for c in cons if set(c[0]) == {pivot}]
    rest = [c for c in cons if set(c[0]) != {pivot}]
    b = laws[pivot][1]
    if laws[pivot][0] == "geometric":
        return _sum_geometric(pivot, b, own, rest, laws, bud)
    return _integrate_laplace(pivot, b, own, rest, names, laws, bud)


def _pivot_range(pivot: str, own: Sequence[Cons]) -> tuple[Any, Any]:
    lo: Any = None
    hi: Any = None
    for co, c0, op in own:
        a = co[pivot]
        root = _mp(_root(c0, a))  # a Laplace pivot: real bounds
        if op == "==":
            lo, hi = root, root
            continue
        if (op in ("<", "<=")) == (a > 0):
            hi = root if hi is None or root < hi else hi
        else:
            lo = root if lo is None or root > lo else lo
    return lo, hi


def _sum_geometric(pivot: str, b: Fraction, own: list[Cons], rest: list[Cons],
                   laws: Mapping[str, tuple[str, Fraction]], bud: _Budget) -> Any:
    a = _geo_ratio(b)
    m_cut = int(math.ceil(TAIL_DIGITS * math.log(10) * float(b))) + 1
    lo, hi = -m_cut, m_cut
    for co, c0, op in own:  # exact integer range from the pivot's own constraints
        coef = co[pivot]
        root = _root(c0, coef)
        if op == "==":
            if root != int(mpmath.floor(root)):
                return mpmath.mpf(0)
            lo, hi = max(lo, int(mpmath.floor(root))), min(hi, int(mpmath.floor(root)))
            continue
        strict = op in ("<", ">")
        if (op in ("<", "<=")) == (coef > 0):
            hi = min(hi, _int_below(root, strict))
        else:
            lo = max(lo, _int_above(root, strict))
    norm = (1 - a) / (1 + a)
    acc = mpmath.mpf(0)
    for k in range(lo, hi + 1):
        bud.spend()
        acc += norm * a ** abs(k) * _mass(_substitute(rest, pivot, k), laws, bud)
    bud.error += 2 * a ** (m_cut + 1) / (1 + a)
    return acc


def _breakpoints(pivot: str, names: list[str], own: list[Cons], rest: list[Cons]
                 ) -> list[Any]:
    """Pivot values where the conditional probability of ``rest`` may not be smooth: the
    projections of the vertices of the arrangement of the constraint hyperplanes and the
    other draws' planes x_j = 0, the pivot's own bounds, and 0."""
    order = [pivot, *[x for x in names if x != pivot]]
    planes: list[tuple[list[Any], Any]] = []
    for co, c0, _ in rest + own:
        planes.append(([_mp(co.get(x, 0)) for x in order], -_mp(c0)))
    for j in range(1, len(order)):
        planes.append(([mpmath.mpf(1) if i == j else mpmath.mpf(0) for i in range(len(order))],
                       mpmath.mpf(0)))
    m = len(order)
    pts = {mpmath.mpf(0)}
    for co, c0, _ in own:
        pts.add(-_mp(c0) / _mp(co[pivot]))
    count = 0
    for subset in itertools.combinations(planes, m):
        count += 1
        if count > MAX_SUBSETS:
            raise Unavailable(f"more than {MAX_SUBSETS:,} hyperplane subsets to solve")
        x0 = _first_coordinate([list(r) for r, _ in subset], [rhs for _, rhs in subset])
        if x0 is not None:
            pts.add(x0)
    return sorted(pts)


def _first_coordinate(rows: list[list[Any]], rhs: list[Any]) -> Any:
    """x[0] of the square system rows x = rhs (Gaussian elimination with partial pivoting);
    None when the system is (numerically) singular."""
    m = len(rows)
    tiny = mpmath.mpf(10) ** (-DPS + 5)
    for col in range(m):
        piv = max(range(col, m), key=lambda r: abs(rows[r][col]))
        if abs(rows[piv][col]) < tiny:
            return None
        rows[col], rows[piv] = rows[piv], rows[col]
        rhs[col], rhs[piv] = rhs[piv], rhs[col]
        for r in range(col + 1, m):
            f = rows[r][col] / rows[col][col]
            if f:
                rows[r] = [x - f * y for x, y in zip(rows[r], rows[col], strict=True)]
                rhs[r] -= f * rhs[col]
    x = [mpmath.mpf(0)] * m
    for r in range(m - 1, -1, -1):
        x[r] = (rhs[r] - sum((rows[r][c] * x[c] for c in range(r + 1, m)), mpmath.mpf(0))
                ) / rows[r][r]
    return x[0]


def _leaf_bounds(pivot: str, rest: list[Cons], laws: Mapping[str, tuple[str, Fraction]]
                 ) -> tuple[list[tuple[Any, list[tuple[Any, Any]], list[tuple[Any, Any]]]],
                            list[Cons]]:
    """Split ``rest`` into the draws that no constraint links to a draw other than the
    pivot (each as its scale and the lower / upper bound lines ``x >= al s + be``) and the
    remaining constraints (evaluated by recursion)."""
    links: dict[str, set[str]] = {}
    for co, _, _ in rest:
        others = set(co) - {pivot}
        for x in others:
            links.setdefault(x, set()).update(others - {x})
    alone = {x for x, ls in links.items() if not ls}
    bounds: dict[str, tuple[list[tuple[Any, Any]], list[tuple[Any, Any]]]] = {}
    coupled: list[Cons] = []
    for co, c0, op in rest:
        others = set(co) - {pivot}
        if len(others) != 1 or next(iter(others)) not in alone:
            coupled.append((co, c0, op))
            continue
        (x,) = others
        ax = _mp(co[x])
        line = (-_mp(co.get(pivot, 0)) / ax, -_mp(c0) / ax)
        lows, ups = bounds.setdefault(x, ([], []))
        (ups if (op in ("<", "<=")) == (ax > 0) else lows).append(line)
    leaves = [(_mp(laws[x][1]), lows, ups) for x, (lows, ups) in sorted(bounds.items())]
    return leaves, coupled


def _integrate_laplace(pivot: str, b: Fraction, own: list[Cons], rest: list[Cons],
                       names: list[str], laws: Mapping[str, tuple[str, Fraction]],
                       bud: _Budget) -> Any:
    lo, hi = _pivot_range(pivot, own)
    if lo is not None and hi is not None and hi <= lo:
        return mpmath.mpf(0)
    bb = _mp(b)
    cuts = [p for p in _breakpoints(pivot, names, own, rest)
            if (lo is None or p > lo) and (hi is None or p < hi)]
    edges = [_mp(lo) if lo is not None else -mpmath.inf, *cuts,
             _mp(hi) if hi is not None else mpmath.inf]

    leaves, coupled = _leaf_bounds(pivot, rest, laws)

    def f(s: Any) -> Any:
        bud.spend()
        g = mpmath.exp(-abs(s) / bb) / (2 * bb)
        for scale, lows, ups in leaves:  # a draw only the pivot links: closed form
            g *= _laplace_interval(max((al * s + be for al, be in lows), default=None),
                                   min((al * s + be for al, be in ups), default=None), scale)
            if not g:
                return g
        if coupled and g:
            g *= _mass(_substitute(coupled, pivot, s), laws, bud)
        return g

    total = mpmath.mpf(0)
    # a nested integral runs 5 digits finer than the one around it, so the outer
    # quadrature's error estimate is not swamped by the inner one's rounding noise
    bud.depth += 1
    try:
        with mpmath.workdps(DPS + 5 * (bud.depth - 1)):
            for a, c in itertools.pairwise(edges):
                if a == c:
                    continue
                val, err = mpmath.quad(f, [a, c], error=True)
                total += val
                if bud.depth == 1:
                    bud.error += abs(err)
    finally:
        bud.depth -= 1
    return total


def conjunction_mass(cons: Sequence[Cons], laws: Mapping[str, tuple[str, Fraction]]) -> Mass:
    """P(every constraint holds) for independent draws with ``laws``, with the error
    estimate and the work spent (module docstring, step 3)."""
    bud = _Budget()
    with mpmath.workdps(DPS):
        v = _mass(cons, laws, bud)
        return Mass(+v, +bud.error, bud.work)


def event_mass(paths: Sequence[LawPath], event: Any) -> Mass:
    """P(output in ``event``): the sum over paths and their disjoint alternatives."""
    bud = _Budget()
    with mpmath.workdps(DPS):
        total = mpmath.mpf(0)
        for p in paths:
            for alt in event_alternatives(p, event):
                total += _mass(alt, p.laws, bud)
        return Mass(+total, +bud.error, bud.work)
