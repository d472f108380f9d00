"""The floor under bench_dashboard.py's first-screen time: a minimal Streamlit page with what its check waits for
(a root selector, two tiny plotly charts, the "Merging saves" caption) and app.py's plotly preload, but no core,
numpy, scipy or numba. `python benchmarks/bench_dashboard.py` times it alternately with app.py (same load);
the gap between the two is what the dashboard's own work costs."""

import plotly.graph_objects as go
import streamlit as st

st.set_page_config(page_title="floor", layout="wide")
st.plotly_chart(go.Figure(layout={"height": 10, "meta": "blank", "margin": {"l": 0, "r": 0, "t": 0, "b": 0},
                                  "xaxis": {"visible": False}, "yaxis": {"visible": False}}),
                config={"staticPlot": True, "displayModeBar": False}, theme=None, height=1, key="plotly-preload")


def render() -> None:
    """Title, a sidebar selectbox, the root selector, two one-trace charts and the last caption."""
    st.title("Topology & trees")
    st.sidebar.selectbox("Configuration", ["BCube(3,1)", "DCell(4,1)"])
    st.selectbox("Root (parameter server of the shard)", ["s0", "s1"])
    for col, key in zip(st.columns(2), ("wtree-unmerged", "wtree-merged")):  # the keys the benchmark waits for
        col.plotly_chart(go.Figure(go.Scatter(x=[0, 1], y=[0, 1], mode="markers+text", text=["s0", "s1"]),
                                   layout={"meta": key}), key=key)
    st.caption("Merging saves (a stand-in caption)")


st.navigation([st.Page(render, title="Topology & trees", url_path="topology", default=True)]).run()
