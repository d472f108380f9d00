"""Compare: every chosen method on the paper's nine Table 2 configurations, or on the topology in the sidebar."""

from __future__ import annotations

import html
from dataclasses import dataclass

import streamlit as st

from core.bounds import gap
from core.compare import (GAP_COLUMNS, NOT_PROVEN, MethodResult, Row, capitalized, csv_table, csv_text,
                          default_methods, latency_notes, optimum_scope, optional_column, other_dag_note,
                          other_dag_words, shortest_schedule, time_cells, under_bound_notes, uneven_extra, unproven,
                          unproven_ranges, unproven_statuses)
from core.methods import get_method, method_names
from core.schedule import ScheduleConfig
from core.timing import DEFAULT_SIZE, DEFAULT_SIZE_BYTES, MODES, parse_size
from core.units import time_unit
from core.topology import preset

from .. import charts, controls, data, figures, labels, tables
from ..controls import SOURCE_MODES, method_title, methods_picker, persistent
from ..sources import Source, file_stem, routing_tag

PRESET = "table2"
SCOPES = ("Table 2 (nine configurations)", "The topology in the sidebar")
PAPER_COLUMNS = (("ps", "paper_ps"), ("ring", "paper_ring"), ("rl", "paper_rl"))
"""Our method -> the paper's column it is set beside."""
SIZE_COLUMNS = ("nodes", "edges", "workloads", "paper workloads")
NOTES_CSV = "notes"
"""The download's column of the page's notes (optimal's, RL's, another DAG's), only when some row has one."""


def render() -> None:
    """The Compare screen."""
    st.title("Compare")
    source = controls.topology_picker()
    st.sidebar.subheader("Comparison")
    scope = scope_picker()
    if scope == SCOPES[0]:
        sources = [Source(p.spec, p.name) for p in preset(PRESET)]
        st.caption("Every chosen method on the paper's nine Table 2 configurations, our numbers beside the "
                   "paper's; results are cached per configuration and method.")
    else:
        sources = [source]
        st.caption(f"Every chosen method on **{source.name}** (pick it in the sidebar: a preset, family "
                   "parameters, an uploaded file or a typed spec); results are cached per method.")
    uneven = data.uneven_reason(sources)
    methods, seeds, config, added = options(uneven)
    if added:  # the CLI's note, where the page's defaults added time-aware
        st.caption(labels.plain(labels.uneven_note([method_title(m) for m in added], uneven, by="the CLI's compare",
                                                   pick="pick the methods in the sidebar")))
    for m, why in left_out(uneven is not None).items():  # what the CLI's defaults have and the page cannot run
        st.caption(labels.plain(f"{method_title(m)} ({m}), one of the CLI's compare defaults, is left out of the "
                                f"page's: {why}."))
    if not controls.can_schedule(methods, source if scope == SCOPES[1] else None):
        return
    if scope == SCOPES[1] and (hint := controls.routing_hint(source, config)):
        st.info(labels.plain(hint), icon=":material/alt_route:")
    rows = run(sources, methods, seeds, config)
    if not rows:
        return
    cells = seconds_cells(rows, methods)
    names = config_names(rows, cells)
    notes = table(rows, methods, paper=scope == SCOPES[0], time_limit=config.time_limit, names=names)
    seconds_table(rows, methods, config.size, cells, names)
    stem = ("table2" if scope == SCOPES[0] else file_stem(source)) + routing_tag(config)
    st.subheader("Rounds per configuration")
    chart(rows, methods, stem, names, "The paper's Table 2, nine configurations" if scope == SCOPES[0]
          else source.name)
    if cells is not None:
        st.subheader("Seconds per configuration")
        seconds_chart(rows, methods, stem, names, config.size)
    st.subheader("Spread over seeds")
    spread(rows, methods, stem)
    download(export_csv(rows, methods, notes, config.size), stem)


