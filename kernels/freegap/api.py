"""dpaudit's own free-gap kernels behind :data:`kernels.freegap.protocol.PROTOCOL`.

Thin wrappers with the protocol's fixed names; the mathematics (and its paper references)
lives in :mod:`kernels.freegap.mechanisms`.  ``dpaudit regress --subject
ding-et-al-free-gap`` audits this module by default.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kernels.freegap import mechanisms as _fg

DPAUDIT_NAME = "dpaudit free-gap kernels (float64/numpy)"
DPAUDIT_SUBJECT = "ding-et-al-free-gap"


def noisy_max_core(q: Any, eta: Any) -> int:
    return _fg.noisy_max_core(q, eta)


def top_k_with_gap_core(q: Any, eta: Any, k: int) -> tuple[np.ndarray, np.ndarray]:
    return _fg.top_k_with_gap_core(q, eta, k)


def sparse_vector_core(q: Any, T: float, eta: float, nu: Any, c: int) -> list[bool]:
    return _fg.sparse_vector_core(q, T, eta, nu, c)


def adaptive_svt_with_gap_core(q: Any, T: float, eta: float, xi: Any, eta_q: Any,
                               epsilon: float, k: int, theta: float,
                               adaptive: bool = True) -> list:
    return _fg.adaptive_svt_with_gap_core(q, T, eta, xi, eta_q, epsilon, k, theta,
                                          adaptive=adaptive)


def sample_noisy_max(q: Any, epsilon: float, rng: np.random.Generator, size: int) -> np.ndarray:
    return _fg.sample_noisy_max(q, epsilon, rng, size)


def sample_top_k_with_gap(q: Any, k: int, epsilon: float, rng: np.random.Generator,
                          size: int) -> np.ndarray:
    return _fg.sample_top_k_with_gap(q, k, epsilon, rng, size)


def sample_sparse_vector(q: Any, T: float, epsilon: float, c: int, rng: np.random.Generator,
                         size: int, theta: float | None = None) -> np.ndarray:
    return _fg.sample_sparse_vector(q, T, epsilon, c, rng, size, theta=theta)


def sample_adaptive_svt_with_gap(q: Any, T: float, epsilon: float, k: int,
                                 rng: np.random.Generator, size: int,
                                 theta: float | None = None,
                                 adaptive: bool = True) -> np.ndarray:
    return _fg.sample_adaptive_svt_with_gap(q, T, epsilon, k, rng, size, theta=theta,
                                            adaptive=adaptive)


def blue_top_k(alpha: Any, gaps: Any, lam: float) -> np.ndarray:
    return _fg.blue_top_k(alpha, gaps, lam)
