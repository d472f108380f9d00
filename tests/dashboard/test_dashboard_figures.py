"""The plotly builders: what each figure holds, from hand-made inputs and core schedules."""

from __future__ import annotations

import numpy as np
import pytest
import plotly.graph_objects as go
from apptest_tools import decode

from core.methods import run_method
from core.schedule import ScheduleConfig
from core.topology import make_topology
from dashboard import figures
from dashboard.playback import build_playback
from dashboard.positions import positions


def drawing(spec: str = "bcube:n=3,k=1") -> tuple:
    t = make_topology(spec)
    pos = positions(t)
    return t, figures.NetDrawing(pos[:, 0], pos[:, 1], t.labels, t.is_server, t.edges, t.link_src, t.link_dst)


def by_name(fig, name):
    return [tr for tr in fig.data if tr.name == name]


def test_heatmap_is_rows_by_rounds_on_a_fixed_scale_with_a_marker():
    util = np.arange(6 * 4, dtype=np.uint8).reshape(6, 4)
    fig = figures.heatmap_figure(util, [f"l{i}" for i in range(6)], current_round=3)
    (heat,) = fig.data
    assert np.asarray(heat.z).shape == (6, 4) and list(heat.x) == [0.5, 1.5, 2.5, 3.5, 4.5]  # column edges
    assert (heat.zmin, heat.zmax) == (figures.UTIL_CMIN, 100)
    (marker,) = fig.layout.shapes
    assert (marker.x0, marker.x1) == (2.5, 3.5)
    assert figures.heatmap_figure(util, [f"l{i}" for i in range(6)], current_round=9).layout.shapes == ()


def test_a_time_axis_only_needs_other_column_edges():
    util = np.full((2, 3), 50, dtype=np.uint8)
    seconds = np.array([0.0, 1.5, 2.0, 4.0])  # rounds of 1.5 s, 0.5 s and 2 s
    fig = figures.heatmap_figure(util, ["a", "b"], current_round=3, edges=seconds)
    assert list(fig.data[0].x) == seconds.tolist()
    assert (fig.layout.shapes[0].x0, fig.layout.shapes[0].x1) == (2.0, 4.0)


def test_network_draws_each_busy_link_once_in_its_colour():
    t, d = drawing()
    links = np.array([0, 1, 1, 5])  # link 1 carries two workloads (capacity > 1): drawn once
    colours = ["red", "green", "blue", "black"]
    fig = go.Figure(figures.network_figure(d, links, colours, ["a", "b", "c", "d"]))
    (chev,) = by_name(fig, "busy links")
    assert len(chev.x) == 3 * 3  # three distinct links, three chevrons each
    assert list(chev.marker.color[::3]) == ["red", "green", "black"]
    assert list(chev.hovertext[::3]) == ["a", "b", "d"]
    servers, switches = by_name(fig, "servers"), by_name(fig, "switches")
    assert servers[0].marker.symbol == "circle" and switches[0].marker.symbol == "square"
    assert len(servers[0].x) == t.n_servers and len(switches[0].x) == t.n_nodes - t.n_servers


def test_node_link_pictures_are_plain_dicts_that_plotly_accepts():
    """The first screen's pictures are built without plotly objects (their first construction costs ~0.1 s of
    validator set-up) and stay valid plotly: go.Figure validates every property and raises on a wrong one."""
    t, d = drawing()
    legend = [("server", figures.SERVER_COLOUR, "circle"), ("pruned", "#bdbdbd", "dot", 1.5)]
    arcs = [figures.WorkloadArc(1, 0, 0, "a to r", False), figures.WorkloadArc(2, 1, 1, "b to a", True)]
    pos = {0: (0.0, 1.0), 1: (0.0, 0.0), 2: (1.0, -1.0)}
    for fig in (figures.network_figure(d, [0, 3], ["red", "blue"], ["a", "b"], faded_edges=[1], root=0, title="T",
                                       legend=legend),
                figures.workload_tree_figure(pos, ["r", "a", "b"], arcs, root=0, title="W")):
        assert type(fig) is dict and all(type(tr) is dict for tr in fig["data"]), [type(tr) for tr in fig["data"]]
        assert not any(v is None for tr in fig["data"] for v in tr.values())  # unset, as plotly leaves it out
        checked = go.Figure(fig)
        assert len(checked.data) == len(fig["data"]) and checked.layout.height == fig["layout"]["height"]


