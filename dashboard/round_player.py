"""The round player: schedules side by side on ONE round axis, stepped or played round by round.

Used by the Schedule player and by the last step of "How merging works". The round-dependent
part is an ``st.fragment``: stepping a round reruns only the fragment, which slices the
per-round arrays `dashboard.data.playback` computed once per method and adds a few traces to
the cached round-independent figure. The round axis is a list of column edges
(`figures.round_edges`), so a time axis in seconds needs only other edges.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import streamlit as st

from core.methods import MethodUnavailable
from core.schedule import ScheduleConfig

from . import charts, data, figures, labels
from .controls import is_slow, method_title, persistent, with_progress
from .playback import Playback
from .sources import HEAT_LINK_ROWS, PLAYER_NETWORK_NODES, Source, file_stem

SPEEDS = {"½": 2.0, "1": 1.0, "2": 0.5, "4": 0.25}
"""Play speeds (rounds per second) -> seconds between rounds."""
WIDTHS = {"820 px": 820, "page width": "stretch"}
"""Figure widths: 820 px fits a 1280-px window beside the sidebar and keeps stepping fastest (a fixed
width spares the browser a resize on every round: 0.52 s against 0.83 s median per step in one
measurement at load 7); "page width" fills wider screens."""
ROW_MODES = ("auto", "every link", "link groups")
TREE_COLOURS = 8
"""Busy links are coloured by flow-tree up to this many trees (one legend entry each); by phase above."""


@dataclass(frozen=True, eq=False)
class View:
    """How the player draws a set of schedules: network or group bars, heatmap rows, colours, legend."""

    network: bool
    by_group: bool
    by_tree: bool
    edges: tuple[float, ...]
    legend: tuple[tuple[str, str, str], ...]
    width: int | str = 820


def load(source: Source, methods: list[str], config: ScheduleConfig) -> list[Playback]:
    """The chosen methods' schedules; one that cannot run is reported plainly and left out."""
    plays = []
    for method in methods:
        title = method_title(method)
        try:
            if is_slow(method):
                pb = with_progress(f"Scheduling {source.name} with {title}",
                                   partial(_playback_with_progress, source, method, config), config.time_limit)
            else:
                with st.spinner(f"Scheduling {source.name} with {title}"):
                    pb = data.playback(source, method, config)
        except MethodUnavailable as err:
            st.warning(f"{title} not available: {err}")
            continue
        except Exception as err:  # noqa: BLE001 - every failure is shown, the other methods still play
            st.error(f"{title} could not schedule {source.name}: {err}")
            continue
        plays.append(pb)
    return plays


def _playback_with_progress(source: Source, method: str, config: ScheduleConfig, progress) -> Playback:
    return data.playback(source, method, config, progress)


def summary(plays: list[Playback], source: Source, config: ScheduleConfig, merged_bound: int | None = None) -> None:
    """Per method: rounds, gap to its own DAG's bound (said which), mean link utilization and truthful notes."""
    for col, pb in zip(st.columns(len(plays)), plays):
        s = pb.stats
        with col:
            st.markdown(f"##### {method_title(pb.method)}")
            a, b, c = st.columns(3)
            a.metric("Rounds", s["rounds"], help=f"{s['workloads']} workloads in its DAG")
            b.metric("Gap", f"{100 * s['gap']:.0f}%", help=labels.gap_note(pb.method, s))
            c.metric("Util.", f"{100 * s['mean_utilization']:.0f}%",
                     help="mean share of directed-link capacity used, over links and rounds")
            notes = [f"vs bound {s['lower_bound']} ({labels.dag_name(pb.method)})"]
            notes += labels.result_notes(pb.method, pb.info, source.spec, config.time_limit)
            st.caption(" · ".join(notes))
    if merged_bound is not None:
        st.caption(f"Lower bound of the merged workload DAG: **{merged_bound} rounds** — the common reference of "
                   "every method that schedules merged trees. PS and Ring schedule other DAGs (plain trees, the "
                   "ring), each gap is against its own DAG's bound.")


def view_of(source: Source, plays: list[Playback], mode: str = "auto", width: int | str = 820) -> View:
    """How to draw: heatmap rows per link or per group (`mode`), network or group bars, colours and legend."""
    t = data.topology(source)
    by_group = mode == "link groups" or (mode == "auto" and t.n_links > HEAT_LINK_ROWS)
    network = t.n_nodes <= PLAYER_NETWORK_NODES
    n_trees = max(pb.dag.n_trees for pb in plays)
    by_tree = n_trees <= TREE_COLOURS
    legend: list[tuple[str, str, str]] = []
    if network:
        legend += [("server", figures.SERVER_COLOUR, "circle"), ("switch", figures.SWITCH_COLOUR, "square")]
        if by_tree:
            roots = plays[0].dag.tree_root
            legend += [(f"tree of {t.labels[int(roots[i])]}", figures.tree_colour(i), "triangle-right")
                       for i in range(n_trees)]
        else:
            legend += [("reduce", figures.PHASE_COLOURS[0], "triangle-right"),
                       ("broadcast", figures.PHASE_COLOURS[1], "triangle-right")]
    last = max(pb.n_rounds for pb in plays)
    return View(network, by_group, by_tree, tuple(figures.round_edges(last).tolist()), tuple(legend), width)


