"""Cached access to core for the screens, keyed by hashable inputs (a `Source`, method names, `ScheduleConfig`).

Everything here calls core (topologies, routes, workload DAGs, schedulers, compare, link groups)
or re-arranges what core returned for drawing. Topology-sized objects are kept with
``st.cache_resource`` (shared, never copied; treat them as read-only); small plain results with
``st.cache_data``. Errors from core propagate unchanged so screens can show their one-line message.
"""

from __future__ import annotations

import functools
import inspect
import json
from dataclasses import replace
from typing import Any, Callable, Iterable

import numpy as np
import streamlit as st

from core.bounds import link_load_bound, lower_bounds
from core.compare import Row, compare_topology, uneven_links
from core.compare import configurations as compare_configurations
from core.engine import Rounds
from core.linkgroups import LinkGroups, group_bandwidths, link_groups
from core.methods import METHODS, get_method, run_method
from core.replan import LinkEvent, Replan, replan
from core.rl.pair import checkpoint_dir, checkpoint_version
from core.routing import NodeTree, Routes, TopSpread, compute_routes
from core.routing import top_spread as core_top_spread
from core.schedule import Schedule, ScheduleConfig
from core.schedule_io import schedule_to_dict
from core.seconds import time_report
from core.timing import ReplayPlan, Timing
from core.topology import Preset, Topology, TopologyError, make_topology, parse_spec, parse_topology_bytes
from core.topology.degrade import link_name
from core.units import seconds_in
from core.workloads import PHASES, WorkloadDAG, build_dag

from . import figures, labels
from .axisnames import BOTH_WAYS
from .figures import AxisStyle, HeatRows, NetDrawing, WorkloadArc
from .playback import Playback, build_playback, build_time_playback, heatmap_table
from .positions import carried_family, positions
from .sources import (DEFAULT_SOURCE, MAX_PLAYER_SERVERS, MAX_UPLOAD_BYTES, ROUNDS, Source, Timeline, TooBig,
                      check_drawable, predicted_nodes)

Progress = Callable[[float], None]


KEYED = {ScheduleConfig: repr}
"""`hash_funcs` of every cached function taking a `ScheduleConfig` (also inside a tuple): its fields."""


def learned(methods: Iterable[str]) -> bool:
    """Whether one of `methods` loads an RL checkpoint (core's registry: `checkpoint` among the `ScheduleConfig`
    fields it reads); a name not registered counts as one, so its cached error does not outlive a retraining."""
    return any(m not in METHODS or "checkpoint" in METHODS[m].options() for m in methods)


def checkpoint_key(methods: Iterable[str], config: ScheduleConfig) -> tuple:
    """What a cached result of `methods` under `config` depends on besides its arguments: the version of the RL
    checkpoint a learned one would load (`core.rl.pair.checkpoint_version`; with the default, every checkpoint file in
    the folder), () when none is learned."""
    return checkpoint_version(config.checkpoint) if learned(methods) else ()


def by_checkpoint(cache: Callable) -> Callable:
    """`cache` (``st.cache_data(...)`` or ``st.cache_resource(...)``) over a function of a `method` (or `methods`,
    (name, title) pairs) and a `config`, keyed by every argument and `checkpoint_key`: a checkpoint retrained under the
    same name runs again at once rather than its old schedule shown until the cache drops it (trial 13), while one
    trained into the folder leaves every non-learned method's cached results alone (issue 12: they were keyed by
    the folder's version too, whatever the method)."""
    def wrap(fn: Callable) -> Callable:
        signature = inspect.signature(fn)

        def run(checkpoint: tuple, **arguments: Any) -> Any:  # the cached body; `checkpoint` is only its key
            return fn(**arguments)

        run.__module__, run.__qualname__ = fn.__module__, f"{fn.__qualname__}.by_checkpoint"  # one cache per function
        cached = cache(run)

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            a = bound.arguments  # by name, so `_progress` stays out of the key as Streamlit leaves out any `_name`
            methods = [a["method"]] if "method" in a else [m for m, _ in a["methods"]]
            return cached(checkpoint=checkpoint_key(methods, a["config"]), **a)

        call.clear = cached.clear
        return call
    return wrap


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
    check_drawable(t.n_nodes, source.name, upload=source.family == "upload")
    return t


