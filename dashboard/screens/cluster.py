"""Cluster: many training jobs sharing one network, under the schedulers of core.cluster.

The screen reads widgets and shows figures; the simulation runs in core (`core.cluster`) through
one cached call (`data.cluster_runs`). A bad trace or scheduler shows one `st.error` line, as plain text, and the
app keeps running. A trace file is uploaded; a path on the server is never read.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from core.cluster import (ALL, DECIMALS, GPUS_PER_SERVER, OURS_BASELINE, SHARES, capped_note, gantt_rows,
                          link_contention, over_seeds, row_notes, seeded_specs, skipped_note, snapshot, summarize, trace_title, unfit)
from core.cluster.cluster import DEFAULT_GPUS_PER_SERVER
from core.topology import TopologyError

from .. import charts, cluster_figures, controls, data, labels
from ..controls import persistent, remembered

DEFAULT_SCHEDULERS = ["fifo+first-fit", "sjf+closest", "gadget", "topdrl", OURS_BASELINE, "ours"]
"""The schedulers shown first: with ours its own baseline, sjf+timed (the same placement with ring AllReduce), the
comparison the README's cluster table makes (trial 19: without it, ours read as second worst on the default trace)."""
MAX_SEEDS = 5
MAX_SEED_JOBS = 300
"""The "Seeds" control's bounds: at most MAX_SEEDS draws (the README's cluster table averages 5), and seeds x jobs at
most MAX_SEED_JOBS (the default 60-job trace: 5 seeds, ~7.5 s for the default schedulers in a fresh process, against
~3-5.5 s for one and ~11 s for 10 seeds; docs/dashboard.md)."""
CHOICES = list(ALL) + [OURS_BASELINE]
COLUMNS = {"avg_jct_h": "avg JCT h", "p95_jct_h": "p95 JCT h", "makespan_h": "makespan h", "avg_queue_h": "avg queue h",
           "gpu_util": "GPU util", "comm_share": "comm share", "peak_link_users": "peak link jobs",
           "mean_link_users": "mean link jobs", "preemptions": "preempt."}
"""Summary columns and their headers on screen (the CLI's CSV keeps the keys)."""
TRACE_FROM = ("synthetic", "uploaded file")
COLOURS = cluster_figures.scheduler_colours(DEFAULT_SCHEDULERS + [n for n in CHOICES if n not in DEFAULT_SCHEDULERS])
"""One colour per scheduler on every chart of the page, whichever are picked (the defaults get plotly's first)."""


TOPDRL_CHECKPOINT = "checkpoints/topdrl/topdrl"
"""The checkpoint the page's TopDRL runs (`core.cluster.topdrl.default_checkpoint`, as the CLI names it): the
shipped one until ``cluster-train`` (whose default --out it is) replaces it with the user's own."""


def repeat_note(running: list[dict]) -> str:
    """" Colours repeat every N jobs: ... share one" when running jobs share a colour (`cluster_figures.shared_colours`),
    else ""."""
    groups = cluster_figures.shared_colours(running)
    if not groups:
        return ""
    said = "; ".join(" and ".join(g) if len(g) < 3 else ", ".join(g[:-1]) + f" and {g[-1]}" for g in groups)
    return (f" Colours repeat every {len(cluster_figures.JOB_COLOURS)} jobs (in trace order): {said} share a colour "
            "here; hover to tell them apart.")


def results_table(rows: list[dict]) -> tuple[pd.DataFrame, dict]:
    """(the summary table with on-screen headers, its column config): each column rounded to and shown with
    its places in `core.cluster.DECIMALS`, as the CLI prints it (shares as percentages: "52.8%")."""
    table = pd.DataFrame(rows).set_index("scheduler")[list(COLUMNS)]
    table[list(SHARES)] = 100 * table[list(SHARES)]
    table = table.round({k: DECIMALS[k] for k in COLUMNS}).rename(columns=COLUMNS)
    return table, {COLUMNS[k]: st.column_config.NumberColumn(format=f"%.{DECIMALS[k]}f" + ("%%" if k in SHARES else ""))
                   for k in COLUMNS}


