"""Rings for the time-aware method: the fastest switch-only route, a ring chosen for the link bandwidths, a
ring both ways (hand-computed times), and the time-aware method against Ring on the mixed Jellyfish."""

from __future__ import annotations

import numpy as np
import pytest

from core.bounds import time_bounds
from core.methods import run_method
from core.ring import fast_ring_order, ring_order
from core.routing import compute_routes, switch_only_route, widest_switch_route
from core.schedule import ScheduleConfig
from core.schedulers.listsched import list_schedule, step_rank
from core.timing import ReplayPlan, replay_modes
from core.workloads import BROADCAST, REDUCE, ring_dag

from _corelib import make_graph, payload_problems, report, topo

MS = 1e-3
MIXED_JELLYFISH = "jellyfish:switches=20,ports=5,switch_ports=4,seed=0,bw=100/25|100"


def square():
    """Four servers A-B-C-D-A joined directly, 8 Gbit/s (1 MB takes 1 ms), no latency: two ports each."""
    return make_graph([True] * 4, [(0, 1), (1, 2), (2, 3), (3, 0)]).with_links(bandwidth=8.0, latency=0.0)


def detour():
    """Servers 0, 1; switch 2 joins them over a 25 Gbit/s link (2-1); switches 3, 4 a 100 Gbit/s detour."""
    t = make_graph([True, True, False, False, False], [(0, 2), (2, 1), (0, 3), (3, 4), (4, 1)])
    return t.with_links(bandwidth=[100.0, 25.0, 100.0, 100.0, 100.0])


def test_the_widest_switch_route_takes_the_fast_detour():
    t = detour()
    assert switch_only_route(t, 0, 1) == [0, 2, 1]  # fewest hops
    assert widest_switch_route(t, 0, 1) == [0, 3, 4, 1]  # largest bottleneck, then fewest hops
    assert switch_only_route(t, 0, 1, min_bandwidth=100.0) == [0, 3, 4, 1]
    assert switch_only_route(t, 0, 1, min_bandwidth=200.0) is None
    failed = t.with_links(failed=np.array([False, False, False, True, False]))
    assert widest_switch_route(failed, 0, 1) == [0, 2, 1]  # the detour is cut: the slow link it is


def test_a_ring_both_ways_sends_odd_pieces_the_other_way_round():
    t = square()
    one, both = ring_dag(t, chunks=2), ring_dag(t, chunks=2, both_ways=True)
    assert one.n == both.n == 2 * 4 * 2 * 3  # chunks x servers x 2(S-1) steps
    for d, directions in ((one, 1), (both, 2)):
        hops = {(int(d.src[w]), int(d.dst[w])) for w in range(d.n)}
        assert len(hops) == 4 * directions  # one way: 4 directed links used; both ways: all 8
    odd = both.tree_chunk[both.tree] == 1
    order = both.meta["ring"]
    nxt = {order[i]: order[(i + 1) % 4] for i in range(4)}
    assert all(nxt[int(both.dst[w])] == int(both.src[w]) for w in np.flatnonzero(odd))  # against the ring
    assert all(nxt[int(both.src[w])] == int(both.dst[w]) for w in np.flatnonzero(~odd))  # along it
    rounds = list_schedule(both, step_rank(both))
    assert payload_problems(both, rounds) == []
    with pytest.raises(ValueError, match="chunks >= 2"):
        ring_dag(t, both_ways=True)


def test_the_ring_both_ways_reaches_the_bandwidth_bound_on_the_square():
    # M = 8 MB. Ring: S = 4 pieces of 2 MB, 2(S-1) = 6 steps of 2 ms on one direction of each link: 12 ms.
    # Both ways: 8 pieces of 1 MB, 6 steps of 1 ms in each direction at once: 6 ms, which is the bandwidth
    # bound (each server sends 2(n-1)/n M = 12 MB over its two 1 MB/ms ports). A merged tree's reduce and
    # broadcast are a chain of at least 4 transfers of 2 MB: 8 ms.
    t = square()
    cfg = ScheduleConfig(size=8_000_000)
    ring = run_method("ring", t, cfg)
    ta = run_method("time-aware", t, cfg)
    assert replay_modes(ring, size=8e6)["async"].time == pytest.approx(12 * MS)
    assert ta.info["dag"].endswith("both ways") and ta.dag.kind == "ring" and ta.dag.chunks == 2
    timing = ReplayPlan(ta.dag, ta.rounds).run(8e6, "async")
    assert timing.time == pytest.approx(6 * MS) == pytest.approx(ta.info["planned_time_s"])
    assert time_bounds(ta.dag, 8e6).bandwidth == pytest.approx(6 * MS)
    assert min(v for k, v in ta.info["tried_s"].items() if "ring" not in k) >= 8 * MS - 1e-12
    assert report(ta).ok and payload_problems(ta.dag, ta.rounds) == []


def _slow_steps(t, order) -> int:
    """Ring steps whose fastest switch-only path still crosses a link slower than the fastest."""
    top = t.bandwidth.max()
    n = 0
    for a, b in zip(order, order[1:] + order[:1]):
        path = widest_switch_route(t, a, b)
        n += min(t.bandwidth[t.link_ids(path) // 2]) < top
    return n


def test_the_fast_ring_crosses_slow_links_only_where_it_must():
    # the mixed Jellyfish's 100 Gbit/s links leave switches 27, 28, 37 apart from the rest: any ring crosses
    # that cut at least twice, over 25 Gbit/s links
    t = topo(MIXED_JELLYFISH)
    routes = compute_routes(t)
    fast, adjacent = fast_ring_order(t, routes)
    assert adjacent and sorted(fast) == t.servers.tolist()
    assert _slow_steps(t, fast) == 2
    assert _slow_steps(t, ring_order(t, routes)[0]) == 2  # Ring's order is as good: its hops are not

    def slow_sends(d):
        return sum(min(t.bandwidth[d.links.row(w) // 2]) < 100 for w in range(d.n))

    dag = ring_dag(t, routes=routes, fastest=True)
    assert dag.meta["fastest"] and dag.meta["ring"] == fast
    assert slow_sends(dag) == 2 * 2 * (t.n_servers - 1)  # only the two slow steps' 2(S-1) sends each
    assert slow_sends(ring_dag(t, routes=routes)) > 2 * 2 * (t.n_servers - 1)  # Ring's fewest-hop paths


def test_time_aware_beats_ring_on_the_mixed_jellyfish():
    t = topo(MIXED_JELLYFISH)
    cfg = ScheduleConfig(size=100_000_000)
    got = {m: replay_modes(run_method(m, t, cfg), size=1e8)["async"].time for m in ("ring", "critical-path")}
    ta = run_method("time-aware", t, cfg)
    timing = ReplayPlan(ta.dag, ta.rounds).run(1e8, "async")
    assert timing.time == pytest.approx(ta.info["planned_time_s"], rel=1e-12)
    assert timing.time < 0.9 * min(got.values())  # more than 10% faster than the best of them
    assert ta.info["dag"] == "fast ring both ways"
    assert report(ta).ok and payload_problems(ta.dag, ta.rounds) == []
    phases = set(ta.dag.phase.tolist())
    assert phases == {REDUCE, BROADCAST}
