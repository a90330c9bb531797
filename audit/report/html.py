"""Render a report document (see ``schema.md``) as one self-contained HTML page.

Pure functions of the report dict: no I/O, no printing, no clock.  The page has no external
resources and no JavaScript: CSS is inline and every figure is an inline SVG drawn here.  All
text taken from the report is escaped with :func:`html.escape`.  The same report dict always
gives byte-identical HTML.

This module also validates the two optional report keys it draws, ``figures`` and
``certification`` (:func:`validate_figures`, :func:`validate_certification`);
:func:`audit.report.build_report` uses the same validators.

Log scale: on a figure with ``logy`` true, non-positive y values (and non-positive ``hlines``)
cannot be placed; they are *skipped* when drawing and the figure's note says how many were
skipped.  Non-finite values (``"nan"``, ``"inf"``, ``"-inf"``) are skipped the same way; a line
or step series is broken at a skipped point.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence
from fractions import Fraction
from pathlib import PurePosixPath
from typing import Any

from audit.findings import FINDING_ID_PATTERN, Verdict, from_jsonable, to_jsonable
from audit.report.confidentiality import confidentiality_text
from audit.report.markdown import GOOD_WORDS as _GOOD_WORDS
from audit.report.markdown import compact, counterexample_relpath, overall_word

__all__ = [
    "CERTIFICATION_VERDICTS",
    "FIGURE_KINDS",
    "render_html",
    "validate_certification",
    "validate_figures",
]

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
_VALUE_LIMIT = 1000


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


def _to_float(value: Any) -> float:
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
            edges = [_to_float(v) for v in x]
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


# ----------------------------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------------------------


def _e(value: Any) -> str:
    """HTML-escaped text (quotes too: safe in element content and attribute values)."""
    return html.escape(value if isinstance(value, str) else str(value), quote=True)


def _g(value: float) -> str:
    """Compact number text for labels."""
    text = format(value, ".6g")
    return "0" if text == "-0" else text


def _c(value: float) -> str:
    """SVG coordinate: two decimals, trailing zeros dropped."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _text_width(text: str, size: float = 11.0) -> float:
    """Rough rendered width of ``text`` in a sans-serif font (deterministic estimate)."""
    return 0.6 * size * len(text)


def _abbrev(text: str, limit: int) -> str:
    limit = max(limit, 1)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ----------------------------------------------------------------------------------------------
# scales and ticks
# ----------------------------------------------------------------------------------------------


def _nice_step(span: float, target: int = 5) -> float:
    raw = span / target
    mag = 10.0 ** math.floor(math.log10(raw))
    for m in (1.0, 2.0, 2.5, 5.0, 10.0):
        if raw <= m * mag * (1 + 1e-9):
            return m * mag
    return 10.0 * mag  # pragma: no cover - the loop always returns


def _linear_axis(lo: float, hi: float, expand: bool) -> tuple[float, float, list[float]]:
    """Domain ``(d0, d1)`` covering ``[lo, hi]`` and "nice" ticks (multiples of 1, 2, 2.5, 5
    times a power of ten).  ``expand``: widen the domain to the nice ticks around it (y axes);
    otherwise the domain is ``[lo, hi]`` and only the ticks inside it are kept (x axes).
    """
    if lo == hi:
        pad = abs(lo) * 0.1 or 1.0
        lo, hi = lo - pad, hi + pad
    span = hi - lo
    if not math.isfinite(span) or span <= 0:
        return lo, hi, [lo, hi]
    step = _nice_step(span)
    if expand:
        k0, k1 = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
    else:
        k0, k1 = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9)
    if not 0 <= k1 - k0 <= 50:  # float trouble at extreme magnitudes: plain range
        return lo, hi, [lo, hi]
    ticks = [k * step for k in range(k0, k1 + 1)]
    return (ticks[0], ticks[-1], ticks) if expand else (lo, hi, ticks)


def _log_axis(lo: float, hi: float) -> tuple[float, float, list[float]]:
    """Domain in decades (log10 units) covering positive ``[lo, hi]``, ticks at powers of 10."""
    e0 = math.floor(math.log10(lo) + 1e-12)
    e1 = math.ceil(math.log10(hi) - 1e-12)
    if e1 <= e0:
        e1 = e0 + 1
    step = max(1, math.ceil((e1 - e0) / 8))
    e1 = e0 + step * math.ceil((e1 - e0) / step)
    return float(e0), float(e1), [float(e) for e in range(e0, e1 + 1, step)]