def size_problem(source: Source) -> str | None:
    """Why `source` is too big to schedule here (player, compare, debugger), or None.

    The one place the screens ask before scheduling; a core size guard can replace its body.
    """
    t = topology(source)
    if t.n_servers > MAX_PLAYER_SERVERS:
        return (f"{source.name} has {t.n_servers} servers; the dashboard schedules at most {MAX_PLAYER_SERVERS} "
                "(its views grow with links x rounds). Pick a smaller topology, or use the command line "
                "(`allreduce-lab compare SPEC`). The Topology page still shows it.")
    return None


@st.cache_resource(show_spinner=False, max_entries=64)
def routes(source: Source) -> Routes:
    """Shortest-path routes toward every server (core.routing)."""
    return compute_routes(topology(source))


@st.cache_data(show_spinner=False, max_entries=64)
def top_spread(source: Source, routing: str) -> TopSpread:
    """How the trees of one routing mode spread over the top layer of switches (core.routing.top_spread)."""
    return core_top_spread(compute_routes(topology(source), routing))


@st.cache_resource(show_spinner=False, max_entries=64)
def drawing(source: Source) -> NetDrawing:
    """Where to draw the nodes and links of a topology (structured layout per family)."""
    t = topology(source)
    pos = node_positions(source)
    return NetDrawing(x=pos[:, 0], y=pos[:, 1], labels=t.labels, is_server=t.is_server, edges=t.edges,
                      link_src=t.link_src, link_dst=t.link_dst, bandwidth=t.bandwidth, failed=t.failed,
                      link_text=tuple(f"link {name}, {t.latency[e]:g} µs" + (" — FAILED" if t.failed[e] else "")
                                      for e, name in link_choices(source, failed=True)))


@st.cache_data(show_spinner=False, max_entries=64)
def link_choices(source: Source, failed: bool = False) -> list[tuple[int, str]]:
    """(undirected link id, ``3 · s00-sw0.0 · level 1 · 25 Gbit/s``; no level where every link has one, as a file's
    do) of every working link (all with `failed`); the
    name is the one the CLI's --fail-links takes and its messages print (`core.topology.degrade.link_name`): with an
    en dash, typing the CLI's ``tor0-tor1`` into the player's picker found nothing (trial 27)."""
    t = topology(source)
    leveled = len(np.unique(t.edge_level)) > 1  # one level (a file's links) tells nothing: left out (trial 28)
    return [(e, f"{e} · {link_name(t, e)}{f' · level {lev}' if leveled else ''} · {bw:g} Gbit/s")
            for e, (lev, bw, dead) in enumerate(zip(t.edge_level.tolist(), t.bandwidth.tolist(), t.failed.tolist()))
            if failed or not dead]


@st.cache_resource(show_spinner=False, max_entries=64)
def node_positions(source: Source) -> np.ndarray:
    """(n, 2) structured node positions for the drawings."""
    return positions(topology(source))


@st.cache_resource(show_spinner=False, max_entries=64)
def groups(source: Source) -> LinkGroups:
    """The topology's link groups (BCube levels, DCell copies, fat-tree pods, link kinds); a topology file whose graph
    is the family spec's it carries (`positions.carried_family`, its links in the same order) gets that family's
    (trial 23: an uploaded DCell(6,1) file had rows "server-switch" and "server-server", the typed spec per cell)."""
    t = topology(source)
    family = carried_family(t)
    return link_groups(family if family is not None else t)


@st.cache_data(show_spinner=False, max_entries=64)
def group_names(source: Source) -> tuple[str, ...]:
    """The link groups' names, with their bandwidth when the links' bandwidths differ (``level 1 · 25 Gbit/s``)."""
    t = topology(source)
    g = groups(source)
    if len(np.unique(t.bandwidth[~t.failed])) <= 1:
        return tuple(g.names)
    return tuple(f"{name} · {lo:g} Gbit/s" if lo == hi else f"{name} · {lo:g}–{hi:g} Gbit/s"
                 for name, (lo, hi) in zip(g.names, group_bandwidths(g, t)))


@st.cache_data(show_spinner=False, max_entries=64)
def link_labels(source: Source) -> tuple[str, ...]:
    """Readable names of the directed links, in link-id order."""
    t = topology(source)
    return tuple(t.link_label(link) for link in range(t.n_links))


@st.cache_data(show_spinner=False, max_entries=64)
def link_pair_names(source: Source) -> tuple[str, ...]:
    """Each undirected link's name both ways (``s00<->sw0.0``): its directed links 2e and 2e+1 (core's link order)
    are rows next to each other in a heatmap, named together when not every row can be (`axisnames.naming`)."""
    t = topology(source)
    return tuple(f"{t.labels[u]}{BOTH_WAYS}{t.labels[v]}" for u, v in t.edges.tolist())


