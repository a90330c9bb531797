"""A small vocabulary for writing a mechanism that dpaudit can both run and reason about.

A DSL mechanism is a plain Python function decorated with :func:`mechanism`; the same function
is run **concretely** (``dpaudit test``: the samplers draw from a numpy ``Generator``) and
**symbolically** (``dpaudit prove``: the samplers return fresh symbolic noise variables and
every comparison of noisy values forks the path; :mod:`audit.prove.symbolic`).  There is no
second copy of the mechanism to keep in sync and no rewriting of its source.

Example::

    from audit.dsl import mechanism, laplace

    @mechanism(epsilon="eps", relation="linf1", outputs="bool-list")
    def sparse_vector(q, eps, T=0.0, N=1):
        out, count = [], 0
        rho = laplace(2 / eps)                 # a draw: Laplace(0, 2/eps)
        for i in range(len(q)):
            nu = laplace(4 * N / eps)
            if q[i] + nu >= T + rho:           # a comparison of noisy values: a branch
                out.append(True)
                count += 1
                if count >= N:
                    break
            else:
                out.append(False)
        return out

Samplers (each call is one *draw*, identified by its *site*: ``name=`` if given, else the
variable its result is assigned to, the list it is appended to, or ``return``; a name that
several sampler calls of one function share gets ``_2``, ``_3``... in source order, so every
call has its own site; ``draw@<line>`` only when nothing names it; and by its occurrence
index on the path):

* ``laplace(scale)``: Laplace(0, scale), density ``exp(-|x|/scale) / (2 scale)``;
* ``geometric(scale)``: the two-sided geometric law on the integers,
  ``P(k) = (1-a)/(1+a) a^|k|`` with ``a = exp(-1/scale)`` (sampled as the difference of two
  i.i.d. geometric variables on {0, 1, ...}).

What a DSL program may do (the symbolic run checks it and raises :class:`DSLError` naming
the source line and the construct otherwise):

* take the query vector ``q`` (a list; ``len(q)`` is known in every run), the privacy
  parameter (the argument named by ``epsilon=``) and further keyword parameters with
  defaults: an ``int`` or ``bool`` default stays concrete (e.g. a cut-off ``N``), a ``float``
  default becomes a symbolic *public* real (e.g. a threshold ``T``: a proof covers every
  value);
* arithmetic that keeps values *linear* in the queries and draws: ``+``, ``-``, unary minus,
  multiplication and division by numbers, ``abs``, ``max`` / ``min`` (these compare, so they
  fork), ``sum`` over a list;
* comparisons ``<``, ``<=``, ``>``, ``>=`` of linear values (in ``if``/``while`` conditions,
  ``and``/``or``/``not``, or stored as an output bit), ``if``/``else``, ``for`` loops over
  ``range(len(q))`` (or any bound that does not depend on noise), ``break``, ``return``;
* noise scales built from numbers and the privacy parameter as ``c / eps`` (``c > 0`` a
  number; budget splits such as ``eps1 = eps / 2; eps2 = eps - eps1`` are fine); a proof
  normalises the privacy cost by eps (see :mod:`audit.prove.alignment`);
* outputs: a list or tuple of ``True``/``False``/numbers/linear values, one number or index
  (``int``), or one linear value.

What it may not do: multiply or divide two noisy values (non-linear), test noisy values with
``==`` / ``!=`` (a measure-zero event for Laplace noise; not supported), convert them with
``float``/``int``/``round`` or use them as list indices or loop bounds, call numpy (or any
library) on symbolic values, use ``eps`` other than to scale noise in a symbolic proof (pass a
numeric epsilon to prove for one value instead), draw with a noise-dependent scale, keep
state between calls, or draw randomness from anything but these samplers (numpy's or
Python's generators are invisible to the prover: a symbolic run that does not repeat itself
is refused with :class:`DSLError`).  Loops must terminate on every path: the executor stops
a path after :data:`MAX_DECISIONS` comparisons.

Concrete runs: ``with concrete(rng): f(q, eps)`` binds the samplers to ``rng`` (a
``numpy.random.Generator``), so a run is reproducible from its seed.  A :class:`Mechanism`
(what :func:`mechanism` returns) is also a vectorised ``sample(data, size, rng)`` object for
``dpaudit test`` (outputs encoded as fixed-length numeric vectors, see
:meth:`Mechanism.encode`).  Nothing here prints or writes files.
"""

from __future__ import annotations

import ast
import contextlib
import linecache
import math
import numbers
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

import numpy as np

from audit.user_code import is_user_file, user_line

