"""Workload DAGs as flat numpy arrays: merged trees, plain PS trees, and ring AllReduce.

A workload moves one shard piece from a server to the next server, cut-through over the
switches between them; in its round it occupies every directed link of its path. Its
*prefix* lists the workloads that must be sent in an earlier round. One **flow-tree** is one
(root, chunk) pair; tree ``t = root_index * chunks + chunk``.

Workload ids are grouped by tree: tree t's reduce workloads, then its broadcast workloads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from . import csr
from .csr import CSR
from .routing import Routes, compute_routes, send_segments
from .topology import Topology

REDUCE, BROADCAST = 0, 1
PHASES = ("reduce", "broadcast")
DAG_KINDS = ("tree", "plain", "ring")
"""What a method schedules: parameter-server trees (merged unless merge is off), plain trees
(merge always off: Parameter Server), or the server ring."""


@dataclass(frozen=True, eq=False)
class WorkloadDAG:
    """All workloads of one AllReduce, with their paths, links and prefixes.

    Attributes
    ----------
    topology : the graph.
    kind : ``"tree"`` (parameter-server trees) or ``"ring"``.
    merge : whether reduce workloads merge at servers (tree kind only).
    chunks : pieces per shard (k).
    tree, root, chunk, phase, src, dst, carries_own : one entry per workload.
    path : node ids of each workload (server, switches..., server).
    links : directed link ids of each workload.
    prefix : workload ids each workload waits for.
    tree_root, tree_chunk : one entry per flow-tree.
    """

    topology: Topology
    kind: str
    merge: bool
    chunks: int
    tree: np.ndarray
    root: np.ndarray
    chunk: np.ndarray
    phase: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    carries_own: np.ndarray
    path: CSR
    links: CSR
    prefix: CSR
    tree_root: np.ndarray
    tree_chunk: np.ndarray
    meta: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        """Number of workloads."""
        return len(self.tree)

    @property
    def n_trees(self) -> int:
        """Number of flow-trees."""
        return len(self.tree_root)

    @cached_property
    def successors(self) -> CSR:
        """For every workload, the workloads that list it as a prefix."""
        return self.prefix.transpose(self.n)

    @cached_property
    def n_prefix(self) -> np.ndarray:
        """Number of prefixes of every workload."""
        return self.prefix.lengths

    @cached_property
    def topo_levels(self) -> list[np.ndarray]:
        """Workloads by level: level 0 has no prefix; level i waits on level < i (raises if cyclic)."""
        remaining = self.n_prefix.copy()
        frontier = np.flatnonzero(remaining == 0)
        levels, seen = [], 0
        while len(frontier):
            levels.append(frontier)
            seen += len(frontier)
            _, succ = self.successors.gather(frontier)
            np.subtract.at(remaining, succ, 1)
            cand = np.unique(succ)
            frontier = cand[remaining[cand] == 0]
        if seen != self.n:
            raise ValueError("the prefix relation has a cycle")
        return levels

    @cached_property
    def head(self) -> np.ndarray:
        """Longest chain of prefixes before each workload (0 if it has none): its earliest round."""
        return _chain_lengths(self.topo_levels, self.prefix, start=0)

    @cached_property
    def tail(self) -> np.ndarray:
        """Longest chain starting at each workload, itself included (its remaining critical path)."""
        return _chain_lengths(self.topo_levels[::-1], self.successors, start=1)

    @cached_property
    def links_padded(self) -> np.ndarray:
        """Links of every workload as an (n, longest path) matrix padded with the sentinel id n_links."""
        lens = self.links.lengths
        width = max(1, int(lens.max()) if self.n else 1)
        out = np.full((self.n, width), self.topology.n_links, dtype=np.int64)
        rows = self.links.rows_of_values()
        cols = np.arange(len(rows)) - self.links.ptr[rows]
        out[rows, cols] = self.links.values
        return out

    @cached_property
    def link_columns(self) -> tuple[np.ndarray, ...]:
        """The columns of `links_padded`, each contiguous: column j holds every workload's j-th link."""
        return tuple(np.ascontiguousarray(c) for c in self.links_padded.T)

    @cached_property
    def link_load(self) -> np.ndarray:
        """Number of workloads that cross each directed link."""
        return np.bincount(self.links.values, minlength=self.topology.n_links)

    def payload(self, w: int) -> list[int]:
        """Servers whose pieces workload w carries: for a reduce workload its sender's (if it
        carries its own) and, recursively, those of its reduce prefixes; for a broadcast, every
        server (the tree's sum)."""
        if self.phase[w] == BROADCAST:
            return self.topology.servers.tolist()
        out, stack, seen = set(), [int(w)], set()
        while stack:
            x = stack.pop()
            if x in seen:
                continue
            seen.add(x)
            if self.carries_own[x]:
                out.add(int(self.src[x]))
            stack.extend(p for p in self.prefix.row(x).tolist() if self.phase[p] == REDUCE)
        return sorted(out)

    def workload(self, w: int) -> dict:
        """One workload as a plain dict (the schedule file's form)."""
        return {
            "id": int(w), "root": int(self.root[w]), "chunk": int(self.chunk[w]),
            "phase": PHASES[int(self.phase[w])], "path": self.path.row(w).tolist(),
            "prefix": self.prefix.row(w).tolist(), "carries_own": bool(self.carries_own[w]),
        }

    def describe(self, w: int, shown_id: int | None = None) -> str:
        """A short readable name: ``#12 reduce s01->s11 (tree s11)`` (`shown_id` replaces the id)."""
        lab = self.topology.labels
        return (f"#{int(w) if shown_id is None else shown_id} {PHASES[int(self.phase[w])]} {lab[self.src[w]]}->{lab[self.dst[w]]} "
                f"(tree {lab[self.root[w]]}{'' if self.chunks == 1 else f'/{int(self.chunk[w])}'})")


