"""A mechanism that declares its output law, so ``dpaudit test`` also runs the exact
privacy-loss tester (:mod:`audit.privacy.exact_loss`).

What to declare (all four; the exact tester reads them, the black-box tester only calls
``sample``):

* ``location_scale(data) -> (location, scale)``: the output is ``location + scale * Z``;
  computed with the mechanism's own float arithmetic;
* ``noise_logpdf(z)``: log-density of the *unit-scale* noise ``Z`` (numpy, vectorised);
* ``noise_logpdf_mp(z)``: the same with mpmath (the certified bound uses it);
* ``noise = "laplace"`` (or ``"gaussian"``, ``"powerlaw"``): the tail family;

plus the claim as an ``epsilon`` attribute (``--epsilon`` is then optional).

    dpaudit test audit.examples.exact_laplace:ClampedMeanLaplace --lower 0 --upper 1 \
        --relation replace-one

``ClampedMeanLaplace``: mean of n records clamped to [0, 1], Laplace scale
(1 + 2^-40) / (n epsilon): correct (replace-one, n fixed; the 2^-40 relative allowance covers
the float rounding of the mean for n up to 2^12).  ``ClampedMeanLaplaceNoAllowance``: scale
exactly 1 / (n epsilon): the exact tester refutes it by a hair on the neighbour search's
rounding pairs (the float mean moves by more than 1/n).  ``ClampedMeanLaplaceBroken``: scale
1 / (2 n epsilon), true epsilon 2x the claim.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np


class ClampedMeanLaplace:
    """Mean of records clamped to [0, 1] plus Laplace(1 / (n epsilon)): epsilon-DP under
    replace-one (the mean moves by at most 1/n)."""

    epsilon = 1.0
    noise = "laplace"
    lower, upper = 0.0, 1.0
    factor = 1.0 + 2.0**-40

    def location_scale(self, data: np.ndarray) -> tuple[float, float]:
        x = np.clip(np.asarray(data, dtype=np.float64), 0.0, 1.0)
        n = max(x.size, 1)
        return float(np.sum(x)) / n, self.factor / (n * self.epsilon)

    @staticmethod
    def noise_logpdf(z: np.ndarray) -> np.ndarray:
        return -np.abs(z) - math.log(2.0)

    @staticmethod
    def noise_logpdf_mp(z: mpmath.mpf) -> mpmath.mpf:
        return -abs(z) - mpmath.log(2)

    def sample(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        loc, scale = self.location_scale(data)
        return loc + scale * rng.laplace(0.0, 1.0, size)


class ClampedMeanLaplaceNoAllowance(ClampedMeanLaplace):
    """Scale exactly 1 / (n epsilon): the real-number calibration, wrong in float."""

    factor = 1.0


class ClampedMeanLaplaceBroken(ClampedMeanLaplace):
    """Half the noise: true epsilon 2 against the claim 1."""

    factor = 0.5
