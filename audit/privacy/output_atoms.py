"""Atoms in sampled outputs: a point mass (zero noise) named as such.

A DP mechanism with continuous noise almost never repeats an output; a value drawn many
times is an atom of the output law, and a data set under which *every* draw is the same
value gets no noise at all (e.g. a neighbour on which a clamp or a zero sensitivity removes
the noise).  :func:`atoms` lists values drawn at least ``min_count`` times;
:func:`point_mass_sentence` says "under D' the output is a point mass at v: zero noise"
when all draws of a data set coincide.

Nothing here prints or writes files.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["atoms", "point_mass", "point_mass_sentence"]


def _rows(y: Any) -> np.ndarray:
    a = np.asarray(y)
    return a.reshape(len(a), -1) if a.ndim > 1 else a.reshape(-1, 1)


def atoms(y: Any, min_count: int = 3) -> list[tuple[Any, int]]:
    """Output values (rows for vector outputs) drawn at least ``min_count`` times, most
    frequent first, with their counts."""
    rows = _rows(y)
    if rows.size == 0:
        return []
    vals, counts = np.unique(rows, axis=0, return_counts=True)
    order = np.argsort(-counts, kind="stable")
    out = []
    for i in order:
        if counts[i] < min_count:
            break
        v = vals[i]
        out.append((v.item() if v.size == 1 else v.tolist(), int(counts[i])))
    return out


def point_mass(y: Any) -> Any | None:
    """The single value of ``y`` when there are >= 2 draws and all are identical, else None."""
    rows = _rows(y)
    if rows.shape[0] < 2:
        return None
    if np.all(rows == rows[0]) or (rows.dtype.kind == "f" and np.all(
            (rows == rows[0]) | (np.isnan(rows) & np.isnan(rows[0])))):
        v = rows[0]
        return v.item() if v.size == 1 else v.tolist()
    return None


def point_mass_sentence(first: Any, second: Any) -> str | None:
    """"under D' the output is a point mass at v: zero noise" (or D, or both), else None."""
    pa, pb = point_mass(first), point_mass(second)
    parts = []
    if pa is not None:
        parts.append(f"under D the output is a point mass at {pa!r}: zero noise")
    if pb is not None:
        parts.append(f"under D' the output is a point mass at {pb!r}: zero noise")
    return "; ".join(parts) if parts else None
