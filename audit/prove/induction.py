"""The all-n step: prove that a synthesised alignment works for EVERY number of queries n, by
induction over the iterations of the program's query loop.

Which programs (checked on the function's syntax tree; anything else is *outside* and the
proof keeps its "for every n <= N" scope, with the reason):

* the body is a straight-line *prologue* (no comparison, no reading of ``q``), then ONE loop
  ``for i in range(len(q)):`` (no ``else``, no nested loop, no ``return`` inside), then
  ``return out`` where ``out = []`` in the prologue and the loop only calls ``out.append``;
* inside the loop ``q`` is read only as ``q[i]``; ``i`` may appear in linear arithmetic (it is
  then an arbitrary real in the proof, an over-approximation);
* the *carried* state (prologue variables the loop assigns) other than ``out`` holds only
  numbers, ints or bools (a discrete state, e.g. a counter), or on a path still its value
  from before the loop (e.g. a threshold noise redrawn only after a break), and takes
  finitely many values
  (explored exhaustively, at most :data:`MAX_STATES`); prologue values the loop only reads
  (e.g. a noisy threshold ``T + rho``) are the once-per-run part; a loop-carried noisy or
  data-dependent value (a running maximum, a running sum, a redrawn threshold) is outside;
* every iteration appends exactly one entry (a bool or a number), so ``output[i]`` is the
  entry of iteration i; from a state, the entry's class (True / False / number) determines
  the next state, whether the loop breaks, and the draw sites used; the anchor of each loop
  draw site is the same on every iteration path.

The generic iteration.  The loop body is compiled on its own (same source lines, so draw
sites keep their names) as a *step* ``(state, q[i], i) -> (entry, state', break?)`` and
enumerated symbolically like the whole program (:mod:`audit.prove.symbolic`), with ``q[i]``
a query variable, ``i`` a public real, the once-per-run values the prologue's symbolic values
and the discrete state concrete.  Every (state, step path) pair is one *iteration kind*.

Soundness argument.  The alignment is the one synthesised for n <= N: a once-per-run draw
(class ``any``) is shifted by its constant; the draw of site s in iteration i by
``theta[s, c, 0] + theta[s, c, 1] * delta_i`` where c is the class of ``output[i]`` and delta_i
the draw's anchor with ``q[i] -> d_i``.  This depends only on (q, d, output), so on the set of
noise vectors producing one output it is a translation (condition (a) of
:mod:`audit.prove.alignment`).  For every n:

(b) For every iteration kind, Z3 shows UNSAT of: the step path's constraints hold on
    (q[i], once-per-run noise X, iteration noise x) while one of them fails, or the entry
    differs, on (q[i] + d_i, X + eta_X, x + eta_x), for every real (integer for geometric
    draws) q[i], d_i in [-1, 1], public parameters and i.  Then by induction on the number of
    iterations run, the aligned run on q' = q + d takes the same step path in every
    iteration, so it has the same carried state, appends the same entries, breaks at the same
    iteration or runs out of queries at the same n: the same output.  ``d_i`` in [-1, 1]
    independently contains every difference of the relations ``linf1``, ``monotone1`` and
    ``onehot1``, so the check over-approximates each.
(c) The cost of an output is the once-per-run cost plus, per iteration, the cost of that
    iteration's draws, which is a function of (state, entry class) maximised over d_i in
    [-1, 1] exactly (|affine| is convex: the maximum is at d_i = +-1).  The states and
    (state, class) transitions form a finite graph; every walk from the initial state is
    one output prefix.  If no cycle of the graph has a transition of positive cost, the
    longest walk cost L(s) to each state is finite, and the invariant
    ``cost so far <= once + L(state)`` holds initially and is preserved by every transition
    (L(s) + c <= L(s')): an induction on the iterations.  The proof needs
    ``once + max over transitions (L(s) + c) <= bound`` (exact rationals).  A cycle with a
    positive transition makes the cost of this alignment grow with n: the step *fails*.

The scope is otherwise that of the n <= N proof: the relation, eps symbolic (every scale
c/eps, cost normalised) or numeric, the fixed int/bool parameters as given, every real public
parameter, Z3 with the resource limit of :mod:`audit.prove.cegis` (an ``unknown`` is never a
proof).  Nothing here prints or writes files.
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import z3

from audit import dsl
from audit.dsl import DSLError, EpsPower, Lin, Mechanism
from audit.prove import cegis
from audit.prove.alignment import HALF_RELATIONS, Problem, Template
from audit.prove.closed_world import z3_rlimit
from audit.prove.symbolic import (
    LinearConstraint,
    Scale,
    feasible,
    record_anchor,
    symbolic_arguments,
    z3_constraint,
)
from audit.smt_query import SEED, deterministic_frees

__all__ = ["MAX_STATES", "Induction", "prove_all_n"]

#: at most this many discrete loop states are explored (a work-unit bound)
MAX_STATES = 64
#: at most this many step paths per state
MAX_STEP_PATHS = 2_000
#: re-syntheses asked for when iterations that can repeat cost something
RETRIES = 2

_I = "p:__i"  # the loop index in a step: an arbitrary real


@dataclass
class Induction:
    """The all-n step's result: ``proved``, ``failed`` (a handled loop whose alignment does
    not extend: the cost grows with n or an iteration's output is not preserved), ``outside``
    (the program's loop is not one the step handles) or ``unknown`` (Z3)."""

    status: str
    reason: str = ""
    invariant: list[str] = field(default_factory=list)
    states: int = 0
    kinds: int = 0
    solver_calls: int = 0
    #: (site, class) pairs whose alignment costs something on an iteration that can repeat
    repeating: list[tuple[str, str]] = field(default_factory=list)
    theta: dict[tuple[str, str, int], Fraction] | None = None  # the coefficients used


class _Outside(Exception):
    pass


# the loop shape ---------------------------------------------------------------------------------
def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _is_range_len_q(it: ast.expr, qname: str) -> bool:
    return (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
            and len(it.args) == 1 and not it.keywords and isinstance(it.args[0], ast.Call)
            and isinstance(it.args[0].func, ast.Name) and it.args[0].func.id == "len"
            and len(it.args[0].args) == 1 and isinstance(it.args[0].args[0], ast.Name)
            and it.args[0].args[0].id == qname)


@dataclass
class _Shape:
    fn: ast.FunctionDef
    prologue: list[ast.stmt]
    loop: ast.For
    index: str
    out: str
    qname: str


def _shape(mech: Mechanism) -> _Shape:
    try:
        src = textwrap.dedent(inspect.getsource(mech.fn))
    except (OSError, TypeError) as exc:
        raise _Outside(f"the program's source is not available ({exc})") from None
    tree = ast.parse(src)
    ast.increment_lineno(tree, mech.fn.__code__.co_firstlineno - 1)
    fn = tree.body[0]
    if not isinstance(fn, ast.FunctionDef):
        raise _Outside("the program is not a plain function definition")
    qname = fn.args.args[0].arg
    body = list(fn.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # docstring
    loops = [k for k, s in enumerate(body) if isinstance(s, ast.For | ast.While)]
    if len(loops) != 1:
        raise _Outside(f"the program has {len(loops)} top-level loops (the step handles one "
                       "loop over the queries)")
    k = loops[0]
    loop = body[k]
    if not isinstance(loop, ast.For) or not _is_range_len_q(loop.iter, qname):
        raise _Outside(f"the loop (line {loop.lineno}) is not `for i in range(len({qname}))`")
    if not isinstance(loop.target, ast.Name) or loop.orelse:
        raise _Outside(f"the loop (line {loop.lineno}) has a non-name target or an else")
    prologue, epilogue = body[:k], body[k + 1:]
    for s in prologue:
        if any(isinstance(n, ast.If | ast.IfExp | ast.Compare | ast.BoolOp | ast.For
                          | ast.While | ast.Return | ast.comprehension)
               for n in ast.walk(s)):
            raise _Outside(f"the code before the loop (line {s.lineno}) branches or compares "
                           "(the step handles a straight-line prologue)")
        if qname in _names(s):
            raise _Outside(f"the code before the loop (line {s.lineno}) reads {qname}")
    if not (len(epilogue) == 1 and isinstance(epilogue[0], ast.Return)
            and isinstance(epilogue[0].value, ast.Name)):
        raise _Outside("the program does not end with `return <list>` right after the loop "
                       "(e.g. a draw or computation after the loop)")
    out = epilogue[0].value.id
    index = loop.target.id
    for n in ast.walk(loop):
        if n is not loop and isinstance(n, ast.For | ast.While | ast.Return | ast.Lambda
                                        | ast.comprehension | ast.Global | ast.Nonlocal
                                        | ast.Try | ast.With | ast.Yield | ast.YieldFrom
                                        | ast.FunctionDef | ast.ClassDef | ast.Delete):
            raise _Outside(f"the loop body has a {type(n).__name__.lower()} (line "
                           f"{getattr(n, 'lineno', loop.lineno)}); the step handles "
                           "straight code, if/else, break and continue")
    # q only as q[i]; out only as out.append(...)
    allowed_q: set[int] = set()
    allowed_out: set[int] = set()
    for n in ast.walk(loop):
        if (isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)
                and n.value.id == qname and isinstance(n.slice, ast.Name)
                and n.slice.id == index and isinstance(n.ctx, ast.Load)):
            allowed_q.add(id(n.value))
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and n.func.attr == "append" and isinstance(n.func.value, ast.Name)
                and n.func.value.id == out):
            allowed_out.add(id(n.func.value))
    for n in ast.walk(loop.iter):
        allowed_q.add(id(n))
    for n in ast.walk(loop):
        if isinstance(n, ast.Name) and n.id == qname and id(n) not in allowed_q:
            raise _Outside(f"the loop reads {qname} other than as {qname}[{index}] (line "
                           f"{n.lineno})")
        if isinstance(n, ast.Name) and n.id == out and id(n) not in allowed_out:
            raise _Outside(f"the loop uses {out} other than {out}.append(...) (line "
                           f"{n.lineno})")
        if isinstance(n, ast.Name) and n.id == index and isinstance(n.ctx, ast.Store) \
                and n is not loop.target:
            raise _Outside(f"the loop assigns its index {index} (line {n.lineno})")
    return _Shape(fn, prologue, loop, index, out, qname)


