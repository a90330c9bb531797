"""Exact optima over the replacement k-ball: min / max Gini and min / max mean for every k
(Theorems 4.1, 4.2, Algorithms 1-3, eqs. 59-60; derivations in DERIVATIONS.md, sections 1-3).
Mirrors :mod:`kernels.gini.extremes`."""

from __future__ import annotations

import math
import operator
from fractions import Fraction
from itertools import accumulate
from typing import Any

from proofs.gini.reference import rational
from proofs.gini.reference.errors import OutOfBoundsError, TooFewRecordsError, ZeroTotalError
from proofs.gini.reference.rational import (
    Exact,
    as_list,
    check_bounds,
    check_k,
    exact,
    exact_floats,
)


class _LazyValues:
    """``xs`` of :class:`Scaled` on the fast path: X_i read on demand (int index, slice,
    iteration, ``len``; ``bisect`` works through indexing)."""

    def __init__(self, ex: Exact) -> None:
        self._ex = ex

    def __len__(self) -> int:
        return self._ex.n

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            a, b, step = i.indices(self._ex.n)
            return self._ex.values(a, b)[::step] if step != 1 else self._ex.values(a, b)
        i = int(i)
        if i < 0:
            i += self._ex.n
        if not 0 <= i < self._ex.n:
            raise IndexError(i)
        return self._ex.value(i)

    def __iter__(self) -> Any:
        for a in range(0, self._ex.n, rational.BUILD_CHUNK):
            yield from self._ex.values(a, min(self._ex.n, a + rational.BUILD_CHUNK))


class _LazyTable:
    """A 1-based prefix table read on demand: ``kind`` "P", "R" or "C" (C_t = 2 R_t -
    (n + 1) P_t, exactly)."""

    def __init__(self, ex: Exact, kind: str) -> None:
        self._ex = ex
        self._kind = kind

    def __len__(self) -> int:
        return self._ex.n + 1

    def __getitem__(self, t: Any) -> int:
        t = int(t)
        if t < 0:
            t += self._ex.n + 1
        if not 0 <= t <= self._ex.n:
            raise IndexError(t)
        ex = self._ex
        if self._kind == "P":
            return ex.prefix(t)
        if self._kind == "R":
            return ex.rprefix(t)
        return 2 * ex.rprefix(t) - (ex.n + 1) * ex.prefix(t)


# ------------------------------------------------------------------- scaled data engine
def scaled_data(x: Any, L: Any, U: Any) -> Scaled:
    """``x`` itself when it already is a :class:`Scaled` of the same bounds (prepared once
    by :func:`gini_and_smooth`), else a new one."""
    if isinstance(x, Scaled) and x.Lf == exact(L, "L") and x.Uf == exact(U, "U"):
        return x
    return Scaled(x, L, U)


