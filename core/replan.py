"""Re-planning after a link fails or slows down during the run (docs/time.md, "Re-planning").

The run is the time replay of a method's schedule (asynchronous by default). A `LinkEvent`
changes the network at a moment: a time in seconds, or the moment the schedule's first r rounds
have all finished. At that moment

- a workload that has **finished** is delivered;
- a workload **in flight** on links that all still work goes on and finishes (on a slowed link its
  remaining share of the transfer takes longer in proportion); one in flight on a link that
  failed is lost and sent again;
- the runtime starts nothing new until the surviving transfers have drained (the **resume**
  time), then runs the re-planned rest.

The rest is the residual DAG (`core.residual`: unsent work keeps its endpoints, re-routed around
failed links, as relay chains where needed), and each method re-plans it its own way: the
registry's function of that method is called on the residual DAG (RL through its policy). The
rest is replayed on the changed network from the resume time; the **time lost** is the finish
against the failure-free run of the same schedule.

    from core.replan import LinkEvent, replan_methods
    event = LinkEvent.parse(topology, "2ms", fail="3")
    for r in replan_methods(topology, ScheduleConfig(), ["critical-path", "ring"], event):
        print(r.method, r.lost_s)
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable

import numpy as np

from .engine import Rounds
from .methods import InvalidSchedule, check_rounds, get_method, run_method
from .residual import combine, residual_dag
from .schedule import Plan, Schedule, ScheduleConfig
from .timing import ReplayPlan, Timing, transfer_times
from .topology import Topology, TopologyError, changes, degrade
from .topology.degrade import DisconnectedError, failed_mask, slowed_bandwidth
from .units import format_seconds
from .workloads import build_dag

_WHEN = re.compile(r"^\s*(?:round\s*=\s*(\d+)|([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(ns|us|µs|ms|s))\s*$")
_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
TIME_RESOLUTION_S = 1e-9
"""Below one nanosecond a difference of two replayed times is rounding noise of their float sums (a byte
takes 0.08 ns at 100 Gbit/s; latencies are microseconds): the time lost to an event is reported as 0."""


@dataclass(frozen=True)
class LinkEvent:
    """Links that fail and/or slow down during the run, at `at_s` seconds or after the first `at_round`
    rounds have finished (exactly one of the two). Hashable: the dashboard caches by it."""

    failed: tuple[int, ...] = ()
    """Undirected link ids that fail."""
    slowed: tuple[tuple[int, float], ...] = ()
    """(link id, new bandwidth in Gbit/s) pairs."""
    at_s: float | None = None
    at_round: int | None = None

    def __post_init__(self) -> None:
        if (self.at_s is None) == (self.at_round is None):
            raise ValueError("a link event needs exactly one moment: a time in seconds or a round")
        if self.at_s is not None and not (np.isfinite(self.at_s) and self.at_s >= 0):
            raise ValueError(f"the event time must be >= 0 seconds, got {self.at_s!r}")
        if self.at_round is not None and self.at_round < 0:
            raise ValueError(f"the event round must be >= 0, got {self.at_round!r}")
        if not self.failed and not self.slowed:
            raise ValueError("a link event must fail or slow at least one link")

    @classmethod
    def parse(cls, topology: Topology, when: str, fail: str | None = None, slow: str | None = None,
              what: str = "--fail-at", nominal: np.ndarray | None = None) -> "LinkEvent":
        """From texts: `when` ``2ms``, ``500us``, ``0.01s`` or ``round=10``; `fail` and `slow` as
        `core.topology.degrade` reads them (``3,17``, ``s00-sw0.0``; ``3:25``, ``3:x0.5``) on `topology`, the network
        before the event; `nominal`: its link speeds as built, where --slow-links slowed it (`slowed_bandwidth`)."""
        m = _WHEN.match(str(when))
        if m is None:
            raise TopologyError(f"{what}: the moment must be a time with a unit (2ms, 500us, 0.01s) or round=R, "
                                f"got {when!r}")
        at_round = int(m.group(1)) if m.group(1) is not None else None
        at_s = None if at_round is not None else float(m.group(2)) * _SECONDS[m.group(3)]
        dead = failed_mask(topology, fail, what) if fail else topology.failed  # failed before or at the event
        failed = np.flatnonzero(dead & ~topology.failed)
        slowed = []
        if slow:  # slowing a dead link changes nothing
            bw = slowed_bandwidth(topology, slow, what, nominal=nominal)
            slowed = [(int(e), float(bw[e])) for e in np.flatnonzero((bw != topology.bandwidth) & ~dead).tolist()]
        if not len(failed) and not slowed:
            raise TopologyError(f"{what}: the event changes no link (already failed, or the same bandwidth)")
        return cls(tuple(int(e) for e in failed), tuple(slowed), at_s, at_round)

    def apply(self, topology: Topology) -> Topology:
        """The topology after the event (TopologyError if it cuts a server off)."""
        failed = topology.failed.copy()
        failed[list(self.failed)] = True
        bw = topology.bandwidth.copy()
        for e, b in self.slowed:
            bw[e] = b
        return degrade(topology, fail=failed, slow=bw)

    def moment(self, timing: Timing) -> float:
        """Seconds after the start at which the event happens in this run."""
        if self.at_s is not None:
            return float(self.at_s)
        r = int(self.at_round)
        if r > len(timing.round_end):
            raise ValueError(f"the event round {r} is past the schedule's {len(timing.round_end)} rounds")
        return float(timing.round_end[r - 1]) if r else 0.0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"failed": list(self.failed), "slowed": [list(x) for x in self.slowed], "at_s": self.at_s,
                "at_round": self.at_round}


@dataclass
class Replan:
    """One method's run with a link event: the state at the event, the re-planned rest, the times."""

    method: str
    event: LinkEvent
    mode: str
    size: float
    schedule: Schedule
    """The schedule as planned before the event."""
    timing: Timing
    """Its failure-free replay."""
    topology: Topology
    """The network after the event."""
    at_s: float
    resume_s: float
    """When the re-planned rest starts: the event, or later once the surviving transfers have drained."""
    arrived_s: float
    """When the last delivered workload arrives (the finish when nothing is left to send)."""
    delivered: np.ndarray
    """Per workload of `schedule.dag`: finished, or allowed to finish, by the resume time."""
    lost: np.ndarray
    """Per workload: in flight on a failed link at the event (sent again)."""
    rest: Schedule
    """The re-planned rest: the method's rounds over the residual DAG (on `topology`)."""
    rest_timing: Timing | None
    replan_wall_s: float
    replan_cpu_s: float
    info: dict = field(default_factory=dict)

    @property
    def failure_free_s(self) -> float:
        """Completion time without the event."""
        return self.timing.time

    @property
    def finish_s(self) -> float:
        """Completion time with the event: resume time + the rest's replay (or the last arrival, when
        the event came after the last send)."""
        if self.rest_timing is None:
            return self.arrived_s
        return max(self.arrived_s, self.resume_s + self.rest_timing.time)

    @property
    def lost_s(self) -> float:
        """Time lost against the failure-free run (negative if the re-planned rest is faster); 0 when the two
        differ by less than `TIME_RESOLUTION_S` (rounding of float sums, not a loss)."""
        lost = self.finish_s - self.failure_free_s
        return 0.0 if abs(lost) < TIME_RESOLUTION_S else lost

    def combined(self) -> tuple[Any, Rounds]:
        """The whole run (delivered part, then the rest) as one DAG over the original topology and its rounds."""
        return combine(self.schedule.dag, self.schedule.rounds, self.delivered, self.rest.dag, self.rest.rounds)

    def combined_times(self) -> tuple[np.ndarray, np.ndarray]:
        """(start, finish) in seconds of every workload of `combined()`'s DAG, in its order: the delivered
        workloads as they ran (a transfer kept in flight on a slowed link ends later), then the rest,
        replayed from the resume time."""
        delivered, _, finish = _state(self.schedule.dag, self.timing, self.at_s, self.topology)
        start = self.timing.start[delivered]
        finish = finish[delivered]
        if self.rest_timing is None:
            return start, finish
        return (np.r_[start, self.resume_s + self.rest_timing.start],
                np.r_[finish, self.resume_s + self.rest_timing.finish])

    def summary(self) -> dict[str, Any]:
        """Plain numbers (JSON-ready)."""
        dag = self.schedule.dag
        in_flight = (self.timing.start < self.at_s) & (self.timing.finish > self.at_s)
        return {"method": self.method, "event": self.event.as_dict(), "mode": self.mode, "size_bytes": self.size,
                "changes": changes(dag.topology, self.topology), "at_s": self.at_s, "resume_s": self.resume_s,
                "failure_free_s": self.failure_free_s, "finish_s": self.finish_s, "lost_s": self.lost_s,
                "lost_share": self.lost_s / self.failure_free_s if self.failure_free_s > 0 else 0.0,
                "workloads": dag.n, "finished": int((self.timing.finish <= self.at_s).sum()),
                "in_flight_kept": int((in_flight & ~self.lost).sum()), "resent": int(self.lost.sum()),
                "not_started": int((self.timing.start >= self.at_s).sum()),
                "rest_workloads": self.rest.dag.n, "rest_rounds": self.rest.n_rounds,
                "rerouted": int(self.rest.dag.meta.get("rerouted", 0)),
                "rebuilt_trees": int(self.rest.dag.meta.get("rebuilt_trees", 0)),
                "replan_wall_s": self.replan_wall_s, "replan_cpu_s": self.replan_cpu_s, "info": self.info}