def _assigned(nodes: list[ast.stmt]) -> set[str]:
    out: set[str] = set()
    for s in nodes:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                out.add(n.id)
    return out


class _Exits(ast.NodeTransformer):
    """``break`` -> ``return (True, {carried})``, ``continue`` -> ``return (False, ...)``."""

    def __init__(self, carried: list[str]) -> None:
        self.carried = carried

    def ret(self, flag: bool, like: ast.AST) -> ast.Return:
        d = ast.Dict(keys=[ast.Constant(c) for c in self.carried],
                     values=[ast.Name(c, ast.Load()) for c in self.carried])
        r = ast.Return(ast.Tuple([ast.Constant(flag), d], ast.Load()))
        return ast.copy_location(r, like)

    def visit_Break(self, node: ast.Break) -> ast.Return:
        return self.ret(True, node)

    def visit_Continue(self, node: ast.Continue) -> ast.Return:
        return self.ret(False, node)


def _compile(mech: Mechanism, fn: ast.FunctionDef, params: list[str],
             body: list[ast.stmt]) -> Callable[..., Any]:
    """``body`` (statements of ``fn``) as a function of ``params``, compiled under the
    program's own name and first line (its first decorator's) so that the DSL's draw-site
    names (:func:`audit.dsl._site_names`: keyed by file, first line and name; the copied
    statements keep their positions) are the whole program's."""
    args = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    fields: dict[str, Any] = {"name": fn.name, "args": args, "body": body,
                              "decorator_list": [], "returns": None}
    if sys.version_info >= (3, 12):
        fields["type_params"] = []
    f = ast.FunctionDef(**fields)
    ast.copy_location(f, fn)
    f.lineno = min([fn.lineno, *(d.lineno for d in fn.decorator_list)])
    mod = ast.Module(body=[f], type_ignores=[])
    ast.fix_missing_locations(mod)
    ns: dict[str, Any] = {}
    code = compile(mod, mech.fn.__code__.co_filename, "exec")
    exec(code, mech.fn.__globals__, ns)  # noqa: S102 - the user's own function body
    fn_out: Callable[..., Any] = ns[fn.name]
    return fn_out


