"""Exact privacy loss of Algorithms 1, 2, 3 on given neighbours (add/remove one, Section 2).

* :func:`alg2_loss` - Algorithm 2 on (D, r, alpha) vs (D', r', alpha') (parameters may
  differ: Algorithm 3 computes them from |D|).  The two densities are piecewise constant on
  the merged breakpoints, so
  sup_tau |log f_D(tau) / f_D'(tau)| = max over merged pieces of
  |-(eps/2)(l_D - l_D') - log Z_D + log Z_D'|,
  evaluated at 30 and 60 digits (mpmath), required to agree to 1e-20, rounded UP to a float.
  The maximising piece (an interval of outputs of positive length) is the output event.
* :func:`alg3_event_bound` - a certified *lower* bound on the privacy loss of Algorithm 3's
  released mu-hat: P_D(mu-hat > c) >= P_D(min(l-hat, u-hat) > c) and
  P_D'(mu-hat > c) <= P_D'(max(l-hat', u-hat') > c) (mu-hat always lies between the two
  thresholds: line 5 of Algorithm 1 clips to [l, u]); both right-hand sides are exact
  (independent Algorithm 2 draws), rounded in the safe direction.
* Algorithm 1: two independent Laplace releases; the engine's
  :func:`audit.privacy.exact_loss.pair_loss` certifies each (see ``mechanisms.py``).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

from audit.rounding import float_down, float_up
from proofs.subset_optimal.reference import ExactPieces, exact_pieces, frac, mp

__all__ = ["Alg2Loss", "alg2_loss", "alg3_event_bound", "alg3_params_exact", "float_up",
           "float_down"]

DPS = (30, 60)




@dataclass(frozen=True)
class Alg2Loss:
    epsilon_up: float          # certified sup |log f_D/f_D'|, rounded up
    value_down: float          # the same, rounded down (for "exceeds the claim")
    event: tuple[Fraction, Fraction]   # output interval attaining it
    sign: int                  # +1: the event is likelier under D
    dps: tuple[int, int] = DPS

    def as_dict(self) -> dict[str, Any]:
        return {"epsilon_up": self.epsilon_up, "value_down": self.value_down,
                "event": [self.event[0], self.event[1]], "sign": self.sign,
                "dps": list(self.dps), "rounding": "up (value_down: down)"}


def _loss_mp(p1: ExactPieces, r1: Any, p2: ExactPieces, r2: Any, eps: Fraction):
    w1 = p1.weights(r1, eps)
    w2 = p2.weights(r2, eps)
    lz1, lz2 = mpmath.log(mpmath.fsum(w1)), mpmath.log(mpmath.fsum(w2))
    edges = sorted(set(p1.lo) | set(p1.hi) | set(p2.lo) | set(p2.hi))
    L1, L2 = p1.losses(r1), p2.losses(r2)
    e = mp(eps) / 2
    best = (mpmath.mpf(-1), None, 0)

    def find(p: ExactPieces, t: Fraction) -> int:
        i = bisect.bisect_right(p.lo, t) - 1
        assert p.lo[i] <= t < p.hi[i], t
        return i

    for lo, hi in zip(edges, edges[1:], strict=False):
        mid = (lo + hi) / 2
        v = -e * (mp(L1[find(p1, mid)]) - mp(L2[find(p2, mid)])) - lz1 + lz2
        if abs(v) > best[0]:
            best = (abs(v), (lo, hi), 1 if v >= 0 else -1)
    return best


def alg2_loss(d1: Any, r1: Any, alpha1: Any, d2: Any, r2: Any, alpha2: Any, a: Any, b: Any,
              epsilon: Any) -> Alg2Loss:
    """Certified sup over outputs of |log f_D / f_D'| for Algorithm 2 (module docstring).

    ``r1``/``r2`` may be callables ``() -> value`` evaluated at each precision (for ranks
    that involve logarithms)."""
    eps = frac(epsilon)
    p1 = exact_pieces(d1, a, b, alpha1)
    p2 = exact_pieces(d2, a, b, alpha2)
    vals = []
    for dps in DPS:
        with mpmath.workdps(dps):
            rr1 = r1() if callable(r1) else r1
            rr2 = r2() if callable(r2) else r2
            vals.append(_loss_mp(p1, rr1, p2, rr2, eps))
    with mpmath.workdps(DPS[1]):
        v30, v60 = vals[0][0], vals[1][0]
        if abs(v30 - v60) > mpmath.mpf(10) ** -20 * max(1, abs(v60)):
            raise ArithmeticError("30- and 60-digit evaluations disagree")
        tol = mpmath.mpf(10) ** -20 * max(1, abs(v60))
        return Alg2Loss(float_up(v60 + tol), float_down(v60 - tol), vals[1][1], vals[1][2])


def alg3_params_exact(n: int, R: Any, epsilon: Any, gamma: Any,
                      n_public: int | None = None) -> dict[str, Any]:
    """Algorithm 3 line 1 exactly: alpha, zeta Fractions; beta, t_l, t_u mpmath (current dps)."""
    R, eps, gamma = frac(R), frac(epsilon), frac(gamma)
    m = n if n_public is None else n_public
    alpha = gamma / m
    zeta = alpha / (R * m * eps)
    beta = 2 / mp(eps) * mpmath.log(mp(2 * R / (alpha * zeta)))
    return {"alpha": alpha, "zeta": zeta, "beta": beta, "t_l": 1 / mp(eps) + beta,
            "t_u": n - 1 / mp(eps) - beta}


def alg3_event_bound(d1: list, d2: list, R: Any, epsilon: Any, gamma: Any, c: Any,
                     n_public: int | None = None) -> dict[str, Any]:
    """Certified lower bound on log P_D(mu-hat > c) - log P_D'(mu-hat > c) (module doc)."""
    R, eps, c = frac(R), frac(epsilon), frac(c)
    out = {}
    for dps in DPS:
        with mpmath.workdps(dps):
            p1 = alg3_params_exact(len(d1), R, eps, gamma, n_public)
            p2 = alg3_params_exact(len(d2), R, eps, gamma, n_public)
            e1 = exact_pieces(d1, -R, R, p1["alpha"], (c,))
            e2 = exact_pieces(d2, -R, R, p2["alpha"], (c,))
            lo1 = e1.mass_above(c, p1["t_l"], eps) * e1.mass_above(c, p1["t_u"], eps)
            a2 = e2.mass_above(c, p2["t_l"], eps)
            b2 = e2.mass_above(c, p2["t_u"], eps)
            hi2 = 1 - (1 - a2) * (1 - b2)
            out[dps] = (lo1, hi2, mpmath.log(lo1) - mpmath.log(hi2))
    with mpmath.workdps(DPS[1]):
        v30, v60 = out[DPS[0]][2], out[DPS[1]][2]
        if abs(v30 - v60) > mpmath.mpf(10) ** -15 * max(1, abs(v60)):
            raise ArithmeticError("30- and 60-digit evaluations disagree")
        tol = mpmath.mpf(10) ** -15 * max(1, abs(v60))
        return {"loss_lower": float_down(v60 - tol),
                "p_first_lower": float_down(out[60][0]),
                "p_second_upper": float_up(out[60][1]),
                "event": f"mu-hat > {c}", "dps": list(DPS), "rounding": "down (safe)"}
