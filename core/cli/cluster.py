"""`allreduce-lab cluster` and `cluster-train`: jobs sharing a GPU cluster (core.cluster)."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys

from tqdm import tqdm

from .. import argtypes as at
from ..rl.pair import pair_file, pair_stem
from .common import Given, ignored_note, note, print_table, refuse_existing_checkpoint, wrapped

ONE_ITERATION_BUDGET_S = 85
"""About the smallest `cluster-train --budget` that trains one policy iteration (the default `TrainConfig`), measured
on the project's 2-core machine at load 2-3 (fix32b: `cluster-train --iterations 1 --budget B`: 30, 45, 65, 75 and 80 s
trained none, 85 s one; the warm-up's 200 epochs and its screening take ~41 s, and an iteration starts only when
what the budget reserves for it, its screening and the confirmation (~38 s) is left). The run measures its own pace,
so the figure moves with the machine and its load."""


def register(sub) -> None:
    """Add this module's subcommands to the parser."""
    # core.cluster is imported only when the command runs (it loads torch); a test keeps the rate written here
    #   equal to traces.DEFAULT_RATE. The trace forms are the epilog's: an option's help stays a few lines (fix23a)
    p = sub.add_parser("cluster", help="simulate jobs sharing a GPU cluster under one or more schedulers",
                       epilog="--trace takes synthetic:jobs=N,seed=S[,rate=R,mix=sjf-bco|gavel,models=A/B,max_gpus=M] "
                              "(rate defaults to 6 jobs an hour, mix to sjf-bco, models to the whole catalog; GPU "
                              "demands are capped at max_gpus, by default at the cluster's GPUs, with a note); "
                              "csv:PATH[,limit=N]; philly:PATH or helios:PATH[,model=NAME,seed=S,limit=N] (every "
                              "job's model, else one drawn with seed, default 0; limit 0 = all jobs). A run time "
                              "(duration_s, Philly's and Helios' run times) is read as compute only, iterations = run "
                              "time / the model's compute per iteration, so the job also pays its AllReduce and runs "
                              "longer than the file says: give iterations to replay measured times (docs/cluster.md "
                              "§5).")
    p.add_argument("--topology", default="bcube:n=4,k=2", help="network topology spec (default bcube:n=4,k=2)")
    p.add_argument("--gpus-per-server", type=int, default=4, help="GPUs on every server (default 4)")
    p.add_argument("--trace", default="synthetic:jobs=160,seed=0",
                   help="the jobs: synthetic:jobs=N,seed=S[,...], csv:PATH, philly:PATH or helios:PATH; their "
                        "options and how a run time is read: below (default %(default)s)")
    p.add_argument("--scheduler", default="all",
                   help="all, heuristics, gadget, topdrl, ours, ORDER+PLACEMENT[+METHOD] or a comma list (default "
                        "all); topdrl runs only with the GPUs per server its checkpoint was trained for (4 for the "
                        "shipped one): 'all' leaves it out with a note on other clusters, 'topdrl' named refuses them")
    p.add_argument("--seed", type=at.seed, default=0, action=Given,
                   help=f"seed of random placement (read by ORDER+random only), 0..{at.SEED_MAX} (default 0)")
    p.add_argument("--checkpoint", default=None, action=Given,
                   help="TopDRL checkpoint (read by topdrl only): a path (either file of the pair, or the stem) or a name in "
                        "checkpoints/topdrl or checkpoints (default checkpoints/topdrl/topdrl)")
    p.add_argument("--jobs-out", type=at.csv_out, default=None,
                   help="write one CSV row per job and scheduler to this file (default: not written)")
    p.add_argument("--events-out", type=at.csv_out, default=None,
                   help="write one CSV row per simulation event and scheduler to this file: time, GPUs in use, jobs "
                        "running, jobs per link (the JSON's events count them; default: not written)")
    p.add_argument("--format", choices=["text", "json", "csv"], default="text", help="text (default), json or csv (machine-readable)")
    p.set_defaults(func=cmd_cluster)

    p = sub.add_parser("cluster-train", help="train TopDRL's job picker (imitation warm-up, then rollout policy iteration)")
    p.add_argument("--budget", type=at.seconds(10 ** 6), default=840.0,
                   help="wall-clock seconds for the whole run, a cap (default 840): the warm-up, the policy iteration "
                        "and the confirmation shrink to fit (one warm-up episode, one epoch and its screening always "
                        f"run). One policy iteration needs about {ONE_ITERATION_BUDGET_S} s (2 cores); less writes the "
                        "warm-up policy alone and says how far it got")
    p.add_argument("--iterations", type=at.int_in(0, 10 ** 6), default=80,
                   help="policy-iteration steps, 0 = until the budget (default 80; the budget still caps the run); "
                        "every 4th and the last one run are screened and can be kept")
    p.add_argument("--seed", type=at.seed, default=0, help=f"0..{at.SEED_MAX} (default 0)")
    p.add_argument("--out", type=at.out_stem, default="checkpoints/topdrl/topdrl",
                   help="checkpoint stem (default checkpoints/topdrl/topdrl, the shipped one: an existing checkpoint "
                        "is replaced only with --force)")
    p.add_argument("--force", action="store_true", default=None,
                   help="replace the checkpoint at --out if there is one (default: refuse, writing nothing)")
    p.set_defaults(func=cmd_cluster_train)


