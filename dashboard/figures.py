"""Pure plotly figure builders: arrays and plain values in, ``go.Figure`` or its dict out (no Streamlit, no core logic).

The node-link pictures (network, node tree, workload trees) are built as plain plotly dicts: the first screen
draws them as static SVG (dashboard/svg.py) and never instantiates a plotly object, whose first construction costs
~0.1 s of validator set-up (docs/dashboard.md, Speed); `st.plotly_chart` takes the dict as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative, sample_colorscale
from plotly.subplots import make_subplots

from core.methods import METHODS

from .axisnames import ROW_FONT, Naming, named_axis, naming

PALETTE: tuple[str, ...] = tuple(qualitative.Dark24) + tuple(qualitative.Light24)
"""Flow-tree colours: tree t is drawn in PALETTE[t % len(PALETTE)]."""
IDLE_COLOUR = "#f2f4f7"
IDLE_BAND = 10.0
"""How far below 0 % the heatmaps' colour range starts: the colour bar's bottom band, that many percent of 0-100 tall,
is drawn in IDLE_COLOUR and labelled "idle". With the range at 0-100 the idle grey took 0.5 % of the bar, so the bar
showed pale green at 0 % while idle cells were grey (trial 19)."""
UTIL_CMIN = -IDLE_BAND


def _at(pct: float) -> float:
    """Where `pct` % lies on the colour scale (UTIL_CMIN .. 100)."""
    return (pct - UTIL_CMIN) / (100 - UTIL_CMIN)


UTIL_SCALE = [[0.0, IDLE_COLOUR], [_at(0), IDLE_COLOUR], [_at(0.05), "#c7e9b4"], [_at(50), "#41b6c4"],
              [1.0, "#0c2c84"]]
"""One colour scale for every utilization heatmap, over UTIL_CMIN..100: idle (0 %, pale grey, the colour bar's
labelled bottom band), then from pale green (just above 0 %) to dark blue (100 % of capacity)."""
UTIL_TICKS = dict(tickvals=[UTIL_CMIN / 2, 25, 50, 75, 100], ticktext=["idle", "25", "50", "75", "100"])
"""The colour bar's labels: its grey band named "idle" (0 %), then the percentages."""
SERVER_COLOUR, SWITCH_COLOUR, ROOT_COLOUR, EDGE_COLOUR = "#1f77b4", "#ff7f0e", "#d62728", "#b0b0b0"
MARKER_COLOUR = "#e4002b"


def tree_colour(tree: int) -> str:
    """The colour of a flow-tree."""
    return PALETTE[int(tree) % len(PALETTE)]


def method_colour(method: str) -> str:
    """The colour of a scheduling method in every chart."""
    return METHODS[method].colour if method in METHODS else "#7f7f7f"


@dataclass(frozen=True, eq=False)
class NetDrawing:
    """Where a topology's nodes and links are drawn (plain arrays, built once per topology)."""

    x: np.ndarray
    y: np.ndarray
    labels: tuple[str, ...]
    is_server: np.ndarray
    edges: np.ndarray
    link_src: np.ndarray
    link_dst: np.ndarray
    bandwidth: np.ndarray | None = None
    """Gbit/s of each undirected link (None: not shown)."""
    failed: np.ndarray | None = None
    """True for a failed undirected link (drawn red and dotted)."""
    link_text: Sequence[str] = ()
    """Hover text of each undirected link (id, ends, level, bandwidth, latency)."""

    @property
    def span(self) -> float:
        """Size of the drawing (for offsets that scale with it)."""
        return float(max(np.ptp(self.x), np.ptp(self.y), 1e-9))

    @property
    def dead(self) -> np.ndarray:
        """Per undirected link: failed."""
        return np.zeros(len(self.edges), bool) if self.failed is None else np.asarray(self.failed, bool)

    def speeds(self) -> list[tuple[float, np.ndarray]]:
        """(bandwidth, working links at it) from the fastest down; one entry when every link runs at one speed."""
        if self.bandwidth is None:
            return []
        bw = np.asarray(self.bandwidth, float)
        alive = ~self.dead
        return [(float(b), np.flatnonzero(alive & (bw == b))) for b in np.unique(bw[alive])[::-1]]


FAILED_COLOUR, CHANGED_COLOUR = "#d62728", "#e377c2"


def speed_style(bandwidth: float, fastest: float) -> tuple[str, float]:
    """(colour, width) of a link at `bandwidth` when the fastest link runs at `fastest`: slower is thinner and paler."""
    share = float(np.clip(bandwidth / fastest, 0.0, 1.0)) if fastest > 0 else 1.0
    grey = int(round(200 - 120 * share))  # #505050 for the fastest, paler below
    return f"#{grey:02x}{grey:02x}{grey:02x}", 0.8 + 3.2 * share


def link_legend(d: NetDrawing) -> list[tuple]:
    """Legend keys of the links: one per bandwidth (width and shade), and failed links."""
    speeds = d.speeds()
    if not speeds:
        return []
    keys: list[tuple] = []
    if len(speeds) == 1:
        keys.append((f"every link {speeds[0][0]:g} Gbit/s", EDGE_COLOUR, "line", 1.5))
    else:
        for b, _ in speeds:
            colour, width = speed_style(b, speeds[0][0])
            keys.append((f"{b:g} Gbit/s link", colour, "line", width))
    if d.dead.any():
        keys.append(("failed link", FAILED_COLOUR, "dot", 2.0))
    return keys


def _scatter(**props) -> dict:
    """A scatter trace as a plotly dict; None values (plotly's "unset") are left out, as `go.Scatter` would."""
    return _unset({"type": "scatter", **props})


def _unset(props: dict) -> dict:
    return {k: _unset(v) if isinstance(v, dict) else v for k, v in props.items() if v is not None}


def _figure(traces: list, height: int, title: str | None) -> dict:
    """A plotly dict of `traces` on hidden, equal-scale axes, with the title flush left."""
    return {"data": traces, "layout": {
        "height": height, "margin": dict(l=4, r=4, t=34 if title else 6, b=4), "showlegend": False,
        "title": dict(text=title or "", x=0.01, font=dict(size=14)), "plot_bgcolor": "white",
        "hoverlabel": dict(namelength=-1), "xaxis": dict(visible=False),
        "yaxis": dict(visible=False, scaleanchor="x", scaleratio=1)}}


def network_figure(d: NetDrawing, busy_links: Sequence[int] = (), busy_colours: Sequence[str] = (),
                   hover: Sequence[str] = (), faded_edges: Sequence[int] = (), root: int | None = None,
                   title: str | None = None, height: int = 340, show_labels: bool | None = None,
                   legend: Sequence[tuple[str, str, str]] = ()) -> dict:
    """The network as a plotly dict; busy directed links drawn offset to the right of their direction, in the given
    colours."""
    traces = [dict(tr, showlegend=False)  # the legend names colours and symbols, not traces
              for tr in network_traces(d, busy_links, busy_colours, hover, faded_edges, root, show_labels)]
    fig = _figure(traces + legend_entries(legend), height, title)
    if legend:
        fig["layout"].update(showlegend=True, legend=dict(orientation="h", y=-0.02, yanchor="top", font=dict(size=15)))
    return fig


LEGEND_ENTRY_PX = (0.55, 45.0)
"""A horizontal legend entry's estimated width: 0.55 of the font size per character, plus its symbol and gap (px)."""


def legend_rows(names: Sequence[str], font: float, width_px: float) -> int:
    """How many rows a horizontal legend of `names` takes in `width_px` (entries packed left to right)."""
    rows, used = 1, 0.0
    for name in names:
        w = LEGEND_ENTRY_PX[0] * font * len(name) + LEGEND_ENTRY_PX[1]
        if used and used + w > width_px:
            rows, used = rows + 1, 0.0
        used += w
    return rows


def legend_above(fig: dict, width_px: float) -> dict:
    """`fig` (a plotly dict with a title and a horizontal legend) with its legend between the title and the drawing,
    the top margin made as tall as both need at `width_px`: below the drawing, the legend of a 440-px figure lay
    under the fold of a 1280x800 window (trial 19). Returns `fig`."""
    lay = fig["layout"]
    font = lay.get("legend", {}).get("font", {}).get("size", 12)
    names = [t["name"] for t in fig["data"] if t.get("showlegend", True) and t.get("name")]
    title_px = 1.4 * lay["title"].get("font", {}).get("size", 14) + 10 if lay["title"].get("text") else 4
    rows = legend_rows(names, font, width_px)
    lay["title"].update(yref="container", y=1, yanchor="top", pad=dict(t=6))
    lay["legend"] = dict(lay.get("legend", {}), orientation="h", x=0, xanchor="left", y=1, yanchor="bottom")
    lay["margin"] = dict(lay["margin"], t=int(title_px + rows * (1.5 * font + 4) + 8))
    return fig


