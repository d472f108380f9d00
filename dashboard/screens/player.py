"""Schedule player: up to three methods side by side on one axis (rounds or seconds); fail or slow a link and
watch each method re-plan."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from core.methods import METHODS

from .. import controls, data, labels, round_player, timeline
from ..sources import Timeline

KEY = "player"
MAX_METHODS = 3
"""Methods played side by side (three network panels fit a 1280-px window beside the sidebar)."""


def render() -> None:
    """The Schedule player screen."""
    st.title("Schedule player")
    st.caption("Each round sends a set of workloads that share no directed link. Step or play the rounds — or, on "
               "the seconds axis, intervals of time; each heatmap marks the current column, and all methods share "
               "one axis.")
    source = controls.topology_picker()
    methods_box = st.sidebar.container()  # the methods are listed above the options they depend on
    config = controls.schedule_options(KEY)
    rl_ok = "rl" in METHODS and data.method_problem("rl", config) is None
    methods = controls.methods_picker(f"{KEY}.methods", ["ps", "ring", "rl" if rl_ok else "critical-path"],
                                      limit=MAX_METHODS, label=f"Methods (up to {MAX_METHODS})", where=methods_box,
                                      why=f"At most {MAX_METHODS}: each method gets a network panel and a heatmap "
                                          "side by side, and at 1280 px a fourth panel would be too narrow to read. "
                                          "Compare takes every method.")
    if not controls.can_schedule(methods, source):
        return
    choice = timeline.controls(KEY, source)
    config = replace(config, size=choice.size)  # the time-aware method plans for this size
    line = Timeline(choice.mode, choice.event)
    plays = round_player.load(source, methods, config, line)
    if not plays:
        st.info("None of the chosen methods could schedule this topology; pick another method (sidebar).")
        return
    if choice.seconds:
        line, plays = round_player.on_time_axis(source, config, plays, line)
    if choice.event is not None:
        st.markdown(f"**{choice.what[0].upper() + choice.what[1:]}**: each method re-plans what is left "
                    f"({choice.mode} replay, {labels.size(config.size)}).")
    if hint := controls.routing_hint(source, config, "Scheduling options → Routing, in the sidebar"):
        st.info(labels.plain(hint), icon=":material/alt_route:")
    round_player.summary(plays, source, config, data.merged_bound(source, config), line)
    view = round_player.show(KEY, source, config, plays, timeline=line, what=choice.what)
    with st.expander("Downloads: schedules, heatmap data, an animation for slides"):
        round_player.downloads(KEY, source, plays, config, view)
