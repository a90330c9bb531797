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

import bisect
import math
import numbers
import operator
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from itertools import accumulate
from typing import Any, Literal

import mpmath
import numpy as np

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
    "exact_floats",
]

Number = int | float | Fraction | Decimal


# ------------------------------------------------------------------------------ errors
class ReferenceInputError(ValueError):
    """Base class of the value errors raised by this module."""


class NotNumericError(TypeError):
    """A value is not a real number (str, bool, complex, None, ...)."""


class NonFiniteError(ReferenceInputError):
    """NaN or +/-inf where a finite number is required."""


class TooFewRecordsError(ReferenceInputError):
    """Fewer than 2 records (the Gini index needs n >= 2)."""


class InvalidBoundsError(ReferenceInputError):
    """L < 0 or U <= L."""


class OutOfBoundsError(ReferenceInputError):
    """A record outside [L, U]."""


class NegativeIncomeError(ReferenceInputError):
    """A negative record where incomes must be >= 0."""


class ZeroTotalError(ReferenceInputError):
    """All records are 0: the Gini index is undefined."""


class InvalidKError(ReferenceInputError):
    """A replacement count outside 0..n (or not an integer)."""


class InvalidParameterError(ReferenceInputError):
    """Any other parameter outside its domain (beta <= 0, gamma <= 1, dps, bound name...)."""


class PrecisionError(ArithmeticError):
    """Two working precisions did not agree (the result could not be certified)."""