def trace_note(trace: str, run_trace, upload: bool) -> str | None:
    """One caption for the trace run, from the CLI's own functions: an uploaded file by the title cluster's header
    gives it (its name, the options it was read with, its jobs, and how run times were read; `trace_title`) and the
    records its reader skipped (`skipped_note`); a synthetic draw by its cap where it was capped (`capped_note`)."""
    lines = [f"Trace {trace_title(trace, run_trace)}", skipped_note(run_trace)] if upload else [
        capped_note(trace, run_trace)]
    said = [line for line in lines if line]
    return " ".join(line + "." for line in said) if said else None


def one_draw_note(runs: dict, uploaded: bool = False) -> str:
    """Under the results of one seed: that it is one draw, with ours against its baseline on it in numbers, and
    where the seeds are averaged. An uploaded file has no seed and no Seeds input (trial 29), so its note says
    neither."""
    text = ("One trace file is one sample of jobs: schedulers that differ by a few percent here can swap places on "
            "another." if uploaded else
            "One trace is one draw: schedulers that differ by a few percent here can swap places on the next seed.")
    where = "on this trace" if uploaded else "on this seed"
    if "ours" in runs and OURS_BASELINE in runs:
        ours, base = (float(runs[n].jct.mean()) / 3600 for n in ("ours", OURS_BASELINE))
        apart = abs(ours / base - 1) * 100
        # as shown: "40.85 h against 40.85 h ... 0.0% higher" read as a difference where there is none (trial 26)
        text += (f" Here ours' average JCT is {ours:.2f} h against {base:.2f} h for {OURS_BASELINE}, its own baseline "
                 f"(the same placement with ring AllReduce): "
                 + (f"{apart:.1f}% {'lower' if ours < base else 'higher'} {where}." if f"{apart:.1f}" != "0.0"
                    else f"the same {where}."))
    if uploaded:
        return text
    return text + (" Set **Seeds** above to run the next seeds too (the mean, and how often each scheduler beat "
                   f"{OURS_BASELINE}); the README's cluster table averages five unseen 160-job seeds on BCube(4,1) "
                   "and BCube(4,2) (`python benchmarks/bench_cluster.py --only ours`).")


def seed_table(source, gpus: int, trace: str, names: list[str], seeds: int) -> None:
    """The picked schedulers (and sjf+timed, ours' baseline) on `seeds` draws of the synthetic trace: each one's mean
    average and p95 JCT and on how many seeds its average JCT was below sjf+timed's."""
    specs = seeded_specs(trace, seeds)
    run_names = tuple(names) + (() if OURS_BASELINE in names else (OURS_BASELINE,))
    per_seed = []
    with st.spinner(f"Running {len(run_names)} schedulers on {seeds} seeds"):
        for spec in specs:
            per_seed.append({n: summarize(r) for n, r in data.cluster_runs(source, gpus, spec, run_names).items()})
    rows = over_seeds(per_seed, OURS_BASELINE)
    first, last = specs[0], specs[-1]
    st.markdown(f"**Over {seeds} seeds**: {labels.plain(first)} to {labels.plain(last)}")
    table = pd.DataFrame({
        "scheduler": [r["scheduler"] for r in rows],
        "mean avg JCT h": [round(r["avg_jct_h"], 2) for r in rows],
        "mean p95 JCT h": [round(r["p95_jct_h"], 2) for r in rows],
        f"beat {OURS_BASELINE}": ["baseline" if r["beat"] is None else f"{r['beat']} of {r['seeds']}" for r in rows],
        "avg JCT h per seed": [" ".join(f"{j:.1f}" for j in r["per_seed"]) for r in rows]}).set_index("scheduler")
    st.dataframe(table, width="stretch", column_config={c: st.column_config.NumberColumn(format="%.2f")
                                                        for c in ("mean avg JCT h", "mean p95 JCT h")})
    note = (f"beat {OURS_BASELINE}: on how many seeds a scheduler's average JCT was lower than {OURS_BASELINE}'s, "
            "ours' own baseline (the same placement with ring AllReduce)")
    note += "" if OURS_BASELINE in names else f"; {OURS_BASELINE} was run for this table only"
    st.caption(note + ". The results table and the charts show the first seed.")


