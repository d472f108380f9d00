"""Topology & trees: the network, the node tree of a root, and its workload tree before and after merging.

Up to `DRAW_NODES` nodes the network and node tree are drawn node by node; above, they are
summarized per link group and per tree depth, which stays legible at any size. The drawings are
static SVG by default (drawn on the server from the plotly figures: the page needs no plotly.js,
docs/dashboard.md) and interactive plotly charts (zoom, pan, hover, PNG/SVG export) one click away.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from core.routing import NodeTree
from core.topology import Topology

from .. import charts, controls, data, figures
from ..controls import forget, persistent, remembered
from ..positions import tree_positions
from ..sources import DRAW_NODES, MAX_PLAYER_SERVERS, Source, file_stem

NET_HEIGHT = 460
DRAWING_KEY = "topology:drawing"
"""The drawing mode's persistent key (app.py reads it to skip the plotly.js preload while the page is static)."""


def render() -> None:
    """The Topology & trees screen."""
    st.title("Topology & trees")
    source = controls.topology_picker()
    t = data.topology(source)
    _counts(t, data.paper_figures(source))
    root = _root_picker(source, t)
    static = _drawing_picker()
    tree = data.node_tree(source, root)
    depth = data.tree_depths(source, root)
    network, tree_col = st.columns(2)
    drawn = t.n_nodes <= DRAW_NODES
    with network:
        st.subheader("Network")
        if drawn:
            _network(source, t, data.drawing(source), static)
        else:
            _network_groups(source, t)
    with tree_col:
        st.subheader("Node tree")
        _tree_metrics(tree)
        if drawn:
            _node_tree(source, t, data.drawing(source), root, tree, depth, static)
        else:
            _tree_depths(source, t, root, depth)
    st.subheader("Workload tree before and after merging")
    st.caption("Server r is the parameter server of shard r. Every node is routed along a shortest path to r; a "
               "server's parent in the node tree is the first server on its route, and its workloads follow that tree.")
    if t.n_servers > MAX_PLAYER_SERVERS:
        st.info(f"{source.name} has {t.n_servers} servers; workload trees are drawn up to {MAX_PLAYER_SERVERS} "
                "servers. Pick a smaller topology to see them.")
        return
    phase = st.segmented_control("Phase", ["reduce", "broadcast"], default="reduce", key="topology:phase")
    _workload_trees(source, t, tree, root, depth, phase or "reduce", static)


def _counts(t: Topology, paper) -> None:
    """Metrics: nodes, servers, switches, links, diameter, with the paper's numbers where it has them."""
    summary = t.summary()
    cols = st.columns(5)
    cols[0].metric("Nodes", summary["nodes"], help=f"paper: {paper.paper_nodes}" if paper else None)
    cols[1].metric("Servers", summary["servers"])
    cols[2].metric("Switches", summary["switches"])
    cols[3].metric("Links", summary["edges"], help=(f"paper: {paper.paper_edges}; " if paper else "")
                   + f"{summary['directed_links']} directed links")
    cols[4].metric("Diameter", summary["diameter"], help="hops on the longest shortest path")
    speeds = ", ".join(f"{n} at {bw:g} Gbit/s" for bw, n in sorted(summary["bandwidth_gbps"].items(), reverse=True))
    lat = ", ".join(f"{v:g}" for v in summary["latency_us"])
    failed = f" · **{summary['failed_links']} failed**" if summary["failed_links"] else ""
    hint = controls.link_speeds_hint()
    st.caption(f"Links (full duplex, per direction): {speeds} · latency {lat} µs{failed}."
               + (f" {hint}" if hint else "")
               + (f" Paper (Table 2): {paper.paper_nodes} nodes, {paper.paper_edges} links, "
                  f"{paper.paper_workloads} workloads." if paper else ""))


def _root_picker(source: Source, t: Topology) -> int:
    """A selectbox of the servers; returns the chosen root's node id."""
    servers = t.servers.tolist()
    name = f"root:{source.spec}"
    if remembered(name, servers[0]) not in servers:
        forget(name, servers[0])
    return int(persistent(st.selectbox, name, servers[0], "Root (parameter server of the shard)", servers,
                          format_func=lambda v: t.labels[v]))


def _drawing_picker() -> bool:
    """Static SVG drawings (True, the default) or interactive plotly charts."""
    mode = persistent(st.segmented_control, DRAWING_KEY, "static", "Drawings", ("static", "interactive"),
                      format_func={"static": "Static (fast)", "interactive": "Interactive (zoom, hover, export)"}.get,
                      help="Static: pictures drawn on the server, shown at once; hover a node, link or workload "
                           "number for its tooltip. Interactive: plotly charts (scroll to zoom, drag to pan, rich "
                           "hover, camera button to save PNG/SVG); the browser loads plotly.js for them, a few "
                           "seconds the first time.")
    return mode != "interactive"


def _network(source: Source, t: Topology, d: figures.NetDrawing, static: bool) -> None:
    """The whole topology: servers as dots, switches as squares, at structured positions."""
    legend = [("server (computes, merges)", figures.SERVER_COLOUR, "circle"),
              ("switch (only forwards)", figures.SWITCH_COLOUR, "square")] + figures.link_legend(d)
    charts.picture(figures.network_figure(d, height=NET_HEIGHT, legend=legend), key="topology-network",
                   name=f"{file_stem(source)}-network", static=static)
    st.caption(("Hover" if static else "Scroll or drag to zoom and pan; hover") + " a node for its name, the middle of "
               "a link for its id, level, bandwidth and latency. Slower links are drawn thinner and paler.")