# ------------------------------------------------------------------------ conversions
def exact(value: Any, name: str = "value") -> Fraction:
    """``value`` as an exact Fraction: int, Fraction, float (exact binary value), numpy
    scalars, Decimal.  bool / str / complex / None raise :class:`NotNumericError`, NaN and
    infinities :class:`NonFiniteError`."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, bool) or isinstance(value, (str, bytes)) or value is None:
        raise NotNumericError(f"{name} must be a real number, got {value!r} "
                              f"(type {type(value).__name__})")
    if isinstance(value, numbers.Integral):
        return Fraction(int(value))
    if isinstance(value, numbers.Rational):
        return Fraction(value.numerator, value.denominator)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise NonFiniteError(f"{name} must be finite, got {value!r}")
        return Fraction(value)
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            raise NonFiniteError(f"{name} must be finite, got {value!r}")
        man, exp_ = value.man_exp  # |value| = man * 2^exp_ (man unsigned)
        mag = Fraction(man) * Fraction(2) ** exp_
        return -mag if value < 0 else mag
    ratio = getattr(value, "as_integer_ratio", None)  # float, numpy floating
    if isinstance(value, numbers.Real) and ratio is not None:
        try:
            num, den = ratio()
        except (OverflowError, ValueError) as exc:
            raise NonFiniteError(f"{name} must be finite, got {value!r}") from exc
        return Fraction(num, den)
    raise NotNumericError(f"{name} must be a real number, got {value!r} "
                          f"(type {type(value).__name__})")


def _as_list(x: Any, name: str = "x") -> list[Fraction]:
    if isinstance(x, (str, bytes)) or not isinstance(x, Iterable):
        raise NotNumericError(f"{name} must be a sequence of numbers, got {x!r}")
    out = []
    for i, v in enumerate(x):
        out.append(exact(v, f"{name}[{i}]"))
    return out


def _check_k(k: Any, n: int, name: str = "k") -> int:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise InvalidKError(f"{name} must be an integer in 0..{n}, got {k!r}")
    kk = int(k)
    if not 0 <= kk <= n:
        raise InvalidKError(f"{name} must be in 0..{n} (n = {n}), got {kk}")
    return kk


def _check_n(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TooFewRecordsError(f"n must be an integer >= 2, got {n!r}")
    if int(n) < 2:
        raise TooFewRecordsError(f"n must be >= 2 (the Gini index needs two records), got {n}")
    return int(n)


def _check_bounds(L: Fraction, U: Fraction) -> None:
    if L < 0:
        raise InvalidBoundsError(f"lower bound L must be >= 0 for incomes, got L={L}")
    if U <= L:
        raise InvalidBoundsError(f"upper bound U must be > L, got L={L}, U={U}")


def _nonneg_data(x: Any) -> list[Fraction]:
    xs = sorted(_as_list(x))
    if len(xs) < 2:
        raise TooFewRecordsError(f"x must have n >= 2 records, got n = {len(xs)}")
    if xs[0] < 0:
        raise NegativeIncomeError(f"x must be >= 0 (incomes), got minimum {xs[0]}")
    if xs[-1] == 0:
        raise ZeroTotalError(f"x has total 0 (all {len(xs)} records are 0): Gini undefined")
    return xs


def _dyadic_exponent(q: Fraction) -> int | None:
    """D with q.denominator == 2**D, or None when the denominator is not a power of two."""
    d = q.denominator
    return d.bit_length() - 1 if d & (d - 1) == 0 else None


#: records per exact block prefix value (:class:`_Exact`)
_BLOCK = 64
#: bits per limb of the int64 block sums (a limb times a 1-based rank < 2^31 times _BLOCK
#: records stays below 2^61: no int64 overflow for n < 2^31)
_LIMB = 24
#: records per vectorised chunk while building (bounds the temporaries)
_BUILD_CHUNK = 1 << 20


class _Exact:
    """The sorted values of a float array, exactly, as scaled integers X_i = x_i * 2^D, kept
    as numpy arrays (issue 16): ``M`` (int64 frexp mantissas, |M| < 2^53) and ``T`` (int16
    shifts >= 0) with X_i = M_i << T_i, plus exact Python-int prefix sums at every
    ``_BLOCK``-th record of X_i (``Pb``) and of (i+1) X_i (``Rb``, 0-based i).

    Exactness: every finite double is f 2^e with f in [1/2, 1) of at most 53 bits
    (``np.frexp``), so M = f 2^53 is an exact int64 and x = M 2^(e-53); D = max(0, -min(e-53))
    over the nonzero records and the ``extra`` bounds makes every T = e - 53 + D >= 0.  The
    block sums split each X_i into 24-bit limbs (bit j of limb l is bit 24l + j of X_i: the
    low bits of an int64 shift are exact even when its high bits wrap) and add limb times
    weight in int64, where no sum can exceed 2^61; limb sums are recombined in Python ints.
    Nothing is rounded anywhere.  Memory: 10 bytes per record (M, T) plus two Python ints
    per block of 64; building costs O(n x limbs) vectorised int64 operations, where
    limbs = ceil((max T + 53) / 24) (3 for incomes between 10 and 10^7 with cents).
    """

    def __init__(self, xs: np.ndarray, D: int, M: np.ndarray, T: np.ndarray) -> None:
        self.n = int(xs.size)
        self.D = D
        self.M = M
        self.T = T
        n, B = self.n, _BLOCK
        nl = (int(T.max()) + 53 + _LIMB - 1) // _LIMB if n else 0
        mask = (1 << _LIMB) - 1
        sp: list[int] = []
        sr: list[int] = []
        for c0 in range(0, n, _BUILD_CHUNK):
            c1 = min(n, c0 + _BUILD_CHUNK)
            m = M[c0:c1]
            t = T[c0:c1].astype(np.int64)
            pad = (-(c1 - c0)) % B
            w = np.arange(c0 + 1, c1 + 1 + pad, dtype=np.int64)  # 1-based ranks
            blocks_p = [0] * ((c1 - c0 + pad) // B)
            blocks_r = [0] * len(blocks_p)
            for limb in range(nl):
                sh = t - _LIMB * limb
                a = np.where(sh >= 0, np.left_shift(m, np.clip(sh, 0, 63)),
                             np.right_shift(m, np.clip(-sh, 0, 63))) & mask
                if not a.any():
                    continue
                if pad:
                    a = np.concatenate([a, np.zeros(pad, dtype=np.int64)])
                bp = a.reshape(-1, B).sum(axis=1).tolist()
                br = (a * w).reshape(-1, B).sum(axis=1).tolist()
                k = _LIMB * limb
                blocks_p = [u + (v << k) for u, v in zip(blocks_p, bp, strict=True)]
                blocks_r = [u + (v << k) for u, v in zip(blocks_r, br, strict=True)]
            sp += blocks_p
            sr += blocks_r
        self.Pb = [0, *accumulate(sp)]
        self.Rb = [0, *accumulate(sr)]
        self.total = self.Pb[-1]  # the padding adds zeros
        self.weighted = self.Rb[-1]  # sum (i+1) X_i
        self._cache_p: dict[int, int] = {}
        self._cache_r: dict[int, int] = {}

    def value(self, i: int) -> int:
        """X_i (0-based)."""
        return int(self.M[i]) << int(self.T[i])

    def values(self, a: int, b: int) -> list[int]:
        return list(map(operator.lshift, self.M[a:b].tolist(), self.T[a:b].tolist()))

    def prefix(self, t: int) -> int:
        """P_t = X_0 + ... + X_{t-1}, exactly."""
        got = self._cache_p.get(t)
        if got is None:
            q = t // _BLOCK
            a = q * _BLOCK
            got = self.Pb[q] + (sum(self.values(a, t)) if t > a else 0)
            self._cache_p[t] = got
        return got

    def rprefix(self, t: int) -> int:
        """R_t = 1 X_0 + 2 X_1 + ... + t X_{t-1}, exactly."""
        got = self._cache_r.get(t)
        if got is None:
            q = t // _BLOCK
            a = q * _BLOCK
            got = self.Rb[q]
            if t > a:
                got += sum(map(operator.mul, range(a + 1, t + 1), self.values(a, t)))
            self._cache_r[t] = got
        return got


def exact_floats(x: Any, extra: tuple[Fraction, ...] = ()) -> _Exact | None:
    """The fast exact path for a 1-D float numpy array (sorted here if it is not sorted
    already), or None when it does not apply (not a float array, a non-finite value, an
    ``extra`` Fraction whose denominator is not a power of two): the caller then takes the
    general path, which validates and raises."""
    if not isinstance(x, np.ndarray) or x.ndim != 1 or x.dtype.kind != "f":
        return None
    xs = np.asarray(x, dtype=np.float64)
    if xs.size > 1 and not bool(np.all(xs[1:] >= xs[:-1])):  # NaN fails this too
        xs = np.sort(xs)
    if xs.size and not (np.isfinite(xs[0]) and np.isfinite(xs[-1])):  # NaN sorts last
        return None
    if xs.size >= 2**31 or (xs.size and xs[0] < 0):  # int64 bound of the block sums; the
        return None  # limbs assume X_i >= 0 (negative incomes: the general path raises)
    for q in extra:
        if _dyadic_exponent(q) is None:
            return None
    M = np.empty(xs.size, dtype=np.int64)
    E = np.empty(xs.size, dtype=np.int32)
    emin = 0
    for c0 in range(0, xs.size, _BUILD_CHUNK):  # chunks: no n-sized float temporaries
        frac, e = np.frexp(xs[c0:c0 + _BUILD_CHUNK])
        m = M[c0:c0 + frac.size]
        m[:] = np.ldexp(frac, 53)
        ec = E[c0:c0 + frac.size]
        ec[:] = e
        ec -= 53
        nz = m != 0
        if nz.any():
            emin = min(emin, int(ec[nz].min()))
        ec[~nz] = 0
    D = max([-emin, *(_dyadic_exponent(q) for q in extra)])
    E[M != 0] += D
    return _Exact(xs, D, M, E.astype(np.int16 if int(E.max(initial=0)) < 2**15 else np.int32))


def _float_array_scaled(x: Any, extra: tuple[Fraction, ...] = ()) -> tuple[list[int], int] | None:
    """(sorted values scaled to Python ints, common denominator ``den = 2**D``) of a float
    array, or None (see :func:`exact_floats`).  A list of n Python ints: for small data
    (tests, partition checks); the large-n paths keep :class:`_Exact` instead."""
    ex = exact_floats(x, extra)
    if ex is None:
        return None
    return ex.values(0, ex.n), 1 << ex.D


def _weighted(xs: list[Fraction]) -> Fraction:
    """sum_r (2r - n - 1) x_(r) for sorted xs."""
    n = len(xs)
    return sum(((2 * r - n - 1) * v for r, v in enumerate(xs, 1)), Fraction(0))


# ------------------------------------------------------------------------ Gini index
def _gini_parts_fast(x: Any) -> tuple[int, int, int] | None:
    """(sum_r (2r-n-1) v_r, sum_r v_r, n) on the exact scaled integers of a float array (the
    common denominator cancels in g), or None: the general path then validates and raises."""
    ex = exact_floats(x)
    if ex is None:
        return None
    n = ex.n
    if n < 2 or int(ex.M[0]) < 0 or ex.total == 0:
        return None  # the general path raises the right error
    # sum (2r - n - 1) X_r = 2 sum r X_r - (n + 1) sum X_r  (1-based r)
    return 2 * ex.weighted - (n + 1) * ex.total, ex.total, n


def gini_eq2(x: Any) -> Fraction:
    """Gini index, Lan & Reiter eq. (2): sum_i (2i-n-1) x_(i) / ((n-1) sum_i x_i), exactly.

    Range [0, 1] (1 when one record holds the whole total).  Raises for n < 2, a negative
    record or total 0.
    """
    fast = _gini_parts_fast(x)
    if fast is not None:
        N, S, n = fast
        return Fraction(N, (n - 1) * S)
    xs = _nonneg_data(x)
    n = len(xs)
    return _weighted(xs) / ((n - 1) * sum(xs))


def gini_eq1(x: Any) -> Fraction:
    """Gini index, Lan & Reiter eq. (1): sum_i sum_j |x_i - x_j| / (2 n^2 xbar), exactly.

    Evaluated through the sorted identity sum_{i,j} |x_i - x_j| = 2 sum_i (2i-n-1) x_(i)
    (each unordered pair counted twice; for sorted data the record of rank i exceeds i-1
    records and is exceeded by n-i), hence eq. (1) = sum_i (2i-n-1) x_(i) / (n S) and
    ``gini_eq1(x) == (n-1)/n * gini_eq2(x)``.  Range [0, (n-1)/n].
    """
    fast = _gini_parts_fast(x)
    if fast is not None:
        N, S, n = fast
        return Fraction(N, n * S)
    xs = _nonneg_data(x)
    n = len(xs)
    return _weighted(xs) / (n * sum(xs))


class _LazyValues:
    """``xs`` of :class:`_Scaled` on the fast path: X_i read on demand (int index, slice,
    iteration, ``len``; ``bisect`` works through indexing)."""

    def __init__(self, ex: _Exact) -> None:
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
        for a in range(0, self._ex.n, _BUILD_CHUNK):
            yield from self._ex.values(a, min(self._ex.n, a + _BUILD_CHUNK))


class _LazyTable:
    """A 1-based prefix table read on demand: ``kind`` "P", "R" or "C" (C_t = 2 R_t -
    (n + 1) P_t, exactly)."""

    def __init__(self, ex: _Exact, kind: str) -> None:
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
def _scaled(x: Any, L: Any, U: Any) -> _Scaled:
    """``x`` itself when it already is a :class:`_Scaled` of the same bounds (prepared once
    by :func:`gini_and_smooth`), else a new one."""
    if isinstance(x, _Scaled) and x.Lf == exact(L, "L") and x.Uf == exact(U, "U"):
        return x
    return _Scaled(x, L, U)


class _Scaled:
    """Sorted data and bounds scaled to integers by a common denominator, with prefix tables
    (see the module docstring).  All optima are computed on these integers."""

    def __init__(self, x: Any, L: Any, U: Any) -> None:
        Lf, Uf = exact(L, "L"), exact(U, "U")
        ex = exact_floats(x, (Lf, Uf))
        self._xf: list[Fraction] | None = None
        if ex is not None:
            xs: Any = _LazyValues(ex)
            den = 1 << ex.D
            n = ex.n
        else:
            xf = _as_list(x)
            n = len(xf)
            xf.sort()
            den = math.lcm(*{v.denominator for v in xf}, Lf.denominator, Uf.denominator)
            xs = [v.numerator * (den // v.denominator) for v in xf]
            self._xf = xf
        if n < 2:
            raise TooFewRecordsError(f"x must have n >= 2 records, got n = {n}")
        _check_bounds(Lf, Uf)
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


def _entry(sc: _Scaled, k: int, witnesses: bool) -> dict:
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
    distance <= k attaining the Gini optima; omitted if ``witnesses=False``).  See the module
    docstring, items 1-3, for the derivations.  Cost O(n + k_max^2 log n) integer ops.
    """
    sc = _Scaled(x, L, U)
    km = sc.n if k_max is None else _check_k(k_max, sc.n, "k_max")
    return [_entry(sc, k, witnesses) for k in range(km + 1)]


