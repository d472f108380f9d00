"""Compare methods across configurations (the paper's Table 2, recomputed)."""

from __future__ import annotations

import csv
import io
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable

import numpy as np

from .bounds import gap, lower_bounds
from .jsonnumbers import WHOLE_KEYS, csv_number, json_numbers  # noqa: F401 - the JSON and CSV rule (re-exported)
from .methods import get_method, iter_methods, run_method
from .replan import LinkEvent, Replan, replan
from .schedule import ScheduleConfig, sampling_note, show_opening, show_temperature
from .schedulers.learned import KEPT_START, checkpoint_label, file_spec_text, trained_elsewhere, training_answer
from .schedulers.status import stopped_words
from .seconds import latency_line, mode_gaps, schedule_report
from .timing import DEFAULT_SIZE_BYTES, MODES
from .topology import (Preset, Topology, TopologyError, changes, degrade, keyed_spec, make_topology, paper_preset,
                       preset, split_link_options)
from .topology.degrade import few, link_name
from .workloads import WorkloadDAG, build_dag
from .units import gap_shown, rate_unit, time_unit


BEST_GAP_CSV = "best gap (%)"
"""The CSV's header of the best merged method's gap to the bound (`validate` recognises compare's CSV by it)."""
GAP_COLUMNS = ["gap BW bound", "gap own bound"]
"""The seconds table's gaps of a method's async time: to the bandwidth bound of any AllReduce, and to the best
bound of the method's own DAG (the CSV's headers add the unit: ``gap BW bound (%)``)."""
GAP_KEYS = ("bandwidth", "best")
"""The keys of an async replay's ``gap`` under `GAP_COLUMNS`, in their order."""


def default_methods(uneven: bool = False) -> tuple[str, ...]:
    """The registered methods `compare` runs when none are named; with `uneven` (some configuration's links differ
    in bandwidth: `uneven_links`) also those that plan by each link's speed (time-aware)."""
    return tuple(m.name for m in iter_methods() if m.default or (uneven and m.default_uneven))


def uneven_extra() -> tuple[str, ...]:
    """The methods `default_methods` adds where link bandwidths differ (time-aware): the CLI's note and the
    dashboard's caption name them."""
    return tuple(m for m in default_methods(uneven=True) if m not in default_methods())


def uneven_links(spec: str, built: Topology | None = None, slow: str | None = None) -> str | None:
    """Why the links of a configuration differ in bandwidth, in words for a note, or None where they share one speed:
    `slow` (--slow-links) given, the working links of `built` (a file or example, as built) at several speeds, or a
    spec's ``bw=`` naming several values. A family's spec is read, not built (the guard has not priced it yet)."""
    if slow:
        return f"--slow-links {slow}"
    if built is not None:
        speeds = np.unique(built.bandwidth[~built.failed])
    else:
        speeds = np.unique([v for level in split_link_options(spec)[1].bandwidth for v in level])
    if len(speeds) < 2:
        return None
    return f"{spec} has links at {', '.join(f'{v:g}' for v in speeds[:-1])} and {speeds[-1]:g} Gbit/s"


def schedules_tree_dag(method: str) -> bool:
    """True for a method that schedules the tree DAG, the one the table's lower bound is for."""
    return get_method(method).dag == "tree"


@dataclass
class MethodResult:
    """One method on one configuration: mean rounds over seeds, the spread, and bounds of its own DAG."""

    method: str
    rounds: float | None
    per_seed: list[int]
    own_bound: int
    seconds: float
    info: dict = field(default_factory=dict)
    error: str | None = None
    time: dict = field(default_factory=dict)
    """Seconds (mean over seeds) per mode with algbw/busbw and gaps of that mean time, and the bounds of its DAG
    (`mean_time_report`)."""
    replan: dict = field(default_factory=dict)
    """With a mid-run link event: the re-planned run's numbers (`Replan.summary`), mean over seeds."""
    other_dag: str | None = None
    """When the DAG it scheduled is not the row's flow-tree DAG (time-aware tries every routing mode and a ring):
    that DAG's routing mode, or "ring" (`other_dag`); its rounds are then not compared with the row's bound, which
    is for the row's DAG (`other_dag_words`)."""

    @property
    def std(self) -> float:
        """Standard deviation over seeds (0 for deterministic methods)."""
        return float(np.std(self.per_seed)) if len(self.per_seed) > 1 else 0.0