def show(key: str, source: Source, config: ScheduleConfig, plays: list[Playback], show_workloads: bool = False
         ) -> View:
    """Round controls (first / back / play-pause / next / round slider), view and speed controls, and the figure."""
    left, middle, right = st.columns([1.25, 1, 1])
    with left:
        mode = persistent(st.segmented_control, f"{key}.rows", "auto", "Heatmap rows", ROW_MODES,
                          help=f"auto: one row per directed link up to {HEAT_LINK_ROWS} links, else one row per "
                               "link group (BCube level, DCell copy, fat-tree pod, link kind): its mean utilization")
    with middle:
        speed = persistent(st.segmented_control, f"{key}.speed", "1", "Rounds per second", list(SPEEDS),
                           help="play speed") or "1"
    with right:
        width = persistent(st.segmented_control, f"{key}.width", "820 px", "Figure width", list(WIDTHS),
                           help="820 px fits a 1280-px window and steps fastest; page width fills a wider "
                                "screen") or "820 px"
    view = view_of(source, plays, mode or "auto", WIDTHS[width])
    playing = bool(st.session_state.get(f"{key}:playing", False))
    body = st.fragment(run_every=SPEEDS[speed] if playing else None)(_player)
    body(key, source, config, tuple(plays), view, show_workloads)
    return view


def _set_round(round_key: str, value: int) -> None:
    st.session_state[round_key] = value


def _step(round_key: str, delta: int, last: int) -> None:
    st.session_state[round_key] = min(last, max(1, int(st.session_state.get(round_key, 1)) + delta))


def _player(key: str, source: Source, config: ScheduleConfig, plays: tuple[Playback, ...], view: View,
            show_workloads: bool) -> None:
    last = max(pb.n_rounds for pb in plays)
    round_key, play_key = f"{key}:round", f"{key}:playing"
    r = min(last, max(1, int(st.session_state.get(round_key, 1))))
    if st.session_state.get(play_key):
        if r >= last:
            st.session_state[play_key] = False
            st.rerun()
        r += 1
    st.session_state[round_key] = r
    playing = bool(st.session_state.get(play_key))
    cols = st.columns([1, 1, 1.1, 1, 2.4], vertical_alignment="center")
    cols[0].button("First", icon=":material/first_page:", key=f"{key}:first", on_click=_set_round,
                   args=(round_key, 1), help="first round", width="stretch")
    cols[1].button("Back", icon=":material/chevron_left:", key=f"{key}:back", on_click=_step,
                   args=(round_key, -1, last), help="previous round", width="stretch")
    if cols[2].button("Pause" if playing else "Play", icon=":material/pause:" if playing else ":material/play_arrow:",
                      key=f"{key}:play", help="play the rounds one after another", width="stretch", type="primary"):
        st.session_state[play_key] = not playing
        if not playing and r >= last:
            st.session_state[round_key] = 1
        st.rerun()
    cols[3].button("Next", icon=":material/chevron_right:", key=f"{key}:next", on_click=_step,
                   args=(round_key, 1, last), help="next round", width="stretch")
    cols[4].markdown(f"**Round {st.session_state[round_key]} of {last}**")
    st.slider("Round", 1, max(2, last), key=round_key, label_visibility="collapsed", disabled=last < 2)
    r = int(st.session_state[round_key])
    link_names = data.link_labels(source)
    g = data.groups(source)
    panels = []
    for col, pb in zip(st.columns(len(plays)), plays):
        rv = pb.round(r - 1)
        with col:
            _caption(pb, rv.n_workloads, rv.n_links_busy, r)
        panels.append(_panel(pb, r, view, g, link_names))
    methods = tuple((pb.method, method_title(pb.method)) for pb in plays)
    base = data.player_base(source, methods, config, view.by_group, view.network, view.edges, view.legend)
    drawing = data.drawing(source) if view.network else None
    fig = figures.player_figure(base, drawing, panels, r, np.asarray(view.edges), g.names)
    charts.show(fig, f"{key}:figure", f"{file_stem(source)}-round{r}", buttons=("resetScale2d",), theme=None,
                width=view.width)
    what = ("each busy directed link is drawn beside its cable with arrows in its direction, coloured by "
            + ("flow-tree" if view.by_tree else "phase (reduce / broadcast)")) if view.network else \
        "each link group's mean utilization in this round (the topology is too big to draw link by link)"
    rows = "link group (mean of its links)" if view.by_group else "directed link"
    st.caption(f"Top: {what}. Below: utilization of every {rows} (rows) in every round (columns), one colour "
               "scale; all methods share the round axis, so a column is the same round in each. The red box marks "
               "this round.")
    if show_workloads:
        for col, pb in zip(st.columns(len(plays)), plays):
            with col:
                _workload_list(pb, r)


