"""Time `allreduce-lab compare --preset table2` (target, issue 2: under 10 s without optimal).

Runs the command in a fresh process REPEAT times and prints wall and CPU seconds of each run
and their median, with the load average (a busy machine inflates wall time, not CPU time).

    python benchmarks/bench_compare.py            # default methods: ps, ring, greedy, critical-path, rl
    python benchmarks/bench_compare.py --repeat 5 --methods ps,ring,greedy,critical-path
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="timed runs of the command (default %(default)s)")
    ap.add_argument("--methods", default=None,
                    help="comma-separated methods passed to compare (default: compare's own, without optimal)")
    a = ap.parse_args()
    cmd = [sys.executable, "-m", "core.cli", "compare", "--preset", "table2"]
    if a.methods:
        cmd += ["--methods", a.methods]
    walls, cpus = [], []
    for i in range(a.repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        walls.append(wall)
        cpus.append(cpu)
        print(f"run {i + 1}: {wall:.2f} s wall, {cpu:.2f} s CPU, load {os.getloadavg()[0]:.1f}")
    med = statistics.median(walls)
    print(f"median {med:.2f} s wall, {statistics.median(cpus):.2f} s CPU; target < 10 s: {'MET' if med < 10 else 'MISSED'}")


if __name__ == "__main__":
    main()
