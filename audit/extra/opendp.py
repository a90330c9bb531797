"""OpenDP adapter: transformations through the exact sensitivity check, measurements through
``dpaudit test`` (extra ``opendp``).

* :func:`audit_transformation` — the un-noised aggregate (an OpenDP ``Transformation``,
  e.g. a clamped sum) is evaluated by OpenDP itself on the pairs of
  :mod:`audit.privacy.neighbour_search`; the claimed sensitivity is OpenDP's own:
  ``t.map(d_in)`` (current releases) or, for releases whose transformations only have
  ``check(d_in, d_out)`` (before 0.5), the smallest float ``d_out`` that ``check`` accepts
  (bisection on the float's bit pattern: the returned value is one ``check`` accepts, so
  exceeding it refutes OpenDP's own statement).  The neighbour relation is read from the
  input metric: ``SymmetricDistance`` (multisets: add/remove at ``d_in = 1``; on a sized
  domain replace-one at ``d_in = 2``), ``InsertDeleteDistance`` (sequences: likewise,
  ordered), ``ChangeOneDistance`` (replace-one, multisets) and ``HammingDistance``
  (replace-one, ordered); releases without ``input_metric`` need ``metric=`` given.
* :func:`measurement_mechanism` — a ``Measurement`` as a mechanism for
  :func:`audit.test_mechanism` / ``dpaudit test`` with its ``claim`` read from the library
  (:func:`measurement_claim`: zCDP, pure or approximate; ``epsilon = m.map(d_in)`` when
  pure); OpenDP samples from its own
  CSPRNG, so the run is not reproducible (``randomness="none"``).

Nothing here prints or writes files.
"""

from __future__ import annotations

import contextlib
import re
import struct
from dataclasses import dataclass
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
from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE
from kernels.errors import InvalidParameterError

__all__ = ["MetricInfo", "audit_transformation", "claim_from", "measurement_claim",
           "measurement_mechanism", "metric_info"]


@dataclass(frozen=True)
class MetricInfo:
    """What an OpenDP input metric means for the neighbour search."""

    metric: str
    relation: str
    ordered: bool
    d_in: int
    size: int | None


def _text(obj: Any, attr: str) -> str | None:
    try:
        return str(getattr(obj, attr))
    except Exception:  # noqa: BLE001 - old releases lack the attribute or raise
        return None


def metric_info(t: Any, metric: str | None = None, size: int | None = None) -> MetricInfo:
    """The relation, order, ``d_in`` and fixed size of ``t``'s input (module docstring)."""
    name = metric or _text(t, "input_metric")
    if not name:
        raise InvalidParameterError(
            "this OpenDP release does not expose the input metric: pass metric= "
            "('SymmetricDistance', 'InsertDeleteDistance', 'ChangeOneDistance' or "
            "'HammingDistance')")
    dom = _text(t, "input_domain") or ""
    m = re.search(r"size=(\d+)", dom)
    if m and size is not None and int(m.group(1)) != int(size):
        raise InvalidParameterError(
            f"--size {size} contradicts the library: the input domain holds data sets of "
            f"exactly {m.group(1)} records ({dom})")
    if size is None:
        size = int(m.group(1)) if m else None
    if "SymmetricDistance" in name or "InsertDeleteDistance" in name:
        ordered = "InsertDelete" in name
        if size is not None:
            return MetricInfo(name, REPLACE_ONE, ordered, 2, size)
        return MetricInfo(name, ADD_REMOVE_ONE, ordered, 1, None)
    if "ChangeOneDistance" in name or "HammingDistance" in name:
        return MetricInfo(name, REPLACE_ONE, "Hamming" in name, 1, size)
    raise InvalidParameterError(f"unsupported OpenDP input metric {name!r}")


def _bits(x: float) -> int:
    return struct.unpack("<q", struct.pack("<d", x))[0]


def _float(b: int) -> float:
    return struct.unpack("<d", struct.pack("<q", b))[0]


def claim_from(t: Any, d_in: int) -> float:
    """OpenDP's own claimed output distance for input distance ``d_in``: ``map`` when the
    release has it, else the smallest non-negative float that ``check`` accepts."""
    if hasattr(t, "map"):
        return float(t.map(d_in))
    if not t.check(d_in, 1e300):
        raise InvalidParameterError("check(d_in, 1e300) is False: no finite claim")
    if t.check(d_in, 0.0):
        return 0.0
    lo, hi = 0, _bits(1e300)  # check(lo) False, check(hi) True; floats >= 0 order as ints
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if t.check(d_in, _float(mid)):
            hi = mid
        else:
            lo = mid
    return _float(hi)


def _bounds(t: Any, lower: float | None, upper: float | None) -> tuple[float, float]:
    dom = _text(t, "input_domain") or ""
    m = re.search(r"bounds=\[([^,\]]+),\s*([^\]]+)\]", dom)
    if m:
        for flag, given, lib in (("lower", lower, m.group(1)), ("upper", upper, m.group(2))):
            if given is not None and float(given) != float(lib):
                raise InvalidParameterError(
                    f"--{flag} {float(given):g} contradicts the library: the input domain's "
                    f"bounds are [{m.group(1)}, {m.group(2)}] ({dom})")
    if lower is not None and upper is not None:
        return float(lower), float(upper)
    if not m:
        raise InvalidParameterError(
            "the record bounds are not readable from this transformation's input domain: "
            "pass lower= and upper=")
    return float(m.group(1)), float(m.group(2))