def trace_input() -> tuple[int, str | None, bytes | None]:
    """GPUs per server (core's bounds) and the trace: a synthetic spec, or an uploaded file read as a CSV, Philly
    or Helios trace; returns (gpus, the trace for `data.cluster_runs` or None while no file is uploaded, the
    file's bytes, None for a synthetic trace: an empty file is b"" and gets the CLI's "the file is empty", trial
    29). The page reads no file on the server: a path typed as the trace is refused by `data`."""
    low, high = GPUS_PER_SERVER
    gpus_col, from_col, trace_col, seeds_col = st.columns([1, 1.3, 2.1, 0.8])
    # persistent: the inputs survive a visit to another page (trial 26: they were back to their defaults); the
    # uploaded file cannot be set back, so it is uploaded again
    gpus = int(persistent(gpus_col.number_input, "cluster.gpus", DEFAULT_GPUS_PER_SERVER, "GPUs per server", low,
                          high, help=f"{low}..{high}, as the CLI's --gpus-per-server"))
    source = persistent(from_col.radio, "cluster.trace_from", TRACE_FROM[0], "Trace from", TRACE_FROM,
                        horizontal=True)
    if source == TRACE_FROM[0]:
        trace = persistent(trace_col.text_input, "cluster.trace", "synthetic:jobs=60,seed=0", "Trace",
                           help="synthetic:jobs=N,seed=S[,rate=jobs/hour,mix=sjf-bco|gavel,models=A/B]; "
                                "a trace file (CSV, Philly, Helios) is uploaded: \"uploaded file\"")
        persistent(seeds_col.number_input, "cluster.seeds", 1, "Seeds", 1, MAX_SEEDS,
                   help=f"how many draws of the synthetic trace (its seed, then the next ones) to run: the page then "
                        f"shows each scheduler's mean over them and on how many seeds it beat {OURS_BASELINE}; the "
                        f"charts show the first. Seeds x jobs at most {MAX_SEED_JOBS}")
        return gpus, trace.strip(), None
    kind = persistent(trace_col.selectbox, "cluster.trace_kind", next(iter(data.TRACE_FILES)), "Read as",
                      list(data.TRACE_FILES), format_func=data.TRACE_FILES.get)
    file_col, opt_col = st.columns([3, 2])
    up = file_col.file_uploader("Trace file", type=["csv", "json"], key="cluster:upload",
                                help="CSV: arrival_s, gpus, model and iterations or duration_s (docs/cluster.md §5); "
                                     "Philly: cluster_job_log; Helios: cluster_log.csv")
    options = persistent(opt_col.text_input, "cluster.trace_options", "", "Options (optional)",
                         placeholder="limit=100" if kind == "csv" else "seed=0,model=resnet50,limit=100",
                         help="limit=N: the first N jobs (0: all); Philly and Helios: seed=S draws each job's model, "
                              "model=NAME gives every job one").strip().strip(",")
    if up is None:
        st.info("Upload a trace file, or choose \"synthetic\".")
        return gpus, None, None
    name = up.name.replace(",", "_")  # the name stands before the options in the trace string
    return gpus, f"{kind}:{name}" + (f",{options}" if options else ""), up.getvalue()


GANTT_CAPTION = ("One row per job, the first to arrive at the top: a thin grey bar while it waits for GPUs, then a bar "
                 "in the colour of its GPU count while it runs (a job stopped and resumed has several). Hover a bar "
                 "for the job's id (as the network's legend below names it), servers, model and AllReduce.")
"""Under the Gantt chart, whose rows carry no labels (trial 26: its bars could not be matched to the job ids)."""

CONTENTION_CAPTION = ("Per scheduler, in its colour: solid, the most running jobs whose AllReduces share one directed "
                      "link; dotted, the mean over the links in use. Click a legend entry to hide its line.")
"""Under the link contention chart (trial 26: it had no caption)."""