class _Frame:
    """Plot-area geometry and the data-to-pixel maps."""

    def __init__(self, left: float, top: float, width: float, height: float) -> None:
        self.left, self.top, self.width, self.height = left, top, width, height
        self.x0, self.x1 = 0.0, 1.0
        self.y0, self.y1 = 0.0, 1.0
        self.logy = False

    def px(self, x: float) -> float:
        return self.left + (x - self.x0) / (self.x1 - self.x0) * self.width

    def py(self, y: float) -> float:
        t = math.log10(y) if self.logy else y
        return self.top + self.height - (t - self.y0) / (self.y1 - self.y0) * self.height

    @property
    def bottom(self) -> float:
        return self.top + self.height


# ----------------------------------------------------------------------------------------------
# figures
# ----------------------------------------------------------------------------------------------

_PALETTE = (
    "#0072b2",
    "#d55e00",
    "#009e73",
    "#cc79a7",
    "#e69f00",
    "#56b4e9",
    "#000000",
    "#f0e442",
)
_WIDTH = 680.0
_FONT = 11.0
_MARKER_LIMIT = 40  # line series with at most this many drawn points also get point markers


def _color(i: int) -> str:
    return _PALETTE[i % len(_PALETTE)]


class _Counts:
    """Values skipped while drawing, for the figure's note."""

    def __init__(self) -> None:
        self.nonfinite = 0
        self.nonpositive = 0

    def usable(self, y: float, logy: bool) -> bool:
        if not math.isfinite(y):
            self.nonfinite += 1
            return False
        if logy and y <= 0:
            self.nonpositive += 1
            return False
        return True


def _floats(values: list[Any]) -> list[float]:
    return [_to_float(v) for v in values]


def _usable_y(y: float, logy: bool) -> bool:
    return math.isfinite(y) and (y > 0 or not logy)


def _legend(labels: list[str], kind: str, width: float) -> tuple[list[str], float]:
    """Legend items laid out left to right with wrapping; returns (svg lines, height)."""
    if not any(labels):
        return [], 0.0
    out = ['<g class="legend">']
    x, y, row_h = 0.0, 0.0, 16.0
    for i, label in enumerate(labels):
        text = _abbrev(label, 60)
        item_w = 18 + _text_width(text, _FONT) + 16
        if x > 0 and x + item_w > width:
            x, y = 0.0, y + row_h
        color = _color(i)
        if kind in ("histogram", "bars"):
            swatch = (
                f'<rect x="{_c(x)}" y="{_c(y + 2)}" width="12" height="10" fill="{color}" '
                'fill-opacity="0.6"/>'
            )
        else:
            swatch = (
                f'<line x1="{_c(x)}" y1="{_c(y + 7)}" x2="{_c(x + 12)}" y2="{_c(y + 7)}" '
                f'stroke="{color}" stroke-width="2"/>'
            )
        out.append(swatch)
        out.append(f'<text x="{_c(x + 16)}" y="{_c(y + 11)}">{_e(text)}</text>')
        x += item_w
    out.append("</g>")
    return out, y + row_h + 4


