"""The Gini kernel protocol: what a module must provide to be audited by ``dpaudit regress``
against Lan & Reiter (2025).

A *kernel module* is any importable Python module defining some of the functions below
at module level, with these exact names and signatures (floats in, floats out; ``x`` is
a 1-D sequence of incomes, unsorted allowed; ``k`` an int in 0..n; ``L < U`` the public
bounds).  Checks that need a function the module does not define are reported as
``inconclusive`` ("not provided"), never as passed.

Optional module attributes: ``DPAUDIT_NAME`` (display name), ``DPAUDIT_MAX_N`` (the
largest data set the implementation can handle in reasonable time; slow reference
transcriptions set it; default 3000), ``DPAUDIT_CONSTANTS_RULE`` (the (alpha, beta) rule
the module claims: "alg3", "section23" or "calibrated"; unset = its own rule, audited only
against bound (*)) and ``DPAUDIT_SUBJECT`` (the subject whose protocol it implements).

Implementations shipped: ``kernels.gini.api`` (ours, the default) and
``kernels.gini.printed`` (the paper's algorithms as printed).  A third party writes an
adapter module with these names and passes ``--kernels package.module``.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

__all__ = ["PROTOCOL", "KernelModule"]

#: name -> signature and meaning (also the documentation of the protocol)
PROTOCOL: dict[str, str] = {
    "gini": "gini(x) -> float: Gini index, Lan & Reiter eq. (2)",
    "gini_eq1": "gini_eq1(x) -> float: Gini index, eq. (1)",
    "min_mean": "min_mean(x, k, L, U) -> float: min mean after replacing k records",
    "max_mean": "max_mean(x, k, L, U) -> float: max mean after replacing k records",
    "min_gini": "min_gini(x, k, L, U) -> float: min eq.-(2) Gini after replacing k records",
    "max_gini": "max_gini(x, k, L, U) -> float: max eq.-(2) Gini after replacing k records",
    "bound_A": "bound_A(x, k, L, U) -> float: Theorem 4.3 bound on A^(k)(x) (eq. 23)",
    "bound_A_iq": "bound_A_iq(x, k, L, U) -> float: Theorem 4.4 bound on A^(k)(x) (eq. 24)",
    "bound_A_tight": "bound_A_tight(x, k, L, U) -> float: the tight bound A_tight^(k)(x) "
    "(kernels/gini/tight.py; k = 0: the exact local sensitivity), never below it",
    "smooth_sensitivity": "smooth_sensitivity(x, L, U, beta) -> float: max_k e^{-beta k} A^(k)",
    "noise_pdf": "noise_pdf(z, gamma) -> array: density (10), normalised",
    "noise_cdf": "noise_cdf(z, gamma) -> array: cdf of density (10)",
    "noise_ppf": "noise_ppf(q, gamma) -> array: quantile function of density (10) (+-inf "
    "where the quantile exceeds the largest double)",
    "sample_noise": "sample_noise(rng, gamma, size) -> array: draws from density (10)",
    "release_scale": "release_scale(x, L, U, epsilon, gamma) -> float: S(X)/alpha with the "
    "module's own constants (noise_constants), as declared by the release",
    "noise_constants": "noise_constants(epsilon, gamma) -> (alpha, beta): the module's own "
    "constants; audited against bound (*) <= epsilon and, if DPAUDIT_CONSTANTS_RULE names a "
    "rule (alg3 | section23 | calibrated), against that rule's formula",
    "release_sample": "release_sample(x, L, U, epsilon, gamma, rng, size) -> (values, gini, "
    "scale): size draws of the release and its declared location/scale",
    "dp_upper_bound": "dp_upper_bound(x, rng, epsilon_count, epsilon_threshold, start, ratio, "
    "max_guess) -> float: the Section 5.1 DP upper bound U = 2.5 x~ (AboveThreshold)",
    "loss_bound": "loss_bound(alpha, beta, gamma) -> float: bound (*) on the worst privacy "
    "loss, beta max(1, gamma-1) + alpha (gamma-1)^(1-1/gamma), never below it",
    "snap_grid": "snap_grid(alpha) -> (clamp, step): the snapped release's public clamp B and "
    "grid step (powers of two; step >= 2^12 ulp(B))",
    "snap": "snap(y, clamp, step) -> array: clamp to [-B, B], round to the nearest multiple "
    "of step",
    "neighbour_location_scale": "neighbour_location_scale(x, L, U, epsilon, gamma, rank, new) "
    "-> (gini, scale) of the replace-one neighbour (sorted x, the record of 0-based rank "
    "replaced by new), by any fast path the implementation uses to search neighbours",
    "release_scale_clipped": "release_scale_clipped(x, L, U, epsilon, gamma) -> float: as "
    "release_scale, with records outside [L, U] clipped to the bounds first (Section 2.2)",
    "posterior_interval": "posterior_interval(g_tilde, scale, gamma, level) -> (lo, hi): "
    "central credible interval of g given the release under a Uniform(0, 1) prior (eq. 11)",
}
#: every function raises ValueError (dpaudit's InputError family) on invalid input:
#: negative or non-finite incomes, fewer than 2 records, zero mean, records outside [L, U],
#: L >= U, k outside 0..n (checked by input.rejects-invalid)


class KernelModule(Protocol):  # pragma: no cover - typing only
    def gini(self, x: Any) -> float: ...
    def gini_eq1(self, x: Any) -> float: ...
    def min_mean(self, x: Any, k: int, L: float, U: float) -> float: ...
    def max_mean(self, x: Any, k: int, L: float, U: float) -> float: ...
    def min_gini(self, x: Any, k: int, L: float, U: float) -> float: ...
    def max_gini(self, x: Any, k: int, L: float, U: float) -> float: ...
    def bound_A(self, x: Any, k: int, L: float, U: float) -> float: ...
    def bound_A_iq(self, x: Any, k: int, L: float, U: float) -> float: ...
    def bound_A_tight(self, x: Any, k: int, L: float, U: float) -> float: ...
    def smooth_sensitivity(self, x: Any, L: float, U: float, beta: float) -> float: ...
    def noise_pdf(self, z: Any, gamma: float) -> np.ndarray: ...
    def noise_cdf(self, z: Any, gamma: float) -> np.ndarray: ...
    def noise_ppf(self, q: Any, gamma: float) -> np.ndarray: ...
    def sample_noise(self, rng: np.random.Generator, gamma: float, size: int) -> np.ndarray: ...
    def release_scale(self, x: Any, L: float, U: float, epsilon: float, gamma: float) -> float: ...
    def noise_constants(self, epsilon: float, gamma: float) -> tuple[float, float]: ...
    def release_sample(self, x: Any, L: float, U: float, epsilon: float, gamma: float,
                       rng: np.random.Generator, size: int) -> tuple[np.ndarray, float, float]: ...
    def dp_upper_bound(self, x: Any, rng: np.random.Generator, epsilon_count: float,
                       epsilon_threshold: float, start: float, ratio: float,
                       max_guess: float) -> float: ...
    def loss_bound(self, alpha: float, beta: float, gamma: float) -> float: ...
    def snap_grid(self, alpha: float) -> tuple[float, float]: ...
    def snap(self, y: Any, clamp: float, step: float) -> np.ndarray: ...
    def neighbour_location_scale(self, x: Any, L: float, U: float, epsilon: float,
                                 gamma: float, rank: int, new: float) -> tuple[float, float]: ...
    def release_scale_clipped(self, x: Any, L: float, U: float, epsilon: float,
                              gamma: float) -> float: ...
    def posterior_interval(self, g_tilde: float, scale: float, gamma: float,
                           level: float) -> tuple[float, float]: ...
