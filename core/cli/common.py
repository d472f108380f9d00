"""What the subcommands share: option groups, reading them into core objects, and text tables."""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
import unicodedata
from collections.abc import Collection
from typing import TextIO

from .. import argtypes as at
from ..argtypes import UsageError
from ..guard import Estimate, fmt_bytes, fmt_seconds
from ..methods import get_method, iter_methods
from ..replan import LinkEvent, Replan
from ..routing import ROUTING_HELP, ROUTING_MODES
from ..schedule import DEFAULT_OPENING, DEFAULT_TEMPERATURE, ScheduleConfig, show_opening
from ..schedule_io import file_form
from ..seconds import busbw_note, latency_dominated, latency_note_parts, size_note_parts
from ..text import and_list
from ..timing import DEFAULT_SIZE, MODES, format_seconds, format_size, parse_size
from ..units import gap_words, rate_in, rate_unit, show_apart
from ..topology import Topology, degrade, describe_changes, make_topology, spec_size
from ..topology.degrade import already_failed, failed_mask, link_names, slowed_bandwidth

FORCE_HELP = "run even when the size guard estimates more memory or time than the limits (docs/limits.md)"


def refuse_existing_checkpoint(stem, force: bool, command: str, shipped: bool = False) -> None:
    """Refuse (UsageError: one line, exit 2, before any work) to replace a checkpoint at `stem` (its .safetensors or
    .json) unless `force`: a trainer's default --out is a shipped checkpoint whose README rows depend on it (trial 25).
    `shipped` adds that it is one."""
    from ..rl.pair import pair_file
    there = [f for f in (pair_file(stem, ".safetensors"), pair_file(stem, ".json")) if f.exists()]
    if there and not force:
        raise UsageError(f"{there[0]} exists{' (shipped with the project)' if shipped else ''}: {command} does not replace "
                         f"a checkpoint; pass --out elsewhere, or --force to replace it")


