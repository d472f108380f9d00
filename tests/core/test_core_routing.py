"""Routing and node trees against MODEL.md §2, checked with a brute-force BFS written here."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from core.routing import compute_routes
from core.topology import make_topology

from _corelib import bfs_dist, random_topologies, reference_next_hop, reference_segments

SPECS = ["example:fig3", "bcube:n=3,k=1", "bcube:n=2,k=2", "dcell:n=3,k=1", "fattree:k=4",
         "jellyfish:switches=10,ports=5,switch_ports=4,seed=0"]


def check_routes_against_reference(t, mode="shortest"):
    r = compute_routes(t, mode)
    servers = t.servers.tolist()
    for i, root in enumerate(servers):
        dist = bfs_dist(t, root)
        assert r.dist[i].tolist() == [dist[v] for v in range(t.n_nodes)]
        ref = reference_next_hop(t, root)
        for v in range(t.n_nodes):
            hop = int(r.next_hop[i, v])
            if v == root:
                assert hop == -1
                continue
            # the next hop is a neighbour one step closer: on a shortest path
            assert t.link_id(v, hop) >= 0
            assert dist[hop] == dist[v] - 1
            if mode == "shortest":
                assert hop == ref[v], (root, v)
        tree = r.node_tree(root)
        segs = reference_segments(t, root) if mode == "shortest" else None
        assert sorted(tree.parent) == sorted(s for s in servers if s != root)
        for s, seg in tree.segments.items():
            # a segment starts at s, crosses switches only, and ends at the first server: the parent
            assert seg[0] == s and seg[-1] == tree.parent[s]
            assert all(not t.is_server[x] for x in seg[1:-1])
            assert t.is_server[seg[-1]]
            assert r.route(s, root)[:len(seg)] == seg
            if segs is not None:
                assert seg == segs[s]
            # parent chains reach the root without cycles
            seen, cur = set(), s
            while cur != root:
                assert cur not in seen
                seen.add(cur)
                cur = tree.parent[cur]
        # routes are shortest: full route length equals the BFS distance
        for s in servers:
            assert len(r.route(s, root)) - 1 == dist[s]
        # pruned edges are exactly the edges no segment uses
        used = set()
        for seg in tree.segments.values():
            for a, b in zip(seg, seg[1:]):
                used.add(t.link_id(a, b) // 2)
        assert tree.used_edges.tolist() == sorted(used)
        assert tree.pruned_edges.tolist() == sorted(set(range(t.n_edges)) - used)
        # depth = number of tree edges from the server to the root
        for s in servers:
            d, cur = 0, s
            while cur != root:
                cur, d = tree.parent[cur], d + 1
            assert r.depth[i, t.server_index[s]] == d


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("mode", ["shortest", "balanced"])
def test_routes_match_bruteforce(spec, mode):
    check_routes_against_reference(make_topology(spec), mode)


@settings(max_examples=60, deadline=None)
@given(random_topologies(max_nodes=9))
def test_routes_match_bruteforce_on_random_graphs(t):
    check_routes_against_reference(t, "shortest")
    check_routes_against_reference(t, "balanced")


def test_fig3_tree_of_A_prunes_CD():
    t = make_topology("example:fig3")  # A=0, B=1, C=2, D=3; edges A-B, B-C, B-D, C-D
    tree = compute_routes(t).node_tree(0)
    assert tree.parent == {1: 0, 2: 1, 3: 1}
    assert tree.segments == {1: [1, 0], 2: [2, 1], 3: [3, 1]}
    assert tree.children(1) == [2, 3] and tree.children(0) == [1]
    assert tree.pruned_edges.tolist() == [3]  # the edge C-D
    assert t.edges[3].tolist() == [2, 3]
    # toward C, D goes directly over C-D and A goes through B
    tree_c = compute_routes(t).node_tree(2)
    assert tree_c.parent == {0: 1, 1: 2, 3: 2}
    assert tree_c.pruned_edges.tolist() == [2]  # B-D


def test_lowest_id_tie_break_on_a_square():
    # servers 0 and 3 at opposite corners of a square 0-1-3, 0-2-3 (1, 2 switches): 3 routes via 1
    from _corelib import make_graph
    t = make_graph([True, False, False, True], [(0, 1), (0, 2), (1, 3), (2, 3)])
    r = compute_routes(t)
    assert r.route(3, 0) == [3, 1, 0]
    assert r.route(0, 3) == [0, 1, 3]
    assert r.node_tree(0).pruned_edges.tolist() == [1, 3]  # edges 0-2 and 2-3


def test_balanced_spreads_over_equal_routes():
    t = make_topology("bcube:n=3,k=1")
    shortest = compute_routes(t, "shortest")
    balanced = compute_routes(t, "balanced")
    # same distances, different choices somewhere (BCube(3,1) has two shortest routes between
    # servers that differ in both digits)
    assert np.array_equal(shortest.dist, balanced.dist)
    assert not np.array_equal(shortest.next_hop, balanced.next_hop)


def test_route_to_a_switch_is_refused():
    t = make_topology("bcube:n=2,k=1")
    r = compute_routes(t)
    with pytest.raises(ValueError, match="not a server"):
        r.route(0, int(t.switches[0]))
    with pytest.raises(ValueError, match="not a server"):
        r.node_tree(int(t.switches[0]))
    with pytest.raises(ValueError, match="routing must be one of"):
        compute_routes(t, "random")


def test_top_spread_counts_the_core_switches_the_trees_cross_and_the_busiest_link():
    """Fat-tree(4) under the lowest-id tie-break: every route between pods climbs to core switch c0, its links carry
    the most tree segments; balanced spreads the trees over all four core switches (trial 21's routing line)."""
    from core.routing import top_spread

    t = make_topology("fattree:k=4")
    now, spread = (top_spread(compute_routes(t, m)) for m in ("shortest", "balanced"))
    assert [t.labels[v] for v in now.used] == ["c0"] and now.total == spread.total == 4
    assert [t.labels[v] for v in spread.used] == ["c0", "c1", "c2", "c3"]
    for got in (now, spread):  # the busiest link: segments over each directed link, counted by walking every route
        r = compute_routes(t, got.mode)
        load = {}
        for i in range(t.n_servers):
            for j in range(t.n_servers):
                nodes = [int(x) for x in r.seg_nodes[i, j, : r.seg_len[i, j] + 1]]
                for u, v in zip(nodes, nodes[1:]):
                    load[u, v] = load.get((u, v), 0) + 1
        assert got.busiest == max(load.values())
    assert spread.busiest < now.busiest
