"""Cached access to core for the pages, keyed by hashable inputs (a `Source`, method names, `ScheduleConfig`).

Everything here calls core (topologies, routes, workload DAGs, schedulers, compare) or
re-arranges what core returned for drawing. Topology-sized objects are kept with
``st.cache_resource`` (shared, never copied; treat them as read-only); small plain results with
``st.cache_data``. Errors from core propagate unchanged so pages can show their one-line message.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Callable

import numpy as np
import streamlit as st

from core.bounds import lower_bounds
from core.compare import Row, compare, configurations
from core.routing import NodeTree, Routes, compute_routes
from core.schedule_io import schedule_to_dict
from core.methods import get_method, run_method
from core.schedule import Schedule, ScheduleConfig
from core.topology import Preset, Topology, make_topology, parse_spec, parse_topology_bytes
from core.workloads import PHASES, WorkloadDAG, build_dag, tree_dag

from .figures import NetDrawing, WorkloadArc
from .figures import player_base as player_base_figure
from .inputs import MAX_UPLOAD_BYTES, DEFAULT_SOURCE, Source, TooBig, check_drawable, predicted_nodes
from .layout import positions
from .playback import Playback, build_playback, heatmap_table

Progress = Callable[[float], None]


# ---- topology ---------------------------------------------------------------------------------
@st.cache_resource(show_spinner=False, max_entries=64)
def topology(source: Source) -> Topology:
    """The topology a source names (raises TopologyError / TooBig with a one-line reason)."""
    if source.family == "example":
        t = make_topology(source.spec)
    elif source.family == "upload":
        if len(source.data) > MAX_UPLOAD_BYTES:
            raise TooBig(f"{source.name} is {len(source.data) / 1e6:.1f} MB; upload at most "
                         f"{MAX_UPLOAD_BYTES / 1e6:.0f} MB")
        t = parse_topology_bytes(source.data, source.name, spec=source.spec)
    else:
        family, params = parse_spec(source.spec)
        expected = predicted_nodes(family, params)
        if expected is not None:
            check_drawable(expected, source.name)
        t = make_topology(source.spec)
    check_drawable(t.n_nodes, source.name)
    return t


@st.cache_resource(show_spinner=False, max_entries=64)
def routes(source: Source) -> Routes:
    """Shortest-path routes toward every server (core.routing)."""
    return compute_routes(topology(source))


@st.cache_resource(show_spinner=False, max_entries=64)
def drawing(source: Source) -> NetDrawing:
    """Where to draw the nodes and links of a topology (structured layout per family)."""
    t = topology(source)
    pos = positions(t)
    return NetDrawing(x=pos[:, 0], y=pos[:, 1], labels=t.labels, is_server=t.is_server, edges=t.edges,
                      link_src=t.link_src, link_dst=t.link_dst)


@st.cache_resource(show_spinner=False, max_entries=64)
def node_positions(source: Source) -> np.ndarray:
    """(n, 2) structured node positions for the interactive views."""
    return positions(topology(source))


@st.cache_data(show_spinner=False, max_entries=64)
def link_labels(source: Source) -> tuple[str, ...]:
    """Readable names of the directed links, in link-id order."""
    t = topology(source)
    return tuple(t.link_label(link) for link in range(t.n_links))


def paper_figures(source: Source) -> Preset | None:
    """The paper's Table 2 entry for a source that is one of its configurations, else None."""
    for _name, spec, paper in configurations("table2"):
        if spec == source.spec:
            return paper
    return None


# ---- trees --------------------------------------------------------------------------------------
@st.cache_resource(show_spinner=False, max_entries=256)
def node_tree(source: Source, root: int) -> NodeTree:
    """The node tree of one root server."""
    return routes(source).node_tree(root)


@st.cache_data(show_spinner=False, max_entries=256)
def tree_depths(source: Source, root: int) -> dict[int, int]:
    """Depth of every server in the node tree of `root` (root 0)."""
    t = topology(source)
    r = routes(source)
    i = int(t.server_index[root])
    return {int(s): int(r.depth[i, j]) for j, s in enumerate(t.servers.tolist())}


@st.cache_resource(show_spinner=False, max_entries=16)
def dag(source: Source, merge: bool) -> WorkloadDAG:
    """The workload DAG of parameter-server AllReduce, merged or not (one chunk)."""
    return tree_dag(topology(source), merge=merge, chunks=1, routes=routes(source))


@st.cache_data(show_spinner=False, max_entries=256)
def workload_arcs(source: Source, root: int, merge: bool, phase: str = "reduce") -> list[WorkloadArc]:
    """The workloads of root's flow-tree in one phase, each with the pieces it carries."""
    d = dag(source, merge)
    lab = d.topology.labels
    want = PHASES.index(phase)
    ids = np.flatnonzero((d.tree_root[d.tree] == root) & (d.phase == want) & (d.chunk == 0))
    arcs = []
    for w in ids.tolist():
        if want == 0:
            pieces = "+".join(lab[s] for s in d.payload(w))
            what = f"carries {pieces}" + ("" if d.carries_own[w] else " (relayed, not the sender's own)")
        else:
            what = f"carries the sum of tree {lab[root]}"
        arcs.append(WorkloadArc(src=int(d.src[w]), dst=int(d.dst[w]), workload=int(w),
                                text=f"{d.describe(w)}: {what}", relay=want == 0 and not bool(d.carries_own[w])))
    return arcs


