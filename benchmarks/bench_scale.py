"""Scale benchmark: build the merged workload DAG and the critical-path schedule.

Prints, per topology, the wall seconds to build the DAG and to schedule it, the CPU seconds
of both, and the peak resident memory of a fresh process doing both, with the machine's
load average (wall time on a busy machine overstates the cost; CPU time does not).
Target (issue 2): BCube(8,2), 512 servers and 523,264 workloads, in under 10 s and 2 GiB.

    python benchmarks/bench_scale.py            # BCube(3,1)..BCube(8,2), DCell(4..6,1)
    python benchmarks/bench_scale.py bcube:n=8,k=2
"""

from __future__ import annotations

import json
import subprocess
import sys

DEFAULT = ["bcube:n=3,k=1", "bcube:n=4,k=1", "bcube:n=5,k=1", "bcube:n=4,k=2", "bcube:n=6,k=2",
           "bcube:n=8,k=2", "dcell:n=4,k=1", "dcell:n=5,k=1", "dcell:n=6,k=1"]

CHILD = r"""
import json, os, resource, sys, time
from core.topology import make_topology
from core.routing import compute_routes
from core.workloads import tree_dag
from core.engine import list_schedule
from core.priorities import critical_path_rank
spec = sys.argv[1]
c0 = time.process_time()
t0 = time.perf_counter()
topo = make_topology(spec)
dag = tree_dag(topo, merge=True, routes=compute_routes(topo))
t1 = time.perf_counter()
rounds = list_schedule(dag, critical_path_rank(dag))
t2 = time.perf_counter()
cpu = time.process_time() - c0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"spec": spec, "servers": topo.n_servers, "workloads": dag.n, "rounds": len(rounds),
                  "dag_s": t1 - t0, "schedule_s": t2 - t1, "total_s": t2 - t0, "cpu_s": cpu, "peak_mib": peak,
                  "load": os.getloadavg()[0]}))
"""


def measure(spec: str) -> dict:
    """Run one size in a fresh interpreter and return its figures."""
    out = subprocess.run([sys.executable, "-c", CHILD, spec], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(specs: list[str]) -> None:
    print(f"{'topology':16} {'servers':>7} {'workloads':>9} {'rounds':>6} {'DAG s':>7} {'sched s':>8} "
          f"{'total s':>8} {'CPU s':>7} {'peak MiB':>9} {'load':>5}")
    for spec in specs:
        r = measure(spec)
        print(f"{r['spec']:16} {r['servers']:7d} {r['workloads']:9d} {r['rounds']:6d} {r['dag_s']:7.2f} "
              f"{r['schedule_s']:8.2f} {r['total_s']:8.2f} {r['cpu_s']:7.2f} {r['peak_mib']:9.0f} {r['load']:5.1f}")
        if spec == "bcube:n=8,k=2":
            ok = r["total_s"] < 10 and r["peak_mib"] < 2048
            print(f"  target BCube(8,2) < 10 s wall and < 2048 MiB: {'MET' if ok else 'MISSED'} "
                  f"({r['total_s']:.1f} s wall, {r['cpu_s']:.1f} s CPU, {r['peak_mib']:.0f} MiB)")


if __name__ == "__main__":
    main(sys.argv[1:] or DEFAULT)
