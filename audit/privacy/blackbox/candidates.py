"""Candidate events of the black-box tester's selection step, with their counts in the two
samples of a neighbour pair.

Families (in the order the ``max_events`` budget cuts them): ``threshold`` ({y > t},
{y < t} on a grid of pooled quantiles plus geometric tail levels), ``discrete`` ({y == v}
for columns with few levels, {y absent} / {y present}), ``pattern`` (the joint pattern of
the discrete columns, the most frequent ones, alone and AND a threshold), ``pattern-ratio``
and ``pattern-union`` (single patterns chosen by their imbalance between the two data
sets, and likelihood-ratio unions of patterns:
:mod:`~audit.privacy.blackbox.pattern_ratio_events`), ``float-grid`` (float64 bit patterns,
float32 representability, repeated values; off unless asked for) and ``interval``
({a < y <= b}).  Counting is exact; the grids only decide which events are tried.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from audit.privacy.blackbox.events import Event, f32_representable, float_fields
from audit.privacy.blackbox.pattern_ratio_events import pattern_ratio_candidates

__all__ = ["ALL_FAMILIES", "FAMILIES", "Candidates", "EventSettings", "candidates",
           "quantile_levels"]

#: event families, in the order candidates are listed (and cut by ``max_events``)
FAMILIES = ("threshold", "discrete", "pattern", "pattern-ratio", "pattern-union",
            "float-grid", "interval")
#: every family selection can try: these and the aggregate / learned ones of
#: :mod:`~audit.privacy.blackbox.aggregate_events`
ALL_FAMILIES = (*FAMILIES, "aggregate", "learned")


@dataclass
class Candidates:
    events: list[Event] = field(default_factory=list)
    ka: list[np.ndarray] = field(default_factory=list)
    kb: list[np.ndarray] = field(default_factory=list)

    def add(self, events: Sequence[Event], ka: Any, kb: Any) -> None:
        if len(events) == 0:
            return
        self.events.extend(events)
        self.ka.append(np.asarray(ka, dtype=np.int64).reshape(-1))
        self.kb.append(np.asarray(kb, dtype=np.int64).reshape(-1))

    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        if not self.ka:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return np.concatenate(self.ka), np.concatenate(self.kb)


_HASH_MULT = np.uint64(0x9E3779B97F4A7C15)


def _atoms(pooled: np.ndarray) -> np.ndarray:
    """Values of a continuous column to treat as discrete codes: +-inf and any value that
    repeats at least max(5, rows / 1000) times (at most 8, most frequent first)."""
    v, k = np.unique(pooled[~np.isnan(pooled)], return_counts=True)
    keep = (k >= max(5, pooled.size // 1000)) | np.isinf(v)
    v, k = v[keep], k[keep]
    return v[np.argsort(-k, kind="stable")][:8]


def _sorted_finite(col: np.ndarray) -> np.ndarray:
    v = col[~np.isnan(col)]
    v.sort()
    return v


def _count_gt(s: np.ndarray, t: np.ndarray) -> np.ndarray:
    return s.size - np.searchsorted(s, t, side="right")


def _count_lt(s: np.ndarray, t: np.ndarray) -> np.ndarray:
    return np.searchsorted(s, t, side="left")


def _threshold_grid(pooled: np.ndarray, levels: np.ndarray) -> np.ndarray:
    if pooled.size == 0:
        return np.zeros(0)
    idx = np.clip(np.round(levels * (pooled.size - 1)).astype(np.int64), 0, pooled.size - 1)
    t = np.unique(pooled[idx])
    return t[np.isfinite(t)] if t.size else t


def _threshold_events(
    sa: np.ndarray, sb: np.ndarray, levels: np.ndarray, column: int,
    pattern: tuple[tuple[int, str, float], ...], family: str, out: Candidates,
) -> None:
    pooled = np.sort(np.concatenate([sa, sb]))
    t = _threshold_grid(pooled, levels)
    if t.size == 0:
        return
    ev = [Event("gt", column, float(x), pattern=pattern, family=family) for x in t]
    out.add(ev, _count_gt(sa, t), _count_gt(sb, t))
    ev = [Event("lt", column, float(x), pattern=pattern, family=family) for x in t]
    out.add(ev, _count_lt(sa, t), _count_lt(sb, t))


def _interval_events(
    sa: np.ndarray, sb: np.ndarray, levels: np.ndarray, column: int, out: Candidates
) -> None:
    pooled = np.sort(np.concatenate([sa, sb]))
    t = _threshold_grid(pooled, levels)
    if t.size < 2:
        return
    ca = np.searchsorted(sa, t, side="right")
    cb = np.searchsorted(sb, t, side="right")
    i, j = np.triu_indices(t.size, k=1)
    ev = [Event("in", column, float(t[p]), float(t[q]), family="interval")
          for p, q in zip(i, j, strict=True)]
    out.add(ev, ca[j] - ca[i], cb[j] - cb[i])


def _codes(pooled: np.ndarray, max_levels: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Integer codes (0 = NaN, 1.. = sorted distinct values) if the column has at most
    ``max_levels`` distinct non-NaN values, else None."""
    vals = pooled[~np.isnan(pooled)]
    levels = np.unique(vals)
    if levels.size > max_levels:
        return None
    codes = np.zeros(pooled.shape, dtype=np.int64)
    ok = ~np.isnan(pooled)
    codes[ok] = np.searchsorted(levels, pooled[ok]) + 1
    return codes, levels


