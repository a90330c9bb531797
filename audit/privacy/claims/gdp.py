"""mu-Gaussian differential privacy (Dong, Roth & Su 2019, Definition 2.6) as a trade-off
function: G_mu(a) = Phi(Phi^-1(1 - a) - mu), the trade-off between N(0, 1) and N(mu, 1).

A pair (a, b) is infeasible iff mu < mu*(a, b) = Phi^-1(1 - a) - Phi^-1(b) (G_mu is
decreasing in mu), so the strongest refuted claim is "mu >= mu*" — the Gaussian-DP lower
bound of Nasr et al. 2023 ("Tight auditing of differentially private machine learning")
and Lu et al. 2022, here from certified (Clopper-Pearson) corners.  G_mu is symmetric, so
one curve serves both orders of a pair.

Rounding: :meth:`GaussianDP.f_lower` evaluates ``ndtr(-ndtri(a) - mu)`` (no cancellation
at small a) and lowers it by a relative 2^-36; :meth:`GaussianDP.certify_corner` computes
mu* in mpmath (``Phi^-1(p) = sqrt(2) erfinv(2 p - 1)`` at 60 digits) and rounds it down.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np
from scipy import special

from audit.privacy.claims import mp
from audit.privacy.claims.base import Claim, CornerVerdict, lower_float
from kernels.errors import InvalidParameterError

__all__ = ["GaussianDP", "gaussian_tradeoff", "mu_star_float"]


def gaussian_tradeoff(mu: float, a: Any) -> np.ndarray:
    """G_mu(a) in float64, not rounded (the reference curve of the Gaussian mechanism with
    sensitivity / sigma = mu)."""
    x = np.asarray(a, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return special.ndtr(-special.ndtri(x) - mu)


def mu_star_float(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Phi^-1(1 - a) - Phi^-1(b) in float64: the largest refuted mu (for ranking)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return -special.ndtri(np.asarray(a, dtype=np.float64)) - special.ndtri(
            np.asarray(b, dtype=np.float64))


def _mp_ppf(p: Any) -> Any:
    return mpmath.sqrt(2) * mpmath.erfinv(2 * p - 1)


class GaussianDP(Claim):
    """mu-GDP (module docstring)."""

    family = "gdp"

    def __init__(self, mu: float) -> None:
        m = float(mu)
        if not (math.isfinite(m) and m > 0):
            raise InvalidParameterError(f"mu must be a finite number > 0, got {mu!r}")
        self.mu = m

    def f_lower(self, a: Any) -> np.ndarray:
        return lower_float(gaussian_tradeoff(self.mu, a))

    def excess(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return mu_star_float(a, b) / self.mu - 1.0

    def certify_corner(self, a_up: float, b_up: float) -> CornerVerdict:
        if a_up <= 0.0 or b_up <= 0.0:  # a sure separation: every mu refuted
            return CornerVerdict(True, {"mu": math.inf})
        if a_up >= 1.0 or b_up >= 1.0:
            return CornerVerdict(False, {"mu": 0.0})
        with mp.workprec():
            star = -_mp_ppf(mp.exact(a_up)) - _mp_ppf(mp.exact(b_up))
            refuted = bool(star > mp.param(self.mu))
            lo = mp.down(star)
        return CornerVerdict(refuted, {"mu": max(0.0, lo)})

    def spec(self) -> str:
        return f"gdp:mu={self.mu!r}"

    def describe(self) -> str:
        return f"{self.mu:g}-GDP (Gaussian DP)"

    def parameters(self) -> dict[str, Any]:
        return {"mu": self.mu}
