"""Exact refutation of a DSL mechanism's epsilon claim: concrete neighbouring query vectors
q, q', an output event E, and P(M(q) in E), P(M(q') in E) computed exactly
(:mod:`audit.prove.exact_event`), so that ln(P / P') > epsilon is a certified violation.

What it does.

1. **Paths on concrete inputs** (:func:`trace_paths`): the mechanism function runs inside
   :func:`audit.dsl.symbolic` with a tracer of its own, the queries and parameters
   concrete (exact rationals) and every draw (``laplace(b)`` / ``geometric(b)``) a fresh
   draw variable; arithmetic builds linear expressions with rational coefficients,
   comparisons fork the run (depth-first over decision sequences, re-executing the
   function).  Each path is a conjunction of linear constraints over independent draws plus
   its output (bools / numbers / linear expressions).  This concrete-input executor is
   independent of the symbolic executor of ``dpaudit prove`` (:mod:`audit.prove.symbolic`),
   so a witness does not rest on the prover's own path enumeration (the tests check that
   both give identical exact probabilities).
2. **Events**: one per discrete output pattern (the union of the paths printing it); for an
   output with numeric entries, the pattern plus a half-line {y_k >= t} / {y_k < t} on one
   numeric entry, t on a grid around the entry's noiseless value (where the two densities'
   ratio is steepest for Laplace noise: the tails).
3. **Search scope** (:func:`refute`): n = 1..``n_max`` queries; base vectors with all
   entries equal to a value of a small grid (``values``: -1, 0, 1 and the program's
   threshold default ``T`` if it has one) plus caller-supplied seeds (e.g. Z3
   counterexamples); differences: ``linf1`` every d in {-1, 0, 1}^n, ``monotone1`` every d
   in {0, 1}^n and {0, -1}^n, ``onehot1`` +-e_i.  Both directions of every pair and every
   event are evaluated exactly; the program is **refuted** when a certified lower bound
   ln(P_lower / P'_upper) exceeds the claimed epsilon.  When nothing exceeds it the
   result is ``not-refuted`` over the stated scope, never "verified".
4. **Witness** (:class:`Witness`): program reference, q, q', epsilon, event (output pattern
   and interval), the exact closed forms and enclosures of P and P', epsilon_witness with
   its certified lower bound; :func:`replay_witness` recomputes it from the JSON document.
5. **Finding** (:func:`refute_finding`): ``refuted`` (method exact) with a counterexample
   document whose replayer (check ``prove.refute``, :func:`replay_refutation`) recomputes
   it, else ``not-refuted`` with the scope.
6. **Black-box agreement** (:func:`blackbox_agreement`): the same program run concretely
   (:meth:`audit.dsl.Mechanism.sample`) through dpaudit's black-box tester on the witness
   pair; the tester's certified lower bound must not exceed the exact epsilon_witness when
   that is the pair's exact epsilon (discrete outputs: the best output pattern over both
   directions is the pair's epsilon, since a union of patterns never has a larger ratio),
   and a violation flagged by the tester confirms the refutation empirically.

7. **Pairs around thresholds** (:func:`threshold_pairs`): for sizes beyond those a proof
   covered, neighbouring pairs placed on, above and below the thresholds the program's
   comparisons put on each query (read from runs with symbolic queries), in StatDP's
   patterns; a bounded list of seeds for :func:`refute`.

Events outside :mod:`audit.prove.exact_event`'s class (e.g. paths whose comparisons link
three draws pairwise) are skipped and counted in the result (``skipped_events``); the
benchmark tests require none in their scopes.

Nothing here prints or writes files.
"""

from __future__ import annotations

import importlib
import inspect
import itertools
import math
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import mpmath

from audit import dsl
from audit.dsl import Lin
from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.prove.exact_event import (
    Constraint,
    DrawLaw,
    ExactProbability,
    UnsupportedEvent,
    event_probability,
    to_fraction,
)
from audit.registry import replayer

__all__ = [
    "CHECK_REFUTE",
    "RELATIONS",
    "Lin",
    "RefuteResult",
    "TracedPath",
    "Witness",
    "blackbox_agreement",
    "candidate_pairs",
    "evaluate_pair",
    "independent_log_ratio",
    "query_thresholds",
    "refute",
    "refute_finding",
    "replay_refutation",
    "replay_witness",
    "threshold_pairs",
    "trace_paths",
]

RELATIONS = ("linf1", "monotone1", "onehot1")
MAX_PATHS = 4096


_NEG = {">=": "<", ">": "<=", "<=": ">", "<": ">="}


class _ConcreteInputTracer:
    """The :class:`audit.dsl.Tracer` of one run on concrete queries: draws become named
    variables, each comparison takes the next decision of ``prefix`` (True past its end)."""

    def __init__(self, prefix: Sequence[bool]) -> None:
        self.prefix = list(prefix)
        self.taken: list[bool] = []
        self.constraints: list[Constraint] = []
        self.draws: dict[str, DrawLaw] = {}
        self.sites: dict[str, int] = {}

    def draw(self, law: str, scale: Any, site: str) -> Lin:
        k = self.sites.get(site, 0)
        self.sites[site] = k + 1
        name = f"{site}#{k}"
        if isinstance(scale, Lin):
            scale = scale.const
        self.draws[name] = DrawLaw(name, law, to_fraction(scale, "noise scale"))
        return Lin.var(name)

    def decide(self, expr: Lin, op: str) -> bool:
        i = len(self.taken)
        if i >= dsl.MAX_DECISIONS:
            raise UnsupportedEvent(f"a path made more than {dsl.MAX_DECISIONS} comparisons "
                                   "(a loop that does not end)")
        v = self.prefix[i] if i < len(self.prefix) else True
        self.taken.append(v)
        unknown = set(expr.terms) - set(self.draws)
        if unknown:
            raise UnsupportedEvent(f"comparison over non-draw variables {sorted(unknown)} "
                                   "(refutation runs on concrete queries and parameters)")
        self.constraints.append(Constraint(expr.terms, expr.const, op if v else _NEG[op]))
        return v


@dataclass(frozen=True)
class TracedPath:
    """One execution path on concrete queries: its constraints, draws and output."""

    decisions: tuple[bool, ...]
    constraints: tuple[Constraint, ...]
    draws: Mapping[str, DrawLaw]
    output: tuple[Any, ...]

    @property
    def pattern(self) -> tuple[Any, ...]:
        return output_pattern(self.output)


