"""The floor under a first screen without plotly: floor_app.py's page (a root selector, two pictures, the "Merging
saves" caption) with the pictures as inline SVG (st.html) instead of plotly charts: Streamlit and nothing else.
`python benchmarks/bench_dashboard.py --floor benchmarks/floor_static_app.py` times it alternately with app.py."""

import streamlit as st

st.set_page_config(page_title="floor", layout="wide")


def _svg(n: int, key: str) -> str:
    """A tree-like SVG of n labelled circles and n-1 lines, about the size of a workload tree."""
    parts = [f'<svg data-picture="{key}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 600 400" width="100%">']
    for i in range(1, n):
        x, y, px, py = 30 + 35 * i % 560, 60 + 80 * (i % 4), 30 + 35 * (i // 2) % 560, 60 + 80 * ((i // 2) % 4)
        parts.append(f'<line x1="{x}" y1="{y}" x2="{px}" y2="{py}" stroke="#1f77b4"><title>s{i} to s{i // 2}</title>'
                     '</line>')
    for i in range(n):
        x, y = 30 + 35 * i % 560, 60 + 80 * (i % 4)
        parts.append(f'<circle cx="{x}" cy="{y}" r="9" fill="#1f77b4"/><text x="{x}" y="{y - 12}" '
                     f'text-anchor="middle" font-size="13">s{i}</text>')
    return "".join(parts) + "</svg>"


def render() -> None:
    """Title, a sidebar selectbox, the root selector, two SVG pictures and the last caption."""
    st.title("Topology & trees")
    st.sidebar.selectbox("Configuration", ["BCube(3,1)", "DCell(4,1)"])
    st.selectbox("Root (parameter server of the shard)", ["s0", "s1"])
    for col, key in zip(st.columns(2), ("wtree-unmerged", "wtree-merged")):  # the keys the benchmark waits for
        col.markdown(f"<div>\n{_svg(16, key)}\n</div>", unsafe_allow_html=True)  # as dashboard.charts.picture
    st.caption("Merging saves (a stand-in caption)")


st.navigation([st.Page(render, title="Topology & trees", url_path="topology", default=True)]).run()
