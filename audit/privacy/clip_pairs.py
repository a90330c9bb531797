"""Neighbours for a mechanism that clips its records: records beyond the clipping bounds.

A mechanism that clips (clamps) every record to ``[L, U]`` before computing accepts any
float: its privacy claim is stated for the clipped records, so the neighbour search must
also put records *beyond* the bounds.  A correct clipper's output then moves exactly as if
the record had moved to the bound; a library that clips a copy but computes on the raw
records (SmartNoise synth 1.0.5's ``DPcovariance.release``: ``censor_data`` on a copy, the
covariance on the original frame; smartnoise-sdk issue 622, fixed in PR 624) moves by the
square of the excess and is flagged.

* :func:`clips_of` — whether the mechanism clips: the caller's flag, else the object's
  ``clips`` attribute (a library fact an adapter states), else False;
* :func:`beyond_rows` — rows to put into a table: the table's first row with every numeric
  cell just beyond / far beyond each bound
  (:func:`audit.privacy.neighbour_search.beyond_bounds`).

The one-column families (constant data sets beyond a bound, the user's records with one
moved beyond a bound) live in :mod:`audit.privacy.neighbour_search` (``clip``).  Nothing
here prints or writes files.
"""

from __future__ import annotations

from typing import Any

from audit.privacy.neighbour_search import beyond_bounds
from kernels.errors import InvalidParameterError

__all__ = ["beyond_rows", "clips_of"]


def clips_of(mechanism: Any, clips: bool | None = None) -> bool:
    """The caller's ``clips`` when given (True / False), else the object's ``clips``
    attribute, else False.  A non-boolean value is an error naming it."""
    if clips is None:
        clips = getattr(mechanism, "clips", False)
    if not isinstance(clips, bool):
        raise InvalidParameterError(f"must be True or False, got {clips!r}", param="clips")
    return clips


def beyond_rows(table: Any, lower: float | None, upper: float | None) -> list[list[Any]]:
    """The table's first row with every numeric (float) cell set to each value of
    :func:`~audit.privacy.neighbour_search.beyond_bounds` (categorical cells kept): rows a
    clipping mechanism must treat as rows at the bounds.  Empty without both bounds."""
    if lower is None or upper is None:
        return []
    first = table.rows[0].tolist()
    return [[float(b) if isinstance(c, float) else c for c in first]
            for b in beyond_bounds(lower, upper)]
