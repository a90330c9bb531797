"""The prover's numeric-epsilon fallback: a program whose eps cannot stay symbolic is proved
at its claimed epsilon; a program outside the DSL at a numeric epsilon too is one DSLError
naming both reasons (the bench prints it as a ``dsl-error`` row)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from audit.dsl import DSLError, laplace, mechanism
from audit.prove.proof import prove_mechanism


@mechanism(relation="linf1", outputs="bool-list")
def split_float(q, eps, theta=0.5):
    e0 = theta * eps  # theta: a float default is a symbolic public real
    return [q[0] + laplace(2 / e0) >= 0]


@mechanism(relation="linf1", outputs="bool-list")
def split_exact(q, eps, theta=Fraction(1, 2)):
    e0 = theta * eps
    sigma = 3 / e0  # compared with a noisy value: eps cannot stay symbolic
    return [q[0] + laplace(2 / e0) >= sigma]


def test_float_budget_split_is_one_dsl_error_naming_both_reasons() -> None:
    with pytest.raises(DSLError) as info:
        prove_mechanism(split_float, n_max=1)
    msg = str(info.value)
    assert "non-linear" in msg and "cannot stay symbolic" in msg and "theta * eps" in msg


def test_exact_budget_split_is_proved_at_the_claimed_epsilon() -> None:
    # Lap(2/(eps/2)) = Lap(4/eps) on one sensitivity-1 comparison: (1/4)-DP, so eps = 1 holds
    v = prove_mechanism(split_exact, n_max=2)
    assert v.status == "verified", (v.status, v.reason)
    assert v.epsilon == Fraction(1)
    assert any("cannot stay symbolic" in n for n in v.notes)
