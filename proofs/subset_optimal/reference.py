"""Exact reference for Definitions 3-5 and Algorithm 2 (Dick et al. Section 3.1).

Data, a, b, alpha are Fractions; ranks r may be Fractions or mpmath reals (Algorithm 3's
t_l, t_u involve a logarithm); epsilon a Fraction.  Piece endpoints are exact Fractions;
the exp weights and logarithms are mpmath at the caller's precision (``mpmath.workdps``).

Algorithm 2's density (line 2) on a piece (p, q) between consecutive breakpoints of
{x +- alpha : x in D} u {a, b} is exp(-eps/2 * l) / Z with
l = max(0, c_< - r, r - c_<=), c_< = #{x < tau - alpha}, c_<= = #{x <= tau + alpha}
(constant on the open piece).  This module recomputes c_< and c_<= exactly on Fractions
(bisection on the sorted exact data); the brute-force definitions are in
:func:`ranks_exact` / :func:`window_loss_exact`.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

__all__ = ["ExactPieces", "exact_pieces", "frac", "mp", "rank_error_exact", "ranks_exact",
           "window_loss_exact"]


def frac(v: Any) -> Fraction:
    """Exact Fraction of an int / Fraction / float / decimal string."""
    if isinstance(v, Fraction):
        return v
    if isinstance(v, str):
        return Fraction(v)
    return Fraction(v)


def mp(v: Any) -> Any:
    if isinstance(v, Fraction):
        return mpmath.mpf(v.numerator) / v.denominator
    return mpmath.mpf(v)


def ranks_exact(tau: Fraction, data: Sequence[Fraction]) -> range:
    """Definition 3 by brute force: every integer r in 0..n with #{x<tau} <= r <= #{x<=tau}."""
    lt = sum(1 for x in data if x < tau)
    le = sum(1 for x in data if x <= tau)
    rs = [r for r in range(len(data) + 1) if lt <= r and le >= r]  # Definition 3 verbatim
    return range(rs[0], rs[-1] + 1)


def rank_error_exact(tau: Fraction, r: Any, data: Sequence[Fraction]) -> Any:
    """Definition 4 by brute force over ranks(tau, D) (integer ranks r' only)."""
    rs = ranks_exact(tau, data)
    return min(abs(r - rr) for rr in rs)


def window_loss_exact(tau: Fraction, r: Any, alpha: Fraction,
                      data: Sequence[Fraction]) -> Any:
    """Algorithm 2 line 1 for integer r, by definition: the window's rank errors at every
    data point in it and at every gap point (midpoints / endpoints) - brute force."""
    pts = {tau - alpha, tau + alpha} | {x for x in data if tau - alpha <= x <= tau + alpha}
    srt = sorted(pts)
    pts |= {(u + v) / 2 for u, v in zip(srt, srt[1:], strict=False)}
    return min(rank_error_exact(p, r, data) for p in pts)


@dataclass(frozen=True)
class ExactPieces:
    """Pieces (lo, hi, c_lt, c_le) of Algorithm 2 on [a, b] for data D and window alpha."""

    lo: tuple[Fraction, ...]
    hi: tuple[Fraction, ...]
    c_lt: tuple[int, ...]
    c_le: tuple[int, ...]
    a: Fraction
    b: Fraction

    def losses(self, r: Any) -> list[Any]:
        return [max(0, c1 - r, r - c2) for c1, c2 in zip(self.c_lt, self.c_le, strict=True)]

    def weights(self, r: Any, epsilon: Fraction) -> list[Any]:
        """width * exp(-eps/2 * loss) per piece (mpmath, current precision)."""
        e = mp(epsilon) / 2
        return [mp(h - lo) * mpmath.exp(-e * mp(L))
                for lo, h, L in zip(self.lo, self.hi, self.losses(r), strict=True)]

    def probabilities(self, r: Any, epsilon: Fraction) -> list[Any]:
        w = self.weights(r, epsilon)
        z = mpmath.fsum(w)
        return [x / z for x in w]

    def mass_above(self, c: Fraction, r: Any, epsilon: Fraction) -> Any:
        """P(tau-hat > c) exactly (mpmath)."""
        p = self.probabilities(r, epsilon)
        out = mpmath.mpf(0)
        for lo, hi, pi in zip(self.lo, self.hi, p, strict=True):
            if hi <= c:
                continue
            frac_in = (hi - max(lo, c)) / (hi - lo)
            out += pi * mp(frac_in)
        return out


def exact_pieces(data: Sequence[Any], a: Any, b: Any, alpha: Any,
                 extra_edges: Sequence[Fraction] = ()) -> ExactPieces:
    """Exact pieces of Algorithm 2 (breakpoints x +- alpha, a, b, plus ``extra_edges``)."""
    d = sorted(frac(x) for x in data)
    a, b, alpha = frac(a), frac(b), frac(alpha)
    cand = {a, b} | {x - alpha for x in d} | {x + alpha for x in d} | set(extra_edges)
    edges = sorted(e for e in cand if a <= e <= b)
    lo, hi, c1, c2 = [], [], [], []
    for p, q in zip(edges, edges[1:], strict=False):
        mid = (p + q) / 2
        lo.append(p)
        hi.append(q)
        c1.append(bisect.bisect_left(d, mid - alpha))   # #{x < mid - alpha}
        c2.append(bisect.bisect_right(d, mid + alpha))  # #{x <= mid + alpha}
    return ExactPieces(tuple(lo), tuple(hi), tuple(c1), tuple(c2), a, b)
