"""One schedule's time report: seconds in both modes, algbw, busbw, the bounds in seconds and the gaps.

Shared by the CLI (`schedule`, `replay`), `compare` and the benchmark, so they all report the
same numbers in the same plain form (seconds and bytes/s; JSON-ready).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .bounds import gap, time_bounds
from .timing import MODES, replay_modes
from .workloads import WorkloadDAG


def time_report(dag: WorkloadDAG, rounds: Sequence, size: float, link_bandwidth: np.ndarray | None = None,
                link_latency: np.ndarray | None = None) -> dict[str, Any]:
    """``{"size_bytes", "ranks", "links", "bounds", "sync": {...}, "async": {...}}``; each mode has time_s,
    algbw_Bps, busbw_Bps, max_link_utilization and its gap to every bound."""
    timings = replay_modes(dag, rounds, size=size, link_bandwidth=link_bandwidth, link_latency=link_latency)
    bounds = time_bounds(dag, size, link_bandwidth, link_latency, timings["sync"].duration).as_dict()
    out: dict[str, Any] = {"size_bytes": float(size), "ranks": timings["sync"].ranks,
                           "links": link_summary(dag), "bounds": bounds}
    for mode in MODES:
        s = timings[mode].summary()
        s.pop("mode")
        s.pop("size_bytes")
        s.pop("ranks")
        s["gap"] = {name: gap(s["time_s"], b) for name, b in bounds.items()}
        out[mode] = s
    return out


def link_summary(dag: WorkloadDAG) -> dict[str, Any]:
    """The range of link bandwidths (Gbit/s) and latencies (µs) of the DAG's topology, and failed links."""
    t = dag.topology
    return {"bandwidth_gbps": [float(t.bandwidth.min()), float(t.bandwidth.max())],
            "latency_us": [float(t.latency.min()), float(t.latency.max())],
            "failed": int(t.failed.sum())}