def network_traces(d: NetDrawing, busy_links: Sequence[int] = (), busy_colours: Sequence[str] = (),
                   hover: Sequence[str] = (), faded_edges: Sequence[int] = (), root: int | None = None,
                   show_labels: bool | None = None, overlay: Sequence[dict] = (), big: bool | None = None
                   ) -> list[dict]:
    """The traces of `network_figure`: links, pruned links, `overlay`, busy links, servers (dots) and switches
    (squares). `big`: teaching-sized nodes and arrows (default: for up to 12 nodes, drawn large on their own;
    False in small panels such as the player's, where they would cover each other)."""
    traces = link_traces(d, faded_edges) + list(overlay)
    if len(busy_links):
        traces += _busy_traces(d, np.asarray(busy_links, dtype=np.int64), list(busy_colours), list(hover), big)
    labels = show_labels if show_labels is not None else len(d.labels) <= 60
    small = _big(d, big)  # teaching examples: big nodes, names inside
    for server in (True, False):
        ids = np.flatnonzero(d.is_server == server)
        colours = [ROOT_COLOUR if v == root else (SERVER_COLOUR if server else SWITCH_COLOUR) for v in ids.tolist()]
        size = (40 if small else 14) if server else (32 if small else 11)
        names = [d.labels[v] for v in ids.tolist()]
        # inside the node where every name fits it (A, s00); else below it, as in larger drawings (trial 32: BCube(2,1)'s
        # switches read "w0." in a 32 px square, sw0.0 and sw0.1 alike)
        inside = small and _names_px(names, 20) <= size
        traces.append(_scatter(
            x=d.x[ids], y=d.y[ids], mode="markers+text" if labels else "markers",
            marker=dict(symbol="circle" if server else "square", size=size, color=colours,
                        line=dict(color="white", width=1)),
            text=names, textposition="middle center" if inside else "bottom center",
            textfont=dict(size=20, color="white") if inside else dict(size=16 if small else 11),
            hovertext=[f"{d.labels[v]} ({'server' if server else 'switch'})" for v in ids.tolist()],
            hoverinfo="text", name="servers" if server else "switches"))
    return traces


def link_traces(d: NetDrawing, faded_edges: Sequence[int] = ()) -> list[dict]:
    """The cables: one trace per bandwidth when links differ (slower: thinner and paler), failed links red
    and dotted, `faded_edges` pale and dotted, and invisible points at mid-link that name each link on hover."""
    faded = np.zeros(len(d.edges), bool)
    faded[np.asarray(list(faded_edges), dtype=np.int64)] = True
    dead = d.dead
    speeds = d.speeds()
    traces: list[dict] = []
    if len(speeds) > 1:
        fastest = speeds[0][0]
        for b, ids in speeds:
            colour, width = speed_style(b, fastest)
            traces.append(_segments(d, [e for e in ids.tolist() if not faded[e]], colour, width, f"{b:g} Gbit/s links",
                                    dash=None))
    else:
        traces.append(_segments(d, np.flatnonzero(~faded & ~dead).tolist(), EDGE_COLOUR, 1.2, "links", dash=None))
    if (faded & ~dead).any():
        traces.append(_segments(d, np.flatnonzero(faded & ~dead).tolist(), "#d0d0d0", 1.5, "pruned links", dash="dot"))
    if dead.any():
        traces.append(_segments(d, np.flatnonzero(dead).tolist(), FAILED_COLOUR, 2.0, "failed links", dash="dot"))
    if len(d.link_text):
        mx = (d.x[d.edges[:, 0]] + d.x[d.edges[:, 1]]) / 2
        my = (d.y[d.edges[:, 0]] + d.y[d.edges[:, 1]]) / 2
        traces.append(_scatter(x=mx, y=my, mode="markers", marker=dict(size=9, color="rgba(0,0,0,0)"),
                                 hovertext=list(d.link_text), hoverinfo="text", name="link names"))
    return traces


def changed_links_trace(d: NetDrawing, edges: Sequence[int], name: str) -> dict:
    """Links a mid-run event fails or slows, drawn over their cables (pink, dashed) under the event's name."""
    return _segments(d, [int(e) for e in edges], CHANGED_COLOUR, 3.0, name, dash="dash")


def _segments(d: NetDrawing, edges: list[int], colour: str, width: float, name: str, dash: str | None) -> dict:
    e = d.edges[np.asarray(edges, dtype=np.int64)] if edges else np.zeros((0, 2), np.int64)
    xs = np.c_[d.x[e[:, 0]], d.x[e[:, 1]], np.full(len(e), np.nan)].ravel()
    ys = np.c_[d.y[e[:, 0]], d.y[e[:, 1]], np.full(len(e), np.nan)].ravel()
    return _scatter(x=xs, y=ys, mode="lines", line=dict(color=colour, width=width, dash=dash),
                      hoverinfo="skip", name=name)


def _big(d: NetDrawing, big: bool | None) -> bool:
    return len(d.labels) <= 12 if big is None else big


def _busy_traces(d: NetDrawing, links: np.ndarray, colours: list[str], hover: list[str],
                 big: bool | None = None) -> list[dict]:
    """Busy directed links: a dark line each (one trace) with chevrons in their colours (one trace).

    Always two traces (empty ones when nothing is busy), so animation frames can replace them.
    """
    first = np.unique(links, return_index=True)[1]  # a link with capacity > 1 is coloured by its first workload
    links = links[first]
    colours = [colours[i] for i in first.tolist()] if colours else ["#444"] * len(links)
    hover = [hover[i] for i in first.tolist()] if hover else [""] * len(links)
    sx, sy = d.x[d.link_src[links]], d.y[d.link_src[links]]
    dx, dy = d.x[d.link_dst[links]] - sx, d.y[d.link_dst[links]] - sy
    length = np.hypot(dx, dy)
    length[length == 0] = 1
    small = _big(d, big)  # teaching examples: bigger arrows, further apart
    off = (0.025 if small else 0.012) * d.span
    sx, sy = sx + dy / length * off, sy - dx / length * off  # to the right of the direction of travel
    ends = np.array([0.1, 0.9])
    xs = np.c_[sx[:, None] + ends * dx[:, None], np.full(len(links), np.nan)].ravel()
    ys = np.c_[sy[:, None] + ends * dy[:, None], np.full(len(links), np.nan)].ravel()
    line = _scatter(x=xs, y=ys, mode="lines", line=dict(color="rgba(60,60,60,0.55)", width=2 if small else 1.5),
                      hoverinfo="skip", name="busy")
    steps = np.array([0.5]) if len(links) > 60 else np.array([0.3, 0.5, 0.7])  # chevrons along each busy link
    cx = (sx[:, None] + steps * dx[:, None]).ravel()
    cy = (sy[:, None] + steps * dy[:, None]).ravel()
    angle = np.repeat(np.degrees(np.arctan2(dx, dy)), len(steps))
    chevrons = _scatter(x=cx, y=cy, mode="markers", hovertext=np.repeat(hover, len(steps)), hoverinfo="text",
                          marker=dict(symbol="arrow", size=22 if small else 11, angle=angle,
                                      color=np.repeat(colours, len(steps)), line=dict(width=0.5, color="white")),
                          name="busy links")
    return [line, chevrons]


def round_edges(n_rounds: int) -> np.ndarray:
    """Column edges of a round axis: round r (1-based) spans [r - 0.5, r + 0.5].

    Every heatmap and marker takes its columns from such edges, so another axis (seconds, with
    columns as wide as each round lasts) only needs other edges.
    """
    return np.arange(n_rounds + 1, dtype=float) + 0.5


