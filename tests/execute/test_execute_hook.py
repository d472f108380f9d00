"""The DDP communication hook trains to the same weights as plain DDP (4 gloo processes on 127.0.0.1)."""

from __future__ import annotations

import pytest
import torch

from core.execute import ScheduleHookState, build_plan, schedule_allreduce_hook
from core.execute.ddp_check import PRELOAD, ddp_match
from core.execute.launch import launch_local

from _execlib import ranks, schedule


@pytest.mark.slow
@pytest.mark.parametrize("method", ["critical-path", "ring"])
def test_ddp_hook_matches_plain_ddp(method):
    plan = build_plan(schedule("bcube:n=2,k=1", method))
    out = launch_local(ddp_match, (plan, 4), plan.world_size, name=plan.describe_rank, timeout=60,
                       preload=PRELOAD)
    assert len(out.results) == 4 and out.processes == 4
    for r in out.results:
        assert r["buckets"] >= 4  # the hook ran at least once per step
        assert r["moved"] > 1e-3  # training changed the weights
        assert r["max_rel_diff"] <= 1e-6


class FakeBucket:
    """What the hook reads from a dist.GradBucket."""

    def __init__(self, t):
        self.t = t

    def buffer(self):
        return self.t


def test_hook_returns_the_mean_in_a_completed_future():
    plan = build_plan(schedule("dcell:n=2,k=1", "greedy"))

    def body(comm):
        state = ScheduleHookState(plan, comm=comm)
        grad = torch.full((37,), float(comm.rank + 1))
        fut = schedule_allreduce_hook(state, FakeBucket(grad))
        assert fut.done()
        return fut.value(), state.buckets

    for value, buckets in ranks(6).run(body):
        assert buckets == 1
        assert torch.allclose(value, torch.full((37,), sum(range(1, 7)) / 6))
