"""Every method's schedule, executed on real tensors by gloo ranks, computes exactly the AllReduce.

Integer tensors must equal both ``all_reduce`` and the sum of the inputs computed here bit for
bit; float tensors must be close. Small topologies (Fig. 3 with its relays through the root,
BCube(2,1), DCell(2,1)), merge on and off, chunks 1 and 2, pieces of size 0.
"""

from __future__ import annotations

import copy
import json

import pytest
import torch

from core.execute import Executor, build_plan
from core.schedule_io import read_schedule_file, schedule_to_dict

from _execlib import ALL_METHODS, SMALL, rank_input, ranks, schedule


def execute(plan, numel: int, dtype=torch.int64, seed: int = 0, shape=None):
    """Run the plan on every thread rank; returns (results, all_reduce references, the inputs' sum)."""
    group = ranks(plan.world_size)

    def body(comm):
        x = rank_input(comm.rank, numel, dtype, seed)
        ref = x.clone()
        comm.all_reduce(ref)
        y = x.clone() if shape is None else x.clone().reshape(shape)
        Executor(plan, comm).allreduce_(y)
        return y.reshape(-1), ref

    out = group.run(body)
    total = sum(rank_input(r, numel, dtype, seed) for r in range(plan.world_size))
    return [o[0] for o in out], [o[1] for o in out], total


@pytest.mark.parametrize("chunks,merge", [(1, True), (2, True), (1, False)], ids=["plain", "chunks2", "merge-off"])
@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("spec", SMALL)
def test_integer_result_is_bitwise_the_all_reduce(spec, method, chunks, merge):
    plan = build_plan(schedule(spec, method, chunks, merge))
    got, ref, total = execute(plan, numel=1003)  # not a multiple of the number of pieces
    for y, r in zip(got, ref):
        assert torch.equal(y, r)
        assert torch.equal(y, total)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("method", ["ps", "ring", "critical-path"])
def test_float_result_is_close_to_the_all_reduce(method, dtype):
    plan = build_plan(schedule("dcell:n=2,k=1", method))
    got, ref, total = execute(plan, numel=257, dtype=dtype)
    tol = 2 * 5 * 6 * torch.finfo(dtype).eps  # 2(n-1)·n·eps for n = 6 terms in [-1, 1)
    for y, r in zip(got, ref):
        assert torch.allclose(y, r, rtol=0, atol=tol)
        assert torch.allclose(y, total, rtol=0, atol=tol)


@pytest.mark.parametrize("numel", [0, 1, 3, 11, 12, 13])
def test_pieces_of_size_zero(numel):
    # DCell(2,1) with 2 chunks has 12 pieces: up to all of them empty
    plan = build_plan(schedule("dcell:n=2,k=1", "critical-path", chunks=2))
    got, ref, total = execute(plan, numel=numel, seed=numel)
    for y in got:
        assert torch.equal(y, total)


def test_non_contiguous_and_shaped_tensors_are_reduced_in_place():
    plan = build_plan(schedule("bcube:n=2,k=1", "greedy"))

    def body(comm):
        x = rank_input(comm.rank, 60).reshape(6, 10)
        t = x.t()  # non-contiguous view of x
        assert not t.is_contiguous()
        back = Executor(plan, comm).allreduce_(t)
        return back is t, x.clone()

    out = ranks(4).run(body)
    total = sum(rank_input(r, 60) for r in range(4)).reshape(6, 10)
    for same, x in out:
        assert same and torch.equal(x, total)


def test_repeated_calls_and_sizes_reuse_the_plan():
    plan = build_plan(schedule("dcell:n=2,k=1", "ring", chunks=2))

    def body(comm):
        ex = Executor(plan, comm, cache=2)
        ok = []
        for numel in (50, 7, 50, 300, 7, 1):
            x = rank_input(comm.rank, numel, seed=numel)
            ex.allreduce_(x)
            ok.append(torch.equal(x, sum(rank_input(r, numel, seed=numel) for r in range(6))))
        return ok, len(ex._cache)

    for ok, cached in ranks(6).run(body):
        assert all(ok) and cached == 2


def test_a_rank_mapping_changes_who_plays_which_server():
    sched = schedule("bcube:n=2,k=1", "critical-path")
    servers = [int(s) for s in sched.dag.topology.servers]
    mapping = servers[::-1]  # rank 0 runs the last server
    plan = build_plan(sched, mapping)
    assert [plan.server_of(r) for r in range(4)] == mapping
    default = build_plan(sched)
    assert plan.ranks[0].rounds != default.ranks[0].rounds
    got, _, total = execute(plan, numel=99)
    assert all(torch.equal(y, total) for y in got)


def test_a_document_read_from_a_file_executes(tmp_path):
    doc = schedule_to_dict(schedule("example:fig3", "ring", chunks=2))
    for w in doc["workloads"]:  # a file may use any ids
        w["id"] += 1000
        w["prefix"] = [p + 1000 for p in w["prefix"]]
    doc["rounds"] = [[w + 1000 for w in r] for r in doc["rounds"]]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    plan = build_plan(read_schedule_file(path))
    assert plan.n_workloads == len(doc["workloads"])
    got, _, total = execute(plan, numel=41)
    assert all(torch.equal(y, total) for y in got)


def test_a_mangled_but_valid_round_order_still_sums():
    # workloads inside a round may be listed in any order: both ends sort them the same way
    doc = copy.deepcopy(schedule_to_dict(schedule("dcell:n=2,k=1", "greedy", merge=False)))
    doc["rounds"] = [list(reversed(r)) for r in doc["rounds"]]
    got, _, total = execute(build_plan(doc), numel=64)
    assert all(torch.equal(y, total) for y in got)


@pytest.mark.parametrize("segment_bytes", [8, 24, 4096])
@pytest.mark.parametrize("spec,method,chunks,merge", [("example:fig3", "ring", 1, True),
                                                      ("dcell:n=2,k=1", "ps", 1, False),
                                                      ("bcube:n=2,k=1", "critical-path", 2, True)])
def test_pipelined_segments_give_the_same_sum(spec, method, chunks, merge, segment_bytes):
    plan = build_plan(schedule(spec, method, chunks, merge))

    def body(comm):
        x = rank_input(comm.rank, 203)
        Executor(plan, comm, segment_bytes=segment_bytes).allreduce_(x)
        return x

    total = sum(rank_input(r, 203) for r in range(plan.world_size))
    for y in ranks(plan.world_size).run(body):
        assert torch.equal(y, total)


@pytest.mark.parametrize("spec,method,chunks,merge", [("bcube:n=2,k=1", "critical-path", 1, True),
                                                      ("dcell:n=2,k=1", "ps", 2, False)],  # prefix groups
                         ids=["bcube-cp", "dcell-ps-groups"])
def test_a_columnar_npz_file_plans_and_runs_like_its_json_file(tmp_path, spec, method, chunks, merge):
    # docs/execution.md: any allreduce-schedule/1 file runs; the .npz form used to fail in the planner
    from core.schedule_io import write_schedule
    sched = schedule(spec, method, chunks, merge)
    write_schedule(sched, tmp_path / "s.json")
    write_schedule(sched, tmp_path / "s.npz")
    from_json = build_plan(read_schedule_file(tmp_path / "s.json"))
    from_npz = build_plan(read_schedule_file(tmp_path / "s.npz"))
    assert from_npz == from_json
    got_json, _, total = execute(from_json, numel=203)
    got_npz, ref, _ = execute(from_npz, numel=203)
    for a, b, r in zip(got_npz, got_json, ref):
        assert torch.equal(a, b) and torch.equal(a, r) and torch.equal(a, total)
