"""What a result is, said plainly: what its gap is measured against, whether an optimum is proven,
which RL checkpoint ran and whether it was trained on this topology. Reads `Schedule.stats()` and
`Schedule.info`; decides nothing. No Streamlit here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from core.bounds import schedule_link_name
from core.methods import get_method
from core.rl.pair import pair_stem
from core.schedule import openings, show_opening, temperatures
from core.schedulers.learned import KEPT_START, file_spec_text, training_answer
from core.schedulers.status import BOUND_MET, stopped_words
from core.text import and_list
from core.topology.links import without_link_options
from core.workloads import BROADCAST, WorkloadDAG
from core import units
from core.units import format_seconds, format_size

from .axisnames import ordinal


_MARKDOWN = frozenset("\\`*_[]<>$~|#:")
"""Characters Streamlit's Markdown would act on: emphasis, code, links, HTML, math, strike-through, tables, headings,
emoji and icon short codes."""


def plain(text: object) -> str:
    """`text` escaped so that Streamlit's Markdown (st.error, st.warning, st.markdown) shows it character for
    character: a path's ``_`` or a spec's ``*`` stay as typed, a ``<tag>`` is shown, not dropped."""
    return "".join("\\" + c if c in _MARKDOWN else c for c in str(text)).replace("\n", "  \n")


DAG_NAMES = {"tree": "merged trees", "plain": "unmerged trees", "ring": "the ring"}


def dag_name(method: str, dag: WorkloadDAG | None = None) -> str:
    """The workload DAG a result was scheduled on, in words: `dag`'s own kind when given (a method such
    as time-aware may pick a ring), else the kind the method's registry entry names."""
    if dag is not None:
        kind = "ring" if dag.kind == "ring" else ("tree" if dag.merge else "plain")
    else:
        kind = get_method(method).dag
    return DAG_NAMES.get(kind, kind)


def sampling_note(info: dict) -> str | None:
    """A sampled learned result's decoding in plain words (trial 26: "after openings none,0.5:0.3 (a split: sample k
    takes item k mod 2, ...)" read as code): how many rollouts were sampled, at which temperature each pick was
    drawn, which samples drew their first rounds at another (the opening), and that the shortest was kept; the
    --opening option as typed in parentheses, the samples numbered from 0 as the CLI numbers them. None for a result
    that drew no samples. E.g. "sampled 16 rollouts, each pick drawn at temperature 0.2; every second sample (samples
    1, 3, …, counting from 0) drew its first 4 rounds at 0.5 instead; kept the shortest, or the greedy rollout where
    none was shorter (--opening none,0.5:0.3; 30% of the greedy rollout's 12 rounds is 4)"."""
    if not info.get("samples"):
        return None
    ts = [f"{t:g}" for t in temperatures(info["temperature"])]
    drawn = (f"temperature {ts[0]}" if len(ts) == 1
             else f"temperatures {', '.join(ts[:-1])} and {ts[-1]}, the samples taking them in turn")
    parts = [f"sampled {info['samples']} rollouts, each pick drawn at {drawn}"]
    ol = openings(info["opening"]) if info.get("opening") else ()
    for i, o in enumerate(ol):
        if not isinstance(o, dict):  # none: this item draws every round at the sample's temperature
            continue
        early = f"first {o['rounds']} round{'s' if o['rounds'] != 1 else ''} at {o['temperature']:g} instead"
        if len(ol) == 1:
            parts.append(f"every sample drew its {early}")
        elif len(ol) == 2:  # numbered from 0, as the CLI's kept: line and split note number them (trial 30)
            parts.append(f"every second sample (samples {i}, {i + 2}, …, counting from 0) drew its {early}")
        else:
            parts.append(f"every {ordinal(len(ol))} sample (samples {i}, {i + len(ol)}, …, counting from 0) "
                         f"drew its {early}")
    note = "; ".join(parts) + "; kept the shortest, or the greedy rollout where none was shorter"
    said = [o for o in ol if isinstance(o, dict)]
    if said:
        covered = "; ".join(dict.fromkeys(f"{o['fraction']:.0%} of the greedy rollout's {o['of_rounds']} rounds, "
                                          f"rounded up, is {o['rounds']}" for o in said))  # 3.6 -> 4 (trial 28)
        note += f" (--opening {show_opening(info['opening'], short=True)}; {covered})"
    return note