def _figure_svg(spec: dict[str, Any]) -> tuple[str, list[str]]:
    """The inline SVG of one validated figure spec, and notes about skipped values."""
    kind = spec["kind"]
    logy = bool(spec.get("logy", False))
    series = spec["series"]
    counts = _Counts()
    hlines = [(_to_float(h["y"]), h["label"]) for h in spec.get("hlines", [])]
    vlines = [(_to_float(v["x"]), v["label"]) for v in spec.get("vlines", [])]

    # ---- data ranges -------------------------------------------------------------------------
    xs: list[float] = []
    ys: list[float] = []
    categories: list[str] = []
    for s in series:
        y = _floats(s["y"])
        ys += [v for v in y if _usable_y(v, logy)]
        if kind == "bars":
            categories += [c for c in s["x"] if c not in categories]
        elif kind == "histogram":
            xs += _floats(s["x"])
        else:
            x = _floats(s["x"])
            xs += [a for a, b in zip(x, y, strict=True) if math.isfinite(a) and _usable_y(b, logy)]
    xs += [v for v, _ in vlines if math.isfinite(v)]
    ys += [v for v, _ in hlines if _usable_y(v, logy)]
    has_data = bool(ys)

    if logy:
        if ys:
            y0, y1, yticks = _log_axis(min(ys), max(ys))
        else:
            y0, y1, yticks = 0.0, 1.0, [0.0, 1.0]
        ytick_vals = [10.0**t for t in yticks]
    else:
        if kind in ("histogram", "bars"):
            ys.append(0.0)
        lo, hi = (min(ys), max(ys)) if ys else (0.0, 1.0)
        y0, y1, yticks = _linear_axis(lo, hi, expand=True)
        ytick_vals = yticks
    if kind == "bars":
        x0, x1, xticks = 0.0, float(max(len(categories), 1)), []
    else:
        lo, hi = (min(xs), max(xs)) if xs else (0.0, 1.0)
        x0, x1, xticks = _linear_axis(lo, hi, expand=False)

    # a little air so that data on the domain's edge is not drawn on the frame; bars and
    # histograms keep their baseline (0, or the bottom of a log axis) on the frame
    if kind in ("line", "step"):
        pad = 0.02 * (x1 - x0)
        x0, x1 = x0 - pad, x1 + pad
    pad = 0.03 * (y1 - y0)
    baseline = kind in ("histogram", "bars") and (logy or y0 == 0.0)
    y0, y1 = (y0 if baseline else y0 - pad), y1 + pad

    # ---- layout ------------------------------------------------------------------------------
    ylabels = [_g(v) for v in ytick_vals]
    left = 10 + max(_text_width(t) for t in ylabels) + 8 + (18 if spec.get("ylabel") else 0)
    legend, legend_h = _legend([s["label"] for s in series], kind, _WIDTH - left - 10)
    top = 10 + legend_h
    plot_h = 260.0
    bottom_pad = 26 + (18 if spec.get("xlabel") else 0)
    height = top + plot_h + bottom_pad
    frame = _Frame(left, top, _WIDTH - left - 16, plot_h)
    frame.x0, frame.x1, frame.y0, frame.y1, frame.logy = x0, x1, y0, y1, logy

    out = [
        f'<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="{_c(_WIDTH)}" '
        f'height="{_c(height)}" viewBox="0 0 {_c(_WIDTH)} {_c(height)}" role="img" '
        f'aria-label="{_e(spec["title"])}" font-family="sans-serif" font-size="{_c(_FONT)}">'
    ]
    if legend:
        out.append(f'<g transform="translate({_c(left)} 8)">')
        out += legend
        out.append("</g>")

    # ---- axes, grid, ticks -------------------------------------------------------------------
    out.append('<g class="axes" stroke="#999" stroke-width="1">')
    out.append(
        f'<rect x="{_c(frame.left)}" y="{_c(frame.top)}" width="{_c(frame.width)}" '
        f'height="{_c(frame.height)}" fill="none"/>'
    )
    for t in yticks:
        yy = frame.top + frame.height - (t - y0) / (y1 - y0) * frame.height
        out.append(
            f'<line x1="{_c(frame.left)}" y1="{_c(yy)}" x2="{_c(frame.left + frame.width)}" '
            f'y2="{_c(yy)}" stroke="#e5e5e5"/>'
        )
    out.append("</g>")
    out.append('<g class="ticks" fill="#333">')
    for t, label in zip(yticks, ylabels, strict=True):
        yy = frame.top + frame.height - (t - y0) / (y1 - y0) * frame.height
        out.append(
            f'<text x="{_c(frame.left - 6)}" y="{_c(yy + 4)}" text-anchor="end">{_e(label)}</text>'
        )
    if kind == "bars":
        band = frame.width / max(len(categories), 1)
        limit = int(band / _text_width("x")) if band > 0 else 1
        for k, cat in enumerate(categories):
            xx = frame.left + (k + 0.5) * band
            out.append(
                f'<text x="{_c(xx)}" y="{_c(frame.bottom + 16)}" text-anchor="middle">'
                f"<title>{_e(cat)}</title>{_e(_abbrev(cat, limit))}</text>"
            )
    else:
        for t in xticks:
            xx = frame.px(t)
            out.append(
                f'<text x="{_c(xx)}" y="{_c(frame.bottom + 16)}" text-anchor="middle">'
                f"{_e(_g(t))}</text>"
            )
    if spec.get("xlabel"):
        out.append(
            f'<text class="xlabel" x="{_c(frame.left + frame.width / 2)}" '
            f'y="{_c(frame.bottom + 36)}" text-anchor="middle">{_e(spec["xlabel"])}</text>'
        )
    if spec.get("ylabel"):
        cy = frame.top + frame.height / 2
        out.append(
            f'<text class="ylabel" x="14" y="{_c(cy)}" text-anchor="middle" '
            f'transform="rotate(-90 14 {_c(cy)})">{_e(spec["ylabel"])}</text>'
        )
    out.append("</g>")

    # ---- series ------------------------------------------------------------------------------
    base = frame.bottom if logy else frame.py(max(y0, min(0.0, y1)))
    n_series = len(series)
    for i, s in enumerate(series):
        color = _color(i)
        y = _floats(s["y"])
        if kind in ("line", "step"):
            out.append(f'<g class="series" data-series="{i}">')
            out.append(f"<title>{_e(s['label'])}</title>")
            d, points = _line_path(_floats(s["x"]), y, kind == "step", frame, counts)
            out.append(
                f'<path d="{d}" fill="none" stroke="{color}" stroke-width="1.75" '
                'stroke-linejoin="round" stroke-linecap="round"/>'
            )
            if kind == "line" and len(points) <= _MARKER_LIMIT:
                out += [f'<circle cx="{a}" cy="{b}" r="2.5" fill="{color}"/>' for a, b in points]
        elif kind == "histogram":
            out.append(
                f'<g class="series" data-series="{i}" fill="{color}" fill-opacity="0.5" '
                f'stroke="{color}">'
            )
            out.append(f"<title>{_e(s['label'])}</title>")
            edges = _floats(s["x"])
            for k, v in enumerate(y):
                if not counts.usable(v, logy):
                    continue
                xa, xb, yv = frame.px(edges[k]), frame.px(edges[k + 1]), frame.py(v)
                out.append(_rect(xa, min(yv, base), xb - xa, abs(base - yv)))
        else:  # bars
            out.append(f'<g class="series" data-series="{i}" fill="{color}" fill-opacity="0.8">')
            out.append(f"<title>{_e(s['label'])}</title>")
            band = frame.width / max(len(categories), 1)
            bar_w = band * 0.8 / n_series
            for cat, v in zip(s["x"], y, strict=True):
                if not counts.usable(v, logy):
                    continue
                k = categories.index(cat)
                xa = frame.left + k * band + band * 0.1 + i * bar_w
                yv = frame.py(v)
                out.append(_rect(xa, min(yv, base), bar_w, abs(base - yv)))
        out.append("</g>")

    # ---- reference lines ---------------------------------------------------------------------
    if vlines or hlines:
        out.append('<g class="reflines" stroke="#444" stroke-dasharray="5 3" fill="#222">')
        for v, label in vlines:
            if not counts.usable(v, False):
                continue
            xx = frame.px(v)
            out.append(
                f'<line x1="{_c(xx)}" y1="{_c(frame.top)}" x2="{_c(xx)}" y2="{_c(frame.bottom)}"/>'
            )
            if label:
                out.append(
                    f'<text x="{_c(xx + 3)}" y="{_c(frame.top + 12)}" stroke="none">'
                    f"{_e(label)}</text>"
                )
        for v, label in hlines:
            if not counts.usable(v, logy):
                continue
            yy = frame.py(v)
            right = frame.left + frame.width
            out.append(
                f'<line x1="{_c(frame.left)}" y1="{_c(yy)}" x2="{_c(right)}" y2="{_c(yy)}"/>'
            )
            if label:
                out.append(
                    f'<text x="{_c(right - 3)}" y="{_c(yy - 3)}" text-anchor="end" '
                    f'stroke="none">{_e(label)}</text>'
                )
        out.append("</g>")
    if not has_data:
        out.append(
            f'<text class="nodata" x="{_c(frame.left + frame.width / 2)}" '
            f'y="{_c(frame.top + frame.height / 2)}" text-anchor="middle" fill="#666">'
            "no data to show</text>"
        )
    out.append("</svg>")

    notes = []
    if counts.nonpositive:
        notes.append(f"{counts.nonpositive} non-positive value(s) not shown on the log scale.")
    if counts.nonfinite:
        notes.append(f"{counts.nonfinite} non-finite value(s) not shown.")
    return "\n".join(out), notes