def heatmap_figure(util_pct: np.ndarray, row_names: Sequence[str], current_round: int | None = None,
                   title: str | None = None, height: int = 300, edges: np.ndarray | None = None) -> go.Figure:
    """Utilization, rows (directed links or link groups) x rounds, with a marker on the current round."""
    n_rows, n_rounds = util_pct.shape
    edges = round_edges(n_rounds) if edges is None else edges
    fig = go.Figure(heatmap_trace(util_pct, row_names, edges))
    fig.update_traces(colorbar=_COLORBAR)
    if current_round is not None and 1 <= current_round <= n_rounds:
        fig.add_shape(round_marker(edges, current_round))
    fig.update_layout(height=height, margin=dict(l=4, r=4, t=34 if title else 6, b=36),
                      title=dict(text=title or "", x=0.01, font=dict(size=14)))
    fig.update_xaxes(title=dict(text="round", standoff=4), range=[edges[0], edges[-1]])
    fig.update_yaxes(autorange="reversed", **named_axis(row_names, naming(n_rows, height - 36 - (34 if title else 6))))
    return fig


_COLORBAR = dict(title=dict(text="% of capacity", side="right"), thickness=10, len=0.9, xpad=4, **UTIL_TICKS)
ROW_PITCH = 14
"""Height (px) a heatmap panel gives each row, so that names at ROW_FONT fit (1.2 x 11 = 13.2)."""
HEAT_PX = (90, 14 * 32 + 24)
"""Smallest and largest height of one method's heatmap in the player (px): above ~41 rows (at MIN_ROW_FONT) only
every k-th row is named."""


@dataclass(frozen=True)
class AxisStyle:
    """How the player's column axis reads: its title, the hover text of a column, what a cell's percent is."""

    title: str = "round"
    hover: str = "round %{x:.0f}"
    value: str = "% of capacity"
    heading: str = "link utilization per round"


ROUND_AXIS = AxisStyle()


def time_axis(unit: str, digits: int = 3) -> AxisStyle:
    """The seconds axis in `unit` (s down to ps, `core.units.time_unit`'s): a column is an interval of time, a cell
    the share of it a link is busy; the hover writes a column's middle with `digits` significant digits (d3's ``r``:
    trailing zeros kept, never an exponent, as `core.units.plain_number` below 10^digits)."""
    return AxisStyle(f"time ({unit})", f"around %{{x:.{digits}r}} {unit}", "% of the time busy",
                     "share of each time column every link is busy")


def heatmap_trace(util_pct: np.ndarray, row_names: Sequence[str], edges: np.ndarray,
                  coloraxis: str | None = None, axis: AxisStyle = ROUND_AXIS) -> go.Heatmap:
    """The utilization heatmap trace: z = percent (of capacity, or of the column's time), one column per span of
    `edges`."""
    scale = {} if coloraxis else dict(zmin=UTIL_CMIN, zmax=100, colorscale=UTIL_SCALE)
    edges = np.asarray(edges)[:np.shape(util_pct)[1] + 1]
    return go.Heatmap(z=util_pct, x=edges, y=list(row_names), coloraxis=coloraxis,
                      hovertemplate=f"%{{y}}<br>{axis.hover}: %{{z}}{axis.value}<extra></extra>", name="utilization",
                      **scale)


def event_shapes(marks: Sequence[tuple[float, float, str]], xref: str, yref: str) -> list[dict]:
    """A mid-run event on a heatmap: a dashed line at its moment and, when the run waits before re-planning
    (x1 > x0), a shaded span up to the resume."""
    out = []
    for x0, x1, text in marks:
        if x1 > x0:
            out.append(dict(type="rect", x0=x0, x1=x1, y0=0, y1=1, xref=xref, yref=yref, line=dict(width=0),
                            fillcolor="rgba(214,39,40,0.12)", name="draining"))
        out.append(dict(type="line", x0=x0, x1=x0, y0=0, y1=1, xref=xref, yref=yref, name=f"event: {text}",
                        line=dict(color=FAILED_COLOUR, width=2, dash="dash")))
    return out


def round_marker(edges: np.ndarray, current_round: int, xref: str = "x", yref: str = "paper") -> dict:
    """The current-round marker: an outlined column over a heatmap, not filled (a red tint turned the idle cells
    under it pink, a colour the colour bar does not have)."""
    return dict(type="rect", x0=float(edges[current_round - 1]), x1=float(edges[current_round]), y0=0, y1=1,
                xref=xref, yref=yref, line=dict(color=MARKER_COLOUR, width=2.5), fillcolor="rgba(0,0,0,0)",
                name="current round")


@dataclass(frozen=True, eq=False)
class HeatRows:
    """One method's heatmap: percent of capacity (rows x rounds) and the rows' names."""

    title: str
    z: np.ndarray
    names: Sequence[str]
    pair_names: Sequence[str] | None = None
    """When the rows are directed links in core's order (rows 2e and 2e+1: link e's two directions): link e's name
    both ways (``s00<->sw0.0``), for rows too many to name each (`axisnames.naming`, paired)."""


@dataclass(frozen=True, eq=False)
class PlayerPanel:
    """One method in the current round: its busy links (network view) or its link groups' use (group view)."""

    busy_links: np.ndarray
    busy_colours: Sequence[str]
    hover: Sequence[str]
    n_rounds: int
    group_util: np.ndarray | None = None
    """Percent of capacity each link group uses in this round (group view only)."""


def busy_colours(trees: np.ndarray, phases: np.ndarray, by_tree: bool) -> list[str]:
    """Colour of each busy (link, workload): its flow-tree's colour, or its phase's (reduce / broadcast)."""
    if by_tree:
        return [tree_colour(t) for t in np.asarray(trees).tolist()]
    return [PHASE_COLOURS[int(p)] for p in np.asarray(phases).tolist()]


PHASE_COLOURS = ("#2c7fb8", "#e6550d")
"""Busy links in the player: reduce (blue), broadcast (orange)."""


LINE_STYLES = {"line": None, "dot": "dot", "dash": "dash"}
"""Legend keys drawn as a line sample instead of a marker: symbol -> plotly dash."""


def legend_entries(keys: Sequence[tuple]) -> list[dict]:
    """Legend-only traces: (name, colour, marker symbol) each, or (name, colour, "line" | "dot" | "dash", width)
    for a line sample."""
    out = []
    for name, colour, symbol, *width in keys:
        if symbol in LINE_STYLES:
            out.append(_scatter(x=[None], y=[None], mode="lines", name=name, showlegend=True, hoverinfo="skip",
                                  line=dict(color=colour, width=width[0] if width else 2, dash=LINE_STYLES[symbol]),
                                  legendgroup=name))
        else:
            out.append(_scatter(x=[None], y=[None], mode="markers", name=name, showlegend=True, hoverinfo="skip",
                                  marker=dict(color=colour, symbol=symbol, size=11), legendgroup=name))
    return out


PLAYER_WIDTH_PX = 820
"""The player figure's width that node names are placed for: its default, and about its page width at 1280 px (a
wider window only gives them more room)."""
NAME_FONT = 11
"""Font size (px) of the node names in the player's network panels."""
BIG_NAME_FONT = 13
"""Font size (px) of the node names in network panels at least `BIG_PANEL_PX` wide (a wide page's)."""
BIG_PANEL_PX = 360
TOP_PX = (170, 320, 340)
"""The player's network row: its least height, and its most, from 320 px (panels up to ~260 px wide, an 820-px
figure's) up to 340 px (wider panels: three methods on a wide page). One or two methods on a wide page drew it
~470-520 px tall, which left the first heatmap below the fold at 1920x1080 even with the method cards scrolled to the
window's top (trial 22); one method at 820 px drew it 510 px tall."""


def name_font(panel_px: float) -> int:
    """The node names' font size in a network panel `panel_px` wide: `NAME_FONT`, `BIG_NAME_FONT` from
    `BIG_PANEL_PX` (at 1920 px the 11-px names of a page-wide figure read ~9-10 px tall, trial 21)."""
    return BIG_NAME_FONT if panel_px >= BIG_PANEL_PX else NAME_FONT


def network_panel_px(heats: Sequence["HeatRows"], width_px: float) -> float:
    """About how wide (px) each method's network panel is in a player figure `width_px` wide: the width less the
    margins (row names at their usual font, the colour bar) and the gaps between panels, shared by the methods."""
    k = max(1, len(heats))
    left = 8 + max((_names_px(list(h.names), ROW_FONT) + TICK_GAP_PX for h in heats), default=0.0)
    inner = width_px - left - 8 - COLORBAR_PX
    return max(0.0, inner * (1 - 0.06 * (k - 1)) / k)


ROW_GAP_PX = 48
"""Room (px) between the player's rows of panels: the x tick labels of the row above (the group bars' percentages, a
heatmap's rounds) and the title of the heatmap below. A share of the figure's height before: 0.08 of a short figure
(an uploaded DCell(6,1) file's two link-group rows, trial 23) was ~16 px, and the heatmap's title sat on the bars'
tick labels."""
RANGE_PAD = 0.1
"""Room around a network panel's drawing, as a share of its size, for the names of the nodes at its edge."""


