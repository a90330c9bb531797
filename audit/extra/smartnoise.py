"""SmartNoise SQL (``snsql``) adapter (extra ``smartnoise``).

Two ways in, both reading the claim from SmartNoise's own objects:

* :func:`noise_mechanism` — SmartNoise's additive noise mechanism (``Laplace`` or
  ``Gaussian`` of ``snsql.sql._mechanisms``), the one its SQL reader applies to a clamped
  SUM/COUNT: the claim is the mechanism object's ``epsilon`` (and ``delta``), its scale the
  one SmartNoise calibrates (an OpenDP bounded sum over ``[lower, upper]`` with
  ``max_contrib`` records per individual, symmetric distance: add/remove one individual);
  dpaudit hands it ``query(data)`` (default: the records clamped to ``[lower, upper]`` and
  summed, as the SQL reader does) and draws ``size`` outputs per call through ``release``
  (vectorised, fast).
* :func:`query_mechanism` — a whole SQL query through ``snsql.from_df``: the claim is
  ``reader.get_privacy_cost(query)``; each output is one ``execute`` (about a second on
  this machine: only coarse violations are in reach of a black-box run).

SmartNoise draws from OpenDP's samplers (OS randomness): runs are not reproducible (the
report says so).  Nothing here prints or writes files.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from audit.extra import require
from kernels.errors import InvalidParameterError

__all__ = ["noise_mechanism", "query_mechanism"]


def noise_mechanism(kind: str = "laplace", *, epsilon: float, lower: float, upper: float,
                    max_contrib: int = 1, delta: float = 0.0,
                    query: Callable[[np.ndarray], float] | None = None) -> Any:
    """SmartNoise's ``Laplace`` / ``Gaussian`` mechanism on ``query(data)`` as a vectorised
    mechanism ``f(data, size)`` with the library object's ``epsilon`` / ``delta`` and
    ``relation = "add-remove"`` (module docstring)."""
    mods = require("snsql.sql._mechanisms", "smartnoise")
    cls = {"laplace": getattr(mods, "Laplace", None),
           "gaussian": getattr(mods, "Gaussian", None)}.get(kind)
    if cls is None:
        raise InvalidParameterError(f"must be 'laplace' or 'gaussian', got {kind!r}",
                                    param="kind")
    m = cls(epsilon, delta=delta, lower=lower, upper=upper, max_contrib=max_contrib)
    q = query or (lambda x: float(np.sum(np.clip(x, lower, upper))))

    def mech(data: np.ndarray, size: int) -> np.ndarray:
        v = q(np.asarray(data, dtype=np.float64))
        return np.asarray(m.release([v] * size), dtype=np.float64)

    mech.epsilon = float(m.epsilon)  # type: ignore[attr-defined]
    mech.delta = float(getattr(m, "delta", 0.0) or 0.0) if kind != "laplace" else 0.0  # type: ignore[attr-defined]
    mech.relation = "add-remove"  # type: ignore[attr-defined]
    mech.scale = float(m.scale)  # type: ignore[attr-defined]
    mech.lower, mech.upper = float(lower), float(upper)  # type: ignore[attr-defined]
    mech.__qualname__ = f"snsql.{cls.__name__}"
    return mech


def query_mechanism(sql: str, metadata: dict[str, Any], *, epsilon: float,
                    delta: float = 0.0, column: str | None = None) -> Any:
    """A SQL query (one row, numeric columns) through ``snsql.from_df`` on a one-column
    table holding the records, as a per-call mechanism ``f(data)``; the claim is the
    reader's ``get_privacy_cost(sql)`` (epsilon, delta).  ``metadata``: SmartNoise's
    metadata dict (one collection, one table); ``column``: the table's column (default:
    its only one)."""
    snsql = require("snsql", "smartnoise")
    import pandas as pd
    from snsql.metadata import Metadata

    meta = Metadata.from_dict(metadata)
    tables = meta.tables()
    if len(tables) != 1:
        raise InvalidParameterError("metadata must describe exactly one table",
                                    param="metadata")
    cols = [c.name for c in tables[0].columns()]
    col = column or (cols[0] if len(cols) == 1 else None)
    if col is None or col not in cols:
        raise InvalidParameterError(f"name the records' column among {cols}", param="column")
    privacy = snsql.Privacy(epsilon=epsilon, delta=delta)

    def reader(data: np.ndarray) -> Any:
        return snsql.from_df(pd.DataFrame({col: np.asarray(data, dtype=np.float64)}),
                             privacy=privacy, metadata=meta)

    eps, dlt = reader(np.zeros(1)).get_privacy_cost(sql)

    def mech(data: np.ndarray) -> np.ndarray:
        rows = reader(data).execute(sql)
        return np.asarray(rows[1], dtype=np.float64)

    mech.epsilon = float(eps)  # type: ignore[attr-defined]
    mech.delta = float(dlt)  # type: ignore[attr-defined]
    mech.relation = "add-remove"  # type: ignore[attr-defined]
    mech.__qualname__ = "snsql.query"
    return mech
