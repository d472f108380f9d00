"""Workload DAGs against MODEL.md §3: merged trees, plain PS trees, chunks and the ring."""

from __future__ import annotations

import dataclasses
from collections import Counter

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings

from core.ring import ring_adjacency
from core.routing import compute_routes
from core.topology import make_topology
from core.workloads import BROADCAST, REDUCE, ring_dag, tree_dag

from _corelib import longest_chain, random_topologies, to_nx, topo

SPECS = ["example:fig3", "bcube:n=3,k=1", "bcube:n=2,k=2", "dcell:n=3,k=1", "fattree:k=4",
         "jellyfish:switches=10,ports=5,switch_ports=4,seed=0"]


def rows(dag):
    return dag.path.to_lists(), dag.explicit().prefix.to_lists()


def check_merged(t, chunks=1):
    dag = tree_dag(t, merge=True, chunks=chunks)
    s = t.n_servers
    assert dag.n == 2 * s * (s - 1) * chunks
    assert dag.n_trees == s * chunks
    r = compute_routes(t)
    paths, prefixes = rows(dag)
    assert Counter(zip(dag.tree_root.tolist(), dag.tree_chunk.tolist())) == Counter(
        {(root, c): 1 for root in t.servers.tolist() for c in range(chunks)})
    for tr in range(dag.n_trees):
        root = int(dag.tree_root[tr])
        tree = r.node_tree(root)
        ws = np.flatnonzero(dag.tree == tr)
        red = [w for w in ws.tolist() if dag.phase[w] == REDUCE]
        bc = [w for w in ws.tolist() if dag.phase[w] == BROADCAST]
        assert len(red) == s - 1 and len(bc) == s - 1
        assert np.all(dag.root[ws] == root) and np.all(dag.chunk[ws] == dag.tree_chunk[tr])
        # one reduce per non-root server, to its parent, along its segment, carrying its own piece
        assert sorted(dag.src[red].tolist()) == sorted(tree.parent)
        for w in red:
            src = int(dag.src[w])
            assert paths[w] == tree.segments[src]
            assert dag.dst[w] == tree.parent[src]
            assert dag.carries_own[w]
            # prefix = every reduce workload of the tree that arrives at the sender
            assert sorted(prefixes[w]) == sorted(x for x in red if dag.dst[x] == src)
        into_root = sorted(x for x in red if dag.dst[x] == root)
        # broadcast: the reversed tree edges; from the root after every reduce into it,
        # elsewhere after the broadcast into the sender
        assert sorted((int(dag.dst[w]), int(dag.src[w])) for w in bc) == sorted(tree.parent.items())
        for w in bc:
            assert not dag.carries_own[w]
            src, dst = int(dag.src[w]), int(dag.dst[w])
            assert paths[w] == tree.segments[dst][::-1]
            if src == root:
                assert sorted(prefixes[w]) == into_root
            else:
                assert prefixes[w] == [x for x in bc if dag.dst[x] == src]
    return dag


