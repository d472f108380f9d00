"""Where node names go in a small network drawing so that each can be read: in pixels, beside its node, clear of
the other names and nodes and, where there is room, of the links (and the busy links' arrows along them).

The player draws up to three networks side by side in ~236 px each at 1280 px; DCell(4,1)'s 20 server names,
each under its dot, overlapped their neighbours and lay on the links. Here every name tries eight places around
its node, the one pointing away from the drawing's middle first, each beside the marker and one line further out
(so a row of close servers gets its names in two staggered lines); a place nearer another node than its own would
name the wrong one and is not taken. A name with no free place is left to the node's hover text.
No Streamlit, no plotly: numbers in, offsets out.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

CHAR_EM, LINE_EM = 0.62, 1.3
"""A name's estimated box: 0.62 of the font size per character (wider than Open Sans' digits and lower case, ~0.55)
by 1.3 of it; a box drawn this size or smaller around the same centre overlaps nothing this module avoided."""
GAP_PX = 2.0
"""Space between a node's marker and its name."""
DIRECTIONS = np.array([(0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1)], dtype=float)
"""The eight places around a node (x right, y up): below, below right, right, above right, above, ..."""


def label_box(text: str, font: float) -> tuple[float, float]:
    """(width, height) in px of a name in a font of `font` px, as estimated here."""
    return CHAR_EM * font * len(text), LINE_EM * font


def place(xy: np.ndarray, texts: Sequence[str], marker_px: Sequence[float], segments: np.ndarray, font: float,
          panel: tuple[float, float], order: Sequence[int] | None = None) -> list[tuple[float, float] | None]:
    """Per node, the offset (px, x right, y up) of its name's centre from the node's centre, or None when no place
    around it is free.

    `xy`: node centres in px, (0, 0) the panel's middle; `marker_px`: each marker's size (its box is that square);
    `segments`: (m, 4) link ends in px, x0 y0 x1 y1; `panel`: (width, height) in px, names stay inside it;
    `order`: which names are placed first (they get the better places). A place must not overlap a placed name or
    another node's marker; among those, one that no link crosses is taken first.
    """
    n = len(texts)
    order = list(range(n)) if order is None else list(order)
    middle = xy.mean(axis=0) if n else np.zeros(2)
    half_w, half_h = panel[0] / 2, panel[1] / 2
    nodes = [_box(xy[v], marker_px[v], marker_px[v]) for v in range(n)]
    placed: list[tuple[float, float, float, float]] = []
    out: list[tuple[float, float] | None] = [None] * n
    for v in order:
        w, h = label_box(texts[v], font)
        away = xy[v] - middle
        rank = np.argsort(-(DIRECTIONS / np.hypot(*DIRECTIONS.T)[:, None]) @ away if np.hypot(*away) > 1e-9
                          else np.arange(len(DIRECTIONS)), kind="stable")
        crossed_choice = None
        for i, far in ((i, far) for i in rank.tolist() for far in (0, 1)):
            dx, dy = DIRECTIONS[i]
            r = marker_px[v] / 2 + GAP_PX + far * (h + GAP_PX)
            off = np.array([dx * (r + w / 2) if dx else 0.0, dy * (r + h / 2) if dy else 0.0])
            box = _box(xy[v] + off, w, h)
            centre = xy[v] + off
            if (box[0] < -half_w or box[2] > half_w or box[1] < -half_h or box[3] > half_h
                    or any(_overlap(box, b) for b in placed)
                    or any(_overlap(box, nodes[u]) for u in range(n) if u != v)
                    or (n > 1 and np.hypot(*(xy - centre).T).argmin() != v)):  # nearer another node: ambiguous
                continue
            if not _crosses(box, segments):
                crossed_choice = None
                out[v] = (float(off[0]), float(off[1]))
                break
            if crossed_choice is None:
                crossed_choice = (float(off[0]), float(off[1]))
        if out[v] is None and crossed_choice is not None:
            out[v] = crossed_choice
        if out[v] is not None:
            w, h = label_box(texts[v], font)
            placed.append(_box(xy[v] + np.array(out[v]), w, h))
    return out


def _box(centre: np.ndarray, w: float, h: float) -> tuple[float, float, float, float]:
    return (float(centre[0] - w / 2), float(centre[1] - h / 2), float(centre[0] + w / 2), float(centre[1] + h / 2))


def _overlap(a: tuple, b: tuple) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _crosses(box: tuple, segments: np.ndarray) -> bool:
    """True when any segment passes through the box (Liang-Barsky clipping, vectorized over the segments)."""
    if not len(segments):
        return False
    x0, y0, x1, y1 = segments.T
    dx, dy = x1 - x0, y1 - y0
    lo, hi = np.zeros(len(segments)), np.ones(len(segments))
    ok = np.ones(len(segments), dtype=bool)
    for p, q in ((-dx, x0 - box[0]), (dx, box[2] - x0), (-dy, y0 - box[1]), (dy, box[3] - y0)):
        par = np.abs(p) < 1e-12
        ok &= ~(par & (q < 0))
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(par, 0.0, q / np.where(par, 1.0, p))
        lo = np.where(~par & (p < 0), np.maximum(lo, t), lo)
        hi = np.where(~par & (p > 0), np.minimum(hi, t), hi)
    return bool((ok & (lo <= hi)).any())
