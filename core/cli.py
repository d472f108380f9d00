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
from .compare import DEFAULT_METHODS, compare, configurations, rows_to_table
from .guard import check, check_schedulable, estimate_describe
from .schedule_io import ScheduleFileError, read_schedule_file, write_schedule
from .schedulers import METHODS, ScheduleConfig, run_method
from .topology import TopologyError, make_topology, parse_spec, preset, spec_size
from .validate import validate_document

FORCE_HELP = "run even when the size guard estimates more memory or time than the limits (docs/limits.md)"


def _add_schedule_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=at.seed, default=0,
                   help=f"seed of random orders, sampled rollouts and CP-SAT, 0..{at.SEED_MAX} (default 0); "
                        "the same seed writes the same schedule file, optimal included")
    p.add_argument("--chunks", type=at.int_in(1, 1_000_000), default=1, help="pieces per shard, k (default 1)")
    p.add_argument("--no-merge", action="store_true", help="do not merge reduce workloads at servers")
    p.add_argument("--routing", choices=["shortest", "balanced"], default="shortest",
                   help="tie-break among shortest routes (default: lowest node id)")
    p.add_argument("--time-limit", type=at.seconds(86400), default=60.0,
                   help="work limit of the optimal solver in CP-SAT's deterministic seconds, which keep a seeded "
                        "run reproducible (about one second of one core each; default 60)")
    p.add_argument("--samples", type=at.int_in(1, 10_000), default=16, help="sampled rollouts for rl-sample (default 16)")
    p.add_argument("--checkpoint", default=None, help="RL checkpoint (default: the shipped one for the family)")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)


