"""Exact reference implementation of the DP Gini quantities of Lan & Reiter (2025).

Written independently of :mod:`kernels` (nothing from ``kernels`` is imported and no
numerical helper is shared): every optimum, bound and predicate below is re-derived here and
evaluated in exact rational arithmetic.  Floats are converted exactly
(``float.as_integer_ratio``); data and bounds are then scaled by one common denominator
``den`` (the lcm of all denominators; a power of two for float input) so that all prefix
sums, numerators and totals are Python integers.  Results are returned as
:class:`fractions.Fraction` (or, where a transcendental function enters, as ``mpmath.mpf``
with a precision certificate).

Notation.  x_1 <= ... <= x_n sorted data in [L, U], 0 <= L < U, total S = sum x > 0.
For any sorted data set y of size n write

    N(y) = sum_r (2r - n - 1) y_r = sum_{p<q} (y_q - y_p)   (both forms; the second shows
           that N is the sum of pairwise gaps, hence convex in any subset of the values),
    D(y) = sum_r y_r,          g(y) = N(y) / ((n - 1) D(y))                       eq. (2).

Prefix tables (1-based, index 0 holds 0): P_i = sum_{t<=i} x_t, R_i = sum_{t<=i} t x_t,
C_i = sum_{t<=i} (2t - n - 1) x_t.  "Distance" is the replacement distance of size-n data
sets; the k-ball {y : d(x, y) <= k} contains every data set obtained by choosing k positions
and giving them arbitrary values in [L, U] (a value may be kept, so "<= k" and "= k" give
the same optima).  Data sets of total 0 (Gini undefined) are excluded from every optimum.

1. Means (Algorithm 3, MinAve/MaxAve).  The mean is increasing in every value, so
   min_mean(k) = (P_{n-k} + kL)/n (the k largest replaced by L) and
   max_mean(k) = (P_n - P_k + kU)/n (the k smallest replaced by U).

2. Maximum Gini (Theorem 4.1, Algorithm 2, eq. 59).
   (a) Vertex: for a fixed set of replaced positions, g = N/((n-1)D) with N convex and D
       affine and positive, so {g <= t} = {N - t(n-1)D <= 0} is convex: g is quasi-convex and
       its maximum over the box [L, U]^k is at a vertex -- each replaced value is L or U.
       Only the numbers j (values at L) and u = k - j (values at U) matter.
   (b) Window (our proof, Dinkelbach): let lam = (n-1) g* be the optimal ratio for given
       (j, u).  Every data set y = L^j + K + U^u (K: the n-k kept records) satisfies
       Phi(K) = N(y) - lam D(y) <= 0, with equality at the optimum.  The i-th smallest kept
       record has rank j + i, so Phi(K) = const + sum_i w_i x_{kappa_i} with
       w_i = 2(j+i) - n - 1 - lam increasing in i and kappa_1 < ... < kappa_{n-k} the kept
       indices.  Since i <= kappa_i <= k + i, the choice kappa_i = i for w_i < 0 and
       kappa_i = k + i for w_i >= 0 is feasible and optimal term by term, so this K' has
       Phi(K') >= Phi(K*) = 0, i.e. g(K') >= g*: the kept set is a prefix x_1..x_s plus a
       suffix x_{s+k+1}..x_n, i.e. a window x_{s+1}..x_{s+k} of k consecutive records is
       replaced, s = 0..n-k.  (D(K') > 0: if u = 0 the last weight n - 1 - lam is >= 0, so
       x_n > 0 is kept; if u > 0, U > 0 is present.)
   (c) Closed form.  Sorted, the data set is L^j, x_1..x_s, x_{s+k+1}..x_n, U^u, with ranks
       1..j, j+i, i-u, n-u+1..n.  Using sum_{r<=j}(2r-n-1) = j(j-n) and
       sum_{r>n-u}(2r-n-1) = u(n-u):
           N(s, j) = L j(j-n) + C_s + 2j P_s + (C_n - C_{s+k}) - 2u (P_n - P_{s+k}) + U u(n-u)
           D(s, j) = P_s + (P_n - P_{s+k}) + jL + uU
       which is eq. (59) with the factor 1/(n-1) of eq. (2) (eq. 59 as printed omits it).
   (d) Step identity.  From s to s+1 the record b = x_{s+k+1} (rank s+j+1) is replaced by
       a = x_{s+1} at the same rank (order is preserved since a <= b), so with
       delta = b - a >= 0:  N(s+1) = N(s) - (2s+2j+1-n) delta,  D(s+1) = D(s) - delta, and
       (both totals > 0)
           G(s+1) > G(s)  <=>  delta * B(s) > 0,   B(s) = (n-1-2s-2j) D(s, j) + N(s, j).
       Moreover B(s+1) = B(s) - 2 D(s+1, j) <= B(s): B is non-increasing, so G(., j) is
       non-decreasing while B > 0 and non-increasing afterwards; the maximiser is the first s
       in 0..n-k-1 with B(s) <= 0 (else n-k), found by binary search.  D(., j) is
       non-increasing; if D(s0) = 0 then B(s0 - 1) = B(s0) + 2 D(s0) = 0, so the search stops
       before the total-0 region; D(s*) = 0 happens only when every data set of that (k, j)
       has total 0 (then (k, j) is skipped).
   The maximum over j = 0..k is taken exactly (cross-multiplication).  k = 0 gives g(x).

3. Minimum Gini (Theorem 4.2, Algorithm 1, eq. 60), 1 <= k <= n-1.
   (a) Common value: g is quasi-convex (2a) and symmetric in the replaced values; averaging a
       minimiser over permutations of the replaced positions keeps D and does not increase
       g, so all k replaced records can take one common value c.
   (b) c at a kept value: with kept multiset K (m = n - k records, total S_K > 0),
       N(c) = N(K) + k sum_{y in K} |y - c| is convex piecewise linear with kinks at the kept
       values and D(c) = S_K + kc is increasing affine; between kinks g(c) is a ratio of
       affine functions (monotone); below min K the numerator decreases, so g decreases;
       above max K the sign of g' is that of n S_K - N(K) >= 0.  So c is a kept value.
   (c) Block (our proof, Dinkelbach): with c equal to the kept record number q, the sorted
       data set is K with k copies of x_{kappa_q} placed next to it, and
       Phi = N - lam D = sum_t W_t x_{kappa_t} where W_t = w_{rank t} (t != q),
       W_q = sum of w over the q-th record's rank and the k copies' ranks,
       w_r = 2r - n - 1 - lam increasing.  So the signs of W_t are (<= 0 ... <= 0, >= 0 ...):
       one sign change at some t0.  Replacing kappa_t by kappa_{t0} + (t - t0) (a contiguous
       block, feasible) moves every x_{kappa_t} towards x_{kappa_{t0}} and cannot increase
       Phi (Abel summation around t0), and the copies follow x_{kappa_q}; the linear form
       is the exact Phi of the new data set because its order is still sorted.  Phi <= 0
       there, so its Gini is <= the optimum.  So the kept records form a block x_l..x_r,
       l = b+1, r = n-k+b, b = 0..k ("b lows and k-b highs removed").  (The argument does not
       cover a contracted block of total 0 -- all zeros; the exhaustive tests, many with
       zeros, found no case where that matters.)
   (d) With the copies at c = x_j (l <= j <= r), B = P_r - P_{l-1},
           N_blk = sum_{l<=i<=r} (2(i-l+1) - m - 1) x_i = 2(R_r - R_{l-1}) - (l+r) B,
           N_j = N_blk + k [ (2j-l-r+1) x_j + P_r + P_{l-1} - 2 P_j ],   D_j = B + k x_j,
       (eq. 60 with the factor 1/(n-1) of eq. 2).  On c in [x_j, x_{j+1}] the derivative of
       N(c)/D(c) has the sign of E_j = (2j-l-r+1) D(c) - N(c), which is constant in c there;
       at c = x_j it simplifies to
           E_j = (2j-l-r+1) B - N_blk + k (2 P_j - P_r - P_{l-1}),
       and E_{j+1} - E_j = 2 D(x_{j+1}) >= 0.  So g is quasi-convex in j: the minimiser is the
       first j in l..r-1 with E_j > 0 (g increasing on [x_j, x_{j+1}]), else r -- binary
       search.  A block of total 0 (all zeros) is skipped (every c gives g = 1 or undefined;
       the block ending at x_n > 0 is never skipped).
   k = 0 gives g(x); k = n gives 0 (all records equal, e.g. U).

   After every binary search the optimum is re-checked *locally* in exact arithmetic against
   its neighbours (s - 1, s + 1 resp. j - 1, j + 1); a failure raises AssertionError (not a
   bare ``assert``, so it survives ``python -O``).

4. Local-sensitivity bounds (Section 4.1.3, eqs. 21-23; Theorem 4.4, eq. 24).  With
   s_lo = n min_mean(k), s_hi = n max_mean(k):
       C1 = max((U-L)(1 - min g)/(s_lo + (U-L)),  2(s_hi - nL)/(s_lo (n-1)))            (21)
       C2 = max((U-L)(max g + 1)/(s_lo - (U-L)),  2(nU - s_lo)/((s_lo - (U-L))(n-1)))   (22)*
   A = max(C1, C2) if s_lo - (U-L) > 0 and max(C1, C2) <= 1, else 1                      (23).
   (22)* uses the factor (max g + 1), not the printed (max g + 1 - 2/(n-1)): the proof's
   own expression for a decrease of the largest record gives g - 2/(n-1) + w with
   w = (n+1)/(n-1), i.e. g + 1.  The Theorem 4.4 variant (:func:`bound_A_iq`) uses the same
   four terms with min g = 0, max g = 1, s_lo = max(nL, S - k(U-L)),
   s_hi = min(nU, S + k(U-L)) (data-free bounds on the extremes of the mean).

5. Smooth sensitivity (eq. 8): S = max_{k=0..n} e^{-beta k} A^(k), pruned at the first k
   with e^{-beta k} <= current maximum (A^(k) <= 1 makes every later term smaller), see
   :func:`smooth_sensitivity` for the precision certificate.

6. Noise density (10): p(z) = c/(1+|z|^gamma), c = gamma sin(pi/gamma)/(2 pi), and its cdf
   through the regularised incomplete beta function (substitution u = z^gamma/(1+z^gamma)),
   evaluated in mpmath at two precisions.
"""

