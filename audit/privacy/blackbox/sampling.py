"""Drawing a mechanism's outputs for the black-box tester: shape checks, chunked draws in
the order a replay repeats, and event counts (one sequential stream, or per-chunk streams
that give the same integers in this process and on a Dask cluster).

A mechanism's :class:`kernels.errors.InputError` passes through (the data set is outside its
domain); any other exception, or malformed output, becomes a
:class:`~audit.privacy.blackbox.crashes.MechanismCrash` carrying the data set and the
generator state before the call.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from audit.distributed import count_events
from audit.privacy.blackbox.crashes import MechanismCrash, jsonable_dataset
from audit.privacy.blackbox.events import Event, count_on
from audit.protocols import Mechanism
from kernels.errors import InputError

__all__ = ["count", "draw", "draw_chunked", "rng_record"]


def rng_record(rng: np.random.Generator) -> dict[str, Any]:
    """The generator's type, state and seed (entropy, spawn key) as JSON-able values."""
    bg = rng.bit_generator
    rec: dict[str, Any] = {"bit_generator": type(bg).__name__, "state": bg.state}
    seq = getattr(bg, "seed_seq", None)
    if seq is not None and hasattr(seq, "entropy"):
        rec["seed_entropy"] = seq.entropy
        rec["spawn_key"] = list(getattr(seq, "spawn_key", ()))
    return rec


def draw(mechanism: Mechanism, dataset: Any, size: int, rng: np.random.Generator,
         d: int | None) -> np.ndarray:
    """``size`` outputs as a (size, d) float64 array (module docstring for failures)."""
    state = rng.bit_generator.state
    try:
        y = np.asarray(mechanism.sample(dataset, size, rng))
        if y.dtype.kind not in "biuf":
            raise TypeError(
                f"{mechanism.name}.sample must return real numbers, got dtype {y.dtype}")
        if y.ndim == 1:
            y = y.reshape(-1, 1)
        if y.ndim != 2 or y.shape[0] != size:
            raise ValueError(
                f"{mechanism.name}.sample(dataset, {size}, rng) must return shape ({size},)"
                f" or ({size}, d), got {np.shape(y)}")
        if d is not None and y.shape[1] != d:
            raise ValueError(
                f"{mechanism.name}.sample returned {y.shape[1]} columns, expected {d} "
                "(the output dimension must not depend on the data set)")
        return np.asarray(y, dtype=np.float64)
    except InputError:
        raise
    except Exception as exc:  # the mechanism's own failure: a result, not an abort
        tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
        raise MechanismCrash({
            "dataset": jsonable_dataset(dataset),
            "size": int(size),
            "exception": type(exc).__name__,
            "message": str(exc),
            "traceback": "".join(tb[-3:]).strip(),
            "rng_state": state,
        }) from exc


def draw_chunked(mechanism: Mechanism, dataset: Any, n: int, rng: np.random.Generator,
                 d: int | None, chunk_size: int,
                 tick: Callable[[int], None] | None = None) -> np.ndarray:
    """``n`` outputs drawn in calls of at most ``chunk_size`` (the order a replay uses)."""
    parts: list[np.ndarray] = []
    done = 0
    while done < n:
        m = min(chunk_size, n - done)
        y = draw(mechanism, dataset, m, rng, d)
        d = y.shape[1]
        parts.append(y)
        done += m
        if tick is not None:
            tick(m)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def count(mechanism: Mechanism, dataset: Any, events: Sequence[Event], n: int,
          rng: np.random.Generator, d: int, chunk_size: int, *, streams: bool = False,
          dask_client: Any = None, tick: Callable[[int], None] | None = None) -> np.ndarray:
    """How many of ``n`` fresh outputs fall in each event.

    ``streams`` (or a ``dask_client``): through :func:`audit.distributed.count_events`, chunk
    i of the n draws with its own generator SeedSequence(entropy, spawn_key=(i,)), the
    entropy drawn from ``rng``; a mechanism may offer ``counting_sampler(dataset) ->
    (sample, data)``, a cheaper picklable sampler with the same law, used for these counts.
    Otherwise one sequential stream from ``rng`` in calls of at most ``chunk_size``."""
    if streams or dask_client is not None:
        return _count_streams(mechanism, dataset, events, n, rng, chunk_size, dask_client,
                              tick)
    counts = np.zeros(len(events), dtype=np.int64)
    done = 0
    while done < n:
        m = min(chunk_size, n - done)
        counts += count_on(events, draw(mechanism, dataset, m, rng, d))
        done += m
        if tick is not None:
            tick(m)
    return counts


def _count_streams(mechanism: Mechanism, dataset: Any, events: Sequence[Event], n: int,
                   rng: np.random.Generator, chunk_size: int, dask_client: Any,
                   tick: Callable[[int], None] | None) -> np.ndarray:
    entropy = int(rng.integers(0, 2**63))
    if hasattr(mechanism, "counting_sampler"):
        sample, data = mechanism.counting_sampler(dataset)
    else:
        sample, data = mechanism.sample, dataset
    counts = count_events(sample, data, [e.mask for e in events], n, entropy=entropy,
                          chunk=chunk_size, dask_client=dask_client)
    if tick is not None:
        tick(n)
    return counts