def paper_figures(source: Source) -> Preset | None:
    """The paper's Table 2 entry for a source that is one of its configurations, else None."""
    for _name, spec, paper in compare_configurations("table2"):
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
    return build_dag(topology(source), "tree" if merge else "plain", merge=merge, chunks=1, routes=routes(source))


@st.cache_data(show_spinner=False, max_entries=256)
def workload_arcs(source: Source, root: int, merge: bool, phase: str = "reduce") -> list[WorkloadArc]:
    """The workloads of root's flow-tree in one phase, each with the pieces it carries."""
    d = dag(source, merge)
    want = PHASES.index(phase)
    ids = np.flatnonzero((d.tree_root[d.tree] == root) & (d.phase == want) & (d.chunk == 0))
    return [WorkloadArc(src=int(d.src[w]), dst=int(d.dst[w]), workload=int(w), text=f"{d.describe(w)}: "
                        f"{labels.carries(d, w)}", relay=want == 0 and not bool(d.carries_own[w]), broadcast=want == 1)
            for w in ids.tolist()]


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


@st.cache_data(show_spinner=False, max_entries=16)
def link_loads(source: Source) -> dict[bool, int]:
    """The busiest directed link's load (workloads per link capacity, `core.bounds.lower_bounds`' link load) of the
    whole AllReduce, by merge (False: plain trees, True: merged); numpy alone (the Topology page's first screen shows
    it, and `lower_bounds`' other bounds compile kernels)."""
    return {merge: link_load_bound(dag(source, merge)) for merge in (False, True)}


# ---- schedules ----------------------------------------------------------------------------------
@by_checkpoint(st.cache_resource(hash_funcs=KEYED, show_spinner=False, max_entries=48))
def schedule(source: Source, method: str, config: ScheduleConfig, _progress: Progress | None = None) -> Schedule:
    """A method's schedule of the source's topology (raises what the method raises)."""
    return run_method(method, topology(source), config, progress=_progress)


@st.cache_data(show_spinner=False, max_entries=64)
def merged_bound(source: Source, config: ScheduleConfig) -> int:
    """Lower bound of the topology's merged workload DAG (the reference of every method that schedules it)."""
    return lower_bounds(build_dag(topology(source), "tree", merge=config.merge, chunks=config.chunks,
                                  routing=config.routing)).best


@by_checkpoint(st.cache_resource(hash_funcs=KEYED, show_spinner=False, max_entries=48))
def playback(source: Source, method: str, config: ScheduleConfig, _progress: Progress | None = None) -> Playback:
    """A schedule laid out per round for the player (computed once)."""
    return build_playback(schedule(source, method, config, _progress))


# ---- seconds, failed and slowed links ------------------------------------------------------------
@by_checkpoint(st.cache_resource(hash_funcs=KEYED, show_spinner=False, max_entries=48))
def timing(source: Source, method: str, config: ScheduleConfig, mode: str) -> Timing:
    """The schedule replayed in seconds (`config.size` bytes, sync or async)."""
    s = schedule(source, method, config)
    return ReplayPlan(s.dag, s.rounds).run(config.size, mode)


@by_checkpoint(st.cache_data(hash_funcs=KEYED, show_spinner=False, max_entries=64))
def seconds_report(source: Source, method: str, config: ScheduleConfig) -> dict:
    """Both replay modes' time, algbw, busbw, the bounds in seconds and the gaps (core.seconds.time_report)."""
    s = schedule(source, method, config)
    return time_report(s.dag, s.rounds, config.size, rounds_bound=s.lower_bound)


@st.cache_resource(show_spinner=False, max_entries=64)
def link_event(source: Source, when: str, fail: str | None, slow: str | None) -> LinkEvent:
    """The links that fail or slow down at `when` (``0s``, ``2ms``, ``round=5``), checked to leave every server
    connected (raises TopologyError with the rule and the links otherwise)."""
    t = topology(source)
    event = LinkEvent.parse(t, when, fail=fail, slow=slow, what="link change")
    event.apply(t)
    return event


@by_checkpoint(st.cache_resource(hash_funcs=KEYED, show_spinner=False, max_entries=48))
def replanned(source: Source, method: str, config: ScheduleConfig, event: LinkEvent, mode: str) -> Replan:
    """The method's schedule run until `event`, then re-planned by the method on the changed network (core.replan)."""
    return replan(schedule(source, method, config), event, mode=mode, config=config,
                  timing=timing(source, method, config, mode))