class Given(argparse.Action):
    """Stores the value (a flag, nargs=0: its `const`) and adds the option to `given_options`, so that a note
    can name the options the user gave, even with their default value."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, self.dest, self.const if self.nargs == 0 else values)
        setattr(namespace, "given_options", getattr(namespace, "given_options", frozenset()) | {self.option_strings[0]})


METHOD_OPTIONS = {"--seed": "seed", "--no-merge": "merge", "--routing": "routing", "--time-limit": "time_limit",
                  "--samples": "samples", "--temperature": "temperature", "--opening": "opening",
                  "--checkpoint": "checkpoint", "--trace": "trace"}
"""Options that only some methods read, with the `ScheduleConfig` field each sets (`Method.options`)."""


def method_reads(methods: list[str] | None = None, out: bool = True) -> dict[str, frozenset[str]]:
    """The `ScheduleConfig` fields each method reads (all registered methods when `methods` is None):
    `Method.options`, less --trace when nothing is written (`out` False: no --out)."""
    chosen = [get_method(m) for m in methods] if methods is not None else list(iter_methods())
    drop = frozenset() if out else frozenset({"trace"})
    return {m.name: m.options() - drop for m in chosen}


def ignored_note(a: argparse.Namespace, chosen: dict[str, frozenset[str]], everyone: dict[str, frozenset[str]],
                 options: dict[str, str] = METHOD_OPTIONS, group: str = "them",
                 asides: dict[str, str] | None = None) -> str | None:
    """One note naming every option given on the command line that some of `chosen` (name -> the fields it
    reads, for `options`: option -> field) do not read, and which of `everyone` read it, or None.

    One chosen: ``X ignores --a (read by ...) and --b (read by ...)``. Several: ``none of {group} reads --b
    (read by ...) or --c``, and for an option read by some that has an aside, ``--a applies to X and Y only
    (aside)``. `asides` adds a remark to an option's clause;
    who reads an option is left out where a chosen one reads it under other conditions (the aside says)."""
    given = getattr(a, "given_options", frozenset())
    asides = asides or {}
    partly, unread = [], []
    for opt, field in options.items():
        here = [n for n, fields in chosen.items() if field in fields]
        if opt not in given or len(here) == len(chosen):
            continue
        if here:  # read by some: said only where that may surprise (an aside), not for --time-limit and optimal
            if opt in asides:
                partly.append(f"{opt} applies to {and_list(here)} only ({asides[opt]})")
            continue
        readers = [n for n, fields in everyone.items() if field in fields]
        if set(readers) & set(chosen):  # it is read here under other conditions: the aside says which
            readers = []
        why = "; ".join(x for x in (f"read by {', '.join(readers)}" if readers else "", asides.get(opt, "")) if x)
        unread.append(f"{opt} ({why})" if why else opt)
    if len(chosen) == 1:
        return f"note: {next(iter(chosen))} ignores {and_list(unread)}" if unread else None
    clauses = partly + ([f"none of {group} reads {and_list(unread, 'or')}"] if unread else [])
    return "note: " + "; ".join(clauses) if clauses else None


def add_schedule_options(p: argparse.ArgumentParser, writes: bool = True) -> None:
    """Options every scheduling command takes (seed, chunks, merge, routing, solver limits, --force); `writes`: the
    command can write a schedule file (`schedule --out`; `compare` writes none)."""
    same = "writes the same schedule file" if writes else "gives the same rounds and times"
    p.add_argument("--seed", type=at.seed, default=0, action=Given,
                   help=f"seed of random orders, sampled rollouts and CP-SAT, 0..{at.SEED_MAX} (default 0); "
                        f"the same seed {same}, optimal included")
    p.add_argument("--chunks", type=at.int_in(1, 1_000_000), default=1, help="pieces per shard, k (default 1)")
    p.add_argument("--no-merge", action=Given, nargs=0, const=True, default=False, help="do not merge reduce workloads at servers")
    p.add_argument("--routing", choices=list(ROUTING_MODES), default="shortest", action=Given, help=ROUTING_HELP)
    p.add_argument("--time-limit", type=at.seconds(86400), default=60.0, action=Given,
                   help="work limit of the optimal solver in CP-SAT's deterministic seconds, which keep a seeded "
                        "run reproducible (about one second of one core each; default 60)")
    p.add_argument("--samples", type=at.int_in(1, 10_000), default=16, action=Given, help="sampled rollouts for rl-sample (default 16)")
    p.add_argument("--temperature", type=at.temperature, default=DEFAULT_TEMPERATURE, action=Given,
                   help=f"sampling temperature of rl-sample's rollouts (default {DEFAULT_TEMPERATURE:g}, "
                        "chosen on the training instances: docs/rl.md), or a comma-separated list (0.2,1) over "
                        "which the samples are spread in turn")
    p.add_argument("--opening", type=at.opening, default=DEFAULT_OPENING, action=Given, metavar="T:F",
                   help=f"rl-sample's opening: draw the first F of each sampled rollout's rounds (F in (0, 1], of the "
                        f"greedy rollout's rounds) at temperature T, the rest at --temperature; 1:0.3, or none, or a "
                        f"comma-separated list (none,0.5:0.3) over which the samples are spread in turn "
                        f"(default {show_opening(DEFAULT_OPENING)}, chosen on the training instances: docs/rl.md)")
    p.add_argument("--checkpoint", default=None, action=Given,
                   help="RL checkpoint: a pair's file or stem, or a name in checkpoints/ (default: this topology's "
                        "own, else universal)")  # the rest is docs/rl.md §4's: keep it short (fix23a)
    p.add_argument("--force", action="store_true", help=FORCE_HELP)


def add_network_options(p: argparse.ArgumentParser, mid_run: bool = True) -> None:
    """--fail-links/--slow-links (before the run) and, with `mid_run`, --fail-at/--slow-at."""
    p.add_argument("--fail-links", metavar="LINKS",
                   help="links failed before the run: link ids or u-v label pairs, mixed (3,17 or s00-sw0.0,4), or "
                        "random:AMOUNT[,seed=N], AMOUNT a share of the links in (0, 1) or a whole count >= 1 "
                        "(random:0.05,seed=1 or random:3; skips links whose loss would cut a server off)")
    p.add_argument("--slow-links", metavar="LINKS",
                   help="links slowed before the run: LINK:GBITS or LINK:xFACTOR (3:25,s00-sw0.0:x0.5), or "
                        "random:AMOUNTxFACTOR[,seed=N], AMOUNT a share of the links in (0, 1) or a whole count >= 1, "
                        "FACTOR in (0, 1) (random:0.1x0.25,seed=1 or random:3x0.5)")
    if mid_run:
        p.add_argument("--fail-at", metavar="WHEN:LINKS",
                       help="links that fail during the run, at a time or after R rounds: 2ms:3,17 or round=10:3; "
                            "each method re-plans the rest")
        p.add_argument("--slow-at", metavar="WHEN:LINKS",
                       help="links that slow down during the run: 2ms:3:25 or round=10:3:x0.25")


def add_size_option(p: argparse.ArgumentParser, default: str | None = DEFAULT_SIZE) -> None:
    """--size, the AllReduce message size M."""
    p.add_argument("--size", default=default,
                   help=f"AllReduce message size M: a number of bytes with a unit B, KB, MB, GB, TB, KiB, MiB, GiB, TiB (a bare number is bytes; default {default or 'the file’s, else ' + DEFAULT_SIZE})")


def config(a: argparse.Namespace) -> ScheduleConfig:
    """The ScheduleConfig the options describe."""
    return ScheduleConfig(merge=not a.no_merge, chunks=a.chunks, routing=a.routing, seed=a.seed,
                          time_limit=a.time_limit, samples=a.samples, checkpoint=a.checkpoint,
                          temperature=getattr(a, "temperature", DEFAULT_TEMPERATURE),
                          opening=getattr(a, "opening", DEFAULT_OPENING),
                          size=parse_size(a.size, "--size"), trace=bool(getattr(a, "trace", False)),
                          force=bool(getattr(a, "force", False)))


def read_network(a: argparse.Namespace, spec: str) -> tuple[Topology, Topology]:
    """(the topology as built, the topology with --fail-links/--slow-links applied); notes the links
    --fail-links names that the topology (a file) already marks failed."""
    base = make_topology(spec, force=a.force)
    note_failed_again(base, a.fail_links, a.slow_links)
    return base, degrade(base, fail=a.fail_links, slow=a.slow_links)


def note_failed_again(t: Topology, fail_links: str | None, slow_links: str | None = None, mid_run: bool = False) -> None:
    """Print a note when --fail-links names links `t` already marks failed, or --slow-links slows a failed link:
    nothing changes for them (a note, not an error: the run is the one the user described). With `mid_run`, the
    same for --fail-at/--slow-at on `t`, the network before the run (the links that the event does change
    still change at that moment)."""
    def said(option: str, links: list[int], state: str, then: str) -> None:
        if links:
            one = len(links) == 1
            note(f"note: {option}: link{'' if one else 's'} {link_names(t, links)} {'is' if one else 'are'} {state}; "
                 + then.format(it="it" if one else "them"))

    fail_opt, slow_opt = ("--fail-at", "--slow-at") if mid_run else ("--fail-links", "--slow-links")
    said(fail_opt, already_failed(t, fail_links, fail_opt) if fail_links else [],
         "already failed before the run" if mid_run else f"already failed in {t.spec}",
         "nothing changes for {it}" + (" (the others fail as asked)" if mid_run else ""))
    if slow_links and not str(slow_links).strip().startswith("random:"):  # random slowdowns pick live links
        dead = failed_mask(t, fail_links, fail_opt) if fail_links else t.failed  # as LinkEvent.parse has it
        said(slow_opt, [int(e) for e in (slowed_bandwidth(t, slow_links, slow_opt) != t.bandwidth).nonzero()[0]
                        if dead[e]], "failed", "slowing {it} changes nothing")


def guard(spec_or_topology, methods: list[str], a: argparse.Namespace, out: str | None = None) -> list[Estimate]:
    """Refuse (SizeError) before building anything when a method's run, and writing its schedule file to
    `out` (a path: JSON, or the columnar form for ``.npz``), is estimated over the limits; returns each
    method's estimate (none for a file spec until it is read).

    A family spec is checked from its formulas; a file once it is read (pass the Topology)."""
    if isinstance(spec_or_topology, str):
        spec_or_topology = spec_size(spec_or_topology)
        if spec_or_topology is None:  # a file or an example: checked once it is read
            return []
    cfg = config(a)
    return [get_method(name).guard(spec_or_topology, cfg, out=out_form(out)) for name in methods]


def machine_output(args: argparse.Namespace) -> bool:
    """True when the command was asked for machine-readable output (--format json or csv) or for silence
    (--quiet): notes meant for a person waiting at a terminal are left out."""
    return getattr(args, "format", "text") in ("json", "csv") or bool(getattr(args, "quiet", False))


LONG_RUN_S = 10.0
"""Estimated CPU seconds from which a command says, before it starts, how long it is expected to take (the part that
surely runs: CP-SAT's search, a ceiling that it may not reach or start, is said beside it, not counted)."""


def long_run_note(what: str, estimates: list[Estimate]) -> str | None:
    """One line with the guard's estimate of `what` when the part of its CPU time that surely runs
    (`Estimate.sure`) is `LONG_RUN_S` or more, else None: a run admitted by the guard can still take minutes
    without a word. CP-SAT's part (`Estimate.search`) is said apart, as the ceiling it is: on a small DAG the
    heuristic often meets the lower bound and CP-SAT never runs (`search_note` speaks when it does). Several
    `estimates` (runs one after the other): their CPU in all and the largest memory."""
    if not estimates:
        return None
    sure, search = sum(e.sure for e in estimates), sum(e.search for e in estimates)
    if sure < LONG_RUN_S:
        return None
    peak = max(e.bytes for e in estimates)
    size = f"{fmt_bytes(peak)} at most" if len(estimates) > 1 else \
        f"{fmt_bytes(peak)}" + (f" for ~{estimates[0].workloads:,} workloads" if estimates[0].workloads else "")
    ceiling = f", plus up to ~{fmt_seconds(search)} of CP-SAT ({SEARCH_WHEN})" if search > 0 else ""
    return (f"note: {what}: ~{fmt_seconds(sure)} CPU{' in all' if len(estimates) > 1 else ''}{ceiling}, ~{size}, "
            "the size guard's rough estimate (memory is meant to be above the peak; time can be under: "
            "docs/limits.md)")


SEARCH_WHEN = ("--time-limit; it runs only when critical-path's schedule misses the lower bound, and stops when it "
               "proves the optimum")
"""When CP-SAT's search runs and how long, as the notes say it."""


def search_note(method: str, estimates: list[Estimate], where: str | None = None) -> str | None:
    """The line to print when `method`'s CP-SAT starts searching (critical-path's schedule missed the lower bound),
    `where` the configuration (compare's runs, `estimates`) or None (schedule's one run): for runs whose search may
    take `LONG_RUN_S` or more in all, and whose `long_run_note`, which says it, was not printed; else None."""
    search = sum(e.search for e in estimates)
    if search < LONG_RUN_S or sum(e.sure for e in estimates) >= LONG_RUN_S:
        return None
    one, limit = fmt_seconds(max(e.search for e in estimates)), "--time-limit; it stops when it proves the optimum"
    if where is None:
        return (f"note: {method}: critical-path's schedule misses the lower bound, so CP-SAT searches for up to ~{one} "
                f"({limit})")
    return (f"note: compare: critical-path's schedule misses the lower bound on {where}, so {method}'s CP-SAT searches "
            f"there for up to ~{one}, as on each configuration where it does (~{fmt_seconds(search)} at most in all; "
            f"{limit})")


def out_form(out: str | None) -> str | None:
    """The form a schedule file written to `out` takes, as `write_schedule` chooses it: "npz" for a name ending
    in ``.npz``, else "json"; None without a file."""
    return file_form(out) if out else None


def read_event(a: argparse.Namespace, t: Topology, base: Topology | None = None) -> LinkEvent | None:
    """The mid-run event of --fail-at/--slow-at on topology `t` (`base`: `t` before --fail-links/--slow-links),
    or None."""
    texts = event_texts(a)
    return None if texts is None else parse_event(t, texts, base)


def parse_event(t: Topology, texts: tuple[str, str | None, str | None], base: Topology | None = None) -> LinkEvent:
    """The event of `event_texts` on `t`, the network before the run (`base`: as built, before --slow-links, so that
    a refusal names the speed --slow-links gave a link): refused when it changes nothing, else a note naming the
    links it names that are failed already (the others change as asked)."""
    event = LinkEvent.parse(t, *texts, what="--fail-at" if texts[1] else "--slow-at",
                            nominal=None if base is None else base.bandwidth)
    note_failed_again(t, texts[1], texts[2], mid_run=True)
    return event


def event_texts(a: argparse.Namespace) -> tuple[str, str | None, str | None] | None:
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


def replan_lines(r: Replan) -> list[str]:
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


BEST_NAMES = {"bandwidth": "bandwidth", "link": "busiest link", "latency": "latency", "critical_path": "critical path",
              "rounds": "sync rounds"}
"""The bound a mode's best gap is against (`core.seconds.mode_gaps`' best_bound), as the lines name it."""


def time_lines(rep: dict) -> list[str]:
    """Text lines of a time report: each mode's seconds, algbw, busbw, and under them its gaps; the bounds."""
    lines = [f"  time for {format_size(rep['size_bytes'])} over {rep['ranks']} servers "
             f"(links {span(rep['links']['bandwidth_gbps'], ' Gbit/s')}, latency "
             f"{span(rep['links']['latency_us'], ' µs')}):"]
    b = rep["bounds"]
    modes = [mode for mode in MODES if mode in rep]
    unit, per = rate_unit(rep[mode][k] for mode in modes for k in ("algbw_Bps", "busbw_Bps"))  # one unit for both
    for mode in modes:  # two lines each: in one they ran to ~140 characters (fix28b)
        m = rep[mode]
        lines.append(f"    {mode:5} {format_seconds(m['time_s']):>9}  algbw {rate_in(m['algbw_Bps'], per):>6} {unit}  "
                     f"busbw {rate_in(m['busbw_Bps'], per):>6} {unit}")
        best = gap_words(m["gap"]["best"], "its DAG's best bound")  # from 10x a bound up as the ratio (422,000x)
        lines.append(f"      {best} ({BEST_NAMES.get(m.get('best_bound'), 'best')}), "
                     f"{gap_words(m['gap']['bandwidth'], 'the bandwidth bound')}")
    lines.append(f"    bounds: bandwidth {format_seconds(b['bandwidth'])}, busiest link {format_seconds(b['link'])}, "
                 f"latency {format_seconds(b['latency'])}, critical path {format_seconds(b['critical_path'])}")
    r = rep.get("sync_rounds")
    if r is not None and "sync" in rep:
        # still saying its rounds are a bound (trial 16); it ran to 168 characters (trial 24), then 108
        lines.append(f"    sync only: any schedule of this DAG takes at least {r['rounds']:g} rounds")
        lines.append(f"      x the shortest workload {format_seconds(r['round_s'])} = {format_seconds(r['bound_s'])}")
    # what sets the time at this size: a clause a line, the later ones under the first, as one ran to ~195 characters;
    # then why busbw tops a link's speed, where it does
    parts = latency_note_parts([rep], bandwidth_gap=True) if latency_dominated(rep) else size_note_parts(rep) or []
    busbw = busbw_note(rep)
    for i, part in [*enumerate(parts), *([(0, busbw)] if busbw else [])]:
        lines += textwrap.wrap(part, WIDTH, initial_indent="      " if i else "    ", subsequent_indent="      ",
                               break_on_hyphens=False)
    return lines


WIDTH = 100
"""The widest line of a time report's text."""


def unwrapped(text: str, indent: str = "    ") -> list[str]:
    """A report's lines with `say`'s wrapped prose joined back, one line each (for a reader that matches a whole
    line; also joins the report's other four-space lines onto the line above them); `indent`: the later lines' (a
    note's are two spaces in, `notes_joined`)."""
    return re.sub(rf"\n{indent}(?=\S)", " ", text).splitlines()


def say(text: str, indent: str = "  ", file: TextIO | None = None) -> None:
    """Print one line of a report's prose wrapped at `WIDTH`, its later lines two spaces further in (trial 31: legend
    lines under --explain ran to 281 characters); `file`: stdout when None."""
    print(wrapped(text, indent), file=file)


def wrapped(text: str, indent: str | None = None) -> str:
    """`text` wrapped at `WIDTH` as `say` prints it: its later lines two spaces further in than `indent` (None: the
    spaces `text` starts with), no word broken (a path stays whole)."""
    if indent is None:
        indent, text = text[:len(text) - len(text.lstrip(" "))], text.lstrip(" ")
    return "\n".join(textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent + "  ",
                                   break_on_hyphens=False, break_long_words=False))


