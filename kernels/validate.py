"""Input validation shared by every layer (one place, one message style, no subject words).

Messages follow the pattern ``"<name> must be <condition>, got <value>"`` (plus ``(type <T>)``
when the value is not a number) so a user always sees which argument, which value and which
type was rejected.  Every error records the parameter (:class:`kernels.errors.InputError`'s
``param``), so the command line can name its own flag instead.  Numbers are shown as plain
Python numbers, never as numpy reprs; long values and long lists are cut
(:func:`shorten`, :func:`list_some`) so a message stays one readable line whatever the input.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

import numpy as np

from kernels.errors import (
    InvalidBoundsError,
    InvalidEpsilonError,
    InvalidKError,
    InvalidParameterError,
    NonFiniteError,
    NotNumericError,
    OutOfBoundsError,
    TooFewRecordsError,
)

__all__ = [
    "MAX_SHOWN",
    "as_bounded",
    "as_data",
    "as_scalar",
    "check_bounds",
    "check_epsilon",
    "check_int",
    "check_k",
    "check_positive",
    "check_real",
    "check_rng",
    "check_size",
    "describe",
    "is_sorted",
    "list_some",
    "shorten",
]

#: longest text of one value shown in a message (longer values are cut in the middle)
MAX_SHOWN = 80


def shorten(text: str, limit: int = MAX_SHOWN) -> str:
    """``text`` if it has at most ``limit`` characters, else its head and tail around
    ``"…"`` and the total length (``'123…789' (5,000 characters)``)."""
    text = str(text)
    if len(text) <= limit:
        return text
    keep = max(4, (limit - 1) // 2)
    return f"{text[:keep]}…{text[-keep:]} ({len(text):,} characters)"


def list_some(items: Iterable[Any], k: int = 8, *, quote: bool = True) -> str:
    """The first ``k`` items, comma-separated (each shortened; quoted with ``repr`` unless
    ``quote=False``), and ``"… and N more"`` for the rest."""
    items = list(items)
    shown = [shorten(repr(i) if quote else str(i), 40) for i in items[:k]]
    more = len(items) - len(shown)
    return ", ".join(shown) + (f", … and {more:,} more" if more > 0 else "")


def describe(value: Any) -> str:
    """The value as a user would write it: numpy scalars shown as plain numbers (never
    ``np.float64(...)``), with the type only where it is not a plain number; long reprs are
    cut (:func:`shorten`)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return shorten(_num(value))
    return f"{shorten(repr(value))} (type {type(value).__name__})"


def _num(v: Any) -> str:
    """A plain number (500.0, never np.float64(500.0)); full precision kept."""
    return str(int(v)) if isinstance(v, (int, np.integer)) else repr(float(v))


def as_scalar(value: Any, name: str, *, label: str | None = None) -> float:
    """Return ``value`` as a finite Python float or raise an error about parameter ``name``
    (shown as ``label`` in a library message when given)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise NotNumericError(f"must be a real number, got {describe(value)}", param=name,
                              name=label)
    try:
        out = float(value)
    except OverflowError:  # an int beyond float range
        raise NonFiniteError(f"must be finite, got {describe(value)}", param=name,
                             name=label) from None
    if not math.isfinite(out):
        raise NonFiniteError(f"must be finite, got {describe(value)}", param=name, name=label)
    return out


def check_real(value: Any, name: str, *, low: float | None = None, high: float | None = None,
               low_open: bool = False, high_open: bool = False,
               error: type[InvalidParameterError] | Any = InvalidParameterError) -> float:
    """A finite real number in the stated range (each end closed unless ``*_open``)."""
    out = as_scalar(value, name)
    below = low is not None and (out <= low if low_open else out < low)
    above = high is not None and (out >= high if high_open else out > high)
    if below or above:
        parts = []
        if low is not None:
            parts.append(f"{'>' if low_open else '>='} {_g(low)}")
        if high is not None:
            parts.append(f"{'<' if high_open else '<='} {_g(high)}")
        raise error(f"must be {' and '.join(parts)}, got {describe(value)}", param=name)
    return out


def _g(v: float) -> str:
    return f"{v:g}"


def check_int(value: Any, name: str, *, low: int | None = None, high: int | None = None,
              error: Any = InvalidParameterError, type_error: Any = None) -> int:
    """An integer (not a bool, not a float) in ``low..high`` (either end may be open-ended).
    A value out of range raises ``error``; a non-integer raises ``type_error`` (default: a
    non-integral number ``error``, anything else :class:`NotNumericError`)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        kind = type_error or (error if isinstance(value, (numbers.Real, np.floating))
                              and not isinstance(value, bool) else NotNumericError)
        raise kind(f"must be an integer, got {describe(value)}", param=name)
    v = int(value)
    if (low is not None and v < low) or (high is not None and v > high):
        rng = (f"in {low}..{high}" if low is not None and high is not None else
               f">= {low}" if low is not None else f"<= {high}")
        raise error(f"must be {rng}, got {shorten(str(v))}", param=name)
    return v


def check_size(size: Any, name: str = "size", *, low: int = 1, tuple_ok: bool = False,
               type_error: Any = None) -> int | tuple[int, ...]:
    """A sample size: an integer >= ``low`` (or, with ``tuple_ok``, a tuple of them)."""
    if tuple_ok and isinstance(size, tuple):
        return tuple(check_int(v, name, low=low, type_error=type_error) for v in size)
    return check_int(size, name, low=low, type_error=type_error)