def scope_picker() -> str:
    """Sidebar: compare on Table 2 or on the sidebar's topology. Until the user picks one, it follows the sidebar's
    source: Table 2 for a Table 2 preset, the sidebar's topology for a family, an upload or a typed spec (trial 27:
    an uploaded file was not compared until the user found this radio)."""
    default = SCOPES[0] if controls.remembered("source_mode", SOURCE_MODES[0]) == SOURCE_MODES[0] else SCOPES[1]
    controls.follow("compare.scope", default)
    return persistent(st.sidebar.radio, "compare.scope", default, "Compare on", SCOPES)


def page_defaults(uneven: bool) -> list[str]:
    """The methods the page picks first: the CLI's compare's defaults (`core.compare.default_methods`: ps, ring,
    greedy, critical-path, rl; where link bandwidths differ, `uneven`, time-aware too) but those the page cannot run
    (`left_out`: rl without its checkpoint). The page's own list lacked greedy."""
    return [m for m in default_methods(uneven) if m not in left_out(uneven)]


def left_out(uneven: bool) -> dict[str, str]:
    """The CLI's default methods the page cannot run, each with the one-line reason (`data.method_problem`)."""
    out = {}
    for m in default_methods(uneven):
        why = "not registered" if m not in method_names() else data.method_problem(m)
        if why:
            out[m] = why
    return out


def options(uneven: str | None = None) -> tuple[list[str], int, ScheduleConfig, list[str]]:
    """Sidebar: methods, seeds for the randomized ones, the message size of the seconds table and the CSV, the
    routing (`controls.routing_option`, the player's too) and the optimal solver's time limit; and the methods the defaults added because link bandwidths differ (`uneven`, from
    `data.uneven_reason`), while the picker holds the page's defaults (none once the user has changed them)."""
    default = page_defaults(uneven is not None)
    controls.follow("compare.methods", default)  # untouched by the user, it follows the topology's defaults
    methods = methods_picker("compare.methods", default)  # all of them if wanted: slow ones have a time limit below
    added = [m for m in uneven_extra() if m in default] if methods == default else []
    seeds = int(persistent(st.sidebar.number_input, "compare.seeds", 5, "Seeds (randomized methods)", min_value=1,
                           max_value=10, step=1))
    text = persistent(st.sidebar.text_input, "compare.size", DEFAULT_SIZE, "Message size (seconds table and CSV)",
                      help=f"the AllReduce's size M the seconds table and the CSV's times are for (the CLI's "
                           f"compare --size): 100MB, 1.5GiB, 4096 (bytes); default {DEFAULT_SIZE}. The rounds do not "
                           f"depend on it")
    try:
        size = parse_size(text, "message size")
    except ValueError as err:
        st.sidebar.error(f"{err}. Using {DEFAULT_SIZE}.")
        # and on the page: below the sidebar's fold it went unseen while the page said "Seconds for M = 100 MB"
        said = str(err)
        st.warning(f"{said[:1].upper() + said[1:]}; the times below are for {labels.size(DEFAULT_SIZE_BYTES)}.")
        size = DEFAULT_SIZE_BYTES
    routing = controls.routing_option()
    limit = 10
    if any(get_method(m).slow for m in methods):
        limit = int(persistent(st.sidebar.slider, "compare.time", 10, "Time limit of slow methods per "
                               "configuration (s)", 2, 60))
    return methods, seeds, ScheduleConfig(time_limit=float(limit), size=size, routing=routing), added


def run(sources: list[Source], methods: list[str], seeds: int, config: ScheduleConfig) -> list[Row]:
    """Every method on every source (cached per cell), behind a progress bar.

    A method that cannot run somewhere (e.g. no RL checkpoint) leaves those cells empty and is
    named in one warning; the other methods are still compared.
    """
    total = len(sources) * len(methods)
    bar = st.progress(0.0, text="Scheduling")
    done = [0]
    rows: list[Row] = []
    failed: dict[str, dict[str, str]] = {}  # method -> configuration -> reason

    for src in sources:
        def tick(m: str, name: str = src.name) -> None:
            done[0] += 1
            bar.progress(done[0] / total, text=f"Scheduled {name} with {method_title(m)} ({done[0]}/{total})")

        try:
            row, why = data.compare_row(src, tuple(methods), seeds, config, done=tick)
        except Exception as err:  # noqa: BLE001 - e.g. a topology that cannot be built: said, the rest go on
            st.error(f"{src.name}: {err}")
            continue
        for m, reason in why.items():
            failed.setdefault(m, {})[src.name] = reason
        if row is not None:
            rows.append(row)
    bar.empty()
    for m, where in failed.items():
        st.warning(f"{method_title(m)} not available on {', '.join(where)}: {next(iter(where.values()))}. "
                   "Those cells are empty.")
    return rows