from __future__ import annotations

from proofs.gini.reference.errors import (
    InvalidBoundsError,
    InvalidKError,
    InvalidParameterError,
    NegativeIncomeError,
    NonFiniteError,
    NotNumericError,
    OutOfBoundsError,
    PrecisionError,
    ReferenceInputError,
    TooFewRecordsError,
    ZeroTotalError,
)
from proofs.gini.reference.extremes import (
    extremes,
    extremes_k,
)
from proofs.gini.reference.index import (
    gini_eq1,
    gini_eq2,
)
from proofs.gini.reference.noise import (
    laplace_cdf,
    laplace_pdf,
    powerlaw_cdf,
    powerlaw_constant,
    powerlaw_pdf,
    powerlaw_ppf,
    powerlaw_sf,
)
from proofs.gini.reference.rational import (
    exact,
)
from proofs.gini.reference.release import (
    gini_and_smooth,
)
from proofs.gini.reference.sensitivity import (
    SmoothRef,
    bound_A,
    bound_A_iq,
    local_sensitivity_exact,
    smooth_sensitivity,
)
from proofs.gini.reference.tight import (
    bound_A_tight,
    smooth_sensitivity_tight,
)

__all__ = [
    "ReferenceInputError",
    "NotNumericError",
    "NonFiniteError",
    "TooFewRecordsError",
    "InvalidBoundsError",
    "OutOfBoundsError",
    "NegativeIncomeError",
    "ZeroTotalError",
    "InvalidKError",
    "InvalidParameterError",
    "PrecisionError",
    "exact",
    "gini_eq2",
    "gini_eq1",
    "extremes",
    "extremes_k",
    "bound_A",
    "bound_A_iq",
    "SmoothRef",
    "smooth_sensitivity",
    "local_sensitivity_exact",
    "powerlaw_constant",
    "powerlaw_pdf",
    "powerlaw_cdf",
    "powerlaw_sf",
    "powerlaw_ppf",
    "laplace_pdf",
    "laplace_cdf",
    "bound_A_tight",
    "gini_and_smooth",
    "smooth_sensitivity_tight",
]
