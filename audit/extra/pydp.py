"""python-dp (PyDP, Google's differential-privacy library) adapter (extra ``pydp``).

PyDP's algorithms (``BoundedSum``, ``BoundedMean``, ``Count``, ...) draw noise from Google's
C++ secure RNG and expose no un-noised aggregate, so only the black-box tester applies:
:func:`algorithm_mechanism` turns an algorithm class and its parameters into a per-call
mechanism ``f(data)`` (a fresh algorithm object per output, ``quick_result`` on the records
as a list) with ``epsilon`` and ``relation`` attributes.  Not reproducible (the run says
so).  PyDP's guarantee is stated for adding or removing one record (its ``l0`` / ``linf``
sensitivities bound one user's contributions), so the relation is add/remove.

Nothing here prints or writes files.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from audit.extra import require

__all__ = ["algorithm_mechanism"]


def algorithm_mechanism(name: str, *, epsilon: float, **params: Any) -> Any:
    """``name`` of a class in ``pydp.algorithms.laplacian`` (e.g. ``"BoundedSum"``) with its
    parameters (``lower_bound``, ``upper_bound``, ``dtype``...) as a per-call mechanism with
    ``epsilon``, ``relation = "add-remove"`` and (given both bounds) ``lower`` / ``upper``
    attributes."""
    mod = require("pydp.algorithms.laplacian", "pydp")
    cls = getattr(mod, name, None)
    if cls is None:
        from kernels.errors import InvalidParameterError

        raise InvalidParameterError(f"pydp.algorithms.laplacian has no algorithm {name!r}")

    def mech(data: np.ndarray) -> float:
        return float(cls(epsilon=epsilon, **params).quick_result(np.asarray(data).tolist()))

    mech.epsilon = float(epsilon)  # type: ignore[attr-defined]
    mech.relation = "add-remove"  # type: ignore[attr-defined]
    mech.__qualname__ = f"pydp.{name}"
    if "lower_bound" in params and "upper_bound" in params:  # the algorithm's clamping bounds
        mech.lower = float(params["lower_bound"])  # type: ignore[attr-defined]
        mech.upper = float(params["upper_bound"])  # type: ignore[attr-defined]
    return mech
