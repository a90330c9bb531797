"""Symbolic execution of a DSL mechanism (:mod:`audit.dsl`): every path for a given number of
queries ``n``, by re-execution.

The program is run with symbolic stand-ins: ``q = [q0, ..., q{n-1}]`` (query variables),
``eps`` the symbolic :class:`~audit.dsl.EpsPower` (or a number when a proof is for one
epsilon), float keyword parameters as public variables ``p:<name>``, int/bool ones as given.
Every sampler call returns a fresh draw variable ``x<j>`` (``j`` = position among the path's
draws).  Every ordering comparison of a non-constant linear difference is a *decision*: the
run consults a decision prefix (position ``k`` of the prefix says which way the ``k``-th
comparison goes; past the prefix it goes ``True``), and the enumeration is a depth-first
search over decision sequences: after running prefix ``P`` to a full sequence ``D``, every
position ``k >= len(P)`` gives a new prefix ``D[:k] + (not D[k],)``.  A branch whose
constraints cannot hold together (Z3, over real queries and real or integer draws) is not
taken, so every returned path is feasible for some queries and noise.

The types below are the contract shared with the exact-probability code
(:mod:`audit.prove.exact_event`):

* :class:`Scale` ``coef * eps**power`` (``power`` 0: a number; -1: ``coef / eps``);
* :class:`Draw` ``(name, site, index, law, scale)``: ``name`` is the draw variable ``x<j>``
  used in constraints and outputs, ``site`` the sampler's site (see :mod:`audit.dsl`: the
  variable it is assigned to, ``name=``, the list appended to, ``return``, or
  ``draw@<line>``), ``index`` its occurrence on the path (0, 1, ...: the loop iteration
  for a draw made once per iteration), ``law`` ``"laplace"`` (density
  ``exp(-|x|/s)/(2s)``) or ``"geometric"`` (on the integers, ``P(k)`` proportional to
  ``exp(-|k|/s)``), all draws independent;
* :class:`LinearConstraint` ``expr op 0`` with ``op`` in ``>=, >, <=, <``; ``expr`` is a
  :class:`~audit.dsl.Lin` over draw variables ``x<j>``, queries ``q<i>`` and public
  parameters ``p:<name>``: :meth:`LinearConstraint.coefficients` gives the draw
  coefficients ``a_j``, :meth:`LinearConstraint.constant` the rest ``b`` (queries and
  public parameters only; eps never appears: it may only scale noise);
* :class:`Path` ``(decisions, constraints, draws, output, anchors)``: the path is taken
  exactly when every constraint holds; ``output`` is the returned value with lists/tuples as
  tuples, numbers as ``Fraction``, bools and ints as such, linear values as ``Lin`` over draws,
  queries and public parameters.  The paths of one ``n`` partition the noise space (for every
  q).  ``anchors`` (not part of equality) maps a draw variable to the query data it was first
  added to (only used to build alignment templates).
"""

from __future__ import annotations

import inspect
import linecache
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import z3

from audit import dsl
from audit.dsl import DSLError, EpsilonUseError, EpsPower, Lin, Mechanism
from audit.prove.closed_world import BudgetExceeded, z3_rlimit
from audit.smt_query import DEFAULT_RLIMIT, Query
from audit.user_code import is_user_file

__all__ = [
    "NEGATE",
    "Draw",
    "LinearConstraint",
    "Path",
    "Scale",
    "enumerate_paths",
    "freeze_output",
    "output_shape",
    "ProgramCrash",
    "ProgramError",
    "record_anchor",
]

class ProgramError(DSLError):
    """The program's own error during a run (ZeroDivisionError, RecursionError, ``sys.exit``,
    a NaN output...): bad input naming the program line, never a dpaudit bug."""


class ProgramCrash(ProgramError, IndexError):
    """The program's own IndexError at a number of queries n (e.g. it reads ``q[2]`` when
    n = 2): the prover does not check that n and says so in the verdict's scope."""

    def __init__(self, message: str, n: int) -> None:
        super().__init__(message)
        self.n = n


#: the negation of ``expr op 0``
NEGATE = {">=": "<", ">": "<=", "<=": ">", "<": ">="}