BESIDE_PX = (220, BIG_PANEL_PX)
"""Width (px) of a method's network panel drawn beside its heatmap: `BESIDE_SHARE` of the plot, within these."""
BESIDE_SHARE = 0.34
MIN_COLUMN_PX = 5
"""The least width (px) of a heatmap column: where a heatmap beside its network panel would give its columns less,
the panels go above the heatmaps (`TIME_COLUMNS`' rule: a column of the 820-px figure stays >= 5 px wide)."""
BESIDE_GAP_PX = 12
"""Room between a network panel and its heatmap's row names."""


def beside_panel_px(heats: Sequence["HeatRows"], width_px: float, n_columns: int) -> float | None:
    """The width (px) of each method's network panel drawn beside its heatmap in a player figure `width_px` wide, or
    None where the heatmap left beside it would give each of its `n_columns` columns less than `MIN_COLUMN_PX`.

    Beside, not above: a row of network panels over the heatmaps put the first heatmap ~350 px lower, below the fold
    at 1280x800 with the step controls at the window's top (fix32a)."""
    names = max((_names_px(list(h.names), ROW_FONT) for h in heats), default=0.0) + TICK_GAP_PX
    plot = width_px - 16 - COLORBAR_PX
    panel = float(np.clip(BESIDE_SHARE * plot, *BESIDE_PX))
    heat = plot - panel - BESIDE_GAP_PX - names
    return panel if heat >= MIN_COLUMN_PX * max(n_columns, 1) else None


def player_base(d: NetDrawing | None, heats: Sequence[HeatRows], edges: np.ndarray,
                legend: Sequence[tuple] = (), group_names: Sequence[str] = (),
                height_hint: int | None = None, axis: AxisStyle = ROUND_AXIS,
                marks: Sequence[Sequence[tuple[float, float, str]]] = (),
                changed: tuple[Sequence[int], str] | None = None, width_px: float = PLAYER_WIDTH_PX) -> dict:
    """The round-independent part of the player figure as a plotly dict.

    Per method, its network (`d`) beside its heatmap where the heatmap keeps room for its columns
    (`beside_panel_px`), else a row of networks above the heatmaps; when `d` is None, a row of bars of
    the link groups' use above them. The heatmaps are stacked, all on ONE axis (`edges`: rounds, or
    intervals of time), so a column is the same round or the same interval in every method; they share
    one colour scale. `marks` (per method: (x, resume x, text)) draw a mid-run event on its heatmap;
    `changed` (undirected links, name) draws the links that event changes on every network.
    The axes are numbered alike either way: the networks (or bars) x1..xk, the heatmaps x(k+1)..x(2k).
    """
    k = len(heats)
    beside = beside_panel_px(heats, width_px, len(edges) - 1) if d is not None else None
    panel_w = beside or network_panel_px(heats, width_px)
    font = name_font(panel_w)
    if d is not None:  # as tall as a panel this wide (at least ~260 px) needs for the drawing's aspect ratio
        wide = max(panel_w, 260.0)
        top = int(np.clip(wide * np.ptp(d.y) / max(float(np.ptp(d.x)), 1e-9) + 50, TOP_PX[0],
                          np.clip(1.25 * wide, *TOP_PX[1:])))
    else:
        top = 36 + 20 * len(group_names)
    heat_h = [int(np.clip(ROW_PITCH * h.z.shape[0] + 24, *HEAT_PX)) for h in heats]
    if beside:  # each method's row as tall as its heatmap or its drawing, whichever needs more
        net_h = int(np.clip(panel_w * (1 + 2 * RANGE_PAD) * np.ptp(d.y) / max(float(np.ptp(d.x)), 1e-9)
                            + 2 * RANGE_PAD * panel_w, TOP_PX[0], TOP_PX[1]))
        heat_h = [max(h, net_h) for h in heat_h]
    margin = dict(l=8, r=8, t=58 if legend else 30, b=36)
    total = (0 if beside else top + ROW_GAP_PX) + sum(heat_h) + ROW_GAP_PX * (k - 1) + margin["t"] + margin["b"]
    height = height_hint or total
    specs = [[{} for _ in range(k)]] + [[{"colspan": k}] + [None] * (k - 1) for _ in range(k)]
    fig = make_subplots(rows=k + 1, cols=k, specs=specs, row_heights=[top] + heat_h, horizontal_spacing=0.06,
                        vertical_spacing=min(ROW_GAP_PX / max(height - margin["t"] - margin["b"], 1), 0.5 / k))
    if beside:  # row i: network i and heatmap i share its height (x domains below, once the names' room is known)
        plot_h, y = height - margin["t"] - margin["b"], 0.0
        for i, h_px in enumerate(heat_h, start=1):
            domain = [max(0.0, 1 - (y + h_px) / plot_h), 1 - y / plot_h]
            fig.layout[_axis_name("yaxis", i)].domain = fig.layout[f"yaxis{k + i}"].domain = domain
            y += h_px + ROW_GAP_PX
    namings = [naming(h.z.shape[0], _domain_px(fig.layout[f"yaxis{k + i}"].domain, height, margin),
                      h.pair_names is not None) for i, h in enumerate(heats, start=1)]  # per heatmap: rows named
    bars = None if d is not None else naming(len(group_names), _domain_px(fig.layout["yaxis"].domain, height, margin))
    # The margins hold the heatmaps' row names (and the group bars' names) on the left and the colour bar on the
    # right, and the axes do not widen them (automargin off): left to plotly's automargin, they took ~150 px of the
    # 820 after the network panels' names were placed for the full width, so three BCube(3,1) panels drawn ~200 px
    # wide ran their names together (trial 19)
    names_px = int(np.ceil(max([_row_names_px(h, n) for h, n in zip(heats, namings)]
                               + ([_names_px(list(group_names)[::bars.stride], bars.font) + TICK_GAP_PX] if bars else [])
                               )))
    margin["l"] = 8 + (0 if beside else names_px)
    margin["r"] = 8 + int(np.ceil(COLORBAR_PX))
    if beside:  # the network on the left, the heatmap's row names, then the heatmap
        plot_w = width_px - margin["l"] - margin["r"]
        for i in range(1, k + 1):
            fig.layout[_axis_name("xaxis", i)].domain = [0.0, panel_w / plot_w]
            fig.layout[f"xaxis{k + i}"].domain = [min((panel_w + BESIDE_GAP_PX + names_px) / plot_w, 0.9), 1.0]
    unnamed, group_stride = 0, 1
    names: list[dict] = []  # added to the finished dict: 75 fig.add_annotation calls took ~0.5 s
    for i, h in enumerate(heats, start=1):
        if d is not None:
            extra = [changed_links_trace(d, *changed)] if changed else []
            named = len(d.labels) <= 30
            for tr in network_traces(d, show_labels=False, overlay=extra, big=False):
                fig.add_trace(dict(tr, showlegend=False), row=1, col=i)
            xr, yr = network_ranges(d)
            if named:  # names are annotations, above the busy links' arrows, each where it can be read
                panel = _panel_px(fig.layout, i, width_px, height, margin)
                offsets = name_offsets(d, xr, yr, panel, font)
                unnamed = max(unnamed, sum(off is None for off in offsets))
                names += [dict(node_label(d.labels[v], float(d.x[v]), float(d.y[v]), off, bool(d.is_server[v]), font),
                               xref=_axis_name("x", i), yref=_axis_name("y", i))
                          for v, off in enumerate(offsets) if off is not None]
            fig.update_xaxes(visible=False, range=xr, row=1, col=i)
            fig.update_yaxes(visible=False, range=yr, scaleanchor=_axis_name("x", i), scaleratio=1, row=1, col=i)
        else:
            fig.update_xaxes(range=[0, 100], row=1, col=i, tickfont=dict(size=ROW_FONT_BARS), ticksuffix="%")
            fig.update_yaxes(autorange="reversed", row=1, col=i, automargin=False,
                             type="category", categoryorder="array", categoryarray=list(group_names),
                             **{**named_axis(group_names, bars), "showticklabels": i == 1})
            group_stride = bars.stride
        fig.add_trace(heatmap_trace(h.z, h.names, edges, coloraxis="coloraxis", axis=axis), row=1 + i, col=1)
        rows = h.z.shape[0]
        named = namings[i - 1]
        fig.update_yaxes(autorange="reversed", ticks="", row=1 + i, type="category", automargin=False, col=1,
                         title=dict(text="" if named.stride == 1 else f"{rows} rows", standoff=6, font=dict(size=12)),
                         **named_axis(h.names, named, h.pair_names))
        fig.update_xaxes(range=[float(edges[0]), float(edges[-1])], row=1 + i, col=1, tickfont=dict(size=11),
                         matches=_axis_name("x", k + 1) if i > 1 else None, showticklabels=True,
                         title=dict(text=axis.title, standoff=2) if i == k else None)
    if changed and d is not None:
        legend = [*legend, (changed[1], CHANGED_COLOUR, "dash", 3.0)]
    for tr in legend_entries(legend):
        fig.add_trace(tr)
    for i, h in enumerate(heats, start=1):  # titles flush left over each panel; beside, one over the row
        top_x, top_y = fig.layout[f"xaxis{'' if i == 1 else i}"].domain, fig.layout[f"yaxis{'' if i == 1 else i}"].domain
        if not beside:
            fig.add_annotation(text=f"<b>{h.title}</b>", x=top_x[0], y=top_y[1], xref="paper", yref="paper",
                               xanchor="left", yanchor="bottom", showarrow=False, font=dict(size=14))
        heat_y = fig.layout[f"yaxis{k + i}"].domain
        fig.add_annotation(text=f"<b>{h.title}</b>: {axis.heading}", x=0, y=heat_y[1], xref="paper",
                           yref="paper", xanchor="left", yanchor="bottom", showarrow=False, font=dict(size=13))
    shapes = [s for i, m in enumerate(marks, start=1)
              for s in event_shapes(m, _axis_name("x", k + i), f"{_axis_name('y', k + i)} domain")]
    fig.update_layout(height=height, margin=margin, plot_bgcolor="white",
                      showlegend=bool(legend), legend=dict(orientation="h", y=1 + 26 / height, yanchor="bottom", x=0,
                                                           xanchor="left", font=dict(size=13)),
                      coloraxis=dict(cmin=UTIL_CMIN, cmax=100, colorscale=UTIL_SCALE,
                                     colorbar=dict(title=dict(text=axis.value, side="right", font=dict(size=13)),
                                                   thickness=10, len=1.0 if beside else min(1.0, sum(heat_h) / total), y=0,
                                                   yanchor="bottom", x=1, xanchor="left", xpad=4,
                                                   tickfont=dict(size=11), **UTIL_TICKS)),
                      hoverlabel=dict(namelength=-1), shapes=shapes,
                      meta={"top": "network" if d is not None else "groups", "beside": beside is not None,
                            "methods": k, "value": axis.value,
                            "width_px": width_px, "name_font": font,
                            "unnamed": unnamed, "group_stride": group_stride, **_naming_meta(namings, heats)})
    out = fig.to_dict()
    out["layout"]["annotations"] = list(out["layout"].get("annotations", ())) + names
    return out


