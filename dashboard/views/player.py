"""The round player: schedules side by side, stepped or played round by round.

The round-dependent part is an ``st.fragment``: stepping a round reruns only the fragment, and
it only slices the per-round arrays that `dashboard.data.playback` computed once per method.
"""

from __future__ import annotations

from functools import partial

import pandas as pd
import streamlit as st

from core.schedule import ScheduleConfig

from .. import data, figures
from ..controls import is_slow, method_title, with_progress
from ..inputs import Source, TooBig, check_playable
from ..playback import Playback, RoundView

PLAY_SECONDS = 0.8
"""Seconds between rounds while playing."""
PLAYER_HEIGHT = 620
"""Pixels of the combined network + heatmap figure."""
CHART_CONFIG = {"displaylogo": False, "displayModeBar": False}


def title(method: str) -> str:
    """A method's name on screen."""
    return method_title(method)


def preload_plotly() -> None:
    """An invisible chart drawn before anything is computed, so the browser loads plotly.js meanwhile.

    It lets the first screen show its figure about a second earlier.
    """
    st.plotly_chart(figures.blank_figure(), config={"staticPlot": True, "displayModeBar": False}, theme=None,
                    height=1, key="plotly-preload")


def load(source: Source, methods: list[str], config: ScheduleConfig) -> list[Playback]:
    """The chosen methods' schedules; one that cannot run is reported plainly and left out."""
    try:
        check_playable(data.topology(source).n_servers, source.name)
    except TooBig as err:
        st.warning(str(err))
        return []
    plays = []
    for method in methods:
        try:
            if is_slow(method):
                expected = config.time_limit if method == "optimal" else 0.5 * config.samples
                pb = with_progress(f"Scheduling {source.name} with {title(method)}",
                                   partial(_playback_with_progress, source, method, config), expected)
            else:
                with st.spinner(f"Scheduling {source.name} with {title(method)}"):
                    pb = data.playback(source, method, config)
        except Exception as err:  # noqa: BLE001 - every failure is shown, the other methods still play
            if method.startswith("rl"):
                st.warning(f"RL scheduler not available: {err}")
            else:
                st.error(f"{title(method)} could not schedule {source.name}: {err}")
            continue
        plays.append(pb)
    return plays


def _playback_with_progress(source: Source, method: str, config: ScheduleConfig, progress) -> Playback:
    return data.playback(source, method, config, progress)


def summary(plays: list[Playback], merged_bound: int | None = None) -> None:
    """Per method: rounds, gap to its own DAG's lower bound, and mean link utilization."""
    for col, pb in zip(st.columns(len(plays)), plays):
        s = pb.stats
        with col:
            st.markdown(f"##### {title(pb.method)}")
            a, b, c = st.columns(3)
            a.metric("Rounds", s["rounds"], help=f"{s['workloads']} workloads in its DAG")
            b.metric("Gap to own bound", f"{100 * s['gap']:.0f}%",
                     help=f"rounds / lower bound of this method's own workload DAG − 1; that bound is "
                          f"{s['lower_bound']} rounds (link load {s['bounds']['link_load']}, critical path "
                          f"{s['bounds']['critical_path']})")
            c.metric("Mean util.", f"{100 * s['mean_utilization']:.0f}%",
                     help="share of directed-link capacity used, averaged over links and rounds")
    if merged_bound is not None:
        st.caption(f"Lower bound of the merged workload DAG: **{merged_bound} rounds** — the common reference of "
                   "greedy, critical-path, optimal and RL. PS and Ring schedule other DAGs (plain trees, the ring), "
                   "each with its own bound.")


def round_player(key: str, source: Source, config: ScheduleConfig, plays: list[Playback], width: int = 1100,
                 show_workloads: bool = False) -> None:
    """Round controls (first / back / play-pause / step / slider) and, per method, the network and heatmap."""
    playing = bool(st.session_state.get(f"{key}:playing", False))
    body = st.fragment(run_every=PLAY_SECONDS if playing else None)(_player)
    body(key, source, config, tuple(plays), width, show_workloads)


def _set_round(round_key: str, value: int) -> None:
    st.session_state[round_key] = value


def _step(round_key: str, delta: int, last: int) -> None:
    st.session_state[round_key] = min(last, max(1, int(st.session_state.get(round_key, 1)) + delta))