@dataclass(frozen=True)
class Scale:
    """A noise scale ``coef * eps**power``: ``power`` 0 is a plain number, -1 is
    ``coef / eps``."""

    coef: Fraction
    power: int

    def value(self, eps: Fraction | float | None) -> Fraction | float:
        """The scale at ``eps`` (exact when ``eps`` is a Fraction)."""
        if self.power == 0:
            return self.coef
        if eps is None:
            raise ValueError("this scale depends on eps: give a value")
        return self.coef * eps ** self.power

    def __str__(self) -> str:
        return str(self.coef) if self.power == 0 else f"{self.coef}/eps"


@dataclass(frozen=True)
class Draw:
    """One random draw on a path (see the module docstring)."""

    name: str
    site: str
    index: int
    law: str
    scale: Scale


@dataclass(frozen=True)
class LinearConstraint:
    """``expr op 0`` (see the module docstring)."""

    expr: Lin
    op: str

    def coefficients(self) -> dict[str, Fraction]:
        """The draw coefficients ``a_j`` by draw variable name."""
        return {k: v for k, v in self.expr.terms.items() if k.startswith("x")}

    def constant(self) -> Lin:
        """The part ``b`` without draws (over queries and public parameters)."""
        return Lin({k: v for k, v in self.expr.terms.items() if not k.startswith("x")},
                   self.expr.const)

    def at(self, q: Sequence[Any], params: dict[str, Any] | None = None
           ) -> tuple[dict[str, Fraction], Fraction]:
        """``(a, b)`` with the queries (and public parameters) substituted: exact numbers."""
        values: dict[str, Any] = {f"q{i}": Fraction(v) for i, v in enumerate(q)}
        for k, v in (params or {}).items():
            values[f"p:{k}"] = Fraction(v)
        b = self.constant().substitute(values)
        if not b.is_constant():
            raise ValueError(f"constraint {self} needs values for {sorted(b.variables())}")
        return self.coefficients(), b.const

    def negated(self) -> LinearConstraint:
        return LinearConstraint(self.expr, NEGATE[self.op])

    def __str__(self) -> str:
        return f"{self.expr!r} {self.op} 0"


@dataclass(frozen=True)
class Path:
    """One feasible path of a symbolic run (see the module docstring)."""

    decisions: tuple[bool, ...]
    constraints: tuple[LinearConstraint, ...]
    draws: tuple[Draw, ...]
    output: Any
    #: per draw variable, its *anchor*: the query data it was first added to (a Lin over
    #: q<i>, divided by the draw's coefficient; data already anchored to other draws in the
    #: partner expression is not counted).  Absent: never combined with anything.
    anchors: dict[str, Lin] = field(default_factory=dict, compare=False)

    def draw(self, name: str) -> Draw:
        for d in self.draws:
            if d.name == name:
                return d
        raise KeyError(name)


def freeze_output(out: Any) -> Any:
    """The returned value in the canonical form of :attr:`Path.output`."""
    if isinstance(out, list | tuple):
        return tuple(freeze_output(v) for v in out)
    if out is None or isinstance(out, bool):
        return out
    if isinstance(out, int):
        return int(out)
    if isinstance(out, Lin):
        return out.const if out.is_constant() else out
    if isinstance(out, float | Fraction):
        if isinstance(out, float) and not math.isfinite(out):
            raise ProgramError(f"the program returned the non-finite number {out!r}")
        return Fraction(out)
    raise DSLError(f"a DSL program returned a value of type {type(out).__name__} (allowed: "
                   "lists/tuples of bools, ints, numbers and linear values)")


def output_shape(out: Any) -> Any:
    """The discrete part of an output: numbers and linear values become ``"num"``, an int
    ``i`` becomes ``("int", i)`` (so that ``True`` and ``1`` stay different shapes)."""
    if isinstance(out, tuple):
        return tuple(output_shape(v) for v in out)
    if isinstance(out, Lin | Fraction):
        return "num"
    if isinstance(out, int) and not isinstance(out, bool):
        return ("int", out)
    return out


def record_anchor(anchors: dict[str, Lin], var: str, coef: Fraction, partner: Lin) -> None:
    """``coef * var`` (a bare draw ``x...``) is added to ``partner``: record the draw's anchor
    in ``anchors`` (first combination only), the partner's query part minus the data already
    anchored to other draws in it, divided by ``coef``."""
    if not var.startswith("x") or var in anchors:
        return
    rest = Lin({k: v for k, v in partner.terms.items() if k.startswith("q")})
    for k, v in partner.terms.items():
        if k.startswith("x") and k in anchors:
            rest = rest - anchors[k] * v
    anchors[var] = rest / coef


