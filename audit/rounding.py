"""Directed rounding of an exact value to a float64: the one place where an exact privacy
quantity (a Fraction, an int, or an mpmath number) becomes a float.

Rounding direction is the guarantee (as in Tumult Core's exact privacy math): an epsilon
*certified* as an upper bound is rounded up (:func:`float_up`), a *witnessed* loss or a
per-look confidence level is rounded down (:func:`float_down`), so the float never claims
more than the exact value supports.  The comparison with the exact value is exact: a double
is a dyadic rational, compared as a Fraction with a Fraction or int, and as an mpf (which
holds any double exactly) with an mpmath number.  Infinities map to infinities.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

__all__ = ["float_down", "float_up"]


def _above(f: float, v: Any) -> bool:
    """Is the double ``f`` strictly above the exact value ``v``?"""
    if isinstance(v, (int, Fraction)):
        return Fraction(f) > v
    import mpmath

    return bool(mpmath.mpf(f) > v)


def _below(f: float, v: Any) -> bool:
    """Is the double ``f`` strictly below the exact value ``v``?"""
    if isinstance(v, (int, Fraction)):
        return Fraction(f) < v
    import mpmath

    return bool(mpmath.mpf(f) < v)


def _infinite(v: Any) -> float | None:
    if isinstance(v, (int, Fraction)):
        return None
    import mpmath

    if mpmath.isinf(v):
        return math.inf if v > 0 else -math.inf
    return None


def float_up(v: Any) -> float:
    """The smallest double >= ``v``."""
    inf = _infinite(v)
    if inf is not None:
        return inf
    f = float(v)
    return math.nextafter(f, math.inf) if _below(f, v) else f


def float_down(v: Any) -> float:
    """The largest double <= ``v``."""
    inf = _infinite(v)
    if inf is not None:
        return inf
    f = float(v)
    return math.nextafter(f, -math.inf) if _above(f, v) else f
