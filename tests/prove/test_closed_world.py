"""Issue 36, soundness classes 2-5 and the watchdog: the prover's closed world.

Every test here is deterministic (no sampling decides a verdict); each refusal is asserted
with the construct and the program line it must name, and each guard is shown to let the
correct twin through (so a guard that refuses everything would fail these tests)."""

from __future__ import annotations

import datetime
import importlib
import os
import random
import re
import secrets
import sys
import textwrap
import time
import uuid
from fractions import Fraction

import numpy as np
import pytest

from audit import dsl
from audit.dsl import DSLError, laplace, mechanism
from audit.prove.closed_world import Budget, BudgetExceeded, ClosedWorld, ClosedWorldError
from audit.prove.concrete_check import ConcreteMismatch, cross_check
from audit.prove.proof import prove_mechanism
from audit.prove.static_checks import StaticRefusal, check_program
from audit.prove.symbolic import ProgramError, enumerate_paths

_MODULE_RNG = np.random.default_rng(0)  # a generator bound before any run
_MODULE_RANDOM = random.Random(1)
_PRE_NORMAL = np.random.normal  # bound to numpy's global RandomState before any run


def _runtime(mech, n: int = 1, budget: Budget | None = None):
    """The symbolic enumeration inside the closed world, *without* the static pass: what the
    run-time watch alone catches."""
    with dsl.guarded(ClosedWorld(budget or Budget())):
        return enumerate_paths(mech, n)


def _never_proved(mech, marker: str, exc: type[BaseException], what: str) -> None:
    """``prove`` refuses ``mech`` with ``exc`` naming the line holding ``marker`` and ``what``."""
    line = _line_of(mech.fn, marker)
    with pytest.raises(exc, match=rf":{line} .*{what}"):
        prove_mechanism(mech, n_max=1)


def _line_of(fn, text: str) -> int:
    import inspect

    src, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(src) if text in line)


# class 2: randomness outside the DSL ----------------------------------------------------------
def test_rare_branch_draw_is_refused_by_both_passes() -> None:
    @mechanism(outputs="number")
    def rare(q, eps):
        x = q[0] + laplace(1 / eps)
        if x > 1e6:  # probability about 1e-6 at q = 0 for eps ~ 1e-5: never hit by sampling
            x = x + np.random.normal()
        return x

    line = _line_of(rare.fn, "np.random.normal")
    with pytest.raises(StaticRefusal, match=rf"test_closed_world.py:{line} .*numpy.random"):
        check_program(rare)
    # the symbolic run explores the rare branch, so the run-time watch refuses it every time
    for _ in range(3):
        with pytest.raises(ClosedWorldError, match=rf":{line} .*numpy.random.normal"):
            _runtime(rare)


def test_frequent_python_random_draw_is_refused_at_run_time_with_its_line() -> None:
    @mechanism(outputs="number")
    def frequent(q, eps):
        return q[0] + laplace(1 / eps) + random.random()

    line = _line_of(frequent.fn, "random.random()")
    with pytest.raises(ClosedWorldError, match=rf":{line} .*random.Random.random"):
        _runtime(frequent)
    with pytest.raises(StaticRefusal, match=rf":{line} .*the module random"):
        check_program(frequent)


@pytest.mark.parametrize("what, call", [
    ("default_rng", lambda: np.random.default_rng()),
    ("random.Random", lambda: random.Random(0)),
    ("time.time", lambda: time.time()),
    ("time.perf_counter", lambda: time.perf_counter()),
    ("os.urandom", lambda: os.urandom(4)),
    ("uuid.uuid4", lambda: uuid.uuid4()),
    ("secrets", lambda: secrets.randbelow(10)),
    ("datetime.datetime.now", lambda: datetime.datetime.now()),
])
def test_every_source_is_refused_at_run_time(what, call) -> None:
    @mechanism(outputs="number")
    def prog(q, eps):
        call()
        return q[0] + laplace(1 / eps)

    with pytest.raises(ClosedWorldError, match=what.split(".")[-1]):
        _runtime(prog)


