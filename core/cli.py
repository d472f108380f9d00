"""The ``allreduce-lab`` command line: argument parsing -> core calls; the only place that prints tables."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from typing import Sequence

from tqdm import tqdm

from .compare import compare, configurations, default_methods, rows_to_table
from .methods import get_method, method_names, run_method
from .schedule import ScheduleConfig
from .schedule_io import ScheduleFileError, read_schedule_file, write_schedule
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
    p.add_argument("--checkpoint", default=None,
                   help="RL checkpoint (default: the one trained on this topology, else the universal one)")


def _config(a: argparse.Namespace) -> ScheduleConfig:
    return ScheduleConfig(merge=not a.no_merge, chunks=a.chunks, routing=a.routing, seed=a.seed,
                          time_limit=a.time_limit, samples=a.samples, checkpoint=a.checkpoint,
                          trace=bool(getattr(a, "trace", False)))


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
    _add_schedule_options(p)

    p = sub.add_parser("train", help="train the hierarchical RL scheduler (Algorithm 1)")
    p.add_argument("spec", nargs="?", help="topology spec to train on")
    p.add_argument("--preset", help="train one checkpoint per configuration of a preset (e.g. table2)")
    p.add_argument("--universal", action="store_true",
                   help="train one policy across families, sizes, capacities and chunks (checkpoints/universal)")
    p.add_argument("--out", help="checkpoint path without suffix (default checkpoints/<name>)")
    p.add_argument("--budget", type=float, default=None, help="wall-clock seconds per configuration")
    p.add_argument("--hidden", type=int, default=None, help="width of the hidden layers (default 64)")
    p.add_argument("--train-prior", action="store_true",
                   help="also optimize the lower agent's linear skip path (default: frozen)")
    p.add_argument("--iterations", type=int, default=None, help="outer iterations I of Algorithm 1")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--reward", default="paper", help="reward shaping: paper (eqs. 3-5, default) or rounds")
    p.add_argument("--init", default=None, help="start from this checkpoint instead of fresh weights")
    p.add_argument("--prior", choices=["none", "heuristic"], default="none",
                   help="fresh lower agent: from scratch (none, default) or from the heuristic prior")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
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

    sched = run_method(a.method, t, cfg, progress)
    if bar is not None:
        bar.close()
    stats = sched.stats()
    if a.out:
        write_schedule(sched, a.out, stats, trace=a.trace)
    if a.format == "json":
        print(json.dumps({**stats, "info": sched.info}, indent=2, default=float))
        return 0
    print(f"{t.spec}  method={a.method}  merge={'on' if sched.dag.merge else 'off'}  chunks={sched.dag.chunks}")
    print(f"  rounds {stats['rounds']}" + (f" ({stats['rounds_per_chunk']:.2f} per chunk)" if sched.dag.chunks > 1 else ""))
    b = stats["bounds"]
    print(f"  workloads {stats['workloads']}; lower bound {stats['lower_bound']} (link load {b['link_load']}, "
          f"critical path {b['critical_path']}, ports {b['ports']}, link schedule {b['link_schedule']}); "
          f"gap {100 * stats['gap']:.1f}%")
    print(f"  mean link utilization {100 * stats['mean_utilization']:.1f}%")
    for key in ("status", "proven_optimal", "proven_bound", "ring_adjacent", "samples"):
        if key in sched.info:
            print(f"  {key.replace('_', ' ')}: {sched.info[key]}")
    if "checkpoint" in sched.info:
        own = "yes" if sched.info.get("trained_on_this_topology") else "no"
        print(f"  checkpoint: {sched.info['checkpoint']} (trained on this topology: {own})")
    if "upper_agent" in sched.info:
        print(f"  {sched.info['upper_agent']}")
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

    rows = compare(configs, methods, a.seeds, _config(a), progress)
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
    widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(header)]
    print("  ".join(h.rjust(w) if i else h.ljust(w) for i, (h, w) in enumerate(zip(header, widths))))
    for r in body:
        print("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))))
    print(f"rounds; ps and greedy are means over {a.seeds} seeds; LB(merged) is the lower bound of the merged "
          f"workload DAG; best gap = best merged method vs LB" + ("; * = not proven optimal" if "optimal" in methods else ""))
    for r in rows:
        for m, res in r.results.items():
            if res.error:
                print(f"n/a: {r.name} {m}: {res.error}", file=sys.stderr)
    return 0


def cmd_train(a: argparse.Namespace) -> int:
    """Train RL checkpoints (core.rl.recipes) and print what each got."""
    from dataclasses import replace

    from .rl.recipes import train_spec, train_universal
    from .rl.train import TrainConfig
    from .topology import preset

    if sum(map(bool, (a.spec, a.preset, a.universal))) != 1:
        raise UsageError("train needs exactly one of: a topology spec, --preset NAME, --universal")
    cfg = TrainConfig(seed=a.seed, reward=a.reward, prior=a.prior, train_prior=a.train_prior)
    for name, value in (("budget_s", a.budget), ("iterations", a.iterations), ("hidden", a.hidden)):
        if value is not None:
            cfg = replace(cfg, **{name: value})
    if a.hidden is not None and not 1 <= a.hidden <= 4096:
        raise UsageError(f"--hidden must be in 1..4096, got {a.hidden}")
    if a.out and a.preset:
        raise UsageError("--out names one checkpoint; leave it out with --preset (files go to checkpoints/)")
    command = "allreduce-lab train " + " ".join(sys.argv[2:]) if sys.argv[1:2] == ["train"] else ""
    jobs = ([("universal", None)] if a.universal else
            [(p.spec, p.spec) for p in preset(a.preset)] if a.preset else [(a.spec, a.spec)])
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
             "compare": cmd_compare, "train": cmd_train}


if __name__ == "__main__":
    raise SystemExit(main())