@by_checkpoint(st.cache_resource(hash_funcs=KEYED, show_spinner=False, max_entries=48))
def replanned_run(source: Source, method: str, config: ScheduleConfig, event: LinkEvent, mode: str
                  ) -> tuple[WorkloadDAG, Rounds, np.ndarray, np.ndarray]:
    """The whole re-planned run (delivered part, then the rest) as one DAG, its rounds, and when each workload ran."""
    r = replanned(source, method, config, event, mode)
    dag, rounds = r.combined()
    return (dag, rounds, *r.combined_times())


def run_end(source: Source, method: str, config: ScheduleConfig, timeline: Timeline) -> float:
    """When the played run finishes (s): the replay, or the re-planned run with the timeline's event."""
    if timeline.event is not None:
        return replanned(source, method, config, timeline.event, timeline.mode).finish_s
    return timing(source, method, config, timeline.mode).time


def played(source: Source, method: str, config: ScheduleConfig, timeline: Timeline = ROUNDS,
           _progress: Progress | None = None) -> Playback:
    """What the player plays for a method: its rounds, the re-planned run's rounds, or either on time columns."""
    if timeline.seconds:
        return time_playback(source, method, config, timeline)
    if timeline.event is not None:
        return event_playback(source, method, config, timeline.event, timeline.mode)
    return playback(source, method, config, _progress)


@by_checkpoint(st.cache_resource(hash_funcs=KEYED, show_spinner=False, max_entries=48))
def event_playback(source: Source, method: str, config: ScheduleConfig, event: LinkEvent, mode: str) -> Playback:
    """The re-planned run per round: the delivered part of the original rounds, then the method's rounds of the rest."""
    dag, rounds, _, _ = replanned_run(source, method, config, event, mode)
    return build_playback(Schedule(method, dag, rounds, config, dict(playback(source, method, config).info)))


@by_checkpoint(st.cache_resource(hash_funcs=KEYED, show_spinner=False, max_entries=48))
def time_playback(source: Source, method: str, config: ScheduleConfig, timeline: Timeline) -> Playback:
    """The run on the timeline's time columns: in-flight workloads and each link's busy share per column."""
    pb = playback(source, method, config)
    if timeline.event is None:
        tm = timing(source, method, config, timeline.mode)
        dag, start, finish = pb.dag, tm.start, tm.finish
    else:
        dag, _, start, finish = replanned_run(source, method, config, timeline.event, timeline.mode)
    return build_time_playback(method, dag, start, finish, np.asarray(timeline.edges_s), pb.stats, pb.info)


@by_checkpoint(st.cache_resource(hash_funcs=KEYED, show_spinner=False, max_entries=48))
def heat_rows(source: Source, method: str, config: ScheduleConfig, by_group: bool, title: str,
              timeline: Timeline = ROUNDS) -> HeatRows:
    """A method's utilization heatmap: per directed link, or per link group (mean over its links)."""
    pb = played(source, method, config, timeline)
    if not by_group:
        return HeatRows(title, pb.util_pct, link_labels(source), link_pair_names(source))
    g = groups(source)
    z = np.rint(g.utilization(pb.util_pct.astype(float))).astype(np.uint8)
    return HeatRows(title, z, group_names(source))


@by_checkpoint(st.cache_resource(hash_funcs=KEYED, show_spinner=False, max_entries=16))
def player_base(source: Source, methods: tuple[tuple[str, str], ...], config: ScheduleConfig, by_group: bool,
                network: bool, edges: tuple[float, ...], legend: tuple[tuple, ...], timeline: Timeline = ROUNDS,
                axis: AxisStyle = figures.ROUND_AXIS, marks: tuple = (),
                changed: tuple[tuple[int, ...], str] | None = None,
                width_px: int = figures.PLAYER_WIDTH_PX) -> dict:
    """The round-independent part of the player figure (networks or group bars, and the heatmaps), built once per
    width (`width_px`, the figure's: its network panels' height and node names are laid out for it)."""
    heats = [heat_rows(source, m, config, by_group, title, timeline) for m, title in methods]
    return figures.player_base(drawing(source) if network else None, heats, np.asarray(edges), legend,
                               group_names(source), axis=axis, marks=marks, changed=changed, width_px=width_px)


@by_checkpoint(st.cache_data(hash_funcs=KEYED, show_spinner=False, max_entries=16))
def schedule_json(source: Source, method: str, config: ScheduleConfig) -> str:
    """The schedule as an allreduce-schedule/1 JSON document."""
    return json.dumps(schedule_to_dict(schedule(source, method, config)), separators=(",", ":"))


