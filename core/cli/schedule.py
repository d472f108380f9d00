"""`allreduce-lab schedule`, `validate` and `replay`: one method on one topology, and schedule files."""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import replace
from pathlib import Path

from tqdm import tqdm

from .. import argtypes as at
from ..argtypes import UsageError
from ..bounds import schedule_link_name
from ..engine import Violation
from ..jsonnumbers import json_numbers
from ..methods import get_method, method_names, run_method
from ..replan import replan
from ..schedule import openings, show_opening, show_temperature, temperature_of, temperatures
from ..schedule_io import write_schedule
from ..schedulers.learned import KEPT_START, checkpoint_label, file_spec_text, trained_elsewhere, training_answer
from ..schedulers.status import status_text
from ..seconds import schedule_report, time_report
from ..timing import DEFAULT_SIZE, parse_size
from ..topology import describe_changes, link_option_note, network_record
from ..validate import validate_document
from .common import (FORCE_HELP, WIDTH, Given, add_network_options, add_schedule_options, add_size_option,
                     config, guard, ignored_note, long_run_note, machine_output, method_reads, out_form, print_table,
                     note, read_event, read_network, replan_lines, say, search_note, shown_width, time_lines,
                     wrapped)
from .kinds import schedule_file


def register(sub) -> None:
    """Add this module's subcommands to the parser."""
    p = sub.add_parser("schedule", help="schedule AllReduce on a topology with one method")
    p.add_argument("spec", help="topology: bcube:n=3,k=1, dcell:n=4,k=1, fattree:k=4, leafspine:leaves=4,spines=2,servers=3, "
                   "jellyfish:switches=10,ports=5,switch_ports=4,seed=0, file:net.graphml (+ link options bw=, lat=)")
    p.add_argument("--method", default="critical-path",
                   help=f"one of {', '.join(method_names())} (default critical-path)")
    p.add_argument("--out", type=at.schedule_out,
                   help="write the schedule: OUT ending in .json (or without a suffix) as allreduce-schedule/1 JSON, "
                        "in .npz in its columnar form (docs/scale.md); other endings (.csv) are refused")
    p.add_argument("--trace", action=Given, nargs=0, const=True, default=False,
                   help="with --out, also write a learned method's step-by-step trace (large)")
    p.add_argument("--format", choices=["text", "json"], default="text", help="text (default) or json")
    p.add_argument("--explain", type=at.int_in(1, 1_000_000), metavar="N",
                   help="rl and rl-sample: print the lower agent's first N steps, each with the workload it chose and "
                        "that choice's score split into its terms, as the dashboard's debugger shows it (docs/rl.md)")
    add_size_option(p)
    add_schedule_options(p)
    add_network_options(p)
    p.set_defaults(func=cmd_schedule)

    p = sub.add_parser("validate", help="check an allreduce-schedule/1 file from scratch")
    p.add_argument("file", help="an allreduce-schedule/1 file (.json or .npz), as schedule --out writes it")
    p.add_argument("--max-report", type=at.int_in(0, 1_000_000), default=50,
                   help="violations to print (default 50; all are counted)")
    p.add_argument("--format", choices=["text", "json"], default="text",
                   help="text (default) or json: the verdict, the counts by rule and the first --max-report "
                        "violations (rounds numbered from 1, as in the text)")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("replay", help="time any allreduce-schedule/1 file in seconds (sync and async)")
    p.add_argument("file", help="an allreduce-schedule/1 file (.json or .npz), as schedule --out writes it; it is "
                                "validated first")
    add_size_option(p, default=None)
    p.add_argument("--mode", choices=["sync", "async", "both"], default="both",
                   help="sync: a barrier after every round; async: no barriers (default both)")
    p.add_argument("--format", choices=["text", "json"], default="text", help="text (default) or json")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.set_defaults(func=cmd_replay)