# a symbolic run of the prologue / of one iteration -----------------------------------------------
class _Tracer:
    """The :class:`audit.dsl.Tracer` of one prologue or step run (fresh draw names from
    ``start``)."""

    def __init__(self, prefix: tuple[bool, ...], start: int, integer_vars: set[str]) -> None:
        self.prefix = prefix
        self.start = start
        self.integer_vars = set(integer_vars)
        self.decisions: list[bool] = []
        self.constraints: list[LinearConstraint] = []
        self.forced: list[bool] = []
        self.draws: list[tuple[str, str, str, Scale]] = []  # name, site, law, scale
        self.anchors: dict[str, Lin] = {}

    def combine(self, var: str, coef: Fraction, partner: Lin) -> None:
        record_anchor(self.anchors, var, coef, partner)

    def draw(self, law: str, scale: Any, site: str) -> Lin:
        if isinstance(scale, EpsPower):
            if scale.power not in (0, -1):
                raise _Outside(f"a {law} scale {scale!r} at site {site}")
            s = Scale(scale.coef, scale.power)
        else:
            lin = Lin.lift(scale)
            if lin is None or not lin.is_constant() or lin.const <= 0:
                raise _Outside(f"a {law} scale {scale!r} at site {site}")
            s = Scale(lin.const, 0)
        name = f"x{self.start + len(self.draws)}"
        self.draws.append((name, site, law, s))
        if law == "geometric":
            self.integer_vars.add(name)
        return Lin.var(name)

    def decide(self, expr: Lin, op: str) -> bool:
        k = len(self.decisions)
        if k >= dsl.MAX_DECISIONS:
            raise _Outside("too many comparisons in one iteration")
        c = LinearConstraint(expr, op)
        if k < len(self.prefix):
            b, forced = self.prefix[k], False
        else:
            b, forced = True, False
            if not feasible([*self.constraints, c], self.integer_vars):
                b, forced = False, True
            elif not feasible([*self.constraints, c.negated()], self.integer_vars):
                forced = True
        self.decisions.append(b)
        self.forced.append(forced)
        self.constraints.append(c if b else c.negated())
        return b