def output_pattern(output: Sequence[Any]) -> tuple[Any, ...]:
    """The discrete part of an output: bools, ints and constants kept, a draw-dependent
    entry replaced by ``"num"``."""
    out: list[Any] = []
    for v in output:
        if isinstance(v, Lin):
            out.append("num" if v.terms else ("c", str(v.const)))
        elif isinstance(v, bool):
            out.append(v)
        elif isinstance(v, (int, Fraction, float)):
            out.append(("c", str(to_fraction(v))))
        elif v is None:
            out.append(("none",))
        else:
            raise UnsupportedEvent(f"output entry {v!r}: refutation handles flat outputs of "
                                   "bools, numbers, None and linear values")
    return tuple(out)


def raw_function(program: Any) -> Callable[..., Any]:
    """The plain Python function of a DSL mechanism."""
    f = getattr(program, "fn", None) or getattr(program, "__wrapped__", None) or program
    if not callable(f):
        raise UnsupportedEvent(f"{program!r} is not a DSL mechanism or function")
    return f


def trace_paths(program: Any, q: Sequence[Any], eps: Any, params: Mapping[str, Any] | None = None,
                eps_name: str = "eps", max_paths: int = MAX_PATHS) -> list[TracedPath]:
    """Every path of ``program(q, eps=eps, **params)`` with the queries concrete (exact
    rationals) and the draws symbolic (module docstring, step 1)."""
    fn = raw_function(program)
    qs = [to_fraction(v, "query value") for v in q]
    kw = {**dict(getattr(program, "params", None) or {}), **dict(params or {})}
    kw[eps_name] = to_fraction(eps, "epsilon")
    paths: list[TracedPath] = []
    stack: list[list[bool]] = [[]]
    while stack:
        prefix = stack.pop()
        tr = _ConcreteInputTracer(prefix)
        with dsl.symbolic(tr):
            out = fn(list(qs), **kw)
        for i in range(len(prefix), len(tr.taken)):
            stack.append(tr.taken[:i] + [not tr.taken[i]])
        outs = tuple(out) if isinstance(out, (list, tuple)) else (out,)
        paths.append(TracedPath(tuple(tr.taken), tuple(tr.constraints), dict(tr.draws), outs))
        if len(paths) > max_paths:
            raise UnsupportedEvent(f"more than {max_paths} paths")
    return paths


# =============================================================================================
# events and their exact probabilities
# =============================================================================================


#: a linear cut on numeric output entries: ((index, coefficient), ...), side, t meaning
#: sum coefficient * output[index]  side  t, side ">=" or "<"
Cut = tuple[tuple[tuple[int, Fraction], ...], str, Fraction]


@dataclass(frozen=True)
class Event:
    """A set of output vectors (so the same set on q and on q').

    ``pattern`` fixes every entry: a bool, ``("none",)``, ``("c", value)`` (that number) or
    ``"num"`` (a number *not* among the constants ``exclude`` lists for that index);
    ``index`` / ``side`` / ``t`` add the half-line ``output[index] side t`` and ``cuts``
    further linear cuts on several numeric entries (a half-plane on a pair, the sides of a
    box).  A path whose entry is a linear form of integer (geometric) draws lands in a
    constant entry with positive probability, and is counted there (issue 36, class 1)."""

    pattern: tuple[Any, ...]
    index: int | None = None
    side: str | None = None
    t: Fraction | None = None
    cuts: tuple[Cut, ...] = ()
    exclude: tuple[tuple[int, tuple[Fraction, ...]], ...] = ()

    def all_cuts(self) -> list[Cut]:
        one: list[Cut] = ([] if self.index is None or self.t is None else
                          [(((self.index, Fraction(1)),), self.side or ">=", self.t)])
        return one + list(self.cuts)

    def as_doc(self) -> dict[str, Any]:
        return {"pattern": [list(p) if isinstance(p, tuple) else p for p in self.pattern],
                "index": self.index, "side": self.side,
                "t": None if self.t is None else str(self.t),
                "cuts": [[[[i, str(a)] for i, a in terms], side, str(t)]
                         for terms, side, t in self.cuts],
                "exclude": [[i, [str(c) for c in cs]] for i, cs in self.exclude]}

    @staticmethod
    def from_doc(d: Mapping[str, Any]) -> Event:
        pat = tuple(tuple(p) if isinstance(p, list) else p for p in d["pattern"])
        cuts = tuple((tuple((int(i), Fraction(a)) for i, a in terms), str(side), Fraction(t))
                     for terms, side, t in d.get("cuts") or ())
        excl = tuple((int(i), tuple(Fraction(c) for c in cs))
                     for i, cs in d.get("exclude") or ())
        return Event(pat, d.get("index"), d.get("side"),
                     None if d.get("t") is None else Fraction(d["t"]), cuts, excl)

    def describe(self) -> str:
        s = f"output pattern {list(self.pattern)}"
        for terms, side, t in self.all_cuts():
            lhs = " + ".join(f"output[{i}]" if a == 1 else f"{a}*output[{i}]"
                             for i, a in terms).replace("+ -1*", "- ")
            s += f" and {lhs} {side} {t}"
        if self.exclude:
            s += "; numbers other than " + ", ".join(
                f"{[str(c) for c in cs]} at [{i}]" for i, cs in self.exclude)
        return s


def _lin(v: Any) -> Lin:
    out = Lin.lift(v)
    if out is None:
        raise UnsupportedEvent(f"output entry {v!r} is not a number or linear value")
    return out


def _continuous(y: Lin, draws: Mapping[str, DrawLaw]) -> bool:
    return any(draws[k].law == "laplace" for k, c in y.terms.items() if c != 0)


def _entry_match(want: Any, v: Any, avoid: Sequence[Fraction],
                 draws: Mapping[str, DrawLaw]) -> list[list[Constraint]] | None:
    """Disjoint extra constraints under which output entry ``v`` is in ``want`` (see
    :class:`Event`); None: never."""
    if isinstance(v, bool) or v is None:
        ok = (v is None and want == ("none",)) or (isinstance(want, bool) and want is v)
        return [[]] if ok else None
    y = _lin(v)
    if not y.terms:
        c = to_fraction(y.const)
        if want == "num":
            return None if c in avoid else [[]]
        return [[]] if want == ("c", str(c)) else None
    if want == "num":
        ks = sorted(set(avoid))
        if not ks or _continuous(y, draws):
            return [[]]
        # an integer-valued entry: the open gaps between the avoided constants
        bounds = [None, *ks, None]
        out = []
        for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
            cs = []
            if lo is not None:
                cs.append(Constraint(y.terms, y.const - lo, ">"))
            if hi is not None:
                cs.append(Constraint(y.terms, y.const - hi, "<"))
            out.append(cs)
        return out
    if isinstance(want, tuple) and len(want) == 2 and want[0] == "c":
        if _continuous(y, draws):
            return None  # a continuous entry equals a constant with probability 0
        return [[Constraint(y.terms, y.const - Fraction(want[1]), "==")]]
    return None


