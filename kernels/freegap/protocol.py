"""The free-gap kernel protocol: what a module must provide to be audited by ``dpaudit
regress`` against Ding, Wang, Zhang & Kifer (free-gap Noisy Max / Sparse Vector).

A kernel module defines some of the functions below at module level with these names and
signatures.  Samplers return one row per run in the encodings of
:mod:`kernels.freegap.mechanisms` and must draw their noise from ``rng`` in the documented
order (one ``rng.laplace`` call per noise block, as listed), so that ``dpaudit regress`` can
regenerate the draws with the paper's scales and replay them through the step-by-step cores
(alignment replay).  Checks that need a missing function are reported ``inconclusive``.

Implementation shipped: :mod:`kernels.freegap.api` (ours, the default).  Optional module
attributes: ``DPAUDIT_NAME``, ``DPAUDIT_SUBJECT = "ding-et-al-free-gap"``.
"""

from __future__ import annotations

__all__ = ["PROTOCOL"]

PROTOCOL: dict[str, str] = {
    "noisy_max_core": "noisy_max_core(q, eta) -> int: argmax of q + eta (ties: smallest index)",
    "top_k_with_gap_core": "top_k_with_gap_core(q, eta, k) -> (indices, gaps): Algorithm 1",
    "sparse_vector_core": "sparse_vector_core(q, T, eta, nu, c) -> list[bool]: classical SVT, "
    "halts right after the c-th TRUE",
    "adaptive_svt_with_gap_core": "adaptive_svt_with_gap_core(q, T, eta, xi, eta_q, epsilon, k, "
    "theta, adaptive) -> list[(branch, gap, cost)]: Algorithm 2, exact stopping rule",
    "sample_noisy_max": "sample_noisy_max(q, epsilon, rng, size) -> (size, 1): eta = "
    "rng.laplace(0, 2/eps, (size, n))",
    "sample_top_k_with_gap": "sample_top_k_with_gap(q, k, epsilon, rng, size) -> (size, 2k): "
    "eta = rng.laplace(0, 2k/eps, (size, n))",
    "sample_sparse_vector": "sample_sparse_vector(q, T, epsilon, c, rng, size, theta) -> "
    "(size, n): eta = rng.laplace(0, 1/(theta eps), size), nu = rng.laplace(0, "
    "2c/((1-theta) eps), (size, n))",
    "sample_adaptive_svt_with_gap": "sample_adaptive_svt_with_gap(q, T, epsilon, k, rng, size, "
    "theta, adaptive) -> (size, 2n): eta ~ Lap(1/eps0) (size,), xi ~ Lap(2/eps2) (size, n), "
    "eta_q ~ Lap(2/eps1) (size, n); eps0 = theta eps, eps1 = (1-theta) eps/k, eps2 = eps1/2",
    "blue_top_k": "blue_top_k(alpha, gaps, lam) -> (k,): BLUE of the k selected queries from "
    "fresh measurements alpha and the k-1 gaps, lam = Var(gap noise)/Var(measurement noise) "
    "(Theorem 3)",
}
