"""The plotly builders: what each figure holds, from hand-made inputs and core schedules."""

from __future__ import annotations

import numpy as np
import pytest
from apptest_tools import decode

from core.methods import run_method
from core.schedule import ScheduleConfig
from core.topology import make_topology
from dashboard import figures
from dashboard.layout import positions
from dashboard.playback import build_playback


def drawing(spec: str = "bcube:n=3,k=1") -> tuple:
    t = make_topology(spec)
    pos = positions(t)
    return t, figures.NetDrawing(pos[:, 0], pos[:, 1], t.labels, t.is_server, t.edges, t.link_src, t.link_dst)


def by_name(fig, name):
    return [tr for tr in fig.data if tr.name == name]


def test_heatmap_is_links_by_rounds_on_a_fixed_scale_with_a_marker():
    util = np.arange(6 * 4, dtype=np.uint8).reshape(6, 4)
    fig = figures.heatmap_figure(util, [f"l{i}" for i in range(6)], current_round=3)
    (heat,) = fig.data
    assert np.asarray(heat.z).shape == (6, 4) and list(heat.x) == [1, 2, 3, 4]
    assert (heat.zmin, heat.zmax) == (0, 100)
    (marker,) = fig.layout.shapes
    assert (marker.x0, marker.x1) == (2.5, 3.5)
    assert figures.heatmap_figure(util, [f"l{i}" for i in range(6)], current_round=9).layout.shapes == ()


def test_network_draws_each_busy_link_once_in_its_tree_colour():
    t, d = drawing()
    links = np.array([0, 1, 1, 5])  # link 1 carries two workloads (capacity > 1): drawn once
    trees = np.array([2, 3, 4, 7])
    fig = figures.network_figure(d, links, trees, ["a", "b", "c", "d"])
    (chev,) = by_name(fig, "busy links")
    assert len(chev.x) == 3 * 3  # three distinct links, three chevrons each
    assert list(chev.marker.color[::3]) == [figures.tree_colour(2), figures.tree_colour(3), figures.tree_colour(7)]
    assert list(chev.hovertext[::3]) == ["a", "b", "d"]
    servers, switches = by_name(fig, "servers"), by_name(fig, "switches")
    assert servers[0].marker.symbol == "circle" and switches[0].marker.symbol == "square"
    assert len(servers[0].x) == t.n_servers and len(switches[0].x) == t.n_nodes - t.n_servers


def test_busy_links_are_offset_to_the_right_of_their_direction():
    t, d = drawing()
    e = 0
    fwd, back = figures.network_figure(d, [2 * e], [0]), figures.network_figure(d, [2 * e + 1], [0])
    a = np.array([by_name(fwd, "busy links")[0].x[1], by_name(fwd, "busy links")[0].y[1]])
    b = np.array([by_name(back, "busy links")[0].x[1], by_name(back, "busy links")[0].y[1]])
    assert np.linalg.norm(a - b) > 0  # the two directions of one cable do not overlap


def test_player_figure_has_one_network_and_one_heatmap_per_method():
    t, d = drawing()
    pbs = [build_playback(run_method(m, t, ScheduleConfig())) for m in ("ps", "critical-path")]
    labels = [t.link_label(i) for i in range(t.n_links)]
    base = figures.player_base(d, [pb.util_pct for pb in pbs], labels)
    panels = [figures.PlayerPanel(pb.round(4).links, pb.round(4).trees, [], pb.n_rounds) for pb in pbs]
    fig = figures.player_figure(base, d, panels, 5)
    heat = [tr for tr in fig.data if tr.type == "heatmap"]
    assert [decode(h.z).shape for h in heat] == [(t.n_links, pb.n_rounds) for pb in pbs]
    assert all((decode(h.z) == pb.util_pct).all() for h, pb in zip(heat, pbs))
    assert [h.xaxis for h in heat] == ["x3", "x4"]
    assert [(s.x0, s.xref) for s in fig.layout.shapes] == [(4.5, "x3"), (4.5, "x4")]
    chev = by_name(fig, "busy links")
    assert [tr.xaxis for tr in chev] == ["x", "x2"]
    assert base["data"] == figures.player_base(d, [pb.util_pct for pb in pbs], labels)["data"]  # base untouched


def test_workload_tree_draws_every_workload_as_its_own_arc():
    pos = {0: (0.0, 0.0), 1: (-1.0, -1.0), 2: (1.0, -1.0)}
    arcs = [figures.WorkloadArc(1, 0, 0, "own", False), figures.WorkloadArc(1, 0, 1, "relay", True),
            figures.WorkloadArc(2, 0, 2, "own", False)]
    fig = figures.workload_tree_figure(pos, ["r", "a", "b"], arcs, root=0)
    (labels,) = by_name(fig, "workloads")
    assert list(labels.text) == ["#0", "#1", "#2"]
    assert labels.x[0] != labels.x[1]  # parallel workloads on one tree edge are bent apart


def test_policy_figures_from_a_hand_made_trace():
    trace = {"tree_probs": [[0.9, 0.1, 0.5], [0.2, 0.8, 0.7]], "trees_selected": [[0, 2], [1]],
             "steps": [[{"candidates": [4, 7], "scores": [0.3, 0.6], "chosen": 7}], []]}
    fig = figures.tree_probs_figure(np.array(trace["tree_probs"]), trace["trees_selected"], ["A", "B", "C"], 2)
    heat, marks = fig.data
    assert np.asarray(heat.z).shape == (2, 3)
    assert list(marks.x) == ["A", "C", "B"] and list(marks.y) == [1, 1, 2]
    assert (fig.layout.shapes[0].y0, fig.layout.shapes[0].y1) == (1.5, 2.5)
    step = trace["steps"][0][0]
    bars = figures.bars_figure([f"#{w}" for w in step["candidates"]], step["scores"],
                               [w == step["chosen"] for w in step["candidates"]], marked=[True, False])
    assert list(bars.data[0].marker.color) == ["#9e9ac8", "#e4002b"]
    diff = figures.round_diff_figure([2, 0, 1], [1, 1], "rl", "critical-path", current_round=2)
    up, down = diff.data
    assert list(up.y) == [2, 0, 1] and list(down.y) == [-1, -1, 0]


def test_compare_and_spread_figures():
    fig = figures.compare_figure(["a", "b"], {"ps": [3.0, 4.0]}, {"ps": [2.5, None]})
    assert [tr.type for tr in fig.data] == ["bar", "scatter"]
    spread = figures.seed_spread_figure({"ps": [5, 6, 7], "critical-path": [4]})
    assert [list(tr.y) for tr in spread.data] == [[5, 6, 7], [4]]


@pytest.mark.parametrize("tree", [0, 47, 48, 100])
def test_tree_colours_cycle_through_the_palette(tree):
    assert figures.tree_colour(tree) == figures.PALETTE[tree % len(figures.PALETTE)]