def _config(a: argparse.Namespace) -> ScheduleConfig:
    return ScheduleConfig(merge=not a.no_merge, chunks=a.chunks, routing=a.routing, seed=a.seed,
                          time_limit=a.time_limit, samples=a.samples, checkpoint=a.checkpoint)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    ap = OneLineParser(prog="allreduce-lab", description="Round-based AllReduce scheduling lab.")
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("topology", help="describe a topology: servers, switches, links, degrees")
    p.add_argument("spec", help="e.g. bcube:n=3,k=1, dcell:n=4,k=1, fattree:k=4, file:net.graphml")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)

    p = sub.add_parser("schedule", help="schedule AllReduce on a topology with one method")
    p.add_argument("spec")
    p.add_argument("--method", default="critical-path", help=f"one of {', '.join(METHODS)} (default critical-path)")
    p.add_argument("--out", type=at.out_file, help="write the schedule as allreduce-schedule/1 JSON")
    p.add_argument("--format", choices=["text", "json"], default="text")
    _add_schedule_options(p)

    p = sub.add_parser("validate", help="check an allreduce-schedule/1 file from scratch")
    p.add_argument("file")
    p.add_argument("--max-report", type=at.int_in(0, 1_000_000), default=50,
                   help="violations to print (default 50; all are counted)")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)

    p = sub.add_parser("compare", help="compare methods across configurations")
    p.add_argument("specs", nargs="*", help="topology specs (in addition to --preset)")
    p.add_argument("--preset", help="a named set of configurations, e.g. table2")
    p.add_argument("--methods", default=",".join(DEFAULT_METHODS),
                   help=f"comma-separated (default {','.join(DEFAULT_METHODS)}); add optimal, rl, rl-sample")
    p.add_argument("--seeds", type=at.int_in(1, 1000), default=5, help="seeds averaged for ps and greedy (default 5)")
    p.add_argument("--format", choices=["text", "json", "csv"], default="text")
    _add_schedule_options(p)

    p = sub.add_parser("train", help="train the hierarchical RL scheduler (Algorithm 1)")
    p.add_argument("spec", nargs="?", help="topology spec to train on")
    p.add_argument("--preset", help="train one checkpoint per configuration of a preset (e.g. table2)")
    p.add_argument("--out", type=at.out_stem, help="checkpoint path without suffix (default checkpoints/<name>)")
    p.add_argument("--budget", type=at.seconds(10 ** 6), default=None, help="wall-clock seconds per configuration")
    p.add_argument("--iterations", type=at.int_in(1, 10 ** 7), default=None, help="outer iterations I of Algorithm 1")
    p.add_argument("--seed", type=at.seed, default=0, help=f"0..{at.SEED_MAX} (default 0)")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.add_argument("--reward", default="paper", help="reward shaping: paper (eqs. 3-5, default) or rounds")
    p.add_argument("--init", default=None, help="start from this checkpoint instead of fresh weights")
    p.add_argument("--prior", choices=["none", "heuristic"], default="none",
                   help="fresh lower agent: from scratch (none, default) or from the heuristic prior")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code (2 for bad input)."""
    try:
        args = build_parser().parse_args(argv)
        return _COMMANDS[args.command](args)
    except (TopologyError, ScheduleFileError, UsageError, ValueError) as err:
        msg = err.args[0] if err.args else str(err)
        print(f"allreduce-lab: error: {str(msg).splitlines()[0] if str(msg) else type(err).__name__}", file=sys.stderr)
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
    for m in methods:
        kind = "ring" if m == "ring" else "plain" if (m == "ps" or a.no_merge) else "tree"
        solver = {"optimal": "cp-sat", "rl": "rl", "rl-sample": "rl"}.get(m)
        check_schedulable(spec_or_topology, kind, a.chunks, solver=solver, time_limit=a.time_limit,
                          rollouts=a.samples + 1 if m == "rl-sample" else 1, force=a.force)


def cmd_topology(a: argparse.Namespace) -> int:
    """Print the size and degree summary of a topology."""
    t = make_topology(a.spec, force=a.force)
    check(estimate_describe(t.size), force=a.force)
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
    if a.method not in METHODS:
        raise UsageError(f"unknown method {a.method!r}; known: {', '.join(METHODS)}")
    _guard(a.spec, [a.method], a)
    t = make_topology(a.spec, force=a.force)
    _guard(t, [a.method], a)
    cfg = _config(a)
    bar = tqdm(total=1.0, desc=a.method, disable=None, leave=False,
               bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}") if a.method in ("optimal", "rl-sample") else None

    def progress(frac: float) -> None:
        if bar is not None:
            bar.n = frac
            bar.refresh()

    sched = run_method(a.method, t, cfg, progress)
    if bar is not None:
        bar.close()
    stats = sched.stats()
    if a.out:
        write_schedule(sched, a.out, stats)
    if a.format == "json":
        print(json.dumps({**stats, "info": {k: v for k, v in sched.info.items() if k != "trace"}}, indent=2,
                         default=float))
        return 0
    print(f"{t.spec}  method={a.method}  merge={'on' if sched.dag.merge else 'off'}  chunks={sched.dag.chunks}")
    print(f"  rounds {stats['rounds']}" + (f" ({stats['rounds_per_chunk']:.2f} per chunk)" if sched.dag.chunks > 1 else ""))
    b = stats["bounds"]
    print(f"  workloads {stats['workloads']}; lower bound {stats['lower_bound']} (link load {b['link_load']}, "
          f"critical path {b['critical_path']}, ports {b['ports']}, link schedule {b['link_schedule']}); "
          f"gap {100 * stats['gap']:.1f}%")
    print(f"  mean link utilization {100 * stats['mean_utilization']:.1f}%")
    for key in ("status", "proven_optimal", "proven_bound", "ring_adjacent", "samples", "checkpoint"):
        if key in sched.info:
            print(f"  {key.replace('_', ' ')}: {sched.info[key]}")
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


def cmd_compare(a: argparse.Namespace) -> int:
    """Print the method comparison as a text table, JSON or CSV."""
    methods = [m.strip() for m in a.methods.split(",") if m.strip()]
    for m in methods:
        if m not in METHODS:
            raise UsageError(f"unknown method {m!r}; known: {', '.join(METHODS)}")
    configs = configurations(a.preset, a.specs)
    for _, spec, _ in configs:  # compare also builds the merged DAG for the common bound
        is_file = parse_spec(spec)[0] in ("file", "example")
        _guard(make_topology(spec, force=a.force) if is_file else spec, ["critical-path", *methods], a)
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
    """Train RL checkpoints (see core.rl.train)."""
    from .rl.train import train_command
    for spec in [p.spec for p in preset(a.preset)] if a.preset else [a.spec] if a.spec else []:
        size = spec_size(spec)
        check_schedulable(size if size else make_topology(spec, force=a.force), "tree", 1, force=a.force)
    return train_command(a)


_COMMANDS = {"topology": cmd_topology, "schedule": cmd_schedule, "validate": cmd_validate,
             "compare": cmd_compare, "train": cmd_train}


if __name__ == "__main__":
    raise SystemExit(main())
