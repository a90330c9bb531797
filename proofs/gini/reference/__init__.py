"""Exact reference implementation of the DP Gini quantities of Lan & Reiter (2025).

Written independently of :mod:`kernels` (nothing from ``kernels`` is imported and no
numerical helper is shared): every optimum, bound and predicate is re-derived here and
evaluated in exact rational arithmetic.  Floats are converted exactly
(``float.as_integer_ratio``); data and bounds are scaled by one common denominator so that
all prefix sums, numerators and totals are Python integers.  Results are
:class:`fractions.Fraction` (or, where a transcendental function enters, ``mpmath.mpf`` with
a precision certificate).

The derivations -- means (Algorithm 3), maximum Gini (Theorem 4.1, eq. 59, with our window
proof), minimum Gini (Theorem 4.2, eq. 60, with our block proof), the local-sensitivity
bounds (eqs. 21-23, and the corrected factor of eq. 22), smooth sensitivity (eq. 8) and the
noise density (10) -- are in ``DERIVATIONS.md`` beside this file, numbered as the modules
cite them.
"""


from __future__ import annotations

from proofs.gini.reference.errors import (
    InvalidBoundsError,
    InvalidKError,
    InvalidParameterError,
    NegativeIncomeError,
    NonFiniteError,
    NotNumericError,
    OutOfBoundsError,
    PrecisionError,
    ReferenceInputError,
    TooFewRecordsError,
    ZeroTotalError,
)
from proofs.gini.reference.extremes import (
    extremes,
    extremes_k,
)
from proofs.gini.reference.index import (
    gini_eq1,
    gini_eq2,
)
from proofs.gini.reference.noise import (
    laplace_cdf,
    laplace_pdf,
    powerlaw_cdf,
    powerlaw_constant,
    powerlaw_pdf,
    powerlaw_ppf,
    powerlaw_sf,
)
from proofs.gini.reference.rational import (
    exact,
)
from proofs.gini.reference.release import (
    gini_and_smooth,
)
from proofs.gini.reference.sensitivity import (
    SmoothRef,
    bound_A,
    bound_A_iq,
    local_sensitivity_exact,
    smooth_sensitivity,
)
from proofs.gini.reference.tight import (
    bound_A_tight,
    smooth_sensitivity_tight,
)

__all__ = [
    "ReferenceInputError",
    "NotNumericError",
    "NonFiniteError",
    "TooFewRecordsError",
    "InvalidBoundsError",
    "OutOfBoundsError",
    "NegativeIncomeError",
    "ZeroTotalError",
    "InvalidKError",
    "InvalidParameterError",
    "PrecisionError",
    "exact",
    "gini_eq2",
    "gini_eq1",
    "extremes",
    "extremes_k",
    "bound_A",
    "bound_A_iq",
    "SmoothRef",
    "smooth_sensitivity",
    "local_sensitivity_exact",
    "powerlaw_constant",
    "powerlaw_pdf",
    "powerlaw_cdf",
    "powerlaw_sf",
    "powerlaw_ppf",
    "laplace_pdf",
    "laplace_cdf",
    "bound_A_tight",
    "gini_and_smooth",
    "smooth_sensitivity_tight",
]
