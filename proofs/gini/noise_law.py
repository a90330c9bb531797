"""The noise law of the DP Gini release: density (10) of Lan & Reiter (2025),
p(z) = c / (1 + |z|^gamma), c = gamma sin(pi/gamma) / (2 pi), as a
:class:`audit.privacy.noise_laws.NoiseLaw` for the exact-loss tester.

For two outputs ``a + b Z`` and ``a' + b' Z`` the log-density ratio at a point is the loss
(L) of :mod:`proofs.gini.admissibility`'s docstring, with ``lam = log(b'/b)`` and
``m = |a - a'|/b``.  :func:`sup_loss_fixed` is its sup over the output and over
|delta| <= m at fixed lambda, semi-analytic (the unique root of the sign function G of M'),
in float: the law's closed-form sup-loss, used to screen neighbours fast and reported as an
independent check of the tester's mpmath certification.  Tails: L -> (gamma - 1) log(b/b')
at both ends (log(1 + |z'|^gamma) - log(1 + |z|^gamma) -> gamma log(b/b'), plus log(b'/b)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np
from scipy.optimize import brentq

from audit.privacy.noise_laws import NoiseLaw
from kernels.errors import InvalidParameterError
from kernels.gini.validate import check_gamma

__all__ = ["PowerLaw", "ZSup", "powerlaw_logpdf_mp", "sup_loss_fixed", "sup_z"]


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
class ZSup:
    """The sup of loss (L) over z at fixed lambda and where it is attained."""

    value: float
    u: float | None  # log z* (None: the sup is at z = 0 or z -> inf, see ``at``)
    at: str  # "interior", "zero", "inf"


def sup_z(g: float, lam: float, m: float) -> ZSup:
    """sup over z and |delta| <= m of loss (L) at fixed lambda (float)."""
    if m <= 0.0:
        at_zero, at_inf = lam, -lam * (g - 1.0)
        return ZSup(at_zero, None, "zero") if at_zero >= at_inf else ZSup(at_inf, None, "inf")
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
    return ZSup(_M(u, g, lam, lm), float(u), "interior")


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
    return sup_z(g, float(lam), float(m)).value


def powerlaw_logpdf_mp(z: Any, gamma: float) -> Any:
    """log of density (10) at mpmath precision: log(c) - log(1 + |z|^gamma),
    c = gamma sin(pi/gamma)/(2 pi) (Lan & Reiter eq. (10); constant derived in
    :mod:`kernels.gini.noise`).  ``gamma`` is converted exactly from its float value."""
    g = mpmath.mpf(gamma)
    c = g * mpmath.sin(mpmath.pi / g) / (2 * mpmath.pi)
    return mpmath.log(c) - mpmath.log1p(mpmath.power(abs(mpmath.mpf(z)), g))


class PowerLaw(NoiseLaw):
    """Density (10) with exponent ``gamma`` > 1 (Lan & Reiter 2025, eq. (10)).

    The float log-density is written here from the formula, independently of the kernel's
    :func:`kernels.gini.noise.powerlaw_logpdf`, so :meth:`matches` checks the kernel."""

    name = "powerlaw"
    cross_check = True

    def __init__(self, gamma: float) -> None:
        self.gamma = float(gamma)

    @property
    def parameter(self) -> float | None:
        return self.gamma

    def logpdf(self, z: np.ndarray) -> np.ndarray:
        g = self.gamma
        c = g * math.sin(math.pi / g) / (2 * math.pi)
        return math.log(c) - np.log1p(np.abs(z) ** g)

    def logpdf_mp(self, z: Any) -> Any:
        return powerlaw_logpdf_mp(z, self.gamma)

    def tail_limits(self, a: Any, b: Any, a2: Any, b2: Any) -> tuple[Any, Any]:
        v = (mpmath.mpf(self.gamma) - 1) * mpmath.log(b / b2)
        return v, v

    def sup_loss(self, a: float, b: float, a2: float, b2: float) -> float | None:
        """sup L = S(lam, |d|), sup -L = S(-lam, e^{-lam}|d|) with S = :func:`sup_loss_fixed`,
        lam = log(b'/b), d = (a - a')/b."""
        lam = math.log(b2 / b)
        d = abs(a - a2) / b
        return max(sup_loss_fixed(self.gamma, lam, d),
                   sup_loss_fixed(self.gamma, -lam, math.exp(-lam) * d))
