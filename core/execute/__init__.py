"""Running a schedule on torch.distributed: per-rank plans, the executor, a DDP hook, local launches.

>>> from core.execute import Executor           # in each rank of an initialized process group
>>> # Executor(schedule).allreduce_(tensor)     # sums `tensor` over the ranks by the schedule

torch is imported by the submodules that need it (`plan` does not).
"""

from .plan import SchedulePlan, ScheduleRefused, build_plan, piece_sizes

__all__ = ["SchedulePlan", "ScheduleRefused", "build_plan", "piece_sizes", "Executor", "ExecutionError",
           "ScheduleHookState", "schedule_allreduce_hook"]


def __getattr__(name: str):
    """Import the torch-backed parts on first use."""
    if name in ("Executor", "ExecutionError"):
        from . import executor
        return getattr(executor, name)
    if name in ("ScheduleHookState", "schedule_allreduce_hook"):
        from . import hook
        return getattr(hook, name)
    raise AttributeError(name)
