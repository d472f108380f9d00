"""A DDP communication hook that all-reduces gradient buckets by a schedule.

Usage, on every rank of an initialized process group (one rank per server)::

    schedule = read_schedule_file("s.json")       # core.schedule_io; or a Schedule, or a SchedulePlan
    state = ScheduleHookState(schedule)
    ddp_model.register_comm_hook(state, schedule_allreduce_hook)

Like the default ``allreduce_hook`` of ``torch.distributed.algorithms.ddp_comm_hooks``, the
bucket is divided by the world size and then summed over the ranks, so the gradients are the
mean; the returned future is already completed (the executor runs synchronously).
"""

# no `from __future__ import annotations`: DDP compares the hook's annotations with the real
# dist.GradBucket and torch.futures.Future[torch.Tensor] objects
from typing import Any, Mapping, Sequence

import torch
import torch.distributed as dist

from .comm import Comm, DistComm
from .executor import Executor


class ScheduleHookState:
    """Everything the hook needs: the executor (plan, process group, buffers) and the world size."""

    def __init__(self, schedule: Any, process_group: "dist.ProcessGroup | None" = None, *,
                 ranks: "Sequence[int] | Mapping[int, int] | None" = None, comm: "Comm | None" = None):
        self.executor = Executor(schedule, comm if comm is not None else DistComm(process_group), ranks=ranks)
        self.world_size = self.executor.comm.size
        self.buckets = 0
        """Buckets all-reduced so far (to check that the hook ran)."""


def schedule_allreduce_hook(state: ScheduleHookState, bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor]:
    """Average the bucket's gradients over the ranks by the schedule; returns a completed future."""
    buf = bucket.buffer()
    buf.div_(state.world_size)
    state.executor.allreduce_(buf)
    state.buckets += 1
    fut: torch.futures.Future[torch.Tensor] = torch.futures.Future()
    fut.set_result(buf)
    return fut