def _network_groups(source: Source, t: Topology) -> None:
    """Too many nodes to draw one by one: the links per link group."""
    g = data.groups(source)
    charts.show(figures.hbar_figure(g.names, (g.sizes // 2).tolist(), "links",
                                    title=f"{t.n_edges} links by group"),
                key="topology-groups", name=f"{file_stem(source)}-link-groups")
    st.caption(f"{t.n_nodes} nodes are more than a node-by-node drawing can show legibly (up to {DRAW_NODES}); "
               "links are counted per group instead (BCube level, DCell copy, fat-tree pod, or link kind).")


def _tree_metrics(tree: NodeTree) -> None:
    cols = st.columns(3)
    cols[0].metric("Tree edges", len(tree.parent), help="one per non-root server: the route to its parent server")
    cols[1].metric("Links used", len(tree.used_edges))
    cols[2].metric("Links pruned", len(tree.pruned_edges), help="no route toward this root crosses them")


ROUTE_COLOUR = "#2ca02c"


def _node_tree(source: Source, t: Topology, d: figures.NetDrawing, root: int, tree: NodeTree,
               depth: dict[int, int], static: bool) -> None:
    """The node tree of `root`: every route segment toward it as arrows, pruned links faded."""
    links, hover = [], []
    for server, path in sorted(tree.segments.items()):
        for a, b in zip(path[:-1], path[1:]):
            links.append(t.link_id(a, b))
            hover.append(f"{t.labels[a]} → {t.labels[b]}: on {t.labels[server]}'s route to its parent "
                         f"{t.labels[path[-1]]} (depth {depth.get(server, '?')})")
    legend = [(f"root {t.labels[root]}", figures.ROOT_COLOUR, "circle"),
              (f"route toward {t.labels[root]}", ROUTE_COLOUR, "triangle-right"),
              ("pruned link (dotted)", "#bdbdbd", "dot", 1.5)]
    legend += [k for k in figures.link_legend(d) if not k[0].startswith("every link")]  # the network says that
    charts.picture(figures.network_figure(d, links, [ROUTE_COLOUR] * len(links), hover,
                                          faded_edges=tree.pruned_edges, root=root, height=NET_HEIGHT, legend=legend),
                   key="topology-node-tree", name=f"{file_stem(source)}-node-tree-{t.labels[root]}", static=static)
    st.caption(f"Green arrows: every server's shortest route toward {t.labels[root]} (red), up to the first "
               "server on it (its parent in the node tree), drawn beside the cable in its direction. Dotted: "
               "pruned links (no route toward this root uses them).")


def _tree_depths(source: Source, t: Topology, root: int, depth: dict[int, int]) -> None:
    """Too many nodes to draw: servers per depth of the node tree."""
    levels = np.bincount(np.fromiter(depth.values(), dtype=np.int64))
    charts.show(figures.hbar_figure([f"depth {d}" for d in range(len(levels))], levels.tolist(), "servers",
                                    title=f"Servers by depth in the node tree of {t.labels[root]}"),
                key="topology-depths", name=f"{file_stem(source)}-tree-depths")


def _workload_trees(source: Source, t: Topology, tree: NodeTree, root: int, depth: dict[int, int], phase: str,
                    static: bool) -> None:
    """The workload tree of `root` before and after merging, side by side, with counts."""
    pos = tree_positions(tree.parent, root)
    n = data.tree_counts(source, root)
    left, right = st.columns(2)
    for col, merge in ((left, False), (right, True)):
        arcs = data.workload_arcs(source, root, merge, phase)
        tag = "merged" if merge else "unmerged"
        title = (f"After merging: {len(arcs)} {phase} workloads" if merge
                 else f"Before merging (plain PS): {len(arcs)} {phase} workloads")
        with col:
            charts.picture(figures.workload_tree_figure(pos, t.labels, arcs, root, title=title, height=400),
                           key=f"wtree-{tag}", name=f"{file_stem(source)}-{t.labels[root]}-{tag}-{phase}",
                           static=static)
            st.caption(f"Whole AllReduce ({t.n_servers} trees): **{n[f'{tag}_total']}** workloads "
                       f"({n[f'{tag}_reduce']} reduce + {n[f'{tag}_broadcast']} broadcast in this tree).")
    saved = n["unmerged_total"] - n["merged_total"]
    text = (f"Merging saves {saved} of {n['unmerged_total']} workloads "
            f"({100 * saved / max(1, n['unmerged_total']):.0f} %): a server adds what it received to its own piece "
            "and sends one workload to its parent instead of relaying each piece.")
    if saved:  # trial 32: on BCube(2,1) merging saves 8 workloads and no round, and nothing said so
        load = data.link_loads(source)
        text += (f" The link-load bound on rounds (the busiest link's workloads over its capacity) is {load[True]} "
                 f"merged, {load[False]} unmerged"
                 + (": the same, as fewer workloads need not mean fewer rounds." if load[True] == load[False] else "."))
    if saved == 0 and max(depth.values()) <= 1:
        text = (f"Merging saves nothing on {source.name}: every server's parent in the node tree is the root "
                "itself (depth 1) — routes cross only switches, so no server ever holds another server's piece to "
                "add its own to. Merging helps where servers relay, as in BCube and DCell.")
    st.caption(text + f" Solid blue: carries the sender's piece; dashed orange: relays another server's piece. Above "
               f"{figures.ARCS_DRAWN} workloads a tree edge is one line labelled with how many cross it. Hover a "
               "number for what it carries.")
