"""The engine's exact privacy loss and worst-neighbour search (audit.privacy.exact_loss) on
the DP Gini release (density (10), the Gini subject's noise law; the engine's own tests, on
Laplace, Gaussian and the toy subject's law, are in tests/engine/privacy/test_exact_loss.py).

Independent sources of truth: the Cauchy pure-shift closed form
2 asinh(|d|/2); the semi-analytic sup of proofs.gini.admissibility (a different method:
unique root of the derivative, no grid); dense brute-force grids of y; a brute-force grid
of replacement values on the exact reference (Fractions / mpmath) location and scale.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from audit.privacy.exact_loss import (
    REFERENCE_RTOL,
    dataset_pair_loss,
    pair_loss,
    reference_location_scale,
    worst_neighbour,
)
from audit.privacy.mechanisms import LaplaceMechanism
from kernels.errors import InputError
from kernels.gini.noise import powerlaw_logpdf
from proofs.gini import reference
from proofs.gini.admissibility import sup_loss_fixed
from proofs.gini.mechanisms import GiniRelease


# ------------------------------------------------------------------ closed forms
@pytest.mark.parametrize("d", [1e-3, 0.05, 0.4, 2.0, 30.0])
def test_cauchy_pure_shift_closed_form(d):
    # gamma = 2, b = b': sup |L| = log max_z (1+(z+d)^2)/(1+z^2) = 2 asinh(|d|/2)
    m = GiniRelease(0.0, 1.0, 1.0, gamma=2.0)
    b = 0.7
    r = pair_loss(m, 0.2, b, 0.2 + d * b, b)
    assert r.epsilon_up == pytest.approx(2 * math.asinh(d / 2), rel=1e-12)
    assert r.certified and isinstance(r.y_star, float)


@pytest.mark.parametrize("gamma", [1.05, 1.5, 3.0, 8.0])
def test_powerlaw_pure_shift_vs_mpmath_brute_force(gamma):
    import mpmath

    m = GiniRelease(0.0, 1.0, 1.0, gamma=gamma)
    d = 0.3
    r = pair_loss(m, 0.0, 1.0, -d, 1.0)
    # independent: sup over z of log(1+|z+d|^g) - log(1+|z|^g) on a dense mpmath grid
    with mpmath.workdps(30):
        g = mpmath.mpf(gamma)
        best = max(
            abs(mpmath.log1p(abs(z + d) ** g) - mpmath.log1p(abs(z) ** g))
            for z in (mpmath.mpf(k) / 2000 for k in range(-4000, 4001))
        )
    assert float(best) <= r.epsilon_up
    assert float(best) == pytest.approx(r.epsilon_up, rel=1e-5)


@pytest.mark.parametrize("seed", range(8))
def test_powerlaw_random_pairs_vs_dense_grid_and_analytic(seed):
    rng = np.random.default_rng(100 + seed)
    gamma = float(rng.choice([1.2, 2.0, 4.0, 15.0]))
    m = GiniRelease(0.0, 1.0, 1.0, gamma=gamma)
    a, a2 = rng.uniform(0, 1, size=2)
    b = float(rng.uniform(0.05, 2))
    b2 = b * math.exp(float(rng.uniform(-0.3, 0.3)))
    r = pair_loss(m, a, b, a2, b2)
    assert r.certified
    # dense brute-force grid of y (float), never above the certified sup, close to it
    s = np.sinh(np.linspace(-25, 25, 400_001))
    y = np.concatenate([a + b * s, a2 + b2 * s])
    L = (powerlaw_logpdf((y - a) / b, gamma) - math.log(b)
         - powerlaw_logpdf((y - a2) / b2, gamma) + math.log(b2))
    brute = float(np.max(np.abs(L)))
    assert brute <= r.epsilon_up + 1e-12
    assert brute >= r.value_down - 1e-6 * max(1.0, r.value_down)
    # the independent semi-analytic value (unique root; admissibility module)
    lam, dd = math.log(b2 / b), abs(a - a2) / b
    analytic = max(sup_loss_fixed(gamma, lam, dd), sup_loss_fixed(gamma, -lam, math.exp(-lam) * dd))
    assert analytic == pytest.approx(r.epsilon_up, rel=1e-10)
    # the curve for plotting never exceeds the figure
    assert max(abs(v) for _, v in r.curve) <= r.epsilon_up + 1e-12
    assert len(r.curve) >= 401


def test_powerlaw_scale_only_is_tail_limit():
    gamma, b, b2 = 3.0, 1.0, 1.2
    r = pair_loss(GiniRelease(0.0, 1.0, 1.0, gamma=gamma), 0.5, b, 0.5, b2)
    # delta = 0: sup is max(|lambda|, (gamma-1)|lambda|), here the y -> +-inf limit
    assert r.y_star == "+-inf"
    assert r.epsilon_up == pytest.approx((gamma - 1) * math.log(b2 / b), rel=1e-14)


# ------------------------------------------------------------ exact reference values
def test_reference_location_scale_agrees_with_kernel():
    m = GiniRelease(0.0, 1.0, 1.0)
    x = [0.1, 0.4, 0.45, 0.9]
    a, b = m.location_scale(x)
    ra, rb = reference_location_scale(m, x)
    assert ra == reference.gini_eq2(x)
    assert abs(a - float(ra)) <= REFERENCE_RTOL * abs(float(ra))
    assert abs(b - float(rb)) <= REFERENCE_RTOL * float(rb)
    d = dataset_pair_loss(m, x, [0.0, 0.4, 0.45, 0.9], reference=True)
    assert d.within_tolerance
    assert d.reference.epsilon_up == pytest.approx(d.kernel.epsilon_up, rel=1e-9)
    with pytest.raises(InputError, match="exact_location_scale"):
        reference_location_scale(LaplaceMechanism(1.0), x)


# ------------------------------------------------------------------ neighbour search
def _brute_replace(m: GiniRelease, x, nv: int = 161) -> float:
    """max over records and a grid of new values of the loss on exact reference (a, b),
    via the semi-analytic sup (no exact_loss code)."""
    a, b = (float(v) for v in reference_location_scale(m, x))
    xs = np.sort(np.asarray(x, dtype=float))
    best = 0.0
    for i in range(xs.size):
        for v in np.linspace(m.lower, m.upper, nv):
            y = xs.copy()
            y[i] = v
            try:
                a2, b2 = (float(t) for t in reference_location_scale(m, y))
            except ValueError:
                continue
            lam, d = math.log(b2 / b), abs(a - a2) / b
            best = max(best, sup_loss_fixed(m.gamma, lam, d),
                       sup_loss_fixed(m.gamma, -lam, math.exp(-lam) * d))
    return best


@pytest.mark.parametrize("variant,lo,hi,seed", [
    ("correct", 0.0, 1.0, 0), ("correct", 1.0, 2.0, 1), ("wrong-scale", 1.0, 2.0, 2),
    ("local-sensitivity", 0.0, 1.0, 3),
])
def test_search_at_least_as_bad_as_brute_force(variant, lo, hi, seed):
    rng = np.random.default_rng(seed)
    m = GiniRelease(lo, hi, 1.0, variant=variant)
    x = rng.uniform(lo, hi, 4)
    bf = _brute_replace(m, x)
    r = worst_neighbour(m, x)
    assert r.epsilon_up >= bf * (1 - 1e-9)
    assert r.worst is not None and r.worst.certified.within_tolerance  # kernel vs reference
    assert not r.truncated and r.n_skipped == 0


# constructed small data sets on which each broken variant exceeds its claimed epsilon
BROKEN_CASES = [
    # 10x too little noise: one of three tiny incomes jumps to U
    ("wrong-scale", 1.0, 0.0, 1.0, [0.05, 0.05, 0.05]),
    # Laplace noise with the smooth-sensitivity scale: any neighbour changing S is unbounded
    # (with n = 3 in [0, 1] every neighbour has S = 1, equal scales and a finite loss: n = 4)
    ("laplace-noise", 1.0, 0.0, 1.0, [0.3, 0.5, 0.6, 0.9]),
    ("laplace-noise", 1.0, 1.0, 2.0, [1.2, 1.5, 1.9]),
    # scale from A^(0) (local sensitivity bound): the scale itself jumps between neighbours
    ("local-sensitivity", 0.1, 1.0, 2.0, [1.0, 1.0, 2.0, 2.0]),
    ("local-sensitivity", 0.1, 0.0, 1.0, [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]),
]


@pytest.mark.parametrize("variant,eps,lo,hi,x", BROKEN_CASES)
def test_broken_variants_violate_and_correct_does_not(variant, eps, lo, hi, x):
    bad = worst_neighbour(GiniRelease(lo, hi, eps, variant=variant), x, max_evals=120)
    assert bad.violates and bad.epsilon_up > eps
    good = worst_neighbour(GiniRelease(lo, hi, eps), x, max_evals=120)
    assert not good.violates and good.epsilon_up <= eps


@pytest.mark.parametrize("lo,hi", [(0.0, 1.0), (1.0, 2.0)])
def test_correct_release_within_epsilon_on_random_small_data(lo, hi):
    rng = np.random.default_rng(int(lo * 10 + 7))
    for _ in range(4):
        n = int(rng.integers(2, 7))
        x = rng.uniform(lo, hi, n)
        for eps in (0.1, 1.0):
            r = worst_neighbour(GiniRelease(lo, hi, eps), x, max_evals=100, certify_top=1)
            assert r.epsilon_up <= eps, (x, eps, r.worst.change)


def test_skipped_all_zero_neighbour_counted():
    # replacing the only positive record by 0 gives all zeros: Gini undefined, skipped
    r = worst_neighbour(GiniRelease(0.0, 1.0, 1.0), [0.0, 0.0, 1.0], max_evals=60)
    assert r.n_skipped >= 1 and r.skipped.get("ZeroMeanError", 0) == r.n_skipped
    assert "skipped" in r.scope


def test_validation_of_the_release_names_bad_value():
    """The release's own check (the engine's search does not bound the records)."""
    with pytest.raises(InputError, match="above the upper bound"):
        worst_neighbour(GiniRelease(0.0, 1.0, 1.0), [0.2, 1.5])


@pytest.mark.slow
def test_cps_sample_search_within_budget():
    """The built-in CPS sample (n = 61,395): the correct release's worst neighbour found
    within the default budget stays far below epsilon, and the exact reference agrees."""
    from audit.datasets import load_sample

    x = load_sample()
    r = worst_neighbour(GiniRelease(0.0, 100.0, 1.0), x)
    assert r.epsilon_up <= 1.0 and not r.violates
    assert r.worst.certified.reference is not None and r.worst.certified.within_tolerance
    assert r.duration_s < 120
