"""Sparse Vector variants in the DSL, written from Lyu, Su & Li, "Understanding the Sparse
Vector Technique for Differential Privacy", PVLDB 10(6), 2017, Algorithms 1-6 (the paper's
notation: threshold noise rho, query noise nu_i, cut-off c, sensitivity Delta = 1; here
``N`` = c and ``eps`` the claimed budget).  Outputs: one entry per query read, ``True`` = ⊤,
``False`` = ⊥ (Alg. 3 releases the noisy answer in place of ⊤).

The paper's text is not in the repository; the pseudo-code below follows the algorithm
boxes as catalogued in ``kernels/freegap/broken.py`` (same algorithm numbers and scales).
Ambiguities resolved: "q_i + nu_i >= T_i + rho" uses >= (ties have probability 0 for
Laplace noise); the budget split is eps1 = eps/2, eps2 = eps - eps1 wherever the paper
leaves it free (Alg. 1, 3, 5, 6); Alg. 5 and 6 have no cut-off, so they read every query.
"""

from __future__ import annotations

import math
from fractions import Fraction

from audit.dsl import laplace, mechanism


@mechanism(epsilon="eps", relation="linf1", outputs="bool-list")
def svt_lyu1(q, eps, T=0, N=1):
    """Lyu et al. Alg. 1 (their proposed SVT): rho ~ Lap(1/eps1), nu_i ~ Lap(2c/eps2),
    halt after c ⊤.  Claimed and proved eps-DP (Lyu Thm. 2)."""
    eps1 = eps / 2
    eps2 = eps - eps1
    rho = laplace(1 / eps1)
    out = []
    count = 0
    for i in range(len(q)):
        nu = laplace(2 * N / eps2)
        if q[i] + nu >= T + rho:
            out.append(True)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out


@mechanism(epsilon="eps", relation="linf1", outputs="bool-list")
def svt_dwork_roth(q, eps, T=0, N=1):
    """Lyu et al. Alg. 2 (Dwork & Roth 2014): rho ~ Lap(c/eps1), nu_i ~ Lap(2c/eps1),
    eps1 = eps/2, the threshold noise is redrawn after every ⊤, halt after c ⊤.  eps-DP."""
    eps1 = eps / 2
    rho = laplace(N / eps1)
    out = []
    count = 0
    for i in range(len(q)):
        nu = laplace(2 * N / eps1)
        if q[i] + nu >= T + rho:
            out.append(True)
            count += 1
            if count >= N:
                break
            rho = laplace(N / eps1)
        else:
            out.append(False)
    return out


@mechanism(epsilon="eps", relation="linf1", outputs="mixed-list")
def svt_roth_release(q, eps, T=0, N=1):
    """BROKEN.  Lyu et al. Alg. 3 (Roth 2011 lecture notes): rho ~ Lap(1/eps1),
    nu_i ~ Lap(c/eps2), and a ⊤ releases the noisy answer q_i + nu_i.  What breaks: the
    released value pins the noisy threshold, so every ⊥ costs eps2/c (infinite over
    unbounded streams, Lyu et al.)."""
    eps1 = eps / 2
    eps2 = eps - eps1
    rho = laplace(1 / eps1)
    out = []
    count = 0
    for i in range(len(q)):
        nu = laplace(N / eps2)
        if q[i] + nu >= T + rho:
            out.append(q[i] + nu)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out


@mechanism(epsilon="eps", relation="linf1", outputs="bool-list")
def svt_lee_clifton(q, eps, T=0, N=1):
    """BROKEN.  Lyu et al. Alg. 4 (Lee & Clifton 2014): eps1 = eps/4, rho ~ Lap(1/eps1),
    nu_i ~ Lap(1/eps2) with eps2 = 3 eps/4 (query noise not growing with c), halt after
    c ⊤.  What breaks: too little query noise; true cost up to (1 + 6c)/4 eps."""
    eps1 = eps / 4
    eps2 = eps - eps1
    rho = laplace(1 / eps1)
    out = []
    count = 0
    for i in range(len(q)):
        nu = laplace(1 / eps2)
        if q[i] + nu >= T + rho:
            out.append(True)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out


@mechanism(epsilon="eps", relation="linf1", outputs="bool-list")
def svt_stoddard(q, eps, T=0):
    """BROKEN.  Lyu et al. Alg. 5 (Stoddard et al. 2014): rho ~ Lap(1/eps1), no query noise,
    no cut-off.  What breaks: without query noise an output can have probability 0 on a
    neighbour (infinite cost)."""
    eps1 = eps / 2
    rho = laplace(1 / eps1)
    out = []
    for i in range(len(q)):
        if q[i] >= T + rho:
            out.append(True)
        else:
            out.append(False)
    return out


