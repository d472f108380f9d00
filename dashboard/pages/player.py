"""Schedule player: up to three methods side by side, round by round."""

import streamlit as st

from dashboard import controls, data
from dashboard.views import player

st.title("Schedule player")
st.caption("Each round sends a set of workloads that share no directed link. Step or play the rounds; "
           "busy links are coloured by flow-tree, and each heatmap marks the current round.")
player.preload_plotly()
source = controls.topology_picker()
methods_box = st.sidebar.container()  # the methods are listed above the options they depend on
config = controls.schedule_options("player")
width = controls.player_width("player")
default_methods = ["ps", "ring", "rl" if data.method_problem("rl", config) is None else "critical-path"]
methods = controls.methods_picker("player.methods", default_methods, limit=3, where=methods_box)

plays = player.load(source, methods, config)
if not plays:
    st.info("Pick at least one method that can schedule this topology (sidebar).")
else:
    player.summary(plays, data.merged_bound(source, config))
    player.round_player("player", source, config, plays, width)
    with st.expander("Downloads"):
        player.downloads(source, plays, config)
