"""allreduce-lab dashboard: `streamlit run app.py`."""

from pathlib import Path

import streamlit as st

from dashboard.screens.cluster import render as cluster_screen

HERE = Path(__file__).resolve().parent
PAGES = HERE / "dashboard" / "pages"

st.set_page_config(page_title="allreduce-lab", page_icon=str(HERE / "dashboard" / "assets" / "favicon.png"),
                   layout="wide")  # a local favicon: nothing is fetched from the web
st.navigation([
    st.Page(PAGES / "topology.py", title="Topology & trees", icon=":material/hub:", default=True),
    st.Page(PAGES / "player.py", title="Schedule player", icon=":material/play_circle:"),
    st.Page(PAGES / "compare.py", title="Compare", icon=":material/bar_chart:"),
    st.Page(PAGES / "debugger.py", title="Policy debugger", icon=":material/bug_report:"),
    st.Page(PAGES / "merging.py", title="How merging works", icon=":material/school:"),
    st.Page(cluster_screen, title="Cluster", icon=":material/dns:", url_path="cluster"),
]).run()