@mechanism(epsilon="eps", relation="linf1", outputs="bool-list")
def svt_chen(q, eps, T=0):
    """BROKEN.  Lyu et al. Alg. 6 (Chen et al. 2015): rho ~ Lap(1/eps1), nu_i ~ Lap(1/eps2),
    no cut-off.  What breaks: every ⊤ costs up to 2 eps2 and nothing stops them (infinite
    over unbounded streams; exact 1.53 at 4 queries, eps = 1: kernels/freegap/broken.py)."""
    eps1 = eps / 2
    eps2 = eps - eps1
    rho = laplace(1 / eps1)
    out = []
    for i in range(len(q)):
        nu = laplace(1 / eps2)
        if q[i] + nu >= T + rho:
            out.append(True)
        else:
            out.append(False)
    return out


@mechanism(epsilon="eps", relation="linf1", outputs="bool-list")
def svt_no_threshold_noise(q, eps, T=0, N=1):
    """BROKEN (ours, CheckDP's "missing threshold noise" twin of Alg. 1): Alg. 1 with
    rho = 0.  What breaks: each ⊥ costs 1/b with b = 2c/eps2, unbounded in the number of
    queries."""
    eps1 = eps / 2
    eps2 = eps - eps1
    out = []
    count = 0
    for i in range(len(q)):
        nu = laplace(2 * N / eps2)
        if q[i] + nu >= T:
            out.append(True)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out


@mechanism(epsilon="eps", relation="linf1", outputs="mixed-list")
def svt_with_gap(q, eps, T=0):
    """Sparse-Vector-with-Gap: Ding, Wang, Zhang & Kifer (PVLDB 2019) Algorithm 2 without its
    top branch (lines 8-10), k = 1, theta = 1/2: eps0 = eps/2, eta ~ Lap(1/eps0),
    eta_i ~ Lap(2/eps1) with eps1 = eps/2; a ⊤ releases the gap q_i + eta_i - (T + eta) and
    stops.  Claimed eps-DP (Ding et al. Theorem 4 with sigma = infinity)."""
    eps0 = eps / 2
    eps1 = eps - eps0
    t_noisy = T + laplace(1 / eps0)
    out = []
    for i in range(len(q)):
        v = q[i] + laplace(2 / eps1)
        if v - t_noisy >= 0:
            out.append(v - t_noisy)
            break
        out.append(False)
    return out



@mechanism(epsilon="eps", relation="linf1", outputs="mixed-list")
def numeric_sparse(q, eps, T=0):
    """NumericSparse with c = 1, delta = 0: Dwork & Roth, "The Algorithmic Foundations of
    Differential Privacy", 2014, Algorithm 3 (eps1 = 8 eps/9, eps2 = 2 eps/9,
    sigma(e) = 2c/e; threshold noise Lap(sigma(eps1)), query noise Lap(2 sigma(eps1)), a ⊤
    releases a fresh measurement q_i + Lap(sigma(eps2)) and halts).  eps-DP (Dwork & Roth
    Thm. 3.28).  CheckDP's "NumSVT" is this program."""
    eps1 = 8 * eps / 9
    eps2 = 2 * eps / 9
    rho = laplace(2 / eps1)
    out = []
    for i in range(len(q)):
        nu = laplace(4 / eps1)
        if q[i] + nu >= T + rho:
            out.append(q[i] + laplace(2 / eps2))
            break
        out.append(False)
    return out


@mechanism(epsilon="eps", relation="linf1", outputs="mixed-list")
def numeric_sparse_reuse_noise(q, eps, T=0):
    """BROKEN.  NumericSparse (Dwork & Roth Alg. 3, c = 1) that releases the comparison's
    own noisy value q_i + nu_i instead of a fresh measurement.  What breaks: the released
    value pins the noisy threshold (the flaw of Lyu et al. Alg. 3), so every ⊥ before it
    costs privacy."""
    eps1 = 8 * eps / 9
    rho = laplace(2 / eps1)
    out = []
    for i in range(len(q)):
        nu = laplace(4 / eps1)
        if q[i] + nu >= T + rho:
            out.append(q[i] + nu)
            break
        out.append(False)
    return out


@mechanism(epsilon="eps", relation="linf1", outputs="bool-list")
def svt_increasing_thresholds(q, eps, T=0, step=1, N=1):
    """Lyu et al. Alg. 1 with per-query public thresholds T_i = T + i * step (the paper's
    algorithm takes a threshold per query; increasing thresholds).  eps-DP (Lyu Thm. 2:
    the thresholds are public)."""
    eps1 = eps / 2
    eps2 = eps - eps1
    rho = laplace(1 / eps1)
    out = []
    count = 0
    for i in range(len(q)):
        nu = laplace(2 * N / eps2)
        if q[i] + nu >= T + i * step + rho:
            out.append(True)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out