def test_busy_colours_follow_the_tree_or_the_phase():
    trees, phases = np.array([0, 3, 3]), np.array([0, 0, 1])
    assert figures.busy_colours(trees, phases, by_tree=True) == [figures.tree_colour(0)] + [figures.tree_colour(3)] * 2
    assert figures.busy_colours(trees, phases, by_tree=False) == ([figures.PHASE_COLOURS[0]] * 2
                                                                  + [figures.PHASE_COLOURS[1]])


def test_busy_links_are_offset_to_the_right_of_their_direction():
    t, d = drawing()
    e = 0
    fwd, back = (go.Figure(figures.network_figure(d, [2 * e], ["black"])),
                 go.Figure(figures.network_figure(d, [2 * e + 1], ["black"])))
    a = np.array([by_name(fwd, "busy links")[0].x[1], by_name(fwd, "busy links")[0].y[1]])
    b = np.array([by_name(back, "busy links")[0].x[1], by_name(back, "busy links")[0].y[1]])
    assert np.linalg.norm(a - b) > 0  # the two directions of one cable do not overlap


def player_parts(spec="bcube:n=3,k=1", methods=("ps", "critical-path")):
    t, d = drawing(spec)
    pbs = [build_playback(run_method(m, t, ScheduleConfig())) for m in methods]
    labels = [t.link_label(i) for i in range(t.n_links)]
    edges = figures.round_edges(max(pb.n_rounds for pb in pbs))
    heats = [figures.HeatRows(m, pb.util_pct, labels) for m, pb in zip(methods, pbs)]
    return t, d, pbs, edges, heats


def test_player_figure_stacks_one_heatmap_per_method_on_one_round_axis():
    t, d, pbs, edges, heats = player_parts()
    legend = [("server", "blue", "circle")]
    base = figures.player_base(d, heats, edges, legend=legend)
    panels = [figures.PlayerPanel(pb.round(4).links, ["black"] * len(pb.round(4).links), [], pb.n_rounds) for pb in pbs]
    fig = figures.player_figure(base, d, panels, 5, edges)
    heat = [tr for tr in fig["data"] if tr["type"] == "heatmap"]
    assert [np.asarray(decode(h["z"])).shape for h in heat] == [(t.n_links, pb.n_rounds) for pb in pbs]
    assert [h["xaxis"] for h in heat] == ["x3", "x4"]
    lay = fig["layout"]
    last = max(pb.n_rounds for pb in pbs)
    assert list(lay["xaxis3"]["range"]) == list(lay["xaxis4"]["range"]) == [0.5, last + 0.5]  # one round axis...
    assert lay["xaxis4"]["matches"] == "x3"  # ...zoomed together
    assert lay["yaxis3"]["domain"][0] > lay["yaxis4"]["domain"][1]  # stacked: columns line up in time
    assert [(s["x0"], s["xref"]) for s in lay["shapes"]] == [(4.5, "x3"), (4.5, "x4")]
    chev = [tr for tr in fig["data"] if tr.get("name") == "busy links"]
    assert [tr["xaxis"] for tr in chev] == ["x", "x2"]
    assert [tr["name"] for tr in fig["data"] if tr.get("showlegend")] == ["server"]
    assert base["data"] == figures.player_base(d, heats, edges, legend=legend)["data"]  # base untouched


def test_player_panels_draw_a_small_network_at_panel_size_not_teaching_size():
    """Up to 12 nodes a network drawn on its own is teaching-sized (40-px servers, 22-px arrows); in the player's
    ~260-px panels that made overlapping blobs (a new-user trial's uploaded 10-node file), so panels use the
    normal sizes."""
    t, d, pbs, edges, heats = player_parts("example:fig3")
    assert len(d.labels) <= 12
    alone = figures.network_figure(d, [0], ["black"])
    assert max(tr["marker"]["size"] for tr in alone["data"] if tr.get("name") == "servers") == 40
    base = figures.player_base(d, heats, edges)
    panels = [figures.PlayerPanel(pb.round(1).links, ["black"] * len(pb.round(1).links), [], pb.n_rounds) for pb in pbs]
    fig = figures.player_figure(base, d, panels, 1, edges)
    servers = [tr for tr in fig["data"] if tr.get("name") == "servers"]
    chevrons = [tr for tr in fig["data"] if tr.get("name") == "busy links"]
    assert servers and all(tr["marker"]["size"] == 14 for tr in servers)
    assert chevrons and all(tr["marker"]["size"] == 11 for tr in chevrons)