@dataclass
class Row:
    """One configuration: sizes, the merged DAG's lower bound, every method's result, the paper's values."""

    name: str
    spec: str
    nodes: int
    edges: int
    servers: int
    workloads: int
    lower_bound: int
    bounds: dict
    results: dict[str, MethodResult]
    paper: Preset | None
    merge: bool = True  # the tree DAG the bound is for: merged (the default) or not (--no-merge)
    network: dict | None = None  # the links --fail-links/--slow-links failed or slowed (`degrade.changes`), if any

    def best_merged(self) -> MethodResult | None:
        """The best method that schedules the merged DAG (the one the lower bound is for) on the row's routes."""
        got = [r for m, r in self.results.items() if schedules_tree_dag(m) and r.rounds is not None and not r.other_dag]
        return min(got, key=lambda r: r.rounds) if got else None

    def other_dags(self, methods: Iterable[str]) -> list[tuple[str, MethodResult]]:
        """The methods of `methods` that ran here on another DAG than the row's bound is for (`other_dag`)."""
        return [(m, res) for m in methods if (res := self.results.get(m)) and res.other_dag and res.rounds is not None]

    def gap(self, method: str) -> float | None:
        """rounds / lower bound - 1 for a merged-DAG method on the row's routes, else None."""
        r = self.results.get(method)
        if r is None or r.rounds is None or not schedules_tree_dag(method) or r.other_dag:
            return None
        return gap(r.rounds, self.lower_bound)

    def latency_note(self, methods: Iterable[str] | None = None) -> str | None:
        """``"<methods>: <note>"`` when some method's async time here is latency-dominated (`core.seconds.latency_note`,
        with the reason its gap to the bandwidth bound is large), else None; `methods` default to every result."""
        return latency_line([(m, t) for m in (self.results if methods is None else methods)
                             if (t := _part(self, m, "time"))], bandwidth_gap=True)

    def as_dict(self) -> dict:
        """Plain JSON-ready form."""
        best = self.best_merged()
        return {
            "name": self.name, "spec": self.spec, "nodes": self.nodes, "edges": self.edges,
            "servers": self.servers, "workloads": self.workloads, "lower_bound": self.lower_bound, "merge": self.merge,
            "bounds": self.bounds,
            "methods": {m: {"rounds": _rounds(m, r.rounds), "std": r.std, "per_seed": r.per_seed, "own_dag_bound": r.own_bound,
                            "gap": self.gap(m), "seconds": round(r.seconds, 3), "info": r.info, "error": r.error,
                            "time": r.time, "replan": r.replan or None, "other_dag": r.other_dag}
                        for m, r in self.results.items()},
            "best_merged_gap": gap(best.rounds, self.lower_bound) if best else None,
            "latency_note": self.latency_note(),
            "paper": None if self.paper is None else {
                "nodes": self.paper.paper_nodes, "edges": self.paper.paper_edges,
                "workloads": self.paper.paper_workloads, "ps": self.paper.paper_ps,
                "ring": self.paper.paper_ring, "rl": self.paper.paper_rl},
        } | ({"network": self.network} if self.network else {})  # as a schedule file records it


def _rounds(method: str, rounds: float | None) -> float | int | None:
    """A method's rounds as the table writes them: a mean over seeds (a float) for a seeded method, else the count."""
    return rounds if rounds is None or get_method(method).randomized else int(rounds)


def configurations(preset_name: str | None = None, specs: Iterable[str] = ()) -> list[tuple[str, str, Preset | None]]:
    """(name, spec, paper values) for a preset and/or explicit spec strings; a spec that names a preset's
    configuration (``bcube:3,1``, Table 2's BCube(3,1)) has its paper values too (`paper_preset`)."""
    out: list[tuple[str, str, Preset | None]] = []
    if preset_name:
        out += [(p.name, p.spec, p) for p in preset(preset_name)]
    out += [(keyed_spec(s), s, paper_preset(s)) for s in specs]  # one name per topology, whichever form was typed
    if not out:
        raise ValueError("compare needs --preset NAME or at least one topology spec")
    return out


def compare(configs: list[tuple[str, str, Preset | None]], methods: Iterable[str] | None = None,
            seeds: int = 5, config: ScheduleConfig | None = None,
            progress: Callable[[str], None] | None = None, size: float = DEFAULT_SIZE_BYTES,
            fail: str | None = None, slow: str | None = None,
            event: tuple[str, str | None, str | None] | None = None,
            searching: Callable[[str, str], None] | None = None) -> list[Row]:
    """Run every method on every configuration; randomized methods are averaged over `seeds` seeds.

    Each schedule is also replayed in seconds for a message of `size` bytes (`MethodResult.time`).
    `fail` and `slow` fail or slow links before the run (texts of `core.topology.degrade`, read on each
    configuration); `event` = (when, fail, slow) changes links during the run (`LinkEvent.parse`) and every
    method re-plans the rest (`MethodResult.replan`). `searching(configuration, method)` is called when a
    CP-SAT method starts searching there (optimal: critical-path's schedule missed the lower bound).
    """
    base = config or ScheduleConfig()
    methods = list(default_methods() if methods is None else methods)
    for m in methods:
        get_method(m)
    if seeds < 1:
        raise ValueError(f"seeds must be >= 1, got {seeds}")
    rows = []
    for name, spec, paper in configs:
        built = make_topology(spec)
        topo = degrade(built, fail=fail, slow=slow)
        change = LinkEvent.parse(topo, *event, nominal=built.bandwidth) if event else None
        moved = changes(built, topo)
        row = compare_topology(topo, methods, seeds, base, name=name + network_tag(moved, built), paper=paper,
                               progress=progress, size=size, change=change, searching=searching)
        row.network = moved if moved["failed"] or moved["slowed"] else None
        rows.append(row)
    return rows


