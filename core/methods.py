"""The method registry: one record per scheduling method, read by the CLI, compare, the
dashboard and the tests.

Adding a method is one function plus one `register` call::

    def longest_path_first(dag, config, progress=None):
        return list_schedule(dag, -dag.tail)          # rounds: arrays of workload ids

    register(Method("lpf", "Longest path first", longest_path_first, dag="tree"))

`run_method` builds the DAG the record names, calls the function, replays its rounds through
the engine (every result is checked, whoever made it) and returns a `Schedule`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np

from .engine import Rounds, replay, rounds_valid, sorted_ids
from .guard import Estimate, Size, check_schedulable
from .schedule import Plan, Schedule, ScheduleConfig
from .schedulers import listsched, timeaware
from .text import did_you_mean
from .topology import Topology, size_of
from .workloads import DAG_KINDS, WorkloadDAG, build_dag

Progress = Callable[[float], None]
SchedulerFn = Callable[[WorkloadDAG, ScheduleConfig, "Progress | None"], "Rounds | Plan"]


class MethodUnavailable(ValueError):
    """A method that cannot run here (no checkpoint, a missing package); the message says why."""


class InvalidSchedule(RuntimeError):
    """A method returned rounds that break the model's rules (a bug in that method)."""


OPTIONAL_FIELDS = frozenset({"seed", "merge", "routing", "time_limit", "samples", "temperature", "opening", "checkpoint",
                             "trace"})
"""`ScheduleConfig` fields that only some methods read (every method reads chunks, size and force)."""


@dataclass(frozen=True)
class Method:
    """One scheduling method."""

    name: str
    """Command-line name (`--method NAME`)."""
    title: str
    """Name on screen."""
    schedule: SchedulerFn
    """``fn(dag, config, progress) -> rounds | Plan``."""
    dag: str = "tree"
    """The DAG it schedules: "tree" (merged unless --no-merge), "plain" (PS trees) or "ring"."""
    randomized: bool = False
    """Depends on the seed: compare averages it over seeds."""
    slow: bool = False
    """May run for seconds to minutes: callers show a progress bar."""
    colour: str = "#7f7f7f"
    """Its colour in every chart."""
    description: str = ""
    """One line for help texts."""
    unavailable: Callable[[Topology, ScheduleConfig], str | None] | None = None
    """Why it cannot run on a topology (without running it), or None."""
    default: bool = True
    """Part of `compare`'s default set."""
    default_uneven: bool = False
    """Part of `compare`'s default set also when the links' bandwidths differ (`core.compare.uneven_links`)."""
    solver: str | None = None
    """What the size guard adds to the DAG's cost: "cp-sat" (an exact model) or "rl" (rollouts)."""
    sampled: bool = False
    """Runs `config.samples` extra rollouts (the guard counts them)."""
    reads: tuple[str, ...] | None = None
    """The `OPTIONAL_FIELDS` of `ScheduleConfig` it reads; None infers them (`options`)."""

    def __post_init__(self) -> None:
        if self.dag not in DAG_KINDS:
            raise ValueError(f"method {self.name!r}: dag must be one of {', '.join(DAG_KINDS)}, got {self.dag!r}")
        if not self.name or any(c.isspace() or c == "," for c in self.name):
            raise ValueError(f"method name must be non-empty without spaces or commas, got {self.name!r}")
        if self.reads is not None and not set(self.reads) <= OPTIONAL_FIELDS:
            raise ValueError(f"method {self.name!r}: reads must name fields among {', '.join(sorted(OPTIONAL_FIELDS))}, "
                             f"got {self.reads!r}")

    def options(self) -> frozenset[str]:
        """The `OPTIONAL_FIELDS` it reads (the CLI notes the others when given): `reads`, or when that is None,
        routing, and seed if randomized, sampled or CP-SAT, merge on the tree DAG, time_limit for CP-SAT,
        checkpoint and trace for a learned method, samples, temperature and opening if sampled."""
        if self.reads is not None:
            return frozenset(self.reads)
        got = {"routing"}
        if self.randomized or self.sampled or self.solver == "cp-sat":
            got.add("seed")
        if self.dag == "tree":
            got.add("merge")
        if self.solver == "cp-sat":
            got.add("time_limit")
        if self.solver == "rl":
            got |= {"checkpoint", "trace"}
        if self.sampled:
            got |= {"samples", "temperature", "opening"}
        return frozenset(got)

    @property
    def seeded(self) -> bool:
        """Whether its result depends on `ScheduleConfig.seed` (it reads the seed, `options`): such a method names
        the seed it ran with, in `schedule`'s header, its JSON head and the player's card."""
        return "seed" in self.options()

    def problem(self, topology: Topology, config: ScheduleConfig) -> str | None:
        """Why this method cannot run on `topology` with `config`, or None when it can."""
        return self.unavailable(topology, config) if self.unavailable else None

    def dag_kind(self, config: ScheduleConfig) -> str:
        """The kind of DAG it schedules under `config` ("tree" turns "plain" without merging)."""
        return "plain" if self.dag == "tree" and not config.merge else self.dag

    def guard(self, topology_or_size, config: ScheduleConfig, out: str | None = None) -> Estimate:
        """The size guard's estimate of this run (and of writing its file as `out`, "json" or "npz"); raises
        SizeError when it is over the limits (unless `config.force`). Accepts a Topology or a `core.guard.Size`
        (nothing built)."""
        size = topology_or_size if isinstance(topology_or_size, Size) else size_of(topology_or_size)
        return check_schedulable(size, self.dag_kind(config), config.chunks, solver=self.solver,
                                 time_limit=config.time_limit,
                                 rollouts=config.samples + 1 if self.sampled else 1, out=out, force=config.force)


