"""Mechanisms written in dpaudit's DSL (:mod:`audit.dsl`), each with a deliberately broken
twin: the same function is run by ``dpaudit test`` and proved by ``dpaudit prove``.

    dpaudit prove audit.examples.dsl_mechanisms:sparse_vector
    dpaudit test audit.examples.dsl_mechanisms:sparse_vector --pairs pairs.json

Correct programs (epsilon-DP under their stated relation):

* ``sparse_vector``: Sparse Vector with N = 1 (Lyu, Su & Li, VLDB 2017, Algorithm 1 with
  c = 1: threshold noise Lap(2/eps), query noise Lap(4c/eps)), ``linf1``;
* ``noisy_max``: Report Noisy Max of the index (Dwork & Roth, Claim 3.9 style, with
  Lap(2/eps) so that it holds for any sensitivity-1 queries), ``linf1``;
* ``numerical_svt``: Numerical Sparse Vector with N = 1 (Lyu et al. Algorithm 7 with
  eps1 = eps2 = eps3 = eps/3: Lap(3/eps) threshold, Lap(6/eps) comparison, Lap(3/eps) released
  value), ``linf1``;
* ``partial_sum``: the sum of the queries plus Lap(1/eps), ``onehot1`` (one query changes by
  at most 1, as in CheckDP's PartialSum).

Broken twins (not epsilon-DP for some n <= 4 or not provable with these alignments):
``sparse_vector_small_noise`` (query noise Lap(2/eps) and no threshold noise),
``noisy_max_half_noise`` (Lap(1/eps): its true loss on (0, 0) vs (1, -1) is
2 eps - log(1 + eps) > eps), ``numerical_svt_raw_value`` (releases the query without
noise), ``partial_sum_linf`` (the same sum under ``linf1``: sensitivity n, not 1).
"""

from __future__ import annotations

from audit.dsl import laplace, mechanism


@mechanism(epsilon="eps", relation="linf1", outputs="bool-list")
def sparse_vector(q, eps, T=0.0, N=1):
    out = []
    count = 0
    rho = laplace(2 / eps)
    for i in range(len(q)):
        nu = laplace(4 * N / eps)
        if q[i] + nu >= T + rho:
            out.append(True)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out


@mechanism(epsilon="eps", relation="linf1", outputs="bool-list")
def sparse_vector_small_noise(q, eps, T=0.0):
    out = []
    for i in range(len(q)):
        nu = laplace(2 / eps)
        if q[i] + nu >= T:
            out.append(True)
            break
        out.append(False)
    return out


@mechanism(epsilon="eps", relation="linf1", outputs="index")
def noisy_max(q, eps):
    best = None
    best_i = 0
    for i in range(len(q)):
        v = q[i] + laplace(2 / eps)
        if best is None or v > best:
            best = v
            best_i = i
    return best_i


@mechanism(epsilon="eps", relation="linf1", outputs="index")
def noisy_max_half_noise(q, eps):
    best = None
    best_i = 0
    for i in range(len(q)):
        v = q[i] + laplace(1 / eps)
        if best is None or v > best:
            best = v
            best_i = i
    return best_i


@mechanism(epsilon="eps", relation="linf1", outputs="mixed-list")
def numerical_svt(q, eps, T=0.0):
    out = []
    rho = laplace(3 / eps)
    for i in range(len(q)):
        nu = laplace(6 / eps)
        if q[i] + nu >= T + rho:
            out.append(q[i] + laplace(3 / eps))
            break
        out.append(False)
    return out


@mechanism(epsilon="eps", relation="linf1", outputs="mixed-list")
def numerical_svt_raw_value(q, eps, T=0.0):
    out = []
    rho = laplace(3 / eps)
    for i in range(len(q)):
        nu = laplace(6 / eps)
        if q[i] + nu >= T + rho:
            out.append(q[i])
            break
        out.append(False)
    return out


@mechanism(epsilon="eps", relation="onehot1", outputs="number")
def partial_sum(q, eps):
    total = 0
    for i in range(len(q)):
        total = total + q[i]
    return total + laplace(1 / eps)


@mechanism(epsilon="eps", relation="linf1", outputs="number")
def partial_sum_linf(q, eps):
    total = 0
    for i in range(len(q)):
        total = total + q[i]
    return total + laplace(1 / eps)