def network_tag(moved: dict, topology: Topology | None = None, most: int = 6) -> str:
    """What a row's name adds when --fail-links or --slow-links changed its network (`degrade.changes`), so two
    networks never share a name: each link by the name the user types (`degrade.link_name`, of `topology`; its id
    without one), `` (failed s01-sw0.0,s12-sw0.1; slowed s00-sw1.0 x0.25)`` (it read ``slowed 8 x0.1``: a link id
    the user had not typed), each link's factor where they differ (``slowed 3 x0.25, 7 x0.5``), at most `most`
    links of each named, cut as every list is (`degrade.few`: ``... and 12 more``), and the speed they run at where
    they share it (``x0.002 to 0.1 Gbit/s``); empty when nothing changed. A list of links has no space after its
    commas, as --fail-links takes it: the links of a row's name can be typed back as the option."""
    def name(e: int) -> str:
        return str(e) if topology is None else link_name(topology, int(e))

    parts = [f"failed {few([name(e) for e in moved['failed']], most, ',')}"] if moved["failed"] else []
    if moved["slowed"]:
        # the factor and, where the links share it, the speed they run at: a user who typed LINK:GBITS reads what
        # they typed (trial 31: `tor0-tor1:0.1` named the row `x0.002` alone)
        factors = [f"x{to / was:.3g}" for _, was, to in moved["slowed"]]
        speeds = [f"{to:.3g} Gbit/s" for _, _, to in moved["slowed"]]
        links = [name(e) for e, _, _ in moved["slowed"]]
        if len(set(factors)) == 1:
            same = f" to {speeds[0]}" if len(set(speeds)) == 1 else ""
            parts.append(f"slowed {few(links, most, ',')} {factors[0]}{same}")
        else:
            parts.append("slowed " + few([f"{e} {f} to {v}" for e, f, v in zip(links, factors, speeds)], most))
    return f" ({'; '.join(parts)})" if parts else ""


def compare_topology(topo: Topology, methods: Iterable[str], seeds: int = 5, config: ScheduleConfig | None = None,
                     name: str | None = None, paper: Preset | None = None,
                     progress: Callable[[str], None] | None = None, size: float = DEFAULT_SIZE_BYTES,
                     change: LinkEvent | None = None, searching: Callable[[str, str], None] | None = None) -> Row:
    """Every method on one built topology (e.g. an uploaded file); randomized ones averaged over `seeds` seeds.

    With `change`, every schedule is also re-planned after that mid-run link event (`MethodResult.replan`).
    `searching(name, method)`: called once per run in which a CP-SAT method starts searching.
    """
    base = config or ScheduleConfig()
    name = name or topo.spec
    dag = build_dag(topo, "tree", merge=base.merge, chunks=base.chunks, routing=base.routing)
    lb, n_workloads, row_routing = lower_bounds(dag), dag.n, dag.meta.get("routing")
    del dag  # only its bound is read: the methods' runs below do not share it, and the guard prices each run alone
    results: dict[str, MethodResult] = {}
    for m in methods:
        if progress:
            progress(f"{name} {m}")
        start = time.perf_counter()
        runs = range(seeds) if get_method(m).randomized else [base.seed]
        per_seed, info, own, reports, moved, other = [], {}, 0, [], [], None
        try:
            for s in runs:
                sched = run_method(m, topo, replace(base, seed=s, size=int(size)), _search_progress(searching, name, m))
                per_seed.append(sched.n_rounds)
                info = sched.info
                other = other_dag(m, sched.dag, row_routing) or other
                # schedule's lean report (the DAG's derived arrays dropped once used); the bounds on the first seed
                stats, timing = schedule_report(sched, size, with_stats=not own)
                own = own or stats["bounds"]["best"]
                reports.append(timing)
                if change is not None:
                    moved.append(_replan_numbers(replan(sched, change, size=size)))
                del sched  # before the next run: one schedule alive at a time, as the guard prices it
        except (ValueError, ImportError) as err:  # e.g. no RL checkpoint: the row shows n/a
            if isinstance(err, TopologyError):
                raise  # a failure that cuts a server off is the user's error, not one method's
            results[m] = MethodResult(m, None, [], 0, time.perf_counter() - start, {}, str(err))
            continue
        results[m] = MethodResult(m, float(np.mean(per_seed)), per_seed, own, time.perf_counter() - start,
                                  _small_info(info), time=mean_time_report(reports), replan=_mean_report(moved),
                                  other_dag=other)
    return Row(name, topo.spec, topo.n_nodes, topo.n_edges, topo.n_servers, n_workloads, lb.best, lb.as_dict(), results,
               paper, base.merge)


def _search_progress(searching: Callable[[str, str], None] | None, name: str,
                     method: str) -> Callable[[float], None] | None:
    """The progress callback of one run of `method` that calls `searching(name, method)` at its first call (a CP-SAT
    method's first is when its search starts: `core.schedulers.optimal.solve_optimal`); None for other methods."""
    if searching is None or get_method(method).solver != "cp-sat":
        return None
    said = []

    def progress(_share: float) -> None:
        if not said:
            said.append(True)
            searching(name, method)
    return progress