@st.cache_data(show_spinner=False, max_entries=256)
def tree_counts(source: Source, root: int) -> dict[str, int]:
    """Workload counts before and after merging: in root's tree (by phase) and in the whole AllReduce."""
    out = {}
    for merge in (False, True):
        d = dag(source, merge)
        mine = d.tree_root[d.tree] == root
        tag = "merged" if merge else "unmerged"
        out[f"{tag}_reduce"] = int((mine & (d.phase == 0)).sum())
        out[f"{tag}_broadcast"] = int((mine & (d.phase == 1)).sum())
        out[f"{tag}_total"] = int(d.n)
    return out


# ---- schedules ----------------------------------------------------------------------------------
@st.cache_resource(show_spinner=False, max_entries=48)
def schedule(source: Source, method: str, config: ScheduleConfig, _progress: Progress | None = None) -> Schedule:
    """A method's schedule of the source's topology (raises what the method raises)."""
    return run_method(method, topology(source), config, progress=_progress)


@st.cache_data(show_spinner=False, max_entries=64)
def merged_bound(source: Source, config: ScheduleConfig) -> int:
    """Lower bound of the topology's merged workload DAG (the reference of greedy, critical-path,
    optimal and RL)."""
    return lower_bounds(build_dag(topology(source), "tree", merge=config.merge, chunks=config.chunks,
                                  routing=config.routing)).best


@st.cache_resource(show_spinner=False, max_entries=48)
def playback(source: Source, method: str, config: ScheduleConfig, _progress: Progress | None = None) -> Playback:
    """A schedule laid out per round for the player (computed once)."""
    return build_playback(schedule(source, method, config, _progress))


@st.cache_resource(show_spinner=False, max_entries=16)
def player_base(source: Source, methods: tuple[str, ...], config: ScheduleConfig, height: int) -> dict:
    """The round-independent part of the player figure (networks and heatmaps of the methods), built once."""
    utils = [playback(source, m, config).util_pct for m in methods]
    return player_base_figure(drawing(source), utils, link_labels(source), height)


@st.cache_data(show_spinner=False, max_entries=16)
def schedule_json(source: Source, method: str, config: ScheduleConfig) -> str:
    """The schedule as an allreduce-schedule/1 JSON document."""
    return json.dumps(schedule_to_dict(schedule(source, method, config)), separators=(",", ":"))


@st.cache_data(show_spinner=False, max_entries=16)
def heatmap_csv(source: Source, method: str, config: ScheduleConfig) -> str:
    """The utilization heatmap's numbers as CSV (directed links x rounds, percent of capacity)."""
    return heatmap_table(playback(source, method, config)).to_csv(index=False)


@st.cache_data(show_spinner=False, ttl=120)
def method_problem(method: str, config: ScheduleConfig = ScheduleConfig(), source: Source = DEFAULT_SOURCE
                   ) -> str | None:
    """None when a method can run on `source`, else the one-line reason it cannot (asked of the
    registry, without running the method)."""
    return get_method(method).problem(topology(source), config)


def round_differences(a: Schedule, b: Schedule) -> tuple[list[list[int]], list[list[int]]]:
    """Per round, the workloads only `a` sent and those only `b` sent (same workload DAG ids)."""
    n = max(a.n_rounds, b.n_rounds)
    ra = [set(a.rounds[r].tolist()) if r < a.n_rounds else set() for r in range(n)]
    rb = [set(b.rounds[r].tolist()) if r < b.n_rounds else set() for r in range(n)]
    return [sorted(x - y) for x, y in zip(ra, rb)], [sorted(y - x) for x, y in zip(ra, rb)]


# ---- compare ------------------------------------------------------------------------------------
@st.cache_resource(show_spinner=False, max_entries=256)
def compare_row(preset_name: str, config_name: str, methods: tuple[str, ...], seeds: int,
                config: ScheduleConfig) -> Row:
    """One configuration of a preset compared across methods (randomized ones over `seeds` seeds)."""
    configs = [c for c in configurations(preset_name) if c[0] == config_name]
    if not configs:
        raise ValueError(f"{config_name!r} is not a configuration of {preset_name!r}")
    return compare(configs, methods, seeds=seeds, config=replace(config, seed=0))[0]


@st.cache_resource(show_spinner=False, max_entries=256)
def compare_or_reason(preset_name: str, config_name: str, methods: tuple[str, ...], seeds: int,
                      config: ScheduleConfig) -> Row | str:
    """`compare_row`, or the one-line reason it failed (cached too, so a failing method is tried once)."""
    try:
        return compare_row(preset_name, config_name, methods, seeds, config)
    except Exception as err:  # noqa: BLE001 - the reason is shown on the page
        return f"{type(err).__name__}: {err}" if not str(err) else str(err)
