"""The ``allreduce-lab`` command line: argument parsing -> core calls; the only place that prints tables."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from typing import Sequence

from tqdm import tqdm

from .compare import compare, configurations, default_methods, rows_to_table, time_table
from .methods import get_method, method_names, run_method
from .schedule import ScheduleConfig
from .schedule_io import ScheduleFileError, read_schedule_file, write_schedule
from .seconds import time_report
from .timing import DEFAULT_SIZE, MODES, format_seconds, format_size, parse_size
from .topology import TopologyError, make_topology
from .validate import validate_document


class UsageError(ValueError):
    """Bad input given on the command line."""


def _add_schedule_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, default=0, help="seed of random orders and sampled rollouts (default 0)")
    p.add_argument("--chunks", type=int, default=1, help="pieces per shard, k (default 1)")
    p.add_argument("--no-merge", action="store_true", help="do not merge reduce workloads at servers")
    p.add_argument("--routing", choices=["shortest", "balanced"], default="shortest",
                   help="tie-break among shortest routes (default: lowest node id)")
    p.add_argument("--time-limit", type=float, default=60.0, help="seconds for the optimal solver (default 60)")
    p.add_argument("--samples", type=int, default=16, help="sampled rollouts for rl-sample (default 16)")
    p.add_argument("--checkpoint", default=None, help="RL checkpoint (default: the shipped one for the family)")


def _add_size_option(p: argparse.ArgumentParser, default: str | None = DEFAULT_SIZE) -> None:
    p.add_argument("--size", default=default,
                   help=f"AllReduce message size M: B, KB, MB, GB, KiB, MiB, GiB (default {default or 'the file’s, else ' + DEFAULT_SIZE})")


def _time_lines(rep: dict) -> list[str]:
    """Text lines of a time report: each mode's seconds, algbw, busbw; the bounds and gaps."""
    lines = [f"  time for {format_size(rep['size_bytes'])} over {rep['ranks']} servers "
             f"(links {_span(rep['links']['bandwidth_gbps'], ' Gbit/s')}, {_span(rep['links']['latency_us'], ' µs')}):"]
    b = rep["bounds"]
    for mode in MODES:
        if mode in rep:
            m = rep[mode]
            lines.append(f"    {mode:5} {format_seconds(m['time_s']):>9}  algbw {m['algbw_Bps'] / 1e9:6.2f} GB/s  "
                         f"busbw {m['busbw_Bps'] / 1e9:6.2f} GB/s  gap to best bound {100 * m['gap']['best']:.1f}%")
    lines.append(f"    bounds: bandwidth {format_seconds(b['bandwidth'])}, busiest link {format_seconds(b['link'])}, "
                 f"latency {format_seconds(b['latency'])}, critical path {format_seconds(b['critical_path'])}")
    return lines


def _span(lo_hi: list[float], unit: str) -> str:
    lo, hi = lo_hi
    return f"{lo:g}{unit}" if lo == hi else f"{lo:g}-{hi:g}{unit}"


