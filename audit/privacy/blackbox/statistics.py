"""Binomial confidence bounds for the black-box tester: one-sided Clopper-Pearson bounds,
the Bonferroni level per bound, the certified log-ratio and the selection score.

Guarantee: for any true proportion p, ``P(clopper_pearson_lower(X, n, a) <= p) >= 1 - a``
and ``P(clopper_pearson_upper(X, n, a) >= p) >= 1 - a`` (X ~ Bin(n, p)); every bound is
widened by a relative 2^-36 in the safe direction (see ``README.md`` beside this module for
the measured error).  Cites Clopper & Pearson (1934), the exact binomial interval.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
from scipy import special

from kernels.errors import InvalidParameterError

__all__ = [
    "bonferroni_level",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "expected_bound",
    "log_ratio",
    "predicted_bound",
]

_SAFETY = 2.0**-36  # relative widening of every Clopper-Pearson bound (safe direction)


def _check_counts(k: Any, n: Any, alpha: Any) -> tuple[np.ndarray, np.ndarray, float]:
    kk = np.asarray(k)
    nn = np.asarray(n)
    if kk.dtype.kind not in "iu" and not (kk.dtype.kind == "f" and np.all(kk == np.floor(kk))):
        raise InvalidParameterError(f"k must be integer counts, got {k!r}")
    if nn.dtype.kind not in "iu" and not (nn.dtype.kind == "f" and np.all(nn == np.floor(nn))):
        raise InvalidParameterError(f"n must be integer sample sizes, got {n!r}")
    kk = kk.astype(np.float64)
    nn = nn.astype(np.float64)
    if np.any(nn < 1):
        raise InvalidParameterError(f"n must be >= 1, got {n!r}")
    if np.any(kk < 0) or np.any(kk > nn):
        raise InvalidParameterError(f"k must lie in 0..n, got k={k!r}, n={n!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, (numbers.Real, np.floating)):
        raise InvalidParameterError(f"alpha must be a real number in (0, 1), got {alpha!r}")
    a = float(alpha)
    if not 0.0 < a < 1.0:
        raise InvalidParameterError(f"alpha must be in (0, 1), got {alpha!r}")
    return kk, nn, a


def _scalar_or_array(x: np.ndarray) -> Any:
    return float(x) if x.ndim == 0 else x


def _newton(x: np.ndarray, a: np.ndarray, b: np.ndarray, q: float, upper: bool) -> np.ndarray:
    """Two Newton steps on I_x(a, b) = q (``upper``: 1 - I_x(a, b) = q) from scipy's inverse.

    scipy's inverses lose relative accuracy for tiny x and huge b (up to ~1e-9 at
    n = 10^8, k = 1); the forward functions do not, so polishing brings the error to
    ~1e-13 there (measured against exact binomial tails in mpmath)."""
    x = np.asarray(x, dtype=np.float64)
    for _ in range(2):
        ok = (x > 0) & (x < 1)
        xs = np.where(ok, x, 0.5)
        logpdf = (a - 1) * np.log(xs) + (b - 1) * np.log1p(-xs) - special.betaln(a, b)
        pdf = np.exp(logpdf)
        f = special.betaincc(a, b, xs) if upper else special.betainc(a, b, xs)
        step = (f - q) / pdf if upper else -(f - q) / pdf
        new = xs + step
        good = ok & np.isfinite(new) & (pdf > 0) & (new > 0) & (new < 1)
        x = np.where(good, new, x)
    return x


def clopper_pearson_lower(k: Any, n: Any, alpha: float) -> Any:
    """One-sided Clopper-Pearson lower bound on a binomial proportion.

    Returns p_L with P_{p_L}(X >= k) = alpha (X ~ Bin(n, p_L)), i.e. the alpha-quantile of
    Beta(k, n - k + 1); 0 when k = 0.  For any true p, P(p_L <= p) >= 1 - alpha.  Shrunk by
    a relative 2^-36 (safe direction).  ``k``, ``n`` may be arrays (broadcast).
    """
    kk, nn, a = _check_counts(k, n, alpha)
    aa, bb = np.maximum(kk, 1.0), nn - kk + 1.0
    with np.errstate(all="ignore"):
        lo = _newton(special.betaincinv(aa, bb, a), aa, bb, a, upper=False)
    lo = np.where(kk > 0, lo * (1.0 - _SAFETY), 0.0)
    return _scalar_or_array(np.clip(lo, 0.0, 1.0))


def clopper_pearson_upper(k: Any, n: Any, alpha: float) -> Any:
    """One-sided Clopper-Pearson upper bound on a binomial proportion.

    Returns p_U with P_{p_U}(X <= k) = alpha, i.e. the (1 - alpha)-quantile of
    Beta(k + 1, n - k); 1 when k = n.  For any true p, P(p_U >= p) >= 1 - alpha.  Grown by
    a relative 2^-36 (safe direction).
    """
    kk, nn, a = _check_counts(k, n, alpha)
    aa, bb = kk + 1.0, np.maximum(nn - kk, 1.0)
    with np.errstate(all="ignore"):
        # the inverse of the *complementary* regularised incomplete beta function: full
        # relative precision for small p_U (1 - betaincinv(...) would cancel).
        hi = _newton(special.betainccinv(aa, bb, a), aa, bb, a, upper=True)
    hi = np.where(kk < nn, hi * (1.0 + _SAFETY), 1.0)
    return _scalar_or_array(np.clip(hi, 0.0, 1.0))


def log_ratio(lo: Any, hi: Any, delta: float = 0.0) -> Any:
    """log((lo - delta) / hi) with log(x <= 0) = -inf, vectorised (``delta = 0``: pure DP).

    With ``delta > 0`` the difference ``lo - delta`` is rounded down (one ulp of ``lo``), the
    safe direction for a lower bound."""
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    if delta > 0:
        lo = np.nextafter(lo - delta, -np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(np.where(lo > 0, lo, 1.0)) - np.log(hi)
    return np.where(lo > 0, out, -np.inf)


def bonferroni_level(alpha: float, bounds: int) -> float:
    """The level of each of ``bounds`` one-sided bounds that hold jointly with probability
    >= 1 - ``alpha`` (union bound); rounded down, so ``bounds`` of them never spend more
    than ``alpha``."""
    return math.nextafter(alpha / bounds, 0.0)


def predicted_bound(kf: np.ndarray, ko: np.ndarray, n_sel: int, n_cert: int, a_sel: float,
                    a_cert: float, delta: float = 0.0) -> np.ndarray:
    """Lower-confidence estimate of the bound each event would certify: pessimistic
    selection frequencies (one-sided CP at ``a_sel``), turned into the certification bound
    at ``a_cert`` with ``n_cert`` samples."""
    if kf.size == 0:
        return np.zeros(0)
    pf = np.asarray(clopper_pearson_lower(kf, n_sel, a_sel))
    po = np.asarray(clopper_pearson_upper(ko, n_sel, a_sel))
    cf = np.floor(pf * n_cert)
    co = np.minimum(np.ceil(po * n_cert), n_cert)
    lo = np.asarray(clopper_pearson_lower(cf, n_cert, a_cert))
    hi = np.asarray(clopper_pearson_upper(co, n_cert, a_cert))
    return log_ratio(lo, hi, delta)


def expected_bound(kf: np.ndarray, ko: np.ndarray, n_sel: int, n_cert: int,
                   a_cert: float, delta: float = 0.0) -> np.ndarray:
    """Point estimate of the bound each event would certify: the selection frequencies
    ``kf / n_sel`` and ``ko / n_sel`` taken as the truth, turned into the certification
    bound at ``a_cert`` with ``n_cert`` samples (expected counts, rounded down for the
    favoured side and up for the other).  Unlike :func:`predicted_bound` it does not
    penalise an event for the width of its selection interval, so a rare event with a large
    ratio is ranked by what it would certify, not by how sure selection is of it; used to
    rank pairs, never to certify."""
    if kf.size == 0:
        return np.zeros(0)
    kf = np.asarray(kf, dtype=float)
    ko = np.asarray(ko, dtype=float)
    cf = np.floor(kf / n_sel * n_cert)
    co = np.minimum(np.ceil(ko / n_sel * n_cert), n_cert)
    lo = np.asarray(clopper_pearson_lower(cf, n_cert, a_cert))
    hi = np.asarray(clopper_pearson_upper(co, n_cert, a_cert))
    return log_ratio(lo, hi, delta)
