"""The closed world a DSL program runs in under ``dpaudit prove``: no randomness but the DSL's
samplers, and a bounded amount of work per run.

While a :class:`ClosedWorld` is installed (:func:`audit.dsl.guarded`), every run of the user's
program (symbolic and concrete, inside :func:`audit.dsl.symbolic` / :func:`audit.dsl.concrete`)
is watched, deterministically, by three mechanisms:

* a profile hook (``sys.setprofile``) sees every call the program makes to a C function and
  every Python function it enters: a call to a method of a ``random.Random`` /
  ``numpy.random.Generator`` / ``RandomState`` / ``BitGenerator`` / ``SeedSequence``
  instance, to ``os.urandom`` / ``os.getrandom``, a clock (``time.time``, ``perf_counter``,
  ``monotonic``, ``process_time``, ``thread_time``, their ``_ns`` forms, ``clock_gettime``),
  ``datetime.now`` / ``utcnow`` / ``today``, or to any function of ``random``, ``secrets``
  or ``uuid.uuid1`` / ``uuid4``, is a :class:`ClosedWorldError` naming the call and the
  program line (the innermost frame of user code);
* ``numpy.random``'s module functions (``default_rng`` and every legacy sampling function;
  not its classes, which numpy itself checks ``isinstance`` against) are replaced, for the
  whole prove, by
  stand-ins that refuse inside a run (numpy's Cython functions are invisible to the profile
  hook), and the state of numpy's global ``RandomState`` (and of any generator given as
  ``watched``) is compared before and after the prove: a draw through a reference bound
  before the run that the static pass (:mod:`audit.prove.static_checks`) could not resolve
  is caught too, without its line;
* a line-trace hook (``sys.settrace``, in user frames only) counts *steps*, and the DSL counts
  *draws* and *branches* (comparisons of noisy values) per run: a run over its
  :class:`Budget` ends with :class:`BudgetExceeded` naming the program line (a ``while True``
  loop is stopped after ``steps`` lines, never by a clock).

A violation is raised into the program as :class:`audit.dsl.DSLSignal` (a ``BaseException``:
``except Exception`` cannot catch it) *and* recorded here, so a program that swallows it
(``finally: return``) is refused all the same when its run ends.  Calls made by dpaudit
itself (the DSL's samplers drawing from the concrete run's generator, the symbolic tracer,
Z3) are not the program's: the DSL pauses the hooks around them.

What this does not see (stated in README's prove section): randomness reached through C
extensions other than numpy's, through threads or processes the program starts, or numpy
generators reached only through containers or objects passed in at run time that the static
pass cannot resolve.  Nothing here prints or writes files.
"""

from __future__ import annotations

import datetime as _dt
import gc
import os
import random
import secrets
import sys
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import CodeType, FrameType
from typing import Any

import numpy as np

from audit.dsl import DSLError
from audit.user_code import is_user_file, user_line

__all__ = ["DEFAULT_BUDGET", "RNG_TYPES", "Budget", "BudgetExceeded", "ClosedWorld",
           "ClosedWorldError", "forbidden_c_call", "forbidden_python", "z3_rlimit"]


class ClosedWorldError(DSLError):
    """The program used a source of randomness (or a clock) other than the DSL's samplers."""


class BudgetExceeded(DSLError):
    """One run of the program did more work than ``--budget`` allows."""