@dataclass
class _Tracer:
    prefix: tuple[bool, ...]
    integer_vars: set[str] = field(default_factory=set)
    decisions: list[bool] = field(default_factory=list)
    constraints: list[LinearConstraint] = field(default_factory=list)
    draws: list[Draw] = field(default_factory=list)
    forced: list[bool] = field(default_factory=list)  # decision k had one feasible branch
    counts: dict[str, int] = field(default_factory=dict)
    anchors: dict[str, Lin] = field(default_factory=dict)
    #: the draws the path's constraints read (the first ``read_upto`` of them): a decision
    #: whose constraint reads another draw needs no solver call; the others are one
    #: reproducible query each (:class:`audit.smt_query.Query`)
    read: set[str] = field(default_factory=set)
    read_upto: int = 0

    def combine(self, var: str, coef: Fraction, partner: Lin) -> None:
        """``coef * var`` (a bare draw) is added to ``partner``: record the draw's anchor."""
        record_anchor(self.anchors, var, coef, partner)

    def draw(self, law: str, scale: Any, site: str) -> Lin:
        if isinstance(scale, EpsPower):
            if scale.power == 0:
                s = Scale(scale.coef, 0)
            elif scale.power == -1:
                s = Scale(scale.coef, -1)
            else:
                raise EpsilonUseError(f"a {law} scale {scale!r} at site {site} (only numbers "
                                      "and c/eps)")
        else:
            lin = Lin.lift(scale)
            if lin is None or not lin.is_constant():
                raise dsl._error(f"a {law} scale of type {type(scale).__name__}")
            s = Scale(lin.const, 0)
        if s.coef <= 0:
            raise dsl._error(f"a {law} scale {s} (it must be > 0)")
        name = f"x{len(self.draws)}"
        index = self.counts.get(site, 0)
        self.counts[site] = index + 1
        self.draws.append(Draw(name, site, index, law, s))
        if law == "geometric":
            self.integer_vars.add(name)
        return Lin.var(name)

    def decide(self, expr: Lin, op: str) -> bool:
        k = len(self.decisions)
        if k >= dsl.MAX_DECISIONS:
            raise dsl._error(f"more than {dsl.MAX_DECISIONS} comparisons on one path (a loop "
                             "whose end depends on noise?)")
        c = LinearConstraint(expr, op)
        if k < len(self.prefix):
            b = self.prefix[k]
            forced = False
        else:
            b, forced = True, False
            if not self._feasible(c):
                b, forced = False, True
            elif not self._feasible(c.negated()):
                forced = True
        self.decisions.append(b)
        self.forced.append(forced)
        self.constraints.append(c if b else c.negated())
        return b

    def _feasible(self, c: LinearConstraint) -> bool:
        """Whether ``c`` can hold with the path's constraints so far (as :func:`feasible`;
        no call when ``c`` reads a draw none of them reads)."""
        while self.read_upto < len(self.constraints):
            self.read |= set(self.constraints[self.read_upto].coefficients())
            self.read_upto += 1
        if set(c.coefficients()) - self.read:  # a draw no constraint reads: c can hold
            return True
        query = Query(z3_rlimit(DEFAULT_RLIMIT))
        for old in self.constraints:
            query.add(z3_constraint(old, z3_env(old.expr.variables(), self.integer_vars)))
        query.add(z3_constraint(c, z3_env(c.expr.variables(), self.integer_vars)))
        return bool(query.check() != z3.unsat)  # unknown: keep (a superset)


def _z3_lin(e: Lin, env: dict[str, Any], ctx: z3.Context | None = None) -> Any:
    acc: Any = z3.RealVal(e.const, ctx)
    for k, v in e.terms.items():
        acc = acc + z3.RealVal(v, ctx) * env[k]
    return acc


def z3_constraint(c: LinearConstraint, env: dict[str, Any], ctx: z3.Context | None = None
                  ) -> Any:
    """``c`` as a Z3 formula over the variables ``env`` maps names to (in ``ctx``)."""
    e = _z3_lin(c.expr, env, ctx)
    return {">=": e >= 0, ">": e > 0, "<=": e <= 0, "<": e < 0}[c.op]


def z3_env(names: set[str], integer_vars: set[str], prefix: str = "") -> dict[str, Any]:
    return {k: (z3.Int(prefix + k) if k in integer_vars else z3.Real(prefix + k))
            for k in sorted(names)}


