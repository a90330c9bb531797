"""Which randomness a per-call mechanism ``f(data)`` without a randomness argument uses.

:func:`probe_randomness` calls ``f`` three times on one data set: after seeding Python's
:mod:`random` and numpy's legacy global state with ``s``, again after the same seeding, and
once more without re-seeding.  Equal first two outputs and a different third mean ``f``
draws from those global states (``"global"``: dpaudit can seed it, the run is reproducible);
different first two mean it draws from a source dpaudit cannot seed (``"none"``, e.g. an OS
CSPRNG); all three equal means ``f`` returned the same value three times (``"constant"``:
no visible noise on this data set).  Three calls; exact comparison of the outputs.  The
global states are restored afterwards.

Nothing here prints or writes files.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["probe_randomness"]


def _same(a: Any, b: Any) -> bool:
    x, y = np.asarray(a), np.asarray(b)
    return x.shape == y.shape and bool(np.all((x == y) | (x != x) & (y != y)))


def probe_randomness(f: Callable[[Any], Any], data: Any, seed: int = 12345) -> str:
    """``"global"``, ``"none"`` or ``"constant"`` (module docstring)."""
    py_state, np_state = random.getstate(), np.random.get_state()  # noqa: NPY002
    try:
        random.seed(seed)
        np.random.seed(seed)  # noqa: NPY002 - the legacy global state is what is probed
        y1 = f(data)
        random.seed(seed)
        np.random.seed(seed)  # noqa: NPY002
        y2 = f(data)
        y3 = f(data)
    finally:
        random.setstate(py_state)
        np.random.set_state(np_state)  # noqa: NPY002
    if not _same(y1, y2):
        return "none"
    return "constant" if _same(y1, y3) else "global"
