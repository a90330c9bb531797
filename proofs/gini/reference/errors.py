"""Errors of the exact reference: every bad input raises a :class:`ReferenceInputError`
(or :class:`NotNumericError`); :class:`PrecisionError` when two precisions disagree."""

from __future__ import annotations


# ------------------------------------------------------------------------------ errors
class ReferenceInputError(ValueError):
    """Base class of the value errors raised by this module."""


class NotNumericError(TypeError):
    """A value is not a real number (str, bool, complex, None, ...)."""


class NonFiniteError(ReferenceInputError):
    """NaN or +/-inf where a finite number is required."""


class TooFewRecordsError(ReferenceInputError):
    """Fewer than 2 records (the Gini index needs n >= 2)."""


class InvalidBoundsError(ReferenceInputError):
    """L < 0 or U <= L."""


class OutOfBoundsError(ReferenceInputError):
    """A record outside [L, U]."""


class NegativeIncomeError(ReferenceInputError):
    """A negative record where incomes must be >= 0."""


class ZeroTotalError(ReferenceInputError):
    """All records are 0: the Gini index is undefined."""


class InvalidKError(ReferenceInputError):
    """A replacement count outside 0..n (or not an integer)."""


class InvalidParameterError(ReferenceInputError):
    """Any other parameter outside its domain (beta <= 0, gamma <= 1, dps, bound name...)."""


class PrecisionError(ArithmeticError):
    """Two working precisions did not agree (the result could not be certified)."""