def cmd_schedule(a: argparse.Namespace) -> int:
    """Schedule one topology with one method and print its stats (optionally write the file)."""
    method = get_method(a.method)
    if a.explain is not None and method.solver != "rl":
        learned = [m for m in method_names() if get_method(m).solver == "rl"]
        raise UsageError(f"--explain applies to the learned methods ({', '.join(learned)}), got --method {a.method}")
    estimates = guard(a.spec, [a.method], a, out=a.out)
    said = announce_run(a, estimates)  # known before building (a family spec)
    hint = json_hint(a.out, estimates)
    if hint and not machine_output(a):
        note(hint)
    base, t = read_network(a, a.spec)
    estimate = guard(t, [a.method], a, out=a.out)
    if not said:  # a file: known once it is read
        announce_run(a, estimate)
    searching = search_note(a.method, estimate) if not machine_output(a) else None
    event = read_event(a, t, base)
    cfg = config(a)
    if a.explain is not None:
        cfg = replace(cfg, trace=True)
    ignored = ignored_note(a, method_reads([a.method], out=bool(a.out)), method_reads(),
                           asides={} if a.out else {"--trace": "it applies with --out only"})
    if ignored:  # printed whether or not stderr is a terminal
        note(ignored)
    bar = tqdm(total=1.0, desc=a.method, disable=None, leave=False,
               bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}") if method.slow else None

    def progress(frac: float) -> None:
        nonlocal searching
        if searching is not None and method.solver == "cp-sat":  # its first call: CP-SAT starts searching
            tqdm.write(wrapped(searching), file=sys.stderr)  # above the bar, if any
            searching = None
        if bar is not None:
            bar.n = frac
            bar.refresh()

    size = cfg.size
    sched = run_method(a.method, t, cfg, progress)
    if bar is not None:
        bar.close()
    stats, timing = schedule_report(sched, size)
    network = network_record(base, t)  # the options' changes and a file's own failed links, marked apart
    moved = replan(sched, event, size=size, past_end=False) if event is not None else None
    extra = {"network": network} if any(network.values()) else {}
    if moved is not None:
        extra["replan"] = moved.summary()

    def write() -> None:
        if a.out:
            write_schedule(sched, a.out, stats, trace=a.trace, timing=timing, extra=extra)

    steps = explained_steps(sched, a.explain) if a.explain is not None else None
    overridden = link_option_note(base)  # file:x.json,bw=400 replaced the file's own speeds silently (fix29a)
    if a.format == "json":
        write()
        more = {"explain": steps} if steps is not None else {}
        # numbers as compare's JSON has them (0.012806, not 0.012806000000000001); the explained steps keep their
        # 4 decimals
        # the text's first line too: the network and the DAG (trial 24: the JSON did not say which topology it was)
        head = {"spec": t.spec, "merge": bool(sched.dag.merge), "chunks": int(sched.dag.chunks),
                **({"seed": cfg.seed} if method.seeded else {}), **({"links_note": overridden} if overridden else {})}
        print(json.dumps({**head, **json_numbers({**stats, "time": timing, "info": sched.info, **extra}), **more},
                         indent=2, default=float))
        return 0
    seed = f"  seed={cfg.seed}" if method.seeded else ""  # which seed ran (trial 27)
    print(f"{t.spec}  method={a.method}{seed}  merge={'on' if sched.dag.merge else 'off'}  chunks={sched.dag.chunks}")
    if overridden:
        say(f"links: {overridden}")
    if "network" in extra:
        source = "the file" if base.spec.startswith("file:") else base.spec  # a family spec builds no failed links
        say(f"network: {describe_changes(t, network, held=network.get('failed_in_file'), source=source)}")
    print(f"  rounds {stats['rounds']}" + (f" ({stats['rounds_per_chunk']:.2f} per chunk)" if sched.dag.chunks > 1 else ""))
    print("\n".join(bound_lines(stats, sched.info, schedule_link_name(sched.dag, stats["bounds"]))))
    print(f"  mean link utilization {100 * stats['mean_utilization']:.1f}%")
    print("\n".join(time_lines(timing)))
    for key in ("status", "proven_optimal", "proven_bound", "ring_adjacent", "samples", "temperature", "opening",
                "routing"):
        if key == "samples" and sched.info.get(key) == 0:
            print("  decoding: greedy (rl-sample adds sampled rollouts)")
        elif key == "status" and key in sched.info:
            print(f"  status: {status_text(sched.info)}")
        elif key in sched.info:
            value = {"temperature": show_temperature, "opening": lambda _: opening_text(sched.info)}.get(
                key, lambda v: v)(sched.info[key])
            say(f"{key.replace('_', ' ')}: {('yes' if value else 'no') if isinstance(value, bool) else value}")
    if sched.info.get("samples"):  # which of rl-sample's rollouts the schedule (and --explain) is
        say(f"kept: {kept_text(sched.info)}")
    if "checkpoint" in sched.info:
        answer = training_answer(sched.info)
        print(f"  checkpoint: {checkpoint_label(sched.info)} (trained on this topology: {answer})")
        if answer == "no":  # what it was trained on, as the Policy debugger says it (trial 30)
            say(trained_elsewhere(sched.info, base.spec), "    ")
        if file_spec_text(sched.info):
            print(f"  {file_spec_text(sched.info)}")
        if sched.info.get("kept_start"):
            say(KEPT_START)
    if sched.info.get("fallback"):
        say(f"fallback: {sched.info['fallback']}")
    if "upper_agent" in sched.info:
        say(sched.info["upper_agent"])
    if moved is not None:
        print("\n".join(replan_lines(moved)))
    if steps is not None:
        explain_lines(sched, steps)
    if a.out:  # the report first: a write cut short (Ctrl-C, a full disk) leaves it on screen (trial 24)
        sys.stdout.flush()
        write()
        print(f"  wrote {a.out}")
    return 0


