"""The tight bound A_tight^(k) and its smooth sensitivity, exactly (mirrors
:mod:`kernels.gini.tight`; derivation and proof in that module's docstring)."""

from __future__ import annotations

import bisect
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from proofs.gini.reference.errors import InvalidParameterError
from proofs.gini.reference.extremes import Scaled, scaled_data
from proofs.gini.reference.rational import check_k
from proofs.gini.reference.sensitivity import SmoothRef, certified_scan, check_beta_dps

# --------------------------------------------------- tight bound A_tight^(k) (issue 18)
# Exact counterpart of kernels/gini/tight.py (derivation and proof in its docstring; written
# again here on the scaled integers, with plain bisect on the distinct values instead of the
# kernel's vectorised rank tables).  For one k:  Delta g <= max(F/D, 0) in four cases
#   I+  F(c) = (U-c)(1-g_lo) - w sum_Z (z-c)^+,             D = S_lo + U - c
#   I-  F(v) = w sum_Z (min(z,v) - c0) - (1-g_hi)(v-c0),     D = S_lo + v - c0
#   D+  F(c) = (1+g_hi)(c-L) - w sum_Z (c-z)^+,             D = S_lo - c + L
#   D-  F(u) = w sum_Z (c1 - max(z,u)) - (1+g_lo)(c1-u),     D = S_lo - c1 + u
# (w = 2/(n-1); Z the count envelopes of the docstring), maximised over the sorted
# candidates (domain ends and distinct data values inside).  F/D is unimodal along them and
# E (the sign of its derivative right of a candidate) is non-increasing: ``search="binary"``
# takes the first candidate with E <= 0 and re-checks its two neighbours exactly;
# ``search="all"`` evaluates every candidate (independent of the unimodality argument).


class _ZSet:
    """Multiset Z = sorted records x[i0:i1] (0-based) plus ``copies`` copies of ``const``."""

    def __init__(self, sc: Scaled, i0: int, i1: int, const: int, copies: int) -> None:
        i0 = min(i0, sc.n)
        i1 = max(i0, min(i1, sc.n))
        self.sc, self.i0, self.i1, self.const, self.copies = sc, i0, i1, const, copies
        self.size = (i1 - i0) + copies
        self.total = sc.P[i1] - sc.P[i0] + copies * const

    def le(self, z: int) -> tuple[int, int]:
        """(#{z' <= z}, sum of those) over Z."""
        cnt = min(max(bisect.bisect_right(self.sc.xs, z) - self.i0, 0), self.i1 - self.i0)
        s = self.sc.P[self.i0 + cnt] - self.sc.P[self.i0]
        if self.copies and self.const <= z:
            cnt += self.copies
            s += self.copies * self.const
        return cnt, s


def _tight_case(cands: list[int], fde: Callable[[int], tuple[Fraction, int, Fraction]],
                search: str) -> Fraction:
    if search == "all":
        best = Fraction(0)
        for p in cands:
            F, D, _ = fde(p)
            best = max(best, F / D)
        return best
    a, b = 0, len(cands) - 1
    while a < b:
        mid = (a + b) // 2
        if fde(cands[mid])[2] > 0:
            a = mid + 1
        else:
            b = mid
    F, D, _ = fde(cands[a])
    r = F / D
    for t in (a - 1, a + 1):
        if 0 <= t < len(cands):
            Ft, Dt, _ = fde(cands[t])
            if Ft / Dt > r:
                raise AssertionError(f"tight bound: candidate {t} beats the search's {a}")
    return max(r, Fraction(0))


