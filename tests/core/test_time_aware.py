"""The time-aware scheduler: a hand-computed event log, its rounds replay (async) to its own continuous-time
schedule exactly, it is valid on every family, and it plans with the real transfer times."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.methods import InvalidSchedule, Method, register, run_method, unregister
from core.schedule import Plan, ScheduleConfig
from core.schedulers.timeaware import WINDOWS, list_in_time, upward_priority, upward_rank
from core.timing import ReplayPlan, replay_modes, transfer_times
from core.topology import make_topology, preset
from core.workloads import BROADCAST, REDUCE, build_dag, tree_dag

from _corelib import make_graph, payload_problems, random_topologies, report, topo
from test_time_replay import find

MS = 1e-3
HETEROGENEOUS = ["bcube:n=4,k=1,bw=100/25", "fattree:k=4,bw=100/100/25",
                 "jellyfish:switches=10,ports=5,switch_ports=4,seed=0,bw=100/25|100"]


def line3():
    """A - B - C, all servers: A-B at 8 Gbit/s (1 MB takes 1 ms), B-C at 2 Gbit/s (4 ms); no latency."""
    return make_graph([True, True, True], [(0, 1), (1, 2)]).with_links(bandwidth=[8.0, 2.0], latency=0.0)


def test_event_log_by_hand_on_a_line_with_a_slow_link():
    # M = 3 MB over 3 trees: 1 MB pieces. Upward ranks (ms): tree A: C->B 10, B->A 6, bc A->B 5, bc B->C 4;
    # tree B: A->B 5, C->B 8, bc B->A 1, bc B->C 4; tree C: A->B 10, B->C 9, bc C->B 5, bc B->A 1.
    # t=0: C->B(A) beats C->B(B) on link C->B, A->B(C) beats A->B(B) on A->B. t=1: B->C(C), A->B(B).
    # t=4: B->A(A), C->B(B). t=5: bc A->B(A). t=6: bc B->C(A). t=8: bc C->B(C), bc B->A(B). t=10: bc B->C(B).
    # t=12: bc B->A(C). Done at 14 ms.
    t = line3()
    dag = tree_dag(t)
    dur = transfer_times(dag, 3e6)
    A, B, C = 0, 1, 2
    expect = [  # (tree, phase, src, dst, start ms, upward rank ms)
        (A, REDUCE, C, B, 0, 10), (A, REDUCE, B, A, 4, 6), (A, BROADCAST, A, B, 5, 5), (A, BROADCAST, B, C, 6, 4),
        (B, REDUCE, A, B, 1, 5), (B, REDUCE, C, B, 4, 8), (B, BROADCAST, B, A, 8, 1), (B, BROADCAST, B, C, 10, 4),
        (C, REDUCE, A, B, 0, 10), (C, REDUCE, B, C, 1, 9), (C, BROADCAST, C, B, 8, 5), (C, BROADCAST, B, A, 12, 1)]
    cs = list_in_time(dag, dur, upward_priority(dag, dur))
    rank = upward_rank(dag, dur)
    for root, phase, src, dst, start, up in expect:
        w = find(dag, root, phase, src, dst)
        assert cs.start[w] == pytest.approx(start * MS), (root, phase, src, dst)
        assert rank[w] == pytest.approx(up * MS)
    assert cs.time == pytest.approx(14 * MS)
    # the rounds keep that order; the async replay of them is the same schedule
    timing = ReplayPlan(dag, cs.rounds).run(3e6, "async")
    assert np.array_equal(timing.start, cs.start) and timing.time == cs.time


def test_time_aware_beats_hop_count_priorities_on_the_line():
    t = line3()
    cfg = ScheduleConfig(size=3_000_000)
    times = {m: replay_modes(run_method(m, t, cfg), size=3e6)["async"].time for m in ("critical-path", "time-aware")}
    assert times["time-aware"] == pytest.approx(14 * MS)
    assert times["critical-path"] > times["time-aware"]


def test_transfer_times_drive_the_priority():
    # tree B's reduce A->B: 1 ms then the slower broadcast B->C (4 ms) = 5 ms; with the slow link moved to
    # A-B it is 4 ms + 4 ms (broadcast B->A) = 8 ms. The hop counts (the round methods' rank) do not change.
    t = line3()
    flipped = t.with_links(bandwidth=[2.0, 8.0])
    got = []
    for net in (t, flipped):
        dag = tree_dag(net)
        got.append((upward_rank(dag, transfer_times(dag, 3e6))[find(dag, 1, REDUCE, 0, 1)], dag.tail.tolist()))
    assert got[0][0] == pytest.approx(5 * MS) and got[1][0] == pytest.approx(8 * MS)
    assert got[0][1] == got[1][1]


@pytest.mark.parametrize("window", WINDOWS)
@pytest.mark.parametrize("spec", [p.spec for p in preset("table2")][:6] + HETEROGENEOUS)
def test_async_replay_reproduces_the_continuous_schedule(spec, window):
    t = topo(spec)
    dag = build_dag(t, "tree")
    dur = transfer_times(dag, 1e8)
    cs = list_in_time(dag, dur, upward_priority(dag, dur), window=window * float(np.median(dur)))
    timing = ReplayPlan(dag, cs.rounds).run(1e8, "async")
    assert np.array_equal(timing.start, cs.start)
    assert np.array_equal(timing.finish, cs.finish)
    # each round puts at most one workload on a link: the rounds are valid by construction
    for r in cs.rounds:
        _, links = dag.links.gather(r)
        assert len(np.unique(links)) == len(links)


@pytest.mark.parametrize("spec", [p.spec for p in preset("table2")] + HETEROGENEOUS + ["example:fig3"])
def test_the_method_is_valid_and_its_plan_is_its_replay(spec):
    s = run_method("time-aware", topo(spec), ScheduleConfig())
    assert report(s).ok
    assert payload_problems(s.dag, s.rounds) == []
    timing = replay_modes(s, size=1e8)
    assert timing["async"].time == pytest.approx(s.info["planned_time_s"], rel=1e-12)
    assert s.info["routing"] == s.dag.meta["routing"]
    assert min(s.info["tried_s"].values()) == pytest.approx(s.info["planned_time_s"], rel=1e-12)
    assert timing["async"].time <= timing["sync"].time


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_topologies(min_nodes=3, max_nodes=8, capacities=True), st.data())
def test_reproduction_on_random_graphs_with_random_links(t, data):
    bw = data.draw(st.lists(st.sampled_from([1.0, 10.0, 25.0, 100.0]), min_size=t.n_edges, max_size=t.n_edges))
    lat = data.draw(st.lists(st.sampled_from([0.0, 1.0, 50.0]), min_size=t.n_edges, max_size=t.n_edges))
    t = t.with_links(bandwidth=bw, latency=lat)
    size = data.draw(st.sampled_from([1e3, 1e6, 1e8]))
    merge = data.draw(st.booleans())
    dag = build_dag(t, "tree", merge=merge, chunks=data.draw(st.integers(1, 2)))
    dur = transfer_times(dag, size)
    window = data.draw(st.sampled_from(WINDOWS)) * float(np.median(dur))
    cs = list_in_time(dag, dur, upward_priority(dag, dur), window=window)
    timing = ReplayPlan(dag, cs.rounds).run(size, "async")  # also checks prefix and per-round capacity order
    assert np.array_equal(timing.start, cs.start)
    s = run_method("time-aware", t, ScheduleConfig(size=int(size), merge=merge))
    assert payload_problems(s.dag, s.rounds) == []
    assert replay_modes(s, size=size)["async"].time == pytest.approx(s.info["planned_time_s"], rel=1e-12)


def test_it_schedules_with_the_configured_size():
    t = make_topology("bcube:n=4,k=1,bw=100/25")
    small = run_method("time-aware", t, ScheduleConfig(size=1000))
    big = run_method("time-aware", t, ScheduleConfig(size=10 ** 9))
    assert small.info["planned_size_bytes"] == 1000 and big.info["planned_size_bytes"] == 10 ** 9
    assert replay_modes(big, size=1e9)["async"].time == pytest.approx(big.info["planned_time_s"])


def test_a_method_may_return_its_own_dag_only_over_the_same_topology():
    other = make_topology("bcube:n=3,k=1")

    def wrong(dag, config, progress=None):
        d = build_dag(other, "tree")
        return Plan([np.arange(d.n)], dag=d)

    register(Method("toy-own-dag", "toy", wrong, dag="tree", default=False))
    try:
        with pytest.raises(InvalidSchedule, match="another topology"):
            run_method("toy-own-dag", make_topology("bcube:n=3,k=1"), ScheduleConfig())
    finally:
        unregister("toy-own-dag")


def test_cli_says_whose_lower_bound_time_aware_reports(capsys):
    from test_core_bad_input import run_cli
    code, out, _ = run_cli(capsys, "schedule", "bcube:n=3,k=1", "--method", "time-aware")
    assert code == 0
    line = next(x for x in out.splitlines() if "lower bound" in x)
    assert "lower bound 11 of the DAG it chose, 'bandwidth'; gap" in line  # not the shortest-routes DAG's 12
    code, out, _ = run_cli(capsys, "schedule", "bcube:n=3,k=1", "--method", "critical-path")
    assert "lower bound 12; gap" in out


def test_a_faster_link_can_make_the_schedule_slower_as_docs_time_says():
    """fix23a: docs/time.md §10's example, computed: on BCube(3,1) at 100 Gbit/s time-aware plans 11.58 ms; with link 1
    at 200 Gbit/s 12.47 ms. The bandwidth-routing trees, which won, lean on the faster link (11.58 -> 14.25 ms); the
    balanced trees, which win then, are as before. Not a wish: nothing in the method promises monotonicity."""
    from pathlib import Path

    base = make_topology("bcube:n=3,k=1")
    bw = base.bandwidth.copy()
    bw[1] = 200.0
    cfg = ScheduleConfig(size=100_000_000)
    slow, fast = (run_method("time-aware", t, cfg).info for t in (base, base.with_links(bandwidth=bw)))
    assert (slow["dag"], fast["dag"]) == ("bandwidth", "balanced")
    assert round(slow["planned_time_s"] * 1e3, 2) == 11.58 and round(fast["planned_time_s"] * 1e3, 2) == 12.47
    assert round(fast["tried_s"]["bandwidth/0"] * 1e3, 2) == 14.25
    assert fast["tried_s"]["balanced/0"] == slow["tried_s"]["balanced/0"]
    doc = " ".join((Path(__file__).resolve().parents[2] / "docs" / "time.md").read_text().split())
    assert "**A faster link can make the schedule slower**" in doc
    assert "takes 11.58 ms (async, M = 100 MB); raise one link, 1 (s01-sw0.0), to 200 Gbit/s and it takes 12.47 ms" in doc
