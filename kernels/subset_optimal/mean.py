"""Algorithm 1 (bounded mean) and Algorithm 3 (subset-optimal mean), Dick et al. Section 3.

Public vs private quantities, as printed
---------------------------------------
Algorithm 1: public l, u, epsilon (so w = u - l and m = (l + u)/2 are public); private:
n = |D| (released through Z_n ~ Lap(2/eps)) and s = sum(D - m) (through Z_s ~ Lap(w/eps)).

Algorithm 3 line 1: alpha = gamma/|D|, zeta = alpha/(R |D| eps),
beta = (2/eps) ln(2R/(alpha zeta)), t_l = 1/eps + beta, t_u = |D| - 1/eps - beta.  Every one
of these is computed from the *private* |D| and then used as a public parameter of
Algorithm 2 (lines 2-3).  The privacy checks decide whether that accounting holds
(``proofs.subset_optimal.privacy``).  Inputs: R, eps (the input list says eps' and alpha;
line 1 defines alpha from gamma, which we take as the input), gamma.

Readings / deviations (each selectable, none silent):
* ``clip=True`` (default): line 4 runs Algorithm 1 on clip(D, [l-hat, u-hat]) as the text
  (Section 3, "clip D to [l-hat, u-hat], and finally apply Algorithm 1") and Appendix B.3
  do; ``clip=False`` is the literal pseudo-code ("run on D"), which violates Algorithm 1's
  input condition D within [l, u].
* when l-hat > u-hat (the two draws are independent, so this happens) the paper says
  nothing; we run Algorithm 1 on [min, max] of the two (post-processing of (l-hat, u-hat)).
* ``n_public``: a twin that computes alpha, zeta, beta from a public size instead of |D|
  (t_u still uses |D|); not the paper's algorithm.
"""

from __future__ import annotations

import math

import numpy as np

from kernels.errors import InvalidParameterError, OutOfBoundsError
from kernels.subset_optimal import thresholds as th
from kernels.validate import check_rng

__all__ = ["alg1_sample", "alg3_parameters", "alg3_sample", "alg1_clipped_core"]


def _pos(v: float, name: str) -> float:
    if not (isinstance(v, (int, float, np.floating, np.integer)) and math.isfinite(v) and v > 0):
        raise InvalidParameterError(f"{name} must be a finite number > 0, got {v!r}")
    return float(v)


def alg1_clipped_core(xs: np.ndarray, lo: np.ndarray, hi: np.ndarray, epsilon: float,
                      rng: np.random.Generator, clip: bool = True) -> np.ndarray:
    """Algorithm 1 lines 1-5 on clip(D, [lo_i, hi_i]) for each draw i (vectorised).

    ``xs`` sorted data; ``lo``/``hi`` arrays of the draws' intervals.  ``clip=False``: the
    sum uses the unclipped data (Algorithm 3's literal line 4)."""
    n = xs.size
    size = lo.size
    w = hi - lo                                   # line 1
    m = (lo + hi) / 2
    if clip:
        pref = np.concatenate([[0.0], np.cumsum(xs)])
        jl = np.searchsorted(xs, lo, "left")      # records < lo are clipped up to lo
        jh = np.searchsorted(xs, hi, "right")     # records > hi are clipped down to hi
        jh = np.maximum(jh, jl)
        total = lo * jl + hi * (n - jh) + (pref[jh] - pref[jl])
    else:
        total = np.full(size, float(xs.sum()))
    s = total - n * m                             # line 2 and line 4: s = sum(D - m)
    n_hat = n + rng.laplace(0.0, 2.0 / epsilon, size)          # line 3
    s_hat = s + rng.laplace(0.0, 1.0, size) * (w / epsilon)    # line 4 (scale w/eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = s_hat / n_hat
    ratio = np.where(np.isfinite(ratio), ratio, 0.0)
    return np.clip(ratio, -w / 2, w / 2) + m      # line 5


def alg1_sample(data: np.ndarray, lower: float, upper: float, epsilon: float, size: int,
                rng: np.random.Generator) -> np.ndarray:
    """``size`` draws of Algorithm 1's mu-hat on D within [lower, upper] (public)."""
    rng = check_rng(rng)
    _pos(epsilon, "epsilon")
    if not lower < upper:
        raise InvalidParameterError(f"need lower < upper, got [{lower!r}, {upper!r}]")
    xs = np.sort(np.asarray(data, dtype=np.float64).ravel())
    if xs.size and (xs[0] < lower or xs[-1] > upper):
        raise OutOfBoundsError(f"Algorithm 1 needs D within [{lower}, {upper}]")
    lo = np.full(size, float(lower))
    hi = np.full(size, float(upper))
    return alg1_clipped_core(xs, lo, hi, float(epsilon), rng)


def alg3_parameters(n: int, R: float, epsilon: float, gamma: float,
                    n_public: int | None = None) -> dict[str, float]:
    """Algorithm 3 line 1 (float).  ``n`` = |D|; ``n_public`` the twin's public size."""
    R, epsilon, gamma = _pos(R, "R"), _pos(epsilon, "epsilon"), _pos(gamma, "gamma")
    if n < 1:
        raise InvalidParameterError(f"Algorithm 3 needs |D| >= 1, got {n}")
    m = n if n_public is None else n_public
    alpha = gamma / m
    zeta = alpha / (R * m * epsilon)
    beta = 2 / epsilon * math.log(2 * R / (alpha * zeta))
    return {"alpha": alpha, "zeta": zeta, "beta": beta, "t_l": 1 / epsilon + beta,
            "t_u": n - 1 / epsilon - beta}


def alg3_thresholds(data: np.ndarray, R: float, epsilon: float, gamma: float, size: int,
                    rng: np.random.Generator, n_public: int | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Lines 2-3: independent draws of l-hat and u-hat (Algorithm 2 at eps each)."""
    xs = np.sort(np.asarray(data, dtype=np.float64).ravel())
    par = alg3_parameters(xs.size, R, epsilon, gamma, n_public)
    lo = th.sample(xs, par["t_l"], -R, R, par["alpha"], epsilon, size, rng)
    hi = th.sample(xs, par["t_u"], -R, R, par["alpha"], epsilon, size, rng)
    return lo, hi


def alg3_sample(data: np.ndarray, R: float, epsilon: float, gamma: float, size: int,
                rng: np.random.Generator, *, clip: bool = True,
                n_public: int | None = None) -> np.ndarray:
    """``size`` draws of Algorithm 3's mu-hat (lines 1-5); see the module docstring."""
    rng = check_rng(rng)
    R = _pos(R, "R")
    xs = np.sort(np.asarray(data, dtype=np.float64).ravel())
    if xs.size == 0:
        raise InvalidParameterError("Algorithm 3 needs a non-empty data set")
    if xs[0] < -R or xs[-1] > R:
        raise OutOfBoundsError(f"Algorithm 3 needs D within [-R, R] = [{-R}, {R}]")
    lo, hi = alg3_thresholds(xs, R, epsilon, gamma, size, rng, n_public)
    a, b = np.minimum(lo, hi), np.maximum(lo, hi)
    return alg1_clipped_core(xs, a, b, float(epsilon), rng, clip=clip)
