"""How a category axis names its categories (heatmap rows, flow-trees, link groups, candidates): every one when the
names fit, else every k-th, and the words that say so under the chart. Pure: numbers and names in, plotly axis
properties and text out.

plotly names a category axis by itself only where each category gets 1.2 x its font size of length (its
``Lib.bigFont``) and silently drops the other names: every other flow-tree of DCell(4,1) in the debugger's 254-px
round bars (trial 13), every other link of a 20-link upload in the player (trial 12). So every category axis here
sets its ticks explicitly, from the axis's length in px.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

ROW_FONT, MIN_ROW_FONT = 11, 9
"""Font sizes (px) of category names: the usual one, and the smallest used before naming only every k-th."""
LINE = 1.2
"""A name needs this many times its font size of axis length: plotly's own rule for a category axis (its
``Lib.bigFont``), by which it silently drops every other name when it sets the ticks itself."""
BOTH_WAYS = "<->"
"""Joins a link's two ends in the name of a row that stands for both of its directions (``s00<->sw0.0``)."""


@dataclass(frozen=True)
class Naming:
    """How an axis names its categories: every `stride`-th (1: all) at `font` px; `both_ways`: each named row is a
    link's first direction and the row after it the other, both named at once (``a<->b``)."""

    stride: int
    font: int
    both_ways: bool = False


def naming(n: int, axis_px: float, paired: bool = False) -> Naming:
    """The names that fit `n` categories on an axis `axis_px` long: all of them at the largest font that fits (down to
    MIN_ROW_FONT), else every k-th at MIN_ROW_FONT. `paired` (rows 2e and 2e+1 are one link's two directions, core's
    link order): k is made even, so each named row is a link's first direction and is named with both."""
    pitch = axis_px / max(n, 1)
    font = min(ROW_FONT, int(pitch / LINE))
    if font >= MIN_ROW_FONT:
        return Naming(1, font)
    stride = max(2, math.ceil(LINE * MIN_ROW_FONT / max(pitch, 1e-9)))
    if paired:
        return Naming(stride + stride % 2, MIN_ROW_FONT, True)
    return Naming(stride, MIN_ROW_FONT)


def named_axis(names: Sequence[str], how: Naming, pair_names: Sequence[str] | None = None) -> dict:
    """A category axis's properties naming the categories `how` says, set explicitly (plotly's own ticks skip names it
    thinks would overlap, without saying so). With `how.both_ways`, `pair_names[e]` names rows 2e and 2e+1."""
    shown = list(names)[::how.stride]
    text = shown
    if how.both_ways and pair_names is not None:
        text = [pair_names[i // 2] for i in range(0, len(names), how.stride)]
    return dict(tickmode="array", tickvals=shown, ticktext=text, tickfont=dict(size=how.font), showticklabels=True)


def ordinal(n: int) -> str:
    """2nd, 3rd, 4th, 11th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def unnamed_note(how: Naming, what: str, where: str, example: str | None = None, hover: bool = True) -> str:
    """The words under a chart whose axis names only every k-th `what` (``flow-tree``) `where` (``on the left``),
    ending "hover for the rest" unless `hover` is False; empty when it names them all. With `how.both_ways`, `example`
    (a pair name, ``s00<->sw0.0``) shows how a name stands for two rows."""
    if how.stride == 1:
        return ""
    text = f"every {ordinal(how.stride)} {what} is named {where}"
    if how.both_ways:
        a, _, b = (example or f"a{BOTH_WAYS}b").partition(BOTH_WAYS)
        text += (f", with its link's other direction, the row below it ({a}{BOTH_WAYS}{b} names {a}->{b} and, below "
                 f"it, {b}->{a})")
    return text + ("; hover for the rest" if hover else "")
