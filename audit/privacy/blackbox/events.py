"""Output events of the black-box tester: a condition on one output column (threshold,
interval, equality, absent/present, float64 bit pattern, float32 representability) or on
the joint pattern of several columns (membership in a finite set of patterns,
:class:`~audit.privacy.blackbox.pattern_sets.PatternSet`) AND an optional pattern of
discrete columns, with its indicator on a sample, a plain-words
description and a JSON form that rebuilds it.

The float64 bit events follow Mironov (2012), "On significance of the least significant
bits for differential privacy"; ``README.md`` beside this module shows what they find.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from audit.privacy.blackbox.features import Feature
from audit.privacy.blackbox.pattern_sets import PatternSet, state_codes
from kernels.errors import InvalidParameterError

__all__ = ["Event", "bits_mask", "count_on", "f32_representable", "float_fields"]


def _fmt(x: float) -> str:
    return f"{x:.6g}" if abs(x) < 1e6 or x == 0 else f"{x:.17g}"


@dataclass(frozen=True)
class Event:
    """An output event: a base condition on one column, AND an optional discrete pattern.

    ``kind``: ``"gt"`` (y[c] > a), ``"lt"`` (y[c] < a), ``"in"`` (a < y[c] <= b), ``"eq"``
    (y[c] == a), ``"absent"`` / ``"present"`` (y[c] is / is not NaN), ``"all"`` (no base
    condition: the pattern alone), ``"bits"`` (float64 encoding of y[c]: ``bits`` = (sign,
    biased exponent or -1 for any, k, last k mantissa bits)), ``"f32"`` / ``"not-f32"`` (y[c]
    finite and (not) exactly representable in float32), ``"union"`` (the row's joint
    pattern on ``patterns.columns`` is one of the set ``patterns``: a union of pattern
    events, exact membership).  ``pattern``: conditions
    ``(column, "eq" | "absent" | "present", value)`` that must hold as well.
    """

    kind: str
    column: int = 0
    a: float = math.nan
    b: float = math.nan
    bits: tuple[int, int, int, int] = (0, -1, 0, 0)
    pattern: tuple[tuple[int, str, float], ...] = ()
    family: str = field(default="threshold", compare=False)
    #: the base condition applies to this scalar feature of the row instead of y[c]
    feature: Feature | None = None
    #: the set of joint patterns of a ``"union"`` event
    patterns: PatternSet | None = None

    def mask(self, y: np.ndarray) -> np.ndarray:
        """Boolean indicator of the event on outputs ``y`` of shape (size, d)."""
        k = self.kind
        if k == "union":
            if self.patterns is None:  # pragma: no cover - constructed internally only
                raise InvalidParameterError("a union event needs its pattern set")
            return self._and_pattern(y, self.patterns.mask(y))
        col = y[:, self.column] if self.feature is None else self.feature.apply(y)
        if k == "gt":
            m = col > self.a
        elif k == "lt":
            m = col < self.a
        elif k == "in":
            m = (col > self.a) & (col <= self.b)
        elif k == "eq":
            m = col == self.a
        elif k == "absent":
            m = np.isnan(col)
        elif k == "present":
            m = ~np.isnan(col)
        elif k == "all":
            m = np.ones(col.shape, dtype=bool)
        elif k == "bits":
            m = bits_mask(col, *self.bits)
        elif k in ("f32", "not-f32"):
            rep = f32_representable(col)
            m = rep if k == "f32" else (np.isfinite(col) & ~rep)
        else:  # pragma: no cover - constructed internally only
            raise InvalidParameterError(f"unknown event kind {k!r}")
        return self._and_pattern(y, m)

    def _and_pattern(self, y: np.ndarray, m: np.ndarray) -> np.ndarray:
        for c, op, v in self.pattern:
            pc = y[:, c]
            if op == "absent":
                m = m & np.isnan(pc)
            elif op == "present":
                m = m & ~np.isnan(pc)
            else:
                m = m & (pc == v)
        return m

    def describe(self, d: int = 1) -> str:
        """The event in plain words (``d`` = number of output columns)."""
        def name(c: int) -> str:
            return "the output" if d == 1 else f"output[{c}]"

        y = name(self.column) if self.feature is None else f"({self.feature.describe()})"
        k = self.kind
        if k == "gt":
            base = f"{y} > {_fmt(self.a)}"
        elif k == "lt":
            base = f"{y} < {_fmt(self.a)}"
        elif k == "in":
            base = f"{_fmt(self.a)} < {y} <= {_fmt(self.b)}"
        elif k == "eq":
            base = f"{y} == {self.a!r}"
        elif k == "absent":
            base = f"{y} is absent (NaN)"
        elif k == "present":
            base = f"{y} is present (not NaN)"
        elif k == "all":
            base = ""
        elif k == "bits":
            sign, expo, nbits, pat = self.bits
            where = ""
            if expo >= 0:
                lo = 0.0 if expo == 0 else math.ldexp(1.0, expo - 1023)
                hi = math.ldexp(1.0, max(expo, 1) - 1022)
                span = f"[{lo!r}, {hi!r})" if not sign else f"(-{hi!r}, -{lo!r}]"
                where = f"{y} lies in the binade {span} and "
            else:
                where = f"{y} is finite and "
            what = ("the last mantissa bit of its float64 encoding is"
                    if nbits == 1 else
                    f"the last {nbits} mantissa bits of its float64 encoding are")
            base = f"{where}{what} {pat:0{nbits}b}"
        elif k == "f32":
            base = f"{y} is exactly representable as a float32"
        elif k == "union" and self.patterns is not None:
            base = self.patterns.describe(d)
        else:
            base = f"{y} is finite and not exactly representable as a float32"
        conds = []
        for c, op, v in self.pattern:
            if op == "absent":
                conds.append(f"{name(c)} is absent (NaN)")
            elif op == "present":
                conds.append(f"{name(c)} is present")
            else:
                conds.append(f"{name(c)} == {v!r}")
        parts = ([base] if base else []) + conds
        return " and ".join(parts) if parts else "any output"

    @classmethod
    def from_dict(cls, spec: dict[str, Any]) -> Event:
        """Rebuild an event from :meth:`to_dict` output (replayers)."""
        bits = spec.get("bits")
        bt = (0, -1, 0, 0) if not bits else (int(bits["sign"]), int(bits["biased_exponent"]),
                                             int(bits["k"]), int(bits["pattern"]))
        pattern = tuple((int(c), str(op), float(v)) for c, op, v in spec.get("pattern", []))
        return cls(str(spec["kind"]), int(spec.get("column", 0)), float(spec.get("a", math.nan)),
                   float(spec.get("b", math.nan)), bt, pattern,
                   str(spec.get("family", "threshold")),
                   Feature.from_dict(spec["feature"]) if spec.get("feature") else None,
                   PatternSet.from_dict(spec["patterns"]) if spec.get("patterns") else None)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able description (enough to rebuild the event)."""
        out: dict[str, Any] = {"kind": self.kind, "column": self.column, "family": self.family}
        if not math.isnan(self.a):
            out["a"] = self.a
        if not math.isnan(self.b):
            out["b"] = self.b
        if self.kind == "bits":
            out["bits"] = {"sign": self.bits[0], "biased_exponent": self.bits[1],
                           "k": self.bits[2], "pattern": self.bits[3]}
        if self.pattern:
            out["pattern"] = [[c, op, v] for c, op, v in self.pattern]
        if self.feature is not None:
            out["feature"] = self.feature.to_dict()
        if self.patterns is not None:
            out["patterns"] = self.patterns.to_dict()
        return out