__all__ = [
    "LAWS",
    "MAX_DECISIONS",
    "OUTPUT_KINDS",
    "RELATIONS",
    "DSLError",
    "DSLSignal",
    "EpsPower",
    "EpsilonUseError",
    "Lin",
    "Mechanism",
    "concrete",
    "geometric",
    "guarded",
    "laplace",
    "mechanism",
    "symbolic",
]

#: the noise laws a draw may have
LAWS = ("laplace", "geometric")
#: neighbouring query vectors q, q' (d = q' - q): ``linf1`` |d_i| <= 1 for all i;
#: ``monotone1`` linf1 and all d_i of one sign; ``onehot1`` at most one d_i non-zero, |d_i| <= 1
RELATIONS = ("linf1", "monotone1", "onehot1")
#: what the mechanism returns (metadata for the concrete encoding and the report)
OUTPUT_KINDS = ("bool-list", "number-list", "mixed-list", "index", "number")
#: a symbolic path making more comparisons than this is stopped (a loop that does not end)
MAX_DECISIONS = 10_000

_DSL_FILE = __file__


class DSLError(ValueError):
    """A program stepped outside the DSL (the message names the source line and construct)."""


class DSLSignal(BaseException):
    """dpaudit's own control flow through a running program: an error of the DSL, of the
    symbolic tracer or of the prover's closed world, carried as ``error``.

    It derives from ``BaseException`` (like ``KeyboardInterrupt``), so a program's ``except
    Exception`` / ``except ValueError`` cannot intercept it and turn the program being proved
    into another one; :func:`symbolic` and :func:`concrete` unwrap it when it leaves the
    program (their callers see ``error``), and a program that swallows it anyway (a bare
    ``except:``, ``except BaseException``, a ``return`` in ``finally``) is refused when its
    run ends."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(error)
        self.error = error


def _signal(error: BaseException) -> DSLSignal:
    """``error`` as a signal into the running program, remembered by the active run."""
    sig = error if isinstance(error, DSLSignal) else DSLSignal(error)
    if _MODES and _MODES[-1].signal is None:
        _MODES[-1].signal = sig
    return sig


class EpsilonUseError(DSLError):
    """The program uses the symbolic eps other than as a noise scale ``c / eps`` (a proof for
    one numeric epsilon may still be possible)."""


def _user_line() -> str:
    """``file:line`` (and the source text) of the innermost frame of the user's program:
    where it did the unsupported thing."""
    return user_line(sys._getframe(1))


def _error(construct: str, cls: type[DSLError] = DSLError) -> BaseException:
    """The error for ``construct``: inside a run a :class:`DSLSignal` (the program cannot
    catch it), else the :class:`DSLError` itself."""
    err = cls(f"{_user_line()}: {construct} is outside the dpaudit DSL "
              "(see audit/dsl.py for what a program may do)")
    return _signal(err) if _MODES else err


def _from_user() -> bool:
    """Whether the caller of the calling dunder method is the user's program inside a run
    (introspection of a DSL value there is refused; dpaudit's own code may look)."""
    return bool(_MODES) and is_user_file(sys._getframe(2).f_code.co_filename)


class _Opaque:
    """What a DSL value (a noisy / query value, the symbolic eps) answers to everything
    outside the DSL: the program's introspection of it (``isinstance``, ``__class__``,
    ``str`` / ``repr`` / ``format``, attributes a float has) and the operations a float
    supports but the DSL does not (``//``, ``%``, ``**``, ``math.floor``...) are refused with
    the program line, never answered differently from the concrete run (where the value is a
    float) and never an ordinary ``TypeError`` the program could catch."""

    __slots__ = ()

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        if _from_user():
            raise _error("type introspection (isinstance / __class__) of a noisy/query "
                         "value or eps")
        return type(self)

    def __getattr__(self, name: str) -> Any:
        if _from_user():
            raise _error(f"the attribute {name!r} of a noisy/query value or eps")
        raise AttributeError(name)

    def __str__(self) -> str:
        if _from_user():
            raise _error("str() / print of a noisy/query value or eps")
        return repr(self)

    def __format__(self, spec: str) -> str:
        if _from_user():
            raise _error("formatting a noisy/query value or eps")
        return repr(self)

    def _no(self, *_a: Any, **_k: Any) -> Any:
        raise _error("an operation a DSL value does not support (//, %, **, bit operations, "
                     "len / iteration / indexing / calling / hashing it, math.floor / ceil / "
                     "trunc, complex())")

    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __divmod__ = __rdivmod__ = _no
    __rpow__ = __matmul__ = __rmatmul__ = __and__ = __rand__ = __or__ = __ror__ = _no
    __xor__ = __rxor__ = __lshift__ = __rlshift__ = __rshift__ = __rrshift__ = _no
    __invert__ = __len__ = __iter__ = __getitem__ = __contains__ = __call__ = _no
    __trunc__ = __floor__ = __ceil__ = __complex__ = __hash__ = _no


def _number(x: Any) -> Fraction | None:
    """``x`` as an exact Fraction when it is a plain finite real number, else None."""
    if isinstance(x, bool):
        return Fraction(int(x))
    if isinstance(x, Fraction):
        return x
    if isinstance(x, numbers.Integral):
        return Fraction(int(x))
    if isinstance(x, numbers.Real):
        v = float(x)
        if not math.isfinite(v):
            raise _error(f"the non-finite number {v!r}")
        return Fraction(v)
    return None


class Lin(_Opaque):
    """A linear expression ``sum_v c_v * v + const`` over named variables, exact (Fractions).

    Variables: ``x<j>`` the j-th draw of the path, ``q<i>`` the i-th query, ``p:<name>`` a
    public real parameter.  Arithmetic stays linear (else :class:`DSLError`); an ordering
    comparison with a non-constant difference asks the active symbolic run to decide it (a
    fork of the path) and returns a Python bool."""

    __slots__ = ("terms", "const")

    def __init__(self, terms: dict[str, Fraction] | None = None,
                 const: Fraction = Fraction(0)) -> None:
        self.terms = {k: v for k, v in (terms or {}).items() if v != 0}
        self.const = const

    @staticmethod
    def var(name: str) -> Lin:
        return Lin({name: Fraction(1)})

    @staticmethod
    def lift(x: Any) -> Lin | None:
        if isinstance(x, Lin):
            return x
        c = _number(x)
        return None if c is None else Lin({}, c)

    def is_constant(self) -> bool:
        return not self.terms

    def variables(self) -> set[str]:
        return set(self.terms)

    def substitute(self, values: dict[str, Fraction | Lin]) -> Lin:
        """Replace the variables found in ``values`` (numbers or linear expressions)."""
        out = Lin({}, self.const)
        for k, c in self.terms.items():
            if k in values:
                v = Lin.lift(values[k])
                assert v is not None
                out = out + v * c
            else:
                out = out + Lin({k: c})
        return out

    # arithmetic -----------------------------------------------------------------------------
    def _other(self, x: Any, op: str) -> Lin:
        o = Lin.lift(x)
        if o is None:
            if isinstance(x, EpsPower):
                raise _error(f"'{op}' of a noisy/query value and eps (eps may only scale "
                             "noise, as c/eps, in a symbolic proof; prove for a numeric "
                             "epsilon instead)", EpsilonUseError)
            raise _error(f"'{op}' of a noisy/query value and {type(x).__name__}")
        return o

    def __add__(self, x: Any) -> Lin:
        o = self._other(x, "+")
        if _MODES and (len(self.terms) == 1 or len(o.terms) == 1):
            _note_combination(self, o)
        t = dict(self.terms)
        for k, v in o.terms.items():
            t[k] = t.get(k, Fraction(0)) + v
        return Lin(t, self.const + o.const)

    __radd__ = __add__

    def __neg__(self) -> Lin:
        return Lin({k: -v for k, v in self.terms.items()}, -self.const)

    def __pos__(self) -> Lin:
        return self

    def __sub__(self, x: Any) -> Lin:
        return self + (-self._other(x, "-"))

    def __rsub__(self, x: Any) -> Lin:
        return self._other(x, "-") + (-self)

    def __mul__(self, x: Any) -> Lin:
        o = self._other(x, "*")
        if not o.is_constant() and not self.is_constant():
            raise _error("multiplying two noisy/query values (non-linear)")
        if o.is_constant():
            c, e = o.const, self
        else:
            c, e = self.const, o
        return Lin({k: v * c for k, v in e.terms.items()}, e.const * c)

    __rmul__ = __mul__

    def __truediv__(self, x: Any) -> Lin:
        o = self._other(x, "/")
        if not o.is_constant():
            raise _error("dividing by a noisy/query value (non-linear)")
        if o.const == 0:
            raise _error("division by zero")
        return self * (1 / o.const)

    def __rtruediv__(self, x: Any) -> Lin:
        if self.is_constant() and self.const != 0:
            return self._other(x, "/") * (1 / self.const)
        raise _error("dividing by a noisy/query value (non-linear)")

    def __abs__(self) -> Lin:
        return self if self >= 0 else -self

    # comparisons ------------------------------------------------------------------------------
    def _compare(self, x: Any, op: str) -> bool:
        diff = self - self._other(x, op)
        if diff.is_constant():
            return {">=": diff.const >= 0, ">": diff.const > 0, "<=": diff.const <= 0,
                    "<": diff.const < 0}[op]
        mode = _active()
        if not isinstance(mode, _SymbolicMode):
            raise _error(f"comparing a symbolic value ('{op}') outside a symbolic run")
        return bool(_engine(mode.tracer.decide, diff, op, count="branches"))

    def __ge__(self, x: Any) -> bool:
        return self._compare(x, ">=")

    def __gt__(self, x: Any) -> bool:
        return self._compare(x, ">")

    def __le__(self, x: Any) -> bool:
        return self._compare(x, "<=")

    def __lt__(self, x: Any) -> bool:
        return self._compare(x, "<")

    def __eq__(self, x: object) -> bool:
        if x is None:
            return False
        raise _error("'==' on a noisy/query value (use <, <=, >, >=)")

    def __ne__(self, x: object) -> bool:
        if x is None:
            return True
        raise _error("'!=' on a noisy/query value (use <, <=, >, >=)")

    def __bool__(self) -> bool:
        raise _error("the truth value of a noisy/query value (compare it with < <= > >=)")

    def __float__(self) -> float:
        raise _error("float() of a noisy/query value")

    def __int__(self) -> int:
        raise _error("int() of a noisy/query value")

    def __index__(self) -> int:
        raise _error("a noisy/query value as an index or loop bound")

    def __round__(self, *_a: Any) -> Any:
        raise _error("round() of a noisy/query value")

    def __array__(self, *_a: Any, **_k: Any) -> Any:
        raise _error("a numpy call on a noisy/query value")

    def __array_ufunc__(self, ufunc: Any, *_a: Any, **_k: Any) -> Any:
        raise _error(f"numpy.{getattr(ufunc, '__name__', ufunc)} on a noisy/query value")

    def __pow__(self, *_a: Any) -> Any:
        raise _error("'**' of a noisy/query value (non-linear)")

    def __repr__(self) -> str:
        if _from_user():
            raise _error("repr() of a noisy/query value")
        return format_linear(self)


def _note_combination(a: Lin, b: Lin) -> None:
    """Tell a symbolic run that a bare draw (``c * x``) is being added to ``b`` (or ``a`` to
    a bare draw ``b``): the data a draw is combined with anchors its alignment."""
    mode = _active()
    if not isinstance(mode, _SymbolicMode) or not hasattr(mode.tracer, "combine"):
        return
    for bare, partner in ((a, b), (b, a)):
        if len(bare.terms) == 1 and bare.const == 0:
            (var, coef), = bare.terms.items()
            _engine(mode.tracer.combine, var, coef, partner)


def format_linear(e: Lin) -> str:
    """``e`` as readable text, e.g. ``q0 + x1 - 1/2``."""
    parts: list[str] = []
    for k in sorted(e.terms):
        c = e.terms[k]
        mag = abs(c)
        body = k if mag == 1 else f"{mag}*{k}"
        parts.append(("- " if c < 0 else "+ ") + body)
    if e.const != 0 or not parts:
        parts.append(("- " if e.const < 0 else "+ ") + str(abs(e.const)))
    text = " ".join(parts)
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


class EpsPower(_Opaque):
    """The symbolic privacy parameter in a proof: ``coef * eps**power``.  It may be scaled by
    numbers, added to / subtracted from a term of the same power (``eps - eps / 2``),
    inverted, and used as a noise scale ``c / eps``; nothing else."""

    __slots__ = ("coef", "power")

    def __init__(self, coef: Fraction = Fraction(1), power: int = 1) -> None:
        self.coef, self.power = coef, power

    def _num(self, x: Any, op: str) -> Fraction:
        c = _number(x)
        if c is None:
            raise _error(f"'{op}' of eps and {type(x).__name__} (eps may only scale noise as "
                         "c/eps in a symbolic proof; prove for a numeric epsilon instead)",
                         EpsilonUseError)
        return c

    def __mul__(self, x: Any) -> EpsPower:
        if isinstance(x, EpsPower):
            return EpsPower(self.coef * x.coef, self.power + x.power)
        return EpsPower(self.coef * self._num(x, "*"), self.power)

    __rmul__ = __mul__

    def __truediv__(self, x: Any) -> EpsPower:
        if isinstance(x, EpsPower):
            return EpsPower(self.coef / x.coef, self.power - x.power)
        c = self._num(x, "/")
        if c == 0:
            raise _error("division by zero")
        return EpsPower(self.coef / c, self.power)

    def __rtruediv__(self, x: Any) -> EpsPower:
        return EpsPower(self._num(x, "/") / self.coef, -self.power)

    def __add__(self, x: Any) -> EpsPower:
        if isinstance(x, EpsPower) and x.power == self.power:
            return EpsPower(self.coef + x.coef, self.power)
        return self._refuse()

    def __sub__(self, x: Any) -> EpsPower:
        if isinstance(x, EpsPower) and x.power == self.power:
            return EpsPower(self.coef - x.coef, self.power)
        return self._refuse()

    def __neg__(self) -> EpsPower:
        return EpsPower(-self.coef, self.power)

    def _refuse(self, *_a: Any) -> Any:
        raise _error("arithmetic or a comparison on eps other than c/eps, sums of c*eps "
                     "terms and their inverses (prove for a numeric epsilon instead)",
                     EpsilonUseError)

    __radd__ = __rsub__ = __lt__ = __le__ = __gt__ = \
        __ge__ = __bool__ = __float__ = __int__ = __index__ = __pow__ = _refuse

    def __repr__(self) -> str:
        if _from_user():
            raise _error("repr() of eps")
        return f"{self.coef}*eps^{self.power}"


def _unwatched(op: Callable[..., Any]) -> Callable[..., Any]:
    """``op`` (a DSL value's arithmetic, dpaudit's own code) run with the guard's hooks
    paused: the closed world watches the program, not the exact arithmetic it calls."""
    def run(*args: Any) -> Any:
        g = _GUARD[-1] if _GUARD else None
        if g is None:
            return op(*args)
        g.pause()
        try:
            return op(*args)
        finally:
            g.resume()

    run.__name__, run.__doc__ = op.__name__, op.__doc__
    return run


for _cls, _names in ((Lin, ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__",
                            "__rmul__", "__truediv__", "__rtruediv__", "__neg__", "__abs__",
                            "__ge__", "__gt__", "__le__", "__lt__")),
                     (EpsPower, ("__mul__", "__rmul__", "__truediv__", "__rtruediv__",
                                 "__add__", "__sub__", "__neg__"))):
    for _name in _names:
        setattr(_cls, _name, _unwatched(vars(_cls)[_name]))


