"""The two optional parts of a report document that are drawn, checked before they are
used: ``figures`` (:func:`validate_figures`: kinds, series, reference lines, numbers) and
``certification`` (:func:`validate_certification`: verdict, scope, reasons, relative paths).
:func:`audit.report.build_report` and the HTML renderer use the same validators.  Pure
functions: no I/O, no printing."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from fractions import Fraction
from pathlib import PurePosixPath
from typing import Any

from audit.findings import FINDING_ID_PATTERN, from_jsonable, to_jsonable

__all__ = ["CERTIFICATION_VERDICTS", "FIGURE_KINDS", "to_float", "validate_certification",
           "validate_figures"]

FIGURE_KINDS = ("line", "histogram", "bars", "step")
CERTIFICATION_VERDICTS = ("CERTIFIED", "NOT CERTIFIED", "INCONCLUSIVE")

_FIGURE_REQUIRED = ("id", "title", "kind", "series")
_FIGURE_OPTIONAL = ("xlabel", "ylabel", "caption", "logy", "vlines", "hlines",
                    "confidentiality")
_SERIES_KEYS = ("label", "x", "y")
_CERT_REQUIRED = ("verdict", "scope", "reasons")
_CERT_OPTIONAL = ("counterexample", "data_sha256", "fingerprint")
_NONFINITE = ("nan", "inf", "-inf")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_PATH_PART = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]*$")


# ----------------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------------


def _is_number(value: Any) -> bool:
    """A JSON-form number of a figure: finite int/float, a non-finite string, a fraction."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, str):
        return value in _NONFINITE
    if isinstance(value, dict):
        try:
            return isinstance(from_jsonable(value), Fraction)
        except ValueError:
            return False
    return False


def to_float(value: Any) -> float:
    """The float of a JSON-form number (validated by :func:`_is_number`)."""
    return float(from_jsonable(value))


def _check_numbers(values: Any, where: str, field: str) -> list[Any]:
    if not isinstance(values, list):
        raise ValueError(f"{where}: field {field!r} must be a list of numbers; got {values!r}")
    for i, v in enumerate(values):
        if not _is_number(v):
            raise ValueError(
                f"{where}: field '{field}[{i}]' must be a finite number or one of "
                f"'nan', 'inf', '-inf'; got {v!r}"
            )
    return values


def _check_keys(spec: dict, where: str, required: Sequence[str], optional: Sequence[str]) -> None:
    missing = [k for k in required if k not in spec]
    if missing:
        raise ValueError(f"{where}: missing field {missing[0]!r}")
    unknown = sorted(str(k) for k in spec if k not in required and k not in optional)
    if unknown:
        raise ValueError(f"{where}: unknown field {unknown[0]!r}")


def _check_str(spec: dict, key: str, where: str) -> None:
    if key in spec and not isinstance(spec[key], str):
        raise ValueError(f"{where}: field {key!r} must be a str; got {spec[key]!r}")


