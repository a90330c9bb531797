"""Location and scale of every replace-one neighbour of one data set, without re-sorting.

Paper: Lan & Reiter (2025), eq. (2) (the Gini index), eq. (8) with Theorem 4.3 (eq. 23,
(22) corrected) / Theorem 4.4 and Algorithm 3 (the beta-smooth sensitivity S), eq. (9)
(the release g(X) + (S(X)/alpha) Z).  This module is **ours** (issue 16): it serves the
neighbour *search* of ``dpaudit certify``, which screens many neighbours X' of one data set
X; the certified figures are always recomputed on the materialised X' by the release itself.

One O(n) pass over the sorted data X (after its one O(n log n) sort) builds the prefix
tables P[t] = sum_{j<t} x_j and R[t] = sum_{j<t} (j+1) x_j (0-based x, t = 0..n), each entry
accumulated in extended precision and rounded to float64 once.  A neighbour X' replaces the
record of (0-based) rank r, value x_r, by v; in sorted X' the new value sits at rank
p = #{j != r : x_j < v}.  X' is never built: its sorted values and prefix tables are read
through the shift identities (derived here, checked against a full recomputation in
``tests/gini/test_neighbour.py``)

  p <= r:  x'_j = x_j (j < p), v (j = p), x_{j-1} (p < j <= r), x_j (j > r)
           P'[t] = P[t] (t <= p);  P[t-1] + v (p < t <= r+1);  P[t] - x_r + v (t > r+1)
           R'[t] = R[t] (t <= p);  R[t-1] + P[t-1] - P[p] + (p+1) v (p < t <= r+1);
                   R[t] - (r+1) x_r + P[r] - P[p] + (p+1) v (t > r+1)
  p > r:   x'_j = x_j (j < r), x_{j+1} (r <= j < p), v (j = p), x_j (j > p)
           P'[t] = P[t] (t <= r);  P[t+1] - x_r (r < t <= p);  P[t] - x_r + v (t > p)
           R'[t] = R[t] (t <= r);  R[t+1] - (r+1) x_r - (P[t+1] - P[r+1]) (r < t <= p);
                   R[t] - (r+1) x_r - (P[p+1] - P[r+1]) + (p+1) v (t > p)

(records between the two positions move one rank, so their weight changes by one), and
C'[t] = sum_{j<t} (2(j+1) - n - 1) x'_j = 2 R'[t] - (n+1) P'[t].  Every table entry is O(1),
so the extremes of :mod:`kernels.gini.extremes` (which read the tables at O(k log n)
positions per k) and hence A^(k)(X') cost O(k log n) per k, and S(X') costs
O(k_stop^2 log n) instead of O(n log n + k_stop^2 log n): independent of n up to the log.

Precision (stated; the direction is *not* guaranteed, which is why nothing certified is
computed here): every table entry carries one float64 rounding (relative 2^-53 of the entry)
plus the rounding of the O(1) update; g(X') = C'[n] / ((n-1) P'[n]) and the extremes are then
float computations like the kernel's.  The tests bound the relative difference from the
kernel on the materialised neighbour by 1e-9 for g and S.  Bounds: "thm43" and "thm44"; the
"tight" bound needs rank tables of X' and is not provided (callers fall back to the full
recomputation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernels.gini.extremes import ExtremesTable, max_gini_batch, min_gini_batch
from kernels.gini.index import prefix_arrays
from kernels.gini.release import noise_constants
from kernels.gini.sensitivity import SAFE_MARGIN, bound_thm43, bound_thm44

__all__ = ["FAST_BOUNDS", "NeighbourTables", "neighbour_tables"]

#: bounds with a fast neighbour path
FAST_BOUNDS: tuple[str, ...] = ("thm43", "thm44")


class _Lazy:
    """Read-only array view: ``view[idx]`` = fn(idx) for int or int-array idx."""

    def __init__(self, fn: Any, size: int) -> None:
        self._fn = fn
        self.size = size

    def __getitem__(self, idx: Any) -> Any:
        t = np.asarray(idx, dtype=np.int64)
        out = self._fn(t)
        return out if t.ndim else out[()]

    def astype(self, _dtype: Any) -> _Lazy:
        return self


@dataclass(frozen=True)
class _View:
    """A PrefixTables look-alike for X' (``n``, ``x``, ``P``, ``R``, ``C``) for the kernel's
    extremes functions."""

    n: int
    x: _Lazy
    P: _Lazy
    R: _Lazy
    C: _Lazy


class NeighbourTables:
    """Prefix tables of one sorted data set, and (location, scale) of its replace-one
    neighbours (module docstring).  Build with :func:`neighbour_tables`."""

    def __init__(self, xs: np.ndarray, lower: float, upper: float) -> None:
        self.xs = xs
        self.n = int(xs.size)
        self.lower = float(lower)
        self.upper = float(upper)
        # the kernel's own float64 tables (extended-precision accumulation, one rounding)
        self.P, self.R = prefix_arrays(xs)

    # -- X' accessors ------------------------------------------------------------------
    def _view(self, r: int, v: float) -> tuple[_View, int]:
        xs, P, R, n = self.xs, self.P, self.R, self.n
        xr = float(xs[r])
        c = int(np.searchsorted(xs, v, side="left"))
        p = c - (1 if xr < v else 0)
        vv = float(v)
        if p <= r:
            def xf(j: np.ndarray) -> np.ndarray:
                jm = np.clip(j - 1, 0, n - 1)
                jc = np.clip(j, 0, n - 1)
                return np.where(j < p, xs[jc], np.where(j == p, vv,
                                np.where(j <= r, xs[jm], xs[jc])))

            def pf(t: np.ndarray) -> np.ndarray:
                tm = np.maximum(t - 1, 0)
                return np.where(t <= p, P[t], np.where(t <= r + 1, P[tm] + vv, P[t] - xr + vv))

            def rf(t: np.ndarray) -> np.ndarray:
                tm = np.maximum(t - 1, 0)
                mid = R[tm] + P[tm] - P[p] + (p + 1) * vv
                hi = R[t] - (r + 1) * xr + P[r] - P[p] + (p + 1) * vv
                return np.where(t <= p, R[t], np.where(t <= r + 1, mid, hi))
        else:
            d = P[p + 1] - P[r + 1]

            def xf(j: np.ndarray) -> np.ndarray:
                jc = np.clip(j, 0, n - 1)
                jp = np.clip(j + 1, 0, n - 1)
                return np.where(j < r, xs[jc], np.where(j < p, xs[jp],
                                np.where(j == p, vv, xs[jc])))

            def pf(t: np.ndarray) -> np.ndarray:
                tp = np.minimum(t + 1, n)
                return np.where(t <= r, P[t], np.where(t <= p, P[tp] - xr, P[t] - xr + vv))

            def rf(t: np.ndarray) -> np.ndarray:
                tp = np.minimum(t + 1, n)
                mid = R[tp] - (r + 1) * xr - (P[tp] - P[r + 1])
                hi = R[t] - (r + 1) * xr - d + (p + 1) * vv
                return np.where(t <= r, R[t], np.where(t <= p, mid, hi))

        def cf(t: np.ndarray) -> np.ndarray:
            return 2.0 * rf(t) - (n + 1) * pf(t)

        return _View(n, _Lazy(xf, n), _Lazy(pf, n + 1), _Lazy(rf, n + 1), _Lazy(cf, n + 1)), p

    def sorted_neighbour(self, rank: int, new: float) -> np.ndarray:
        """X' materialised (O(n); for tests and the certified recomputation)."""
        view, _ = self._view(int(rank), float(new))
        return np.asarray(view.x[np.arange(self.n)], dtype=np.float64)

    # -- figures -------------------------------------------------------------------------
    def _extremes(self, view: _View, g0: float, k0: int, k1: int) -> ExtremesTable:
        n, lo, hi = self.n, self.lower, self.upper
        ks = np.arange(k0, k1 + 1, dtype=np.int64)
        P = view.P
        min_mean = ((P[n - ks] + ks * lo) / n).astype(np.float64)
        max_mean = ((P[n] - P[ks] + ks * hi) / n).astype(np.float64)
        gmax, amax = max_gini_batch(view, lo, hi, ks)  # type: ignore[arg-type]
        gmin = np.empty(ks.size)
        amin = np.zeros((ks.size, 2), dtype=np.int64)
        mid = (ks >= 1) & (ks <= n - 1)
        if mid.any():
            gm, am = min_gini_batch(view, ks[mid])  # type: ignore[arg-type]
            gmin[mid] = gm
            amin[mid] = am
        gmin[ks == 0] = g0
        gmin[ks == n] = 0.0
        gmax[ks == 0] = g0
        return ExtremesTable(n, lo, hi, ks, min_mean, max_mean, gmin, gmax, amax, amin)

    def gini_smooth(self, rank: int | None, new: float | None, beta: float,
                    bound: str = "thm43") -> tuple[float, float]:
        """(g(X'), S(X')) of the neighbour replacing rank ``rank`` by ``new`` (``rank`` None:
        X itself), with the kernel's k-scan and pruning rule
        (:func:`kernels.gini.sensitivity.smooth_sensitivity`)."""
        if bound not in FAST_BOUNDS:
            raise ValueError(f"fast neighbour path has bounds {FAST_BOUNDS}, got {bound!r}")
        n = self.n
        if rank is None:
            view, _ = self._view(0, float(self.xs[0]))
        else:
            view, _ = self._view(int(rank), float(new))  # type: ignore[arg-type]
        total = float(view.P[n])
        if not total > 0:
            raise ValueError("the neighbour has total 0: Gini undefined")
        g0 = float(view.C[n]) / ((n - 1) * total)
        best, k0 = -1.0, 0
        while k0 <= n:
            width = max(1, min(n - k0 + 1, max(16, k0), int(2_000_000 // (k0 + 1))))
            k1 = k0 + width - 1
            ks = np.arange(k0, k1 + 1)
            if bound == "thm43":
                a = bound_thm43(self._extremes(view, g0, k0, k1))
            else:
                a = bound_thm44(n, total, self.lower, self.upper, ks)
            terms = np.exp(-beta * ks) * a
            best = max(best, float(np.max(terms)))
            decay = np.nextafter(np.exp(-beta * ks), np.inf)
            if np.any(decay <= best):
                break
            k0 = k1 + 1
        return g0, float(best * (1.0 + SAFE_MARGIN))

    def location_scale(self, rank: int | None, new: float | None, epsilon: float,
                       gamma: float, constants: str = "alg3",
                       bound: str = "thm43") -> tuple[float, float]:
        """(g(X'), S(X')/alpha rounded up as the release rounds it) for the screen."""
        c = noise_constants(epsilon, gamma, constants)  # type: ignore[arg-type]
        g, s = self.gini_smooth(rank, new, c.beta, bound)
        return g, float(np.nextafter(s / c.alpha, math.inf))


def neighbour_tables(xs: np.ndarray, lower: float, upper: float) -> NeighbourTables:
    """:class:`NeighbourTables` of sorted, validated float64 data ``xs`` (one O(n) pass)."""
    return NeighbourTables(np.asarray(xs, dtype=np.float64), lower, upper)
