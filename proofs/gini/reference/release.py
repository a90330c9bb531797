"""The exact quantities one release needs: g(X) (eq. 2) and S(X) (eq. 8) from one exact
scaled representation (mirrors :mod:`kernels.gini.release`)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Literal

from proofs.gini.reference.errors import InvalidParameterError
from proofs.gini.reference.extremes import Scaled
from proofs.gini.reference.index import gini_eq2
from proofs.gini.reference.sensitivity import SmoothRef, smooth_sensitivity
from proofs.gini.reference.tight import smooth_sensitivity_tight


def gini_and_smooth(x: Any, L: Any, U: Any, beta: Any,
                    bound: Literal["thm43", "thm44", "tight"] = "thm43",
                    dps: int = 50) -> tuple[Fraction, SmoothRef]:
    """(:func:`gini_eq2`, :func:`smooth_sensitivity` or :func:`smooth_sensitivity_tight`) of
    one data set from one exact scaled representation (issue 16: one O(n) exact pass over
    the records instead of two).  Equal to the two functions called separately (the common
    denominator cancels in eq. (2); tested); raises like them."""
    if bound not in ("thm43", "thm44", "tight"):
        raise InvalidParameterError(
            f"bound must be 'thm43', 'thm44' or 'tight', got {bound!r}")
    sc = Scaled(x, L, U)
    if sc.xs[0] < 0:
        g = gini_eq2(x)  # raises NegativeIncomeError (L < 0 is allowed by the bounds check)
    else:
        n = sc.n
        tot = sc.P[n]
        g = Fraction(2 * sc.R[n] - (n + 1) * tot, (n - 1) * tot)
    ss = (smooth_sensitivity_tight(sc, L, U, beta, dps) if bound == "tight"
          else smooth_sensitivity(sc, L, U, beta, bound=bound, dps=dps))
    return g, ss