def check_rng(rng: Any) -> np.random.Generator:
    """A ``numpy.random.Generator``; anything else is a plain ``TypeError`` showing its type."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator (e.g. numpy.random.default_rng(seed)), "
            f"got {shorten(repr(rng))} (type {type(rng).__name__})"
        )
    return rng


def check_positive(value: Any, name: str) -> float:
    """A finite real number > 0."""
    return check_real(value, name, low=0.0, low_open=True)


def check_epsilon(value: Any, name: str = "epsilon") -> float:
    """A privacy parameter: finite and > 0."""
    return check_real(value, name, low=0.0, low_open=True, error=InvalidEpsilonError)


def check_bounds(lower: Any, upper: Any, *, allow_negative: bool = True,
                 minimum: float | None = None, what: str = "records") -> tuple[float, float]:
    """Validate public bounds [L, U]: finite, U > L, and L >= ``minimum`` when one is given
    (``allow_negative=False`` is ``minimum=0``)."""
    lo = as_scalar(lower, "lower", label="lower bound L")
    hi = as_scalar(upper, "upper", label="upper bound U")
    if minimum is None and not allow_negative:
        minimum = 0.0
    if minimum is not None and lo < minimum:
        raise InvalidBoundsError(f"must be >= {_g(minimum)} for {what}, got {describe(lower)}",
                                 param="lower", name="lower bound L")
    if hi <= lo:
        raise InvalidBoundsError(
            f"must be > lower bound L, got L={_num(lo)}, U={_num(hi)}",
            param="upper", name="upper bound U")
    return lo, hi


def check_k(k: Any, n: int, *, name: str = "k", low: int = 0, high: int | None = None) -> int:
    """An integer replacement count in ``low..high`` (default ``0..n``)."""
    if isinstance(k, bool) or not isinstance(k, (numbers.Integral, np.integer)):
        raise InvalidKError(f"must be an integer, got {describe(k)}", param=name)
    top = n if high is None else high
    kk = int(k)
    if kk < low or kk > top:
        raise InvalidKError(f"must be in {low}..{top} (n = {n}), got {kk}", param=name)
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
        raise NotNumericError(f"must be a sequence of numbers, got {describe(x)}", param=name)
    try:
        arr = np.asarray(x)
    except Exception as exc:  # pragma: no cover - numpy raises many types
        raise NotNumericError(f"could not be read as numbers: {shorten(str(exc))}",
                              param=name) from exc
    if arr.dtype == bool or (
        arr.dtype == object and any(isinstance(v, (bool, np.bool_)) for v in arr.ravel())
    ):
        raise NotNumericError(f"must contain real numbers, not booleans: {describe(x)}",
                              param=name)
    if arr.dtype.kind not in "iuf":
        # Object arrays of Fractions/Decimals are accepted if they convert cleanly.
        try:
            arr = np.asarray(arr, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            sample = arr.ravel()[:3].tolist() if arr.size else arr.tolist()
            raise NotNumericError(
                f"must contain only real numbers, got dtype {arr.dtype} "
                f"(first values {shorten(repr(sample))})", param=name
            ) from exc
    if arr.ndim != 1:
        raise NotNumericError(f"must be 1-dimensional, got shape {arr.shape}", param=name)
    out = np.asarray(arr, dtype=np.float64)
    if not np.isfinite(out).all():
        bad = ~np.isfinite(out)
        i = int(np.flatnonzero(bad)[0])
        raise NonFiniteError(
            f"must be finite, got {float(out[i])} at position {i} "
            f"({int(bad.sum())} non-finite)", param=name
        )
    if out.size < min_n:
        raise TooFewRecordsError(f"needs at least {min_n} records, got n = {out.size}",
                                 param=name)
    if sort and not is_sorted(out):
        return np.sort(out)  # a fresh array
    if copy or out is not x:
        # ``out is not x``: asarray converted (another dtype, a list): already fresh unless
        # it is a view of x, so copy to be sure x can never be written through it
        return np.array(out, dtype=np.float64, copy=True)
    view = out.view()
    view.flags.writeable = False
    return view


def as_bounded(x: Any, lower: float, upper: float, *, clip: bool = False, name: str = "x",
               min_n: int = 2, copy: bool = True) -> np.ndarray:
    """Data (:func:`as_data`, sorted) whose records lie in the public [lower, upper]
    (already checked bounds); outside values raise :class:`OutOfBoundsError` naming the
    count and the extreme offender, unless ``clip=True`` (clipped to the boundary; a clipped
    result is always a fresh array)."""
    lo, hi = float(lower), float(upper)
    arr = as_data(x, name, min_n=min_n, copy=copy)
    if clip:
        if not arr.flags.writeable:
            arr = arr.copy()
        np.clip(arr, lo, hi, out=arr)
        return arr
    if arr[0] < lo:
        k = int((arr < lo).sum())
        raise OutOfBoundsError(
            f"has {k:,} value{'s' if k > 1 else ''} below the lower bound L = {_num(lo)} "
            f"(smallest {_num(arr[0])}); clip the data to [L, U] or widen the bounds",
            param=name)
    if arr[-1] > hi:
        k = int((arr > hi).sum())
        raise OutOfBoundsError(
            f"has {k:,} value{'s' if k > 1 else ''} above the upper bound U = {_num(hi)} "
            f"(largest {_num(arr[-1])}); clip the data to [L, U] or widen the bounds",
            param=name)
    return arr