ROW_FONT_BARS = 11
"""Font size (px) of the group bars' names and percentages in the player's top panels (group view)."""
TICK_GAP_PX = 6
"""Room between a category axis's names and its plot (plotly's tick label gap, a little more)."""
COLORBAR_PX = 2 * 4 + 10 + 0.62 * 11 * 4 + 6 + 1.3 * 13 + 4
"""The player's colour bar beside the heatmaps, in px: its padding each side, its 10-px bar, its widest label
("idle", 4 characters at 11 px, estimated as node names are: `labelplace.CHAR_EM`), a gap and its title set
sideways (13 px, one line)."""


def _names_px(names: Sequence[str], font: float) -> float:
    """Estimated width (px) of the widest of `names` at `font` px, as node names are estimated (`labelplace`)."""
    from .labelplace import CHAR_EM
    return max((CHAR_EM * font * len(str(n)) for n in names), default=0.0)


def _row_names_px(h: "HeatRows", how: Naming) -> float:
    """Room (px) a heatmap's row names take left of it: the widest name shown, the gap, and, when only every k-th
    row is named, the axis title ("126 rows", 12 px, sideways) and its standoff."""
    text = named_axis(h.names, how, h.pair_names)["ticktext"]
    return _names_px(text, how.font) + TICK_GAP_PX + (1.3 * 12 + 6 if how.stride > 1 else 0)


def _naming_meta(namings: Sequence[Naming], heats: Sequence[HeatRows]) -> dict:
    """What the caption under the player says of the heatmaps' row names: every how many rows is named (the most of
    any heatmap), whether each named row stands for both directions of its link, and one such name as an example."""
    if not namings:
        return {"row_stride": 1, "row_both_ways": False}
    i = max(range(len(namings)), key=lambda j: namings[j].stride)
    out = {"row_stride": namings[i].stride, "row_both_ways": namings[i].both_ways}
    if namings[i].both_ways and heats[i].pair_names:
        out["row_pair"] = heats[i].pair_names[0]
    return out


def network_ranges(d: NetDrawing) -> tuple[list[float], list[float]]:
    """The x and y ranges of a network panel: the drawing and `RANGE_PAD` of room around it (fixed, so that the
    names' places, computed in pixels, are where they are drawn)."""
    pad = RANGE_PAD * d.span
    return ([float(d.x.min() - pad), float(d.x.max() + pad)], [float(d.y.min() - pad), float(d.y.max() + pad)])


def _domain_px(domain: Sequence[float], height_px: float, margin: dict) -> float:
    """Height in px of a subplot's y domain in a figure `height_px` tall."""
    return (domain[1] - domain[0]) * (height_px - margin["t"] - margin["b"])


def _panel_px(layout, i: int, width_px: float, height_px: float, margin: dict) -> tuple[float, float]:
    """Width and height in px of panel i's domain (subplot row 1, column i)."""
    xd, yd = layout[f"xaxis{'' if i == 1 else i}"].domain, layout[f"yaxis{'' if i == 1 else i}"].domain
    return ((xd[1] - xd[0]) * (width_px - margin["l"] - margin["r"]),
            (yd[1] - yd[0]) * (height_px - margin["t"] - margin["b"]))


def name_offsets(d: NetDrawing, xr: Sequence[float], yr: Sequence[float], panel: tuple[float, float],
                 font: int = NAME_FONT) -> list[tuple[float, float] | None]:
    """Where each node's name goes in a panel of `panel` px showing ranges `xr`, `yr` at equal scale (plotly's
    scaleanchor widens one range to fill the panel): its offset in px from the node, or None (too crowded: the name
    is on hover only). Switch names are placed first, then the servers'."""
    from .labelplace import place
    scale = min(panel[0] / (xr[1] - xr[0]), panel[1] / (yr[1] - yr[0]))
    xy = np.c_[(d.x - (xr[0] + xr[1]) / 2) * scale, (d.y - (yr[0] + yr[1]) / 2) * scale]
    server = np.asarray(d.is_server, dtype=bool)
    marker = np.where(server, 14.0, 11.0)  # network_traces' sizes for a small panel
    ends = np.c_[xy[d.edges[:, 0]], xy[d.edges[:, 1]]]
    seg = ends[:, 2:] - ends[:, :2]
    normal = np.c_[seg[:, 1], -seg[:, 0]] / np.maximum(np.hypot(*seg.T), 1e-9)[:, None] * 0.012 * d.span * scale
    lines = np.r_[ends, ends + np.c_[normal, normal], ends - np.c_[normal, normal]]  # the cable and both directions' arrows
    order = np.r_[np.flatnonzero(~server), np.flatnonzero(server)]
    return place(xy, d.labels, marker, lines, font, panel, order)


LABEL_BG = "rgba(255,255,255,0.85)"


def node_label(text: str, x: float, y: float, offset: tuple[float, float], server: bool, font: int = NAME_FONT
               ) -> dict:
    """A node's name as an annotation centred `offset` px from the node (`name_offsets`): plotly draws annotations
    above every trace, so the busy links' arrows that meet at a node (a BCube level-0 switch's, from the servers
    below) do not cover it; its white box hides what passes under the name instead."""
    kind = "server" if server else "switch"
    return dict(text=text, x=x, y=y, showarrow=False, xanchor="center", yanchor="middle", xshift=offset[0],
                yshift=offset[1], font=dict(size=font), bgcolor=LABEL_BG, borderpad=0,
                hovertext=f"{text} ({kind})", name=f"{kind} label")


