"""Static SVG of a node-link figure, drawn on the server from the same plotly figure the interactive view shows.

The first screen shows these instead of plotly charts: the browser then never loads plotly.js (a 4.7 MB
module, ~2 CPU-seconds of chromium on this machine) for it (docs/dashboard.md, Speed). Only what
`figures.network_figure` and `figures.workload_tree_figure` use is drawn: scatter traces of lines
(dotted, dashed), markers (circle, square, arrow, triangle-right; per-point colours and angles) and
text, the title, and the legend below the plot. Hover texts become SVG <title>s: the browser shows
them as tooltips. Pure: a figure in, a string out (no Streamlit).
"""

from __future__ import annotations

import base64
import math
from html import escape
from typing import Any, Sequence

import numpy as np

WIDTH = 440
"""Drawing width in px; the picture scales to its column (at 1280 px a column is ~400 px wide, text ~0.9x)."""
FONT = "'Open Sans', verdana, arial, sans-serif"
TEXT_COLOUR = "#444"
_CHAR = 0.56
"""Average width of a character in ems (for laying out the legend and padding labels)."""


def figure_svg(fig: Any, name: str, width: int = WIDTH) -> str:
    """The figure (a go.Figure or its dict) as one line of inline SVG, `data-picture` set to `name`."""
    spec = decode(fig.to_dict() if hasattr(fig, "to_dict") else fig)
    layout, traces = spec.get("layout", {}), spec.get("data", [])
    height = int(layout.get("height") or 360)
    margin = {"l": 4, "r": 4, "t": 6, "b": 4, **layout.get("margin", {})}
    title = (layout.get("title") or {}).get("text") or ""
    title_size = ((layout.get("title") or {}).get("font") or {}).get("size", 14)
    legend_items = [t for t in traces if t.get("showlegend", True) and t.get("name")] if layout.get("showlegend") \
        else []
    legend_font = ((layout.get("legend") or {}).get("font") or {}).get("size", 12)
    rows = _legend_rows(legend_items, legend_font, width - margin["l"] - margin["r"])
    legend_h = len(rows) * (legend_font + 10) + (6 if rows else 0)
    box = (margin["l"], margin["t"], width - margin["r"], height - margin["b"] - legend_h)
    equal = (layout.get("yaxis") or {}).get("scaleanchor") == "x"
    to_px = _projection(traces, box, equal)
    out = [f'<svg data-picture="{escape(name)}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
           f'width="100%" style="height:auto;max-height:{round(1.3 * height)}px;font-family:{FONT}" '
           f'role="img" aria-label="{escape(title or name)}">',
           f'<rect width="{width}" height="{height}" fill="{layout.get("plot_bgcolor", "white")}"/>']
    for tr in traces:
        out += _trace(tr, to_px)
    if title:
        out.append(_text(margin["l"] + 0.01 * width, title_size + 6, title, title_size, TEXT_COLOUR, "start",
                         ' font-weight="600"'))  # as Streamlit's plotly theme
    out += _legend(rows, box[3] + 8, margin["l"], legend_font)
    out.append("</svg>")
    return "".join(out)