def table(rows: list[Row], methods: list[str], paper: bool, time_limit: float, names: dict[str, str] | None = None
          ) -> list[str]:
    """The comparison table (rounds per method, the merged DAG's bound, the best gap, the paper's numbers) and
    its sizes and notes, each configuration named as `names` shortens it (`config_names`; said whole under the
    table); returns the notes ("configuration, method: note", whole names), for the CSV."""
    names = names or {}
    import pandas as pd  # loaded with this screen, not with the app
    records, notes, others, learned = [], [], {}, {}
    for r in rows:
        rec: dict = {"configuration": names.get(r.name, r.name)}
        short = shortest_schedule(r)  # where an optimum not proven lies, as the warning says it
        short = (method_title(short[0]), short[1]) if short else None
        for m in methods:
            res = r.results.get(m)
            rec[m] = res.rounds if res else None  # None: could not run; headed by the short name, titled on hover
            for note in labels.result_notes(m, res.info if res else {}, r.spec, time_limit, short):
                notes.append(f"{r.name}, {method_title(m)}: {note}")
            if res is not None and "checkpoint" in res.info:
                learned.setdefault(m, []).append((r.name, res.info, r.spec))
            if res is not None and res.other_dag:  # time-aware picks its routes or a ring: the bound is not for them
                notes.append(f"{r.name}, {method_title(m)}: {other_dag_note(res)}")
                others.setdefault(method_title(m), []).append(f"{r.name} ({other_dag_words(res.other_dag)})")
        best = r.best_merged()
        rec["lower bound"] = r.lower_bound
        rec["best gap %"] = 100 * gap(best.rounds, r.lower_bound) if best else None
        if paper:
            for m, field in PAPER_COLUMNS:
                rec[f"paper {m}"] = getattr(r.paper, field) if r.paper else None
        rec.update({"nodes": r.nodes, "edges": r.edges, "workloads": r.workloads,
                    "paper workloads": r.paper.paper_workloads if r.paper else None})
        records.append(rec)
    frame = pd.DataFrame(records)
    papers = [f"paper {m}" for m, _ in PAPER_COLUMNS if f"paper {m}" in frame.columns]
    shown = frame.drop(columns=list(SIZE_COLUMNS) + papers)
    titles = {m: method_title(m) for m in method_names()}
    config = {c: st.column_config.NumberColumn(format=_number_format(shown[c]), help=_header_help(c, titles))
              for c in shown.columns if c not in ("configuration", "lower bound")}
    # one decimal always, as the CLI prints a gap (0.0%): by its values it read 0 for an upload, 0.0 in Table 2
    config["best gap %"] = st.column_config.NumberColumn(format="%.1f", help=_header_help("best gap %", titles))
    config["lower bound"] = st.column_config.NumberColumn(help="lower bound of the merged workload DAG (rounds)")
    open_optima = unproven(rows, methods)  # marked in their cells, as the CLI's text marks them
    marked = {(i, m) for m, found in open_optima.items() for i, r in enumerate(rows) if any(r is f for f, _ in found)}
    for m in open_optima:  # a column's format wins over the Styler's text in the browser (not in AppTest): none here
        config[m] = st.column_config.NumberColumn(help=f"{_header_help(m, titles)}; {NOT_PROVEN_HELP}")
    # the grid's accessible table reads a number cell's value, not its "50*": the table's name says where * is
    st.dataframe(rounds_cells(shown, marked), hide_index=True, width="stretch", column_config=config,
                 alt=rounds_alt(open_optima, names))
    st.caption("Columns by method name (" + ", ".join(f"{m} = {method_title(m)}" for m in methods)
               + "). Rounds to finish the AllReduce (randomized methods: mean over seeds). Lower bound: of the merged "
               "workload DAG (max of link load, critical path, ports and per-link schedule bounds); best gap: the "
               "best method that schedules merged trees, against that bound."
               + (f" {labels.plain(NOT_PROVEN)} after rounds: NOT proven optimal, the optimum may be lower (the "
                  "warning below)." if marked else "")
               + (" The paper's numbers: the next table, and diamonds in the chart." if papers
                  else ""))
    for line in shortened_notes(names, "in the tables to fit the page"):
        st.caption(line)
    for title, where in others.items():  # shown, not only in the closed notes: its rounds can be below the bound
        st.caption(f"{title} scheduled another DAG than the lower bound's on {', '.join(where)}: the bound is not "
                   "one for it, so it is left out of the best gap (its own DAG's bound: Sizes and notes).")
    for line in under_bound_notes(rows, methods, method_title):  # ring 14 under "lower bound 18" (trial 28)
        st.caption(labels.plain(line + "."))
    for m, found in learned.items():  # which checkpoint ran, in view whatever it was (not only in the notes)
        st.caption(labels.plain(labels.checkpoints_line(method_title(m), found)))
    if papers:  # its own table, rows in the same order: beside ours, 3 more columns made 8 methods scroll at 1280 px
        st.markdown("**The paper's Table 2** (rounds, same configurations)")
        st.dataframe(frame[["configuration", *papers]], hide_index=True, width="stretch",
                     column_config={c: st.column_config.NumberColumn(format=_number_format(frame[c]),
                                                                help=_header_help(c, titles)) for c in papers})
    with st.expander("Sizes and notes"):
        # At its own width (~390 px), not stretched to the page's: stretched, it scrolled sideways by 9 px at 1280 px
        st.dataframe(frame[["configuration", *SIZE_COLUMNS]], hide_index=True, width="content")
        st.markdown("\n".join(f"- {n}" for n in notes) or "No notes: no optimal or RL result in the table.")
    for m, found in open_optima.items():  # once per method, naming the configurations: it was once per cell
        st.warning(labels.plain(unproven_warning(method_title(m), found, len(rows), time_limit, methods)))
    others_not = [n for n in notes if "NOT" in n and "NOT proven optimal" not in n]
    if others_not:
        st.warning("Some results are not what their name promises — " + "; ".join(others_not))
    return notes


