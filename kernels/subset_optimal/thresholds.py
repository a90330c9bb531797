"""Definitions 3-5 and Algorithm 2 (threshold estimation) of Dick et al., Section 3.1.

Neighbour relation of the paper: add/remove one record (Section 2).

* :func:`rank_interval` - Lemma 5: ranks(tau, D) = {#{x < tau}, ..., #{x <= tau}} (Definition 3).
* :func:`rank_error`    - Definition 4: distance from r to that interval.
* :func:`window_loss`   - Algorithm 2 line 1: l(tau) = min over tau' in [tau - alpha, tau + alpha]
  of err_rank(tau', r, D).  The union of ranks(tau', D) over the window is the contiguous
  integer range [#{x < tau - alpha}, #{x <= tau + alpha}], so
  l(tau) = max(0, #{x < tau - alpha} - r, r - #{x <= tau + alpha}).
* :func:`pieces`        - the piecewise-constant density of Algorithm 2 line 2: breakpoints
  x +- alpha (x in D) and a, b, as in the proof of Theorem 2 (running time paragraph).
* :func:`sample`        - Algorithm 2 line 3: pick a piece with probability width * weight,
  then a uniform point in it (proof of Theorem 2).  O(n log n) set-up, O(log n) per draw.

Deviations from the print: none in the mechanism.  ``r`` may be any real (Algorithm 3 uses
non-integer ranks t_l = 1/eps + beta); weights are exp(-eps/2 (l - min l)) (the common factor
cancels in f).  Breakpoints coinciding in float are merged (measure-zero change).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels.errors import InvalidParameterError
from kernels.validate import check_rng

__all__ = ["Pieces", "approx_threshold", "pieces", "rank_error", "rank_interval", "sample",
           "window_loss"]


def _sorted(data: np.ndarray) -> np.ndarray:
    xs = np.sort(np.asarray(data, dtype=np.float64).ravel())
    if not np.all(np.isfinite(xs)):
        raise InvalidParameterError("data must be finite")
    return xs


def rank_interval(tau: float, data: np.ndarray) -> tuple[int, int]:
    """Lemma 5 / Definition 3: (min, max) of ranks(tau, D) = (#{x < tau}, #{x <= tau})."""
    xs = _sorted(data)
    return (int(np.searchsorted(xs, tau, "left")), int(np.searchsorted(xs, tau, "right")))


def rank_error(tau: float, r: float, data: np.ndarray) -> float:
    """Definition 4: err_rank(tau, r, D) = min over r' in ranks(tau, D) of |r - r'|.

    Deviation: for non-integer r the minimum is over the real interval [lo, hi] (the
    paper treats ranks as integers; Algorithm 3 feeds non-integer targets)."""
    lo, hi = rank_interval(tau, data)
    return float(max(0.0, lo - r, r - hi))


def window_loss(tau: np.ndarray | float, r: float, alpha: float,
                data: np.ndarray) -> np.ndarray:
    """Algorithm 2 line 1 (vectorised over tau); see the module docstring for the formula."""
    xs = _sorted(data)
    t = np.asarray(tau, dtype=np.float64)
    lo = np.searchsorted(xs, t - alpha, "left")
    hi = np.searchsorted(xs, t + alpha, "right")
    return np.maximum(0.0, np.maximum(lo - r, r - hi))


def approx_threshold(tau: float, r: float, alpha: float, beta: float,
                     data: np.ndarray) -> bool:
    """Definition 5: tau is an (alpha, beta)-approximate rank-r threshold iff some tau' within
    alpha of tau has rank error <= beta, i.e. iff window_loss(tau) <= beta."""
    return bool(window_loss(tau, r, alpha, data) <= beta)


@dataclass(frozen=True)
class Pieces:
    """Algorithm 2's density as pieces [edges[i], edges[i+1]) with loss[i] and probability
    mass prob[i] (float)."""

    edges: np.ndarray
    loss: np.ndarray
    prob: np.ndarray


def _check(a: float, b: float, alpha: float, epsilon: float) -> None:
    if not (np.isfinite(a) and np.isfinite(b) and a < b):
        raise InvalidParameterError(f"range [a, b] must satisfy a < b, got [{a!r}, {b!r}]")
    if not (np.isfinite(alpha) and alpha > 0):
        raise InvalidParameterError(f"alpha must be > 0, got {alpha!r}")
    if not (np.isfinite(epsilon) and epsilon > 0):
        raise InvalidParameterError(f"epsilon must be > 0, got {epsilon!r}")


def pieces(data: np.ndarray, r: float, a: float, b: float, alpha: float,
           epsilon: float) -> Pieces:
    """Piecewise-constant density of Algorithm 2 on [a, b] (float kernel)."""
    _check(a, b, alpha, epsilon)
    xs = _sorted(data)
    cand = np.concatenate([[a, b], xs - alpha, xs + alpha])
    edges = np.unique(cand[(cand >= a) & (cand <= b)])
    mids = (edges[:-1] + edges[1:]) / 2
    loss = window_loss(mids, r, alpha, xs)
    logw = -epsilon / 2 * (loss - loss.min()) + np.log(np.diff(edges))
    w = np.exp(logw - logw.max())
    return Pieces(edges, loss, w / w.sum())


def sample(data: np.ndarray, r: float, a: float, b: float, alpha: float, epsilon: float,
           size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` draws of Algorithm 2's output tau-hat (line 3)."""
    rng = check_rng(rng)
    p = pieces(data, r, a, b, alpha, epsilon)
    return sample_pieces(p, size, rng)


def sample_pieces(p: Pieces, size: int, rng: np.random.Generator) -> np.ndarray:
    """Draw from a :class:`Pieces` density: piece by inverse CDF, then uniform inside."""
    cdf = np.cumsum(p.prob)
    cdf[-1] = 1.0
    k = np.searchsorted(cdf, rng.random(size), "right")
    k = np.minimum(k, p.prob.size - 1)
    lo, hi = p.edges[k], p.edges[k + 1]
    return lo + (hi - lo) * rng.random(size)