def test_player_switch_names_are_drawn_above_the_busy_links_arrows():
    """At 1280 px the arrows of the busy links that meet at a BCube level-0 switch (from its servers below) covered
    its name, drawn as the switch trace's text under the square and below every later trace. The names are now
    annotations, which plotly draws above every trace, on an opaque box, one per switch in every panel (and so are
    the servers' names)."""
    t, d, pbs, edges, heats = player_parts()
    base = figures.player_base(d, heats, edges)
    panels = [figures.PlayerPanel(pb.round(0).links, ["black"] * len(pb.round(0).links), [], pb.n_rounds) for pb in pbs]
    fig = figures.player_figure(base, d, panels, 1, edges)
    switches = [tr for tr in fig["data"] if tr.get("name") == "switches"]
    servers = [tr for tr in fig["data"] if tr.get("name") == "servers"]
    assert len(switches) == len(pbs) and all("text" not in tr.get("mode", "") for tr in switches + servers)
    names = [a for a in fig["layout"]["annotations"] if a.get("name") == "switch label"]
    level0 = {t.labels[v] for v in t.switches.tolist() if t.labels[v].startswith("sw0.")}
    assert len(level0) == 3
    for i, (xref, yref) in enumerate((("x", "y"), ("x2", "y2"))):
        mine = [a for a in names if (a["xref"], a["yref"]) == (xref, yref)]
        assert sorted(a["text"] for a in mine) == sorted(t.labels[v] for v in t.switches.tolist())
        for a in mine:
            v = t.labels.index(a["text"])
            assert (a["x"], a["y"]) == (d.x[v], d.y[v]) and a["yanchor"] == "middle"  # placed by its shifts
            assert a["bgcolor"].startswith("rgba(255,255,255,") and float(a["bgcolor"][17:-1]) >= 0.8
    busy = set(pbs[0].round(0).links.tolist())  # round 1 of PS: arrows do meet at the level-0 switches
    assert any(t.labels[int(t.link_dst[link])] in level0 for link in busy)


def test_player_group_view_draws_bars_per_link_group_instead_of_the_network():
    t, d, pbs, edges, heats = player_parts("dcell:n=4,k=1")
    names = ["cell 0", "cell 1", "level-1 links"]
    base = figures.player_base(None, heats, edges, group_names=names)
    panels = [figures.PlayerPanel(np.zeros(0, np.int64), [], [], pb.n_rounds, group_util=np.array([10.0, 0.0, 50.0]))
              for pb in pbs]
    fig = figures.player_figure(base, None, panels, 2, edges, names)
    bars = [tr for tr in fig["data"] if tr["type"] == "bar"]
    assert [list(b["y"]) for b in bars] == [names, names] and list(bars[0]["x"]) == [10.0, 0.0, 50.0]
    assert not [tr for tr in fig["data"] if tr.get("name") in ("servers", "busy links")]


def test_animation_has_a_frame_per_round_and_is_one_offline_html_file():
    t, d, pbs, edges, heats = player_parts("example:fig3")
    base = figures.player_base(d, heats, edges)
    rounds = [[figures.PlayerPanel(pb.round(r).links, ["black"] * len(pb.round(r).links), [], pb.n_rounds) for pb in pbs]
              for r in range(len(edges) - 1)]
    fig = figures.player_animation(base, d, rounds, edges)
    assert len(fig.frames) == len(edges) - 1
    assert [f.layout.shapes[0].x0 for f in fig.frames] == edges[:-1].tolist()
    busy = len(np.unique(pbs[1].round(2).links))
    assert len(fig.frames[2].data[3].x) == 3 * busy  # critical-path's chevrons in round 3
    html = fig.to_html(include_plotlyjs=True, full_html=True)
    assert "<script src=" not in html and len(html) > 3_000_000  # plotly.js is inside the file


