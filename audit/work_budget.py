"""Scopes counted in work, not seconds: no verdict depends on the machine's speed.

A claim documents its **full scope** in work units (data sets, cases, solver calls, n) and the
seconds that scope is documented to need on a 2-core machine (``full_budget_s``).  The
``budget_s`` a caller passes can only **shrink** the scope, by the same ratio, and never below a
stated minimum: ``cases(full, budget_s, full_budget_s)`` depends on these numbers alone, so the
same command gives the same scope, hence the same verdict, on a fast or a loaded machine.  The
Finding states the scope reached (its ``scope`` text counts the cases run).
"""

from __future__ import annotations

import math

__all__ = ["DEFAULT_BUDGET_S", "cases", "fraction"]

#: what ``prove`` / ``search`` / ``reproduce`` pass to a claim when ``--budget`` is not given:
#: every claim runs its full documented scope
DEFAULT_BUDGET_S = math.inf


def fraction(budget_s: float, full_budget_s: float) -> float:
    """The share of the full scope a budget buys: ``min(1, budget_s / full_budget_s)``."""
    if not full_budget_s > 0:
        raise ValueError(f"full_budget_s must be > 0, got {full_budget_s!r}")
    if math.isnan(budget_s) or budget_s < 0:
        raise ValueError(f"budget_s must be >= 0, got {budget_s!r}")
    return 1.0 if budget_s >= full_budget_s else budget_s / full_budget_s


def cases(full: int, budget_s: float, full_budget_s: float, minimum: int = 1) -> int:
    """Work units to run: ``full`` shrunk by :func:`fraction`, at least ``min(minimum, full)``."""
    if full < 0:
        raise ValueError(f"full must be >= 0, got {full!r}")
    n = math.floor(full * fraction(budget_s, full_budget_s))
    return max(min(minimum, full), min(full, n))
