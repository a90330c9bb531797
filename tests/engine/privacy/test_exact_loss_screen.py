"""The worst-neighbour search's screen for a noise law the engine does not know (no closed
form: the float-grid screen) ranks the neighbours by sup |L|, both signs of the log-ratio:
with one pair certified (``certify_top=1``) the search must reach the brute-force worst of
the generator's pairs.

Mechanism: location 5 min(X), scale 1/2 + max(X), Student-t(3) noise (declares no law, so
the screen is the grid).  On X = (0.1, 0.2) in [0, 1] the worst pair (the minimum raised to
1: a wider X') has its sup |L| = 2.378 on the *negative* side (the t tails, 3 log(b'/b)),
while its largest positive log-ratio is 0.854, below another pair's 1.088: a screen by
max L certifies that other pair.  Truth: |L| on a dense sinh grid (2 x 200,001 points)
around both locations for every pair the generator makes (brute force; float).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

from audit.privacy.exact_loss import worst_neighbour
from audit.privacy.neighbours import ReplaceOne
from audit.protocols import REPLACE_ONE


class _MinMaxT3:
    name = "location 5 min, scale 1/2 + max, Student-t(3)"
    relation = REPLACE_ONE
    claimed_epsilon = 1.0
    lower, upper = 0.0, 1.0

    def location_scale(self, d: np.ndarray) -> tuple[float, float]:
        d = np.asarray(d, dtype=float)
        return 5.0 * float(d.min()), 0.5 + float(d.max())

    def noise_logpdf(self, z: np.ndarray) -> np.ndarray:
        return -2.0 * np.log1p(np.asarray(z, dtype=float) ** 2 / 3.0)

    def noise_logpdf_mp(self, z):  # noqa: ANN001, ANN201 - mpmath number in and out
        return -2 * mpmath.log(1 + z * z / 3)

    def sample(self, d: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        a, b = self.location_scale(d)
        return a + b * rng.standard_t(3, size)


def _brute(m: _MinMaxT3, first: np.ndarray, second: np.ndarray) -> float:
    (a, b), (a2, b2) = m.location_scale(first), m.location_scale(second)
    s = np.sinh(np.linspace(-30.0, 30.0, 200_001))
    y = np.concatenate([a + b * s, a2 + b2 * s])
    L = (m.noise_logpdf((y - a) / b) - math.log(b) - m.noise_logpdf((y - a2) / b2)
         + math.log(b2))
    return float(np.max(np.abs(L)))


def test_search_with_one_certified_pair_reaches_the_brute_force_worst() -> None:
    m, xs = _MinMaxT3(), np.array([0.1, 0.2])
    brute = max(_brute(m, p.first, p.second) for p in ReplaceOne(0.0, 1.0).pairs(xs))
    assert brute > 2.3  # the negative-side pair (sanity of the construction)
    s = worst_neighbour(m, xs, lower=0.0, upper=1.0, certify_top=1)
    assert s.epsilon_up >= brute * (1 - 1e-9), (s.epsilon_up, brute, s.worst.change)
