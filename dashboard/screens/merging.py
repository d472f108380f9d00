"""How merging works: the paper's four-host example (Fig. 3), one step at a time, sized for a projector."""

from __future__ import annotations

import re
from dataclasses import replace

import streamlit as st

from core.schedule import Schedule, ScheduleConfig
from core.topology.degrade import link_name

from .. import charts, data, figures, labels, round_player
from ..controls import method_title
from ..positions import tree_positions
from ..sources import Source

FIG3 = Source("example:fig3", "Fig. 3: hosts A, B, C, D")
STEPS = ("The network", "Routes and the node tree", "Workload tree, no merging", "Merging",
         "Broadcast", "All four shards, round by round")
HEIGHT = 390
"""A step's figure height (px): below the title, the step buttons and the shard picker (~400 px at 1280 px) the
whole figure, its legend on top, fits a 1280x800 window (at 440 px its bottom row of hosts was cut by the fold)."""
FIGURE_PX, HALF_PX = 450, 390
"""Widths of a step's figure (3/5 of the page) and of step 5's two (half each) at 1280 px, a little under what they
get beside the sidebar (460 and ~400 px in chromium): the legend's rows are counted for them, so there is room for
one row too many at most."""
ROUTE_COLOUR = "#2ca02c"
HEADING_PX = 20
"""Every step's figure title (px): the workload trees' projector-sized one (`workload_tree_figure(big=True)`); the
network's 14 px made step 2's title smaller than steps 3-4's."""


def render() -> None:
    """The How merging works screen."""
    st.title("How merging works")
    st.caption("The paper's Fig. 3: four hosts A, B, C, D. Follow one shard from routing to the merged workload "
               "tree, then watch all four shards scheduled round by round.")
    step = step_picker()
    root = root_picker() if 2 <= step <= 5 else 0
    show(step, root)


def _go(delta: int) -> None:
    st.session_state["merge:step"] = min(len(STEPS), max(1, int(st.session_state.get("merge:step", 1)) + delta))


