"""Execution benchmark (issue 10): real tensors on local gloo processes, one per server, over 127.0.0.1.

Three parts, each printing its figures with wall time, CPU time (this process and every rank
process) and the load average:

1. matrix   — every method on the nine Table 2 configurations runs on real int64 tensors and
              must equal dist.all_reduce (and the inputs' sum) bit for bit on every rank.
2. overhead — 64 MB float32 on 9 processes (BCube(3,1)): the Ring schedule's time per
              AllReduce against dist.all_reduce's (gloo's own ring). Target: within 2x.
3. ddp      — DDP with the schedule hook vs plain DDP, 9 processes, a few SGD steps.
              Target: weights equal to 1e-6 relative.

    python benchmarks/bench_execute.py                      # all three parts
    python benchmarks/bench_execute.py --parts overhead --size 16MB
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from core.execute import build_plan
from core.execute.bench import BenchConfig, run_local
from core.execute.ddp_check import PRELOAD, ddp_match
from core.execute.launch import launch_local
from core.methods import METHODS, run_method
from core.schedule import ScheduleConfig
from core.topology import make_topology, preset
from core.units import parse_size


def matrix_rank(comm, report, plans, numel: int) -> list[dict]:
    """On one rank: run every plan on the same int64 input; compare with all_reduce and the inputs' sum."""
    import torch

    from core.execute import Executor
    from core.execute.bench import make_input

    cfg = BenchConfig(numel=numel, dtype="int64")
    x = make_input(cfg, comm.rank)
    ref = x.clone()
    comm.all_reduce(ref)
    total = sum(make_input(cfg, r) for r in range(comm.size))
    out = []
    for plan in plans:
        ex = Executor(plan, comm)
        times = []
        for _ in range(3):
            y = x.clone()
            comm.barrier()
            t0 = time.perf_counter()
            ex.allreduce_(y)
            times.append(time.perf_counter() - t0)
        out.append({"equal": bool(torch.equal(y, ref)) and bool(torch.equal(y, total)), "ms": 1e3 * min(times)})
        report(plan.method)
    return out


def part_matrix(args) -> bool:
    print(f"1. every method on the Table 2 configurations, {args.numel} int64 elements, bitwise vs dist.all_reduce")
    print(f"   {'configuration':14} {'servers':>7} {'method':14} {'rounds':>6} {'workloads':>9} {'exec ms':>8}  match")
    ok_all = True
    for p in preset("table2"):
        topo = make_topology(p.spec)
        plans, failed = [], []
        for m in METHODS:
            try:
                sched = run_method(m, topo, ScheduleConfig(time_limit=args.time_limit))
                plans.append(build_plan(sched))
            except Exception as err:  # a method that cannot run here is reported, and counts as a miss
                failed.append((m, str(err).splitlines()[0]))
        t0, c0 = time.perf_counter(), time.process_time()
        res = launch_local(matrix_rank, (plans, args.numel), topo.n_servers, name=plans[0].describe_rank,
                           timeout=args.timeout, preload=PRELOAD)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0 + res.cpu_s
        for i, plan in enumerate(plans):
            equal = all(r[i]["equal"] for r in res.results)
            ms = max(r[i]["ms"] for r in res.results)
            ok_all &= equal
            print(f"   {p.name:14} {topo.n_servers:7d} {plan.method:14} {plan.n_rounds:6d} {plan.n_workloads:9d} "
                  f"{ms:8.1f}  {'bitwise equal on every rank' if equal else 'MISMATCH'}")
        for m, why in failed:
            ok_all = False
            print(f"   {p.name:14} {topo.n_servers:7d} {m:14} not run: {why}")
        print(f"   {p.name}: {res.processes} processes ({res.pss_mib:.0f} MiB PSS summed), wall {wall:.1f} s, "
              f"CPU {cpu:.1f} s, load {os.getloadavg()[0]:.2f}")
    print(f"   target every method on all nine configurations matches: {'MET' if ok_all else 'MISSED'}")
    return ok_all


