"""dashboard.svg: plotly figures drawn as static SVG, checked on hand-made figures with known pixel positions."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import plotly.graph_objects as go
from apptest_tools import SVG_NS, svg_texts

from dashboard import figures
from dashboard.svg import decode, figure_svg


def parse(fig, name: str = "pic", width: int = 440) -> ET.Element:
    return ET.fromstring(figure_svg(fig, name, width))


def centres(svg: ET.Element) -> list[tuple[float, float]]:
    return [(float(c.get("cx")), float(c.get("cy"))) for c in svg.iter(f"{SVG_NS}circle")]


def test_equal_axes_keep_the_aspect_and_up_is_up():
    fig = go.Figure(go.Scatter(x=[0, 2, 0], y=[0, 0, 1], mode="markers", marker=dict(size=10)))
    fig.update_layout(height=300, margin=dict(l=0, r=0, t=0, b=0))
    fig.update_yaxes(scaleanchor="x")
    (ax, ay), (bx, by), (cx, cy) = centres(parse(fig))
    assert by == ay and cx == ax and cy < ay  # y grows upwards on screen
    assert abs((bx - ax) / (ay - cy) - 2.0) < 1e-2  # one scale for both axes
    fig.update_yaxes(scaleanchor=None)  # free axes: the drawing fills the plot both ways
    (ax, ay), (bx, by), (cx, cy) = centres(parse(fig))
    assert abs((bx - ax) / (ay - cy) - 2.0) > 0.1


def test_lines_break_at_gaps_and_keep_plotlys_dash_patterns():
    fig = go.Figure([go.Scatter(x=[0, 1, None, 2, 3], y=[0, 1, None, 0, 1], mode="lines", line=dict(width=2)),
                     go.Scatter(x=[0, 3], y=[1, 0], mode="lines", line=dict(dash="dot", width=1.5, color="#d0d0d0")),
                     go.Scatter(x=[0, 3], y=[0, 0], mode="lines", line=dict(dash="dash", width=4))])
    paths = list(parse(fig).iter(f"{SVG_NS}path"))
    assert paths[0].get("d").count("M") == 2 and paths[0].get("stroke-dasharray") is None
    assert paths[1].get("stroke-dasharray") == "3,3" and paths[1].get("stroke") == "#d0d0d0"
    assert paths[2].get("stroke-dasharray") == "12,12"


def test_markers_take_per_point_colours_symbols_angles_and_hover_tooltips():
    fig = go.Figure([
        go.Scatter(x=[0, 1], y=[0, 0], mode="markers", marker=dict(symbol="square", size=10, color=["#111", "#222"]),
                   hovertext=["a & b", "c"], hoverinfo="text"),
        go.Scatter(x=np.array([0.5]), y=np.array([1.0]), mode="markers", hoverinfo="skip", hovertext=["hidden"],
                   marker=dict(symbol="arrow", size=12, angle=np.array([90.0]), color="#2ca02c"))])
    svg = parse(fig)
    rects = [r for r in svg.iter(f"{SVG_NS}rect")][1:]  # after the background
    assert [r.get("fill") for r in rects] == ["#111", "#222"] and float(rects[0].get("width")) == 10
    assert [r.find(f"{SVG_NS}title").text for r in rects] == ["a & b", "c"]
    (arrow,) = [p for p in svg.iter(f"{SVG_NS}path") if p.get("transform")]
    assert re.search(r"rotate\(90\.0\)$", arrow.get("transform")) and arrow.find(f"{SVG_NS}title") is None


def test_text_title_and_a_wrapped_legend_below_the_plot():
    fig = figures.network_figure(
        figures.NetDrawing(x=np.array([0.0, 1.0]), y=np.array([0.0, 0.0]), labels=("s<0>", "sw0"),
                           is_server=np.array([True, False]), edges=np.array([[0, 1]]), link_src=np.array([0, 1]),
                           link_dst=np.array([1, 0])),
        title="Two nodes", height=300, legend=[("server (computes, merges)", "#1f77b4", "circle"),
                                               ("switch (only forwards)", "#ff7f0e", "square"),
                                               ("a very long legend entry that needs a row of its own", "#444", "line")])
    svg = parse(fig, width=400)
    words = svg_texts(svg)
    assert {"s<0>", "sw0", "Two nodes", "server (computes, merges)"} <= set(words)  # escaped and read back
    y = {t.text: float(t.get("y")) for t in svg.iter(f"{SVG_NS}text")}
    long = "a very long legend entry that needs a row of its own"
    assert y[long] > y["switch (only forwards)"] >= y["server (computes, merges)"]  # 400 px: the long one wraps
    assert y["server (computes, merges)"] > max(float(c.get("cy")) for c in svg.iter(f"{SVG_NS}circle"))  # below
    assert svg.get("viewBox") == "0 0 400 300" and svg.get("data-picture") == "pic"


def test_decode_reads_plotlys_typed_arrays():
    spec = go.Figure(go.Scatter(x=np.arange(3.0), y=np.array([[1, 2], [3, 4]]).ravel()[:3])).to_dict()
    got = decode(spec)["data"][0]
    assert isinstance(spec["data"][0]["x"], dict) and np.array_equal(got["x"], [0.0, 1.0, 2.0])
    assert np.array_equal(got["y"], [1, 2, 3])
