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

``sparse_vector``, ``noisy_max``, ``noisy_max_half_noise``, ``partial_sum`` and
``partial_sum_linf`` are the benchmark's programs (:mod:`audit.prove.benchmark`: Lyu et al.
Alg. 1, Report Noisy Max and its Lap(1/eps) twin, Partial Sum), imported rather than copied;
``sparse_vector`` runs with a ``float`` threshold ``T`` (a symbolic public real: the proof
covers every threshold) and ``partial_sum_linf`` is Partial Sum declared under ``linf1``.

Broken twins (not epsilon-DP for some n <= 4 or not provable with these alignments):
``sparse_vector_small_noise`` (query noise Lap(2/eps) and no threshold noise),
``noisy_max_half_noise`` (Lap(1/eps): its true loss on (0, 0) vs (1, -1) is
2 eps - log(1 + eps) > eps), ``numerical_svt_raw_value`` (releases the query without
noise), ``partial_sum_linf`` (the same sum under ``linf1``: sensitivity n, not 1).
"""

from __future__ import annotations

from audit.dsl import Mechanism, laplace, mechanism
from audit.prove.benchmark import noisy_max as _bm_noisy_max
from audit.prove.benchmark import sparse_vector as _bm_svt
from audit.prove.benchmark import sums as _bm_sums

__all__ = ["noisy_max", "noisy_max_half_noise", "numerical_svt", "numerical_svt_raw_value",
           "partial_sum", "partial_sum_linf", "sparse_vector", "sparse_vector_small_noise"]

#: Lyu et al. Alg. 1 with c = 1 (rho ~ Lap(2/eps), nu ~ Lap(4/eps)), threshold T a float
sparse_vector = _bm_svt.svt_lyu1.at(1.0, T=0.0)
#: Report Noisy Max (index), Lap(2/eps)
noisy_max = _bm_noisy_max.noisy_max
#: Report Noisy Max with Lap(1/eps): not eps-DP for general sensitivity-1 queries
noisy_max_half_noise = _bm_noisy_max.noisy_max_small_noise
#: the sum of the queries plus Lap(1/eps), ``onehot1``
partial_sum = _bm_sums.partial_sum
#: the same program under ``linf1`` (sensitivity n, not 1)
partial_sum_linf = Mechanism(_bm_sums.partial_sum.fn, "eps", "linf1", "number", 1.0)


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