def _chain_lengths(levels: list[np.ndarray], rel: CSR, start: int) -> np.ndarray:
    """Longest chain through `rel`, level by level: x[w] = max(start, max over rel(w) of x + 1)."""
    n = sum(len(level) for level in levels)
    out = np.full(n, start, dtype=np.int64)
    for level in levels[1:]:
        pos, other = rel.gather(level)
        best = np.full(len(level), start, dtype=np.int64)
        np.maximum.at(best, pos, out[other] + 1)
        out[level] = best
    return out


def assemble_dag(topology: Topology, kind: str, merge: bool, chunks: int, *, tree, phase, carries_own,
              path: CSR, prefix: CSR, tree_root, tree_chunk, meta=None) -> WorkloadDAG:
    """A WorkloadDAG from per-workload trees, phases, paths and prefixes (src, dst and links derived from the paths)."""
    p = path
    lens = p.lengths
    src = p.values[p.ptr[:-1]]
    dst = p.values[p.ptr[1:] - 1]
    keep = np.ones(len(p.values), dtype=bool)
    keep[p.ptr[1:] - 1] = False  # the last node of each path starts no link
    a = p.values[keep]
    b = p.values[np.flatnonzero(keep) + 1]
    link_vals = topology.link_ids_of(a, b)
    lptr = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(lens - 1, out=lptr[1:])
    tree = np.asarray(tree, dtype=np.int64)
    return WorkloadDAG(
        topology=topology, kind=kind, merge=merge, chunks=chunks, tree=tree,
        root=np.asarray(tree_root)[tree], chunk=np.asarray(tree_chunk)[tree],
        phase=np.asarray(phase, dtype=np.int8), src=src, dst=dst,
        carries_own=np.asarray(carries_own, dtype=bool), path=path, links=CSR(lptr, link_vals),
        prefix=prefix, tree_root=np.asarray(tree_root, dtype=np.int64),
        tree_chunk=np.asarray(tree_chunk, dtype=np.int64), meta=meta or {})


def _check_chunks(chunks: int) -> None:
    if not isinstance(chunks, (int, np.integer)) or chunks < 1:
        raise ValueError(f"chunks must be an integer >= 1, got {chunks!r}")


def build_dag(topology: Topology, kind: str = "tree", *, merge: bool = True, chunks: int = 1,
              routing: str = "shortest", routes: Routes | None = None) -> WorkloadDAG:
    """The workload DAG of one kind (`DAG_KINDS`) over `topology`'s routes."""
    if kind not in DAG_KINDS:
        raise ValueError(f"DAG kind must be one of {', '.join(DAG_KINDS)}, got {kind!r}")
    routes = routes or compute_routes(topology, routing)
    if kind == "ring":
        return ring_dag(topology, chunks=chunks, routes=routes)
    return tree_dag(topology, merge=merge and kind == "tree", chunks=chunks, routes=routes)