@mechanism(epsilon="eps", relation="linf1", outputs="bool-list")
def svt_decreasing_thresholds(q, eps, T=0, step=1, N=1):
    """Lyu et al. Alg. 1 with per-query public thresholds T_i = T - i * step (decreasing).
    eps-DP (Lyu Thm. 2)."""
    eps1 = eps / 2
    eps2 = eps - eps1
    rho = laplace(1 / eps1)
    out = []
    count = 0
    for i in range(len(q)):
        nu = laplace(2 * N / eps2)
        if q[i] + nu >= T - i * step + rho:
            out.append(True)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out


@mechanism(epsilon="eps", relation="linf1", outputs="bool-list")
def svt_increasing_thresholds_fresh_noise(q, eps, T=0, step=1, N=1):
    """BROKEN.  SVT with increasing thresholds whose threshold noise is drawn afresh for
    every query (rho_i ~ Lap(1/eps1) per query).  What breaks: the threshold noise is no
    longer shared, so the single threshold shift that pays for all ⊥ answers at once
    (Lyu et al.'s proof) is gone: every ⊥ costs privacy."""
    eps1 = eps / 2
    eps2 = eps - eps1
    out = []
    count = 0
    for i in range(len(q)):
        rho = laplace(1 / eps1)
        nu = laplace(2 * N / eps2)
        if q[i] + nu >= T + i * step + rho:
            out.append(True)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out


@mechanism(epsilon="eps", relation="linf1", outputs="mixed-list")
def svt_with_gap_small_noise(q, eps, T=0):
    """BROKEN.  Sparse-Vector-with-Gap with query noise Lap(1/eps1) (the monotone-query
    scale of Ding et al. footnote 6) on general sensitivity-1 queries.  What breaks: the
    released gap pins q_i + eta_i - eta, whose alignment then costs 2/b per ⊤ with half the
    noise the non-monotone proof needs (refuted from 3 queries on)."""
    eps0 = eps / 2
    eps1 = eps - eps0
    t_noisy = T + laplace(1 / eps0)
    out = []
    for i in range(len(q)):
        v = q[i] + laplace(1 / eps1)
        if v - t_noisy >= 0:
            out.append(v - t_noisy)
            break
        out.append(False)
    return out


@mechanism(epsilon="eps", relation="linf1", outputs="mixed-list")
def adaptive_svt_with_gap(q, eps, T=0, theta=Fraction(1, 2), k=1):
    """Adaptive-Sparse-Vector-with-Gap: Ding, Wang, Zhang & Kifer (PVLDB 2019) Algorithm 2
    (eps0 = theta eps, eps1 = (1 - theta) eps / k, eps2 = eps1 / 2,
    sigma = 4 sqrt(2) / eps2; threshold noise Lap(1/eps0); per query xi_i ~ Lap(2/eps2) for
    the top branch "gap > sigma", eta_i ~ Lap(2/eps1) for the middle branch "gap >= 0";
    stop when cost > eps - eps1).  Claimed eps-DP (Ding et al. Theorem 4).

    Ambiguity resolved / reading: each output entry is the released gap (or ``False`` for
    ⊥) *without* the budget tag: dropping the tag is post-processing of Algorithm 2's
    output, so a refutation of this program refutes Algorithm 2 and the tagged program is
    at least as private as the claim requires of this one.  sigma is the float value of
    4 sqrt(2)/eps2 (what a run computes), taken exactly.  ``theta`` is an exact Fraction so
    that it stays a concrete budget split (a ``float`` default would be a symbolic public
    real, and ``theta * eps`` is outside the DSL); eps itself cannot stay symbolic (sigma and
    the cost are compared with noisy values), so a proof runs at the claimed epsilon.
    Without the tag a released gap does not tell which branch answered (a middle-branch gap
    may exceed sigma), so the paper's alignment (Eq. (3): xi_i or eta_i shifted by
    1 + q_i - q'_i as the top or middle branch answered) is selected by branch, which the
    path-sensitive templates of :mod:`audit.prove.alignment` express."""
    eps0 = theta * eps
    eps1 = (1 - theta) * eps / k
    eps2 = eps1 / 2
    sigma = 4 * math.sqrt(2) / eps2
    t_noisy = T + laplace(1 / eps0)
    cost = eps0
    out = []
    for i in range(len(q)):
        xi = laplace(2 / eps2)
        eta = laplace(2 / eps1)
        if q[i] + xi - t_noisy > sigma:
            out.append(q[i] + xi - t_noisy)
            cost = cost + eps2
        elif q[i] + eta - t_noisy >= 0:
            out.append(q[i] + eta - t_noisy)
            cost = cost + eps1
        else:
            out.append(False)
        if cost > eps - eps1:
            break
    return out