def part_overhead(args) -> bool:
    nbytes = parse_size(args.size)
    sched = run_method("ring", make_topology("bcube:n=3,k=1"), ScheduleConfig())
    plan = build_plan(sched)
    print(f"2. executor overhead: Ring schedule of BCube(3,1), {nbytes} bytes float32, {plan.world_size} processes")
    seg = parse_size(args.segment) if args.segment != "0" else 0
    if seg:
        print(f"   (executor segments of {seg} bytes)")
    rep = run_local(plan, BenchConfig(numel=nbytes // 4, dtype="float32", repeat=args.repeat, segment_bytes=seg),
                    timeout=args.timeout)
    rows = rep.rows()
    for r in rows:
        print(f"   rep {r['rep']}: schedule {1e3 * r['schedule_s']:8.1f} ms (algbw {r['schedule_algbw']:.3f}, busbw "
              f"{r['schedule_busbw']:.3f} GB/s)   dist.all_reduce {1e3 * r['all_reduce_s']:8.1f} ms (algbw "
              f"{r['all_reduce_algbw']:.3f}, busbw {r['all_reduce_busbw']:.3f} GB/s)")
    sched_s = statistics.median(rep.schedule_s)
    ref_s = statistics.median(rep.all_reduce_s)
    ratio = sched_s / ref_s
    print(f"   result vs dist.all_reduce: {'OK' if rep.correct else 'MISMATCH'} (max |diff| {rep.max_abs_diff:.2g}, "
          f"tolerance {rep.tolerance:.2g})")
    cpu_ratio = statistics.median(rep.schedule_cpu_s) / statistics.median(rep.all_reduce_cpu_s)
    print(f"   median schedule {1e3 * sched_s:.1f} ms vs dist.all_reduce {1e3 * ref_s:.1f} ms: {ratio:.2f}x "
          f"(mean {statistics.mean(rep.schedule_s) / statistics.mean(rep.all_reduce_s):.2f}x); CPU seconds per "
          f"AllReduce over all ranks {statistics.median(rep.schedule_cpu_s):.3f} vs "
          f"{statistics.median(rep.all_reduce_cpu_s):.3f} ({cpu_ratio:.2f}x)")
    print(f"   part: wall {rep.wall_s:.1f} s, CPU {rep.cpu_s:.1f} s, load {rep.load[0]:.2f}; rank processes' memory "
          f"(PSS, summed) {rep.memory_mib:.0f} MiB")
    met = ratio <= 2.0 and rep.correct
    print(f"   target within 2x of dist.all_reduce: {'MET' if met else f'MISSED by {ratio / 2 - 1:.0%}'}")
    return met


def part_ddp(args) -> bool:
    topo = make_topology("bcube:n=3,k=1")
    print(f"3. DDP hook vs plain DDP: BCube(3,1), {topo.n_servers} processes, {args.steps} SGD steps")
    worst = 0.0
    for m in ("critical-path", "ring", "ps", "rl"):
        plan = build_plan(run_method(m, topo, ScheduleConfig()))
        t0, c0 = time.perf_counter(), time.process_time()
        res = launch_local(ddp_match, (plan, args.steps), plan.world_size, name=plan.describe_rank,
                           timeout=args.timeout, preload=PRELOAD)
        rel = max(r["max_rel_diff"] for r in res.results)
        worst = max(worst, rel)
        print(f"   {m:14} max relative weight difference {rel:.2e}; hook buckets {res.results[0]['buckets']}, "
              f"weights moved {res.results[0]['moved']:.3f}; wall {time.perf_counter() - t0:.1f} s, "
              f"CPU {time.process_time() - c0 + res.cpu_s:.1f} s, load {os.getloadavg()[0]:.2f}")
    met = worst <= 1e-6
    print(f"   target weights within 1e-6 relative of plain DDP: {'MET' if met else 'MISSED'} (worst {worst:.2e})")
    return met


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parts", default="matrix,overhead,ddp",
                    help="comma-separated parts to run: matrix, overhead, ddp (default %(default)s)")
    ap.add_argument("--numel", type=int, default=10_007, help="int64 elements in the matrix part (default %(default)s)")
    ap.add_argument("--size", default="64MB", help="bytes in the overhead part (default %(default)s)")
    ap.add_argument("--repeat", type=int, default=5,
                    help="timed repetitions in the overhead part (default %(default)s)")
    ap.add_argument("--segment", default="0",
                    help="executor segment size in the overhead part (0: whole pieces) (default %(default)s)")
    ap.add_argument("--steps", type=int, default=5, help="SGD steps in the DDP part (default %(default)s)")
    ap.add_argument("--time-limit", type=float, default=20.0,
                    help="seconds for the optimal method (default %(default)s)")
    ap.add_argument("--timeout", type=float, default=300.0,
                    help="seconds before the local processes of a part are given up (default %(default)s)")
    args = ap.parse_args(argv)
    t0, c0 = time.perf_counter(), time.process_time()
    parts = {"matrix": part_matrix, "overhead": part_overhead, "ddp": part_ddp}
    results = {}
    for name in args.parts.split(","):
        results[name] = parts[name](args)
    print(f"total: wall {time.perf_counter() - t0:.1f} s, CPU of this process {time.process_time() - c0:.1f} s, "
          f"load {os.getloadavg()}; targets: " + ", ".join(f"{k} {'MET' if v else 'MISSED'}" for k, v in results.items()))
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
