"""A run cut into time columns (the dashboard's seconds axis): busy shares by hand, their sum is each
link's busy time, in-flight workloads; the times of a re-planned run (delivered part, then the rest)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.methods import run_method
from core.replan import LinkEvent, replan
from core.schedule import ScheduleConfig
from core.timing import replay
from core.timing.windows import busy_share, in_flight, time_edges
from core.workloads import BROADCAST, REDUCE, tree_dag

from _corelib import HEURISTICS, make_graph, random_topologies, topo

MS = 1e-3


def two_servers():
    """A - B at 8 Gbit/s and 10 µs, 2 MB: four workloads of 1.010 ms, two per round (test_time_replay)."""
    t = make_graph([True, True], [(0, 1)]).with_links(bandwidth=8.0, latency=10.0)
    dag = tree_dag(t)
    pick = lambda root, phase: [int(w) for w in np.flatnonzero((dag.root == root) & (dag.phase == phase))]
    rounds = [pick(0, REDUCE) + pick(1, REDUCE), pick(0, BROADCAST) + pick(1, BROADCAST)]
    return dag, replay(dag, rounds, size=2e6, mode="sync")


@pytest.mark.parametrize("edges_ms,want", [
    ([0, 1.01, 2.02], [1, 1]),          # one column per round: both directions busy all the time
    ([0, 0.505, 2.02], [1, 1]),
    ([0, 2.02, 4.04], [1, 0]),          # after the end: idle
    ([0, 3.03], [2 / 3]),               # 2.02 ms busy in 3.03 ms
    ([0, 1.01, 1.01, 2.02], [1, 0, 1]),  # a column of zero length shows 0
])
def test_two_servers_by_hand(edges_ms, want):
    dag, tm = two_servers()
    share = busy_share(dag, tm.start, tm.finish, np.array(edges_ms) * MS)
    assert share.shape == (2, len(want))
    assert np.allclose(share, [want, want])


def test_time_edges_and_in_flight():
    assert np.allclose(time_edges(2.02 * MS, 2), [0, 1.01 * MS, 2.02 * MS])
    dag, tm = two_servers()
    assert sorted(in_flight(tm.start, tm.finish, 0, 0.5 * MS).tolist()) == sorted(np.asarray(
        [w for w in range(4) if tm.start[w] == 0]).tolist())
    assert len(in_flight(tm.start, tm.finish, 0.9 * MS, 1.1 * MS)) == 4  # both rounds touch [0.9, 1.1) ms
    assert len(in_flight(tm.start, tm.finish, 2.02 * MS, 3 * MS)) == 0
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="positive number of seconds"):
            time_edges(bad, 3)
    with pytest.raises(ValueError, match="at least one column"):
        time_edges(1.0, 0)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(t=random_topologies(capacities=True), method=st.sampled_from(HEURISTICS), mode=st.sampled_from(["sync", "async"]),
       n=st.integers(1, 9), seed=st.integers(0, 10 ** 6))
# found by a fresh clone's run: a transfer ending a hair after a column's start is in flight there, and its
# busy share must not cancel to 0 (it did while shares were differences of cumulative busy time)
@example(t=make_graph([True] * 5, [(0, 1), (0, 2), (1, 3), (1, 4)]), method="critical-path", mode="sync", n=8, seed=9785)
def test_shares_add_up_to_each_links_busy_time(t, method, mode, n, seed):
    rng = np.random.default_rng(seed)
    t = t.with_links(bandwidth=rng.choice([10.0, 25.0, 100.0], t.n_edges), latency=rng.choice([0.5, 1.0, 3.0], t.n_edges))
    s = run_method(method, t, ScheduleConfig())
    tm = replay(s, size=1e6, mode=mode)
    edges = time_edges(tm.time, n)
    share = busy_share(s.dag, tm.start, tm.finish, edges)
    assert share.min() >= 0 and share.max() <= 1 + 1e-9  # lanes: never more than c transfers at once
    assert np.allclose((share * np.diff(edges)).sum(axis=1), tm.link_busy, rtol=1e-9, atol=1e-15)
    for j in range(n):  # a workload is in flight in every column its transfer overlaps
        ids = in_flight(tm.start, tm.finish, edges[j], edges[j + 1])
        used = np.zeros(t.n_links, bool)
        used[s.dag.links.gather(ids)[1]] = True
        assert np.array_equal(used, share[:, j] > 0)


@pytest.mark.parametrize("method", HEURISTICS + ("time-aware",))
@pytest.mark.parametrize("spec,when,fail,slow", [
    ("dcell:n=4,k=1", "round=4", "s1.1-sw1", None),
    ("bcube:n=4,k=1,bw=100/25", "0.5ms", None, "0:x0.1"),
    ("bcube:n=3,k=1", "0s", "0", None),
])
def test_a_replanned_run_keeps_what_ran_then_the_rest(spec, when, fail, slow, method):
    t = topo(spec)
    sched = run_method(method, t, ScheduleConfig())
    r = replan(sched, LinkEvent.parse(t, when, fail=fail, slow=slow))
    dag, rounds = r.combined()
    start, finish = r.combined_times()
    assert len(start) == len(finish) == dag.n
    assert finish.max() == pytest.approx(r.finish_s)
    done = np.flatnonzero(r.delivered)
    k = len(done)
    assert np.array_equal(start[:k], r.timing.start[done])  # the delivered part as it ran
    assert (finish[:k] >= r.timing.finish[done] - 1e-15).all()  # a kept transfer on a slowed link ends later
    if slow:
        assert (finish[:k] > r.timing.finish[done] + 1e-12).any()
    assert (start[k:] >= r.resume_s - 1e-15).all()  # the rest starts once the survivors have drained
    pr, pv = dag.prefix.rows_of_values(), dag.prefix.values
    assert (start[pr] >= finish[pv] - 1e-12).all()  # nothing starts before what it waits for has arrived