def event_paths(paths: Sequence[TracedPath], ev: Event
                ) -> tuple[dict[str, DrawLaw], list[list[Constraint]]]:
    """The draws and disjoint constraint conjunctions whose union is ``ev``: every path
    whose output can lie in the set, with the conditions under which it does."""
    draws: dict[str, DrawLaw] = {}
    conj: list[list[Constraint]] = []
    avoid = dict(ev.exclude)
    cuts = ev.all_cuts()
    for p in paths:
        if len(p.output) != len(ev.pattern):
            continue
        alts: list[list[Constraint]] = [list(p.constraints)]
        for i, (want, v) in enumerate(zip(ev.pattern, p.output, strict=True)):
            extra = _entry_match(want, v, avoid.get(i, ()), p.draws)
            if extra is None:
                alts = []
                break
            alts = [a + e for a in alts for e in extra]
        if not alts:
            continue
        for terms, side, t in cuts:
            d = sum((a * _lin(p.output[i]) for i, a in terms), Lin()) - _lin(t)
            alts = [a + [Constraint(d.terms, d.const, side)] for a in alts]
        draws.update(p.draws)
        conj.extend(alts)
    return draws, conj


def probability(paths: Sequence[TracedPath], ev: Event, digits: int = 40) -> ExactProbability:
    draws, conj = event_paths(paths, ev)
    return event_probability(draws, conj, digits)


#: offsets (x 1/eps) of the half-line thresholds around an entry's noiseless value
OFFSETS = (-2, -1, 0, 1, 2)
#: offsets (x 1/eps) of the joint (box / half-plane) thresholds on a pair of entries
JOINT_OFFSETS = (-1, 0, 1)


def _single_draw(v: Any) -> bool:
    return isinstance(v, Lin) and len(v.terms) == 1


def candidate_events(paths_a: Sequence[TracedPath], paths_b: Sequence[TracedPath],
                     eps: Fraction, offsets: Sequence[int] = OFFSETS,
                     joint: bool = True) -> list[Event]:
    """The events of one pair (the same list whatever the order of the two sides):

    * every output pattern of either side, numeric entries meaning "a number other than the
      constants either side prints at that index";
    * half-lines ``y_k >= t`` / ``y_k < t`` on each numeric entry, t at the entry's noiseless
      values + ``offsets`` / eps;
    * ``joint``: for each pair (i, j) of numeric entries that some path prints as one draw
      each (plus a constant), half-planes ``y_i - y_j`` and ``y_i + y_j`` >= / < t (t at the
      pair's noiseless difference / sum + :data:`JOINT_OFFSETS` / eps) and the four
      quadrants of a box corner at the entries' noiseless values + o / eps (the same o in
      JOINT_OFFSETS for both): a leak that shows only jointly in two outputs (issue 36)."""
    evs: dict[Event, None] = {}
    consts: dict[tuple[tuple[Any, ...], int], set[Fraction]] = {}
    printed: dict[int, set[Fraction]] = {}
    pairs: dict[tuple[tuple[Any, ...], int, int], set[tuple[Fraction, Fraction]]] = {}
    for p in [*paths_a, *paths_b]:
        for i, v in enumerate(p.output):
            if isinstance(v, Lin) and v.terms:
                consts.setdefault((p.pattern, i), set()).add(v.const)
            elif not isinstance(v, bool) and v is not None:
                printed.setdefault(i, set()).add(to_fraction(_lin(v).const))
        if joint:
            nums = [i for i, v in enumerate(p.output) if _single_draw(v)]
            for i, j in itertools.combinations(nums, 2):
                pairs.setdefault((p.pattern, i, j), set()).add(
                    (p.output[i].const, p.output[j].const))

    def excl(pat: tuple[Any, ...]) -> tuple[tuple[int, tuple[Fraction, ...]], ...]:
        return tuple((i, tuple(sorted(printed[i]))) for i, e in enumerate(pat)
                     if e == "num" and printed.get(i))

    for p in [*paths_a, *paths_b]:
        evs[Event(p.pattern, exclude=excl(p.pattern))] = None
    unit = 1 / eps
    for (pat, i), cs in sorted(consts.items(), key=lambda kv: repr(kv[0])):
        ts = sorted({c + o * unit for c in cs for o in offsets})
        for t in ts:
            for side in (">=", "<"):
                evs[Event(pat, i, side, t, exclude=excl(pat))] = None
    for (pat, i, j), cc in sorted(pairs.items(), key=lambda kv: repr(kv[0])):
        ex = excl(pat)
        for sign in (Fraction(-1), Fraction(1)):
            ts = sorted({ci + sign * cj + o * unit for ci, cj in cc for o in JOINT_OFFSETS})
            for t in ts:
                for side in (">=", "<"):
                    cut = (((i, Fraction(1)), (j, sign)), side, t)
                    evs[Event(pat, cuts=(cut,), exclude=ex)] = None
        for ci, cj in sorted(cc):
            for o in JOINT_OFFSETS:  # corners on the diagonal of the two offsets
                ti, tj = ci + o * unit, cj + o * unit
                for si, sj in itertools.product((">=", "<"), repeat=2):
                    box = ((((i, Fraction(1)),), si, ti), (((j, Fraction(1)),), sj, tj))
                    evs[Event(pat, cuts=box, exclude=ex)] = None
    return list(evs)


def _log_ratio_bounds(p: ExactProbability, pp: ExactProbability
                      ) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf]:
    """(certified lower bound, midpoint value, certified upper bound) of ln(P / P'), in
    interval arithmetic at the probabilities' precision (outward rounding)."""
    inf = mpmath.inf
    if p.upper == 0:
        return -inf, -inf, -inf
    if pp.upper == 0:
        return inf, inf, inf
    iv = mpmath.iv
    saved = iv.prec
    prec = int(p.digits * 3.33) + 40
    iv.prec = prec
    try:
        with mpmath.workprec(prec):
            lo = iv.log(iv.mpf(p.lower) / iv.mpf(pp.upper)).a if p.lower > 0 else -inf
            hi = iv.log(iv.mpf(p.upper) / iv.mpf(pp.lower)).b if pp.lower > 0 else inf
            mid = (mpmath.log(p.mid / pp.mid) if pp.mid > 0 and p.mid > 0 else
                   (lo + hi) / 2)
            return mpmath.mpf(lo), +mid, mpmath.mpf(hi)
    finally:
        iv.prec = saved


# =============================================================================================
# the witness, its document and replay
# =============================================================================================


def program_ref(program: Any) -> str:
    fn = raw_function(program)
    return f"{fn.__module__}:{fn.__name__}"


