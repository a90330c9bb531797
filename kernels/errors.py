"""Exception classes raised by every public kernel on bad input.

All value problems subclass :class:`InputError` (itself a ``ValueError``); a wrong
*type* (e.g. a string where numbers are expected) raises :class:`NotNumericError`
(a ``TypeError``).  Every message names the parameter, shows the offending value
and, where useful, its type, so that a one-line CLI error is enough to fix the call.
"""

from __future__ import annotations


class InputError(ValueError):
    """Base class of all input-validation errors raised by dpaudit kernels."""


class NotNumericError(TypeError):
    """Data or a parameter is not numeric (strings, objects, complex, None...)."""


class NonFiniteError(InputError):
    """NaN or +/-inf in the data or in a parameter."""


class TooFewRecordsError(InputError):
    """Fewer records than the quantity needs (the Gini index needs n >= 2)."""


class InvalidBoundsError(InputError):
    """The clipping bounds are unusable: U <= L, or L < 0 where incomes must be >= 0."""


class OutOfBoundsError(InputError):
    """A record lies outside [L, U] and clipping was not requested."""


class NegativeIncomeError(InputError):
    """A record is negative where non-negative incomes are required."""


class ZeroMeanError(InputError):
    """The data have mean 0 (all records 0): the Gini index is undefined."""


class InvalidEpsilonError(InputError):
    """A privacy parameter epsilon (or a share of it) is not > 0."""


class InvalidGammaError(InputError):
    """The shape gamma of density (10) is not > 1 (the density is then improper)."""


class InvalidKError(InputError):
    """A replacement count k is outside 0..n (or the range a function supports)."""


class InvalidParameterError(InputError):
    """Any other parameter outside its documented domain (beta, alpha, sizes...)."""