NOT_PROVEN_HELP = f"{NOT_PROVEN} after the rounds: NOT proven optimal (CP-SAT stopped at its time limit)"
"""The header tooltip of a rounds column with a cell marked `NOT_PROVEN`."""


def rounds_alt(open_optima: dict[str, list[tuple[Row, MethodResult]]], names: dict[str, str]) -> str:
    """The rounds table's accessible name (Streamlit's ``alt``: the grid's region label, which a screen reader reads
    on entering it): what the table holds and, per exact method of `open_optima` (`core.compare.unproven`), the
    configurations whose rounds are marked `NOT_PROVEN`, by the names the table shows (`names`). The grid exposes a
    number cell's value to a screen reader, not its text, so "50*" is read "50" (trial 22); the cell stays a number
    so that its column sorts by value, and the text on the page (the caption and the warning under the table) says
    it too."""
    said = [f"{method_title(m)} NOT proven optimal, marked {NOT_PROVEN}, on "
            + ", ".join(names.get(r.name, r.name) for r, _ in found) for m, found in open_optima.items()]
    return "; ".join(["Rounds per configuration and method", *said])


def unproven_warning(title: str, found: list[tuple[Row, MethodResult]], total: int, time_limit: float,
                     methods: list[str] | None = None) -> str:
    """The one warning of an exact method's results not proven optimal (`core.compare.unproven`'s `found` for it):
    which configurations, what the optimum is of (`core.compare.optimum_scope`: the tree DAG's schedules; `methods`
    on other DAGs may be shorter), between what each lies, each group after its reason
    (`core.compare.unproven_ranges`), and why: the time limit, and what CP-SAT had on each configuration in plain
    words (`core.compare.unproven_statuses`, the CLI's line too)."""
    return (f"{title} is NOT proven optimal on {len(found)} of {total} configuration{'s' if total > 1 else ''}, "
            f"marked {NOT_PROVEN} in the table. {capitalized(optimum_scope(found, methods or [], method_title))}: "
            f"{unproven_ranges(found, method_title)}. CP-SAT stopped at the "
            f"{time_limit:g} s time limit (deterministic seconds of work, the same on any machine): "
            f"{unproven_statuses(found)}. A longer time limit (sidebar) may prove it.")


