"""Train a small model with plain DDP and with the schedule hook; compare the weights.

Runs on every rank of an initialized default process group (one rank per server), e.g.
through `launch.launch_local`. Both models start from the same weights and see the same
data (each rank its own batch), so their weights after a few SGD steps differ only by the
rounding of summing gradients in another order.
"""

from __future__ import annotations

from typing import Any, Callable

PRELOAD = ("torch.nn.parallel", "torch._dynamo", "torch.optim")
"""Modules to import once in the forkserver: DDP's constructor imports torch._dynamo (~4 s each)."""


def _model(seed: int):
    import torch
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Tanh(), torch.nn.Linear(32, 32), torch.nn.Tanh(),
                               torch.nn.Linear(32, 4))


def ddp_match(comm, report: Callable[[Any], None], plan, steps: int = 5, seed: int = 0) -> dict[str, Any]:
    """Train plain DDP and DDP + schedule_allreduce_hook for `steps` SGD steps; returns the worst relative
    weight difference (max |a-b| / max |b| per tensor), buckets the hook reduced, and how far training moved."""
    import torch
    from torch.nn.parallel import DistributedDataParallel as DDP

    from .hook import ScheduleHookState, schedule_allreduce_hook

    rank = comm.rank
    plain, hooked = _model(seed), _model(seed)
    start = [p.detach().clone() for p in plain.parameters()]
    # a tiny bucket cap gives several buckets, so the hook runs more than once per step
    ddp_plain = DDP(plain, bucket_cap_mb=0.002)
    ddp_hook = DDP(hooked, bucket_cap_mb=0.002)
    state = ScheduleHookState(plan, comm=comm)
    ddp_hook.register_comm_hook(state, schedule_allreduce_hook)
    opts = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (ddp_plain, ddp_hook)]
    g = torch.Generator().manual_seed(seed * 7919 + rank)
    for step in range(steps):
        x = torch.randn(8, 16, generator=g)
        y = torch.randn(8, 4, generator=g)
        for model, opt in zip((ddp_plain, ddp_hook), opts):
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        report(step + 1)
    with torch.no_grad():
        rel = max(float((a - b).abs().max() / b.abs().max()) for a, b in zip(hooked.parameters(), plain.parameters()))
        moved = max(float((p - s).abs().max()) for p, s in zip(plain.parameters(), start))
    return {"max_rel_diff": rel, "buckets": state.buckets, "moved": moved}
