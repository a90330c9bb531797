"""A finite set of joint output patterns of some columns: the base condition of a
``"union"`` event ("the output's pattern is one of these"), with its exact indicator, a
plain-words description and a JSON form that rebuilds it.

States.  Column ``columns[j]`` with listed values ``levels[j]`` (non-NaN, in the given
order) puts each entry in one state: 0 = absent (NaN), i + 1 = equal to ``levels[j][i]``,
len(levels[j]) + 1 = any other value.  A pattern is a tuple of states, one per column; a
row is in the set iff its state tuple is one of ``states``.  The indicator compares state
tuples through an exact mixed-radix integer code (radix len(levels[j]) + 2 per column), so
it involves no hashing and no float tolerance: membership is decided exactly.  Sets whose
code space exceeds 2^62 are refused (:data:`MAX_CODE_SPACE`), and a set holds at most
:data:`MAX_SET_PATTERNS` patterns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernels.errors import InvalidParameterError

__all__ = ["MAX_CODE_SPACE", "MAX_SET_PATTERNS", "PatternSet", "code_radices",
           "state_codes"]

#: the largest mixed-radix code space a pattern set may use (codes fit in int64)
MAX_CODE_SPACE = 2**62
#: the most patterns one set may hold (keeps events small in reports and witnesses)
MAX_SET_PATTERNS = 256


def code_radices(levels: tuple[tuple[float, ...], ...]) -> tuple[int, ...] | None:
    """The radix of each column (len(levels) + 2), or None if their product exceeds
    :data:`MAX_CODE_SPACE`."""
    radices = tuple(len(lv) + 2 for lv in levels)
    return radices if math.prod(radices) <= MAX_CODE_SPACE else None


def state_codes(y: np.ndarray, columns: tuple[int, ...],
                levels: tuple[tuple[float, ...], ...]) -> np.ndarray:
    """The exact mixed-radix code (int64) of each row's state tuple on ``columns`` (module
    docstring); the caller checks :func:`code_radices` first."""
    code = np.zeros(y.shape[0], dtype=np.int64)
    for c, lv in zip(columns, levels, strict=True):
        col = y[:, c]
        st = np.full(col.shape, len(lv) + 1, dtype=np.int64)
        st[np.isnan(col)] = 0
        for i, v in enumerate(lv):
            st[col == v] = i + 1
        code = code * (len(lv) + 2) + st
    return code


def _fmt_state(s: int, lv: tuple[float, ...]) -> str:
    if s == 0:
        return "absent"
    if s <= len(lv):
        return repr(lv[s - 1])
    return "other"


@dataclass(frozen=True)
class PatternSet:
    """A set of state tuples on ``columns`` (module docstring); ``states`` is sorted and
    duplicate-free (the constructor checks)."""

    columns: tuple[int, ...]
    levels: tuple[tuple[float, ...], ...]
    states: tuple[tuple[int, ...], ...]

    def __post_init__(self) -> None:
        if len(self.levels) != len(self.columns) or not self.columns:
            raise InvalidParameterError(
                f"a pattern set needs one level list per column, got {len(self.columns)} "
                f"columns and {len(self.levels)} level lists")
        if code_radices(self.levels) is None:
            raise InvalidParameterError(
                f"pattern set on {len(self.columns)} columns: state space exceeds 2^62")
        if not 1 <= len(self.states) <= MAX_SET_PATTERNS:
            raise InvalidParameterError(
                f"a pattern set holds 1..{MAX_SET_PATTERNS} patterns, got {len(self.states)}")
        for s in self.states:
            if len(s) != len(self.columns) or any(
                    not 0 <= v <= len(lv) + 1 for v, lv in zip(s, self.levels, strict=True)):
                raise InvalidParameterError(f"pattern {s!r} does not fit the columns' states")
        if list(self.states) != sorted(set(self.states)):
            raise InvalidParameterError("pattern set states must be sorted and distinct")

    @classmethod
    def build(cls, columns: tuple[int, ...], levels: tuple[tuple[float, ...], ...],
              states: list[tuple[int, ...]]) -> PatternSet:
        """The set of ``states`` (any order, duplicates merged)."""
        return cls(tuple(columns), tuple(tuple(float(v) for v in lv) for lv in levels),
                   tuple(sorted({tuple(int(v) for v in s) for s in states})))

    def codes(self) -> np.ndarray:
        """The sorted mixed-radix codes of the set's patterns."""
        out = []
        for s in self.states:
            code = 0
            for v, lv in zip(s, self.levels, strict=True):
                code = code * (len(lv) + 2) + v
            out.append(code)
        return np.array(sorted(out), dtype=np.int64)

    def mask(self, y: np.ndarray) -> np.ndarray:
        """Exact indicator of "the row's pattern is in the set" on outputs ``y`` (n, d)."""
        return self.member(state_codes(y, self.columns, self.levels))

    def member(self, code: np.ndarray) -> np.ndarray:
        """Exact indicator of membership for rows whose :func:`state_codes` on this set's
        columns and levels are ``code`` (lets callers share the codes between sets)."""
        keys = self.codes()
        pos = np.minimum(np.searchsorted(keys, code), keys.size - 1)
        return keys[pos] == code

    def describe(self, d: int) -> str:
        """The set in plain words (``d`` = number of output columns)."""
        cols = ("the output" if d == 1 else
                "(" + ", ".join(f"output[{c}]" for c in self.columns) + ")")
        shown = [("(" + ", ".join(_fmt_state(v, lv) for v, lv in
                                  zip(s, self.levels, strict=True)) + ")")
                 for s in self.states[:8]]
        more = f" and {len(self.states) - 8} more" if len(self.states) > 8 else ""
        what = "is" if len(self.states) == 1 else f"is one of {len(self.states)} patterns:"
        return f"{cols} {what} {', '.join(shown)}{more} (\"other\": any unlisted value)"

    def to_dict(self) -> dict[str, Any]:
        return {"columns": list(self.columns), "levels": [list(lv) for lv in self.levels],
                "states": [list(s) for s in self.states]}

    @classmethod
    def from_dict(cls, spec: dict[str, Any]) -> PatternSet:
        return cls.build(tuple(int(c) for c in spec["columns"]),
                         tuple(tuple(float(v) for v in lv) for lv in spec["levels"]),
                         [tuple(int(v) for v in s) for s in spec["states"]])
