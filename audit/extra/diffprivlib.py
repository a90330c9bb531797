"""IBM diffprivlib adapter (extra ``diffprivlib``): its ``tools`` (sum, mean, var, std, ...)
through the exact sensitivity check and through ``dpaudit test``.

diffprivlib does not expose a tool's un-noised aggregate, so :func:`captured_query` runs the
tool itself with its noise mechanism class replaced, for that one call, by a recorder that
returns the value it was asked to randomise and keeps the ``sensitivity`` the tool passed:
the aggregate is computed by diffprivlib's own code and float arithmetic, and the claim is
the sensitivity diffprivlib itself gives its mechanism (e.g. ``U - L`` for ``tools.sum``,
``(U - L) / n`` for ``tools.mean``).  The replacement is local to the call and undone on
exit (not thread-safe).  The tools truncate their output to ``[n L, n U]``, so the data-set
size is public: the relation is replace-one.

:func:`tool_mechanism` wraps a tool as a per-call mechanism ``f(data, seed)`` for
:func:`audit.test_mechanism` (seed folded into numpy's ``RandomState`` range, ``< 2^32``).

Nothing here prints or writes files.
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from audit.extra import require
from audit.findings import Finding
from audit.privacy.neighbour_search import FAMILIES, SearchSpace
from audit.privacy.sensitivity_check import (
    SensitivityResult,
    check_sensitivity,
    sensitivity_finding,
)
from audit.protocols import REPLACE_ONE

__all__ = ["audit_tool", "captured_call", "captured_query", "tool_claim", "tool_mechanism"]

_MECHANISMS = ("LaplaceTruncated", "GeometricTruncated", "LaplaceBoundedDomain", "Laplace",
               "Geometric")


class _Recorder:
    calls: list[dict[str, Any]] = []

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs

    def randomise(self, value: Any) -> Any:
        _Recorder.calls.append({"value": value, **self.kwargs})
        return value


@contextlib.contextmanager
def _recording(module: Any) -> Iterator[list[dict[str, Any]]]:
    saved = {n: getattr(module, n) for n in _MECHANISMS if hasattr(module, n)}
    _Recorder.calls = []
    try:
        for n in saved:  # the call records which of the tool's mechanism classes it was
            setattr(module, n, functools.partial(_Recorder, mechanism=n))
        yield _Recorder.calls
    finally:
        for n, v in saved.items():
            setattr(module, n, v)


def captured_call(tool: Callable[..., Any], data: Any, **kwargs: Any) -> dict[str, Any]:
    """The one noise-mechanism call ``tool(data, **kwargs)`` makes, un-noised: the
    ``value`` it would randomise, the keyword arguments it builds the mechanism with
    (``epsilon``, ``sensitivity``, ``lower``...) and ``mechanism``, the name of the class
    in the tool's module (module docstring)."""
    module = require(tool.__module__, "diffprivlib")
    with _recording(module) as calls, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tool(np.asarray(data), **kwargs)
    if len(calls) != 1:
        raise RuntimeError(f"{tool.__qualname__} called {len(calls)} noise mechanisms; "
                           "expected one")
    return calls[0]


def captured_query(tool: Callable[..., Any], **kwargs: Any
                   ) -> tuple[Callable[[np.ndarray], Any], Callable[[int], float]]:
    """``(query, sensitivity)`` of a diffprivlib tool (module docstring): ``query(data)`` is
    the un-noised value diffprivlib computes, ``sensitivity(n)`` the bound it passes to its
    mechanism on a data set of ``n`` records.  ``kwargs`` go to the tool (``bounds``,
    ``epsilon``, ``dtype``...)."""
    require("diffprivlib", "diffprivlib")

    def run(data: np.ndarray) -> dict[str, Any]:
        return captured_call(tool, data, **kwargs)

    lo = kwargs.get("bounds", (0.0, 1.0))[0]

    def query(data: np.ndarray) -> Any:
        return run(data)["value"]

    def sensitivity(n: int) -> float:
        return float(run(np.full(max(n, 1), float(lo)))["sensitivity"])

    return query, sensitivity


def audit_tool(tool: Callable[..., Any], *, lower: float, upper: float, n_max: int = 1024,
               families: tuple[str, ...] = FAMILIES, ordered: bool = True,
               name: str | None = None, **kwargs: Any) -> tuple[Finding, SensitivityResult]:
    """Exact sensitivity check of a diffprivlib tool (e.g. ``diffprivlib.tools.sum``) against
    the sensitivity it gives its own mechanism, records in ``[lower, upper]``, replace-one."""
    query, sens = captured_query(tool, bounds=(lower, upper), **kwargs)
    space = SearchSpace(lower, upper, REPLACE_ONE, n_max=n_max, ordered=ordered)
    res = check_sensitivity(query, sens, space, families=families)
    return sensitivity_finding(res, name=name or f"diffprivlib.{tool.__qualname__}"), res


def tool_claim(epsilon: float, delta: float = 0.0) -> Any:
    """diffprivlib's (epsilon, delta) as a trade-off claim (:mod:`audit.privacy.claims`)."""
    from audit.privacy.claims import claim_from_epsilon

    return claim_from_epsilon(float(epsilon), float(delta))


def tool_mechanism(tool: Callable[..., Any], *, epsilon: float, **kwargs: Any) -> Any:
    """A diffprivlib tool as a per-call mechanism ``f(data, seed)`` with ``epsilon`` and
    ``relation = "replace-one"`` attributes (for :func:`audit.test_mechanism`); given
    ``bounds=(L, U)`` also ``lower`` / ``upper`` (the tool's bounds: the records' domain)
    and ``query`` / ``sensitivity`` (:func:`captured_query`: the exact check in
    ``dpaudit test``)."""
    require("diffprivlib", "diffprivlib")

    def mech(data: np.ndarray, seed: int) -> Any:
        rs = np.random.RandomState(int(seed) % 2**32)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return tool(np.asarray(data), epsilon=epsilon, random_state=rs, **kwargs)

    mech.epsilon = epsilon  # type: ignore[attr-defined]
    mech.relation = "replace-one"  # type: ignore[attr-defined]
    mech.claim = tool_claim(epsilon, kwargs.get("delta", 0.0))  # type: ignore[attr-defined]
    mech.__qualname__ = f"diffprivlib.{tool.__qualname__}"
    bounds = kwargs.get("bounds")
    if bounds is not None:  # the tool's own bounds: the records' domain, and the exact check
        mech.lower, mech.upper = float(bounds[0]), float(bounds[1])  # type: ignore[attr-defined]
        mech.query, mech.sensitivity = captured_query(tool, **kwargs)  # type: ignore[attr-defined]
    return mech
