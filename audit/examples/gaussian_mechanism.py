"""A Gaussian mechanism that declares its output law and its zCDP claim, so ``dpaudit test``
decides the claim exactly on the declared density (``user.exact-gaussian``) and tests the
sampler under the Gaussian shift family (``user.gaussian-family``) beside the black-box
claim tester.

    dpaudit test audit.examples.gaussian_mechanism:GaussianSum --lower 0 --upper 1

``GaussianSum``: sum of records clamped to [0, 1] plus N(0, s^2), s = 1 + 2^-40 (the
allowance covers the float rounding of the sum of up to 2^12 records): mu <= 1 under
replace-one, so 0.5-zCDP (``claim``), 1-GDP, and (eps, delta(eps))-DP on the Gaussian's
curve.  ``GaussianSumBroken``: declares and samples s 10 % small (mu = 1.11: rho = 0.62):
the exact verdict refutes it.  ``GaussianSumSamplerBroken``: declares s but samples with
0.9 s: the exact verdict on the declaration holds, the family test on the outputs refutes.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np

from audit.privacy.claims import ZCDP


class GaussianSum:
    """Sum of records clamped to [0, 1] plus N(0, s^2): rho = 1 / (2 s^2) <= 0.5."""

    claim = ZCDP(0.5)
    noise = "gaussian"
    lower, upper = 0.0, 1.0
    relation = "replace-one"
    factor = 1.0 + 2.0**-40  # declared scale (x the unit Gaussian)
    sampled = 1.0  # the sampler's scale relative to the declared one

    def location_scale(self, data: np.ndarray) -> tuple[float, float]:
        x = np.clip(np.asarray(data, dtype=np.float64), 0.0, 1.0)
        return float(np.sum(x)), self.factor

    @staticmethod
    def noise_logpdf(z: np.ndarray) -> np.ndarray:
        return -0.5 * np.asarray(z) ** 2 - 0.5 * math.log(2 * math.pi)

    @staticmethod
    def noise_logpdf_mp(z: mpmath.mpf) -> mpmath.mpf:
        return -z * z / 2 - mpmath.log(2 * mpmath.pi) / 2

    def sample(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        loc, scale = self.location_scale(data)
        return loc + scale * self.sampled * rng.standard_normal(size)


class GaussianSumBroken(GaussianSum):
    """Declares and samples a scale 10 % small: mu = 1.11, rho = 0.617 > 0.5."""

    factor = 0.9


class GaussianSumSamplerBroken(GaussianSum):
    """Declares the right scale, samples 10 % small (a sampler bug the declaration hides)."""

    sampled = 0.9
