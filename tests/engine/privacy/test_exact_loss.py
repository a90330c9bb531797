"""Exact privacy loss and worst-neighbour search (audit.privacy.exact_loss) on the engine's
own laws (Laplace, Gaussian) and on a law the engine does not own: the hyperbolic secant law
of the toy subject (tests/common/toy_subject/noise_law.py), reached only through the
NoiseLaw protocol.  (The Gini release, density (10), is in tests/gini/test_exact_loss.py.)

Independent sources of truth: Laplace closed forms; the secant law's closed form
sup |L| = (pi/2)|d|/b for a shift d at scale b (its log-density is (pi/2)-Lipschitz and the
bound is the tail limit; derived in the toy module's docstring), checked here against a
dense mpmath grid of y; for the worst replace-one neighbour of a sum of records in [L, U],
the largest move max_i max(U - x_i, x_i - L) by hand.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from audit.privacy.exact_loss import (
    dataset_pair_loss,
    noise_family,
    pair_loss,
    worst_neighbour,
)
from audit.privacy.mechanisms import LaplaceMechanism
from audit.protocols import ADD_REMOVE_ONE
from kernels.errors import InputError
from tests.common.toy_subject.mechanisms import ToySum


# ------------------------------------------------------------------ closed forms
def test_laplace_mechanism_calibration_pair_exact():
    r = dataset_pair_loss(LaplaceMechanism(0.1), [0.0, 0.0], [0.0, 1.0]).kernel
    assert r.epsilon_up == pytest.approx(0.1, rel=1e-12)
    assert r.value_down <= 0.1 <= r.epsilon_up
    assert r.certified and r.family == "laplace"
    assert isinstance(r.y_star, float)  # attained (a whole half-line attains it)


@pytest.mark.parametrize("seed", range(5))
def test_laplace_equal_scales_closed_form(seed):
    rng = np.random.default_rng(seed)
    a, a2 = rng.normal(size=2) * 3
    b = float(rng.uniform(0.1, 5))
    r = pair_loss(LaplaceMechanism(1.0), a, b, a2, b)
    want = abs(a - a2) / b
    assert r.epsilon_up == pytest.approx(want, rel=1e-12)
    assert r.epsilon_up >= want >= r.value_down


def test_laplace_different_scales_unbounded():
    r = pair_loss(LaplaceMechanism(1.0), 0.0, 1.0, 0.0, 1.1)
    assert r.epsilon_up == math.inf and r.y_star == "+-inf" and r.certified


def test_gaussian_unbounded_unless_identical():
    m = LaplaceMechanism(1.0, noise="gaussian")
    assert noise_family(m)[0] == "gaussian"
    assert pair_loss(m, 0.0, 1.0, 0.1, 1.0).epsilon_up == math.inf
    assert pair_loss(m, 0.0, 1.0, 0.0, 1.0).value_down == 0.0



def test_add_remove_relation():
    m = LaplaceMechanism(0.5, relation=ADD_REMOVE_ONE)
    r = worst_neighbour(m, [0.2, 0.7, 0.9], lower=0.0, upper=1.0)
    assert r.relation == ADD_REMOVE_ONE
    # adding the value 1 (or removing 0.9) moves the sum by at most 1: loss exactly epsilon
    assert r.epsilon_up == pytest.approx(0.5, rel=1e-12) and not r.violates
    assert r.worst.change["op"] in ("add", "remove")
    with pytest.raises(InputError, match="replace-one"):
        worst_neighbour(ToySum(0.0, 1.0, 1.0), [0.2, 0.5], relation=ADD_REMOVE_ONE)


def test_budget_truncates():
    r = worst_neighbour(ToySum(0.0, 1.0, 1.0), [0.1, 0.3, 0.6, 0.9], max_evals=5)
    assert r.truncated and r.n_location_scale <= 6 and "truncated" in r.scope
    d = r.as_dict()
    assert d["truncated"] and d["worst"]["kernel"]["rounding"] == "up"


# ------------------------------------------------------------------ validation
def test_validation_names_bad_value():
    m = ToySum(0.0, 1.0, 1.0)
    with pytest.raises(InputError, match="b2 must be > 0, got -1.0"):
        pair_loss(m, 0.0, 1.0, 0.0, -1.0)
    with pytest.raises(InputError, match="a must be finite"):
        pair_loss(m, math.nan, 1.0, 0.0, 1.0)
    with pytest.raises(InputError, match="dps"):
        pair_loss(m, 0.0, 1.0, 0.0, 1.0, dps=(30, 30))
    with pytest.raises(InputError, match="grid must be an integer >= 3, got 1"):
        pair_loss(m, 0.0, 1.0, 0.0, 1.0, grid=1)
    with pytest.raises(InputError, match="max_evals must be an integer >= 1, got 0"):
        worst_neighbour(m, [0.2, 0.5], max_evals=0)
    with pytest.raises(InputError, match="'sideways'"):
        worst_neighbour(m, [0.2, 0.5], relation="sideways")
    with pytest.raises(InputError, match="lower and upper bounds"):
        worst_neighbour(LaplaceMechanism(1.0), [0.2, 0.5])
    with pytest.raises(InputError, match="time_budget_s must be > 0"):
        worst_neighbour(m, [0.2, 0.5], time_budget_s=-3)
    with pytest.raises(InputError, match="LocationScaleMechanism"):
        worst_neighbour(object(), [0.2, 0.5])  # type: ignore[arg-type]


# ------------------------------------------------- a law the engine does not own (toy)
@pytest.mark.parametrize("d, b", [(1e-3, 0.7), (0.4, 0.7), (2.0, 1.0), (30.0, 3.0)])
def test_secant_law_pure_shift_closed_form(d, b):
    m = ToySum(0.0, 1.0, 1.0)
    assert noise_family(m) == ("hyperbolic-secant", None)  # found through the protocol
    r = pair_loss(m, 0.2, b, 0.2 + d, b)
    want = (math.pi / 2) * d / b
    assert r.epsilon_up == pytest.approx(want, rel=1e-12)
    assert r.epsilon_up >= want * (1 - 1e-15) and r.value_down <= want * (1 + 1e-15)
    assert r.certified and r.family == "hyperbolic-secant"
    assert r.analytic_check == pytest.approx(want, rel=1e-15)  # the law's cross-check


def test_secant_law_against_a_dense_mpmath_grid():
    """sup over a dense grid of y of |L(y)|, computed with mpmath from the density's
    definition (1/2) sech(pi z / 2): never above the certified figure and within 1e-6 of it
    (the sup is approached in the tails, reached on the grid's far end)."""
    b, d = 0.5, 0.3
    r = pair_loss(ToySum(0.0, 1.0, 1.0), 0.0, b, d, b)
    with mpmath.workdps(30):
        def logf(z):
            return mpmath.log(mpmath.sech(mpmath.pi * z / 2) / 2)

        best = max(abs(logf(mpmath.mpf(y) / b) - logf((mpmath.mpf(y) - d) / b))
                   for y in np.linspace(-40.0, 40.0, 8001))
    assert float(best) <= r.epsilon_up
    assert float(best) == pytest.approx(r.epsilon_up, rel=1e-6)


def test_secant_law_different_scales_unbounded():
    r = pair_loss(ToySum(0.0, 1.0, 1.0), 0.0, 2.0, 0.0, 2.5)
    assert r.epsilon_up == math.inf and r.y_star == "+-inf" and r.certified


def test_worst_neighbour_through_the_subjects_law():
    """Records [0.1, 0.3, 0.6, 0.9] in [0, 1]: the sum moves by at most 0.9 (0.1 -> 1 or
    0.9 -> 0), so the loss is (pi/2)(0.9)/b: 0.9 at the correct scale (pi/2)/eps and
    (pi/2)(0.9) at the Laplace scale 1/eps (the broken twin, above eps = 1)."""
    x = [0.1, 0.3, 0.6, 0.9]
    good = worst_neighbour(ToySum(0.0, 1.0, 1.0), x)
    assert good.epsilon_up == pytest.approx(0.9, rel=1e-12) and not good.violates
    assert good.worst.change["new"] in (0.0, 1.0)
    bad = worst_neighbour(ToySum(0.0, 1.0, 1.0, laplace_scale=True), x)
    assert bad.epsilon_up == pytest.approx(math.pi / 2 * 0.9, rel=1e-12) and bad.violates
