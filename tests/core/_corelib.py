"""Shared helpers of the core tests: independent reference implementations and cached schedules.

Everything here is written from MODEL.md, not from the code under test, so that a test comparing
the two can fail.
"""

from __future__ import annotations

import contextlib
import os
from collections import deque
from functools import lru_cache

import networkx as nx
import numpy as np
from hypothesis import strategies as st

from core import jit
from core.schedule_io import schedule_to_dict
from core.methods import run_method
from core.schedule import ScheduleConfig
from core.topology import Topology, make_topology
from core.validate import validate_document

HEURISTICS = ("ps", "ring", "greedy", "critical-path")


# ---- topologies ---------------------------------------------------------------------------
@lru_cache(maxsize=None)
def topo(spec: str) -> Topology:
    """make_topology, cached (topologies are immutable)."""
    return make_topology(spec)


@lru_cache(maxsize=None)
def schedule(spec: str, method: str, chunks: int = 1, merge: bool = True, seed: int = 0,
             routing: str = "shortest", time_limit: float = 5.0):
    """run_method on a spec, cached: several test files check the same schedules."""
    cfg = ScheduleConfig(merge=merge, chunks=chunks, seed=seed, routing=routing, time_limit=time_limit)
    return run_method(method, topo(spec), cfg)


def report(sched):
    """The data-level validator's report of a schedule, through its allreduce-schedule/1 document."""
    return validate_document(schedule_to_dict(sched))


def make_graph(is_server: list[bool], edges: list[tuple[int, int]], caps: list[int] | None = None,
               spec: str = "test") -> Topology:
    """A Topology from plain lists."""
    caps = caps if caps is not None else [1] * len(edges)
    return Topology(spec=spec, is_server=np.array(is_server, bool), edges=np.array(edges, np.int64).reshape(-1, 2),
                    capacity=np.array(caps, np.int64), labels=tuple(f"v{i}" for i in range(len(is_server))))


@st.composite
def random_topologies(draw, min_nodes: int = 2, max_nodes: int = 7, max_servers: int | None = None,
                      capacities: bool = False) -> Topology:
    """Random connected graphs with random server/switch kinds (>= 2 servers) and optional capacities 1-2."""
    n = draw(st.integers(min_nodes, max_nodes))
    hi = n if max_servers is None else min(n, max_servers)
    n_srv = draw(st.integers(2, max(2, hi)))
    order = draw(st.permutations(range(n)))
    kinds = [False] * n
    for v in order[:n_srv]:
        kinds[v] = True
    edges = set()
    for v in range(1, n):  # random spanning tree keeps the graph connected
        u = draw(st.integers(0, v - 1))
        edges.add((u, v))
    others = [(u, v) for u in range(n) for v in range(u + 1, n) if (u, v) not in edges]
    if others:
        extra = draw(st.lists(st.sampled_from(others), max_size=len(others), unique=True))
        edges.update(extra)
    edges = sorted(edges)
    caps = [draw(st.integers(1, 2)) for _ in edges] if capacities else [1] * len(edges)
    return make_graph(kinds, edges, caps, spec="random")


# ---- routing reference --------------------------------------------------------------------
def bfs_dist(t: Topology, root: int) -> dict[int, int]:
    """Hop distance of every node to `root` (plain BFS)."""
    adj = {v: set() for v in range(t.n_nodes)}
    for u, v in t.edges.tolist():
        adj[u].add(v)
        adj[v].add(u)
    dist = {root: 0}
    q = deque([root])
    while q:
        x = q.popleft()
        for y in adj[x]:
            if y not in dist:
                dist[y] = dist[x] + 1
                q.append(y)
    return dist


def reference_next_hop(t: Topology, root: int) -> dict[int, int]:
    """MODEL.md §2: next hop = the lowest-id neighbour one step closer to the root."""
    dist = bfs_dist(t, root)
    nbrs = {v: set() for v in range(t.n_nodes)}
    for u, v in t.edges.tolist():
        nbrs[u].add(v)
        nbrs[v].add(u)
    return {v: min(u for u in nbrs[v] if dist[u] == dist[v] - 1) for v in range(t.n_nodes) if v != root}


