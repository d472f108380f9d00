"""Pure plotly figures of the Cluster screen: plain arrays and dicts in, ``go.Figure`` out."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative

SIZE_COLOURS = {1: "#9ecae1", 2: "#6baed6", 4: "#3182bd", 8: "#08519c", 16: "#d94801", 32: "#a50f15"}
EDGE, SERVER, SWITCH, IDLE, SHARED = "#c8c8c8", "#d9d9d9", "#666666", "#eeeeee", "#222222"
"""The snapshot's own colours: links, servers, switches (dark grey squares: they were orange, as job j30's "#FF9616"
nearly was, trial 13), idle servers, marks shared by several jobs."""
APART = 60
"""Least RGB distance (0-441) between a job's colour and any of the snapshot's own colours."""


def _rgb(colour: str) -> tuple[int, int, int]:
    c = colour.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


JOB_COLOURS = tuple(c for c in qualitative.Dark24 + qualitative.Light24
                    if min(math.dist(_rgb(c), _rgb(own)) for own in (EDGE, SERVER, SWITCH, IDLE, SHARED)) >= APART)
"""Job colours: plotly's 48 but those within APART of the snapshot's own colours (its near-black read as the black of
the marks shared by several jobs; its olive as the switches' grey; its palest as idle servers). Job j has colour
j mod len(JOB_COLOURS): colours repeat after that many jobs, and the page says so when two running jobs share one."""


def job_colour(job: int) -> str:
    """The colour of job `job` (its index in the trace) in the snapshot."""
    return JOB_COLOURS[int(job) % len(JOB_COLOURS)]


def shared_colours(jobs: Sequence[dict]) -> list[list[str]]:
    """The ids of running jobs that share a colour (`job_colour` repeats every len(JOB_COLOURS) jobs), each group in
    job order; empty when every running job has a colour of its own."""
    by: dict[str, list[dict]] = {}
    for job in sorted(jobs, key=lambda j: j["job"]):
        by.setdefault(job_colour(job["job"]), []).append(job)
    return [[j["job_id"] for j in group] for group in by.values() if len(group) > 1]


def gantt_figure(rows: Sequence[dict], title: str = "", height: int = 460) -> go.Figure:
    """Jobs as rows (by arrival), a thin grey bar while waiting and a bar coloured by GPU count while running."""
    fig = go.Figure()
    ids = {r["job_id"] for r in rows}
    order = {j: i for i, (_, j) in enumerate(sorted((min(r["arrival_h"] for r in rows if r["job_id"] == j), j)
                                                  for j in ids))}
    first = {}
    for r in rows:
        first[r["job_id"]] = min(first.get(r["job_id"], np.inf), r["start_h"])
    wait = [(order[j], min(r["arrival_h"] for r in rows if r["job_id"] == j), first[j]) for j in ids]
    fig.add_trace(go.Bar(y=[w[0] for w in wait], x=[w[2] - w[1] for w in wait], base=[w[1] for w in wait],
                         orientation="h", marker_color="#dddddd", width=0.35, name="waiting", hoverinfo="skip"))
    for g in sorted({r["gpus"] for r in rows}):
        sel = [r for r in rows if r["gpus"] == g]
        fig.add_trace(go.Bar(
            y=[order[r["job_id"]] for r in sel], x=[r["end_h"] - r["start_h"] for r in sel],
            base=[r["start_h"] for r in sel], orientation="h", width=0.8, name=f"{g} GPU" + ("s" if g > 1 else ""),
            marker_color=SIZE_COLOURS.get(g, "#555555"),
            hovertext=[f"{r['job_id']}: {r['gpus']} GPUs on {r['servers']} servers, {r['model']}, AllReduce "
                       f"{r['method']}, {r['start_h']:.1f}-{r['end_h']:.1f} h" for r in sel], hoverinfo="text"))
    fig.update_layout(barmode="overlay", height=height, title=dict(text=title, x=0.01), bargap=0.1,
                      margin=dict(l=4, r=4, t=34, b=4), legend=dict(orientation="h", y=-0.12),
                      xaxis_title="hours", yaxis=dict(title="jobs (by arrival)", autorange="reversed",
                                                      showticklabels=False))
    return fig


SCHEDULER_PALETTE = tuple(dict.fromkeys(qualitative.Plotly + qualitative.Dark24))
"""Scheduler colours, in the order `scheduler_colours` hands them out (plotly's default ten first)."""


def scheduler_colours(names: Sequence[str]) -> dict[str, str]:
    """One colour per scheduler, by its place in `names`: the page passes every scheduler it offers, so a scheduler
    keeps its colour in every chart and whichever others are picked (the JCT boxes took plotly's colours by trace
    order and the contention lines the job colours, so one scheduler had two colours on one page)."""
    return {n: SCHEDULER_PALETTE[i % len(SCHEDULER_PALETTE)] for i, n in enumerate(names)}


LOG_TICKS = [m * 10.0 ** e for e in range(-2, 5) for m in (1, 2, 5)]
"""Every label of the log axis written out (0.5, not plotly's minor "5")."""


JCT_CAPTION = ("Each box holds the middle half of the jobs' completion times (quartiles), the solid line in it is the "
               "median and the dashed line the mean; whiskers reach the farthest job within 1.5 times the box's "
               "span (interquartile range), dots beyond are single jobs. Log axis.")
"""What the JCT box plot draws, said under it (plotly's `boxmean` dashed line has no legend entry)."""


def jct_figure(jct_hours: dict[str, np.ndarray], height: int = 360, colours: dict[str, str] | None = None
               ) -> go.Figure:
    """One box per scheduler: the distribution of job completion times (hours, log axis), the mean a dashed line;
    each in its colour of `colours` (default: `scheduler_colours` of the dict's order)."""
    fig = go.Figure()
    colours = colours or scheduler_colours(list(jct_hours))
    for name, values in jct_hours.items():
        fig.add_trace(go.Box(y=np.asarray(values, float), name=name, boxmean=True, boxpoints="outliers",
                             marker_color=colours[name], line_color=colours[name]))
    fig.update_layout(height=height, margin=dict(l=4, r=4, t=10, b=4), showlegend=False,
                      yaxis=dict(title="JCT (hours)", type="log", tickvals=LOG_TICKS, ticktext=[f"{v:g}" for v in LOG_TICKS]))
    return fig



def snapshot_figure(x: np.ndarray, y: np.ndarray, edges: np.ndarray, is_server: np.ndarray, labels: Sequence[str],
                    jobs: Sequence[dict], title: str = "", height: int = 480) -> go.Figure:
    """The network at one moment: each running job's servers and AllReduce links in its colour, one legend entry per
    running job (servers and links together). A server running several jobs is filled with the colour of the one
    with most GPUs there and ringed in black; a link used by several jobs at once is drawn black dotted on white. A
    job whose colour shows nowhere (no links, only on servers another job fills) says so in its entry. Every colour
    drawn has a legend entry: a per-point colour on one "servers" trace used to show only one colour in the legend,
    and a job without links had no entry at all (trial 12)."""
    fig = go.Figure()
    is_server = np.asarray(is_server, bool)
    jobs = sorted(jobs, key=lambda j: j["job"])  # the legend in job order (j2 before j10), as the trace lists them
    fig.add_trace(_lines(x, y, edges, range(len(edges)), EDGE, 1.0, "links"))
    users: dict[int, int] = {}
    hosts: dict[int, list[tuple[int, dict]]] = {}  # server -> (GPUs, job) of every job on it
    for job in jobs:
        for e in job["edges"]:
            users[e] = users.get(e, 0) + 1
        for v, g in zip(job["nodes"], job["gpus_on"]):
            hosts.setdefault(v, []).append((int(g), job))
    main = {v: max(on, key=lambda gj: gj[0])[1]["job"] for v, on in hosts.items()}  # first of the largest

    def hover(v: int) -> str:
        return labels[v] + "".join(f"<br>{j['job_id']}: {g} GPU(s)" for g, j in hosts.get(v, ()))

    for job in jobs:
        colour, group = job_colour(job["job"]), f"job {job['job']}"
        name = f"{job['job_id']} ({job['gpus']} GPU{'s' if job['gpus'] > 1 else ''})"
        own = [v for v in job["nodes"] if main[v] == job["job"]]
        if not own and not job["edges"]:
            name += ", on a shared server"
        fig.add_trace(_lines(x, y, edges, job["edges"], colour, 3.0, name, legendgroup=group, showlegend=False))
        fig.add_trace(_servers(x, y, own, colour, [hover(v) for v in own], name, legendgroup=group,
                               showlegend=False, ring=[len(hosts[v]) > 1 for v in own]))
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines+markers", name=name, legendgroup=group,
                                 line=dict(color=colour, width=3), marker=dict(color=colour, size=10),
                                 hoverinfo="skip"))
    shared = sorted(e for e, n in users.items() if n > 1)
    if shared:  # white under the black dots: no one job's colour on a link several use (dots on a dark one were lost)
        fig.add_trace(_lines(x, y, edges, shared, "white", 3.5, "link shared by several jobs",
                             legendgroup="shared", showlegend=False))
        fig.add_trace(_lines(x, y, edges, shared, SHARED, 2.0, "link shared by several jobs", dash="dot",
                             legendgroup="shared"))
    if any(len(on) > 1 for on in hosts.values()):
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name="server running several jobs",
                                 marker=dict(color="white", size=12, line=dict(color=SHARED, width=3)),
                                 hoverinfo="skip"))
    sw = np.flatnonzero(~is_server)
    fig.add_trace(go.Scatter(x=x[sw], y=y[sw], mode="markers", marker=dict(symbol="square", size=8, color=SWITCH),
                             hovertext=[labels[v] for v in sw.tolist()], hoverinfo="text", name="switches"))
    idle = [v for v in np.flatnonzero(is_server).tolist() if v not in hosts]
    if idle:
        fig.add_trace(_servers(x, y, idle, IDLE, [labels[v] for v in idle], "idle server"))
    entries = len(jobs) + 5
    fig.update_layout(height=max(height, 60 + 20 * entries), title=dict(text=title, x=0.01),
                      margin=dict(l=4, r=4, t=34, b=4), showlegend=True, plot_bgcolor="white",
                      legend=dict(font=dict(size=10), itemsizing="constant", tracegroupgap=0))
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False, scaleanchor="x", scaleratio=1)
    return fig


