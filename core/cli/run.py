"""`allreduce-lab run`: execute a schedule file on torch.distributed (core.execute)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING

from tqdm import tqdm

from .. import argtypes as at
from ..argtypes import UsageError
from .kinds import schedule_file
from ..timing import parse_size
from ..units import RATE_UNITS, rate_unit, time_unit
from .common import machine_output, note, table_lines

if TYPE_CHECKING:
    from ..execute.bench import BenchReport


def register(sub) -> None:
    """Add this module's subcommands to the parser."""
    p = sub.add_parser("run", help="execute a schedule file on torch.distributed; time it against dist.all_reduce")
    p.add_argument("file", help="an allreduce-schedule/1 file (allreduce-lab schedule ... --out s.json)")
    p.add_argument("--size", default="64MB", help="bytes all-reduced per rank: B, KB, MB, GB, KiB, MiB, GiB (default 64MB)")
    p.add_argument("--dtype", default="float32", help="float32 (default), float64, float16, bfloat16, int64, int32, int8, uint8")
    p.add_argument("--repeat", type=at.int_in(1, 100_000), default=5, help="timed repetitions (default 5)")
    p.add_argument("--warmup", type=at.int_in(0, 100_000), default=1, help="untimed repetitions first (default 1)")
    p.add_argument("--timeout", type=at.seconds(86400), default=300.0,
                   help="seconds a rank may wait on another (default 300)")
    p.add_argument("--port", type=at.int_in(0, 65535), default=0,
                   help="local rendezvous port on 127.0.0.1 (default 0: a free one)")
    p.add_argument("--ranks-per-process", type=at.int_in(1, 1024), default=1,
                   help="local ranks hosted per process as threads (default 1)")
    p.add_argument("--backend", choices=["gloo", "nccl"], default="gloo", help="under torchrun (default gloo)")
    p.add_argument("--rank-map", default=None, help="server node ids in rank order, comma-separated (default: ascending ids)")
    p.add_argument("--format", choices=["text", "json"], default="text", help="text (default) or json")
    p.set_defaults(func=cmd_run)


def cmd_run(a: argparse.Namespace) -> int:
    """Run a schedule on real tensors (local processes, or one rank of torchrun); 0 correct, 1 wrong, 2 error."""
    from ..execute import bench, build_plan
    from ..execute.executor import error_line

    try:
        ranks = [int(x) for x in a.rank_map.split(",")] if a.rank_map else None
    except ValueError:
        raise UsageError(f"--rank-map must list server node ids separated by commas, got {a.rank_map!r}") from None
    if a.backend == "nccl" and not bench.under_torchrun():
        raise UsageError("--backend nccl needs torchrun (one GPU per rank); local runs use gloo")
    plan = build_plan(schedule_file(a.file), ranks, name=a.file)
    numel, rounded = bench.whole_elements(parse_size(a.size, "--size"), a.dtype)
    if rounded and not machine_output(a):  # --format json gives the bytes that ran in "bytes"
        note(f"note: --size {a.size}: {rounded}")
    cfg = bench.BenchConfig(numel=numel, dtype=a.dtype, repeat=a.repeat, warmup=a.warmup)
    bar = tqdm(total=a.warmup + a.repeat, desc=f"run {plan.method}", disable=None, leave=False)
    progress = lambda rank, i: bar.update(1) if rank == 0 else None  # noqa: E731
    try:
        if bench.under_torchrun():
            rep = bench.run_torchrun(plan, cfg, backend=a.backend, timeout=a.timeout, progress=progress)
        else:
            rep = bench.run_local(plan, cfg, port=a.port, timeout=a.timeout, ranks_per_process=a.ranks_per_process,
                                  progress=progress)
    except bench.SameOnEveryRank as err:  # torchrun: every rank found it; one line from rank 0, the same exit code
        bar.close()
        if os.environ.get("RANK") == "0":
            print(f"allreduce-lab: error: {err}", file=sys.stderr)
        return 2
    except (RuntimeError, OSError) as err:  # launch, transfer and backend errors: one line
        bar.close()
        print(f"allreduce-lab: error: {error_line(err)[0]}", file=sys.stderr)
        return 2
    bar.close()
    if rep is None:  # a torchrun rank other than 0: rank 0 reports
        return 0
    if a.format == "json":
        print(json.dumps(rep.as_dict(), indent=2))
        return 0 if rep.correct else 1
    for line in report_lines(rep):
        print(line)
    return 0 if rep.correct else 1