def extremes_k(x: Any, L: Any, U: Any, k: int, *, witnesses: bool = True) -> dict:
    """The entry of :func:`extremes` for one k only (cost O(n + k log n))."""
    sc = _Scaled(x, L, U)
    return _entry(sc, _check_k(k, sc.n), witnesses)


# ----------------------------------------------------------------------------- bounds
def _combine(n: int, L: Fraction, U: Fraction, g_lo: Fraction, g_hi: Fraction,
             s_lo: Fraction, s_hi: Fraction) -> Fraction:
    """max(C1, C2) of eqs. (21)/(22)* for totals s_lo <= S <= s_hi, Gini in [g_lo, g_hi];
    1 when s_lo <= U - L or the maximum exceeds 1 (eq. 23)."""
    W = U - L
    if not s_lo - W > 0:
        return Fraction(1)
    c1 = max(W * (1 - g_lo) / (s_lo + W), 2 * (s_hi - n * L) / (s_lo * (n - 1)))
    c2 = max(W * (g_hi + 1) / (s_lo - W), 2 * (n * U - s_lo) / ((s_lo - W) * (n - 1)))
    a = max(c1, c2)
    return a if a <= 1 else Fraction(1)


def bound_A(n: int, L: Any, U: Any, min_g: Any, max_g: Any, min_mean: Any,
            max_mean: Any) -> Fraction:
    """A^(k) of Theorem 4.3, eq. (23), with eq. (22) corrected (factor max g + 1).

    C1 = max((U-L)(1 - min g)/(n min xbar + (U-L)), 2(n max xbar - nL)/(n min xbar (n-1)))
    C2 = max((U-L)(max g + 1)/(n min xbar - (U-L)),
             2n(U - min xbar)/((n min xbar - (U-L))(n-1)));
    A = max(C1, C2) if n min xbar - (U-L) > 0 and max(C1, C2) <= 1, else 1.
    All arguments are converted exactly; the result is an exact Fraction in (0, 1].
    """
    nn = _check_n(n)
    Lf, Uf = exact(L, "L"), exact(U, "U")
    _check_bounds(Lf, Uf)
    g_lo, g_hi = exact(min_g, "min_g"), exact(max_g, "max_g")
    m_lo, m_hi = exact(min_mean, "min_mean"), exact(max_mean, "max_mean")
    if not 0 <= g_lo <= g_hi <= 1:
        raise InvalidParameterError(f"need 0 <= min_g <= max_g <= 1, got {g_lo}, {g_hi}")
    if not Lf <= m_lo <= m_hi <= Uf:
        raise InvalidParameterError(
            f"need L <= min_mean <= max_mean <= U, got {m_lo}, {m_hi} (L={Lf}, U={Uf})")
    return _combine(nn, Lf, Uf, g_lo, g_hi, nn * m_lo, nn * m_hi)