def kept_note(info: dict) -> str | None:
    """Which of a sampled learned result's rollouts was kept and its rounds against the greedy rollout's, in words, the
    sample named as the CLI's ``kept:`` line names it (numbered from 0, with its opening), then which it is counting
    from 1: "kept sample 5 (of 0-15; no opening), the 6th: 9 rounds, the greedy rollout 10" (trial 30: the page said
    "the 3rd sample" where the CLI said "sample 2"); None for a result that drew no samples."""
    tried = info.get("rollout_rounds")
    if not info.get("samples") or not tried or "kept_rollout" not in info:
        return None
    if info["kept_rollout"] == "greedy":
        return f"kept the greedy rollout: {tried[0]} rounds, no sample was shorter"
    k, n = int(str(info["kept_rollout"]).split()[-1]), int(info["samples"])
    o = info.get("kept_opening")  # the sample's item of --opening, as the run recorded it
    which = f"of 0-{n - 1}" if n > 1 else "the only one"
    cli = f"sample {k} ({which}; {'no opening' if o is None else 'opening ' + show_opening(o, short=True)})"
    return f"kept {cli}" + (f", the {ordinal(k + 1)}" if n > 1 else "") + (
        f": {tried[k + 1]} rounds, the greedy rollout {tried[0]}")


def percent(fraction: float) -> str:
    """A gap (a fraction >= 0) as a metric shows it: whole percent from 10% up, one decimal below (``0.2%``),
    ``< 0.1%`` for a gap above zero that one decimal would show as 0.0, and ``0%`` only when the gap is zero (a
    rounded ``0%`` read as "the bound is met" where it was not: 812 rounds against 810, trial 21); from 10x the bound
    up the ratio, as the CLI writes it (`core.units.gap_text`: ``42.2x``, not ``4120%``)."""
    if 1 + float(fraction) >= units.RATIO_FROM:
        return units.gap_text(fraction)
    value = 100 * float(fraction)
    if value == 0:
        return "0%"
    if value < 0.05:
        return "< 0.1%"
    return f"{value:.1f}%" if value < 9.95 else f"{value:.0f}%"


def carries(dag: WorkloadDAG, w: int, short: bool = False) -> str:
    """What workload w carries, for a small DAG's hovers: a reduce workload the pieces merged into it (``carries
    B+C+D``; a relay says it is not its sender's own), a broadcast its tree's sum. `short`: a table cell's words
    (``B+C+D``, ``C (relayed)``, ``sum of tree A``; trial 33: a narrow column cut the long ones)."""
    lab = dag.topology.labels
    if dag.phase[w] == BROADCAST:
        tree = f"sum of tree {lab[int(dag.tree_root[dag.tree[w]])]}"
        return tree if short else f"carries the {tree}"
    pieces = "+".join(lab[s] for s in dag.payload(w))
    if short:
        return pieces + ("" if dag.carries_own[w] else " (relayed)")
    return f"carries {pieces}" + ("" if dag.carries_own[w] else " (relayed, not the sender's own)")


BOUND_WORDS = {"link_load": "link load", "critical_path": "critical path", "ports": "ports",
               "link_schedule": "link schedule"}
"""The closed-form round bounds (`core.bounds.Bounds`) as the CLI's `closed-form bounds:` line names them."""


