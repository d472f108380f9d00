"""Failures, slowdowns and the time-aware scheduler (issue 8, stage 2): the benchmark prints its targets.

1. time-aware vs the best round-based method (async seconds) on the heterogeneous variants (one BCube
   level at a quarter of the bandwidth, Jellyfish with mixed 25/100 Gbit/s links, a fat-tree with
   slower core links); target: time-aware is faster. Where it is not, the bounds of the DAGs say why.
2. re-planning after a mid-run failure on DCell(6,1): wall and CPU seconds of the re-plan step (residual
   DAG + the method's own function + the engine check) per method; target < 1 s for the heuristics.
3. time lost against the failure-free run, for every method, on a few configurations and events.

    python benchmarks/bench_failures.py                  # all three parts, M = 100 MB
    python benchmarks/bench_failures.py --only replan --repeat 5
"""

from __future__ import annotations

import argparse
import os
import time

from bench_time import HETEROGENEOUS, stamp

from core.bounds import time_bounds
from core.methods import MethodUnavailable, run_method
from core.replan import LinkEvent, replan
from core.schedule import ScheduleConfig
from core.timing import ReplayPlan, format_size, parse_size
from core.topology import make_topology

ROUND_BASED = ("ps", "ring", "greedy", "critical-path", "rl")
HEURISTICS = ("ps", "ring", "greedy", "critical-path")

EVENTS = [  # (name, spec, when, failed links, slowed links)
    ("DCell(6,1) server link fails at 2 ms", "dcell:n=6,k=1", "2ms", "s0.0-sw0", None),
    ("DCell(6,1) level-1 link fails after round 20", "dcell:n=6,k=1", "round=20", "s0.1-s2.0", None),
    ("BCube(4,1) switch link fails at 1 ms", "bcube:n=4,k=1", "1ms", "s00-sw1.0", None),
    ("Fat-tree(4) core link to 1/10 at 5 ms", "fattree:k=4", "5ms", None, "a0.0-c0:x0.1"),
    ("Jellyfish(20) 2 random links fail at 3 ms", "jellyfish:switches=20,ports=5,switch_ports=4,seed=0", "3ms",
     "random:2,seed=7", None),
]


def _async(sched, size: float) -> float:
    return ReplayPlan(sched.dag, sched.rounds).run(size, "async").time


def time_aware_target(size: float) -> None:
    """Part 1: the time-aware scheduler against the best round-based method on the heterogeneous variants."""
    print(f"== Time-aware vs the best round-based method, async seconds, M = {format_size(size)} "
          f"(target: time-aware faster)")
    cfg = ScheduleConfig(size=int(size))
    for name, spec in HETEROGENEOUS:
        t = make_topology(spec)
        times, bounds = {}, {}
        for m in ROUND_BASED + ("time-aware",):
            try:
                w0 = time.perf_counter()
                s = run_method(m, t, cfg)
                wall = time.perf_counter() - w0
            except MethodUnavailable as err:
                print(f"  {name:22} {m:14} n/a: {err}")
                continue
            times[m] = (_async(s, size), s, wall)
            bounds[m] = time_bounds(s.dag, size)
        best = min((m for m in times if m != "time-aware"), key=lambda m: times[m][0])
        ta, s_ta, wall = times["time-aware"]
        margin = times[best][0] / ta - 1
        print(f"  {name:22} " + "  ".join(f"{m} {v[0] * 1e3:.2f}" for m, v in times.items()) + " ms")
        print(f"  {'':22} best round-based: {best} {times[best][0] * 1e3:.3f} ms; time-aware {ta * 1e3:.3f} ms "
              f"(DAG {s_ta.info['dag']}, routing {s_ta.info['routing']}, window {s_ta.info['window']:g}, "
              f"{wall:.2f} s wall) -> "
              + (f"MET: {100 * margin:.1f}% faster" if margin > 0 else f"MISSED by {100 * -margin:.1f}% "
                 f"(time-aware's own DAG: busiest link {bounds['time-aware'].link * 1e3:.2f} ms, link bound of "
                 f"{best}'s DAG {bounds[best].link * 1e3:.2f} ms)"))
    print(f"  [{stamp()}]\n")


