"""Schedule player: up to three methods side by side, round by round, on one round axis."""

from __future__ import annotations

import streamlit as st

from core.methods import METHODS

from .. import controls, data, round_player

KEY = "player"


def render() -> None:
    """The Schedule player screen."""
    st.title("Schedule player")
    st.caption("Each round sends a set of workloads that share no directed link. Step or play the rounds; each "
               "heatmap marks the current round, and all methods share one round axis.")
    source = controls.topology_picker()
    methods_box = st.sidebar.container()  # the methods are listed above the options they depend on
    config = controls.schedule_options(KEY)
    rl_ok = "rl" in METHODS and data.method_problem("rl", config) is None
    methods = controls.methods_picker(f"{KEY}.methods", ["ps", "ring", "rl" if rl_ok else "critical-path"], limit=3,
                                      where=methods_box)
    if not controls.can_schedule(methods, source):
        return
    plays = round_player.load(source, methods, config)
    if not plays:
        st.info("None of the chosen methods could schedule this topology; pick another method (sidebar).")
        return
    round_player.summary(plays, source, config, data.merged_bound(source, config))
    view = round_player.show(KEY, source, config, plays)
    with st.expander("Downloads: schedules, heatmap data, an animation for slides"):
        round_player.downloads(KEY, source, plays, config, view)
