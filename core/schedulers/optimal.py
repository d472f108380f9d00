"""Exact minimum rounds for a workload DAG with OR-Tools CP-SAT, under a time limit.

Model: one integer round t_w per workload in [head_w, H - tail_w] (H = a heuristic's rounds);
t_w >= t_p + 1 for every prefix p; the workloads on a directed link take pairwise different
rounds (AllDifferent; a cumulative constraint when the capacity exceeds 1); minimize
M >= t_w + tail_w. The heuristic schedule is given as a hint, and our lower bound as a floor.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np
from ortools.sat.python import cp_model

from ..bounds import lower_bounds
from ..engine import list_schedule
from ..priorities import critical_path_rank
from ..schedule import Plan, ScheduleConfig
from ..workloads import WorkloadDAG
from .status import BOUND_MET

WALL_SAFETY = 4.0
"""The wall-clock safety net is this many times the (deterministic) time limit, plus 10 s."""


def solve_optimal(dag: WorkloadDAG, time_limit: float = 60.0, hint: list[np.ndarray] | None = None,
                  workers: int = 2, seed: int = 0,
                  progress: Callable[[float], None] | None = None) -> tuple[list[np.ndarray], dict]:
    """Rounds of the best schedule CP-SAT finds, and {status, proven_optimal, proven_bound, ...}.

    `progress` is called with 0.0 when CP-SAT starts searching (not at all when `hint` already meets the lower
    bound), then with the share of `time_limit` spent at each better solution."""
    if hint is None:
        hint = list_schedule(dag, critical_path_rank(dag))
    horizon = len(hint)
    floor = lower_bounds(dag).best
    info = {"status": BOUND_MET, "proven_optimal": horizon == floor, "proven_bound": floor,
            "hint_rounds": horizon, "solve_work": 0.0}
    if horizon == floor:
        return hint, info  # the heuristic already meets the bound

    head, tail = dag.head, dag.tail
    m = cp_model.CpModel()
    t = [m.NewIntVar(int(head[w]), int(horizon - tail[w]), f"t{w}") for w in range(dag.n)]
    makespan = m.NewIntVar(floor, horizon, "rounds")
    full = dag.explicit()  # prefix groups expanded: CP-SAT runs on small DAGs only
    rows = full.prefix.rows_of_values()
    for w, p in zip(rows.tolist(), full.prefix.values.tolist()):
        m.Add(t[w] >= t[p] + 1)
    for w in range(dag.n):
        m.Add(makespan >= t[w] + int(tail[w]))
    cap = dag.topology.link_capacity
    lrows = dag.links.rows_of_values()
    order = np.argsort(dag.links.values, kind="stable")
    lk, ws = dag.links.values[order], lrows[order]
    bounds = np.r_[0, np.flatnonzero(np.diff(lk)) + 1, len(lk)]
    for a, b in zip(bounds[:-1], bounds[1:]):
        group = ws[a:b].tolist()
        if len(group) < 2:
            continue
        c = int(cap[lk[a]])
        if c == 1:
            m.AddAllDifferent([t[w] for w in group])
        elif len(group) > c:
            iv = [m.NewFixedSizeIntervalVar(t[w], 1, f"i{w}_{a}") for w in group]
            m.AddCumulative(iv, [1] * len(iv), c)
    for r, ids in enumerate(hint):
        for w in ids.tolist():
            m.AddHint(t[w], r)
    m.AddHint(makespan, horizon)
    m.Minimize(makespan)

    solver = cp_model.CpSolver()
    # Reproducible: the same seed writes the same file. The limit is CP-SAT's deterministic time
    # (work units of about one second each) and the workers search in interleaved batches, so
    # neither the machine's load nor thread timing changes the result; the wall-clock limit is
    # only a safety net (docs/limits.md, "Reproducible optimal runs").
    solver.parameters.max_deterministic_time = float(time_limit)
    solver.parameters.max_time_in_seconds = WALL_SAFETY * float(time_limit) + 10.0
    solver.parameters.num_workers = int(workers)
    solver.parameters.interleave_search = True
    solver.parameters.random_seed = int(seed)
    start = time.perf_counter()
    if progress is not None:
        progress(0.0)  # the search starts: the CLI says so then (not before: it may not start, as above)

    class _Progress(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self) -> None:
            if progress is not None:
                progress(min(1.0, (time.perf_counter() - start) / time_limit))

    status = solver.Solve(m, _Progress())
    info["solve_work"] = round(float(solver.deterministic_time), 3)  # deterministic seconds, not wall time
    info["status"] = solver.StatusName(status)
    # CP-SAT's objective bound is proven whatever the status (with no solution found it is at
    # least the floor), and the hint is feasible, so the optimum lies in [bound, best found].
    bound = max(floor, int(np.ceil(solver.BestObjectiveBound() - 1e-9)))
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        rounds_of = np.array([solver.Value(v) for v in t], dtype=np.int64)
        n_rounds = int(rounds_of.max()) + 1
        rounds = [np.flatnonzero(rounds_of == r) for r in range(n_rounds)]
        info.update(proven_optimal=status == cp_model.OPTIMAL or bound >= n_rounds,
                    proven_bound=min(bound, n_rounds))
        if n_rounds <= horizon:
            return rounds, info
    elif status == cp_model.UNKNOWN:
        info.update(proven_optimal=bound >= horizon, proven_bound=min(bound, horizon))
    return hint, info


def optimal(dag: WorkloadDAG, config: ScheduleConfig, progress=None) -> Plan:
    """Exact (or best found within the time limit) schedule of the DAG, with CP-SAT's proven bound."""
    rounds, info = solve_optimal(dag, config.time_limit, workers=config.workers, seed=config.seed,
                                 progress=progress)
    return Plan(rounds, info)
