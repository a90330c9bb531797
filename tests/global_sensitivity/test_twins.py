"""Twins of the Liu prove checks (issue 42): each is the same computation on a perturbed
claim, refuted where the claim is tight, and not refuted (so the check is vacuous) where the
computation cannot tell -- a display whose lines are all 0, a GS above the supremum."""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from kernels.global_sensitivity import formulas as fo
from proofs.global_sensitivity import claims, derivations, smt


def test_chain_twin_needs_a_non_zero_last_line() -> None:
    x = sp.Symbol("x")
    real = derivations._chain([("a", (x + 1) ** 2), ("b", x**2 + 2 * x + 1)], derivations.NUDGE)
    assert derivations._chain_twin(real)["outcome"] == "refuted"
    zero = derivations._chain([("a", x - x), ("b", sp.Integer(0))], derivations.NUDGE)
    assert derivations._chain_twin(zero)["outcome"] == "not-refuted"  # 0 * 8/7 = 0


def test_smt_twin_is_sat_below_the_exact_gs_only() -> None:
    """Mean, Def 1, n = 3 on [0, 1]: exact GS 1/3 (hand-worked: one record 0 -> 1).  Z3 finds
    a pair above 1/3 (1 - 2^-20) and none above 1/3."""
    case = {"n": 3}
    g = fo.exact_gs("mean", fo.DEF1, **case)
    assert g == Fraction(1, 3)
    tw = claims._smt_twin("mean", fo.DEF1, [case], smt.RLIMIT_PER_QUERY)
    assert tw["outcome"] == "refuted" and tw["margin"]["tightened_bound"] < g
    assert smt.exceeds("mean", fo.DEF1, g, n=3).status == "unsat"


def test_rhs_comparison_twin_uses_the_attained_slack() -> None:
    bad, count, slack = derivations._check_rhs_lt_nmax(max_n=8, max_J=2)
    assert not bad and count > 0 and slack[1] is not None
    tight, _, _ = derivations._check_rhs_lt_nmax(max_n=8, max_J=2, shift=slack[0])
    assert any(t["sizes"] == slack[1] for t in tight)