def replan_speed(repeat: int) -> None:
    """Part 2: re-planning after a mid-run failure on DCell(6,1), wall and CPU of the re-plan step."""
    spec = "dcell:n=6,k=1"
    t = make_topology(spec)
    events = [LinkEvent.parse(t, w, fail=f) for w, f in (("2ms", "s0.0-sw0"), ("round=20", "s0.1-s2.0"),
                                                            ("5ms", "random:1,seed=3"))]
    print(f"== Re-planning speed on {spec} ({t.n_servers} servers, {2 * t.n_servers * (t.n_servers - 1)} merged "
          f"workloads), {len(events)} mid-run failures x {repeat} runs (target < 1 s for the heuristics)")
    worst_h = 0.0
    for m in HEURISTICS + ("time-aware", "rl"):
        try:
            s = run_method(m, t, ScheduleConfig())
        except MethodUnavailable as err:
            print(f"  {m:14} n/a: {err}")
            continue
        timing = ReplayPlan(s.dag, s.rounds).run(1e8, "async")
        walls, cpus = [], []
        for _ in range(repeat):
            for ev in events:
                r = replan(s, ev, timing=timing)
                walls.append(r.replan_wall_s)
                cpus.append(r.replan_cpu_s)
        if m in HEURISTICS:
            worst_h = max(worst_h, max(walls))
        print(f"  {m:14} re-plan wall mean {sum(walls) / len(walls):.3f} s, max {max(walls):.3f} s; CPU mean "
              f"{sum(cpus) / len(cpus):.3f} s, max {max(cpus):.3f} s; load {os.getloadavg()[0]:.2f}")
    print(f"  heuristics: worst wall {worst_h:.3f} s -> {'MET' if worst_h < 1 else 'MISSED'} (< 1 s)  [{stamp()}]\n")


def time_lost(size: float, methods: list[str]) -> None:
    """Part 3: time lost against the failure-free run of the same schedule, per method and event."""
    print(f"== Time lost to a mid-run event, async, M = {format_size(size)}: finish with the event and the "
          f"re-planned rest vs the failure-free finish of the same schedule")
    print(f"  {'event':44} {'method':14} {'at ms':>7} {'free ms':>8} {'finish ms':>9} {'lost ms':>8} {'lost':>7} "
          f"{'re-sent':>7} {'re-routed':>9}")
    cfg = ScheduleConfig(size=int(size))
    for name, spec, when, fail, slow in EVENTS:
        t = make_topology(spec)
        event = LinkEvent.parse(t, when, fail=fail, slow=slow)
        for m in methods:
            try:
                s = run_method(m, t, cfg)
            except MethodUnavailable:
                continue
            x = replan(s, event, size=size).summary()
            print(f"  {name:44} {m:14} {x['at_s'] * 1e3:7.3f} {x['failure_free_s'] * 1e3:8.3f} "
                  f"{x['finish_s'] * 1e3:9.3f} {x['lost_s'] * 1e3:8.3f} {100 * x['lost_share']:+6.1f}% "
                  f"{x['resent']:7d} {x['rerouted']:9d}")
    print(f"  [{stamp()}]\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="100MB", help="message size of the time-lost part (default %(default)s)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of each re-planning event (part 2) (default %(default)s)")
    ap.add_argument("--methods", default="ps,ring,greedy,critical-path,time-aware,rl",
                    help="comma-separated methods of the time-lost part (default %(default)s)")
    ap.add_argument("--only", choices=["time-aware", "replan", "lost"], help="run one part (default: all)")
    a = ap.parse_args()
    size = parse_size(a.size, "--size")
    if a.only in (None, "time-aware"):
        time_aware_target(size)
    if a.only in (None, "replan"):
        replan_speed(a.repeat)
    if a.only in (None, "lost"):
        time_lost(size, [m.strip() for m in a.methods.split(",") if m.strip()])


if __name__ == "__main__":
    main()
