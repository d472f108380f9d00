"""The Topology & trees page driven through its widgets; counts, drawings and trees checked against core."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from apptest_tools import APP, SVG_NS, charts, goto, metric, open_app, pictures, svg_texts, texts, traces, shown

from core.routing import compute_routes
from core.topology import make_topology
from core.workloads import tree_dag

BCUBE = "bcube:n=3,k=1"


def page(drawing: str = "static"):
    """The Topology & trees screen with its drawings static (SVG, the default) or interactive (plotly charts)."""
    at = open_app("topology")
    if drawing != "static":
        at.segmented_control(key="w:topology:drawing").set_value(drawing).run()
    return at


def test_the_first_screen_draws_static_svg_and_loads_no_plotly_until_asked():
    at = open_app("topology")
    assert list(pictures(at)) == ["topology-network", "topology-node-tree", "wtree-unmerged", "wtree-merged"]
    assert not at.get("plotly_chart")  # not even app.py's plotly.js preload
    assert "Scroll or drag to zoom" not in texts(at)
    at.segmented_control(key="w:topology:drawing").set_value("interactive").run()
    assert not pictures(at) and "Scroll or drag to zoom" in texts(at)
    metas = [json.loads(el.proto.spec)["layout"].get("meta") for el in at.get("plotly_chart")]
    assert metas == ["blank", "topology-network", "topology-node-tree", "wtree-unmerged", "wtree-merged"]
    at.segmented_control(key="w:topology:drawing").set_value("static").run()
    goto(at, "player")  # every other page keeps plotly, and its preload
    assert json.loads(at.get("plotly_chart")[0].proto.spec)["layout"].get("meta") == "blank"
    goto(at, "topology")
    assert len(pictures(at)) == 4 and not at.get("plotly_chart")


def test_static_network_and_node_tree_show_every_node_label_legend_and_route_arrow():
    at = page("static")
    t = make_topology(BCUBE)
    tree = compute_routes(t).node_tree(0)
    net, node_tree = pictures(at)["topology-network"], pictures(at)["topology-node-tree"]
    for svg, keys in ((net, 1), (node_tree, 0)):  # the network's legend has a switch key
        words = svg_texts(svg)
        assert set(t.labels) <= set(words)
        dots = list(svg.iter(f"{SVG_NS}circle"))
        hidden = [c for c in dots if c.get("fill") == "rgba(0,0,0,0)"]  # mid-link: a link's name on hover
        assert len(dots) - len(hidden) == t.n_servers + 1  # and the legend's server key
        assert len(hidden) == t.n_edges and all(c.find(f"{SVG_NS}title").text.startswith("link ") for c in hidden)
        assert len(list(svg.iter(f"{SVG_NS}rect"))) == t.n_nodes - t.n_servers + 1 + keys  # and the background
    assert {"server (computes, merges)", "switch (only forwards)", "every link 100 Gbit/s"} <= set(svg_texts(net))
    assert {"root s00", "route toward s00", "pruned link (dotted)"} <= set(svg_texts(node_tree))
    arrows = [p for p in node_tree.iter(f"{SVG_NS}path") if "rotate(" in (p.get("transform") or "")]
    used = {t.link_id(a, b) for p in tree.segments.values() for a, b in zip(p[:-1], p[1:])}
    assert len(arrows) == 3 * len(used) + 1  # three per directed link a route crosses, and the legend's key
    tips = [el.text for el in node_tree.iter(f"{SVG_NS}title")]
    assert sum("route to its parent" in tip for tip in tips) == 3 * len(used)  # each arrow says what it is on hover
    assert any(c.get("fill") == "#d62728" for c in node_tree.iter(f"{SVG_NS}circle"))  # the root in red


def upload(at, name: str, raw: bytes):
    at.radio(key="w:source_mode").set_value("Upload").run()
    at.file_uploader(key="upload").set_value((name, raw, "application/octet-stream")).run()
    return at


def test_counts_are_core_counts_with_the_papers_beside():
    at = page()
    s = make_topology(BCUBE).summary()
    assert metric(at, "Nodes") == [str(s["nodes"])]
    assert metric(at, "Servers") == [str(s["servers"])]
    assert metric(at, "Switches") == [str(s["switches"])]
    assert metric(at, "Links") == [str(s["edges"])]
    assert "Paper (Table 2): 15 nodes, 18 links, 144 workloads." in texts(at)


def test_network_draws_every_node_and_link_with_servers_and_switches_distinct():
    at = page("interactive")
    t = make_topology(BCUBE)
    net = charts(at)[0]
    (servers,), (switches,), (links,) = (traces(net, name=n) for n in ("servers", "switches", "links"))
    assert len(servers["x"]) == t.n_servers and len(switches["x"]) == t.n_nodes - t.n_servers
    assert servers["marker"]["symbol"] == "circle" and switches["marker"]["symbol"] == "square"
    assert len(links["x"]) == 3 * t.n_edges  # one segment (and a gap) per link
    assert len(set(np.round(servers["y"], 9))) == 1  # BCube servers on one row, switches above by level
    assert min(switches["y"]) > servers["y"][0]
    legend = [tr["name"] for tr in net["data"] if tr.get("showlegend")]
    assert legend == ["server (computes, merges)", "switch (only forwards)", "every link 100 Gbit/s"]


def test_node_tree_fades_exactly_the_pruned_links_for_the_chosen_root():
    at = page("interactive")
    t = make_topology(BCUBE)
    routes = compute_routes(t)
    for root in (0, 4):
        at.selectbox(key=f"w:root:{BCUBE}").set_value(root).run()
        tree = routes.node_tree(root)
        fig = charts(at)[1]
        (pruned,) = traces(fig, name="pruned links")
        xy = node_xy(fig, t)
        seg = np.c_[np.asarray(pruned["x"], dtype=float), np.asarray(pruned["y"], dtype=float)].reshape(-1, 3, 2)
        got = {frozenset(map(tuple, np.round(s[:2], 9).tolist())) for s in seg}
        assert got == {frozenset((xy[u], xy[v])) for u, v in t.edges[tree.pruned_edges].tolist()}
        (chevrons,) = traces(fig, name="busy links")
        used = {t.link_id(a, b) for p in tree.segments.values() for a, b in zip(p[:-1], p[1:])}
        assert len(chevrons["x"]) == 3 * len(used)  # one arrow trio per directed link a route crosses
        (servers,) = traces(fig, name="servers")
        assert servers["marker"]["color"][list(t.servers).index(root)] == "#d62728"  # the root in red
        assert metric(at, "Links pruned") == [str(len(tree.pruned_edges))]
        assert metric(at, "Tree edges") == [str(t.n_servers - 1)]


def node_xy(fig, t) -> dict:
    """Node id -> (x, y) as the network figure draws it."""
    (servers,), (switches,) = traces(fig, name="servers"), traces(fig, name="switches")
    out = {}
    for ids, tr in ((t.servers, servers), (t.switches, switches)):
        for v, x, y in zip(ids.tolist(), tr["x"], tr["y"]):
            out[v] = (round(float(x), 9), round(float(y), 9))
    return out


def test_a_big_topology_is_shown_by_link_group_not_as_a_hairball():
    at = page()
    at.radio(key="w:source_mode").set_value("Family").run()
    at.selectbox(key="w:family").set_value("dcell").run()
    at.number_input(key="w:dcell.k").set_value(2).run()  # DCell(4,2): 420 servers, 525 nodes
    assert metric(at, "Nodes") == ["525"]
    groups, depths = charts(at)[:2]
    (bars,) = traces(groups, "bar")
    assert list(bars["y"])[-1] == "level-2 links" and sum(bars["x"]) == make_topology("dcell:n=4,k=2").n_edges
    (levels,) = traces(depths, "bar")
    assert sum(levels["x"]) == 420 and list(levels["y"])[0] == "depth 0"
    assert any("workload trees are drawn up to 64" in i.value for i in at.info)


def test_jellyfish_explains_why_merging_saves_nothing():
    at = page()
    at.selectbox(key="w:preset").set_value("Jellyfish(10)").run()
    assert "Merging saves nothing on Jellyfish(10): every server's parent in the node tree is the root" in texts(at)


@pytest.mark.parametrize("drawing", ["static", "interactive"])
def test_workload_trees_before_and_after_merging_match_core_dags(drawing):
    at = page(drawing)
    t = make_topology(BCUBE)
    plain, merged = tree_dag(t, merge=False), tree_dag(t, merge=True)
    at.selectbox(key=f"w:root:{BCUBE}").set_value(0).run()
    for phase, code in (("reduce", 0), ("broadcast", 1)):
        at.segmented_control(key="topology:phase").set_value(phase).run()
        if drawing == "static":
            figs = [[w for w in svg_texts(pictures(at)[k]) if w.startswith("#")] for k in ("wtree-unmerged", "wtree-merged")]
        else:
            figs = [traces(fig, name="workloads")[0]["text"] for fig in charts(at)[2:]]
        for labels, dag in zip(figs, (plain, merged)):
            want = int(((dag.tree_root[dag.tree] == 0) & (dag.phase == code)).sum())
            assert len(labels) == want and len(set(labels)) == want
        assert f"**{plain.n}** workloads" in texts(at) and f"**{merged.n}** workloads" in texts(at)
    assert merged.n == 144  # the paper's count for BCube(3,1)


def test_the_topology_address_reaches_the_first_screen_through_the_root():
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(str(APP), default_timeout=120).run()
    by_path = {info["url_pathname"]: h for h, info in at._registered_pages.items()}
    assert "" in by_path and "topology" in by_path  # "/" and "/topology" (a browser asks for it by that name)
    at._page_hash = by_path["topology"]
    at.run()
    assert not at.exception and not at.error
    assert list(pictures(at)) == ["topology-network", "topology-node-tree", "wtree-unmerged", "wtree-merged"]
    # it ran as the root page: the alias's own run would have sent app.py's plotly.js preload first
    assert not at.get("plotly_chart") and metric(at, "Nodes") == ["15"]


def test_a_graphml_upload_replaces_the_topology():
    t = make_topology("dcell:n=4,k=1")
    lines = ['<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">',
             '<key id="kind" for="node" attr.name="kind" attr.type="string"/><graph edgedefault="undirected">']
    lines += [f'<node id="n{v}"><data key="kind">{"server" if t.is_server[v] else "switch"}</data></node>'
              for v in range(t.n_nodes)]
    lines += [f'<edge source="n{u}" target="n{v}"/>' for u, v in t.edges.tolist()]
    lines.append("</graph></graphml>")
    at = upload(page(), "dcell.graphml", "".join(lines).encode())
    assert not at.error
    assert metric(at, "Nodes") == [str(t.n_nodes)] and metric(at, "Links") == [str(t.n_edges)]
    assert "Showing **dcell.graphml**" in "\n".join(c.value for c in at.sidebar.caption)


def test_an_upload_in_use_is_named_after_a_page_switch_and_can_be_cleared():
    """Streamlit empties the file box when the page changes, but the uploaded topology stays in use: the sidebar
    names it under the empty box, with a button that stops using it (there was only 'Upload a file')."""
    doc = {"nodes": [{"id": i, "kind": "server"} for i in range(3)], "links": [[0, 1], [1, 2]]}
    at = upload(page(), "line.json", json.dumps(doc).encode())
    goto(at, "player")
    goto(at, "topology")
    sidebar = lambda: "\n".join(c.value for c in at.sidebar.caption)  # noqa: E731
    assert at.file_uploader(key="upload").value is None and metric(at, "Nodes") == ["3"]
    assert "In use: **line.json**, uploaded earlier" in sidebar() and "Showing **line.json**" in sidebar()
    at.button(key="upload.clear").click().run()
    assert metric(at, "Nodes") == ["15"] and "Showing **BCube(3,1)**" in sidebar()
    assert "In use:" not in sidebar() and all(b.key != "upload.clear" for b in at.button)


def test_the_link_speeds_hint_names_a_box_only_where_the_sidebar_has_one():
    """The Links caption said 'Set other speeds in the sidebar (Link speeds, ...)' in Upload mode too, which has no
    such box (a file carries its own bandwidths); in Spec mode the speeds go in the spec itself."""
    caption = lambda: next(c.value for c in at.caption if c.value.startswith("Links (full duplex"))  # noqa: E731
    at = page()
    assert "Set other speeds in the sidebar (Link speeds, e.g. bw=100/25)." in caption()
    assert at.text_input(key="w:link_options")  # the box it names is there
    doc = {"nodes": [{"id": i, "kind": "server"} for i in range(3)], "links": [[0, 1], [1, 2]]}
    upload(at, "line.json", json.dumps(doc).encode())
    assert metric(at, "Nodes") == ["3"] and all(w.key != "w:link_options" for w in at.text_input)
    assert "speeds" not in caption()
    at.radio(key="w:source_mode").set_value("Spec").run()
    assert "Set other speeds in the spec itself (e.g. bcube:3,1,bw=100/25)." in caption()
    assert "Link speeds" not in caption()


def test_an_upload_that_is_not_a_graph_is_an_error_and_the_last_topology_stays():
    at = upload(page(), "notes.json", b"this is not json")
    assert len(at.error) == 1 and "notes.json" in shown(at.error[0].value)
    assert metric(at, "Nodes") == ["15"]


def test_a_graph_without_servers_is_an_error():
    doc = {"nodes": [{"id": i, "kind": "switch"} for i in range(3)], "links": [[0, 1], [1, 2]]}
    at = upload(page(), "switches.json", json.dumps(doc).encode())
    assert len(at.error) == 1 and "at least 2 servers" in shown(at.error[0].value)
    # named once, first: the file's own errors start with its name (core.topology.files)
    assert shown(at.error[0].value).startswith("Cannot use switches.json: a topology needs")
    assert shown(at.error[0].value).count("switches.json") == 1
    assert metric(at, "Nodes") == ["15"]


def test_a_graph_too_big_to_draw_is_refused_with_a_warning():
    n = 700
    doc = {"nodes": [{"id": i, "kind": "server"} for i in range(n)], "links": [[i, i + 1] for i in range(n - 1)]}
    at = upload(page(), "line.json", json.dumps(doc).encode())
    (said,) = [shown(w.value) for w in at.warning if "700 nodes" in shown(w.value)]
    assert "at most 600" in said and "Pick smaller parameters" not in said  # a file has no parameters (trial 27)
    assert "The CLI takes it: allreduce-lab schedule file:PATH (the limit is the browser's)." in said
    assert metric(at, "Nodes") == ["15"]


def test_choice_survives_a_page_switch():
    at = page()
    at.selectbox(key="w:preset").set_value("Jellyfish(10)").run()
    goto(at, "player")
    n_links = make_topology("jellyfish:switches=10,ports=5,switch_ports=4,seed=0").n_links
    assert {h["z"].shape[0] for h in traces(charts(at)[0], "heatmap")} == {n_links}
    goto(at, "topology")
    assert at.selectbox(key="w:preset").value == "Jellyfish(10)"
    assert metric(at, "Nodes") == ["20"]
    assert np.isfinite(float(metric(at, "Diameter")[0]))


def test_every_chart_saves_itself_in_the_chosen_format_under_a_readable_name():
    import json as _json

    at = page("interactive")
    def configs_of(at):  # not the invisible plotly.js preloader
        return [c for c in (_json.loads(el.proto.config) for el in at.get("plotly_chart")) if not c.get("staticPlot")]

    configs = configs_of(at)
    assert len(configs) == 4 and all(c["toImageButtonOptions"]["format"] == "png" for c in configs)
    assert configs[0]["toImageButtonOptions"]["filename"] == "bcube_n3_k1-network"
    at.segmented_control(key="w:figure_export").set_value("svg").run()
    configs = configs_of(at)
    assert all(c["toImageButtonOptions"]["format"] == "svg" for c in configs)


HEAVY = ("numba", "scipy", "networkx", "torch", "ortools", "pandas")


def test_first_screen_imports_no_heavy_library():
    """The first screen's run (a fresh interpreter, as a fresh server) imports none of numba, scipy, networkx,
    torch, OR-Tools or pandas: they cost ~0.7 s of CPU before the first screen could show (docs/dashboard.md)."""
    code = ("import sys\nfrom streamlit.testing.v1 import AppTest\n"
            f"at = AppTest.from_file({str(APP)!r}, default_timeout=120).run()\n"
            "assert not at.exception, [e.value for e in at.exception]\n"
            "assert any('Merging saves' in c.value for c in at.caption)\n"
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(APP.parent)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"


def good_spec(at) -> str:
    """The spec of the topology the pages show (the default until another one loaded)."""
    from dashboard.sources import DEFAULT_SOURCE
    return (at.session_state["good_source"] if "good_source" in at.session_state else DEFAULT_SOURCE).spec


def spec(at, text: str):
    at.radio(key="w:source_mode").set_value("Spec").run()
    at.text_input(key="w:spec").set_value(text).run()
    return at


@pytest.mark.parametrize("typed, name, nodes", [
    ("bcube:3,1", "BCube(3,1)", 15),  # a Table 2 configuration is named as Table 2 names it
    ("jellyfish:10,5,4,seed=3", "jellyfish:switches=10,ports=5,switch_ports=4,seed=3", None),
    ("dcell:n=2,k=1,bw=100/25", "dcell:n=2,k=1,bw=100/25", None),
])
def test_a_spec_typed_as_the_cli_takes_it_is_shown(typed, name, nodes):
    from core.topology import keyed_spec
    from dashboard.labels import plain
    at = spec(page(), typed)
    assert not at.error and not at.warning, [e.value for e in at.error] + [w.value for w in at.warning]
    assert good_spec(at) == keyed_spec(typed)
    assert f"Showing **{plain(name)}**" in texts(at)
    t = make_topology(typed)
    assert metric(at, "Nodes") == [str(t.n_nodes)] and (nodes is None or t.n_nodes == nodes)
    if "bw=" in typed:  # the link options are the spec's: level 1 runs at 25 Gbit/s
        assert set(t.bandwidth.tolist()) == {100.0, 25.0}


@pytest.mark.parametrize("typed, says, kind", [
    ("bcube:8,2", "bcube:n=8,k=2 has more than 600 nodes; the dashboard loads at most 600", "warning"),  # the size guard, before building
    ("bcube:3", "bcube", "error"),
    ("nosuch:3,1", "unknown topology family 'nosuch'", "error"),
    ("bcube:3,1,bw=fast", "bw", "error"),
    ("file:/etc/hostname", "the dashboard reads no file on the server", "error"),
])
def test_a_bad_or_too_big_spec_is_one_line_and_the_last_topology_stays(typed, says, kind):
    at = spec(page(), typed)
    lines = [shown(e.value) for e in (at.error if kind == "error" else at.warning)]
    assert len(lines) == 1 and says in lines[0] and lines[0].endswith("Still showing BCube(3,1).")
    assert len(at.error) + len(at.warning) == 1
    assert good_spec(at) == BCUBE and metric(at, "Nodes") == ["15"]


def test_a_typed_spec_goes_through_the_schedulers_size_guard_too():
    at = spec(open_app("player"), "bcube:9,1")  # 81 servers: loaded and drawn, not scheduled
    assert any("schedules at most 64" in w.value for w in at.warning)
    assert not charts(at)


def test_a_file_in_use_right_after_its_upload_reads_uploaded_not_uploaded_earlier():
    """Trial 23: right after uploading t23.json the sidebar said "In use: t23.json, uploaded earlier." (the file box
    had emptied with the page's next run). On the run after the one that took the file into use it says "uploaded";
    "uploaded earlier" from then on."""
    doc = {"nodes": [{"id": i, "kind": "server"} for i in range(3)], "links": [[0, 1], [1, 2]]}
    at = upload(page(), "line.json", json.dumps(doc).encode())
    sidebar = lambda: "\n".join(c.value for c in at.sidebar.caption)  # noqa: E731
    goto(at, "player")
    assert at.file_uploader(key="upload").value is None
    assert "In use: **line.json**, uploaded. Upload a file to replace it." in sidebar(), sidebar()
    goto(at, "topology")
    assert "In use: **line.json**, uploaded earlier." in sidebar(), sidebar()


def test_what_merging_saves_names_the_busiest_link_of_both_trees():
    """Trial 32: on BCube(2,1) the page said "Merging saves 8 of 32 workloads (25 %)" and nothing of rounds, while the
    merged and plain trees there load the busiest link alike (4): fewer workloads need not mean fewer rounds.
    DCell(3,1)'s merged trees halve it (by hand: 12 against 24, core.bounds)."""
    said = texts(spec(page(), "bcube:n=2,k=1"))
    assert ("Merging saves 8 of 32 workloads (25 %)" in said and "The link-load bound on rounds (the busiest link's "
            "workloads over its capacity) is 4 merged, 4 unmerged: the same, as fewer workloads need not mean fewer "
            "rounds.") in said, said
    said = texts(spec(page(), "dcell:n=3,k=1"))
    assert "is 12 merged, 24 unmerged." in said, said