@dataclass(frozen=True)
class Budget:
    """Work units for one ``prove``: per run of the program, at most ``steps`` executed lines
    of user code, ``draws`` sampler calls and ``branches`` comparisons of noisy values; at
    most ``paths`` paths and ``work`` draws plus branches summed over every run of the path
    enumeration per number of queries (a loop whose iteration count depends on noise has
    ever longer paths); Z3 ``rlimit`` resource units per solver query."""

    steps: int = 200_000
    draws: int = 10_000
    branches: int = 1_000
    paths: int = 100_000
    work: int = 10_000
    rlimit: int | None = None  # None: the prover's default (audit.prove.cegis.RLIMIT)

    KEYS = ("steps", "draws", "branches", "paths", "work", "rlimit")

    @staticmethod
    def parse(text: str) -> Budget:
        """``steps=100000,draws=500`` (any subset of :attr:`KEYS`; values integers >= 1,
        ``1e5`` accepted); a ValueError naming the bad part otherwise."""
        values: dict[str, int] = {}
        for part in [p.strip() for p in text.split(",") if p.strip()]:
            key, sep, raw = part.partition("=")
            key = key.strip()
            if not sep or key not in Budget.KEYS:
                raise ValueError(f"--budget {part!r}: expected KEY=VALUE with KEY one of "
                                 f"{', '.join(Budget.KEYS)}")
            try:
                num = float(raw)
            except ValueError:
                raise ValueError(f"--budget {part!r}: {raw.strip()!r} is not a number") from None
            if not (num >= 1 and num == int(num) and num < 2**62):
                raise ValueError(f"--budget {part!r}: the value must be an integer >= 1")
            values[key] = int(num)
        if not values:
            raise ValueError(f"--budget {text!r}: give at least one KEY=VALUE")
        return Budget(**values)

    def text(self) -> str:
        parts = [f"{self.steps:,} steps, {self.draws:,} draws and {self.branches:,} branches "
                 f"per run, {self.paths:,} paths and {self.work:,} draws + branches per n"]
        if self.rlimit is not None:
            parts.append(f"Z3 rlimit {self.rlimit:,} per query")
        return "; ".join(parts)


DEFAULT_BUDGET = Budget()


def z3_rlimit(default: int) -> int:
    """The Z3 ``rlimit`` per solver query: the active prove's ``--budget rlimit=``, else
    ``default``."""
    from audit import dsl

    for g in reversed(dsl._GUARD):
        r = getattr(getattr(g, "budget", None), "rlimit", None)
        if r is not None:
            return int(r)
    return default

# what counts as randomness ---------------------------------------------------------------------
#: the generator classes whose instances and methods are randomness
RNG_TYPES: tuple[type, ...] = (random.Random, np.random.Generator, np.random.RandomState,
                                np.random.BitGenerator, np.random.SeedSequence)
_CLOCK_NAMES = ("time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic",
                "monotonic_ns", "process_time", "process_time_ns", "thread_time",
                "thread_time_ns", "clock_gettime", "clock_gettime_ns")
#: C functions whose call reads a clock or the OS entropy pool, by identity
_FORBIDDEN_C: dict[Any, str] = {getattr(time, n): f"time.{n}" for n in _CLOCK_NAMES
                                if hasattr(time, n)}
_FORBIDDEN_C.update({getattr(os, n): f"os.{n}" for n in ("urandom", "getrandom")
                     if hasattr(os, n)})
_DATETIME_NOW = ("now", "utcnow", "today")


def _python_functions(owner: Any, prefix: str) -> Iterable[tuple[CodeType, str]]:
    for name, obj in vars(owner).items():
        fn = getattr(obj, "__func__", obj)
        code = getattr(fn, "__code__", None)
        if isinstance(code, CodeType):
            yield code, f"{prefix}.{name}"


def _forbidden_code() -> dict[CodeType, str]:
    """Python-level functions whose entry is a use of randomness: every function and method
    of ``random`` and ``secrets``, ``uuid.uuid1`` / ``uuid4``."""
    out: dict[CodeType, str] = {}
    for cls in (random.Random, random.SystemRandom):
        out.update(_python_functions(cls, f"random.{cls.__name__}"))
    for mod in (random, secrets):
        for code, name in _python_functions(mod, mod.__name__):
            if code.co_filename == getattr(mod, "__file__", None):
                out.setdefault(code, name)
    for n in ("uuid1", "uuid4"):
        out[getattr(uuid, n).__code__] = f"uuid.{n}"
    return out


_FORBIDDEN_PY = _forbidden_code()


def forbidden_c_call(fn: Any) -> str | None:
    """The name of the randomness / clock source ``fn`` (a C function about to be called)
    is, else None."""
    try:
        name = _FORBIDDEN_C.get(fn)
    except TypeError:  # unhashable callable
        return None
    if name is not None:
        return name
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, RNG_TYPES):
        return f"{type(owner).__module__}.{type(owner).__qualname__}.{fn.__name__}"
    if owner in (_dt.datetime, _dt.date) and getattr(fn, "__name__", "") in _DATETIME_NOW:
        return f"datetime.{owner.__name__}.{fn.__name__}"
    return None


