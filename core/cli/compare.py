"""`allreduce-lab compare`: methods across configurations, in rounds and seconds."""

from __future__ import annotations

import argparse
import json
import sys

from tqdm import tqdm

from .. import argtypes as at
from ..argtypes import UsageError
from ..compare import (GAP_COLUMNS, bound_label, compare, configurations, csv_table, csv_text, default_methods,
                       json_numbers, latency_notes, learned_notes, replan_table, routing_notes, rows_to_table,
                       time_table, under_bound_notes, uneven_extra, uneven_links, unproven_lines)
from ..methods import get_method, method_names
from ..text import and_list
from ..timing import format_size
from ..topology import degrade, make_topology, parse_spec
from .common import (METHOD_OPTIONS, Given, add_network_options, add_schedule_options, add_size_option, config,
                     event_texts, guard, ignored_note, long_run_note, machine_output, method_reads, note_failed_again,
                     note, parse_event, print_table, search_note, wrapped)


def register(sub) -> None:
    """Add this module's subcommands to the parser."""
    p = sub.add_parser("compare", help="compare methods across configurations")
    p.add_argument("specs", nargs="*", help="topology specs (in addition to --preset)")
    p.add_argument("--preset", help="a named set of configurations, e.g. table2 (the paper's Table 2, with its "
                                     "figures in the paper columns; a spec given that is one of them, e.g. bcube:3,1, "
                                     "gets them too; - elsewhere)")
    p.add_argument("--methods", default=None,
                   help=f"comma-separated, from {', '.join(method_names())} "
                        f"(default {','.join(default_methods())}; with {and_list(uneven_extra())} too, with a note, "
                        "where link bandwidths differ: --slow-links, a spec's bw= with several values, a file's links)")
    p.add_argument("--seeds", type=at.int_in(1, 1000), default=5, action=Given,
                   help="seeds 0..N-1 averaged for the seeded methods, ps and greedy, which do not read --seed "
                        "(default 5)")
    p.add_argument("--format", choices=["text", "json", "csv"], default="text", help="text (default), json or csv (machine-readable; the CSV adds a 'left out of best gap', a "
                        "'<method> file spec' and a 'latency note' column only when some row has one)")
    add_size_option(p)
    add_schedule_options(p, writes=False)
    add_network_options(p)
    p.set_defaults(func=cmd_compare)