def rounds_cells(frame: "pd.DataFrame", marked: set[tuple[int, str]]) -> "pd.io.formats.style.Styler":
    """The rounds table's numbers (a column still sorts by value), each shown as its column's format says
    (`_number_format`; the best gap with one decimal), and after a cell of `marked` (row, column) the mark of a result
    not proven optimal, `NOT_PROVEN`, as the CLI's text prints it (50*)."""
    import pandas as pd
    shown = frame.style
    for c in frame.columns[1:]:
        spec = "{:.1f}" if c == "best gap %" or _number_format(frame[c]) == "%.1f" else "{:.0f}"
        shown.format(spec.format, subset=[c], na_rep="")
        rows = [i for i, m in marked if m == c]
        if rows:
            shown.format(lambda v, spec=spec: spec.format(v) + NOT_PROVEN, subset=pd.IndexSlice[rows, [c]])
    return shown


def seconds_table(rows: list[Row], methods: list[str], size: float, cells: "SecondsCells | None",
                  names: dict[str, str]) -> None:
    """The seconds table, as the CLI's `compare` prints it under its rounds table (`core.compare.time_table`: the
    same rows, units and numbers: one number of decimals per column, 15.060, gaps with thousands separators) at the
    sidebar's message size, the one the CSV's times are for. Its header has two rows (`two_row_header`): each unit
    once, above its columns (time (ms), bandwidth (GB/s), gap to bound (%)), under it short names that stay readable
    when a column is sorted (every column is as wide as `tables.sortable_px` says), the full meaning on hover. The
    cells are numbers (a column sorts by value: `core.compare.time_cells` gives each beside the CLI's text), each
    shown as the CLI's text; the grid's accessible table exposes the same number (`cli_cells`). `cells`: the table
    as `seconds_cells` lays it out (None: nothing to show). A configuration's name too long for the page is shortened
    in the table and said whole under it (`names`, from `config_names`). Under it the CLI's
    latency note (`core.compare.latency_notes`), which explains the huge gaps to the bandwidth bound of a small
    message."""
    import pandas as pd
    if cells is None:
        return
    st.subheader(f"Seconds for M = {labels.size(size)}")
    heads = cells.heads
    body = [[names.get(line[0], line[0])] + line[1:] for line in cells.body]
    numbers = [[names.get(line[0], line[0])] + line[1:] for line in cells.numbers]
    widths = [tables.sortable_px(heads[0][1], [line[0] for line in body])] + cells.widths[1:]
    shown = cli_cells(pd.MultiIndex.from_tuples([(group, leaf) for group, leaf, _ in heads]), body, numbers)
    config = {}
    for j, (group, leaf, why) in enumerate(heads):
        kind = st.column_config.TextColumn if j < 2 else st.column_config.NumberColumn
        config[leaf] = kind(help=why, width=widths[j])
    units = ", ".join(dict.fromkeys(g for g, _, _ in heads if g))  # the accessible table names leaves only
    st.dataframe(shown, hide_index=True, width="stretch", column_config=config,
                 alt=f"Seconds for M = {labels.size(size)}, units: {units}")
    seeded = [method_title(m) for m in methods if get_method(m).randomized]
    st.caption(f"Replayed at M = {labels.size(size)} (sidebar: Message size; the CSV's times are for the same M). "
               "Bandwidth: alg = algbw = M / async time, bus = busbw = algbw·2(n−1)/n (nccl-tests). Gaps of the async "
               "time to the bandwidth bound of any AllReduce (BW) and to the best bound of the method's own DAG "
               "(own). Hover a header for what it holds."
               + (f" {', '.join(seeded)}: the mean time over seeds." if seeded else ""))
    for line in shortened_notes(names, "in the table to fit the page", "Config"):
        st.caption(line)
    for line in latency_notes(rows, methods):
        st.caption(line)


