"""Input validation shared by every public kernel (one place, one message style).

Messages follow the pattern ``"<name> must be <condition>, got <value>"`` (plus ``(type <T>)``
when the value is not a number) so a user always sees which argument, which value and which
type was rejected.  Numbers are shown as plain Python numbers, never as numpy reprs, and no
message names a Python keyword: the same text reaches the command line.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from kernels.errors import (
    InvalidBoundsError,
    InvalidEpsilonError,
    InvalidGammaError,
    InvalidKError,
    InvalidParameterError,
    NonFiniteError,
    NotNumericError,
    OutOfBoundsError,
    TooFewRecordsError,
    ZeroMeanError,
)

__all__ = [
    "as_scalar",
    "check_bounds",
    "check_epsilon",
    "check_gamma",
    "check_k",
    "check_positive",
    "check_rng",
    "as_data",
    "as_incomes",
    "is_sorted",
]


def _describe(value: Any) -> str:
    """The value as a user would write it: numpy scalars shown as plain numbers (never
    ``np.float64(...)``), with the type only where it is not a plain number."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _num(value)
    return f"{value!r} (type {type(value).__name__})"


def _num(v: Any) -> str:
    """A plain number (500.0, never np.float64(500.0)); full precision kept."""
    return str(int(v)) if isinstance(v, (int, np.integer)) else repr(float(v))


def as_scalar(value: Any, name: str) -> float:
    """Return ``value`` as a finite Python float or raise a named error."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise NotNumericError(f"{name} must be a real number, got {_describe(value)}")
    out = float(value)
    if not math.isfinite(out):
        raise NonFiniteError(f"{name} must be finite, got {_describe(value)}")
    return out


def check_rng(rng: Any) -> np.random.Generator:
    """A ``numpy.random.Generator``; anything else is a plain ``TypeError`` showing its type."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator (e.g. numpy.random.default_rng(seed)), "
            f"got {rng!r} (type {type(rng).__name__})"
        )
    return rng


def check_positive(value: Any, name: str) -> float:
    """A finite real number > 0."""
    out = as_scalar(value, name)
    if out <= 0:
        raise InvalidParameterError(f"{name} must be > 0, got {_describe(value)}")
    return out


def check_epsilon(value: Any, name: str = "epsilon") -> float:
    """A privacy parameter: finite and > 0."""
    out = as_scalar(value, name)
    if out <= 0:
        raise InvalidEpsilonError(f"{name} must be > 0, got {_describe(value)}")
    return out


def check_gamma(value: Any, name: str = "gamma") -> float:
    """Shape of density (10): finite and > 1 (for gamma <= 1 the density is not integrable)."""
    out = as_scalar(value, name)
    if out <= 1:
        raise InvalidGammaError(
            f"{name} must be > 1 (density (10) is improper otherwise), got {_describe(value)}"
        )
    return out


def check_bounds(lower: Any, upper: Any, *, allow_negative: bool = False) -> tuple[float, float]:
    """Validate the public bounds [L, U]: finite, U > L, and L >= 0 for incomes."""
    lo = as_scalar(lower, "lower bound L")
    hi = as_scalar(upper, "upper bound U")
    if not allow_negative and lo < 0:
        raise InvalidBoundsError(f"lower bound L must be >= 0 for incomes, got {_describe(lower)}")
    if hi <= lo:
        raise InvalidBoundsError(
            f"upper bound U must be > lower bound L, got L={_num(lo)}, U={_num(hi)}"
        )
    return lo, hi


def check_k(k: Any, n: int, *, name: str = "k", low: int = 0, high: int | None = None) -> int:
    """An integer replacement count in ``low..high`` (default ``0..n``)."""
    if isinstance(k, bool) or not isinstance(k, (numbers.Integral, np.integer)):
        raise InvalidKError(f"{name} must be an integer, got {_describe(k)}")
    top = n if high is None else high
    kk = int(k)
    if kk < low or kk > top:
        raise InvalidKError(f"{name} must be in {low}..{top} (n = {n}), got {kk}")
    return kk


def is_sorted(a: np.ndarray) -> bool:
    """True iff the 1-D array is non-decreasing (one O(n) vectorised pass, no sort; NaN
    never compares as sorted)."""
    return bool(a.size < 2 or np.all(a[1:] >= a[:-1]))


