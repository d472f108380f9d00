"""The teaching walk-through of the paper's Fig. 3, one step at a time."""

from __future__ import annotations

import streamlit as st

from core.schedule import ScheduleConfig

from .. import data, figures
from ..inputs import Source
from ..layout import tree_positions
from . import player

FIG3 = Source("example:fig3", "Fig. 3: hosts A, B, C, D")
STEPS = ("The network", "Routes and the node tree", "Workload tree, no merging", "Merging",
         "Broadcast", "All four shards, round by round")
CHART_CONFIG = {"displaylogo": False, "displayModeBar": False}


def _go(delta: int) -> None:
    st.session_state["merge:step"] = min(len(STEPS), max(1, int(st.session_state.get("merge:step", 1)) + delta))


def step_picker() -> int:
    """Back / Next buttons and the step's title; returns the step (1-based)."""
    st.session_state.setdefault("merge:step", 1)
    a, b, c = st.columns([1, 1, 8], vertical_alignment="center")
    a.button("Back", icon=":material/chevron_left:", key="merge:back", on_click=_go, args=(-1,),
             disabled=st.session_state["merge:step"] <= 1)
    b.button("Next", icon=":material/chevron_right:", key="merge:next", on_click=_go, args=(1,),
             disabled=st.session_state["merge:step"] >= len(STEPS))
    k = int(st.session_state["merge:step"])
    c.markdown(f"**Step {k} of {len(STEPS)}: {STEPS[k - 1]}**")
    return k


def root_picker() -> int:
    """Which server's shard to follow (A by default, as in the paper)."""
    t = data.topology(FIG3)
    st.session_state.setdefault("merge:root", 0)
    st.radio("Follow the shard of", t.servers.tolist(), key="merge:root", format_func=lambda v: t.labels[v],
             horizontal=True)
    return int(st.session_state["merge:root"])


def show(step: int, root: int) -> None:
    """The figure(s) and explanation of one step."""
    t = data.topology(FIG3)
    lab = t.labels
    tree = data.node_tree(FIG3, root)
    drawing = data.drawing(FIG3)
    if step == 1:
        _two(figures.network_figure(drawing, height=340, title="Four hosts, four full-duplex links"),
             "Every host (server) holds its own gradient; AllReduce must leave the sum on every host. In the "
             "parameter-server view each host is the *root* of one shard: it collects that shard from the others "
             "(**reduce**) and sends the sum back (**broadcast**). Each link carries one workload per direction per "
             "round.")
    elif step == 2:
        links = [t.link_id(a, b) for path in tree.segments.values() for a, b in zip(path[:-1], path[1:])]
        pruned = ", ".join(f"{lab[u]}–{lab[v]}" for u, v in t.edges[tree.pruned_edges].tolist()) or "none"
        parents = ", ".join(f"{lab[s]}→{lab[p]}" for s, p in sorted(tree.parent.items()))
        _two(figures.network_figure(drawing, links, [0] * len(links), faded_edges=tree.pruned_edges, root=root,
                                    height=340, title=f"Routes toward {lab[root]}"),
             f"Every host is routed to **{lab[root]}** along a shortest path; among equal-length choices the "
             f"neighbour with the lowest id wins. The node tree's edges (child→parent): {parents}. "
             f"No route uses **{pruned}**, so it is pruned — the paper's edge C–D.")
    elif step in (3, 4):
        merge = step == 4
        arcs = data.workload_arcs(FIG3, root, merge, "reduce")
        pos = tree_positions(tree.parent, root)
        fig = figures.workload_tree_figure(pos, lab, arcs, root, height=340,
                                           title=f"{'Merged' if merge else 'Unmerged'}: {len(arcs)} reduce workloads")
        shared = _shared_links(arcs, lab)
        counts = data.tree_counts(FIG3, root)
        if not merge:
            text = (f"Without merging, every piece travels to {lab[root]} on its own, hop by hop: "
                    f"**{len(arcs)} reduce workloads**. "
                    + (f"Workloads {shared} cross the same link — like the paper's ① and ②: the sender's own "
                       "piece and the pieces it only relays each take that link for a round." if shared else ""))
        else:
            text = (f"With merging, a host waits for what its children send, adds its own piece, and sends "
                    f"**one** workload to its parent: **{len(arcs)} reduce workloads** instead of "
                    f"{counts['unmerged_reduce']}. Switches could never do this — they do not compute — "
                    "which is why merging helps server-centric networks (BCube, DCell) most. Hover a number to "
                    "see which pieces it carries.")
        _two(fig, text)
    elif step == 5:
        pos = tree_positions(tree.parent, root)
        left, right = st.columns(2)
        for col, merge in ((left, False), (right, True)):
            arcs = data.workload_arcs(FIG3, root, merge, "broadcast")
            col.plotly_chart(figures.workload_tree_figure(
                pos, lab, arcs, root, height=320,
                title=f"Broadcast, {'merged' if merge else 'unmerged'}: {len(arcs)} workloads"),
                config=CHART_CONFIG, key=f"merge-bc-{merge}")
        st.markdown(f"Once {lab[root]} holds the full sum, it flows back down the tree. Merged, a host forwards "
                    "the sum to each child once it has it; unmerged, every destination gets its own chain. "
                    "Broadcasts of one shard may overlap reduces of another: links are full-duplex and only "
                    "prefixes order work.")
    else:
        counts = data.tree_counts(FIG3, root)
        st.markdown(f"All four hosts are roots of their own shard, so four flow-trees run at once. Unmerged (plain "
                    f"PS): **{counts['unmerged_total']}** workloads; merged: **{counts['merged_total']}** "
                    f"(2·S·(S−1) = 2·4·3). Step through the rounds: each round sends workloads whose prefixes were "
                    "sent earlier and that share no directed link.")
        config = ScheduleConfig()
        plays = player.load(FIG3, ["ps", "critical-path"], config)
        if plays:
            player.summary(plays)
            player.round_player("fig3", FIG3, config, plays, width=900, show_workloads=True)


def _two(fig, text: str) -> None:
    left, right = st.columns([3, 2], vertical_alignment="center")
    left.plotly_chart(fig, config=CHART_CONFIG, key="merge-fig")
    right.markdown(text)


def _shared_links(arcs: list[figures.WorkloadArc], labels: tuple[str, ...]) -> str:
    """Workloads that cross the same server pair, e.g. "#0, #2 and #4 (B→A)"."""
    groups: dict[tuple[int, int], list[int]] = {}
    for a in arcs:
        groups.setdefault((a.src, a.dst), []).append(a.workload)
    parts = [f"{', '.join(f'#{w}' for w in sorted(ws)[:-1])} and #{sorted(ws)[-1]} ({labels[s]}→{labels[d]})"
             for (s, d), ws in groups.items() if len(ws) > 1]
    return "; ".join(parts)
