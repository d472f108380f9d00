"""Pure plotly figure builders: arrays and plain values in, ``go.Figure`` out (no Streamlit, no core logic)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from core.methods import METHODS

PALETTE: tuple[str, ...] = tuple(qualitative.Dark24) + tuple(qualitative.Light24)
"""Flow-tree colours: tree t is drawn in PALETTE[t % len(PALETTE)]."""
UTIL_SCALE = [[0.0, "#f2f4f7"], [0.005, "#c7e9b4"], [0.5, "#41b6c4"], [1.0, "#0c2c84"]]
"""One colour scale for every utilization heatmap: 0 % (pale grey) to 100 % of capacity (dark blue)."""
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

    @property
    def span(self) -> float:
        """Size of the drawing (for offsets that scale with it)."""
        return float(max(np.ptp(self.x), np.ptp(self.y), 1e-9))


def blank_figure() -> go.Figure:
    """An empty, axis-less figure, as small as plotly allows (marked ``meta="blank"``)."""
    fig = go.Figure(layout=dict(height=10, margin=dict(l=0, r=0, t=0, b=0), meta="blank",
                                paper_bgcolor="rgba(0,0,0,0)", plot_bgcolor="rgba(0,0,0,0)"))
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return fig


def _clean_axes(fig: go.Figure, height: int, title: str | None) -> go.Figure:
    fig.update_layout(height=height, margin=dict(l=4, r=4, t=34 if title else 6, b=4), showlegend=False,
                      title=dict(text=title or "", x=0.01, font=dict(size=14)), plot_bgcolor="white",
                      hoverlabel=dict(namelength=-1))
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False, scaleanchor="x", scaleratio=1)
    return fig


def network_figure(d: NetDrawing, busy_links: Sequence[int] = (), busy_trees: Sequence[int] = (),
                   hover: Sequence[str] = (), faded_edges: Sequence[int] = (), root: int | None = None,
                   title: str | None = None, height: int = 340, show_labels: bool | None = None) -> go.Figure:
    """The network; busy directed links drawn offset to the right of their direction, coloured by flow-tree."""
    traces = network_traces(d, busy_links, busy_trees, hover, faded_edges, root, show_labels)
    return _clean_axes(go.Figure(traces), height, title)


def network_traces(d: NetDrawing, busy_links: Sequence[int] = (), busy_trees: Sequence[int] = (),
                   hover: Sequence[str] = (), faded_edges: Sequence[int] = (), root: int | None = None,
                   show_labels: bool | None = None) -> list[go.Scatter]:
    """The traces of `network_figure`: links, pruned links, busy links, servers (dots) and switches (squares)."""
    faded = set(int(e) for e in faded_edges)
    traces: list[go.Scatter] = []
    solid = [e for e in range(len(d.edges)) if e not in faded]
    traces.append(_segments(d, solid, EDGE_COLOUR, 1.2, "links", dash=None))
    if faded:
        traces.append(_segments(d, sorted(faded), "#e3e3e3", 1.0, "pruned links", dash="dot"))
    traces += _busy_traces(d, np.asarray(busy_links, dtype=np.int64), np.asarray(busy_trees, dtype=np.int64),
                           list(hover))
    labels = show_labels if show_labels is not None else len(d.labels) <= 60
    small = len(d.labels) <= 12  # teaching examples: big nodes, names inside
    for server in (True, False):
        ids = np.flatnonzero(d.is_server == server)
        colours = [ROOT_COLOUR if v == root else (SERVER_COLOUR if server else SWITCH_COLOUR) for v in ids.tolist()]
        size = (30 if small else 13) if server else (24 if small else 10)
        traces.append(go.Scatter(
            x=d.x[ids], y=d.y[ids], mode="markers+text" if labels else "markers",
            marker=dict(symbol="circle" if server else "square", size=size, color=colours,
                        line=dict(color="white", width=1)),
            text=[d.labels[v] for v in ids.tolist()], textposition="middle center" if small else "bottom center",
            textfont=dict(size=13, color="white") if small else dict(size=9),
            hovertext=[f"{d.labels[v]} ({'server' if server else 'switch'})" for v in ids.tolist()],
            hoverinfo="text", name="servers" if server else "switches"))
    return traces


def _segments(d: NetDrawing, edges: list[int], colour: str, width: float, name: str, dash: str | None) -> go.Scatter:
    e = d.edges[np.asarray(edges, dtype=np.int64)] if edges else np.zeros((0, 2), np.int64)
    xs = np.c_[d.x[e[:, 0]], d.x[e[:, 1]], np.full(len(e), np.nan)].ravel()
    ys = np.c_[d.y[e[:, 0]], d.y[e[:, 1]], np.full(len(e), np.nan)].ravel()
    return go.Scatter(x=xs, y=ys, mode="lines", line=dict(color=colour, width=width, dash=dash),
                      hoverinfo="skip", name=name)


def _busy_traces(d: NetDrawing, links: np.ndarray, trees: np.ndarray, hover: list[str]) -> list[go.Scatter]:
    """Busy directed links: a dark line each (one trace) with chevrons coloured by flow-tree (one trace)."""
    if len(links) == 0:
        return []
    first = np.unique(links, return_index=True)[1]  # a link with capacity > 1 is coloured by its first tree
    links, trees = links[first], trees[first]
    hover = [hover[i] for i in first.tolist()] if hover else [""] * len(links)
    sx, sy = d.x[d.link_src[links]], d.y[d.link_src[links]]
    dx, dy = d.x[d.link_dst[links]] - sx, d.y[d.link_dst[links]] - sy
    length = np.hypot(dx, dy)
    length[length == 0] = 1
    small = len(d.labels) <= 12  # teaching examples: bigger arrows, further apart
    off = (0.02 if small else 0.012) * d.span
    sx, sy = sx + dy / length * off, sy - dx / length * off  # to the right of the direction of travel
    ends = np.array([0.1, 0.9])
    xs = np.c_[sx[:, None] + ends * dx[:, None], np.full(len(links), np.nan)].ravel()
    ys = np.c_[sy[:, None] + ends * dy[:, None], np.full(len(links), np.nan)].ravel()
    line = go.Scatter(x=xs, y=ys, mode="lines", line=dict(color="rgba(60,60,60,0.55)", width=1.5),
                      hoverinfo="skip", name="busy")
    steps = np.array([0.5]) if len(links) > 60 else np.array([0.3, 0.5, 0.7])  # chevrons along each busy link
    cx = (sx[:, None] + steps * dx[:, None]).ravel()
    cy = (sy[:, None] + steps * dy[:, None]).ravel()
    angle = np.repeat(np.degrees(np.arctan2(dx, dy)), len(steps))
    colours = np.repeat([tree_colour(t) for t in trees.tolist()], len(steps))
    chevrons = go.Scatter(x=cx, y=cy, mode="markers", hovertext=np.repeat(hover, len(steps)), hoverinfo="text",
                          marker=dict(symbol="arrow", size=15 if small else 10, angle=angle, color=colours,
                                      line=dict(width=0.5, color="white")),
                          name="busy links")
    return [line, chevrons]


def heatmap_figure(util_pct: np.ndarray, link_labels: Sequence[str], current_round: int | None = None,
                   title: str | None = None, height: int = 300, show_scale: bool = True) -> go.Figure:
    """Link utilization, directed links (rows) x rounds (columns, 1-based), with a marker at the current round."""
    n_links, n_rounds = util_pct.shape
    fig = go.Figure(heatmap_trace(util_pct, link_labels))
    fig.update_traces(showscale=show_scale, colorbar=_COLORBAR)
    if current_round is not None and 1 <= current_round <= n_rounds:
        fig.add_shape(round_marker(current_round))
    fig.update_layout(height=height, margin=dict(l=4, r=4, t=34 if title else 6, b=36),
                      title=dict(text=title or "", x=0.01, font=dict(size=14)))
    fig.update_xaxes(title=dict(text="round", standoff=4), range=[0.5, n_rounds + 0.5])
    fig.update_yaxes(title=dict(text=f"{n_links} directed links", standoff=2), autorange="reversed",
                     showticklabels=n_links <= 40, tickfont=dict(size=8))
    return fig


_COLORBAR = dict(title=dict(text="% cap.", side="top"), thickness=8, len=0.9, xpad=4)


def heatmap_trace(util_pct: np.ndarray, link_labels: Sequence[str], coloraxis: str | None = None) -> go.Heatmap:
    """The utilization heatmap trace: z = percent of capacity, rows = directed links, x = rounds from 1."""
    scale = {} if coloraxis else dict(zmin=0, zmax=100, colorscale=UTIL_SCALE)
    return go.Heatmap(z=util_pct, x=np.arange(1, util_pct.shape[1] + 1), y=list(link_labels), coloraxis=coloraxis,
                      hovertemplate="%{y}<br>round %{x}: %{z}% of capacity<extra></extra>", name="utilization",
                      **scale)


def round_marker(current_round: int, xref: str = "x", yref: str = "paper") -> dict:
    """The current-round marker: an outlined column over the heatmap."""
    return dict(type="rect", x0=current_round - 0.5, x1=current_round + 0.5, y0=0, y1=1, xref=xref, yref=yref,
                line=dict(color=MARKER_COLOUR, width=2), fillcolor="rgba(228,0,43,0.08)", name="current round")


@dataclass(frozen=True, eq=False)
class PlayerPanel:
    """One method in the player in the current round: its busy links and its number of rounds."""

    busy_links: np.ndarray
    busy_trees: np.ndarray
    hover: Sequence[str]
    n_rounds: int


def player_base(d: NetDrawing, utils: Sequence[np.ndarray], link_labels: Sequence[str], height: int = 620) -> dict:
    """The round-independent part of the player figure as a plotly dict (networks on top, heatmaps below).

    Per method: the network, and below it the utilization heatmap (directed links x rounds); all
    heatmaps share one colour axis.
    """
    k = len(utils)
    fig = make_subplots(rows=2, cols=k, row_heights=[0.54, 0.46], vertical_spacing=0.09, horizontal_spacing=0.035)
    n_links = len(link_labels)
    for i, util in enumerate(utils, start=1):
        for tr in network_traces(d, show_labels=len(d.labels) <= 24):
            fig.add_trace(tr, row=1, col=i)
        fig.add_trace(heatmap_trace(util, link_labels, coloraxis="coloraxis"), row=2, col=i)
        fig.update_xaxes(visible=False, row=1, col=i)
        fig.update_yaxes(visible=False, scaleanchor=_axis_name("x", i), scaleratio=1, row=1, col=i)
        fig.update_xaxes(range=[0.5, util.shape[1] + 0.5], title=dict(text="round", standoff=4), row=2, col=i,
                         tickfont=dict(size=10))
        fig.update_yaxes(autorange="reversed", showticklabels=False, row=2, col=i,
                         title=dict(text=f"{n_links} directed links" if i == 1 else "", standoff=2))
    fig.update_layout(height=height, margin=dict(l=34, r=8, t=4, b=42), showlegend=False, plot_bgcolor="white",
                      coloraxis=dict(cmin=0, cmax=100, colorscale=UTIL_SCALE,
                                     colorbar=dict(title=dict(text="% cap.", side="top"), thickness=8, len=0.42,
                                                   y=0.0, yanchor="bottom", xpad=4)),
                      hoverlabel=dict(namelength=-1))
    return fig.to_dict()


def player_figure(base: dict, d: NetDrawing, panels: Sequence[PlayerPanel], current_round: int) -> go.Figure:
    """The player in round r: `player_base` plus each method's busy links and a marker on its heatmap.

    Only the round's traces are built here, so stepping a round stays cheap.
    """
    k = len(panels)
    data = list(base["data"])
    shapes = []
    for i, p in enumerate(panels, start=1):
        for tr in _busy_traces(d, np.asarray(p.busy_links, dtype=np.int64), np.asarray(p.busy_trees, dtype=np.int64),
                               list(p.hover)):
            tr.update(xaxis=_axis_name("x", i), yaxis=_axis_name("y", i))
            data.append(tr)
        if 1 <= current_round <= p.n_rounds:
            shapes.append(round_marker(current_round, xref=_axis_name("x", k + i),
                                       yref=f"{_axis_name('y', k + i)} domain"))
    return go.Figure(data=data, layout=dict(base["layout"], shapes=shapes))


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


def workload_tree_figure(pos: dict[int, tuple[float, float]], labels: Sequence[str], arcs: Sequence[WorkloadArc],
                         root: int, title: str | None = None, height: int = 360) -> go.Figure:
    """A workload tree: servers by depth (root on top) and every workload as its own arc, numbered."""
    groups: dict[tuple[int, int], list[WorkloadArc]] = {}
    for a in arcs:
        groups.setdefault((min(a.src, a.dst), max(a.src, a.dst)), []).append(a)
    own_x, own_y, relay_x, relay_y = [], [], [], []
    lab_x, lab_y, lab_t, lab_h, lab_c = [], [], [], [], []
    crowded = len(arcs) > 60  # many workloads: numbers only on hover
    for (_, _), members in groups.items():
        k = len(members)
        spacing = min(0.5, 1.5 / k)
        for i, a in enumerate(members):
            (x0, y0), (x1, y1) = pos[a.src], pos[a.dst]
            bend = (i - (k - 1) / 2) * spacing
            xs, ys = _arc(x0, y0, x1, y1, bend)
            (relay_x if a.relay else own_x).extend(xs.tolist() + [None])
            (relay_y if a.relay else own_y).extend(ys.tolist() + [None])
            mid = len(xs) // 2
            lab_x.append(xs[mid])
            lab_y.append(ys[mid])
            lab_t.append(f"#{a.workload}")
            lab_h.append(a.text)
            lab_c.append("#ff7f0e" if a.relay else "#2c7fb8")
    traces = [
        go.Scatter(x=own_x, y=own_y, mode="lines", line=dict(color="#2c7fb8", width=2), hoverinfo="skip",
                   name="carries the sender's piece"),
        go.Scatter(x=relay_x, y=relay_y, mode="lines", line=dict(color="#ff7f0e", width=2, dash="dash"),
                   hoverinfo="skip", name="relays another server's piece"),
        go.Scatter(x=lab_x, y=lab_y, mode="markers" if crowded else "markers+text", text=lab_t, hovertext=lab_h,
                   hoverinfo="text",
                   marker=dict(size=7 if crowded else 18, color="white", line=dict(color=lab_c, width=1.5)),
                   textfont=dict(size=9, color=lab_c), name="workloads"),
    ]
    servers = sorted(pos)
    traces.append(go.Scatter(
        x=[pos[v][0] for v in servers], y=[pos[v][1] for v in servers], mode="markers+text",
        marker=dict(size=22, color=[ROOT_COLOUR if v == root else SERVER_COLOUR for v in servers],
                    line=dict(color="white", width=1.5)),
        text=[labels[v] for v in servers], textfont=dict(color="white", size=9), hoverinfo="text",
        hovertext=[f"{labels[v]}{' (root)' if v == root else ''}" for v in servers], name="servers"))
    fig = _clean_axes(go.Figure(traces), height, title)
    fig.update_yaxes(scaleanchor=None)
    return fig


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


def compare_figure(configs: Sequence[str], ours: dict[str, Sequence[float | None]],
                   paper: dict[str, Sequence[float | None]], height: int = 420,
                   titles: dict[str, str] | None = None) -> go.Figure:
    """Rounds per configuration: our methods as bars, the paper's numbers as diamonds on top."""
    name = (titles or {}).get
    fig = go.Figure()
    for method, values in ours.items():
        label = name(method, method)
        fig.add_trace(go.Bar(x=list(configs), y=list(values), name=label, marker_color=method_colour(method),
                             offsetgroup=method, meta=method,
                             hovertemplate=f"{label}: %{{y:.1f}} rounds<extra>%{{x}}</extra>"))
    for method, values in paper.items():
        label = f"paper: {name(method, method)}"
        fig.add_trace(go.Scatter(x=list(configs), y=list(values), mode="markers", name=label, meta=method,
                                 marker=dict(symbol="diamond", size=10, color=method_colour(method),
                                             line=dict(color="black", width=1)),
                                 hovertemplate=f"{label}: %{{y:.1f}} rounds<extra>%{{x}}</extra>"))
    fig.update_layout(barmode="group", height=height, margin=dict(l=4, r=4, t=10, b=4),
                      legend=dict(orientation="h", y=-0.18), yaxis_title="rounds")
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
                      current_round: int | None = None, height: int = 340) -> go.Figure:
    """The upper agent: probability of each flow-tree (columns) in each round (rows, 1-based); x marks chosen."""
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
    fig.update_layout(height=height, margin=dict(l=4, r=4, t=6, b=4), showlegend=False)
    fig.update_yaxes(title="round", autorange="reversed")
    fig.update_xaxes(title="flow-tree (root)", showticklabels=n_trees <= 50, tickfont=dict(size=8))
    return fig