def report_lines(rep: BenchReport) -> list[str]:
    """`run`'s text report of a `BenchReport` (core.execute.bench), line by line, each at most ~110 characters."""
    from ..execute.bench import element_size

    procs = f"{rep.processes} process{'es' if rep.processes != 1 else ''}"
    out = [f"{rep.spec}  method={rep.method}  {rep.ranks} ranks ({rep.mode}, {procs})  {rep.nbytes} bytes {rep.dtype}"]
    numel = rep.nbytes // element_size(rep.dtype)
    if rep.tolerance == 0:
        check = "bitwise equal" if rep.correct else f"not bitwise equal: max |diff| {rep.max_abs_diff:.3g}"
    else:
        check = f"max |diff| {rep.max_abs_diff:.3g} {'<=' if rep.correct else '>'} {rep.tolerance:.3g}"
    out.append(f"  result vs dist.all_reduce, every rank and repetition: {'OK' if rep.correct else 'MISMATCH'} "
               f"({check})")
    if rep.tolerance:
        out.append(f"    absolute tolerance 2(n-1)*n*eps (n = {rep.ranks}, {rep.dtype} eps): the worst rounding of "
                   f"summing n terms in two orders")
    if rep.elements_differ:  # the most on one rank in one repetition (bench_rank takes the max over both)
        out.append(f"    {rep.elements_differ} of {numel} elements differ on the worst rank and repetition"
                   + (" (rounding)" if rep.correct else ""))
    header, body, rate = run_table(rep.rows(), rep.average())
    out += table_lines(header, body, left=1)
    avg = rep.average()
    ratio = avg["schedule_s"] / avg["all_reduce_s"]
    pace = "slower" if ratio > 1.005 else "faster" if ratio < 0.995 else "as fast"
    out.append(f"  {rate}; busbw = algbw * 2(n-1)/n; the schedule takes {ratio:.2f}x the time of all_reduce ({pace})")
    if rep.mode.startswith("local"):
        out.append(f"  whole run (start, warm-up, timed reps): wall {rep.wall_s:.1f} s, CPU {rep.cpu_s:.1f} s "
                   f"({procs} + this one), load {rep.load[0]:.2f}")
    else:
        out.append(f"  from joining the group to the end: wall {rep.wall_s:.1f} s (rank 0), CPU {rep.cpu_s:.1f} s "
                   f"(all {rep.ranks} ranks), load {rep.load[0]:.2f} (rank 0's machine)")
    if rep.schedule_cpu_s:
        out.append(f"  CPU seconds per AllReduce, summed over the {rep.ranks} ranks: "
                   f"schedule {avg['schedule_cpu_s']:.3f}, all_reduce {avg['all_reduce_cpu_s']:.3f}")
    elif rep.cpu_absent:
        out.append(f"  no CPU seconds per AllReduce: {rep.cpu_absent}")
    if rep.mode.startswith("local"):
        out.append("  loopback has no topology: these times measure the executor, not the network")
    elif rep.one_machine:
        out.append(f"  all {rep.ranks} ranks ran on this one machine: these times measure the executor, not a network")
    return out


RUN_COLUMNS = ("schedule_s", "schedule_algbw", "schedule_busbw", "all_reduce_s", "all_reduce_algbw", "all_reduce_busbw")
"""`ExecReport.rows()` keys in the order `run` prints them: seconds, and rates in GB/s (core.execute.bench)."""


def run_table(rows: list[dict], avg: dict) -> tuple[list[str], list[list[str]], str]:
    """(header, body, rate note) of `run`'s table: one time unit for its times and one rate unit for its rates, picked
    by the rule schedule, replay and compare use (`core.units.time_unit`, `rate_unit`: 999 B in KB/s or MB/s, not
    ``0`` GB/s), named in the header; times and rates with 2 decimals (trial 16: 3 significant digits gave 270.0
    beside 91.3)."""
    lines = [(str(r["rep"]), [r[k] for k in RUN_COLUMNS]) for r in rows] + [("avg", [avg[k] for k in RUN_COLUMNS])]
    values = [v for _, vs in lines for v in vs]
    t_unit, t_per = time_unit(v for k, v in zip(RUN_COLUMNS * len(lines), values) if k.endswith("_s"))
    r_unit, r_per = rate_unit(1e9 * v for k, v in zip(RUN_COLUMNS * len(lines), values) if not k.endswith("_s"))
    cells = [[f"{v * t_per:.2f}" for v in column] if k.endswith("_s")
             else [f"{v * 1e9 / r_per:.2f}" for v in column]
             for k, column in zip(RUN_COLUMNS, zip(*(vs for _, vs in lines)))]
    header = ["  rep", f"schedule {t_unit}", f"algbw {r_unit}", f"busbw {r_unit}", f"all_reduce {t_unit}",
              f"algbw {r_unit}", f"busbw {r_unit}"]
    body = [[f"  {label}"] + [c[i] for c in cells] for i, (label, _) in enumerate(lines)]
    per = dict(RATE_UNITS)[r_unit]
    return header, body, f"{r_unit} ({per:.0e} B/s)".replace("(1e+00 B/s)", "(bytes per second)").replace("e+0", "e")