@dataclass(frozen=True)
class EventSettings:
    n_thresholds: int
    n_tail: int
    n_interval_points: int
    intervals: bool
    float_grid: bool
    max_levels: int
    max_patterns: int
    n_pattern_thresholds: int
    max_binades: int
    families: tuple[str, ...] | None = None  # None: all families
    #: the learned family also fits a logistic score (scikit-learn, optional)
    logistic: bool = False
    #: generate the ``pattern-ratio`` and ``pattern-union`` families
    ratio_patterns: bool = True


def quantile_levels(n: int, n_uniform: int, n_tail: int) -> np.ndarray:
    """Quantile levels of the threshold grid: ``n_uniform`` even levels plus ``n_tail``
    geometric levels in each tail down to ~5 / n."""
    uniform = np.arange(1, n_uniform + 1) / (n_uniform + 1)
    pmin = min(0.05, max(5.0 / n, 1e-12))
    parts = [uniform]
    if n_tail > 0 and pmin < 0.05:
        tails = np.geomspace(pmin, 0.05, n_tail)
        parts += [tails, 1.0 - tails]
    return np.unique(np.concatenate(parts))


_levels = quantile_levels


def _float_grid_events(ya: np.ndarray, yb: np.ndarray, column: int, max_binades: int,
                       out: Candidates) -> None:
    fa, sa_, ea, ra = float_fields(ya)
    fb, sb_, eb, rb = float_fields(yb)
    # binades (sign, exponent) ranked by pooled frequency
    keys = np.concatenate([(sa_ * 2048 + ea)[fa], (sb_ * 2048 + eb)[fb]])
    if keys.size == 0:
        return
    uk, cnt = np.unique(keys, return_counts=True)
    top = uk[np.argsort(-cnt, kind="stable")][:max_binades]
    for k in (1, 2, 3):
        mask = np.uint64((1 << k) - 1)
        la = (ra & mask).astype(np.int64)
        lb = (rb & mask).astype(np.int64)
        # global patterns (any binade)
        ev = [Event("bits", column, bits=(0, -1, k, p), family="float-grid")
              for p in range(1 << k)]
        out.add(ev, np.bincount(la[fa], minlength=1 << k), np.bincount(lb[fb], minlength=1 << k))
        # per binade
        for key in top:
            sign, expo = divmod(int(key), 2048)
            ina = fa & (sa_ == sign) & (ea == expo)
            inb = fb & (sb_ == sign) & (eb == expo)
            ev = [Event("bits", column, bits=(sign, expo, k, p), family="float-grid")
                  for p in range(1 << k)]
            out.add(ev, np.bincount(la[ina], minlength=1 << k),
                    np.bincount(lb[inb], minlength=1 << k))
    ra32, rb32 = f32_representable(ya), f32_representable(yb)
    out.add([Event("f32", column, family="float-grid"),
             Event("not-f32", column, family="float-grid")],
            [ra32.sum(), (fa & ~ra32).sum()], [rb32.sum(), (fb & ~rb32).sum()])
    # output values that repeat (exact equality on a float grid)
    pooled = np.concatenate([ya[fa], yb[fb]])
    uv, uc = np.unique(pooled, return_counts=True)
    rep = uv[uc >= 5]
    if rep.size:
        rep = rep[np.argsort(-uc[uc >= 5], kind="stable")][:16]
        ev = [Event("eq", column, float(v), family="float-grid") for v in rep]
        out.add(ev, [(ya == v).sum() for v in rep], [(yb == v).sum() for v in rep])


