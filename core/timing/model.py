"""The α-β transfer model: piece sizes and the seconds each workload takes (docs/time.md).

A message of M bytes is split over the DAG's flow-trees: a tree DAG has S·k flow-trees (one
per root server and chunk) and a ring DAG S·k ring chunks, so every workload moves one piece
of ``M / n_trees`` bytes (a merged reduce workload carries a sum, which is the same size).
A workload occupies every directed link of its path for its whole transfer (cut-through, as
in the round model) and takes

    duration = Σ latency of its links + piece / bottleneck lane bandwidth of its path,

where a link of capacity c is c lanes of ``bandwidth / c`` each (its bandwidth is the link's
total, shared evenly by the c workloads a round may put on it).
"""

from __future__ import annotations

import numpy as np

from ..jit import SMALL, kernel
from ..units import gbps_to_bytes
from ..workloads import WorkloadDAG


def piece_bytes(dag: WorkloadDAG, size: float) -> float:
    """Bytes of one workload's piece: the message size divided over the DAG's flow-trees."""
    return float(size) / max(dag.n_trees, 1)


def n_ranks(dag: WorkloadDAG) -> int:
    """Number of servers taking part (the roots of the DAG's flow-trees): nccl-tests' n."""
    return int(len(np.unique(dag.tree_root)))


def link_arrays(dag: WorkloadDAG, link_bandwidth: np.ndarray | None = None,
                link_latency: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per directed link: (bandwidth in Gbit/s, latency in µs), the topology's unless overridden.

    An override has one value per directed link (a cluster's share of each link, say); failed
    links count as bandwidth 0. Raises ValueError for a wrong shape or a negative or NaN value.
    """
    t = dag.topology
    bw = t.link_bandwidth if link_bandwidth is None else _override(link_bandwidth, t.n_links, "link_bandwidth")
    lat = t.link_latency if link_latency is None else _override(link_latency, t.n_links, "link_latency")
    if t.failed.any():
        bw = np.where(t.link_failed, 0.0, bw)
    return bw, lat


def _override(values: np.ndarray, n_links: int, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.shape != (n_links,):
        raise ValueError(f"{name} needs one value per directed link ({n_links}), got shape {arr.shape}")
    if not np.all(np.isfinite(arr) & (arr >= 0)):
        bad = int(np.flatnonzero(~(np.isfinite(arr) & (arr >= 0)))[0])
        raise ValueError(f"{name} must be finite and >= 0, got {arr[bad]} on directed link {bad}")
    return arr


def transfer_times(dag: WorkloadDAG, size: float, link_bandwidth: np.ndarray | None = None,
                   link_latency: np.ndarray | None = None) -> np.ndarray:
    """Seconds each workload takes alone: latency of its path + piece / bottleneck lane bandwidth.

    `link_bandwidth` (Gbit/s) and `link_latency` (µs), one value per directed link, override the
    topology's. Raises ValueError if a workload crosses a link of bandwidth 0 (failed, or no share).
    """
    bw, lat = link_arrays(dag, link_bandwidth, link_latency)
    t = dag.topology
    lane = gbps_to_bytes(bw) / t.link_capacity  # bytes/s of one lane
    slowest, out = np.empty(dag.n), np.empty(dag.n)  # numpy's: huge pages for 94 M rows (docs/scale.md)
    _path_sums(dag.links.ptr, dag.links.values, lane, lat * 1e-6, slowest, out)
    if dag.n and not np.all(slowest > 0):
        w = int(np.flatnonzero(~(slowest > 0))[0])
        dead = [int(x) for x in dag.links.row(w) if not lane[x] > 0]
        why = "failed" if t.link_failed[dead[0]] else "given bandwidth 0"
        raise ValueError(f"workload {dag.describe(w)} crosses link {t.link_label(dead[0])}, which is {why}; "
                         f"a schedule must avoid it")
    out += np.divide(piece_bytes(dag, size), slowest, out=slowest)  # in place: the same sums, two (n,) floats alive
    return out


def path_latency(dag: WorkloadDAG, lat: np.ndarray) -> np.ndarray:
    """Seconds of link latency along every workload's path (`lat` in µs per directed link)."""
    out = np.empty(dag.n)
    _path_sums(dag.links.ptr, dag.links.values, np.empty(0), lat * 1e-6, np.empty(0), out)
    return out


@kernel(interpret_below=SMALL, nogil=True)
def _path_sums(lptr, lval, lane, lat, slowest, latency):  # pragma: no cover - compiled
    """Per workload, over its path's links in order: the slowest of `lane` into `slowest` (skipped when `lane` is
    empty) and the sum of `lat` into `latency`, added left to right from the first link's value: the same bits as
    numpy's ``sum(axis=1)`` over the padded link matrix (zeros padding the short rows), which this pass replaced
    with one read of the links' CSR instead of gathered (n, longest path) blocks (docs/scale.md)."""
    lanes = len(lane) > 0
    for w in range(len(lptr) - 1):
        s = np.inf
        t = 0.0
        for e in range(lptr[w], lptr[w + 1]):
            link = lval[e]
            if lanes and lane[link] < s:
                s = lane[link]
            t = lat[link] if e == lptr[w] else t + lat[link]
        if lanes:
            slowest[w] = s
        latency[w] = t


def longest_chain(dag: WorkloadDAG, weight: np.ndarray, *, forward: bool = False) -> np.ndarray:
    """For every workload, the heaviest prefix chain ending with it, itself included (with `forward`,
    the heaviest chain of successors starting with it: its remaining critical path, HEFT's upward rank).

    `weight` is (n,) or (n, k): k weightings are chained at once, column by column.
    """
    return dag.longest_chain(weight, forward=forward)


def algbw(size: float, seconds: float) -> float:
    """Algorithm bandwidth in bytes/s: size / time (nccl-tests, doc/PERFORMANCE.md)."""
    return float(size) / seconds if seconds > 0 else float("inf")


def busbw(size: float, seconds: float, ranks: int) -> float:
    """Bus bandwidth in bytes/s for AllReduce: algbw · 2(n-1)/n (nccl-tests, doc/PERFORMANCE.md)."""
    return algbw(size, seconds) * 2 * (ranks - 1) / ranks