def gap_note(method: str, stats: dict, dag: WorkloadDAG | None = None) -> str:
    """What a result's gap is measured against: its own DAG's lower bound, named, with every closed-form bound the
    result carries and which of them sets it (trial 32: a bound of 5 shown beside "link load 4, critical path 4"
    alone, the link schedule's 5 left out), or CP-SAT's proven bound where it is above them."""
    b = stats["bounds"]
    parts = [(words, b[key]) for key, words in BOUND_WORDS.items() if key in b]
    setting = [f"the {words}" for words, value in parts if value == stats["lower_bound"]]
    if setting:
        why = f"set by {and_list(setting)}"
    elif stats["lower_bound"] > max((value for _, value in parts), default=0):
        why = "proven by CP-SAT, above the closed-form bounds"
    else:
        why = ""
    link = schedule_link_name(dag, b) if dag is not None and len(parts) == len(BOUND_WORDS) else None
    listed = ", ".join(f"{words} {value}" + (f" on link {link}" if link and words == "link schedule" else "")
                       for words, value in parts)  # which link, as the CLI says it (trial 32)
    return (f"gap vs the lower bound of its own DAG ({dag_name(method, dag)}): {stats['lower_bound']} rounds"
            f"{', ' + why if why else ''} ({listed}; docs/model.md §6)")


def optimal_note(info: dict, time_limit: float | None = None, shortest: tuple[str, int] | None = None) -> str | None:
    """Proven optimal or not, with its bound, for a result carrying CP-SAT's facts; None otherwise. Not proven, the
    optimum lies between CP-SAT's bound and this result or, given `shortest` (the titled method with the shortest
    schedule of the same DAG there and its rounds, `core.compare.shortest_schedule`), that schedule, which fixes it
    where it meets the bound: as Compare's warning says it (trial 23: the notes said "between 60 and this result"
    where the warning said "optimum 60")."""
    if "proven_optimal" not in info:
        return None
    bound = info.get("proven_bound")
    if info["proven_optimal"]:
        how = " by the warm start, critical-path's schedule: CP-SAT not needed" if info.get("status") == BOUND_MET else ""
        return f"proven optimal (lower bound {bound} met{how})"
    limit = f"the {time_limit:g} s time limit" if time_limit else "its time limit"
    return (f"NOT proven optimal: CP-SAT stopped at {limit} (deterministic seconds of work, the same on any machine) "
            f"and {stopped_words(info.get('status', '?'))}; {optimum_words(bound, shortest)}")


def optimum_words(bound: int | None, shortest: tuple[str, int] | None) -> str:
    """Where an optimum CP-SAT did not prove lies, from its proven `bound` and `shortest` (`optimal_note`)."""
    if shortest is None or bound is None:
        return f"the optimum lies between {bound} and this result"
    title, rounds = shortest
    if rounds <= bound:
        return f"{title}'s schedule meets the bound, so the optimum is {bound}"
    return f"the optimum lies between {bound} and {rounds} ({title}'s schedule, the shortest here)"


def trained_here(info: dict, spec: str) -> bool | None:
    """Whether the RL checkpoint was trained on this topology (the scheduler's own flag when it sets one)."""
    if "trained_on_this_topology" in info:
        return bool(info["trained_on_this_topology"])
    if "trained_on" not in info:
        return None
    return info["trained_on"] == spec


def checkpoint_name(info: dict) -> str:
    """The checkpoint a learned result ran, by the name --checkpoint takes, with its fallback when it had one."""
    name = pair_stem(str(info["checkpoint"])).name  # my.model stays my.model (.stem cut it to my)
    return f"{name} (fallback: {info['fallback']})" if info.get("fallback") else name


def checkpoint_fit(info: dict, spec: str) -> tuple[str, str]:
    """How a learned result's checkpoint fits the topology it ran on (`spec`), for `checkpoint_note` and
    `checkpoints_line` alike: ``("here", answer)`` trained on it (the CLI's `training_answer`, "" when plain yes);
    ``("unknown", "")`` not said; ``("across", "")`` trained across topologies, the default on others;
    ``("intact", own spec)`` trained on its own spec with every link up while a link is failed here
    (`intact_spec`); ``("borrowed", where it was trained)`` a checkpoint of another topology."""
    here = trained_here(info, spec)
    if here is None:
        return "unknown", ""
    if here:
        answer = training_answer(info)  # the CLI's words: says when merge, chunks or routing differ from training's
        return "here", "" if answer in (None, "yes") else answer
    if across_topologies(info):
        return "across", ""
    if own := intact_spec(info, spec):
        return "intact", own
    return "borrowed", trained_on_text(info.get("trained_on"))