def bound_A_iq(n: int, total: Any, L: Any, U: Any, k: int) -> Fraction:
    """Data-light bound in the spirit of Theorem 4.4 (eq. 24), exactly.

    The four terms of (21)/(22)* with min g = 0, max g = 1, n min xbar replaced by
    S_lo = max(nL, S - k(U-L)) and n max xbar by S_hi = min(nU, S + k(U-L)), S = ``total``
    (each term is monotone in the right direction, so this is >= :func:`bound_A`).
    """
    nn = _check_n(n)
    Lf, Uf = exact(L, "L"), exact(U, "U")
    _check_bounds(Lf, Uf)
    S = exact(total, "total")
    kk = _check_k(k, nn)
    if not nn * Lf <= S <= nn * Uf:
        raise InvalidParameterError(f"total must be in [nL, nU], got {S} (n={nn})")
    if S == 0:
        raise ZeroTotalError("total must be > 0 (Gini undefined for an all-zero data set)")
    W = Uf - Lf
    s_lo = max(nn * Lf, S - kk * W)
    s_hi = min(nn * Uf, S + kk * W)
    return _combine(nn, Lf, Uf, Fraction(0), Fraction(1), s_lo, s_hi)


# ------------------------------------------------------------------ smooth sensitivity
@dataclass(frozen=True)
class SmoothRef:
    """Result of :func:`smooth_sensitivity`.

    ``value``: S = max_{k} e^{-beta k} A^(k) as an mpmath mpf at ``dps_used`` digits,
    certified to 30 significant digits; ``value_float``: a float >= the exact real S (the
    smallest double >= value (1 + 1e-30)); ``A[k]`` = A^(k) (exact) for k = 0..k_evaluated.
    """

    value: Any
    value_float: float
    k_argmax: int
    k_evaluated: int
    A: list[Fraction]
    dps_used: int
    beta: Fraction
    bound: str
    n: int