def util_colours(util_pct: np.ndarray) -> list[str]:
    """The heatmaps' colour of each percentage (0-100), as colour strings (plotly.js warns on every draw when bars
    carry numbers on a shared colour axis)."""
    return sample_colorscale(UTIL_SCALE, _at(np.clip(np.asarray(util_pct, dtype=float), 0, 100)).tolist())


def round_traces(d: NetDrawing | None, panels: Sequence[PlayerPanel], group_names: Sequence[str],
                 value: str = "% of capacity") -> list:
    """The traces that change from round to round: each method's busy links (or its groups' bars), a fixed count."""
    out = []
    for i, p in enumerate(panels, start=1):
        if d is not None:
            traces = _busy_traces(d, np.asarray(p.busy_links, dtype=np.int64), list(p.busy_colours), list(p.hover),
                                  big=False)  # a ~260-px panel
        else:
            util = np.zeros(len(group_names)) if p.group_util is None else np.asarray(p.group_util, dtype=float)
            traces = [go.Bar(x=util, y=list(group_names), orientation="h", name="link groups",
                             marker=dict(color=util_colours(util)),
                             hovertemplate=f"%{{y}}: %{{x:.0f}}{value}<extra></extra>")]
        for tr in traces:
            tr.update(xaxis=_axis_name("x", i), yaxis=_axis_name("y", i), showlegend=False)
            out.append(tr)
    return out


def round_shapes(panels: Sequence[PlayerPanel], edges: np.ndarray, current_round: int) -> list[dict]:
    """One marker per heatmap on the current round (every heatmap shares the round axis)."""
    k = len(panels)
    if not 1 <= current_round <= len(edges) - 1:
        return []
    return [round_marker(edges, current_round, xref=_axis_name("x", k + i), yref=f"{_axis_name('y', k + i)} domain")
            for i in range(1, k + 1)]


def player_figure(base: dict, d: NetDrawing | None, panels: Sequence[PlayerPanel], current_round: int,
                  edges: np.ndarray, group_names: Sequence[str] = ()) -> dict:
    """The player in round r: `player_base` plus each method's busy links and a marker on every heatmap.

    Returned as a plain dict (only the round's few traces are built), so stepping a round stays cheap.
    """
    value = base["layout"].get("meta", {}).get("value", ROUND_AXIS.value)
    data = list(base["data"]) + [tr if isinstance(tr, dict) else tr.to_plotly_json()
                                 for tr in round_traces(d, panels, group_names, value)]
    return {"data": data, "layout": dict(base["layout"], shapes=list(base["layout"].get("shapes", ()))
                                         + round_shapes(panels, edges, current_round))}


def player_animation(base: dict, d: NetDrawing | None, rounds: Sequence[Sequence[PlayerPanel]], edges: np.ndarray,
                     group_names: Sequence[str] = (), seconds_per_round: float = 0.6) -> go.Figure:
    """The player as a self-contained animation: one frame per round, a play button and a round slider."""
    n_base = len(base["data"])
    first = player_figure(base, d, rounds[0], 1, edges, group_names)
    fig = go.Figure(first)
    changing = list(range(n_base, len(first["data"])))
    value = base["layout"].get("meta", {}).get("value", ROUND_AXIS.value)
    fixed = list(base["layout"].get("shapes", ()))
    frames = []
    for r, panels in enumerate(rounds, start=1):
        frames.append(go.Frame(name=str(r), data=round_traces(d, panels, group_names, value), traces=changing,
                               layout=dict(shapes=fixed + round_shapes(panels, edges, r))))
    fig.frames = frames
    ms = int(1000 * seconds_per_round)
    step = dict(frame=dict(duration=ms, redraw=True), transition=dict(duration=0), mode="immediate")
    fig.update_layout(
        updatemenus=[dict(type="buttons", direction="left", x=0, y=-0.02, xanchor="left", yanchor="top",
                          buttons=[dict(label="Play", method="animate", args=[None, dict(step, fromcurrent=True)]),
                                   dict(label="Pause", method="animate",
                                        args=[[None], dict(step, frame=dict(duration=0, redraw=False))])])],
        sliders=[dict(active=0, x=0.12, y=-0.02, len=0.88, yanchor="top", currentvalue=dict(prefix="Round "),
                      steps=[dict(label=str(r), method="animate", args=[[str(r)], step])
                             for r in range(1, len(rounds) + 1)])],
    )
    fig.update_layout(height=int(base["layout"].get("height", 600)) + 80,
                      margin=dict(base["layout"].get("margin", {}), b=110))
    return fig


def _axis_name(axis: str, i: int) -> str:
    return axis if i == 1 else f"{axis}{i}"



@dataclass(frozen=True)
class WorkloadArc:
    """One reduce/broadcast workload drawn between two servers of a workload tree."""

    src: int
    dst: int
    workload: int
    text: str
    relay: bool
    broadcast: bool = False


OWN_COLOUR, RELAY_COLOUR = "#2c7fb8", "#e6550d"
ARCS_DRAWN = 60
"""Workload trees with more workloads than this draw one line per tree edge with its count, not one arc each."""
CROWDED_SERVERS = 20
"""Trees with more servers than this name servers and workloads on hover only (the labels would overlap)."""


def workload_tree_figure(pos: dict[int, tuple[float, float]], labels: Sequence[str], arcs: Sequence[WorkloadArc],
                         root: int, title: str | None = None, height: int = 360, big: bool = False) -> dict:
    """A workload tree as a plotly dict: servers by depth (root on top) and every workload as its own numbered arc with an arrow.

    Beyond `ARCS_DRAWN` workloads, each tree edge is one line labelled with how many workloads
    cross it (own / relayed), so the drawing stays legible. `big`: projector-sized text.
    """
    groups: dict[tuple[int, int], list[WorkloadArc]] = {}
    for a in arcs:
        groups.setdefault((a.src, a.dst), []).append(a)
    font = 18 if big else 12
    crowded = len(pos) > CROWDED_SERVERS
    traces = (_aggregated_arcs(pos, groups, font, crowded) if len(arcs) > ARCS_DRAWN
              else _every_arc(pos, groups, font, big, crowded))
    servers = sorted(pos)
    traces.append(_scatter(
        x=[pos[v][0] for v in servers], y=[pos[v][1] for v in servers],
        mode="markers" if crowded else "markers+text",
        marker=dict(size=42 if big else (12 if crowded else 26),
                    color=[ROOT_COLOUR if v == root else SERVER_COLOUR for v in servers],
                    line=dict(color="white", width=1.5)),
        text=[labels[v] for v in servers], textfont=dict(color="white", size=font), hoverinfo="text",
        hovertext=[f"{labels[v]}{' (root)' if v == root else ''}" for v in servers], name="servers",
        showlegend=False))
    fig = _figure(traces, height, title)
    layout = fig["layout"]
    del layout["yaxis"]["scaleanchor"]
    layout.update(showlegend=True, legend=dict(orientation="h", y=-0.02, yanchor="top", font=dict(size=font)))
    layout["title"]["font"] = dict(size=font + 2)
    if big:  # on a projector the hovers' 13 px read as 11 (trial 32), and plotly's grey on white faded (trial 33)
        layout["hoverlabel"] = dict(layout.get("hoverlabel", {}), bgcolor="white",
                                    font=dict(size=font - 2, color="#222"))
    return fig


