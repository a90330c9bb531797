"""Noise laws of location-scale mechanisms as plug-ins of the exact-loss tester.

A location-scale mechanism outputs y = a + b Z on a data set and y = a' + b' Z on its
neighbour; Z has the log-density l of a :class:`NoiseLaw`, and the privacy loss at y is
L(y) = l((y - a)/b) - log b - l((y - a')/b') + log b'.  A law gives its log-density in
float (numpy) and at mpmath's working precision (``mpmath.mp.dps``, set by the caller), the
limits of L as y -> +-inf (its tails), and optionally a closed-form sup_y |L(y)|.
:func:`noise_law` finds a mechanism's law and confirms it against the mechanism's own
``noise_logpdf``; the tester never branches on a law's name.

The engine owns :class:`Laplace` and :class:`Gaussian`; a subject offers its own law by
declaring it on its mechanisms (``noise_law = MyLaw(...)``).  Mechanisms that declare only
``noise = "laplace"`` or ``"gaussian"`` (or ``noise_name``) get the engine's law.

Tails (analytic, mpmath): Laplace: L -> +-(a - a')/b when b = b', else |L| -> inf;
Gaussian: L -> 0 when (a, b) = (a', b'), else |L| -> inf.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np

__all__ = ["ENGINE_LAWS", "LAPLACE", "Gaussian", "Laplace", "NoiseLaw", "noise_law"]

#: points where a mechanism's declared log-density is compared with its law's
PROBE = np.array([-7.5, -1.0, -0.25, 0.0, 0.4, 1.0, 3.0, 50.0])
#: relative and absolute tolerance of that comparison
MATCH_TOL = 1e-12


class NoiseLaw(ABC):
    """The law of the standardised noise Z of a location-scale mechanism."""

    #: the law's name as reported (``PairLoss.family``)
    name: str = ""
    #: report :meth:`sup_loss` beside the certified loss as an independent check
    cross_check: bool = False

    @property
    def parameter(self) -> float | None:
        """The law's shape parameter, if it has one (reported with the name)."""
        return None

    @abstractmethod
    def logpdf(self, z: np.ndarray) -> np.ndarray:
        """log-density of Z in float64 (vectorised)."""

    @abstractmethod
    def logpdf_mp(self, z: Any) -> Any:
        """log-density of Z at mpmath's working precision."""

    @abstractmethod
    def tail_limits(self, a: Any, b: Any, a2: Any, b2: Any) -> tuple[Any, Any]:
        """Limits of L(y) as y -> +inf and y -> -inf (mpmath values, working precision;
        +-``mpmath.inf`` when |L| is unbounded)."""

    def sup_loss(self, a: float, b: float, a2: float, b2: float) -> float | None:
        """Closed-form sup_y |L(y)| in float, or None when the law offers none (the tester
        then maximises L on a grid)."""
        return None

    def matches(self, logpdf: Callable[[np.ndarray], Any]) -> bool:
        """Whether a mechanism's ``noise_logpdf`` is this law's log-density (compared at
        :data:`PROBE` to :data:`MATCH_TOL`); any failure to evaluate means no."""
        try:
            got = np.asarray(logpdf(PROBE), dtype=np.float64)
        except Exception:  # noqa: BLE001 - any failure means "cannot confirm"
            return False
        return bool(np.allclose(got, self.logpdf(PROBE), rtol=MATCH_TOL, atol=MATCH_TOL))


class Laplace(NoiseLaw):
    """Unit Laplace: l(z) = -log 2 - |z|."""

    name = "laplace"

    def logpdf(self, z: np.ndarray) -> np.ndarray:
        return -math.log(2.0) - np.abs(z)

    def logpdf_mp(self, z: Any) -> Any:
        return -mpmath.log(2) - abs(mpmath.mpf(z))

    def tail_limits(self, a: Any, b: Any, a2: Any, b2: Any) -> tuple[Any, Any]:
        if b == b2:
            return (a - a2) / b, (a2 - a) / b
        inf = mpmath.inf if (1 / b2 - 1 / b) > 0 else -mpmath.inf
        return inf, inf

    def sup_loss(self, a: float, b: float, a2: float, b2: float) -> float | None:
        return abs(a - a2) / b if b == b2 else math.inf


class Gaussian(NoiseLaw):
    """Centred Gaussian with standard deviation ``sigma``:
    l(z) = -z^2 / (2 sigma^2) - log(sigma sqrt(2 pi))."""

    name = "gaussian"

    def __init__(self, sigma: float) -> None:
        self.sigma = float(sigma)

    @classmethod
    def fit(cls, logpdf: Callable[[np.ndarray], Any]) -> Gaussian | None:
        """The Gaussian whose density at 0 equals ``logpdf``'s (None if it cannot be
        evaluated); :meth:`matches` then confirms the whole shape."""
        try:
            at0 = float(np.asarray(logpdf(PROBE), dtype=np.float64)[3])
        except Exception:  # noqa: BLE001 - any failure means "cannot fit"
            return None
        return cls(math.exp(-at0) / math.sqrt(2 * math.pi))

    @property
    def parameter(self) -> float | None:
        return self.sigma

    def logpdf(self, z: np.ndarray) -> np.ndarray:
        s = self.sigma
        return -z * z / (2 * s * s) - math.log(s * math.sqrt(2 * math.pi))

    def logpdf_mp(self, z: Any) -> Any:
        s = mpmath.mpf(self.sigma)
        z = mpmath.mpf(z)
        return -z * z / (2 * s * s) - mpmath.log(s * mpmath.sqrt(2 * mpmath.pi))

    def tail_limits(self, a: Any, b: Any, a2: Any, b2: Any) -> tuple[Any, Any]:
        if b == b2:
            if a == a2:
                return mpmath.mpf(0), mpmath.mpf(0)
            up = mpmath.inf if a > a2 else -mpmath.inf
            return up, -up
        inf = mpmath.inf if (1 / b2**2 - 1 / b**2) > 0 else -mpmath.inf
        return inf, inf

    def sup_loss(self, a: float, b: float, a2: float, b2: float) -> float | None:
        return 0.0 if (a == a2 and b == b2) else math.inf


LAPLACE = Laplace()

#: the laws a mechanism may name (``noise`` / ``noise_name``) without declaring one:
#: name -> the law fitted to the mechanism's ``noise_logpdf`` (None if it cannot be)
ENGINE_LAWS: dict[str, Callable[[Callable[[np.ndarray], Any]], NoiseLaw | None]] = {
    "laplace": lambda _logpdf: LAPLACE,
    "gaussian": Gaussian.fit,
}


def noise_law(mech: Any) -> NoiseLaw | None:
    """The mechanism's noise law, confirmed against its ``noise_logpdf``; None if it
    declares none, names none the engine owns, or the declaration does not match.

    A declared ``noise_law`` (a :class:`NoiseLaw`) wins; else ``noise_name`` or ``noise``
    is looked up in :data:`ENGINE_LAWS`."""
    logpdf = getattr(mech, "noise_logpdf", None)
    if logpdf is None:
        return None
    law = getattr(mech, "noise_law", None)
    if not isinstance(law, NoiseLaw):
        name = getattr(mech, "noise_name", None) or getattr(mech, "noise", None)
        make = ENGINE_LAWS.get(name) if isinstance(name, str) else None
        law = make(logpdf) if make is not None else None
    return law if law is not None and law.matches(logpdf) else None