class _Q:
    """``q`` inside a step: ``q[i]`` is the query variable ``q0``."""

    def __getitem__(self, _k: Any) -> Lin:
        return Lin.var("q0")


@dataclass
class _StepPath:
    constraints: tuple[LinearConstraint, ...]
    draws: list[tuple[str, str, str, Scale]]
    anchors: dict[str, Lin]
    entry: Any
    brk: bool
    state: tuple[tuple[str, Any], ...]


def _entry_class(v: Any) -> str:
    if isinstance(v, bool):
        return "T" if v else "F"
    if isinstance(v, Lin | Fraction | float) or (isinstance(v, int)
                                                  and not isinstance(v, bool)):
        if isinstance(v, int):
            raise _Outside("an iteration appends an int (an index output)")
        return "num"
    raise _Outside(f"an iteration appends a {type(v).__name__}")


_SAME = "<its value before the loop>"


def _discrete(name: str, v: Any, before: Any = None) -> Any:
    if isinstance(v, Lin) and isinstance(before, Lin) and v.terms == before.terms \
            and v.const == before.const and not v.is_constant():
        return _SAME  # assigned in the loop, but on this path still the prologue's value
    if isinstance(v, Lin):
        if not v.is_constant():
            raise _Outside(f"the loop carries the noisy or data-dependent value {name!r} "
                           f"({v!r}) from one iteration to the next (the step handles a "
                           "discrete loop state: counters, flags)")
        return v.const
    if isinstance(v, bool | int | Fraction):
        return v
    if isinstance(v, float):
        return Fraction(v)
    raise _Outside(f"the loop carries {name!r} of type {type(v).__name__}")


def _run_step(step: Callable[..., Any], kwargs: dict[str, Any], start: int,
              integer_vars: set[str], carried: list[str], out: str,
              before: dict[str, Any]) -> list[_StepPath]:
    paths: list[_StepPath] = []
    stack: list[tuple[bool, ...]] = [()]
    while stack:
        prefix = stack.pop()
        tr = _Tracer(prefix, start, integer_vars)
        appended: list[Any] = []
        args = dict(kwargs)
        args[out] = appended
        try:
            with dsl.symbolic(tr):
                brk, new = step(**args)
        except _Outside:
            raise
        except (DSLError, TypeError, AttributeError, NameError, IndexError, ValueError) as exc:
            raise _Outside(f"one iteration run on its own (the loop index an arbitrary "
                           f"real, only q[i] read) fails: {type(exc).__name__}: {exc}"
                           ) from None
        if len(appended) != 1:
            raise _Outside(f"an iteration appends {len(appended)} entries (the step needs "
                           "exactly one per query)")
        state = tuple((c, _discrete(c, new[c], before.get(c))) for c in carried if c != out)
        e = appended[0]
        if isinstance(e, Lin) and e.is_constant():
            e = e.const
        paths.append(_StepPath(tuple(tr.constraints), list(tr.draws), dict(tr.anchors), e,
                               bool(brk), state))
        if len(paths) > MAX_STEP_PATHS:
            raise _Outside(f"more than {MAX_STEP_PATHS} paths in one iteration")
        for k in range(len(tr.decisions) - 1, len(prefix) - 1, -1):
            if not tr.forced[k]:
                stack.append((*tr.decisions[:k], not tr.decisions[k]))
    return paths