def test_workload_tree_draws_every_workload_as_its_own_arc_with_an_arrow():
    pos = {0: (0.0, 0.0), 1: (-1.0, -1.0), 2: (1.0, -1.0)}
    arcs = [figures.WorkloadArc(1, 0, 0, "own", False), figures.WorkloadArc(1, 0, 1, "relay", True),
            figures.WorkloadArc(2, 0, 2, "own", False)]
    fig = go.Figure(figures.workload_tree_figure(pos, ["r", "a", "b"], arcs, root=0))
    (labels,) = by_name(fig, "workloads")
    assert list(labels.text) == ["#0", "#1", "#2"]
    assert labels.x[0] != labels.x[1]  # parallel workloads on one tree edge are bent apart
    heads = by_name(fig, "direction")
    assert sorted(len(h.x) for h in heads) == [1, 2]  # one arrowhead per workload
    assert all(y < 0 for h in heads for y in h.y)  # toward the root, near its end
    legend = [tr.name for tr in fig.data if tr.showlegend is not False]
    assert legend == ["solid: carries the sender's own piece", "dashed: relays another server's piece"]


def test_a_big_workload_tree_is_one_line_per_tree_edge_with_its_count():
    pos = {0: (0.0, 0.0), 1: (-1.0, -1.0), 2: (1.0, -1.0)}
    arcs = [figures.WorkloadArc(1, 0, w, "x", w % 2 == 1) for w in range(figures.ARCS_DRAWN)]
    arcs.append(figures.WorkloadArc(2, 0, 99, "y", False))
    fig = go.Figure(figures.workload_tree_figure(pos, ["r", "a", "b"], arcs, root=0))
    (labels,) = by_name(fig, "workloads")
    assert list(labels.text) == [str(figures.ARCS_DRAWN), "1"]
    assert f"{figures.ARCS_DRAWN // 2} own, {figures.ARCS_DRAWN // 2} relayed" in labels.hovertext[0]


def test_policy_figures_from_a_hand_made_trace():
    trace = {"tree_probs": [[0.9, 0.1, 0.5], [0.2, 0.8, 0.7]], "trees_selected": [[0, 2], [1]],
             "steps": [[{"candidates": [4, 7], "scores": [0.3, 0.6], "chosen": 7}], []]}
    fig = figures.tree_probs_figure(np.array(trace["tree_probs"]), trace["trees_selected"], ["A", "B", "C"], 2)
    heat, marks = fig.data
    assert np.asarray(heat.z).shape == (2, 3)
    assert list(marks.x) == ["A", "C", "B"] and list(marks.y) == [1, 1, 2]
    assert (fig.layout.shapes[0].y0, fig.layout.shapes[0].y1) == (1.5, 2.5)
    assert tuple(fig.layout.yaxis.range) == (2.5, 0.5)  # rounds 1-2, first on top, no "0" tick (trial 26)
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
    assert list(fig.layout.xaxis.ticktext) == ["a", "b"] and list(fig.layout.xaxis.tickvals) == [0, 1]
    spread = figures.seed_spread_figure({"ps": [5, 6, 7], "critical-path": [4]})
    assert [list(tr.y) for tr in spread.data] == [[5, 6, 7], [4]]



def test_each_paper_diamond_sits_over_its_own_methods_bar():
    """With grouped bars plotly placed the bars side by side but every diamond at the group's middle, over the
    wrong bar (or between two): a diamond's x is now its own bar's centre, and no other bar's."""
    fig = figures.compare_figure(["a", "b", "c"], {"ps": [3, 4, 5], "ring": [6, 7, 8], "critical-path": [2, 3, 4]},
                                 {"ring": [6.5, None, 8], "ps": [2.5, 3, None], "rl": [1, 2, 3]})
    bars = {t.meta: t for t in fig.data if t.type == "bar"}
    diamonds = {t.meta: t for t in fig.data if t.type == "scatter"}
    for m in ("ps", "ring"):
        assert list(diamonds[m].x) == list(bars[m].x)
        for other in set(bars) - {m}:
            assert not set(diamonds[m].x) & set(bars[other].x)
    assert not set(diamonds["rl"].x) & {x for t in bars.values() for x in t.x}  # rl not run: a slot of its own
    first = sorted([bars[m].x[0] for m in bars] + [diamonds["rl"].x[0]])  # the four slots of configuration "a"
    width = bars["ps"].width
    assert all(b.width == width for b in bars.values()) and 4 * width == pytest.approx(0.8)
    assert np.diff(first) == pytest.approx([width] * 3) and np.mean(first) == pytest.approx(0)  # centred on "a"
    assert fig.layout.barmode == "overlay"  # the positions are the figure's, plotly does not shift the bars


