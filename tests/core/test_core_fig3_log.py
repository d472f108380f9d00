"""The paper's Fig. 3 example as exact logs (checked by hand against MODEL.md, then frozen here).

Servers A=0, B=1, C=2, D=3; links A-B (edge 0), B-C (edge 1), B-D (edge 2), C-D (edge 3).
Directed link 2e is u->v of edge e, 2e+1 is v->u: 0 A->B, 1 B->A, 2 B->C, 3 C->B, 4 B->D,
5 D->B, 6 C->D, 7 D->C.
"""

from __future__ import annotations

import pytest

from core.bounds import lower_bounds
from core.engine import Engine
from core.schedule_io import schedule_to_dict
from core.methods import run_method
from core.schedule import ScheduleConfig
from core.topology import make_topology
from core.validate import validate_document
from core.workloads import tree_dag

A, B, C, D = 0, 1, 2, 3

# Tree A, merge off (plain PS): the pieces of C and D each cross B->A on their own.
TREE_A_PLAIN = [
    # id, phase, path, prefix, carries_own
    (0, "reduce", [B, A], [], True),             # B's piece
    (1, "reduce", [C, B], [], True),             # C's piece, hop 1
    (2, "reduce", [B, A], [1], False),           # C's piece relayed by B
    (3, "reduce", [D, B], [], True),             # D's piece, hop 1
    (4, "reduce", [B, A], [3], False),           # D's piece relayed by B
    (5, "broadcast", [A, B], [0, 2, 4], False),  # the sum to B
    (6, "broadcast", [A, B], [0, 2, 4], False),  # the sum to C, hop 1
    (7, "broadcast", [B, C], [6], False),        # ... hop 2
    (8, "broadcast", [A, B], [0, 2, 4], False),  # the sum to D, hop 1
    (9, "broadcast", [B, D], [8], False),        # ... hop 2
]

# The whole merged DAG (merge on): per tree, the S-1 reduce workloads (senders ascending), then
# the S-1 broadcasts. Tree A: B sends B + C + D once.
MERGED = [
    # tree A: C -> B, D -> B, B -> A; broadcast back down
    (0, A, "reduce", [B, A], [1, 2], True),
    (1, A, "reduce", [C, B], [], True),
    (2, A, "reduce", [D, B], [], True),
    (3, A, "broadcast", [A, B], [0], False),
    (4, A, "broadcast", [B, C], [3], False),
    (5, A, "broadcast", [B, D], [3], False),
    # tree B: everybody is adjacent to B
    (6, B, "reduce", [A, B], [], True),
    (7, B, "reduce", [C, B], [], True),
    (8, B, "reduce", [D, B], [], True),
    (9, B, "broadcast", [B, A], [6, 7, 8], False),
    (10, B, "broadcast", [B, C], [6, 7, 8], False),
    (11, B, "broadcast", [B, D], [6, 7, 8], False),
    # tree C: A -> B -> C, D -> C (B-D pruned)
    (12, C, "reduce", [A, B], [], True),
    (13, C, "reduce", [B, C], [12], True),
    (14, C, "reduce", [D, C], [], True),
    (15, C, "broadcast", [B, A], [16], False),
    (16, C, "broadcast", [C, B], [13, 14], False),
    (17, C, "broadcast", [C, D], [13, 14], False),
    # tree D: A -> B -> D, C -> D (B-C pruned)
    (18, D, "reduce", [A, B], [], True),
    (19, D, "reduce", [B, D], [18], True),
    (20, D, "reduce", [C, D], [], True),
    (21, D, "broadcast", [B, A], [22], False),
    (22, D, "broadcast", [D, B], [19, 20], False),
    (23, D, "broadcast", [D, C], [19, 20], False),
]

# Critical-path: priority = longest remaining chain (tail), then more successors, then id.
# tail 4: 1 2 12 18 | tail 3: 13 14 19 20 (2 successors) 0 (1) | tail 2: 6 7 8 (3) 3 (2) 16 22 (1) | rest.
# Round 1: ready {1,2,6,7,8,12,14,18,20}: take 1 (C->B), 2 (D->B), 12 (A->B); 18 loses A->B;
#          take 14 (D->C), 20 (C->D); 6, 7, 8 lose their links.
# Round 2: ready {0,6,7,8,13,18}: 18 (A->B), 13 (B->C), 0 (B->A); 6 blocked; 7 (C->B), 8 (D->B).
# Round 3: ready {3,6,16,17,19}: 19 (B->D), 6 (A->B); 3 blocked; 16 (C->B), 17 (C->D).
# Round 4: ready {3,9,10,11,15,22,23}: 3 (A->B), 22 (D->B), 9 (B->A), 10, 11; 15 blocked; 23.
# Round 5: ready {4,5,15,21}: 4 (B->C), 5 (B->D), 15 (B->A); 21 blocked on B->A.
# Round 6: 21.
CRITICAL_PATH_ROUNDS = [[1, 2, 12, 14, 20], [0, 7, 8, 13, 18], [6, 16, 17, 19], [3, 9, 10, 11, 22, 23],
                        [4, 5, 15], [21]]


@pytest.fixture(scope="module")
def fig3():
    return make_topology("example:fig3")


