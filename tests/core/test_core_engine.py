"""The round engine: rejects invalid rounds naming workload and link, records the trace, and its
vectorized greedy fill equals the naive sequential loop."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine import Engine, InvalidRound, replay
from core.topology import Topology, make_topology
from core.workloads import ring_dag, tree_dag

from _corelib import naive_fill, topo

A, B, C, D = 0, 1, 2, 3


@pytest.fixture()
def fig3_engine():
    return Engine(tree_dag(make_topology("example:fig3")))


def test_capacity_violation_names_workloads_and_link(fig3_engine):
    eng = fig3_engine
    # 12 (tree C, A->B) and 18 (tree D, A->B) are both ready and share directed link A->B
    with pytest.raises(InvalidRound) as info:
        eng.apply([12, 18])
    (v,) = info.value.violations
    assert v.rule == "capacity" and v.round == 0 and v.link == 0 and v.workload in (12, 18)
    assert "A->B" in v.message and "12" in v.message and "18" in v.message and "capacity 1" in v.message
    assert eng.n_rounds == 0 and eng.n_sent == 0  # nothing applied


def test_prefix_violation_names_workload_and_missing_prefix(fig3_engine):
    eng = fig3_engine
    with pytest.raises(InvalidRound) as info:
        eng.apply([0])  # B->A of tree A waits for 1 (C->B) and 2 (D->B)
    (v,) = info.value.violations
    assert v.rule == "prefix" and v.workload == 0 and v.round == 0
    assert "#0 reduce B->A (tree A)" in v.message and "prefix 1, 2" in v.message
    eng.apply([1])
    with pytest.raises(InvalidRound, match="prefix 2 not sent earlier"):
        eng.apply([0, 2])  # in the same round is not earlier
    eng.apply([2])
    eng.apply([0])
    assert eng.sent_round[[0, 1, 2]].tolist() == [2, 0, 1]  # the rejected round was not recorded


def test_rounds_are_recorded_in_order():
    eng = Engine(tree_dag(make_topology("example:fig3")))
    eng.apply([1, 2])
    eng.apply([])  # an empty round still counts
    eng.apply([0])
    assert eng.n_rounds == 3 and [r.tolist() for r in eng.rounds] == [[1, 2], [], [0]]
    assert eng.sent_round[[0, 1, 2]].tolist() == [2, 0, 0]
    assert eng.n_sent == 3 and not eng.done


def test_every_violation_of_a_round_is_reported(fig3_engine):
    eng = fig3_engine
    eng.apply([1, 2])
    violations = eng.check([1, 0, 0, 3, 99, 12, 18])
    rules = sorted(v.rule for v in violations)
    assert rules == ["already-sent", "capacity", "duplicate", "prefix", "unknown"]
    by = {v.rule: v for v in violations}
    assert by["already-sent"].workload == 1 and by["duplicate"].workload == 0
    assert by["prefix"].workload == 3 and by["unknown"].workload == 99
    assert by["capacity"].link == 0
    with pytest.raises(InvalidRound, match=r"\(and 4 more\)"):
        eng.apply([1, 0, 0, 3, 99, 12, 18])


def test_ready_mask_and_read_only_state(fig3_engine):
    eng = fig3_engine
    assert np.flatnonzero(eng.ready_mask()).tolist() == [1, 2, 6, 7, 8, 12, 14, 18, 20]
    eng.apply([1, 2])
    assert 0 in np.flatnonzero(eng.ready_mask()) and 1 not in np.flatnonzero(eng.ready_mask())
    with pytest.raises(ValueError):
        eng.sent_round[0] = 5
    rounds = eng.rounds  # read-only arrays, not copies (a 4096-server schedule has thousands)
    with pytest.raises(ValueError):
        rounds[0][0] = 99
    rounds.clear()
    assert eng.rounds[0].tolist() == [1, 2]


def test_capacity_two_link_takes_two():
    t = Topology(spec="cap2", is_server=np.array([True, True, True]), edges=np.array([[0, 1], [1, 2]]),
                 capacity=np.array([2, 1]), labels=("a", "b", "c"))
    dag = tree_dag(t)
    eng = Engine(dag)
    link = t.link_id(0, 1)
    on01 = [w for w in range(dag.n) if link in dag.links.row(w)]
    free = [w for w in on01 if not dag.prefix.row(w).size]
    assert len(free) == 2 and len(on01) == 3  # a->b of trees b and c; the broadcast of tree a
    assert eng.check(free) == []
    cap = [v for v in eng.check(on01) if v.rule == "capacity"]
    assert len(cap) == 1 and cap[0].link == link and "carries 3 workloads" in cap[0].message
    assert "capacity 2" in cap[0].message


def test_run_loop_and_limit():
    dag = tree_dag(make_topology("example:fig3"))
    eng = Engine(dag)
    eng.run(lambda e: e.fill(np.flatnonzero(e.ready_mask())))
    assert eng.done and eng.n_sent == dag.n
    with pytest.raises(RuntimeError, match="no schedule within 3 rounds"):
        Engine(dag).run(lambda e: np.zeros(0, np.int64), max_rounds=3)
    with pytest.raises(InvalidRound):
        Engine(dag).run(lambda e: np.arange(dag.n))


def test_utilization_matrix():
    t = topo("bcube:n=3,k=1")
    dag = tree_dag(t)
    eng = Engine(dag)
    eng.run(lambda e: e.fill(np.flatnonzero(e.ready_mask())))
    u = eng.utilization()
    assert u.shape == (t.n_links, eng.n_rounds)
    assert u.max() <= 1.0
    for r, ids in enumerate(eng.rounds):
        want = np.zeros(t.n_links)
        for w in ids.tolist():
            want[dag.links.row(w)] += 1
        assert np.array_equal(u[:, r], want)
    assert u.sum() == dag.links.values.size


def test_replay_collects_everything():
    dag = tree_dag(make_topology("example:fig3"))
    _, violations = replay(dag, [[12, 18], [0]])
    rules = [v.rule for v in violations]
    assert rules.count("capacity") == 1 and rules.count("prefix") == 1
    assert rules.count("missing") == dag.n - 3
    assert {v.workload for v in violations if v.rule == "missing"} == set(range(dag.n)) - {0, 12, 18}


# ---- fill == naive sequential greedy -------------------------------------------------------------
def random_caps(t: Topology, rng) -> Topology:
    return Topology(spec=t.spec, is_server=t.is_server, edges=t.edges,
                    capacity=rng.integers(1, 4, size=t.n_edges), labels=t.labels)


@settings(max_examples=60, deadline=None)
@given(spec=st.sampled_from(["example:fig3", "bcube:n=3,k=1", "dcell:n=3,k=1", "fattree:k=4",
                             "jellyfish:switches=10,ports=5,switch_ports=4,seed=0"]),
       kind=st.sampled_from(["merged", "plain", "ring"]), seed=st.integers(0, 10_000),
       caps=st.booleans(), preload=st.booleans())
def test_fill_equals_naive_loop(spec, kind, seed, caps, preload):
    rng = np.random.default_rng(seed)
    t = topo(spec)
    if caps:
        t = random_caps(t, rng)
    dag = {"merged": lambda: tree_dag(t), "plain": lambda: tree_dag(t, merge=False),
           "ring": lambda: ring_dag(t)}[kind]()
    eng = Engine(dag)
    cand = rng.permutation(dag.n)[: rng.integers(1, dag.n + 1)]
    used = rng.integers(0, 2, size=t.n_links) if preload else None
    before = None if used is None else used.copy()
    got = eng.fill(cand, used)
    assert got.tolist() == naive_fill(dag, cand, t.link_capacity, used)
    if used is not None:
        assert np.array_equal(used, before)  # not modified


@pytest.mark.parametrize("caps", [False, True])
def test_fill_equals_naive_loop_across_batches(caps):
    """More candidates than one vectorized batch (1024): DCell(5,1) has 1740 merged workloads."""
    rng = np.random.default_rng(7)
    t = topo("dcell:n=5,k=1")
    if caps:
        t = random_caps(t, rng)
    dag = tree_dag(t)
    eng = Engine(dag)
    for _ in range(3):
        cand = rng.permutation(dag.n)
        assert eng.fill(cand).tolist() == naive_fill(dag, cand, t.link_capacity)
