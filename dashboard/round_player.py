"""The round player: schedules side by side on ONE axis, stepped or played column by column.

Used by the Schedule player and by the last step of "How merging works". The axis is rounds, or
seconds (`Timeline.edges_s`: equal intervals of time shared by every method, so a column is the
same interval in each); with a link event the player plays each method's re-planned run, the
event marked on every heatmap. The column-dependent part is an ``st.fragment``: stepping reruns
only the fragment, which slices the per-column arrays `dashboard.data` computed once per method
and adds a few traces to the cached column-independent figure.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from functools import partial

import numpy as np
import streamlit as st

from core.methods import MethodUnavailable, get_method
from core.schedule import ScheduleConfig
from core.seconds import busbw_note, latency_line, size_line
from core.units import plain_number, rate_in, rate_unit, seconds_in
from core.timing.windows import time_edges
from core.topology import Topology

from . import charts, data, figures, labels, pagewidth
from .axisnames import MIN_ROW_FONT, Naming, unnamed_note
from .controls import is_slow, method_title, persistent, with_progress
from .playback import Playback
from .sources import (HEAT_LINK_ROWS, PLAYER_NETWORK_NODES, ROUNDS, TIME_COLUMNS, Source, Timeline, file_stem,
                      routing_tag)

SPEEDS = {"½": 2.0, "1": 1.0, "2": 0.5, "4": 0.25}
"""Play speeds (rounds per second) -> seconds between rounds."""


def speed_label(timeline: Timeline) -> str:
    """The speed control's label in the axis' own word: "Rounds per second" (a new user read "Columns per second" as
    a property of the heatmap, trial 19), "Time columns per second" on the seconds axis (its slider's word)."""
    return "Time columns per second" if timeline.seconds else "Rounds per second"
WIDTHS = {"page width": None, "820 px": 820}
"""Figure widths: "page width" (the default) is the page's main column as the browser reports it
(`pagewidth.page_width`), 820 px until it has; "820 px" fits a 1280-px window beside the sidebar. Either is a
fixed width in px (a fixed width spares the browser a resize on every round: 0.52 s against 0.83 s median per step
in one measurement at load 7, against "stretch"), and the figure is laid out for it: its node names placed and its
network panels as tall as that width needs (at 1920 px the 820-px default left half the page empty and the page
width drew ~160-px-tall drawings, trial 21)."""
ROW_MODES = ("auto", "every link", "link groups")
TREE_COLOURS = 8
"""Busy links are coloured by flow-tree up to this many trees (one legend entry each); by phase above."""


@dataclass(frozen=True, eq=False)
class View:
    """How the player draws a set of runs: network or group bars, heatmap rows, colours, legend, axis, event."""

    network: bool
    by_group: bool
    by_tree: bool
    edges: tuple[float, ...]
    legend: tuple[tuple, ...]
    width: int = figures.PLAYER_WIDTH_PX
    timeline: Timeline = ROUNDS
    axis: figures.AxisStyle = figures.ROUND_AXIS
    unit: tuple[str, float] = ("round", 1.0)
    """On the seconds axis: the unit shown and how many of it make a second."""
    marks: tuple = ()
    changed: tuple[tuple[int, ...], str] | None = None
    tag: str = ""
    """What the downloads' names (figure, schedule JSON, heatmap CSV, animation) say of the run: `run_tag`, made once
    per render."""


def load(source: Source, methods: list[str], config: ScheduleConfig, timeline: Timeline = ROUNDS) -> list[Playback]:
    """The chosen methods' schedules per round (re-planned after the timeline's event, if any); a method that
    cannot run is reported plainly and left out."""
    plays = []
    for method in methods:
        title = method_title(method)
        try:
            if is_slow(method):
                pb = with_progress(f"Scheduling {source.name} with {title}",
                                   partial(_playback_with_progress, source, method, config), config.time_limit)
            else:
                with st.spinner(f"Scheduling {source.name} with {title}"):
                    pb = data.playback(source, method, config)
            if timeline.event is not None:
                with st.spinner(f"Re-planning {title} after the change"):
                    pb = data.event_playback(source, method, config, timeline.event, timeline.mode)
        except MethodUnavailable as err:
            st.warning(f"{title} not available: {err}")
            continue
        except Exception as err:  # noqa: BLE001 - every failure is shown, the other methods still play
            st.error(f"{title} could not schedule {source.name}: {err}")
            continue
        plays.append(pb)
    return plays


def on_time_axis(source: Source, config: ScheduleConfig, plays: list[Playback], timeline: Timeline
                 ) -> tuple[Timeline, list[Playback]]:
    """The runs on common time columns: as many equal intervals as the longest schedule has rounds (within
    `TIME_COLUMNS`), over [0, the latest finish]."""
    end = max(data.run_end(source, pb.method, config, timeline) for pb in plays)
    n = int(np.clip(max(pb.n_rounds for pb in plays), *TIME_COLUMNS))
    timeline = replace(timeline, edges_s=tuple(time_edges(end, n).tolist()))
    return timeline, [data.played(source, pb.method, config, timeline) for pb in plays]


def _playback_with_progress(source: Source, method: str, config: ScheduleConfig, progress) -> Playback:
    return data.playback(source, method, config, progress)


def summary(plays: list[Playback], source: Source, config: ScheduleConfig, merged_bound: int | None = None,
            timeline: Timeline = ROUNDS, optimum: int | None = None, seed: bool = False) -> None:
    """Per method: rounds, gap to its own DAG's bound (said which) and link use; in seconds, the time, its gap to
    the best bound in seconds and busbw; with an event, the finish and the time lost against the failure-free run.
    On the rounds axis a method that plans by time (time-aware) shows its time and gap in time instead, its rounds
    in words. `optimum`: the rounds proven optimal for the merged trees, where known (How merging works): a
    merged-trees method at it reads "optimal", its gap to an unreachable bound beside. `seed`: a seeded method's card
    says its seed (`seed_note`; the Schedule player, whose sidebar sets it)."""
    if timeline.seconds and timeline.event is None:
        _latency_caption(plays, source, config)
    unit = ("round", 1.0)
    if timeline.seconds or timeline.event is not None:  # one unit for every method's times: the latest finish's
        unit = labels.shared_unit(data.run_end(source, pb.method, config, timeline) for pb in plays)
    times = _model_times(plays, source, config, timeline)
    rate = None
    if timeline.seconds and timeline.event is None:  # one rate unit for every method's busbw card
        reps = [data.seconds_report(source, pb.method, config)[timeline.mode] for pb in plays]
        rate = labels.shared_rate_unit(r[k] for r in reps for k in ("busbw_Bps", "algbw_Bps"))
    if times:  # the rounds axis beside time-aware: its time in the unit of every method's, as the line under them
        unit = labels.shared_unit(times.values())
    for col, pb in zip(st.columns(len(plays)), plays):
        with col:
            st.markdown(f"##### {method_title(pb.method)}")
            slots = metric_slots(len(plays))
            after = tuple(seed_note(pb.method, config)) if seed else ()
            if timeline.event is not None:
                _event_metrics(pb, source, config, timeline, slots, unit, after)
            elif timeline.seconds:
                _seconds_metrics(pb, source, config, timeline.mode, slots, unit, len(plays) > 1, after, rate)
            elif plans_by_time(pb):
                _time_aware_metrics(pb, source, config, slots, timeline.mode, unit, len(plays) > 1, after)
            else:
                _round_metrics(pb, source, config, slots, optimum, after)
    if rate is not None:
        st.caption(units_line(unit, rate))
    if times:
        _times_caption(plays, times, config, timeline.mode, unit)
    if merged_bound is not None and timeline.event is None and not timeline.seconds:
        if line := merged_bound_line(plays, merged_bound):
            st.caption(line)


def units_line(unit: tuple[str, float], rate: tuple[str, float]) -> str:
    """Under the seconds axis's cards: their times and rates are each in one unit for the page (`labels.shared_unit`,
    `labels.shared_rate_unit`), where the CLI's ``schedule`` picks its units for its one method, so a method's figures
    may read in another unit there."""
    return (f"One unit for the page: every card's times in {unit[0]}, busbw in {rate[0]} (the CLI's schedule picks "
            "them for its one method).")


def merged_bound_line(plays: list[Playback], bound: int) -> str | None:
    """The merged workload DAG's bound, the common reference of the shown methods that schedule merged trees, and
    which shown methods schedule other DAGs; None when no shown method schedules merged trees (trial 23: time-aware
    alone, on the ring, read "the common reference of every method that schedules merged trees")."""
    merged = labels.DAG_NAMES["tree"]
    if not any(labels.dag_name(pb.method, pb.dag) == merged for pb in plays):
        return None
    line = (f"Lower bound of the merged workload DAG: **{bound} rounds** — the common reference of every method that "
            "schedules merged trees.")
    other = [(method_title(pb.method), labels.dag_name(pb.method, pb.dag)) for pb in plays
             if labels.dag_name(pb.method, pb.dag) != merged]
    if other:
        many = len(other) > 1
        dags = list(dict.fromkeys(d for _, d in other))  # "(the ring)" once where two schedule it (trial 28)
        line += (f" {' and '.join(t for t, _ in other)} schedule{'' if many else 's'} "
                 f"{'another DAG' if len(dags) == 1 else 'other DAGs'} ({', '.join(dags)}): "
                 + ("each gap is against its own DAG's bound." if many else "its gap is against that DAG's bound."))
    return line


def plans_by_time(pb: Playback) -> bool:
    """Whether a method chose its DAG by time in the model (time-aware): its rounds are not the figure to compare."""
    return labels.choice_note(pb.info, pb.dag) is not None


def _model_times(plays: list[Playback], source: Source, config: ScheduleConfig, timeline: Timeline) -> dict[str, float]:
    """On the rounds axis without an event, beside a method that plans by time: every method's time in the model
    (s, by method); else nothing."""
    if timeline.seconds or timeline.event is not None or not any(plans_by_time(pb) for pb in plays):
        return {}
    return {pb.method: data.seconds_report(source, pb.method, config)[timeline.mode]["time_s"] for pb in plays}


def metric_slots(n_methods: int) -> tuple:
    """Where a method's three metrics go: one row when it shares the width with at most one other method (a
    method's column is ~400 px at 1280), two to a row when three share it (a third of 820 px holds two
    metrics of ~120 px; three cut their labels and values: "Time (m…", "18…")."""
    if n_methods <= 2:
        return tuple(st.columns(3))
    first, second = st.columns(2), st.columns(2)
    return first[0], first[1], second[0]


def _round_metrics(pb: Playback, source: Source, config: ScheduleConfig, slots: tuple,
                   optimum: int | None = None, after: tuple[str, ...] = ()) -> None:
    s = pb.stats
    a, b, c = slots
    a.metric("Rounds", s["rounds"], help=f"{s['workloads']} workloads in its DAG")
    if optimum is not None and s["rounds"] == optimum and s["gap"] > 0 and \
            labels.dag_name(pb.method, pb.dag) == labels.dag_name("optimal"):
        # a gap to a bound no schedule reaches read as "one round could be saved" (trial 22)
        # no delta: "20% to bound 5" beside the caption's bound and the optimum's line said one fact thrice (trial 23)
        b.metric("Gap", "optimal", help=f"{optimum} rounds is proven optimal (CP-SAT) for the merged trees: no "
                 f"schedule reaches the lower bound {s['lower_bound']}, so the {labels.percent(s['gap'])} gap to it "
                 "is the bound's, not the schedule's. " + labels.gap_note(pb.method, s, pb.dag))
    else:
        b.metric("Gap", labels.percent(s["gap"]), help=labels.gap_note(pb.method, s, pb.dag))
    c.metric("Util.", f"{100 * s['mean_utilization']:.0f}%",
             help="mean share of directed-link capacity used, over working links (failed ones left out) and rounds")
    _notes_caption([f"vs bound {s['lower_bound']} ({labels.dag_name(pb.method, pb.dag)})", *after], pb, source, config)


def _notes_caption(notes: list[str], pb: Playback, source: Source, config: ScheduleConfig) -> None:
    """A card's small text: `notes`, then the result's own (`labels.card_notes`: an RL checkpoint briefly, its full
    note behind the caption's help icon, which the text points to)."""
    more, details = labels.card_notes(pb.method, pb.info, source.spec, config.time_limit)
    st.caption(" · ".join(notes + more), help=details)


def seed_note(method: str, config: ScheduleConfig) -> list[str]:
    """``seed 0`` for a method whose result depends on the seed (`Method.seeded`, the rule of the CLI's header):
    the player's PS read 23 rounds where Compare read 25.2, the mean of 5 seeds, and neither card nor CLI said which
    seed ran (trial 27)."""
    return [f"seed {config.seed}"] if get_method(method).seeded else []


def _time_metrics(pb: Playback, rep: dict, config: ScheduleConfig, mode: str, slots: tuple,
                  unit: tuple[str, float], gap_label: str = "Gap") -> None:
    """A method's time in the model and its gap to the best bound in seconds, in the first two slots."""
    m, bounds = rep[mode], rep["bounds"]
    a, b = slots[:2]
    own = labels.seconds(m["time_s"])  # in its own unit, where the metric's (every method's) is another
    a.metric(f"Time ({unit[0]})", seconds_in(m["time_s"], unit[1], zeros=True), help=f"{mode} replay of {pb.stats['rounds']} "
             f"rounds, message {labels.size(config.size)}"
             + ("" if own == labels.seconds(m["time_s"], unit=unit) else f": {own}"))
    rounds = rep.get("sync_rounds") if mode == "sync" else None  # sync's rounds bound (core.seconds.mode_gaps)
    b.metric(gap_label, labels.percent(m["gap"]["best"]), help=labels.time_gap_note(bounds, rounds))


def bound_note(rep: dict, mode: str, unit: tuple[str, float]) -> str:
    """What a gap in time is measured against, on a card: ``vs bound 7.93 ms (bandwidth)``, in `unit`."""
    m = rep[mode]
    best = m.get("best_bound", "best")  # sync may be bound by its rounds (core.seconds.mode_gaps)
    return (f"vs bound {labels.seconds(m.get('best_bound_s', rep['bounds']['best']), unit=unit)} "
            f"({labels.BOUND_NAMES.get(best, best.replace('_', ' '))})")


def _time_aware_metrics(pb: Playback, source: Source, config: ScheduleConfig, slots: tuple, mode: str,
                        unit: tuple[str, float], others: bool = True, after: tuple[str, ...] = ()) -> None:
    """On the rounds axis, a method that plans by time (time-aware): its time and gap in time large, the figures to
    compare it on; its rounds, and what their gap means, in words (DCell(6,1): "Gap 0%", "Util. 100%" drawn large
    while its 7.97 ms against RL's 11.5 ms was grey caption text, trial 22). The gap's bound in time is named as
    the other cards name theirs; the replay and size are said once: in the line under the cards beside `others`
    (other methods shown), else here (trial 23 read them in both)."""
    s = pb.stats
    rep = data.seconds_report(source, pb.method, config)
    _time_metrics(pb, rep, config, mode, slots, unit, "Gap in time")
    rounds = (f"{s['rounds']} rounds, {labels.percent(s['gap'])} over its own DAG's bound {s['lower_bound']} "
              f"({labels.dag_name(pb.method, pb.dag)})")
    if pieces := labels.pieces_note(pb.dag, config.chunks, others):
        rounds += f": {pieces}"
    plans = "it plans by time, not rounds" if others else \
        f"{mode} replay of {labels.size(config.size)}: it plans by time, not rounds"
    notes = [bound_note(rep, mode, unit), plans, labels.choice_note(pb.info, pb.dag), rounds]
    _notes_caption([*notes, *after], pb, source, config)


def _times_caption(plays: list[Playback], times: dict[str, float], config: ScheduleConfig, mode: str,
                   unit: tuple[str, float]) -> None:
    """On the rounds axis beside a method that plans by time (time-aware), whose card shows its time: one line of
    the other methods' time in the model, in the same unit: its rounds may be of smaller pieces and fewest rounds
    need not be fastest (DCell(6,1): time-aware's 82 rounds, RL's 60, but 7.97 ms against 11.5 ms; trial 21). Its
    own time is in its card only (twice, card and line, in trial 22)."""
    by_time = [pb for pb in plays if plans_by_time(pb)]
    others = sorted((times[pb.method], method_title(pb.method)) for pb in plays if not plans_by_time(pb))
    if not others:
        return
    st.caption(f"The others' time for {labels.size(config.size)} ({mode} replay), to compare with "
               f"{' and '.join(method_title(pb.method) for pb in by_time)}'s above: "
               + ", ".join(f"{title} {labels.seconds(t, unit=unit)}" for t, title in others)
               + ". Rounds count steps, not time: the seconds axis plays every method by time.")


def _latency_caption(plays: list[Playback], source: Source, config: ScheduleConfig) -> None:
    """Once above the methods (not under each): what sets their time, the note of those whose time is
    latency-dominated and of the others, bandwidth-dominated or both (core.seconds; trial 32: at 1 GB nothing said),
    and why a busbw reads above a link's speed where one does (trial 33: 18.75 GB/s on links of 12.5, unexplained)."""
    named = [(method_title(pb.method), data.seconds_report(source, pb.method, config)) for pb in plays]
    busbw = next(filter(None, (busbw_note(r) for _, r in named)), None)  # once, as the CLI says it (trial 33)
    for line in (latency_line(named), size_line(named), busbw and busbw + "."):
        if line:
            st.caption(line)


def _seconds_metrics(pb: Playback, source: Source, config: ScheduleConfig, mode: str, slots: tuple,
                     unit: tuple[str, float], others: bool = True, after: tuple[str, ...] = (),
                     rate: tuple[str, float] | None = None) -> None:
    """A method's time, gap and busbw; its times in `unit`, the one every method's share (`labels.shared_unit`), its
    rates in `rate`, the one every method's share (`labels.shared_rate_unit`; None: its own, `core.units.rate_unit`)."""
    rep = data.seconds_report(source, pb.method, config)
    m = rep[mode]
    c = slots[2]
    _time_metrics(pb, rep, config, mode, slots, unit)
    r_unit, r_per = rate or rate_unit([m["busbw_Bps"], m["algbw_Bps"]])  # KB/s at 1 B, not 0.0 GB/s
    c.metric(f"busbw ({r_unit})", rate_in(m["busbw_Bps"], r_per), help=f"bus bandwidth in {r_unit} (nccl-tests: "
             f"algbw · 2(n−1)/n); algbw {rate_in(m['algbw_Bps'], r_per)} {r_unit}")  # the CLI's text (core.units)
    notes = [bound_note(rep, mode, unit), f"{pb.stats['rounds']} rounds"]
    notes += [n for n in (labels.choice_note(pb.info, pb.dag), labels.pieces_note(pb.dag, config.chunks, others))
              if n]
    _notes_caption([*notes, *after], pb, source, config)


def _event_metrics(pb: Playback, source: Source, config: ScheduleConfig, timeline: Timeline, slots: tuple,
                   unit: tuple[str, float], after: tuple[str, ...] = ()) -> None:
    """A method's rounds, end and time lost with the change; its times in `unit`, every method's
    (`labels.shared_unit`)."""
    r = data.replanned(source, pb.method, config, timeline.event, timeline.mode).summary()
    a, b, c = slots
    whole = data.event_playback(source, pb.method, config, timeline.event, timeline.mode).n_rounds
    a.metric("Rounds", whole, help="rounds of the whole run: the delivered part of the planned rounds, then the "
                                   f"re-planned rest ({r['rest_rounds']} rounds)")
    b.metric(f"End ({unit[0]})", seconds_in(r["finish_s"], unit[1], zeros=True), help=f"{timeline.mode} replay with the change: "
             f"{labels.seconds(r['finish_s'])}; failure-free {labels.seconds(r['failure_free_s'])}")
    c.metric(f"Lost ({unit[0]})", ("+" if r["lost_s"] >= 0 else "") + seconds_in(r["lost_s"], unit[1], 2, zeros=True),
             f"{100 * r['lost_share']:+.0f}%", delta_color="inverse",
             help="finish with the change − finish of the same schedule without it (core.replan): "
                  f"{labels.seconds(r['lost_s'], signed=True)}")
    st.caption(" · ".join([*labels.replan_notes(r, unit), *after]))


def view_of(source: Source, plays: list[Playback], mode: str = "auto", width: int = figures.PLAYER_WIDTH_PX,
            timeline: Timeline = ROUNDS, config: ScheduleConfig | None = None, what: str = "") -> View:
    """How to draw: heatmap rows per link or per group (`mode`), network or group bars, colours, legend, the axis
    (rounds or seconds) and the timeline's event (`what`: the event in words)."""
    t = data.topology(source)
    by_group = mode == "link groups" or (mode == "auto" and t.n_links > HEAT_LINK_ROWS)
    network = t.n_nodes <= PLAYER_NETWORK_NODES
    n_trees = max(pb.dag.n_trees for pb in plays)
    by_tree = n_trees <= TREE_COLOURS
    legend: list[tuple] = []
    if network:
        legend.append(("server", figures.SERVER_COLOUR, "circle"))
        if len(t.switches):  # the kinds drawn only: Fig. 3's four hosts have no switch (trial 21)
            legend.append(("switch", figures.SWITCH_COLOUR, "square"))
        if by_tree:
            roots = plays[0].dag.tree_root
            legend += [(f"tree of {t.labels[int(roots[i])]}", figures.tree_colour(i), "triangle-right")  # by root:
                       for i in sorted(range(n_trees), key=lambda i: int(roots[i]))]  # a ring's began at gpu7
        else:
            legend += [("reduce", figures.PHASE_COLOURS[0], "triangle-right"),
                       ("broadcast", figures.PHASE_COLOURS[1], "triangle-right")]
        legend += figures.link_legend(data.drawing(source))
    last = max(pb.n_rounds for pb in plays)
    if timeline.seconds:
        unit = labels.shared_unit(timeline.edges_s)  # the latest finish's, as the metrics' above
        edges = tuple((np.asarray(timeline.edges_s) * unit[1]).tolist())
        axis = figures.time_axis(unit[0], edge_digits(edges))
    else:
        unit, edges, axis = ("round", 1.0), tuple(figures.round_edges(last).tolist()), figures.ROUND_AXIS
    marks, changed = (), None
    event = timeline.event
    if event is not None:
        changed = (tuple(event.failed) + tuple(e for e, _ in event.slowed), what or "changed link")
        if event.at_s != 0:  # a change before the run has no moment to mark: the whole run is re-planned
            marks = tuple(_mark(source, pb, config or ScheduleConfig(), timeline, unit[1]) for pb in plays)
    tag = run_tag(config or ScheduleConfig(), timeline, t)
    return View(network, by_group, by_tree, edges, tuple(legend), width, timeline, axis, unit, marks, changed, tag)


def _mark(source: Source, pb: Playback, config: ScheduleConfig, timeline: Timeline, factor: float) -> tuple:
    """Where a method's heatmap marks the event: its moment and the resume (seconds), or the round boundary."""
    r = data.replanned(source, pb.method, config, timeline.event, timeline.mode)
    if timeline.seconds:
        return ((r.at_s * factor, r.resume_s * factor, "change"),)
    done = len(data.replanned_run(source, pb.method, config, timeline.event, timeline.mode)[1]) - r.rest.n_rounds
    return ((done + 0.5, done + 0.5, "change"),)


def show(key: str, source: Source, config: ScheduleConfig, plays: list[Playback], show_workloads: bool = False,
         timeline: Timeline = ROUNDS, what: str = "") -> View:
    """Round controls (first / back / play-pause / next / column slider), view and speed controls, and the figure.
    Another topology starts at round 1, stopped: its round 7 is not the last one's (trial 11)."""
    shown = (source.spec, source.data)
    if st.session_state.get(f"{key}:source") != shown:
        st.session_state[f"{key}:source"] = shown
        st.session_state[f"{key}:round"] = 1
        st.session_state[f"{key}:playing"] = False
    page = pagewidth.page_width(f"{key}:page-width")
    left, middle, right = st.columns([1.25, 1, 1])
    with left:
        mode = persistent(st.segmented_control, f"{key}.rows", "auto", "Heatmap rows", ROW_MODES,
                          help=f"auto: one row per directed link up to {HEAT_LINK_ROWS} links, else one row per "
                               "link group (BCube level, DCell copy, fat-tree pod, link kind): its mean utilization")
    with middle:
        speed = persistent(st.segmented_control, f"{key}.speed", "1", speed_label(timeline), list(SPEEDS),
                           help="play speed: how many " + ("time columns (intervals of time)" if timeline.seconds
                                                           else "rounds") + " Play steps through each second") or "1"
    with right:
        width = persistent(st.segmented_control, f"{key}.width", "page width", "Figure width", list(WIDTHS),
                           help="page width: as wide as the page, the drawings as tall as that width needs; 820 px "
                                "fits a 1280-px window (where the page is about 820 px wide: both look the "
                                "same)") or "page width"
    view = view_of(source, plays, mode or "auto", figure_width(WIDTHS[width], page), timeline, config, what)
    playing = bool(st.session_state.get(f"{key}:playing", False))
    body = st.fragment(run_every=SPEEDS[speed] if playing else None)(_player)
    body(key, source, config, tuple(plays), view, show_workloads)
    return view


def figure_width(chosen: int | None, page: int | None) -> int:
    """The player figure's width in px: `chosen` (a fixed width), else the page's (`page`, as the browser reported
    it), else `figures.PLAYER_WIDTH_PX` (until the browser has reported)."""
    return int(chosen or page or figures.PLAYER_WIDTH_PX)


def _set_round(round_key: str, value: int) -> None:
    st.session_state[round_key] = value


def _step(round_key: str, delta: int, last: int) -> None:
    st.session_state[round_key] = min(last, max(1, int(st.session_state.get(round_key, 1)) + delta))


def _player(key: str, source: Source, config: ScheduleConfig, plays: tuple[Playback, ...], view: View,
            show_workloads: bool) -> None:
    last = max(pb.n_rounds for pb in plays)
    round_key, play_key = f"{key}:round", f"{key}:playing"
    r = min(last, max(1, int(st.session_state.get(round_key, 1))))
    if st.session_state.get(play_key):
        if r >= last:
            st.session_state[play_key] = False
            st.rerun()
        r += 1
    st.session_state[round_key] = r
    playing = bool(st.session_state.get(play_key))
    cols = st.columns([1, 1, 1.1, 1, 2.4], vertical_alignment="center")
    # No tooltips on these: their labels say it, and after a click a tooltip stayed over the speed control above
    cols[0].button("First", icon=":material/first_page:", key=f"{key}:first", on_click=_set_round,
                   args=(round_key, 1), width="stretch")
    cols[1].button("Back", icon=":material/chevron_left:", key=f"{key}:back", on_click=_step,
                   args=(round_key, -1, last), width="stretch")
    if cols[2].button("Pause" if playing else "Play", icon=":material/pause:" if playing else ":material/play_arrow:",
                      key=f"{key}:play", width="stretch", type="primary"):
        st.session_state[play_key] = not playing
        if not playing and r >= last:
            st.session_state[round_key] = 1
        st.rerun()
    cols[3].button("Next", icon=":material/chevron_right:", key=f"{key}:next", on_click=_step,
                   args=(round_key, 1, last), width="stretch")
    seconds = view.timeline.seconds
    span = _span(view, st.session_state[round_key])
    cols[4].markdown(f"**Column {st.session_state[round_key]} of {last}: {span}**" if seconds
                     else f"**Round {st.session_state[round_key]} of {last}**")
    st.slider("Time column" if seconds else "Round", 1, max(2, last), key=round_key, label_visibility="collapsed",
              disabled=last < 2)
    r = int(st.session_state[round_key])
    link_names = data.link_labels(source)
    g = data.groups(source)
    panels = []
    for col, pb in zip(st.columns(len(plays)), plays):
        rv = pb.round(r - 1)
        with col:
            _caption(pb, rv.n_workloads, rv.n_links_busy, r, view)
        panels.append(_panel(pb, r, view, g, link_names))
    methods = tuple((pb.method, method_title(pb.method)) for pb in plays)
    base = data.player_base(source, methods, config, view.by_group, view.network, view.edges, view.legend,
                            view.timeline, view.axis, view.marks, view.changed, view.width)
    drawing = data.drawing(source) if view.network else None
    fig = figures.player_figure(base, drawing, panels, r, np.asarray(view.edges), data.group_names(source))
    name = f"{file_stem(source)}-{'column' if seconds else 'round'}{r}{view.tag}"
    charts.show(fig, f"{key}:figure", name, buttons=("resetScale2d",), theme=None, width=view.width)
    meta = base["layout"].get("meta", {})
    rows = Naming(meta.get("row_stride", 1), MIN_ROW_FONT, meta.get("row_both_ways", False))
    st.caption(_legend_text(view, meta.get("unnamed", 0), rows, meta.get("row_pair"), meta.get("group_stride", 1),
                            meta.get("beside", False)))
    if show_workloads:
        for col, pb in zip(st.columns(len(plays)), plays):
            with col:
                _workload_list(pb, r)


def _span(view: View, r: int) -> str:
    """The time interval of column r in the view's unit (seconds axis)."""
    if not view.timeline.seconds:
        return f"round {r}"
    e, digits = view.edges, edge_digits(view.edges)
    return f"{plain_number(e[r - 1], digits, True)}–{plain_number(e[r], digits, True)} {view.unit[0]}"


def edge_digits(edges: tuple[float, ...]) -> int:
    """The significant digits the seconds axis's column edges are written with: the cards' 3 (`core.units`'
    rule: the last edge, the latest finish, reads as that method's Time card does, 80.0 ms, not 80.02), or more where
    3 would write two edges alike (150 columns over 120 ms: 102.4 and 102.8 both "102")."""
    for digits in range(3, 12):
        if len({plain_number(x, digits, True) for x in edges}) == len(set(edges)):
            return digits
    return 12


def _legend_text(view: View, unnamed: int = 0, rows: Naming = Naming(1, MIN_ROW_FONT), pair: str | None = None,
                 group_stride: int = 1, beside: bool = False) -> str:
    """What the figure shows, in words, under it; `unnamed`: how many nodes of a network panel have no room for their
    name (`figures.name_offsets`); `rows`: which heatmap rows are named (`axisnames.naming`; `pair`: a name of a
    link both ways, the example); `group_stride`: every how many link groups the bars name; `beside`: each network
    panel is left of its heatmap (`figures.beside_panel_px`), not above the heatmaps."""
    unit = "time column" if view.timeline.seconds else "round"
    what = ("each directed link busy in this " + unit + " is drawn beside its cable with arrows in its direction, "
            "coloured by " + ("flow-tree" if view.by_tree else "phase (reduce / broadcast)")
            + "; cables are as thick as their bandwidth") if view.network else \
        f"each link group's mean use in this {unit} (the topology is too big to draw link by link)"
    row_kind = "link group (mean of its links)" if view.by_group else "directed link"
    if view.timeline.seconds:
        column = labels.seconds(view.edges[1] / view.unit[1], unit=view.unit)  # the cards' 3 digits: 7.00 ms
        below = (f"the share of each time column ({column}) every {row_kind} "
                 f"spends transferring, in the {view.timeline.mode} replay; all methods share one time axis, so a "
                 "column is the same interval in each and a method that finishes sooner ends sooner")
    else:
        below = (f"utilization of every {row_kind} (rows) in every round (columns); all methods share the round axis, "
                 "so a column is the same round in each")
    first, then = ("Left", "Right") if beside else ("Top", "Below")
    text = (f"{first}: {what}. {then}: {below}. One colour scale, idle cells grey (the bar's \"idle\" band); the red box "
            f"marks this {unit}.")
    if unnamed:
        text += (f" {unnamed} node name{'s have' if unnamed > 1 else ' has'} no room in a panel this narrow: hover a "
                 "node for its name.")
    if rows.stride > 1:
        text += (" The heatmaps have no room to name every row: "
                 + unnamed_note(rows, row_kind.split(" (")[0], "on the left", pair) + ".")
    if group_stride > 1:
        text += " The bars have no room to name every group: " + unnamed_note(
            Naming(group_stride, MIN_ROW_FONT), "link group", "on the left") + "."
    if view.changed:
        text += (f" Pink dashed: {view.changed[1]}" + ("; the dashed red line marks the change on each heatmap"
                 + (", shaded while the transfers in flight drain" if view.timeline.seconds else "")
                 if view.marks else "") + ".")
    return text


def _panel(pb: Playback, r: int, view: View, groups, link_names: tuple[str, ...]) -> figures.PlayerPanel:
    """What one method shows in round r: its busy links (network view) or its link groups' use."""
    rv = pb.round(r - 1)
    if view.network:
        hover = [f"{link_names[link]}: {pb.dag.describe(w)}" for link, w in zip(rv.links.tolist(), rv.workloads.tolist())]
        return figures.PlayerPanel(rv.links, figures.busy_colours(rv.trees, rv.phases, view.by_tree), hover, pb.n_rounds)
    util = (groups.utilization(pb.util_pct[:, r - 1:r].astype(float))[:, 0] if r <= pb.n_rounds
            else np.zeros(len(groups.names)))
    return figures.PlayerPanel(rv.links, [], [], pb.n_rounds, group_util=util)


def _busy(pb: Playback, n_busy: int) -> str:
    """'12 of 14 working directed links busy (2 failed)', or '12 of 16 directed links busy' with none failed."""
    failed = pb.n_failed_links
    if not failed:
        return f"{n_busy} of {pb.n_links} directed links busy"
    return f"{n_busy} of {pb.n_links - failed} working directed links busy ({failed} failed)"


def _caption(pb: Playback, n_workloads: int, n_busy: int, r: int, view: View) -> None:
    """A method's name and what it sends in round r (or transfers during time column r)."""
    title = method_title(pb.method)
    if view.timeline.seconds:
        end = labels.seconds(pb.end_s, unit=view.unit)  # as its Time card reads it: 80.0 ms, not 80.02
        # the column's interval is the header's, the same for every method: said once there
        st.markdown(end_headline(title, end, r > pb.n_rounds))
        st.caption(f"{n_workloads} workloads in flight · {_busy(pb, n_busy)}" if r <= pb.n_rounds
                   else "nothing left to send")
        return
    if r <= pb.n_rounds:
        st.markdown(f"**{title}**: round {r} of {pb.n_rounds}")
        st.caption(f"{n_workloads} workloads sent · {_busy(pb, n_busy)}")
    else:
        st.markdown(f"**{title}**: finished after {pb.n_rounds} rounds")
        st.caption("nothing left to send")


END_HEADLINE_CHARS = 38
"""The most characters a method's line over its heatmap on the seconds axis may have (`end_headline`): at 1280 px a
third of the page (263 px) held every registered method's "ends at 0.996 µs" and "ended at 0.996 µs" on one line (up
to 38 characters, "RL, best of samples: ended at 0.996 µs"); "Time-aware (HEFT): finished at 0.996 µs" (39) wrapped
(measured in Chromium). "Hierarchical RL: sending, ends at 24.1 µs" had wrapped before its unit."""
NBSP = "\u00a0"


def end_headline(title: str, end: str, finished: bool) -> str:
    """A method's line over its heatmap on the seconds axis: its end (``**Ring AllReduce**: ends at 32.1 µs``, or
    ``ended at`` once past it), the number and its unit joined by a no-break space, so that a line too long for its
    column never leaves its unit alone on the next line."""
    return f"**{title}**: {'ended' if finished else 'ends'} at {end.replace(' ', NBSP)}"


def _workload_list(pb: Playback, r: int) -> None:
    """The workloads a method sends in round r, with their paths, under a title saying so (trial 26: the two tables
    side by side had none)."""
    if r > pb.n_rounds:
        return
    import pandas as pd
    dag = pb.dag
    ids = sorted(set(pb.round(r - 1).workloads.tolist()))
    st.markdown(workload_list_title(pb.method, r, len(ids)))
    # what each carries, so that a student stepping through the rounds sees where pieces merged (trial 32)
    # (before the path, which the workload's name mostly repeats: a narrow column cut it last; trial 33)
    st.dataframe(pd.DataFrame({"workload": [dag.describe(w) for w in ids],
                               "carries": [labels.carries(dag, w, short=True) for w in ids],
                               "path": ["→".join(dag.topology.labels[v] for v in dag.path.row(w)) for w in ids]}),
                 hide_index=True, width="stretch")


def workload_list_title(method: str, r: int, n: int) -> str:
    """The title of a method's table of the workloads it sends in round r (`n` of them)."""
    return f"**{method_title(method)}, round {r}**: the {n} workload{'s' if n != 1 else ''} it sends"


def downloads(key: str, source: Source, plays: list[Playback], config: ScheduleConfig, view: View) -> None:
    """Per method: the schedule (JSON) and the heatmap data (CSV); for all: the animation (HTML), made on click. Every
    name carries the run's tag (`View.tag`, `run_tag`): the schedule's had only the routing (trial 22), so the files of
    one run did not share a name's end, though its content is the plan before any event, the same at any size."""
    stem = file_stem(source)
    at = view.tag
    for col, pb in zip(st.columns(len(plays)), plays):
        title = method_title(pb.method)
        col.download_button(f"{title}: schedule (JSON)", data=partial(data.schedule_json, source, pb.method, config),
                            file_name=f"{stem}-{pb.method}{at}.schedule.json", mime="application/json",
                            key=f"{key}:json:{pb.method}", on_click="ignore", width="stretch",
                            help="allreduce-schedule/1: topology, workloads, rounds, stats (as planned, before any "
                                 "link change; named by the run it comes from, as the other downloads)")
        col.download_button(f"{title}: heatmap (CSV)",
                            data=partial(data.heatmap_csv, source, pb.method, config, view.timeline),
                            file_name=f"{stem}-{pb.method}{at}.utilization.csv", mime="text/csv",
                            key=f"{key}:csv:{pb.method}", on_click="ignore", width="stretch",
                            help="the heatmap's numbers: percent per directed link and round (or time column)")
    methods = tuple(pb.method for pb in plays)
    st.download_button(f"Animation of all {'time columns' if view.timeline.seconds else 'rounds'} (HTML, for slides)",
                       data=partial(animation_html, source, methods, config, view),
                       file_name=f"{stem}-{'-'.join(methods)}{at}.animation.html", mime="text/html",
                       key=f"{key}:animation", on_click="ignore", icon=":material/movie:",
                       help="one self-contained file (plotly.js inside, works offline): the player with a Play "
                            "button and a slider over the rounds (or time columns)")


TAG_LINKS = 2
"""How many links a run tag names; past them it gives their count and a digest (`run_tag`)."""


def run_tag(config: ScheduleConfig, timeline: Timeline, topology: Topology) -> str:
    """What a download's name (schedule JSON, heatmap CSV, animation, a figure's PNG/SVG) says of the run beyond its
    topology and methods, short and file-name safe: the routing where it is not the default (`routing_tag`); on the
    rounds axis without a link event, nothing more (the numbers depend on neither size nor replay); on the seconds
    axis or with an event, the message size and the replay (``-1B-async``, ``-7KB-sync``), and the event: its
    change, links and moment (``-fail-s00-sw0.0-at0p5ms``, ``-slow-s00-sw0.0_s22-sw1.2x0p25-after3``,
    ``-fail-s00-sw0.0-before``), a slow-down with its factor, the new bandwidth over the link's before the event
    (`topology`'s): ``x0p25`` (one factor for every link, as the page sets it; else each link's,
    ``s00-sw0.0x0p25_s01-sw0.1x0p5``). Links are named as the user types them (`link_tag`, core's
    ``link_name``: they were ids, ``fail3``, where every other place names them); past `TAG_LINKS` links, their
    count and a digest of the whole change (``_2more.1a2b3c4d``). A decimal point of a number is ``p``, ``_`` only
    separates links. One size in sync and async, with and without an event, or at ×0.25 and ×0.5, had one name, so
    one download overwrote the other: two different runs still never share a name (a link's name has one hyphen and
    no ``_``; links past `TAG_LINKS` are told apart by the digest)."""
    routing = routing_tag(config)
    if not timeline.seconds and timeline.event is None:
        return routing
    tag = f"{routing}-{size_tag(config.size)}-{timeline.mode}"
    event = timeline.event
    if event is not None:
        if event.at_round is not None:
            moment = f"after{event.at_round}"
        elif event.at_s == 0:
            moment = "before"
        else:
            moment = f"at{_file_safe(seconds_in(event.at_s, 1e3))}ms"  # in ms, as the page's "At (ms)" takes it
        nominal = topology.bandwidth
        change = [f"fail-{_tag_links(topology, list(event.failed))}"] if event.failed else []
        if event.slowed:
            factors = [_file_safe(plain_number(bw / float(nominal[e]))) for e, bw in event.slowed]
            links = [e for e, _ in event.slowed]
            if len(set(factors)) == 1:
                change.append(f"slow-{_tag_links(topology, links)}x{factors[0]}")
            else:
                change.append("slow-" + _tag_links(topology, links, [f"x{f}" for f in factors]))
        tag += f"-{'-'.join(change)}-{moment}"
    return tag


def link_tag(topology: Topology, edge: int) -> str:
    """A link's name in a file name: core's (``s00-sw0.0``, `core.topology.degrade.link_name`), each end's label
    kept to ASCII letters, digits and ``.`` (so one hyphen, no ``_``); ``link3`` (its id) where that leaves a label
    empty or names two links of `topology` alike (labels that differ only in other characters)."""
    ends = [_label_tag(topology.labels[v]) for v in topology.edges[edge]]
    if all(ends) and _tags_distinct(topology):
        return "-".join(ends)
    return f"link{edge}"


def _label_tag(label: str) -> str:
    return "".join(c for c in str(label) if (c.isascii() and c.isalnum()) or c == ".")


def _tags_distinct(topology: Topology) -> bool:
    """Whether every link of `topology` keeps a name of its own once its labels are kept to file-name characters."""
    labels = [_label_tag(x) for x in topology.labels]
    return len(set(labels)) == len(labels)


def _tag_links(topology: Topology, edges: list[int], after: list[str] | None = None) -> str:
    """Links as a run tag names them: the first `TAG_LINKS` by `link_tag` (each followed by its `after`, a factor),
    joined by ``_``; past them, their count and a digest of every link and factor (ids), e.g. ``_2more.1a2b3c4d``."""
    after = after or [""] * len(edges)
    shown = [link_tag(topology, e) + a for e, a in zip(edges[:TAG_LINKS], after)]
    if len(edges) > TAG_LINKS:
        whole = "_".join(f"{e}{a}" for e, a in zip(edges, after))
        shown.append(f"{len(edges) - TAG_LINKS}more.{hashlib.sha1(whole.encode()).hexdigest()[:8]}")
    return "_".join(shown)


def _file_safe(text: str) -> str:
    """`text` without spaces, µ as u, its decimal point as ``p`` (``_`` separates links in a run tag), every other
    character not an ASCII letter or digit as ``_``."""
    text = text.replace(" ", "").replace("µ", "u").replace(".", "p")
    return "".join(c if c.isascii() and c.isalnum() else "_" for c in text)


def size_tag(n_bytes: float) -> str:
    """A message size for a file name, as read on screen without its space, its decimal point as ``p`` (safe in a
    file name, and no second suffix): ``1B``, ``7KB``, ``1p5MB``."""
    return _file_safe(labels.size(n_bytes))


ANIMATION_WIDTH = 1200
"""Width (px) of the downloaded animation, which its figure is laid out for."""


def animation_html(source: Source, methods: tuple[str, ...], config: ScheduleConfig, view: View) -> str:
    """The player over every column as one self-contained HTML page (plotly frames, plotly.js inlined)."""
    plays = [data.played(source, m, config, view.timeline) for m in methods]
    titles = tuple((m, method_title(m)) for m in methods)
    base = data.player_base(source, titles, config, view.by_group, view.network, view.edges, view.legend,
                            view.timeline, view.axis, view.marks, view.changed, ANIMATION_WIDTH)
    drawing = data.drawing(source) if view.network else None
    g = data.groups(source)
    link_names = data.link_labels(source)
    rounds = [[_panel(pb, r, view, g, link_names) for pb in plays] for r in range(1, len(view.edges))]
    fig = figures.player_animation(base, drawing, rounds, np.asarray(view.edges), data.group_names(source))
    fig.update_layout(title=dict(text=f"{source.name}: {', '.join(t for _, t in titles)}", x=0.01, y=0.995,
                                 yref="container", yanchor="top"), width=ANIMATION_WIDTH,
                      margin=dict(fig.layout.margin.to_plotly_json(), t=110))
    return fig.to_html(include_plotlyjs=True, full_html=True, auto_play=False)
