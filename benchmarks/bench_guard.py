"""Calibrate the size guard: its estimates next to measured peak memory and CPU time, and the
largest sizes it accepts per family and method.

`measure` runs each (spec, method, chunks) in a fresh interpreter (run_method: topology,
routes, DAG, schedule, engine replay) and reads its peak RSS with `resource.getrusage`; the
ratio columns are estimate / measured (above 1: the guard is pessimistic). `cli` runs whole
`schedule` commands (`python -m core.cli schedule SPEC --method M [--no-merge] [--out json|npz]`,
the file written to a temporary folder) and compares the whole process's peak RSS, read by
`os.wait4`, with the estimate the CLI checks. `largest` asks the guard alone (nothing is
built) for the largest parameter of each family it accepts.

    python benchmarks/bench_guard.py measure                  # the calibration set below
    python benchmarks/bench_guard.py measure bcube:n=8,k=2:critical-path dcell:n=4,k=2:ps
    python benchmarks/bench_guard.py cli "dcell:5,2 ps" "bcube:8,2 critical-path --no-merge --out json"
    python benchmarks/bench_guard.py largest                  # this machine's limits
    python benchmarks/bench_guard.py largest --memory 8GiB --seconds 300
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.guard import (SizeError, check_schedulable, dag_counts, estimate_schedule, memory_limit,  # noqa: E402
                        rounds_estimate, time_limit)
from core.methods import get_method  # noqa: E402
from core.topology import spec_size  # noqa: E402

CALIBRATION = [
    "bcube:n=5,k=2:critical-path", "bcube:n=8,k=2:critical-path", "bcube:n=24,k=1:critical-path",
    "dcell:n=16,k=1:critical-path", "dcell:n=4,k=2:critical-path", "fattree:k=8:critical-path",
    "fattree:k=10:critical-path", "jellyfish:switches=50,ports=8,switch_ports=4:critical-path",
    "bcube:n=6,k=2:ps", "bcube:n=16,k=1:ps", "dcell:n=10,k=1:ps", "dcell:n=3,k=2:ps", "fattree:k=8:ps",
    "bcube:n=16,k=1:ring", "dcell:n=4,k=2:ring", "fattree:k=12:ring",
    "bcube:n=4,k=1:critical-path:64", "bcube:n=4,k=1:ps:64", "bcube:n=6,k=2:critical-path:4",
    "leafspine:leaves=8,spines=4,servers=16:critical-path", "leafspine:leaves=16,spines=4,servers=8:ps",
    "dcell:n=5,k=1:optimal", "jellyfish:switches=20,ports=5,switch_ports=4:optimal",
    "bcube:n=4,k=2:rl", "dcell:n=10,k=1:rl", "fattree:k=6:rl",
]

WHOLE_RUNS = [f"{spec} {method}{out}" for spec in ("bcube:8,2", "dcell:4,2", "bcube:10,2", "dcell:5,2")
              for method in ("ps", "ring", "greedy", "greedy --no-merge", "critical-path", "critical-path --no-merge")
              for out in ("", " --out json")] + ["fattree:16 ring", "fattree:16 ring --out json"]
"""`cli`'s default: every list method, merged and plain, with and without a JSON file (docs/limits.md)."""

CHILD = r"""
import json, os, resource, sys, time
from core.methods import run_method
from core.schedule import ScheduleConfig
from core.topology import make_topology
spec, method, chunks = sys.argv[1], sys.argv[2], int(sys.argv[3])
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
c0, t0 = time.process_time(), time.perf_counter()
s = run_method(method, make_topology(spec, force=True), ScheduleConfig(chunks=chunks, time_limit=10.0))
print(json.dumps({"workloads": s.dag.n, "rounds": s.n_rounds, "cpu": time.process_time() - c0,
                  "wall": time.perf_counter() - t0, "base_mib": base / 1024,
                  "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "load": os.getloadavg()[0]}))
"""


def _kind(method: str) -> tuple[str, str | None, int]:
    """(DAG kind, extra solver, rollouts) of a registered method, as the CLI asks the guard."""
    solver = {"optimal": "cp-sat", "rl": "rl", "rl-sample": "rl"}.get(method)
    return get_method(method).dag, solver, 17 if method == "rl-sample" else 1


