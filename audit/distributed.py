"""Running audit work past one process: a Dask cluster (``dask.distributed``), optional.

Two kinds of work scale out, both *additive*, so a cluster changes the wall time and never
the answer:

* **Sampler counts.**  The certification step of a black-box tester only needs, per event,
  the number of outputs that fall in it.  :func:`count_events` draws ``n`` outputs in chunks
  of ``chunk`` and gives chunk ``i`` its own generator ``default_rng(SeedSequence(entropy,
  spawn_key=(i,)))`` — a pure function of ``(entropy, i)`` — so the per-chunk counts are the
  same numbers whether the chunks run in this process, in any order, or on any worker, and
  their sum is the same to the last integer.  ``tests/engine/test_distributed.py`` checks
  this equality on a ``LocalCluster`` with 2 workers.
* **Partitioned sorted data.**  :func:`range_partitions` splits a data set into value ranges
  (cut points from a sample of quantiles), each sorted on its own; partition ``p`` then
  holds the records of global ranks ``offset[p] + 1 .. offset[p] + size[p]``, so any sum of
  ``f(rank, value)`` over the sorted data is a sum over partitions with a rank offset (the
  Gini subject combines exact prefix quantities this way in
  :mod:`proofs.gini.distributed`).
* **Partitioned read and sort.**  :func:`read_sorted_column` has the workers parse byte
  blocks of a CSV file (the fast path of :mod:`audit.datasets`, the file at the same path on
  every worker), cut them by value range at sampled quantiles, and sort each range on a
  worker (a sample sort); the sorted partitions stay on the cluster as futures for the
  prefix quantities, and are copied in order into one sorted array for the links that run
  in the client process.

:func:`client` opens the cluster: ``scheduler="tcp://host:8786"`` connects to a running
scheduler (start one with ``dask scheduler`` and workers with ``dask worker ADDRESS`` on
each machine, all with this package installed); ``workers=N`` starts a ``LocalCluster`` of
N single-threaded worker processes on this machine.  Without either, everything runs in
this process (numpy, single process: the default).  Nothing here prints or writes files,
and a local cluster's own log lines (timestamped) are silenced.
"""

from __future__ import annotations

import contextlib
import logging
import operator
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernels.errors import InvalidParameterError
from kernels.validate import shorten

#: seconds to wait for a Dask scheduler to answer before giving up (bad input, exit 2)
CONNECT_TIMEOUT_S = 10.0

__all__ = ["CONNECT_TIMEOUT_S", "SortedColumn", "chunk_rng", "client", "count_events",
           "range_partitions", "read_sorted_column"]


@contextlib.contextmanager
def client(scheduler: str | None = None, workers: int | None = None) -> Iterator[Any]:
    """A ``distributed.Client`` for the duration of the block, or None (single process).

    ``scheduler`` (an address) and ``workers`` (a LocalCluster size) are exclusive.
    """
    if scheduler is not None and workers is not None:
        raise InvalidParameterError("give either scheduler or workers, not both")
    if scheduler is None and workers is None:
        yield None
        return
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise InvalidParameterError(
            "--scheduler/--workers need dask.distributed: pip install 'dpaudit[distributed]'"
        ) from exc
    if scheduler is not None:
        try:
            c = Client(scheduler, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError, ValueError) as exc:  # unreachable / malformed address
            raise InvalidParameterError(
                f"{shorten(repr(scheduler))}: no Dask scheduler answered within "
                f"{CONNECT_TIMEOUT_S:g} s ({type(exc).__name__}: {shorten(str(exc), 120)}); "
                "start one with 'dask scheduler' or check the address",
                param="scheduler") from None
        with c:
            yield c
        return
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidParameterError(f"must be an integer >= 1, got {workers!r}",
                                    param="workers")
    # The scheduler's HTTP server starts even with the dashboard off; a fixed port (8787 by
    # default) collides with any other cluster on the machine, so bind a free local port.
    # Dask's own log lines (worker start-up, shutdown warnings) carry wall-clock stamps: a
    # shutdown time minus the report's started_at is the run's withheld duration, a
    # function of the data (issue 37).  They are silenced, in this process (through the
    # cluster's close: LocalCluster restores its own silencing before that) and in the
    # worker processes (silence_logs is handed to each nanny).
    with _silenced_logs(), LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True,
            dashboard_address="127.0.0.1:0", scheduler_kwargs={"dashboard": False},
            silence_logs=_SILENT) as cluster, Client(cluster) as c:
        yield c


#: the level Dask's loggers are held at while a local cluster runs (nothing is logged)
_SILENT = logging.CRITICAL + 10
#: the loggers a local cluster writes to stderr through
_DASK_LOGGERS = ("distributed", "tornado", "asyncio", "bokeh")