def check_plain(t, chunks=1):
    dag = tree_dag(t, merge=False, chunks=chunks)
    r = compute_routes(t)
    paths, prefixes = rows(dag)
    total = 0
    for tr in range(dag.n_trees):
        root = int(dag.tree_root[tr])
        tree = r.node_tree(root)
        ws = np.flatnonzero(dag.tree == tr).tolist()
        red = [w for w in ws if dag.phase[w] == REDUCE]
        bc = [w for w in ws if dag.phase[w] == BROADCAST]
        hops_of = {}  # origin -> its chain of tree edges to the root
        for s in tree.parent:
            chain, cur = [], s
            while cur != root:
                chain.append(cur)
                cur = tree.parent[cur]
            hops_of[s] = chain
        n_hops = sum(len(c) for c in hops_of.values())
        assert len(red) == n_hops and len(bc) == n_hops
        total += 2 * n_hops
        # reconstruct each origin's reduce chain by following the prefixes backwards from the root
        firsts = [w for w in red if dag.carries_own[w]]
        assert sorted(dag.src[firsts].tolist()) == sorted(tree.parent)
        assert all(prefixes[w] == [] for w in firsts)
        succ = {}
        for w in red:
            for p in prefixes[w]:
                assert p not in succ
                succ[p] = w
        into_root = []
        for w0 in firsts:
            origin = int(dag.src[w0])
            chain, w = [w0], w0
            while w in succ:
                w = succ[w]
                chain.append(w)
            assert [int(dag.src[x]) for x in chain] == hops_of[origin]
            assert [paths[x] for x in chain] == [tree.segments[h] for h in hops_of[origin]]
            assert not any(dag.carries_own[x] for x in chain[1:])  # relays do not add their own piece
            assert all(prefixes[b] == [a] for a, b in zip(chain, chain[1:]))
            into_root.append(chain[-1])
        # broadcast: one chain per destination, its first hop after every reduce into the root
        first_bc = [w for w in bc if dag.src[w] == root and sorted(prefixes[w]) == sorted(into_root)]
        assert len(first_bc) == len(tree.parent)
        bsucc = {}
        for w in bc:
            if w not in first_bc:
                assert len(prefixes[w]) == 1 and dag.phase[prefixes[w][0]] == BROADCAST
                bsucc[prefixes[w][0]] = w
        ends = []
        for w0 in first_bc:
            chain, w = [w0], w0
            while w in bsucc:
                w = bsucc[w]
                chain.append(w)
            dest = int(dag.dst[chain[-1]])
            ends.append(dest)
            assert [int(dag.dst[x]) for x in chain] == hops_of[dest][::-1]
            assert all(dag.dst[a] == dag.src[b] for a, b in zip(chain, chain[1:]))
        assert sorted(ends) == sorted(tree.parent)
    assert dag.n == total
    # the builder writes deps itself (chunks == 1) and keeps the chains that imply the successors instead of
    # them; both equal the ones derived from prefix and groups (a replaced DAG derives them afresh, with no chains)
    assert chunks > 1 or ("deps" in dag.__dict__ and "successors" not in dag.__dict__ and dag.chains is not None)
    assert chunks == 1 or dag.chains is None
    fresh = dataclasses.replace(dag)
    assert fresh.chains is None
    for rel in ("deps", "successors"):
        mine, derived = getattr(dag, rel), getattr(fresh, rel)
        assert mine.ptr.tolist() == derived.ptr.tolist() and mine.values.tolist() == derived.values.tolist()
    return dag


@pytest.mark.parametrize("spec", SPECS)
def test_merged_dag_structure(spec):
    check_merged(topo(spec))


@pytest.mark.parametrize("spec", SPECS)
def test_plain_dag_structure(spec):
    check_plain(topo(spec))


@settings(max_examples=40, deadline=None)
@given(random_topologies(max_nodes=8))
def test_tree_dags_on_random_graphs(t):
    check_merged(t)
    check_plain(t)


def test_paper_workload_count_bcube31():
    assert tree_dag(topo("bcube:n=3,k=1")).n == 144
    assert tree_dag(topo("bcube:n=3,k=1"), chunks=3).n == 432