def _validate_series(fig: dict, where: str) -> None:
    series = fig["series"]
    if not isinstance(series, list) or not series:
        raise ValueError(f"{where}: field 'series' must be a non-empty list; got {series!r}")
    kind = fig["kind"]
    for j, s in enumerate(series):
        name = f"series[{j}]"
        if not isinstance(s, dict):
            raise ValueError(f"{where}: field {name!r} must be a dict; got {s!r}")
        _check_keys(s, f"{where}, {name}", _SERIES_KEYS, ())
        if not isinstance(s["label"], str):
            raise ValueError(f"{where}: field '{name}.label' must be a str; got {s['label']!r}")
        y = _check_numbers(s["y"], where, f"{name}.y")
        if kind == "bars":
            x = s["x"]
            if not isinstance(x, list) or not all(isinstance(c, str) for c in x):
                raise ValueError(
                    f"{where}: field '{name}.x' must be a list of category labels (str) for "
                    f"kind 'bars'; got {x!r}"
                )
            if len(set(x)) != len(x):
                raise ValueError(f"{where}: field '{name}.x' has duplicate category labels")
            if len(x) != len(y):
                raise ValueError(
                    f"{where}: field '{name}.y' has {len(y)} values but '{name}.x' has {len(x)}"
                )
            continue
        x = _check_numbers(s["x"], where, f"{name}.x")
        if kind == "histogram":
            if len(x) != len(y) + 1:
                raise ValueError(
                    f"{where}: field '{name}.x' (bin edges) must have len(y) + 1 = {len(y) + 1} "
                    f"values; got {len(x)}"
                )
            edges = [to_float(v) for v in x]
            if not all(math.isfinite(e) for e in edges):
                raise ValueError(f"{where}: field '{name}.x' (bin edges) must be finite")
            if any(b <= a for a, b in zip(edges, edges[1:], strict=False)):
                raise ValueError(
                    f"{where}: field '{name}.x' (bin edges) must be strictly increasing"
                )
        elif len(x) != len(y):
            raise ValueError(
                f"{where}: field '{name}.y' has {len(y)} values but '{name}.x' has {len(x)}"
            )


def _validate_reflines(fig: dict, key: str, where: str) -> None:
    axis = "x" if key == "vlines" else "y"
    lines = fig[key]
    if not isinstance(lines, list):
        raise ValueError(f"{where}: field {key!r} must be a list; got {lines!r}")
    if key == "vlines" and lines and fig["kind"] == "bars":
        raise ValueError(f"{where}: field 'vlines' is not supported for kind 'bars'")
    for j, line in enumerate(lines):
        name = f"{key}[{j}]"
        if not isinstance(line, dict):
            raise ValueError(f"{where}: field {name!r} must be a dict; got {line!r}")
        _check_keys(line, f"{where}, {name}", (axis, "label"), ())
        if not _is_number(line[axis]):
            raise ValueError(
                f"{where}: field '{name}.{axis}' must be a finite number or one of "
                f"'nan', 'inf', '-inf'; got {line[axis]!r}"
            )
        if not isinstance(line["label"], str):
            raise ValueError(f"{where}: field '{name}.label' must be a str; got {line['label']!r}")


def _validate_figure(fig: Any, index: int) -> dict[str, Any]:
    if not isinstance(fig, dict):
        raise ValueError(f"figures[{index}] must be a dict; got {type(fig).__name__}")
    fid = fig.get("id")
    if not isinstance(fid, str) or not FINDING_ID_PATTERN.match(fid):
        raise ValueError(
            f"figures[{index}]: field 'id' must match {FINDING_ID_PATTERN.pattern}; got {fid!r}"
        )
    where = f"figure {fid!r}"
    spec: dict[str, Any] = {}
    for key, value in fig.items():
        try:
            spec[str(key)] = to_jsonable(value)
        except TypeError as exc:
            raise ValueError(f"{where}: field {key!r} is not JSON-able: {exc}") from exc
    _check_keys(spec, where, _FIGURE_REQUIRED, _FIGURE_OPTIONAL)
    for key in ("title", "xlabel", "ylabel", "caption"):
        _check_str(spec, key, where)
    if spec["kind"] not in FIGURE_KINDS:
        raise ValueError(
            f"{where}: field 'kind' must be one of {', '.join(FIGURE_KINDS)}; got {spec['kind']!r}"
        )
    if "confidentiality" in spec and spec["confidentiality"] not in (
            "public", "relative", "confidential"):
        raise ValueError(f"{where}: field 'confidentiality' must be one of 'public', "
                         f"'relative', 'confidential'; got {spec['confidentiality']!r}")
    if "logy" in spec and not isinstance(spec["logy"], bool):
        raise ValueError(f"{where}: field 'logy' must be a bool; got {spec['logy']!r}")
    _validate_series(spec, where)
    for key in ("vlines", "hlines"):
        if key in spec:
            _validate_reflines(spec, key, where)
    return spec


