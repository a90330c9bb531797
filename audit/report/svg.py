"""Inline SVG figures of a report (line, histogram, bars, step): axes, legend, series, and
the note on values that could not be drawn.  Pure functions of a validated figure spec
(:mod:`audit.report.model`): no I/O, no clock; the same spec always gives the same bytes.

Log scale: on a figure with ``logy`` true, non-positive y values (and non-positive ``hlines``)
cannot be placed; they are *skipped* when drawing and the figure's note says how many were
skipped.  Non-finite values (``"nan"``, ``"inf"``, ``"-inf"``) are skipped the same way; a line
or step series is broken at a skipped point."""

from __future__ import annotations

import html
import math
from typing import Any

from audit.report.model import to_float

__all__ = ["esc", "figure_svg", "num"]

# ----------------------------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------------------------


def esc(value: Any) -> str:
    """HTML-escaped text (quotes too: safe in element content and attribute values)."""
    return html.escape(value if isinstance(value, str) else str(value), quote=True)


def num(value: float) -> str:
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
    return [to_float(v) for v in values]


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
        out.append(f'<text x="{_c(x + 16)}" y="{_c(y + 11)}">{esc(text)}</text>')
        x += item_w
    out.append("</g>")
    return out, y + row_h + 4


def figure_svg(spec: dict[str, Any]) -> tuple[str, list[str]]:
    """The inline SVG of one validated figure spec, and notes about skipped values."""
    kind = spec["kind"]
    logy = bool(spec.get("logy", False))
    series = spec["series"]
    counts = _Counts()
    hlines = [(to_float(h["y"]), h["label"]) for h in spec.get("hlines", [])]
    vlines = [(to_float(v["x"]), v["label"]) for v in spec.get("vlines", [])]

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
    xticks: list[float]
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
    ylabels = [num(v) for v in ytick_vals]
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
        f'aria-label="{esc(spec["title"])}" font-family="sans-serif" font-size="{_c(_FONT)}">'
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
            f'<text x="{_c(frame.left - 6)}" y="{_c(yy + 4)}" text-anchor="end">{esc(label)}</text>'
        )
    if kind == "bars":
        band = frame.width / max(len(categories), 1)
        limit = int(band / _text_width("x")) if band > 0 else 1
        for k, cat in enumerate(categories):
            xx = frame.left + (k + 0.5) * band
            out.append(
                f'<text x="{_c(xx)}" y="{_c(frame.bottom + 16)}" text-anchor="middle">'
                f"<title>{esc(cat)}</title>{esc(_abbrev(cat, limit))}</text>"
            )
    else:
        for t in xticks:
            xx = frame.px(t)
            out.append(
                f'<text x="{_c(xx)}" y="{_c(frame.bottom + 16)}" text-anchor="middle">'
                f"{esc(num(t))}</text>"
            )
    if spec.get("xlabel"):
        out.append(
            f'<text class="xlabel" x="{_c(frame.left + frame.width / 2)}" '
            f'y="{_c(frame.bottom + 36)}" text-anchor="middle">{esc(spec["xlabel"])}</text>'
        )
    if spec.get("ylabel"):
        cy = frame.top + frame.height / 2
        out.append(
            f'<text class="ylabel" x="14" y="{_c(cy)}" text-anchor="middle" '
            f'transform="rotate(-90 14 {_c(cy)})">{esc(spec["ylabel"])}</text>'
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
            out.append(f"<title>{esc(s['label'])}</title>")
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
            out.append(f"<title>{esc(s['label'])}</title>")
            edges = _floats(s["x"])
            for k, v in enumerate(y):
                if not counts.usable(v, logy):
                    continue
                xa, xb, yv = frame.px(edges[k]), frame.px(edges[k + 1]), frame.py(v)
                out.append(_rect(xa, min(yv, base), xb - xa, abs(base - yv)))
        else:  # bars
            out.append(f'<g class="series" data-series="{i}" fill="{color}" fill-opacity="0.8">')
            out.append(f"<title>{esc(s['label'])}</title>")
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
                    f"{esc(label)}</text>"
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
                    f'stroke="none">{esc(label)}</text>'
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