def checkpoint_note(info: dict, spec: str) -> str | None:
    """Which RL checkpoint ran, whether it was trained on this topology, whether it went by the spec a topology file
    carries (`file_spec_text`) and whether its training kept the starting weights (as the CLI says it); None for other
    methods."""
    if "checkpoint" not in info:
        return None
    name = checkpoint_name(info)
    kind, what = checkpoint_fit(info, spec)
    if kind == "unknown":
        note = f"checkpoint {name}"
    elif kind == "here":
        note = f"checkpoint {name}, trained on this topology" + (f": {what}" if what else "")
    elif kind == "across":  # the universal checkpoint is meant for topologies it never saw: information
        note = (f"checkpoint {name}, trained on {trained_on_text(info.get('trained_on'))}, not on this one "
                f"(as meant: a checkpoint trained across topologies is the default on any other)")
    elif kind == "intact":  # its own spec with a link failed: what --fail-links gives, no mismatch
        note = f"checkpoint {name}, trained on {what} with every link up, not with a failed link"
    else:  # a checkpoint of one topology borrowed for another: a real mismatch, in capitals (Compare warns on NOT)
        note = f"checkpoint {name}, trained on {what}, NOT on this one"
    if said := file_spec_text(info):  # a topology file carrying a spec: whether the checkpoint went by it
        note += f"; {said}"
    return note + (f"; {KEPT_START}" if info.get("kept_start") else "")


CHECKPOINT_FIT_BRIEF = {"unknown": "", "here": "trained on this topology",
                        "across": "trained on other topologies (the default here)",
                        "intact": "trained on the intact network", "borrowed": "NOT trained on this topology"}
"""`checkpoint_fit`'s kinds in a few words, for a method's card (`checkpoint_brief`)."""

UNTRAINED_BRIEF = "untrained (iteration 0)"
"""What a card says for "trained" when the checkpoint's training kept its starting weights (`KEPT_START`)."""


def checkpoint_brief(info: dict, spec: str) -> str | None:
    """`checkpoint_note` in a few words, for a method's narrow card beside others: which checkpoint ran and how it
    fits this topology (`CHECKPOINT_FIT_BRIEF`), "untrained (iteration 0)" where its training kept the starting
    weights (trial 23: "trained on this topology; details:" hid that the network adds nothing); the rest (the file's
    spec, where a checkpoint was trained) is in the full note, which the card keeps one hover away. None for other
    methods. Trial 22: on an uploaded DCell(6,1) file with a failed link the full note took 7 lines at 1280 px."""
    if "checkpoint" not in info:
        return None
    kind, what = checkpoint_fit(info, spec)
    fit = CHECKPOINT_FIT_BRIEF[kind] + (" (other options)" if kind == "here" and what else "")
    if info.get("kept_start"):
        fit = (f"{UNTRAINED_BRIEF}, of another topology" if kind == "borrowed" else
               fit.replace("trained", UNTRAINED_BRIEF, 1) if fit else UNTRAINED_BRIEF)
    return f"checkpoint {checkpoint_name(info)}" + (f", {fit}" if fit else "")


def card_notes(method: str, info: dict, spec: str, time_limit: float | None = None) -> tuple[list[str], str | None]:
    """`result_notes` for a method's card: the checkpoint said briefly (`checkpoint_brief`), pointing to its full
    note (`DETAILS_POINTER`) where the brief one leaves something out; and that full note, for the caption's help
    tooltip (else None)."""
    full, brief = checkpoint_note(info, spec), checkpoint_brief(info, spec)
    details = full if full != brief else None
    if details:
        brief += f"; {DETAILS_POINTER}"
    # the brief note last: its pointer is then next to the icon
    notes = [n for n in (optimal_note(info, time_limit), sampling_note(info), brief) if n]
    return notes, details


