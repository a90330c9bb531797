"""Local-sensitivity bounds A^(k) and the beta-smooth sensitivity of the Gini index.

Paper: Lan & Reiter (2025), Section 4.1.3 (eqs. 21, 22), Theorem 4.3 (eq. 23),
Theorem 4.4 (eq. 24), Section 2.3 (eq. 8), Section 4.4 (pruning), Algorithm 3.
Neighbour relation throughout: *replace one record* (data sets of the same size n).

Derivation used to check the printed bounds (ours; see the module tests).  For a data set
Y of size n in [L, U] with total S > 0 and Gini g = g(Y) (eq. 2), changing one record
y_m to y_m + a gives

    a > 0:  Delta g = [a(1 - g) - 2T/(n-1)] / (S + a),   0 <= T <= min((n-1)a, S - nL)
    a = -b < 0:  Delta g = [b(1 + g) - 2T'/(n-1)] / (S - b),   0 <= T' <= min((n-1)b, nU - S)

with T = sum_{q != m} min(a, (y_q - y_m)^+) and T' = sum_{q != m} min(b, (y_m - y_q)^+).
Each numerator is a difference of two non-negative terms, so |Delta g| is at most the
larger of the two over the denominator.  Bounding a, b <= U - L, S by n*min_mean(k) /
n*max_mean(k) and g by min_gini(k) / max_gini(k) over the k-ball gives, for every Y at
distance <= k from X, LS(Y) <= max(C1, C2) with

    C1 = max( (U-L)(1 - min g_(k)) / (n min xbar_(k) + (U-L)),
              2 (n max xbar_(k) - nL) / (n min xbar_(k) (n-1)) )                eq. (21)
    C2 = max( (U-L)(max g_(k) + 1) / (n min xbar_(k) - (U-L)),
              2n (U - min xbar_(k)) / ((n min xbar_(k) - (U-L)) (n-1)) )       eq. (22)*

valid when n min xbar_(k) > U - L; otherwise the trivial bound 1 (|Delta g| <= 1 since
g is in [0, 1]).  This is eq. (23) with one **deviation**: the printed eq. (22) has the
factor (max g_(k) + 1 - 2/(n-1)); the proof's own expression (46) at m' = 1 gives
g - 2/(n-1) + w = g + 1 (w = (n+1)/(n-1)), i.e. the printed text replaced w by 1.  With
the printed factor the first term of (22) no longer dominates the decrease case when
max g_(k) + min g_(k) < 2/(n-1).  ``kernels.gini.printed.bound_eq23_printed`` keeps the printed
version for the audit.

Theorem 4.4 (eq. 24) replaces the four extremes by data-free worst cases.  Printed, it
keeps only the term 2/(n(1/IQ - k/n) - 1) = 2(U-L)/(S - k(U-L) - (U-L)); that equals the
first term of (22)* with max g = 1 and min xbar = xbar - k(U-L)/n, but it drops the other
three terms, which are not always smaller (e.g. when L > 0 and the data sit near L).
:func:`bound_thm44` therefore evaluates all four terms of (21)/(22)* with min g = 0,
max g = 1, S_lo = max(nL, S - k(U-L)) <= n min xbar_(k) and
S_hi = min(nU, S + k(U-L)) >= n max xbar_(k); each term is monotone in the right
direction, so bound_thm44 >= bound_thm43 >= true A^(k) (proved, not just tested).  The
printed (24) is in ``kernels.gini.printed.bound_eq24_printed``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from kernels.gini import tight
from kernels.gini.extremes import ExtremesTable, extremes_sorted
from kernels.gini.index import prefix_tables
from kernels.gini.validate import as_incomes
from kernels.validate import check_k, check_positive

__all__ = [
    "bound_thm43",
    "bound_thm44",
    "local_sensitivity_bound",
    "SmoothSensitivity",
    "smooth_sensitivity",
    "smooth_sensitivity_tight",
    "BOUNDS",
]

#: relative margin added to every A^(k) and to S(X) (rounding in the safe direction)
SAFE_MARGIN = 2.0**-36

BoundName = Literal["thm43", "thm44", "tight"]
#: "tight" is kernels.gini.tight (ours, proved in its docstring)
BOUNDS: tuple[str, ...] = ("thm43", "thm44", "tight")


def _combine(n: int, L: float, U: float, g_lo, g_hi, s_lo, s_hi) -> np.ndarray:
    """max(C1, C2) of (21)/(22)* with totals s_lo <= S <= s_hi, clipped to 1."""
    D = U - L
    g_lo = np.asarray(g_lo, dtype=np.float64)
    g_hi = np.asarray(g_hi, dtype=np.float64)
    s_lo = np.asarray(s_lo, dtype=np.float64)
    s_hi = np.asarray(s_hi, dtype=np.float64)
    ok = (s_lo - D > 0) & (s_lo > 0)
    safe_lo = np.where(ok, s_lo, np.inf)
    c1a = D * (1.0 - g_lo) / (safe_lo + D)
    c1b = 2.0 * (s_hi - n * L) / (safe_lo * (n - 1))
    den2 = np.where(ok, s_lo - D, np.inf)
    c2a = D * (g_hi + 1.0) / den2
    c2b = 2.0 * (n * U - s_lo) / (den2 * (n - 1))
    a = np.maximum(np.maximum(c1a, c1b), np.maximum(c2a, c2b))
    out = np.where(ok & (a <= 1.0), a, 1.0)
    # Rounding direction: the float result (and the float extremes it is computed from) may
    # be below the exact real value by a few ulps; a relative margin of 2^-36 (~1.5e-11,
    # far above those errors, far below the 1e-9 tolerance) keeps the returned bound never
    # below the exact bound of the exact extremes (checked one-sided by ``dpaudit regress``).
    return np.minimum(out * (1.0 + SAFE_MARGIN), 1.0)


def bound_thm43(t: ExtremesTable) -> np.ndarray:
    """A^(k) of Theorem 4.3, eq. (23) with (22)* corrected, from true extremes ``t``.

    Returns one value per ``t.k_values``; a proved upper bound on the true
    A^(k)(X) = max_{d(X,Y) <= k} LS(Y) (replace-one neighbours), in [0, 1].
    """
    n = t.n
    return _combine(n, t.lower, t.upper, t.min_gini, t.max_gini, n * t.min_mean, n * t.max_mean)


def bound_thm44(n: int, total: float, lower: float, upper: float, k: Any) -> np.ndarray:
    """Data-light bound in the spirit of Theorem 4.4 (eq. 24), valid for every k.

    Needs only n, the total S = n*xbar, L, U (see the module docstring for why this is
    the printed (24) plus the three terms it drops).  ``k`` may be an array.
    """
    kk = np.asarray(k, dtype=np.float64)
    D = upper - lower
    s_lo = np.maximum(n * lower, total - kk * D)
    s_hi = np.minimum(n * upper, total + kk * D)
    return _combine(n, lower, upper, np.zeros_like(kk), np.ones_like(kk), s_lo, s_hi)


def local_sensitivity_bound(
    x: Any, lower: Any, upper: Any, *, bound: BoundName = "thm43", clip: bool = False
) -> float:
    """A^(0)(X): an upper bound on the local sensitivity LS(X) of eq. (2) (replace-one)."""
    xs, lo, hi = as_incomes(x, lower, upper, clip=clip, copy=False)
    if bound == "thm43":
        t = extremes_sorted(prefix_tables(xs), lo, hi, 0, 0)
        return float(bound_thm43(t)[0])
    if bound == "thm44":
        return float(bound_thm44(xs.size, float(np.sum(xs)), lo, hi, 0))
    if bound == "tight":
        pt = prefix_tables(xs)
        return float(tight.bound_tight(tight.prepare(pt, lo, hi),
                                       extremes_sorted(pt, lo, hi, 0, 0))[0])
    raise ValueError(f"bound must be one of {BOUNDS}, got {bound!r}")


@dataclass(frozen=True)
class SmoothSensitivity:
    """Result of :func:`smooth_sensitivity`.

    ``value`` = max_k e^{-beta k} A^(k) over k = 0..n (all k not evaluated are proved not
    to matter: A^(k) <= 1 so e^{-beta k} A^(k) <= e^{-beta k} <= value for k > k_evaluated).
    ``bounds[k]`` is A^(k) for k = 0..k_evaluated.
    """

    value: float
    beta: float
    k_argmax: int
    k_evaluated: int
    bounds: np.ndarray
    bound: str
    n: int
    #: eq. (2) of the data as the kernel computed it on the way (``PrefixTables.gini``;
    #: None for thm44, which needs no prefix tables): the release reuses it instead of a
    #: second O(n) pass
    gini: float | None = None


def smooth_sensitivity(
    x: Any,
    lower: Any,
    upper: Any,
    beta: Any,
    *,
    bound: BoundName = "thm43",
    k_max: int | None = None,
    clip: bool = False,
    chunk_elems: int = 2_000_000,
) -> SmoothSensitivity:
    """beta-smooth upper bound S(X) = max_{k=0..n} e^{-beta k} A^(k)(X) (eqs. 7-8, Alg. 3).

    With ``bound="thm43"`` A^(k) is eq. (23) (corrected, see module doc) on the *true*
    k-replacement extremes (:mod:`kernels.gini.extremes`); with ``"thm44"`` it is
    :func:`bound_thm44`.  Either is non-decreasing in k and is a max over the k-ball, so
    A^(k)(X) <= A^(k+1)(X') for neighbours X, X' and S is a beta-smooth upper bound
    (Definition 2.1); k starts at 0 (Algorithm 3), not 1 (Theorem 4.5 writes k = 1..n,
    which would drop the k = 0 term and can make S smaller than LS(X)).

    Pruning (Section 4.4, made dynamic): k is scanned in chunks, and the scan stops at the
    first k with e^{-beta k} <= current maximum, since every later term is at most
    e^{-beta k}.  The comparison is made with a one-ulp margin so rounding can only
    lengthen the scan.  ``k_max`` optionally caps the scan (then the result is only a
    lower estimate if the cap bites; ``k_evaluated`` tells).
    """
    xs, lo, hi = as_incomes(x, lower, upper, clip=clip, copy=False)
    b = check_positive(beta, "beta")
    n = xs.size
    cap = n if k_max is None else check_k(k_max, n, name="k_max")
    if bound not in BOUNDS:
        raise ValueError(f"bound must be one of {BOUNDS}, got {bound!r}")
    pt = prefix_tables(xs) if bound in ("thm43", "tight") else None
    if bound == "tight":
        td = tight.prepare(pt, lo, hi)
    total = float(pt.P[n]) if pt is not None else float(np.sum(xs, dtype=np.longdouble))
    pieces: list[np.ndarray] = []
    best, k_best = -1.0, 0
    k0 = 0
    while k0 <= cap:
        # chunk size: keep the (k, j) work arrays below chunk_elems entries
        # (geometric growth: the scan usually stops after a few hundred k)
        width = max(1, min(cap - k0 + 1, max(16, k0), int(chunk_elems // (k0 + 1))))
        k1 = k0 + width - 1
        if bound == "thm43":
            a = bound_thm43(extremes_sorted(pt, lo, hi, k0, k1))
        elif bound == "tight":
            a = tight.bound_tight(td, extremes_sorted(pt, lo, hi, k0, k1))
        else:
            a = bound_thm44(n, total, lo, hi, np.arange(k0, k1 + 1))
        ks = np.arange(k0, k1 + 1)
        terms = np.exp(-b * ks) * a
        i = int(np.argmax(terms))
        if terms[i] > best:
            best, k_best = float(terms[i]), int(ks[i])
        pieces.append(a)
        # stop at the first k in this chunk (or the next) where e^{-beta k} <= best
        decay = np.nextafter(np.exp(-b * ks), np.inf)
        stop = np.flatnonzero(decay <= best)
        if stop.size:
            k_stop = int(ks[stop[0]])
            bounds = np.concatenate(pieces)[: k_stop + 1]
            return SmoothSensitivity(_up(best), b, k_best, k_stop, bounds, bound, n,
                                     None if pt is None else pt.gini)
        k0 = k1 + 1
    bounds = np.concatenate(pieces)
    return SmoothSensitivity(_up(best), b, k_best, cap, bounds, bound, n,
                             None if pt is None else pt.gini)


def _up(best: float) -> float:
    """e^{-beta k} A^(k) in float can be an ulp or two below the real product (and A^(k) = 1
    carries no margin): the returned S is rounded up by the relative safe margin."""
    return float(best * (1.0 + SAFE_MARGIN))


def smooth_sensitivity_tight(x: Any, lower: Any, upper: Any, beta: Any,
                             **kw: Any) -> SmoothSensitivity:
    """S_tight(X) = max_k e^{-beta k} A_tight^(k)(X) (:mod:`kernels.gini.tight`): the pruned
    scan of :func:`smooth_sensitivity` with ``bound="tight"``."""
    return smooth_sensitivity(x, lower, upper, beta, bound="tight", **kw)