@contextlib.contextmanager
def _silenced_logs() -> Iterator[None]:
    """Hold Dask's loggers (:data:`_DASK_LOGGERS`) at :data:`_SILENT` for the block, and
    restore their levels after it."""
    loggers = [logging.getLogger(n) for n in _DASK_LOGGERS]
    old = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(_SILENT)
    try:
        yield
    finally:
        for lg, level in zip(loggers, old, strict=True):
            lg.setLevel(level)


def chunk_rng(entropy: int | Sequence[int], index: int) -> np.random.Generator:
    """The generator of chunk ``index``: a pure function of (entropy, index)."""
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(int(index),)))


def _chunk_counts(sample: Callable[[Any, int, np.random.Generator], np.ndarray], dataset: Any,
                  masks: Sequence[Callable[[np.ndarray], np.ndarray]], size: int,
                  entropy: int | Sequence[int], index: int) -> np.ndarray:
    y = np.asarray(sample(dataset, size, chunk_rng(entropy, index)))
    if y.ndim == 1:
        y = y.reshape(-1, 1)
    return np.array([int(np.count_nonzero(m(y))) for m in masks], dtype=np.int64)


def count_events(sample: Callable[[Any, int, np.random.Generator], np.ndarray], dataset: Any,
                 masks: Sequence[Callable[[np.ndarray], np.ndarray]], n: int, *,
                 entropy: int | Sequence[int], chunk: int = 1_000_000,
                 dask_client: Any = None) -> np.ndarray:
    """Counts of each event (``masks[i](outputs) -> bool array``) over ``n`` fresh outputs
    of ``sample(dataset, size, rng)``, drawn in chunks with :func:`chunk_rng` streams.

    With ``dask_client`` the chunks run on the cluster (``sample``, ``dataset`` and the
    masks must pickle); the result is identical to the in-process one.
    """
    for name, v in (("n", n), ("chunk", chunk)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise InvalidParameterError(f"{name} must be an integer >= 1, got {v!r}")
    sizes = [min(chunk, n - start) for start in range(0, n, chunk)]
    if dask_client is None:
        total = np.zeros(len(masks), dtype=np.int64)
        for i, m in enumerate(sizes):
            total += _chunk_counts(sample, dataset, masks, m, entropy, i)
        return total
    data_f = dask_client.scatter(dataset, broadcast=True)
    futures = [dask_client.submit(_chunk_counts, sample, data_f, masks, m, entropy, i,
                                  pure=False) for i, m in enumerate(sizes)]
    total = np.zeros(len(masks), dtype=np.int64)
    for f in futures:
        total += f.result()
    return total


def range_partitions(x: np.ndarray, parts: int, *, sample: int = 100_000,
                     seed: int = 0) -> tuple[list[np.ndarray], np.ndarray]:
    """Split ``x`` into ``parts`` value ranges, each sorted: (partitions, rank offsets).

    Cut points are quantiles of a random sample (ties go to the lower range, so equal
    values never straddle two partitions and ranks stay consistent); concatenating the
    partitions gives ``np.sort(x)`` exactly.  In a cluster each partition is sorted on a
    worker; here the split is local and the caller ships partitions out.
    """
    if isinstance(parts, bool) or not isinstance(parts, int) or parts < 1:
        raise InvalidParameterError(f"parts must be an integer >= 1, got {parts!r}")
    x = np.asarray(x, dtype=np.float64).ravel()
    if parts == 1 or x.size <= parts:
        out = [np.sort(x)]
    else:
        rng = np.random.default_rng(seed)
        s = x if x.size <= sample else rng.choice(x, size=sample, replace=False)
        cuts = np.unique(np.quantile(s, np.linspace(0, 1, parts + 1)[1:-1]))
        which = np.searchsorted(cuts, x, side="left")  # x <= cut[i] -> partition <= i
        out = [np.sort(x[which == p]) for p in range(len(cuts) + 1)]
    sizes = np.array([p.size for p in out], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    return out, offsets


# ------------------------------------------------------------ partitioned read and sort
@dataclass
class SortedColumn:
    """A CSV column read and sorted on the cluster (:func:`read_sorted_column`).

    ``x``: the whole column sorted, assembled in this process partition by partition (no
    sort here); ``partitions``: futures of the sorted value-range partitions, still on the
    workers (partition ``p`` holds global ranks ``offsets[p] + 1 .. offsets[p] + sizes[p]``),
    for prefix quantities computed where the data are; ``blocks``: byte blocks parsed;
    ``layout``: the file's layout as read (:class:`audit.datasets.PlainLayout`: which column,
    header row or none), for the reader's record (:func:`audit.column_census.read_record`)."""

    x: np.ndarray
    partitions: list[Any]
    sizes: np.ndarray
    offsets: np.ndarray
    blocks: int
    layout: Any = None


def _block_summary(arr: np.ndarray | None, index: int, k: int) -> tuple[int, np.ndarray] | None:
    """(records, a seeded sample of k of them) of one parsed block, on its worker."""
    if arr is None:
        return None
    rng = np.random.default_rng(np.random.SeedSequence(0, spawn_key=(int(index),)))
    take = arr if arr.size <= k else arr[rng.integers(0, arr.size, size=k)]
    return int(arr.size), np.asarray(take, dtype=np.float64)


def _bucket(arr: np.ndarray, cuts: np.ndarray) -> list[np.ndarray]:
    """A block split by value range: x <= cuts[0], cuts[0] < x <= cuts[1], ... (the rule
    of :func:`range_partitions`: equal values never straddle two partitions)."""
    which = np.searchsorted(cuts, arr, side="left")
    order = np.argsort(which, kind="stable")
    bounds = np.searchsorted(which[order], np.arange(cuts.size + 2))
    srt = arr[order]
    return [srt[bounds[p]:bounds[p + 1]] for p in range(cuts.size + 1)]


def _concat_sort(*pieces: np.ndarray) -> np.ndarray:
    out = np.concatenate(pieces) if pieces else np.empty(0)
    out.sort()
    return out


def read_sorted_column(path: str | os.PathLike[str], column: str | None, dask_client: Any, *,
                       parts: int | None = None, block_bytes: int = 32 << 20,
                       sample: int = 4096) -> SortedColumn | None:
    """Read one column of a plain CSV file and sort it *on the cluster* (issue 16).

    The body is cut into byte blocks at line starts; each worker parses its blocks with the
    fast path's checks (:func:`audit.datasets.parse_plain_range`: the file must be
    readable at the same path on every worker -- a shared file system); a seeded sample of
    each block gives the value cut points; every block is split by value range on its
    worker and each range is concatenated and sorted on a worker (a sample sort).  The
    sorted partitions are then copied, in order, into one array here (8 bytes per record,
    no sort in this process).  The result equals ``np.sort(load_csv_column(path, column))``
    bit for bit (tested on a LocalCluster).

    Returns ``None`` when the file is not plain (a quoted cell, a blank line, a bad value,
    ...) or a worker cannot open it (no shared file system): the caller then reads it with
    :func:`audit.datasets.load_csv_column`, whose careful path names the problem and the
    line.  An unknown or ambiguous column raises :class:`audit.datasets.DataFileError`
    here.
    """
    from audit import datasets

    label = f"data file {os.fspath(path)!r}"
    for name, v in (("parts", parts), ("block_bytes", block_bytes), ("sample", sample)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            raise InvalidParameterError(f"{name} must be an integer >= 1, got {v!r}")
    layout = datasets.plain_layout(path, label, column)
    if layout is None:
        return None
    cuts = datasets.line_cuts(path, layout.body_start, layout.end, block_bytes)
    if cuts is None:
        return None
    fpath = os.fspath(path)
    blocks = [dask_client.submit(datasets.parse_plain_range, fpath, layout, a, b, pure=False)
              for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
    try:
        summaries = dask_client.gather([dask_client.submit(_block_summary, f, i, sample)
                                        for i, f in enumerate(blocks)])
    except OSError:  # a worker cannot open the file (no shared file system): read it here
        summaries = [None]
    if any(s is None for s in summaries):
        for f in blocks:
            f.cancel()
        return None
    n = sum(s[0] for s in summaries)
    if parts is None:
        parts = max(1, 2 * len(dask_client.scheduler_info().get("workers", {})))
    pooled = np.concatenate([s[1] for s in summaries])
    vcuts = (np.unique(np.quantile(pooled, np.linspace(0, 1, parts + 1)[1:-1]))
             if parts > 1 else np.empty(0))
    bucketed = [dask_client.submit(_bucket, f, vcuts) for f in blocks]
    del blocks
    partitions = []
    for p in range(vcuts.size + 1):
        pieces = [dask_client.submit(operator.getitem, b, p) for b in bucketed]
        partitions.append(dask_client.submit(_concat_sort, *pieces))
    del bucketed
    sizes = np.array(dask_client.gather([dask_client.submit(len, f) for f in partitions]),
                     dtype=np.int64)
    if int(sizes.sum()) != n:  # pragma: no cover - a lost record would be a bug here
        raise RuntimeError(f"partitioned read lost records: {int(sizes.sum())} != {n}")
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    x = np.empty(n, dtype=np.float64)
    for f, off, m in zip(partitions, offsets.tolist(), sizes.tolist(), strict=True):
        x[off:off + m] = f.result()
    return SortedColumn(x, partitions, sizes, offsets, len(cuts) - 1, layout)