def _player(key: str, source: Source, config: ScheduleConfig, plays: tuple[Playback, ...], width: int,
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
    controls = st.columns([1, 1, 1.2, 1, 6], vertical_alignment="bottom")
    controls[0].button("First", icon=":material/first_page:", key=f"{key}:first", on_click=_set_round,
                       args=(round_key, 1), help="first round", width="stretch")
    controls[1].button("Back", icon=":material/chevron_left:", key=f"{key}:back", on_click=_step,
                       args=(round_key, -1, last), help="previous round", width="stretch")
    icon = ":material/pause:" if playing else ":material/play_arrow:"
    if controls[2].button("Pause" if playing else "Play", icon=icon,
                          key=f"{key}:play", help="play the rounds one after another", width="stretch",
                          type="primary"):
        st.session_state[play_key] = not playing
        if not playing and r >= last:
            st.session_state[round_key] = 1
        st.rerun()
    controls[3].button("Next", icon=":material/chevron_right:", key=f"{key}:next", on_click=_step,
                       args=(round_key, 1, last), help="next round", width="stretch")
    controls[4].slider("Round", 1, max(2, last), key=round_key, label_visibility="collapsed",
                       disabled=last < 2)
    r = int(st.session_state[round_key])
    st.markdown(f"**Round {r} of {last}**")
    drawing = data.drawing(source)
    labels = data.link_labels(source)
    panels = []
    for col, pb in zip(st.columns(len(plays)), plays):
        view = pb.round(r - 1)
        with col:
            _caption(pb, view, r)
        hover = [f"{labels[link]}: {pb.dag.describe(w)}"
                 for link, w in zip(view.links.tolist(), view.workloads.tolist())]
        panels.append(figures.PlayerPanel(view.links, view.trees, hover, pb.n_rounds))
    base = data.player_base(source, tuple(pb.method for pb in plays), config, PLAYER_HEIGHT)
    st.plotly_chart(figures.player_figure(base, drawing, panels, r), config=CHART_CONFIG, key=f"{key}:figure",
                    theme=None, width=width)
    st.caption("Top: the network in this round; each busy directed link is drawn beside its cable with arrows "
               "in its direction, coloured by flow-tree. Bottom: utilization of every directed link (rows) in "
               "every round (columns), one colour scale; the red box marks this round.")
    if show_workloads:
        for col, pb in zip(st.columns(len(plays)), plays):
            with col:
                _workload_list(pb, r)


def _caption(pb: Playback, view: RoundView, r: int) -> None:
    """A method's name and what it sends in round r."""
    if r <= pb.n_rounds:
        st.markdown(f"**{title(pb.method)}**: round {r} of {pb.n_rounds}")
        st.caption(f"{view.n_workloads} workloads sent · {view.n_links_busy} of {pb.n_links} directed links busy")
    else:
        st.markdown(f"**{title(pb.method)}**: finished after {pb.n_rounds} rounds")
        st.caption("nothing left to send")


def _workload_list(pb: Playback, r: int) -> None:
    """The workloads a method sends in round r, with their paths."""
    if r > pb.n_rounds:
        return
    dag = pb.dag
    ids = sorted(set(pb.round(r - 1).workloads.tolist()))
    st.dataframe(pd.DataFrame({"workload": [dag.describe(w) for w in ids],
                               "path": ["→".join(dag.topology.labels[v] for v in dag.path.row(w)) for w in ids]}),
                 hide_index=True, width="stretch")


def downloads(source: Source, plays: list[Playback], config: ScheduleConfig) -> None:
    """Per method: the schedule (allreduce-schedule/1 JSON) and the heatmap data (CSV), made on click."""
    for col, pb in zip(st.columns(len(plays)), plays):
        stem = f"{source.name}-{pb.method}".replace(" ", "_").replace("/", "_").replace(":", "_")
        col.download_button("Schedule (JSON)", data=partial(data.schedule_json, source, pb.method, config),
                            file_name=f"{stem}.schedule.json", mime="application/json", key=f"dl-json-{pb.method}",
                            on_click="ignore", help="allreduce-schedule/1: topology, workloads, rounds, stats")
        col.download_button("Heatmap data (CSV)", data=partial(data.heatmap_csv, source, pb.method, config),
                            file_name=f"{stem}.utilization.csv", mime="text/csv", key=f"dl-csv-{pb.method}",
                            on_click="ignore", help="percent of capacity per directed link and round")
