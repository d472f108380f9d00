"""Time benchmark (issue 8, stage 1): the time model's targets and every method's time in seconds.

Prints
1. the Ring check: on uniform links and a large M, Ring's replayed time against the textbook
   2(n-1)/n · M / B wherever its schedule has 2(n-1) rounds (target: within 2%);
2. for the nine Table 2 configurations and three heterogeneous variants, every method's time
   (sync and async), algbw and busbw (async), and the gap of the async time to each bound in
   seconds (bandwidth: any AllReduce; link, latency, critical path: the method's own DAG);
3. the replay time of BCube(8,2) (523,264 workloads; target < 10 s), with CPU time and load;
4. the same async replay written as a SimPy process per workload, on BCube(6,2) (92,880
   workloads): its completion time must agree, and its speed shows why the replay is vectorized.

    python benchmarks/bench_time.py                 # all three parts, M = 100 MB
    python benchmarks/bench_time.py --size 1GB --methods ps,ring,greedy,critical-path,rl
    python benchmarks/bench_time.py --only scale
    python benchmarks/bench_time.py --only simpy
"""

from __future__ import annotations

import argparse
import os
import resource
import time

from core.compare import compare
from core.engine import list_schedule
from core.methods import run_method
from core.priorities import critical_path_rank
from core.routing import compute_routes
from core.schedule import ScheduleConfig
from core.timing import ReplayPlan, format_size, parse_size, replay_modes
from core.topology import make_topology, preset
from core.workloads import tree_dag

HETEROGENEOUS = [
    ("BCube(4,1) L1 at 1/4", "bcube:n=4,k=1,bw=100/25"),
    ("Jellyfish(20) 25|100", "jellyfish:switches=20,ports=5,switch_ports=4,seed=0,bw=100/25|100"),
    ("Fat-tree(4) core 1/4", "fattree:k=4,bw=100/100/25"),
]
"""One BCube level at a quarter of the bandwidth; Jellyfish switch links drawn from 25 and 100 Gbit/s
(link_seed 0); a fat-tree whose aggregation-core links run at 25 Gbit/s."""


def stamp() -> str:
    """CPU seconds of this process so far and the 1-minute load average."""
    return f"CPU {time.process_time():.1f} s, load {os.getloadavg()[0]:.2f}"


def ring_check(size: float) -> None:
    """Part 1: Ring's time against 2(n-1)/n · M / B on the Table 2 configurations (uniform 100 Gbit/s)."""
    print(f"== Ring check: M = {format_size(size)}, uniform links (target: within 2% where rounds = 2(n-1))")
    print(f"{'config':16} {'n':>3} {'rounds':>6} {'2(n-1)':>6} {'ideal ms':>9} {'sync ms':>9} {'async ms':>9} "
          f"{'dev':>7}  result")
    worst = 0.0
    for p in preset("table2"):
        t = make_topology(p.spec)
        sched = run_method("ring", t, ScheduleConfig())
        n = t.n_servers
        rate = float(t.link_bandwidth.min()) * 1e9 / 8
        ideal = 2 * (n - 1) / n * size / rate
        tm = replay_modes(sched, size=size)
        dev = max(abs(tm[m].time / ideal - 1) for m in tm)
        applies = sched.n_rounds == 2 * (n - 1)
        if applies:
            worst = max(worst, dev)
        verdict = ("MET" if dev < 0.02 else "MISSED") if applies else "n/a (relays)"
        print(f"{p.name:16} {n:3d} {sched.n_rounds:6d} {2 * (n - 1):6d} {ideal * 1e3:9.3f} {tm['sync'].time * 1e3:9.3f} "
              f"{tm['async'].time * 1e3:9.3f} {100 * dev:6.2f}%  {verdict}")
    print(f"worst deviation {100 * worst:.2f}% (target < 2%)  [{stamp()}]\n")


def methods_table(size: float, methods: list[str], seeds: int) -> None:
    """Part 2: every method's time, algbw, busbw and gaps on Table 2 and the heterogeneous variants."""
    configs = [(p.name, p.spec, None) for p in preset("table2")] + [(n, s, None) for n, s in HETEROGENEOUS]
    print(f"== Methods in seconds: M = {format_size(size)}; ps and greedy are means over {seeds} seeds; algbw/busbw "
          f"and gaps are of the async time")
    print("   gaps: BW = bandwidth bound (any AllReduce), link = busiest link of the method's DAG, lat = latency "
          "chain, CP = critical path of whole transfers, best = the largest of these; xN = N times the bound")
    head = (f"{'config':22} {'method':14} {'rounds':>6} {'sync ms':>9} {'async ms':>9} {'algbw':>6} {'busbw':>6} "
            f"{'BW':>7} {'link':>7} {'lat':>8} {'CP':>7} {'best':>7}")
    print(head)
    start = time.perf_counter()
    rows = compare(configs, methods, seeds, ScheduleConfig(), size=size)
    for row in rows:
        for m in methods:
            res = row.results[m]
            if res.rounds is None or not res.time:
                print(f"{row.name:22} {m:14} n/a: {res.error}")
                continue
            a, s = res.time["async"], res.time["sync"]
            g = a["gap"]
            print(f"{row.name:22} {m:14} {res.rounds:6.1f} {s['time_s'] * 1e3:9.3f} {a['time_s'] * 1e3:9.3f} "
                  f"{a['algbw_Bps'] / 1e9:6.2f} {a['busbw_Bps'] / 1e9:6.2f} {_pct(g['bandwidth']):>7} "
                  f"{_pct(g['link']):>7} {_pct(g['latency']):>8} {_pct(g['critical_path']):>7} {_pct(g['best']):>7}")
        best = min((r for r in row.results.values() if r.time), key=lambda r: r.time["async"]["time_s"], default=None)
        if best is not None:
            print(f"{'':22} fastest: {best.method} ({best.time['async']['time_s'] * 1e3:.3f} ms async)")
    print(f"algbw, busbw in GB/s (1e9 B/s); {time.perf_counter() - start:.1f} s wall  [{stamp()}]\n")