def tree_dag(topology: Topology, *, merge: bool = True, chunks: int = 1,
             routes: Routes | None = None) -> WorkloadDAG:
    """Parameter-server AllReduce: one flow-tree per (root server, chunk), reduce then broadcast."""
    _check_chunks(chunks)
    routes = routes or compute_routes(topology)
    root_of, phase, own, path, prefix = (_merged_tree if merge else _plain_tree)(routes)
    if chunks > 1:
        root_of, phase, own, path, prefix, chunk_of = _replicate_chunks(root_of, phase, own, path, prefix, chunks)
        tree = root_of * chunks + chunk_of
    else:
        tree = root_of
    s = topology.n_servers
    return assemble_dag(topology, "tree", merge, chunks, tree=tree, phase=phase, carries_own=own, path=path,
                     prefix=prefix, tree_root=np.repeat(topology.servers, chunks),
                     tree_chunk=np.tile(np.arange(chunks), s), meta={"routing": routes.mode})


def _replicate_chunks(group: np.ndarray, phase, own, path: CSR, prefix: CSR, chunks: int):
    """Repeat workloads grouped by `group` (ids contiguous per group) once per chunk.

    Group g's block of size m_g becomes `chunks` consecutive blocks, one per chunk.
    """
    n1 = len(group)
    counts = np.bincount(group)
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    offset = np.arange(n1) - starts[group]

    def new_id(old: np.ndarray, c: int) -> np.ndarray:
        g = group[old]
        return starts[g] * chunks + c * counts[g] + offset[old]

    n = n1 * chunks
    src_row = np.empty(n, dtype=np.int64)
    chunk_of = np.empty(n, dtype=np.int64)
    pre_r, pre_v = [], []
    old_rows = prefix.rows_of_values()
    for c in range(chunks):
        ids = new_id(np.arange(n1), c)
        src_row[ids] = np.arange(n1)
        chunk_of[ids] = c
        pre_r.append(new_id(old_rows, c))
        pre_v.append(new_id(prefix.values, c))
    new_prefix = csr.from_pairs(np.concatenate(pre_r), np.concatenate(pre_v), n)
    return group[src_row], phase[src_row], own[src_row], _permute_rows(path, src_row), new_prefix, chunk_of


def _merged_tree(routes: Routes):
    """Merge on: each non-root server sends one reduce workload to its parent, and gets one broadcast.

    Returns per-workload (root index, phase, carries_own, path, prefix) with ids grouped by root:
    root i's block is its S-1 reduce workloads (servers ascending), then the S-1 broadcasts.
    """
    s = routes.parent.shape[0]
    par = routes.parent
    ri, rj = np.nonzero(par >= 0)  # row-major: root, then server
    local = np.arange(len(ri)) - ri * (s - 1)
    red_id = ri * 2 * (s - 1) + local
    bc_id = red_id + (s - 1)
    n = 2 * len(ri)
    red_of = np.full((s, s), -1, dtype=np.int64)
    red_of[ri, rj] = red_id
    bc_of = np.full((s, s), -1, dtype=np.int64)
    bc_of[ri, rj] = bc_id
    pj = par[ri, rj]
    inner = pj != ri

    # reduce: (i, j) is a prefix of its parent's reduce workload (when the parent is not the root)
    rows = [red_of[ri[inner], pj[inner]]]
    vals = [red_id[inner]]
    # broadcast from the root waits for every reduce workload into the root
    into_root = csr.from_pairs(ri[~inner], red_id[~inner], s)
    pos, v = into_root.gather(ri[~inner])
    rows.append(bc_id[~inner][pos])
    vals.append(v)
    # any other broadcast waits for the broadcast into its sender
    rows.append(bc_id[inner])
    vals.append(bc_of[ri[inner], pj[inner]])
    prefix = csr.from_pairs(np.concatenate(rows), np.concatenate(vals), n)

    seg = routes.seg_nodes[ri, rj]
    padded = np.empty((n, seg.shape[1]), dtype=np.int64)
    padded[red_id] = seg
    padded[bc_id] = seg[:, ::-1]
    root_of = np.empty(n, dtype=np.int64)
    root_of[red_id] = ri
    root_of[bc_id] = ri
    phase = np.full(n, BROADCAST, dtype=np.int8)
    phase[red_id] = REDUCE
    return root_of, phase, phase == REDUCE, csr.from_padded(padded), prefix


def _permute_rows(m: CSR, rows: np.ndarray) -> CSR:
    """A CSR whose row k is row rows[k] of m."""
    _, vals = m.gather(rows)
    lens = m.lengths[rows]
    ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lens, out=ptr[1:])
    return CSR(ptr, vals)


