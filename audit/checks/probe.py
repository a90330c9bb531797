"""Scripted randomness for kernel checks: a ``numpy.random.Generator`` whose draws are chosen.

A sampler that adds ``scale * Z`` (``Z`` a standard Laplace / normal / exponential draw)
reveals the scale it really uses when fed ``Z = 1`` (and its location with ``Z = 0``),
however it spells the draw (``rng.laplace(0, b)`` or ``b * rng.laplace(0, 1)``).
:class:`ScriptedGenerator` returns ``loc + scale * z`` for every location-scale draw (a
scripted ``z`` per call) and ``u`` for every uniform draw, so a check can measure a
mechanism's noise scale exactly and compute its privacy loss in closed form.  Any other
draw raises ``NotImplementedError`` (the sampler left the protocol's documented draws).
It is a real ``Generator`` subclass, so kernels that validate their ``rng`` accept it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["ScriptedGenerator"]


class ScriptedGenerator(np.random.Generator):
    """Every location-scale draw is ``loc + scale * z``; every uniform draw is ``u``.

    ``z`` may be a sequence: the i-th location-scale *call* uses ``z[i]`` (the last value
    repeats), so the noises of a sampler's successive blocks can be told apart."""

    def __init__(self, z: float | Sequence[float] = 0.0, u: float = 0.5) -> None:
        super().__init__(np.random.PCG64(0))
        self.zs = [float(v) for v in (z if isinstance(z, Sequence) else [z])]
        self.calls = 0
        self.u = float(u)

    def _ls(self, loc: Any, scale: Any, size: Any) -> Any:
        z = self.zs[min(self.calls, len(self.zs) - 1)]
        self.calls += 1
        shape = np.broadcast_shapes(np.shape(loc), np.shape(scale)) if size is None else size
        out = np.asarray(loc, dtype=np.float64) + np.asarray(scale, dtype=np.float64) * np.full(
            shape, z)
        return float(out) if size is None and np.ndim(out) == 0 else out

    def laplace(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
        return self._ls(loc, scale, size)

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
        return self._ls(loc, scale, size)

    def random(self, size: Any = None, dtype: Any = np.float64, out: Any = None) -> Any:
        return self.u if size is None else np.full(size, self.u)

    def __getattribute__(self, name: str) -> Any:
        allowed = {"laplace", "normal", "random", "zs", "calls", "u", "_ls"}
        if name in allowed or name.startswith("__"):
            return super().__getattribute__(name)
        raise NotImplementedError(f"ScriptedGenerator scripts laplace, normal and random only "
                                  f"(the sampler called {name!r})")
