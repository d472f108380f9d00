"""Scale benchmark (issue 13): methods, validation, schedule files and the time replay at up to 4096 servers.

Every case runs in a fresh interpreter under a memory limit (RLIMIT_AS, default 14 GiB; a case
over it fails instead of taking the machine down) and prints its wall and CPU seconds per phase,
its peak resident memory, the load average and the rounds. On a shared machine wall time
overstates the cost: the targets are judged on CPU time when the load is high (said in the
output). The growth exponent is log(CPU ratio) / log(servers ratio) between consecutive sizes of
one method.

    python benchmarks/bench_scale.py                 # every target of issue 13
    python benchmarks/bench_scale.py quick           # up to BCube(12,2), DCell(5,2) PS, validate
    python benchmarks/bench_scale.py method critical-path bcube:n=8,k=2 [...]
    python benchmarks/bench_scale.py validate bcube:n=8,k=2 json|npz
    python benchmarks/bench_scale.py replay bcube:n=16,k=2
    python benchmarks/bench_scale.py file bcube:n=16,k=2            # 33.5 M workloads to .npz and back

Targets: BCube(16,2) DAG + critical-path (and its check by replay) <= 60 s and <= 8 GiB; BCube(12,2)
<= 10 s; PS on DCell(5,2) <= 60 s and <= 6 GiB; validate of a BCube(8,2) JSON file <= 10 s;
greedy/PS, the time replay and the columnar file at 4096 servers within 60 s and 8 GiB.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile

LIMIT_GIB = float(os.environ.get("BENCH_SCALE_LIMIT_GIB", "14"))

CHILD = r"""
import json, os, resource, sys, time
limit = int(float(sys.argv[1]) * 2 ** 30)
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
what, spec, arg = sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else ""
from core.topology import make_topology
from core.methods import check_rounds, get_method, method_dag
from core.schedule import Schedule, ScheduleConfig

phases, c_all, t_all = {}, time.process_time(), time.perf_counter()
def timed(name, fn):
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    phases[name] = [round(time.perf_counter() - t, 2), round(time.process_time() - c, 2)]
    return out

topo = make_topology(spec)
out = {"what": what, "spec": spec, "arg": arg, "servers": topo.n_servers}
method = arg if what == "method" else "critical-path"
m = get_method(method)
cfg = ScheduleConfig()
dag = timed("dag", lambda: method_dag(m, topo, cfg))
rounds = timed("schedule", lambda: m.schedule(dag, cfg, None))
out.update(workloads=dag.n, rounds=len(rounds), groups=dag.n_groups, prefix_entries=int(len(dag.prefix.values)))
timed("check", lambda: check_rounds(dag, rounds, method))
if what in ("validate", "file"):
    from core.schedule_io import read_schedule_file, write_schedule
    from core.validate import validate_document
    fmt = arg or "npz"
    path = os.path.join(os.environ["BENCH_TMP"], "schedule." + fmt)
    sched = Schedule(method, dag, rounds, cfg)
    stats = {"rounds": len(rounds)}  # the full stats (bounds, utilization) are not part of this benchmark
    t0 = time.process_time()
    timed("write", lambda: write_schedule(sched, path, stats=stats))
    out["file_mib"] = round(os.path.getsize(path) / 2 ** 20, 1)
    import gc
    del sched, dag, rounds  # validation starts from the file alone
    gc.collect()
    rep = timed("read+validate", lambda: validate_document(read_schedule_file(path), path))
    out["valid"] = rep.ok
    os.remove(path)
if what == "replay":
    from core.timing import replay_modes
    res = timed("replay", lambda: replay_modes(dag, rounds))
    out["async_s"], out["sync_s"] = res["async"].time, res["sync"].time
out.update(phases=phases, wall_s=round(time.perf_counter() - t_all, 2), cpu_s=round(time.process_time() - c_all, 2),
           peak_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024, load=round(os.getloadavg()[0], 1))
print(json.dumps(out))
"""


def measure(what: str, spec: str, arg: str = "") -> dict:
    """Run one case in a fresh interpreter under the memory limit; its figures, or why it failed."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, BENCH_TMP=tmp)
        # the case's own address-space limit is the fence here; without this the size guard would plan
        # within half of what that limit leaves beside the interpreter's reserved address space (VmSize)
        env.setdefault("ALLREDUCE_LAB_MAX_MEMORY", f"{LIMIT_GIB}GiB")
        run = subprocess.run([sys.executable, "-c", CHILD, str(LIMIT_GIB), what, spec, arg], capture_output=True,
                             text=True, env=env)
    if run.returncode != 0:
        last = (run.stderr.strip().splitlines() or ["?"])[-1]
        return {"what": what, "spec": spec, "arg": arg, "failed": f"exit {run.returncode}: {last[:160]}"}
    return json.loads(run.stdout.strip().splitlines()[-1])


def show(r: dict) -> None:
    """One line per case: the phases, total wall and CPU seconds, peak memory, load."""
    if "failed" in r:
        print(f"{r['what']:8} {r['arg']:14} {r['spec']:15} FAILED ({r['failed']})")
        return
    ph = "  ".join(f"{k} {w:.1f}/{c:.1f}" for k, (w, c) in r["phases"].items())
    extra = f" file {r['file_mib']} MiB valid={r['valid']}" if "file_mib" in r else ""
    extra += f" async {r['async_s']:.3g} s sync {r['sync_s']:.3g} s" if "async_s" in r else ""
    print(f"{r['what']:8} {r['arg']:14} {r['spec']:15} S={r['servers']:5d} n={r['workloads']:>10,d} "
          f"rounds={r['rounds']:6d}  wall {r['wall_s']:7.1f} s  CPU {r['cpu_s']:7.1f} s  peak {r['peak_mib']:6.0f} MiB "
          f"load {r['load']:4.1f}  [{ph}]{extra}", flush=True)


