"""allreduce-lab dashboard: `streamlit run app.py`.

Each screen is one module of dashboard/screens with a `render()` function; adding a screen is
that file plus one `st.Page` line below (docs/dashboard.md).

Order matters for the first screen: the invisible plotly chart goes out before anything heavy is
imported, so the browser loads and compiles plotly.js while the server imports core and the screen
(only the screen shown is imported, when it runs).
"""

from importlib import import_module
from pathlib import Path

import plotly.graph_objects as go
import streamlit as st

from core.jit import COLD_NOTE, kernels_cached

HERE = Path(__file__).resolve().parent

st.set_page_config(page_title="allreduce-lab", layout="wide")
# The browser starts loading plotly.js now: a blank 1-px chart, marked meta="blank" (plotly is loaded with streamlit).
st.plotly_chart(go.Figure(layout={"height": 10, "meta": "blank", "margin": {"l": 0, "r": 0, "t": 0, "b": 0},
                                  "xaxis": {"visible": False}, "yaxis": {"visible": False}}),
                config={"staticPlot": True, "displayModeBar": False}, theme=None, height=1, key="plotly-preload")
# The favicon after the preload (set_page_config calls add up): reading an image file imports numpy, ~0.2 s that
# would hold the preload back. A local file: nothing is fetched from the web.
st.set_page_config(page_icon=str(HERE / "dashboard" / "assets" / "favicon.png"))


def screen(name: str):
    """The `render` of dashboard/screens/<name>.py, imported when the screen first runs."""
    def render() -> None:
        import_module(f"dashboard.screens.{name}").render()
    render.__name__ = render.__qualname__ = name
    return render


page = st.navigation([
    st.Page(screen("topology"), title="Topology & trees", icon=":material/hub:", url_path="topology", default=True),
    st.Page(screen("player"), title="Schedule player", icon=":material/play_circle:", url_path="player"),
    st.Page(screen("compare"), title="Compare", icon=":material/bar_chart:", url_path="compare"),
    st.Page(screen("debugger"), title="Policy debugger", icon=":material/bug_report:", url_path="debugger"),
    st.Page(screen("merging"), title="How merging works", icon=":material/school:", url_path="merging"),
    st.Page(screen("cluster"), title="Cluster", icon=":material/dns:", url_path="cluster"),
])
if kernels_cached():
    page.run()
else:  # a fresh checkout: a page that runs a kernel compiles it once (the first screen needs none); say so
    with st.spinner(COLD_NOTE[0].upper() + COLD_NOTE[1:] + " …"):
        page.run()

from dashboard.charts import export_setting  # noqa: E402 - the screen has imported it by now

export_setting()  # drawn after the screen, at the bottom of the sidebar
