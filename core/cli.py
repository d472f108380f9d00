"""The ``allreduce-lab`` command line: argument parsing -> core calls; the only place that prints tables."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from typing import Sequence

from tqdm import tqdm

from . import argtypes as at
from .argtypes import OneLineParser, UsageError
from .compare import compare, configurations, default_methods, replan_table, rows_to_table, time_table
from .guard import check, check_schedulable, estimate_describe
from .methods import get_method, method_names, run_method
from .replan import LinkEvent, Replan, replan
from .routing import ROUTING_MODES
from .schedule import ScheduleConfig
from .schedule_io import ScheduleFileError, read_schedule_file, write_schedule
from .seconds import time_report
from .timing import DEFAULT_SIZE, MODES, format_seconds, format_size, parse_size
from .topology import (Topology, TopologyError, changes, degrade, describe_changes, make_topology, parse_spec,
                       preset, spec_size)
from .validate import validate_document

FORCE_HELP = "run even when the size guard estimates more memory or time than the limits (docs/limits.md)"


def _add_schedule_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=at.seed, default=0,
                   help=f"seed of random orders, sampled rollouts and CP-SAT, 0..{at.SEED_MAX} (default 0); "
                        "the same seed writes the same schedule file, optimal included")
    p.add_argument("--chunks", type=at.int_in(1, 1_000_000), default=1, help="pieces per shard, k (default 1)")
    p.add_argument("--no-merge", action="store_true", help="do not merge reduce workloads at servers")
    p.add_argument("--routing", choices=list(ROUTING_MODES), default="shortest",
                   help="shortest routes with the lowest-id tie-break (default), balanced over equal routes, "
                        "or bandwidth: trees avoiding slow and loaded links")
    p.add_argument("--time-limit", type=at.seconds(86400), default=60.0,
                   help="work limit of the optimal solver in CP-SAT's deterministic seconds, which keep a seeded "
                        "run reproducible (about one second of one core each; default 60)")
    p.add_argument("--samples", type=at.int_in(1, 10_000), default=16, help="sampled rollouts for rl-sample (default 16)")
    p.add_argument("--checkpoint", default=None, help="RL checkpoint (default: the one trained on this topology, else the universal one)")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)


def _add_network_options(p: argparse.ArgumentParser, mid_run: bool = True) -> None:
    p.add_argument("--fail-links", metavar="LINKS",
                   help="links failed before the run: ids or u-v label pairs (3,17 or s00-sw0.0), or "
                        "random:FRACTION[,seed=N] (skips links whose loss would cut a server off)")
    p.add_argument("--slow-links", metavar="LINKS",
                   help="links slowed before the run: LINK:GBITS or LINK:xFACTOR (3:25,s00-sw0.0:x0.5), or "
                        "random:FRACTIONxFACTOR[,seed=N]")
    if mid_run:
        p.add_argument("--fail-at", metavar="WHEN:LINKS",
                       help="links that fail during the run, at a time or after R rounds: 2ms:3,17 or round=10:3; "
                            "each method re-plans the rest")
        p.add_argument("--slow-at", metavar="WHEN:LINKS",
                       help="links that slow down during the run: 2ms:3:25 or round=10:3:x0.25")


def _network(a: argparse.Namespace, spec: str) -> tuple[Topology, Topology]:
    """(the topology as built, the topology with --fail-links/--slow-links applied)."""
    base = make_topology(spec, force=a.force)
    return base, degrade(base, fail=a.fail_links, slow=a.slow_links)


def _event(a: argparse.Namespace, t: Topology) -> LinkEvent | None:
    """The mid-run event of --fail-at/--slow-at on topology `t`, or None."""
    texts = _event_texts(a)
    return None if texts is None else LinkEvent.parse(t, *texts, what="--fail-at" if texts[1] else "--slow-at")


def _event_texts(a: argparse.Namespace) -> tuple[str, str | None, str | None] | None:
    """(when, failed links, slowed links) of --fail-at/--slow-at (one moment for both), or None."""
    parts = {}
    for opt, value in (("--fail-at", getattr(a, "fail_at", None)), ("--slow-at", getattr(a, "slow_at", None))):
        if value is None:
            continue
        when, colon, links = value.partition(":")
        if not colon or not links.strip():
            raise UsageError(f"{opt}: give WHEN:LINKS such as 2ms:3 or round=10:3, got {value!r}")
        parts[opt] = (when.strip(), links.strip())
    if not parts:
        return None
    whens = {w for w, _ in parts.values()}
    if len(whens) > 1:
        raise UsageError(f"--fail-at and --slow-at must give the same moment, got {' and '.join(sorted(whens))}")
    return whens.pop(), parts.get("--fail-at", (None, None))[1], parts.get("--slow-at", (None, None))[1]


def _replan_lines(r: Replan) -> list[str]:
    """Text lines of one re-planned run."""
    s = r.summary()
    when = f"round {r.event.at_round} ({format_seconds(s['at_s'])})" if r.event.at_round is not None \
        else format_seconds(s["at_s"])
    lost = s["lost_s"]
    return [f"  during the run, at {when}: {describe_changes(r.topology, s['changes'])}",
            f"    state: {s['finished']} finished, {s['in_flight_kept']} in flight kept, {s['resent']} lost in flight "
            f"(re-sent), {s['not_started']} not started; resumes at {format_seconds(s['resume_s'])}",
            f"    {r.method} re-planned the rest: {s['rest_workloads']} workloads in {s['rest_rounds']} rounds "
            f"({s['rerouted']} re-routed) in {s['replan_wall_s']:.3f} s wall, {s['replan_cpu_s']:.3f} s CPU",
            f"    finish {format_seconds(s['finish_s'])} (async) vs {format_seconds(s['failure_free_s'])} failure-free: "
            f"{'lost' if lost >= 0 else 'gained'} {format_seconds(abs(lost))} ({100 * s['lost_share']:+.1f}%)"]


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
                          time_limit=a.time_limit, samples=a.samples, checkpoint=a.checkpoint,
                          size=parse_size(a.size, "--size"), trace=bool(getattr(a, "trace", False)),
                          force=bool(getattr(a, "force", False)))


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    ap = OneLineParser(prog="allreduce-lab", description="Round-based AllReduce scheduling lab.")
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("topology", help="describe a topology: servers, switches, links, degrees")
    p.add_argument("spec", help="e.g. bcube:n=3,k=1, dcell:n=4,k=1, fattree:k=4, file:net.graphml")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--links", action="store_true", help="also list every link: id, ends, level, bandwidth, latency")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    _add_network_options(p, mid_run=False)

    p = sub.add_parser("schedule", help="schedule AllReduce on a topology with one method")
    p.add_argument("spec")
    p.add_argument("--method", default="critical-path",
                   help=f"one of {', '.join(method_names())} (default critical-path)")
    p.add_argument("--out", type=at.out_file, help="write the schedule as allreduce-schedule/1 JSON")
    p.add_argument("--trace", action="store_true",
                   help="with --out, also write a learned method's step-by-step trace (large)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    _add_size_option(p)
    _add_schedule_options(p)
    _add_network_options(p)

    p = sub.add_parser("validate", help="check an allreduce-schedule/1 file from scratch")
    p.add_argument("file")
    p.add_argument("--max-report", type=at.int_in(0, 1_000_000), default=50,
                   help="violations to print (default 50; all are counted)")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)

    p = sub.add_parser("compare", help="compare methods across configurations")
    p.add_argument("specs", nargs="*", help="topology specs (in addition to --preset)")
    p.add_argument("--preset", help="a named set of configurations, e.g. table2")
    p.add_argument("--methods", default=None,
                   help=f"comma-separated, from {', '.join(method_names())} "
                        f"(default {','.join(default_methods())})")
    p.add_argument("--seeds", type=at.int_in(1, 1000), default=5, help="seeds averaged for ps and greedy (default 5)")
    p.add_argument("--format", choices=["text", "json", "csv"], default="text")
    _add_size_option(p)
    _add_schedule_options(p)
    _add_network_options(p)

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
    p.add_argument("--format", choices=["text", "json"], default="text")

    p = sub.add_parser("replay", help="time any allreduce-schedule/1 file in seconds (sync and async)")
    p.add_argument("file")
    _add_size_option(p, default=None)
    p.add_argument("--mode", choices=["sync", "async", "both"], default="both",
                   help="sync: a barrier after every round; async: no barriers (default both)")
    p.add_argument("--format", choices=["text", "json"], default="text")

    p = sub.add_parser("train", help="train the hierarchical RL scheduler (Algorithm 1)")
    p.add_argument("spec", nargs="?", help="topology spec to train on")
    p.add_argument("--preset", help="train one checkpoint per configuration of a preset (e.g. table2)")
    p.add_argument("--universal", action="store_true",
                   help="train one policy across families, sizes, capacities and chunks (checkpoints/universal)")
    p.add_argument("--out", type=at.out_stem, help="checkpoint path without suffix (default checkpoints/<name>)")
    p.add_argument("--budget", type=at.seconds(10 ** 6), default=None, help="wall-clock seconds per configuration")
    p.add_argument("--hidden", type=at.int_in(1, 1024), default=None, help="width of the hidden layers (default 64)")
    p.add_argument("--train-prior", action="store_true",
                   help="also optimize the lower agent's linear skip path (default: frozen)")
    p.add_argument("--iterations", type=at.int_in(1, 10 ** 7), default=None, help="outer iterations I of Algorithm 1")
    p.add_argument("--seed", type=at.seed, default=0, help=f"0..{at.SEED_MAX} (default 0)")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
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
    p.add_argument("--checkpoint", default=None, help="TopDRL checkpoint (default checkpoints/topdrl/topdrl)")
    p.add_argument("--jobs-out", default=None, help="write one CSV row per job and scheduler to this file")
    p.add_argument("--format", choices=["text", "json", "csv"], default="text")

    p = sub.add_parser("cluster-train", help="train TopDRL's job picker (imitation warm-up, then policy gradient)")
    p.add_argument("--budget", type=float, default=600.0, help="wall-clock seconds (default 600)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="checkpoints/topdrl/topdrl", help="checkpoint stem (default checkpoints/topdrl/topdrl)")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code (2 for bad input)."""
    try:
        args = build_parser().parse_args(argv)
        return _COMMANDS[args.command](args)
    except (TopologyError, ScheduleFileError, UsageError, ValueError) as err:
        msg = str(err.args[0] if err.args else err)
        print(f"allreduce-lab: error: {msg.splitlines()[0] if msg else type(err).__name__}", file=sys.stderr)
        return 2
    except OSError as err:  # a file that cannot be read or written: its name and the reason, not an errno
        print(f"allreduce-lab: error: {err.filename or ''}: {err.strerror or type(err).__name__}", file=sys.stderr)
        return 2
    except MemoryError:
        print("allreduce-lab: error: out of memory (the size guard's estimate was too low, or --force was given); "
              "try a smaller size (docs/limits.md)", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("allreduce-lab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output cut short (`| head`): stop quietly, as Unix tools do
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def _guard(spec_or_topology, methods: list[str], a: argparse.Namespace) -> None:
    """Refuse (SizeError) before building anything when a method's run is estimated over the limits.

    A family spec is checked from its formulas; a file once it is read (pass the Topology)."""
    if isinstance(spec_or_topology, str):
        spec_or_topology = spec_size(spec_or_topology)
        if spec_or_topology is None:  # a file or an example: checked once it is read
            return
    cfg = _config(a)
    for name in methods:
        get_method(name).guard(spec_or_topology, cfg)


def cmd_topology(a: argparse.Namespace) -> int:
    """Print the size and degree summary of a topology (and its links with --links)."""
    _, t = _network(a, a.spec)
    check(estimate_describe(t.size), force=a.force)
    s = t.summary()
    link_rows = [{"id": e, "u": t.labels[u], "v": t.labels[v], "level": int(lev), "capacity": int(c),
              "bandwidth_gbps": float(bw), "latency_us": float(lat), "failed": bool(f)}
             for e, ((u, v), lev, c, bw, lat, f) in enumerate(zip(t.edges.tolist(), t.edge_level, t.capacity,
                                                                  t.bandwidth, t.latency, t.failed))]
    if a.format == "json":
        print(json.dumps({**s, "links": link_rows} if a.links else s, indent=2))
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
    if a.links:
        print("  link  u-v  level  capacity  Gbit/s  µs")
        for x in link_rows:
            print(f"  {x['id']:4d}  {x['u']}-{x['v']}  {x['level']}  {x['capacity']}  {x['bandwidth_gbps']:g}  "
                  f"{x['latency_us']:g}" + ("  FAILED" if x["failed"] else ""))
    return 0


def cmd_schedule(a: argparse.Namespace) -> int:
    """Schedule one topology with one method and print its stats (optionally write the file)."""
    method = get_method(a.method)
    _guard(a.spec, [a.method], a)
    base, t = _network(a, a.spec)
    _guard(t, [a.method], a)
    event = _event(a, t)
    cfg = _config(a)
    bar = tqdm(total=1.0, desc=a.method, disable=None, leave=False,
               bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}") if method.slow else None

    def progress(frac: float) -> None:
        if bar is not None:
            bar.n = frac
            bar.refresh()

    size = cfg.size
    sched = run_method(a.method, t, cfg, progress)
    if bar is not None:
        bar.close()
    stats = sched.stats()
    timing = time_report(sched.dag, sched.rounds, size)
    network = changes(base, t)
    moved = replan(sched, event, size=size) if event is not None else None
    extra = {"network": network} if network["failed"] or network["slowed"] else {}
    if moved is not None:
        extra["replan"] = moved.summary()
    if a.out:
        write_schedule(sched, a.out, stats, trace=a.trace, timing=timing, extra=extra)
    if a.format == "json":
        print(json.dumps({**stats, "time": timing, "info": sched.info, **extra}, indent=2, default=float))
        return 0
    print(f"{t.spec}  method={a.method}  merge={'on' if sched.dag.merge else 'off'}  chunks={sched.dag.chunks}")
    if "network" in extra:
        print(f"  network: {describe_changes(t, network)}")
    print(f"  rounds {stats['rounds']}" + (f" ({stats['rounds_per_chunk']:.2f} per chunk)" if sched.dag.chunks > 1 else ""))
    b = stats["bounds"]
    print(f"  workloads {stats['workloads']}; lower bound {stats['lower_bound']} (link load {b['link_load']}, "
          f"critical path {b['critical_path']}, ports {b['ports']}, link schedule {b['link_schedule']}); "
          f"gap {100 * stats['gap']:.1f}%")
    print(f"  mean link utilization {100 * stats['mean_utilization']:.1f}%")
    print("\n".join(_time_lines(timing)))
    for key in ("status", "proven_optimal", "proven_bound", "ring_adjacent", "samples", "routing"):
        if key in sched.info:
            print(f"  {key.replace('_', ' ')}: {sched.info[key]}")
    if "checkpoint" in sched.info:
        own = "yes" if sched.info.get("trained_on_this_topology") else "no"
        print(f"  checkpoint: {sched.info['checkpoint']} (trained on this topology: {own})")
    if "upper_agent" in sched.info:
        print(f"  {sched.info['upper_agent']}")
    if moved is not None:
        print("\n".join(_replan_lines(moved)))
    if a.out:
        print(f"  wrote {a.out}")
    return 0


def cmd_validate(a: argparse.Namespace) -> int:
    """Validate a schedule file; exit 0 when correct, 2 when not."""
    data = read_schedule_file(a.file, force=a.force)
    rep = validate_document(data, a.file, force=a.force)
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
    for _, spec, _ in configs:  # compare also builds the merged DAG for the common bound
        is_file = parse_spec(spec)[0] in ("file", "example")
        _guard(make_topology(spec, force=a.force) if is_file else spec, ["critical-path", *methods], a)
    bar = tqdm(total=len(configs) * len(methods), desc="compare", disable=None, leave=False)

    def progress(what: str) -> None:
        bar.set_postfix_str(what)
        bar.update(1 if bar.n < bar.total else 0)

    cfg = _config(a)
    size = cfg.size
    event = None
    if a.fail_at or a.slow_at:  # read on each configuration; check the form once here
        event = _event_texts(a)
    rows = compare(configs, methods, a.seeds, cfg, progress, size=size, fail=a.fail_links, slow=a.slow_links,
                   event=event)
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
    if event is not None:
        print()
        _print_table(*replan_table(rows, methods), 2)
        given = " ".join(f"{opt} {v}" for opt, v in (("--fail-at", a.fail_at), ("--slow-at", a.slow_at)) if v)
        print(f"mid-run link event ({given}): each method re-plans the rest; async replay; lost = finish - "
              f"failure-free finish of the same schedule")
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


def cmd_run(a: argparse.Namespace) -> int:
    """Run a schedule on real tensors (local processes, or one rank of torchrun); 0 correct, 1 wrong, 2 error."""
    from .execute import bench, build_plan
    from .execute.executor import error_line

    try:
        ranks = [int(x) for x in a.rank_map.split(",")] if a.rank_map else None
    except ValueError:
        raise UsageError(f"--rank-map must list server node ids separated by commas, got {a.rank_map!r}") from None
    if a.backend == "nccl" and not bench.under_torchrun():
        raise UsageError("--backend nccl needs torchrun (one GPU per rank); local runs use gloo")
    plan = build_plan(read_schedule_file(a.file), ranks)
    cfg = bench.BenchConfig(numel=max(1, parse_size(a.size, "--size") // bench.element_size(a.dtype)), dtype=a.dtype,
                            repeat=a.repeat, warmup=a.warmup)
    bar = tqdm(total=a.warmup + a.repeat, desc=f"run {plan.method}", disable=None, leave=False)
    progress = lambda rank, i: bar.update(1) if rank == 0 else None  # noqa: E731
    try:
        if bench.under_torchrun():
            rep = bench.run_torchrun(plan, cfg, backend=a.backend, timeout=a.timeout, progress=progress)
        else:
            rep = bench.run_local(plan, cfg, port=a.port, timeout=a.timeout, ranks_per_process=a.ranks_per_process,
                                  progress=progress)
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
    print(f"{rep.spec}  method={rep.method}  {rep.ranks} ranks ({rep.mode}, {rep.processes} processes)  "
          f"{rep.nbytes} bytes {rep.dtype}")
    check = ("bitwise equal" if rep.tolerance == 0 else f"max |diff| {rep.max_abs_diff:.3g} <= {rep.tolerance:.3g}") \
        if rep.correct else f"{rep.elements_differ} elements differ (max |diff| {rep.max_abs_diff:.3g})"
    print(f"  result vs dist.all_reduce: {'OK' if rep.correct else 'MISMATCH'} ({check})")
    rows = rep.rows()
    mean = lambda k: sum(r[k] for r in rows) / len(rows)  # noqa: E731
    cols = ("schedule_s", "schedule_algbw", "schedule_busbw", "all_reduce_s", "all_reduce_algbw", "all_reduce_busbw")
    _print_table(["  rep", "schedule ms", "algbw", "busbw", "all_reduce ms", "algbw", "busbw"],
                 [[f"  {label}"] + [f"{1e3 * v:.2f}" if k.endswith("_s") else f"{v:.3g}" for k, v in zip(cols, values)]
                  for label, values in [(str(r["rep"]), [r[k] for k in cols]) for r in rows]
                  + [("avg", [mean(k) for k in cols])]], left=1)
    print(f"  GB/s (1e9 B/s); busbw = algbw * 2(n-1)/n; schedule / all_reduce time "
          f"{mean('schedule_s') / mean('all_reduce_s'):.2f}x; wall {rep.wall_s:.1f} s, CPU {rep.cpu_s:.1f} s, "
          f"load {rep.load[0]:.2f}")
    if rep.schedule_cpu_s and rep.mode.startswith("local") and rep.processes == rep.ranks:
        print(f"  CPU seconds per AllReduce, all ranks: schedule {mean('schedule_cpu_s'):.3f}, "
              f"all_reduce {mean('all_reduce_cpu_s'):.3f}")
    if rep.mode.startswith("local"):
        print("  loopback has no topology: these times measure the executor, not the network")
    return 0 if rep.correct else 1


def cmd_train(a: argparse.Namespace) -> int:
    """Train RL checkpoints (core.rl.recipes) and print what each got."""
    from dataclasses import replace

    from .rl.recipes import train_spec, train_universal
    from .rl.train import TrainConfig

    if sum(map(bool, (a.spec, a.preset, a.universal))) != 1:
        raise UsageError("train needs exactly one of: a topology spec, --preset NAME, --universal")
    cfg = TrainConfig(seed=a.seed, reward=a.reward, prior=a.prior, train_prior=a.train_prior)
    for name, value in (("budget_s", a.budget), ("iterations", a.iterations), ("hidden", a.hidden)):
        if value is not None:
            cfg = replace(cfg, **{name: value})
    if a.out and a.preset:
        raise UsageError("--out names one checkpoint; leave it out with --preset (files go to checkpoints/)")
    command = "allreduce-lab train " + " ".join(sys.argv[2:]) if sys.argv[1:2] == ["train"] else ""
    jobs = ([("universal", None)] if a.universal else
            [(p.spec, p.spec) for p in preset(a.preset)] if a.preset else [(a.spec, a.spec)])
    for _, spec in jobs:  # the size guard, before anything is built
        if spec is not None:
            size = spec_size(spec)
            check_schedulable(size if size else make_topology(spec, force=a.force), "tree", 1, force=a.force)
    for label, spec in jobs:
        bar = tqdm(desc=f"train {label}", disable=True if a.quiet else None, leave=False, unit="update")

        def report(row: dict) -> None:
            bar.update(1)
            bar.set_postfix_str(f"{row['instance']} mean {row['mean_rounds']:.1f} lb {row['lower_bound']}")

        if spec is None:
            side, res = train_universal(cfg, a.out, a.init, report, command)
        else:
            side, res = train_spec(spec, cfg, a.out, a.init, report, command)
        bar.close()
        print(f"{label}: {len(res.log)} updates in {res.seconds:.0f} s wall, {res.cpu_seconds:.0f} s CPU -> {side}")
        for name, g, s_, c, lb in zip(_instance_names(side), res.greedy_rounds, res.sample_rounds,
                                      res.critical_path_rounds, res.lower_bounds):
            print(f"  {name}: rl {g}, rl-sample {s_} (critical-path {c}, lower bound {lb})", flush=True)
    return 0


def _instance_names(side) -> list[str]:
    """Instance names in a checkpoint sidecar's `final` records."""
    meta = json.loads(open(side).read())
    final = meta["final"] if isinstance(meta["final"], list) else [meta["final"]]
    return [f.get("instance", meta.get("topology")) for f in final]


_COMMANDS = {"topology": cmd_topology, "schedule": cmd_schedule, "validate": cmd_validate,
             "compare": cmd_compare, "replay": cmd_replay, "run": cmd_run, "train": cmd_train,
             "cluster": cmd_cluster, "cluster-train": cmd_cluster_train}


if __name__ == "__main__":
    raise SystemExit(main())