def load_program(ref: str) -> Any:
    mod, _, name = ref.partition(":")
    return getattr(importlib.import_module(mod), name)


@dataclass(frozen=True)
class Witness:
    """A concrete refutation: ln(P(M(q) in E) / P(M(q') in E)) > epsilon, exactly."""

    program: str
    q: tuple[Fraction, ...]
    q_prime: tuple[Fraction, ...]
    epsilon: Fraction
    params: Mapping[str, Any]
    event: Event
    p: ExactProbability
    p_prime: ExactProbability
    eps_lower: mpmath.mpf
    eps_value: mpmath.mpf
    digits: int
    #: the independent evaluator's figures (:class:`Confirmation`), once checked
    independent: dict[str, Any] | None = None

    @property
    def refutes(self) -> bool:
        return bool(self.eps_lower > mpmath.mpf(self.epsilon.numerator) / self.epsilon.denominator)

    def as_doc(self) -> dict[str, Any]:
        def num(x: mpmath.mpf) -> str:
            return "inf" if x == mpmath.inf else mpmath.nstr(x, self.digits)

        return {
            "kind": "dsl-refutation",
            "program": self.program,
            "q": [str(v) for v in self.q],
            "q_prime": [str(v) for v in self.q_prime],
            "epsilon": str(self.epsilon),
            "params": {k: str(v) for k, v in self.params.items()},
            "event": self.event.as_doc(),
            "P": self.p.as_dict(),
            "P_prime": self.p_prime.as_dict(),
            "epsilon_witness": num(self.eps_value),
            "epsilon_witness_lower": num(self.eps_lower),
            "digits": self.digits,
            **({} if self.independent is None else {"independent": self.independent}),
        }


def _eps_name(program: Any) -> str:
    name = getattr(program, "epsilon_param", None)
    return name if isinstance(name, str) else "eps"


def evaluate_pair(program: Any, q: Sequence[Any], q_prime: Sequence[Any], eps: Any,
                  params: Mapping[str, Any] | None = None, digits: int = 40,
                  events: Sequence[Event] | None = None,
                  cache: dict[Any, Any] | None = None
                  ) -> tuple[Witness | None, int]:
    """The best witness over the candidate events (both directions) of one pair, and the
    number of events skipped as outside the exact class.  ``cache`` (one per program,
    epsilon, parameters and digits) keeps the paths and event probabilities of every query
    vector already seen: a base vector is shared by many pairs."""
    eps_f = to_fraction(eps, "epsilon")
    name = _eps_name(program)
    cache = {} if cache is None else cache
    qa = tuple(to_fraction(x) for x in q)
    qb = tuple(to_fraction(x) for x in q_prime)

    def paths(key: tuple[Fraction, ...]) -> list[TracedPath]:
        if ("paths", key) not in cache:
            cache[("paths", key)] = trace_paths(program, key, eps_f, params, name)
        return cache[("paths", key)]

    def prob(key: tuple[Fraction, ...], ev: Event) -> ExactProbability | None:
        # an output pattern outside the exact class stays outside with a further interval
        # constraint (constraints only add links), so its variants are skipped at once
        bad = ("unsupported", key, ev.pattern)
        if bad in cache:
            return None
        k = ("p", key, ev)
        if k not in cache:
            try:
                cache[k] = probability(paths(key), ev, digits)
            except UnsupportedEvent:
                cache[k] = None
                cache[bad] = True
        return cache[k]

    pa, pb = paths(qa), paths(qb)
    evs = list(events) if events is not None else candidate_events(pa, pb, eps_f)
    best: Witness | None = None
    skipped = 0
    for ev in evs:
        p, pp = prob(qa, ev), prob(qb, ev)
        if p is None or pp is None:
            skipped += 1
            continue
        for a, b, x, y in ((q, q_prime, p, pp), (q_prime, q, pp, p)):
            if best is not None and x.upper > 0 and y.lower > 0 and best.eps_lower > -mpmath.inf:
                # cheap screen: ln(x_upper / y_lower) bounds the certified figure above
                if float(x.upper) < float(y.lower) * math.exp(float(best.eps_lower)) * (1 - 1e-9):
                    continue
            lo, mid, _ = _log_ratio_bounds(x, y)
            if best is None or lo > best.eps_lower:
                best = Witness(program_ref(program), tuple(to_fraction(v) for v in a),
                               tuple(to_fraction(v) for v in b), eps_f, dict(params or {}),
                               ev, x, y, lo, mid, digits)
    return best, skipped


#: the two evaluators must agree to this relative tolerance on each probability
AGREEMENT = 1e-9


@dataclass(frozen=True)
class Confirmation:
    """A witness's two probabilities recomputed by :mod:`audit.prove.enumerate_law`."""

    agree: bool
    p: mpmath.mpf
    p_prime: mpmath.mpf
    error: mpmath.mpf
    work: int
    reason: str = ""

    def as_doc(self) -> dict[str, Any]:
        return {"method": "independent evaluator (audit/prove/enumerate_law.py: geometric "
                          "draws summed exactly, Laplace draws by mpmath quadrature)",
                "P": mpmath.nstr(self.p, 15), "P_prime": mpmath.nstr(self.p_prime, 15),
                "error_estimate": mpmath.nstr(self.error, 3), "work_units": self.work,
                "agree": self.agree, "tolerance": AGREEMENT,
                **({"reason": self.reason} if self.reason else {})}


def _close(exact: ExactProbability, other: mpmath.mpf, err: mpmath.mpf) -> bool:
    """``other`` agrees with every point of the exact enclosure to AGREEMENT relative, and
    its own error estimate ``err`` is below that tolerance too (a loose figure confirms
    nothing); both exactly 0 also agree."""
    if exact.upper == 0 or other == 0:
        return bool(exact.upper == 0 and other == 0)
    scale = max(abs(exact.mid), abs(other))
    gap = max(abs(other - exact.lower), abs(other - exact.upper))
    return bool(gap <= AGREEMENT * scale and err <= AGREEMENT * scale)


def independent_probability(program: Any, q: Sequence[Any], eps: Fraction,
                            params: Mapping[str, Any] | None, ev: Event) -> Any:
    """P(M(q) in ev) by the independent evaluator (its own path enumeration, membership
    and integration: :mod:`audit.prove.enumerate_law`)."""
    from audit.prove import enumerate_law

    kw = {**dict(getattr(program, "params", None) or {}), **dict(params or {})}
    kw[_eps_name(program)] = eps
    law = enumerate_law.output_law(raw_function(program),
                                   [to_fraction(v) for v in q], kw)
    return enumerate_law.event_mass(law, ev)