def audit_transformation(t: Any, *, lower: float | None = None, upper: float | None = None,
                         n_max: int = 1024, metric: str | None = None,
                         size: int | None = None, families: tuple[str, ...] = FAMILIES,
                         clamps: bool = False, name: str | None = None,
                         ref: str | None = None) -> tuple[Finding, SensitivityResult]:
    """Exact sensitivity check of an OpenDP transformation against its own claim (module
    docstring).  ``clamps=True`` when the transformation clamps its input (records outside
    the bounds are then in its domain)."""
    info = metric_info(t, metric, size)
    lo, hi = _bounds(t, lower, upper)
    claim = claim_from(t, info.d_in)
    space = SearchSpace(lo, hi, info.relation, n_max=max(n_max, info.size or 1),
                        ordered=info.ordered, clamps=clamps, size=info.size)

    def query(x: np.ndarray) -> Any:
        return t(x.tolist())

    res = check_sensitivity(query, claim, space, families=families)
    label = name or f"OpenDP transformation ({info.metric}, d_in={info.d_in})"
    return sensitivity_finding(res, name=label, ref=ref, to_input="list"), res


class _Measurement:
    """A measurement as a per-call mechanism with the library's facts as attributes:
    ``epsilon`` (a pure claim), ``claim`` (the trade-off claim), ``relation``, ``size``,
    ``lower`` / ``upper`` and, given the transformation it noises, ``query`` and
    ``sensitivity`` (the exact check's)."""

    def __init__(self, m: Any, epsilon: float | None, name: str, relation: str,
                 ordered: bool, claim: Any = None) -> None:
        self.m, self.epsilon, self.name = m, epsilon, name
        self.relation, self.ordered = relation, ordered
        #: OpenDP's own claim as a trade-off claim (:func:`measurement_claim`)
        self.claim = claim
        self.size: int | None = None
        self.lower: float | None = None
        self.upper: float | None = None

    def __call__(self, data: np.ndarray) -> Any:
        return self.m(np.asarray(data).tolist())


def measurement_mechanism(m: Any, d_in: int | None = None, metric: str | None = None,
                          name: str | None = None, *, query: Any = None,
                          size: int | None = None, lower: float | None = None,
                          upper: float | None = None) -> Any:
    """A pure-DP OpenDP measurement as a per-call mechanism ``f(data)`` whose attributes
    are OpenDP's own facts (:class:`_Measurement`): ``epsilon`` = ``m.map(d_in)`` (releases
    without ``map``, before 0.5: the smallest float ``check`` accepts, by bisection),
    ``relation`` and ``d_in`` from the input metric, ``size`` from a sized input domain,
    ``lower`` / ``upper`` from its bounds.  ``query``: the transformation the measurement
    noises (e.g. the sum of ``sum >> laplace``): then ``query`` / ``sensitivity`` attributes
    give ``dpaudit test`` the exact sensitivity check at the library's size.  Releases that
    do not expose the metric or domain (0.4) take ``metric=``, ``size=``, ``lower=``,
    ``upper=``; a value given that contradicts the library is an error."""
    require("opendp", "opendp")
    info = metric_info(m, metric, size)
    d = info.d_in if d_in is None else int(d_in)
    if hasattr(m, "map"):
        claim = measurement_claim(m, d)
    else:  # releases without map (0.4): the pure claim by bisection on check
        from audit.privacy.claims import PureDP

        claim = PureDP(claim_from(m, d))
    # epsilon only for a pure claim (a zCDP / approximate claim is tested by its claim)
    eps = claim.eps if claim.family == "pure" else None
    relation = "add-remove" if info.relation == ADD_REMOVE_ONE else "replace-one"
    mech = _Measurement(m, eps, name or "OpenDP measurement", relation, info.ordered, claim)
    mech.size = info.size
    with contextlib.suppress(InvalidParameterError):  # bounds not readable: None
        mech.lower, mech.upper = _bounds(m if query is None else query, lower, upper)
    if query is not None:
        t = query
        mech.query = lambda x: t(np.asarray(x).tolist())  # type: ignore[attr-defined]
        mech.sensitivity = claim_from(t, d)  # type: ignore[attr-defined]
    return mech


def measurement_claim(m: Any, d_in: Any) -> Any:
    """OpenDP's claim for input distance ``d_in`` as a trade-off claim
    (:mod:`audit.privacy.claims`), read from the output measure and ``m.map(d_in)``:
    ``ZeroConcentratedDivergence`` -> rho-zCDP, ``MaxDivergence`` -> pure epsilon,
    ``Approximate(MaxDivergence)`` / ``FixedSmoothedMaxDivergence`` -> (epsilon, delta).
    Other measures (a privacy profile, Renyi curves) raise: no single claim to read."""
    from audit.privacy.claims import ZCDP, ApproxDP, PureDP

    measure = _text(m, "output_measure") or ""
    d_out = m.map(d_in)
    if measure.startswith("ZeroConcentratedDivergence"):
        return ZCDP(float(d_out))
    if measure.startswith("MaxDivergence"):
        return PureDP(float(d_out))
    if "MaxDivergence" in measure and isinstance(d_out, tuple) and len(d_out) == 2:
        return ApproxDP(float(d_out[0]), float(d_out[1]))
    raise InvalidParameterError(f"OpenDP output measure {measure!r}: no zCDP, pure or "
                                f"(epsilon, delta) claim to read (map gave {d_out!r})")