def bound_lines(stats: dict, info: dict, schedule_link: str | None = None) -> list[str]:
    """The workloads, the rounds' lower bound and the gap to it as `schedule` prints them, saying whose bound it is:
    the DAG a method chose (time-aware: ``lower bound 12 of the DAG it chose, 'shortest'``), or CP-SAT's proven bound
    when that is above the closed-form ones (``lower bound 10, proven by CP-SAT, above the closed-form bounds``: the
    10 was named only at the bottom, as ``proven bound``); the four closed-form bounds on the line under it (on one
    line with them it ran to 101-107 characters, fix29a: every line of the report is at most `WIDTH`), and under
    them the link that sets the link-schedule bound where `schedule_link` names one (`core.bounds.schedule_link_name`)."""
    b = stats["bounds"]
    own = info.get("dag")  # a method that chooses its DAG (time-aware) names it: the bound is that DAG's
    whose = f" of the DAG it chose, {own!r}" if own else ""
    proven = ", proven by CP-SAT, above the closed-form bounds" if stats["lower_bound"] > b["best"] else ""
    # only a proven bound lifts it above the four (`Schedule.stats`)
    return [f"  workloads {stats['workloads']}; lower bound {stats['lower_bound']}{whose}{proven}; "
            f"gap {100 * stats['gap']:.1f}%",
            f"    closed-form bounds: link load {b['link_load']}, critical path {b['critical_path']}, "
            f"ports {b['ports']}, link schedule {b['link_schedule']}"] + (
        wrapped(f"link schedule {b['link_schedule']}: link {schedule_link}, whose workloads wait on chains before it "
                "and start chains after it", "    ").splitlines() if schedule_link else [])


def explained_steps(sched, n: int) -> list[dict]:
    """The first `n` steps of a learned schedule's trace (`core.rl.explain.chosen_steps`); none when the schedule
    kept has no trace (critical-path's, as a fallback)."""
    if sched.trace is None:
        return []
    from ..rl.explain import chosen_steps
    return chosen_steps(sched.trace, n, sched.dag.describe)


TERM_SHORT = {"link_pressure_max": "lp_max", "link_pressure_mean": "lp_mean", "path_links": "path_ln",
              "successors": "succ", "desc_pressure": "desc_pr", "broadcast": "bcast", "tree_progress": "tree_pr",
              "pool_conflicts": "pool_cf", "round_progress": "round_pr", "tail_rank": "tail_rk",
              "unlock_starving": "unlock", "conflicts_valid": "cf_valid", "conflicts_rel": "cf_rel",
              "exclusive_links": "excl_ln"}
"""`--explain`'s headings of the score terms whose feature name is longer than a 4-decimal value, used where the terms
with their whole names would not fit one table of `WIDTH` (a legend line names the ones shown): with the terms beside
the pick, a row of the table ran to 143-176 characters (fix32b)."""


