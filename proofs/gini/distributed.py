"""The exact Gini index (eq. 2) of a data set too large for one process, from sorted value-
range partitions (:func:`audit.distributed.range_partitions`), exactly.

Each partition (sorted, global ranks ``offset + 1 .. offset + m``) reduces, on its worker, to
three exact integers on the reference's scaled representation (``value = v / 2^D``, see
:class:`proofs.gini.reference._Exact`, vectorised int64 limb sums): ``D``, ``S = sum v`` and
``W = sum_i i v_i`` (local ranks i = 1..m).  With ``D* = max D`` every partition is brought
to the common denominator by a left shift, and for sorted data

    N = sum_r (2r - n - 1) x_(r) = 2 sum_p (W_p + offset_p S_p) - (n + 1) sum_p S_p,
    g = N / ((n - 1) sum_p S_p)                                                  eq. (2),

all in Python integers: the result is the same Fraction as
:func:`proofs.gini.reference.gini_eq2` on the whole data (tested on a LocalCluster).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from audit.distributed import range_partitions
from proofs.gini.reference import NegativeIncomeError, ZeroTotalError, exact_floats

__all__ = ["gini_eq2_from_partitions", "gini_eq2_partitioned", "partition_sums"]


def partition_sums(part: np.ndarray) -> tuple[int, int, int, int]:
    """(m, D, S, W) of one sorted partition, exactly (runs on a worker)."""
    arr = np.asarray(part, dtype=np.float64)
    if arr.size == 0:
        return 0, 0, 0, 0  # an empty value range adds nothing
    if arr.min() < 0:
        raise NegativeIncomeError("x must be >= 0 (incomes)")
    ex = exact_floats(arr)
    if ex is None:
        raise ValueError("partition must be a finite float array")
    return ex.n, ex.D, ex.total, ex.weighted  # weighted = sum_i i X_i, local ranks 1..m


def gini_eq2_partitioned(x: np.ndarray, parts: int = 4, dask_client: Any = None) -> Fraction:
    """Eq. (2) of ``x`` exactly, computed partition by partition (on ``dask_client`` if
    given).  Raises like the reference for a negative record or a zero total."""
    partitions, _ = range_partitions(np.asarray(x, dtype=np.float64), parts)
    if dask_client is None:
        sums = [partition_sums(p) for p in partitions]
    else:
        sums = dask_client.gather([dask_client.submit(partition_sums, p) for p in partitions])
    return _combine(sums)


def gini_eq2_from_partitions(partitions: list[Any], dask_client: Any) -> Fraction:
    """Eq. (2) exactly from sorted value-range partitions that already live on the cluster
    (futures, in value order, e.g. :attr:`audit.distributed.SortedColumn.partitions`): each
    worker reduces its partition to (m, D, S, W), only those integers travel."""
    return _combine(dask_client.gather([dask_client.submit(partition_sums, f)
                                        for f in partitions]))


def _combine(sums: list[tuple[int, int, int, int]]) -> Fraction:
    """The partition integers (in value order) brought to the common denominator 2^max D
    and combined; partition p's rank offset is the number of records before it."""
    n = int(sum(s[0] for s in sums))
    if n < 2:
        raise ValueError(f"x must have n >= 2 records, got n = {n}")
    dmax = max(s[1] for s in sums)
    total = 0
    weighted = 0
    off = 0
    for m, d, S, W in sums:
        sh = dmax - d
        total += S << sh
        weighted += (W + off * S) << sh
        off += m
    if total == 0:
        raise ZeroTotalError(f"x has total 0 (all {n} records are 0): Gini undefined")
    return Fraction(2 * weighted - (n + 1) * total, (n - 1) * total)