METHODS: dict[str, Method] = {}
"""Every registered method by name, in registration order."""


def register(method: Method, *, replace: bool = False) -> Method:
    """Add a method to the registry (ValueError if the name is taken, unless `replace`)."""
    if method.name in METHODS and not replace:
        raise ValueError(f"a method named {method.name!r} is already registered")
    METHODS[method.name] = method
    return method


def unregister(name: str) -> None:
    """Remove a method from the registry (no error if it is not there)."""
    METHODS.pop(name, None)


def get_method(name: str) -> Method:
    """The record of a method name (ValueError naming the known methods)."""
    if name not in METHODS:
        raise ValueError(f"unknown method {name!r}{did_you_mean(name, list(METHODS))}; known: {', '.join(METHODS)}")
    return METHODS[name]


def method_names() -> list[str]:
    """Names of every registered method, in registration order."""
    return list(METHODS)


def iter_methods() -> Iterator[Method]:
    """Every registered method, in registration order."""
    return iter(list(METHODS.values()))


def method_dag(method: Method | str, topology: Topology, config: ScheduleConfig) -> WorkloadDAG:
    """The workload DAG a method schedules on `topology` under `config`."""
    m = get_method(method) if isinstance(method, str) else method
    return build_dag(topology, m.dag, merge=config.merge, chunks=config.chunks, routing=config.routing)


def run_method(name: str, topology: Topology, config: ScheduleConfig | None = None,
               progress: Progress | None = None) -> Schedule:
    """Schedule `topology` with a registered method, after the size guard's check; the result is
    replayed through the engine."""
    m = get_method(name)
    config = config or ScheduleConfig()
    why = m.problem(topology, config)
    if why:
        raise MethodUnavailable(why)
    m.guard(topology, config)
    dag = method_dag(m, topology, config)
    out = m.schedule(dag, config, progress)
    plan = out if isinstance(out, Plan) else Plan(list(out))
    if plan.dag is not None:  # the method chose its own DAG (time-aware: routes, or a ring): same topology
        if plan.dag.topology is not dag.topology:
            raise InvalidSchedule(f"method {m.name} returned a DAG over another topology")
        dag = plan.dag
    rounds = [sorted_ids(r) for r in plan.rounds]
    check_rounds(dag, rounds, m.name)
    return Schedule(m.name, dag, rounds, config, dict(plan.info), plan.trace)


def check_rounds(dag: WorkloadDAG, rounds: Rounds, method: str = "schedule") -> None:
    """Check rounds by the engine's rules; raise InvalidSchedule naming the first broken rule (found
    by replaying them, which names it, only when the in-order check finds one)."""
    if rounds_valid(dag, rounds):
        return
    _, violations = replay(dag, rounds)
    if violations:
        more = f" (and {len(violations) - 1} more)" if len(violations) > 1 else ""
        raise InvalidSchedule(f"method {method} returned an invalid schedule: {violations[0].message}{more}")


def _optimal(dag: WorkloadDAG, config: ScheduleConfig, progress: Progress | None = None) -> Plan:
    from .schedulers.optimal import optimal  # OR-Tools is imported only when this method runs
    return optimal(dag, config, progress)


def _rl(dag: WorkloadDAG, config: ScheduleConfig, progress: Progress | None = None) -> Plan:
    from .schedulers.learned import learned  # torch is imported only when RL runs
    return learned(dag, config, progress)


def _rl_sample(dag: WorkloadDAG, config: ScheduleConfig, progress: Progress | None = None) -> Plan:
    from .schedulers.learned import learned_sample
    return learned_sample(dag, config, progress)


def _rl_problem(topology: Topology, config: ScheduleConfig) -> str | None:
    from .schedulers.learned import checkpoint_problem
    return checkpoint_problem(topology, config)


for _m in (
    Method("ps", "Parameter Server", listsched.random_order, dag="plain", randomized=True, colour="#636efa",
           description="plain trees (no merging); ready workloads in a seeded random order"),
    Method("ring", "Ring AllReduce", listsched.ring, dag="ring", colour="#ef553b",
           description="reduce-scatter then all-gather along a server ring"),
    Method("greedy", "Greedy (merged)", listsched.random_order, dag="tree", randomized=True, colour="#ab63fa",
           description="merged trees; ready workloads in a seeded random order, maximal rounds"),
    Method("critical-path", "Critical-path", listsched.critical_path, dag="tree", colour="#00a087",
           description="merged trees; longest remaining chain first"),
    Method("time-aware", "Time-aware (HEFT)", timeaware.time_aware, dag="tree", colour="#8c564b", default=False,
           default_uneven=True,  # the method that plans by each link's speed: rounds alone miss a slow link
           reads=("merge",),  # it tries every routing mode (docs/time.md section 10)
           description="merged trees; continuous-time list scheduling on the real transfer times (--size), "
                       "longest remaining chain in seconds first; run it without barriers (async)"),
    Method("optimal", "Optimal (CP-SAT)", _optimal, dag="tree", slow=True, colour="#ffa15a", default=False,
           solver="cp-sat",
           description="exact minimum rounds with CP-SAT under --time-limit, with its proven bound"),
    Method("rl", "Hierarchical RL", _rl, dag="tree", colour="#19d3f3", unavailable=_rl_problem, solver="rl",
           description="the two trained agents, greedy decoding"),
    Method("rl-sample", "RL, best of samples", _rl_sample, dag="tree", slow=True, colour="#ff6692",
           unavailable=_rl_problem, default=False, solver="rl", sampled=True,
           description="the two trained agents, best of greedy and --samples sampled rollouts"),
):
    register(_m)
del _m