def note(text: str) -> None:
    """Print a note (``note: ...``) on stderr wrapped at `WIDTH`, its later lines two spaces in (fix32b: rl-sample's
    long-run note ran to ~220 characters on one line); `notes_joined` reads it back as one line."""
    print(wrapped(text), file=sys.stderr)


def notes_joined(text: str) -> list[str]:
    """Lines of stderr with each wrapped note (`note`) joined back into one line, for a reader that matches a whole
    note."""
    return unwrapped(text, "  ")


def span(lo_hi: list[float], unit: str) -> str:
    """A value range as text: ``100 Gbit/s`` or ``25-100 Gbit/s``."""
    lo, hi = show_apart(*lo_hi)  # 99.9999999-100, not 100-100
    return f"{lo}{unit}" if lo == hi else f"{lo}-{hi}{unit}"


def print_table(header: list[str], body: list[list[str]], left: int | Collection[int]) -> None:
    """Print aligned columns: flush left the first `left` columns (an int) or those at the indices in
    `left`, the rest right; widths as a terminal shows them (a CJK character takes two columns, a
    combining accent none); no trailing spaces."""
    for line in table_lines(header, body, left):
        print(line)


def table_lines(header: list[str], body: list[list[str]], left: int | Collection[int]) -> list[str]:
    """The lines `print_table` prints."""
    flush = range(left) if isinstance(left, int) else left
    widths = [max([shown_width(h)] + [shown_width(r[i]) for r in body]) for i, h in enumerate(header)]

    def pad(i: int, c: str, w: int) -> str:
        fill = " " * (w - shown_width(c))
        return c + fill if i in flush else fill + c
    return ["  ".join(pad(i, c, w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
            for cells in [header] + body]


def shown_width(text: str) -> int:
    """Columns `text` takes on a terminal: 2 for a wide (East Asian) character, 0 for a combining one."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def same_decimals(values: list[float], most: int = 6) -> list[str]:
    """Numbers written with one number of decimals, the fewest that shows every value as `:g` does (at most
    `most`), so that a right-aligned column lines up on the decimal point: 100.0, 12.5, 0.25 -> 100.00 ..."""
    places = max((len(f"{v:g}".partition(".")[2]) for v in values if "e" not in f"{v:g}"), default=0)
    return [f"{v:.{min(places, most)}f}" for v in values]