def confirm(program: Any, w: Witness) -> Confirmation:
    """Recompute both probabilities of ``w`` independently; ``agree`` when each matches the
    exact enclosure to :data:`AGREEMENT` (relative, plus the evaluator's error estimate).
    An event the independent evaluator cannot compute does not agree."""
    from audit.prove.enumerate_law import Unavailable

    try:
        a = independent_probability(program, w.q, w.epsilon, w.params, w.event)
        b = independent_probability(program, w.q_prime, w.epsilon, w.params, w.event)
    except Unavailable as exc:
        return Confirmation(False, mpmath.nan, mpmath.nan, mpmath.nan, 0,
                            f"the independent evaluator cannot compute the event: {exc}")
    ok = _close(w.p, a.value, a.error) and _close(w.p_prime, b.value, b.error)
    why = "" if ok else (f"exact P = {mpmath.nstr(w.p.mid, 15)}, P' = "
                         f"{mpmath.nstr(w.p_prime.mid, 15)}; independent P = "
                         f"{mpmath.nstr(a.value, 15)}, P' = {mpmath.nstr(b.value, 15)}")
    return Confirmation(ok, a.value, b.value, a.error + b.error, a.work + b.work, why)


def candidate_pairs(n: int, relation: str, values: Sequence[Any]
                    ) -> Iterator[tuple[tuple[Fraction, ...], tuple[Fraction, ...]]]:
    """Neighbouring (q, q') of length n: base vectors with all entries equal to a value of
    ``values``, differences per ``relation`` (module docstring, step 3)."""
    if relation not in RELATIONS:
        raise UnsupportedEvent(f"relation {relation!r} is not one of {RELATIONS}")
    if relation == "linf1":
        diffs = [d for d in itertools.product((-1, 0, 1), repeat=n) if any(d)]
    elif relation == "monotone1":
        diffs = [d for s in (1, -1) for d in itertools.product((0, s), repeat=n) if any(d)]
    else:
        diffs = [tuple(s if j == i else 0 for j in range(n)) for i in range(n) for s in (1, -1)]
    seen: set[tuple[tuple[Fraction, ...], tuple[Fraction, ...]]] = set()
    for v in values:
        base = tuple(to_fraction(v) for _ in range(n))
        for d in diffs:
            pair = (base, tuple(b + x for b, x in zip(base, d, strict=True)))
            if pair in seen or (pair[1], pair[0]) in seen:
                continue
            seen.add(pair)
            yield pair


@dataclass
class RefuteResult:
    """``refuted`` with the witness, or ``not-refuted`` over ``scope`` (never verified)."""

    program: str
    claimed_epsilon: Fraction
    verdict: str
    witness: Witness | None
    best: Witness | None
    scope: dict[str, Any]
    pairs_checked: int
    events_checked: int
    skipped_events: int
    seconds: float
    notes: list[str] = field(default_factory=list)
    #: witnesses the independent evaluator did not confirm (never printed as exact)
    unconfirmed: list[Witness] = field(default_factory=list)

    def as_doc(self) -> dict[str, Any]:
        return {
            "program": self.program, "claimed_epsilon": str(self.claimed_epsilon),
            "verdict": self.verdict,
            "witness": None if self.witness is None else self.witness.as_doc(),
            "best_log_ratio_lower": (None if self.best is None else
                                     mpmath.nstr(self.best.eps_lower, 12)),
            "scope": self.scope, "pairs_checked": self.pairs_checked,
            "events_checked": self.events_checked, "skipped_events": self.skipped_events,
            "seconds": round(self.seconds, 3), "notes": self.notes,
        }


def _relation(program: Any, relation: str | None) -> str:
    if relation is not None:
        return relation
    r = getattr(program, "relation", None)
    return r if isinstance(r, str) else "linf1"


def _default_values(program: Any) -> list[Fraction]:
    vals = [Fraction(0), Fraction(1), Fraction(-1)]
    try:
        sig = inspect.signature(raw_function(program))
    except (TypeError, ValueError):
        return vals
    t = sig.parameters.get("T")
    if t is not None and isinstance(t.default, (int, float, Fraction)):
        tf = to_fraction(t.default)
        vals = [tf, tf + 1, tf - 1]
    return vals


def refute(program: Any, *, epsilon: Any = 1, params: Mapping[str, Any] | None = None,
           relation: str | None = None, n_min: int = 1, n_max: int = 3,
           values: Sequence[Any] | None = None,
           seeds: Sequence[tuple[Sequence[Any], Sequence[Any]]] = (), digits: int = 40,
           stop_at_first: bool = True) -> RefuteResult:
    """Search the scope (module docstring, step 3) for a certified violation of the claim
    that ``program`` is ``epsilon``-DP (run with its epsilon parameter = ``epsilon``)."""
    t0 = time.perf_counter()
    eps_f = to_fraction(epsilon, "epsilon")
    if eps_f <= 0:
        raise UnsupportedEvent(f"epsilon {epsilon} must be > 0")
    rel = _relation(program, relation)
    vals = list(values) if values is not None else _default_values(program)
    best: Witness | None = None
    pairs_checked = events_checked = skipped = skipped_pairs = 0

    def pairs() -> Iterator[tuple[Sequence[Any], Sequence[Any]]]:
        # size by size, smallest first, each size's seeds before its grid: the pairs of a
        # smaller n_max are a prefix of a larger one's (a larger n_max never weakens)
        for n in range(min(n_min, 1), n_max + 1):
            yield from (s for s in seeds if len(s[0]) == n)
            if n >= n_min:
                yield from candidate_pairs(n, rel, vals)
        yield from (s for s in seeds if not min(n_min, 1) <= len(s[0]) <= n_max)

    found: Witness | None = None
    disagreements: list[Witness] = []
    cache: dict[tuple[Fraction, ...], list[TracedPath]] = {}
    notes: list[str] = []
    too_short: set[int] = set()
    for q, qp in pairs():
        if len(q) in too_short:
            continue
        try:
            w, sk = evaluate_pair(program, q, qp, eps_f, params, digits, cache=cache)
        except IndexError:  # the program reads more queries than len(q)
            too_short.add(len(q))
            notes.append(f"n = {len(q)} not searched: the program needs more queries")
            continue
        except UnsupportedEvent as exc:  # e.g. too many paths: counted, never silent
            skipped_pairs += 1
            if skipped_pairs <= 3:
                notes.append(f"pair q={[str(v) for v in q]}, q'={[str(v) for v in qp]} "
                             f"skipped: {exc}")
            continue
        pairs_checked += 1
        skipped += sk
        if w is None:
            continue
        events_checked += 1
        if best is None or w.eps_lower > best.eps_lower:
            best = w
        if w.refutes:
            conf = confirm(program, w)
            w = replace(w, independent=conf.as_doc())
            if not conf.agree:  # never printed as exact: recorded, the search goes on
                disagreements.append(w)
                continue
            if found is None or w.eps_lower > found.eps_lower:
                found = w
            if stop_at_first:
                break
    scope = {"relation": rel,
             "n": f"{n_min}..{n_max}" if n_max >= n_min else "none (the seeds only)",
             "n_skipped": sorted(too_short),
             "values": [str(to_fraction(v)) for v in vals],
             "seeds": len(seeds), "digits": digits,
             "events": "output patterns; numeric entries: half-lines at noiseless value "
                       "+ {-2,-1,0,1,2}/eps; pairs of single-draw numeric entries: "
                       "half-planes on their sum and difference at noiseless values + "
                       "{-1,0,1}/eps, box quadrants at corners noiseless + (o, o)/eps, "
                       "o in {-1,0,1}",
             "skipped_pairs": skipped_pairs}
    if skipped:
        notes.append(f"{skipped} event(s) outside the exact class were skipped (not "
                     "computed): the search says nothing about them")
    verdict = "refuted" if found else "inconclusive" if disagreements else "not-refuted"
    for d in disagreements[:3]:
        ind = d.independent or {}
        notes.append(f"a witness on q={[str(v) for v in d.q]}, "
                     f"q'={[str(v) for v in d.q_prime]} ({d.event.describe()}) was not "
                     f"confirmed: exact P = {mpmath.nstr(d.p.mid, 15)}, P' = "
                     f"{mpmath.nstr(d.p_prime.mid, 15)}; independent P = {ind.get('P')}, "
                     f"P' = {ind.get('P_prime')}" + (f" ({ind['reason']})"
                                                      if "reason" in ind else ""))
    res = RefuteResult(program_ref(program), eps_f, verdict, found, best, scope,
                       pairs_checked, events_checked, skipped, time.perf_counter() - t0, notes)
    res.unconfirmed = disagreements
    return res


