"""The shared interface of a privacy claim seen as a trade-off function (Dong, Roth & Su
2019, "Gaussian differential privacy", Definition 2.1 and Proposition 2.4/2.5).

For an output event E and neighbours (D, D'), write a = P[E | D] (type I error of the test
"reject D when E") and b = 1 - P[E | D'] (its type II error).  Every definition implemented
here (pure epsilon, (epsilon, delta), mu-GDP, rho-zCDP, (alpha, epsilon)-RDP, an explicit
f-DP curve) is equivalent to, or implies, a set of *feasible* pairs (a, b) that every event
of every complying mechanism satisfies; the set is upward closed (if (a, b) is feasible, so
is every (a', b') with a' >= a, b' >= b and a' + b' <= 1: randomised post-processing), so a
certified box [a_L, a_U] x [b_L, b_U] with a_U + b_U < 1 lies entirely outside it as soon
as its corner (a_U, b_U) does.  Upward closure holds only below the anti-diagonal
a + b = 1 (above it the event favours the other data set and moving up approaches the
curve's mirror image): :meth:`Claim.verdict` refuses such corners (a box with
a_U + b_U >= 1 meets the diagonal, which every claim allows).

Each claim returns:

* :meth:`Claim.f_lower` — its trade-off curve f (the smallest feasible b at a), evaluated
  in float64 and rounded DOWN (a value <= the exact f): comparing a certified b_U with it
  can only under-state a violation;
* :meth:`Claim.excess` — vectorised, a fast float estimate used to rank events only (never
  to certify): > 0 when (a, b) looks infeasible;
* :meth:`Claim.certify_corner` — the sound verdict on one certified corner: whether it is
  infeasible, and the strongest claim of the same family it refutes (``mu >= 1.37``),
  computed in mpmath and rounded in the safe direction (:mod:`audit.rounding`).

Nothing here prints or writes files.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Claim", "CornerVerdict", "MP_DIGITS", "REL_DOWN", "lower_float"]

#: mpmath precision (decimal digits) of every certification computation
MP_DIGITS = 60
#: relative margin by which a float64 evaluation of a curve is lowered (the safe direction);
#: the worst relative error measured against mpmath is ~1e-13 (tests/engine/privacy/claims)
REL_DOWN = 2.0**-36


def lower_float(v: Any) -> np.ndarray:
    """A float64 curve value lowered by :data:`REL_DOWN` (and one absolute 2^-1074 step)
    and clipped to [0, 1]: the rounding-down step of every :meth:`Claim.f_lower`."""
    arr = np.asarray(v, dtype=np.float64)
    out = np.nextafter(arr - np.abs(arr) * REL_DOWN, -np.inf)
    return np.clip(out, 0.0, 1.0)


@dataclass(frozen=True)
class CornerVerdict:
    """The verdict on one certified corner (a_U, b_U).

    ``refuted``: the corner is infeasible under the claim (proved in mpmath, safe rounding);
    ``strongest``: the family's parameters that the corner refutes, each a value v such
    that every claim with parameter <= v (a *stronger* claim) is refuted too, rounded down
    (e.g. ``{"mu": 1.37}`` reads "mu >= 1.37"); ``witness``: how it was shown (the order
    alpha of a Renyi divergence, the epsilon of an (epsilon, delta) line, ...)."""

    refuted: bool
    strongest: dict[str, float] = field(default_factory=dict)
    witness: dict[str, Any] = field(default_factory=dict)


class Claim(ABC):
    """A privacy claim as a trade-off function (module docstring)."""

    #: the family's short name in a claim spec (``gdp``, ``zcdp``, ...)
    family: str = ""

    @abstractmethod
    def f_lower(self, a: Any) -> np.ndarray:
        """The claim's trade-off curve at type I error ``a`` (array), rounded down."""

    @abstractmethod
    def excess(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Float estimate, for ranking only: > 0 where (a, b) looks infeasible, larger =
        a more severe violation relative to the claim (a ratio of parameters minus 1)."""

    @abstractmethod
    def certify_corner(self, a_up: float, b_up: float) -> CornerVerdict:
        """Sound verdict on the certified corner (a_U, b_U) (class docstring)."""

    @abstractmethod
    def spec(self) -> str:
        """The claim in the ``--claim`` syntax (parses back to an equal claim)."""

    @abstractmethod
    def describe(self) -> str:
        """One line in plain words, e.g. ``0.5-zCDP (rho = 0.5)``."""

    def parameters(self) -> dict[str, Any]:
        """The claim's parameters (for the report)."""
        return {}

    def refutes(self, a_up: float, b_up: float) -> bool:
        """Is the corner infeasible (sound, :meth:`verdict`)?"""
        return self.verdict(a_up, b_up).refuted

    def verdict(self, a_up: float, b_up: float) -> CornerVerdict:
        """:meth:`certify_corner` where it is sound: only a corner with a_U + b_U < 1
        (exactly: the box lies on one side of the diagonal P[E|D] = P[E|D'], where the
        region is upward closed) can refute; any other corner is not refuted and refutes
        no parameter."""
        from fractions import Fraction

        if not Fraction(a_up) + Fraction(b_up) < 1:
            return CornerVerdict(False, {}, {"reason": "the box meets the diagonal"})
        return self.certify_corner(a_up, b_up)

    def __str__(self) -> str:
        return self.spec()