def explain_lines(sched, steps: list[dict]) -> None:
    """Print the explained steps as two plain tables within `WIDTH`, a step a row in each: the pick (the workload
    chosen, its score, p, margin, the counts), then its score split into terms (more tables of terms, each keyed by
    the step, where they would not fit beside each other); terms that are 0 in every row are named below them."""
    if not steps:
        print("  explain: no trace (the schedule kept is not the policy's: see fallback)")
        return
    from ..rl.explain import zero_terms
    trace = sched.trace or {}
    opened = (sched.info.get("kept_opening") or {}).get("rounds", 0) > 0
    drawn = trace.get("decoding") == "sampled" and opened  # two temperatures in the rollout: each row says its own
    zero = zero_terms(steps)
    terms = [c for c in steps[0] if c.startswith("term: ") and c not in zero]
    # rl-sample: which rollout the rows follow (trial 33)
    kept = str(sched.info.get("kept_rollout") or "") if sched.info.get("samples") else ""
    whose = (f" in the kept rollout ({kept if kept.startswith('sample ') else 'the ' + kept + ' one'})"
             if kept else "")
    say(f"explain: the first {len(steps)} steps of the lower agent{whose}, a step a row: what it picked, then the "
        "pick's score (4 decimals) split into one term per feature from the prior, bias, and network (the learned "
        "residual), which add up to the score; docs/rl.md")
    key = [f"{row['round']}.{row['step']}" for row in steps]
    cols = {"chosen": [str(row["chosen"]) for row in steps]}  # an id where the trace had no describe
    if drawn:
        cols["T"] = [f"{drawn_at(sched.info, row['round']):g}" for row in steps]
    for c in ("score", "p", "margin"):
        cols[c] = explain_cells([row[c] for row in steps])
    if "best score" in steps[0]:  # a sampled rollout: "yes" where the pick had the step's best score, else that score
        best = explain_cells([row["best score"] for row in steps])
        cols["best"] = ["yes" if row["picked best"] else b for row, b in zip(steps, best)]
    cols["scored"] = [str(row["scored"]) for row in steps]
    cols["ties"] = [str(row["others tied"]) for row in steps]
    cut = fit_column(cols, "chosen", ["  step"] + list(cols), ["  " + k for k in key])
    print_table(["  step"] + list(cols), [["  " + key[i]] + [cols[c][i] for c in cols] for i in range(len(steps))],
                left=[0, 1])
    names = [c.removeprefix("term: ") for c in terms]
    head, head_cells = ["  step", "score"], [["  " + k for k in key], cols["score"]]
    split = {n: explain_cells([row[c] for row in steps]) for n, c in zip(names, terms)}
    blocks = column_blocks(head, head_cells, split)
    short = [n for n in names if n in TERM_SHORT] if len(blocks) > 1 else []  # whole names where they fit one table
    if short:
        split = {TERM_SHORT.get(n, n): cells for n, cells in split.items()}
        blocks = column_blocks(head, head_cells, split)
    for block in blocks:
        print_table(["  step", "score"] + block, [["  " + key[i], cols["score"][i]] + [split[c][i] for c in block]
                                                  for i in range(len(steps))], left=1)
    if zero:
        say(f"0 in every step shown: {', '.join(c.removeprefix('term: ') for c in zero)}")
    if short:
        say(f"terms shortened: {', '.join(f'{TERM_SHORT[n]} = {n}' for n in short)}")
    if cut:
        say("chosen: cut with ... to fit the table (--format json has it whole)")
    tie = trace.get("tie_rule", "lowest workload id")
    if trace.get("decoding") == "sampled":
        shown = max(row["round"] for row in steps)  # the last round a shown step is in (1-based)
        per_row = "; column T: each step's" if drawn else ""
        say(f"sampled rollout: each pick is drawn at random from the softmax of score / T (T = "
            f"{kept_temperature(sched.info, shown)}{per_row}), "
            f"not taken as the top score; best: yes where the pick had the highest score at that step, else that "
            f"highest score")
    say("p: the policy's probability of the pick, the softmax of the scores at temperature 1 over every "
        "candidate scored" + (" (the scores' own odds, whatever temperature the samples drew at)" if kept else "")
        + "; margin: its score minus the runner-up's (the log of how many times likelier it was; "
        "'-' when it was the only candidate; 0.0000 beside 0 ties: the two differ past the 4th decimal), as "
        "the dashboard's Policy debugger shows them")
    say(f"step: round.step, both from 1; scored: the candidates the agent scored at that step (the round's ready "
        f"workloads that still fit beside those chosen before), the chosen one among them; ties: how many of the "
        f"others had exactly the chosen score (0: no tie; more: broken by {tie})")