def decode(obj: Any) -> Any:
    """A plotly JSON value with its base64 typed arrays ({"dtype", "bdata"[, "shape"]}) as numpy arrays."""
    if isinstance(obj, dict):
        if "bdata" in obj and "dtype" in obj and set(obj) <= {"bdata", "dtype", "shape"}:
            arr = np.frombuffer(base64.b64decode(obj["bdata"]), dtype=np.dtype(obj["dtype"]).newbyteorder("<"))
            if obj.get("shape"):
                arr = arr.reshape([int(x) for x in str(obj["shape"]).split(",")])
            return arr
        return {k: decode(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [decode(v) for v in obj]
    return obj


def _points(tr: dict) -> list[tuple[float | None, float | None]]:
    xs, ys = tr.get("x"), tr.get("y")
    if xs is None or ys is None:
        return []
    return [(_num(x), _num(y)) for x, y in zip(list(xs), list(ys))]


def _num(v: Any) -> float | None:
    return None if v is None or math.isnan(float(v)) else float(v)


def _projection(traces: Sequence[dict], box: tuple[float, float, float, float], equal: bool):
    """Data -> px inside `box`, padded by half the largest marker plus room for labels below; `equal`: one scale for
    both axes (plotly's scaleanchor), the drawing centred."""
    pts = [p for tr in traces for p in _points(tr) if p[0] is not None and p[1] is not None]
    if not pts:
        return lambda x, y: (box[0], box[1])
    x0, x1 = min(p[0] for p in pts), max(p[0] for p in pts)
    y0, y1 = min(p[1] for p in pts), max(p[1] for p in pts)
    pad = max([_size(tr) / 2 for tr in traces if "markers" in tr.get("mode", "")] + [4]) + 2
    below = max([_font(tr) + 2 for tr in traces if "text" in tr.get("mode", "")
                 and "bottom" in str(tr.get("textposition", ""))] + [0])
    side = max([_CHAR * _font(tr) * max(len(str(v)) for v in tr["text"]) / 2 for tr in traces
                if "text" in tr.get("mode", "") and tr.get("text") is not None and len(tr["text"])] + [0])
    left, top, right, bottom = box[0] + max(pad, side), box[1] + pad, box[2] - max(pad, side), box[3] - pad - below
    sx = (right - left) / (x1 - x0) if x1 > x0 else 1.0
    sy = (bottom - top) / (y1 - y0) if y1 > y0 else 1.0
    if equal:
        sx = sy = min(sx, sy)
    cx, cy = (left + right) / 2 - sx * (x0 + x1) / 2, (top + bottom) / 2 + sy * (y0 + y1) / 2
    return lambda x, y: (cx + sx * x, cy - sy * y)


def _size(tr: dict) -> float:
    s = (tr.get("marker") or {}).get("size", 6)
    return float(max(s) if isinstance(s, (list, tuple)) and s else s if not isinstance(s, (list, tuple)) else 6)


def _font(tr: dict) -> float:
    return float((tr.get("textfont") or {}).get("size", 12))


def _each(v: Any, i: int, default: Any) -> Any:
    """Per-point value of a plotly attribute that may be one value or a list."""
    if v is None:
        return default
    if isinstance(v, (list, tuple)) or hasattr(v, "tolist") and not isinstance(v, str):
        seq = list(v)
        return seq[i] if i < len(seq) else default
    return v


def _dash(dash: str | None, width: float) -> str:
    """Plotly's dash patterns, in units of the line width (at least 3 px)."""
    w = max(width, 3)
    return {"dot": f' stroke-dasharray="{w:g},{w:g}"', "dash": f' stroke-dasharray="{3 * w:g},{3 * w:g}"'}.get(dash, "")


def _trace(tr: dict, to_px) -> list[str]:
    """Lines, then markers, then text of one scatter trace (plotly's order)."""
    mode, pts, out = tr.get("mode", "markers"), _points(tr), []
    if "lines" in mode:
        line = tr.get("line") or {}
        width = float(line.get("width", 2))
        runs, run = [], []
        for p in pts + [(None, None)]:
            if p[0] is None or p[1] is None:
                if len(run) > 1:
                    runs.append(run)
                run = []
            else:
                run.append(to_px(*p))
        d = "".join("M" + "L".join(f"{x:.1f},{y:.1f}" for x, y in r) for r in runs)
        if d:
            out.append(f'<path d="{d}" fill="none" stroke="{line.get("color", "#444")}" stroke-width="{width:g}"'
                       f'{_dash(line.get("dash"), width)} stroke-linejoin="round"/>')
    hover = tr.get("hovertext")
    show_hover = tr.get("hoverinfo") != "skip" and hover is not None
    if "markers" in mode:
        m = tr.get("marker") or {}
        edge = m.get("line") or {}
        for i, (x, y) in enumerate(pts):
            if x is None or y is None:
                continue
            px, py = to_px(x, y)
            tip = _each(hover, i, "") if show_hover else ""
            out.append(_marker(px, py, str(_each(m.get("symbol"), i, "circle")), float(_each(m.get("size"), i, 6)),
                               _each(m.get("color"), i, "#1f77b4"), float(_each(m.get("angle"), i, 0) or 0),
                               _each(edge.get("color"), i, "none"), float(_each(edge.get("width"), i, 0) or 0), tip))
    if "text" in mode and tr.get("text") is not None:
        font = tr.get("textfont") or {}
        size = float(font.get("size", 12))
        below = "bottom" in str(tr.get("textposition", "middle center"))
        drop = _size(tr) / 2 + size * 0.9 if below else size * 0.35
        for i, (x, y) in enumerate(pts):
            label = _each(tr["text"], i, "")
            if x is None or y is None or not label:
                continue
            px, py = to_px(x, y)
            out.append(_text(px, py + drop, str(label), size, _each(font.get("color"), i, TEXT_COLOUR), "middle"))
    return out


def _marker(x: float, y: float, symbol: str, size: float, colour: str, angle: float, edge: str, edge_w: float,
            tip: str) -> str:
    """One marker: size is its diameter in px (plotly's), angle in degrees clockwise from pointing up."""
    r = size / 2
    stroke = f' stroke="{edge}" stroke-width="{edge_w:g}"' if edge_w > 0 and edge != "none" else ""
    title = f"<title>{escape(tip)}</title>" if tip else ""
    if symbol == "square":
        shape = f'<rect x="{x - r:.1f}" y="{y - r:.1f}" width="{size:.1f}" height="{size:.1f}"'
    elif symbol in ("arrow", "triangle-right"):
        rot = angle if symbol == "arrow" else 90.0
        shape = (f'<path d="M0,{-r:.1f}L{0.8 * r:.1f},{0.8 * r:.1f}L{-0.8 * r:.1f},{0.8 * r:.1f}Z" '
                 f'transform="translate({x:.1f},{y:.1f}) rotate({rot:.1f})"')
    else:
        shape = f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}"'
    return f'{shape} fill="{colour}"{stroke}>{title}</{shape[1:shape.index(" ")]}>'


def _text(x: float, y: float, text: str, size: float, colour: str, anchor: str, extra: str = "") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:g}" fill="{colour}" text-anchor="{anchor}"{extra}>'
            f'{escape(text)}</text>')


