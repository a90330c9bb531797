"""Bad-input errors in the Gini subject's terms (subclasses of the generic
:mod:`kernels.errors` classes, so the command line treats them as every other bad input)."""

from __future__ import annotations

from kernels.errors import InvalidShapeError, NegativeValueError

__all__ = ["InvalidGammaError", "NegativeIncomeError"]


class InvalidGammaError(InvalidShapeError):
    """The shape gamma of density (10) (Lan & Reiter 2025) is not > 1: the density
    1/(1 + |z|^gamma) is then not integrable."""


class NegativeIncomeError(NegativeValueError):
    """An income is negative (the Gini index of Lan & Reiter 2025 is defined for incomes
    >= 0)."""
