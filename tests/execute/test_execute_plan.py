"""Per-rank plans: exact plans of the Fig. 3 example, invariants over every method, refusals.

Fig. 3 ids and critical-path rounds are frozen in tests/core/test_core_fig3_log.py: servers A, B,
C, D are ranks 0-3 and pieces 0-3; rounds [[1, 2, 12, 14, 20], [0, 7, 8, 13, 18],
[6, 16, 17, 19], [3, 9, 10, 11, 22, 23], [4, 5, 15], [21]].
"""

from __future__ import annotations

import copy
from collections import Counter

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from core.execute import Executor, ScheduleRefused, build_plan, piece_sizes
from core.execute.plan import BUFFER, SLICE, Merge, RoundPlan, Transfer
from core.schedule_io import schedule_to_dict

from _execlib import ALL_METHODS, SMALL, schedule

A, B, C, D = 0, 1, 2, 3


@settings(deadline=None)  # hypothesis' 200 ms default fails on a loaded CI machine; torch's first call is slow
@given(st.integers(0, 500), st.integers(1, 40))
def test_piece_sizes_are_tensor_split(numel, n):
    assert piece_sizes(numel, n) == [len(p) for p in torch.arange(numel).tensor_split(n)]


def test_fig3_critical_path_plan_of_server_b():
    plan = build_plan(schedule("example:fig3", "critical-path"))
    b = plan.ranks[B]
    assert b.server == B and b.slot_tree == (A, A, C, B, B, D, B)
    assert b.rounds == (
        # round 0: C's and D's pieces of tree A, A's piece of tree C arrive
        RoundPlan(0, (), (), (), (Transfer(C, 1, A, BUFFER, 0), Transfer(D, 2, A, BUFFER, 1),
                                  Transfer(A, 12, C, BUFFER, 2))),
        # round 1: B + C + D to A (accumulated in C's buffer), B + A to C; tree B and D pieces arrive
        RoundPlan(1, (), (Merge(0, A, True, True, (1,)), Merge(2, C, True, True, ())),
                  (Transfer(A, 0, A, BUFFER, 0), Transfer(C, 13, C, BUFFER, 2)),
                  (Transfer(C, 7, B, BUFFER, 3), Transfer(D, 8, B, BUFFER, 4), Transfer(A, 18, D, BUFFER, 5))),
        RoundPlan(2, (), (Merge(5, D, True, True, ()),), (Transfer(D, 19, D, BUFFER, 5),),
                  (Transfer(A, 6, B, BUFFER, 6), Transfer(C, 16, C, SLICE, -1))),
        # round 3: B's own sum (own + A, C, D) is finished first, then broadcast from its piece
        RoundPlan(3, ((B, (3, 4, 6)),), (),
                  (Transfer(A, 9, B, SLICE, -1), Transfer(C, 10, B, SLICE, -1), Transfer(D, 11, B, SLICE, -1)),
                  (Transfer(A, 3, A, SLICE, -1), Transfer(D, 22, D, SLICE, -1))),
        RoundPlan(4, (), (), (Transfer(C, 4, A, SLICE, -1), Transfer(D, 5, A, SLICE, -1),
                              Transfer(A, 15, C, SLICE, -1)), ()),
        RoundPlan(5, (), (), (Transfer(A, 21, D, SLICE, -1),), ()),
    )
    assert b.finish_last == ()
    a = plan.ranks[A]
    assert [r.round for r in a.rounds] == [0, 1, 2, 3, 4, 5]
    assert a.rounds[2].finish == ((A, (0,)),)  # A's sum: own + B's merged B + C + D, received in round 1


def test_fig3_merge_off_root_adds_every_relayed_piece():
    plan = build_plan(schedule("example:fig3", "critical-path", merge=False))
    a, b = plan.ranks[A], plan.ranks[B]
    sums = dict(x for r in a.rounds for x in r.finish) | dict(a.finish_last)
    assert len(sums[A]) == 3  # B's, C's and D's pieces arrive separately over B->A
    sends_a = [x for r in b.rounds for x in r.sends if x.tree == A and x.peer == A]
    assert sorted(x.where for x in sends_a) == [SLICE, BUFFER, BUFFER]  # own piece, two relays
    assert not any(m.tree == A for r in b.rounds for m in r.merges)  # nothing merges


def test_fig3_ring_relays_pass_through_the_root_without_adding():
    sched = schedule("example:fig3", "ring")
    plan = build_plan(sched)
    dag = sched.dag
    relays = 0
    for rp in plan.ranks:
        merged = {m.out for r in rp.rounds for m in r.merges}
        for r in rp.rounds:
            for x in r.sends:
                if x.where == BUFFER and x.slot not in merged:
                    relays += 1
                    assert not dag.carries_own[x.tag] and dag.phase[x.tag] == 0
    assert relays == int(((dag.phase == 0) & ~dag.carries_own).sum()) == 3
    # a ring's root adds only the last hop of its chain, also where an earlier hop ends at it in passing
    passing = 0
    for rp in plan.ranks:
        sums = dict(x for r in rp.rounds for x in r.finish) | dict(rp.finish_last)
        assert sorted(sums) == [rp.rank] and len(sums[rp.rank]) == 1
        tree = dag.tree[(dag.root == plan.servers[rp.rank])][0]
        into_root = (dag.tree == tree) & (dag.phase == 0) & (dag.dst == plan.servers[rp.rank])
        passing += int(into_root.sum()) - 1
    assert passing > 0