def _pct(x: float) -> str:
    """A gap as a percentage, or as a ratio time/bound when it is over 10x (latency bounds are tiny)."""
    return f"x{1 + x:.0f}" if x >= 9 else f"{100 * x:.1f}%"


def scale(size: float, spec: str = "bcube:n=8,k=2") -> None:
    """Part 3: replay time of a large schedule (the DAG and its critical-path rounds are built first, untimed)."""
    print(f"== Replay at scale: {spec}, critical-path schedule, M = {format_size(size)}")
    t = make_topology(spec)
    dag = tree_dag(t, merge=True, routes=compute_routes(t))
    rounds = list_schedule(dag, critical_path_rank(dag))
    print(f"{dag.n} workloads in {len(rounds)} rounds (built untimed)  [{stamp()}]")
    c0, w0 = time.process_time(), time.perf_counter()
    plan = ReplayPlan(dag, rounds)
    dur = plan.durations(size)
    sync = plan.run(size, "sync", durations=dur)
    w1 = time.perf_counter()
    asyn = plan.run(size, "async", durations=dur)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    print(f"plan + transfer times + sync replay {w1 - w0:.2f} s wall; async replay {time.perf_counter() - w1:.2f} s wall")
    print(f"both modes {wall:.2f} s wall, {cpu:.2f} s CPU, load {os.getloadavg()[0]:.2f}, peak RSS "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB; "
          f"sync {sync.time * 1e3:.3f} ms, async {asyn.time * 1e3:.3f} ms")
    print(f"target < 10 s: {'MET' if wall < 10 else 'MISSED'} ({wall:.2f} s wall, {cpu:.2f} s CPU)\n")


def simpy_reference(size: float, spec: str = "bcube:n=6,k=2") -> None:
    """Part 4: the async replay as SimPy processes (one per workload, waiting on events) against ReplayPlan."""
    import simpy

    print(f"== SimPy reference: {spec}, critical-path schedule, async, M = {format_size(size)}")
    t = make_topology(spec)
    dag = tree_dag(t, merge=True, routes=compute_routes(t))
    rounds = list_schedule(dag, critical_path_rank(dag))
    c0, w0 = time.process_time(), time.perf_counter()
    ours = ReplayPlan(dag, rounds).run(size, "async")
    ours_wall, ours_cpu = time.perf_counter() - w0, time.process_time() - c0
    dur = ours.duration.tolist()
    cap = t.link_capacity.tolist()
    prefix = dag.prefix.to_lists()
    links = dag.links.to_lists()
    c0, w0 = time.process_time(), time.perf_counter()
    env = simpy.Environment()
    done = [env.event() for _ in range(dag.n)]
    on_link: dict[int, list[int]] = {}

    def transfer(w: int, waits: list[int]):
        if waits:
            yield env.all_of([done[p] for p in waits])
        yield env.timeout(dur[w])
        done[w].succeed()

    for r in rounds:
        for w in sorted(r.tolist()):
            waits = list(prefix[w])
            for link in links[w]:
                seen = on_link.setdefault(link, [])
                if len(seen) >= cap[link]:
                    waits.append(seen[-cap[link]])  # the transfer `capacity` places ahead on this link
                seen.append(w)
            env.process(transfer(w, waits))
    env.run()
    sim_wall, sim_cpu = time.perf_counter() - w0, time.process_time() - c0
    agree = abs(env.now - ours.time) <= 1e-9 * ours.time
    print(f"{dag.n} workloads: SimPy {env.now * 1e3:.3f} ms in {sim_wall:.2f} s wall ({sim_cpu:.2f} s CPU); "
          f"ReplayPlan {ours.time * 1e3:.3f} ms in {ours_wall:.2f} s wall ({ours_cpu:.2f} s CPU); "
          f"times {'agree' if agree else 'DIFFER'}; SimPy/ReplayPlan CPU {sim_cpu / max(ours_cpu, 1e-9):.0f}x  "
          f"[load {os.getloadavg()[0]:.2f}]\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="100MB", help="message size for parts 2 and 3 (default 100MB)")
    ap.add_argument("--ring-size", default="1GB", help="message size of the Ring check (default 1GB: 'a large M')")
    ap.add_argument("--methods", default="ps,ring,greedy,critical-path,rl,time-aware",
                    help="comma-separated methods of part 2 (default %(default)s)")
    ap.add_argument("--seeds", type=int, default=3,
                    help="seeds of the randomized methods (ps, greedy) in part 2 (default %(default)s)")
    ap.add_argument("--only", choices=["ring", "methods", "scale", "simpy"], help="run one part (default: all)")
    a = ap.parse_args()
    size = parse_size(a.size, "--size")
    if a.only in (None, "ring"):
        ring_check(parse_size(a.ring_size, "--ring-size"))
    if a.only in (None, "methods"):
        methods_table(size, [m.strip() for m in a.methods.split(",") if m.strip()], a.seeds)
    if a.only in (None, "scale"):
        scale(size)
    if a.only in (None, "simpy"):
        simpy_reference(size)


if __name__ == "__main__":
    main()