def feasible(constraints: Sequence[LinearConstraint], integer_vars: set[str]) -> bool:
    """Whether some queries, public parameters and noise satisfy all ``constraints``."""
    names: set[str] = set()
    for c in constraints:
        names |= c.expr.variables()
    env = z3_env(names, integer_vars)
    s = Query(z3_rlimit(DEFAULT_RLIMIT))
    s.add(*[z3_constraint(c, env) for c in constraints])
    r = s.check()
    return r != z3.unsat  # unknown: keep the path (a superset of paths is still sound)


def symbolic_arguments(mech: Mechanism, n: int, eps: Fraction | None
                       ) -> tuple[list[Lin], Any, dict[str, Any], list[str]]:
    """The symbolic call arguments: queries, eps, keyword parameters, public names."""
    q = [Lin.var(f"q{i}") for i in range(n)]
    e: Any = EpsPower() if eps is None else Fraction(eps)
    kwargs: dict[str, Any] = {}
    public: list[str] = []
    sig = inspect.signature(mech.fn)
    names = list(sig.parameters)
    for p in list(sig.parameters.values())[1:]:
        if p.name == mech.epsilon_param:
            continue
        value = mech.params.get(p.name, p.default)
        if value is inspect.Parameter.empty:
            raise DSLError(f"{mech.name}: parameter {p.name!r} has no default (give it with "
                           ".at(...) or a default)")
        if isinstance(value, float) and not isinstance(value, bool):
            kwargs[p.name] = Lin.var(f"p:{p.name}")
            public.append(p.name)
        else:
            kwargs[p.name] = value
    if mech.epsilon_param not in names:
        raise DSLError(f"{mech.name}: no parameter named {mech.epsilon_param!r} (the "
                       "epsilon= of @mechanism)")
    return q, e, kwargs, public