# modes -------------------------------------------------------------------------------------------
class Tracer(Protocol):
    """What a symbolic run provides to the samplers and comparisons."""

    def draw(self, law: str, scale: Any, site: str) -> Lin: ...

    def decide(self, expr: Lin, op: str) -> bool: ...


@dataclass
class _ConcreteMode:
    rng: np.random.Generator
    signal: DSLSignal | None = None
    record: list[tuple[str, str, float | int]] | None = None  # (site, law, value) per draw


@dataclass
class _SymbolicMode:
    tracer: Tracer
    signal: DSLSignal | None = None


_MODES: list[_ConcreteMode | _SymbolicMode] = []


class Guard(Protocol):
    """What the prover installs around every run (:mod:`audit.prove.closed_world`)."""

    def open(self) -> None: ...

    def close(self, check: bool = True) -> None: ...

    def enter(self) -> None: ...

    def exit(self, failed: bool) -> None: ...

    def pause(self) -> None: ...

    def resume(self) -> None: ...

    def count(self, kind: str) -> None: ...


_GUARD: list[Guard] = []


@contextlib.contextmanager
def guarded(guard: Guard) -> Iterator[None]:
    """Every run of a DSL program inside the block is watched by ``guard`` (the prover's
    closed world and work budget)."""
    _GUARD.append(guard)
    guard.open()
    try:
        yield
    except BaseException:
        guard.close(check=False)
        raise
    finally:
        _GUARD.pop()
    guard.close(check=True)


