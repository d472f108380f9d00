"""allreduce-lab dashboard: `streamlit run app.py`.

Each screen is one module of dashboard/screens with a `render()` function; adding a screen is
that file plus one `st.Page` line below (docs/dashboard.md).

Order matters: on a screen with plotly charts an invisible one goes out before anything heavy is
imported, so the browser loads and compiles plotly.js while the server imports core and the screen
(only the screen shown is imported, when it runs). The first screen draws static SVG by default and
needs no plotly.js (docs/dashboard.md, Speed).
"""

from importlib import import_module
from pathlib import Path

import plotly.graph_objects as go
import streamlit as st

from core.jit import COLD_NOTE, kernels_cached
from dashboard.threadsafe import guard_plotly

HERE = Path(__file__).resolve().parent

st.set_page_config(page_title="allreduce-lab", layout="wide")
guard_plotly()  # plotly's look-up of pandas waits for another session's import of it (dashboard/threadsafe.py)


def screen(name: str):
    """The `render` of dashboard/screens/<name>.py, imported when the screen first runs."""
    def render() -> None:
        import_module(f"dashboard.screens.{name}").render()
    render.__name__ = render.__qualname__ = name
    return render


# The favicon before st.navigation, which would otherwise show the first page's material icon, fetched from the
# web. A local file: nothing is fetched. (Reading it imports numpy, ~0.15 s before the preload below.)
st.set_page_config(page_icon=str(HERE / "dashboard" / "assets" / "favicon.png"))
# The default page is served at "/", not at its url_path; "home" only has to be unique. /topology, the screen's
# own name, is a hidden page that sends the browser to "/" (below, before anything is drawn).
home = st.Page(screen("topology"), title="Topology & trees", icon=":material/hub:", url_path="home", default=True)
to_home = st.Page(screen("topology"), title="Topology & trees", url_path="topology", visibility="hidden")
page = st.navigation([
    home,
    st.Page(screen("player"), title="Schedule player", icon=":material/play_circle:", url_path="player"),
    st.Page(screen("compare"), title="Compare", icon=":material/bar_chart:", url_path="compare"),
    st.Page(screen("debugger"), title="Policy debugger", icon=":material/bug_report:", url_path="debugger"),
    st.Page(screen("merging"), title="How merging works", icon=":material/school:", url_path="merging"),
    st.Page(screen("cluster"), title="Cluster", icon=":material/dns:", url_path="cluster"),
    to_home,
])
if page is to_home:
    st.switch_page(home)  # a rerun on "/": the sidebar marks the screen, the address bar reads "/"
# The browser starts loading plotly.js now: a blank 1-px chart, marked meta="blank" (plotly is loaded with streamlit).
# Not on the first screen drawn static (topology.DRAWING_KEY unset or "static"): it shows no plotly chart.
if page.url_path or st.session_state.get("keep:topology:drawing") == "interactive":
    st.plotly_chart(go.Figure(layout={"height": 10, "meta": "blank", "margin": {"l": 0, "r": 0, "t": 0, "b": 0},
                                      "xaxis": {"visible": False}, "yaxis": {"visible": False}}),
                    config={"staticPlot": True, "displayModeBar": False}, theme=None, height=1, key="plotly-preload")

if kernels_cached():
    page.run()
else:  # a fresh checkout: a page that runs a kernel compiles it once (the first screen needs none); say so
    with st.spinner(COLD_NOTE[0].upper() + COLD_NOTE[1:] + " …"):
        page.run()

from dashboard.charts import export_setting  # noqa: E402 - the screen has imported it by now

export_setting()  # drawn after the screen, at the bottom of the sidebar
