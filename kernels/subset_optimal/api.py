"""dpaudit's own Dick et al. kernels behind :data:`kernels.subset_optimal.protocol.PROTOCOL`.

Thin wrappers with the protocol's fixed names; the mathematics (and its paper references)
lives in :mod:`.thresholds` (Definitions 3-5, Algorithm 2), :mod:`.mean` (Algorithms 1, 3)
and :mod:`.monotone` (Algorithms 4, 5).  ``dpaudit regress --subject
dick-et-al-subset-optimal`` audits this module by default.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kernels.subset_optimal import mean as _mean
from kernels.subset_optimal import monotone as _mo
from kernels.subset_optimal import thresholds as _th

DPAUDIT_NAME = "dpaudit Dick et al. kernels (float64/numpy)"
DPAUDIT_SUBJECT = "dick-et-al-subset-optimal"


def rank_interval(tau: float, data: Any) -> tuple[int, int]:
    return _th.rank_interval(tau, data)


def rank_error(tau: float, r: float, data: Any) -> float:
    return _th.rank_error(tau, r, data)


def window_loss(tau: Any, r: float, alpha: float, data: Any) -> np.ndarray:
    return _th.window_loss(tau, r, alpha, data)


def approx_threshold(tau: float, r: float, alpha: float, beta: float, data: Any) -> bool:
    return _th.approx_threshold(tau, r, alpha, beta, data)


def threshold_pieces(data: Any, r: float, a: float, b: float, alpha: float, epsilon: float
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    p = _th.pieces(data, r, a, b, alpha, epsilon)
    return p.edges, p.loss, p.prob


def threshold_sample(data: Any, r: float, a: float, b: float, alpha: float, epsilon: float,
                     size: int, rng: np.random.Generator) -> np.ndarray:
    return _th.sample(data, r, a, b, alpha, epsilon, size, rng)


def alg1_clipped_core(xs: Any, lo: Any, hi: Any, epsilon: float, rng: np.random.Generator,
                      clip: bool = True) -> np.ndarray:
    return _mean.alg1_clipped_core(np.asarray(xs, dtype=np.float64),
                                   np.asarray(lo, dtype=np.float64),
                                   np.asarray(hi, dtype=np.float64), epsilon, rng, clip)


def alg1_sample(data: Any, lower: float, upper: float, epsilon: float, size: int,
                rng: np.random.Generator) -> np.ndarray:
    return _mean.alg1_sample(data, lower, upper, epsilon, size, rng)


def alg3_parameters(n: int, R: float, epsilon: float, gamma: float) -> dict[str, float]:
    return _mean.alg3_parameters(n, R, epsilon, gamma)


def alg3_sample(data: Any, R: float, epsilon: float, gamma: float, size: int,
                rng: np.random.Generator) -> np.ndarray:
    return _mean.alg3_sample(data, R, epsilon, gamma, size, rng)


def quantile_index(n: int, q: float) -> int:
    return _mo.quantile_index(n, q)


def len_quantile(ks: Any, t: int, q: float, lo: int, hi: int) -> int:
    return _mo.len_quantile(ks, t, q, lo, hi)


def len_mean(ks: Any, t: int, lo: int, hi: int) -> int:
    return _mo.len_mean(ks, t, lo, hi)


def inv_sen_logits(ks: Any, lo: int, hi: int, prop: Any, scale: float) -> np.ndarray:
    return _mo.inv_sen_logits(ks, lo, hi, prop, scale)


def inv_sen_sample(ks: Any, lo: int, hi: int, prop: Any, scale: float, size: int,
                   rng: np.random.Generator) -> np.ndarray:
    return _mo.inv_sen_sample(ks, lo, hi, prop, scale, size, rng)


def alg4_core(ks: Any, r: float, l_hat: float, u_hat: float, beta: float) -> list[int]:
    return _mo.alg4_core(ks, r, l_hat, u_hat, beta)


def alg4_parameters(R: float, epsilon: float, beta: float, L: float, B: float) -> dict:
    return _mo.alg4_parameters(R, epsilon, beta, L, B)


def alg4_sample(data: Any, R: float, epsilon: float, beta: float, prop: Any, L: float,
                B: float, rng: np.random.Generator, scale: float | None = None,
                r: float | None = None) -> float:
    return _mo.alg4_sample(data, R, epsilon, beta, prop, L, B, rng, scale=scale, r=r)