def search_note(res: RefuteResult) -> str:
    """One sentence on a search that refuted nothing: what it covered, what it skipped
    (never "no violation over its scope" when events or sizes were skipped), and the
    witnesses the independent evaluator did not confirm."""
    eps = res.claimed_epsilon
    skipped = []
    if res.skipped_events:
        skipped.append(f"{res.skipped_events} event(s) outside the exact class")
    if res.scope.get("skipped_pairs"):
        skipped.append(f"{res.scope['skipped_pairs']} pair(s) it could not trace")
    if res.scope.get("n_skipped"):
        skipped.append(f"sizes n = {res.scope['n_skipped']} the program cannot run at")
    text = (f"exact refutation search at epsilon = {eps} over {res.pairs_checked} "
            f"neighbouring pairs (scope {res.scope})")
    if res.unconfirmed:
        text += (f": {len(res.unconfirmed)} witness(es) not confirmed by the independent "
                 "evaluator, so none is printed as exact (both figures in the notes)")
    elif skipped:
        text += (": no violation among the events it computed, but it skipped "
                 + "; ".join(skipped) + " -- not a full search of that scope")
    else:
        text += ": no violation over its scope"
    return text


def replay_witness(doc: Mapping[str, Any]) -> Witness:
    """Recompute a witness document from scratch (program re-imported and re-traced); the
    caller compares ``refutes`` / the figures with the document."""
    prog = load_program(doc["program"])
    params = {k: to_fraction(Fraction(v)) for k, v in doc.get("params", {}).items()}
    q = [Fraction(v) for v in doc["q"]]
    qp = [Fraction(v) for v in doc["q_prime"]]
    ev = Event.from_doc(doc["event"])
    eps_f = Fraction(doc["epsilon"])
    name = _eps_name(prog)
    pa = trace_paths(prog, q, eps_f, params, name)
    pb = trace_paths(prog, qp, eps_f, params, name)
    digits = int(doc.get("digits", 40))
    p, pp = probability(pa, ev, digits), probability(pb, ev, digits)
    lo, mid, _ = _log_ratio_bounds(p, pp)
    return Witness(doc["program"], tuple(q), tuple(qp), eps_f, params, ev, p, pp, lo, mid,
                   digits)


# =============================================================================================
# black-box agreement on the witness pair
# =============================================================================================


@dataclass(frozen=True)
class Agreement:
    """The black-box tester on the witness pair: its certified lower bound (at
    ``confidence``) and whether it is consistent with the exact epsilon_witness."""

    epsilon_lower: float
    confidence: float
    flagged: bool
    exact: float
    consistent: bool
    samples: int
    seed: int
    #: ln(P_upper / P'_lower) of the tester's certified event (its per-bound confidence
    #: limits): an upper confidence limit of that event's log-ratio, not of the pair's epsilon
    epsilon_upper: float = math.inf
    #: the tester's certified event, as it describes it
    event: str = ""


class _AsReplaceOne:
    """A DSL :class:`audit.dsl.Mechanism` presented to the black-box tester, whose pair
    relations are data-set relations: the tester never checks neighbourhood itself, the
    witness pair is a neighbouring pair under the program's own relation."""

    def __init__(self, mech: Any) -> None:
        from audit.protocols import REPLACE_ONE

        self.mech = mech
        self.relation = REPLACE_ONE
        self.claimed_epsilon = mech.claimed_epsilon
        self.name = mech.name

    def sample(self, dataset: Any, size: int, rng: Any) -> Any:
        return self.mech.sample(dataset, size, rng)


def blackbox_agreement(program: Any, witness: Witness, *, seed: int = 0,
                       n_select: int = 20_000, n_certify: int = 100_000,
                       confidence: float = 0.9) -> Agreement:
    """Run dpaudit's black-box tester (fixed schedule) on the witness pair.  ``consistent``:
    its lower bound is <= the exact epsilon_witness.  When epsilon_witness is the pair's
    exact epsilon (discrete outputs, or a shifted Laplace output whose every tail event has
    the same ratio) a sound lower bound cannot exceed it, so ``consistent`` fails with
    probability <= 1 - confidence unless the tester or the exact figure is wrong.  When the
    witness event is only one of many (other numeric events may have larger ratios), a
    bound above it is not a contradiction: the caller decides whether the check applies."""
    import numpy as np

    from audit.privacy.blackbox import BlackBoxTester
    from audit.protocols import REPLACE_ONE, NeighbourPair

    mech = _AsReplaceOne(program.at(float(witness.epsilon), **{
        k: (float(v) if isinstance(v, Fraction) else v) for k, v in witness.params.items()}))
    pair = NeighbourPair([float(v) for v in witness.q], [float(v) for v in witness.q_prime],
                         REPLACE_ONE, {"op": "dsl-neighbour"})
    tester = BlackBoxTester(n_select=n_select, n_certify=n_certify, confidence=confidence)
    res = tester.run(mech, [pair], np.random.default_rng(seed))
    lower = float(res.epsilon_lower or 0.0)
    exact = float(witness.eps_value)
    upper, event = math.inf, ""
    w = res.witness or {}
    if "p_first_interval" in w:
        fav, oth = ((w["p_first_interval"], w["p_second_interval"])
                    if w.get("direction_index", 0) == 0 else
                    (w["p_second_interval"], w["p_first_interval"]))
        upper = math.log(fav[1] / oth[0]) if oth[0] > 0 and fav[1] > 0 else math.inf
        event = str(w.get("event", ""))
    return Agreement(lower, confidence, bool(res.violates), exact,
                     lower <= exact + 1e-12 or math.isinf(exact), 2 * (n_select + n_certify),
                     seed, upper, event)