def workloads_of(dag, root):
    """The workloads of one tree with explicit prefix lists (prefix groups expanded)."""
    full = dag.explicit()
    return [full.workload(w) for w in range(dag.n) if dag.root[w] == root]


def test_topology(fig3):
    assert fig3.labels == ("A", "B", "C", "D")
    assert fig3.edges.tolist() == [[A, B], [B, C], [B, D], [C, D]]
    assert [fig3.link_label(lk) for lk in range(8)] == ["A->B", "B->A", "B->C", "C->B", "B->D", "D->B",
                                                        "C->D", "D->C"]


def test_tree_A_merge_off_exact(fig3):
    dag = tree_dag(fig3, merge=False)
    got = [(w["id"], w["phase"], w["path"], w["prefix"], w["carries_own"]) for w in workloads_of(dag, A)]
    assert got == TREE_A_PLAIN
    # the figure's workloads 1 and 2: C's and D's pieces share B->A
    assert dag.links.row(2).tolist() == dag.links.row(4).tolist() == [fig3.link_id(B, A)]
    # the pruned edge C-D carries no flow of A's tree
    assert not any(fig3.link_id(C, D) in dag.links.row(w) or fig3.link_id(D, C) in dag.links.row(w)
                   for w in range(10))


def test_tree_A_merge_on_exact(fig3):
    dag = tree_dag(fig3, merge=True)
    got = [(w["id"], w["phase"], w["path"], w["prefix"], w["carries_own"]) for w in workloads_of(dag, A)]
    assert got == [(i, ph, path, pre, own) for i, root, ph, path, pre, own in MERGED if root == A]
    # merged: only one workload of tree A crosses B->A
    assert [w for w in range(6) if fig3.link_id(B, A) in dag.links.row(w)] == [0]


def test_merged_dag_exact(fig3):
    dag = tree_dag(fig3)
    got = [(w["id"], w["root"], w["phase"], w["path"], w["prefix"], w["carries_own"])
           for w in (dag.workload(i) for i in range(dag.n))]
    assert got == MERGED
    assert dag.tail.tolist() == [3, 4, 4, 2, 1, 1, 2, 2, 2, 1, 1, 1, 4, 3, 3, 1, 2, 1, 4, 3, 3, 1, 2, 1]


def test_critical_path_rounds_exact(fig3):
    s = run_method("critical-path", fig3)
    assert [r.tolist() for r in s.rounds] == CRITICAL_PATH_ROUNDS
    # replaying the frozen rounds through the engine gives the same trace
    eng = Engine(s.dag)
    for r in CRITICAL_PATH_ROUNDS:
        eng.apply(r)
    assert eng.done and eng.n_rounds == 6
    assert eng.sent_round.tolist() == [1, 0, 0, 3, 4, 4, 2, 1, 1, 3, 3, 3, 0, 1, 0, 4, 2, 2, 1, 2, 0, 5, 3, 3]
    util = eng.utilization()
    assert util.shape == (8, 6)
    assert util.sum(axis=0).tolist() == [5, 5, 4, 6, 3, 1]
    # link A->B is used in rounds 1-4, B->A in rounds 2, 4, 5, 6
    assert util[0].tolist() == [1, 1, 1, 1, 0, 0]
    assert util[1].tolist() == [0, 1, 0, 1, 1, 1]
    stats = s.stats()
    assert stats["rounds"] == 6 and stats["workloads"] == 24 and stats["lower_bound"] == 5
    assert stats["gap"] == pytest.approx(0.2)
    assert stats["mean_utilization"] == pytest.approx(24 / 48)
    assert validate_document(schedule_to_dict(s)).ok


def test_bounds_exact(fig3):
    b = lower_bounds(tree_dag(fig3))
    # link load: A->B and B->A carry 4 each; longest chain 12 -> 13 -> 16 -> 15 has 4;
    # ports: A has one link and must send 3 reduce pieces;
    # link schedule on A->B: 12, 18 (tail 3 after them), 6 (tail 1), 3 (released at round 2, tail 1)
    # -> the second of 12/18 ends at round 2 and needs 3 more: 5 rounds
    assert b.as_dict() == {"link_load": 4, "critical_path": 4, "ports": 3, "link_schedule": 5, "best": 5}


def test_optimal_is_six_rounds(fig3):
    s = run_method("optimal", fig3, ScheduleConfig(time_limit=10))
    assert s.n_rounds == 6
    assert s.info["proven_optimal"] is True and s.info["proven_bound"] == 6
    assert validate_document(schedule_to_dict(s)).ok


def test_merged_sum_of_tree_A_is_complete(fig3):
    """Payload replay by hand: B's workload 0 carries B + (C via 1) + (D via 2)."""
    dag = tree_dag(fig3)
    payload = {}
    for w in (1, 2, 0):  # topological order of tree A's reduce
        pre = dag.prefix.row(w).tolist()
        payload[w] = Counter_sum([payload[p] for p in pre] + ([{int(dag.src[w]): 1}] if dag.carries_own[w] else []))
    root_sum = Counter_sum([{A: 1}, payload[0]])
    assert root_sum == {A: 1, B: 1, C: 1, D: 1}


def Counter_sum(parts):
    out = {}
    for p in parts:
        for k, v in p.items():
            out[k] = out.get(k, 0) + v
    return out