def cmd_cluster(a: argparse.Namespace) -> int:
    """Simulate a trace on a cluster under schedulers; print their metrics as text, JSON or CSV."""
    from ..cluster import (ALL, METRICS, capped_note, check_fits, events_table, expand_names,
                          jobs_table, load_trace, make_cluster, metric_text, row_notes, run_schedulers,
                          skipped_note, summarize, trace_facts, trace_title, unfit)
    from ..cluster.schedulers import options
    from ..cluster.topdrl import trained_note, trained_on
    names = expand_names(a.scheduler)
    # notes are printed once the command has run: a refused one prints only its one-line error (trial 13: the
    # capping note came before "TopDRL network was built for 4 GPUs per server")
    ignored = ignored_note(a, {n: options(n) for n in names}, {n: options(n) for n in ALL},
                           {"--seed": "seed", "--checkpoint": "checkpoint"}, "the schedulers run")
    notes = [ignored] if ignored else []
    cluster = make_cluster(a.topology, a.gpus_per_server)
    # `all` (or `topdrl` among others from a group) leaves out TopDRL on a cluster its network does not read;
    # `--scheduler topdrl`, named, still refuses it
    named = {part.strip() for part in a.scheduler.split(",")}
    names, left_out = unfit(names, cluster.gpus_per_server, a.checkpoint, keep=named)
    notes += [f"note: {line}" for line in left_out]
    trace = load_trace(a.trace, fit_gpus=cluster.n_gpus)  # a synthetic draw larger than the cluster: capped, noted
    notes += [f"note: {line}" for line in (capped_note(a.trace, trace), skipped_note(trace)) if line]
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
    for line in notes:
        note(line)
    rows = [summarize(r) for r in results]
    for path, table, what in ((a.jobs_out, jobs_table, "job"), (a.events_out, events_table, "event")):
        if path:
            _write_rows(path, [{"scheduler": r.scheduler, **row} for r in results for row in table(r)])
            print(f"wrote {path}: one row per {what} and scheduler", file=sys.stderr)  # stdout may be JSON or CSV
    title, facts = trace_title(a.trace, trace), trace_facts(trace)  # what the text says of the trace, for all three
    notes = row_notes(results, rows)
    # which picker TopDRL ran and whether it was trained on this cluster (trial 29: nothing said either)
    said = trained_on(a.checkpoint) if "topdrl" in names else None  # its sidecar, read once
    topdrl = {**said, "note": trained_note(cluster.spec, said)} if said else None
    if a.format == "json":
        print(json.dumps({"cluster": cluster.spec, "gpus": cluster.n_gpus, "trace": trace.name, "jobs": trace.n,
                          "trace_title": title, **facts, "skipped_note": skipped_note(trace),
                          "same_allreduce_note": notes[0], "identical_rows_note": notes[1],
                          "topdrl_checkpoint": topdrl, "results": rows},
                         indent=2, default=float))
        return 0
    keys = list(METRICS)
    if a.format == "csv":
        # the trace's facts repeat on every row (a CSV has no place above its rows that a reader keeps)
        said = ["yes" if facts["run_times_as_compute"] else "no", facts["records"], facts["records_skipped"],
                "; ".join(f"{why} ({n})" for why, n in facts["skipped_reasons"].items())]
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(["scheduler"] + keys + ["wall_s", "cpu_s"] + CSV_TRACE_COLUMNS)
        w.writerows([[r["scheduler"]] + [_cell(r[k]) for k in keys + ["wall_s", "cpu_s"]] + said for r in rows])
        print(buf.getvalue(), end="")
        return 0
    print(f"{cluster.spec} ({cluster.n_gpus} GPUs), trace {title}")
    header = ["scheduler", "avg JCT h", "p95 JCT h", "makespan h", "queue h", "GPU util", "comm", "peak link",
              "mean link", "preempt", "sim s"]
    body = [[r["scheduler"]] + [metric_text(k, r[k]) for k in keys] + [f"{r['wall_s']:.1f}"] for r in rows]
    print_table(header, body, 1)
    print("JCT = end - arrival; queue = first start - arrival (a preempted job's later waits count in JCT only); comm = share of busy GPU-time in AllReduce; "
          "peak/mean link = running jobs sharing one directed link (peak; time-average over links in use); "
          "sim s = wall seconds of the simulation (AllReduce plans are computed once and shared: the first "
          "scheduler to need one pays for it)")
    for line in (*notes, topdrl["note"] if topdrl else None):
        if line:
            print(f"note: {line}")
    return 0