def test_tree_colours_are_distinct_then_cycle():
    n = len(set(figures.PALETTE))
    assert n >= 40
    assert len({figures.tree_colour(t) for t in range(n)}) == n  # the first n trees all differ
    assert figures.tree_colour(0) == "#2E91E5" and figures.tree_colour(1) == "#E15F99"  # plotly's Dark24, in order
    assert figures.tree_colour(len(figures.PALETTE)) == figures.tree_colour(0)


CHAR_EM, LINE_EM = 0.55, 1.2
"""A name's box as this test estimates it: 0.55 of the font size per character (Open Sans' digits and lower case),
1.2 of it high."""


def drawn_margins(fig: dict) -> dict:
    """The margins the figure needs: the layout's, or more where an axis's names are wider than its margin (the
    heatmaps' row names, the group bars' names, left) or the colour bar is (right). With automargin plotly widens the
    margin to hold them and every panel narrows; without, the names are cut at the figure's edge. Names estimated at
    CHAR_EM (Open Sans' average, less than the dashboard's own estimate), the colour bar as its padding, bar, widest
    label and a sideways title."""
    lay = fig["layout"]
    m = dict(lay["margin"])
    left = 0.0
    for name, axis in lay.items():
        if name.startswith("yaxis") and axis.get("ticktext") and axis.get("showticklabels", True) is not False:
            text = axis.get("ticktext") or []
            font = axis.get("tickfont", {}).get("size", 12)
            title = (axis.get("title") or {}).get("text") or ""
            left = max(left, max((CHAR_EM * font * len(str(t)) for t in text), default=0) + 3 + (12 if title else 0))
    bar = lay.get("coloraxis", {}).get("colorbar")
    right = 0.0
    if bar is not None:
        labels = bar.get("ticktext") or ["100"]
        font = bar.get("tickfont", {}).get("size", 12)
        right = (2 * bar.get("xpad", 10) + bar.get("thickness", 30) + max(CHAR_EM * font * len(str(t)) for t in labels)
                 + (12 if (bar.get("title") or {}).get("text") else 0))
    m["l"], m["r"] = max(m["l"], left), max(m["r"], right)
    return m