def cmd_compare(a: argparse.Namespace) -> int:
    """Print the method comparison as a text table, JSON or CSV."""
    configs = configurations(a.preset, a.specs)
    built = {spec: make_topology(spec, force=a.force) for _, spec, _ in configs  # only a file can mark links failed
             if parse_spec(spec)[0] in ("file", "example")}
    uneven = None
    if a.methods is None:  # time-aware joins the defaults where a link's speed differs (trial 19)
        uneven = next(filter(None, (uneven_links(spec, built.get(spec), a.slow_links) for _, spec, _ in configs)), None)
    methods = list(default_methods(uneven is not None)) if a.methods is None else \
        [m.strip() for m in a.methods.split(",") if m.strip()]
    if not methods:
        raise UsageError("--methods names no method")
    for m in methods:
        get_method(m)
    twice = sorted({m for m in methods if methods.count(m) > 1})
    if twice:
        raise UsageError(f"--methods names {', '.join(twice)} more than once; name each method once")
    if a.checkpoint is not None and any(get_method(m).solver == "rl" for m in methods):
        # schedule refuses an unreadable checkpoint; compare would otherwise print blank RL cells (exit 0)
        from ..rl.checkpoint import CheckpointError, load_checkpoint
        try:
            load_checkpoint(a.checkpoint)
        except CheckpointError as err:
            raise UsageError(str(err)) from None
    ignored = compare_note(a, methods)
    if ignored:
        note(ignored)
    event = event_texts(a)  # read on each configuration; its form is checked once here
    runs, run_methods = [], []  # the estimate of every run compare makes (each method, each seed of a seeded one)
    for _, spec, _ in configs:  # compare also builds the merged DAG for the common bound
        is_file = spec in built
        if is_file:
            note_failed_again(built[spec], a.fail_links, a.slow_links)
        estimates = guard(built[spec] if is_file else spec, ["critical-path", *methods], a)
        runs += [e for m, e in zip(methods, estimates[1:]) for _ in range(a.seeds if get_method(m).randomized else 1)]
        run_methods += [m for m in methods for _ in range(a.seeds if get_method(m).randomized else 1)]
        if event is not None:  # the links the event names that are failed before the run (compare runs the rest)
            base = built[spec] if is_file else make_topology(spec, force=a.force)
            parse_event(degrade(base, fail=a.fail_links, slow=a.slow_links), event, base)
    long_run = long_run_note(f"compare, {len(runs)} runs", runs)
    if long_run and not machine_output(a):
        note(long_run)
    said = bool(long_run) or machine_output(a)

    def searching(name: str, method: str) -> None:  # said once, at the first CP-SAT search (long_run_note's part)
        nonlocal said
        line = None if said else search_note(method, [e for m, e in zip(run_methods, runs) if m == method], name)
        if line:
            tqdm.write(wrapped(line), file=sys.stderr)  # above the bar, if any
        said = True
    bar = tqdm(total=len(configs) * len(methods), desc="compare", disable=None, leave=False)

    def progress(what: str) -> None:
        nonlocal uneven
        if uneven:  # said once the first run is done, its topology built: a refused spec prints only its error
            tqdm.write(wrapped(f"note: {and_list(uneven_extra())} joins the default methods: link bandwidths differ "
                               f"({uneven}); --methods names the methods to run"), file=sys.stderr)
            uneven = None
        bar.set_postfix_str(what)
        bar.update(1 if bar.n < bar.total else 0)

    cfg = config(a)
    size = cfg.size
    rows = compare(configs, methods, a.seeds, cfg, progress, size=size, fail=a.fail_links, slow=a.slow_links,
                   event=event, searching=searching)
    bar.close()
    if a.format == "json":
        print(json.dumps(json_numbers([r.as_dict() for r in rows]), indent=2, default=float))  # numbers as the CSV has them
        return 0
    if a.format == "csv":  # the rounds table, then the text's learned notes, seconds and event tables as columns
        print(csv_text(*csv_table(rows, methods, size, event=event is not None)), end="")
        return 0
    header, body = rows_to_table(rows, methods)
    print_table(header, body, 1)
    seeded = [m for m in methods if get_method(m).randomized]
    means = f"{' and '.join(seeded)} {'is a mean' if len(seeded) == 1 else 'are means'} over {a.seeds} seeds; " \
        if seeded else ""
    label = bound_label(rows)
    merged = label == "LB(merged)"
    print(f"rounds; {means}{label} is the lower bound of the {'merged' if merged else 'unmerged (--no-merge)'} "
          f"workload DAG; best gap = best {'merged' if merged else 'tree-DAG'} method vs LB"
          + ("; * = not proven optimal" if "optimal" in methods else ""))
    for line in (unproven_lines(rows, methods, cfg.time_limit) + learned_notes(rows, methods)
                 + routing_notes(rows, methods) + under_bound_notes(rows, methods)):
        print(line)
    print()
    header, text = time_table(rows, methods)
    print_table(header, text, 2)
    over = f"; {' and '.join(seeded)}: the mean time over seeds, and algbw, busbw and gaps of that mean time" \
        if seeded else ""
    ratio = " (from 10x a bound up, as the ratio time / bound)" \
        if any(cell.endswith("x") for line in text for cell in line[-len(GAP_COLUMNS):]) else ""
    print(f"times for M = {format_size(size)}; algbw = M / async time, busbw = algbw·2(n-1)/n (nccl-tests); "
          f"gaps of the async time to the bandwidth bound (any AllReduce) and to the best bound of the method's own "
          f"DAG{ratio}{over}")
    for line in latency_notes(rows, methods):
        print(line)
    if event is not None:
        print()
        print_table(*replan_table(rows, methods), 2)
        given = " ".join(f"{opt} {v}" for opt, v in (("--fail-at", a.fail_at), ("--slow-at", a.slow_at)) if v)
        print(f"mid-run link event ({given}): each method re-plans the rest; async replay; lost = finish - "
              f"failure-free finish of the same schedule")
    for r in rows:
        for m, res in r.results.items():
            if res.error:
                note(f"n/a: {r.name} {m}: {res.error}")
    return 0


def compare_note(a: argparse.Namespace, methods: list[str]) -> str | None:
    """The note naming the given options that compared methods do not read (`ignored_note`): a seeded method
    runs seeds 0..N-1 of --seeds here instead of --seed."""
    def reads(names: list[str] | None) -> dict[str, frozenset[str]]:
        return {m: (f - {"seed"}) | {"seeds"} if get_method(m).randomized else f
                for m, f in method_reads(names, out=False).items()}
    seeded = [m for m in methods if get_method(m).randomized]
    asides = {"--seed": f"{and_list(seeded)} run{'s' if len(seeded) == 1 else ''} seeds 0..{a.seeds - 1} of --seeds "
                        f"instead"} if seeded else {}
    return ignored_note(a, reads(methods), reads(None), {**METHOD_OPTIONS, "--seeds": "seeds"},
                        "the compared methods", asides)