def step_picker() -> int:
    """Previous / Next step buttons and the step's title; returns the step (1-based)."""
    st.session_state.setdefault("merge:step", 1)
    a, b, c = st.columns([1, 1, 3], vertical_alignment="center")
    # "step" in the labels: on step 6 the round player's Back / Next sit below (trial 26: two unnamed pairs)
    a.button("Previous step", icon=":material/chevron_left:", key="merge:back", on_click=_go, args=(-1,),
             disabled=st.session_state["merge:step"] <= 1)
    b.button("Next step", icon=":material/chevron_right:", key="merge:next", on_click=_go, args=(1,),
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
        _two(figures.network_figure(drawing, height=HEIGHT, title="Four hosts, four full-duplex links",
                                    legend=[("host (server)", figures.SERVER_COLOUR, "circle")]),
             "Every host (server) holds its own gradient; AllReduce must leave the sum on every host. In the "
             "parameter-server view each host is the *root* of one shard: it collects that shard from the others "
             "(**reduce**) and sends the sum back (**broadcast**). A **workload** is one piece going one hop, from a "
             "host to the next host on its way (here one link; where switches sit between two hosts, as in BCube, "
             "it holds every link through them at once); the AllReduce runs in **rounds**, and in a round each "
             "link carries at most one workload per direction.")
    elif step == 2:
        links = [t.link_id(a, b) for path in tree.segments.values() for a, b in zip(path[:-1], path[1:])]
        pruned = ", ".join(link_name(t, e) for e in tree.pruned_edges.tolist()) or "none"  # as --fail-links takes it
        parents = ", ".join(f"{lab[s]}→{lab[p]}" for s, p in sorted(tree.parent.items()))
        _two(figures.network_figure(drawing, links, [ROUTE_COLOUR] * len(links), faded_edges=tree.pruned_edges,
                                    root=root, height=HEIGHT, title=f"Routes toward {lab[root]}",
                                    legend=[(f"root {lab[root]}", figures.ROOT_COLOUR, "circle"),
                                            ("host", figures.SERVER_COLOUR, "circle"),
                                            (f"route toward {lab[root]} (arrow: direction)", ROUTE_COLOUR,
                                             "triangle-right"),
                                            ("pruned link (dotted)", "#bdbdbd", "dot", 2)]),  # as drawn
             f"Every host is routed to **{lab[root]}** along a shortest path; among equal-length choices the "
             f"neighbour with the lowest id wins. The node tree's edges (child→parent): {parents}. "
             f"No route uses **{pruned}**, so it is pruned — the paper's edge C-D. This tree and the workloads on it, one "
             f"per shard and root, are that shard's **flow-tree**.")
    elif step in (3, 4):
        merge = step == 4
        arcs = data.workload_arcs(FIG3, root, merge, "reduce")
        pos = tree_positions(tree.parent, root)
        fig = figures.workload_tree_figure(pos, lab, arcs, root, height=HEIGHT, big=True,
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
            with col:
                charts.show(figures.legend_above(figures.workload_tree_figure(
                    pos, lab, arcs, root, height=HEIGHT, big=True,
                    title=f"Broadcast, {'merged' if merge else 'unmerged'}: {len(arcs)} workloads"), HALF_PX),
                    key=f"merge-bc-{merge}", name=f"fig3-broadcast-{'merged' if merge else 'unmerged'}")
        _explain(st, f"Once {lab[root]} holds the full sum, it flows back down the tree. Merged, a host forwards "
                 "the sum to each child once it has it; unmerged, every destination gets its own chain. "
                 "Broadcasts of one shard may overlap reduces of another: links are full-duplex, and the only order "
                 "is each workload's **prefixes**, the workloads that must be sent before it (what it carries must "
                 "have arrived).")  # projector-sized as the other steps' (trial 32: step 5's was body text)
    else:
        counts = data.tree_counts(FIG3, root)
        st.markdown(f"All four hosts are roots of their own shard, so four flow-trees run at once. Unmerged (plain "
                    f"PS): **{counts['unmerged_total']}** workloads; merged: **{counts['merged_total']}** "
                    f"(2·S·(S−1) = 2·4·3, for S = 4 servers). Step through the rounds: each round sends workloads whose "
                    "prefixes were sent earlier and that share no directed link.")
        config = ScheduleConfig()
        plays = round_player.load(FIG3, ["ps", "critical-path"], config)
        if plays:
            best = _optimum(config)
            proven = best.n_rounds if best is not None and best.info.get("proven_optimal") else None
            round_player.summary(plays, FIG3, config, optimum=proven)  # a method at it reads "optimal", not "Gap 20%"
            if line := optimum_line(plays, config, best):
                st.markdown(line)
            if line := merging_line(plays, config, best, _optimum(replace(config, merge=False))):
                st.markdown(line)
            round_player.show("fig3", FIG3, config, plays, show_workloads=True)


def _optimum(config: ScheduleConfig) -> Schedule | None:
    """CP-SAT's schedule of this tiny example (it proves the optimum in about a second; cached), or None if it
    cannot run (e.g. OR-Tools missing: the step plays without it)."""
    try:
        with st.spinner("CP-SAT: the optimum of this example"):
            return data.schedule(FIG3, "optimal", config)
    except (ValueError, ImportError):
        return None


def optimum_line(plays: list, config: ScheduleConfig, best: Schedule | None = None) -> str | None:
    """What the optimum of this tiny example is (`best`: CP-SAT's schedule, `_optimum`) beside the merged-trees
    bound the gaps are measured against: a gap to a bound no schedule reaches is the bound's, not the schedule's
    (students read Critical-path's 20% as "one round could be saved"). None without CP-SAT's schedule."""
    if best is None:
        return None
    bound, rounds = data.merged_bound(FIG3, config), best.n_rounds
    merged = [pb for pb in plays if pb.stats["lower_bound"] == bound and labels.dag_name(pb.method, pb.dag)
              == labels.dag_name("optimal")]
    # plain text, not a code pill: at 1280 px the pill wrapped over two lines with stray spaces inside (trial 22)
    command = "the CLI: allreduce-lab schedule example:fig3 --method optimal"
    if not best.info.get("proven_optimal"):
        return (f"CP-SAT's best schedule of the merged trees has **{rounds} rounds**, not proven optimal within its "
                f"{config.time_limit:g} s ({command}): the optimum lies between {bound} and {rounds}.")
    if rounds == bound:
        return f"CP-SAT proves **{rounds} rounds** optimal for the merged trees ({command}): the bound is met."
    at_best = [pb for pb in merged if pb.stats["rounds"] == rounds]
    names = " and ".join(method_title(pb.method) for pb in at_best)
    # the bound is said in the cards' captions ("vs bound 5"): here once more at most (trial 23: thrice in all); the
    # line says "optimal" as the cards at the optimum do, then whose gap it is (trial 26: "Gap optimal" on the card
    # beside "Critical-path's 20% gap" here read as two answers). At one bound and one count of rounds, one gap
    gap = labels.percent(at_best[0].stats["gap"]) if at_best else ""
    cards = "the card's" if len(at_best) == 1 else "their cards'"
    return (f"**The optimum is {rounds} rounds**: CP-SAT proves that no schedule of the merged trees is shorter "
            f"({command}), so "
            + (f"{names} {'is' if len(at_best) == 1 else 'are'} optimal ({cards} \"Gap: optimal\"): the {gap} gap to "
               f"the bound is the bound's" if at_best else f"a gap to the bound {bound} is the bound's")
            + ", not the schedule's: no schedule reaches it.")


def merging_line(plays: list, config: ScheduleConfig, merged: Schedule | None, plain: Schedule | None) -> str | None:
    """What merging saves on this example, computed: workloads and the busiest link's load (`data.link_loads`), and
    whether a round, from CP-SAT's optimum of the plain trees (`plain`) against the merged trees' (`merged`; both
    `_optimum`). Trial 23: Parameter Server (plain trees, 7 rounds) beside Critical-path (merged, 6) read as merging
    saving a round, while the plain trees' optimum is 6 too: the round is saved by scheduling there. None without
    both optima proven."""
    if merged is None or plain is None or not (merged.info.get("proven_optimal") and plain.info.get("proven_optimal")):
        return None
    total, load = data.tree_counts(FIG3, 0), data.link_loads(FIG3)
    saves = (f"**What merging saves here**: {total['merged_total']} workloads instead of {total['unmerged_total']}, "
             f"and the busiest directed link carries {load[True]} workloads instead of {load[False]}")
    command = "the CLI: allreduce-lab schedule example:fig3 --method optimal --no-merge"
    if plain.n_rounds <= merged.n_rounds:
        ps = next((pb for pb in plays if pb.method == "ps" and pb.stats["rounds"] > plain.n_rounds), None)
        return (f"{saves}; not a round: CP-SAT proves {plain.n_rounds} rounds optimal for the plain trees too "
                f"({command})."
                + (f" {method_title('ps')}'s {ps.stats['rounds']} rounds are its random order's: a round is saved "
                   "there by scheduling, not by merging." if ps else ""))
    return (f"{saves}, and {plain.n_rounds - merged.n_rounds} round(s): CP-SAT proves {plain.n_rounds} rounds optimal "
            f"for the plain trees ({command}), {merged.n_rounds} for the merged.")


def _two(fig, text: str) -> None:
    fig["layout"]["title"]["font"] = dict(size=HEADING_PX)
    left, right = st.columns([3, 2], vertical_alignment="center")
    with left:  # the legend above the drawing: under it, it was below the fold at 1280x800 (trial 19)
        charts.show(figures.legend_above(fig, FIGURE_PX), key="merge-fig", name="fig3-step")
    _explain(right, text)


def _explain(where, text: str) -> None:
    """A step's explanation, set larger for a projector."""
    where.markdown(f"<div style='font-size:1.2rem;line-height:1.55'>{_bold(text)}</div>", unsafe_allow_html=True)


def _bold(text: str) -> str:
    """Markdown **bold** and *italic* as HTML (the explanation is set larger, for a projector)."""
    html = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)
    return re.sub(r"\*([^*\s][^*]*)\*", r"<i>\1</i>", html)


def _shared_links(arcs: list[figures.WorkloadArc], labels: tuple[str, ...]) -> str:
    """Workloads that cross the same server pair, e.g. "#0, #2 and #4 (B→A)"."""
    groups: dict[tuple[int, int], list[int]] = {}
    for a in arcs:
        groups.setdefault((a.src, a.dst), []).append(a.workload)
    parts = [f"{', '.join(f'#{w}' for w in sorted(ws)[:-1])} and #{sorted(ws)[-1]} ({labels[s]}→{labels[d]})"
             for (s, d), ws in groups.items() if len(ws) > 1]
    return "; ".join(parts)