# =============================================================================================
# the Finding / counterexample / replay spine
# =============================================================================================

#: check id of a refutation finding and of its ``dpaudit replay`` replayer
CHECK_REFUTE = "prove.refute"


def refute_finding(result: RefuteResult, check_id: str = CHECK_REFUTE) -> Finding:
    """The :class:`audit.findings.Finding` of a refutation search: ``refuted`` (method
    ``exact``: both probabilities exact, the violation certified) with a counterexample
    document that :func:`replay_refutation` re-runs; otherwise ``not-refuted`` (method
    ``sampled``: exact figures on hand-picked pairs, never a proof) with the scope."""
    w = result.witness
    eps = result.claimed_epsilon
    claim = f"{result.program} is {eps}-DP (program relation)"
    scope = ", ".join(f"{k}={v}" for k, v in result.scope.items())
    evidence: dict[str, Any] = {
        "pairs_checked": result.pairs_checked, "skipped_events": result.skipped_events,
        "best_log_ratio_lower": (None if result.best is None else
                                 float(result.best.eps_lower)),
        "seconds": round(result.seconds, 3), "notes": list(result.notes),
    }
    if w is None:
        return Finding(id=check_id, claim=claim, reference="dpaudit prove (refutation search)",
                       method=Method.SAMPLED, verdict=Verdict.NOT_REFUTED, scope=scope,
                       evidence=evidence, duration_s=result.seconds, subject="mechanism")
    doc = w.as_doc()
    evidence.update({"epsilon_witness": doc["epsilon_witness"],
                     "epsilon_witness_lower": doc["epsilon_witness_lower"],
                     "P": doc["P"]["lower"], "P_prime": doc["P_prime"]["lower"],
                     "event": w.event.describe()})
    cx = counterexample_document(
        check_id, "mechanism", doc, f"ln(P/P') <= {eps}", doc["epsilon_witness_lower"],
        None, note=f"exact probabilities at {w.digits} digits; {w.event.describe()}")
    return Finding(id=check_id, claim=claim, reference="dpaudit prove (refutation search)",
                   method=Method.EXACT, verdict=Verdict.REFUTED, scope=scope,
                   evidence=evidence, counterexample=cx, duration_s=result.seconds,
                   subject="mechanism")


#: relative rounding slack on each independent probability (it carries ~15 digits)
ROUNDING = 1e-12


def independent_log_ratio(doc: dict[str, Any]) -> tuple[Any, Any, Any]:
    """(P, P', certified-by-error-estimate lower bound of ln(P / P')) of a witness document
    by the independent evaluator."""
    prog = load_program(doc["program"])
    params = {k: to_fraction(Fraction(v)) for k, v in doc.get("params", {}).items()}
    ev = Event.from_doc(doc["event"])
    eps = Fraction(doc["epsilon"])
    a = independent_probability(prog, [Fraction(v) for v in doc["q"]], eps, params, ev)
    b = independent_probability(prog, [Fraction(v) for v in doc["q_prime"]], eps, params, ev)
    # the error estimate plus a relative rounding slack of ROUNDING (the evaluator works at
    # enumerate_law.DPS = 15 digits): an exactly-eps ratio never reads as above eps
    hi_b = b.value * (1 + ROUNDING) + b.error
    lo_a = a.value * (1 - ROUNDING) - a.error
    if lo_a <= 0:
        return a.value, b.value, -mpmath.inf
    if hi_b <= 0:
        return a.value, b.value, mpmath.inf
    return a.value, b.value, mpmath.log(lo_a / hi_b)


@replayer(CHECK_REFUTE)
def replay_refutation(inputs: dict[str, Any]) -> tuple[bool, Any, Any, str]:
    """Re-import the program and recompute the event's probabilities with the independent
    evaluator (:func:`audit.prove.replay.independent_log_ratio`): still fails when its
    lower bound of ln(P / P') exceeds the claim; the exact figures are shown beside."""
    p_ind, pp_ind, lo = independent_log_ratio(inputs)
    w = replay_witness(inputs)
    shown = "inf" if lo == mpmath.inf else mpmath.nstr(lo, 12)
    eps = mpmath.mpf(w.epsilon.numerator) / w.epsilon.denominator
    return (bool(lo > eps), f"ln(P/P') <= {w.epsilon}", shown,
            f"{w.program} on q={[str(v) for v in w.q]}, q'={[str(v) for v in w.q_prime]}: "
            f"{w.event.describe()}, independent P={mpmath.nstr(p_ind, 12)}, "
            f"P'={mpmath.nstr(pp_ind, 12)}; exact P={mpmath.nstr(w.p.mid, 12)}, "
            f"P'={mpmath.nstr(w.p_prime.mid, 12)}")


# =============================================================================================
# structured seeds beyond the proved sizes: queries placed around the comparison thresholds
# =============================================================================================

#: decision policies of the threshold runs: position k of a run takes policy(k)
_POLICIES: tuple[Callable[[int], bool], ...] = (
    lambda k: False, lambda k: True, lambda k: k % 2 == 0, lambda k: k % 2 == 1)


class _QueryTracer:
    """The :class:`audit.dsl.Tracer` of one run with symbolic queries ``q<i>`` and concrete
    parameters: records every comparison, takes the decisions of ``policy``."""

    def __init__(self, policy: Callable[[int], bool]) -> None:
        self.policy = policy
        self.comparisons: list[Lin] = []
        self.scales: list[Fraction] = []
        self.sites: dict[str, int] = {}

    def draw(self, law: str, scale: Any, site: str) -> Lin:
        k = self.sites.get(site, 0)
        self.sites[site] = k + 1
        if isinstance(scale, Lin):
            scale = scale.const
        self.scales.append(to_fraction(scale, "noise scale"))
        return Lin.var(f"{site}#{k}")

    def decide(self, expr: Lin, op: str) -> bool:
        if len(self.comparisons) >= dsl.MAX_DECISIONS:
            raise UnsupportedEvent("a run made too many comparisons")
        self.comparisons.append(expr)
        return self.policy(len(self.comparisons) - 1)


