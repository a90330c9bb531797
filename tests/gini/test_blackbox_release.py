"""The DP Gini release (Lan & Reiter, Algorithm 3 and its broken variants) through the
black-box tester (:mod:`audit.privacy.blackbox`; the tester's own tests are in
tests/engine/privacy/blackbox/test_blackbox.py).

Every run is seeded.  False alarms (theory: <= 1 - confidence = 10 % per run): 0 in 5
seeds for the correct GiniRelease (alg3, epsilon 1, gamma 2) on three pairs
(epsilon_lower 0.142-0.154; its exact worst density ratio on them is ~0.173), 0 in 2 seeds
each for the correct release with "calibrated" constants (~0.50) and with epsilon 0.25
(~0.02).  Misses: every broken variant was flagged for every seed tried (3 seeds each):
wrong-scale (calibrated, epsilon 1): 2.01-2.06; laplace-noise (calibrated): 2.9-3.4;
local-sensitivity (alg3, epsilon 0.25): 0.67-0.69.  Sample sizes (per data set, selection /
certification): 10^5 / 3 x 10^5.

Which Gini variants are broken where: with the paper's constants (alg3) at epsilon = 1 the
"wrong-scale" (x 0.1) and "local-sensitivity" variants are *not* in violation on small data
sets (their exact worst density ratio on the pairs used here is below e^1: the alg3
constants spend only ~0.29 epsilon, see ``kernels/gini/release.py``), so the tester rightly
does not flag them there (:func:`test_gini_variants_within_claim_at_alg3_eps1`). They are
exposed where they are broken: "wrong-scale" with the "calibrated" constants (epsilon 1,
true loss ~2.1 on pair A), "local-sensitivity" at epsilon 0.25 (the scale itself leaks a
loss ~0.7 that does not shrink with epsilon), "laplace-noise" (unbounded loss) with the
"calibrated" constants (the alg3 case is in the slow test).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from audit.privacy.blackbox import BlackBoxTester
from audit.protocols import REPLACE_ONE, NeighbourPair
from proofs.gini.mechanisms import GiniRelease

# Gini pairs, L = 0, U = 1 (found with GiniRelease.location_scale: location and scale differ
# between the neighbours).  A: a poor record joins the all-equal data; B: ditto with a
# middle value; C: a middle record moves to the bottom.
GINI_PAIRS = [
    NeighbourPair(np.array([0.0, 1, 1, 1, 1]), np.array([1.0, 1, 1, 1, 1]), REPLACE_ONE,
                  {"op": "replace", "rank": 0, "old": 0.0, "new": 1.0}),
    NeighbourPair(np.array([0.0, 0.5, 0.5, 0.5, 0.5, 0.5]),
                  np.array([0.5, 0.5, 0.5, 0.5, 0.5, 1.0]), REPLACE_ONE,
                  {"op": "replace", "rank": 0, "old": 0.0, "new": 1.0}),
    NeighbourPair(np.array([0.0, 0.0, 0.25, 1, 1, 1]), np.array([0.0, 0.25, 1, 1, 1, 1]),
                  REPLACE_ONE, {"op": "replace", "rank": 0, "old": 0.0, "new": 1.0}),
]

GINI_SIZES = {"n_select": 100_000, "n_certify": 300_000}


def _run(mech, pairs, seed, **kw):
    return BlackBoxTester(**kw).run(mech, pairs, np.random.default_rng(seed))


@pytest.mark.parametrize("seed", range(5))
def test_correct_gini_alg3_not_flagged(seed):
    r = _run(GiniRelease(0.0, 1.0, 1.0), GINI_PAIRS, seed, **GINI_SIZES)
    assert not r.violates
    assert r.epsilon_lower < 0.2  # its exact worst density ratio on these pairs is ~0.173


@pytest.mark.parametrize("constants, eps", [("calibrated", 1.0), ("alg3", 0.25)])
@pytest.mark.parametrize("seed", range(2))
def test_correct_gini_other_settings_not_flagged(constants, eps, seed):
    r = _run(GiniRelease(0.0, 1.0, eps, constants=constants), GINI_PAIRS, seed, **GINI_SIZES)
    assert not r.violates


@pytest.mark.parametrize(
    "variant, constants, eps, floor",
    [("wrong-scale", "calibrated", 1.0, 1.5),
     ("laplace-noise", "calibrated", 1.0, 2.0),
     ("local-sensitivity", "alg3", 0.25, 0.5)],
)
@pytest.mark.parametrize("seed", range(3))
def test_broken_gini_flagged(variant, constants, eps, floor, seed):
    mech = GiniRelease(0.0, 1.0, eps, variant=variant, constants=constants)
    r = _run(mech, GINI_PAIRS, seed, **GINI_SIZES)
    assert r.violates and r.epsilon_lower > floor
    # ... while the correct release with the same settings on the same pairs is not:
    # covered by test_correct_gini_*; here the gap is large (floor vs < 0.55)


def _sup_density_loss(mech, pair) -> float:
    g, s = mech.location_scale(pair.first)
    g2, s2 = mech.location_scale(pair.second)
    c, sc = (g + g2) / 2, max(s, s2)
    r = np.geomspace(1e-4, 1e5, 20_000)
    y = np.concatenate([c - sc * r, c + sc * r])
    loss = (mech.noise_logpdf((y - g) / s) - math.log(s)) - (
        mech.noise_logpdf((y - g2) / s2) - math.log(s2))
    return float(np.max(np.abs(loss)))


def test_gini_variants_within_claim_at_alg3_eps1():
    """Not a miss: at alg3 / epsilon 1, 'wrong-scale' and 'local-sensitivity' have a worst
    density ratio below e^1 on these pairs, so no event can show a violation there."""
    for variant in ("wrong-scale", "local-sensitivity"):
        mech = GiniRelease(0.0, 1.0, 1.0, variant=variant)
        worst = max(_sup_density_loss(mech, p) for p in GINI_PAIRS)
        assert worst < 0.8, (variant, worst)
        r = _run(mech, GINI_PAIRS, 0, **GINI_SIZES)
        assert not r.violates and r.epsilon_lower <= worst


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_gini_laplace_noise_alg3_flagged_at_default_size(seed):
    mech = GiniRelease(0.0, 1.0, 1.0, variant="laplace-noise")
    r = _run(mech, GINI_PAIRS, seed)
    assert r.violates


def test_float_grid_flags_the_unsnapped_gini_release_not_the_snapped_one():
    """Finding: the correct DP Gini release as a plain float64 sum g + s*Z
    (``snap=False``) has unbounded bit-level loss on pair A (g = 0.25 vs g = 0: for
    g = 0.25 an output in (-0.5, -0.25] is an exact sum, so its last mantissa bit is 0),
    although its real-number loss is ~0.17.  The release now snaps its output to a
    power-of-two grid by default (kernels.gini.release.snap); the float-grid family then finds
    nothing beyond the real-number loss."""
    plain = _run(GiniRelease(0.0, 1.0, 1.0, snap=False), GINI_PAIRS[:1], 0, n_select=100_000,
                 n_certify=300_000, float_grid=True)
    assert plain.violates and plain.epsilon_lower > 4  # observed 6.7
    assert plain.witness["event_spec"]["family"] == "float-grid"
    snapped = _run(GiniRelease(0.0, 1.0, 1.0), GINI_PAIRS, 0, float_grid=True, **GINI_SIZES)
    assert not snapped.violates and snapped.epsilon_lower < 0.2  # observed 0.146
