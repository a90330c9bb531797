"""Scalar features of a vector output, for events on functions of several columns: counts
of columns in a state, counts of columns (or of consecutive-column differences) above
per-column cut points, the sum of the continuous entries, the Hamming distance of the
row's state vector to a reference row, and a linear score of the state indicators and
continuous values.

Every feature is a fixed function of one output row given its parameters (codes, reference
row, weights), so an event {feature(y) > t} chosen on selection data is a fixed
post-processing at certification time and its counts are plain binomials.

States.  Each entry y[c] is in one of the states 0 = absent (NaN), 1..k = one of the
``codes`` (discrete values such as 0, 1, -1000 "aborted", +-inf, given in order), k + 1 =
"other" (any other value: the continuous part).  The learned score follows DP-Sniper
(Bichsel et al. 2021): a classifier of "which data set produced this output", thresholded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["FEATURE_KINDS", "Feature", "column_differences", "states"]

#: ``count-state`` (# columns in state ``a``), ``count-gt`` (# columns with a finite value
#: > ``a``), ``count-gt-each`` (# columns c with a finite y[c] > ``weights[c]``),
#: ``count-diff-gt-each`` (the same on the differences y[c] - y[c-1], y[-1] = 0), ``sum``
#: (sum of the "other" entries), ``hamming`` (# columns whose state differs from ``ref``),
#: ``linear`` (``weights`` . [state indicators, "other" values])
FEATURE_KINDS = ("count-state", "count-gt", "count-gt-each", "count-diff-gt-each", "sum",
                 "hamming", "linear")


def column_differences(y: np.ndarray) -> np.ndarray:
    """y[:, c] - y[:, c - 1] for c >= 1 and y[:, 0] itself: the increments of a cumulative
    output (prefix sums, running counts), NaN where either entry is NaN."""
    out = np.array(y, dtype=np.float64, copy=True)
    with np.errstate(invalid="ignore"):
        out[:, 1:] = y[:, 1:] - y[:, :-1]
    return out


def states(y: np.ndarray, codes: tuple[float, ...]) -> np.ndarray:
    """State of each entry of ``y`` (n, d): 0 absent, 1..k the codes, k + 1 other (int8)."""
    st = np.full(y.shape, len(codes) + 1, dtype=np.int16)
    st[np.isnan(y)] = 0
    for i, v in enumerate(codes):
        st[y == v] = i + 1
    return st


def other_values(y: np.ndarray, st: np.ndarray, n_codes: int) -> np.ndarray:
    """The entries in the "other" state, 0 elsewhere (float64)."""
    return np.where(st == n_codes + 1, y, 0.0)


def design(y: np.ndarray, codes: tuple[float, ...]) -> np.ndarray:
    """The linear score's inputs: for each column, the indicators of states 0..k and the
    "other" value (0 when not in that state): (n, d (k + 2)) float64."""
    st = states(y, codes)
    k = len(codes)
    n, d = y.shape
    cols = [(st == s).astype(np.float64) for s in range(k + 1)]
    cols.append(other_values(y, st, k))
    return np.stack(cols, axis=2).reshape(n, d * (k + 2))


def _fmt(v: float) -> str:
    return "absent" if math.isnan(v) else f"{v:g}"


@dataclass(frozen=True)
class Feature:
    """A scalar function of one output row (module docstring); ``codes`` fixes the states."""

    kind: str
    codes: tuple[float, ...] = ()
    a: float = math.nan
    ref: tuple[int, ...] = ()
    weights: tuple[float, ...] = ()

    def apply(self, y: np.ndarray) -> np.ndarray:
        """The feature of each row of ``y`` (n, d), float64."""
        k = self.kind
        if k == "count-gt":
            with np.errstate(invalid="ignore"):
                return np.sum(np.isfinite(y) & (y > self.a), axis=1).astype(np.float64)
        if k == "linear":
            return design(y, self.codes) @ np.asarray(self.weights, dtype=np.float64)
        if k in ("count-gt-each", "count-diff-gt-each"):
            v = column_differences(y) if k == "count-diff-gt-each" else y
            cut = np.asarray(self.weights, dtype=np.float64)[None, :]
            with np.errstate(invalid="ignore"):
                return np.sum(np.isfinite(v) & (v > cut), axis=1).astype(np.float64)
        st = states(y, self.codes)
        if k == "count-state":
            return np.sum(st == int(self.a), axis=1).astype(np.float64)
        if k == "sum":
            with np.errstate(invalid="ignore"):
                return np.sum(other_values(y, st, len(self.codes)), axis=1)
        if k == "hamming":
            return np.sum(st != np.asarray(self.ref, dtype=np.int16)[None, :],
                          axis=1).astype(np.float64)
        raise ValueError(f"unknown feature kind {k!r}")  # pragma: no cover

    def state_name(self, s: int) -> str:
        if s == 0:
            return "absent (NaN)"
        if s <= len(self.codes):
            return f"== {self.codes[s - 1]!r}"
        return "some other value"

    def describe(self) -> str:
        """The feature in plain words."""
        k = self.kind
        if k == "count-gt":
            return f"the number of output columns > {self.a:g}"
        if k == "count-state":
            return f"the number of output columns {self.state_name(int(self.a))}"
        if k == "count-gt-each":
            return ("the number of output columns c with y[c] > cut[c], "
                    f"cut = {list(self.weights)!r}")
        if k == "count-diff-gt-each":
            return ("the number of columns c whose increment y[c] - y[c-1] (y[-1] = 0) is > "
                    f"cut[c], cut = {list(self.weights)!r}")
        if k == "sum":
            return ("the sum of the output columns' continuous entries (entries equal to "
                    f"{[_fmt(c) for c in self.codes]} or absent count 0)")
        if k == "hamming":
            ref = ", ".join(self.state_name(s) for s in self.ref)
            return f"the number of output columns whose state differs from ({ref})"
        return (f"a fixed linear score of the output (weights {list(self.weights)!r} on each "
                f"column's state indicators [absent, == each of {list(self.codes)!r}] and "
                "its other value)")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "codes": list(self.codes)}
        if not math.isnan(self.a):
            out["a"] = self.a
        if self.ref:
            out["ref"] = list(self.ref)
        if self.weights:
            out["weights"] = list(self.weights)
        return out

    @classmethod
    def from_dict(cls, spec: dict[str, Any]) -> Feature:
        return cls(str(spec["kind"]), tuple(float(c) for c in spec.get("codes", [])),
                   float(spec.get("a", math.nan)),
                   tuple(int(s) for s in spec.get("ref", [])),
                   tuple(float(w) for w in spec.get("weights", [])))