DETAILS_POINTER = "details:"
"""Where a card's brief checkpoint note says its full text is: the caption's help icon, drawn right after it
(`card_notes`)."""


def checkpoints_line(title: str, found: list[tuple[str, dict, str]]) -> str:
    """Which checkpoint a learned method (`title`) ran on each configuration of `found` ((name, its result's info,
    its spec)) and whether it was trained there, in one caption for every case (its own checkpoint, the universal one
    on a topology it never saw, one borrowed from another topology), configurations of one kind together; then what
    some runs add (the file's spec, training that kept its starting weights), naming where."""
    kinds: dict[tuple[str, str], list[str]] = {}
    extras: dict[str, list[str]] = {}
    for name, info, spec in found:
        ckpt = checkpoint_name(info)
        kind, what = checkpoint_fit(info, spec)
        if kind == "here":
            detail = f" ({what.removeprefix('yes ').strip('()')})" if what else ""
            kinds.setdefault((kind, detail), []).append(f"{ckpt} on {name}")
        elif kind == "unknown":
            kinds.setdefault((kind, ""), []).append(f"{ckpt} on {name}")
        elif kind == "across":
            kinds.setdefault((kind, ckpt), []).append(name)
        elif kind == "intact":
            kinds.setdefault((kind, f"{ckpt}, trained on {what} with every link up"), []).append(name)
        else:
            kinds.setdefault((kind, f"{ckpt}, trained on {what}"), []).append(name)
        for extra in (file_spec_text(info), KEPT_START if info.get("kept_start") else None):
            if extra:
                extras.setdefault(extra, []).append(name)
    out = []
    for (kind, what), where in kinds.items():
        listed = ", ".join(where)
        many = len(where) > 1
        if kind == "here":
            out.append(f"{title} ran checkpoint{'s' if many else ''} {listed}, "
                       f"{'each ' if many else ''}trained on that topology{what}.")
        elif kind == "across":
            out.append(f"{title} ran checkpoint {what}, trained across topologies, on {listed}, which it was not "
                       "trained on: the default on a topology without its own checkpoint.")
        elif kind == "intact":  # the sidebar's failed link or a file's: its own checkpoint, no mismatch
            out.append(f"{title} ran checkpoint {what}, on {listed}, not trained with a failed link.")
        elif kind == "borrowed":
            out.append(f"{title} ran checkpoint {what}, on {listed}: NOT trained on {'these' if many else 'this one'}.")
        else:
            out.append(f"{title} ran checkpoint{'s' if many else ''} {listed}.")
    said: dict[tuple[str, ...], list[str]] = {}  # what the same configurations add, said once for them
    for extra, where in extras.items():
        said.setdefault(tuple(where), []).append(extra)
    out += [f"On {', '.join(where)}: {'; '.join(what)}." for where, what in said.items()]
    return " ".join(out)


def intact_spec(info: dict, spec: str) -> str | None:
    """The spec this run's topology is (`spec`, or the one a topology file carries and is: `info["file_spec"]`) when
    the checkpoint was trained on it (link speeds aside) yet not on this run's topology: a link is failed, as
    --fail-links or the file made it. None otherwise. Trial 22 read "trained on bcube:n=3,k=1, NOT on this one" for
    BCube(3,1) with one link failed as a borrowed checkpoint."""
    said = info.get("file_spec") if isinstance(info.get("file_spec"), dict) else {}
    own = str(said.get("spec")) if said.get("used") else spec
    trained = info.get("trained_on")
    trained = [trained] if isinstance(trained, str) else list(trained or [])
    return own if any(without_link_options(own) == without_link_options(str(x)) for x in trained) else None


def across_topologies(info: dict) -> bool:
    """Whether a learned result's checkpoint was trained across several topologies (the universal one, or one of
    one's own trained so), and so meant for topologies it never saw (`core.rl.checkpoint.find_checkpoint`'s default
    on any topology without its own), unlike a checkpoint of one topology borrowed for another."""
    specs = info.get("trained_on")
    return isinstance(specs, (list, tuple)) and len(set(map(str, specs))) > 1