@dataclass(frozen=True)
class SecondsCells:
    """The seconds table as the page lays it out, names not yet shortened: its two-row header (`two_row_header`), the
    CLI's text without the gaps' % (the unit is the header's: "gap to bound (%)"), the number beside each text
    (`core.compare.time_cells`) and each column's width (`tables.sortable_px`)."""

    heads: list[tuple[str, str, str]]
    body: list[list[str]]
    numbers: list[list[str | float]]
    widths: list[float]


def seconds_cells(rows: list[Row], methods: list[str]) -> SecondsCells | None:
    """The seconds table's layout, made once for `config_names` and `seconds_table`; None when no row has times."""
    header, body, numbers = time_cells(rows, methods)
    if not body:
        return None
    heads = two_row_header(header)
    body = [[c.removesuffix("%") for c in cells] for cells in body]
    widths = [tables.sortable_px(leaf, [cells[j] for cells in body]) for j, (_, leaf, _) in enumerate(heads)]
    return SecondsCells(heads, body, numbers, widths)


def config_names(rows: list[Row], cells: SecondsCells | None) -> dict[str, str]:
    """Each configuration's name as the page shows it in its tables and its bar chart: the seconds table's first
    column's (`short_names`, in what the page's 820 px leave beside that table's other columns, its widest table;
    `cells` from `seconds_cells`), so one name reads the same everywhere on the page; whole names where no seconds
    table is drawn."""
    if cells is None:
        return {r.name: r.name for r in rows}
    return short_names([r.name for r in rows], tables.PAGE_PX - sum(cells.widths[1:]))


def shortened_notes(names: dict[str, str], where: str, word: str = "Configuration") -> list[str]:
    """One caption line per name shortened (`config_names`), saying it whole: what its cells cannot show."""
    return [f"{word} {labels.plain(short)}: {labels.plain(full)} (shortened {where})."
            for full, short in names.items() if short != full]


def short_names(names: list[str], px: float) -> dict[str, str]:
    """Each configuration's name as the seconds table's first column shows it: whole where the column fits in `px`
    (what the page's 820 px leave beside the other columns), else shortened around an ellipsis (`tables.shortened`;
    never below what the sorted header "config" needs). A long uploaded file name made the table scroll sideways."""
    room = max(px, tables.sortable_px("config", [])) - 2 * tables.GRID_PAD_PX
    return {n: tables.shortened(n, room) for n in names}


def two_row_header(header: list[str]) -> list[tuple[str, str, str]]:
    """The CLI's seconds-table header (`core.compare.time_table`: ``sync ms``, ``algbw GB/s``, ``gap BW bound``) as
    (group, leaf, help) per column: the unit once in the group (``time (ms)``, ``bandwidth (GB/s)``, ``gap to bound
    (%)``), a short leaf (``sync``, ``alg``, ``BW``) and the CLI's name and meaning on hover. Headed by the CLI's
    names, a sorted column's header was cut at 1280 px ("↑ gap BW bou⋮"): nine columns of ~55 px of sort mark, menu
    and padding each leave ~36 px for a title in 820 px."""
    out = []
    for h in header:
        name, _, unit = h.partition(" ")
        if name in MODES:
            out.append((f"time ({unit})", name, f"{MODE_HELP[name]}, in {unit} (the CLI's {h})"))
        elif name in ("algbw", "busbw"):
            out.append((f"bandwidth ({unit})", name[:3], f"{RATE_HELP[name]}, in {unit} (the CLI's {h})"))
        elif h in GAP_COLUMNS:
            leaf = "BW" if h == GAP_COLUMNS[0] else "own"
            out.append(("gap to bound (%)", leaf, f"{GAP_HELP[h]}, in %; from 10x the bound up the ratio time / "
                                                  f"bound, as the CLI writes it: 422,000x (the CLI's {h})"))
        else:
            out.append(("", h, PLAIN_HELP[h]))
    return out


MODE_HELP = {"sync": "the time to finish with a barrier after every round (the round model)",
             "async": "the time to finish when a workload starts once its inputs arrived and its links are free"}
