"""Exact-decimal mpmath helpers shared by the claims' certification arithmetic.

A claim's parameter is the decimal the user wrote (``delta=1e-6`` means 10^-6, not the
nearest double), so it enters mpmath through its shortest round-trip decimal
(:func:`param`); a certified probability bound is a double and enters exactly
(:func:`exact`).  :func:`down` turns an mpmath result into a float64 no larger than it,
after lowering it by a relative 10^-40 (mpmath's error at :data:`~audit.privacy.claims.base.
MP_DIGITS` digits is ~10^-58), so a reported bound never over-states the exact value.
"""

from __future__ import annotations

from typing import Any

import mpmath

from audit.privacy.claims.base import MP_DIGITS
from audit.rounding import float_down

__all__ = ["down", "exact", "param", "workprec"]


def workprec() -> Any:
    """Context manager: mpmath at :data:`MP_DIGITS` decimal digits."""
    return mpmath.workdps(MP_DIGITS)


def param(x: float) -> Any:
    """A claim parameter as the decimal its shortest repr spells (exact at MP_DIGITS)."""
    return mpmath.mpf(repr(float(x)))


def exact(x: float) -> Any:
    """A double as an mpf, exactly."""
    return mpmath.mpf(float(x))


def down(v: Any) -> float:
    """float64 <= ``v``: lowered by a relative 1e-40, then rounded down."""
    if mpmath.isinf(v) or mpmath.isnan(v):
        return float(v)
    return float_down(v - abs(v) * mpmath.mpf("1e-40"))