def validate_figures(figures: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Check a list of figure specs (see ``schema.md``) and return their JSON form.

    Values are converted with :func:`audit.findings.to_jsonable` (numpy arrays become lists,
    non-finite floats the strings ``"nan"``/``"inf"``/``"-inf"``); the input is not modified.
    Raises ``ValueError`` naming the figure id and the bad field (missing or unknown keys,
    wrong types, unknown ``kind``, mismatched lengths, non-numeric values, histogram edges that
    are not finite and strictly increasing, duplicate figure ids).
    """
    if not isinstance(figures, (list, tuple)):
        raise ValueError(f"figures must be a list of dicts; got {type(figures).__name__}")
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for i, fig in enumerate(figures):
        spec = _validate_figure(fig, i)
        if spec["id"] in seen:
            raise ValueError(f"figure {spec['id']!r}: field 'id' is a duplicate figure id")
        seen.add(spec["id"])
        out.append(spec)
    return out


def _check_relpath(path: Any, where: str) -> None:
    if not isinstance(path, str) or not path:
        raise ValueError(f"{where} must be a non-empty relative path str; got {path!r}")
    parts = path.split("/")
    if PurePosixPath(path).is_absolute() or not all(
        _PATH_PART.match(p) and p not in (".", "..") for p in parts
    ):
        raise ValueError(
            f"{where} must be a relative path of '/'-separated parts made of letters, digits, "
            f"'.', '_' and '-' (no '..', no scheme); got {path!r}"
        )


def validate_certification(certification: dict[str, Any]) -> dict[str, Any]:
    """Check a certification block (see ``schema.md``) and return a copy of it.

    ``verdict`` is one of :data:`CERTIFICATION_VERDICTS`; ``scope`` a str (non-empty when
    ``CERTIFIED``); ``reasons`` a list of str; optional ``counterexample`` a relative path inside
    the report directory and ``data_sha256`` a lowercase hex SHA-256 digest.  Raises
    ``ValueError`` naming the bad field.
    """
    where = "certification"
    if not isinstance(certification, dict):
        raise ValueError(f"{where} must be a dict; got {type(certification).__name__}")
    _check_keys(certification, where, _CERT_REQUIRED, _CERT_OPTIONAL)
    verdict = certification["verdict"]
    if verdict not in CERTIFICATION_VERDICTS:
        raise ValueError(
            f"{where}: field 'verdict' must be one of {', '.join(CERTIFICATION_VERDICTS)}; "
            f"got {verdict!r}"
        )
    scope = certification["scope"]
    if not isinstance(scope, str):
        raise ValueError(f"{where}: field 'scope' must be a str; got {scope!r}")
    if verdict == "CERTIFIED" and not scope.strip():
        raise ValueError(f"{where}: field 'scope' must be non-empty for verdict 'CERTIFIED'")
    reasons = certification["reasons"]
    if not isinstance(reasons, (list, tuple)) or not all(isinstance(r, str) for r in reasons):
        raise ValueError(f"{where}: field 'reasons' must be a list of str; got {reasons!r}")
    out: dict[str, Any] = {"verdict": verdict, "scope": scope, "reasons": list(reasons)}
    if "counterexample" in certification:
        _check_relpath(certification["counterexample"], f"{where}: field 'counterexample'")
        out["counterexample"] = certification["counterexample"]
    if "data_sha256" in certification:
        digest = certification["data_sha256"]
        if not isinstance(digest, str) or not _SHA256.match(digest):
            raise ValueError(
                f"{where}: field 'data_sha256' must be 64 lowercase hex digits; got {digest!r}"
            )
        out["data_sha256"] = digest
    if "fingerprint" in certification:
        fp = certification["fingerprint"]
        if not isinstance(fp, str) or not fp.startswith("hmac-sha256:"):
            raise ValueError(f"{where}: field 'fingerprint' must be 'hmac-sha256:<hex>'; "
                             f"got {fp!r}")
        out["fingerprint"] = fp
    return out
