"""One Z3 query, reproducibly: the same assertions give the same answer in every run.

Z3's search depends on the ids of its terms, and in z3py's shared main context those ids
depend on what else the Python process created and freed before (``prove --paper
lan-reiter-2025`` once gave ``paper.thm42.smt.n6`` UNSAT on one run and unknown on the next,
same flags).  :func:`check` therefore prints the assertions as SMT-LIB text (a canonical form:
variables declared and subterms shared in traversal order of the assertions, not by id),
parses that text into a *fresh* context per query, fixes the random seeds, and bounds the
search in Z3 resource units (``rlimit``: deterministic work, never time).  A model found is
translated back to the caller's context.  Nothing here prints or writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["SEED", "check"]

#: the random seed of every query (the solver's ``random_seed``)
SEED = 0


def check(assertions: Sequence[Any], rlimit: int, *, logic: str | None = None,
          tactic: str | None = None) -> tuple[str, Any]:
    """Check ``assertions`` (z3 Boolean terms of the main context) under ``rlimit`` resource
    units; returns ("sat" | "unsat" | "unknown", model in the main context or None).

    ``logic`` picks ``SolverFor(logic)``; ``tactic`` a tactic-built solver (e.g.
    ``"qfnra-nlsat"``); neither: ``Solver()``."""
    import z3

    text_solver = z3.Solver()
    text_solver.add(*assertions)
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
        return "sat", s.model().translate(z3.main_ctx())
    return ("unsat" if r == z3.unsat else "unknown"), None
