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
from kernels.gini import neighbour as _nb
from kernels.gini import noise as _noise
from kernels.gini import release as _rel
from kernels.gini import sensitivity as _sens
from kernels.gini.validate import as_incomes
from kernels.validate import check_k

DPAUDIT_NAME = "dpaudit kernels (float64/numpy)"
#: the (alpha, beta) rule this module claims to follow (checked by ``constants.rule``)
DPAUDIT_CONSTANTS_RULE = "alg3"


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


def noise_ppf(q: Any, gamma: float) -> np.ndarray:
    return np.asarray(_noise.powerlaw_ppf(q, gamma), dtype=np.float64)


def sample_noise(rng: np.random.Generator, gamma: float, size: int) -> np.ndarray:
    return _noise.sample_powerlaw(rng, gamma, size)


def noise_constants(epsilon: float, gamma: float) -> tuple[float, float]:
    """(alpha, beta) of the shipped release's default rule ('alg3')."""
    c = _rel.noise_constants(epsilon, gamma, "alg3")
    return c.alpha, c.beta


def release_scale(x: Any, L: float, U: float, epsilon: float, gamma: float) -> float:
    """Noise scale S(X)/alpha declared by the shipped release
    (:func:`kernels.gini.release.release_gini`, default constants)."""
    return _rel.release_gini(x, L, U, epsilon, np.random.default_rng(0), gamma=gamma).scale


def release_sample(x: Any, L: float, U: float, epsilon: float, gamma: float,
                   rng: np.random.Generator, size: int) -> tuple[np.ndarray, float, float]:
    """``size`` draws of the shipped release on x, with its declared (gini, scale)."""
    r = _rel.release_gini(x, L, U, epsilon, rng, gamma=gamma, size=size)
    return np.asarray(r.value, dtype=np.float64), float(r.gini), float(r.scale)


def dp_upper_bound(x: Any, rng: np.random.Generator, epsilon_count: float,
                   epsilon_threshold: float, start: float, ratio: float,
                   max_guess: float) -> float:
    """Section 5.1 DP upper bound U = 2.5 x~ (:func:`kernels.gini.release.dp_upper_bound`)."""
    return _rel.dp_upper_bound(x, rng, epsilon_count=epsilon_count,
                               epsilon_threshold=epsilon_threshold, start=start, ratio=ratio,
                               max_guess=max_guess).upper


def loss_bound(alpha: float, beta: float, gamma: float) -> float:
    """Bound (*) on the release's worst privacy loss (:func:`kernels.gini.release.loss_bound`)."""
    return _rel.loss_bound(alpha, beta, gamma)


def snap_grid(alpha: float) -> tuple[float, float]:
    """(clamp B, grid step) of the snapped release (:func:`kernels.gini.release.snap_grid`)."""
    g = _rel.snap_grid(alpha)
    return g.clamp, g.step


def snap(y: Any, clamp: float, step: float) -> np.ndarray:
    """Clamp to [-B, B] and round to the grid (:func:`kernels.gini.release.snap`)."""
    return _rel.snap(y, _rel.SnapGrid(clamp, step))


def neighbour_location_scale(x: Any, L: float, U: float, epsilon: float, gamma: float,
                             rank: int, new: float) -> tuple[float, float]:
    """(g(X'), S(X')/alpha) of the replace-one neighbour X' = sorted x with the record of
    rank ``rank`` (0-based) replaced by ``new``, by the prefix-table fast path
    (:mod:`kernels.gini.neighbour`) that steers certify's exact-loss search."""
    xs, lo, hi = as_incomes(x, L, U)
    return _nb.neighbour_tables(xs, lo, hi).location_scale(int(rank), float(new), epsilon,
                                                           gamma)


def posterior_interval(g_tilde: float, scale: float, gamma: float,
                       level: float) -> tuple[float, float]:
    """Central ``level`` credible interval of g given the release g~ under a Uniform(0, 1)
    prior, eq. (11) (:func:`kernels.gini.release.posterior_exact`)."""
    return _rel.posterior_exact(g_tilde, scale, _noise.powerlaw(gamma), level=level).interval


def release_scale_clipped(x: Any, L: float, U: float, epsilon: float, gamma: float) -> float:
    """Noise scale declared by the shipped release with records outside [L, U] clipped to
    the bounds first (``release_gini(..., clip=True)``, the path of
    :func:`kernels.gini.release.release_gini_dp_bounds`)."""
    return _rel.release_gini(x, L, U, epsilon, np.random.default_rng(0), gamma=gamma,
                             clip=True).scale


def bound_A_tight(x: Any, k: int, L: float, U: float) -> float:
    """A_tight^(k)(X) (:func:`kernels.gini.tight.bound_A_tight`; ``--bound tight``)."""
    from kernels.gini import tight as _tight

    return _tight.bound_A_tight(x, k, L, U)
