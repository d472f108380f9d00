"""Cluster: many training jobs sharing one network, under the schedulers of core.cluster.

The page reads widgets and shows figures; the simulation runs in core (`core.cluster`) through
one cached call keyed by the specs. Bad specs or traces show `st.error` and the page keeps running.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from core.cluster import (ALL, OURS_BASELINE, Result, gantt_rows, link_contention, load_trace, make_cluster,
                          run_schedulers, snapshot, summarize)
from core.topology import TopologyError
from dashboard import cluster_figures as figs
from dashboard.layout import positions

DEFAULT_SCHEDULERS = ["fifo+first-fit", "sjf+closest", "gadget", "topdrl", "ours"]
CHOICES = list(ALL) + [OURS_BASELINE]


@st.cache_resource(show_spinner="Simulating the cluster...", max_entries=8)
def simulate_all(topology: str, gpus: int, trace: str, names: tuple[str, ...]) -> dict[str, Result]:
    """Every named scheduler's run of `trace` on `topology` x `gpus` GPUs (cached by the specs)."""
    return dict(zip(names, run_schedulers(make_cluster(topology, gpus), load_trace(trace), list(names))))


@st.cache_data(max_entries=8)
def drawing(topology: str) -> tuple[np.ndarray, np.ndarray]:
    """Node coordinates of a topology (x, y)."""
    pos = positions(make_cluster(topology).topology)
    return pos[:, 0], pos[:, 1]


def render() -> None:
    """The Cluster screen."""
    st.title("Cluster")
    st.caption("Jobs arrive, wait for GPUs, run their iterations and leave. A job's iteration is its compute plus "
               "its AllReduce on the GPUs it got: within each server over NVLink, then among its servers over the "
               "network, where jobs whose AllReduces cross the same link share its bandwidth. See docs/cluster.md.")
    left, mid, right = st.columns([2, 1, 3])
    topology = left.text_input("Topology", "bcube:n=4,k=1", key="cluster:topology",
                               help="any topology spec, e.g. bcube:n=4,k=2, dcell:n=4,k=1, fattree:k=4")
    gpus = int(mid.number_input("GPUs per server", 1, 16, 4, key="cluster:gpus"))
    trace = right.text_input("Trace", "synthetic:jobs=60,seed=0", key="cluster:trace",
                             help="synthetic:jobs=N,seed=S[,rate=jobs/hour], csv:PATH, philly:PATH or helios:PATH")
    names = st.multiselect("Schedulers", CHOICES, default=DEFAULT_SCHEDULERS, key="cluster:schedulers",
                           help="ORDER+PLACEMENT heuristics, GADGET, TopDRL (shipped checkpoint) and ours")
    if not names:
        st.info("Pick at least one scheduler.")
        return
    try:
        runs = simulate_all(topology.strip(), gpus, trace.strip(), tuple(names))
    except (TopologyError, ValueError, FileNotFoundError) as err:
        st.error(f"{err}. Change the topology, the trace or the schedulers above.")
        return

    st.subheader("Results")
    table = pd.DataFrame([summarize(r) for r in runs.values()]).set_index("scheduler")
    st.dataframe(table[["avg_jct_h", "p95_jct_h", "makespan_h", "avg_queue_h", "gpu_util", "comm_share",
                        "peak_link_users", "mean_link_users", "preemptions"]].round(3), use_container_width=True)

    st.subheader("Job completion times")
    st.plotly_chart(figs.jct_figure({n: r.jct / 3600 for n, r in runs.items()}), use_container_width=True)

    pick = st.selectbox("Scheduler to inspect", list(runs), key="cluster:pick")
    res = runs[pick]
    st.plotly_chart(figs.gantt_figure(gantt_rows(res), f"{pick}: jobs over time"), use_container_width=True)

    st.subheader("The network at one moment")
    end_h = float(res.end.max() / 3600)
    at = st.slider("Time (hours)", 0.0, end_h, min(end_h, float(np.median(res.first_start) / 3600)),
                   key="cluster:time")
    running = snapshot(res, at * 3600)
    x, y = drawing(topology.strip())
    t = res.cluster.topology
    st.plotly_chart(figs.snapshot_figure(x, y, t.edges, t.is_server, t.labels, running,
                                         f"{pick} at {at:.1f} h: {len(running)} jobs running"),
                    use_container_width=True)
    st.caption("Servers and AllReduce links in the colour of the job using them; dark dotted links carry the "
               "AllReduces of several jobs at once (their bandwidth is split between them).")

    st.subheader("Link contention over time")
    st.plotly_chart(figs.contention_figure({n: link_contention(r) for n, r in runs.items()}),
                    use_container_width=True)