class Scaled:
    """Sorted data and bounds scaled to integers by a common denominator, with prefix tables
    (see DERIVATIONS.md).  All optima are computed on these integers."""

    def __init__(self, x: Any, L: Any, U: Any) -> None:
        Lf, Uf = exact(L, "L"), exact(U, "U")
        ex = exact_floats(x, (Lf, Uf))
        self._xf: list[Fraction] | None = None
        if ex is not None:
            xs: Any = _LazyValues(ex)
            den = 1 << ex.D
            n = ex.n
        else:
            xf = as_list(x)
            n = len(xf)
            xf.sort()
            den = math.lcm(*{v.denominator for v in xf}, Lf.denominator, Uf.denominator)
            xs = [v.numerator * (den // v.denominator) for v in xf]
            self._xf = xf
        if n < 2:
            raise TooFewRecordsError(f"x must have n >= 2 records, got n = {n}")
        check_bounds(Lf, Uf)
        self.n = n
        self.den = den
        self.Lf, self.Uf = Lf, Uf
        self.xs = xs
        self.lo = Lf.numerator * (den // Lf.denominator)
        self.hi = Uf.numerator * (den // Uf.denominator)
        if xs[0] < self.lo:
            raise OutOfBoundsError(f"x has a record {Fraction(xs[0], den)} below L = {Lf}")
        if xs[-1] > self.hi:
            raise OutOfBoundsError(f"x has a record {Fraction(xs[-1], den)} above U = {Uf}")
        if xs[-1] == 0:
            raise ZeroTotalError(f"x has total 0 (all {n} records are 0): Gini undefined")
        self.P: Any
        self.R: Any
        self.C: Any
        if ex is not None:  # lean exact tables read on demand (issue 16)
            self.P, self.R, self.C = (_LazyTable(ex, k) for k in "PRC")
        else:
            self.P = [0, *accumulate(xs)]
            self.R = [0, *accumulate(map(operator.mul, range(1, n + 1), xs))]
            self.C = [0, *accumulate(map(operator.mul, range(1 - n, n, 2), xs))]

    @property
    def xf(self) -> list[Fraction]:
        """Sorted data as Fractions (for witnesses), built on first use."""
        if self._xf is None:
            self._xf = [Fraction(v, self.den) for v in self.xs]
        return self._xf

    @property
    def total(self) -> Fraction:
        return Fraction(self.P[self.n], self.den)

    # -- means ---------------------------------------------------------------------
    def min_mean(self, k: int) -> Fraction:
        return Fraction(self.P[self.n - k] + k * self.lo, self.n * self.den)

    def max_mean(self, k: int) -> Fraction:
        n = self.n
        return Fraction(self.P[n] - self.P[k] + k * self.hi, n * self.den)

    def gini_nd(self) -> tuple[int, int]:
        return self.C[self.n], self.P[self.n]

    # -- maximum Gini ----------------------------------------------------------------
    def _max_nd(self, k: int, j: int, s: int) -> tuple[int, int]:
        n, P, C = self.n, self.P, self.C
        u = k - j
        N = (self.lo * j * (j - n) + C[s] + 2 * j * P[s] + (C[n] - C[s + k])
             - 2 * u * (P[n] - P[s + k]) + self.hi * u * (n - u))
        D = P[s] + (P[n] - P[s + k]) + j * self.lo + u * self.hi
        return N, D

    def max_gini(self, k: int) -> tuple[int, int, int, int]:
        """(N, D, s, j) of the maximiser for 1 <= k <= n (window x_{s+1..s+k} -> L^j U^(k-j))."""
        n, P, C, lo, hi = self.n, self.P, self.C, self.lo, self.hi
        Pn, Cn = P[n], C[n]
        best: tuple[int, int, int, int] | None = None
        for j in range(k + 1):
            u = k - j
            # N(s) = cn + C[s] + 2j P[s] - C[s+k] + 2u P[s+k];  D(s) = cd + P[s] - P[s+k]
            cn = lo * j * (j - n) + hi * u * (n - u) + Cn - 2 * u * Pn
            cd = Pn + j * lo + u * hi
            j2, u2, base = 2 * j, 2 * u, n - 1 - 2 * j
            a, b = 0, n - k  # predicate B(s) > 0 on s in [0, n-k-1]; result in [0, n-k]
            while a < b:
                s = (a + b) >> 1
                ps, psk = P[s], P[s + k]
                D = cd + ps - psk
                N = cn + C[s] + j2 * ps - C[s + k] + u2 * psk
                if (base - 2 * s) * D + N > 0:
                    a = s + 1
                else:
                    b = s
            s = a
            N, D = self._max_nd(k, j, s)
            if D == 0:
                if s != 0:  # by the step identity D(s*) = 0 forces s* = 0
                    raise AssertionError(f"max Gini search: total 0 at s={s} (k={k}, j={j})")
                continue
            for t in (s - 1, s + 1):
                if 0 <= t <= n - k:
                    Nt, Dt = self._max_nd(k, j, t)
                    if Dt > 0 and Nt * D > N * Dt:
                        raise AssertionError(
                            f"max Gini not locally optimal: k={k}, j={j}, s*={s}, s={t} better")
            if best is None or N * best[1] > best[0] * D:
                best = (N, D, s, j)
        if best is None:  # only possible if every data set of the ball has total 0
            raise AssertionError(f"max Gini: no data set with positive total at k={k}")
        return best

    # -- minimum Gini ----------------------------------------------------------------
    def _min_nd(self, k: int, b: int, j: int) -> tuple[int, int]:
        n, P, R = self.n, self.P, self.R
        lft, r = b + 1, n - k + b
        B = P[r] - P[lft - 1]
        nblk = 2 * (R[r] - R[lft - 1]) - (lft + r) * B
        xj = self.xs[j - 1]
        N = nblk + k * ((2 * j - lft - r + 1) * xj + P[r] + P[lft - 1] - 2 * P[j])
        return N, B + k * xj

    def min_gini(self, k: int) -> tuple[int, int, int, int]:
        """(N, D, b, j) of the minimiser for 1 <= k <= n-1 (block x_{b+1..n-k+b}, copies x_j)."""
        n, P, R = self.n, self.P, self.R
        best: tuple[int, int, int, int] | None = None
        for b in range(k + 1):
            lft, r = b + 1, n - k + b
            Pl, Pr = P[lft - 1], P[r]
            B = Pr - Pl
            if B == 0:
                continue
            nblk = 2 * (R[r] - R[lft - 1]) - (lft + r) * B
            const = -nblk - k * (Pr + Pl) - (lft + r - 1) * B  # E_j = 2jB + 2k P_j + const
            B2, k2 = 2 * B, 2 * k
            a, c = lft, r  # first j in [l, r-1] with E_j > 0, else r
            while a < c:
                j = (a + c) >> 1
                if B2 * j + k2 * P[j] + const > 0:
                    c = j
                else:
                    a = j + 1
            j = a
            N, D = self._min_nd(k, b, j)
            for t in (j - 1, j + 1):
                if lft <= t <= r:
                    Nt, Dt = self._min_nd(k, b, t)
                    if Nt * D < N * Dt:
                        raise AssertionError(
                            f"min Gini not locally optimal: k={k}, b={b}, j*={j}, j={t} better")
            if best is None or N * best[1] < best[0] * D:
                best = (N, D, b, j)
        if best is None:
            raise AssertionError(f"min Gini: every block has total 0 at k={k}")
        return best

    # -- all four optima ---------------------------------------------------------------
    def optima(self, k: int) -> tuple[Fraction, Fraction, Fraction, Fraction, tuple, tuple]:
        """(min_mean, max_mean, min_gini, max_gini, max_arg, min_arg) at replacement k."""
        n = self.n
        g0 = Fraction(self.C[n], (n - 1) * self.P[n])
        if k == 0:
            gmin = gmax = g0
            amax: tuple = ()
            amin: tuple = ()
        else:
            N, D, s, j = self.max_gini(k)
            gmax, amax = Fraction(N, (n - 1) * D), (s, j)
            if k == n:
                gmin, amin = Fraction(0), ()
            else:
                N, D, b, jj = self.min_gini(k)
                gmin, amin = Fraction(N, (n - 1) * D), (b, jj)
        return self.min_mean(k), self.max_mean(k), gmin, gmax, amax, amin

    def witnesses(self, k: int, amax: tuple, amin: tuple) -> tuple[list, list]:
        n, xf = self.n, self.xf
        if k == 0:
            return list(xf), list(xf)
        s, j = amax
        wmax = [self.Lf] * j + xf[:s] + xf[s + k:] + [self.Uf] * (k - j)
        if k == n:
            wmin = [self.Uf] * n
        else:
            b, jj = amin
            lft, r = b + 1, n - k + b
            wmin = xf[lft - 1:jj] + [xf[jj - 1]] * k + xf[jj:r]
        return wmax, wmin


def _entry(sc: Scaled, k: int, witnesses: bool) -> dict:
    mmin, mmax, gmin, gmax, amax, amin = sc.optima(k)
    out = {"k": k, "min_mean": mmin, "max_mean": mmax, "min_gini": gmin, "max_gini": gmax}
    if witnesses:
        out["max_witness"], out["min_witness"] = sc.witnesses(k, amax, amin)
    return out


def extremes(x: Any, L: Any, U: Any, k_max: int | None = None, *,
             witnesses: bool = True) -> list[dict]:
    """Exact optima over the replacement k-ball for k = 0..k_max (default n).

    Entry ``k`` (the list index equals k) is a dict with ``min_mean``, ``max_mean``
    (Algorithm 3 MinAve/MaxAve), ``min_gini`` (Theorem 4.2 / Algorithm 1 / eq. 60),
    ``max_gini`` (Theorem 4.1 / Algorithm 2 / eq. 59), all of eq. (2), as Fractions, and
    sorted Fraction witnesses ``max_witness`` / ``min_witness`` (data sets at replacement
    distance <= k attaining the Gini optima; omitted if ``witnesses=False``).  See DERIVATIONS.md,
    sections 1-3, for the derivations.  Cost O(n + k_max^2 log n) integer ops.
    """
    sc = Scaled(x, L, U)
    km = sc.n if k_max is None else check_k(k_max, sc.n, "k_max")
    return [_entry(sc, k, witnesses) for k in range(km + 1)]


def extremes_k(x: Any, L: Any, U: Any, k: int, *, witnesses: bool = True) -> dict:
    """The entry of :func:`extremes` for one k only (cost O(n + k log n))."""
    sc = Scaled(x, L, U)
    return _entry(sc, check_k(k, sc.n), witnesses)