def _config(a: argparse.Namespace) -> ScheduleConfig:
    return ScheduleConfig(merge=not a.no_merge, chunks=a.chunks, routing=a.routing, seed=a.seed,
                          time_limit=a.time_limit, samples=a.samples, checkpoint=a.checkpoint)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    ap = argparse.ArgumentParser(prog="allreduce-lab", description="Round-based AllReduce scheduling lab.")
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("topology", help="describe a topology: servers, switches, links, degrees")
    p.add_argument("spec", help="e.g. bcube:n=3,k=1, dcell:n=4,k=1, fattree:k=4, file:net.graphml")
    p.add_argument("--format", choices=["text", "json"], default="text")

    p = sub.add_parser("schedule", help="schedule AllReduce on a topology with one method")
    p.add_argument("spec")
    p.add_argument("--method", default="critical-path",
                   help=f"one of {', '.join(method_names())} (default critical-path)")
    p.add_argument("--out", help="write the schedule as allreduce-schedule/1 JSON")
    p.add_argument("--trace", action="store_true",
                   help="with --out, also write a learned method's step-by-step trace (large)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    _add_size_option(p)
    _add_schedule_options(p)

    p = sub.add_parser("validate", help="check an allreduce-schedule/1 file from scratch")
    p.add_argument("file")
    p.add_argument("--max-report", type=int, default=50, help="violations to print (default 50; all are counted)")

    p = sub.add_parser("compare", help="compare methods across configurations")
    p.add_argument("specs", nargs="*", help="topology specs (in addition to --preset)")
    p.add_argument("--preset", help="a named set of configurations, e.g. table2")
    p.add_argument("--methods", default=None,
                   help=f"comma-separated, from {', '.join(method_names())} "
                        f"(default {','.join(default_methods())})")
    p.add_argument("--seeds", type=int, default=5, help="seeds averaged for ps and greedy (default 5)")
    p.add_argument("--format", choices=["text", "json", "csv"], default="text")
    _add_size_option(p)
    _add_schedule_options(p)

    p = sub.add_parser("replay", help="time any allreduce-schedule/1 file in seconds (sync and async)")
    p.add_argument("file")
    _add_size_option(p, default=None)
    p.add_argument("--mode", choices=["sync", "async", "both"], default="both",
                   help="sync: a barrier after every round; async: no barriers (default both)")
    p.add_argument("--format", choices=["text", "json"], default="text")

    p = sub.add_parser("train", help="train the hierarchical RL scheduler (Algorithm 1)")
    p.add_argument("spec", nargs="?", help="topology spec to train on")
    p.add_argument("--preset", help="train one checkpoint per configuration of a preset (e.g. table2)")
    p.add_argument("--out", help="checkpoint path without suffix (default checkpoints/<name>)")
    p.add_argument("--budget", type=float, default=None, help="wall-clock seconds per configuration")
    p.add_argument("--iterations", type=int, default=None, help="outer iterations I of Algorithm 1")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--reward", default="paper", help="reward shaping: paper (eqs. 3-5, default) or rounds")
    p.add_argument("--init", default=None, help="start from this checkpoint instead of fresh weights")
    p.add_argument("--prior", choices=["none", "heuristic"], default="none",
                   help="fresh lower agent: from scratch (none, default) or from the heuristic prior")
    p.add_argument("--quiet", action="store_true", help="no progress bar")

    p = sub.add_parser("cluster", help="simulate jobs sharing a GPU cluster under one or more schedulers")
    p.add_argument("--topology", default="bcube:n=4,k=2", help="network topology spec (default bcube:n=4,k=2)")
    p.add_argument("--gpus-per-server", type=int, default=4, help="GPUs on every server (default 4)")
    p.add_argument("--trace", default="synthetic:jobs=160,seed=0",
                   help="synthetic:jobs=N,seed=S[,rate=R,mix=sjf-bco|gavel], csv:PATH, philly:PATH or helios:PATH")
    p.add_argument("--scheduler", default="all",
                   help="all, heuristics, gadget, topdrl, ours, ORDER+PLACEMENT[+METHOD] or a comma list (default all)")
    p.add_argument("--seed", type=int, default=0, help="seed of random placement (default 0)")
    p.add_argument("--checkpoint", default=None, help="TopDRL checkpoint (default checkpoints/topdrl)")
    p.add_argument("--jobs-out", default=None, help="write one CSV row per job and scheduler to this file")
    p.add_argument("--format", choices=["text", "json", "csv"], default="text")

    p = sub.add_parser("cluster-train", help="train TopDRL's job picker (imitation warm-up, then policy gradient)")
    p.add_argument("--budget", type=float, default=600.0, help="wall-clock seconds (default 600)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="checkpoints/topdrl", help="checkpoint stem (default checkpoints/topdrl)")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code (2 for bad input)."""
    args = build_parser().parse_args(argv)
    try:
        return _COMMANDS[args.command](args)
    except (TopologyError, ScheduleFileError, UsageError, ValueError, FileNotFoundError) as err:
        msg = err.args[0] if err.args else str(err)
        print(f"allreduce-lab: error: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("allreduce-lab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output cut short (`| head`): stop quietly, as Unix tools do
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def cmd_topology(a: argparse.Namespace) -> int:
    """Print the size and degree summary of a topology."""
    t = make_topology(a.spec)
    s = t.summary()
    if a.format == "json":
        print(json.dumps(s, indent=2))
        return 0
    print(s["spec"])
    print(f"  servers {s['servers']}, switches {s['switches']}, nodes {s['nodes']}, "
          f"edges {s['edges']} ({s['directed_links']} directed links), diameter {s['diameter']}")
    for kind in ("server", "switch"):
        hist = s[f"{kind}_degree"]
        if hist:
            print(f"  {kind} degree: " + ", ".join(f"{d} x{c}" for d, c in hist.items()))
    links = "; ".join(f"{name} " + ", ".join(f"{v:g}{unit} x{c}" for v, c in s[key].items())
                      for name, key, unit in (("bandwidth", "bandwidth_gbps", " Gbit/s"), ("latency", "latency_us", " µs")))
    print(f"  links: {links}" + (f"; {s['failed_links']} failed" if s["failed_links"] else ""))
    print(f"  flow-trees {s['servers']}; merged workloads 2*S*(S-1) = {2 * s['servers'] * (s['servers'] - 1)}")
    return 0


def cmd_schedule(a: argparse.Namespace) -> int:
    """Schedule one topology with one method and print its stats (optionally write the file)."""
    method = get_method(a.method)
    t = make_topology(a.spec)
    cfg = _config(a)
    bar = tqdm(total=1.0, desc=a.method, disable=None, leave=False,
               bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}") if method.slow else None

    def progress(frac: float) -> None:
        if bar is not None:
            bar.n = frac
            bar.refresh()

    size = parse_size(a.size, "--size")
    sched = run_method(a.method, t, cfg, progress)
    if bar is not None:
        bar.close()
    stats = sched.stats()
    timing = time_report(sched.dag, sched.rounds, size)
    if a.out:
        write_schedule(sched, a.out, stats, trace=a.trace, timing=timing)
    if a.format == "json":
        print(json.dumps({**stats, "time": timing, "info": sched.info}, indent=2, default=float))
        return 0
    print(f"{t.spec}  method={a.method}  merge={'on' if sched.dag.merge else 'off'}  chunks={sched.dag.chunks}")
    print(f"  rounds {stats['rounds']}" + (f" ({stats['rounds_per_chunk']:.2f} per chunk)" if sched.dag.chunks > 1 else ""))
    b = stats["bounds"]
    print(f"  workloads {stats['workloads']}; lower bound {stats['lower_bound']} (link load {b['link_load']}, "
          f"critical path {b['critical_path']}, ports {b['ports']}, link schedule {b['link_schedule']}); "
          f"gap {100 * stats['gap']:.1f}%")
    print(f"  mean link utilization {100 * stats['mean_utilization']:.1f}%")
    print("\n".join(_time_lines(timing)))
    for key in ("status", "proven_optimal", "proven_bound", "ring_adjacent", "samples", "checkpoint"):
        if key in sched.info:
            print(f"  {key.replace('_', ' ')}: {sched.info[key]}")
    if a.out:
        print(f"  wrote {a.out}")
    return 0


def cmd_validate(a: argparse.Namespace) -> int:
    """Validate a schedule file; exit 0 when correct, 2 when not."""
    data = read_schedule_file(a.file)
    rep = validate_document(data, a.file)
    if rep.ok:
        print(f"{a.file}: OK — {rep.workloads} workloads in {rep.rounds} rounds; every server holds the sum "
              f"of all {rep.trees} flow-trees exactly once")
        return 0
    for v in rep.violations[: a.max_report]:
        where = []
        if v.workload is not None:
            where.append(f"workload {v.workload}")
        if v.round is not None:
            where.append(f"round {v.round}")
        if v.link is not None:
            where.append(f"link {v.link}")
        print(f"  [{v.rule}] {v.message}" + (f"  ({', '.join(where)})" if where else ""))
    counts = ", ".join(f"{k} {n}" for k, n in rep.by_rule().items())
    print(f"{a.file}: INVALID — {len(rep.violations)} violation(s): {counts}", file=sys.stderr)
    return 2


def cmd_replay(a: argparse.Namespace) -> int:
    """Time a schedule file in seconds (it must validate first); exit 2 when it does not."""
    data = read_schedule_file(a.file)
    recorded = data.get("timing") if isinstance(data.get("timing"), dict) else {}
    size = parse_size(a.size if a.size is not None else recorded.get("size_bytes", DEFAULT_SIZE),
                      "--size" if a.size is not None else f"{a.file}: timing.size_bytes")
    rep = validate_document(data, a.file)
    if not rep.ok:
        v = rep.violations[0]
        more = f" (and {len(rep.violations) - 1} more; run validate)" if len(rep.violations) > 1 else ""
        raise UsageError(f"{a.file}: not a valid schedule, cannot time it: [{v.rule}] {v.message}{more}")
    timing = time_report(rep.dag, rep.schedule_rounds, size)
    if a.mode != "both":
        timing.pop("async" if a.mode == "sync" else "sync")
    if a.format == "json":
        print(json.dumps(timing, indent=2, default=float))
        return 0
    print(f"{a.file}: {data.get('method', '?')} on {data['topology'].get('spec', '?')}, "
          f"{rep.workloads} workloads in {rep.rounds} rounds")
    print("\n".join(_time_lines(timing)))
    return 0


def cmd_compare(a: argparse.Namespace) -> int:
    """Print the method comparison as a text table, JSON or CSV."""
    methods = list(default_methods()) if a.methods is None else [m.strip() for m in a.methods.split(",") if m.strip()]
    if not methods:
        raise UsageError("--methods names no method")
    for m in methods:
        get_method(m)
    configs = configurations(a.preset, a.specs)
    bar = tqdm(total=len(configs) * len(methods), desc="compare", disable=None, leave=False)

    def progress(what: str) -> None:
        bar.set_postfix_str(what)
        bar.update(1 if bar.n < bar.total else 0)

    size = parse_size(a.size, "--size")
    rows = compare(configs, methods, a.seeds, _config(a), progress, size=size)
    bar.close()
    if a.format == "json":
        print(json.dumps([r.as_dict() for r in rows], indent=2, default=float))
        return 0
    header, body = rows_to_table(rows, methods)
    if a.format == "csv":
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(header)
        w.writerows(body)
        print(buf.getvalue(), end="")
        return 0
    _print_table(header, body, 1)
    print(f"rounds; ps and greedy are means over {a.seeds} seeds; LB(merged) is the lower bound of the merged "
          f"workload DAG; best gap = best merged method vs LB" + ("; * = not proven optimal" if "optimal" in methods else ""))
    print()
    _print_table(*time_table(rows, methods), 2)
    print(f"seconds for M = {format_size(size)} (means over seeds for ps and greedy); algbw and busbw of the async "
          f"replay (nccl-tests: busbw = algbw·2(n-1)/n); gaps of the async time to the bandwidth bound (any "
          f"AllReduce) and to the best bound of the method's own DAG")
    for r in rows:
        for m, res in r.results.items():
            if res.error:
                print(f"n/a: {r.name} {m}: {res.error}", file=sys.stderr)
    return 0


def _print_table(header: list[str], body: list[list[str]], left: int) -> None:
    """Print aligned columns; the first `left` columns flush left, the rest right."""
    widths = [max([len(h)] + [len(r[i]) for r in body]) for i, h in enumerate(header)]
    for cells in [header] + body:
        print("  ".join(c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))))


def cmd_cluster(a: argparse.Namespace) -> int:
    """Simulate a trace on a cluster under schedulers; print their metrics as text, JSON or CSV."""
    from .cluster import (METRICS, check_fits, expand_names, jobs_table, load_trace, make_cluster, run_schedulers,
                          summarize)
    names = expand_names(a.scheduler)
    cluster = make_cluster(a.topology, a.gpus_per_server)
    trace = load_trace(a.trace)
    check_fits(trace, cluster.n_gpus, f"the cluster ({cluster.spec})")
    bar = tqdm(total=len(names), desc="cluster", disable=None, leave=False,
               bar_format="{desc}: {n:.2f}/{total} schedulers|{bar}| {elapsed}")

    def progress(name: str, frac: float) -> None:
        bar.set_description_str(name)
        bar.n = names.index(name) + frac
        bar.refresh()

    try:
        results = run_schedulers(cluster, trace, names, a.seed, a.checkpoint, progress)
    finally:
        bar.close()
    rows = [summarize(r) for r in results]
    if a.jobs_out:
        with open(a.jobs_out, "w", newline="", encoding="utf-8") as fh:
            table = [{"scheduler": r.scheduler, **row} for r in results for row in jobs_table(r)]
            w = csv.DictWriter(fh, fieldnames=list(table[0]))
            w.writeheader()
            w.writerows(table)
    if a.format == "json":
        print(json.dumps({"cluster": cluster.spec, "gpus": cluster.n_gpus, "trace": trace.name, "jobs": trace.n,
                          "results": rows}, indent=2, default=float))
        return 0
    keys = list(METRICS)
    if a.format == "csv":
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(["scheduler"] + keys + ["wall_s", "cpu_s"])
        w.writerows([[r["scheduler"]] + [r[k] for k in keys] + [r["wall_s"], r["cpu_s"]] for r in rows])
        print(buf.getvalue(), end="")
        return 0
    print(f"{cluster.spec} ({cluster.n_gpus} GPUs), trace {trace.name} ({trace.n} jobs)")
    header = ["scheduler", "avg JCT h", "p95 JCT h", "makespan h", "queue h", "GPU util", "comm", "peak link",
              "mean link", "preempt", "sim s"]
    body = [[r["scheduler"], f"{r['avg_jct_h']:.2f}", f"{r['p95_jct_h']:.2f}", f"{r['makespan_h']:.2f}",
             f"{r['avg_queue_h']:.2f}", f"{100 * r['gpu_util']:.1f}%", f"{100 * r['comm_share']:.1f}%",
             str(r["peak_link_users"]), f"{r['mean_link_users']:.2f}", str(r["preemptions"]), f"{r['wall_s']:.1f}"]
            for r in rows]
    _print_table(header, body, 1)
    print("JCT = end - arrival; queue = first start - arrival; comm = share of busy GPU-time in AllReduce; "
          "peak/mean link = running jobs sharing one directed link (peak; time-average over links in use)")
    return 0


def cmd_cluster_train(a: argparse.Namespace) -> int:
    """Train TopDRL's checkpoint (core.cluster.topdrl_train)."""
    from .cluster.topdrl_train import TrainConfig, train
    if a.budget <= 0:
        raise UsageError(f"--budget must be > 0 seconds, got {a.budget}")
    command = f"allreduce-lab cluster-train --budget {a.budget:g} --seed {a.seed} --out {a.out}"
    meta = train(TrainConfig(budget_s=a.budget, seed=a.seed), a.out, command)
    t = meta["training"]
    print(f"wrote {a.out}.safetensors and {a.out}.json: best validation average JCT {meta['best_val_avg_jct_h']:.2f} h "
          f"after {meta['episodes']} episodes; {t['wall_s']:.0f} s wall, {t['cpu_s']:.0f} s CPU, "
          f"load {t['loadavg_start'][0]:.1f} -> {t['loadavg_end'][0]:.1f}")
    return 0


def cmd_train(a: argparse.Namespace) -> int:
    """Train RL checkpoints (see core.rl.train)."""
    from .rl.train import train_command
    return train_command(a)


_COMMANDS = {"topology": cmd_topology, "schedule": cmd_schedule, "validate": cmd_validate,
             "compare": cmd_compare, "replay": cmd_replay, "train": cmd_train, "cluster": cmd_cluster,
             "cluster-train": cmd_cluster_train}


if __name__ == "__main__":
    raise SystemExit(main())
