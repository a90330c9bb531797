"""Exact conversions of the reference: numbers to :class:`fractions.Fraction`, the input
checks, and :class:`Exact`, a float array held exactly as int64 limb block sums on one common
power-of-two denominator (the fast path for large n)."""

from __future__ import annotations

import numbers
import operator
from collections.abc import Iterable
from decimal import Decimal
from fractions import Fraction
from itertools import accumulate
from typing import Any

import mpmath
import numpy as np

from proofs.gini.reference.errors import (
    InvalidBoundsError,
    InvalidKError,
    NegativeIncomeError,
    NonFiniteError,
    NotNumericError,
    TooFewRecordsError,
    ZeroTotalError,
)

Number = int | float | Fraction | Decimal


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


def as_list(x: Any, name: str = "x") -> list[Fraction]:
    if isinstance(x, (str, bytes)) or not isinstance(x, Iterable):
        raise NotNumericError(f"{name} must be a sequence of numbers, got {x!r}")
    out = []
    for i, v in enumerate(x):
        out.append(exact(v, f"{name}[{i}]"))
    return out


def check_k(k: Any, n: int, name: str = "k") -> int:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise InvalidKError(f"{name} must be an integer in 0..{n}, got {k!r}")
    kk = int(k)
    if not 0 <= kk <= n:
        raise InvalidKError(f"{name} must be in 0..{n} (n = {n}), got {kk}")
    return kk


def check_n(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TooFewRecordsError(f"n must be an integer >= 2, got {n!r}")
    if int(n) < 2:
        raise TooFewRecordsError(f"n must be >= 2 (the Gini index needs two records), got {n}")
    return int(n)


def check_bounds(L: Fraction, U: Fraction) -> None:
    if L < 0:
        raise InvalidBoundsError(f"lower bound L must be >= 0 for incomes, got L={L}")
    if U <= L:
        raise InvalidBoundsError(f"upper bound U must be > L, got L={L}, U={U}")


def nonneg_data(x: Any) -> list[Fraction]:
    xs = sorted(as_list(x))
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


#: records per exact block prefix value (:class:`Exact`)
_BLOCK = 64
#: bits per limb of the int64 block sums (a limb times a 1-based rank < 2^31 times _BLOCK
#: records stays below 2^61: no int64 overflow for n < 2^31)
_LIMB = 24
#: records per vectorised chunk while building (bounds the temporaries)
BUILD_CHUNK = 1 << 20


class Exact:
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
        for c0 in range(0, n, BUILD_CHUNK):
            c1 = min(n, c0 + BUILD_CHUNK)
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


def exact_floats(x: Any, extra: tuple[Fraction, ...] = ()) -> Exact | None:
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
    for c0 in range(0, xs.size, BUILD_CHUNK):  # chunks: no n-sized float temporaries
        frac, e = np.frexp(xs[c0:c0 + BUILD_CHUNK])
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
    return Exact(xs, D, M, E.astype(np.int16 if int(E.max(initial=0)) < 2**15 else np.int32))


def _float_array_scaled(x: Any, extra: tuple[Fraction, ...] = ()) -> tuple[list[int], int] | None:
    """(sorted values scaled to Python ints, common denominator ``den = 2**D``) of a float
    array, or None (see :func:`exact_floats`).  A list of n Python ints: for small data
    (tests, partition checks); the large-n paths keep :class:`Exact` instead."""
    ex = exact_floats(x, extra)
    if ex is None:
        return None
    return ex.values(0, ex.n), 1 << ex.D