RATE_HELP = {"algbw": "algbw, the algorithm bandwidth: M / async time",
             "busbw": "busbw, the bus bandwidth: algbw·2(n−1)/n (nccl-tests)"}
GAP_HELP = {GAP_COLUMNS[0]: "the async time's gap to the bandwidth bound of any AllReduce (latency left out)",
            GAP_COLUMNS[1]: "the async time's gap to the best lower bound of the method's own DAG"}
PLAIN_HELP = {"config": "the configuration (topology)", "method": "the method, by the name the CLI takes",
              "rounds": "rounds of its schedule (randomized methods: the mean over seeds)"}


def cli_cells(columns: "pd.Index | list[str]", body: list[list[str]], numbers: list[list[str | float]]
              ) -> "pd.io.formats.style.Styler":
    """The seconds table as numbers (`numbers`: two text columns, then the numbers the CLI's text shows, from
    `core.compare.time_cells`), so that a column sorts by value (as text, "10.000" sorted before "9.000"), each cell
    shown as the CLI's text in `body` (without a unit: `seconds_table` takes the % off the gaps): a lookup of its
    number among the column's cells with as many decimals (the rounds column has two: 16 for a deterministic method
    beside 16.0, a mean over seeds, one number).

    The grid's accessible table (what a screen reader reads, and the page's text) exposes a number column's value,
    not its display text (Streamlit 1.67's grid: a number cell's accessibility string is ``data.toString()``; a text
    column, whose accessibility string is its text, sorts as text, ``localeCompare``): so the numbers are the ones
    shown, ``45000100`` for ``45,000,100.0``, and the cells carry no unit (``0.5``, not ``0.5%``; the unit is in the
    header)."""
    import pandas as pd
    frame = pd.DataFrame([line[:2] + [float(x) for x in line[2:]] for line in numbers], columns=columns)
    shown = frame.style
    for j, c in enumerate(frame.columns[2:], start=2):
        groups: dict[int, tuple[dict[float, str], list[int]]] = {}
        for i, cells in enumerate(body):
            texts, rows = groups.setdefault(len(cells[j].partition(".")[2]), ({}, []))
            texts[frame.iat[i, j]] = cells[j]
            rows.append(i)
        for texts, rows in groups.values():
            shown.format(texts.__getitem__, subset=pd.IndexSlice[rows, [c]])
    return shown


def export_csv(rows: list[Row], methods: list[str], notes: list[str], size: float = DEFAULT_SIZE_BYTES) -> str:
    """The CSV download: compare's CSV with the CLI's headers and formats (`core.compare.csv_table`: rounds,
    bounds, the paper's numbers, learned-method columns, seconds at message size `size` (its column ``M bytes``),
    algbw, busbw and gaps), then the page's own columns: the paper's workload count and, only when some row has one
    (`optional_column`, the CLI's rule for its optional columns), each row's notes."""
    header, body = csv_table(rows, methods, size)  # the rows were timed at `size` (data.compare_cell)
    papers = [_count(r.paper.paper_workloads if r.paper else None) for r in rows]
    note_head, note_cells = optional_column(NOTES_CSV, [" | ".join(n.split(": ", 1)[1] for n in notes
                                                                   if n.startswith(r.name + ",")) for r in rows])
    return csv_text(header + ["paper workloads"] + note_head,
                    [cells + [paper] + more for cells, paper, more in zip(body, papers, note_cells)])


def _count(x: float | None) -> str:
    return "" if x is None else f"{x:g}"


def _number_format(column: "pd.Series") -> str:
    """Whole numbers without a decimal (a deterministic method's rounds: 16, as the CLI prints them); one
    decimal where any value has a fraction (a mean over seeds, a gap in %)."""
    values = column.dropna().astype(float)
    return "%d" if len(values) and bool((values == values.round()).all()) else "%.1f"


def _header_help(column: str, titles: dict[str, str]) -> str:
    """What a table column holds, for its header's tooltip."""
    if column.startswith("paper "):
        m = column.removeprefix("paper ")
        return f"the paper's Table 2: {titles.get(m, m)}"
    if column == "best gap %":
        return "best merged-tree method vs the merged DAG's lower bound, in %"
    return f"{titles.get(column, column)}: rounds"


