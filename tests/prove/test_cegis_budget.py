"""The CEGIS loop is bounded in solver work units (audit/prove/cegis.py MAX_SOLVER_CALLS),
never in seconds: with the budget lowered below what a proof needs, the result is
undecided (inconclusive, the budget named), never verified; with the default the same
program is verified."""

from __future__ import annotations

import pytest

from audit.prove import cegis
from audit.prove.alignment import build_problem
from audit.prove.benchmark.noisy_max import noisy_max


def test_budget_spent_is_undecided_never_a_proof(monkeypatch: pytest.MonkeyPatch) -> None:
    prob = build_problem(noisy_max, [1, 2, 3])
    full = cegis.synthesise(prob)
    assert full.status == "verified" and full.solver_calls > 4
    monkeypatch.setattr(cegis, "MAX_SOLVER_CALLS", 4)
    cut = cegis.synthesise(build_problem(noisy_max, [1, 2, 3]))
    assert cut.status != "verified" and cut.theta is None
    assert "solver-call budget (4 Z3 calls per stage)" in cut.reason
    assert cegis.check_alignment(build_problem(noisy_max, [1, 2, 3]), full.theta or {}) is None