def _rect(x: float, y: float, w: float, h: float) -> str:
    return f'<rect x="{_c(x)}" y="{_c(y)}" width="{_c(max(w, 0.0))}" height="{_c(max(h, 0.0))}"/>'


def _line_path(
    x: list[float], y: list[float], step: bool, frame: _Frame, counts: _Counts
) -> tuple[str, list[tuple[str, str]]]:
    """SVG path data and the drawn points (as coordinate text); a skipped point breaks the line.

    ``step``: post-step (hold y until the next x).  A lone point between gaps is drawn as a
    zero-length segment (a dot, with round caps).
    """
    parts: list[str] = []
    points: list[tuple[str, str]] = []
    pen_down = False
    for a, b in zip(x, y, strict=True):
        if not math.isfinite(a):
            counts.nonfinite += 1
            pen_down = False
            continue
        if not counts.usable(b, frame.logy):
            pen_down = False
            continue
        xx, yy = _c(frame.px(a)), _c(frame.py(b))
        points.append((xx, yy))
        if not pen_down:
            parts.append(f"M{xx} {yy}")
            parts.append("h0")
            pen_down = True
        elif step:
            parts.append(f"H{xx} V{yy}")
        else:
            parts.append(f"L{xx} {yy}")
    return (" ".join(parts) if parts else "M0 0"), points