def enumerate_paths(mech: Mechanism, n: int, eps: Fraction | None = None,
                    max_paths: int = 100_000) -> list[Path]:
    """Every feasible path of ``mech`` on ``n`` symbolic queries (``eps`` None: symbolic).

    Raises :class:`~audit.dsl.DSLError` when the program steps outside the DSL and
    ``ValueError`` when it has more than ``max_paths`` paths (a work-unit bound)."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    q, e, kwargs, _ = symbolic_arguments(mech, n, eps)
    budget = getattr(dsl._GUARD[-1], "budget", None) if dsl._GUARD else None
    if budget is not None:
        max_paths = min(max_paths, budget.paths)
    work = 0

    def run(prefix: tuple[bool, ...]) -> tuple[_Tracer, Path]:
        tr = _Tracer(prefix)
        try:
            with dsl.symbolic(tr):
                out = mech.fn(list(q), **{mech.epsilon_param: e, **kwargs})
        except DSLError:
            raise
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - sorted by program_error
            raise program_error(mech, n, exc, tr.constraints, tr.integer_vars) from None
        try:
            output = freeze_output(out)
        except ProgramError as exc:
            raise ProgramError(f"{mech.name} at n = {n}: {exc}") from None
        return tr, Path(tuple(tr.decisions), tuple(tr.constraints), tuple(tr.draws),
                        output, dict(tr.anchors))

    paths: list[Path] = []
    # each pushed prefix remembers the constraints its parent run made up to the fork: a
    # re-run must make the same ones (else the program has randomness or state dpaudit
    # cannot see, e.g. numpy's own generator, and no proof about it would mean anything)
    stack: list[tuple[tuple[bool, ...], tuple[LinearConstraint, ...]]] = [((), ())]
    first = True
    while stack:
        prefix, expected = stack.pop()
        tr, path = run(prefix)
        if first:  # the first path twice: a program with a single path is checked too
            _, again = run(prefix)
            _same_run(mech, path, again)
            first = False
        got = path.constraints[:len(expected)]
        if [(_key(c.expr), c.op) for c in got] != [(_key(c.expr), c.op) for c in expected]:
            raise DSLError(f"{mech.name}: two runs with the same decisions made different "
                           "comparisons: the program uses randomness or state outside "
                           "audit.dsl's samplers (numpy/random generators, globals)")
        paths.append(path)
        work += len(tr.decisions) + len(tr.draws)
        if budget is not None and work > budget.work:
            raise BudgetExceeded(f"{mech.name}: the runs at n = {n} made more than "
                                 f"{budget.work:,} draws and branches in total over "
                                 f"{len(paths):,} paths (--budget work=...): a loop whose "
                                 "number of iterations depends on noise?")
        if len(paths) > max_paths:
            raise BudgetExceeded(f"{mech.name} has more than {max_paths:,} paths at n = {n} "
                                 "(--budget paths=...)")
        for k in range(len(tr.decisions) - 1, len(prefix) - 1, -1):
            if not tr.forced[k]:
                stack.append((tuple(tr.decisions[:k]) + (not tr.decisions[k],),
                              path.constraints[:k]))
    paths.sort(key=lambda p: tuple(not b for b in p.decisions))
    return paths


def program_error(mech: Mechanism, n: int, exc: BaseException,
                  constraints: Sequence[LinearConstraint] = (),
                  integer_vars: set[str] | None = None) -> BaseException:
    """What an exception that left a run of ``mech`` at ``n`` queries is: dpaudit's own
    (it came through the DSL's signal: returned unchanged, a bug is exit 4), or the
    program's (:class:`ProgramCrash` for an IndexError, else :class:`ProgramError`, both bad
    input naming the line and an input that reaches it: a Z3 model of the path's
    ``constraints`` so far)."""
    if getattr(exc, "_dpaudit_signal", False):
        return exc
    name = type(exc).__name__
    if isinstance(exc, TypeError | AttributeError):  # e.g. `x.round()` on a value
        return DSLError(f"{mech.name}: {_where(exc)}{name}: {exc} (an operation on a "
                        "symbolic value outside the DSL; see audit/dsl.py)")
    if isinstance(exc, IndexError):
        return ProgramCrash(f"at n = {n} the program raises IndexError at {_where(exc)}{exc}"
                            f" ({_reaching_input(n, constraints, integer_vars or set())})", n)
    if isinstance(exc, SystemExit):
        return ProgramError(f"{mech.name}: {_where(exc)}the program called sys.exit"
                            f"({exc.code!r}) at n = {n}")
    return ProgramError(f"{mech.name}: {_where(exc)}the program's own {name} at n = {n}: "
                        f"{str(exc)[:200]}")


def _reaching_input(n: int, constraints: Sequence[LinearConstraint],
                    integer_vars: set[str]) -> str:
    """An input (queries, public parameters and noise) on which the run takes the path of
    ``constraints``: all queries when the path compared nothing."""
    if not constraints:
        return f"on every input of length {n}, whatever the noise"
    names: set[str] = set().union(*(c.expr.variables() for c in constraints))
    env = z3_env(names | {f"q{i}" for i in range(n)}, integer_vars)
    sol = Query(z3_rlimit(1_000_000))
    sol.add(*[z3_constraint(c, env) for c in constraints])
    if sol.check() != z3.sat:
        return "on a path Z3 could not solve"
    m = sol.model()

    def val(k: str) -> str:
        v = m.eval(env[k], model_completion=True)
        return str(Fraction(v.as_fraction()) if z3.is_rational_value(v) else v)

    noise = ", ".join(f"{k} = {val(k)}" for k in sorted(names) if k.startswith("x"))
    return (f"e.g. on q = [{', '.join(val(f'q{i}') for i in range(n))}]"
            + (f" with noise {noise}" if noise else ""))


def _where(exc: BaseException) -> str:
    """``file:line: `` of the innermost traceback frame outside dpaudit."""
    tb = exc.__traceback__
    where = ""
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if is_user_file(name):
            text = linecache.getline(name, tb.tb_lineno).strip()
            where = f"{name}:{tb.tb_lineno}" + (f" ({text})" if text else "") + ": "
        tb = tb.tb_next
    return where


def _key(e: Lin) -> tuple[Any, ...]:
    return (tuple(sorted(e.terms.items())), e.const)


def _out_key(o: Any) -> Any:
    if isinstance(o, tuple):
        return tuple(_out_key(v) for v in o)
    if isinstance(o, Lin):
        return ("lin", _key(o))
    return (type(o).__name__, o)


def _same_run(mech: Mechanism, a: Path, b: Path) -> None:
    if (a.decisions != b.decisions or _out_key(a.output) != _out_key(b.output)
            or [(_key(c.expr), c.op) for c in a.constraints]
            != [(_key(c.expr), c.op) for c in b.constraints]
            or [(d.site, d.law, d.scale) for d in a.draws]
            != [(d.site, d.law, d.scale) for d in b.draws]):
        raise DSLError(f"{mech.name}: two identical runs gave different results: the program "
                       "uses randomness or state outside audit.dsl's samplers (numpy/random "
                       "generators, globals)")
