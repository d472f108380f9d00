"""Observations of both agents: per-candidate and per-flow-tree feature vectors.

Every feature is normalized so that one network, with weights shared across candidates,
runs on any topology and any size. The observer keeps the per-episode static data (chain
lengths, a backward schedule) and reads the dynamic state from the engine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from ..bounds import lower_bounds
from ..engine import Engine, RoundBuilder, list_schedule
from ..jit import kernel
from ..priorities import critical_path_rank
from ..workloads import WorkloadDAG

FEATURES_VERSION = 3

LOWER_FEATURES = (  # what each is: LOWER_MEANINGS below
    "tail",
    "link_pressure_max",
    "link_pressure_mean",
    "path_links",
    "successors",
    "desc_pressure",
    "slack",
    "broadcast",
    "tree_progress",
    "pool_conflicts",
    "round_progress",
    "tail_rank",
    "unlock_starving",
)
"""Every round-start feature the observer computes, by name. A checkpoint's sidecar lists the ones its
policy reads, in its order (`Observer.lower`'s `names`): checkpoints made before `unlock_starving`
existed list the first twelve and keep their schedules."""
ADDED_FEATURES = ("unlock_starving",)
"""Lower features added after the first checkpoints. A new network starts with zero first-layer weights on
them and draws its other weights as a network without them would (`policy._mlp`), so with the same seed its
untrained function and a training run's random start are those of the twelve-feature network."""
DYNAMIC_FEATURES = (  # what each is: LOWER_MEANINGS below
    "conflicts_valid",
    "conflicts_rel",
    "exclusive_links",
)
UPPER_FEATURES = (  # what each is: UPPER_MEANINGS below
    "remaining",
    "ready",
    "tail",
    "pressure",
    "slack",
    "last_selected",
    "shared_links",
    "round_progress",
    "sent_last_round",
)


# what each feature is, one line each (the tuples above once carried these as comments), for the policy debugger
# (trial 26: the page showed bare names); tests/rl keeps their keys equal to the tuples'
LOWER_MEANINGS = {
    "tail": "remaining chain from the workload / remaining-rounds estimate",
    "link_pressure_max": "max over its links of remaining load / max remaining link load",
    "link_pressure_mean": "mean of the same over its links",
    "path_links": "number of links it occupies / the longest path",
    "successors": "workloads it unlocks / the most any workload unlocks",
    "desc_pressure": "max link pressure among itself and its descendants",
    "slack": "latest round in a backward schedule minus now, / lower bound",
    "broadcast": "1 for broadcast, 0 for reduce",
    "tree_progress": "share of its flow-tree already sent",
    "pool_conflicts": "pool candidates sharing a link with it / pool size",
    "round_progress": "rounds so far / lower bound",
    "tail_rank": "its chain length's rank in the pool, 0 (shortest) .. 1 (longest)",
    "unlock_starving": "largest pressure of a link it makes work ready on that has at most one round of it",
    "conflicts_valid": "within the round: valid candidates sharing a link with it / valid candidates",
    "conflicts_rel": "the same count / the largest such count among valid candidates",
    "exclusive_links": "share of its links that no other valid candidate needs",
}
"""One line per lower-agent feature (round-start and within-round), by name."""
UPPER_MEANINGS = {
    "remaining": "share of the tree not yet sent",
    "ready": "ready workloads of the tree / (S - 1)",
    "tail": "longest remaining chain in the tree / remaining-rounds estimate",
    "pressure": "max link pressure over its ready workloads",
    "slack": "least slack over its ready workloads",
    "last_selected": "the upper agent's last action for this tree (paper: last action)",
    "shared_links": "share of its ready workloads on a link another ready workload needs",
    "round_progress": "rounds so far / lower bound",
    "sent_last_round": "its workloads sent last round / (S - 1)",
}
"""One line per upper-agent feature, by name."""


class Observer:
    """Computes both agents' features for one DAG from an engine's state."""

    def __init__(self, dag: WorkloadDAG):
        dag = dag.explicit()  # prefix groups (plain PS DAGs) expanded: RL runs on small DAGs
        self.dag = dag
        self.n_links_of = dag.links.lengths
        self.max_links = max(1, int(self.n_links_of.max()))
        self.succ_count = dag.successors.lengths
        self.max_succ = max(1, int(self.succ_count.max()))
        self.lb0 = max(1, lower_bounds(dag).best)
        self.latest = backward_latest(dag)
        self.tree_size = np.bincount(dag.tree, minlength=dag.n_trees)
        self.per_tree = max(1, dag.topology.n_servers - 1)
        self._link_rows, self._link_vals = dag.links.rows_of_values(), dag.links.values
        self._rev_order = dag.topo_order[::-1].astype(np.int64)  # successors first: the descendants' sweep
        self._tree_max_tail = np.zeros(dag.n_trees)
        np.maximum.at(self._tree_max_tail, dag.tree, dag.tail)
        self._cache: tuple | None = None  # (engine, rounds applied, unsent load per link, sent per tree)

    def state(self, engine: Engine) -> "RoundState":
        """Dynamic quantities shared by both agents' features at the start of a round."""
        dag = self.dag
        sent = engine.sent_round >= 0
        rem, tree_sent = self._counts(engine, sent)
        rem = rem / dag.topology.link_capacity
        lmax = max(1.0, float(rem.max()))
        press, desc = _pressures(rem / lmax, dag.links.ptr, dag.links.values, sent, self._rev_order,
                                 dag.successors.ptr, dag.successors.values)
        ready = engine.ready_mask()
        # the longest unsent chain starts at a ready workload (an unsent prefix would be longer)
        tails = dag.tail[ready]
        lb_rem = max(lmax, float(tails.max()) if len(tails) else 1.0, 1.0)
        return RoundState(rem, lmax, press, desc, lb_rem, tree_sent, ready, engine.n_rounds, sent)

    def _counts(self, engine: Engine, sent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Unsent load per directed link (float) and workloads sent per tree; updated from the
        last round when asked every round of one engine, else counted from scratch."""
        dag = self.dag
        c = self._cache
        if c is not None and c[0] is engine and c[1] + 1 == engine.n_rounds:
            last = engine.last_round
            rem = c[2] - np.bincount(dag.links.gather(last)[1], minlength=len(c[2]))
            tree_sent = c[3] + np.bincount(dag.tree[last], minlength=dag.n_trees)
        else:
            rem = np.bincount(self._link_vals[~sent[self._link_rows]], minlength=dag.topology.n_links)
            tree_sent = np.bincount(dag.tree[sent], minlength=dag.n_trees)
        self._cache = (engine, engine.n_rounds, rem, tree_sent)
        return rem.astype(np.float64), tree_sent

    def lower(self, st: "RoundState", cand: np.ndarray, names: Sequence[str] = LOWER_FEATURES) -> np.ndarray:
        """Features `names` (default all of `LOWER_FEATURES`, in that order) of candidate workloads,
        float32 (len(cand), len(names))."""
        cols = lower_columns(names)
        full = self._lower(st, cand, with_unlock=LOWER_FEATURES.index("unlock_starving") in cols)
        return full if cols == list(range(len(LOWER_FEATURES))) else np.ascontiguousarray(full[:, cols])

    def _lower(self, st: "RoundState", cand: np.ndarray, with_unlock: bool) -> np.ndarray:
        dag = self.dag
        pos, lk = dag.links.gather(cand)
        k = len(cand)
        mean = np.bincount(pos, weights=st.remaining[lk] / st.lmax, minlength=k) / np.maximum(self.n_links_of[cand], 1)
        on_link = np.bincount(lk, minlength=dag.topology.n_links)
        conflicts = np.bincount(pos, weights=on_link[lk] - 1, minlength=k)
        tails = dag.tail[cand]
        rank = np.argsort(np.argsort(tails, kind="stable"), kind="stable") / max(1, k - 1)
        out = np.stack([
            tails / st.lb_rem,
            st.pressure[cand],
            mean,
            self.n_links_of[cand] / self.max_links,
            self.succ_count[cand] / self.max_succ,
            st.desc_pressure[cand],
            (self.latest[cand] - st.round) / self.lb0,
            dag.phase[cand].astype(np.float64),
            st.tree_sent[dag.tree[cand]] / self.tree_size[dag.tree[cand]],
            conflicts / max(1, k),
            np.full(k, st.round / self.lb0),
            rank,
            self.unlock_starving(st, cand) if with_unlock else np.zeros(k),
        ], axis=1)
        return out.astype(np.float32)

    def unlock_starving(self, st: "RoundState", cand: np.ndarray) -> np.ndarray:
        """`unlock_starving` of each candidate: over its unsent successors whose only unsent prefix it is
        (sending it makes them ready next round), the largest remaining load / lmax of their links that
        hold at most one round of ready work (ready workloads on the link <= its capacity: the link runs
        out next round unless something is unlocked); 0 where it unlocks no work on such a link."""
        dag = self.dag
        return _unlock_starving(np.asarray(cand, np.int64), np.flatnonzero(st.ready), st.round_sent,
                                st.remaining / st.lmax, dag.topology.link_capacity, dag.links.ptr, dag.links.values,
                                dag.successors.ptr, dag.successors.values, dag.deps.ptr, dag.deps.values)

    def upper(self, st: "RoundState", last_selected: np.ndarray, sent_last: np.ndarray) -> np.ndarray:
        """Features of every flow-tree, float32 (n_trees, len(UPPER_FEATURES))."""
        dag = self.dag
        nt = dag.n_trees
        ready_count, pressure, slack, shared_tree = _tree_reductions(
            np.flatnonzero(st.ready), dag.tree, nt, st.pressure, self.latest, st.round, self.lb0,
            dag.links.ptr, dag.links.values, dag.topology.n_links)
        # the longest chain of a tree with work left (its first workload's, as sent ones count too)
        max_tail = np.where(st.tree_sent < self.tree_size, self._tree_max_tail, 0.0)
        out = np.stack([
            1.0 - st.tree_sent / self.tree_size,
            ready_count / self.per_tree,
            max_tail / st.lb_rem,
            pressure,
            slack,
            last_selected.astype(np.float64),
            shared_tree,
            np.full(nt, st.round / self.lb0),
            sent_last / self.per_tree,
        ], axis=1)
        return out.astype(np.float32)


@dataclasses.dataclass
class RoundState:
    """What both agents see of the engine at the start of a round."""

    remaining: np.ndarray       # remaining load per directed link (in capacity units)
    lmax: float                 # the largest remaining link load (>= 1)
    pressure: np.ndarray        # per workload: max remaining load of its links / lmax
    desc_pressure: np.ndarray   # per workload: max pressure of itself and its unsent descendants
    lb_rem: float               # remaining-rounds estimate: max(lmax, longest unsent chain)
    tree_sent: np.ndarray       # workloads sent per tree
    ready: np.ndarray           # ready mask
    round: int                  # rounds applied so far
    round_sent: np.ndarray      # sent mask at the start of the round


def lower_columns(names: Sequence[str]) -> list[int]:
    """Column of each name in `LOWER_FEATURES`; ValueError naming the first unknown or repeated one."""
    cols = []
    for n in names:
        if n not in LOWER_FEATURES:
            raise ValueError(f"unknown lower feature {n!r}; known: {', '.join(LOWER_FEATURES)}")
        if LOWER_FEATURES.index(n) in cols:
            raise ValueError(f"lower feature {n!r} listed twice")
        cols.append(LOWER_FEATURES.index(n))
    return cols


@kernel
def _unlock_starving(cand, ready, sent, load, cap, lptr, lval, sptr, sval, dptr, dval):  # pragma: no cover - compiled
    """See `Observer.unlock_starving`; `load` is remaining load / lmax per link."""
    on_link = np.zeros(len(cap), np.int64)
    for w in ready:
        for e in range(lptr[w], lptr[w + 1]):
            on_link[lval[e]] += 1
    out = np.zeros(len(cand), np.float64)
    for i in range(len(cand)):
        w = cand[i]
        best = 0.0
        for e in range(sptr[w], sptr[w + 1]):
            s = sval[e]
            if sent[s]:
                continue
            last = True  # w is the only unsent prefix of s
            for f in range(dptr[s], dptr[s + 1]):
                p = dval[f]
                if p != w and not sent[p]:
                    last = False
                    break
            if not last:
                continue
            for f in range(lptr[s], lptr[s + 1]):
                x = lval[f]
                if on_link[x] <= cap[x] and load[x] > best:
                    best = load[x]
        out[i] = best
    return out


@kernel
def _tree_reductions(ready, tree, nt, pressure, latest, now, lb0, lptr, lval, n_links):  # pragma: no cover - compiled
    """Per flow-tree over the `ready` workloads: their count, their largest link pressure (0 with
    none), their least slack (at most 1) and the share of them on a link another ready one needs."""
    count = np.zeros(nt, np.int64)
    press = np.zeros(nt, np.float64)
    slack = np.ones(nt, np.float64)
    on_link = np.zeros(n_links, np.int64)
    for w in ready:
        t = tree[w]
        count[t] += 1
        if pressure[w] > press[t]:
            press[t] = pressure[w]
        sl = (latest[w] - now) / lb0
        if sl < slack[t]:
            slack[t] = sl
        for e in range(lptr[w], lptr[w + 1]):
            on_link[lval[e]] += 1
    shared = np.zeros(nt, np.float64)
    for w in ready:
        for e in range(lptr[w], lptr[w + 1]):
            if on_link[lval[e]] > 1:
                shared[tree[w]] += 1.0
                break
    for t in range(nt):
        shared[t] /= max(count[t], 1)
    return count, press, slack, shared


@kernel
def _pressures(load, lptr, lval, sent, rev_order, sptr, sval):  # pragma: no cover - compiled
    """(link pressure, descendants' pressure) of every workload: the max of `load` over its links
    (0 with none), and 0 if sent, else the max of its own and its successors' descendants' pressure."""
    n = len(lptr) - 1
    press = np.zeros(n, np.float64)
    desc = np.zeros(n, np.float64)
    for w in range(n):
        p = 0.0
        for e in range(lptr[w], lptr[w + 1]):
            if load[lval[e]] > p:
                p = load[lval[e]]
        press[w] = p
    for w in rev_order:
        if sent[w]:
            continue
        best = press[w]
        for e in range(sptr[w], sptr[w + 1]):
            if desc[sval[e]] > best:
                best = desc[sval[e]]
        desc[w] = best
    return press, desc


def dynamic_features(builder: "RoundBuilder") -> np.ndarray:
    """Within-round features of every pool candidate given the picks so far, float32 (k, 3)."""
    deg, alone = builder.conflicts()
    top = max(1.0, float(deg[builder.valid].max())) if builder.n_valid else 1.0
    d = np.empty((len(deg), 3), dtype=np.float32)
    d[:, 0] = deg / max(1, builder.n_valid)
    d[:, 1] = deg / top
    d[:, 2] = alone
    return d


def backward_latest(dag: WorkloadDAG) -> np.ndarray:
    """Latest round of each workload in a backward critical-path list schedule of the reversed DAG.

    Scheduling the reversed DAG from the end gives each workload a round by which it is
    needed (the idea of forward-backward improvement); ``latest - now`` is its slack.
    """
    rev = dag.reverse()
    rounds = list_schedule(rev, critical_path_rank(rev))
    latest = np.empty(dag.n, dtype=np.int64)
    last = len(rounds) - 1
    for r, ids in enumerate(rounds):
        latest[ids] = last - r
    return latest
