"""A schedule laid out for replay: per-round arrays computed once, so stepping a round only slices.

`Playback` re-arranges what core computed (the schedule's rounds, its DAG's link lists and
`Schedule.utilization()`); it decides nothing about the schedule itself. No Streamlit here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from typing import TYPE_CHECKING

import numpy as np

from core.schedule import Schedule
from core.timing.windows import busy_share, in_flight
from core.workloads import WorkloadDAG

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class RoundView:
    """What one round sends: each busy (directed link, workload) pair and the workload's flow-tree."""

    links: np.ndarray
    trees: np.ndarray
    workloads: np.ndarray
    phases: np.ndarray

    @property
    def n_links_busy(self) -> int:
        """Distinct directed links used in the round."""
        return len(np.unique(self.links))

    @property
    def n_workloads(self) -> int:
        """Workloads sent in the round."""
        return len(np.unique(self.workloads))


@dataclass(frozen=True, eq=False)
class Playback:
    """One method's schedule as flat per-round arrays (rounds are 0-based here)."""

    method: str
    dag: WorkloadDAG
    rounds: list[np.ndarray]
    stats: dict
    util_pct: np.ndarray
    """Percent of capacity used, uint8 (directed links x rounds)."""
    sent: np.ndarray
    """Workloads sent in each round."""
    busy: np.ndarray
    """Directed links used in each round."""
    ptr: np.ndarray
    link: np.ndarray
    tree: np.ndarray
    workload: np.ndarray
    info: dict = field(default_factory=dict)
    end_s: float | None = None
    """On a time axis: when the run finishes (s); None on the round axis."""

    @property
    def n_rounds(self) -> int:
        """Number of rounds of the schedule."""
        return len(self.sent)

    @property
    def n_links(self) -> int:
        """Number of directed links of the topology."""
        return self.util_pct.shape[0]

    @property
    def n_failed_links(self) -> int:
        """Directed links of failed edges (they carry nothing)."""
        return int(np.count_nonzero(self.dag.topology.link_failed))

    def round(self, r: int) -> RoundView:
        """The busy links of round r (0-based); empty past the last round."""
        if r < 0 or r >= self.n_rounds:
            empty = np.zeros(0, dtype=np.int64)
            return RoundView(empty, empty, empty, empty)
        a, b = self.ptr[r], self.ptr[r + 1]
        w = self.workload[a:b]
        return RoundView(self.link[a:b], self.tree[a:b], w, self.dag.phase[w])


def build_playback(schedule: Schedule) -> Playback:
    """Per-round arrays of a core schedule: link usage, flow-trees on links, counts, stats."""
    util = schedule.utilization()
    return _columns(schedule.method, schedule.dag, [np.asarray(r, dtype=np.int64) for r in schedule.rounds], util,
                    schedule.stats(), dict(schedule.info))


def build_time_playback(method: str, dag: WorkloadDAG, start: np.ndarray, finish: np.ndarray, edges_s: np.ndarray,
                        stats: dict, info: dict | None = None) -> Playback:
    """A run on a time axis: column j holds the workloads in flight during [edges_s[j], edges_s[j+1]) and each
    link's busy share of that interval (`core.timing.windows`); the columns stop at the run's end."""
    end = float(np.max(finish)) if len(finish) else 0.0
    n = int(np.clip(np.searchsorted(edges_s, end, side="left"), 1, len(edges_s) - 1))
    cols = [in_flight(start, finish, edges_s[j], edges_s[j + 1]) for j in range(n)]
    util = busy_share(dag, start, finish, edges_s[:n + 1])
    return replace(_columns(method, dag, cols, util, stats, dict(info or {})), end_s=end)


def _columns(method: str, dag: WorkloadDAG, rounds: list[np.ndarray], util: np.ndarray, stats: dict,
             info: dict) -> Playback:
    """Per-column arrays (a column is a round, or an interval of time): busy links, their workloads and trees."""
    links, trees, works, lens = [], [], [], []
    for ids in rounds:
        pos, lk = dag.links.gather(ids)
        w = ids[pos]
        links.append(lk)
        works.append(w)
        trees.append(dag.tree[w])
        lens.append(len(lk))
    ptr = np.zeros(len(rounds) + 1, dtype=np.int64)
    np.cumsum(lens, out=ptr[1:])
    cat = (lambda xs: np.concatenate(xs).astype(np.int64) if xs else np.zeros(0, np.int64))
    busy = (util > 0).sum(axis=0).astype(np.int64) if util.size else np.zeros(len(rounds), np.int64)
    return Playback(method=method, dag=dag, rounds=rounds, stats=stats,
                    util_pct=np.clip(np.rint(util * 100), 0, 255).astype(np.uint8),
                    sent=np.array([len(r) for r in rounds], dtype=np.int64), busy=busy, ptr=ptr,
                    link=cat(links), tree=cat(trees), workload=cat(works), info=info)


def heatmap_table(pb: Playback, columns: list[str] | None = None) -> pd.DataFrame:
    """The heatmap's numbers: percent per directed link (rows) and round (columns ``round 1``..., or `columns`)."""
    import pandas as pd  # only when a CSV is asked for: the first screen loads without pandas
    t = pb.dag.topology
    labels = [t.link_label(link) for link in range(t.n_links)]
    frame = pd.DataFrame(pb.util_pct.astype(int), columns=columns or [f"round {r + 1}" for r in range(pb.n_rounds)])
    frame.insert(0, "link", labels)
    frame.insert(0, "link_id", np.arange(t.n_links))
    return frame