def _engine(fn: Callable[..., Any], *args: Any, count: str | None = None) -> Any:
    """Call dpaudit's own code (the tracer) from inside a run: the guard is paused, a work
    unit is counted, and whatever it raises becomes a :class:`DSLSignal` (the program must not
    catch dpaudit's errors)."""
    g = _GUARD[-1] if _GUARD else None
    try:
        if g is not None:
            if count is not None:
                g.count(count)
            g.pause()
        try:
            return fn(*args)
        finally:
            if g is not None:
                g.resume()
    except DSLSignal:
        raise
    except BaseException as exc:  # noqa: BLE001 - handed back to dpaudit by _run
        raise _signal(exc) from None


@contextlib.contextmanager
def _run(mode: _ConcreteMode | _SymbolicMode) -> Iterator[None]:
    """One run of the program in ``mode``: the guard watches it; a signal that leaves the
    program is unwrapped; one the program swallowed is an error."""
    _MODES.append(mode)
    g = _GUARD[-1] if _GUARD else None
    if g is not None:
        g.enter()
    try:
        try:
            yield
        except DSLSignal as sig:
            if g is not None:
                g.exit(failed=True)  # raises a recorded closed-world / budget violation
            err = sig.error
            with contextlib.suppress(AttributeError, TypeError):
                err._dpaudit_signal = True  # type: ignore[attr-defined]  # not the program's
            raise err.with_traceback(err.__traceback__) from None
        except BaseException:
            if g is not None:
                g.exit(failed=True)
            raise
        if g is not None:
            g.exit(failed=False)
        if mode.signal is not None:
            raise DSLError(f"the program caught dpaudit's own signal ({mode.signal.error}) and "
                           "went on: a bare `except:`, `except BaseException` or a `return` "
                           "in `finally` changes the program being proved")
    finally:
        _MODES.pop()