SAMPLE = 36
"""Width of a legend sample in px."""


def _legend_rows(items: Sequence[dict], font: float, width: float) -> list[list[dict]]:
    """Legend items wrapped into rows as wide as the plot (plotly's horizontal legend)."""
    rows: list[list[dict]] = []
    used = width
    for tr in items:
        w = SAMPLE + 6 + _CHAR * font * len(tr["name"]) + 14
        if used + w > width and (not rows or rows[-1]):
            rows.append([])
            used = 0.0
        rows[-1].append(tr)
        used += w
    return rows


def _legend(rows: list[list[dict]], top: float, left: float, font: float) -> list[str]:
    """A sample (line or marker, in the trace's style) and the name of each legend item."""
    out = []
    for r, row in enumerate(rows):
        y, x = top + r * (font + 10) + font / 2 + 2, left
        for tr in row:
            if "lines" in tr.get("mode", ""):
                line = tr.get("line") or {}
                w = float(line.get("width", 2))
                out.append(f'<path d="M{x + 2:.1f},{y:.1f}h{SAMPLE - 4}" stroke="{line.get("color", "#444")}" '
                           f'stroke-width="{min(w, 5):g}"{_dash(line.get("dash"), w)}/>')
            else:
                m = tr.get("marker") or {}
                out.append(_marker(x + SAMPLE / 2, y, str(_each(m.get("symbol"), 0, "circle")), 11,
                                   _each(m.get("color"), 0, "#444"), 0.0, "none", 0.0, ""))
            out.append(_text(x + SAMPLE + 4, y + font * 0.35, tr["name"], font, TEXT_COLOUR, "start"))
            x += SAMPLE + 6 + _CHAR * font * len(tr["name"]) + 14
    return out