_CERT_DIGITS = 30


def _float_up(v: Any) -> float:
    """Smallest double >= the mpf ``v`` (v finite, well inside the double range)."""
    f = float(v)
    if mpmath.mpf(f) < v:
        f = math.nextafter(f, math.inf)
    return f


def _scan(A_of: Callable[[int], Fraction], cache: list[Fraction], n: int, beta: Fraction,
          dps: int) -> tuple[Any, int, int]:
    """Pruned max over k at ``dps`` digits: (max, k_argmax, k_evaluated)."""
    with mpmath.workdps(dps):
        mb = mpmath.mpf(beta.numerator) / beta.denominator
        margin = 1 + mpmath.mpf(2) ** (-(mpmath.mp.prec - 8))  # only lengthens the scan
        best, kbest = mpmath.mpf(-1), 0
        for k in range(n + 1):
            if k == len(cache):
                cache.append(A_of(k))
            a = cache[k]
            decay = mpmath.exp(-mb * k)
            term = decay * mpmath.mpf(a.numerator) / a.denominator
            if term > best:
                best, kbest = term, k
            if decay * margin <= best:
                return +best, kbest, k
        return +best, kbest, n


def smooth_sensitivity(x: Any, L: Any, U: Any, beta: Any,
                       bound: Literal["thm43", "thm44"] = "thm43", dps: int = 50) -> SmoothRef:
    """beta-smooth sensitivity bound S(X) = max_{k=0..n} e^{-beta k} A^(k)(X), eq. (8).

    A^(k) is :func:`bound_A` on the exact k-ball extremes (``"thm43"``, Theorem 4.3 with
    (22) corrected) or :func:`bound_A_iq` (``"thm44"``), both exact Fractions; k starts at 0
    (Algorithm 3).  ``beta`` (float or Fraction) is converted exactly.

    Pruning (Section 4.4, dynamic): after adding the k-th term the scan stops at the first k
    with e^{-beta k} <= current maximum, since A^(j) <= 1 bounds every later term by
    e^{-beta (k+1)}; the comparison carries a relative margin of 2^-(prec-8) so that
    rounding can only lengthen the scan.  The extremes are computed incrementally in k on
    prefix tables built once.

    Precision certificate: the scan is run at ``dps`` (at least 35) and at ``dps + 30``
    digits; the two maxima must agree to 30 significant digits and have the same argmax and
    stopping k.  If not, ``dps`` is raised by 30 and both are redone (the exact A^(k) are
    cached), up to 5 times, then :class:`PrecisionError`.  ``dps_used`` reports the
    precision of the returned ``value``.
    """
    if bound not in ("thm43", "thm44"):
        raise InvalidParameterError(f"bound must be 'thm43' or 'thm44', got {bound!r}")
    b = _check_beta_dps(beta, dps)
    sc = _scaled(x, L, U)
    n = sc.n
    if bound == "thm43":
        def A_of(k: int) -> Fraction:
            mmin, mmax, gmin, gmax, _, _ = sc.optima(k)
            return bound_A(n, sc.Lf, sc.Uf, gmin, gmax, mmin, mmax)
    else:
        total = sc.total

        def A_of(k: int) -> Fraction:
            return bound_A_iq(n, total, sc.Lf, sc.Uf, k)

    return _certified_scan(A_of, n, b, dps, bound)


def _check_beta_dps(beta: Any, dps: Any) -> Fraction:
    """beta > 0 as an exact Fraction; dps a positive integer."""
    b = exact(beta, "beta")
    if b <= 0:
        raise InvalidParameterError(f"beta must be > 0, got {beta!r}")
    if isinstance(dps, bool) or not isinstance(dps, numbers.Integral) or dps < 1:
        raise InvalidParameterError(f"dps must be a positive integer, got {dps!r}")
    return b