def name_boxes(fig: dict, width_px: float = 820) -> list[tuple[list, list]]:
    """Per network panel of a player figure: (its names' boxes, its nodes' marker boxes), each (text, x0, y0, x1, y1)
    in px, estimated from the font size and the text's length at the figure's width. The scale is the panel's
    domain over its axis ranges (or, with none set, over the nodes' extent: the largest the drawing can be, so an
    overlap found then is there at any autorange)."""
    fig = decode(fig)
    lay = fig["layout"]
    m = drawn_margins(fig)
    plot_w, plot_h = width_px - m["l"] - m["r"], lay["height"] - m["t"] - m["b"]
    panels = []
    i = 1
    while f"xaxis{'' if i == 1 else i}" in lay and lay.get(f"yaxis{'' if i == 1 else i}", {}).get("scaleanchor"):
        xa, ya = (("x", "y") if i == 1 else (f"x{i}", f"y{i}"))
        xl, yl = lay[f"xaxis{'' if i == 1 else i}"], lay[f"yaxis{'' if i == 1 else i}"]
        nodes = [tr for tr in fig["data"] if tr.get("xaxis", "x") == xa and tr.get("name") in ("servers", "switches")]
        xs = np.concatenate([np.asarray(tr["x"], float) for tr in nodes])
        ys = np.concatenate([np.asarray(tr["y"], float) for tr in nodes])
        xr = xl.get("range") or [xs.min(), xs.max()]
        yr = yl.get("range") or [ys.min(), ys.max()]
        w = (xl["domain"][1] - xl["domain"][0]) * plot_w
        h = (yl["domain"][1] - yl["domain"][0]) * plot_h
        s = min(w / (xr[1] - xr[0]), h / (yr[1] - yr[0]))

        def px(x, y):
            return (x - (xr[0] + xr[1]) / 2) * s, (y - (yr[0] + yr[1]) / 2) * s

        names, markers = [], []
        for tr in nodes:
            size = tr["marker"]["size"]
            pos = tr.get("textposition", "middle center")
            for j, (x, y) in enumerate(zip(tr["x"], tr["y"])):
                cx, cy = px(x, y)
                markers.append((tr["hovertext"][j], cx - size / 2, cy - size / 2, cx + size / 2, cy + size / 2))
                if "text" in tr.get("mode", ""):
                    text, font = tr["text"][j], tr["textfont"]["size"]
                    bw, bh = CHAR_EM * font * len(text), LINE_EM * font
                    where = pos[j] if isinstance(pos, (list, tuple)) else pos
                    v, hz = where.split()
                    cy += {"bottom": -(size + bh) / 2, "top": (size + bh) / 2}.get(v, 0)
                    cx += {"left": -(size + bw) / 2, "right": (size + bw) / 2}.get(hz, 0)
                    names.append((text, cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2))
        for a in lay.get("annotations", ()):
            if (a.get("xref"), a.get("yref")) != (xa, ya):
                continue
            font = a["font"]["size"]
            bw, bh = CHAR_EM * font * len(a["text"]), LINE_EM * font
            cx, cy = px(a["x"], a["y"])
            cx += a.get("xshift", 0) + {"left": bw / 2, "right": -bw / 2}.get(a.get("xanchor"), 0)
            cy += a.get("yshift", 0) + {"top": -bh / 2, "bottom": bh / 2}.get(a.get("yanchor"), 0)
            names.append((a["text"], cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2))
        panels.append((names, markers))
        i += 1
    return panels


def _overlaps(a, b) -> bool:
    return a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]


@pytest.mark.parametrize("spec", ["bcube:n=3,k=1", "bcube:n=4,k=1", "dcell:n=4,k=1", "dcell:n=3,k=1", "bcube:n=2,k=2",
                                  "jellyfish:switches=6,ports=5,switch_ports=3,seed=0", "example:fig3"])
@pytest.mark.parametrize("n_methods", [1, 3])
def test_player_node_names_do_not_overlap_at_1280_px(spec, n_methods):
    """Every name drawn in the player's network panels can be read at 1280 px (the figure's 820 px): no two names'
    boxes overlap and no name covers another node. On DCell(4,1) the server names under their dots overlapped
    (s1.1, s1.2) and the switch names' boxes covered some (trial 10); on BCube(4,1) the 16 server names did too.
    A name with no room is on hover only, and the figure says how many."""
    t, d, pbs, edges, heats = player_parts(spec, ("ps", "ring", "critical-path")[:n_methods])
    assert t.n_nodes <= 30  # drawn as a network in the player
    fig = figures.player_base(d, heats, edges)
    panels = name_boxes(fig)
    assert len(panels) == n_methods
    for names, markers in panels:
        clashes = [(a[0], b[0]) for k, a in enumerate(names) for b in names[k + 1:] if _overlaps(a, b)]
        covered = [(a[0], b[0]) for a in names for b in markers if _overlaps(a, b) and not b[0].startswith(a[0] + " ")]
        assert not clashes and not covered, (clashes, covered)
        assert len(names) + fig["layout"]["meta"].get("unnamed", 0) == t.n_nodes


def _bar_colours(axis: dict, z: float, n: int = 400) -> tuple[str, float]:
    """The colour a cell of `z` % is drawn in on a colour axis, and the share of its colour bar drawn in that colour."""
    from plotly.colors import sample_colorscale
    lo, hi = axis["cmin"], axis["cmax"]
    at = lambda v: (v - lo) / (hi - lo)  # noqa: E731
    colour = sample_colorscale(axis["colorscale"], [at(z)])[0]
    bar = sample_colorscale(axis["colorscale"], np.linspace(0, 1, n).tolist())
    return colour, sum(c == colour for c in bar) / n