CSV_TRACE_COLUMNS = ["run_times_as_compute", "records", "records_skipped", "skipped_reasons"]
"""The trace's columns after the metrics in ``cluster --format csv`` (`core.cluster.trace_facts`; yes or no as in
``compare``'s CSV, the reasons as ``reason (count)``, ``; ``-separated)."""


def cmd_cluster_train(a: argparse.Namespace) -> int:
    """Train TopDRL's checkpoint (core.cluster.topdrl_train)."""
    from ..cluster.topdrl import default_checkpoint
    from ..cluster.topdrl_train import TrainConfig, train
    stem = pair_stem(a.out)  # before any work: the default --out is the shipped checkpoint (trial 25)
    refuse_existing_checkpoint(stem, a.force, "cluster-train", shipped=stem.resolve() == default_checkpoint())
    command = (f"allreduce-lab cluster-train --budget {a.budget:g} --iterations {a.iterations} --seed {a.seed} "
               f"--out {a.out}" + (" --force" if a.force else ""))
    meta = train(TrainConfig(budget_s=a.budget, iterations=a.iterations, seed=a.seed), a.out, command)
    t = meta["training"]
    print(wrapped(f"wrote {pair_file(stem, '.safetensors')} and {pair_file(stem, '.json')}: kept iteration "
                  f"{meta['kept_iteration']} ({meta['kept_why']}), validation ratio to {meta['config']['reference']} "
                  f"{meta['kept_val_ratio']:.3f} (mean JCT {meta['best_val_avg_jct_h']:.2f} h) after {meta['iterations']} "
                  f"iterations, {meta['episodes']} episodes; {t['wall_s']:.0f} s wall, {t['cpu_s']:.0f} s CPU, "
                  f"load {t['loadavg_start'][0]:.1f} -> {t['loadavg_end'][0]:.1f}"))
    if meta.get("untrained"):  # on stdout, beside what was written: the checkpoint is not what the user asked for
        print(wrapped(f"note: {meta['untrained']}; about {ONE_ITERATION_BUDGET_S} s trains one on the project's "
                      "2-core machine (--budget; docs/cluster.md)"))
    for line in budget_notes(meta, a.budget):
        note(line)
    return 0


def budget_notes(meta: dict, budget: float) -> list[str]:
    """What the wall-clock budget cut in a cluster-train run, as note lines (none if it cut nothing)."""
    lines = []  # no policy iteration at all is said on stdout, beside what was written (the sidecar's `untrained`)
    if meta["budget_cuts"]:
        lines.append(f"note: the budget ({budget:g} s) cut " + "; ".join(meta["budget_cuts"])
                     + ": give a larger --budget for the whole run")
    if meta["training"]["wall_s"] > budget:
        lines.append(f"note: the run took {meta['training']['wall_s']:.0f} s, over the budget ({budget:g} s): one "
                     f"warm-up episode, one epoch and the warm-up policy's screening always run")
    return lines


def _write_rows(path: str, rows: list[dict]) -> None:
    """Write `rows` (dicts with the same keys) as a CSV file, floats as `_cell` writes them."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows({k: _cell(v) for k, v in row.items()} for row in rows)


def _cell(value: object) -> object:
    """A CSV cell: floats to 8 significant digits (no float noise such as 16.09561914758333)."""
    return f"{value:.8g}" if isinstance(value, float) else value