def test_generator_bound_before_the_run_is_refused() -> None:
    @mechanism(outputs="number")
    def pre_bound(q, eps):
        return q[0] + laplace(1 / eps) + _MODULE_RNG.normal() * 0

    @mechanism(outputs="number")
    def pre_bound_global(q, eps):
        return q[0] + laplace(1 / eps) + _PRE_NORMAL() * 0

    with pytest.raises(StaticRefusal, match="_MODULE_RNG.*random generator object"):
        check_program(pre_bound)
    with pytest.raises(StaticRefusal, match="_PRE_NORMAL.*RandomState.normal"):
        check_program(pre_bound_global)
    # numpy's Cython methods are invisible to the profile hook: at run time the state of
    # numpy's global RandomState (and of generators given to watch) is compared
    with pytest.raises(ClosedWorldError, match="drew from the numpy generator numpy.random"):
        _runtime(pre_bound_global)
    with pytest.raises(ClosedWorldError, match="drew from the numpy generator Generator"):
        with dsl.guarded(ClosedWorld(watched=[_MODULE_RNG])):
            enumerate_paths(pre_bound, 1)


def test_helper_in_another_module_is_followed(tmp_path, monkeypatch) -> None:
    (tmp_path / "cw_helper_mod.py").write_text(textwrap.dedent("""\
        import random as _r

        def jitter(v):
            return v + _r.random() * 0

        def clean(v):
            return v + 1
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    helper = importlib.import_module("cw_helper_mod")

    @mechanism(outputs="number")
    def uses_helper(q, eps):
        return helper.jitter(q[0]) + laplace(1 / eps)

    @mechanism(outputs="number")
    def clean_helper(q, eps):
        return helper.clean(q[0]) + laplace(1 / eps)

    with pytest.raises(StaticRefusal, match=r"cw_helper_mod.py:4 .*_r.*the module random"):
        check_program(uses_helper)
    with pytest.raises(ClosedWorldError, match=r"cw_helper_mod.py:4"):
        _runtime(uses_helper)
    check_program(clean_helper)  # the twin without randomness passes both
    assert len(_runtime(clean_helper)) == 1


def test_static_pass_resolves_aliases_imports_closures_and_defaults() -> None:
    def inner_import(q, eps):
        from numpy.random import default_rng as mk
        return q[0] + laplace(1 / eps) + mk(0).normal() * 0

    def closure(q, eps):
        return q[0] + laplace(1 / eps) + _MODULE_RANDOM.random() * 0

    def default(q, eps, g=_MODULE_RNG):
        return q[0] + laplace(1 / eps)

    def clock(q, eps):
        return q[0] + laplace(1 / eps) + time.monotonic() * 0

    for fn, what in ((inner_import, "import of"), (closure, "random generator object"),
                     (default, "default argument"), (clock, "time.monotonic")):
        with pytest.raises(StaticRefusal, match=what):
            check_program(mechanism(outputs="number")(fn))


def test_a_program_without_outside_randomness_passes_the_static_pass() -> None:
    from audit.examples.dsl_mechanisms import noisy_max, sparse_vector
    from audit.prove.benchmark import PROGRAMS

    for p in [sparse_vector, noisy_max, *[b.program for b in PROGRAMS]]:
        check_program(p)


# class 3: dpaudit's control flow cannot be caught --------------------------------------------
def test_except_value_error_no_longer_changes_the_program() -> None:
    @mechanism(outputs="bool-list")
    def catches(q, eps):
        x = q[0] + laplace(1 / eps)
        try:
            b = x == 0  # outside the DSL: before issue 36 an ordinary ValueError
        except ValueError:
            return [True]  # ... which turned the program into a constant one: PROVED
        return [b]

    _never_proved(catches, "b = x == 0", DSLError, r"'=='")


@pytest.mark.parametrize("handler", ["except:", "except BaseException:",
                                     "except (ValueError, BaseException):"])
def test_handlers_that_could_catch_the_signal_are_refused_statically(tmp_path, monkeypatch,
                                                                      handler) -> None:
    (tmp_path / "cw_handler_mod.py").write_text(textwrap.dedent(f"""\
        from audit.dsl import laplace, mechanism

        @mechanism(outputs="bool-list")
        def prog(q, eps):
            x = q[0] + laplace(1 / eps)
            try:
                return [x >= 0]
            {handler}
                return [True]
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("cw_handler_mod", None)
    mod = importlib.import_module("cw_handler_mod")
    with pytest.raises(StaticRefusal, match=r"cw_handler_mod.py:8 .*(bare|BaseException)"):
        check_program(mod.prog)


def test_return_in_finally_is_refused_and_a_swallowed_signal_is_caught_at_run_time() -> None:
    @mechanism(outputs="bool-list")
    def swallow(q, eps):
        x = q[0] + laplace(1 / eps)
        try:
            return [x == 0]
        finally:
            return [True]  # noqa: B012 - the point of the test

    with pytest.raises(StaticRefusal, match="`return` in a `finally`"):
        check_program(swallow)
    with pytest.raises(DSLError, match="caught dpaudit's own signal"):
        _runtime(swallow)


# class 5: the symbolic run is indistinguishable, or refused --------------------------------
def _isinst(q, eps):
    x = laplace(1 / eps)
    if isinstance(x, float):  # True when dpaudit test runs it
        return [q[0] + x >= 0]
    return [True]


def _typename(q, eps):
    x = q[0] + laplace(1 / eps)
    return [x >= 0] if type(x).__name__ == "float" else [True]


def _float_raises(q, eps):
    x = q[0] + laplace(1 / eps)
    try:
        float(x)
    except Exception:  # symbolic: the DSL's refusal is not an Exception
        return [True]
    return [x >= 0]


@pytest.mark.parametrize("fn, marker, exc, what", [
    (_isinst, "isinstance(x, float)", DSLError, r"type introspection"),
    (_typename, "type(x).__name__", StaticRefusal, r"type\(\)"),
    (_float_raises, "float(x)", DSLError, r"float\(\)"),
])
def test_the_issue_s_three_introspecting_programs_are_never_proved(fn, marker, exc,
                                                                    what) -> None:
    _never_proved(mechanism(outputs="bool-list")(fn), marker, exc, what)


def test_float_operations_the_dsl_lacks_are_refusals_not_type_errors() -> None:
    @mechanism(outputs="bool-list")
    def floor_div(q, eps):
        x = q[0] + laplace(1 / eps)
        try:
            y = x // 1  # works on a float
        except TypeError:
            return [True]
        return [y >= 0]

    with pytest.raises(DSLError, match="does not support"):
        _runtime(floor_div)


def test_concrete_cross_check_catches_what_the_refusals_miss() -> None:
    @mechanism(outputs="bool-list")
    def sneaky(q, eps):
        x = q[0] + laplace(1 / eps)
        if hasattr(x, "terms"):  # only a symbolic value has it: the symbolic run says True
            return [True]
        return [x >= 0]

    @mechanism(outputs="bool-list")
    def honest(q, eps):
        x = q[0] + laplace(1 / eps)
        return [x >= 0]

    paths = {1: enumerate_paths(sneaky, 1)}
    assert [p.output for p in paths[1]] == [(True,)]  # what the proof would be about
    with pytest.raises(ConcreteMismatch, match="none of the 1 symbolic paths"):
        cross_check(sneaky, paths, None, "linf1")
    with pytest.raises(ConcreteMismatch):
        prove_mechanism(sneaky, n_max=1)  # never PROVED
    v = prove_mechanism(honest, n_max=1)
    assert v.status == "verified" and any("cross-checked by" in m for m in v.notes)


# the budget and the program's own errors -------------------------------------------------------
def test_while_true_is_refused_by_the_step_budget() -> None:
    @mechanism(outputs="bool-list")
    def forever(q, eps):
        k = 0
        while True:
            k += 1

    line = _line_of(forever.fn, "k += 1")
    with pytest.raises(BudgetExceeded, match=rf"(:{line}|:{line - 1}) .*more than 5,000 lines"):
        _runtime(forever, budget=Budget(steps=5_000))


@pytest.mark.parametrize("kind, body", [
    ("draws", "while True:\n        laplace(1 / eps)"),
    ("branches", "x = laplace(1 / eps)\n    while True:\n        if x >= q[0]:\n"
                 "            x = x + 1\n        else:\n            x = x - 1"),
])
def test_draw_and_branch_budgets(tmp_path, monkeypatch, kind, body) -> None:
    (tmp_path / f"cw_budget_{kind}.py").write_text(
        "from audit.dsl import laplace, mechanism\n\n"
        "@mechanism(outputs='number')\n"
        f"def prog(q, eps):\n    {body}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = importlib.import_module(f"cw_budget_{kind}")
    with pytest.raises(BudgetExceeded, match=rf"more than 50 {kind}"):
        _runtime(mod.prog, budget=Budget(**{kind: 50}))


def test_budget_parsing() -> None:
    b = Budget.parse("steps=1e4, draws=7")
    assert (b.steps, b.draws, b.branches) == (10_000, 7, Budget().branches)
    for bad in ("steps", "seconds=3", "steps=0", "steps=1.5", "steps=x", ""):
        with pytest.raises(ValueError, match="--budget"):
            Budget.parse(bad)


@pytest.mark.parametrize("body, what", [
    ("return 1 / 0", "ZeroDivisionError"),
    ("import sys\n    sys.exit(3)", "sys.exit"),
    ("return float('nan')", "non-finite"),
    ("return prog(q, eps)", "RecursionError"),
])
def test_program_errors_are_bad_input_naming_the_line(tmp_path, monkeypatch, body, what) -> None:
    name = f"cw_err_{abs(hash(body)) % 10**6}"
    (tmp_path / f"{name}.py").write_text(
        "from audit.dsl import laplace, mechanism\n\n"
        "@mechanism(outputs='number')\n"
        f"def prog(q, eps):\n    {body}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = importlib.import_module(name)
    with pytest.raises(ProgramError, match=rf"{name}.py:\d+ .*{what}|at n = 1: .*{what}"):
        _runtime(mod.prog)  # inside the closed world: the program's error, not the watch's


def test_overflowing_scale_is_bad_input() -> None:
    @mechanism(outputs="number")
    def huge(q, eps):
        return q[0] + laplace(1e308 * 10 / eps)

    with pytest.raises(DSLError, match="non-finite"):
        _runtime(huge)


# class 4: the scope is what was checked -------------------------------------------------------
def test_a_crash_at_one_n_is_named_in_the_headline_scope() -> None:
    @mechanism(outputs="number-list")
    def crash_at_2(q, eps):
        if len(q) == 2:
            q[5]  # the program's own IndexError, at n = 2 only
        return [q[0] + laplace(1 / eps)]

    v = prove_mechanism(crash_at_2, n_max=3, refute=False)
    assert v.status == "verified"
    assert v.sizes == [1, 3] and list(v.unchecked) == [2] and not v.all_n
    scope = v.scope_text()
    assert scope.startswith("the numbers of queries n ∈ {1, 3} (n = 2 NOT checked")
    assert "IndexError" in scope and "q[5]" in scope
    assert "on every input of length 2, whatever the noise" in scope
    assert "every number of queries n <=" not in scope
    assert v.evidence()["unchecked_n"]["2"].startswith("at n = 2")


def test_eps_symbolic_value_is_exact_after_the_closed_world() -> None:
    # the DSL's exact arithmetic (Fractions) is unchanged by the watch
    @mechanism(outputs="number")
    def half(q, eps):
        return q[0] / 2 + laplace(2 / eps)

    (p,) = _runtime(half)
    assert p.output.terms == {"q0": Fraction(1, 2), "x0": Fraction(1)}


def test_a_violation_dpaudit_code_tolerates_is_raised_when_the_prove_ends() -> None:
    @mechanism(outputs="number")
    def frequent(q, eps):
        return q[0] + laplace(1 / eps) + random.random()

    with pytest.raises(ClosedWorldError, match="random.Random.random"):
        with dsl.guarded(ClosedWorld()):
            try:  # e.g. the refutation search's seed runs skip a run that fails
                enumerate_paths(frequent, 1)
            except DSLError:
                pass


def test_a_loop_with_ever_longer_paths_hits_the_work_budget() -> None:
    @mechanism(outputs="number")
    def draw_until(q, eps):
        s = q[0]
        while True:  # each path one iteration longer than the last: unboundedly many paths
            s = s + laplace(1 / eps)
            if s > 10:
                return 1

    with pytest.raises(BudgetExceeded, match=r"more than 500 draws and branches in total"):
        _runtime(draw_until, budget=Budget(work=500))


def test_knocking_out_the_profile_hook_is_refused() -> None:
    @mechanism(outputs="number")
    def knock_out(q, eps):
        def deep(k):
            return deep(k + 1)
        try:
            deep(0)  # a RecursionError inside dpaudit's hook removes the hook...
        except RecursionError:
            pass  # ... and the program goes on unwatched
        return q[0] + laplace(1 / eps)

    with pytest.raises(ClosedWorldError, match="removed dpaudit's profile or trace hook"):
        _runtime(knock_out)


def test_cli_refusals_are_exit_2_and_write_nothing(tmp_path, monkeypatch, capsys) -> None:
    from audit.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "cw_cli_prog.py").write_text(textwrap.dedent("""\
        import numpy as np
        from audit.dsl import laplace, mechanism

        @mechanism(outputs="number")
        def rng(q, eps):
            return q[0] + laplace(1 / eps) + np.random.default_rng().normal() * 0

        @mechanism(outputs="bool-list")
        def spin(q, eps):
            while True:
                pass
        """))
    out = tmp_path / "r"
    cases = [(["cw_cli_prog:rng"], "cw_cli_prog.py:6 .*numpy.random"),
             (["cw_cli_prog:spin", "--budget", "steps=2000"],
              r"cw_cli_prog.py:10 .*more than 2,000 lines"),
             (["cw_cli_prog:spin", "--budget", "steps=0"], "integer >= 1"),
             (["cw_cli_prog:spin", "--budget", "60"], "work units")]
    for args, msg in cases:
        assert main(["prove", *args, "--out", str(out)]) == 2, args
        assert re.search(msg, capsys.readouterr().err), args
    assert not out.exists()


def test_a_crash_on_one_path_names_an_input_reaching_it() -> None:
    @mechanism(outputs="bool-list")
    def crash_on_path(q, eps):
        hits = 0
        for i in range(len(q)):
            if q[i] + laplace(1 / eps) >= 0:
                hits += 1
        if hits == 2:
            q[7]  # only when both comparisons held
        return [hits >= 1]

    with pytest.raises(IndexError, match=r"at n = 2 .*q\[7\].*e\.g\. on q = \[(.+), (.+)\] "
                                         r"with noise x0 = .*, x1 = "):
        enumerate_paths(crash_on_path, 2)
    assert len(enumerate_paths(crash_on_path, 1)) == 2  # n = 1 runs: the crash needs n = 2


def test_a_library_gc_callback_reading_the_clock_is_not_blamed_on_the_program() -> None:
    # Hypothesis (and distributed's GC diagnosis) register gc callbacks that read clocks; a
    # collection inside the program's run ran them in the program's thread, and the closed
    # world refused the program (every prove after a Hypothesis test, in one process)
    import gc

    calls: list[float] = []

    def clock_reader(phase, info):  # noqa: ANN001, ANN202
        calls.append(time.perf_counter())

    @mechanism(outputs="number")
    def allocates(q, eps):
        junk = [[i] for i in range(2000)]
        return q[0] + laplace(1 / eps) + 0 * len(junk)

    gc.callbacks.append(clock_reader)
    try:
        v = prove_mechanism(allocates, n_max=2)
        assert v.status == "verified", v.reason
        assert clock_reader in gc.callbacks  # restored after the prove
    finally:
        gc.callbacks.remove(clock_reader)