def growth(results: list[dict]) -> None:
    """Growth exponents of CPU time in the number of servers, per method, between consecutive sizes."""
    by: dict[str, list[dict]] = {}
    for r in results:
        if "failed" not in r and r["what"] == "method":
            by.setdefault(r["arg"] + " " + r["spec"].split(":")[0], []).append(r)
    for key, rs in by.items():
        rs.sort(key=lambda r: r["servers"])
        parts = [f"{a['servers']}->{b['servers']}: {math.log(b['cpu_s'] / a['cpu_s']) / math.log(b['servers'] / a['servers']):.2f}"
                 for a, b in zip(rs, rs[1:]) if a["cpu_s"] > 0]
        if parts:
            print(f"growth exponent of CPU time ({key}): " + ", ".join(parts))


def verdict(r: dict, label: str, seconds: float, gib: float) -> None:
    """MET or MISSED (by how much) on CPU seconds and peak memory (of the whole process); wall beside it."""
    if "failed" in r:
        print(f"  target {label}: MISSED ({r['failed']})")
        return
    ok = r["cpu_s"] <= seconds and r["peak_mib"] <= gib * 1024
    over = [f"CPU {r['cpu_s'] - seconds:+.1f} s" if r["cpu_s"] > seconds else "",
            f"memory {r['peak_mib'] / 1024 - gib:+.2f} GiB" if r["peak_mib"] > gib * 1024 else ""]
    by = "; ".join(x for x in over if x)
    print(f"  target {label} <= {seconds:g} s, <= {gib:g} GiB: {'MET' if ok else 'MISSED by ' + by} "
          f"(CPU {r['cpu_s']:.1f} s, wall {r['wall_s']:.1f} s at load {r['load']}, peak {r['peak_mib'] / 1024:.2f} GiB)")


QUICK = [("method", "bcube:n=8,k=2", "critical-path"), ("method", "bcube:n=10,k=2", "critical-path"),
         ("method", "bcube:n=12,k=2", "critical-path"), ("method", "dcell:n=4,k=2", "ps"),
         ("method", "dcell:n=5,k=2", "ps"), ("validate", "bcube:n=8,k=2", "json"), ("validate", "bcube:n=8,k=2", "npz")]
FULL = QUICK + [("method", "bcube:n=16,k=2", "critical-path"), ("method", "bcube:n=16,k=2", "greedy"),
                ("replay", "bcube:n=16,k=2", ""), ("file", "bcube:n=16,k=2", "npz"), ("method", "bcube:n=16,k=2", "ps")]
TARGETS = {("method", "bcube:n=16,k=2", "critical-path"): ("BCube(16,2) DAG + critical-path + check", 60, 8),
           ("method", "bcube:n=12,k=2", "critical-path"): ("BCube(12,2) DAG + critical-path + check", 10, 8),
           ("method", "dcell:n=5,k=2", "ps"): ("PS on DCell(5,2)", 60, 6),
           ("validate", "bcube:n=8,k=2", "json"): ("validate (read + check) of a BCube(8,2) JSON file", 10, 8),
           ("method", "bcube:n=16,k=2", "greedy"): ("greedy at 4096 servers", 60, 8),
           ("method", "bcube:n=16,k=2", "ps"): ("PS at 4096 servers", 60, 8),
           ("replay", "bcube:n=16,k=2", ""): ("time replay (sync + async) at 4096 servers", 60, 8),
           ("file", "bcube:n=16,k=2", "npz"): ("33.5 M workloads written to .npz, read back and validated", 60, 8)}


def main(argv: list[str]) -> None:
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return
    if argv and (argv[0] not in ("all", "quick", "method", "validate", "replay", "file")
                 or (argv[0] not in ("all", "quick") and len(argv) < 2)):
        sys.exit(f"bench_scale.py: error: unknown or incomplete command {' '.join(argv)!r} (see --help)")
    if not argv or argv[0] in ("all", "quick"):
        cases = QUICK if argv[:1] == ["quick"] else FULL
    elif argv[0] == "method":
        cases = [("method", spec, argv[1]) for spec in argv[2:]]
    else:
        cases = [(argv[0], argv[1], argv[2] if len(argv) > 2 else "")]
    print(f"columns: phase wall/CPU seconds; memory limit {LIMIT_GIB:g} GiB per case; load = 1-min load average "
          f"on {os.cpu_count()} cores (wall time is judged on CPU time when the load is high)", flush=True)
    results = []
    for case in cases:
        r = measure(*case)
        show(r)
        results.append(r)
    growth(results)
    for r in results:
        key = (r["what"], r["spec"], r["arg"])
        alone = {"validate": ["read+validate"], "replay": ["replay"], "file": ["write", "read+validate"]}
        if r["what"] in alone and "phases" in r:  # these targets are on that work alone, not on making the schedule
            parts = [r["phases"][k] for k in alone[r["what"]]]
            r = dict(r, wall_s=sum(p[0] for p in parts), cpu_s=sum(p[1] for p in parts))
        if key in TARGETS:
            verdict(r, *TARGETS[key])


if __name__ == "__main__":
    main(sys.argv[1:])