def _certified_scan(A_of: Callable[[int], Fraction], n: int, b: Fraction, dps: int,
                    bound: str) -> SmoothRef:
    """The pruned scan at ``dps`` and ``dps + 30`` digits until both agree to 30 digits
    with the same argmax and stopping k (raising the precision up to 5 times)."""
    cache: list[Fraction] = []
    d = max(int(dps), _CERT_DIGITS + 5)
    for _ in range(5):
        v1, k1, e1 = _scan(A_of, cache, n, b, d)
        v2, k2, e2 = _scan(A_of, cache, n, b, d + _CERT_DIGITS)
        with mpmath.workdps(d + _CERT_DIGITS):
            agree = abs(v1 - v2) <= abs(v2) * mpmath.mpf(10) ** (-_CERT_DIGITS)
            vf = _float_up(v2 * (1 + mpmath.mpf(10) ** (-_CERT_DIGITS)))
        if agree and (k1, e1) == (k2, e2):
            return SmoothRef(value=v1, value_float=vf, k_argmax=k1, k_evaluated=e1,
                             A=list(cache[: e1 + 1]), dps_used=d, beta=b, bound=bound, n=n)
        d += _CERT_DIGITS
    raise PrecisionError(f"{bound} smooth sensitivity not certified up to {d} digits")


# ------------------------------------------------------------------ local sensitivity
def local_sensitivity_exact(x: Any, L: Any, U: Any) -> Fraction:
    """True local sensitivity LS(X) = max |g(X') - g(X)| of eq. (2) over replace-one
    neighbours X' (values in [L, U]; neighbours of total 0 excluded), exactly.

    Candidate set (complete): fix the replaced position m and let v be the new value.  The
    numerator N is continuous and piecewise linear in v with kinks at the other records'
    values (N = sum of pairwise gaps); between two consecutive values of the other records
    the rank of v is fixed and g(v) = (alpha + beta v)/(delta + v) is a ratio of affine
    functions with positive denominator, hence monotone; so |g(v) - g(X)| is maximised on
    each closed piece at an endpoint, and over [L, U] at v in {L, U} or a value of another
    record.  (If the other records are all 0 and L = 0, v = 0 gives total 0 and is
    excluded; then g(v) = 1 for every v > 0, attained at v = U.)  Positions holding equal
    values give the same neighbours, so one position per distinct value is used.
    Cost O(d n log n) for d distinct values.
    """
    sc = _Scaled(x, L, U)
    n, xs = sc.n, sc.xs
    N0, D0 = sc.gini_nd()
    cands = sorted({sc.lo, sc.hi, *xs})
    best_num, best_den = 0, 1  # |N D0 - N0 D| / (D D0): compare by cross-multiplication
    seen = set()
    for m in range(n):
        if xs[m] in seen:
            continue
        seen.add(xs[m])
        rest = xs[:m] + xs[m + 1:]
        Pr = [0, *accumulate(rest)]
        Wr = [0, *accumulate((2 * t - n - 1) * v for t, v in enumerate(rest, 1))]
        tot = Pr[n - 1]
        for v in cands:
            rho1 = bisect.bisect_left(rest, v)  # records placed before v: rank rho1 + 1
            N = Wr[n - 1] + 2 * (tot - Pr[rho1]) + (2 * rho1 + 1 - n) * v
            D = tot + v
            if D == 0:
                continue
            num = abs(N * D0 - N0 * D)
            den = D * D0
            if num * best_den > best_num * den:
                best_num, best_den = num, den
    return Fraction(best_num, best_den * (n - 1))


# ------------------------------------------------------------------------------ noise
def _gamma_mp(gamma: Any) -> Fraction:
    g = exact(gamma, "gamma")
    if g <= 1:
        raise InvalidParameterError(f"gamma must be > 1 (density (10) improper), got {gamma!r}")
    return g


def _mp(q: Fraction) -> Any:
    return mpmath.mpf(q.numerator) / q.denominator


def _z_mp(z: Any) -> Any:
    """z as an exact mpf (floats are exact in binary); +/-inf allowed, NaN refused."""
    if isinstance(z, mpmath.mpf) and mpmath.isinf(z):
        return z
    if isinstance(z, float) or (isinstance(z, numbers.Real) and not isinstance(
            z, (numbers.Rational, Decimal)) and hasattr(z, "as_integer_ratio")):
        zf = float(z)
        if math.isnan(zf):
            raise NonFiniteError("z must not be NaN")
        if math.isinf(zf):
            return mpmath.inf if zf > 0 else -mpmath.inf
    return _mp(exact(z, "z"))


def _two_precisions(fn: Callable[[], Any], dps: int, what: str) -> Any:
    """Evaluate ``fn`` at ``dps`` and ``dps + 20`` digits; require relative agreement to
    dps - 10 digits (absolute when the value is 0); return the ``dps`` value."""
    if isinstance(dps, bool) or not isinstance(dps, numbers.Integral) or dps < 15:
        raise InvalidParameterError(f"dps must be an integer >= 15, got {dps!r}")
    with mpmath.workdps(dps):
        a = fn()
    with mpmath.workdps(dps + 20):
        b = fn()
        tol = mpmath.mpf(10) ** (-(dps - 10))
        if mpmath.isinf(b) or b == 0:
            ok = a == b
        else:
            ok = abs(a - b) <= tol * abs(b)
    if not ok:
        raise PrecisionError(f"{what}: {dps} and {dps + 20} digits disagree ({a} vs {b})")
    return a


