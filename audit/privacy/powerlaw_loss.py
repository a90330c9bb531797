"""Closed-form privacy loss of the power-law noise family p(z) ~ 1/(1 + |z|^gamma).

For two outputs ``a + b Z`` and ``a' + b' Z`` with Z of density c/(1+|z|^gamma) (Lan &
Reiter 2025 eq. (10); any location-scale mechanism with this noise), the log-density ratio
at a point is the loss (L) of :mod:`proofs.gini.admissibility`'s docstring, with
``lam = log(b'/b)`` and ``m = |a - a'|/b``.  :func:`sup_loss_fixed` is its sup over the
output and over |delta| <= m at fixed lambda, semi-analytic (the unique root of the sign
function G of M'), in float.  The exact-loss tester uses it to screen neighbours fast and as
an independent check of its mpmath certification.  Nothing here names a paper's statistic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from scipy.optimize import brentq

from kernels.errors import InvalidParameterError
from kernels.gini.validate import check_gamma

__all__ = ["sup_loss_fixed"]


# ------------------------------------------------------------------------ float kernels
def _log1pexp(x: float) -> float:
    """log(1 + e^x) without overflow."""
    return x + math.log1p(math.exp(-x)) if x > 0 else math.log1p(math.exp(x))


def _G(u: float, g: float, lam: float, lm: float) -> float:
    """G(e^u) of the module docstring (sign of M'), m = e^lm; +inf where e^{(1-g)u} overflows."""
    a = (1.0 - g) * u
    if a > 700.0:
        return math.inf
    m = math.exp(lm)
    if a < -745.0:
        return -m
    # e^{lam g}(z+m)^{1-g} / z^{1-g} = exp(lam g + (1-g) log1p(m/z))
    r = lam * g + (1.0 - g) * math.log1p(math.exp(lm - u)) if lm - u < 700 else math.inf
    if r == math.inf:
        # z << m: (z+m)^{1-g} ~ m^{1-g} is negligible against z^{1-g}
        return math.exp(a) - m
    return -math.expm1(r) * math.exp(a) - m


def _M(u: float, g: float, lam: float, lm: float) -> float:
    """M(e^u) = lam + log(1 + e^{-lam g}(z+m)^g) - log(1 + z^g), computed without overflow."""
    d = math.log1p(math.exp(lm - u)) if lm - u < 700 else (lm - u)  # log((z+m)/z)
    x1 = -lam * g + g * (u + d)
    x2 = g * u
    if x1 > 0 and x2 > 0:
        return lam + (-lam * g + g * d) + math.log1p(math.exp(-x1)) - math.log1p(math.exp(-x2))
    return lam + _log1pexp(x1) - _log1pexp(x2)


@dataclass(frozen=True)
class _ZSup:
    value: float
    u: float | None  # log z* (None: the sup is at z = 0 or z -> inf, see ``at``)
    at: str  # "interior", "zero", "inf"


def _sup_z(g: float, lam: float, m: float) -> _ZSup:
    """sup over z and |delta| <= m of loss (L) at fixed lambda (float)."""
    if m <= 0.0:
        at_zero, at_inf = lam, -lam * (g - 1.0)
        return _ZSup(at_zero, None, "zero") if at_zero >= at_inf else _ZSup(at_inf, None, "inf")
    lm = math.log(m)
    lo, hi = lm - 1.0, lm + 1.0
    step = 1.0
    while _G(lo, g, lam, lm) <= 0.0:
        lo -= step
        step *= 2.0
    step = 1.0
    while _G(hi, g, lam, lm) >= 0.0:
        hi += step
        step *= 2.0
    u = brentq(_G, lo, hi, args=(g, lam, lm), xtol=1e-15, rtol=1e-15, maxiter=500)
    return _ZSup(_M(u, g, lam, lm), float(u), "interior")


def sup_loss_fixed(gamma: float, lam: float, m: float) -> float:
    """sup over z in R and |delta| <= m of the log-ratio (L) at fixed lambda, in float.

    Semi-analytic (unique root of G, module docstring); the building block of every figure
    here and an independent check of :func:`audit.privacy.exact_loss.pair_loss` (a pair
    (a, b), (a', b') of density-(10) outputs has sup |loss| =
    max(sup_loss_fixed(g, lam, |d|), sup_loss_fixed(g, -lam, e^{-lam}|d|)), lam = log(b'/b),
    d = (a - a')/b).
    """
    g = check_gamma(gamma)
    if not (math.isfinite(lam) and math.isfinite(m) and m >= 0):
        raise InvalidParameterError(f"need finite lambda and m >= 0, got lam={lam!r}, m={m!r}")
    return _sup_z(g, float(lam), float(m)).value



def _check_dps(dps: Any) -> None:
    ok = (
        isinstance(dps, tuple) and len(dps) == 2
        and all(isinstance(d, int) and not isinstance(d, bool) for d in dps)
        and 20 <= dps[0] < dps[1]
    )
    if not ok:
        raise InvalidParameterError(
            f"dps must be a pair of integers (low, high) with 20 <= low < high, got {dps!r}"
        )