@pytest.mark.parametrize("spec", ["example:fig3", "bcube:n=3,k=1", "dcell:n=3,k=1"])
@pytest.mark.parametrize("merge", [True, False])
def test_chunks_replicate_every_tree(spec, merge):
    t = topo(spec)
    one = tree_dag(t, merge=merge)
    for k in (2, 3):
        dag = tree_dag(t, merge=merge, chunks=k)
        assert dag.n == k * one.n and dag.n_trees == k * one.n_trees
        paths, prefixes = rows(dag)
        paths1, prefixes1 = rows(one)
        for tr in range(dag.n_trees):
            root, c = int(dag.tree_root[tr]), int(dag.tree_chunk[tr])
            ws = np.flatnonzero(dag.tree == tr)
            ws1 = np.flatnonzero(one.root == root)
            assert len(ws) == len(ws1)
            local = {int(w): i for i, w in enumerate(ws)}
            local1 = {int(w): i for i, w in enumerate(ws1)}
            for w, w1 in zip(ws.tolist(), ws1.tolist()):
                assert paths[w] == paths1[w1]
                assert dag.phase[w] == one.phase[w1] and dag.carries_own[w] == one.carries_own[w1]
                assert dag.chunk[w] == c
                # prefixes stay inside the same (root, chunk) tree and mirror chunk 0's
                assert all(dag.tree[p] == tr for p in prefixes[w])
                assert sorted(local[p] for p in prefixes[w]) == sorted(local1[p] for p in prefixes1[w1])


def check_ring(t, chunks=1):
    dag = ring_dag(t, chunks=chunks)
    order = dag.meta["ring"]
    s = len(order)
    assert sorted(order) == t.servers.tolist()
    r = compute_routes(t)
    adj = ring_adjacency(t)
    idx = t.server_index
    adjacent = all(adj[idx[order[a]], idx[order[(a + 1) % s]]] for a in range(s))
    if dag.meta["ring_adjacent"]:
        assert adjacent

    def switch_only(u, v):  # brute force: shortest path with switches inside, lowest-id next hops
        g = to_nx(t)
        inner = g.subgraph([x for x in g if not t.is_server[x]] + [u, v]).copy()
        if not nx.has_path(inner, u, v):
            return None
        paths = [p for p in nx.all_shortest_paths(inner, u, v)
                 if all(not t.is_server[x] for x in p[1:-1])]
        return min(paths) if paths else None  # lexicographic min = lowest-id next hop at each step

    def segments(a):  # a ring-adjacent step goes over switches only; else the route, cut at servers
        full = switch_only(order[a], order[(a + 1) % s]) or r.route(order[a], order[(a + 1) % s])
        cuts = [i for i, v in enumerate(full) if t.is_server[v]]
        return [full[cuts[m]:cuts[m + 1] + 1] for m in range(len(cuts) - 1)]

    paths, prefixes = rows(dag)
    assert dag.n_trees == s * chunks
    total = 0
    for tr in range(dag.n_trees):
        ws = np.flatnonzero(dag.tree == tr).tolist()
        # the tree is one chain: each workload waits for the previous one
        assert prefixes[ws[0]] == []
        assert all(prefixes[b] == [a] for a, b in zip(ws, ws[1:]))
        c = tr // chunks
        want, phase, own = [], [], []
        for ph, first in ((REDUCE, c), (BROADCAST, c - 1)):
            for step in range(s - 1):
                segs = segments((first + step) % s)
                for m, seg in enumerate(segs):
                    want.append(seg)
                    phase.append(ph)
                    own.append(ph == REDUCE and m == 0)
        assert [paths[w] for w in ws] == want
        assert dag.phase[ws].tolist() == phase and dag.carries_own[ws].tolist() == own
        assert dag.tree_root[tr] == order[(c - 1) % s]
        # 2(S-1) sends per chain (the reconstruction above walks exactly 2(S-1) ring steps);
        # S-1 of them add the sender's own piece
        assert sum(1 for w in ws if dag.phase[w] == REDUCE and dag.carries_own[w]) == s - 1
        total += len(ws)
        for path in (paths[w] for w in ws):
            assert all(not t.is_server[x] for x in path[1:-1])
    assert dag.n == total
    return dag


@pytest.mark.parametrize("spec", SPECS)
def test_ring_dag_structure(spec):
    check_ring(topo(spec))


@pytest.mark.parametrize("spec", SPECS[1:])
def test_ring_has_no_relays_on_regular_families(spec):
    dag = ring_dag(topo(spec))
    s = topo(spec).n_servers
    assert dag.meta["ring_adjacent"] is True
    assert dag.n == 2 * s * (s - 1)