def _plain_tree(routes: Routes):
    """Merge off: every server's piece travels to the root on its own, hop by hop, then back."""
    s = routes.parent.shape[0]
    par = routes.parent
    depth = routes.depth
    tree, phase, own, paths, pre_rows, pre_vals = [], [], [], [], [], []
    next_id = 0
    for i in range(s):
        reduce_last = []  # the hop into the root of each origin's chain
        for j in range(s):
            if j == i:
                continue
            cur, prev = j, -1
            for d in range(depth[i, j]):
                w = next_id
                next_id += 1
                tree.append(i)
                phase.append(REDUCE)
                own.append(d == 0)
                paths.append(routes.seg_nodes[i, cur, : routes.seg_len[i, cur] + 1])
                if prev >= 0:
                    pre_rows.append(w)
                    pre_vals.append(prev)
                prev = w
                cur = par[i, cur]
            reduce_last.append(prev)
        for j in range(s):
            if j == i:
                continue
            chain = [j]
            while par[i, chain[-1]] != i:
                chain.append(par[i, chain[-1]])
            prev = -1
            for hop in reversed(chain):  # root -> ... -> j; `hop` is the receiving server
                w = next_id
                next_id += 1
                tree.append(i)
                phase.append(BROADCAST)
                own.append(False)
                paths.append(routes.seg_nodes[i, hop, : routes.seg_len[i, hop] + 1][::-1])
                if prev >= 0:
                    pre_rows.append(w)
                    pre_vals.append(prev)
                else:
                    pre_rows.extend([w] * len(reduce_last))
                    pre_vals.extend(reduce_last)
                prev = w
    n = next_id
    return (np.array(tree, np.int64), np.array(phase, np.int8), np.array(own, bool),
            csr.from_lists(paths), csr.from_pairs(np.array(pre_rows, np.int64), np.array(pre_vals, np.int64), n))


def ring_dag(topology: Topology, *, chunks: int = 1, routes: Routes | None = None,
             order: list[int] | None = None) -> WorkloadDAG:
    """Ring AllReduce: S chains (one per ring chunk, x `chunks` pieces) of 2(S-1) sends each.

    Chunk c (by ring position) is reduced along c -> c+1 -> ... -> c-1 (reduce-scatter), then
    the sum travels c-1 -> c -> ... -> c-2 (all-gather). A send whose route crosses another
    server is split there into relay workloads (carries_own = False).
    """
    from .ring import ring_order

    _check_chunks(chunks)
    routes = routes or compute_routes(topology)
    adjacent = None
    if order is None:
        order, adjacent = ring_order(topology, routes)
    s = len(order)
    if sorted(order) != topology.servers.tolist():
        raise ValueError("a ring order must list every server exactly once")
    # segments of the send from ring position a to a+1, split at intermediate servers
    hop_segments: list[list[list[int]]] = []
    for a in range(s):
        # a ring-adjacent pair talks over switches only; otherwise the routed path, relayed at servers
        hop_segments.append(send_segments(topology, routes, order[a], order[(a + 1) % s]))

    tree, phase, own, paths, pre_rows, pre_vals = [], [], [], [], [], []
    tree_root, tree_chunk = [], []
    for c in range(s):
        for q in range(chunks):
            t = len(tree_root)
            tree_root.append(order[(c - 1) % s])
            tree_chunk.append(q)
            prev = -1
            for ph, first in ((REDUCE, c), (BROADCAST, c - 1)):
                for step in range(s - 1):
                    for m, seg in enumerate(hop_segments[(first + step) % s]):
                        w = len(tree)
                        tree.append(t)
                        phase.append(ph)
                        own.append(ph == REDUCE and m == 0)
                        paths.append(seg)
                        if prev >= 0:
                            pre_rows.append(w)
                            pre_vals.append(prev)
                        prev = w
    n = len(tree)
    return assemble_dag(topology, "ring", False, chunks, tree=np.array(tree), phase=np.array(phase, np.int8),
                     carries_own=np.array(own), path=csr.from_lists(paths),
                     prefix=csr.from_pairs(np.array(pre_rows, np.int64), np.array(pre_vals, np.int64), n),
                     tree_root=np.array(tree_root), tree_chunk=np.array(tree_chunk),
                     meta={"routing": routes.mode, "ring": [int(x) for x in order],
                           "ring_adjacent": adjacent})
