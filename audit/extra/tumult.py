"""Tumult Core (``tmlt.core``) adapter (extra ``tumult``).

A Tumult Core ``Measurement`` states its own guarantee: ``privacy_function(d_in)`` is the
smallest ``d_out`` it satisfies for inputs at distance ``d_in`` under its
``input_metric``, in its ``output_measure`` (``PureDP``: epsilon; ``ApproxDP``: (epsilon,
delta)).  :func:`measurement_mechanism` reads that claim from the object and wraps the
measurement as a per-call mechanism for :func:`audit.test_mechanism`:

* a measurement on a data set (input domain ``PandasSeriesDomain`` or ``NumpyFloatDomain``
  vectors, e.g. ``NoisyQuantile``) receives the records; its relation follows the input
  metric (``SymmetricDifference``: add/remove one record, ``d_in = 1``;
  ``HammingDistance``: replace one, ``d_in = 1``); its public bounds (``lower`` /
  ``upper``, e.g. ``NoisyQuantile``'s) are the data domain the audit respects (its pandas /
  numpy domains state no size);
* a measurement on a number (``AddLaplaceNoise``, ``AddGeometricNoise``: metric
  ``AbsoluteDifference``) needs the aggregate it is applied to (``query(data)``) and that
  aggregate's sensitivity ``d_in`` under the relation the caller names; the claim is then
  ``privacy_function(d_in)``.

Randomness: Tumult Core draws from its own generator (``tmlt.core.random.rng.prng()``,
RDRAND-backed).  With ``seeded=True`` (default) each call installs a numpy generator
seeded by dpaudit in that place, so runs are reproducible; the library's sampling code is
unchanged, only the source of uniform bits is dpaudit's.  ``seeded=False`` leaves the
library's own source (the run is then not reproducible, and says so).

Nothing here prints or writes files.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from audit.extra import require
from kernels.errors import InvalidParameterError

__all__ = ["claimed_privacy", "measurement_claim", "measurement_mechanism"]

_RELATIONS = {"SymmetricDifference": "add-remove", "HammingDistance": "replace-one"}


def claimed_privacy(measurement: Any, d_in: Any = 1) -> tuple[float, float]:
    """``(epsilon, delta)`` of ``measurement.privacy_function(d_in)``, epsilon rounded up
    to a float (the claim is never understated)."""
    measure = type(measurement.output_measure).__name__
    d_out = measurement.privacy_function(d_in)
    if measure == "PureDP":
        return _up(d_out), 0.0
    if measure == "ApproxDP":
        eps, delta = d_out
        return _up(eps), _up(delta)
    raise InvalidParameterError(
        f"output measure {measure} is not supported (PureDP or ApproxDP; a rho-zCDP claim "
        "needs a conversion dpaudit does not make for you)", param="measurement")


def measurement_claim(measurement: Any, d_in: Any = 1) -> Any:
    """Tumult's own claim as a trade-off claim (:mod:`audit.privacy.claims`): ``RhoZCDP``
    -> rho-zCDP, ``PureDP`` -> pure epsilon, ``ApproxDP`` -> (epsilon, delta), each value
    rounded up from ``privacy_function(d_in)`` (the claim is never understated)."""
    from audit.privacy.claims import ZCDP, ApproxDP, PureDP

    if type(measurement.output_measure).__name__ == "RhoZCDP":
        return ZCDP(_up(measurement.privacy_function(d_in)))
    eps, delta = claimed_privacy(measurement, d_in)
    return PureDP(eps) if delta == 0 else ApproxDP(eps, delta)


def _up(x: Any) -> float:
    to_float = getattr(x, "to_float", None)
    v = float(to_float(round_up=True)) if to_float is not None else float(x)
    if not math.isfinite(v):
        raise InvalidParameterError(f"the measurement claims epsilon = {v}: no finite "
                                    "guarantee to test", param="measurement")
    return v


def _seed_tumult(seed: int) -> None:
    rng_mod: Any = require("tmlt.core.random.rng", "tumult")
    rng_mod._core_privacy_prng = np.random.default_rng(seed)  # noqa: SLF001 - the hook
    rng_mod._core_privacy_prng_pid = os.getpid()  # noqa: SLF001


def measurement_mechanism(measurement: Any, *, query: Callable[[np.ndarray], float] | None
                          = None, d_in: Any = 1, relation: str | None = None,
                          name: str | None = None, seeded: bool = True) -> Any:
    """The measurement as a per-call mechanism ``f(data, seed)`` (``f(data)`` when not
    ``seeded``) with ``epsilon``, ``delta`` and ``relation`` read from the object (module
    docstring)."""
    require("tmlt.core", "tumult")
    metric = type(measurement.input_metric).__name__
    domain = type(measurement.input_domain).__name__
    if metric == "AbsoluteDifference":
        if query is None or relation is None:
            raise InvalidParameterError(
                "a measurement on a number needs query= (the aggregate it is applied to), "
                "d_in= (its sensitivity) and relation=", param="query")
        rel = relation
    elif metric in _RELATIONS:
        rel = _RELATIONS[metric]
        if relation is not None and relation != rel:
            raise InvalidParameterError(
                f"the measurement's input metric {metric} means {rel}, not {relation}",
                param="relation")
    else:
        raise InvalidParameterError(f"input metric {metric} is not supported",
                                    param="measurement")
    claim = measurement_claim(measurement, d_in)  # rho-zCDP: tested by its claim
    eps, delta = ((claim.eps, claim.delta) if claim.family in ("pure", "approx")
                  else (None, 0.0))
    integer = "Integer" in domain

    def as_input(data: np.ndarray) -> Any:
        x = np.asarray(data, dtype=np.float64)
        if query is not None:
            v = query(x)
            return int(v) if integer else float(v)
        if domain == "PandasSeriesDomain":
            import pandas as pd

            return pd.Series(x)
        return x

    def call(data: np.ndarray) -> float:
        out = measurement(as_input(data))
        return float(out)

    if seeded:
        def mech(data: np.ndarray, seed: int) -> float:
            _seed_tumult(int(seed))
            return call(data)
    else:
        def mech(data: np.ndarray) -> float:  # type: ignore[misc]
            return call(data)

    mech.epsilon = eps  # type: ignore[attr-defined]
    mech.delta = delta  # type: ignore[attr-defined]
    mech.claim = claim  # type: ignore[attr-defined]
    mech.relation = rel  # type: ignore[attr-defined]
    # the data domain the library states: a measurement on records with public bounds
    # (NoisyQuantile's lower / upper) gives them; Tumult's pandas / numpy domains carry no
    # fixed size, so no size is read (a user's --size is not contradicted)
    lo, hi = getattr(measurement, "lower", None), getattr(measurement, "upper", None)
    if query is None and isinstance(lo, (int, float)) and isinstance(hi, (int, float)):
        mech.lower, mech.upper = float(lo), float(hi)  # type: ignore[attr-defined]
    mech.__qualname__ = name or f"tmlt.core.{type(measurement).__name__}"
    return mech