def render() -> None:
    """The Cluster screen."""
    st.title("Cluster")
    source = controls.topology_picker()
    st.caption(f"Jobs share **{source.name}** (pick it in the sidebar). They arrive, wait for GPUs, run their "
               "iterations and leave. An iteration is the job's compute plus its AllReduce on the GPUs it got: within "
               "each server over NVLink, then among its servers over the network, where jobs whose AllReduces cross "
               "the same link share its bandwidth while their AllReduces overlap in time. See docs/cluster.md.")
    gpus, trace, upload = trace_input()
    if trace is None:
        return
    names = persistent(st.multiselect, "cluster.schedulers", DEFAULT_SCHEDULERS, "Schedulers", CHOICES,
                       help="ORDER+PLACEMENT heuristics, GADGET, TopDRL and ours. TopDRL runs the checkpoint in "
                            f"{TOPDRL_CHECKPOINT}: the shipped one, or yours where cluster-train wrote it there "
                            "(its default --out); the note under the results says what it was trained on")
    if not names:
        st.info("Pick at least one scheduler.")
        return
    try:
        names, left_out = unfit(names, gpus)  # topdrl on a cluster its network does not read: the rest run
        for line in left_out:
            st.caption(line + ".")
        if not names:
            return
        runs = data.cluster_runs(source, gpus, trace, tuple(names), upload)
    except (TopologyError, ValueError, FileNotFoundError) as err:
        st.error(labels.plain(str(err)))  # only what is wrong: a generic "change the trace, ..." after it read as
        # a second, contradicting instruction (trial 9: "choose uploaded file ... Change the trace")
        return

    uploaded = upload is not None
    note = trace_note(trace, next(iter(runs.values())).trace, uploaded)
    if note:
        st.caption(labels.plain(note))
    st.subheader("Results")
    summaries = [summarize(r) for r in runs.values()]
    table, config = results_table(summaries)
    st.dataframe(table, column_config=config, width="stretch")
    st.caption("JCT: job completion time (arrival to end); avg queue: first start − arrival (a preempted job's later "
               "waits count in JCT only); comm share: the part of run time spent in AllReduce; "
               "link jobs: running jobs whose AllReduces share one link.")
    for note in row_notes(list(runs.values()), summaries):
        if note:  # the CLI's notes under its table (trials 25, 26)
            st.caption(labels.plain(note + "."))  # as the CLI names them: "sjf+closest", not "Sjf+closest" (trial 28)
    if "topdrl" in runs:  # which picker ran, and whether it was trained on this cluster (trial 29), as the CLI says
        from core.cluster.topdrl import trained_note, trained_on  # torch: imported only where TopDRL ran
        st.caption(labels.plain(trained_note(runs["topdrl"].cluster.spec, trained_on()) + "."))
    seeds = int(remembered("cluster.seeds", 1)) if not uploaded else 1
    jobs = next(iter(runs.values())).trace.n
    if seeds > 1 and seeds * jobs > MAX_SEED_JOBS:
        st.error(f"Seeds x jobs must be at most {MAX_SEED_JOBS}: {seeds} seeds x {jobs} jobs = {seeds * jobs}; "
                 "showing one seed.")
        seeds = 1
    if seeds > 1:
        seed_table(source, gpus, trace, names, seeds)
    else:
        st.caption(one_draw_note(runs, uploaded))

    st.subheader("Job completion times")
    charts.show(cluster_figures.jct_figure({n: r.jct / 3600 for n, r in runs.items()}, colours=COLOURS),
                "cluster:jct", "cluster-jct")
    st.caption(cluster_figures.JCT_CAPTION + " Each scheduler has one colour in every chart of this page.")

    pick = st.selectbox("Scheduler to inspect", list(runs), key="cluster:pick")
    res = runs[pick]
    charts.show(cluster_figures.gantt_figure(gantt_rows(res), f"{pick}: jobs over time"), "cluster:gantt",
                "cluster-gantt")
    st.caption(GANTT_CAPTION)

    st.subheader("The network at one moment")
    end_h = float(res.end.max() / 3600)
    at = st.slider("Time (hours)", 0.0, end_h, min(end_h, float(np.median(res.first_start) / 3600)),
                   key="cluster:time")
    running = snapshot(res, at * 3600)
    pos = data.node_positions(source)
    t = res.cluster.topology
    charts.show(cluster_figures.snapshot_figure(pos[:, 0], pos[:, 1], t.edges, t.is_server, t.labels, running,
                                                f"{pick} at {at:.1f} h: {len(running)} jobs running"),
                "cluster:snapshot", "cluster-snapshot")
    st.caption("Servers and AllReduce links in the colour of the job using them, one legend entry per running job. "
               "Black dotted links carry the AllReduces of several jobs at once (their bandwidth is split between "
               "them); a server ringed in black runs several jobs and is filled with the colour of the one with most "
               "GPUs there (hover a server for all its jobs; a job whose colour shows nowhere says so in the legend). "
               "Switches are dark grey squares."
               + repeat_note(running))

    st.subheader("Link contention over time")
    charts.show(cluster_figures.contention_figure({n: link_contention(r) for n, r in runs.items()}, colours=COLOURS),
                "cluster:contention", "cluster-contention")
    st.caption(CONTENTION_CAPTION)