def powerlaw_constant(gamma: Any, dps: int = 50) -> Any:
    """c = gamma sin(pi/gamma)/(2 pi), the normalising constant of density (10):
    int_R dz/(1+|z|^gamma) = 2 (pi/gamma)/sin(pi/gamma) (Beta-function integral and the
    reflection formula)."""
    g = _gamma_mp(gamma)

    def f() -> Any:
        gm = _mp(g)
        return gm * mpmath.sin(mpmath.pi / gm) / (2 * mpmath.pi)

    return _two_precisions(f, dps, "powerlaw_constant")


def powerlaw_pdf(z: Any, gamma: Any, dps: int = 50) -> Any:
    """Density (10) of Lan & Reiter (2025): p(z) = c/(1 + |z|^gamma),
    c = gamma sin(pi/gamma)/(2 pi), as an mpf (checked at two precisions)."""
    g = _gamma_mp(gamma)

    def f() -> Any:
        gm = _mp(g)
        zz = _z_mp(z)
        if mpmath.isinf(zz):
            return mpmath.mpf(0)
        c = gm * mpmath.sin(mpmath.pi / gm) / (2 * mpmath.pi)
        return c / (1 + abs(zz) ** gm)

    return _two_precisions(f, dps, "powerlaw_pdf")


def _halves(absz: Any, gm: Any) -> tuple[Any, Any]:
    """(E, S) = (F(|z|) - 1/2, 1 - F(|z|)) for |z| >= 0 at the current precision.

    With a = 1/gamma, b = 1 - 1/gamma, t = s^(1/gamma) and u = s/(1+s):
    int_0^x dt/(1+t^gamma) = a B(u; a, b), u = x^gamma/(1+x^gamma), and c a B(a, b) = 1/2, so
    E = I_u(a, b)/2.  Complement: 1 - I_u(a, b) = I_{1-u}(b, a), 1-u = 1/(1+x^gamma), so
    S = I_w(b, a)/2 with w = 1/(1+x^gamma).  The half with argument <= 1/2 is evaluated
    (|z| <= 1: u-form, else w-form) and the other one is 1/2 minus it.
    """
    a = 1 / gm
    b = 1 - a
    if mpmath.isinf(absz):
        return mpmath.mpf(1) / 2, mpmath.mpf(0)
    if absz <= 1:
        p = absz ** gm
        e = mpmath.betainc(a, b, 0, p / (1 + p), regularized=True) / 2
        return e, mpmath.mpf(1) / 2 - e
    w = 1 / (1 + absz ** gm)
    s = mpmath.betainc(b, a, 0, w, regularized=True) / 2
    return mpmath.mpf(1) / 2 - s, s


def powerlaw_cdf(z: Any, gamma: Any, dps: int = 50) -> Any:
    """Cdf of density (10): F(z) = 1/2 + I_u(1/gamma, 1-1/gamma)/2, u = z^gamma/(1+z^gamma)
    for z >= 0, and F(z) = I_w(1-1/gamma, 1/gamma)/2, w = 1/(1+|z|^gamma) for z < 0 (the
    complementary form keeps relative accuracy in the left tail); mpmath, two precisions."""
    g = _gamma_mp(gamma)

    def f() -> Any:
        zz = _z_mp(z)
        e, s = _halves(abs(zz), _mp(g))
        return s if zz < 0 else mpmath.mpf(1) / 2 + e

    return _two_precisions(f, dps, "powerlaw_cdf")


def powerlaw_sf(z: Any, gamma: Any, dps: int = 50) -> Any:
    """Survival function 1 - F(z) of density (10) (= F(-z)), with relative accuracy in the
    right tail (I_w(1-1/gamma, 1/gamma)/2, w = 1/(1+z^gamma))."""
    g = _gamma_mp(gamma)

    def f() -> Any:
        zz = _z_mp(z)
        e, s = _halves(abs(zz), _mp(g))
        return s if zz > 0 else mpmath.mpf(1) / 2 + e

    return _two_precisions(f, dps, "powerlaw_sf")


def powerlaw_ppf(q: Any, gamma: Any, dps: int = 50) -> Any:
    """Quantile of density (10): the z with F(z) = q, as an mpf (ppf(0) = -inf, ppf(1) = inf).

    With m = min(q, 1-q) the magnitude x = |z| solves S(x) = m; solved by Newton's method
    in t = log x (dS/dt = -x p(x)) from the tail / centre asymptotics, safeguarded by a
    bracket (bisection when a step leaves it), to the working precision; the sign is that
    of q - 1/2.  Checked at two precisions like the other functions.
    """
    g = _gamma_mp(gamma)
    qq = exact(q, "q")
    if not 0 <= qq <= 1:
        raise InvalidParameterError(f"q must be in [0, 1], got {q!r}")

    def f() -> Any:
        if qq == 0:
            return -mpmath.inf
        if qq == 1:
            return mpmath.inf
        if 2 * qq == 1:
            return mpmath.mpf(0)
        gm = _mp(g)
        m = _mp(min(qq, 1 - qq))
        c = gm * mpmath.sin(mpmath.pi / gm) / (2 * mpmath.pi)
        # start: tail S ~ c x^(1-g)/(g-1), centre 1/2 - S ~ c x
        if m < mpmath.mpf(1) / 4:
            t = mpmath.log(c / ((gm - 1) * m)) / (gm - 1)
        else:
            t = mpmath.log((mpmath.mpf(1) / 2 - m) / c)
        lo, hi = -mpmath.inf, mpmath.inf  # bracket in t: S(e^lo) > m > S(e^hi)
        eps = mpmath.mpf(10) ** (-(mpmath.mp.dps - 5))
        for _ in range(10 * mpmath.mp.dps + 200):
            x = mpmath.exp(t)
            e, s = _halves(x, gm)
            r = s - m  # decreasing in t
            if r > 0:
                lo = t
            else:
                hi = t
            if r == 0:
                break
            slope = x * c / (1 + x ** gm)
            step = r / slope
            tn = t + step
            if not (lo < tn < hi):
                if mpmath.isinf(lo) or mpmath.isinf(hi):
                    tn = t + (1 if r > 0 else -1) * max(abs(step), 1)
                    tn = min(max(tn, t - 50), t + 50)
                else:
                    tn = (lo + hi) / 2
            if abs(tn - t) <= eps * max(1, abs(t)):
                t = tn
                break
            t = tn
        else:  # pragma: no cover - Newton converges quadratically from these starts
            raise PrecisionError(f"powerlaw_ppf did not converge for q={qq}, gamma={g}")
        x = mpmath.exp(t)
        return x if 2 * qq > 1 else -x

    return _two_precisions(f, dps, "powerlaw_ppf")