def candidates(a: np.ndarray, b: np.ndarray, s: EventSettings) -> Candidates:
    """All candidate events for outputs ``a`` (from D) and ``b`` (from D'), both (n, d),
    with their counts in each sample."""
    n, d = a.shape
    fam: dict[str, Candidates] = {f: Candidates() for f in FAMILIES}
    levels = _levels(n, s.n_thresholds, s.n_tail)
    ilevels = np.arange(1, s.n_interval_points + 1) / (s.n_interval_points + 1)
    plevels = _levels(n, s.n_pattern_thresholds, max(2, s.n_tail // 4))
    # (column, "code" | "nan", codes, listed values)
    pattern_cols: list[tuple[int, str, np.ndarray, tuple[float, ...]]] = []
    continuous: list[int] = []
    for c in range(d):
        ca, cb = a[:, c], b[:, c]
        pooled = np.concatenate([ca, cb])
        sa, sb = _sorted_finite(ca), _sorted_finite(cb)
        has_nan = sa.size < n or sb.size < n
        coded = _codes(pooled, s.max_levels)
        if has_nan:
            fam["discrete"].add(
                [Event("absent", c, family="discrete"), Event("present", c, family="discrete")],
                [n - sa.size, sa.size], [n - sb.size, sb.size])
        if coded is not None:
            codes, lv = coded
            pattern_cols.append((c, "code", codes, tuple(float(v) for v in lv)))
            ka = np.bincount(codes[:n], minlength=lv.size + 1)[1:]
            kb = np.bincount(codes[n:], minlength=lv.size + 1)[1:]
            fam["discrete"].add([Event("eq", c, float(v), family="discrete") for v in lv], ka, kb)
            if lv.size > 2:  # ordered levels: {y > v} and {y < v} at each level
                fam["threshold"].add([Event("gt", c, float(v)) for v in lv],
                                     _count_gt(sa, lv), _count_gt(sb, lv))
                fam["threshold"].add([Event("lt", c, float(v)) for v in lv],
                                     _count_lt(sa, lv), _count_lt(sb, lv))
        else:
            continuous.append(c)
            atoms = _atoms(pooled)
            if atoms.size:  # discrete codes inside a continuous column (-1000, +-inf, ...)
                fam["discrete"].add([Event("eq", c, float(v), family="discrete") for v in atoms],
                                    [int(np.count_nonzero(ca == v)) for v in atoms],
                                    [int(np.count_nonzero(cb == v)) for v in atoms])
            if has_nan or atoms.size:
                codes = np.isnan(pooled).astype(np.int64)  # 1 absent, 0 other value
                for i, v in enumerate(atoms):
                    codes[pooled == v] = i + 2
                pattern_cols.append((c, "nan", codes, tuple(float(v) for v in atoms)))
            _threshold_events(sa, sb, levels, c, (), "threshold", fam["threshold"])
            if s.intervals:
                _interval_events(sa, sb, ilevels, c, fam["interval"])
        if s.float_grid:
            _float_grid_events(ca, cb, c, s.max_binades, fam["float-grid"])
    if d > 1 and pattern_cols:
        _pattern_events(a, b, pattern_cols, continuous, plevels, s, fam["pattern"])
        extra = pattern_ratio_candidates(a, b, tuple(c for c, *_ in pattern_cols),
                                         tuple(lv for *_, lv in pattern_cols),
                                         s.max_patterns) if s.ratio_patterns else {}
        for name, (evs, ka, kb) in extra.items():
            fam[name].add(evs, ka, kb)
    out = Candidates()
    for f in FAMILIES:
        out.events.extend(fam[f].events)
        out.ka.extend(fam[f].ka)
        out.kb.extend(fam[f].kb)
    return out


def _pattern_events(a: np.ndarray, b: np.ndarray,
                    cols: list[tuple[int, str, np.ndarray, tuple[float, ...]]],
                    continuous: list[int], plevels: np.ndarray, s: EventSettings,
                    out: Candidates) -> None:
    n = a.shape[0]
    # a 64-bit hash of the codes of all pattern columns: a collision only merges the
    # selection counts of two patterns; the event (built from a representative row) is exact
    key = np.zeros(2 * n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for _, _, codes, _ in cols:
            key = key * _HASH_MULT + codes.astype(np.uint64) + np.uint64(1)
    uk, inv, cnt = np.unique(key, return_inverse=True, return_counts=True)
    order = np.argsort(-cnt, kind="stable")[: s.max_patterns]
    inv_a, inv_b = inv[:n], inv[n:]
    codes_of = {c: codes for c, _, codes, _ in cols}
    for u in order:
        rows = np.flatnonzero(inv == u)
        r0 = int(rows[0])
        pat: list[tuple[int, str, float]] = []
        src = a if r0 < n else b
        r = r0 if r0 < n else r0 - n
        for c, kind, _, _ in cols:
            v = float(src[r, c])
            if math.isnan(v):
                pat.append((c, "absent", math.nan))
            elif kind == "nan" and int(codes_of[c][r0]) >= 2:
                pat.append((c, "eq", v))
            elif kind == "nan":
                pat.append((c, "present", math.nan))
            else:
                pat.append((c, "eq", v))
        pattern = tuple(pat)
        ina, inb = inv_a == u, inv_b == u
        if len(cols) > 1 or continuous:
            out.add([Event("all", cols[0][0], pattern=pattern, family="pattern")],
                    [ina.sum()], [inb.sum()])
        for c in continuous:
            if any(pc == c and op in ("absent", "eq") for pc, op, _ in pattern):
                continue
            sa, sb = _sorted_finite(a[ina, c]), _sorted_finite(b[inb, c])
            _threshold_events(sa, sb, plevels, c, pattern, "pattern", out)