def test_idle_cells_are_drawn_in_the_colour_bars_idle_band():
    """The colour bar's 0 % read pale green while idle cells were light grey (the grey took 0.5 % of the bar) and
    pink under the current round's tinted marker (trial 19): the bar's bottom band is the idle cells' colour, tall
    enough to see and labelled "idle", and the marker is an outline only."""
    t, d, pbs, edges, heats = player_parts()
    fig = figures.player_figure(figures.player_base(d, heats, edges), d, [], 3, edges)
    axis = fig["layout"]["coloraxis"]
    idle, share = _bar_colours(axis, 0)
    assert share >= 0.05, share  # the idle band can be seen (~5 px of a 90-px bar at least)
    ticks = dict(zip(axis["colorbar"]["ticktext"], axis["colorbar"]["tickvals"]))
    assert _bar_colours(axis, ticks["idle"])[0] == idle
    assert _bar_colours(axis, 1)[0] != idle  # a link busy 1 % is not idle
    assert figures.util_colours(np.array([0, 100])) == [idle, _bar_colours(axis, 100)[0]]  # the group bars agree
    assert all(s["fillcolor"] in (None, "rgba(0,0,0,0)") for s in fig["layout"]["shapes"])


@pytest.mark.parametrize("spec", ["bcube:n=3,k=1", "dcell:n=4,k=1"])
def test_the_player_margins_hold_the_row_names_and_the_colour_bar(spec):
    """The network panels' names are placed for the panels' width in px: the margins the figure sets must already
    hold what plotly would widen them for (the heatmaps' row names, the colour bar), or every panel is drawn
    narrower than its names were placed for. On main the margins were 8 px and plotly widened them to ~150 px: three
    BCube(3,1) panels of ~200 px where names were placed for ~240 ("s0(s01s02s1(s11s12s20s21s22", trial 19).
    With each network beside its heatmap (fix32a) the row names sit between the two: that gap holds them, the left
    margin holds nothing; with the networks above (150 columns leave no room beside), the margin holds them."""
    t, d, pbs, edges, heats = player_parts(spec, ("ps", "ring", "critical-path"))
    for edges in (edges, figures.round_edges(150)):
        fig = figures.player_base(d, heats, edges)
        lay = fig["layout"]
        if lay["meta"]["beside"]:
            plot = lay["meta"]["width_px"] - lay["margin"]["l"] - lay["margin"]["r"]
            gap = (lay["xaxis4"]["domain"][0] - lay["xaxis"]["domain"][1]) * plot
            assert drawn_margins(fig)["l"] - 8 <= gap and lay["margin"]["l"] == 8
            assert drawn_margins(fig)["r"] == lay["margin"]["r"]
        else:
            assert len(edges) == 151 and drawn_margins(fig) == lay["margin"]


def test_scores_that_differ_in_the_third_decimal_get_an_axis_around_them():
    """Trial 21: BCube(3,1)'s first step scored 5.6519 ... 5.6492 and the chart's axis from 0 drew eight bars of one
    height. Zoomed, the axis spans the scores (and says where it starts), each bar carries its score and its hover
    the difference to the best; a spread an axis from 0 shows, and a probability row, are drawn as before."""
    scores = [5.6519, 5.6516, 5.6509, 5.6509, 5.6507, 5.6507, 5.6493, 5.6492]
    fig = figures.bars_figure([f"#{i}" for i in range(8)], scores, [True] + [False] * 7, value_name="score", zoom=True)
    lo, hi = fig.layout.yaxis.range
    assert 5.647 < lo < min(scores) and max(scores) < hi < 5.654
    px_per_unit = 240 / (hi - lo)  # about the plot's height: the smallest and largest bar differ by > 30 px
    assert (max(scores) - min(scores)) * px_per_unit > 30
    assert fig.layout.yaxis.title.text == f"score (axis from {lo:.4f}, not 0)"
    assert list(fig.data[0].text) == [f"{s:.4f}" for s in scores]
    assert fig.data[0].customdata[-1] == pytest.approx(5.6519 - 5.6492)
    tie = figures.zoomed_range([5.319] * 8)
    assert tie is not None and tie[0] < 5.319 < tie[1]
    for values in ([0.3, 0.6], [1.0, 0.55, 0.1], [0.0, 0.0]):
        fig = figures.bars_figure(["a"] * len(values), values, [False] * len(values), zoom=True)
        assert fig.layout.yaxis.range is None and fig.layout.yaxis.title.text == "value" and fig.data[0].text is None


