"""Exact trade-off curves of reference mechanisms, and the mechanisms themselves, for
calibrating the claim tester against truth.

* Gaussian mechanism, sensitivity Delta, noise sigma: T = G_mu with mu = Delta / sigma
  (Dong, Roth & Su 2019, Theorem 2.7); its exact rho-zCDP is mu^2 / 2 and its exact RDP at
  order alpha is alpha mu^2 / 2 (Mironov 2017, Proposition 7).
* Laplace mechanism with eps = Delta / b: T(a) = 1 - e^eps a for a < e^-eps / 2,
  e^-eps / (4 a) for e^-eps / 2 <= a < 1/2, e^-eps (1 - a) for a >= 1/2 (Dong, Roth & Su
  2019, Appendix / the Neyman-Pearson test on the likelihood ratio).
* Discrete Gaussian N_Z(0, sigma^2) vs N_Z(Delta, sigma^2) (Canonne, Kamath & Steinke
  2020): the Neyman-Pearson lemma on the integer outputs, by exact summation of the
  normalised pmf over |k| <= K (K = mean + 40 sigma: the omitted mass is < 1e-300) in mpmath,
  the curve piecewise linear between the threshold points (randomised tests).

:class:`ShiftedNoise`: f(D) = sum(D) plus Gaussian / Laplace / discrete Gaussian noise, a
:class:`~audit.protocols.Mechanism` whose true curves are the ones above.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np

from audit.privacy.claims.gdp import gaussian_tradeoff
from audit.protocols import REPLACE_ONE
from kernels.errors import InvalidParameterError

__all__ = ["ShiftedNoise", "discrete_gaussian_points", "discrete_gaussian_tradeoff",
           "gaussian_rdp", "gaussian_tradeoff", "laplace_tradeoff"]


def laplace_tradeoff(eps: float, a: Any) -> np.ndarray:
    """The Laplace mechanism's exact trade-off curve at eps = Delta / b (float64)."""
    x = np.asarray(a, dtype=np.float64)
    e = math.exp(-eps)
    with np.errstate(divide="ignore"):
        mid = e / (4.0 * np.where(x > 0, x, 1.0))
    return np.where(x < e / 2, 1.0 - x / e, np.where(x < 0.5, mid, e * (1.0 - x)))


def gaussian_rdp(mu: float, alpha: float) -> float:
    """The Gaussian mechanism's exact Renyi divergence at order alpha: alpha mu^2 / 2."""
    return alpha * mu * mu / 2.0


def discrete_gaussian_points(sigma: float, shift: int) -> list[tuple[float, float]]:
    """The vertices (a, b) of the discrete Gaussian's trade-off curve: for thresholds t,
    the test "reject P = N_Z(0, s^2) when k >= t" (the likelihood ratio of
    N_Z(shift, s^2) to P increases in k) has a = P[k >= t], b = Q[k < t]; exact sums."""
    if not (sigma > 0 and isinstance(shift, int) and shift > 0):
        raise InvalidParameterError(f"need sigma > 0 and an integer shift > 0, got "
                                    f"{sigma!r}, {shift!r}")
    with mpmath.workdps(40):
        kmax = int(math.ceil(shift + 40 * sigma)) + 2
        ks = range(-kmax, kmax + 1)
        w = [mpmath.exp(-mpmath.mpf(k) ** 2 / (2 * mpmath.mpf(sigma) ** 2)) for k in ks]
        z = mpmath.fsum(w)
        p = [v / z for v in w]
        # Q[k] = P[k - shift]
        pts = []
        tail_p = mpmath.mpf(0)
        n = len(p)
        cum_q_below = [mpmath.mpf(0)] * (n + 1)
        for i in range(n):
            qi = p[i - shift] if i - shift >= 0 else mpmath.mpf(0)
            cum_q_below[i + 1] = cum_q_below[i] + qi
        for i in range(n, -1, -1):  # threshold at index i: reject when index >= i
            if i < n:
                tail_p += p[i]
            pts.append((float(tail_p), float(cum_q_below[i])))
    return pts


def discrete_gaussian_tradeoff(sigma: float, shift: int, a: Any) -> np.ndarray:
    """The discrete Gaussian's exact trade-off curve (linear between the vertices)."""
    pts = discrete_gaussian_points(sigma, shift)
    xs = np.array([p[0] for p in pts])
    ys = np.array([p[1] for p in pts])
    order = np.argsort(xs, kind="stable")
    return np.interp(np.asarray(a, dtype=np.float64), xs[order], ys[order])


class ShiftedNoise:
    """sum(D) + noise: ``"gaussian"`` (scale = sigma), ``"laplace"`` (scale = b) or
    ``"discrete-gaussian"`` (scale = sigma, sum rounded to an integer first; sampled by
    rejection from a discrete Laplace, Canonne, Kamath & Steinke 2020, Algorithm 3 in
    vectorised form).  A :class:`~audit.protocols.Mechanism` (``claimed_epsilon`` is a
    nominal 1.0: the claim under test is given separately)."""

    def __init__(self, noise: str, scale: float, name: str | None = None) -> None:
        if noise not in ("gaussian", "laplace", "discrete-gaussian"):
            raise InvalidParameterError(f"unknown noise {noise!r}")
        if not (math.isfinite(scale) and scale > 0):
            raise InvalidParameterError(f"scale must be > 0, got {scale!r}")
        self.noise, self.scale = noise, float(scale)
        self.name = name or f"sum + {noise}({scale:g})"
        self.claimed_epsilon = 1.0
        self.relation = REPLACE_ONE

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        loc = float(np.sum(np.asarray(dataset, dtype=np.float64)))
        if self.noise == "gaussian":
            return loc + self.scale * rng.standard_normal(size)
        if self.noise == "laplace":
            return loc + rng.laplace(0.0, self.scale, size)
        return round(loc) + _discrete_gaussian(self.scale, size, rng)


def _discrete_gaussian(sigma: float, size: int, rng: np.random.Generator) -> np.ndarray:
    t = math.floor(sigma) + 1
    out = np.empty(size, dtype=np.float64)
    filled = 0
    while filled < size:
        m = 2 * (size - filled) + 16
        # discrete Laplace with scale t: difference of two geometrics
        g1 = rng.geometric(1.0 - math.exp(-1.0 / t), m) - 1
        g2 = rng.geometric(1.0 - math.exp(-1.0 / t), m) - 1
        y = (g1 - g2).astype(np.float64)
        acc = rng.random(m) < np.exp(-((np.abs(y) - sigma * sigma / t) ** 2)
                                     / (2 * sigma * sigma))
        got = y[acc][: size - filled]
        out[filled: filled + got.size] = got
        filled += got.size
    return out