def _active() -> _ConcreteMode | _SymbolicMode | None:
    return _MODES[-1] if _MODES else None


@contextlib.contextmanager
def concrete(rng: np.random.Generator) -> Iterator[None]:
    """Bind the samplers to ``rng`` for the block (concrete runs, e.g. ``dpaudit test``)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"concrete() needs a numpy.random.Generator, got {type(rng).__name__}")
    with _run(_ConcreteMode(rng)):
        yield


@contextlib.contextmanager
def recording(rng: np.random.Generator, record: list[tuple[str, str, float | int]]
              ) -> Iterator[None]:
    """:func:`concrete`, also appending ``(site, law, value)`` of every draw to ``record``
    (the prover's concrete cross-check matches a real run to its symbolic path)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"recording() needs a numpy.random.Generator, got {type(rng).__name__}")
    with _run(_ConcreteMode(rng, record=record)):
        yield


@contextlib.contextmanager
def symbolic(tracer: Tracer) -> Iterator[None]:
    """Bind the samplers and comparisons to a symbolic run (used by the prover)."""
    with _run(_SymbolicMode(tracer)):
        yield


_SAMPLER_NAMES = ("laplace", "geometric")
_LIST_METHODS = ("append", "extend", "insert")
#: (filename, first line, function name) -> {(line, column) of a sampler call: site name}
_SITE_NAMES: dict[tuple[str, int, str], dict[tuple[int, int], str]] = {}


def _is_sampler_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    return ((isinstance(f, ast.Name) and f.id in _SAMPLER_NAMES)
            or (isinstance(f, ast.Attribute) and f.attr in _SAMPLER_NAMES))


def _statement_name(stmt: ast.stmt, call: ast.Call) -> str | None:
    """The name a sampler call inside ``stmt`` is known by: the variable assigned (the
    element of a tuple assignment holding it), the list appended to, ``return``; else None."""
    def holds(node: ast.AST) -> bool:
        return any(n is call for n in ast.walk(node))

    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        tgt = stmt.targets[0]
        if isinstance(tgt, ast.Name):
            return tgt.id
        if (isinstance(tgt, ast.Tuple) and isinstance(stmt.value, ast.Tuple)
                and len(tgt.elts) == len(stmt.value.elts)):
            for t, v in zip(tgt.elts, stmt.value.elts, strict=True):
                if holds(v):
                    return t.id if isinstance(t, ast.Name) else None
        return None
    if isinstance(stmt, ast.AugAssign | ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return stmt.target.id
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        f = stmt.value.func
        if (isinstance(f, ast.Attribute) and f.attr in _LIST_METHODS
                and isinstance(f.value, ast.Name)):
            return f.value.id
        return None
    if isinstance(stmt, ast.Return):
        return "return"
    return None


def _own_statements(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.stmt]:
    """Every statement of ``fn``'s body (nested blocks included, nested functions not)."""
    todo: list[ast.stmt] = list(fn.body)
    while todo:
        st = todo.pop(0)
        if isinstance(st, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        yield st
        for fld in ("body", "orelse", "finalbody", "handlers"):
            todo.extend(getattr(st, fld, []) or [])


def _site_names(code: Any) -> dict[tuple[int, int], str]:
    """Site names of every sampler call in the function of ``code``, unique within it: the
    statement's name (:func:`_statement_name`), ``_2``, ``_3``... appended in source order
    when several calls share one, else ``draw@<line>``."""
    key = (code.co_filename, code.co_firstlineno, code.co_name)
    if key in _SITE_NAMES:
        return _SITE_NAMES[key]
    out: dict[tuple[int, int], str] = {}
    _SITE_NAMES[key] = out
    try:
        tree = ast.parse("".join(linecache.getlines(code.co_filename)))
    except (SyntaxError, ValueError):
        return out
    fn = next((n for n in ast.walk(tree)
               if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
               and n.name == code.co_name
               and min([n.lineno, *(d.lineno for d in n.decorator_list)])
               == code.co_firstlineno), None)
    if fn is None:
        return out
    calls: list[tuple[int, int, str]] = []
    for st in _own_statements(fn):
        inner = [st] if not hasattr(st, "body") else [
            getattr(st, f) for f in ("test", "iter", "target", "items", "subject")
            if getattr(st, f, None) is not None]
        for part in inner:
            for node in ast.walk(part) if isinstance(part, ast.AST) else []:
                if isinstance(node, ast.Call) and _is_sampler_call(node):
                    base = _statement_name(st, node) if part is st else None
                    calls.append((node.lineno, node.col_offset,
                                  base or f"draw@{node.lineno}"))
    calls.sort()
    idents = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
    count: dict[str, int] = {}
    used: set[str] = set()
    for line, col, base in calls:
        count[base] = count.get(base, 0) + 1
        name = base if count[base] == 1 else f"{base}_{count[base]}"
        while name in used or (name != base and name in idents):
            name += "_"
        used.add(name)
        out[(line, col)] = name
    return out


def _site(name: str | None) -> str:
    """The draw site: ``name``, else the variable the sampler's result is assigned to (or
    the list it is appended to, or ``return``), else ``draw@<line>``; a name several
    sampler calls of one function share gets ``_2``, ``_3``... in source order, so every
    source location has its own site."""
    if name is not None:
        return str(name)
    f: Any = sys._getframe(2)
    while f is not None and f.f_code.co_filename == _DSL_FILE:
        f = f.f_back
    if f is None:
        return "draw"
    names = _site_names(f.f_code)
    try:
        line, _, col, _ = list(f.f_code.co_positions())[f.f_lasti // 2]
    except (AttributeError, IndexError, ValueError):
        line, col = f.f_lineno, None
    if (line, col) in names:
        return names[(line, col)]
    on_line = [v for (ln, _), v in names.items() if ln == f.f_lineno]
    return on_line[0] if len(on_line) == 1 else f"draw@{f.f_lineno}"


def _draw(law: str, scale: Any, name: str | None) -> Any:
    mode = _active()
    if mode is None:
        raise DSLError(f"{_user_line()}: {law}() called outside a dpaudit run (use "
                       "`with audit.dsl.concrete(rng): ...` to run a DSL program)")
    if isinstance(mode, _SymbolicMode):
        if isinstance(scale, Lin) and not scale.is_constant():
            raise _error(f"a {law} draw whose scale depends on noise or data")
        site = _site(name)
        return _engine(mode.tracer.draw, law, scale, site, count="draws")
    return _engine(_concrete_draw, mode, law, scale, name, count="draws")


def _concrete_draw(mode: _ConcreteMode, law: str, scale: Any, name: str | None) -> Any:
    try:
        s = float(scale)
    except (TypeError, ValueError, OverflowError):
        s = math.nan
    if not (math.isfinite(s) and s > 0):
        raise DSLError(f"{_user_line()}: {law} scale must be a finite number > 0, got "
                       f"{scale!r}")
    value: float | int
    if law == "laplace":
        value = float(mode.rng.laplace(0.0, s))
    else:
        p = -math.expm1(-1.0 / s)  # success probability 1 - exp(-1/scale)
        value = int(mode.rng.geometric(p)) - int(mode.rng.geometric(p))
    if mode.record is not None:
        mode.record.append((_site(name), law, value))
    return value


def laplace(scale: Any, *, name: str | None = None) -> Any:
    """One Laplace(0, ``scale``) draw (density exp(-|x|/scale) / (2 scale))."""
    return _draw("laplace", scale, name)


def geometric(scale: Any, *, name: str | None = None) -> Any:
    """One two-sided geometric draw on the integers, P(k) proportional to exp(-|k|/scale)."""
    return _draw("geometric", scale, name)


# the decorator -----------------------------------------------------------------------------------
class Mechanism:
    """A DSL program with its metadata (what :func:`mechanism` returns).

    Calling it runs the function (inside :func:`concrete` or :func:`symbolic`).  For
    ``dpaudit test`` it is a vectorised mechanism ``sample(data, size, rng)``: ``data`` is
    the query vector q, the program runs ``size`` times at ``claimed_epsilon`` and each
    output is encoded by :meth:`encode`."""

    fn: Callable[..., Any]
    epsilon_param: str
    relation: str
    outputs: str
    claimed_epsilon: float
    params: dict[str, Any]
    name: str

    def __init__(self, fn: Callable[..., Any], epsilon: str, relation: str, outputs: str,
                 claimed_epsilon: float, params: dict[str, Any] | None = None) -> None:
        if relation not in RELATIONS:
            raise ValueError(f"relation must be one of {', '.join(RELATIONS)}, got "
                             f"{relation!r}")
        if outputs not in OUTPUT_KINDS:
            raise ValueError(f"outputs must be one of {', '.join(OUTPUT_KINDS)}, got "
                             f"{outputs!r}")
        if not (isinstance(claimed_epsilon, numbers.Real) and claimed_epsilon > 0
                and math.isfinite(claimed_epsilon)):
            raise ValueError(f"claimed_epsilon must be a finite number > 0, got "
                             f"{claimed_epsilon!r}")
        self.fn = fn
        self.epsilon_param = epsilon
        self.relation = relation
        self.outputs = outputs
        self.claimed_epsilon = float(claimed_epsilon)
        self.params = dict(params or {})
        self.name = getattr(fn, "__qualname__", getattr(fn, "__name__", "mechanism"))
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__wrapped__ = fn

    def __call__(self, q: Sequence[Any], eps: Any, **params: Any) -> Any:
        return self.fn(q, **{self.epsilon_param: eps, **self.params, **params})

    def at(self, epsilon: float, **params: Any) -> Mechanism:
        """The same program claimed (and run by ``dpaudit test``) at ``epsilon``."""
        return Mechanism(self.fn, self.epsilon_param, self.relation, self.outputs,
                         epsilon, {**self.params, **params})

    def encode(self, out: Any, n: int) -> list[float]:
        """One output as a fixed-length vector of floats.

        * ``bool-list``: ``n`` entries, True 1, False 0, absent (the list ended) -1;
        * ``number-list``: ``2 n`` entries, the ``n`` values (0 where the list ended) then
          ``n`` presence flags (1 present, 0 absent);
        * ``mixed-list``: per position a kind code (1 True, 0 False, -1 absent, 2 number)
          followed by the value (the number, else 0): ``2 n`` entries;
        * ``index``: one entry, the index (-1 for None);
        * ``number``: one entry.
        """
        kind = self.outputs
        if kind in ("index", "number"):
            return [-1.0 if out is None else float(out)]
        seq = list(out)
        if len(seq) > n:
            raise DSLError(f"{self.name}: output of length {len(seq)} > len(q) = {n} cannot "
                           "be encoded as a fixed-length vector")
        if kind == "bool-list":
            return [(1.0 if v else 0.0) for v in seq] + [-1.0] * (n - len(seq))
        if kind == "number-list":
            return ([float(v) for v in seq] + [0.0] * (n - len(seq))
                    + [1.0] * len(seq) + [0.0] * (n - len(seq)))
        enc: list[float] = []
        for k in range(n):
            if k >= len(seq):
                enc += [-1.0, 0.0]
            elif isinstance(seq[k], bool | np.bool_):
                enc += [1.0 if seq[k] else 0.0, 0.0]
            else:
                enc += [2.0, float(seq[k])]
        return enc

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` encoded outputs on the query vector ``data`` (a ``dpaudit test``
        vectorised mechanism)."""
        q = [float(v) for v in np.asarray(data, dtype=float).ravel()]
        rows = []
        with concrete(rng):
            for _ in range(int(size)):
                rows.append(self.encode(self(q, self.claimed_epsilon), len(q)))
        return np.asarray(rows, dtype=float)

    def __repr__(self) -> str:
        return (f"<dpaudit DSL mechanism {self.name}: epsilon={self.epsilon_param!r}, "
                f"relation={self.relation!r}, outputs={self.outputs!r}>")


def mechanism(*, epsilon: str = "eps", relation: str = "linf1", outputs: str = "bool-list",
              claimed_epsilon: float = 1.0) -> Callable[[Callable[..., Any]], Mechanism]:
    """Declare a DSL mechanism: ``epsilon`` names its privacy parameter, ``relation`` the
    neighbouring query vectors (one of :data:`RELATIONS`), ``outputs`` what it returns (one of
    :data:`OUTPUT_KINDS`), ``claimed_epsilon`` the value ``dpaudit test`` runs and claims it
    at (``.at(eps)`` gives another)."""

    def wrap(fn: Callable[..., Any]) -> Mechanism:
        return Mechanism(fn, epsilon, relation, outputs, claimed_epsilon)

    return wrap
