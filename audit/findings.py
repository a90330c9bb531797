"""The Finding data model: what every check returns (see DESIGN.md, "The spine").

A :class:`Finding` records one claim, how it was checked (:class:`Method`), what came out
(:class:`Verdict`), what was covered (``scope``), the figures behind it (``evidence``) and, when the
claim was refuted, a replayable counterexample document built by :func:`counterexample_document`.

Everything here is pure: no printing, no file I/O (the report layer, :mod:`audit.report`, writes).

JSON conventions (:func:`to_jsonable` / :func:`from_jsonable`):

* ``fractions.Fraction`` -> ``{"fraction": "p/q"}`` (exact round trip);
* non-finite floats -> the strings ``"nan"``, ``"inf"``, ``"-inf"`` (decoded back to floats);
* numpy scalars and arrays -> Python scalars and (nested) lists; tuples -> lists;
  sets -> lists in a canonical (sorted) order; Enums -> their values; paths -> strings;
* dict keys must be strings (integer keys are converted with ``str``).

Two consequences of these conventions: a dict that is exactly ``{"fraction": <str>}`` and the
strings ``"nan"``/``"inf"``/``"-inf"`` are reserved and decode to a Fraction / float.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field, fields
from enum import Enum, StrEnum
from fractions import Fraction
from pathlib import PurePath
from typing import Any

import numpy as np

from audit import verdict_rules

__all__ = [
    "COUNTEREXAMPLE_SCHEMA",
    "FINDING_ID_PATTERN",
    "Finding",
    "Method",
    "Verdict",
    "counterexample_document",
    "from_jsonable",
    "to_jsonable",
]

COUNTEREXAMPLE_SCHEMA = "dpaudit.counterexample/1"
FINDING_ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]*$")

_NONFINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_FRACTION_KEY = "fraction"


class Verdict(StrEnum):
    """Outcome of a check."""

    #: proof, UNSAT or exhaustive search over the stated scope, with a refuted twin in the same
    #: scope (:mod:`audit.falsifiability`)
    VERIFIED = "verified"
    #: sampled or statistical check that found no violation (its power stated in evidence)
    NOT_REFUTED = "not-refuted"
    #: fails under every plausible reading of the statement (``reading`` names the one shown)
    REFUTED = "refuted"
    #: fails under ``reading`` but holds under another plausible reading (both in evidence)
    REFUTED_UNDER_READING = "refuted-under-reading"
    #: a bound the paper calls conservative holds but is not attained (exact slack in evidence)
    NOT_TIGHT = "not-tight"
    #: the check passed but could not have failed in its scope: no twin (the same check on a
    #: perturbed claim or kernel) is refuted there; never counted as verified (reason in
    #: ``evidence["vacuous_reason"]``, see :mod:`audit.falsifiability`)
    VACUOUS = "vacuous"
    INCONCLUSIVE = "inconclusive"
    ERROR = "error"


class Method(StrEnum):
    """How a claim was checked (which methods can give ``verified``: :mod:`audit.verdict_rules`)."""

    PROOF = "proof"  # a written argument checked step by step (e.g. by the code's own lemmas)
    EXHAUSTIVE = "exhaustive"  # every case of a stated finite scope
    SMT = "smt"  # an UNSAT from Z3
    SYMBOLIC = "symbolic"  # SymPy identities / exact algebra
    EXACT = "exact"  # exact comparison on the whole input (e.g. exact operation counts)
    CROSSCHECK = "crosscheck"
    EXACT_LOSS = "exact-loss"
    EMPIRICAL = "empirical"  # statistical (sampling with a stated confidence)
    ORACLE = "oracle"  # random sub-samples against a brute-force oracle
    SAMPLED = "sampled"  # exact comparison on drawn / hand-picked inputs: at most not-refuted
    TIMING = "timing"  # wall-clock measurements: at most not-refuted
    GRID_BOUND = "grid-bound"  # compared against a grid lower bound of the truth


# --------------------------------------------------------------------------------------------
# JSON conversion
# --------------------------------------------------------------------------------------------


def _short_repr(obj: Any, limit: int = 80) -> str:
    text = repr(obj)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _float_to_jsonable(x: float) -> float | str:
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _key_to_str(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
        return str(int(key))
    raise TypeError(
        f"dict key {_short_repr(key)} of type {type(key).__name__} is not JSON-able "
        "(keys must be str or int)"
    )


def to_jsonable(obj: Any) -> Any:
    """Convert ``obj`` to a structure that ``json.dumps(..., allow_nan=False)`` accepts.

    See the module docstring for the conventions.  Raises ``TypeError`` naming the type of the
    first value that cannot be converted (e.g. complex numbers, arbitrary objects).
    """
    if obj is None:
        return None
    if isinstance(obj, Enum):  # before str/int: str- and int-Enums are subclasses of those
        return to_jsonable(obj.value)
    if isinstance(obj, str):
        return str(obj)
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return _float_to_jsonable(obj)
    if isinstance(obj, Fraction):
        return {_FRACTION_KEY: f"{obj.numerator}/{obj.denominator}"}
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind == "c":
            raise TypeError(f"complex array {_short_repr(obj)} is not JSON-able")
        return to_jsonable(obj.tolist())
    if isinstance(obj, dict):
        return {_key_to_str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, (set, frozenset)):
        items = [to_jsonable(v) for v in obj]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True, allow_nan=False))
    if isinstance(obj, PurePath):
        return str(obj)
    raise TypeError(f"value {_short_repr(obj)} of type {type(obj).__name__} is not JSON-able")


def from_jsonable(obj: Any) -> Any:
    """Inverse of :func:`to_jsonable` where it can be: decode ``{"fraction": "p/q"}`` wrappers to
    :class:`~fractions.Fraction` and ``"nan"``/``"inf"``/``"-inf"`` to floats, recursively.

    Tuples, numpy types and sets come back as lists / Python scalars.
    """
    if isinstance(obj, str):
        return _NONFINITE.get(obj, obj)
    if isinstance(obj, dict):
        if len(obj) == 1 and _FRACTION_KEY in obj and isinstance(obj[_FRACTION_KEY], str):
            text = obj[_FRACTION_KEY]
            try:
                return Fraction(text)
            except (ValueError, ZeroDivisionError) as exc:
                raise ValueError(f"bad fraction {text!r} in JSON document") from exc
        return {k: from_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [from_jsonable(v) for v in obj]
    return obj


# --------------------------------------------------------------------------------------------
# Counterexample documents
# --------------------------------------------------------------------------------------------


def counterexample_document(
    check_id: str,
    subject: str,
    inputs: dict,
    expected: Any,
    actual: Any,
    tolerance: dict | None,
    note: str = "",
) -> dict:
    """A small, replayable JSON document that ``dpaudit replay FILE`` re-runs.

    ``check_id`` names the check (normally the Finding id), ``subject`` what was checked
    (e.g. ``"kernels:kernels.gini.api"``), ``inputs`` the minimal input that fails, ``expected`` /
    ``actual`` what the reference and the subject gave, ``tolerance`` the comparison tolerance
    (or None for exact comparison).  All values are converted with :func:`to_jsonable`.
    """
    if not isinstance(check_id, str) or not FINDING_ID_PATTERN.match(check_id):
        raise ValueError(f"check_id must match {FINDING_ID_PATTERN.pattern}; got {check_id!r}")
    if not isinstance(subject, str):
        raise ValueError(f"subject must be a str; got {subject!r}")
    if not isinstance(inputs, dict):
        raise ValueError(f"inputs must be a dict; got {type(inputs).__name__}")
    if tolerance is not None and not isinstance(tolerance, dict):
        raise ValueError(f"tolerance must be a dict or None; got {tolerance!r}")
    if not isinstance(note, str):
        raise ValueError(f"note must be a str; got {note!r}")
    return {
        "schema": COUNTEREXAMPLE_SCHEMA,
        "check": check_id,
        "subject": subject,
        "inputs": to_jsonable(inputs),
        "expected": to_jsonable(expected),
        "actual": to_jsonable(actual),
        "tolerance": to_jsonable(tolerance),
        "note": note,
    }


# --------------------------------------------------------------------------------------------
# Finding
# --------------------------------------------------------------------------------------------


def _jsonable_field(name: str, value: Any) -> Any:
    try:
        return to_jsonable(value)
    except TypeError as exc:
        raise ValueError(f"Finding.{name} is not JSON-able: {exc}") from exc


@dataclass
class Finding:
    """One checked claim.  See DESIGN.md, "The spine: Check -> Finding -> Report".

    ``verdict == "verified"`` requires a non-empty ``scope`` (a verification is only as wide as
    what it covered); ``verdict == "refuted"`` requires a ``counterexample`` (normally built by
    :func:`counterexample_document`); a verified finding carries no counterexample.  Every
    Finding passes :func:`audit.verdict_rules.check` when built (which methods may verify,
    bounds against claims, readings of refuted paper claims).
    ``method`` and ``verdict`` accept the enum or its string value.
    """

    id: str
    claim: str
    reference: str
    method: Method
    verdict: Verdict
    scope: str = ""
    evidence: dict[str, Any] = field(default_factory=dict)
    counterexample: dict | None = None
    seed: int | None = None
    duration_s: float = 0.0
    subject: str = ""
    tolerance: dict | None = None
    #: values derived from confidential data, marked where they are produced: kept in the
    #: confidential report only (the public report never carries this part)
    confidential: dict[str, Any] = field(default_factory=dict)
    #: the reading of the statement the verdict is under (required when a paper claim is
    #: refuted; see :mod:`audit.verdict_rules`); written to JSON only when non-empty
    reading: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not FINDING_ID_PATTERN.match(self.id):
            raise ValueError(f"Finding.id must match {FINDING_ID_PATTERN.pattern}; got {self.id!r}")
        for name in ("claim", "reference", "scope", "subject", "reading"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise ValueError(f"Finding.{name} must be a str; got {value!r} ({self.id})")
        if not self.claim.strip():
            raise ValueError(f"Finding.claim must be non-empty; got {self.claim!r} ({self.id})")
        try:
            self.method = Method(self.method)
        except ValueError:
            allowed = ", ".join(m.value for m in Method)
            raise ValueError(
                f"Finding.method must be one of {allowed}; got {self.method!r} ({self.id})"
            ) from None
        try:
            self.verdict = Verdict(self.verdict)
        except ValueError:
            allowed = ", ".join(v.value for v in Verdict)
            raise ValueError(
                f"Finding.verdict must be one of {allowed}; got {self.verdict!r} ({self.id})"
            ) from None
        if not isinstance(self.evidence, dict):
            raise ValueError(f"Finding.evidence must be a dict; got {self.evidence!r} ({self.id})")
        if self.counterexample is not None and not isinstance(self.counterexample, dict):
            raise ValueError(
                f"Finding.counterexample must be a dict or None; got {self.counterexample!r} "
                f"({self.id})"
            )
        if self.tolerance is not None and not isinstance(self.tolerance, dict):
            raise ValueError(
                f"Finding.tolerance must be a dict or None; got {self.tolerance!r} ({self.id})"
            )
        if self.seed is not None:
            if isinstance(self.seed, (bool, np.bool_)) or not isinstance(
                self.seed, (int, np.integer)
            ):
                raise ValueError(f"Finding.seed must be an int or None; got {self.seed!r}")
            self.seed = int(self.seed)
        if isinstance(self.duration_s, (bool, np.bool_)) or not isinstance(
            self.duration_s, (int, float, np.integer, np.floating)
        ):
            raise ValueError(f"Finding.duration_s must be a number; got {self.duration_s!r}")
        self.duration_s = float(self.duration_s)
        if not math.isfinite(self.duration_s) or self.duration_s < 0:
            raise ValueError(f"Finding.duration_s must be finite and >= 0; got {self.duration_s!r}")
        if self.verdict is Verdict.VERIFIED:
            if not self.scope.strip():
                raise ValueError(
                    f"Finding.scope must be non-empty for verdict 'verified'; got "
                    f"{self.scope!r} ({self.id})"
                )
            if self.counterexample is not None:
                raise ValueError(
                    f"Finding.counterexample must be None for verdict 'verified' ({self.id})"
                )
        if self.verdict in (Verdict.REFUTED, Verdict.REFUTED_UNDER_READING) and not \
                self.counterexample:
            raise ValueError(
                f"Finding.counterexample is required for verdict 'refuted'; got "
                f"{self.counterexample!r} ({self.id})"
            )
        if not isinstance(self.confidential, dict):
            raise ValueError(
                f"Finding.confidential must be a dict; got {self.confidential!r} ({self.id})")
        # Fail early (here, not when the report is written) on values JSON cannot carry.
        for name in ("evidence", "counterexample", "tolerance", "confidential"):
            _jsonable_field(name, getattr(self, name))
        verdict_rules.check(self)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict (enums as strings, non-finite floats as strings, Fractions wrapped);
        ``confidential`` only when non-empty."""
        out = {
            "id": self.id,
            "claim": self.claim,
            "reference": self.reference,
            "method": self.method.value,
            "verdict": self.verdict.value,
            "scope": self.scope,
            "evidence": _jsonable_field("evidence", self.evidence),
            "counterexample": _jsonable_field("counterexample", self.counterexample),
            "seed": self.seed,
            "duration_s": self.duration_s,
            "subject": self.subject,
            "tolerance": _jsonable_field("tolerance", self.tolerance),
        }
        if self.reading:
            out["reading"] = self.reading
        if self.confidential:
            out["confidential"] = _jsonable_field("confidential", self.confidential)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        """Rebuild a Finding from :meth:`to_dict` output (or its JSON round trip).

        Unknown keys and missing required keys raise ``ValueError``.
        """
        if not isinstance(data, dict):
            raise ValueError(f"Finding.from_dict expects a dict; got {type(data).__name__}")
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"Finding.from_dict: unknown keys {unknown}")
        missing = [k for k in ("id", "claim", "reference", "method", "verdict") if k not in data]
        if missing:
            raise ValueError(f"Finding.from_dict: missing keys {missing}")
        kwargs = dict(data)
        for name in ("evidence", "counterexample", "tolerance", "confidential"):
            if name in kwargs:
                kwargs[name] = from_jsonable(kwargs[name])
        if kwargs.get("evidence") is None:
            kwargs["evidence"] = {}
        if kwargs.get("confidential") is None:
            kwargs["confidential"] = {}
        return cls(**kwargs)