def chart(rows: list[Row], methods: list[str], stem: str, short: dict[str, str] | None = None,
          compared: str = "") -> None:
    """Grouped bars per configuration, with the paper's numbers as diamonds; a configuration's name on the x axis as
    `short` shortens it (`config_names`: whole on hover and in a caption under the chart); titled by what is
    `compared` (the configuration set), which its saved image keeps."""
    names = [r.name for r in rows]
    short = short or {}
    ours = {m: [r.results[m].rounds if m in r.results else None for r in rows] for m in methods}
    paper = {m: [getattr(r.paper, field) for r in rows] for m, field in PAPER_COLUMNS
             if any(r.paper for r in rows)}
    titles = {m: method_title(m) for m in method_names()}
    # "ours" said: "The paper's Table 2, nine configurations: rounds per method" over our bars read as the paper's
    # (trial 22); plotly reads tags, hence the escape
    title = (f"{html.escape(compared, quote=False)}: our rounds per method (bars)"
             + (", the paper's as diamonds" if paper else "")) if compared else None
    charts.show(figures.compare_figure(names, ours, paper, titles=titles, ticks=[short.get(n, n) for n in names],
                                       title=title),
                key="compare-bars", name=f"compare-{stem}")
    for line in shortened_notes(short, "on the x axis as in the tables; a bar's hover says it whole"):
        st.caption(line)


def seconds_chart(rows: list[Row], methods: list[str], stem: str, short: dict[str, str], size: float) -> None:
    """Each method's async time per configuration at the sidebar's size, in the seconds table's unit: where two
    methods take the same rounds, the time can still differ (trial 27: ring and time-aware, 14 rounds each, took
    140.0 and 56.1 ms on a topology with links of several speeds, which only the table showed)."""
    unit, per = time_unit(r.results[m].time[mode]["time_s"] for r in rows for m in methods for mode in MODES
                          if m in r.results and r.results[m].time)  # the table's unit (its times of both modes)
    times = {m: [r.results[m].time["async"]["time_s"] * per if m in r.results and r.results[m].time else None
                 for r in rows] for m in methods}
    # the hover writes a bar as the table's cell (3 decimals in the table's unit, as the CLI's compare table)
    shown = {m: [None if t is None else f"{t:.3f}" for t in ts] for m, ts in times.items()}
    charts.show(figures.compare_figure([r.name for r in rows], times, {}, titles={m: method_title(m) for m in methods},
                                       ticks=[short.get(r.name, r.name) for r in rows], unit=unit, shown=shown,
                                       title=f"async time per method at M = {labels.size(size)}"),
                key="compare-seconds", name=f"compare-{stem}-seconds")
    st.caption("The seconds table's async column as bars (the async replay: each workload starts as soon as its "
               "inputs and its links allow); lower is faster.")


def spread(rows: list[Row], methods: list[str], stem: str) -> None:
    """For one configuration: the rounds of every seed, per method."""
    names = [r.name for r in rows]
    if controls.remembered("compare.spread", names[0]) not in names:
        controls.forget("compare.spread", names[0])
    chosen = persistent(st.selectbox, "compare.spread", names[0], "Configuration", names)
    row = next((r for r in rows if r.name == chosen), rows[0])
    per_seed = {m: row.results[m].per_seed for m in methods if m in row.results and row.results[m].per_seed}
    charts.show(figures.seed_spread_figure(per_seed, title=f"{row.name}: rounds per seed",
                                           titles={m: method_title(m) for m in method_names()}),
                key="compare-spread", name=f"compare-{stem}-spread")
    randomized = [method_title(m) for m in methods if get_method(m).randomized]
    st.caption(("Randomized: " + ", ".join(randomized) + ". " if randomized else "")
               + "Other methods are deterministic (one point).")


def download(text: str, stem: str) -> None:
    """The table with sizes and notes as CSV."""
    st.download_button("Download table (CSV)", data=text,
                       file_name=f"compare-{stem}.csv", mime="text/csv", key="compare-csv", on_click="ignore")