# the proof --------------------------------------------------------------------------------------
def _weight(s: Scale, eps: Fraction | None) -> Fraction:
    return 1 / s.coef if eps is None else 1 / Fraction(s.value(eps))


def _theta(theta: dict[tuple[str, str, int], Fraction], tpl: Template, cls: str
           ) -> tuple[Fraction, Fraction]:
    if (tpl.site, cls, 0) not in theta:
        raise _Outside(f"draw site {tpl.site} has no alignment for class {cls!r} (that class "
                       "never occurred for n <= N)")
    t1 = theta.get((tpl.site, cls, 1), Fraction(0)) if tpl.anchored else Fraction(0)
    return theta[(tpl.site, cls, 0)], t1


def _fmt_state(state: tuple[tuple[str, Any], ...]) -> str:
    return ", ".join(f"{k} = {v}" for k, v in state) or "the single loop state"


def prove_all_n(mech: Mechanism, prob: Problem, theta: dict[tuple[str, str, int], Fraction],
                max_rounds: int = cegis.MAX_ROUNDS, retries: int = RETRIES) -> Induction:
    """Try to extend the proof of ``prob`` (for n <= N, coefficients ``theta``) to every n
    (see the module docstring).  Never raises for a program outside the handled shape: the
    result says why.

    When the step fails because iterations that can repeat cost something, the synthesis is
    asked again (at most ``retries`` times) for coefficients under which those (site, class)
    alignments cost nothing: a copy of ``prob`` whose coordinates of those classes weigh so
    much that any non-zero coefficient (at least 1/GRID, so |eta| >= 1/GRID at d = 0 or
    d = +-1) exceeds the bound.  That copy only *finds* candidates: a candidate is used only
    after :func:`audit.prove.cegis.check_alignment` verifies it on the original ``prob`` (the
    n <= N proof) and the step proves it for every n.  ``theta`` of the result is the
    coefficients the result is about.

    A sign-of-difference proof (``prob.halves``) is extended half by half, each with its
    differences d_i in [0, 1] or [-1, 0] (:func:`_d_range`); both proved => proved."""
    if prob.halves:
        return _by_halves(mech, prob, theta, max_rounds, retries)
    res = _attempt(mech, prob, theta)
    zero: set[tuple[str, str]] = set()
    for _ in range(retries):
        if res.status != "failed" or not res.repeating or set(res.repeating) <= zero:
            break
        zero |= set(res.repeating)
        syn = cegis.synthesise(_forbid(prob, zero), max_rounds)
        if syn.status != "verified" or syn.theta is None:
            res.reason += (f"; no alignment of the templates makes {_pairs(zero)} cost "
                           f"nothing for n <= {max(prob.ns)} ({syn.status})")
            break
        cx = cegis.check_alignment(prob, syn.theta)
        if cx is None or cx:  # pragma: no cover - the copy's conditions are stronger
            break
        again = _attempt(mech, prob, syn.theta)
        if again.status == "proved" or again.status == "failed":
            res = again
    return res



def _by_halves(mech: Mechanism, prob: Problem, theta: dict[tuple[str, str, int], Fraction],
               max_rounds: int, retries: int) -> Induction:
    """:func:`prove_all_n` on each half of a sign-of-difference proof."""
    merged: dict[tuple[str, str, int], Fraction] = {}
    inv: list[str] = []
    calls = 0
    for h, sub in prob.halves.items():
        res = prove_all_n(mech, sub, cegis.half_theta(theta, h), max_rounds, retries)
        calls += res.solver_calls
        if res.status != "proved" or res.theta is None:
            res.reason = f"for {HALF_RELATIONS[sub.relation]}: {res.reason}"
            res.theta = dict(theta)
            res.solver_calls = calls
            return res
        merged.update({(s, f"{c}|{h}", k): v for (s, c, k), v in res.theta.items()})
        inv += [f"[{HALF_RELATIONS[sub.relation]}] {line}" for line in res.invariant]
    return Induction("proved", "", inv, solver_calls=calls, theta=merged)


def _d_range(relation: str) -> tuple[int, int]:
    """The range of one difference d_i the step checks: [-1, 1] contains every d_i of the
    relations; a half-relation of a sign-of-difference proof has one sign."""
    return {"monotone1:up": (0, 1), "monotone1:down": (-1, 0)}.get(relation, (-1, 1))


def _pairs(zero: set[tuple[str, str]]) -> str:
    return ", ".join(f"{s} when output[k] is {c}" for s, c in sorted(zero))


