"""Report Noisy Max and Noisy-Top-K-with-Gap in the DSL.

* Report Noisy Max: Dwork & Roth, "The Algorithmic Foundations of Differential Privacy",
  2014, Sec. 3.3 (Claim 3.9 proves Lap(1/eps) for counting queries; for general
  sensitivity-1 queries the noise is Lap(2/eps)), as in CheckDP's benchmark (Wang et al.
  CCS 2020, "NoisyMax").
* Noisy-Top-K-with-Gap: Ding, Wang, Zhang & Kifer, "Free gap information from the
  differentially private Sparse Vector and Noisy Max mechanisms", PVLDB 2019, Algorithm 1
  (eta_i ~ Lap(2k/eps), release the top-k indexes with the gaps to the next noisy value).

Pseudo-code ambiguities resolved: argmax ties go to the lowest index (strict ``>`` when
scanning; ties have probability 0 for Laplace noise); Algorithm 1's arg max_{k+1} is
computed, for k = 1, by one scan that keeps the best and the runner-up.
"""

from __future__ import annotations

from audit.dsl import laplace, mechanism


@mechanism(epsilon="eps", relation="linf1", outputs="index")
def noisy_max(q, eps):
    """Report Noisy Max with Lap(2/eps) (sensitivity-1 queries): the index of the largest
    noisy answer.  eps-DP."""
    best = 0
    best_val = q[0] + laplace(2 / eps)
    for i in range(1, len(q)):
        v = q[i] + laplace(2 / eps)
        if v > best_val:
            best = i
            best_val = v
    return best


@mechanism(epsilon="eps", relation="linf1", outputs="index")
def noisy_max_small_noise(q, eps):
    """BROKEN.  Report Noisy Max with Lap(1/eps) on general (non-monotone) sensitivity-1
    queries.  What breaks: two answers can move 1 apart in opposite directions, so the
    noise is half what the proof needs (exact 1.31 for eps = 1 at 2 queries)."""
    best = 0
    best_val = q[0] + laplace(1 / eps)
    for i in range(1, len(q)):
        v = q[i] + laplace(1 / eps)
        if v > best_val:
            best = i
            best_val = v
    return best


@mechanism(epsilon="eps", relation="linf1", outputs="number")
def noisy_max_value(q, eps):
    """BROKEN (CheckDP's "BadNoisyMax"-style twin): Report Noisy Max with Lap(2/eps) that
    releases the largest noisy *value* instead of its index.  What breaks: the value is not
    free (Ding et al. Sec. 4 release it only with extra noise); true cost grows with the
    number of queries."""
    best_val = q[0] + laplace(2 / eps)
    for i in range(1, len(q)):
        v = q[i] + laplace(2 / eps)
        if v > best_val:
            best_val = v
    return best_val


@mechanism(epsilon="eps", relation="linf1", outputs="mixed-list")
def noisy_top1_with_gap(q, eps):
    """Ding et al. Algorithm 1 with k = 1: the noisy argmax and the gap to the runner-up,
    eta_i ~ Lap(2/eps).  Claimed eps-DP (Ding et al. Theorem 2)."""
    a = q[0] + laplace(2 / eps)
    b = q[1] + laplace(2 / eps)
    if a >= b:
        best, best_val, second_val = 0, a, b
    else:
        best, best_val, second_val = 1, b, a
    for i in range(2, len(q)):
        v = q[i] + laplace(2 / eps)
        if v > best_val:
            best, second_val, best_val = i, best_val, v
        elif v > second_val:
            second_val = v
    return [best, best_val - second_val]


@mechanism(epsilon="eps", relation="linf1", outputs="mixed-list")
def noisy_top1_with_gap_half_noise(q, eps):
    """BROKEN.  Ding et al. Algorithm 1 (k = 1) with Lap(1/eps), the monotone-query scale
    (Ding et al. Sec. 4.1), on general sensitivity-1 queries.  What breaks: half the noise
    the non-monotone proof needs (true cost 2 eps as a supremum, kernels/freegap/broken.py)."""
    a = q[0] + laplace(1 / eps)
    b = q[1] + laplace(1 / eps)
    if a >= b:
        best, best_val, second_val = 0, a, b
    else:
        best, best_val, second_val = 1, b, a
    for i in range(2, len(q)):
        v = q[i] + laplace(1 / eps)
        if v > best_val:
            best, second_val, best_val = i, best_val, v
        elif v > second_val:
            second_val = v
    return [best, best_val - second_val]
