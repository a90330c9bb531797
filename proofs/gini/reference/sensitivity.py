"""Local-sensitivity bounds A^(k) (eqs. 21-23, Theorem 4.4 eq. 24), the smooth sensitivity
(eq. 8) with its precision certificate, and the exact local sensitivity.  Mirrors
:mod:`kernels.gini.sensitivity`."""

from __future__ import annotations

import bisect
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate
from typing import Any, Literal

import mpmath

from audit.rounding import float_up
from proofs.gini.reference.errors import InvalidParameterError, PrecisionError, ZeroTotalError
from proofs.gini.reference.extremes import Scaled, scaled_data
from proofs.gini.reference.rational import check_bounds, check_k, check_n, exact


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
    nn = check_n(n)
    Lf, Uf = exact(L, "L"), exact(U, "U")
    check_bounds(Lf, Uf)
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
    nn = check_n(n)
    Lf, Uf = exact(L, "L"), exact(U, "U")
    check_bounds(Lf, Uf)
    S = exact(total, "total")
    kk = check_k(k, nn)
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
    b = check_beta_dps(beta, dps)
    sc = scaled_data(x, L, U)
    n = sc.n
    if bound == "thm43":
        def A_of(k: int) -> Fraction:
            mmin, mmax, gmin, gmax, _, _ = sc.optima(k)
            return bound_A(n, sc.Lf, sc.Uf, gmin, gmax, mmin, mmax)
    else:
        total = sc.total

        def A_of(k: int) -> Fraction:
            return bound_A_iq(n, total, sc.Lf, sc.Uf, k)

    return certified_scan(A_of, n, b, dps, bound)


def check_beta_dps(beta: Any, dps: Any) -> Fraction:
    """beta > 0 as an exact Fraction; dps a positive integer."""
    b = exact(beta, "beta")
    if b <= 0:
        raise InvalidParameterError(f"beta must be > 0, got {beta!r}")
    if isinstance(dps, bool) or not isinstance(dps, numbers.Integral) or dps < 1:
        raise InvalidParameterError(f"dps must be a positive integer, got {dps!r}")
    return b


def certified_scan(A_of: Callable[[int], Fraction], n: int, b: Fraction, dps: int,
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
            vf = float_up(v2 * (1 + mpmath.mpf(10) ** (-_CERT_DIGITS)))
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
    sc = Scaled(x, L, U)
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
