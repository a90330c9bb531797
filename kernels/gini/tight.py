"""A tighter beta-smooth sensitivity for the Gini index: A_tight^(k) and S_tight.

Paper: Lan & Reiter (2025), Section 4.1 (eqs. 12-13 for an increase, Section 4.1.2 for a
decrease), Section 4.1.3 (eqs. 21-22), Theorem 4.3 (eq. 23), Section 2.3 (eqs. 7-8,
Definition 2.1).  This module is **ours**: it keeps the data-dependent sums T, T' of
Delta g over the k-ball instead of bounding them by 0 (and a, b by U - L) as (21)-(22) do.
Neighbour relation: replace one record (size-n data sets in [L, U]).

Notation.  Y sorted, size n, values in [L, U], total S_Y > 0, g_Y = g(Y) (eq. 2).  Moving
record m from value c to a new value changes g by (derived from eq. 12; the paper's (13)
is the same expression with T written as a rank sum):

  (inc)  new value v = c + a > c:  Delta g = [a (1 - g_Y) - 2 T / (n-1)] / (S_Y + a),
         T  = sum_{q != m} min(a, (y_q - c)^+) = int_c^v  N_Y(t) dt,
  (dec)  new value u = c - b < c:  Delta g = [b (1 + g_Y) - 2 T'/ (n-1)] / (S_Y - b),
         T' = sum_{q != m} min(b, (c - y_q)^+) = int_u^c  M_Y(t) dt,

with N_Y(t) = #{q != m : y_q > t}, M_Y(t) = #{q != m : y_q < t} (record m itself never
counts on those ranges).  Proof of (inc): N(y) = sum_{p<q} |y_q - y_p| changes by
sum_{q != m} (|y_q - v| - |y_q - c|) = (n-1) a - 2T; then g' - g = [(n-1)a - 2T -
(n-1) g a] / ((n-1)(S_Y + a)).  (dec) is the mirror image.  (Checked in SymPy-free exact
arithmetic by the tests: A^(0) below equals the brute-force LS.)

So LS(Y) = max over four one-sided problems, each of the form  sup F / D  with
F = int of an integrand phi over an interval and D an affine positive denominator:

  I+  (inc, Gini up):    phi = (1 - g_Y) - 2 N_Y(t)/(n-1)   (non-decreasing in t)
  I-  (inc, Gini down):  phi = 2 N_Y(t)/(n-1) - (1 - g_Y)   (non-increasing)
  D+  (dec, Gini up):    phi = (1 + g_Y) - 2 M_Y(t)/(n-1)   (non-increasing)
  D-  (dec, Gini down):  phi = 2 M_Y(t)/(n-1) - (1 + g_Y)   (non-decreasing)

**The bound (Theorem, ours).**  For Y at replacement distance <= k from X (sorted x):

  (a) g_lo(k) <= g_Y <= g_hi(k), S_Y >= S_lo(k) = n min_mean(k): the true k-ball extremes
      (:mod:`kernels.gini.extremes`, Theorems 4.1/4.2 and Algorithm 3; exact);
  (b) |N_Y(t) - N_X(t)| <= k and N_Y <= n - 1 (k records moved), so
      (N_X(t) - k)^+ <= N_Y(t) <= min(N_X(t) + k, n - 1), and the same for M.  For sorted
      x these envelopes are counts of fixed multisets Z (of at most n - 1 or n values):
        (N_X - k)^+       = #{z > t : z in x_1..x_{n-k}},
        min(N_X + k, n-1) = #{z > t : z in x_{k+2}..x_n and k copies of U},
        (M_X - k)^+       = #{z < t : z in x_{k+1}..x_n},
        min(M_X + k, n-1) = #{z < t : z in x_1..x_{n-k-1} and k copies of L}
      (for t in [L, U]); for k = 0 the exact counts of X are used.
  Replacing g_Y, S_Y and the counts by the bound of (a)-(b) that makes each integrand and
  denominator worse gives, for every m and every new value, Delta g <= B^+ with
  B = F_hat / D_lo and F_hat = int of the bounded integrand phi_hat (still monotone in the
  same direction), D_lo = the denominator with S_lo(k)  (when F_hat >= 0:
  F_Y / D_Y <= F_hat / D_Y <= F_hat / D_lo; when F_hat < 0, Delta g < 0 in that case).
  Record values c of Y are arbitrary in [L, U] once k >= 1, so the sup is taken over the
  whole triangle L <= c <= v <= U (resp. L <= u <= c <= U):

  * I+: for fixed c, F_hat is convex in v (phi_hat non-decreasing), so the ratio of a
    convex function and a positive affine one is quasi-convex: its sup over [c, U] is at
    v = c (value 0) or v = U.  D+: for fixed c, F_hat is convex in u: u = L.
    I-: for fixed v, F_hat(c) = int_c^v phi_hat is convex in c: c = L (k >= 1; c = x_1 for
    k = 0, the smallest record value, by the same quasi-convexity over [x_1, v]).
    D-: for fixed u, convex in c: c = U (k >= 1; c = x_n for k = 0).
  * The remaining variable: F_hat is concave in it (I+: in c; I-: in v; D+: in c; D-: in u)
    and piecewise linear with kinks at values of Z, D_lo is affine and positive, so F/D is
    monotone between kinks, and the sign of its derivative is the sign of
    E = F' D -+ F, which is constant between kinks and non-increasing (E' = F'' D <= 0).
    Hence the sup over the candidate list (the left end, the kinks, the right end, sorted)
    is at the first candidate whose E <= 0: a binary search, O(log n) per k and case.

  A_tight^(k)(X) = min(1, max over the four cases)  if S_lo(k) > U - L  (every denominator
  positive), else 1 (|Delta g| <= 1 since g is in [0, 1]).  For k = 0 the same four
  problems with g(X), S, the exact counts and c restricted to record values give
  **exactly** LS(X) (the reductions above are exact there); if S - x_n + L <= 0 (only
  possible with L = 0 and one positive record) A^(0) = 1.

**Smoothness** (Definition 2.1).  For neighbours X, X' (one record replaced) and k >= 1:
ball_k(X) is inside ball_{k+1}(X'), so g_lo(k+1)(X') <= g_lo(k)(X), g_hi(k+1)(X') >=
g_hi(k)(X), S_lo(k+1)(X') <= S_lo(k)(X); and |N_X - N_X'| <= 1 moves every count
envelope of (b) outwards from (X, k) to (X', k+1).  The bound is monotone in each of these
(larger integrand, smaller positive denominator, fallback condition S_lo <= U - L
inherited), so A^(k)(X) <= A^(k+1)(X').  For k = 0: A^(0)(X) = LS(X) <= A_true^(1)(X')
<= A^(1)(X') (X is in ball_1(X')).  With A^(k) <= 1 the pruned scan of
:func:`kernels.gini.sensitivity.smooth_sensitivity` is exact, and
S(X) = max_k e^{-beta k} A^(k)(X) <= e^beta max_k e^{-beta(k+1)} A^(k+1)(X') <= e^beta S(X'),
S(X) >= A^(0)(X) = LS(X).  (For k >= n the ball is everything and A^(n) is data-free.)

Cost: O(n log n) to sort and build prefix sums and rank tables once, then O(log n) per k
and case; the k-ball Gini extremes dominate, as for ``thm43`` (same scan).

Floating point (deviation from the exact statement, stated): the float kernel evaluates
the same formulas in extended precision from float64 extremes; the result is multiplied
by (1 + 2^-32) and rounded up one ulp, so it is >= the exact bound unless the accumulated
float error exceeds 2.3e-10 relative -- tested against the exact reference
(:func:`proofs.gini.reference.bound_A_tight`), not proved.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from kernels.gini.extremes import ExtremesTable, extremes_sorted
from kernels.gini.index import ExtendedView, PrefixTables, prefix_tables
from kernels.gini.validate import as_incomes
from kernels.validate import check_k

__all__ = [
    "TightData",
    "prepare",
    "bound_tight",
    "bound_A_tight",
    "local_sensitivity_fast",
    "MARGIN",
]

_ACC = np.longdouble
#: relative safety margin for float rounding (see the module docstring)
MARGIN = 2.0**-32


@dataclass(frozen=True)
class TightData:
    """Sorted data, extended-precision prefix sums and rank tables (built once)."""

    n: int
    lower: float
    upper: float
    x: np.ndarray  # float64 sorted, x[0..n-1]
    xa: Any  # the same read in extended precision (ExtendedView, no copy)
    P: Any  # P[i] = x_1 + ... + x_i (1-based, P[0] = 0), read in extended precision
    right: np.ndarray  # right[j] = #{i : x_i <= x_j}, j = 1..n (right[0] unused)
    right_L: int  # #{i : x_i <= L}


def prepare(pt: PrefixTables, lower: float, upper: float) -> TightData:
    """Rank tables for :func:`bound_tight` on validated sorted data (O(n log n))."""
    xs = pt.x
    right = np.zeros(xs.size + 1, dtype=np.int64)
    right[1:] = np.searchsorted(xs, xs, side="right")
    rl = int(np.searchsorted(xs, lower, side="right"))
    return TightData(xs.size, float(lower), float(upper), xs, ExtendedView(xs), pt.P, right, rl)


def _first_nonpositive(lo: np.ndarray, hi: np.ndarray, E) -> np.ndarray:
    """Vectorised: per row, the first j in [lo, hi] with E(j, rows) <= 0, else hi.

    ``E`` must be non-increasing in j on [lo, hi] (proved in the module docstring)."""
    lo = lo.copy()
    hi = hi.copy()
    active = np.flatnonzero(lo < hi)
    while active.size:
        mid = (lo[active] + hi[active]) // 2
        pos = E(mid, active) > 0
        lo[active[pos]] = mid[pos] + 1
        hi[active[~pos]] = mid[~pos]
        active = active[lo[active] < hi[active]]
    return lo


def _best(lo, hi, fde) -> np.ndarray:
    """max(F/D, 0) at the binary-search argmax and its two neighbours (float safety)."""
    idx = np.arange(lo.size)
    j = _first_nonpositive(lo, hi, lambda j, rows: fde(j, rows)[2])
    best = np.zeros(lo.size, dtype=_ACC)
    for dj in (-1, 0, 1):
        jj = np.clip(j + dj, lo, hi)
        F, D, _ = fde(jj, idx)
        best = np.maximum(best, np.where(D > 0, F / np.where(D > 0, D, 1), 0))
    return best


def _cases(d: TightData, k: np.ndarray, glo: np.ndarray, ghi: np.ndarray,
           slo: np.ndarray) -> np.ndarray:
    """max over the four cases I+, I-, D+, D- of the bound (see module doc), per k."""
    n, L, U = d.n, _ACC(d.lower), _ACC(d.upper)
    x, P, right = d.xa, d.P, d.right
    k0 = k == 0
    glo = glo.astype(_ACC)
    ghi = ghi.astype(_ACC)
    slo = slo.astype(_ACC)
    w = _ACC(2) / (n - 1)

    def xv(j):  # x_j, 1-based, clipped index
        return x[np.clip(j, 1, n) - 1]

    # ---- I+: c over {x_1..x_n} (k = 0) or {L, x_1..x_{n-k}} (k >= 1), v = U; Z = x_1..x_m
    m = np.maximum(n - k, 0)

    def f_ip(j, r):
        kk = k[r]
        c = np.where(j == 0, L, xv(j))
        rc = np.where(j == 0, d.right_L, right[np.clip(j, 1, n)])
        mm = m[r]
        t = np.minimum(rc, mm)
        sig = (P[mm] - P[t]) - (mm - t) * c
        F = (U - c) * (1 - glo[r]) - w * sig
        D = slo[r] + U - c
        E = (-(1 - glo[r]) + w * (mm - t)) * D + F
        del kk
        return F, D, E

    ip = _best(np.where(k0, 1, 0), np.where(k0, n, m), f_ip)

    # ---- I-: c = c0 (x_1 or L), v over {c0, Z values, U}; Z = x_a..x_n plus cU copies of U
    a = np.minimum(np.where(k0, 2, k + 2), n + 1)
    nx = n - a + 1
    cU = np.where(k0, 0, np.minimum(k, n - 1))
    c0i = np.where(k0, x[0], L)
    rc0 = np.where(k0, right[1], d.right_L)

    def f_im(j, r):
        aa, nn, cu, c0 = a[r], nx[r], cU[r], c0i[r]
        inner = (j >= 1) & (j <= nn)
        v = np.where(j == 0, c0, np.where(inner, xv(aa + j - 1), U))
        rv = np.where(j == 0, rc0[r], np.where(inner, right[np.clip(aa + j - 1, 1, n)], n))
        t = np.clip(rv - (aa - 1), 0, nn)
        sig = (P[aa - 1 + t] - P[aa - 1]) + (nn - t) * v - nn * c0 + cu * (v - c0)
        gt = (nn - t) + cu * (v < U)
        F = w * sig - (1 - ghi[r]) * (v - c0)
        D = slo[r] + v - c0
        E = (w * gt - (1 - ghi[r])) * D - F
        return F, D, E

    im = _best(np.zeros_like(k), nx + 1, f_im)

    # ---- D+: u = L, c over {x_1..x_n} (k = 0) or {L, x_{k+1}..x_n, U}; Z = x_b..x_n
    b = np.minimum(np.where(k0, 1, k + 1), n + 1)
    nz = n - b + 1

    def f_dp(j, r):
        bb, nn = b[r], nz[r]
        lowend = (j == bb - 1) & ~k0[r]
        inner = (j >= bb) & (j <= n)
        c = np.where(lowend, L, np.where(inner, xv(j), U))
        rc = np.where(lowend, d.right_L, np.where(inner, right[np.clip(j, 1, n)], n))
        t = np.clip(rc - (bb - 1), 0, nn)
        sig = t * c - (P[bb - 1 + t] - P[bb - 1])
        F = (1 + ghi[r]) * (c - L) - w * sig
        D = slo[r] - c + L
        E = ((1 + ghi[r]) - w * t) * D + F
        return F, D, E

    dp = _best(np.where(k0, 1, b - 1), np.where(k0, n, n + 1), f_dp)

    # ---- D-: c = c1 (x_n or U), u over {L, x_1..x_nl, c1}; Z = x_1..x_nl plus cL copies of L
    nl = np.where(k0, n - 1, np.maximum(n - k - 1, 0))
    cL = np.where(k0, 0, np.minimum(k, n - 1))
    c1i = np.where(k0, x[n - 1], U)

    def f_dm(j, r):
        nn, cl, c1 = nl[r], cL[r], c1i[r]
        inner = (j >= 1) & (j <= nn)
        u = np.where(j == 0, L, np.where(inner, xv(j), c1))
        ru = np.where(j == 0, d.right_L, np.where(inner, right[np.clip(j, 1, n)], n))
        t = np.minimum(ru, nn)
        sig = nn * c1 - (t * u + (P[nn] - P[t])) + cl * (c1 - u)
        F = w * sig - (1 + glo[r]) * (c1 - u)
        D = slo[r] - c1 + u
        E = ((1 + glo[r]) - w * (t + cl)) * D - F
        return F, D, E

    dm = _best(np.zeros_like(k), nl + 1, f_dm)
    return np.maximum(np.maximum(ip, im), np.maximum(dp, dm))


def bound_tight(d: TightData, t: ExtremesTable) -> np.ndarray:
    """A_tight^(k) for k = t.k_values (see the module docstring), each in (0, 1].

    ``t`` must be the k-ball extremes of the same data (``extremes_sorted``)."""
    n = d.n
    k = np.asarray(t.k_values, dtype=np.int64)
    slo = (n * t.min_mean.astype(_ACC))
    D = _ACC(d.upper) - _ACC(d.lower)
    ok = np.where(k == 0, slo - (d.x[-1] - _ACC(d.lower)) > 0, slo - D > 0)
    # rows that fail ``ok`` get 1; evaluate the others with a harmless positive total
    slo_safe = np.where(ok, slo, _ACC(n) * _ACC(d.upper) + 1)
    a = _cases(d, k, t.min_gini, t.max_gini, slo_safe).astype(np.float64)
    a = np.nextafter(a * (1.0 + MARGIN), np.inf)
    return np.where(ok, np.minimum(a, 1.0), 1.0)


def bound_A_tight(x: Any, k: int, lower: Any, upper: Any, *, clip: bool = False) -> float:
    """A_tight^(k)(X) for one k (validated input; float, rounded up, see module doc)."""
    xs, lo, hi = as_incomes(x, lower, upper, clip=clip, copy=False)
    kk = check_k(k, xs.size)
    pt = prefix_tables(xs)
    return float(bound_tight(prepare(pt, lo, hi), extremes_sorted(pt, lo, hi, kk, kk))[0])


def local_sensitivity_fast(x: Any, lower: Any, upper: Any, *, clip: bool = False) -> float:
    """LS(X) (replace-one) in O(n log n): A_tight^(0), which equals LS(X) exactly in real
    arithmetic (module docstring); float, rounded up by the margin."""
    return bound_A_tight(x, 0, lower, upper, clip=clip)
