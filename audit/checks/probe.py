"""Scripted randomness for kernel checks: a ``numpy.random.Generator`` whose draws are chosen.

A sampler that adds ``scale * Z`` (``Z`` a standard Laplace / normal / exponential draw)
reveals the scale it really uses when fed ``Z = 1`` (and its location with ``Z = 0``),
however it spells the draw (``rng.laplace(0, b)`` or ``b * rng.laplace(0, 1)``).
:class:`ScriptedGenerator` returns ``loc + scale * z`` for every location-scale draw (a
scripted ``z`` per call) and ``u`` for every uniform draw, so a check can measure a
mechanism's noise scale exactly and compute its privacy loss in closed form.  A discrete
``choice(a, size, p=...)`` takes the next scripted uniform too and returns the inverse cdf
of ``p`` at it (index min{i : u * sum(p) < cdf_i}: ``u = 0`` gives the first outcome of
positive probability, ``u = 1`` the last), so a sampler's draw from a finite law can be
steered.  Any other draw raises ``NotImplementedError`` (the sampler left the protocol's
documented draws).
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
    repeats), so the noises of a sampler's successive blocks can be told apart.  ``u`` may
    be a sequence likewise: the i-th uniform call (``random`` or ``choice``) uses ``u[i]``
    (the last value repeats)."""

    def __init__(self, z: float | Sequence[float] = 0.0,
                 u: float | Sequence[float] = 0.5) -> None:
        super().__init__(np.random.PCG64(0))
        self.zs = [float(v) for v in (z if isinstance(z, Sequence) else [z])]
        self.calls = 0
        self.us = [float(v) for v in (u if isinstance(u, Sequence) else [u])]
        self.u_calls = 0
        self.u = self.us[0]

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

    def _next_u(self) -> float:
        v = self.us[min(self.u_calls, len(self.us) - 1)]
        self.u_calls += 1
        return v

    def random(self, size: Any = None, dtype: Any = np.float64, out: Any = None) -> Any:
        v = self._next_u()
        return v if size is None else np.full(size, v)

    def choice(self, a: Any, size: Any = None, replace: bool = True, p: Any = None,
               axis: int = 0, shuffle: bool = True) -> Any:
        """The inverse cdf of ``p`` (uniform when None) at the next scripted uniform."""
        items = np.arange(int(a)) if np.ndim(a) == 0 else np.asarray(a)
        w = np.ones(len(items)) if p is None else np.asarray(p, dtype=np.float64)
        cdf = np.cumsum(w)
        i = min(int(np.searchsorted(cdf, self._next_u() * cdf[-1], "right")), len(items) - 1)
        return items[i] if size is None else np.full(size, items[i])

    def __getattribute__(self, name: str) -> Any:
        allowed = {"laplace", "normal", "random", "choice", "zs", "calls", "u", "us",
                   "u_calls", "_next_u", "_ls"}
        if name in allowed or name.startswith("__"):
            return super().__getattribute__(name)
        raise NotImplementedError(f"ScriptedGenerator scripts laplace, normal and random only "
                                  f"(the sampler called {name!r})")
