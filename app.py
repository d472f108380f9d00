"""allreduce-lab dashboard: `streamlit run app.py`.

Each screen is one module of dashboard/screens with a `render()` function; adding a screen is
that file plus one `st.Page` line below (docs/dashboard.md).
"""

from pathlib import Path

import streamlit as st

from dashboard import charts
from dashboard.screens import cluster, compare, debugger, merging, player, topology

HERE = Path(__file__).resolve().parent

st.set_page_config(page_title="allreduce-lab", page_icon=str(HERE / "dashboard" / "assets" / "favicon.png"),
                   layout="wide")  # a local favicon: nothing is fetched from the web
page = st.navigation([
    st.Page(topology.render, title="Topology & trees", icon=":material/hub:", url_path="topology", default=True),
    st.Page(player.render, title="Schedule player", icon=":material/play_circle:", url_path="player"),
    st.Page(compare.render, title="Compare", icon=":material/bar_chart:", url_path="compare"),
    st.Page(debugger.render, title="Policy debugger", icon=":material/bug_report:", url_path="debugger"),
    st.Page(merging.render, title="How merging works", icon=":material/school:", url_path="merging"),
    st.Page(cluster.render, title="Cluster", icon=":material/dns:", url_path="cluster"),
])
charts.preload()  # the browser starts loading plotly.js while the screen computes
page.run()
charts.export_setting()  # drawn after the screen, at the bottom of the sidebar; charts read it from the session
