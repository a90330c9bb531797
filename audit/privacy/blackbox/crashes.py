"""Mechanism failures as results: the exception a mechanism raised (or its malformed
output), recorded with the data set and the generator state before the failing call, so
that the run goes on with the other pairs and the crash can be replayed.

An :class:`kernels.errors.InputError` from a mechanism means "not in my domain" and is not a
crash (the tester skips that pair); anything else is.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from audit.protocols import NeighbourPair
from kernels.errors import InputError

__all__ = ["MechanismCrash", "as_crash", "crash_entry", "jsonable_dataset"]


class MechanismCrash(Exception):
    """The mechanism raised (or returned malformed output) on a data set.

    ``record`` is a JSON-able dict: the data set, the call's ``size``, the exception type,
    message and the last traceback lines, and the generator state before the call."""

    def __init__(self, record: dict[str, Any]) -> None:
        super().__init__(f"{record.get('exception')}: {record.get('message')}")
        self.record = record


def jsonable_dataset(dataset: Any) -> Any:
    """The data set as plain JSON values (lists of floats), or its repr when it is not
    array-like."""
    try:
        arr = np.asarray(dataset)
        if arr.dtype.kind in "biuf":
            return arr.tolist()
    except Exception:  # noqa: BLE001 - any object: fall back to its repr
        pass
    return repr(dataset)[:2000]


def as_crash(exc: InputError, pair: NeighbourPair, rng: np.random.Generator) -> MechanismCrash:
    """A domain error on a data set the mechanism accepted before (a random rejection): a
    crash like any other."""
    return MechanismCrash({"dataset": None, "size": None, "exception": type(exc).__name__,
                           "message": f"rejected a data set it had accepted before: {exc}",
                           "traceback": "", "rng_state": None})


def crash_entry(exc: MechanismCrash, idx: int, pair: NeighbourPair, stage: str
                ) -> dict[str, Any]:
    """The crash as a ``details["crashes"]`` entry: pair index, change, stage and which data
    set of the pair (``"first"``, ``"second"`` or ``"?"``) failed."""
    rec = dict(exc.record)
    if rec.get("dataset") is None:
        rec["dataset"] = jsonable_dataset(pair.first)
    ds = rec["dataset"]
    which = ("first" if ds == jsonable_dataset(pair.first) else
             "second" if ds == jsonable_dataset(pair.second) else "?")
    return {"pair_index": idx, "change": dict(pair.change), "stage": stage,
            "which": which, **rec}