def _panel(pb: Playback, r: int, view: View, groups, link_names: tuple[str, ...]) -> figures.PlayerPanel:
    """What one method shows in round r: its busy links (network view) or its link groups' use."""
    rv = pb.round(r - 1)
    if view.network:
        hover = [f"{link_names[link]}: {pb.dag.describe(w)}" for link, w in zip(rv.links.tolist(), rv.workloads.tolist())]
        return figures.PlayerPanel(rv.links, figures.busy_colours(rv.trees, rv.phases, view.by_tree), hover, pb.n_rounds)
    util = (groups.utilization(pb.util_pct[:, r - 1:r].astype(float))[:, 0] if r <= pb.n_rounds
            else np.zeros(len(groups.names)))
    return figures.PlayerPanel(rv.links, [], [], pb.n_rounds, group_util=util)


def _caption(pb: Playback, n_workloads: int, n_busy: int, r: int) -> None:
    """A method's name and what it sends in round r."""
    if r <= pb.n_rounds:
        st.markdown(f"**{method_title(pb.method)}**: round {r} of {pb.n_rounds}")
        st.caption(f"{n_workloads} workloads sent · {n_busy} of {pb.n_links} directed links busy")
    else:
        st.markdown(f"**{method_title(pb.method)}**: finished after {pb.n_rounds} rounds")
        st.caption("nothing left to send")


def _workload_list(pb: Playback, r: int) -> None:
    """The workloads a method sends in round r, with their paths."""
    if r > pb.n_rounds:
        return
    import pandas as pd
    dag = pb.dag
    ids = sorted(set(pb.round(r - 1).workloads.tolist()))
    st.dataframe(pd.DataFrame({"workload": [dag.describe(w) for w in ids],
                               "path": ["→".join(dag.topology.labels[v] for v in dag.path.row(w)) for w in ids]}),
                 hide_index=True, width="stretch")


def downloads(key: str, source: Source, plays: list[Playback], config: ScheduleConfig, view: View) -> None:
    """Per method: the schedule (JSON) and the heatmap data (CSV); for all: the animation (HTML), made on click."""
    stem = file_stem(source)
    for col, pb in zip(st.columns(len(plays)), plays):
        title = method_title(pb.method)
        col.download_button(f"{title}: schedule (JSON)", data=partial(data.schedule_json, source, pb.method, config),
                            file_name=f"{stem}-{pb.method}.schedule.json", mime="application/json",
                            key=f"{key}:json:{pb.method}", on_click="ignore", width="stretch",
                            help="allreduce-schedule/1: topology, workloads, rounds, stats")
        col.download_button(f"{title}: heatmap (CSV)", data=partial(data.heatmap_csv, source, pb.method, config),
                            file_name=f"{stem}-{pb.method}.utilization.csv", mime="text/csv",
                            key=f"{key}:csv:{pb.method}", on_click="ignore", width="stretch",
                            help="percent of capacity per directed link and round")
    methods = tuple(pb.method for pb in plays)
    st.download_button("Animation of all rounds (HTML, for slides)",
                       data=partial(animation_html, source, methods, config, view),
                       file_name=f"{stem}-{'-'.join(methods)}.animation.html", mime="text/html",
                       key=f"{key}:animation", on_click="ignore", icon=":material/movie:",
                       help="one self-contained file (plotly.js inside, works offline): the player with a Play "
                            "button and a round slider")


def animation_html(source: Source, methods: tuple[str, ...], config: ScheduleConfig, view: View) -> str:
    """The player over every round as one self-contained HTML page (plotly frames, plotly.js inlined)."""
    plays = [data.playback(source, m, config) for m in methods]
    titles = tuple((m, method_title(m)) for m in methods)
    base = data.player_base(source, titles, config, view.by_group, view.network, view.edges, view.legend)
    drawing = data.drawing(source) if view.network else None
    g = data.groups(source)
    link_names = data.link_labels(source)
    rounds = [[_panel(pb, r, view, g, link_names) for pb in plays] for r in range(1, len(view.edges))]
    fig = figures.player_animation(base, drawing, rounds, np.asarray(view.edges), g.names)
    fig.update_layout(title=dict(text=f"{source.name}: {', '.join(t for _, t in titles)}", x=0.01, y=0.995,
                                 yref="container", yanchor="top"), width=1200,
                      margin=dict(fig.layout.margin.to_plotly_json(), t=110))
    return fig.to_html(include_plotlyjs=True, full_html=True, auto_play=False)