def float_fields(col: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(finite mask, sign bit, biased exponent, raw bits) of a float64 column."""
    c = np.ascontiguousarray(col, dtype=np.float64)
    raw = c.view(np.uint64)
    finite = np.isfinite(c)
    sign = (raw >> np.uint64(63)).astype(np.int64)
    expo = ((raw >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
    return finite, sign, expo, raw


def bits_mask(col: np.ndarray, sign: int, expo: int, k: int, pat: int) -> np.ndarray:
    finite, s, e, raw = float_fields(col)
    low = (raw & np.uint64((1 << k) - 1)).astype(np.int64)
    m = finite & (low == pat)
    if expo >= 0:
        m &= (s == sign) & (e == expo)
    return m


def f32_representable(col: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        back = col.astype(np.float32).astype(np.float64)
    return np.isfinite(col) & (back == col)


def count_on(events: Sequence[Event], y: np.ndarray) -> np.ndarray:
    """How many rows of ``y`` fall in each event (a feature, and the distinct state codes
    of a pattern set's columns with their counts, are computed once per batch)."""
    cache: dict[Feature, np.ndarray] = {}
    codes: dict[tuple[Any, ...], tuple[np.ndarray, np.ndarray]] = {}
    out = np.zeros(len(events), dtype=np.int64)
    for i, e in enumerate(events):
        f = e.feature
        ps = e.patterns
        if e.kind == "union" and ps is not None and f is None and not e.pattern:
            key = (ps.columns, ps.levels)
            if key not in codes:  # each distinct row code once, with its count
                codes[key] = np.unique(state_codes(y, ps.columns, ps.levels),
                                       return_counts=True)
            uniq, cnt = codes[key]
            out[i] = int(cnt[ps.member(uniq)].sum())
        elif f is not None and not e.pattern and e.kind in ("gt", "lt"):
            if f not in cache:
                cache[f] = f.apply(y)
            v = cache[f]
            out[i] = int(np.count_nonzero(v > e.a if e.kind == "gt" else v < e.a))
        else:
            out[i] = int(np.count_nonzero(e.mask(y)))
    return out