def _every_arc(pos, groups: dict[tuple[int, int], list[WorkloadArc]], font: int, big: bool, crowded: bool
               ) -> list[dict]:
    """One bent arc per workload, an arrowhead near its end and its number at its middle."""
    lines = {False: ([], []), True: ([], [])}
    heads = {False: ([], [], []), True: ([], [], [])}
    lab_x, lab_y, lab_t, lab_h, lab_c = [], [], [], [], []
    for (_, _), members in groups.items():
        k = len(members)
        spacing = min(0.5, 1.5 / k)
        for i, a in enumerate(members):
            (x0, y0), (x1, y1) = pos[a.src], pos[a.dst]
            xs, ys = _arc(x0, y0, x1, y1, (i - (k - 1) / 2) * spacing)
            lx, ly = lines[a.relay]
            lx.extend(xs.tolist() + [None])
            ly.extend(ys.tolist() + [None])
            j = int(0.78 * (len(xs) - 1))  # arrowhead three quarters of the way, clear of the node
            hx, hy, ha = heads[a.relay]
            hx.append(xs[j])
            hy.append(ys[j])
            ha.append(float(np.degrees(np.arctan2(xs[j + 1] - xs[j - 1], ys[j + 1] - ys[j - 1]))))
            mid = len(xs) // 2 - 2
            lab_x.append(xs[mid])
            lab_y.append(ys[mid])
            lab_t.append(f"#{a.workload}")
            lab_h.append(a.text)
            lab_c.append(RELAY_COLOUR if a.relay else OWN_COLOUR)
    out = []
    broadcast = {a.broadcast for members in groups.values() for a in members}
    if broadcast == {False}:
        solid = "solid: carries the sender's own piece"
    elif broadcast == {True}:  # a broadcast carries no piece of its sender's
        solid = "solid: carries the root's sum"
    else:
        solid = "solid: carries the sender's own piece (reduce) or the root's sum (broadcast)"
    for relay, colour, name in ((False, OWN_COLOUR, solid),
                                (True, RELAY_COLOUR, "dashed: relays another server's piece")):
        lx, ly = lines[relay]
        hx, hy, ha = heads[relay]
        out.append(_scatter(x=lx, y=ly, mode="lines", line=dict(color=colour, width=3 if big else 2,
                                                                   dash="dash" if relay else None),
                              hoverinfo="skip", name=name, legendgroup=name))
        out.append(_scatter(x=hx, y=hy, mode="markers", hoverinfo="skip", showlegend=False, legendgroup=name,
                              marker=dict(symbol="arrow", angle=ha, size=20 if big else 13, color=colour),
                              name="direction"))
    out.append(_scatter(x=lab_x, y=lab_y, mode="markers" if crowded else "markers+text", text=lab_t,
                          hovertext=lab_h, hoverinfo="text",
                          marker=dict(size=30 if big else (7 if crowded else 22), color="white",
                                      line=dict(color=lab_c, width=1.5)),
                          textfont=dict(size=font - 2, color=lab_c), name="workloads", showlegend=False))
    return out


def _aggregated_arcs(pos, groups: dict[tuple[int, int], list[WorkloadArc]], font: int, crowded: bool
                     ) -> list[dict]:
    """One line per (sender, receiver) pair, as wide as the workloads crossing it, labelled with their count."""
    xs, ys, lab_x, lab_y, lab_t, lab_h, heads_x, heads_y, heads_a = [], [], [], [], [], [], [], [], []
    for (src, dst), members in groups.items():
        (x0, y0), (x1, y1) = pos[src], pos[dst]
        xs += [x0, x1, None]
        ys += [y0, y1, None]
        relayed = sum(a.relay for a in members)
        lab_x.append(x0 + 0.45 * (x1 - x0))
        lab_y.append(y0 + 0.45 * (y1 - y0))
        lab_t.append(f"{len(members)}")
        lab_h.append(f"{len(members)} workloads ({len(members) - relayed} own, {relayed} relayed): "
                     + "; ".join(a.text for a in members[:6]) + (" ..." if len(members) > 6 else ""))
        heads_x.append(x0 + 0.8 * (x1 - x0))
        heads_y.append(y0 + 0.8 * (y1 - y0))
        heads_a.append(float(np.degrees(np.arctan2(x1 - x0, y1 - y0))))
    return [
        _scatter(x=xs, y=ys, mode="lines", line=dict(color="#8c8c8c", width=1.5), hoverinfo="skip",
                   name="tree edge (number: workloads crossing it)"),
        _scatter(x=heads_x, y=heads_y, mode="markers", hoverinfo="skip", showlegend=False, name="direction",
                   marker=dict(symbol="arrow", angle=heads_a, size=11, color="#8c8c8c")),
        _scatter(x=lab_x, y=lab_y, mode="markers+text", text=lab_t, hovertext=lab_h, hoverinfo="text",
                   marker=dict(size=14 if crowded else 20, color="white", line=dict(color="#555", width=1)),
                   textfont=dict(size=font - 3 if crowded else font - 1),
                   name="workloads", showlegend=False),
    ]


def _arc(x0: float, y0: float, x1: float, y1: float, bend: float, n: int = 17) -> tuple[np.ndarray, np.ndarray]:
    """A quadratic curve from (x0, y0) to (x1, y1) bulging sideways by `bend` (0: a straight line)."""
    t = np.linspace(0, 1, n)
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    dx, dy = x1 - x0, y1 - y0
    length = max(np.hypot(dx, dy), 1e-9)
    cx, cy = mx - dy / length * bend, my + dx / length * bend
    xs = (1 - t) ** 2 * x0 + 2 * (1 - t) * t * cx + t ** 2 * x1
    ys = (1 - t) ** 2 * y0 + 2 * (1 - t) * t * cy + t ** 2 * y1
    return xs, ys


LEGEND_COLUMNS = 3
"""Columns of the compare chart's legend: each entry gets a third of the width, room at 820 px for the longest
("paper: Parameter Server") in a wider fallback font too. Flowed by its text's width, the entries overlapped in the
PNG the camera saves: plotly.js lays the legend out with the page's font, but the exported image cannot load web
fonts and draws the text in a wider one ("paper: Parameter Serve" under the next marker, the last entry cut)."""


def compare_figure(configs: Sequence[str], ours: dict[str, Sequence[float | None]],
                   paper: dict[str, Sequence[float | None]], height: int = 420,
                   titles: dict[str, str] | None = None, ticks: Sequence[str] | None = None,
                   title: str | None = None, unit: str = "rounds", hover: str = ".1f",
                   shown: dict[str, Sequence[str | None]] | None = None) -> go.Figure:
    """Rounds per configuration (or another `unit`, e.g. "ms", its values hovering in the `hover` format, or as the
    text `shown` gives per method and configuration, the table's, where no d3 format writes it alike): our methods
    as bars, the paper's numbers as diamonds, each over its own method's bar;
    `ticks`: the configurations as the x axis names them (a long name shortened; hover says `configs`' whole name);
    `title`: what the chart compares, in its image too (the page's heading above it is not saved with it). The legend
    is in `LEGEND_COLUMNS` columns under the chart, the height grown by its rows past the first two.

    Every method has one slot in each configuration's group (ours first, then a paper method we did not run, whose
    diamond then stands in an empty slot); bars and diamonds are placed at the slot's centre on a numeric x axis
    labelled with the configurations, so a diamond cannot drift to a neighbour's bar (plotly groups bars and
    scatter points separately)."""
    name = (titles or {}).get
    slots = list(ours) + [m for m in paper if m not in ours]
    width = 0.8 / max(1, len(slots))
    centre = {m: -0.4 + width * (j + 0.5) for j, m in enumerate(slots)}
    fig = go.Figure()
    for method, values in ours.items():
        label = name(method, method)
        value = "%{hovertext}" if shown else f"%{{y:{hover}}}"
        fig.add_trace(go.Bar(x=[i + centre[method] for i in range(len(configs))], y=list(values), width=width,
                             name=label, marker_color=method_colour(method), meta=method, customdata=list(configs),
                             hovertext=list(shown[method]) if shown else None,
                             hovertemplate=f"{label}: {value} {unit}<extra>%{{customdata}}</extra>"))
    for method, values in paper.items():
        label = f"paper: {name(method, method)}"
        fig.add_trace(go.Scatter(x=[i + centre[method] for i in range(len(configs))], y=list(values), mode="markers",
                                 name=label, meta=method, customdata=list(configs),
                                 marker=dict(symbol="diamond", size=10, color=method_colour(method),
                                             line=dict(color="black", width=1)),
                                 hovertemplate=f"{label}: %{{y:.1f}} rounds<extra>%{{customdata}}</extra>"))
    rows = -(-len(fig.data) // LEGEND_COLUMNS)
    fig.update_layout(barmode="overlay", height=height + 22 * max(0, rows - 2),
                      margin=dict(l=4, r=4, t=34 if title else 10, b=12),
                      title=dict(text=title or "", x=0.01, font=dict(size=14)),
                      legend=dict(orientation="h", y=-0.12, yanchor="top", entrywidth=1 / LEGEND_COLUMNS,
                                  entrywidthmode="fraction"),
                      yaxis_title=unit)
    fig.update_xaxes(tickvals=list(range(len(configs))), ticktext=list(ticks or configs),
                     range=[-0.5, len(configs) - 0.5],
                     showgrid=False)
    return fig


def seed_spread_figure(per_seed: dict[str, Sequence[int]], title: str | None = None, height: int = 320,
                       titles: dict[str, str] | None = None) -> go.Figure:
    """Rounds of every seed, one box (with its points) per method."""
    fig = go.Figure()
    for method, values in per_seed.items():
        fig.add_trace(go.Box(y=list(values), name=(titles or {}).get(method, method), meta=method, boxpoints="all",
                             jitter=0.4, pointpos=0,
                             marker=dict(color=method_colour(method)), line=dict(color=method_colour(method))))
    fig.update_layout(height=height, margin=dict(l=4, r=4, t=34 if title else 6, b=4), showlegend=False,
                      title=dict(text=title or "", x=0.01, font=dict(size=14)), yaxis_title="rounds")
    return fig


def tree_probs_figure(probs: np.ndarray, selected: Sequence[Sequence[int]], tree_labels: Sequence[str],
                      current_round: int | None = None, height: int = 340, names: Naming | None = None) -> go.Figure:
    """The upper agent: probability of each flow-tree (columns) in each round (rows, 1-based); x marks chosen.
    `names`: which trees the x axis names (`axisnames.naming`; default: as many as fit 360 px)."""
    n_rounds, n_trees = probs.shape
    fig = go.Figure(go.Heatmap(z=probs, x=list(tree_labels), y=np.arange(1, n_rounds + 1), zmin=0, zmax=1,
                               colorscale="Purples", colorbar=dict(title=dict(text="p"), thickness=10),
                               hovertemplate="round %{y}, tree %{x}: p=%{z:.2f}<extra></extra>", name="probability"))
    xs = [tree_labels[t] for r, trees in enumerate(selected) for t in trees]
    ys = [r + 1 for r, trees in enumerate(selected) for _ in trees]
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers", marker=dict(symbol="x-thin", size=7,
                                                                     line=dict(width=1.5, color="#e4002b")),
                             name="selected", hovertemplate="round %{y}: selected %{x}<extra></extra>"))
    if current_round is not None and 1 <= current_round <= n_rounds:
        fig.add_shape(type="rect", y0=current_round - 0.5, y1=current_round + 0.5, x0=0, x1=1, xref="paper",
                      line=dict(color=MARKER_COLOUR, width=2), name="current round")
    # rounds 1..n exactly: autorange padded the x markers out to a "0" tick; 28 px on top keep plotly's icon bar off
    # the first rows and the colour bar's "p" (trial 26)
    fig.update_layout(height=height, margin=dict(l=4, r=4, t=28, b=4), showlegend=False)
    fig.update_yaxes(title="round", range=[n_rounds + 0.5, 0.5], autorange=False)
    fig.update_xaxes(title="flow-tree (root)", type="category",
                     **named_axis(tree_labels, names or naming(n_trees, 360)))
    return fig