def fit_column(cols: dict[str, list[str]], name: str, header: list[str], first: list[str]) -> bool:
    """Cut the cells of column `name` (a workload's description, ``#id`` first) with ``...`` where the table of `first`
    (the key column) and `cols` would be wider than `WIDTH` (long node labels of a topology file); whether it did."""
    widths = [max(shown_width(h), *(shown_width(v) for v in vals))
              for h, vals in zip(header, [first] + list(cols.values()))]
    over = sum(widths) + 2 * (len(widths) - 1) - WIDTH
    if over > 0:
        keep = max(widths[header.index(name)] - over, 12) - 3
        cols[name] = [v if shown_width(v) <= keep + 3 else v[:keep] + "..." for v in cols[name]]
    return over > 0


def column_blocks(head: list[str], head_cells: list[list[str]], cols: dict[str, list[str]]) -> list[list[str]]:
    """`cols`' names in blocks that each fit `WIDTH` beside the columns `head` (repeated in every block)."""
    def width(h: str, cells: list[str]) -> int:
        return max(shown_width(h), *(shown_width(v) for v in cells)) + 2
    base = sum(width(h, c) for h, c in zip(head, head_cells)) - 2
    blocks: list[list[str]] = []
    used = WIDTH + 1
    for name, cells in cols.items():
        w = width(name, cells)
        if used + w > WIDTH and (not blocks or blocks[-1]):
            blocks.append([])
            used = base
        blocks[-1].append(name)
        used += w
    return blocks


def opening_text(info: dict) -> str:
    """`info["opening"]` as `schedule` prints it (`show_opening`), noting a split that fewer samples ran than it has
    items: ``(only sample 0 ran: no opening)`` (trial 17: with --samples 1 a split read as if it applied)."""
    text, split, n = show_opening(info["opening"]), openings(info["opening"]), int(info.get("samples") or 0)
    if len(split) <= 1 or not 0 < n < len(split):
        return text
    first = "no opening" if split[0] is None else "opening " + show_opening(split[0], short=True)
    note = (f"only sample 0 ran: {first}" if n == 1
            else f"only samples 0-{n - 1} ran: {','.join(show_opening(o, short=True) for o in split[:n])}")
    return f"{text[:-1]}; {note})" if text.endswith(")") else f"{text} ({note})"


def kept_text(info: dict) -> str:
    """Which of rl-sample's rollouts the schedule is, as its ``kept:`` line says it: ``sample 2 (of 0-15; no
    opening)`` or ``(...; opening 0.5:0.3)`` (samples count from 0; the opening `info["kept_opening"]`, that
    sample's item of the split), or ``the greedy rollout``; then the rollouts' rounds. Trial 17: it read "the
    sample 2 rollout", with neither the opening nor where samples count from."""
    kept, n = str(info.get("kept_rollout", "")), int(info.get("samples") or 0)
    if kept.startswith("sample "):
        o = info.get("kept_opening")
        which = f"of 0-{n - 1}" if n > 1 else "the only one"
        text = f"{kept} ({which}; {'no opening' if o is None else 'opening ' + show_opening(o, short=True)})"
    else:
        text = f"the {kept} rollout"
    rolls = info.get("rollout_rounds") or []
    return text + (f"; rounds of the greedy rollout and the samples: {rounds_range(rolls)}" if rolls else "")


def rounds_range(rolls: list[int]) -> str:
    """The rollouts' rounds as a range, ``42-43``, or ``all 43`` when they agree."""
    return f"all {rolls[0]}" if min(rolls) == max(rolls) else f"{min(rolls)}-{max(rolls)}"