def reference_segments(t: Topology, root: int) -> dict[int, list[int]]:
    """Node-tree segment of every non-root server: its route up to (and including) the first server."""
    hop = reference_next_hop(t, root)
    out = {}
    for s in t.servers.tolist():
        if s == root:
            continue
        path = [s, hop[s]]
        while not t.is_server[path[-1]]:
            path.append(hop[path[-1]])
        out[s] = path
    return out


# ---- engine reference -----------------------------------------------------------------------
def naive_fill(dag, candidates, cap, used=None) -> list[int]:
    """The sequential greedy loop: take each candidate in order if every link of it has room."""
    load = np.zeros(len(cap), np.int64) if used is None else np.array(used, np.int64)
    taken = []
    for w in np.asarray(candidates).tolist():
        links = dag.links.row(w).tolist()
        if all(load[lk] < cap[lk] for lk in links):
            for lk in links:
                load[lk] += 1
            taken.append(w)
    return sorted(taken)


def relays_through_root(dag) -> bool:
    """True if a reduce workload ends at its tree's root and is relayed onward by another reduce workload."""
    red = dag.phase == 0
    for w in np.flatnonzero(red & (dag.dst == dag.root)).tolist():
        succ = dag.explicit().successors.row(w)
        if np.any(red[succ] & (dag.tree[succ] == dag.tree[w])):
            return True
    return False


def longest_chain(dag) -> int:
    """Longest prefix chain (number of workloads), by memoized DFS over prefixes."""
    memo: dict[int, int] = {}
    pre = dag.explicit().prefix.to_lists()

    def depth(w: int) -> int:
        if w not in memo:
            memo[w] = 1 + max((depth(p) for p in pre[w]), default=0)
        return memo[w]

    return max((depth(w) for w in range(dag.n)), default=0)


def exact_min_rounds(dag, horizon: int, time_limit: float = 20.0) -> int:
    """Minimum rounds of a DAG by an independent time-indexed CP-SAT model (no bounds, no hints)."""
    from ortools.sat.python import cp_model

    m = cp_model.CpModel()
    x = [[m.NewBoolVar(f"x{w}_{r}") for r in range(horizon)] for w in range(dag.n)]
    t = []
    for w in range(dag.n):
        m.AddExactlyOne(x[w])
        tw = m.NewIntVar(0, horizon - 1, f"t{w}")
        m.Add(tw == sum(r * x[w][r] for r in range(horizon)))
        t.append(tw)
    for w, pres in enumerate(dag.explicit().prefix.to_lists()):
        for p in pres:
            m.Add(t[w] >= t[p] + 1)
    cap = dag.topology.link_capacity
    on_link: dict[int, list[int]] = {}
    for w, links in enumerate(dag.links.to_lists()):
        for lk in links:
            on_link.setdefault(lk, []).append(w)
    for lk, ws in on_link.items():
        if len(ws) > cap[lk]:
            for r in range(horizon):
                m.Add(sum(x[w][r] for w in ws) <= int(cap[lk]))
    rounds = m.NewIntVar(1, horizon, "rounds")
    for w in range(dag.n):
        m.Add(rounds >= t[w] + 1)
    m.Minimize(rounds)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.num_workers = 1
    status = solver.Solve(m)
    assert status == cp_model.OPTIMAL, f"reference CP-SAT did not prove optimality: {solver.StatusName(status)}"
    return int(round(solver.ObjectiveValue()))


def to_nx(t: Topology) -> nx.Graph:
    """Undirected graph with node attribute kind."""
    return t.to_networkx()


# ---- independent schedule checks ----------------------------------------------------------
def rule_violations(dag, rounds) -> list[str]:
    """MODEL.md §4 checked from scratch: each workload once, prefixes in earlier rounds, link capacity."""
    problems = []
    sent: dict[int, int] = {}
    prefixes = dag.explicit().prefix.to_lists()
    links = dag.links.to_lists()
    cap = dag.topology.link_capacity
    for r, ids in enumerate(rounds):
        ids = [int(w) for w in ids]
        load: dict[int, int] = {}
        for w in ids:
            if w in sent:
                problems.append(f"round {r}: {w} sent twice")
            for p in prefixes[w]:
                if sent.get(p, r) >= r:
                    problems.append(f"round {r}: {w} before its prefix {p}")
            for lk in links[w]:
                load[lk] = load.get(lk, 0) + 1
        for lk, n in load.items():
            if n > cap[lk]:
                problems.append(f"round {r}: link {lk} carries {n} > {cap[lk]}")
        for w in ids:
            sent.setdefault(w, r)
    missing = set(range(dag.n)) - set(sent)
    if missing:
        problems.append(f"never sent: {sorted(missing)[:10]}")
    return problems


