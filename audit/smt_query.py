"""One Z3 query, reproducibly: the same assertions give the same answer in every run.

Z3's search depends on the ids of its terms, and in a long-lived context (z3py's shared main
context, or one context reused for many queries) those ids depend on what else the Python
process created and freed before (``prove --paper lan-reiter-2025`` once gave
``paper.thm42.smt.n6`` UNSAT on one run and unknown on the next, same flags; issue 42).
:func:`solve` therefore prints the assertions as SMT-LIB text (a canonical form: variables
declared and subterms shared in traversal order of the assertions, not by id), parses that
text into a *fresh* context per query, fixes the random seed (:data:`SEED`), and bounds the
search in Z3 resource units (``rlimit``: deterministic work, never time).  A model found is
translated back to the context of the caller's assertions.

One implementation serves both sides of the import contract: the user prover
(:mod:`audit.prove`) calls it directly and :mod:`proofs.smt_solver` re-exports it for the
paper claims (``audit`` never imports ``proofs``).  Nothing here prints or writes.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULT_RLIMIT", "SEED", "Answer", "Query", "check", "deterministic_frees", "solve"]

#: the random seed of every query (the solver's ``random_seed``)
SEED = 0
#: the resource limit of a query whose caller states none (Z3 work units, not seconds)
DEFAULT_RLIMIT = 20_000_000


@dataclass(frozen=True)
class Answer:
    """A query's answer: ``status`` "sat" | "unsat" | "unknown", the model (in the context of
    the assertions) when sat, Z3's ``reason_unknown`` when unknown."""

    status: str
    model: Any = None
    reason: str = ""

    @property
    def result(self) -> Any:
        """The status as z3's ``CheckSatResult`` constant (``z3.sat`` / ``unsat`` /
        ``unknown``)."""
        import z3

        return {"sat": z3.sat, "unsat": z3.unsat}.get(self.status, z3.unknown)


def solve(assertions: Sequence[Any], rlimit: int, *, logic: str | None = None,
          tactic: str | None = None) -> Answer:
    """Check ``assertions`` (z3 Boolean terms, all of one context) in a fresh context under
    ``rlimit`` resource units with random seed :data:`SEED`.

    ``logic`` picks ``SolverFor(logic)``; ``tactic`` a tactic-built solver (e.g.
    ``"qfnra-nlsat"``); neither: ``Solver()``.  ``rlimit`` must be positive: every query is
    bounded."""
    import z3

    if int(rlimit) <= 0:
        raise ValueError(f"rlimit must be a positive number of Z3 work units; got {rlimit}")
    items = list(assertions)
    home = items[0].ctx if items else z3.main_ctx()
    text_solver = z3.Solver(ctx=home)
    text_solver.add(*items)
    text = text_solver.sexpr()
    ctx = z3.Context()
    if tactic is not None:
        s = z3.Tactic(tactic, ctx=ctx).solver()
    elif logic is not None:
        s = z3.SolverFor(logic, ctx=ctx)
    else:
        s = z3.Solver(ctx=ctx)
    s.set("rlimit", int(rlimit))
    s.set("random_seed", SEED)
    s.from_string(text)
    r = s.check()
    if r == z3.sat:
        return Answer("sat", s.model().translate(home))
    if r == z3.unsat:
        return Answer("unsat")
    return Answer("unknown", reason=s.reason_unknown())


def check(assertions: Sequence[Any], rlimit: int, *, logic: str | None = None,
          tactic: str | None = None) -> tuple[str, Any]:
    """:func:`solve` as a pair ("sat" | "unsat" | "unknown", model or None)."""
    a = solve(assertions, rlimit, logic=logic, tactic=tactic)
    return a.status, a.model


@contextmanager
def deterministic_frees() -> Iterator[None]:
    """Pause Python's cyclic garbage collector (restored on exit, nesting allowed): inside,
    z3 terms are freed by reference counting only, in program order, so a private context's
    term ids follow the code, not the collector's timing (which depends on what the process
    allocated before)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class Query:
    """A solver-shaped collector of assertions whose :meth:`check` is one :func:`solve`
    (fresh context, seed :data:`SEED`, ``rlimit`` work units): the callers written against
    ``z3.Solver`` (``add``, ``check``, ``model``, ``reason_unknown``) keep their
    shape while every answer becomes reproducible.  No incremental state: each ``check``
    decides the assertions added so far from scratch (the user prover's path-feasibility
    queries, :mod:`audit.prove.symbolic`)."""

    def __init__(self, rlimit: int, *, logic: str | None = None) -> None:
        self.rlimit = int(rlimit)
        self.logic = logic
        self.items: list[Any] = []
        self.answer: Answer | None = None

    def add(self, *formulas: Any) -> None:
        for f in formulas:
            if isinstance(f, (list, tuple)):
                self.add(*f)
            else:
                self.items.append(f)

    def check(self) -> Any:
        """``z3.sat`` / ``z3.unsat`` / ``z3.unknown`` of the assertions added so far."""
        self.answer = solve(self.items, self.rlimit, logic=self.logic)
        return self.answer.result

    def model(self) -> Any:
        if self.answer is None or self.answer.model is None:
            raise ValueError("no model: the last check was not sat")
        return self.answer.model

    def reason_unknown(self) -> str:
        return "" if self.answer is None else self.answer.reason

