"""Pure plotly figures of the Cluster screen: plain arrays and dicts in, ``go.Figure`` out."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.colors import qualitative

JOB_COLOURS = tuple(qualitative.Dark24) + tuple(qualitative.Light24)
SIZE_COLOURS = {1: "#9ecae1", 2: "#6baed6", 4: "#3182bd", 8: "#08519c", 16: "#d94801", 32: "#a50f15"}
EDGE, SERVER, SWITCH, IDLE = "#c8c8c8", "#d9d9d9", "#ff7f0e", "#eeeeee"


def job_colour(job: int) -> str:
    """The colour of job `job` in the snapshot."""
    return JOB_COLOURS[int(job) % len(JOB_COLOURS)]


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


LOG_TICKS = [m * 10.0 ** e for e in range(-2, 5) for m in (1, 2, 5)]
"""Every label of the log axis written out (0.5, not plotly's minor "5")."""


def jct_figure(jct_hours: dict[str, np.ndarray], height: int = 360) -> go.Figure:
    """One box per scheduler: the distribution of job completion times (hours, log axis), mean marked."""
    fig = go.Figure()
    for name, values in jct_hours.items():
        fig.add_trace(go.Box(y=np.asarray(values, float), name=name, boxmean=True, boxpoints="outliers"))
    fig.update_layout(height=height, margin=dict(l=4, r=4, t=10, b=4), showlegend=False,
                      yaxis=dict(title="JCT (hours)", type="log", tickvals=LOG_TICKS, ticktext=[f"{v:g}" for v in LOG_TICKS]))
    return fig



def snapshot_figure(x: np.ndarray, y: np.ndarray, edges: np.ndarray, is_server: np.ndarray, labels: Sequence[str],
                    jobs: Sequence[dict], title: str = "", height: int = 480) -> go.Figure:
    """The network at one moment: each running job's servers and AllReduce links in its colour
    (links used by several jobs at once are marked with a dark dotted line on top)."""
    fig = go.Figure()
    xs = np.c_[x[edges[:, 0]], x[edges[:, 1]], np.full(len(edges), np.nan)].ravel()
    ys = np.c_[y[edges[:, 0]], y[edges[:, 1]], np.full(len(edges), np.nan)].ravel()
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", line=dict(color=EDGE, width=1), hoverinfo="skip",
                             name="links"))
    users: dict[int, int] = {}
    for job in jobs:
        for e in job["edges"]:
            users[e] = users.get(e, 0) + 1
    owner: dict[int, int] = {}
    for job in jobs:
        for v in job["nodes"]:
            owner.setdefault(v, job["job"])
        fig.add_trace(_lines(x, y, edges, job["edges"], job_colour(job["job"]), 3.0,
                             f"{job['job_id']} ({job['gpus']} GPUs)"))
    shared = sorted(e for e, n in users.items() if n > 1)
    if shared:
        fig.add_trace(_lines(x, y, edges, shared, "#222222", 1.5, "shared by several jobs", dash="dot"))
    srv = np.flatnonzero(is_server)
    sw = np.flatnonzero(~np.asarray(is_server, bool))
    gpus_on = {(v, j["job"]): g for j in jobs for v, g in zip(j["nodes"], j["gpus_on"])}
    fig.add_trace(go.Scatter(x=x[sw], y=y[sw], mode="markers", marker=dict(symbol="square", size=8, color=SWITCH),
                             hovertext=[labels[v] for v in sw.tolist()], hoverinfo="text", name="switches"))
    colours = [job_colour(owner[v]) if v in owner else IDLE for v in srv.tolist()]
    hover = [labels[v] + "".join(f"<br>{j['job_id']}: {gpus_on[(v, j['job'])]} GPU(s)" for j in jobs
                                 if (v, j["job"]) in gpus_on) for v in srv.tolist()]
    fig.add_trace(go.Scatter(x=x[srv], y=y[srv], mode="markers",
                             marker=dict(size=12, color=colours, line=dict(color="#555555", width=1)),
                             hovertext=hover, hoverinfo="text", name="servers"))
    fig.update_layout(height=height, title=dict(text=title, x=0.01), margin=dict(l=4, r=4, t=34, b=4),
                      showlegend=len(jobs) <= 20, plot_bgcolor="white", legend=dict(font=dict(size=10)))
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False, scaleanchor="x", scaleratio=1)
    return fig


def _lines(x: np.ndarray, y: np.ndarray, edges: np.ndarray, ids: Sequence[int], colour: str, width: float, name: str,
           dash: str | None = None) -> go.Scatter:
    e = edges[np.asarray(ids, dtype=np.int64)] if len(ids) else np.zeros((0, 2), np.int64)
    return go.Scatter(x=np.c_[x[e[:, 0]], x[e[:, 1]], np.full(len(e), np.nan)].ravel(),
                      y=np.c_[y[e[:, 0]], y[e[:, 1]], np.full(len(e), np.nan)].ravel(), mode="lines",
                      line=dict(color=colour, width=width, dash=dash), hoverinfo="skip", name=name)


def contention_figure(series: dict[str, dict[str, np.ndarray]], height: int = 320) -> go.Figure:
    """Per scheduler, the most running jobs sharing one directed link over time (step lines) and,
    dotted, the mean over the links in use."""
    fig = go.Figure()
    for i, (name, s) in enumerate(series.items()):
        colour = JOB_COLOURS[i % len(JOB_COLOURS)]
        fig.add_trace(go.Scatter(x=s["time_h"], y=s["max_users"], mode="lines", line=dict(shape="hv", color=colour),
                                 name=f"{name}: most on one link"))
        fig.add_trace(go.Scatter(x=s["time_h"], y=s["mean_users"], mode="lines",
                                 line=dict(shape="hv", color=colour, dash="dot"), name=f"{name}: mean per link in use"))
    fig.update_layout(height=height, margin=dict(l=4, r=4, t=10, b=4), xaxis_title="hours",
                      yaxis_title="jobs sharing a link", legend=dict(font=dict(size=10)))
    return fig