def _replan_numbers(r: Replan) -> dict:
    """The numeric part of a re-planned run's summary (averaged over seeds by `_mean_report`)."""
    s = r.summary()
    return {k: v for k, v in s.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def replan_table(rows: list[Row], methods: list[str]) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the mid-run event table: failure-free and re-planned finish, time lost."""
    keys = ("at_s", "failure_free_s", "finish_s", "lost_s")
    found = list(_with(rows, methods, "replan"))
    unit, per_second = time_unit(res.replan[k] for _, _, res in found for k in keys)
    header = ["config", "method", f"event {unit}", f"failure-free {unit}", f"finish {unit}", f"lost {unit}", "lost",
              "re-sent", "re-routed", "re-plan s"]
    body = []
    for r, m, res in found:
        x = res.replan
        body.append([r.name, m] + [f"{x[k] * per_second:.3f}" for k in keys]
                    + [f"{100 * x['lost_share']:+.1f}%", f"{x['resent']:.0f}", f"{x['rerouted']:.0f}",
                       f"{x['replan_wall_s']:.3f}"])
    return header, body


def _with(rows: list[Row], methods: list[str], part: str):
    """(row, method, result) for every result that ran and has `part` ("time" or "replan")."""
    for r in rows:
        for m in methods:
            if _part(r, m, part):
                yield r, m, r.results[m]


def _part(r: Row, m: str, part: str) -> dict:
    """Method `m`'s `part` ("time", "replan" or "info") on configuration `r`; empty where it did not run there."""
    res = r.results.get(m)
    return getattr(res, part) if res is not None and res.rounds is not None else {}


def mean_time_report(reports: list[dict]) -> dict:
    """Time reports (`core.seconds.time_report`) of one method over its seeds as one: the mean time of each mode,
    and algbw, busbw and the gaps of that mean time (M / mean time, not the mean of each seed's M / time, which
    is larger whenever the seeds' times differ: a column of times and a column of algbw that disagreed); the
    bounds and the rest averaged key by key (`_mean_report`)."""
    out = _mean_report(reports)
    for mode in MODES:
        if mode not in out:
            continue
        m, first = out[mode], reports[0][mode]
        m["algbw_Bps"] = out["size_bytes"] / m["time_s"]
        m["busbw_Bps"] = m["algbw_Bps"] * (first["busbw_Bps"] / first["algbw_Bps"])  # nccl-tests' 2(n-1)/n
        m.update(mode_gaps(out, mode, m["time_s"]))
    return out


def _mean_report(reports: list[dict]) -> dict:
    """The time report of a method averaged over its seeds (numbers averaged key by key; the mean of integers
    that is a whole number, such as ranks or a count every seed agrees on, stays an integer)."""
    def mean(items: list):
        if isinstance(items[0], dict):
            return {k: mean([x[k] for x in items]) for k in items[0]}
        if isinstance(items[0], (int, float, np.number)) and not isinstance(items[0], (bool, np.bool_)):
            m = float(np.mean(items))
            whole = all(isinstance(x, (int, np.integer)) for x in items) and m.is_integer()
            return int(m) if whole else m
        return items[0]
    return mean(reports) if reports else {}


def time_table(rows: list[Row], methods: list[str]) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the seconds table as the CLI prints it (`time_cells`' header and text)."""
    header, text, _ = time_cells(rows, methods)
    return header, text


def time_cells(rows: list[Row], methods: list[str]) -> tuple[list[str], list[list[str]], list[list[str | float]]]:
    """Header and cells of the seconds table, the CLI's and the dashboard's: one line per configuration and method, the
    times in one unit for the whole table (`core.units.time_unit`: µs at 1 KB, where every time is under 1 ms) and the
    rates in one unit (`core.units.rate_unit`: MB/s at 1 KB, not 0.10 GB/s). Each cell twice: as the CLI prints it
    (``15.060``, ``45,000,100.0%``) and, beside it, as the number that text shows (15.06, 45000100.0: rounded as it
    is printed, the percent without its sign); the config and method cells are text in both."""
    found = list(_with(rows, methods, "time"))
    unit, per_second = time_unit(res.time[mode]["time_s"] for _, _, res in found for mode in MODES)
    rate, per = rate_unit(res.time["async"][k] for _, _, res in found for k in ("algbw_Bps", "busbw_Bps"))
    header = ["config", "method", "rounds"] + [f"{m} {unit}" for m in MODES] + [f"algbw {rate}", f"busbw {rate}"] \
        + GAP_COLUMNS
    text, numbers = [], []
    for r, m, res in found:
        a = res.time["async"]
        mark = NOT_PROVEN if res.info.get("proven_optimal") is False else ""  # as the rounds table (trial 22)
        shown = ([_shown(res.rounds, 1 if get_method(m).randomized else 0, suffix=mark)]
                 + [_shown(res.time[mode]["time_s"] * per_second, 3) for mode in MODES]
                 + [_shown(a["algbw_Bps"] / per, 2), _shown(a["busbw_Bps"] / per, 2)]
                 + [_shown_percent(a["gap"][k]) for k in GAP_KEYS])
        text.append([r.name, m] + [t for t, _ in shown])
        numbers.append([r.name, m] + [x for _, x in shown])
    return header, text, numbers


def _shown(value: float, decimals: int, spec: str = "", suffix: str = "") -> tuple[str, float]:
    """`value` as a table prints it (`decimals` after the point; `spec` ``,``: thousands separated; `suffix` after the
    number) and the number that text shows (both round correctly: ``f"{x:.3f}"`` reads back as ``round(x, 3)``)."""
    return f"{value:{spec}.{decimals}f}{suffix}", round(value, decimals)


def _shown_percent(fraction: float) -> tuple[str, float]:
    """A gap as the text prints it (`core.units.gap_shown`: ``12.5%``; from 10x its bound up the ratio, ``884,000x``
    for a gap to the bandwidth bound at 1 B, not ``88,428,767.1%``) and the percent that text shows (12.5)."""
    return gap_shown(fraction)


def other_dag(method: str, dag: WorkloadDAG, row_routing: str | None) -> str | None:
    """For a method of the tree DAG whose run scheduled another DAG than the row's (time-aware tries every routing
    mode and a ring): "ring", or the routing mode of its trees; None when it scheduled the row's DAG (or is a method
    of another DAG, whose rounds the row's bound is not read against anyway)."""
    if get_method(method).dag != "tree":
        return None
    if dag.kind != "tree":
        return dag.kind  # time-aware's ring: the tree DAG's bound is no bound for it
    routing = dag.meta.get("routing")
    return routing if routing != row_routing else None


def other_dag_words(other: str) -> str:
    """What a method whose DAG is not the row's chose (`MethodResult.other_dag`), e.g. "a ring", "balanced routes"."""
    return "a ring" if other == "ring" else f"{other} routes"


def other_dag_note(res: MethodResult) -> str:
    """Why a method whose DAG is not the row's (`MethodResult.other_dag`) has no gap: the CLI's and the dashboard's
    words, after the method's name."""
    return (f"chose {other_dag_words(res.other_dag)}; the table's bound is for the flow-tree DAG the others schedule, "
            f"so it is left out of best gap (its own DAG's bound: {res.own_bound})")


def routing_notes(rows: list[Row], methods: list[str]) -> list[str]:
    """One line per configuration where a tree-DAG method scheduled another DAG than the row's bound is for
    (time-aware picks its routing mode, or a ring): what it chose, its own DAG's bound, and that it is left out of
    the gap (`other_dag_note`)."""
    out = []
    for r in rows:
        if other := r.other_dags(methods):
            out.append(f"{r.name}: " + "; ".join(f"{m} {other_dag_note(res)}" for m, res in other))
    return out


OWN_DAG_WORDS = {"ring": "a ring", "plain": "unmerged trees"}
"""What the DAG of a method that never schedules the merged trees is, by its registry `dag`."""


def under_bound_notes(rows: list[Row], methods: list[str], title: Callable[[str], str] = str) -> list[str]:
    """One line per configuration where a method of another DAG than the bound's (ring, ps) took fewer rounds than
    the table's lower bound, which is the merged tree DAG's: that bound is no bound for it (trial 28: ring 14 under
    "lower bound 18" read as a bound broken). `title`: how a method is named (the CLI: its id)."""
    out = []
    for r in rows:
        under = [(m, res) for m in methods if (res := r.results.get(m)) is not None and res.rounds is not None
                 and get_method(m).dag in OWN_DAG_WORDS and res.rounds < r.lower_bound]
        if under:
            out.append(f"{r.name}: " + "; ".join(
                f"{title(m)} took {res.rounds:g} rounds, under the lower bound {r.lower_bound}: that bound is the "
                f"{'merged' if r.merge else 'unmerged'} tree DAG's, and {title(m)} schedules "
                f"{OWN_DAG_WORDS[get_method(m).dag]} (its own DAG's bound: {res.own_bound})" for m, res in under))
    return out


OTHER_DAG_CSV = "left out of best gap"
"""The CSV's column naming the methods that scheduled another DAG than the bound's (`routing_notes`)."""


def other_dag_column(rows: list[Row], methods: list[str]) -> tuple[list[str], list[list[str]]]:
    """Header and cells (one line per configuration) for the CSV: ``time-aware: a ring (own DAG's bound 28)`` where
    a method scheduled another DAG than the bound column's, empty elsewhere; no column when no row has one."""
    cells = ["; ".join(f"{m}: {other_dag_words(res.other_dag)} (own DAG's bound {res.own_bound})"
                       for m, res in r.other_dags(methods)) for r in rows]
    return optional_column(OTHER_DAG_CSV, cells)


def optional_column(name: str, cells: list[str]) -> tuple[list[str], list[list[str]]]:
    """Header and cells of a CSV column that only some rows fill (one cell per row, "" where empty): the column
    when some cell is not empty, else no column at all (the rule of every optional column of compare's CSV, the
    CLI's and the dashboard's: a column empty on every row says nothing)."""
    return ([name], [[c] for c in cells]) if any(cells) else ([], [[] for _ in cells])


def latency_notes(rows: list[Row], methods: list[str]) -> list[str]:
    """One line per configuration where some method's async time is latency-dominated (`core.seconds.latency_note`):
    those methods and the bounds."""
    return [f"{r.name} {note}" for r in rows if (note := r.latency_note(methods))]


def _small_info(info: dict) -> dict:
    """Drop bulky entries (ring orders, traces) from a schedule's info for the table."""
    return {k: v for k, v in info.items() if k in ("status", "proven_optimal", "proven_bound", "solve_work",
                                                   "ring_adjacent", "samples", "temperature", "opening", "checkpoint", "trained_on",
                                                   "trained_on_this_topology", "trained_on_this_configuration",
                                                   "trained_with", "run_with", "kept_start", "fallback", "file_spec",
                                                   "policy_rounds", "critical_path_rounds")}


def bound_label(rows: list[Row]) -> str:
    """The bound column's name: ``LB(merged)``, or ``LB(unmerged)`` when the rows' tree DAG is not merged."""
    return "LB(merged)" if all(r.merge for r in rows) else "LB(unmerged)"


def rows_to_table(rows: list[Row], methods: list[str], numeric: bool = False) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the rounds table: as the text prints it (``12.5%``, ``-`` and ``n/a`` where missing, ``*``
    after an optimum not proven), or with `numeric` as the CSV writes it: numbers only (``best gap (%)``), empty
    cells where missing (whether an optimum is proven is in `optimal_columns`)."""
    header = ["config", "nodes", "edges", "workloads"] + methods + [bound_label(rows),
                                                                    BEST_GAP_CSV if numeric else "best gap",
                                                                    "paper PS", "paper Ring", "paper RL"]
    missing = "" if numeric else "n/a"
    body = []
    for r in rows:
        cells = [r.name, str(r.nodes), str(r.edges), str(r.workloads)]
        for m in methods:
            res = r.results.get(m)  # absent: it could not run there (the dashboard keeps only those that ran)
            if res is None or res.rounds is None:
                cells.append(missing)
                continue
            txt = csv_number(res.rounds) if numeric else f"{res.rounds:.1f}" if get_method(m).randomized \
                else f"{res.rounds:.0f}"
            if not numeric and "proven_optimal" in res.info and not res.info["proven_optimal"]:
                txt += NOT_PROVEN
            cells.append(txt)
        best = r.best_merged()
        cells += [str(r.lower_bound), _percent(gap(best.rounds, r.lower_bound), numeric) if best else _num(None, numeric)]
        p = r.paper
        cells += [_num(getattr(p, f) if p else None, numeric) for f in ("paper_ps", "paper_ring", "paper_rl")]
        body.append(cells)
    return header, body


def _percent(fraction: float, numeric: bool) -> str:
    """A gap as the text prints it (`_shown_percent`: ``12.5%``, from 10x its bound up ``884,000x``) or as the CSV
    writes it (``12.5``, percent, `csv_number`)."""
    return csv_number(100 * fraction) if numeric else _shown_percent(fraction)[0]


NOT_PROVEN = "*"
"""The mark after an exact method's rounds that CP-SAT did not prove optimal (the text's cell, the dashboard's)."""


def unproven(rows: list[Row], methods: Iterable[str]) -> dict[str, list[tuple[Row, MethodResult]]]:
    """Per exact (CP-SAT) method of `methods`, the configurations where it ran but did not prove its rounds optimal
    (it stopped at its time limit): the rows and its results there; a method proven everywhere is absent."""
    out: dict[str, list[tuple[Row, MethodResult]]] = {}
    for m in methods:
        for r in rows:
            res = r.results.get(m)
            if res is not None and res.rounds is not None and res.info.get("proven_optimal") is False:
                out.setdefault(m, []).append((r, res))
    return out


def shortest_schedule(row: Row) -> tuple[str, int] | None:
    """The method with the shortest single schedule of the row's DAG (the one its bound is for: a merged-tree method
    on the row's routes, `Row.gap`'s rule) and its rounds, its best seed's for a seeded one; None when none ran."""
    got = [(min(r.per_seed), m) for m, r in row.results.items() if row.gap(m) is not None and r.per_seed]
    return None if not got else (min(got)[1], min(got)[0])


def unproven_ranges(found: list[tuple[Row, MethodResult]], title: Callable[[str], str] = str) -> str:
    """Where an optimum is not proven and where it lies, from `unproven`, each group led by its reason, so that no
    reason reads as applying to another group's configurations (trial 23: "A (optimum 41 to 42); B (optimum 40), C
    (optimum 29): rl's schedule meets the bound" read as said of A too). Where the shortest schedule any compared
    method found there (`shortest_schedule`) meets CP-SAT's proven bound the optimum is that bound, said once per
    method: ``rl's schedule meets the bound on BCube(5,1) (optimum 40), DCell(4,1) (optimum 24)``; the others last:
    ``not known on Jellyfish(20) (optimum 41 to 42), Jellyfish(15) (29 to 37), where it lies between CP-SAT's proven
    bound and the shortest schedule of any method here``; `title` names a method. What the optimum is of:
    `optimum_scope`."""
    open_parts: list[str] = []
    known: dict[str, list[str]] = {}
    for r, res in found:
        bound = res.info.get("proven_bound", r.lower_bound)
        method, upper = shortest_schedule(r) or (res.method, int(res.rounds))
        if upper <= bound:
            known.setdefault(method, []).append(f"{r.name} (optimum {bound})")  # not "(40)": read as CP-SAT's (trial 22)
        else:
            open_parts.append(f"{r.name} ({'' if open_parts else 'optimum '}{bound} to {upper})")
    parts = [f"{title(m)}'s schedule meets the bound on {', '.join(where)}" for m, where in known.items()]
    if open_parts:
        parts.append(f"not known on {', '.join(open_parts)}, where it lies between CP-SAT's proven bound and the "
                     "shortest schedule of any method here")
    return "; ".join(parts)


def tree_dag_words(rows: list[Row]) -> str:
    """The tree DAG the rows' bound and optimum are for, in words: ``merged-tree``, or ``plain-tree`` (--no-merge)."""
    return "merged-tree" if all(r.merge for r in rows) else "plain-tree"


def optimum_scope(found: list[tuple[Row, MethodResult]], methods: Iterable[str], title: Callable[[str], str] = str
                  ) -> str:
    """What the optimum of `unproven_ranges` is the optimum of: CP-SAT's, over the schedules of the rows' tree DAG
    (the lower bound's), naming the methods of `methods` that ran on another DAG there (Ring's ring, PS's plain
    trees, time-aware's other routes), whose rounds may be below it (trial 23: Ring's 38 under "optimum 41 to 42"):
    ``the optimum of the merged-tree schedules (the DAG the lower bound is for; ring and ps schedule other DAGs and
    may take fewer rounds)``."""
    rows = [r for r, _ in found]
    others = [title(m) for m in methods
              if any((res := r.results.get(m)) is not None and res.rounds is not None and r.gap(m) is None
                     for r in rows)]
    said = f"the optimum of the {tree_dag_words(rows)} schedules (the DAG the lower bound is for"
    if others:
        who = others[0] if len(others) == 1 else f"{', '.join(others[:-1])} and {others[-1]}"
        said += f"; {who} schedule{'s' if len(others) == 1 else ''} other DAGs and may take fewer rounds"
    return said + ")"


def unproven_statuses(found: list[tuple[Row, MethodResult]]) -> str:
    """What CP-SAT had on each configuration of `found` (`unproven`) when it stopped, in plain words, said once per
    configuration, grouped by status (`core.schedulers.status.stopped_words`): ``on BCube(5,1), DCell(4,1) it found no
    schedule of its own within the limit, so the result is its starting schedule, critical-path's (status UNKNOWN); on
    Jellyfish(10) it found a schedule but did not prove it the shortest (status FEASIBLE)``; ``on all 7 it ...`` where
    one status holds on all of several. The statuses alone, "(UNKNOWN, FEASIBLE)", said neither which configuration
    had which nor that UNKNOWN's result is CP-SAT's starting schedule (trial 22)."""
    by: dict[str, list[str]] = {}
    for r, res in found:
        by.setdefault(str(res.info.get("status", "?")), []).append(r.name)
    if len(by) == 1 and len(found) > 1:
        return f"on all {len(found)} it {stopped_words(next(iter(by)))}"
    return "; ".join(f"on {', '.join(names)} it {stopped_words(status)}" for status, names in by.items())


def capitalized(text: str) -> str:
    """`text` with its first letter upper case (the rest as it is: method names stay as written)."""
    return text[:1].upper() + text[1:]


def unproven_lines(rows: list[Row], methods: list[str], time_limit: float) -> list[str]:
    """The text's line per exact method with a result not proven optimal (`unproven`; the cells marked
    `NOT_PROVEN`): where, between what its optimum lies, and what CP-SAT had on each (`unproven_statuses`)."""
    return [f"{NOT_PROVEN} {m}: NOT proven optimal on {len(found)} of {len(rows)} configurations. "
            f"{capitalized(optimum_scope(found, methods))}: {unproven_ranges(found)}. CP-SAT stopped at its "
            f"{time_limit:g} s time limit (--time-limit): "
            f"{unproven_statuses(found)}"
            for m, found in unproven(rows, methods).items()]


def learned_notes(rows: list[Row], methods: list[str]) -> list[str]:
    """One line per configuration on which a learned method ran: its checkpoint, whether it was
    trained on that topology, for a sampled method its samples and temperature, whether the checkpoint went by the
    spec a topology file carries, and whether its training kept the starting weights."""
    lines = []
    for r in rows:
        parts = []
        for m in methods:
            info = _part(r, m, "info")
            if "checkpoint" not in info:
                continue
            answer = training_answer(info)
            # what it was trained on where not on this topology, as `schedule` says it (trial 30: only "no")
            elsewhere = f"; {trained_elsewhere(info, r.spec)}" if answer == "no" else ""
            txt = f"{m}: checkpoint {checkpoint_label(info)} (trained on this topology: {answer}{elsewhere})"
            if sampled := sampling_note(info):
                txt += f", {sampled}"
            if said := file_spec_text(info):  # as `schedule` says it under its checkpoint line
                txt += f"; {said}"
            if info.get("kept_start"):
                txt += f"; {KEPT_START}"
            parts.append(txt)
        if parts:
            lines.append(f"{r.name}: " + "; ".join(parts))
    return lines


def optimal_columns(rows: list[Row], methods: list[str]) -> tuple[list[str], list[list[str]]]:
    """Header and cells (one line per configuration) of whether each exact method (CP-SAT) proved its rounds
    optimal, for the CSV (the text's ``*``): ``<method> proven`` yes/no and ``<method> status``, CP-SAT's status
    (OPTIMAL, FEASIBLE, UNKNOWN: its result is then its starting schedule, critical-path's; trial 23: said only in
    free-text notes), empty where it did not run."""
    exact = [m for m in methods if get_method(m).solver == "cp-sat"]
    infos = [[_part(r, m, "info") for m in exact] for r in rows]
    body = [[cell for i in line for cell in (_yes(i.get("proven_optimal")), str(i.get("status", "")))]
            for line in infos]
    return [f"{m} {what}" for m in exact for what in ("proven", "status")], body


FILE_SPEC_CSV = "file spec"
"""The CSV's column, after a learned method's name (``rl file spec``), of what the spec a topology file carries did to
its checkpoint (`file_spec_text`, the sentence the text and the dashboard say beside the checkpoint)."""


def learned_columns(rows: list[Row], methods: list[str]) -> tuple[list[str], list[list[str]]]:
    """Header and cells (one line per configuration) of what each learned method ran, for the CSV: its
    checkpoint, trained on that topology and on that configuration (merge, chunks, routing) yes/no, for a
    sampled method its samples, temperature and opening (``none``, T:F, or a split's list ``none,0.5:0.3``), and,
    only when some row ran on a topology file carrying a spec (`optional_column`), ``<method> file spec``: whether
    the checkpoint went by that spec, the text's sentence (`file_spec_text`; trial 22: the CSV lacked it); empty
    where the method did not run."""
    header: list[str] = []
    body: list[list[str]] = [[] for _ in rows]
    for m in methods:
        meth = get_method(m)
        if meth.solver != "rl":
            continue
        cols: list[tuple[str, Callable[[dict], str]]] = [
            ("checkpoint", checkpoint_label),
            ("trained on topology", lambda i: _yes(i.get("trained_on_this_topology"))),
            ("trained on configuration", lambda i: _yes(i.get("trained_on_this_configuration")))]
        if meth.sampled:
            cols += [("samples", lambda i: str(i["samples"])), ("temperature", lambda i: show_temperature(i["temperature"])),
                     ("opening", lambda i: show_opening(i.get("opening")))]
        infos = [r.results[m].info if m in r.results and "checkpoint" in r.results[m].info else None
                 for r in rows]  # a method that could not run there has no result
        said_head, said = optional_column(f"{m} {FILE_SPEC_CSV}", [file_spec_text(i) or "" if i else "" for i in infos])
        header += [f"{m} {what}" for what, _ in cols] + said_head
        body = [line + ["" if i is None else cell(i) for _, cell in cols] + more
                for line, i, more in zip(body, infos, said)]
    return header, body


def time_columns(rows: list[Row], methods: list[str], size: float) -> tuple[list[str], list[list[str]]]:
    """Header and cells (one line per configuration) of the seconds table for the CSV: the message size in
    bytes, then per method its sync and async milliseconds and the async replay's algbw and busbw in GB/s
    (1e9 B/s; for a seeded method of its mean time over seeds), and the seconds table's gaps of the async time to the
    bandwidth bound and to its own DAG's best bound (percent numbers: 12.3 under ``gap BW bound (%)``), every one by
    `csv_number` (6 significant digits in plain decimal; the rates had 4, and 1 B gave 8.333e-05); empty where it did
    not run."""
    header = ["M bytes"] + [f"{m} {what}" for m in methods for what in [f"{mode} ms" for mode in MODES]
                            + ["algbw GB/s", "busbw GB/s"] + [f"{g} (%)" for g in GAP_COLUMNS]]
    body = []
    for r in rows:
        cells = [str(int(size))]
        for m in methods:
            t = _part(r, m, "time")
            if not t:
                cells += [""] * (len(MODES) + 2 + len(GAP_COLUMNS))
                continue
            a = t["async"]
            cells += [csv_number(t[mode]["time_s"] * 1e3) for mode in MODES]
            cells += [csv_number(a["algbw_Bps"] / 1e9), csv_number(a["busbw_Bps"] / 1e9)] + _gaps_csv(a)
        body.append(cells)
    return header, body


LATENCY_NOTE_CSV = "latency note"
"""The CSV's column of the text's latency note (`Row.latency_note`)."""


def latency_column(rows: list[Row], methods: list[str]) -> tuple[list[str], list[list[str]]]:
    """Header and cells (one line per configuration) of the latency note for the CSV: the text's line without the
    configuration's name (``ps, ring: latency-dominated: ...``), empty where no method's time is latency-dominated;
    no column at all when no row has a note (it was empty on every row of a run at 100 MB, unexplained)."""
    notes = [r.latency_note(methods) or "" for r in rows]
    return optional_column(LATENCY_NOTE_CSV, notes)


def _gaps_csv(replay: dict) -> list[str]:
    """The CSV's cells under `GAP_COLUMNS` of one async replay: its gaps to the bandwidth bound and the best bound, in
    percent (`csv_number`); the text's are `time_cells`'."""
    return [csv_number(100 * replay["gap"][k]) for k in GAP_KEYS]


def csv_table(rows: list[Row], methods: list[str], size: float, event: bool = False) -> tuple[list[str], list[list[str]]]:
    """Header and cells of compare's CSV, the CLI's and the dashboard's (which may add columns after these):
    the rounds table in numbers (`rows_to_table`), the methods left out of best gap for scheduling another DAG
    (`other_dag_column`: only when some row has one), what each learned method ran (`learned_columns`), whether
    each exact method proved its optimum (`optimal_columns`), the seconds table (`time_columns`), the text's
    latency note (`latency_column`: only when some row is latency-dominated) and, with a mid-run `event`, its
    numbers (`replan_columns`). Every number is a plain number written by one rule (`csv_number`: whole numbers whole,
    the others to 6 significant digits in plain decimal; percent in a header's ``(%)``), every missing value an empty
    cell."""
    header, body = rows_to_table(rows, methods, numeric=True)
    parts = [other_dag_column(rows, methods), learned_columns(rows, methods), optimal_columns(rows, methods),
             time_columns(rows, methods, size), latency_column(rows, methods)]
    for head, cells in parts + ([replan_columns(rows, methods)] if event else []):
        header = header + head
        body = [row + more for row, more in zip(body, cells)]
    return header, body


def csv_text(header: list[str], body: list[list[str]]) -> str:
    """A table as CSV text (cells already formatted: no float noise)."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(header)
    w.writerows(body)
    return buf.getvalue()


def replan_columns(rows: list[Row], methods: list[str]) -> tuple[list[str], list[list[str]]]:
    """Header and cells (one line per configuration) of the mid-run event table for the CSV: per method the
    event time, the failure-free and re-planned finish and the time lost (ms, 6 significant digits), and the
    workloads re-sent and re-routed; empty where it did not run."""
    fields = [("event ms", "at_s"), ("failure-free ms", "failure_free_s"), ("finish ms", "finish_s"),
              ("lost ms", "lost_s")]
    header = [f"{m} {what}" for m in methods for what in [f for f, _ in fields] + ["re-sent", "re-routed"]]
    body = []
    for r in rows:
        cells = []
        for m in methods:
            x = _part(r, m, "replan")
            if not x:
                cells += [""] * (len(fields) + 2)
                continue
            cells += [csv_number(x[key] * 1e3) for _, key in fields]
            cells += [csv_number(x[k]) for k in ("resent", "rerouted")]
        body.append(cells)
    return header, body


def _yes(flag: bool | None) -> str:
    return "" if flag is None else ("yes" if flag else "no")


def _num(x: float | None, numeric: bool = False) -> str:
    """A paper's number as printed (one decimal); missing: ``-`` in the text, empty in the CSV."""
    if x is None:
        return "" if numeric else "-"
    return csv_number(x) if numeric else f"{x:.1f}"
