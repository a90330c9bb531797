"""Exception classes for bad input, shared by every layer (kernels, engine, subjects, CLI).

Every bad-input error is an :class:`InputError` (a ``ValueError``); the command line catches
that one class and turns it into one line on stderr and exit 2.  A wrong *type* (a string
where numbers are expected) raises :class:`NotNumericError`, which is both an
``InputError`` and a ``TypeError``.

An error raised about one parameter records it (``param``: the parameter's name in the
library call, e.g. ``"epsilon"``; ``name``: how a library message names it, e.g. ``"upper
bound U"``) and keeps the rest of its message separate (``detail``, e.g. ``"must be > 0, got
-1"``).  ``str(exc)`` is the library message (``name + " " + detail``); the command line
re-renders the same error with its own flag through :meth:`InputError.render`
(``"--epsilon must be > 0, got -1"``), so a library never has to know a flag's spelling.

Nothing here names a subject: subject-specific errors (e.g. a shape parameter of one noise
law) subclass these in the subject's own ``errors`` module.
"""

from __future__ import annotations

__all__ = [
    "InputError",
    "InvalidBoundsError",
    "InvalidEpsilonError",
    "InvalidKError",
    "InvalidParameterError",
    "InvalidShapeError",
    "NegativeValueError",
    "NonFiniteError",
    "NotNumericError",
    "OutOfBoundsError",
    "TooFewRecordsError",
    "ZeroMeanError",
]


class InputError(ValueError):
    """Base class of every bad-input error (exit 2 on the command line).

    ``InputError(message)`` is a plain message; ``InputError(detail, param="epsilon")``
    (optionally ``name="privacy parameter epsilon"``) is a message about one parameter,
    rendered as ``"<name> <detail>"`` (``name`` defaults to ``param``; ``name=""``: the
    detail is a whole sentence, rendered on the CLI as ``"--flag: <detail>"``)."""

    def __init__(self, message: str, *, param: str | None = None,
                 name: str | None = None) -> None:
        self.param = param
        self.name = name if name is not None else param
        self.detail = message
        super().__init__(f"{self.name} {message}" if self.name else message)

    def render(self, flags: dict[str, str] | None = None) -> str:
        """The message with the parameter named as ``flags[param]`` when the caller knows
        a spelling for it (the CLI passes its ``dest -> --flag`` table), else ``str(self)``."""
        if self.param is not None and flags and self.param in flags:
            sep = ": " if self.name == "" else " "  # a detail that names no parameter itself
            return f"{flags[self.param]}{sep}{self.detail}"
        return str(self)


class NotNumericError(InputError, TypeError):
    """Data or a parameter is not numeric (strings, objects, complex, None...)."""


class NonFiniteError(InputError):
    """NaN or +/-inf in the data or in a parameter."""


class TooFewRecordsError(InputError):
    """Fewer records than the quantity needs."""


class InvalidBoundsError(InputError):
    """The public bounds are unusable: not finite, U <= L, or below a stated minimum."""


class OutOfBoundsError(InputError):
    """A record lies outside [L, U] and clipping was not requested."""


class NegativeValueError(InputError):
    """A record is negative where the quantity needs non-negative records."""


class ZeroMeanError(InputError):
    """The records have mean 0 where the quantity divides by the mean."""


class InvalidEpsilonError(InputError):
    """A privacy parameter epsilon (or a share of it) is not > 0."""


class InvalidShapeError(InputError):
    """A shape parameter of a noise law is outside the range where the law is proper."""


class InvalidKError(InputError):
    """A count (e.g. of replaced records) is not an integer in its range."""


class InvalidParameterError(InputError):
    """Any other parameter outside its documented domain (beta, alpha, sizes...)."""