def _scale_mp(scale: Any) -> Fraction:
    b = exact(scale, "scale")
    if b <= 0:
        raise InvalidParameterError(f"scale must be > 0, got {scale!r}")
    return b


def laplace_pdf(z: Any, scale: Any = 1, dps: int = 50) -> Any:
    """Laplace density exp(-|z|/b)/(2b), b = ``scale`` > 0 (mpmath, two precisions)."""
    b = _scale_mp(scale)

    def f() -> Any:
        zz, bb = _z_mp(z), _mp(b)
        if mpmath.isinf(zz):
            return mpmath.mpf(0)
        return mpmath.exp(-abs(zz) / bb) / (2 * bb)

    return _two_precisions(f, dps, "laplace_pdf")


def laplace_cdf(z: Any, scale: Any = 1, dps: int = 50) -> Any:
    """Laplace cdf: e^{z/b}/2 for z < 0, 1 - e^{-z/b}/2 for z >= 0 (mpmath, two precisions)."""
    b = _scale_mp(scale)

    def f() -> Any:
        zz, bb = _z_mp(z), _mp(b)
        e = mpmath.exp(-abs(zz) / bb) / 2 if not mpmath.isinf(zz) else mpmath.mpf(0)
        return e if zz < 0 else 1 - e

    return _two_precisions(f, dps, "laplace_cdf")


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

    def __init__(self, sc: _Scaled, i0: int, i1: int, const: int, copies: int) -> None:
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


def _tight_from_scaled(sc: _Scaled, k: int, g_lo: Fraction, g_hi: Fraction,
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
    sc = _Scaled(x, L, U)
    kk = _check_k(k, sc.n)
    _, _, gmin, gmax, _, _ = sc.optima(kk)
    return _tight_from_scaled(sc, kk, gmin, gmax, search)


def smooth_sensitivity_tight(x: Any, L: Any, U: Any, beta: Any, dps: int = 50) -> SmoothRef:
    """S_tight(X) = max_{k=0..n} e^{-beta k} A_tight^(k)(X) exactly (A_tight <= 1, so the
    pruned scan and the precision certificate of :func:`smooth_sensitivity` apply as is)."""
    b = _check_beta_dps(beta, dps)
    sc = _scaled(x, L, U)

    def A_of(k: int) -> Fraction:
        _, _, gmin, gmax, _, _ = sc.optima(k)
        return _tight_from_scaled(sc, k, gmin, gmax)

    return _certified_scan(A_of, sc.n, b, dps, "tight")


def gini_and_smooth(x: Any, L: Any, U: Any, beta: Any,
                    bound: Literal["thm43", "thm44", "tight"] = "thm43",
                    dps: int = 50) -> tuple[Fraction, SmoothRef]:
    """(:func:`gini_eq2`, :func:`smooth_sensitivity` or :func:`smooth_sensitivity_tight`) of
    one data set from one exact scaled representation (issue 16: one O(n) exact pass over
    the records instead of two).  Equal to the two functions called separately (the common
    denominator cancels in eq. (2); tested); raises like them."""
    if bound not in ("thm43", "thm44", "tight"):
        raise InvalidParameterError(
            f"bound must be 'thm43', 'thm44' or 'tight', got {bound!r}")
    sc = _Scaled(x, L, U)
    if sc.xs[0] < 0:
        g = gini_eq2(x)  # raises NegativeIncomeError (L < 0 is allowed by the bounds check)
    else:
        n = sc.n
        tot = sc.P[n]
        g = Fraction(2 * sc.R[n] - (n + 1) * tot, (n - 1) * tot)
    ss = (smooth_sensitivity_tight(sc, L, U, beta, dps) if bound == "tight"
          else smooth_sensitivity(sc, L, U, beta, bound=bound, dps=dps))
    return g, ss


__all__ += ["bound_A_tight", "gini_and_smooth", "smooth_sensitivity_tight"]
