"""Ours' AllReduce choices: tree variants over several ports, adaptive re-choice under sharing, multi-port pairs."""

import numpy as np
import pytest

from core.cluster import CommModel, gantt_rows, load_trace, make_cluster, make_scheduler, simulate
from core.cluster.comm import BEST_CANDIDATES, VARIANTS
from core.cluster.placement import spread_candidates
from core.cluster.sim import Start, State, _adapt, _start

from _clusterlib import C, Fixed, M, trace

# BCube(2,1): s00, s01, s10, s11 = server indices 0..3; s00 and s11 differ in both digits, so each
# reaches the other first through either of its two ports (via relay s01 or s10).
TINY = make_cluster("bcube:n=2,k=1", 2)


def test_ports_count_the_digits_two_bcube_servers_differ_in():
    assert TINY.ports.tolist() == [[0, 1, 1, 2], [1, 0, 2, 1], [1, 2, 0, 1], [2, 1, 1, 0]]
    big = make_cluster("bcube:n=4,k=2", 4)
    addr = np.array([[s // 16, s // 4 % 4, s % 4] for s in range(64)])
    assert np.array_equal(big.ports, (addr[:, None, :] != addr[None, :, :]).sum(axis=2))
    assert make_cluster("fattree:k=4", 4).ports.max() == 1  # one NIC per server


def test_tree_pieces_over_two_ports_beat_the_ring_between_two_servers():
    comm = CommModel(TINY)
    t = {m: comm.net_time(comm.net_plan((0, 3), m), M) for m in VARIANTS}
    # a ring or one tree per shard sends every byte along one route; 4 pieces use both ports
    assert t["critical-path"] == pytest.approx(t["ring"], rel=1e-6)
    assert t["critical-path-x4"] < 0.7 * t["ring"]
    # adjacent servers (one port): nothing beats the ring
    near = {m: comm.net_time(comm.net_plan((0, 1), m), M) for m in VARIANTS}
    assert min(near.values()) == pytest.approx(near["ring"], rel=1e-2)


def test_an_adaptive_job_alone_runs_its_fastest_candidate():
    comm = CommModel(TINY)
    tr = trace([(0.0, 2, 1000)])
    ring = simulate(TINY, tr, Fixed({0: [1, 0, 0, 1]}, "ring"), comm)
    ada = simulate(TINY, tr, Fixed({0: [1, 0, 0, 1]}, "adaptive"), comm)
    fastest = min(comm.net_time(comm.net_plan((0, 3), m), M) for m in BEST_CANDIDATES)
    intra = comm.intra_time(np.array([1, 0, 0, 1]), M)
    assert ada.end[0] == pytest.approx(1000 * (C + intra + fastest), rel=1e-9)
    assert ada.comm_seconds[0] < 0.7 * ring.comm_seconds[0]
    assert [s.method for s in ada.segments] == ["critical-path-x4"] and ada.info["method_switches"] == 0


def test_adaptive_switches_to_the_ring_when_the_trees_extra_links_fill_and_back():
    comm = CommModel(TINY)
    st = State(TINY, trace([(0.0, 2, 100)]), comm)
    st.waiting.append(0)
    cuts: list[int] = []
    seen: dict = {}
    _start(st, "t", Start(0, np.array([1, 0, 0, 1]), "adaptive"), np.full(1, np.nan), np.zeros(1))
    assert st.plan[0].method == "critical-path-x4"
    ring = comm.net_plan((0, 3), "ring").links
    extra = np.setdiff1d(st.plan[0].links, ring)  # links only the tree crosses
    assert len(extra)
    st.users[extra] += 4  # four other transfers on them (no running job to slow: only A's own time counts)
    assert _adapt(st, cuts.append, seen) == 1 and st.plan[0].method == "ring" and cuts == [0]
    users = np.zeros_like(st.users)
    users[extra] += 4
    users[ring] += 1
    assert np.array_equal(st.users, users)  # A's count moved from the tree's links to the ring's
    st.users[extra] -= 4
    assert _adapt(st, cuts.append, seen) == 1 and st.plan[0].method == "critical-path-x4"
    assert _adapt(st, cuts.append, seen) == 0  # nothing changed: no switch


def test_ours_segments_cover_each_job_without_gaps_and_switches_are_counted():
    c = make_cluster("bcube:n=4,k=1", 4)
    tr = load_trace("synthetic:jobs=40,seed=3,rate=20")
    r = simulate(c, tr, make_scheduler("ours"), CommModel(c))
    cuts = 0
    for j in range(tr.n):
        seg = sorted((s for s in r.segments if s.job == j), key=lambda s: s.start)
        assert seg[0].start == r.first_start[j] and seg[-1].end == r.end[j]
        for a, b in zip(seg, seg[1:]):
            assert a.end == b.start and np.array_equal(a.alloc, b.alloc) and a.method != b.method
            cuts += 1
    assert cuts == r.info["method_switches"] > 0
    base = simulate(c, tr, make_scheduler("sjf+timed"), CommModel(c))
    assert base.info["method_switches"] == 0 and {s.method for s in base.segments} <= {"ring", "-"}


def test_two_server_jobs_get_multi_port_pairs_where_the_topology_has_them():
    c = make_cluster("bcube:n=4,k=1", 4)
    cands = spread_candidates(np.full(c.n_servers, 4), 8, c)
    assert cands and all(c.ports[tuple(np.flatnonzero(a))] == 2 for a in cands)
    assert all(a.sum() == 8 and a.max() == 4 for a in cands)
    f = make_cluster("fattree:k=4", 4)
    assert spread_candidates(np.full(f.n_servers, 4), 8, f) == []


def test_gantt_keeps_a_job_whose_method_changed_on_one_row():
    c = make_cluster("bcube:n=4,k=1", 4)
    tr = load_trace("synthetic:jobs=40,seed=3,rate=20")
    r = simulate(c, tr, make_scheduler("ours"), CommModel(c))
    rows = gantt_rows(r)
    assert len(rows) == tr.n  # ours never preempts: one run per job, whatever its method switches
    assert sum(row["method"].count(" → ") for row in rows) == r.info["method_switches"] > 0
    index = {jid: j for j, jid in enumerate(tr.job_id)}
    for row in rows:
        j = index[row["job_id"]]
        assert row["start_h"] == r.first_start[j] / 3600 and row["end_h"] == r.end[j] / 3600