@pytest.mark.parametrize("merge", [True, False])
@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("spec", SMALL)
def test_every_workload_is_one_send_and_one_matching_receive(spec, method, merge):
    sched = schedule(spec, method, 2, merge)
    plan = build_plan(sched)
    dag = sched.dag
    rank_of = {s: r for r, s in enumerate(plan.servers)}
    sent_round = {int(w): r for r, ids in enumerate(sched.rounds) for w in ids.tolist()}
    sends, recvs = {}, {}
    for rp in plan.ranks:
        for r in rp.rounds:
            for x in r.sends:
                assert x.tag not in sends
                sends[x.tag] = (r.round, rp.rank, x.peer, x.tree)
            for x in r.recvs:
                assert x.tag not in recvs
                recvs[x.tag] = (r.round, x.peer, rp.rank, x.tree)
            # one order per pair of ranks: both ends list a round's messages by workload id
            assert [x.tag for x in r.sends] == sorted(x.tag for x in r.sends)
    assert sends == recvs
    assert set(sends) == set(range(dag.n))
    for w, (rnd, src, dst, tree) in sends.items():
        assert rnd == sent_round[w]
        assert (src, dst) == (rank_of[int(dag.src[w])], rank_of[int(dag.dst[w])])
        assert tree == plan.servers.index(int(dag.root[w])) * dag.chunks + int(dag.chunk[w])


def test_every_root_finishes_each_of_its_sums_once():
    for spec in SMALL:
        plan = build_plan(schedule(spec, "greedy", 2))
        for rp in plan.ranks:
            trees = [t for r in rp.rounds for t, _ in r.finish] + [t for t, _ in rp.finish_last]
            own = [rp.rank * plan.chunks + c for c in range(plan.chunks)]
            assert sorted(trees) == own


# ---- refusals: nothing is sent ---------------------------------------------------------------
class UntouchableComm:
    """A process group that fails the test if the executor uses it at all."""

    rank, size = 0, 4

    def __getattr__(self, name):
        raise AssertionError(f"the executor used the process group ({name}) before refusing")


def fig3_doc():
    return copy.deepcopy(schedule_to_dict(schedule("example:fig3", "critical-path")))


def swap_first_rounds(d):
    d["rounds"][0], d["rounds"][1] = d["rounds"][1], d["rounds"][0]


def drop_a_workload(d):
    d["rounds"][5].remove(21)


def claim_own_on_a_relay(d):
    d["workloads"][0]["prefix"] = [1]  # B's merge into A forgets D's piece


@pytest.mark.parametrize("fault,rule", [(swap_first_rounds, "prefix"), (drop_a_workload, "missing"),
                                        (claim_own_on_a_relay, "data")])
def test_an_invalid_schedule_is_refused_before_anything_is_sent(fault, rule):
    d = fig3_doc()
    fault(d)
    with pytest.raises(ScheduleRefused, match=rf"refused, nothing was sent: .*{rule}"):
        Executor(d, UntouchableComm())


def test_an_invalid_schedule_object_is_refused():
    sched = copy.copy(schedule("bcube:n=2,k=1", "ring"))
    sched.rounds = list(reversed(sched.rounds))
    with pytest.raises(ScheduleRefused, match="prefix"):
        build_plan(sched)


def test_group_size_and_rank_mapping_must_fit():
    sched = schedule("example:fig3", "ring")

    class Comm:
        rank, size = 0, 3
    with pytest.raises(ValueError, match="4 servers but the process group has 3 ranks"):
        Executor(sched, Comm())
    with pytest.raises(ValueError, match="distinct rank"):
        build_plan(sched, [0, 1, 2, 2])
    with pytest.raises(ValueError, match="distinct rank"):
        build_plan(sched, {0: 0, 1: 1, 2: 2, 7: 3})
    with pytest.raises(TypeError, match="allreduce-schedule/1"):
        build_plan([1, 2, 3])


@pytest.mark.parametrize("ranks,needle", [
    ([0, 0, 1, 2], ": server 0 is given twice (ranks 0 and 1), got 0,0,1,2"),  # was "got {0: 1, 1: 2, 2: 3}"
    ([0, 1, 2], ": server 3 has no rank, got 0,1,2"),
    ([0, 1, 2, 7], ": node 7 is not a server, got 0,1,2,7"),
    ({0: 0, 1: 0, 2: 1, 3: 2}, ": the ranks are not 0..n-1 once each, got {0: 0, 1: 0, 2: 1, 3: 2}"),
])
def test_a_bad_rank_mapping_echoes_what_was_given_and_names_the_problem(ranks, needle):
    with pytest.raises(ValueError) as info:
        build_plan(schedule("example:fig3", "ring"), ranks)
    assert str(info.value) == ("a rank mapping must give each of the 4 servers (node ids 0..3) a distinct rank 0..3"
                               + needle)


def test_the_plan_counts_buffers_for_memory_estimates():
    plan = build_plan(schedule("dcell:n=2,k=1", "critical-path"))
    n = 6000
    per_piece = n // plan.n_pieces
    assert plan.workspace_elements(n) == max(len(r.slot_tree) for r in plan.ranks) * per_piece
    assert Counter(len(r.slot_tree) > 0 for r in plan.ranks) == Counter({True: 6})