def trained_on_text(specs) -> str:
    """What a checkpoint was trained on, short: one spec, or how many topologies of which families."""
    if not specs:
        return "another topology"
    if isinstance(specs, str):
        return specs
    specs = [str(s) for s in specs]
    if len(specs) == 1:
        return specs[0]
    families = sorted({s.split(":", 1)[0] for s in specs})
    return f"{len(specs)} other topologies ({', '.join(families)})"


def choice_note(info: dict, dag: WorkloadDAG | None) -> str | None:
    """What a method that chooses its DAG (time-aware: every routing's merged trees and four rings, by time) chose,
    as the CLI's header and bound line say it: the candidate, chunks per shard, merging; None for other methods."""
    if "dag" not in info or "planned_time_s" not in info or dag is None:
        return None
    return (f"chose {info['dag']}: {dag.chunks} chunk{'s' if dag.chunks > 1 else ''} per shard, merging "
            f"{'on' if dag.merge else 'off'}")


def pieces_note(dag: WorkloadDAG | None, chunks: int, others: bool = True) -> str | None:
    """Where a result's DAG cuts each shard into more pieces than the options' `chunks` (time-aware's rings both ways
    double them): its rounds move smaller pieces than the others' and are not comparable with theirs; else None.
    `others`: whether other methods are shown beside it (alone, trial 23 read "the others' move whole shards")."""
    if dag is None or dag.chunks == chunks:
        return None
    whole = "whole shards" if chunks == 1 else f"pieces of 1/{chunks} shard"
    piece = "half-size pieces" if dag.chunks == 2 * chunks else f"pieces of 1/{dag.chunks} shard"
    if not others:
        return f"its rounds move {piece}, not {whole}"
    return f"its rounds move {piece} (the others' move {whole}): not comparable with theirs"


def result_notes(method: str, info: dict, spec: str, time_limit: float | None = None,
                 shortest: tuple[str, int] | None = None) -> list[str]:
    """Every note that applies to one result (optimality, checkpoint, rl-sample's samples and opening; `shortest`:
    `optimal_note`'s)."""
    return [n for n in (optimal_note(info, time_limit, shortest), checkpoint_note(info, spec), sampling_note(info))
            if n]


def seconds(value: float, signed: bool = False, unit: tuple[str, float] | None = None) -> str:
    """A duration as read on screen (``12.3 ms``), in its own unit or in `unit` (`shared_unit`'s, beside other
    methods' times); `signed` adds + or − (a time lost may be negative)."""
    text = format_seconds(abs(float(value)), unit)
    return (("−" if value < 0 else "+") + text) if signed else text


def shared_unit(seconds: Iterable[float]) -> tuple[str, float]:
    """The one unit of times shown side by side for several methods (the player's metrics and captions, its seconds
    axis and columns, the heatmap CSV's column names): the unit `core.units.time_unit` picks for the largest of them.

    The largest, not the smallest: the seconds axis runs to the latest finish and is already in its unit, so every
    number reads on the axis as it is; and the others then show as decimals with their 3 significant digits (0.996
    beside 1.12 µs), where the smallest's unit would give the largest more digits than a metric's box holds at three
    methods (1120 ns; 1,120,000 beside a time in ps). Each time in its own unit put ns beside µs on one screen
    (issue 12).
    Which values count, and as what (NaN not, a negative as its size), is `core.units.magnitudes`' rule, the one
    `time_unit` applies; none: `time_unit`'s default (ms)."""
    return units.time_unit([max(units.magnitudes(seconds), default=math.nan)])