@pytest.mark.parametrize("k", [1, 2, 3])
def test_a_short_player_figure_leaves_room_between_a_rows_tick_labels_and_the_next_heatmaps_title(k):
    """Trial 23: an uploaded DCell(6,1) file gave two link-group rows; the figure was short, its rows 0.08 of it
    apart (~16 px), and each heatmap's title sat on the tick labels of the bars (or heatmap) above it. Every gap
    between rows of panels is `ROW_GAP_PX` (room for 11-px tick labels and a 13-px title), whatever the height."""
    groups = ["server-switch", "server-server"]
    heats = [figures.HeatRows(f"m{i}", np.full((2, 80 + 20 * i), 50, np.uint8), groups) for i in range(k)]
    lay = figures.player_base(None, heats, figures.round_edges(140), group_names=groups)["layout"]
    plot_px = lay["height"] - lay["margin"]["t"] - lay["margin"]["b"]
    rows = [lay["yaxis"]] + [lay[f"yaxis{k + i}"] for i in range(1, k + 1)]
    gaps = [(upper["domain"][0] - lower["domain"][1]) * plot_px for upper, lower in zip(rows, rows[1:])]
    assert len(gaps) == k and all(g >= 0.99 * figures.ROW_GAP_PX for g in gaps), gaps
    heights = [(r["domain"][1] - r["domain"][0]) * plot_px for r in rows[1:]]
    assert all(h >= 0.9 * figures.HEAT_PX[0] for h in heights), heights  # a heatmap keeps its least height


def test_workload_tree_keys_its_solid_arcs_by_what_they_carry():
    """A reduce arc carries its sender's own piece, a broadcast arc the root's sum (trial 32: step 5 said "own piece")."""
    pos = {0: (0.0, 0.0), 1: (-1.0, -1.0)}

    def solid(*broadcast: bool) -> str:
        arcs = [figures.WorkloadArc(1, 0, w, "x", False, b) for w, b in enumerate(broadcast)]
        fig = go.Figure(figures.workload_tree_figure(pos, ["r", "a"], arcs, root=0))
        return [tr.name for tr in fig.data if tr.name and tr.name.startswith("solid")][0]

    assert solid(False, False) == "solid: carries the sender's own piece"
    assert solid(True) == "solid: carries the root's sum"
    assert solid(False, True) == "solid: carries the sender's own piece (reduce) or the root's sum (broadcast)"


def test_a_small_drawings_names_sit_inside_their_nodes_only_where_they_fit():
    """Trial 32: BCube(2,1) (8 nodes, drawn large) put "sw0.0" in white 20 px inside a 32 px square: "w0.", the
    switches alike. Names that do not fit go below their node, dark, as in larger drawings."""
    def placed(spec: str) -> dict:
        _, d = drawing(spec)
        fig = figures.network_figure(d)
        return {t["name"]: (t["textposition"], t["textfont"]["color"] if "color" in t["textfont"] else None)
                for t in fig["data"] if t.get("name") in ("servers", "switches")}

    assert placed("bcube:n=2,k=1") == {"servers": ("middle center", "white"), "switches": ("bottom center", None)}
    assert placed("example:fig3")["servers"] == ("middle center", "white")
    assert placed("bcube:n=3,k=1") == {"servers": ("bottom center", None), "switches": ("bottom center", None)}


def test_a_projector_sized_workload_tree_has_projector_sized_hovers():
    """Trial 32: on the merging page's big trees the hover text was plotly's 13 px (about 11 px on a projector)."""
    pos = {0: (0.0, 0.0), 1: (-1.0, -1.0)}
    arcs = [figures.WorkloadArc(1, 0, 0, "x", False)]
    big = figures.workload_tree_figure(pos, ["r", "a"], arcs, root=0, big=True)
    assert big["layout"]["hoverlabel"]["font"] == {"size": 16, "color": "#222"}  # dark on white (trial 33: grey)
    assert big["layout"]["hoverlabel"]["namelength"] == -1 and big["layout"]["hoverlabel"]["bgcolor"] == "white"
    small = figures.workload_tree_figure(pos, ["r", "a"], arcs, root=0)
    assert "font" not in small["layout"]["hoverlabel"]