def _parse(item: str) -> tuple[str, str, int]:
    """``spec:method[:chunks]`` (the spec itself contains one colon)."""
    family, rest = item.split(":", 1)
    parts = rest.split(":")
    return f"{family}:{parts[0]}", parts[1], int(parts[2]) if len(parts) > 2 else 1


def measure(items: list[str], limit_gib: float) -> None:
    """Estimate and measure each item; print a table (memory over the interpreter's baseline)."""
    print(f"{'spec':44} {'method':13} {'chunks':>6} {'workloads':>9} {'est MiB':>8} {'MiB':>7} {'ratio':>5} "
          f"{'est s':>7} {'CPU s':>7} {'ratio':>5} {'wall s':>7} {'load':>4} {'est rounds':>10} {'rounds':>7}")
    for item in items:
        spec, method, chunks = _parse(item)
        kind, solver, rollouts = _kind(method)
        size = spec_size(spec)
        est = estimate_schedule(size, kind, chunks, solver=solver, time_limit=10.0, rollouts=rollouts)
        est_rounds = rounds_estimate(size, kind, dag_counts(size, kind, chunks)[0], chunks)
        limit = int(limit_gib * 2 ** 30)
        try:
            out = subprocess.run([sys.executable, "-c", CHILD, spec, method, str(chunks)], capture_output=True,
                                 text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=900,
                                 preexec_fn=lambda: __import__("resource").setrlimit(
                                     __import__("resource").RLIMIT_AS, (limit, limit)))
            r = json.loads(out.stdout.strip().splitlines()[-1])
        except (subprocess.TimeoutExpired, IndexError, json.JSONDecodeError):
            print(f"{spec:44} {method:13} {chunks:6d}  failed or over {limit_gib} GiB / 900 s "
                  f"(estimate {est.bytes / 2 ** 20:.0f} MiB, {est.seconds:.1f} s)")
            continue
        mib = r["peak_mib"] - r["base_mib"]
        print(f"{spec:44} {method:13} {chunks:6d} {r['workloads']:9d} {est.bytes / 2 ** 20:8.0f} {mib:7.0f} "
              f"{est.bytes / 2 ** 20 / max(mib, 1):5.1f} {est.seconds:7.1f} {r['cpu']:7.1f} "
              f"{est.seconds / max(r['cpu'], 0.01):5.1f} {r['wall']:7.1f} {r['load']:4.1f} {est_rounds:10d} {r['rounds']:7d}",
              flush=True)


LAUNCH = """
import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, use = os.wait4(p.pid, 0)
print(os.waitstatus_to_exitcode(status), use.ru_maxrss, use.ru_utime + use.ru_stime)
"""
"""Runs one command and prints its exit code, peak RSS (KiB) and CPU seconds (`os.wait4`)."""


def cli_estimate(argv: list[str]):
    """The estimate `schedule` checks for these arguments (the largest of its guard's calls: spec, then topology)."""
    from dataclasses import replace

    from core.cli import build_parser
    from core.cli.common import config, out_form
    a = build_parser().parse_args(["schedule", *argv])
    return get_method(a.method).guard(spec_size(a.spec), replace(config(a), force=True), out=out_form(a.out))