def shared_rate_unit(bytes_per_second: Iterable[float]) -> tuple[str, float]:
    """The one unit (name, bytes per second) of rates shown side by side for several methods (the player's busbw
    cards, and the algbw in their help): the largest of `core.units.RATE_UNITS` in which every one reads at least 1,
    so that each keeps its 3 significant digits at `core.units.rate_in`'s two decimals (at 20 KB on BCube(3,1)
    PS's 709.85 MB/s beside Ring's 1020.41, not 0.71 beside 1.02 GB/s); B/s below 1 KB/s. Each card took its own
    unit (`core.units.rate_unit`, which the largest rate decides), so GB/s sat beside MB/s. Which values count is
    `core.units.magnitudes`' rule; 0 does not (no unit shows it as 1 or more); none: GB/s."""
    smallest = min((x for x in units.magnitudes(bytes_per_second) if x > 0), default=math.inf)
    return next(((name, f) for name, f in units.RATE_UNITS if smallest >= f), units.RATE_UNITS[-1])


def size(n_bytes: float) -> str:
    """A message size as read on screen (``100 MB``)."""
    return format_size(n_bytes)


BOUND_NAMES = {"bandwidth": "bandwidth", "link": "busiest link", "latency": "latency", "critical_path": "critical path"}
"""The four bounds in seconds; a sync best bound may also be "rounds" (named by `time_gap_note`)."""


def time_gap_note(bounds: dict, sync_rounds: dict | None = None) -> str:
    """What a gap in seconds is measured against: the best of the four lower bounds in seconds, each named, and in
    sync the rounds bound (`sync_rounds`: rounds x the shortest workload, core.seconds.sync_rounds_bound)."""
    parts = [f"{BOUND_NAMES[k]} {seconds(bounds[k])}" for k in BOUND_NAMES if k in bounds]
    values = {BOUND_NAMES[k]: bounds[k] for k in BOUND_NAMES if k in bounds}
    if sync_rounds is not None:
        parts.append(f"sync rounds {sync_rounds['rounds']} x {seconds(sync_rounds['round_s'])} = "
                     f"{seconds(sync_rounds['bound_s'])}")
        values["sync rounds"] = sync_rounds["bound_s"]
    # which sets it, as the rounds axis's help says (trial 33); values that print alike may differ past 3 digits
    top = max(values.values(), default=None)
    setting = [f"the {name}" for name, value in values.items() if value == top]
    said = f" (set by {and_list(setting)})" if setting else ""
    return f"gap vs the best lower bound in seconds{said}: " + ", ".join(parts)


def replan_notes(summary: dict, unit: tuple[str, float] | None = None) -> list[str]:
    """A re-planned run in words: failure-free time, when it changed and resumed, what was re-sent or re-routed;
    the times in `unit` (`shared_unit`'s, beside other methods'), else each in its own."""
    at, resume = summary["at_s"], summary["resume_s"]
    notes = [f"failure-free {seconds(summary['failure_free_s'], unit=unit)}"]
    if at > 0:
        notes.append(f"changed at {seconds(at, unit=unit)}"
                     + (f", resumed at {seconds(resume, unit=unit)}" if resume > at else ""))
        notes.append(f"{summary['finished']} of {summary['workloads']} workloads done by then")
    else:
        notes.append("changed before the run")
    notes += [f"{summary['resent']} re-sent", f"{summary['rerouted']} re-routed",
              f"rest: {summary['rest_workloads']} workloads in {summary['rest_rounds']} rounds",
              f"re-planned in {summary['replan_wall_s']:.2f} s"]
    return notes


def uneven_note(added: list[str], uneven: str, gone: list[str] = (), by: str = "the CLI's compare",
                pick: str = "pick the methods in the sidebar") -> str:
    """The note of a page whose default methods `added` some (their titles: time-aware) because link bandwidths differ
    (`uneven`, `data.uneven_reason`'s words), in place of `gone` (titles) where the page shows only so many; `by`: who
    else adds them, `pick`: where the user changes the list. Compare's and the player's."""
    instead = f" in place of {' and '.join(gone)}" if gone else ""
    return (f"{' and '.join(added)} join{'' if len(added) > 1 else 's'} the default methods{instead}: link bandwidths "
            f"differ ({uneven}), and it plans by each link's speed, which rounds alone do not see (as {by} "
            f"add{'' if ' and ' in by else 's'} it); {pick}.")
