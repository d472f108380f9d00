"""Sections of the Compare screen: the Table 2 comparison, its chart, the spread over seeds, the CSV."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.compare import Row
from core.methods import get_method, method_names
from core.schedule import ScheduleConfig
from core.topology import preset

from .. import data, figures
from ..controls import method_title, methods_picker, persistent

PRESET = "table2"
PAPER_COLUMNS = (("ps", "paper_ps"), ("ring", "paper_ring"), ("rl", "paper_rl"))
"""Our method -> the paper's column it is set beside."""


def options() -> tuple[list[str], int, ScheduleConfig]:
    """Sidebar: methods, seeds for the randomized ones, and the optimal solver's time limit."""
    st.sidebar.subheader("Comparison")
    default = ["ps", "ring", "critical-path"] + (["rl"] if data.method_problem("rl") is None else [])
    methods = methods_picker("compare.methods", default, limit=6)
    seeds = int(persistent(st.sidebar.number_input, "compare.seeds", 5, "Seeds (PS, greedy)", min_value=1,
                           max_value=10, step=1))
    limit = 10
    if "optimal" in methods:
        limit = int(persistent(st.sidebar.slider, "compare.time", 10, "Optimal: time limit per configuration (s)",
                               2, 60))
    return methods, seeds, ScheduleConfig(time_limit=float(limit))


def run(methods: list[str], seeds: int, config: ScheduleConfig) -> tuple[list[Row], list[str]]:
    """Every Table 2 configuration compared (cached per configuration), with a progress bar.

    A method that cannot run on a configuration (e.g. no RL checkpoint for it) leaves its cell
    empty and is named in one warning; the other methods are still compared.
    """
    if not methods:
        return [], []
    configs = preset(PRESET)
    bar = st.progress(0.0, text="Scheduling the Table 2 configurations")
    rows: list[Row] = []
    failed: dict[str, dict[str, str]] = {}  # method -> configuration -> reason
    learned = tuple(m for m in methods if m.startswith("rl"))
    others = tuple(m for m in methods if m not in learned)
    for i, p in enumerate(configs):
        bar.progress(i / len(configs), text=f"Scheduling {p.name} ({i + 1}/{len(configs)})")
        got = data.compare_or_reason(PRESET, p.name, learned + others, seeds, config)
        if isinstance(got, str) and learned and others:  # a learned method broke the whole row: drop it here
            for m in learned:
                failed.setdefault(m, {})[p.name] = got
            got = data.compare_or_reason(PRESET, p.name, others, seeds, config)
        if isinstance(got, str):
            st.error(f"{p.name}: {got}")
            continue
        for m, res in got.results.items():
            if res.rounds is None:
                failed.setdefault(m, {})[p.name] = res.error or "it did not run"
        rows.append(got)
    bar.empty()
    for m, where in failed.items():
        what = "RL scheduler not available" if m.startswith("rl") else f"{method_title(m)} could not run"
        st.warning(f"{what} on {', '.join(where)}: {next(iter(where.values()))}. Those cells are empty.")
    return rows, list(methods)


def table(rows: list[Row], methods: list[str]) -> pd.DataFrame:
    """The comparison table: our rounds beside the paper's, the merged DAG's lower bound and the best gap."""
    records = []
    for r in rows:
        rec = {"configuration": r.name, "nodes": r.nodes, "edges": r.edges, "workloads": r.workloads,
               "paper workloads": r.paper.paper_workloads if r.paper else None}
        for m in methods:
            rec[method_title(m)] = r.results[m].rounds if m in r.results else None  # None: could not run
        for m, field in PAPER_COLUMNS:
            rec[f"paper {method_title(m)}"] = getattr(r.paper, field) if r.paper else None
        best = r.best_merged()
        rec["lower bound"] = r.lower_bound
        rec["best gap %"] = 100 * (best.rounds / r.lower_bound - 1) if best else None
        records.append(rec)
    frame = pd.DataFrame(records)
    st.dataframe(frame, hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%.1f") for c in frame.columns
                                if c not in ("configuration", "nodes", "edges", "workloads", "paper workloads",
                                             "lower bound")})
    st.caption("Rounds to finish the AllReduce (PS and greedy: mean over seeds). Lower bound: of the merged "
               "workload DAG (max of link load, critical path, ports and per-link schedule bounds); best gap: "
               "the best merged method against it.")
    return frame


def chart(rows: list[Row], methods: list[str]) -> None:
    """Grouped bars per configuration, with the paper's numbers as diamonds."""
    names = [r.name for r in rows]
    ours = {m: [r.results[m].rounds if m in r.results else None for r in rows] for m in methods}
    paper = {m: [getattr(r.paper, field) if r.paper else None for r in rows] for m, field in PAPER_COLUMNS}
    st.plotly_chart(figures.compare_figure(names, ours, paper, titles={m: method_title(m) for m in method_names()}), config={"displaylogo": False},
                    key="compare-bars")


def spread(rows: list[Row], methods: list[str]) -> None:
    """For one configuration: the rounds of every seed, per method."""
    names = [r.name for r in rows]
    chosen = persistent(st.selectbox, "compare.spread", names[0], "Configuration", names)
    row = next((r for r in rows if r.name == chosen), rows[0])
    per_seed = {m: row.results[m].per_seed for m in methods if m in row.results and row.results[m].per_seed}
    st.plotly_chart(figures.seed_spread_figure(per_seed, title=f"{row.name}: rounds per seed", titles={m: method_title(m) for m in method_names()}),
                    config={"displaylogo": False}, key="compare-spread")
    randomized = [method_title(m) for m in methods if get_method(m).randomized]
    st.caption(("Randomized: " + ", ".join(randomized) + ". " if randomized else "")
               + "Other methods are deterministic (one point).")


def download(frame: pd.DataFrame) -> None:
    """The table as shown (our numbers beside the paper's) as CSV."""
    st.download_button("Download table (CSV)", data=frame.to_csv(index=False), file_name="compare-table2.csv",
                       mime="text/csv", key="compare-csv", on_click="ignore")