def _tight_from_scaled(sc: Scaled, k: int, g_lo: Fraction, g_hi: Fraction,
                       search: str = "binary") -> Fraction:
    """A_tight^(k) on the scaled integers (lengths in units of 1/den; ratios unit-free)."""
    n, xs, lo, hi, P = sc.n, sc.xs, sc.lo, sc.hi, sc.P
    slo = P[n - k] + k * lo if k <= n else n * lo
    if k == 0:
        if slo - (xs[-1] - lo) <= 0:
            return Fraction(1)
    elif slo - (hi - lo) <= 0:
        return Fraction(1)
    w = Fraction(2, n - 1)
    distinct = sorted(set(xs))

    def inside(a: int, b: int) -> list[int]:
        return [a, *distinct[bisect.bisect_right(distinct, a):bisect.bisect_left(distinct, b)],
                b]

    # I+
    z = _ZSet(sc, 0, n - k, 0, 0)

    def f_ip(c: int):
        cnt, s = z.le(c)
        sig = (z.total - s) - (z.size - cnt) * c
        F = (hi - c) * (1 - g_lo) - w * sig
        D = slo + hi - c
        return F, D, (-(1 - g_lo) + w * (z.size - cnt)) * D + F

    ip = _tight_case(distinct if k == 0 else inside(lo, hi), f_ip, search)
    # I-
    c0 = xs[0] if k == 0 else lo
    zi = _ZSet(sc, 1, n, 0, 0) if k == 0 else _ZSet(sc, k + 1, n, hi, min(k, n - 1))

    def f_im(v: int):
        cnt, s = zi.le(v)
        sig = s + (zi.size - cnt) * v - zi.size * c0
        F = w * sig - (1 - g_hi) * (v - c0)
        D = slo + v - c0
        return F, D, (w * (zi.size - cnt) - (1 - g_hi)) * D - F

    im = _tight_case(inside(c0, hi), f_im, search)
    # D+
    zd = _ZSet(sc, 0 if k == 0 else k, n, 0, 0)

    def f_dp(c: int):
        cnt, s = zd.le(c)
        sig = cnt * c - s
        F = (1 + g_hi) * (c - lo) - w * sig
        D = slo - c + lo
        return F, D, ((1 + g_hi) - w * cnt) * D + F

    dp = _tight_case(distinct if k == 0 else inside(lo, hi), f_dp, search)
    # D-
    c1 = xs[-1] if k == 0 else hi
    zm = _ZSet(sc, 0, n - 1, 0, 0) if k == 0 else _ZSet(sc, 0, n - k - 1, lo, min(k, n - 1))

    def f_dm(u: int):
        cnt, s = zm.le(u)
        sig = zm.size * c1 - (cnt * u + zm.total - s)
        F = w * sig - (1 + g_lo) * (c1 - u)
        D = slo - c1 + u
        return F, D, ((1 + g_lo) - w * cnt) * D - F

    dm = _tight_case(inside(lo, c1), f_dm, search)
    return min(Fraction(1), max(ip, im, dp, dm))


def bound_A_tight(x: Any, L: Any, U: Any, k: int, *, search: str = "binary") -> Fraction:
    """A_tight^(k)(X) exactly (kernels/gini/tight.py, issue 18): an upper bound on
    max_{d(X,Y) <= k} LS(Y) (replace-one); for k = 0 it equals LS(X) (unless the fallback 1
    applies).  ``search``: ``"binary"`` (O(log n) candidates) or ``"all"`` (every one)."""
    if search not in ("binary", "all"):
        raise InvalidParameterError(f"search must be 'binary' or 'all', got {search!r}")
    sc = Scaled(x, L, U)
    kk = check_k(k, sc.n)
    _, _, gmin, gmax, _, _ = sc.optima(kk)
    return _tight_from_scaled(sc, kk, gmin, gmax, search)


def smooth_sensitivity_tight(x: Any, L: Any, U: Any, beta: Any, dps: int = 50) -> SmoothRef:
    """S_tight(X) = max_{k=0..n} e^{-beta k} A_tight^(k)(X) exactly (A_tight <= 1, so the
    pruned scan and the precision certificate of :func:`smooth_sensitivity` apply as is)."""
    b = check_beta_dps(beta, dps)
    sc = scaled_data(x, L, U)

    def A_of(k: int) -> Fraction:
        _, _, gmin, gmax, _, _ = sc.optima(k)
        return _tight_from_scaled(sc, k, gmin, gmax)

    return certified_scan(A_of, sc.n, b, dps, "tight")