def test_ring_adjacent_means_no_relays():
    from _corelib import make_graph
    # servers 0, 1, 2 and switch 3; 1 and 2 are joined by the switch-only path 1-3-2, but the
    # lowest-id shortest route 1 -> 2 is 1-0-2, through server 0
    t = make_graph([True, True, True, False], [(0, 1), (0, 2), (1, 3), (2, 3)])
    dag = ring_dag(t)
    assert dag.meta["ring_adjacent"] is True
    assert dag.n == 2 * 3 * 2  # 12 workloads, none relayed


def test_ring_chunks():
    t = topo("bcube:n=3,k=1")
    dag = check_ring(t, chunks=2)
    assert dag.n == 2 * 2 * 9 * 8
    assert dag.meta["ring_adjacent"] is True


def test_ring_relays_on_fig3():
    # A has a single link, so no ring avoids crossing a server: D->A is relayed at B
    t = topo("example:fig3")
    dag = check_ring(t)
    assert dag.meta["ring"] == [0, 1, 2, 3] and dag.meta["ring_adjacent"] is False
    paths = dag.path.to_lists()
    assert [3, 1] in paths and [1, 0] in paths
    relays = [w for w in range(dag.n) if paths[w] == [1, 0] and dag.phase[w] == REDUCE and not dag.carries_own[w]]
    assert len(relays) == 3  # three chains reduce over the step D->A
    assert dag.n == 30  # 4 chains x 6 sends + 6 relayed sends split in two


@settings(max_examples=40, deadline=None)
@given(random_topologies(max_nodes=8))
def test_ring_dag_on_random_graphs(t):
    check_ring(t)


def test_ring_order_validation():
    t = topo("bcube:n=2,k=1")
    with pytest.raises(ValueError, match="every server exactly once"):
        ring_dag(t, order=[0, 1, 2, 2])
    dag = ring_dag(t, order=[0, 2, 3, 1])
    assert dag.meta["ring"] == [0, 2, 3, 1]


@pytest.mark.parametrize("spec", SPECS)
def test_head_tail_and_link_load(spec):
    t = topo(spec)
    for dag in (tree_dag(t), tree_dag(t, merge=False), ring_dag(t)):
        prefixes = dag.explicit().prefix.to_lists()
        # head: earliest round; tail: remaining chain including itself
        for w in range(dag.n):
            assert dag.head[w] == max((dag.head[p] + 1 for p in prefixes[w]), default=0)
        succ = dag.explicit().successors.to_lists()
        want_succ = [[] for _ in range(dag.n)]
        for x in range(dag.n):
            for p in prefixes[x]:
                want_succ[p].append(x)
        for w in range(dag.n):
            assert dag.tail[w] == 1 + max((dag.tail[x] for x in succ[w]), default=0)
            assert sorted(succ[w]) == sorted(want_succ[w])
        assert int(dag.tail.max()) == longest_chain(dag)
        load = Counter(lk for links in dag.links.to_lists() for lk in links)
        assert dag.link_load.tolist() == [load.get(lk, 0) for lk in range(t.n_links)]
        # links are the directed links along each path
        for w in range(0, dag.n, max(1, dag.n // 50)):
            p = dag.path.row(w).tolist()
            assert dag.links.row(w).tolist() == [t.link_id(a, b) for a, b in zip(p, p[1:])]
            assert dag.src[w] == p[0] and dag.dst[w] == p[-1]


def test_workload_dict_and_description():
    t = make_topology("example:fig3")
    dag = tree_dag(t)
    assert dag.workload(0) == {"id": 0, "root": 0, "chunk": 0, "phase": "reduce", "path": [1, 0],
                               "prefix": [1, 2], "carries_own": True}
    assert dag.describe(0) == "#0 reduce B->A (tree A)"
    assert tree_dag(t, chunks=2).describe(6) == "#6 reduce B->A (tree A/1)"