def _forbid(prob: Problem, zero: set[tuple[str, str]]) -> Problem:
    big = 2 * cegis.GRID * prob.bound + 1
    groups = []
    for g in prob.groups:
        w = {c: (big if (c[0], g.cls[c]) in zero else v) for c, v in g.weight.items()}
        groups.append(replace(g, weight=w))
    return replace(prob, groups=groups)


def _attempt(mech: Mechanism, prob: Problem, theta: dict[tuple[str, str, int], Fraction]
             ) -> Induction:
    """:func:`_attempt_once` with the cyclic collector paused (reproducible frees, as in
    :mod:`audit.prove.cegis`)."""
    with deterministic_frees():
        return _attempt_once(mech, prob, theta)


def _attempt_once(mech: Mechanism, prob: Problem, theta: dict[tuple[str, str, int], Fraction]
                  ) -> Induction:
    try:
        res = _prove(mech, prob, theta)
    except _Outside as exc:
        res = Induction("outside", str(exc))
    res.theta = dict(theta)
    return res


def _prove(mech: Mechanism, prob: Problem, theta: dict[tuple[str, str, int], Fraction]
           ) -> Induction:
    dependent = sorted({(site, cls) for (site, cls, k), val in theta.items() if k >= 2 and val})
    if dependent:
        raise _Outside("the alignment is noise-dependent (" + _pairs(set(dependent)) + "); "
                       "the step handles alignments linear in the query differences only")
    sh = _shape(mech)
    eps = prob.eps
    _, e, kwargs, _ = symbolic_arguments(mech, 1, eps)
    params = [a.arg for a in sh.fn.args.args]
    call = {sh.qname: None, mech.epsilon_param: e, **kwargs}
    if set(call) != set(params):
        raise _Outside("the program's parameters could not be bound")
    # the prologue
    pro_body = [*sh.prologue, ast.Return(ast.Call(ast.Name("locals", ast.Load()), [], []))]
    prologue = _compile(mech, sh.fn, params, pro_body)
    tr = _Tracer((), 0, set())
    try:
        with dsl.symbolic(tr):
            env = dict(prologue(**call))
    except (DSLError, TypeError, AttributeError, NameError, ValueError) as exc:
        raise _Outside(f"the code before the loop fails on its own: {exc}") from None
    if tr.decisions:
        raise _Outside("the code before the loop compares noisy values")
    if env.get(sh.out) != [] or not isinstance(env.get(sh.out), list):
        raise _Outside(f"{sh.out} is not an empty list before the loop")
    for k, val in env.items():
        if k not in (sh.out, sh.qname) and isinstance(val, list | dict | set):
            raise _Outside(f"the code before the loop makes the mutable {type(val).__name__} "
                           f"{k!r} (only the output list may be built across iterations)")
    once = list(tr.draws)
    integer = {n for n, _, law, _ in once if law == "geometric"}
    carried = sorted((_assigned(sh.loop.body) & set(env)) | {sh.out})
    for c in carried:
        if c != sh.out and isinstance(env[c], list):
            raise _Outside(f"the loop carries the list {c!r}")
    if sh.index in env:
        raise _Outside(f"the loop index {sh.index} is also a prologue variable")
    step_params = sorted(set(env) | {sh.index})
    body = _Exits(carried).visit(ast.Module(body=list(sh.loop.body), type_ignores=[])).body
    body.append(_Exits(carried).ret(False, sh.loop))
    step = _compile(mech, sh.fn, step_params, body)
    # explore the discrete states
    init = tuple((c, _discrete(c, env[c], env[c])) for c in carried if c != sh.out)
    start = len(once)
    states: dict[tuple[tuple[str, Any], ...], list[_StepPath]] = {}
    todo = [init]
    while todo:
        s = todo.pop()
        if s in states:
            continue
        if len(states) >= MAX_STATES:
            raise _Outside(f"the loop state takes more than {MAX_STATES} values")
        kw = dict(env)
        kw.update({k: v for k, v in s if not (isinstance(v, str) and v == _SAME)})
        kw[sh.qname] = _Q()
        kw[sh.index] = Lin.var(_I)
        kw = {k: v for k, v in kw.items() if k in step_params}
        paths = _run_step(step, kw, start, integer, carried, sh.out, env)
        states[s] = paths
        todo += [p.state for p in paths if not p.brk]
    # the once-per-run alignment
    eta_once: dict[str, Fraction] = {}
    once_cost = Fraction(0)
    for name, site, _law, scale in once:
        tpl = prob.templates.get(site)
        if tpl is None or tpl.classes != ("any",) or tpl.loop:
            raise _Outside(f"the draw {site} before the loop has an output-dependent or "
                           "per-iteration alignment")
        t0, _ = _theta(theta, tpl, "any")
        eta_once[name] = t0
        once_cost += _weight(scale, eps) * abs(t0)
    # per (state, class): the next state, break and draw sites are one function of the class;
    # per (site, class): one anchor
    anchors: dict[tuple[str, str], Lin] = {}
    scales: dict[str, Scale] = {}
    trans: dict[tuple[Any, str], tuple[Any, bool, tuple[str, ...]]] = {}
    eta_of: dict[tuple[str, str], tuple[Fraction, Fraction, Lin]] = {}
    for s, paths in states.items():
        for p in paths:
            cls = _entry_class(p.entry)
            sites = tuple(sorted(site for _, site, _, _ in p.draws))
            key = (s, cls)
            val = (p.state, p.brk, sites)
            if trans.setdefault(key, val) != val:
                raise _Outside(f"from state ({_fmt_state(s)}) two iterations with the same "
                               f"entry class {cls} differ in next state, break or draws")
            for name, site, _law, scale in p.draws:
                if scales.setdefault(site, scale) != scale:
                    raise _Outside(f"draw site {site} has two scales")
                a = p.anchors.get(name, Lin())
                a = Lin({k: v for k, v in a.terms.items() if k.startswith("q")})
                old = anchors.setdefault((site, cls), a)
                if old.terms != a.terms or old.const != a.const:
                    raise _Outside(f"draw site {site} has two anchors in iterations with "
                                   f"entry class {cls}")
                tpl = prob.templates.get(site)
                if tpl is None:
                    raise _Outside(f"draw site {site} does not occur for n <= N")
                t0, t1 = _theta(theta, tpl, cls if (tpl.loop or a.terms) else "any")
                eta_of[(site, cls)] = (t0, t1, a)
    # (b): every iteration kind preserves its path and entry under the alignment
    ctx = z3.Context()
    calls = 0
    mk = z3.Int if prob.integer else z3.Real
    q0, d0 = mk("q0", ctx), mk("d0", ctx)
    d_lo, d_hi = _d_range(prob.relation)
    for s, paths in states.items():
        for p in paths:
            cls = _entry_class(p.entry)
            env0: dict[str, Any] = {"q0": q0}
            env1: dict[str, Any] = {"q0": q0 + d0}
            names = set()
            for con in p.constraints:
                names |= con.expr.variables()
            if isinstance(p.entry, Lin):
                names |= p.entry.variables()
            for v in names:
                if v.startswith("p:"):
                    env0[v] = env1[v] = z3.Real(v, ctx)
            for name, _site, law, _ in once:
                x = (z3.Int if law == "geometric" else z3.Real)(name, ctx)
                env0[name], env1[name] = x, x + z3.RealVal(eta_once[name], ctx)
            for name, site, law, _ in p.draws:
                x = (z3.Int if law == "geometric" else z3.Real)(name, ctx)
                t0, t1, a = eta_of[(site, cls)]
                delta = a.terms.get("q0", Fraction(0)) * d0
                env0[name], env1[name] = x, x + z3.RealVal(t0, ctx) + z3.RealVal(t1, ctx) * delta
            sol = z3.Solver(ctx=ctx)  # the step's private context (cegis: reproducible)
            sol.set("rlimit", z3_rlimit(cegis.RLIMIT))
            sol.set("random_seed", SEED)
            sol.add(d0 >= d_lo, d0 <= d_hi)
            sol.add(*[z3_constraint(c, env0, ctx) for c in p.constraints])
            keep = [z3_constraint(c, env1, ctx) for c in p.constraints]
            if isinstance(p.entry, Lin):
                keep.append(_lin(p.entry, env0, ctx) == _lin(p.entry, env1, ctx))
            sol.add(z3.Not(z3.And(*keep, z3.BoolVal(True, ctx))))
            calls += 1
            r = sol.check()
            if r == z3.unknown:
                return Induction("unknown", f"Z3 unknown on an iteration from state "
                                 f"({_fmt_state(s)}) ({sol.reason_unknown()})",
                                 states=len(states), solver_calls=calls)
            if r == z3.sat:
                m = sol.model()
                return Induction(
                    "failed", f"an iteration from state ({_fmt_state(s)}) with entry {cls} "
                    "does not keep its path under the alignment for every i (e.g. q[i] = "
                    f"{m.eval(q0, model_completion=True)}, d_i = "
                    f"{m.eval(d0, model_completion=True)})",
                    states=len(states), solver_calls=calls)
    # (c): the cost graph
    cost: dict[tuple[Any, str], Fraction] = {}
    for (s, cls), (_, _, sites) in trans.items():
        best = Fraction(0)
        for dv in (Fraction(d_lo), Fraction(d_hi)):
            tot = Fraction(0)
            for site in sites:
                t0, t1, a = eta_of[(site, cls)]
                tot += _weight(scales[site], eps) * abs(t0 + t1 * a.terms.get("q0", 0) * dv)
            best = max(best, tot)
        cost[(s, cls)] = best
    edges = [(s, nxt if not brk else None, cls, cost[(s, cls)])
             for (s, cls), (nxt, brk, _) in trans.items()]
    scc = _sccs(list(states), [(a, b) for a, b, _, _ in edges if b is not None])
    repeating = sorted({(site, ec) for a, b, ec, cost_e in edges
                        if b is not None and scc[a] == scc[b] and cost_e > 0
                        for site in trans[(a, ec)][2]})
    for a, b, ec, cost_e in edges:
        if b is not None and scc[a] == scc[b] and cost_e > 0:
            return Induction(
                "failed", f"an iteration from state ({_fmt_state(a)}) with entry {ec} costs "
                f"{cost_e} (of the bound {prob.bound}) and can repeat without limit: the cost of "
                "the alignment grows with the number of queries",
                states=len(states), kinds=sum(map(len, states.values())), solver_calls=calls,
                repeating=repeating)
    pot = _longest(init, list(states), edges, scc)
    worst = max([pot[a] + c for a, _, _, c in edges] + [Fraction(0)])
    total = once_cost + worst
    inv = [f"all n: by induction over the loop's iterations ({len(states)} loop state(s), "
           f"{sum(map(len, states.values()))} iteration paths, each preserved under the "
           "alignment: Z3 UNSAT)"]
    inv += [f"  invariant: in state ({_fmt_state(s)}): cost so far <= {once_cost} + {pot[s]}"
            for s in sorted(states, key=lambda s: pot[s])]
    inv.append(f"  every iteration that can repeat costs 0; the largest total is {total} "
               f"<= {prob.bound}")
    if total > prob.bound:
        return Induction("failed", f"the longest run of iterations costs {total} > "
                         f"{prob.bound}", inv, len(states), len(edges), calls)
    return Induction("proved", "", inv, len(states), len(edges), calls)


