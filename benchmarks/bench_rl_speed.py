"""Speed of the learned scheduler: `rl` on DCell(6,1) and BCube(8,2), and the explanation trace.

Prints, per topology, the workloads, rounds, rounds decoded in the scaled mode, wall and CPU
seconds of `run_method("rl")` as the CLI runs it (no trace), then DCell(6,1) again with the
explanation trace and a check that every step of it shows the chosen workload and its score
split. Where the scaled mode ran, it also prints the policy's own rounds, critical-path's and
whether the critical-path fallback was kept (docs/rl.md §5). The checkpoint is the default one for each topology (its own, else the universal).

    python benchmarks/bench_rl_speed.py
    python benchmarks/bench_rl_speed.py --skip-large     # DCell(6,1) only
    python benchmarks/bench_rl_speed.py --checkpoint universal   # the universal checkpoint on both
"""

from __future__ import annotations

import argparse
import os
import resource
import time

from core.methods import run_method
from core.schedule import ScheduleConfig
from core.topology import make_topology

TARGETS = {"dcell:n=6,k=1": 0.5, "bcube:n=8,k=2": 60.0}


def timed(spec: str, trace: bool, repeat: int, checkpoint: str | None = None):
    """Best of `repeat` runs: (schedule, wall s, CPU s)."""
    topo = make_topology(spec)
    best = None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        s = run_method("rl", topo, ScheduleConfig(trace=trace, checkpoint=checkpoint))
        got = (s, time.perf_counter() - t0, time.process_time() - c0)
        best = got if best is None or got[1] < best[1] else best
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--skip-large", action="store_true", help="skip BCube(8,2): time DCell(6,1) only")
    ap.add_argument("--repeat", type=int, default=3, help="runs of DCell(6,1); the best is kept (default %(default)s)")
    ap.add_argument("--checkpoint", default=None,
                    help="run every topology with this checkpoint (default: each topology's own, else the universal)")
    a = ap.parse_args()
    run_method("rl", make_topology("bcube:n=3,k=1"), ScheduleConfig(trace=False))  # imports, warm-up
    print(f"{'topology':16} {'workloads':>9} {'rounds':>6} {'scaled':>6} {'wall s':>7} {'cpu s':>7} {'target':>7} "
          f"{'load':>5}  checkpoint")
    for spec, target in TARGETS.items():
        if a.skip_large and spec.startswith("bcube"):
            continue
        s, wall, cpu = timed(spec, False, a.repeat if spec.startswith("dcell") else 1, a.checkpoint)
        print(f"{spec:16} {s.dag.n:9d} {s.n_rounds:6d} {s.info['scaled_rounds']:6d} {wall:7.2f} {cpu:7.2f} "
              f"{target:7.1f} {os.getloadavg()[0]:5.2f}  {s.info['checkpoint']}  "
              f"{'MET' if wall <= target else f'MISSED by {wall - target:.2f} s'}"
              f"{'' if cpu <= target else f' (CPU {cpu:.2f} s)'}", flush=True)
        if "policy_rounds" in s.info:
            print(f"{'':16} the policy's rollout: {s.info['policy_rounds']} rounds; critical-path: "
                  f"{s.info['critical_path_rounds']}; fallback: {s.info['fallback'] or 'none (the policy kept)'}",
                  flush=True)
    s, wall, cpu = timed("dcell:n=6,k=1", True, a.repeat, a.checkpoint)
    steps = [st for r in s.trace["steps"] for st in r]
    complete = sum(1 for st in steps if st["chosen"] in st["candidates"] and len(st["terms"]) == len(st["candidates"])
                   and abs(sum(st["terms"][st["candidates"].index(st["chosen"])]) - st["score"]) < 2e-3)
    print(f"dcell:n=6,k=1 with the explanation trace: {wall:.2f} s wall, {cpu:.2f} s CPU; "
          f"{complete}/{s.dag.n} steps show the chosen workload and a score split that adds up "
          f"({'MET' if complete == s.dag.n == len(steps) else 'MISSED'})")
    print(f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB, "
          f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