def forbidden_python(fn: Any) -> str | None:
    """The name of the Python-level randomness function ``fn`` is (a function or method of
    ``random`` / ``secrets``, ``uuid.uuid1`` / ``uuid4``), else None."""
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    return _FORBIDDEN_PY.get(code) if isinstance(code, CodeType) else None


# numpy's module functions ----------------------------------------------------------------------
def _numpy_names() -> list[str]:
    """numpy.random's module functions (``default_rng`` and the legacy samplers bound to the
    global RandomState); its classes are left alone (numpy and dpaudit test ``isinstance``
    against them), their instances' use is caught by the state comparison."""
    names = [n for n in np.random.__all__
             if callable(getattr(np.random, n, None)) and not isinstance(getattr(np.random, n),
                                                                          type)]
    if "default_rng" not in names:
        names.append("default_rng")
    return names


_NUMPY_NAMES = _numpy_names()


def _rng_state(obj: Any) -> Any:
    """A comparable snapshot of a numpy generator's state."""
    try:
        bg = obj.bit_generator if isinstance(obj, np.random.Generator) else (
            obj._bit_generator if isinstance(obj, np.random.RandomState) else obj)
        return _plain_state(bg.state)
    except Exception:  # noqa: BLE001 - a generator without a readable state is not compared
        return None


def _plain_state(v: Any) -> Any:
    if isinstance(v, dict):
        return tuple((k, _plain_state(x)) for k, x in sorted(v.items()))
    if isinstance(v, np.ndarray):
        return v.tobytes()
    return v


