"""Laplace releases with a given GS, and bounding constraints on the sanitized values.

The supplement (title; Section 6) sanitizes a statistic T(x) by the Laplace mechanism,
T(x) + Lap(GS/epsilon) per coordinate (l1 GS for vectors), and then imposes the statistic's
natural bounds on the sanitized value.  The supplement itself does not define the bounding
procedures (they are in the main paper, which we do not have); what we ASSUME and implement:

* ``"clip"`` — boundary-inflated truncation (BIT): a sanitized value below ``lo`` is set to
  ``lo``, above ``hi`` to ``hi`` (point masses at the bounds).  A function of the Laplace output
  only: post-processing.
* ``"redraw"`` — truncation: the Laplace noise is re-drawn until the sanitized value is inside
  [lo, hi] (the law is the Laplace density restricted to [lo, hi] and renormalised; sampled
  here by the inverse cdf, which has exactly that law).  The normalising constant depends on
  T(x), so this is NOT post-processing (see the claim ``release.truncation-redraw``).
* ``"rescale"`` (proportion vectors, Section 6 "rescaling approach"): negative sanitized
  proportions are set to 0 and the vector is divided by its sum (all-zero: uniform).  Only a
  function of the Laplace output: post-processing.

The "modified universal histogram procedure" of Section 6 (Hay et al. 2010) is not specified in
the supplement and is not implemented.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from kernels.errors import InvalidBoundsError, InvalidParameterError
from kernels.validate import check_epsilon, check_positive, check_rng

__all__ = [
    "CONSTRAINTS",
    "clip",
    "laplace_release",
    "laplace_scale",
    "rescale_proportions",
    "truncated_laplace",
]

CONSTRAINTS = ("none", "clip", "redraw", "rescale")


def laplace_scale(gs: Any, epsilon: float) -> float:
    """b = GS/epsilon, rounded UP to the next float (a smaller b would weaken privacy)."""
    check_epsilon(epsilon)
    g = check_positive(float(gs), "GS")
    b = g / float(epsilon)
    # float(gs) and the division each round to nearest; step up twice to stay above GS/eps
    return math.nextafter(math.nextafter(b, math.inf), math.inf)


def laplace_release(value: Any, gs: Any, epsilon: float, rng: np.random.Generator,
                    size: int = 1) -> np.ndarray:
    """``size`` independent releases T(x) + Lap(GS/epsilon) (shape (size,) for a scalar T,
    (size, d) for a vector T)."""
    rng = check_rng(rng)
    b = laplace_scale(gs, epsilon)
    v = np.asarray(value, dtype=np.float64)
    if v.ndim == 0:
        return float(v) + rng.laplace(0.0, b, size)
    return v[None, :] + rng.laplace(0.0, b, (size, v.size))


def clip(y: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Boundary-inflated truncation: values outside [lo, hi] are set to the nearer bound."""
    if not hi > lo:
        raise InvalidBoundsError(f"clip needs hi > lo, got [{lo!r}, {hi!r}]")
    return np.clip(y, lo, hi)


def _lap_cdf(y: np.ndarray, mu: float, b: float) -> np.ndarray:
    z = (y - mu) / b
    return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0)), 1 - 0.5 * np.exp(-np.maximum(z, 0)))


def _lap_ppf(u: np.ndarray, mu: float, b: float) -> np.ndarray:
    return np.where(u < 0.5, mu + b * np.log(2 * np.maximum(u, 1e-300)),
                    mu - b * np.log(2 * np.maximum(1 - u, 1e-300)))


def truncated_laplace(value: float, scale: float, lo: float, hi: float,
                      rng: np.random.Generator, size: int = 1) -> np.ndarray:
    """``size`` draws of T + Lap(scale) conditioned on [lo, hi] (the law of re-drawing until
    the value is in bounds), by the inverse cdf."""
    rng = check_rng(rng)
    check_positive(scale, "scale")
    if not hi > lo:
        raise InvalidBoundsError(f"truncation needs hi > lo, got [{lo!r}, {hi!r}]")
    f_lo, f_hi = _lap_cdf(np.array(lo), value, scale), _lap_cdf(np.array(hi), value, scale)
    u = f_lo + (f_hi - f_lo) * rng.random(size)
    return np.clip(_lap_ppf(u, value, scale), lo, hi)


def rescale_proportions(y: np.ndarray) -> np.ndarray:
    """Section 6 "rescaling" (assumed): negatives -> 0, then divide by the row sum; a row that
    is all <= 0 becomes uniform.  Works on one vector or on rows of a 2-D array."""
    a = np.maximum(np.asarray(y, dtype=np.float64), 0.0)
    if a.ndim not in (1, 2) or a.shape[-1] < 1:
        raise InvalidParameterError(f"rescale needs a vector or rows of vectors, got {a.shape}")
    s = a.sum(axis=-1, keepdims=True)
    k = a.shape[-1]
    return np.where(s > 0, a / np.where(s > 0, s, 1.0), 1.0 / k)