def bars_figure(labels: Sequence[str], values: Sequence[float], highlight: Sequence[bool], title: str | None = None,
                value_name: str = "value", marked: Sequence[bool] | None = None, height: int = 280,
                names: Naming | None = None, zoom: bool = False) -> go.Figure:
    """Bars with the highlighted ones in red (chosen) and `marked` ones outlined (e.g. not what critical-path sent);
    `names`: which bars the x axis names (`axisnames.naming`; default: as many as fit 250 px). `zoom`: when the
    values differ too little to show on an axis from 0 (`zoomed_range`), the axis spans them alone, says so in its
    title, and each named bar carries its value (4 decimals) and its hover the difference to the best."""
    colours = ["#e4002b" if h else "#9e9ac8" for h in highlight]
    outline = ["black" if (marked is not None and m) else "rgba(0,0,0,0)" for m in (marked or [False] * len(labels))]
    how = names or naming(len(labels), 250)
    span = zoomed_range(values) if zoom else None
    extra: dict = {}
    hover = f"%{{x}}: {value_name} %{{y:.4f}}"
    if span is not None:
        best = max(values)
        extra = dict(customdata=[best - v for v in values], cliponaxis=False, textposition="outside",
                     textfont=dict(size=11), text=[f"{v:.4f}" if i % how.stride == 0 else "" for i, v in
                                                   enumerate(values)])
        hover += " (best − %{customdata:.4f})"
    fig = go.Figure(go.Bar(x=list(labels), y=list(values),
                           marker=dict(color=colours, line=dict(color=outline, width=2)),
                           hovertemplate=hover + "<extra></extra>", name=value_name, **extra))
    axis_title = value_name if span is None else f"{value_name} (axis from {span[0]:.4f}, not 0)"
    fig.update_layout(height=height, margin=dict(l=4, r=4, t=34 if title else 6, b=4), showlegend=False,
                      title=dict(text=title or "", x=0.01, font=dict(size=14)), yaxis_title=axis_title)
    if span is not None:
        fig.update_yaxes(range=list(span), tickformat=".4f")
    fig.update_xaxes(type="category", **named_axis(labels, how))
    return fig


ZOOM_BELOW = 0.2
"""An axis from 0 shows values' differences only if they span at least this share of the largest: 5.6519 against
5.6492 (0.05%) drew eight bars of one height (trial 21)."""


def zoomed_range(values: Sequence[float]) -> tuple[float, float] | None:
    """A y range around `values` alone when on an axis from 0 their differences would not show (they span less than
    `ZOOM_BELOW` of the largest magnitude), with room under the lowest bar and above the highest for its value;
    None when an axis from 0 shows them. Equal values (a tie) get a small range around them."""
    v = np.asarray(values, dtype=float)
    if not len(v) or not np.all(np.isfinite(v)):
        return None
    lo, hi = float(v.min()), float(v.max())
    top = max(abs(lo), abs(hi))
    if top == 0 or hi - lo >= ZOOM_BELOW * top:
        return None
    spread = max(hi - lo, 1e-4 * top)
    return lo - 0.5 * spread, hi + 0.35 * spread


def round_diff_figure(only_a: Sequence[int], only_b: Sequence[int], method_a: str, method_b: str,
                      current_round: int | None = None, height: int = 240,
                      titles: tuple[str, str] | None = None) -> go.Figure:
    """Per round: workloads only schedule A sent (up) and only schedule B sent (down)."""
    name_a, name_b = titles or (method_a, method_b)
    n = max(len(only_a), len(only_b))
    x = np.arange(1, n + 1)
    a = np.zeros(n, dtype=int)
    b = np.zeros(n, dtype=int)
    a[:len(only_a)] = only_a
    b[:len(only_b)] = only_b
    fig = go.Figure([
        go.Bar(x=x, y=a, name=f"only {name_a}", marker_color=method_colour(method_a),
               hovertemplate=f"round %{{x}}: %{{y}} only in {name_a}<extra></extra>"),
        go.Bar(x=x, y=-b, name=f"only {name_b}", marker_color=method_colour(method_b),
               customdata=b, hovertemplate=f"round %{{x}}: %{{customdata}} only in {name_b}<extra></extra>"),
    ])
    if current_round is not None and 1 <= current_round <= n:
        fig.add_vline(x=current_round, line=dict(color=MARKER_COLOUR, width=2))
    # the legend at the foot of the figure, under the axis title: above the plot (y=1.12 in a 6-px top margin) it
    # sat on the tallest bars (trial 26); `DIFF_LEGEND_PX` of the height is kept for it
    fig.update_layout(barmode="relative", height=height + DIFF_LEGEND_PX, margin=dict(l=4, r=4, t=10, b=DIFF_LEGEND_PX),
                      legend=dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0, xanchor="left"),
                      yaxis_title="workloads")
    fig.update_xaxes(title="round", automargin=True)
    return fig


DIFF_LEGEND_PX = 28
"""The strip under `round_diff_figure`'s axis title that holds its one-row legend (two entries)."""


def hbar_figure(names: Sequence[str], values: Sequence[float], value_name: str, title: str | None = None,
                colour: str = "#6a51a3", height: int | None = None) -> go.Figure:
    """Horizontal bars, one per name (e.g. links per link group), values printed on the bars."""
    fig = go.Figure(go.Bar(x=list(values), y=list(names), orientation="h", marker_color=colour,
                           text=[f"{v:g}" for v in values], textposition="auto", name=value_name,
                           hovertemplate=f"%{{y}}: %{{x}} {value_name}<extra></extra>"))
    fig.update_layout(height=height or 60 + 24 * len(names), margin=dict(l=4, r=4, t=34 if title else 6, b=30),
                      title=dict(text=title or "", x=0.01, font=dict(size=14)), showlegend=False,
                      xaxis_title=value_name, font=dict(size=12))
    fig.update_yaxes(autorange="reversed", type="category")
    return fig