def _lin(e: Lin, env: dict[str, Any], ctx: z3.Context) -> Any:
    acc: Any = z3.RealVal(e.const, ctx)
    for k, v in e.terms.items():
        acc = acc + z3.RealVal(v, ctx) * env[k]
    return acc


def _sccs(nodes: list[Any], edges: list[tuple[Any, Any]]) -> dict[Any, int]:
    """Strongly connected components (by mutual reachability; the graphs are tiny)."""
    succ: dict[Any, set[Any]] = {n: set() for n in nodes}
    for a, b in edges:
        succ[a].add(b)

    def reach(n: Any) -> set[Any]:
        seen, todo = {n}, [n]
        while todo:
            for m in succ[todo.pop()]:
                if m not in seen:
                    seen.add(m)
                    todo.append(m)
        return seen

    r = {n: reach(n) for n in nodes}
    comp: dict[Any, int] = {}
    for n in nodes:
        if n not in comp:
            k = len(set(comp.values()))
            for m in nodes:
                if m in r[n] and n in r[m]:
                    comp[m] = k
    return comp


def _longest(init: Any, nodes: list[Any], edges: list[tuple[Any, Any, str, Fraction]],
             scc: dict[Any, int]) -> dict[Any, Fraction]:
    """The largest cost of a walk from ``init`` to each state (edges inside a component cost
    0, so relaxing |nodes| times reaches the fixed point)."""
    pot: dict[Any, Fraction | None] = {n: None for n in nodes}
    pot[init] = Fraction(0)
    for _ in range(len(nodes) + 1):
        changed = False
        for a, b, _, c in edges:
            pa = pot[a]
            if b is None or pa is None:
                continue
            pb = pot[b]
            if pb is None or pa + c > pb:
                pot[b] = pa + c
                changed = True
        if not changed:
            break
    return {n: (v if v is not None else Fraction(0)) for n, v in pot.items()}