def kept_temperature(info: dict, shown_rounds: int | None = None) -> str:
    """The temperature the kept sampled rollout was drawn at (`info["kept_temperature"]`, or for a file written before
    it was recorded, worked out from the split), with the split item it is when there is a split, and its opening:
    `info["kept_opening"]`, the item the run recorded for the kept sample (not worked out again here).

    With an opening, the temperature its first rounds were drawn at leads, since --explain's first steps are in them:
    ``0.5 in rounds 1-4 (the opening; every step shown is in them), then 0.2``; from splits, ``0.5 in rounds 1-6
    (the opening: sample 15's item of none,0.5:0.3), then 1 (its item of 0.2,1)`` (trial: it read "T = 0.5 in the
    first 6 rounds (sample 15's opening in the split none,0.5:0.3), 1, sample 15's temperature in the split 0.2,1
    after them", the second temperature lost in the middle). `shown_rounds`: the last round (1-based) a shown step
    is in (None: the whole rollout)."""
    t = info.get("temperature")
    kept = str(info.get("kept_rollout", ""))
    if t is None or not kept.startswith("sample "):
        return "the temperature" if t is None else show_temperature(t)
    k = int(kept.split()[1])
    drawn = info.get("kept_temperature")  # as the run recorded it; files written before it have none
    value = f"{temperature_of(t, k) if drawn is None else drawn:g}"
    split_t = len(temperatures(t)) > 1
    split = openings(info.get("opening"))
    o = info.get("kept_opening")  # the kept sample's item of the split, as the run recorded it (core.schedulers.learned)
    whole = show_opening(split, short=True)
    if not o:
        if len(split) == 1:
            return f"{value} (sample {k}'s item of {show_temperature(t)})" if split_t else value
        items = f"its item of {show_temperature(t)}; " if split_t else ""
        return f"{value} ({items}no opening: sample {k}'s item of {whole})"
    whose = "the opening" if len(split) == 1 else f"the opening: sample {k}'s item of {whole}"
    if o["rounds"] <= 0:  # nothing was drawn at the opening's temperature
        own = f"sample {k}'s item of {show_temperature(t)}; " if split_t else ""
        return f"{value} ({own}{whose}, covered no round)"
    inside = "; every step shown is in them" if shown_rounds is not None and shown_rounds <= o["rounds"] else ""
    after = value
    if split_t:
        whose_t = "its" if len(split) > 1 else f"sample {k}'s"
        after += f" ({whose_t} item of {show_temperature(t)})"
    return f"{o['temperature']:g} in {rounds_text(o['rounds'])} ({whose}{inside}), then {after}"


def rounds_text(n: int) -> str:
    """The first `n` rounds, 1-based: ``round 1``, ``rounds 1-6``."""
    return "round 1" if n == 1 else f"rounds 1-{n}"


def drawn_at(info: dict, round_: int) -> float | None:
    """The temperature the kept sampled rollout drew its picks of `round_` (1-based) at: the opening's in the rounds
    it covers (`info["kept_opening"]`), else the kept sample's (`info["kept_temperature"]`, or worked out from the
    split for an older file); None where no sample was kept."""
    t, kept = info.get("temperature"), str(info.get("kept_rollout", ""))
    if t is None or not kept.startswith("sample "):
        return None
    o = info.get("kept_opening")
    if o and round_ <= o["rounds"]:
        return float(o["temperature"])
    drawn = info.get("kept_temperature")
    return float(temperature_of(t, int(kept.split()[1])) if drawn is None else drawn)


def explain_cells(values: list) -> list[str]:
    """One `--explain` column as text: counts and names as they are, scores and terms with the trace's 4 decimals
    (5.319 beside 5.3521 read 5.3190 and 5.3521; 5.0 reads 5.0000)."""
    if all(isinstance(v, bool) for v in values):
        return ["yes" if v else "no" for v in values]
    if not all(isinstance(v, float) or v is None for v in values):
        return [str(v) for v in values]
    return ["-" if v is None else f"{v:.4f}" for v in values]  # None: a margin with no runner-up


JSON_HINT_WORKLOADS = 1_000_000
"""From this many workloads `schedule --out x.json` says that the columnar .npz form reads back far faster (trial 24:
BCube(10,2)'s 5.4 M-workload JSON, 677 MB, took over a minute to validate; its .npz, 31 MB, 4.5 s)."""


def json_hint(out: str | None, estimates: list) -> str | None:
    """The note for a schedule of at least `JSON_HINT_WORKLOADS` workloads written as JSON (`out`), else None."""
    if not out or out_form(out) != "json" or not estimates or estimates[0].workloads < JSON_HINT_WORKLOADS:
        return None
    return (f"note: {Path(out).name}: JSON of ~{estimates[0].workloads:,} workloads is large and slow to read back "
            "(validate and replay of 5.4 M workloads: over a minute); the same schedule as .npz (--out NAME.npz) is "
            "about 20x smaller and reads back in seconds (docs/scale.md, \"Files: JSON with groups, and a columnar "
            "form\")")


def announce_run(a: argparse.Namespace, estimates: list) -> bool:
    """Print `long_run_note` for this run on stderr (not for machine-readable output); whether there was an estimate."""
    line = long_run_note(f"{a.method}: {estimates[0].what}", estimates) if estimates else None
    if line and not machine_output(a):
        note(line)
    return bool(estimates)


