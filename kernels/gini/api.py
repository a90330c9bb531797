"""dpaudit's own kernels behind the kernel protocol of :mod:`audit.protocols`.

Every function here is a thin, documented wrapper with the protocol's fixed name and
signature; the mathematics lives in the modules it calls.  ``dpaudit regress`` audits this
module by default (``--kernels kernels.gini.api``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kernels.gini import extremes as _ex
from kernels.gini import index as _gini
from kernels.gini import noise as _noise
from kernels.gini import release as _rel
from kernels.gini import sensitivity as _sens
from kernels.validate import as_incomes, check_k

DPAUDIT_NAME = "dpaudit kernels (float64/numpy)"


def gini(x: Any) -> float:
    """Eq. (2)."""
    return _gini.gini(x)


def gini_eq1(x: Any) -> float:
    """Eq. (1)."""
    return _gini.gini_mean_difference(x)


def min_mean(x: Any, k: int, L: float, U: float) -> float:
    return _ex.min_mean(x, k, L, U)


def max_mean(x: Any, k: int, L: float, U: float) -> float:
    return _ex.max_mean(x, k, L, U)


def min_gini(x: Any, k: int, L: float, U: float) -> float:
    return _ex.min_gini(x, k, L, U)


def max_gini(x: Any, k: int, L: float, U: float) -> float:
    return _ex.max_gini(x, k, L, U)


def bound_A(x: Any, k: int, L: float, U: float) -> float:
    """A^(k) of Theorem 4.3 (eq. 23, (22) corrected) on the true extremes."""
    xs, lo, hi = as_incomes(x, L, U)
    kk = check_k(k, xs.size)
    t = _ex.extremes_sorted(_gini.prefix_tables(xs), lo, hi, kk, kk)
    return float(_sens.bound_thm43(t)[0])


def bound_A_iq(x: Any, k: int, L: float, U: float) -> float:
    """Theorem 4.4-style bound (all four terms, worst-case extremes)."""
    xs, lo, hi = as_incomes(x, L, U)
    kk = check_k(k, xs.size)
    return float(_sens.bound_thm44(xs.size, float(np.sum(xs, dtype=np.longdouble)), lo, hi, kk))


def smooth_sensitivity(x: Any, L: float, U: float, beta: float) -> float:
    return _sens.smooth_sensitivity(x, L, U, beta).value


def noise_pdf(z: Any, gamma: float) -> np.ndarray:
    return np.asarray(_noise.powerlaw_pdf(z, gamma), dtype=np.float64)


def noise_cdf(z: Any, gamma: float) -> np.ndarray:
    return np.asarray(_noise.powerlaw_cdf(z, gamma), dtype=np.float64)


def sample_noise(rng: np.random.Generator, gamma: float, size: int) -> np.ndarray:
    return _noise.sample_powerlaw(rng, gamma, size)


def release_scale(x: Any, L: float, U: float, epsilon: float, gamma: float) -> float:
    """Noise scale S(X)/alpha of the release with the default 'alg3' constants."""
    c = _rel.noise_constants(epsilon, gamma, "alg3")
    return _sens.smooth_sensitivity(x, L, U, c.beta).value / c.alpha