# ----------------------------------------------------------------------------------------------
# page
# ----------------------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;
max-width:1100px;padding:1rem 1.5rem 3rem;color:#1a1a1a;line-height:1.45}
h1{font-size:1.5rem;margin:.5rem 0;overflow-wrap:anywhere}h2{font-size:1.2rem;margin-top:2rem;
border-bottom:1px solid #ddd;padding-bottom:.2rem}h3{font-size:1rem;margin:1.5rem 0 .4rem}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.88em}
pre{background:#f5f5f5;padding:.5rem .75rem;overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.92rem}
th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}
dl.meta,dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:.5rem 0}
dl.meta dt,dl.kv dt{font-weight:600}dl.meta dd,dl.kv dd{margin:0;overflow-wrap:anywhere}
.banner{border:2px solid;border-radius:6px;padding:.8rem 1.2rem;margin:1rem 0}
.banner .verdict{font-size:1.6rem;font-weight:700;letter-spacing:.03em}
.banner-certified{background:#e7f6ec;border-color:#1e7b3c;color:#124d26}
.banner-not-certified{background:#fdecea;border-color:#b3261e;color:#7a1712}
.banner-inconclusive{background:#fff5e0;border-color:#b26a00;color:#6b4000}
.warning{background:#fff5e0;border-left:4px solid #b26a00;padding:.4rem .8rem}
.pass{color:#1e7b3c;font-weight:700}.fail{color:#b3261e;font-weight:700}
.v-verified{color:#1e7b3c}.v-not-refuted{color:#3d7a55}.v-refuted{color:#b3261e;font-weight:600}
.v-inconclusive{color:#b26a00}.v-error{color:#7a1712;font-weight:600}
figure{margin:1.2rem 0}figcaption{font-weight:600;margin-bottom:.3rem}
figure .caption,figure .note{font-size:.9rem;color:#444;margin:.2rem 0}
svg.plot{max-width:100%;height:auto;display:block}
section.finding{border-top:1px solid #eee;padding-top:.3rem}
footer{margin-top:2rem;color:#555;font-size:.9rem}
""".strip()


def _banner(cert: dict[str, Any]) -> list[str]:
    verdict = cert["verdict"]
    css = "banner-" + verdict.lower().replace(" ", "-")
    out = [
        f'<section class="banner {css}" id="certification" role="status">',
        f'<div class="verdict">{_e(verdict)}</div>',
    ]
    if cert["scope"]:
        out.append(f"<p><strong>Scope:</strong> {_e(cert['scope'])}</p>")
    if cert["reasons"]:
        out.append("<ul>")
        out += [f"<li>{_e(r)}</li>" for r in cert["reasons"]]
        out.append("</ul>")
    if "counterexample" in cert:
        rel = cert["counterexample"]
        out.append(
            f'<p><strong>Counterexample:</strong> <a href="{_e(rel)}"><code>{_e(rel)}</code></a>'
            f"</p>"
        )
    if "data_sha256" in cert:
        out.append(f"<p><strong>Data SHA-256:</strong> <code>{_e(cert['data_sha256'])}</code></p>")
    if "fingerprint" in cert:
        out.append("<p><strong>Data fingerprint (keyed):</strong> "
                   f"<code>{_e(cert['fingerprint'])}</code></p>")
    out.append("</section>")
    return out


def _summary(report: dict[str, Any]) -> list[str]:
    s = report.get("summary") or {}
    findings = report.get("findings") or []
    word = overall_word(report)
    ok = word in _GOOD_WORDS
    out = ['<section id="summary">', "<h2>Summary</h2>", "<table>"]
    out.append("<tr>" + "".join(f"<th>{_e(v.value)}</th>" for v in Verdict) + "<th>total</th>"
               "<th>overall</th></tr>")
    cells = "".join(f'<td class="v-{v.value}">{_e(s.get(v.value, 0))}</td>' for v in Verdict)
    overall = f'<td class="{"pass" if ok else "fail"}">{_e(word)}</td>'
    out.append(f"<tr>{cells}<td>{_e(s.get('total', len(findings)))}</td>{overall}</tr>")
    out.append("</table>")
    if report.get("finished") is False:
        out.append('<p class="warning">The run did not finish: the findings are incomplete.</p>')
    out.append("</section>")
    return out


def _findings_table(findings: list[dict[str, Any]]) -> list[str]:
    out = ['<section id="findings">', "<h2>Findings</h2>"]
    if not findings:
        out += ["<p>No findings.</p>", "</section>"]
        return out
    out.append("<table>")
    out.append("<tr><th>id</th><th>verdict</th><th>method</th><th>claim</th><th>scope</th></tr>")
    for f in findings:
        fid = str(f.get("id", ""))
        verdict = str(f.get("verdict", ""))
        out.append(
            f'<tr><td><a href="#finding-{_e(fid)}"><code>{_e(fid)}</code></a></td>'
            f'<td class="v-{_e(verdict)}">{_e(verdict)}</td>'
            f"<td>{_e(f.get('method', ''))}</td>"
            f"<td>{_e(f.get('claim', ''))}</td>"
            f"<td>{_e(f.get('scope', '') or '—')}</td></tr>"
        )
    out += ["</table>", "</section>"]
    return out


def _figures(specs: list[dict[str, Any]]) -> list[str]:
    out = ['<section id="figures">', "<h2>Figures</h2>"]
    for spec in specs:
        svg, notes = _figure_svg(spec)
        out.append(f'<figure id="figure-{_e(spec["id"])}">')
        out.append(f"<figcaption>{_e(spec['title'])}</figcaption>")
        out.append(svg)
        if spec.get("caption"):
            out.append(f'<p class="caption">{_e(spec["caption"])}</p>')
        out += [f'<p class="note">{_e(n)}</p>' for n in notes]
        out.append("</figure>")
    out.append("</section>")
    return out


def _kv(pairs: list[tuple[str, str]]) -> list[str]:
    """A definition list; values are already-escaped HTML."""
    out = ['<dl class="kv">']
    for key, value in pairs:
        out.append(f"<dt>{_e(key)}</dt><dd>{value}</dd>")
    out.append("</dl>")
    return out


def _code(value: Any) -> str:
    return f"<code>{_e(compact(value, _VALUE_LIMIT))}</code>"


def _finding_detail(f: dict[str, Any]) -> list[str]:
    fid = str(f.get("id", ""))
    verdict = str(f.get("verdict", ""))
    out = [
        f'<section class="finding" id="finding-{_e(fid)}">',
        f'<h3><code>{_e(fid)}</code> — <span class="v-{_e(verdict)}">{_e(verdict.upper())}'
        "</span></h3>",
        f"<p>{_e(f.get('claim', ''))}</p>",
    ]
    pairs = []
    if f.get("reference"):
        pairs.append(("Reference", _e(f["reference"])))
    pairs.append(("Method", _e(f.get("method", ""))))
    pairs.append(("Scope", _e(f.get("scope") or "(none stated)")))
    if f.get("subject"):
        pairs.append(("Subject", f"<code>{_e(f['subject'])}</code>"))
    pairs.append(
        ("Tolerance", "exact / not applicable" if f.get("tolerance") is None
         else _code(f["tolerance"]))
    )
    pairs.append(("Seed", _e("none" if f.get("seed") is None else f["seed"])))
    if isinstance(f.get("duration_s"), (int, float)) and not isinstance(f["duration_s"], bool):
        pairs.append(("Duration", _e(f"{_g(float(f['duration_s']))} s")))
    out += _kv(pairs)
    evidence = f.get("evidence") or {}
    if evidence:
        out.append("<h4>Evidence</h4>")
        out += _kv([(str(k), _code(evidence[k])) for k in sorted(evidence)])
    secret = f.get("confidential") or {}
    if secret:
        out.append("<h4>Confidential (computed from the data)</h4>")
        out += _kv([(str(k), _code(secret[k])) for k in sorted(secret)])
    cx = f.get("counterexample")
    if cx is not None:
        out.append("<h4>Counterexample</h4>")
        if isinstance(cx, dict) and "inputs" in cx:
            cpairs = [
                ("Inputs", _code(cx.get("inputs"))),
                ("Expected", _code(cx.get("expected"))),
                ("Actual", _code(cx.get("actual"))),
            ]
            if cx.get("tolerance") is not None:
                cpairs.append(("Tolerance", _code(cx["tolerance"])))
            if cx.get("note"):
                cpairs.append(("Note", _e(cx["note"])))
        else:
            cpairs = [("Document", _code(cx))]
        rel = counterexample_relpath(fid)
        cpairs.append(("File", f'<a href="{_e(rel)}"><code>{_e(rel)}</code></a>'))
        out += _kv(cpairs)
        out.append(f"<pre><code>dpaudit replay {_e(rel)}</code></pre>")
    out.append("</section>")
    return out


def render_html(report: dict[str, Any]) -> str:
    """The self-contained HTML page of a report document (``report.html``).

    Sections: header (command, subject, seed, finished, parameters), the certification banner
    (when the report has ``certification``), summary counts, a findings table, the figures (when
    the report has ``figures``; inline SVG), per-finding details (reference, evidence,
    counterexample link ``counterexamples/<id>.json``, tolerance, seed, duration) and the timing.
    No external resources, no JavaScript; every report string is HTML-escaped.  Deterministic:
    the same dict gives the same text.  Raises ``ValueError`` (from :func:`validate_figures` /
    :func:`validate_certification`) if the report's ``figures`` or ``certification`` is malformed.
    """
    figures = validate_figures(report["figures"]) if "figures" in report else None
    cert = validate_certification(report["certification"]) if "certification" in report else None
    findings = report.get("findings") or []
    command = str(report.get("command", ""))
    subject = str(report.get("subject", ""))
    seed = report.get("seed")
    finished = report.get("finished")
    title = f"dpaudit {command} — {subject}"

    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title>",
        f"<style>\n{_CSS}\n</style>",
        "</head>",
        "<body>",
        "<header>",
        f"<h1>{_e(title)}</h1>",
    ]
    meta = [
        ("Command", f"<code>{_e(command)}</code>"),
        ("Subject", f"<code>{_e(subject)}</code>"),
        ("Seed", _e("none" if seed is None else seed)),
        ("Finished", "yes" if finished is True else ("no" if finished is False else "unknown")),
        ("Schema", f"<code>{_e(report.get('schema', ''))}</code>"),
    ]
    params = report.get("parameters") or {}
    if params:
        meta.append(("Parameters", _code(params)))
    text = confidentiality_text(report)
    if text is not None:
        meta.append(("Confidentiality", _e(text)))
    out += _kv(meta)
    out.append("</header>")
    out.append("<main>")
    if cert is not None:
        out += _banner(cert)
    out += _summary(report)
    out += _findings_table(findings)
    if figures:
        out += _figures(figures)
    if findings:
        out.append('<section id="details">')
        out.append("<h2>Details</h2>")
        for f in findings:
            out += _finding_detail(f)
        out.append("</section>")
    out.append("</main>")
    timing = report.get("timing")
    if isinstance(timing, dict):
        total = timing.get("total_duration_s")
        total_text = (_g(float(total)) if isinstance(total, (int, float)) else str(total))
        out.append(
            f"<footer>Started {_e(timing.get('started_at', '?'))}"
            + (f"; total {_e(total_text)} s." if total is not None else ".")
            + "</footer>"
        )
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"
