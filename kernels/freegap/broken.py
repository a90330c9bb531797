"""DELIBERATELY BROKEN Noisy-Max / Sparse-Vector variants - audit targets, never defaults.

Each variant claims epsilon-DP and is not (or not at the claimed level).  They exist so that
the privacy testers can demonstrate power: a tester must pass the correct mechanisms of
:mod:`kernels.freegap.mechanisms` and reject these.  Conventions (explicit-noise cores, vectorised
samplers, output encodings) are those of :mod:`kernels.freegap.mechanisms`; each core is named
``<variant>_core`` and each sampler ``sample_<variant>``.

Sparse Vector variants (catalogued by Lyu, Su & Li 2017, "Understanding the Sparse Vector
Technique for Differential Privacy", PVLDB 10(6), Algorithms 3-6; the correct one is their
Alg. 1 = :func:`kernels.freegap.mechanisms.sparse_vector_core` with threshold noise Lap(1/eps1),
query
noise Lap(2c/eps2), eps1 + eps2 = eps, halting after c ⊤):

================== ====================================== ======================================
variant            differs from the correct Alg. 1 by      true privacy cost (claimed: eps)
================== ====================================== ======================================
no_threshold_noise no threshold noise (ours; rho = 0)      n eps2/(2c) on n queries: unbounded
no_query_noise     nu_i = 0 and no halting (Stoddard et    infinite (an output has probability 0
                   al. 2014; Lyu Alg. 5)                   on a neighbour)
release_value      ⊤ releases q_i + nu_i, nu ~ Lap(c/eps2) infinite over unbounded streams
                   (Roth 2011 notes; Lyu Alg. 3)           (<= n eps2/c on n queries)
no_halting         nu ~ Lap(1/eps2), never halts (Chen et  infinite over unbounded streams
                   al. 2015; Lyu Alg. 6)                   (<= n eps2 on n queries)
lee_clifton        eps1 = eps/4, nu ~ Lap(1/eps2) (Lee &   <= (1 + 6c)/4 eps (Lyu Thm.); exact
                   Clifton 2014; Lyu Alg. 4)               value unknown for c >= 2
================== ====================================== ======================================

Others: ``noisy_max_with_value`` (Noisy Max that also releases the noisy maximum: true cost
n eps/2 on n queries, as a supremum), ``top_k_with_gap_half_noise`` (Algorithm 1 with
Lap(k/eps) on general, non-monotone queries: 2 eps as a supremum), ``adaptive_svt_wrong_stop``
(Algorithm 2 with line 16 as ``cost > eps``: up to eps + eps1).

Derivations of the true costs ("upper" by an alignment argument in the style of Ding et al.
Lemma 1; "lower" by exact event probabilities computed with
:mod:`proofs.freegap.mechanisms`) are in each function's docstring.  The table
:data:`BROKEN_VARIANTS` gives, per variant, a *witness*: neighbouring answer vectors
(``|q_i - q'_i| <= 1``), sampler parameters and an output event whose exact log probability
ratio exceeds the claimed epsilon (``tests/freegap/test_broken.py`` recomputes every figure
by quadrature and checks it against Monte-Carlo frequencies of the samplers).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from kernels.errors import InvalidKError
from kernels.freegap import mechanisms as fg
from kernels.freegap.mechanisms import (
    adaptive_from_noise,
    as_noise,
    as_vector,
    check_theta,
    svt_pattern_from_noise,
)
from kernels.validate import as_scalar, check_epsilon, check_int, check_rng, check_size

__all__ = [
    "BROKEN_VARIANTS",
    "adaptive_svt_wrong_stop_core",
    "noisy_max_with_value_core",
    "sample_adaptive_svt_wrong_stop",
    "sample_noisy_max_with_value",
    "sample_svt_lee_clifton",
    "sample_svt_no_halting",
    "sample_svt_no_query_noise",
    "sample_svt_no_threshold_noise",
    "sample_svt_release_value",
    "sample_top_k_with_gap_half_noise",
    "svt_lee_clifton_core",
    "svt_no_halting_core",
    "svt_no_query_noise_core",
    "svt_no_threshold_noise_core",
    "svt_release_value_core",
    "top_k_with_gap_half_noise_core",
]


def _svt_loop(
    q: np.ndarray, T: float, eta: float, nu: np.ndarray, c: int | None
) -> list[bool]:
    out: list[bool] = []
    count = 0
    for i in range(q.size):
        above = bool(q[i] + nu[i] >= T + eta)
        out.append(above)
        if above:
            count += 1
            if c is not None and count >= c:
                break
    return out


def _common(q: Any, T: Any, epsilon: Any, rng: Any, size: Any):
    return (
        as_vector(q, "q"),
        as_scalar(T, "T"),
        check_epsilon(epsilon),
        check_rng(rng),
        check_size(size),
    )


# ------------------------------------------------------------------ no threshold noise
def svt_no_threshold_noise_core(q: Any, T: float, nu: Any, c: int) -> list[bool]:
    """BROKEN.  Sparse Vector without threshold noise: ⊤ iff ``q_i + nu_i >= T`` (halts after
    c ⊤).  Differs from :func:`kernels.freegap.mechanisms.sparse_vector_core` only by eta = 0."""
    qa = as_vector(q, "q")
    return _svt_loop(qa, as_scalar(T, "T"), 0.0, as_noise(nu, qa.size, "nu"),
                     check_int(c, "c", low=1, error=InvalidKError))


def sample_svt_no_threshold_noise(
    q: Any, T: float, epsilon: float, c: int, rng: np.random.Generator, size: int, *,
    theta: float = 0.5,
) -> np.ndarray:
    """BROKEN, claims eps-DP.  Query noise Lap(2c/eps2), eps2 = (1 - theta) eps, as in the
    correct Alg. 1, but no threshold noise.  Draws: ``nu`` (size, n).  Output as
    :func:`kernels.freegap.mechanisms.sample_sparse_vector`.

    True cost on n queries: exactly n eps2/(2c) (a supremum over T; unbounded in n).  Upper:
    given the output, each processed query's decision depends only on its own noise, so the
    alignment nu'_i = nu_i + q_i - q'_i costs at most n / b with b = 2c/eps2.  Lower: the
    all-⊥ output on q = (t, ..., t), q' = q + 1 with T <= t has probability ratio
    prod P(nu < T - t)/P(nu < T - t - 1) = e^{n/b} exactly (Laplace left tail)."""
    qa, t, eps, rng, m = _common(q, T, epsilon, rng, size)
    cc = check_int(c, "c", low=1, error=InvalidKError)
    eps2 = (1.0 - check_theta(theta)) * eps
    nu = rng.laplace(0.0, 2.0 * cc / eps2, size=(m, qa.size))
    return svt_pattern_from_noise(qa, t, np.zeros(m), nu, cc)


# ------------------------------------------------------------------- no query noise
def svt_no_query_noise_core(q: Any, T: float, eta: float, c: int | None = None) -> list[bool]:
    """BROKEN (Stoddard et al. 2014; Lyu et al. Alg. 5).  ⊤ iff ``q_i >= T + eta``; no query
    noise and (``c=None``, as published) no halting."""
    qa = as_vector(q, "q")
    cc = None if c is None else check_int(c, "c", low=1, error=InvalidKError)
    return _svt_loop(qa, as_scalar(T, "T"), as_scalar(eta, "eta"), np.zeros(qa.size), cc)


def sample_svt_no_query_noise(
    q: Any, T: float, epsilon: float, rng: np.random.Generator, size: int, *,
    theta: float = 0.5, c: int | None = None,
) -> np.ndarray:
    """BROKEN, claims eps-DP.  Threshold noise Lap(1/eps1), eps1 = theta eps; no query noise;
    no halting unless ``c`` is given.  Draws: ``eta`` (size,).

    True cost: infinite.  With q = (0, 1), q' = (1, 0), T = 1/2 the output (⊥, ⊤) needs
    0 < T + eta <= 1 on q (probability 1 - e^{-eps1/2} > 0) and 1 < T + eta <= 0 on q'
    (impossible).  Halting does not help (c = 1 gives the same output)."""
    qa, t, eps, rng, m = _common(q, T, epsilon, rng, size)
    cc = None if c is None else check_int(c, "c", low=1, error=InvalidKError)
    eps1 = check_theta(theta) * eps
    eta = rng.laplace(0.0, 1.0 / eps1, size=m)
    return svt_pattern_from_noise(qa, t, eta, np.zeros((m, qa.size)), cc)


# ------------------------------------------------------------------- release value
def svt_release_value_core(
    q: Any, T: float, eta: float, nu: Any, c: int
) -> list[float | None]:
    """BROKEN (Roth 2011 lecture notes; Lyu et al. Alg. 3).  As Sparse Vector, but a ⊤
    releases the noisy answer ``q_i + nu_i``; ⊥ is ``None``.  Halts after c ⊤."""
    qa = as_vector(q, "q")
    t, e = as_scalar(T, "T"), as_scalar(eta, "eta")
    nv = as_noise(nu, qa.size, "nu")
    cc = check_int(c, "c", low=1, error=InvalidKError)
    out: list[float | None] = []
    count = 0
    for i in range(qa.size):
        v = qa[i] + nv[i]
        if v >= t + e:
            out.append(float(v))
            count += 1
            if count >= cc:
                break
        else:
            out.append(None)
    return out


def sample_svt_release_value(
    q: Any, T: float, epsilon: float, c: int, rng: np.random.Generator, size: int, *,
    theta: float = 0.5,
) -> np.ndarray:
    """BROKEN, claims eps-DP.  Threshold Lap(1/eps1), query Lap(c/eps2) (as in Lyu Alg. 3;
    eps1 = theta eps, eps2 = eps - eps1), halts after c ⊤, and each ⊤ releases q_i + nu_i.
    Draws: ``eta`` (size,), ``nu`` (size, n).  Output (size, 2n): values (NaN = not reached,
    0 = ⊥, q_i + nu_i for ⊤) then codes (NaN, 0 = ⊥, 1 = ⊤).

    True cost: infinite over unbounded query streams (Lyu et al.).  Lower bound: with
    c = 1, q = (0^m, 0), q' = (1^m, 0) and the output "m ⊥ then ⊤ with value a <= A <= 0",
    the released value pins T + eta <= A <= 0, where every ⊥ factor
    P(nu < T + eta)/P(nu < T + eta - 1) equals e^{1/b} exactly (b = c/eps2): the probability
    ratio is e^{m/b}, unbounded in m.  Upper on n queries: n eps2/c (shift every nu_i by
    q_i - q'_i)."""
    qa, t, eps, rng, m = _common(q, T, epsilon, rng, size)
    cc = check_int(c, "c", low=1, error=InvalidKError)
    th = check_theta(theta)
    eps1, eps2 = th * eps, (1.0 - th) * eps
    eta = rng.laplace(0.0, 1.0 / eps1, size=m)
    nu = rng.laplace(0.0, cc / eps2, size=(m, qa.size))
    codes = svt_pattern_from_noise(qa, t, eta, nu, cc)
    vals = np.where(codes == 1.0, qa[None, :] + nu, codes)  # 0 stays 0, NaN stays NaN
    return np.hstack([vals, codes])


# ------------------------------------------------------------------- no halting (Chen)
def svt_no_halting_core(q: Any, T: float, eta: float, nu: Any) -> list[bool]:
    """BROKEN (Chen et al. 2015; Lyu et al. Alg. 6).  Sparse Vector that never halts: one
    ⊤/⊥ per query."""
    qa = as_vector(q, "q")
    return _svt_loop(qa, as_scalar(T, "T"), as_scalar(eta, "eta"),
                     as_noise(nu, qa.size, "nu"), None)


def sample_svt_no_halting(
    q: Any, T: float, epsilon: float, rng: np.random.Generator, size: int, *,
    theta: float = 0.5,
) -> np.ndarray:
    """BROKEN, claims eps-DP.  Threshold Lap(1/eps1), query Lap(1/eps2) (eps1 = theta eps,
    eps2 = eps - eps1; Lyu Alg. 6), no halting.  Draws: ``eta`` (size,), ``nu`` (size, n).
    Output as :func:`kernels.freegap.mechanisms.sample_sparse_vector` (never NaN).

    True cost: infinite over unbounded streams (Lyu et al.): the output ⊥^m ⊤^m on
    q = (0^m, 1^m) vs q' = (1^m, 0^m) has log-ratio growing linearly in m (exact values: 1.53
    at m = 2, 2.35 at m = 3, 3.18 at m = 4 for eps = 1, theta = 1/2).  Upper on n queries:
    n eps2 (identity-shift alignment)."""
    qa, t, eps, rng, m = _common(q, T, epsilon, rng, size)
    th = check_theta(theta)
    eps1, eps2 = th * eps, (1.0 - th) * eps
    eta = rng.laplace(0.0, 1.0 / eps1, size=m)
    nu = rng.laplace(0.0, 1.0 / eps2, size=(m, qa.size))
    return svt_pattern_from_noise(qa, t, eta, nu, None)


# ------------------------------------------------------------------- Lee & Clifton
def svt_lee_clifton_core(q: Any, T: float, eta: float, nu: Any, c: int) -> list[bool]:
    """BROKEN (Lee & Clifton 2014; Lyu et al. Alg. 4).  The decision rule is that of the
    correct Sparse Vector (this core equals
    :func:`kernels.freegap.mechanisms.sparse_vector_core`); the
    flaw is only in the noise scales of :func:`sample_svt_lee_clifton`."""
    return fg.sparse_vector_core(q, T, eta, nu, c)


def sample_svt_lee_clifton(
    q: Any, T: float, epsilon: float, c: int, rng: np.random.Generator, size: int
) -> np.ndarray:
    """BROKEN, claims eps-DP.  eps1 = eps/4, threshold Lap(1/eps1), eps2 = 3 eps/4, query noise
    Lap(1/eps2) - not growing with c; halts after c ⊤.  Draws: ``eta``, ``nu``.

    True cost: at most (1 + 6c)/4 eps (Lyu et al.; alignment: threshold shift 1 costs eps1,
    each of the <= c ⊤ shifts 2 costs 2 eps2).  For c = 1 the exact log-ratio of
    ⊥^(n-1) ⊤ on q = (0^(n-1), 1), q' = (1^(n-1), 0), T = 0 is 1.61 eps at n = 4 and 1.67 eps at
    n = 5 - close to the bound 1.75 eps.  Exact supremum for c >= 2: unknown."""
    qa, t, eps, rng, m = _common(q, T, epsilon, rng, size)
    cc = check_int(c, "c", low=1, error=InvalidKError)
    eps1, eps2 = eps / 4.0, 3.0 * eps / 4.0
    eta = rng.laplace(0.0, 1.0 / eps1, size=m)
    nu = rng.laplace(0.0, 1.0 / eps2, size=(m, qa.size))
    return svt_pattern_from_noise(qa, t, eta, nu, cc)


# ------------------------------------------------------------------ Noisy Max variants
def noisy_max_with_value_core(q: Any, eta: Any) -> tuple[int, float]:
    """BROKEN.  Noisy Max that releases ``(argmax, max)`` of ``q + eta`` (ties: smallest
    index)."""
    qa = as_vector(q, "q")
    noisy = qa + as_noise(eta, qa.size, "eta")
    j = int(np.argmax(noisy))
    return j, float(noisy[j])


def sample_noisy_max_with_value(
    q: Any, epsilon: float, rng: np.random.Generator, size: int, *, monotone: bool = False
) -> np.ndarray:
    """BROKEN, claims eps-DP.  Noise Lap(2/eps) (Lap(1/eps) monotone) as the correct Noisy
    Max, but the noisy maximum is released too.  Draws: ``eta`` (size, n).  Output (size, 2):
    index, noisy maximum.

    True cost on n queries: n/b = n eps/2 (n eps monotone), a supremum.  Upper: shift every
    noise by q_i - q'_i.  Lower: q' = q + 1 shifts the output law by exactly +1 in the value,
    and on {value <= A} with A <= min q every factor is in the Laplace left tail:
    P(max <= A | q)/P(max <= A | q') = e^{n/b} exactly."""
    qa = as_vector(q, "q")
    eps = check_epsilon(epsilon)
    rng = check_rng(rng)
    m = check_size(size)
    b = (1.0 if monotone else 2.0) / eps
    eta = rng.laplace(0.0, b, size=(m, qa.size))
    noisy = qa[None, :] + eta
    j = np.argmax(noisy, axis=1)
    return np.column_stack([j.astype(np.float64), noisy[np.arange(m), j]])


def top_k_with_gap_half_noise_core(q: Any, eta: Any, k: int) -> tuple[np.ndarray, np.ndarray]:
    """BROKEN only through its sampler's noise scale; the core is Algorithm 1's
    (:func:`kernels.freegap.mechanisms.top_k_with_gap_core`)."""
    return fg.top_k_with_gap_core(q, eta, k)


def sample_top_k_with_gap_half_noise(
    q: Any, k: int, epsilon: float, rng: np.random.Generator, size: int
) -> np.ndarray:
    """BROKEN, claims eps-DP for general queries.  Algorithm 1 with Lap(k/eps) - the monotone
    scale - on general sensitivity-1 queries (Theorem 2 needs Lap(2k/eps)).  Same draws and
    output as :func:`kernels.freegap.mechanisms.sample_top_k_with_gap`.

    True cost: 2 eps (supremum).  Upper: Theorem 2's alignment cost (eps/k) * 2k.  Lower
    (k = 1, n = 2): the gap is g = q_1 - q_2 + Z with Z a difference of two Lap(1/eps); for
    q = (1, 0), q' = (0, 1) and the event {j_1 = 0, g >= G},
    P/P' = P(Z >= G - 1)/P(Z >= G + 1) = e^{2 eps} (2 + eps(G - 1))/(2 + eps(G + 1)) -> e^{2eps}
    (Lemma 5's equal-rate tail)."""
    qa = as_vector(q, "q", min_n=2)
    kk = check_int(k, "k", low=1, high=qa.size - 1, error=InvalidKError)
    eps = check_epsilon(epsilon)
    # Lap(k/eps) is the monotone scale of the correct sampler
    return fg.sample_top_k_with_gap(qa, kk, eps, rng, size, monotone=True)


# -------------------------------------------------------------- Adaptive SVT, wrong stop
def adaptive_svt_wrong_stop_core(
    q: Any,
    T: float,
    eta: float,
    xi: Any,
    eta_q: Any,
    epsilon: float,
    k: int,
    theta: float,
    *,
    adaptive: bool = True,
    sigma: float | None = None,
    monotone: bool = False,
) -> list[tuple[str, float | None, float]]:
    """BROKEN.  Algorithm 2 with line 16 read as ``if cost > eps then break`` (the budget is
    checked against eps, not eps - eps1, so the answer that overspends is still released).
    Identical to :func:`kernels.freegap.mechanisms.adaptive_svt_with_gap_core` except the stop test
    (exact units: ``units > 2k`` instead of ``units > 2k - 2``)."""
    qa = as_vector(q, "q")
    t = as_scalar(T, "T")
    e = as_scalar(eta, "eta")
    xv = as_noise(xi, qa.size, "xi")
    ev = as_noise(eta_q, qa.size, "eta_q")
    bud = fg.adaptive_budgets(epsilon, k, theta, monotone=monotone, sigma=sigma)
    sig = bud.sigma if adaptive else math.inf
    out: list[tuple[str, float | None, float]] = []
    units = 0
    for i in range(qa.size):
        top_gap = qa[i] + xv[i] - (t + e)
        mid_gap = qa[i] + ev[i] - (t + e)
        if top_gap > sig:
            out.append(("top", float(top_gap), bud.eps2))
            units += 1
        elif mid_gap >= 0:
            out.append(("middle", float(mid_gap), bud.eps1))
            units += 2
        else:
            out.append(("bottom", None, 0.0))
        if units > 2 * bud.k:  # cost > eps  (the correct rule: units > 2k - 2)
            break
    return out


def sample_adaptive_svt_wrong_stop(
    q: Any,
    T: float,
    epsilon: float,
    k: int,
    rng: np.random.Generator,
    size: int,
    *,
    theta: float | None = None,
    sigma: float | None = None,
    monotone: bool = False,
    adaptive: bool = True,
) -> np.ndarray:
    """BROKEN, claims eps-DP.  :func:`kernels.freegap.mechanisms.sample_adaptive_svt_with_gap` (same
    draws, same encoding) with the stop test ``cost > eps``.

    True cost: at most eps + eps1 (the run continues while cost <= eps and one more answer
    adds <= eps1; Theorem 4's alignment).  Exact lower bound for eps = 1, k = 1,
    theta = 0.2 (eps1 = 0.8): the output ⊥⊥⊥ then two middle-branch ⊤ on q = (0, 0, 0, 1, 1),
    q' = (1, 1, 1, 0, 0), T = 0 has log-ratio 1.46; with 8 ⊥ it is 1.77 (bound 1.8)."""
    qa = as_vector(q, "q")
    t = as_scalar(T, "T")
    eps = check_epsilon(epsilon)
    kk = check_int(k, "k", low=1, error=InvalidKError)
    rng = check_rng(rng)
    m = check_size(size)
    th = fg.recommended_theta(kk, monotone=monotone) if theta is None else check_theta(theta)
    bud = fg.adaptive_budgets(eps, kk, th, monotone=monotone, sigma=sigma)
    mult = 1.0 if monotone else 2.0
    eta = rng.laplace(0.0, 1.0 / bud.eps0, size=m)
    xi = rng.laplace(0.0, mult / bud.eps2, size=(m, qa.size))
    eta_q = rng.laplace(0.0, mult / bud.eps1, size=(m, qa.size))
    return adaptive_from_noise(
        qa, t, eta, xi, eta_q, kk, bud.sigma if adaptive else math.inf, max_units=2 * kk
    )


# ====================================================================== the catalogue
def _codes_event(start: int, codes: list[int]) -> list[dict[str, Any]]:
    return [{"col": start + i, "op": "==", "value": float(c)} for i, c in enumerate(codes)]


#: name -> description, claimed / true cost and a witness.  ``witness``: ``q`` and
#: ``q_prime`` (neighbours: |q_i - q'_i| <= 1), ``params`` (keyword arguments of ``sampler``
#: besides q, rng, size), ``event`` (column conditions for
#: :func:`proofs.freegap.mechanisms.event_indicator` on the sampler's output) and
#: ``log_ratio`` = log P(event | q) - log P(event | q') computed exactly (mpmath quadrature /
#: closed form; rounded down to 4 decimals) together with ``p`` = P(event | q).
#: ``true_epsilon_factor``: true epsilon / claimed epsilon (inf = not DP for any finite
#: epsilon over the variant's input domain; None = unknown).
BROKEN_VARIANTS: dict[str, dict[str, Any]] = {
    "svt_no_threshold_noise": {
        "description": "Sparse Vector without threshold noise",
        "reference": "(ours; a classical mistake) vs Lyu, Su & Li 2017, Alg. 1",
        "differences": ["threshold noise eta = 0"],
        "core": "svt_no_threshold_noise_core",
        "sampler": "sample_svt_no_threshold_noise",
        "claimed_epsilon": "epsilon",
        "true_cost": "n*eps2/(2c) on n queries (supremum; unbounded in n: infinite)",
        "true_epsilon_factor": math.inf,
        "witness": {
            "q": [0.0] * 16,
            "q_prime": [1.0] * 16,
            "params": {"T": 2.0, "epsilon": 1.0, "c": 1, "theta": 0.5},
            "event": _codes_event(0, [0] * 16),
            "event_text": "all 16 answers ⊥",
            "log_ratio": 2.1114,
            "p": 3.08e-3,
        },
    },
    "svt_no_query_noise": {
        "description": "Sparse Vector without query noise, no halting",
        "reference": "Stoddard, Chen & Machanavajjhala 2014; Lyu et al. 2017 Alg. 5",
        "differences": ["query noise nu_i = 0", "no halting after c answers"],
        "core": "svt_no_query_noise_core",
        "sampler": "sample_svt_no_query_noise",
        "claimed_epsilon": "epsilon",
        "true_cost": "infinite (an output with probability 0 on a neighbour)",
        "true_epsilon_factor": math.inf,
        "witness": {
            "q": [0.0, 1.0],
            "q_prime": [1.0, 0.0],
            "params": {"T": 0.5, "epsilon": 1.0, "theta": 0.5},
            "event": _codes_event(0, [0, 1]),
            "event_text": "(⊥, ⊤)",
            "log_ratio": math.inf,
            "p": 0.2212,
        },
    },
    "svt_release_value": {
        "description": "Sparse Vector releasing the noisy query value with each ⊤",
        "reference": "Roth 2011 lecture notes; Lyu et al. 2017 Alg. 3",
        "differences": ["a ⊤ releases q_i + nu_i", "query noise Lap(c/eps2), not Lap(2c/eps2)"],
        "core": "svt_release_value_core",
        "sampler": "sample_svt_release_value",
        "claimed_epsilon": "epsilon",
        "true_cost": "infinite over unbounded streams (<= n*eps2/c on n queries)",
        "true_epsilon_factor": math.inf,
        "witness": {
            "q": [0.0, 0.0, 0.0, 0.0, 0.0],
            "q_prime": [1.0, 1.0, 1.0, 1.0, 0.0],
            "params": {"T": 0.0, "epsilon": 1.0, "c": 1, "theta": 0.5},
            "event": _codes_event(5, [0, 0, 0, 0, 1]) + [{"col": 4, "op": "<=", "value": 2.0}],
            "event_text": "⊥ ⊥ ⊥ ⊥ then ⊤ with released value <= 2",
            "log_ratio": 1.5885,
            "p": 9.84e-3,
        },
    },
    "svt_no_halting": {
        "description": "Sparse Vector that never halts, query noise not scaled with c",
        "reference": "Chen, Machanavajjhala, Hay & Miklau 2015; Lyu et al. 2017 Alg. 6",
        "differences": ["no halting after c answers", "query noise Lap(1/eps2)"],
        "core": "svt_no_halting_core",
        "sampler": "sample_svt_no_halting",
        "claimed_epsilon": "epsilon",
        "true_cost": "infinite over unbounded streams (<= n*eps2 on n queries)",
        "true_epsilon_factor": math.inf,
        "witness": {
            "q": [0.0, 0.0, 1.0, 1.0],
            "q_prime": [1.0, 1.0, 0.0, 0.0],
            "params": {"T": 0.0, "epsilon": 1.0, "theta": 0.5},
            "event": _codes_event(0, [0, 0, 1, 1]),
            "event_text": "(⊥, ⊥, ⊤, ⊤)",
            "log_ratio": 1.5295,
            "p": 6.63e-2,
        },
    },
    "svt_lee_clifton": {
        "description": "Sparse Vector with query noise not growing with c (eps1 = eps/4)",
        "reference": "Lee & Clifton 2014; Lyu et al. 2017 Alg. 4",
        "differences": ["eps1 = eps/4", "query noise Lap(1/eps2), eps2 = 3 eps/4"],
        "core": "svt_lee_clifton_core",
        "sampler": "sample_svt_lee_clifton",
        "claimed_epsilon": "epsilon",
        "true_cost": "<= (1+6c)/4 * eps (Lyu et al.); for c = 1 exact losses reach 1.67 eps; "
        "exact supremum unknown",
        "true_epsilon_factor": None,
        "witness": {
            "q": [0.0, 0.0, 0.0, 0.0, 1.0],
            "q_prime": [1.0, 1.0, 1.0, 1.0, 0.0],
            "params": {"T": 0.0, "epsilon": 1.0, "c": 1},
            "event": _codes_event(0, [0, 0, 0, 0, 1]),
            "event_text": "⊥ ⊥ ⊥ ⊥ ⊤",
            "log_ratio": 1.6739,
            "p": 4.28e-2,
        },
    },
    "noisy_max_with_value": {
        "description": "Noisy Max releasing the noisy maximum with its index",
        "reference": "Ding et al. 2018 (StatDP) test case; Dwork & Roth 2014 Report Noisy Max",
        "differences": ["the noisy maximum value is released"],
        "core": "noisy_max_with_value_core",
        "sampler": "sample_noisy_max_with_value",
        "claimed_epsilon": "epsilon",
        "true_cost": "n*eps/2 on n queries (supremum; n*eps monotone)",
        "true_epsilon_factor": math.inf,
        "witness": {
            "q": [0.0] * 6,
            "q_prime": [1.0] * 6,
            "params": {"epsilon": 1.0},
            "event": [{"col": 1, "op": "<=", "value": 0.0}],
            "event_text": "released maximum <= 0",
            "log_ratio": 3.0,
            "p": 1.0 / 64.0,
        },
    },
    "top_k_with_gap_half_noise": {
        "description": "Noisy-Top-K-with-Gap with Lap(k/eps) on general (non-monotone) queries",
        "reference": "Ding et al., Algorithm 1 / Theorem 2 (needs Lap(2k/eps))",
        "differences": ["noise Lap(k/eps) instead of Lap(2k/eps)"],
        "core": "top_k_with_gap_half_noise_core",
        "sampler": "sample_top_k_with_gap_half_noise",
        "claimed_epsilon": "epsilon",
        "true_cost": "2*eps (supremum)",
        "true_epsilon_factor": 2.0,
        "witness": {
            "q": [1.0, 0.0],
            "q_prime": [0.0, 1.0],
            "params": {"k": 1, "epsilon": 1.0},
            "event": [{"col": 0, "op": "==", "value": 0.0}, {"col": 1, "op": ">=", "value": 3.0}],
            "event_text": "j_1 = 0 with gap >= 3",
            "log_ratio": 1.5945,
            "p": math.exp(-2.0),
        },
    },
    "adaptive_svt_wrong_stop": {
        "description": "Adaptive-SVT-with-Gap stopping on cost > eps instead of cost > eps - eps1",
        "reference": "Ding et al., Algorithm 2 line 16",
        "differences": ["stop test cost > eps (releases the overspending answer)"],
        "core": "adaptive_svt_wrong_stop_core",
        "sampler": "sample_adaptive_svt_wrong_stop",
        "claimed_epsilon": "epsilon",
        "true_cost": "<= eps + eps1; exact losses reach 1.46 (3 ⊥) to 1.77 (8 ⊥) at "
        "eps = 1, eps1 = 0.8; exact supremum unknown",
        "true_epsilon_factor": None,
        "witness": {
            "q": [0.0, 0.0, 0.0, 1.0, 1.0],
            "q_prime": [1.0, 1.0, 1.0, 0.0, 0.0],
            "params": {"T": 0.0, "epsilon": 1.0, "k": 1, "theta": 0.2},
            "event": _codes_event(5, [0, 0, 0, 1, 1]),
            "event_text": "⊥ ⊥ ⊥ then two middle-branch ⊤",
            "log_ratio": 1.4624,
            "p": 1.776e-2,
        },
    },
}