@by_checkpoint(st.cache_data(hash_funcs=KEYED, show_spinner=False, max_entries=16))
def heatmap_csv(source: Source, method: str, config: ScheduleConfig, timeline: Timeline = ROUNDS) -> str:
    """The utilization heatmap's numbers as CSV: directed links x rounds (percent of capacity), or x time columns
    (percent of the column's time busy), each column named by its interval in the player's unit, one for the file
    and every method's (`labels.shared_unit`, the seconds axis's: ``8-16 ps`` at 1 B without latency, not
    ``8e-09-1.6e-08 ms``)."""
    pb = played(source, method, config, timeline)
    names = None
    if timeline.seconds:
        unit, per_second = labels.shared_unit(timeline.edges_s)
        e = timeline.edges_s
        names = [f"{seconds_in(e[j], per_second, 6)}-{seconds_in(e[j + 1], per_second, 6)} {unit}"
                 for j in range(pb.n_rounds)]
    return heatmap_table(pb, names).to_csv(index=False)


def checkpoint_folder() -> tuple:
    """The checkpoints folder and the version of every checkpoint file in it (`core.rl.pair.checkpoint_version`):
    the key of what is read from the folder, so a checkpoint trained, retrained or removed shows at once (the
    schedules' keys hold the same version, `checkpoint_key`)."""
    return str(checkpoint_dir()), checkpoint_version(None)


def rl_checkpoints() -> tuple[str, ...]:
    """The RL checkpoints in the checkpoints folder by the names --checkpoint takes, universal first (read again
    whenever a checkpoint file there changes, so one trained meanwhile shows up at once); none without torch."""
    return _checkpoint_names(checkpoint_folder())


@st.cache_data(show_spinner=False, max_entries=8)
def _checkpoint_names(folder: tuple) -> tuple[str, ...]:
    try:
        from core.rl.checkpoint import checkpoint_names
    except ImportError:
        return ()
    return tuple(checkpoint_names())


def default_checkpoint(source: Source) -> str | None:
    """The checkpoint RL runs on `source` when none is given (core's resolution, as the CLI's): the one trained on
    this topology, else universal; None without one or without torch (read again whenever a checkpoint file in
    the folder changes)."""
    return _default_checkpoint(source, checkpoint_folder())


@st.cache_data(show_spinner=False, max_entries=64)
def _default_checkpoint(source: Source, folder: tuple) -> str | None:
    try:
        from core.rl.checkpoint import find_checkpoint  # needs torch
    except ImportError:
        return None
    from core.schedulers.learned import checkpoint_spec
    found = find_checkpoint(checkpoint_spec(topology(source))[0])  # a file whose graph is its carried spec's: that
    return found.stem if found else None


@by_checkpoint(st.cache_data(hash_funcs=KEYED, show_spinner=False, ttl=120))
def method_problem(method: str, config: ScheduleConfig = ScheduleConfig(), source: Source = DEFAULT_SOURCE
                   ) -> str | None:
    """None when a method can run on `source`, else the one-line reason it cannot (asked of the
    registry, without running the method)."""
    return get_method(method).problem(topology(source), config)


# ---- compare ------------------------------------------------------------------------------------
@by_checkpoint(st.cache_resource(hash_funcs=KEYED, show_spinner=False, max_entries=512))
def compare_cell(source: Source, method: str, seeds: int, config: ScheduleConfig) -> Row | str:
    """One method on one topology, compared (randomized methods over `seeds` seeds) and timed at message size
    `config.size`, or the one-line reason it failed (cached too, so a failing method is tried once)."""
    try:
        return compare_topology(topology(source), [method], seeds=seeds, config=replace(config, seed=0),
                                name=source.name, paper=paper_figures(source), size=config.size)
    except Exception as err:  # noqa: BLE001 - the reason is shown on the page
        return str(err) or type(err).__name__


def compare_row(source: Source, methods: tuple[str, ...], seeds: int, config: ScheduleConfig,
                done: Callable[[str], None] | None = None) -> tuple[Row | None, dict[str, str]]:
    """Every method on one topology (cached per method): the row, and method -> reason for those that failed."""
    first, results, failed = None, {}, {}
    for m in methods:
        got = compare_cell(source, m, seeds, config)
        if done:
            done(m)
        if isinstance(got, str):
            failed[m] = got
            continue
        first = first or got
        res = got.results[m]
        if res.rounds is None:
            failed[m] = res.error or "it did not run"
        else:
            results[m] = res
    return (replace(first, results=results) if first else None), failed