def measure_cli(items: list[str]) -> None:
    """Run each whole `schedule` command in a fresh process; print its peak RSS and CPU next to the estimate."""
    import shlex
    import tempfile
    print(f"{'command':58} {'workloads':>10} {'est MiB':>8} {'RSS MiB':>8} {'ratio':>5} {'CPU s':>7} {'wall s':>7} "
          f"{'file MiB':>8} {'load':>4}")
    with tempfile.TemporaryDirectory() as tmp:
        for item in items:
            words = shlex.split(item)
            spec, method, flags = words[0], words[1], words[2:]
            if "--out" in flags:  # --out json|npz: a file of that form in the temporary folder
                i = flags.index("--out")
                flags[i + 1] = str(Path(tmp) / f"s.{flags[i + 1]}")
            argv = [spec, "--method", method, *flags]
            est = cli_estimate(argv)
            start = os.times().elapsed
            # from a small fresh interpreter: a child forked from a big process reports at least its parent's RSS
            r = subprocess.run([sys.executable, "-c", LAUNCH, sys.executable, "-m", "core.cli", "schedule", *argv],
                               cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
            code, maxrss, cpu = r.stdout.split()
            err = r.stderr.strip()
            wall = os.times().elapsed - start
            size = 0.0
            for f in Path(tmp).iterdir():
                size = max(size, f.stat().st_size / 2 ** 20)
                f.unlink()
            rss = int(maxrss) / 1024  # KiB on Linux
            shown = " ".join([spec, method, *words[2:]])
            if int(code) != 0:
                print(f"{shown:58} exit {code}: {err.splitlines()[-1] if err else ''}", flush=True)
                continue
            print(f"{shown:58} {est.workloads:10d} {est.bytes / 2 ** 20:8.0f} {rss:8.0f} {est.bytes / 2 ** 20 / rss:5.2f} "
                  f"{float(cpu):7.1f} {wall:7.1f} {size:8.0f} {os.getloadavg()[0]:4.1f}", flush=True)


FAMILIES = {  # spec template and the parameter scanned
    "bcube k=1": ("bcube:n={x},k=1", range(2, 400)),
    "bcube k=2": ("bcube:n={x},k=2", range(2, 60)),
    "bcube k=3": ("bcube:n={x},k=3", range(2, 20)),
    "dcell k=1": ("dcell:n={x},k=1", range(2, 400)),
    "dcell k=2": ("dcell:n={x},k=2", range(2, 40)),
    "fattree": ("fattree:k={x}", range(2, 74, 2)),
    "jellyfish p=8,r=4": ("jellyfish:switches={x},ports=8,switch_ports=4", range(5, 2001, 5)),
    "leafspine m=16,s=4": ("leafspine:leaves={x},spines=4,servers=16", range(1, 400)),
}


def largest(methods: list[str]) -> None:
    """For each family and method, the largest scanned parameter the guard accepts (nothing built)."""
    mem, mem_src = memory_limit()
    sec, sec_src = time_limit()
    print(f"limits: memory {mem / 2 ** 30:.1f} GiB ({mem_src}), time {sec:.0f} s ({sec_src})")
    print(f"{'family':18} {'method':14} {'largest accepted':38} {'servers':>8} {'workloads':>10} "
          f"{'est GiB':>8} {'est s':>7}")
    for fam, (template, xs) in FAMILIES.items():
        for method in methods:
            kind, solver, rollouts = _kind(method)
            best = None
            for x in xs:
                spec = template.format(x=x)
                try:
                    est = check_schedulable(spec_size(spec), kind, 1, solver=solver, time_limit=60.0, rollouts=rollouts)
                except SizeError:
                    break
                best = (spec, est, spec_size(spec).servers)
            if best is None:
                print(f"{fam:18} {method:14} none")
                continue
            spec, est, servers = best
            print(f"{fam:18} {method:14} {spec:38} {servers:8d} {est.workloads:10d} {est.bytes / 2 ** 30:8.2f} "
                  f"{est.seconds:7.0f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["measure", "cli", "largest"],
                    help="measure: estimates vs measured runs; cli: estimates vs whole schedule commands; "
                         "largest: the largest accepted sizes")
    ap.add_argument("items", nargs="*", help="measure: spec:method[:chunks] (default: the calibration set); "
                    "cli: 'SPEC METHOD [--no-merge] [--out json|npz]' (default: the whole-run set)")
    ap.add_argument("--limit-gib", type=float, default=6.0,
                    help="address-space limit of each measured run (default %(default)s)")
    ap.add_argument("--memory", help="ALLREDUCE_LAB_MAX_MEMORY for `largest` (default: this machine's)")
    ap.add_argument("--seconds", help="ALLREDUCE_LAB_MAX_SECONDS for `largest` (default 300)")
    ap.add_argument("--methods", default="critical-path,ps,ring",
                    help="comma-separated methods for `largest` (default %(default)s)")
    a = ap.parse_args()
    if a.memory:
        os.environ["ALLREDUCE_LAB_MAX_MEMORY"] = a.memory
    if a.seconds:
        os.environ["ALLREDUCE_LAB_MAX_SECONDS"] = a.seconds
    if a.what == "measure":
        measure(a.items or CALIBRATION, a.limit_gib)
    elif a.what == "cli":
        measure_cli(a.items or WHOLE_RUNS)
    else:
        largest(a.methods.split(","))
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
