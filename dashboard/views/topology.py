"""Sections of the Topology & trees screen: counts, the interactive network, node tree, workload trees."""

from __future__ import annotations

import streamlit as st

from .. import data, figures, pyvis_view
from ..controls import forget, persistent, remembered
from ..inputs import Source
from ..layout import tree_positions

CHART_CONFIG = {"displaylogo": False}


def counts(source: Source) -> None:
    """Metrics: nodes, servers, switches, links, diameter, with the paper's numbers where it has them."""
    summary = data.topology(source).summary()
    paper = data.paper_figures(source)
    cols = st.columns(5)
    cols[0].metric("Nodes", summary["nodes"], help=f"paper: {paper.paper_nodes}" if paper else None)
    cols[1].metric("Servers", summary["servers"])
    cols[2].metric("Switches", summary["switches"])
    cols[3].metric("Links", summary["edges"], help=(f"paper: {paper.paper_edges}; " if paper else "")
                   + f"{summary['directed_links']} directed links")
    cols[4].metric("Diameter", summary["diameter"], help="hops on the longest shortest path")
    if paper:
        st.caption(f"Paper (Table 2): {paper.paper_nodes} nodes, {paper.paper_edges} links, "
                   f"{paper.paper_workloads} workloads.")


def network(source: Source, height: int = 460) -> None:
    """The whole topology, draggable and zoomable: servers as dots, switches as squares."""
    t = data.topology(source)
    st.iframe(pyvis_view.topology_html(t, data.node_positions(source), height=height), height=height + 6)
    st.caption("Blue dots: servers (they compute and merge). Orange squares: switches (they only forward). "
               "Drag nodes, scroll to zoom; hover a node for its name.")


def root_picker(source: Source, label: str = "Root (parameter server of the shard)") -> int:
    """A selectbox of the servers; returns the chosen root's node id."""
    t = data.topology(source)
    servers = t.servers.tolist()
    name = f"root:{source.spec}"
    if remembered(name, servers[0]) not in servers:
        forget(name, servers[0])
    return int(persistent(st.selectbox, name, servers[0], label, servers, format_func=lambda v: t.labels[v]))


def node_tree(source: Source, root: int, height: int = 460) -> None:
    """The node tree of `root`: routes toward it highlighted, pruned links faded."""
    t = data.topology(source)
    tree = data.node_tree(source, root)
    depth = data.tree_depths(source, root)
    cols = st.columns(3)
    cols[0].metric("Tree edges", len(tree.parent), help="one per non-root server: the route to its parent server")
    cols[1].metric("Links used", len(tree.used_edges))
    cols[2].metric("Links pruned", len(tree.pruned_edges), help="no route toward this root crosses them")
    st.iframe(pyvis_view.node_tree_html(t, data.node_positions(source), root, tree.segments, tree.pruned_edges,
                                        depth, height=height), height=height + 6)
    st.caption(f"Green arrows: every server's shortest route toward {t.labels[root]} (red), up to the first "
               "server on it (its parent in the node tree). Grey dashed: pruned links.")


def workload_trees(source: Source, root: int, phase: str = "reduce", height: int = 380) -> None:
    """The workload tree of `root` before and after merging, side by side, with counts."""
    t = data.topology(source)
    tree = data.node_tree(source, root)
    pos = tree_positions(tree.parent, root)
    n = data.tree_counts(source, root)
    left, right = st.columns(2)
    for col, merge in ((left, False), (right, True)):
        arcs = data.workload_arcs(source, root, merge, phase)
        tag = "merged" if merge else "unmerged"
        title = (f"After merging: {len(arcs)} {phase} workloads" if merge
                 else f"Before merging (plain PS): {len(arcs)} {phase} workloads")
        with col:
            st.plotly_chart(figures.workload_tree_figure(pos, t.labels, arcs, root, title=title, height=height),
                            config=CHART_CONFIG, key=f"wtree-{tag}")
            st.caption(f"Whole AllReduce ({t.n_servers} trees): **{n[f'{tag}_total']}** workloads "
                       f"({n[f'{tag}_reduce']} reduce + {n[f'{tag}_broadcast']} broadcast in this tree).")
    saved = n["unmerged_total"] - n["merged_total"]
    st.caption(f"Merging saves {saved} of {n['unmerged_total']} workloads "
               f"({100 * saved / max(1, n['unmerged_total']):.0f} %): a server adds what it received to its own piece "
               "and sends one workload to its parent instead of relaying each piece. Blue: carries the sender's "
               "piece; orange dashed: relays another server's piece. Hover a number for what it carries.")
