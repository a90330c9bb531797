"""diffprivlib models (``diffprivlib.models``: ``LinearRegression``, ``LogisticRegression``,
``GaussianNB``...) as mechanisms on tables (extra ``diffprivlib``).

:func:`model_mechanism` fits the model on a table whose rows are records ``(x_1 .. x_d, y)``
(the last column the target; ``n_features=d``) and returns the fitted parameters
(``coef_`` then ``intercept_`` when the model has them, else ``theta_`` / ``var_``) as one
output vector, a per-call mechanism ``f(rows, seed)`` with a ``RandomState`` from the seed
(reproducible).  The library's facts: ``epsilon`` (the model's), ``relation =
"replace-one"`` (diffprivlib's models, like its tools, treat the number of records as
public), ``clips = True`` (the models accept records beyond ``bounds_X`` / ``bounds_y``
without an error, so their guarantee must hold for them: they are in the domain; 0.6.6's
``LinearRegression`` clips them only when it fits an intercept) and, when every bound is
the same pair, ``lower`` / ``upper``.  Run it with ``dpaudit test`` / ``audit_mechanism``
on a table (``table=``, ``--data FILE --columns ...``).

Nothing here prints or writes files.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from audit.extra import require
from kernels.errors import InvalidParameterError

__all__ = ["model_mechanism"]


def _same_bounds(*bounds: Any) -> tuple[float, float] | None:
    """The one (lower, upper) pair every given bound broadcasts to, or None."""
    pairs = set()
    for b in bounds:
        if b is None:
            continue
        lo, hi = np.broadcast_arrays(np.ravel(b[0]), np.ravel(b[1]))
        pairs |= {(float(x), float(y)) for x, y in zip(lo, hi, strict=True)}
    return next(iter(pairs)) if len(pairs) == 1 else None


def model_mechanism(model: Callable[..., Any], *, epsilon: float, n_features: int,
                    **params: Any) -> Callable[[Any, int], np.ndarray]:
    """``model`` (a diffprivlib model class) with its parameters (``bounds_X``,
    ``bounds_y``, ``fit_intercept``...) as a per-call mechanism on rows ``(x_1 .. x_d, y)``
    (module docstring)."""
    require("diffprivlib", "diffprivlib")
    d = int(n_features)
    if d < 1:
        raise InvalidParameterError(f"must be an integer >= 1, got {n_features!r}",
                                    param="n_features")

    def mech(rows: Any, seed: int) -> np.ndarray:
        a = np.asarray(rows, dtype=np.float64).reshape(-1, d + 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fitted = model(epsilon=epsilon, random_state=np.random.RandomState(
                int(seed) % 2**32), **params).fit(a[:, :d], a[:, d])
        names = (("coef_", "intercept_") if hasattr(fitted, "coef_") else ("theta_", "var_"))
        return np.concatenate([np.ravel(np.asarray(getattr(fitted, k), dtype=np.float64))
                               for k in names if hasattr(fitted, k)])

    mech.epsilon = float(epsilon)  # type: ignore[attr-defined]
    mech.relation = "replace-one"  # type: ignore[attr-defined]
    mech.clips = True  # type: ignore[attr-defined]
    both = _same_bounds(params.get("bounds_X"), params.get("bounds_y"))
    if both is not None:
        mech.lower, mech.upper = both  # type: ignore[attr-defined]
    mech.__qualname__ = f"diffprivlib.{getattr(model, '__qualname__', 'model')}"
    return mech