class ClosedWorld:
    """The watch over one ``prove`` (see the module docstring).  ``watched`` are numpy
    generators reachable from the program's globals (their state is compared per run)."""

    def __init__(self, budget: Budget = DEFAULT_BUDGET,
                 watched: Iterable[Any] = ()) -> None:
        self.budget = budget
        self.watched = [w for w in watched if isinstance(w, RNG_TYPES[1:])]
        self.violation: DSLError | None = None
        #: the first violation of the whole prove: raised again when the prove ends, so
        #: dpaudit code that tolerates a failing run (a seed search) cannot lose it
        self.first: DSLError | None = None
        self.depth = 0
        self.paused = 0
        self.hooks_lost = False
        self.steps = self.draws = self.branches = 0
        self._saved: dict[str, Any] = {}
        self._states: list[Any] = []
        self._user_code: dict[CodeType, bool] = {}
        self._outer: tuple[Any, Any] = (None, None)
        #: gc callbacks held back while the prove runs (:meth:`open` / :meth:`close`)
        self._gc_callbacks: list[Any] = []

    # the run ---------------------------------------------------------------------------------
    def open(self) -> None:
        """The prove starts: numpy.random's module attributes are replaced by refusing
        stand-ins (they pass through outside the program's runs) and the numpy generators'
        states are recorded."""
        self._states = [_rng_state(g) for g in self._generators()]
        # garbage-collection callbacks run inside whatever frame triggers a collection (a
        # library's, e.g. distributed's GC diagnosis, reads clocks there): held back during
        # the prove so the program is not blamed for them
        self._gc_callbacks = list(gc.callbacks)
        gc.callbacks.clear()
        for n in _NUMPY_NAMES:
            self._saved[n] = getattr(np.random, n)
            setattr(np.random, n, self._stand_in(n, self._saved[n]))

    def close(self, check: bool = True) -> None:
        """The prove ends: numpy.random restored; with ``check``, a generator whose state
        changed is a :class:`ClosedWorldError` (a draw through a reference the static pass
        could not resolve; the program line is then unknown)."""
        for n, v in self._saved.items():
            setattr(np.random, n, v)
        self._saved.clear()
        gc.callbacks.extend(c for c in self._gc_callbacks if c not in gc.callbacks)
        self._gc_callbacks = []
        if not check:
            return
        if self.first is not None:
            raise self.first
        for g, before in zip(self._generators(), self._states, strict=True):
            if before is not None and _rng_state(g) != before:
                raise ClosedWorldError(
                    f"the program drew from the numpy generator {_describe(g)} (its state "
                    "changed while dpaudit ran it): randomness outside audit.dsl's samplers "
                    "is invisible to the prover")

    def enter(self) -> None:
        """A run of the program starts (nested runs share the outermost's hooks)."""
        self.depth += 1
        if self.depth > 1:
            return
        self.steps = self.draws = self.branches = 0
        self.hooks_lost = False
        self._outer = (sys.getprofile(), sys.gettrace())
        self._install()

    def exit(self, failed: bool = False) -> None:
        """The run ends (``failed``: by an exception): the hooks are removed; a recorded
        violation is raised (even when the program swallowed its signal); a run that ended
        normally with the profile hook gone (the program removed it, or knocked it out by a
        RecursionError it caught) is a violation too."""
        self.depth -= 1
        if self.depth > 0:
            return
        hooks_intact = failed or (not self.hooks_lost and (
            self.paused or (sys.getprofile() == self._profile
                            and sys.gettrace() == self._trace)))
        self.hooks_lost = False
        sys.setprofile(self._outer[0])
        sys.settrace(self._outer[1])
        if self.violation is None and not hooks_intact:
            self.violation = ClosedWorldError("the program removed dpaudit's profile or trace "
                                              "hook (sys.setprofile / settrace, or a "
                                              "RecursionError it caught): the closed world "
                                              "cannot be checked")
            self.first = self.first or self.violation
        if self.violation is not None:
            v, self.violation = self.violation, None
            raise v

    def _generators(self) -> list[Any]:
        return [np.random.mtrand._rand, *self.watched]

    def pause(self) -> None:
        """dpaudit's own code runs (a tracer call, a sampler): not watched."""
        self.paused += 1
        if self.paused == 1 and self.depth:
            if sys.getprofile() != self._profile or sys.gettrace() != self._trace:
                self.hooks_lost = True
            sys.setprofile(None)
            sys.settrace(None)

    def resume(self) -> None:
        self.paused -= 1
        if self.paused == 0 and self.depth:
            self._install()

    def _install(self) -> None:
        sys.setprofile(self._profile)
        sys.settrace(self._trace)

    # counting work ---------------------------------------------------------------------------
    def count(self, kind: str) -> None:
        """A draw (``kind`` "draws") or a branch ("branches") of the running program."""
        n = getattr(self, kind) + 1
        setattr(self, kind, n)
        if n > getattr(self.budget, kind):
            self._refuse(BudgetExceeded(
                f"{user_line(sys._getframe(1))}: one run made more than "
                f"{getattr(self.budget, kind):,} {kind} (--budget {kind}=...); a loop that "
                "does not end, or a program too large for the budget"))

    # the hooks -------------------------------------------------------------------------------
    def _refuse(self, err: DSLError) -> None:
        from audit.dsl import DSLSignal

        if self.violation is None:
            self.violation = err
        if self.first is None:
            self.first = err
        raise DSLSignal(err)

    def _violation(self, what: str, frame: FrameType | None) -> None:
        self._refuse(ClosedWorldError(
            f"{user_line(frame)}: the program calls {what}: randomness or a clock outside "
            "audit.dsl's samplers is invisible to the prover (draw with audit.dsl.laplace / "
            "geometric)"))

    def _profile(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "c_call":
            what = forbidden_c_call(arg)
            if what is not None and frame.f_code.co_filename != _DSL_FILE:
                self._violation(what, frame)
        elif event == "call":
            what = _FORBIDDEN_PY.get(frame.f_code)
            if what is not None:
                self._violation(what, frame.f_back)

    def _trace(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        code = frame.f_code
        user = self._user_code.get(code)
        if user is None:
            user = self._user_code[code] = is_user_file(code.co_filename)
        return self._line if user else None

    def _line(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any]:
        if event == "line":
            self.steps += 1
            if self.steps > self.budget.steps:
                self._refuse(BudgetExceeded(
                    f"{user_line(frame)}: one run executed more than {self.budget.steps:,} "
                    "lines of the program (--budget steps=...): a loop that does not end, or "
                    "a program too large for the budget"))
        return self._line

    def _stand_in(self, name: str, original: Any) -> Callable[..., Any]:
        def refuse(*args: Any, **kwargs: Any) -> Any:
            if self.paused or not self.depth:
                return original(*args, **kwargs)
            self._violation(f"numpy.random.{name}", sys._getframe(1))
            return None  # pragma: no cover - _violation raises

        refuse.__name__ = name
        return refuse


def _describe(g: Any) -> str:
    return "numpy.random (the global RandomState)" if g is np.random.mtrand._rand else \
        f"{type(g).__name__} at 0x{id(g):x}"


_DSL_FILE = sys.modules["audit.dsl"].__file__