# ---- cluster ----------------------------------------------------------------------------------
TRACE_FILES = {"csv": "CSV (this project's columns)", "philly": "Philly cluster_job_log (JSON)",
               "helios": "Helios cluster_log.csv"}
"""Trace file kinds the Cluster page reads from an upload (core.cluster.load_trace's csv:, philly:, helios:)."""


def cluster_runs(source: Source, gpus_per_server: int, trace: str, names: tuple[str, ...],
                 upload: bytes | None = None) -> dict:
    """Each named scheduler's run (`core.cluster.Result`) of a trace on the source's topology with
    `gpus_per_server` GPUs on every server (raises TraceError / TopologyError / ValueError).

    `trace` is a synthetic spec, or with `upload` (a file's bytes, None for none) ``KIND:NAME[,options]``: the uploaded file read
    as that kind. A trace naming a file on the server is refused: the page reads only what the user uploaded.
    Cached by every argument and, where TopDRL runs, by the version of its checkpoint on disk, so a picker
    retrained in place (``cluster-train --force``) runs at once rather than its old results shown (trial 29)."""
    from core.cluster.topdrl import default_checkpoint
    version = checkpoint_version(default_checkpoint()) if "topdrl" in names else ()
    return _cluster_runs(source, gpus_per_server, trace, tuple(names), upload, version)


@st.cache_resource(show_spinner="Simulating the cluster...", max_entries=8)
def _cluster_runs(source: Source, gpus_per_server: int, trace: str, names: tuple[str, ...], upload: bytes | None,
                  checkpoint: tuple) -> dict:
    """`cluster_runs`' cached body; `checkpoint` is only its key."""
    from core.cluster import make_cluster, run_schedulers
    cluster = make_cluster(topology(source), gpus_per_server)
    return dict(zip(names, run_schedulers(cluster, load_trace_input(trace, upload, cluster.n_gpus), list(names))))


def load_trace_input(trace: str, upload: bytes | None = None, fit_gpus: int | None = None):
    """The `core.cluster.Trace` of the Cluster page's input (see `cluster_runs`); errors name the upload, never
    the temporary file it was read from. A synthetic trace's GPU demands are capped at `fit_gpus` (the cluster's
    GPUs) where its draw has larger jobs (`core.cluster.load_trace`; the page notes it by `capped_note`)."""
    import tempfile
    from pathlib import Path

    from core.cluster import TraceError, load_trace
    kind, sep, rest = trace.strip().partition(":")
    kind = kind.strip().lower()
    if upload is None:  # an uploaded empty file is b"": load_trace says it is empty (trial 29)
        if not (sep and kind == "synthetic"):
            raise TraceError(f"{trace.strip()!r}: the dashboard reads no trace file on the server; choose "
                             "\"uploaded file\" to use a CSV, Philly or Helios trace, or type synthetic:jobs=N,seed=S")
        return load_trace(trace, fit_gpus)
    if kind not in TRACE_FILES:
        raise TraceError(f"unknown trace file kind {kind!r}; use {', '.join(TRACE_FILES)}")
    if len(upload) > MAX_UPLOAD_BYTES:
        raise TraceError(f"the trace file is {len(upload) / 1e6:.1f} MB; upload at most {MAX_UPLOAD_BYTES / 1e6:.0f} MB")
    name, _, options = rest.partition(",")
    with tempfile.TemporaryDirectory(prefix="trace-") as folder:
        path = Path(folder) / "upload"
        path.write_bytes(upload)
        try:
            got = load_trace(f"{kind}:{path}" + (f",{options}" if options else ""))
        except TraceError as err:
            raise TraceError(str(err).replace(str(path), name or "the uploaded file")) from None
    return replace(got, name=name or got.name)


def uneven_reason(sources: list[Source]) -> str | None:
    """Why the links of some compared topology differ in bandwidth, in `core.compare.uneven_links`' words (as the CLI's
    compare reads its configurations: a family's spec by its ``bw=``, an upload or example by its working links as
    built), or None where every one has links of one speed. A topology that does not build says nothing here (the
    page says its error where it runs)."""
    for src in sources:
        try:
            built = topology(src) if src.family in ("upload", "example", "file") else None
            why = uneven_links(src.spec if built is None else src.name, built)
        except (TopologyError, ValueError):  # e.g. a topology too big: `can_schedule` or `run` says why
            continue
        if why:
            return why
    return None