def run_state(dag, timing: Timing, at_s: float, after: Topology) -> tuple[np.ndarray, np.ndarray, float, float]:
    """(delivered, lost, resume time, when the last delivered workload arrives) of a run at the moment
    `at_s` when the network becomes `after`."""
    delivered, lost, finish = _state(dag, timing, at_s, after)
    drained = max(float(at_s), float(finish[delivered & (timing.finish > at_s)].max(initial=0.0)))
    arrived = float(finish[delivered].max()) if delivered.any() else 0.0
    return delivered, lost, drained, arrived


def _state(dag, timing: Timing, at_s: float, after: Topology) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(delivered, lost, finish time of every workload as the run goes on after the event)."""
    in_flight = (timing.start < at_s) & (timing.finish > at_s)
    dead = after.link_failed
    crosses = np.zeros(dag.n, dtype=bool)
    np.logical_or.at(crosses, dag.links.rows_of_values(), dead[dag.links.values])
    lost = in_flight & crosses
    going = np.flatnonzero(in_flight & ~lost)
    finish = timing.finish.copy()
    if len(going):
        # the remaining share of each surviving transfer runs at the new speed of its links
        now = transfer_times(dag, timing.size, np.where(after.link_failed, 1.0, after.link_bandwidth),
                             after.link_latency)
        share = (timing.finish[going] - at_s) / timing.duration[going]
        finish[going] = at_s + share * now[going]
    return (timing.finish <= at_s) | (in_flight & ~lost), lost, finish


def replan(schedule: Schedule, event: LinkEvent, *, size: float | None = None, mode: str = "async",
           config: ScheduleConfig | None = None, timing: Timing | None = None,
           progress: Callable[[float], None] | None = None, past_end: bool = True) -> Replan:
    """Run `schedule` until `event`, then let its method re-plan the rest on the changed network.

    An event after the run's end loses nothing (compare: some methods finish before it); with
    `past_end` False it is refused instead (ValueError naming the end), as a round past the last one is."""
    config = config or schedule.config
    if size is not None and int(size) != config.size:
        config = replace(config, size=int(size))  # the time-aware method plans for the size replayed
    size = float(config.size)
    m = get_method(schedule.method)
    if timing is None:
        timing = ReplayPlan(schedule.dag, schedule.rounds).run(size, mode)
    dag = schedule.dag
    try:
        after = event.apply(dag.topology)
    except DisconnectedError as err:  # said alone, it read as a failure before the run (trial 27)
        raise DisconnectedError(f"{run_at(event, timing, mode)}: {err}") from None
    at_s = event.moment(timing)
    if not past_end and event.at_round is not None and event.at_round >= len(schedule.rounds):
        n = len(schedule.rounds)
        raise ValueError(f"the event round {event.at_round} is the end of the schedule's {n} rounds: nothing is left "
                         f"to re-plan (round=R happens after round R; use R < {n})")
    if not past_end and at_s > timing.time:
        when, end = format_seconds(at_s), format_seconds(timing.time)
        if when == end:  # 10.7 ms past 10.7 ms: show the digits that differ
            when, end = f"{at_s:.9g} s", f"{timing.time:.9g} s"
        raise ValueError(f"the event time {when} is past the schedule's end at {end} ({mode} replay)")
    c0, w0 = time.process_time(), time.perf_counter()
    delivered, lost, resume, arrived = run_state(dag, timing, at_s, after)
    fresh = None
    begun = np.zeros(dag.n_trees, dtype=bool)
    begun[dag.tree[delivered]] = True
    if not begun.all() and (dag.kind == "ring" or (dag.kind == "tree" and not dag.merge)):
        # flow-trees not begun are rebuilt on the new routes
        fresh = build_dag(after, dag.kind, merge=dag.merge, chunks=dag.chunks,
                          routing=dag.meta.get("routing", config.routing),
                          both_ways=bool(dag.meta.get("both_ways")), fastest=bool(dag.meta.get("fastest")))
    rest_dag = residual_dag(dag, delivered, after, fresh=fresh)
    info: dict = {}
    rounds: Rounds = []
    if rest_dag.n:
        out = m.schedule(rest_dag, config, progress)
        plan = out if isinstance(out, Plan) else Plan(list(out))
        if plan.dag is not None:  # the method re-grew the rest under other routes (time-aware)
            if plan.dag.topology is not after or not plan.dag.meta.get("residual"):
                raise InvalidSchedule(f"method {m.name} returned a DAG that is not a rest of this run")
            rest_dag = plan.dag
        rounds = [np.sort(np.asarray(r, dtype=np.int64)) for r in plan.rounds]
        check_rounds(rest_dag, rounds, m.name)
        info = dict(plan.info)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    rest = Schedule(m.name, rest_dag, rounds, config, info)
    rest_timing = ReplayPlan(rest_dag, rounds).run(size, mode) if rest_dag.n else None
    return Replan(m.name, event, mode, size, schedule, timing, after, at_s, resume, arrived, delivered, lost, rest,
                  rest_timing, wall, cpu, {k: v for k, v in info.items() if k in ("planned_time_s", "routing", "window",
                                                                                   "checkpoint")})


def run_at(event: LinkEvent, timing: Timing, mode: str = "async") -> str:
    """When `event` comes in a run and how far the run had got: ``at 20.0 ms (30 of 112 workloads done, async)``,
    ``after round 5 (40.0 ms; ...)``, `mode` the replay counted; for a refusal of the event, which without it read as
    one of a change before the run."""
    try:
        at_s = event.moment(timing)
    except ValueError:  # a round past the schedule's end
        return f"after round {event.at_round}"
    finished = f"{int((timing.finish <= at_s).sum())} of {len(timing.finish)} workloads done, {mode}"
    if event.at_round is None:
        return f"at {format_seconds(at_s)} ({finished})"
    return f"after round {event.at_round} ({format_seconds(at_s)}; {finished})"


def replan_methods(topology: Topology, config: ScheduleConfig, methods: Iterable[str], event: LinkEvent, *,
                   size: float | None = None, mode: str = "async",
                   progress: Callable[[str], None] | None = None) -> list[Replan | tuple[str, str]]:
    """Every method's schedule on `topology`, run until `event` and re-planned; a method that cannot run
    (no checkpoint...) gives ``(name, reason)`` instead."""
    out: list[Replan | tuple[str, str]] = []
    for name in methods:
        if progress:
            progress(name)
        try:
            sched = run_method(name, topology, config)
        except (ValueError, ImportError) as err:
            out.append((name, str(err)))
            continue
        out.append(replan(sched, event, size=size, mode=mode, config=config))
    return out
