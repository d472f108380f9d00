"""One schedule's time report: seconds in both modes, algbw, busbw, the bounds in seconds and the gaps.

Shared by the CLI (`schedule`, `replay`), `compare` and the benchmark, so they all report the
same numbers in the same plain form (seconds and bytes/s; JSON-ready).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .bounds import gap, time_bounds
from .jit import both
from .timing import MODES, ReplayPlan, n_ranks, transfer_times
from .units import format_seconds
from .workloads import WorkloadDAG


def time_report(dag: WorkloadDAG, rounds: Sequence, size: float, link_bandwidth: np.ndarray | None = None,
                link_latency: np.ndarray | None = None, rounds_bound: int | None = None) -> dict[str, Any]:
    """``{"size_bytes", "ranks", "links", "bounds", "sync_rounds", "sync": {...}, "async": {...}}``; each mode has
    time_s, algbw_Bps, busbw_Bps, max_link_utilization, its best bound (`mode_gaps`) and its gap to every bound.

    `rounds_bound`: a lower bound on the rounds of any schedule of `dag` (the schedule's `lower_bound`, CP-SAT's
    proven one when there is one); None takes the DAG's link-load and critical-path bounds (`fallback_rounds_bound`).
    """
    return _time_report(dag, rounds, size, link_bandwidth, link_latency, lambda: (None, rounds_bound))[1]


def _time_report(dag: WorkloadDAG, rounds: Sequence, size: float, link_bandwidth: np.ndarray | None,
                 link_latency: np.ndarray | None, beside: Callable[[], tuple[Any, int | None]]) -> tuple[Any, dict]:
    """``(what beside() made, time_report(...))``. `beside()` returns (anything, the rounds bound or None) and runs
    with the sync replay and the time bounds on this thread while the async pass runs on a second core (`jit.both`,
    on DAGs of at least `PARALLEL_MIN` workloads): the pass is the report's longest part and shares nothing it
    writes (docs/scale.md, fourteenth step). Each mode keeps only its totals (`ReplayPlan.summary`): a Timing holds
    start and finish per workload (docs/limits.md)."""
    # the plan's rounds and the transfer times, then the async pass beside the rest: each side writes only its own
    plan, dur = both(lambda: ReplayPlan(dag, rounds), lambda: transfer_times(dag, size, link_bandwidth, link_latency),
                     dag.n)
    dag.deps  # noqa: B018 - the general pass reads it (a cached property): built here once, before the two sides start

    def rest() -> tuple[Any, int | None, dict, dict, np.ndarray]:
        busy = plan.link_busy(dur)
        made, rounds_bound = beside()
        sync = plan.summary(size, "sync", durations=dur, busy=busy)
        bounds = time_bounds(dag, size, link_bandwidth, link_latency, dur).as_dict()
        return made, rounds_bound, sync, bounds, busy

    latest, (made, rounds_bound, sync, bounds, busy) = both(lambda: plan.latest("async", dur), rest, dag.n)
    done = plan.summary(size, "async", durations=dur, busy=busy, latest=latest)
    summaries = {"sync": sync, "async": done}
    del plan
    shortest = float(dur.min()) if len(dur) else 0.0
    del dur
    n_bound = fallback_rounds_bound(dag) if rounds_bound is None else int(rounds_bound)
    out: dict[str, Any] = {"size_bytes": float(size), "ranks": n_ranks(dag), "links": link_summary(dag),
                           "bounds": bounds, "sync_rounds": sync_rounds_bound(n_bound, shortest)}
    for mode in MODES:
        s = summaries[mode]
        s.pop("mode")
        s.pop("size_bytes")
        s.pop("ranks")
        out[mode] = s
        s.update(mode_gaps(out, mode, s["time_s"]))
    return made, out


def fallback_rounds_bound(dag: WorkloadDAG) -> int:
    """A lower bound on the rounds of any schedule of `dag` from its cheap closed-form bounds (`bounds.lower_bounds`'
    link load and critical path; a caller with the schedule passes its `lower_bound` instead, which may be higher)."""
    if not dag.n:
        return 0
    load = int(np.max(-(-dag.link_load // dag.topology.link_capacity)))
    return max(load, int(dag.tail.max()))


def sync_rounds_bound(rounds_bound: int, shortest_s: float) -> dict[str, Any]:
    """The sync mode's rounds bound in seconds: every round with a workload lasts at least the shortest time any one
    workload takes (`shortest_s`), and a schedule has at least `rounds_bound` such rounds, so its sync time is at
    least their product (docs/time.md, section 4). Not a bound for async, which has no barriers."""
    total = 0.0
    for _ in range(int(rounds_bound)):  # added one round at a time as the replay does, so never above it by a rounding
        total += float(shortest_s)
    return {"rounds": int(rounds_bound), "round_s": float(shortest_s), "bound_s": total}


def mode_gaps(report: dict[str, Any], mode: str, time_s: float) -> dict[str, Any]:
    """``{"best_bound": name, "best_bound_s": seconds, "gap": {bound: gap}}`` of a time `time_s` in `mode`: the
    gaps to the four bounds of `report["bounds"]` and its "best"; in sync also to the rounds bound ("rounds",
    `sync_rounds_bound`), and "best" is then against the larger of the two."""
    bounds = report["bounds"]
    gaps = {name: gap(time_s, b) for name, b in bounds.items()}
    four = {k: v for k, v in bounds.items() if k != "best"}
    name = max(four, key=four.get) if four else "best"
    best = bounds.get("best", 0.0)
    rounds = report.get("sync_rounds")
    if mode == "sync" and rounds is not None:
        gaps["rounds"] = gap(time_s, rounds["bound_s"])
        if rounds["bound_s"] > best:
            name, best = "rounds", rounds["bound_s"]
        gaps["best"] = gap(time_s, best)
    return {"best_bound": name, "best_bound_s": float(best), "gap": gaps}


def schedule_report(sched: Any, size: float, with_stats: bool = True) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """``(sched.stats(), time_report(...))`` of a schedule, as `schedule` prints them, the stats computed beside the
    async pass (`_time_report`), with the DAG's derived arrays that they build dropped once used (head and tail
    after the bounds; the rest after the replay): on the plain PS DAG of BCube(16,2) each is one or more 0.35 GiB
    arrays (docs/limits.md). Any is rebuilt if asked for again. `with_stats` False: None in place of the stats
    (`compare` reads them on a method's first seed only)."""
    dag = sched.dag
    had = set(dag.__dict__)

    def stats_and_bound() -> tuple[dict[str, Any] | None, int]:
        if not with_stats:
            return None, _cheap_bound(sched)
        stats = sched.stats()
        _forget(dag, had, keep=("deps", "successors", "topo_order", "link_load"))  # what the replay and chains read
        return stats, stats["lower_bound"]

    stats, timing = _time_report(dag, sched.rounds, size, None, None, stats_and_bound)
    _forget(dag, had, keep=("link_load",))
    return stats, timing


def _cheap_bound(sched: Any) -> int:
    """The rounds bound of a schedule without its full stats: the DAG's cheap bounds and CP-SAT's proven one."""
    return max(fallback_rounds_bound(sched.dag), int(sched.info.get("proven_bound", 0) or 0))


def _forget(dag: WorkloadDAG, had: set, keep: tuple = ()) -> None:
    """Drop the cached properties of `dag` computed since `had` was taken, but those in `keep`."""
    for key in set(dag.__dict__) - had - set(keep):
        del dag.__dict__[key]


def link_summary(dag: WorkloadDAG) -> dict[str, Any]:
    """The range of link bandwidths (Gbit/s) and latencies (µs) of the DAG's topology, and failed links."""
    t = dag.topology
    return {"bandwidth_gbps": [float(t.bandwidth.min()), float(t.bandwidth.max())],
            "latency_us": [float(t.latency.min()), float(t.latency.max())],
            "failed": int(t.failed.sum())}


def latency_dominated(report: dict[str, Any]) -> bool:
    """True when a time report's latency bound (path latencies along the DAG's longest chain) exceeds its bandwidth
    bound (the bytes over the servers' bandwidth): latency alone outweighs the bytes, as for small messages."""
    b = report["bounds"]
    return b["latency"] > b["bandwidth"]


def latency_note(reports: Sequence[dict[str, Any]], names: Sequence[str] | None = None,
                 bandwidth_gap: bool = False) -> str:
    """The note for latency-dominated time reports (`latency_dominated`): their latency and bandwidth bounds, each
    distinct value with its owners (`names`, one per report) when they differ, and that latency sets the time.
    `bandwidth_gap`: the caller prints gaps to the bandwidth bound, so add why those are large (gaps to the best
    bound include latency and are not explained by this note)."""
    head, why, *gap = latency_note_parts(reports, names, bandwidth_gap)
    return f"{head} {why}" + "".join(f" {g}" for g in gap)


def latency_note_parts(reports: Sequence[dict[str, Any]], names: Sequence[str] | None = None,
                       bandwidth_gap: bool = False) -> list[str]:
    """`latency_note`'s clauses, for a text that puts each on its own line: the bounds, what sets the time, and (with
    `bandwidth_gap`) why the gap to the bandwidth bound is large."""
    parts = [f"latency-dominated: latency bound {_owned(reports, names, 'latency')} > bandwidth bound "
             f"{_owned(reports, names, 'bandwidth')}:", "at this size per-hop latency, not bytes, sets the time"]
    return parts + (["(the bandwidth bound leaves latency out, so the gap to it is large)"] if bandwidth_gap else [])


BANDWIDTH_DOMINATED = 0.1
"""A time report is bandwidth-dominated where its latency bound is under this share of its bandwidth bound."""


def _size_kind(report: dict[str, Any]) -> tuple[str, str] | None:
    """What sets a report's time where latency does not dominate: (kind, why) for `size_note_parts` and `size_line`;
    None for a latency-dominated report or one without a bandwidth bound."""
    b = report["bounds"]
    if latency_dominated(report) or not b["bandwidth"] > 0:
        return None
    if b["latency"] / b["bandwidth"] < BANDWIDTH_DOMINATED:
        return "bandwidth-dominated", "at this size bytes over the links, not per-hop latency, set the time"
    return "latency and bandwidth both count", "at this size neither alone sets the time"


def size_note_parts(report: dict[str, Any]) -> list[str] | None:
    """For a report that is not latency-dominated, what sets its time, as clauses for one line each: bytes over the
    links (``bandwidth-dominated``, latency under `BANDWIDTH_DOMINATED` of the bandwidth bound) or both; None for a
    latency-dominated one (`latency_note_parts` says that) or one without a bandwidth bound. Trial 32: at 1 KB the
    report said latency sets the time, at 1 GB it said nothing of what does."""
    kind = _size_kind(report)
    if kind is None:
        return None
    b = report["bounds"]
    share = b["latency"] / b["bandwidth"]
    shown = f"{100 * share:.2g}%" if share >= 0.0001 else "under 0.01%"
    return [f"{kind[0]}: latency bound {format_seconds(b['latency'])} is {shown} of the bandwidth bound "
            f"{format_seconds(b['bandwidth'])}:", kind[1]]


def busbw_note(report: dict[str, Any]) -> str | None:
    """Why busbw can read above a link's speed (trial 32: 18.75 GB/s under "links 100 Gbit/s", 12.5 GB/s): busbw is
    nccl-tests' algbw x 2(n-1)/n, comparable with one link per server, and a server of several links sends on them at
    once. None where no mode's busbw is above the fastest link's bandwidth."""
    fastest = max(report["links"]["bandwidth_gbps"]) * 1e9 / 8
    busbw = max((report[mode]["busbw_Bps"] for mode in MODES if mode in report), default=0.0)
    if not busbw > fastest * (1 + 1e-9):
        return None
    return ("busbw is above one link's bandwidth: it is algbw x 2(n-1)/n, which counts one link per server "
            "(nccl-tests), and a server here sends on several links at once (docs/time.md)")


def latency_line(named: Sequence[tuple[str, dict[str, Any]]], bandwidth_gap: bool = False) -> str | None:
    """``"<names>: <note>"`` for the latency-dominated reports among `named` ((name, time report) pairs, e.g. the
    methods on one topology; `latency_note`), or None when none is."""
    hit = [(name, r) for name, r in named if latency_dominated(r)]
    if not hit:
        return None
    names = [name for name, _ in hit]
    return f"{', '.join(names)}: {latency_note([r for _, r in hit], names, bandwidth_gap)}"


def size_line(named: Sequence[tuple[str, dict[str, Any]]]) -> str | None:
    """``"<names>: <kind>: latency bound ... against the bandwidth bound ...: <why>"`` for the reports among `named`
    ((name, time report) pairs) that are not latency-dominated, one clause per kind (`_size_kind`), each bound once
    with its owners where they differ, as `latency_line` says its own (trial 33: a note per method repeated the whole
    sentence); None when none has one. Beside `latency_line`, what sets the time at every size (trial 32)."""
    kinds: dict[tuple[str, str], list[tuple[str, dict[str, Any]]]] = {}
    for name, r in named:
        if (kind := _size_kind(r)) is not None:
            kinds.setdefault(kind, []).append((name, r))
    lines = []
    for (kind, why), hit in kinds.items():
        names, reports = [n for n, _ in hit], [r for _, r in hit]
        lines.append(f"{', '.join(names)}: {kind}: latency bound {_owned(reports, names, 'latency')} against the "
                     f"bandwidth bound {_owned(reports, names, 'bandwidth')}: {why}")
    return "; ".join(lines) or None


def _owned(reports: Sequence[dict[str, Any]], names: Sequence[str] | None, key: str) -> str:
    """One bound over reports as text: ``8.00 µs`` when all agree, else each distinct value (ascending) with the names
    that have it: ``8.00 µs (greedy, optimal) to 32.0 µs (ring)``."""
    owners: dict[str, list[str]] = {}  # keyed by the printed value, so values that print alike are one
    for i, r in sorted(enumerate(reports), key=lambda ir: ir[1]["bounds"][key]):
        owners.setdefault(format_seconds(r["bounds"][key]), []).append(names[i] if names else "")
    if len(owners) == 1:
        return next(iter(owners))
    parts = [f"{v} ({', '.join(ns)})" if names else v for v, ns in owners.items()]
    return ", ".join(parts[:-1]) + " to " + parts[-1]