def _servers(x: np.ndarray, y: np.ndarray, nodes: Sequence[int], colour: str, hover: list[str], name: str,
             ring: Sequence[bool] = (), **legend) -> go.Scatter:
    """Server markers in one colour; those with `ring` True (running several jobs) ringed in black."""
    idx = np.asarray(nodes, dtype=np.int64)
    ring = list(ring) or [False] * len(idx)
    return go.Scatter(x=x[idx], y=y[idx], mode="markers",
                      marker=dict(size=12, color=colour, line=dict(color=[SHARED if r else "#555555" for r in ring],
                                                                   width=[3 if r else 1 for r in ring])),
                      hovertext=hover, hoverinfo="text", name=name, **legend)


def _lines(x: np.ndarray, y: np.ndarray, edges: np.ndarray, ids: Sequence[int], colour: str, width: float, name: str,
           dash: str | None = None, **legend) -> go.Scatter:
    ids = list(ids)
    e = edges[np.asarray(ids, dtype=np.int64)] if len(ids) else np.zeros((0, 2), np.int64)
    return go.Scatter(x=np.c_[x[e[:, 0]], x[e[:, 1]], np.full(len(e), np.nan)].ravel(),
                      y=np.c_[y[e[:, 0]], y[e[:, 1]], np.full(len(e), np.nan)].ravel(), mode="lines",
                      line=dict(color=colour, width=width, dash=dash), hoverinfo="skip", name=name, **legend)


def contention_figure(series: dict[str, dict[str, np.ndarray]], height: int = 320,
                       colours: dict[str, str] | None = None) -> go.Figure:
    """Per scheduler, the most running jobs sharing one directed link over time (step lines) and,
    dotted, the mean over the links in use; each in its colour of `colours` (as `jct_figure`)."""
    fig = go.Figure()
    colours = colours or scheduler_colours(list(series))
    for name, s in series.items():
        colour = colours[name]
        fig.add_trace(go.Scatter(x=s["time_h"], y=s["max_users"], mode="lines", line=dict(shape="hv", color=colour),
                                 name=f"{name}: most on one link"))
        fig.add_trace(go.Scatter(x=s["time_h"], y=s["mean_users"], mode="lines",
                                 line=dict(shape="hv", color=colour, dash="dot"), name=f"{name}: mean per link in use"))
    # the legend below the plot: at its right, its first entry sat under plotly's icon bar (trial 26)
    fig.update_layout(height=height + 20 * ((len(series) + 1) // 2), margin=dict(l=4, r=4, t=10, b=4),
                      xaxis_title="hours", yaxis_title="jobs sharing a link",
                      legend=dict(font=dict(size=10), orientation="h", y=-0.2, yanchor="top"))
    return fig