def query_thresholds(program: Any, n: int, eps: Any, params: Mapping[str, Any] | None = None
                     ) -> tuple[dict[int, Fraction], Fraction]:
    """Per query index i, the threshold of q_i read from the program's comparisons, and the
    largest noise scale drawn.

    The program runs (at most ``len(_POLICIES)`` times: every comparison false, every one
    true, alternating) on symbolic queries ``q<i>`` with the draws symbolic; a comparison
    ``c * q_i + (draws) + b op 0`` that reads exactly one query gives q_i's threshold
    ``-b / c`` (the value of q_i at which the comparison's noiseless part is zero: e.g.
    ``T + i * step`` for an SVT with increasing thresholds).  The first threshold seen for
    an index is kept; indices no single-query comparison reads get none.  Runs that step
    outside what this tracer handles are skipped (the result may then be empty)."""
    fn = raw_function(program)
    kw = {**dict(getattr(program, "params", None) or {}), **dict(params or {})}
    kw[_eps_name(program)] = to_fraction(eps, "epsilon")
    qs = [Lin.var(f"q{i}") for i in range(n)]
    thr: dict[int, Fraction] = {}
    scale = Fraction(0)
    for policy in _POLICIES:
        tr = _QueryTracer(policy)
        try:
            with dsl.symbolic(tr):
                fn(list(qs), **kw)
        except Exception:  # noqa: BLE001 - a seed source only: a failed run gives no seeds
            continue
        scale = max([scale, *tr.scales])
        for e in tr.comparisons:
            qterms = {k: v for k, v in e.terms.items()
                      if k.startswith("q") and k[1:].isdigit()}
            if len(qterms) != 1:
                continue
            (name, c), = qterms.items()
            thr.setdefault(int(name[1:]), -to_fraction(e.const, "threshold") / to_fraction(c))
    return thr, scale


def _pattern_offsets(n: int, m: Fraction) -> list[tuple[str, tuple[Fraction, ...]]]:
    """Offsets from the thresholds, after StatDP's query patterns (Ding, Wang, Wang, Zhang
    & Kifer, "Detecting Violations of Differential Privacy", CCS 2018): all above / all
    below by ``m``, one above and the rest below (and the reverse, the odd one first or
    last), half above and half below, alternating."""
    up, dn = m, -m
    h = n // 2
    pats = [("all above", (up,) * n), ("all below", (dn,) * n),
            ("last above, rest below", (dn,) * (n - 1) + (up,)),
            ("first above, rest below", (up,) + (dn,) * (n - 1)),
            ("last below, rest above", (up,) * (n - 1) + (dn,)),
            ("first below, rest above", (dn,) + (up,) * (n - 1)),
            ("half above, half below", (up,) * h + (dn,) * (n - h)),
            ("half below, half above", (dn,) * h + (up,) * (n - h)),
            ("alternating above/below", tuple(up if i % 2 == 0 else dn for i in range(n))),
            ("alternating below/above", tuple(dn if i % 2 == 0 else up for i in range(n)))]
    return pats


def _pattern_diffs(n: int, relation: str) -> list[tuple[int, ...]]:
    """Differences q' - q tried on each base: uniform ones first (a cost that grows with n
    builds up over iterations that all move the same way), then the last or first entry
    against the rest, alternating, half-half, one entry; only those allowed by ``relation``."""
    h = n // 2
    cands = [(1,) * n, (-1,) * n, (1,) * (n - 1) + (-1,), (-1,) * (n - 1) + (1,),
             (-1,) + (1,) * (n - 1), (1,) + (-1,) * (n - 1),
             tuple(1 if i % 2 == 0 else -1 for i in range(n)),
             tuple(-1 if i % 2 == 0 else 1 for i in range(n)),
             (1,) * h + (-1,) * (n - h), (-1,) * h + (1,) * (n - h)]
    cands += [tuple(s if j == i else 0 for j in range(n)) for i in (n - 1, 0) for s in (1, -1)]
    if relation == "onehot1":
        cands += [tuple(s if j == i else 0 for j in range(n)) for i in range(n)
                  for s in (1, -1)]
    out: list[tuple[int, ...]] = []
    for d in cands:
        nz = [x for x in d if x]
        ok = (relation == "linf1" or (relation == "monotone1" and
                                      (all(x > 0 for x in nz) or all(x < 0 for x in nz)))
              or (relation == "onehot1" and len(nz) == 1))
        if nz and ok and d not in out:
            out.append(d)
    return out


def threshold_pairs(program: Any, n: int, eps: Any, relation: str | None = None,
                    params: Mapping[str, Any] | None = None, max_pairs: int = 64
                    ) -> list[tuple[tuple[Fraction, ...], tuple[Fraction, ...]]]:
    """At most ``max_pairs`` neighbouring (q, q') of length ``n`` around the program's
    comparison thresholds (:func:`query_thresholds`; an index without one is placed around
    0): bases on the thresholds, then offset by 1 and by the largest noise scale in the
    patterns of :func:`_pattern_offsets`, then the all-zero vector; each base with the
    differences of :func:`_pattern_diffs`.  Uniform bases and differences come first within
    each magnitude; the order (and so the cut at ``max_pairs``) is deterministic."""
    rel = _relation(program, relation)
    thr, scale = query_thresholds(program, n, eps, params)
    t = [thr.get(i, Fraction(0)) for i in range(n)]
    bases: list[tuple[Fraction, ...]] = [tuple(t)]
    for m in dict.fromkeys(x for x in (Fraction(1), scale) if x > 0):
        bases += [tuple(a + o for a, o in zip(t, off, strict=True))
                  for _, off in _pattern_offsets(n, m)]
    bases.append((Fraction(0),) * n)
    diffs = _pattern_diffs(n, rel)
    uniform = diffs[:4]
    order = [(b, d) for b in bases for d in uniform] + [(b, d) for b in bases
                                                        for d in diffs[4:]]
    out: list[tuple[tuple[Fraction, ...], tuple[Fraction, ...]]] = []
    seen: set[tuple[tuple[Fraction, ...], tuple[Fraction, ...]]] = set()
    for b, d in order:
        pair = (b, tuple(x + y for x, y in zip(b, d, strict=True)))
        if pair in seen or (pair[1], pair[0]) in seen:
            continue
        seen.add(pair)
        out.append(pair)
        if len(out) >= max_pairs:
            break
    return out