def payload_problems(dag, rounds) -> list[str]:
    """Replay the data physically: a reduce workload carries the sender's piece (carries_own) plus the
    payloads of its reduce prefixes; the root's sum is its own piece plus the payloads that *stop* at
    it (reduce workloads into the root that no reduce workload of the tree relays onward); a
    broadcast may leave the root once its sum is complete, or a server that received the sum."""
    problems = []
    sent = {int(w): r for r, ids in enumerate(rounds) for w in ids}
    red = dag.phase == 0
    prefixes = dag.explicit().prefix.to_lists()
    relayed = set()
    for w in range(dag.n):
        if red[w]:
            for p in prefixes[w]:
                if red[p] and dag.tree[p] == dag.tree[w]:
                    relayed.add(p)
    payload: dict[int, dict[int, int]] = {}
    for level in dag.topo_levels:
        for w in level.tolist():
            if not red[w]:
                continue
            acc: dict[int, int] = {int(dag.src[w]): 1} if dag.carries_own[w] else {}
            for p in prefixes[w]:
                if red[p]:
                    if dag.dst[p] != dag.src[w]:
                        problems.append(f"{w}: reduce prefix {p} does not end at the sender")
                    for k, v in payload[p].items():
                        acc[k] = acc.get(k, 0) + v
            payload[w] = acc
    servers = set(dag.topology.servers.tolist())
    for tr in range(dag.n_trees):
        root = int(dag.tree_root[tr])
        total = {root: 1}
        final = [w for w in np.flatnonzero((dag.tree == tr) & red).tolist()
                 if dag.dst[w] == root and w not in relayed]
        for w in final:
            for k, v in payload[w].items():
                total[k] = total.get(k, 0) + v
        if total != {s: 1 for s in servers}:
            problems.append(f"tree {tr}: root sum {total}")
        done = max((sent[w] for w in final), default=-1)
        holds = {root: done}
        bcs = sorted((sent[w], w) for w in np.flatnonzero((dag.tree == tr) & ~red).tolist())
        for r, w in bcs:
            src, dst = int(dag.src[w]), int(dag.dst[w])
            if src in holds and holds[src] < r:
                holds.setdefault(dst, r)
            else:
                problems.append(f"tree {tr}: broadcast {w} leaves {src} before it holds the sum")
        if set(holds) != servers:
            problems.append(f"tree {tr}: servers {sorted(servers - set(holds))} never get the sum")
    return problems


def jackson(release: np.ndarray, tails: np.ndarray, cap: int) -> int:
    """Jackson's rule over unsorted jobs, the reference the link-schedule bound's compiled pass is checked against
    (`core.bounds._jackson_sorted` after a stable sort by release; core called it so before its one-pass kernel):
    min over schedules of max(round_end + tail) for unit jobs on `cap` machines (largest tail first)."""
    from core.bounds import _jackson_sorted
    order = np.argsort(release, kind="stable")
    return int(_jackson_sorted(np.asarray(release, np.int64)[order], np.asarray(tails, np.int64)[order], int(cap)))


@contextlib.contextmanager
def threads(k: int):
    """Core's two-way work (`jit.both`) on k threads, down to the smallest inputs (k = 2: every
    `both` runs its halves at once; k = 1: the serial path)."""
    old = jit.PARALLEL_MIN, os.environ.get("NUMBA_NUM_THREADS")
    jit.PARALLEL_MIN, os.environ["NUMBA_NUM_THREADS"] = 0, str(k)
    try:
        yield
    finally:
        jit.PARALLEL_MIN = old[0]
        if old[1] is None:
            del os.environ["NUMBA_NUM_THREADS"]
        else:
            os.environ["NUMBA_NUM_THREADS"] = old[1]