def as_data(x: Any, name: str = "x", *, min_n: int = 2, sort: bool = True,
            copy: bool = True) -> np.ndarray:
    """1-D numeric data as float64, sorted unless ``sort=False`` (query-answer vectors keep
    their order); never mutates ``x``.

    ``copy=True`` (default): a fresh, writeable array.  ``copy=False`` (the kernels' hot
    paths, issue 16): when ``x`` already is a finite 1-D float64 array in the requested
    order, a *read-only view* of it (no copy: at census scale a copy is 8 bytes/record of
    peak memory), otherwise a fresh array as with ``copy=True``.  Data that are already
    sorted are never sorted again (an O(n) check instead of an O(n log n) sort).

    Rejects non-numeric content and booleans (:class:`NotNumericError`), NaN/inf
    (:class:`NonFiniteError`, with the first offending position and value) and
    fewer than ``min_n`` records (:class:`TooFewRecordsError`).
    """
    if isinstance(x, (str, bytes)) or x is None:
        raise NotNumericError(f"{name} must be a sequence of numbers, got {_describe(x)}")
    try:
        arr = np.asarray(x)
    except Exception as exc:  # pragma: no cover - numpy raises many types
        raise NotNumericError(f"{name} could not be read as numbers: {exc}") from exc
    if arr.dtype == bool or (
        arr.dtype == object and any(isinstance(v, (bool, np.bool_)) for v in arr.ravel())
    ):
        raise NotNumericError(f"{name} must contain real numbers, not booleans: {_describe(x)}")
    if arr.dtype.kind not in "iuf":
        # Object arrays of Fractions/Decimals are accepted if they convert cleanly.
        try:
            arr = np.asarray(arr, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            sample = arr.ravel()[:3].tolist() if arr.size else arr.tolist()
            raise NotNumericError(
                f"{name} must contain only real numbers, got dtype {arr.dtype} "
                f"(first values {sample!r})"
            ) from exc
    if arr.ndim != 1:
        raise NotNumericError(f"{name} must be 1-dimensional, got shape {arr.shape}")
    out = np.asarray(arr, dtype=np.float64)
    if not np.isfinite(out).all():
        bad = ~np.isfinite(out)
        i = int(np.flatnonzero(bad)[0])
        raise NonFiniteError(
            f"{name} must be finite, got {float(out[i])} at position {i} "
            f"({int(bad.sum())} non-finite)"
        )
    if out.size < min_n:
        raise TooFewRecordsError(f"{name} needs at least {min_n} records, got n = {out.size}")
    if sort and not is_sorted(out):
        return np.sort(out)  # a fresh array
    if copy or out is not x:
        # ``out is not x``: asarray converted (another dtype, a list): already fresh unless
        # it is a view of x, so copy to be sure x can never be written through it
        return np.array(out, dtype=np.float64, copy=True)
    view = out.view()
    view.flags.writeable = False
    return view


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
    (``copy=False``: see :func:`as_data`; a clipped result is always a fresh array).

    Values outside [L, U] raise :class:`OutOfBoundsError` naming the first offender,
    unless ``clip=True``, in which case they are clipped to the boundary (the
    standard DP practice, Lan & Reiter Sec. 2.2).  All-zero data (mean 0) raise
    :class:`ZeroMeanError` unless ``allow_zero_mean``.
    """
    lo, hi = check_bounds(lower, upper)
    arr = as_data(x, name, min_n=min_n, copy=copy)
    if clip:
        if not arr.flags.writeable:
            arr = arr.copy()
        np.clip(arr, lo, hi, out=arr)
    else:
        if arr[0] < lo:
            k = int((arr < lo).sum())
            raise OutOfBoundsError(
                f"{name} has {k} value{'s' if k > 1 else ''} below the lower bound "
                f"L = {_num(lo)} (smallest {_num(arr[0])}); clip the data to [L, U] or "
                "widen the bounds"
            )
        if arr[-1] > hi:
            k = int((arr > hi).sum())
            raise OutOfBoundsError(
                f"{name} has {k} value{'s' if k > 1 else ''} above the upper bound "
                f"U = {_num(hi)} (largest {_num(arr[-1])}); clip the data to [L, U] or "
                "widen the bounds"
            )
    if not allow_zero_mean and arr[-1] == 0.0:
        raise ZeroMeanError(f"{name} has mean 0 (all {arr.size} records are 0): Gini undefined")
    return arr, lo, hi
