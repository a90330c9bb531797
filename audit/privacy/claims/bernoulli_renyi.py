"""Renyi divergences of two Bernoulli laws: the exact trade-off region of a Renyi claim.

For an event E, post-processing the output to the indicator of E cannot increase a Renyi
divergence (data processing; van Erven & Harremoes 2014, Theorem 9), so a mechanism with
D_alpha(M(D) || M(D')) <= eps_alpha (both orders) has, for every event,

    D_alpha(Bern(p) || Bern(q)) <= eps_alpha  and  D_alpha(Bern(q) || Bern(p)) <= eps_alpha,

p = P[E|D], q = P[E|D'].  The binary mechanism with exactly these laws satisfies the claim
itself, so this region is the *exact* set of event probabilities a Renyi (RDP) or zCDP
claim allows (Balle et al. 2020, "Hypothesis testing interpretations and Renyi differential
privacy", Section 3): tighter than, or equal to, any (epsilon, delta(epsilon)) conversion
of the claim (:mod:`audit.privacy.claims.conversions` checks this).

D_alpha(Bern(p) || Bern(q)) = log(p^a q^(1-a) + (1-p)^a (1-q)^(1-a)) / (a - 1), a > 1.
Float64 versions (vectorised, for ranking and curves) and an mpmath version (for
certification: any order alpha is a valid witness, so the order is searched in float64 and
the divergence at the order found is then evaluated in mpmath and rounded down).
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np
from scipy import optimize, special

from audit.privacy.claims import mp

__all__ = ["ALPHA_GRID", "best_order", "renyi_bern", "renyi_bern_mp", "sym_renyi_bern"]

#: orders alpha > 1 searched by the zCDP claim: 1 + 10^t, t in [-3, 3.5]
ALPHA_GRID = 1.0 + 10.0 ** np.linspace(-3.0, 3.5, 131)


def renyi_bern(alpha: Any, p: Any, q: Any) -> np.ndarray:
    """D_alpha(Bern(p) || Bern(q)) in float64, broadcast over alpha, p, q (alpha > 1);
    +inf when q = 0 < p or q = 1 > p."""
    al = np.asarray(alpha, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t1 = np.where(p > 0, al * np.log(p) + (1 - al) * np.log(q), -np.inf)
        t2 = np.where(p < 1, al * np.log1p(-p) + (1 - al) * np.log1p(-q), -np.inf)
        out = special.logsumexp(np.stack(np.broadcast_arrays(t1, t2)), axis=0) / (al - 1)
    return np.where(np.isnan(out), np.inf, out)


def sym_renyi_bern(alpha: Any, p: Any, q: Any) -> np.ndarray:
    """max(D_alpha(Bern(p) || Bern(q)), D_alpha(Bern(q) || Bern(p))) in float64."""
    return np.maximum(renyi_bern(alpha, p, q), renyi_bern(alpha, q, p))


def renyi_bern_mp(alpha: Any, p: Any, q: Any) -> Any:
    """D_alpha(Bern(p) || Bern(q)) in mpmath (arguments mpf, alpha > 1)."""
    if q == 0 and p > 0 or q == 1 and p < 1:
        return mpmath.inf
    s = mpmath.mpf(0)
    if p > 0:
        s += p**alpha * q ** (1 - alpha)
    if p < 1:
        s += (1 - p) ** alpha * (1 - q) ** (1 - alpha)
    return mpmath.log(s) / (alpha - 1)


def best_order(p: float, q: float, weight: Any) -> float:
    """The order alpha > 1 maximising weight(alpha) * sym_renyi_bern(alpha, p, q) (grid
    then bounded scalar search on log(alpha - 1)); any alpha is a valid witness, so the
    search only affects tightness."""
    vals = weight(ALPHA_GRID) * sym_renyi_bern(ALPHA_GRID, p, q)
    j = int(np.argmax(np.where(np.isfinite(vals), vals, -np.inf)))
    if not np.isfinite(vals[j]):
        return float(ALPHA_GRID[j])
    t = math.log10(ALPHA_GRID[j] - 1.0)
    lo, hi = t - 0.06, t + 0.06

    def neg(tt: float) -> float:
        al = 1.0 + 10.0**tt
        v = float(weight(al) * sym_renyi_bern(al, p, q))
        return -v if math.isfinite(v) else 0.0

    r = optimize.minimize_scalar(neg, bounds=(lo, hi), method="bounded",
                                 options={"xatol": 1e-6})
    best = 1.0 + 10.0 ** float(r.x)
    return best if -float(r.fun) >= float(vals[j]) else float(ALPHA_GRID[j])


def corner_mp(a_up: float, b_up: float) -> tuple[Any, Any]:
    """The corner (a_U, b_U) as the Bernoulli parameters (p, q) = (a_U, 1 - b_U), exact
    (1 - b_U of a double is computed in mpmath, no rounding)."""
    return mp.exact(a_up), 1 - mp.exact(b_up)
