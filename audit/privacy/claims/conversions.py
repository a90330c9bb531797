"""(epsilon, delta(epsilon)) conversions of Renyi claims: the Canonne-Kamath-Steinke bound.

Canonne, Kamath & Steinke 2020, "The discrete Gaussian for differential privacy",
Proposition 12 (also Asoodeh et al. 2021, equation 20): an (alpha, tau)-RDP mechanism is
(epsilon, delta)-DP with

    log delta = (alpha - 1)(tau - epsilon + log(1 - 1/alpha)) - log(alpha),

and a rho-zCDP mechanism (tau = rho alpha for every alpha > 1) with the infimum over alpha.
This is the conversion Google's ``dp_accounting`` RDP accountant uses (its
``compute_delta``), so the tests cross-check these numbers against it.  Every alpha gives a
valid delta, so the search over alpha only affects tightness; delta is rounded UP (relative
2^-36), the safe direction for a claim's curve.  The intersection over epsilon of the
(epsilon, delta(epsilon)) trade-offs (:func:`tradeoff_of_delta_curve`) is a valid, weaker
curve than the exact Bernoulli-Renyi region of :mod:`audit.privacy.claims.zcdp`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy import optimize

from audit.privacy.claims.base import REL_DOWN, lower_float

__all__ = ["cks_log_delta", "rdp_delta", "tradeoff_of_delta_curve", "zcdp_delta"]


def cks_log_delta(alpha: float, tau: float, eps: float) -> float:
    """log delta of Proposition 12 for one order (module docstring), alpha > 1."""
    return (alpha - 1.0) * (tau - eps + math.log1p(-1.0 / alpha)) - math.log(alpha)


def _up(log_d: float) -> float:
    return min(1.0, math.exp(log_d) * (1.0 + REL_DOWN))


def rdp_delta(orders: Sequence[tuple[float, float]], eps: float) -> float:
    """delta(eps) of an RDP claim at the given (alpha, eps_alpha) orders (min over them)."""
    return _up(min(cks_log_delta(a, t, eps) for a, t in orders))


def zcdp_delta(rho: float, eps: float) -> float:
    """delta(eps) of rho-zCDP: inf over alpha > 1 of Proposition 12 with tau = rho alpha
    (a bounded search on log(alpha - 1); any alpha is valid)."""
    def f(t: float) -> float:
        al = 1.0 + math.exp(t)
        return cks_log_delta(al, rho * al, eps)

    grid = np.linspace(-12.0, 9.0, 211)
    vals = [f(float(t)) for t in grid]
    j = int(np.argmin(vals))
    r = optimize.minimize_scalar(f, bounds=(grid[max(j - 1, 0)], grid[min(j + 1, 210)]),
                                 method="bounded", options={"xatol": 1e-10})
    return _up(min(float(r.fun), vals[j]))


def tradeoff_of_delta_curve(delta_of: Callable[[float], float], a: Any,
                            eps_max: float = 30.0) -> np.ndarray:
    """sup over epsilon of f_{eps, delta(eps)}(a), rounded down: the trade-off curve of an
    (epsilon, delta(epsilon)) family (every epsilon on the grid and the scalar search gives
    a valid lower bound on the supremum)."""
    xs = np.atleast_1d(np.asarray(a, dtype=np.float64))
    grid = np.linspace(0.0, eps_max, 601)
    deltas = np.array([delta_of(float(e)) for e in grid])
    out = np.empty_like(xs)
    for i, x in enumerate(xs):
        v = np.maximum(1.0 - deltas - np.exp(grid) * x, np.exp(-grid) * (1.0 - deltas - x))
        out[i] = max(0.0, float(np.max(v)))
    res = lower_float(out)
    return res if np.ndim(a) else res[0]
