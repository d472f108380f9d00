"""Workload DAGs as flat numpy arrays: merged trees, plain PS trees, and ring AllReduce.

A workload moves one shard piece from a server to the next server, cut-through over the
switches between them; in its round it occupies every directed link of its path. Its
*prefix* lists the workloads that must be sent in an earlier round. One **flow-tree** is one
(root, chunk) pair; tree ``t = root_index * chunks + chunk``.

Workload ids are grouped by tree: tree t's reduce workloads, then its broadcast workloads.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from . import csr
from .csr import CSR
from .jit import SMALL, both, kernel
from .route_classes import class_table, classes_of
from .routing import Routes, compute_routes, send_segments
from .topology import Topology

REDUCE, BROADCAST = 0, 1
PHASES = ("reduce", "broadcast")
DAG_KINDS = ("tree", "plain", "ring")
"""What a method schedules: parameter-server trees (merged unless merge is off), plain trees
(merge always off: Parameter Server), or the server ring."""


_CLASSES = "_route_classes"
"""Where a builder leaves the route classes it found (`WorkloadDAG.take_route_classes`)."""
_CHAINS = "_chains"
"""Where the plain PS builder leaves the chains that imply its successors (`WorkloadDAG.chains`)."""

NEXT, INTO_ROOT, FIRST_BROADCAST = 1, 2, 4
"""Bits of `PlainChains.marks`: the workload's successor is w + 1 (not the last hop of its chain); it is the last
reduce hop of its chain (its successor is its tree's prefix group); it is the first broadcast hop of its chain
(a waiter of its tree's group). A last broadcast hop has neither of the first two: no successor."""


def _no_groups() -> CSR:
    return CSR(np.zeros(1, np.int64), np.zeros(0, csr.ID))


@dataclass(frozen=True, eq=False)
class WorkloadDAG:
    """All workloads of one AllReduce, with their paths, links and prefixes.

    Attributes
    ----------
    topology : the graph.
    kind : ``"tree"`` (parameter-server trees) or ``"ring"``.
    merge : whether reduce workloads merge at servers (tree kind only).
    chunks : pieces per shard (k).
    tree, phase, carries_own : one entry per workload (`root`, `chunk`, `src`, `dst` are derived).
    links : directed link ids of each workload.
    path : node ids of each workload (server, switches..., server): given to `assemble_dag`, or
        derived from `links` when first read (the tree DAGs: one array less at scale).
    prefix : what each workload waits for: a value v < n is workload v; v >= n is the
        **prefix group** v - n, which stands for every workload of ``groups.row(v - n)``
        (docs/scale.md: each broadcast of the plain PS DAG waits for the S-1 reduce hops into
        its root; one shared group per tree keeps that O(S^2) instead of O(S^3)).
    tree_root, tree_chunk : one entry per flow-tree.
    groups : the members (workload ids) of each prefix group; none by default.
    """

    topology: Topology
    kind: str
    merge: bool
    chunks: int
    tree: np.ndarray
    phase: np.ndarray
    carries_own: np.ndarray
    links: CSR
    prefix: CSR
    tree_root: np.ndarray
    tree_chunk: np.ndarray
    meta: dict = field(default_factory=dict)
    groups: CSR = field(default_factory=lambda: _no_groups())

    @property
    def n(self) -> int:
        """Number of workloads."""
        return len(self.tree)

    @cached_property
    def root(self) -> np.ndarray:
        """Root server of each workload's flow-tree."""
        return self.tree_root[self.tree]

    @cached_property
    def chunk(self) -> np.ndarray:
        """Chunk of each workload's flow-tree."""
        return self.tree_chunk[self.tree]

    @cached_property
    def path(self) -> CSR:
        """Node ids of each workload: its first link's tail, then every link's head."""
        lk = self.links
        if self.n and (lk.ptr[1:] == lk.ptr[:-1]).any():
            raise ValueError("a workload without links has no path to derive; give the paths")
        t = self.topology
        return CSR(*_path_nodes(lk.ptr, lk.values, t.link_src.astype(csr.ID), t.link_dst.astype(csr.ID)))

    @cached_property
    def src(self) -> np.ndarray:
        """Sending server of each workload."""
        if "path" in self.__dict__:
            return self.path.values[self.path.ptr[:-1]]
        return csr.ids(self.topology.link_src[self.links.values[self.links.ptr[:-1]]])

    @cached_property
    def dst(self) -> np.ndarray:
        """Receiving server of each workload."""
        if "path" in self.__dict__:
            return self.path.values[self.path.ptr[1:] - 1]
        return csr.ids(self.topology.link_dst[self.links.values[self.links.ptr[1:] - 1]])

    def take_route_classes(self) -> "PlainClasses | None":
        """Where the route classes (`core.greedy`: workloads with the same link tuple) can be found without
        hashing every workload's links, handed over once: the plain PS DAG of one chunk keeps its hops
        (`PlainClasses`) for the first list scheduler, which finds the classes from them and then drops them
        (≈ 400 MB at 4096 servers that a DAG kept afterwards does not hold). None afterwards, and for every
        other DAG: the scheduler then hashes the links."""
        return self.__dict__.pop(_CLASSES, None)

    def _replace(self, **changes) -> "WorkloadDAG":
        """`dataclasses.replace` that keeps given paths (everything else derived is derived afresh)."""
        out = dataclasses.replace(self, **changes)
        if "path" in self.__dict__:
            out.__dict__["path"] = self.__dict__["path"]
        return out

    @property
    def n_trees(self) -> int:
        """Number of flow-trees."""
        return len(self.tree_root)

    @property
    def n_groups(self) -> int:
        """Number of prefix groups."""
        return self.groups.n_rows

    @cached_property
    def deps(self) -> CSR:
        """The prefix relation over workloads and groups: rows 0..n-1 are `prefix`, row n + g lists
        group g's members (a group is a node that is done once all its members are sent)."""
        if self.n_groups == 0:
            return self.prefix
        return CSR(np.r_[self.prefix.ptr, self.prefix.ptr[-1] + self.groups.ptr[1:]],
                   csr.ids(np.r_[self.prefix.values, self.groups.values]))

    @property
    def chains(self) -> "PlainChains | None":
        """The chains that imply this DAG's successors, when its builder kept them (the plain PS DAG of one
        chunk: `PlainChains`); None for every other DAG, and for one made from it by `_replace`."""
        return self.__dict__.get(_CHAINS)

    @cached_property
    def successors(self) -> CSR:
        """For every workload (then every group n + g), the workloads and groups that list it (the plain PS DAG
        does not store them: they are written from its chains when first read, `PlainChains.successors`)."""
        chains = self.chains
        if chains is not None:
            return chains.successors(self.tree, self.deps.ptr.dtype)
        return self.deps.transpose(self.n + self.n_groups)

    @cached_property
    def n_prefix(self) -> np.ndarray:
        """Number of prefix entries of every workload (a group counts once)."""
        return self.prefix.lengths

    @cached_property
    def successor_count(self) -> np.ndarray:
        """Number of workloads that wait for each workload, directly or through a group."""
        n, s = self.n, self.successors
        if self.n_groups == 0:
            return s.lengths
        rows = s.rows_of_values()
        own = rows < n
        direct = np.bincount(rows[own], weights=s.values[own] < n, minlength=n)
        via_group = own & (s.values >= n)
        waiters = s.lengths[s.values[via_group]]
        return (direct + np.bincount(rows[via_group], weights=waiters, minlength=n)).astype(np.int64)

    @cached_property
    def topo_order(self) -> np.ndarray:
        """Every workload and group (as n + g) in an order where prefixes come first (raises if cyclic)."""
        s = self.successors
        order, count = _kahn(self.deps.ptr, s.ptr, s.values, self.n + self.n_groups)
        if count != self.n + self.n_groups:
            raise ValueError("the prefix relation has a cycle")
        return order

    @cached_property
    def topo_levels(self) -> list[np.ndarray]:
        """Workloads by level: level i holds the workloads whose longest prefix chain has i workloads."""
        head = self.head
        levels = csr.from_pairs(head, np.arange(self.n), int(head.max()) + 1 if self.n else 0)
        return [levels.row(i) for i in range(levels.n_rows)]

    @cached_property
    def head(self) -> np.ndarray:
        """Longest chain of prefixes before each workload (0 if it has none): its earliest round."""
        chains = self.chains
        if chains is not None:  # the plain DAG: along its chains, without a topological order (docs/scale.md)
            return chains.longest(None, forward=False)[:, 0] - 1
        return _longest_unit(self.topo_order, self.deps.ptr, self.deps.values, self.n)[: self.n] - 1

    @cached_property
    def tail(self) -> np.ndarray:
        """Longest chain starting at each workload, itself included (its remaining critical path)."""
        chains = self.chains
        if chains is not None:  # without the successors or a topological order
            return chains.longest(None, forward=True)[:, 0]
        s = self.successors
        return _longest_unit(self.topo_order[::-1], s.ptr, s.values, self.n)[: self.n]

    def longest_chain(self, weight: np.ndarray, *, forward: bool = False) -> np.ndarray:
        """For every workload, the heaviest prefix chain ending with it, itself included (with
        `forward`, the heaviest chain of successors starting with it).

        `weight` is (n,) or (n, k): k weightings are chained at once, column by column.
        """
        w = np.asarray(weight, dtype=np.float64)
        chains = self.chains
        if chains is not None:
            return chains.longest(w.reshape(len(w), -1), forward=forward).reshape(w.shape)
        rel = self.successors if forward else self.deps
        order = self.topo_order[::-1] if forward else self.topo_order
        out = _longest_weighted(order, rel.ptr, rel.values, self.n, w.reshape(len(w), -1))[: self.n]
        return out.reshape(w.shape)

    def prefix_of(self, w: int) -> list[int]:
        """Every workload w waits for, groups expanded, ascending."""
        row = self.prefix.row(w)
        out = row[row < self.n].tolist()
        for g in (row[row >= self.n] - self.n).tolist():
            out.extend(self.groups.row(g).tolist())
        return sorted(out)

    def explicit(self) -> "WorkloadDAG":
        """The same DAG with every prefix group expanded into explicit prefix lists (small DAGs only)."""
        if self.n_groups == 0:
            return self
        pre = csr.from_lists([self.prefix_of(w) for w in range(self.n)])
        return self._replace(prefix=pre, groups=_no_groups())

    def reverse(self) -> "WorkloadDAG":
        """The DAG with every prefix relation reversed (the waiters of a group become its members)."""
        n = self.n
        s = self.successors
        rows = s.rows_of_values()
        direct = (rows < n) & (s.values < n)
        pos, val = rows[direct], s.values[direct]
        groups = _no_groups()
        if self.n_groups:
            gw = rows >= n
            groups = csr.from_pairs(rows[gw] - n, s.values[gw], self.n_groups)
            pos = np.r_[pos, self.groups.values]
            val = np.r_[val, self.groups.rows_of_values() + n]
        return self._replace(prefix=csr.from_pairs(pos, val, n), groups=groups, meta={})

    @cached_property
    def links_padded(self) -> np.ndarray:
        """Links of every workload as an (n, longest path) matrix padded with the sentinel id n_links
        (column-major, so that every column is contiguous)."""
        return self.links.padded(self.topology.n_links)

    @cached_property
    def link_columns(self) -> tuple[np.ndarray, ...]:
        """The columns of `links_padded` (views, each contiguous): column j holds every workload's j-th link."""
        return tuple(self.links_padded[:, j] for j in range(self.links_padded.shape[1]))

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
            stack.extend(p for p in self.prefix_of(x) if self.phase[p] == REDUCE)
        return sorted(out)

    def workload(self, w: int) -> dict:
        """One workload as a plain dict (the schedule file's form; `prefix_groups` only when it has any)."""
        row = self.prefix.row(w)
        out = {
            "id": int(w), "root": int(self.root[w]), "chunk": int(self.chunk[w]),
            "phase": PHASES[int(self.phase[w])], "path": self.path.row(w).tolist(),
            "prefix": row[row < self.n].tolist(), "carries_own": bool(self.carries_own[w]),
        }
        if (row >= self.n).any():
            out["prefix_groups"] = (row[row >= self.n] - self.n).tolist()
        return out

    def describe(self, w: int, shown_id: int | None = None) -> str:
        """A short readable name: ``#12 reduce s01->s11 (tree s11)`` (`shown_id` replaces the id)."""
        lab = self.topology.labels
        return (f"#{int(w) if shown_id is None else shown_id} {PHASES[int(self.phase[w])]} {lab[self.src[w]]}->{lab[self.dst[w]]} "
                f"(tree {lab[self.root[w]]}{'' if self.chunks == 1 else f'/{int(self.chunk[w])}'})")


@kernel(interpret_below=SMALL)
def _path_nodes(lptr, lval, link_src, link_dst):  # pragma: no cover - compiled
    """Path CSR (int64 row pointers, node ids) of workloads given by their links: each row is its
    first link's tail, then every link's head."""
    n = len(lptr) - 1
    ptr = np.empty(n + 1, np.int64)
    nodes = np.empty(len(lval) + n, link_dst.dtype)
    k = 0
    for w in range(n):
        ptr[w] = k
        nodes[k] = link_src[lval[lptr[w]]]
        k += 1
        for e in range(lptr[w], lptr[w + 1]):
            nodes[k] = link_dst[lval[e]]
            k += 1
    ptr[n] = k
    return ptr, nodes


@kernel
def _kahn(dptr, sptr, sval, n_nodes):  # pragma: no cover - compiled
    """Kahn's topological order of a relation given by prefix counts (dptr) and successor lists."""
    waiting = np.empty(n_nodes, np.int32)
    for v in range(n_nodes):
        waiting[v] = dptr[v + 1] - dptr[v]
    order = np.empty(n_nodes, np.int32)
    head = 0
    tail = 0
    for v in range(n_nodes):
        if waiting[v] == 0:
            order[tail] = v
            tail += 1
    while head < tail:
        v = order[head]
        head += 1
        for e in range(sptr[v], sptr[v + 1]):
            x = sval[e]
            waiting[x] -= 1
            if waiting[x] == 0:
                order[tail] = x
                tail += 1
    return order, tail


@kernel
def _longest_unit(order, ptr, val, n):  # pragma: no cover - compiled
    """Longest chain through ptr/val ending at each node, counting workloads (ids < n) only."""
    out = np.zeros(len(order), np.int32)
    for v in order:
        best = 0
        for e in range(ptr[v], ptr[v + 1]):
            x = out[val[e]]
            if x > best:
                best = x
        out[v] = best + (1 if v < n else 0)
    return out


@kernel
def _longest_weighted(order, ptr, val, n, weight):  # pragma: no cover - compiled
    """Heaviest chain through ptr/val ending at each node: workload v weighs weight[v], a group 0."""
    k = weight.shape[1]
    out = np.zeros((len(order), k), np.float64)
    for v in order:
        for j in range(k):
            best = 0.0
            for e in range(ptr[v], ptr[v + 1]):
                x = out[val[e], j]
                if x > best:
                    best = x
            out[v, j] = best + (weight[v, j] if v < n else 0.0)
    return out


def assemble_dag(topology: Topology, kind: str, merge: bool, chunks: int, *, tree, phase, carries_own,
                 prefix: CSR, tree_root, tree_chunk, path: CSR | None = None, links: CSR | None = None,
                 meta=None, groups: CSR | None = None, deps: CSR | None = None,
                 chains: "PlainChains | None" = None) -> WorkloadDAG:
    """A WorkloadDAG from per-workload trees, phases, paths or links, and prefixes (links derived from
    the paths unless given, paths from the links unless given; `groups`: the prefix groups that
    prefix values >= n name; `deps`: the relation when the builder made it; `chains`: the chains that
    imply the successors, `WorkloadDAG.chains`)."""
    if links is None:
        p = path
        keep = np.ones(len(p.values), dtype=bool)
        keep[p.ptr[1:] - 1] = False  # the last node of each path starts no link
        a = p.values[keep]
        b = p.values[np.flatnonzero(keep) + 1]
        links = csr.from_lengths(p.lengths - 1, topology.link_ids_of(a, b))
    dag = WorkloadDAG(
        topology=topology, kind=kind, merge=merge, chunks=chunks, tree=csr.ids(np.asarray(tree)),
        phase=np.asarray(phase, dtype=np.int8), carries_own=np.asarray(carries_own, dtype=bool), links=links,
        prefix=prefix, tree_root=csr.ids(np.asarray(tree_root)), tree_chunk=csr.ids(np.asarray(tree_chunk)),
        meta=meta or {}, groups=groups if groups is not None else _no_groups())
    if path is not None:
        dag.__dict__["path"] = path
    if deps is not None:
        dag.__dict__["deps"] = deps
    if chains is not None:
        dag.__dict__[_CHAINS] = chains
    return dag


def _check_chunks(chunks: int) -> None:
    if not isinstance(chunks, (int, np.integer)) or chunks < 1:
        raise ValueError(f"chunks must be an integer >= 1, got {chunks!r}")


def build_dag(topology: Topology, kind: str = "tree", *, merge: bool = True, chunks: int = 1,
              routing: str = "shortest", routes: Routes | None = None, both_ways: bool = False,
              fastest: bool = False) -> WorkloadDAG:
    """The workload DAG of one kind (`DAG_KINDS`) over `topology`'s routes (`both_ways`, `fastest`: rings
    only, see `ring_dag`)."""
    if kind not in DAG_KINDS:
        raise ValueError(f"DAG kind must be one of {', '.join(DAG_KINDS)}, got {kind!r}")
    routes = routes or compute_routes(topology, routing)
    if kind == "ring":
        return ring_dag(topology, chunks=chunks, routes=routes, both_ways=both_ways, fastest=fastest)
    return tree_dag(topology, merge=merge and kind == "tree", chunks=chunks, routes=routes)


def tree_dag(topology: Topology, *, merge: bool = True, chunks: int = 1,
             routes: Routes | None = None) -> WorkloadDAG:
    """Parameter-server AllReduce: one flow-tree per (root server, chunk), reduce then broadcast."""
    _check_chunks(chunks)
    routes = routes or compute_routes(topology)
    b = (_merged_tree if merge else _plain_tree)(routes)
    if chunks > 1:
        b = _replicate_chunks(b, chunks)
        tree = b.root_of * chunks + b.chunk_of
    else:
        tree = b.root_of
    s = topology.n_servers
    dag = assemble_dag(topology, "tree", merge, chunks, tree=tree, phase=b.phase, carries_own=b.own,
                       prefix=b.prefix, links=b.links, groups=b.groups, tree_root=np.repeat(topology.servers, chunks),
                       tree_chunk=np.tile(np.arange(chunks), s), meta={"routing": routes.mode},
                       deps=b.deps if chunks == 1 else None, chains=b.chains if chunks == 1 else None)
    if b.classes is not None and chunks == 1:
        dag.__dict__[_CLASSES] = b.classes
    return dag


@dataclass
class _Built:
    """One builder's workloads, ids grouped by root index: `group_root` is each prefix group's root."""

    root_of: np.ndarray
    phase: np.ndarray
    own: np.ndarray
    links: CSR
    prefix: CSR
    groups: CSR
    group_root: np.ndarray
    chunk_of: np.ndarray | None = None
    deps: CSR | None = None  # when the builder made it
    chains: "PlainChains | None" = None  # the chains that imply the successors (the plain builder)
    classes: "PlainClasses | None" = None  # where the route classes can be found, when the builder says


def _replicate_chunks(b: _Built, chunks: int) -> _Built:
    """Repeat the workloads of every root (ids contiguous per root) once per chunk.

    Root r's block of size m_r becomes `chunks` consecutive blocks, one per chunk; its prefix
    groups are repeated the same way (group g of chunk c becomes g * chunks + c).
    """
    group = b.root_of
    n1, g1 = len(group), b.groups.n_rows
    counts = np.bincount(group)
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    offset = np.arange(n1) - starts[group]

    def new_id(old: np.ndarray, c: int) -> np.ndarray:
        old = old.astype(np.int64)
        g = group[old]
        return starts[g] * chunks + c * counts[g] + offset[old]

    def new_ref(val: np.ndarray, c: int) -> np.ndarray:  # prefix values: workloads, or n + group
        val = val.astype(np.int64)
        is_g = val >= n1
        out = np.empty(len(val), np.int64)
        out[~is_g] = new_id(val[~is_g], c)
        out[is_g] = n1 * chunks + (val[is_g] - n1) * chunks + c
        return out

    n = n1 * chunks
    src_row = np.empty(n, dtype=np.int64)
    chunk_of = np.empty(n, dtype=np.int64)
    pre_r, pre_v, grp_r, grp_v = [], [], [], []
    old_rows = b.prefix.rows_of_values()
    g_rows = b.groups.rows_of_values()
    for c in range(chunks):
        ids = new_id(np.arange(n1), c)
        src_row[ids] = np.arange(n1)
        chunk_of[ids] = c
        pre_r.append(new_id(old_rows, c))
        pre_v.append(new_ref(b.prefix.values, c))
        grp_r.append(g_rows.astype(np.int64) * chunks + c)
        grp_v.append(new_id(b.groups.values, c))
    return _Built(group[src_row], b.phase[src_row], b.own[src_row], _permute_rows(b.links, src_row), csr.from_pairs(np.concatenate(pre_r), np.concatenate(pre_v), n),
                  csr.from_pairs(np.concatenate(grp_r), np.concatenate(grp_v), g1 * chunks),
                  np.repeat(b.group_root, chunks), chunk_of)


@kernel(interpret_below=SMALL)
def _segments(seg_nodes, seg_len, seg_links, seg, rev):  # pragma: no cover - compiled
    """Paths and links of workloads that each travel one routed segment (`rev`: backwards).

    seg_nodes (m, L+1), seg_len (m,), seg_links (m, L) are the routes' segments flattened over
    (root, server); seg[w] picks workload w's segment. Returns (path ptr, nodes, link ptr, links).
    """
    n = len(seg)
    pptr = np.zeros(n + 1, np.int64)
    lptr = np.zeros(n + 1, np.int64)
    for w in range(n):
        ln = seg_len[seg[w]]
        pptr[w + 1] = pptr[w] + ln + 1
        lptr[w + 1] = lptr[w] + ln
    nodes = np.empty(pptr[n], np.int32)
    links = np.empty(lptr[n], np.int32)
    for w in range(n):
        s = seg[w]
        ln = seg_len[s]
        p0, l0 = pptr[w], lptr[w]
        for k in range(ln + 1):
            nodes[p0 + k] = seg_nodes[s, ln - k] if rev[w] else seg_nodes[s, k]
        for k in range(ln):
            links[l0 + k] = (seg_links[s, ln - 1 - k] ^ 1) if rev[w] else seg_links[s, k]
    return pptr, nodes, lptr, links


def _segment_paths(routes: Routes, seg: np.ndarray, rev: np.ndarray) -> tuple[CSR, CSR]:
    """Path and link CSRs of workloads given by their segment (root index * S + server index)."""
    s = routes.parent.shape[0]
    sn = routes.seg_nodes.reshape(s * s, -1)
    sl = routes.seg_links.reshape(s * s, -1)
    pptr, nodes, lptr, links = _segments(sn, routes.seg_len.reshape(-1), sl, seg, rev)
    return CSR(pptr, nodes), CSR(lptr, links)


def _merged_tree(routes: Routes) -> _Built:
    """Merge on: each non-root server sends one reduce workload to its parent, and gets one broadcast.

    Ids are grouped by root: root i's block is its S-1 reduce workloads (servers ascending),
    then the S-1 broadcasts.
    """
    s = routes.parent.shape[0]
    par = routes.parent
    ri, rj = np.nonzero(par >= 0)  # row-major: root, then server
    ri, rj = ri.astype(csr.ID), rj.astype(csr.ID)
    local = np.arange(len(ri), dtype=np.int64) - ri.astype(np.int64) * (s - 1)
    red_id = ri.astype(np.int64) * 2 * (s - 1) + local
    bc_id = red_id + (s - 1)
    n = 2 * len(ri)
    red_of = np.full((s, s), -1, dtype=np.int64)
    red_of[ri, rj] = red_id
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
    vals.append(red_of[ri[inner], pj[inner]] + (s - 1))
    del red_of
    prefix = csr.from_pairs(np.concatenate(rows), np.concatenate(vals), n)
    del rows, vals

    seg = np.empty(n, np.int64)
    seg[red_id] = ri.astype(np.int64) * s + rj
    seg[bc_id] = seg[red_id]
    rev = np.zeros(n, bool)
    rev[bc_id] = True
    _, links = _segment_paths(routes, seg, rev)
    root_of = np.repeat(np.arange(s, dtype=csr.ID), 2 * (s - 1))
    phase = np.full(n, BROADCAST, dtype=np.int8)
    phase[red_id] = REDUCE
    return _Built(root_of, phase, phase == REDUCE, links, prefix, _no_groups(), np.zeros(0, np.int64))


def _permute_rows(m: CSR, rows: np.ndarray) -> CSR:
    """A CSR whose row k is row rows[k] of m."""
    _, vals = m.gather(rows)
    lens = m.lengths[rows]
    ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lens, out=ptr[1:])
    return CSR(ptr, vals)


def _plain_tree(routes: Routes) -> _Built:
    """Merge off: every server's piece travels to the root on its own, hop by hop, then back.

    Root i's block holds, for each origin j != i (ascending), its reduce chain j -> ... -> i,
    then for each j its broadcast chain i -> ... -> j. The first hop of every broadcast waits
    for prefix group i: the last reduce hop (into i) of every origin. One compiled pass writes
    every array in its final form (docs/scale.md), including `deps`; the successors are implied by
    the chains and not stored (`PlainChains`: one byte of marks per workload). The route classes are
    left to the scheduler that takes them (`PlainClasses`), with the hops they come from.
    """
    s = routes.parent.shape[0]
    par, depth, seg_len, seg_links = routes.parent, routes.depth, routes.seg_len, routes.seg_links
    starts = _plain_starts(par, depth, seg_len)
    n, n_links, n_entries = int(starts[s, 0]), int(starts[s, 1]), int(starts[s, 2] + starts[s, 3])
    # row pointers are int32 where the entries fit (4096 servers: 94.4 M workloads, 4 bytes a row saved x2)
    ptr_type = np.int32 if max(n_links, n_entries, n + s) < 2 ** 31 else np.int64
    tree, phase, own, marks = np.empty(n, csr.ID), np.empty(n, np.int8), np.empty(n, bool), np.empty(n, np.int8)
    lptr, lval = np.empty(n + 1, ptr_type), np.empty(n_links, csr.ID)
    dptr, dval = np.empty(n + s + 1, ptr_type), np.empty(n_entries, csr.ID)
    # the roots' blocks are disjoint: two halves (by workloads) are written at once on two cores
    mid = int(np.searchsorted(starts[:, 0], n // 2))
    arrays = (par, depth, seg_len, seg_links, tree, phase, own, marks, lptr, lval, dptr, dval)
    both(lambda: _plain_fill(0, mid, starts, *arrays), lambda: _plain_fill(mid, s, starts, *arrays),
         size=n)
    _plain_groups(depth, starts, dptr)
    deps = CSR(dptr, dval)
    prefix = CSR(dptr[: n + 1], dval[: dptr[n]])
    groups = CSR(dptr[n:] - dptr[n], dval[dptr[n]:])
    return _Built(tree, phase, own, CSR(lptr, lval), prefix, groups, np.arange(s), deps=deps,
                  chains=PlainChains(marks, starts[:, 0].copy()), classes=PlainClasses(routes))


@dataclass(frozen=True, eq=False)
class PlainChains:
    """The successors of a plain PS DAG of one chunk, implied by its chains instead of stored (docs/scale.md,
    eleventh step): workload w's successor is w + 1 unless w is the last hop of its chain; a last reduce hop's
    is its tree's prefix group n + tree[w] (tree i's group is group i); a last broadcast hop has none; group
    i's waiters are the first broadcast hops of root i's block, ascending.

    `marks` (int8, one per workload) holds the bits `NEXT`, `INTO_ROOT` and `FIRST_BROADCAST`; `block` (int64,
    S + 1) the first workload of each root's block (row S: n), whose second half is its broadcast hops. 1 byte
    a workload where the successors' CSR took 8 (755 MB at BCube(16,2)); `core.engine` releases from them."""

    marks: np.ndarray
    block: np.ndarray

    def successors(self, tree: np.ndarray, ptr_type: np.dtype) -> CSR:
        """The successors' CSR as a transpose of `deps` gives it (rows: workloads, then groups; row pointers of
        `ptr_type`, values int32), written from the marks in one compiled pass."""
        n, s = len(self.marks), len(self.block) - 1
        # n entries: every chain has one hop without a successor (its last broadcast hop) and one group waiter
        # (its first broadcast hop), every other hop one successor
        ptr, val = np.empty(n + s + 1, ptr_type), np.empty(n, csr.ID)
        _chain_successors(self.marks, tree, self.block, ptr, val)
        return CSR(ptr, val)

    def longest(self, weight: np.ndarray | None, forward: bool) -> np.ndarray:
        """`WorkloadDAG.longest_chain` (and with `weight` None, `head` + 1 and `tail`: workloads counted, int32)
        along the chains, root by root: (n, k), or (n, 1) without `weight`. The same numbers as the longest paths
        over a topological order (a maximum is the same whatever order its terms come in), without the successors,
        the order or a row per group (at BCube(16,2): 755 + 378 MB, and Kahn's waits)."""
        n = len(self.marks)
        if weight is None:
            out = np.empty((n, 1), np.int32)
        else:
            out = np.empty((n, weight.shape[1]), np.float64)
        _chain_longest(self.marks, self.block, weight, out, forward)
        return out


@kernel(inner=True)
def broadcast_half(block, i):  # pragma: no cover - compiled
    """The workloads of root i's broadcast hops in a plain PS DAG (`PlainChains.block`): its block's second half."""
    return (block[i] + block[i + 1]) // 2, block[i + 1]


@kernel(interpret_below=SMALL)
def _chain_successors(marks, tree, block, ptr, val):  # pragma: no cover - compiled
    """The successors' rows of a plain PS DAG from its chains' `marks` (`PlainChains`): writes the row pointers
    into `ptr` and the values into `val` (which must have one entry per workload, as a plain DAG's chains
    give: see `PlainChains.successors`)."""
    n = len(marks)
    s = len(block) - 1
    m = 0
    for w in range(n):
        if marks[w] & (NEXT | INTO_ROOT):
            m += 1
        if marks[w] & FIRST_BROADCAST:
            m += 1
    if m != len(val):
        raise ValueError("the chains' marks do not describe a plain PS DAG")
    e = 0
    ptr[0] = 0
    for w in range(n):
        if marks[w] & NEXT:
            val[e] = w + 1
            e += 1
        elif marks[w] & INTO_ROOT:
            val[e] = n + tree[w]
            e += 1
        ptr[w + 1] = e
    for i in range(s):
        b0, b1 = broadcast_half(block, i)
        for w in range(b0, b1):
            if marks[w] & FIRST_BROADCAST:
                val[e] = w
                e += 1
        ptr[n + i + 1] = e


@kernel
def _chain_longest(marks, block, weight, out, forward):  # pragma: no cover - compiled
    """Longest chains of a plain PS DAG along its chains' `marks` (`PlainChains.longest`), into `out` (n, k):
    workload w's value is its weight (1 when `weight` is None) plus the largest of 0 and its prefixes' values
    (`forward`: its successors'); a group's value is the largest of 0 and its members' (waiters'). Root i's block
    is its reduce half (w waits for w - 1 where w - 1 is marked `NEXT`), whose last hops (`INTO_ROOT`) are group
    i's members, then its broadcast half, whose first hops (`FIRST_BROADCAST`) wait for group i: ascending ids,
    the group between the halves, is a topological order, and descending ids the reverse one."""
    s = len(block) - 1
    k = out.shape[1]
    group = np.zeros(k, out.dtype)
    zero = np.zeros(1, out.dtype)[0]
    for i in range(s):
        b0, b1 = block[i], block[i + 1]
        mid = (b0 + b1) // 2
        group[:] = 0
        if not forward:
            for w in range(b0, b1):
                for j in range(k):
                    best = zero
                    if w >= mid and marks[w] & FIRST_BROADCAST:
                        if group[j] > best:
                            best = group[j]
                    elif w > b0 and marks[w - 1] & NEXT:
                        if out[w - 1, j] > best:
                            best = out[w - 1, j]
                    if weight is None:
                        out[w, j] = best + 1
                    else:
                        out[w, j] = best + weight[w, j]
                if w < mid and marks[w] & INTO_ROOT:
                    for j in range(k):
                        if out[w, j] > group[j]:
                            group[j] = out[w, j]
        else:
            for w in range(b1 - 1, b0 - 1, -1):
                for j in range(k):
                    best = zero
                    if marks[w] & NEXT:
                        if out[w + 1, j] > best:
                            best = out[w + 1, j]
                    elif w < mid and marks[w] & INTO_ROOT:
                        if group[j] > best:
                            best = group[j]
                    if weight is None:
                        out[w, j] = best + 1
                    else:
                        out[w, j] = best + weight[w, j]
                if w >= mid and marks[w] & FIRST_BROADCAST:
                    for j in range(k):
                        if out[w, j] > group[j]:
                            group[j] = out[w, j]


class PlainClasses:
    """The route classes of a plain PS DAG (one chunk), from its hops (docs/scale.md, tenth step).

    A plain workload is one hop of a node tree, so its class (its link tuple) is its hop's: the reduce hop
    from server x to its parent in tree i, or the broadcast hop back. `find` looks each hop up once (S^2
    look-ups per phase, against one hash per workload), `write` gives every workload its hop's class.
    """

    def __init__(self, routes: Routes):
        self.parent, self.seg_len, self.seg_links = routes.parent, routes.seg_len, routes.seg_links
        self.topology = routes.topology
        self.width = max(1, int(self.seg_len.max()) if self.seg_len.size else 1)  # the most links of one hop

    def find(self) -> tuple[np.ndarray, np.ndarray]:
        """(the class of every hop, (2, S, S) int32 by phase, root and server; each class's links, int64, padded
        with the sentinel link ``len(topology.link_capacity)`` to the most links of one hop), classes numbered as
        `core.greedy._class_ids` numbers them over the workloads (`_plain_classes`)."""
        s = self.parent.shape[0]
        hop_class = np.empty((2, s, s), np.int32)  # allocated by numpy: huge pages
        clinks = _plain_classes(self.parent, self.seg_len, self.seg_links, self.width,
                                len(self.topology.link_capacity), hop_class)
        return hop_class, clinks

    def write(self, dag: "WorkloadDAG", hop_class: np.ndarray, state: np.ndarray, column: int,
              n_classes: int) -> np.ndarray:
        """Write every workload's class (its hop's, from `find`) into ``state[w, column]``; returns the number of
        workloads of each class."""
        t = self.topology
        return _plain_class_rows(dag.tree, dag.phase, dag.links.ptr, dag.links.values, t.link_src, t.link_dst,
                                 t.server_index, hop_class, state, column, n_classes)


@kernel(interpret_below=SMALL)
def _plain_class_rows(tree, phase, lptr, lval, link_src, link_dst, server_index, hop_class, state, column,
                      n_classes):  # pragma: no cover - compiled
    """Each workload's class ``hop_class[phase, tree, x]`` into ``state[w, column]``, x the server at the hop's
    lower end (a reduce hop's first link starts there, a broadcast hop's last link ends there); returns the
    class sizes. One pass in id order over arrays already in memory."""
    size = np.zeros(n_classes, np.int64)
    for w in range(len(tree)):
        if phase[w] == 0:
            x = server_index[link_src[lval[lptr[w]]]]
        else:
            x = server_index[link_dst[lval[lptr[w + 1] - 1]]]
        c = hop_class[phase[w], tree[w], x]
        state[w, column] = c
        size[c] += 1
    return size


@kernel(interpret_below=SMALL)
def _plain_starts(parent, depth, seg_len):  # pragma: no cover - compiled
    """Where each root's block starts in the plain PS DAG's arrays: row i of the (S+1, 4) result
    holds root i's first workload, link entry, `deps` entry of the workloads' rows, and group member;
    row S the totals."""
    s = parent.shape[0]
    out = np.zeros((s + 1, 4), np.int64)
    for i in range(s):
        hops = 0
        n_links = 0
        origins = 0
        for j in range(s):
            x = j
            for _ in range(depth[i, j]):
                n_links += seg_len[i, x]
                x = parent[i, x]
            hops += depth[i, j]
            origins += depth[i, j] > 0
        # every hop but an origin's first reduce hop has one entry in deps, and each origin's last reduce
        # hop is a group member
        out[i + 1, 0] = out[i, 0] + 2 * hops
        out[i + 1, 1] = out[i, 1] + 2 * n_links
        out[i + 1, 2] = out[i, 2] + 2 * hops - origins
        out[i + 1, 3] = out[i, 3] + origins
    return out


@kernel(interpret_below=SMALL, nogil=True)
def _plain_fill(i0, i1, starts, parent, depth, seg_len, seg_links, tree, phase, own, marks, lptr, lval, dptr,
                dval):  # pragma: no cover - compiled
    """Write roots i0..i1-1 of the plain PS DAG (see `_plain_tree`) at their `starts`: tree, phase,
    carries_own, the chains' marks (`PlainChains`), links, and the workloads' rows of deps (then one row per
    prefix group: its members; their row pointers: `_plain_groups`)."""
    s = parent.shape[0]
    n = len(tree)
    chain = np.empty(max(1, depth.max()) if s else 1, np.int64)
    w = starts[i0, 0]
    le = starts[i0, 1]
    de = starts[i0, 2]
    ge = starts[s, 2] + starts[i0, 3]  # the group members follow the workloads' own entries
    if i0 == 0:
        lptr[0] = 0
        dptr[0] = 0
    for i in range(i0, i1):
        for ph in range(2):
            for j in range(s):
                d = depth[i, j]
                if d == 0:
                    continue
                x = j
                for k in range(d):
                    chain[k] = x
                    x = parent[i, x]
                for k in range(d):
                    tree[w] = i
                    phase[w] = ph
                    own[w] = ph == 0 and k == 0
                    if ph == 0:
                        x = chain[k]
                        for e in range(seg_len[i, x]):
                            lval[le] = seg_links[i, x, e]
                            le += 1
                        if k > 0:
                            dval[de] = w - 1
                            de += 1
                        if k < d - 1:
                            marks[w] = NEXT
                        else:
                            marks[w] = INTO_ROOT
                            dval[ge] = w  # the last reduce hop is a member of group i
                            ge += 1
                    else:
                        x = chain[d - 1 - k]
                        ln = seg_len[i, x]
                        for e in range(ln):
                            lval[le] = seg_links[i, x, ln - 1 - e] ^ 1
                            le += 1
                        dval[de] = w - 1 if k > 0 else n + i
                        de += 1
                        marks[w] = (NEXT if k < d - 1 else 0) | (FIRST_BROADCAST if k == 0 else 0)
                    w += 1
                    lptr[w] = le
                    dptr[w] = de


@kernel(interpret_below=SMALL, nogil=True)
def _plain_classes(parent, seg_len, seg_links, width, sentinel, hop_class):  # pragma: no cover - compiled
    """Route classes of the plain PS DAG's hops, numbered as `core.greedy._class_ids` numbers them over the
    workloads (by first appearance in id order), but found once per hop instead of once per workload.

    ``hop_class[0, i, x]`` is the class of the reduce hop from server x to its parent in tree i (the links
    ``seg_links[i, x]``), ``hop_class[1, i, x]`` the broadcast hop back (those links reversed, each the
    other direction: ``^ 1``); returns each class's links padded with `sentinel` to `width`. Root i's
    workloads visit, for each origin j ascending, the hops of j's chain bottom-up (reduce), then top-down
    (broadcast); a hop already seen in this root has every hop above it seen too, so each chain is walked
    only up to its first seen hop, and each hop is looked up once (S^2 lookups in all, not one per
    workload): a tree and phase's new hops in one block, in visit order (`core.route_classes.classes_of`)."""
    s = parent.shape[0]
    table, clinks, chash = class_table(width)
    n_cls = 0
    keys = np.empty((max(1, s), width), np.int64)  # the hops of one tree and phase not seen yet, in visit order
    hops = np.empty(max(1, s), np.int64)
    got = np.empty(max(1, s), np.int32)
    hop_class[:] = -1
    todo = np.empty(max(1, s), np.int64)  # a chain has fewer hops than servers
    for i in range(s):
        for ph in range(2):
            m = 0
            for j in range(s):
                # the hops of j's chain not seen yet in this root and phase, bottom-up; the workloads visit
                # them bottom-up (reduce) or top-down (broadcast)
                d = 0
                x = j
                while x != i and x >= 0 and hop_class[ph, i, x] < 0:
                    todo[d] = x
                    hop_class[ph, i, x] = 0  # seen: its class comes with the others' below
                    d += 1
                    x = parent[i, x]
                for t in range(d):
                    x = todo[t] if ph == 0 else todo[d - 1 - t]
                    ln = seg_len[i, x]
                    for k in range(width):
                        if k < ln:
                            keys[m, k] = seg_links[i, x, k] if ph == 0 else seg_links[i, x, ln - 1 - k] ^ 1
                        else:
                            keys[m, k] = sentinel
                    hops[m] = x
                    m += 1
            n_cls, table, clinks, chash = classes_of(keys[:m], got[:m], table, clinks, chash, n_cls)
            for t in range(m):
                hop_class[ph, i, hops[t]] = got[t]
    return clinks[:n_cls].copy()


@kernel(interpret_below=SMALL)
def _plain_groups(depth, starts, dptr):  # pragma: no cover - compiled
    """The row pointers of the plain PS DAG's prefix groups in deps: group i's members (written by
    `_plain_fill`) are the last reduce hops into root i, one per origin."""
    s = depth.shape[0]
    n = starts[s, 0]
    g = starts[s, 2]
    for i in range(s):
        for j in range(s):
            if depth[i, j] > 0:
                g += 1
        dptr[n + i + 1] = g


def ring_dag(topology: Topology, *, chunks: int = 1, routes: Routes | None = None,
             order: list[int] | None = None, both_ways: bool = False, fastest: bool = False) -> WorkloadDAG:
    """Ring AllReduce: S chains (one per ring chunk, x `chunks` pieces) of 2(S-1) sends each.

    Chunk c (by ring position) is reduced along c -> c+1 -> ... -> c-1 (reduce-scatter), then
    the sum travels c-1 -> c -> ... -> c-2 (all-gather). A send whose route crosses another
    server is split there into relay workloads (carries_own = False). With `both_ways` (a
    bidirectional ring; needs chunks >= 2) the odd pieces travel the ring the other way round,
    over each hop's links in the opposite direction. With `fastest`, the ring and its hops are chosen
    for the link bandwidths (`core.ring.fast_ring_order`, `core.routing.widest_switch_route`).
    """
    from .ring import fast_ring_order, ring_order

    _check_chunks(chunks)
    routes = routes or compute_routes(topology)
    adjacent = None
    if order is None:
        order, adjacent = (fast_ring_order if fastest else ring_order)(topology, routes)
    s = len(order)
    if sorted(order) != topology.servers.tolist():
        raise ValueError("a ring order must list every server exactly once")
    if both_ways and chunks < 2:
        raise ValueError(f"a ring both ways needs chunks >= 2, got {chunks}")
    rings = [list(order), list(order[::-1])] if both_ways else [list(order)]
    # segments of the send from ring position a to a+1, split at intermediate servers; a ring-adjacent
    # pair talks over switches only, otherwise the routed path is relayed at servers
    hops = [[send_segments(topology, routes, o[a], o[(a + 1) % s], widest=fastest) for a in range(s)] for o in rings]

    tree, phase, own, paths, pre_rows, pre_vals = [], [], [], [], [], []
    tree_root, tree_chunk = [], []
    for c in range(s):
        for q in range(chunks):
            ring, hop_segments = rings[q % len(rings)], hops[q % len(rings)]
            t = len(tree_root)
            tree_root.append(ring[(c - 1) % s])
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
                           "ring_adjacent": adjacent, "both_ways": bool(both_ways),
                           "fastest": bool(fastest)})
