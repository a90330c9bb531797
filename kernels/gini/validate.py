"""Input validation in the Gini subject's terms: incomes in public bounds [L, U] with L >= 0
and a non-zero mean (Lan & Reiter 2025, Sec. 2), and the shape gamma > 1 of density (10).
Built on the generic :mod:`kernels.validate`."""

from __future__ import annotations

from typing import Any

import numpy as np

from kernels.errors import ZeroMeanError
from kernels.gini.errors import InvalidGammaError
from kernels.validate import as_bounded, as_scalar, check_bounds, describe

__all__ = ["as_incomes", "check_gamma", "check_income_bounds"]


def check_gamma(value: Any, name: str = "gamma") -> float:
    """Shape of density (10): finite and > 1 (for gamma <= 1 the density is not integrable)."""
    out = as_scalar(value, name)
    if out <= 1:
        raise InvalidGammaError(
            f"must be > 1 (density (10) is improper otherwise), got {describe(value)}",
            param=name)
    return out


def check_income_bounds(lower: Any, upper: Any) -> tuple[float, float]:
    """Public income bounds: finite, L >= 0 (incomes), U > L."""
    return check_bounds(lower, upper, minimum=0.0, what="incomes")


def as_incomes(
    x: Any,
    lower: Any,
    upper: Any,
    *,
    clip: bool = False,
    name: str = "x",
    min_n: int = 2,
    allow_zero_mean: bool = False,
    copy: bool = True,
) -> tuple[np.ndarray, float, float]:
    """Validate incomes against public bounds; return ``(sorted copy, L, U)``
    (``copy=False``: see :func:`kernels.validate.as_data`).

    Values outside [L, U] raise :class:`kernels.errors.OutOfBoundsError` naming the first
    offender, unless ``clip=True`` (clipped to the boundary, the standard DP practice, Lan &
    Reiter Sec. 2.2).  All-zero data (mean 0) raise :class:`kernels.errors.ZeroMeanError`
    unless ``allow_zero_mean``."""
    lo, hi = check_income_bounds(lower, upper)
    arr = as_bounded(x, lo, hi, clip=clip, name=name, min_n=min_n, copy=copy)
    if not allow_zero_mean and arr[-1] == 0.0:
        raise ZeroMeanError(
            f"has mean 0 (all {arr.size} records are 0): the Gini index is undefined",
            param=name)
    return arr, lo, hi
