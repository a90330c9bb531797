"""The exact-loss tester's certified interval is rounded outward, checked exactly: for the
Laplace mechanism with equal scales the privacy loss of a pair is the rational number
|a - a'| / b of the float locations and scale (closed form: the density ratio is
exp((|y - a'| - |y - a|) / b), whose sup is |a - a'| / b), and
``value_down <= |a - a'| / b <= epsilon_up`` must hold in Fractions, with no slack: a
figure rounded to nearest instead of outward lands on the wrong side about half the time.

Scope: 12 seeded random pairs (locations N(0, 9), scales in [0.1, 5]).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from audit.privacy.exact_loss import pair_loss
from audit.privacy.mechanisms import LaplaceMechanism


@pytest.mark.parametrize("seed", range(12))
def test_laplace_equal_scales_interval_contains_the_exact_rational_loss(seed: int) -> None:
    rng = np.random.default_rng(1000 + seed)
    a, a2 = (float(v) for v in rng.normal(size=2) * 3)
    b = float(rng.uniform(0.1, 5))
    r = pair_loss(LaplaceMechanism(1.0), a, b, a2, b)
    exact = abs(Fraction(a) - Fraction(a2)) / Fraction(b)
    assert Fraction(r.value_down) <= exact <= Fraction(r.epsilon_up), (a, a2, b)
    # and tight: both ends within a few ulps of the exact value
    assert Fraction(r.epsilon_up) - Fraction(r.value_down) <= exact * Fraction(8, 2**52)