def violation_place(v: Violation) -> dict:
    """A violation's workload, round (from 1) and link id (what --fail-links takes), each None where it has none."""
    # a directed link is 2·id + 0 (u->v as listed) or + 1 (v->u)
    return {"workload": v.workload, "round": None if v.round is None else v.round + 1,
            "link_id": None if v.link is None else v.link // 2}


def violation_where(v: Violation) -> str:
    """The workload, round and link id of a violation that its message does not already say, as "  (...)"."""
    place = violation_place(v)
    where = [f"{what} {place[key]}" for key, what in (("workload", "workload"), ("round", "round"),
                                                       ("link_id", "link id")) if place[key] is not None]
    said = lambda w: re.search(rf"(?<![\w-]){re.escape(w).replace(' ', ' #?')}(?![\w.])", v.message)  # noqa: E731
    where = [w for w in where if not said(w)]  # "workload #13 reduce B->C" says workload 13
    return f"  ({', '.join(where)})" if where else ""


def cmd_validate(a: argparse.Namespace) -> int:
    """Validate a schedule file; exit 0 when correct, 2 when not. The report (the verdict, then the violations)
    goes to stdout; stderr carries only errors (a file that cannot be read) and notes, as in every command."""
    data = schedule_file(a.file, force=a.force)
    rep = validate_document(data, a.file, force=a.force)
    if a.format == "json":
        shown = [{"rule": v.rule, "message": v.message, **violation_place(v)} for v in rep.violations[: a.max_report]]
        print(json.dumps({"file": a.file, "valid": rep.ok, "workloads": rep.workloads, "rounds": rep.rounds,
                          "trees": rep.trees, "violations": len(rep.violations), "by_rule": rep.by_rule(),
                          "elsewhere": rep.elsewhere_note(), "shown": shown}, indent=2))
        return 0 if rep.ok else 2
    if rep.ok:
        print(f"{a.file}: OK — {rep.workloads} workloads in {rep.rounds} rounds; every server holds the sum "
              f"of all {rep.trees} flow-trees exactly once")
        return 0
    counts = ", ".join(f"{k} {n}" for k, n in rep.by_rule().items())
    elsewhere = rep.elsewhere_note()
    elsewhere = f"; {elsewhere}" if elsewhere else ""
    # the report's verdict first (stdout), then the violations it counts
    print(f"{a.file}: INVALID — {len(rep.violations)} violation(s): {counts}{elsewhere}")
    for v in rep.violations[: a.max_report]:
        print(f"  [{v.rule}] {v.message}" + violation_where(v))
    if len(rep.violations) > a.max_report:
        print(f"  ... {a.max_report} of {len(rep.violations)} violations shown (--max-report N shows more)")
    return 2


def cmd_replay(a: argparse.Namespace) -> int:
    """Time a schedule file in seconds (it must validate first); exit 2 when it does not."""
    data = schedule_file(a.file, force=a.force)
    recorded = data.get("timing") if isinstance(data.get("timing"), dict) else {}
    size = parse_size(a.size if a.size is not None else recorded.get("size_bytes", DEFAULT_SIZE),
                      "--size" if a.size is not None else f"{a.file}: timing.size_bytes")
    rep = validate_document(data, a.file, force=a.force)
    if not rep.ok:
        v = rep.violations[0]
        more = f" (and {len(rep.violations) - 1} more; run validate)" if len(rep.violations) > 1 else ""
        elsewhere = rep.elsewhere_refusal()  # validate's hint: the cause, where one violation would not say it
        raise UsageError(f"{a.file}: not a valid schedule, cannot time it: "
                         + (elsewhere or f"[{v.rule}] {v.message}{more}"))
    timing = time_report(rep.dag, rep.schedule_rounds, size)
    if a.mode != "both":
        timing.pop("async" if a.mode == "sync" else "sync")
    method, spec = data.get("method", "?"), data["topology"].get("spec", "?")
    if a.format == "json":  # the one rule (core.jsonnumbers): the same figures as schedule --format json's "time",
        # under the file's own method, spec and counts, so that a saved output still says what it timed
        head = {"file": a.file, "method": method, "spec": spec, "workloads": rep.workloads, "rounds": rep.rounds}
        print(json.dumps({**head, "time": json_numbers(timing)}, indent=2, default=float))
        return 0
    print(f"{a.file}: {method} on {spec}, {rep.workloads} workloads in {rep.rounds} rounds")
    print("\n".join(time_lines(timing)))
    return 0