def bars_figure(labels: Sequence[str], values: Sequence[float], highlight: Sequence[bool], title: str | None = None,
                value_name: str = "value", marked: Sequence[bool] | None = None, height: int = 280) -> go.Figure:
    """Bars with the highlighted ones in red (chosen) and `marked` ones outlined (e.g. not what critical-path sent)."""
    colours = ["#e4002b" if h else "#9e9ac8" for h in highlight]
    outline = ["black" if (marked is not None and m) else "rgba(0,0,0,0)" for m in (marked or [False] * len(labels))]
    fig = go.Figure(go.Bar(x=list(labels), y=list(values),
                           marker=dict(color=colours, line=dict(color=outline, width=2)),
                           hovertemplate=f"%{{x}}: {value_name} %{{y:.3f}}<extra></extra>", name=value_name))
    fig.update_layout(height=height, margin=dict(l=4, r=4, t=34 if title else 6, b=4), showlegend=False,
                      title=dict(text=title or "", x=0.01, font=dict(size=14)), yaxis_title=value_name)
    fig.update_xaxes(tickfont=dict(size=8), type="category")
    return fig


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
    fig.update_layout(barmode="relative", height=height, margin=dict(l=4, r=4, t=6, b=4),
                      legend=dict(orientation="h", y=1.12), yaxis_title="workloads")
    fig.update_xaxes(title="round")
    return fig
