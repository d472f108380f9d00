"""Every scheduling method behind one interface: ``get_method(name)(topology, config) -> Schedule``."""

from __future__ import annotations

from typing import Callable

from .base import Schedule, ScheduleConfig, Scheduler, list_schedule
from .listsched import critical_path, greedy, parameter_server, ring


def optimal(topology, config: ScheduleConfig, progress: Callable[[float], None] | None = None) -> Schedule:
    """CP-SAT exact schedule (OR-Tools is imported only when this method runs)."""
    from .optimal import optimal as solve
    return solve(topology, config, progress)


def _learned(sample: bool) -> Scheduler:
    def run(topology, config: ScheduleConfig, progress: Callable[[float], None] | None = None) -> Schedule:
        from .learned import learned_schedule  # torch is imported only when RL is used
        return learned_schedule(topology, config, sample=sample, progress=progress)
    return run


METHODS: dict[str, Scheduler] = {
    "ps": parameter_server,
    "ring": ring,
    "greedy": greedy,
    "critical-path": critical_path,
    "optimal": optimal,
    "rl": _learned(False),
    "rl-sample": _learned(True),
}
"""Method name -> scheduler. `ps` and `greedy` depend on the seed; `optimal` on the time limit."""

RANDOMIZED = ("ps", "greedy")


def get_method(name: str) -> Scheduler:
    """The scheduler of a method name (raises ValueError naming the known methods)."""
    if name not in METHODS:
        raise ValueError(f"unknown method {name!r}; known: {', '.join(METHODS)}")
    return METHODS[name]


def run_method(name: str, topology, config: ScheduleConfig | None = None,
               progress: Callable[[float], None] | None = None) -> Schedule:
    """Schedule `topology` with method `name`."""
    return get_method(name)(topology, config or ScheduleConfig(), progress)


__all__ = ["METHODS", "RANDOMIZED", "Schedule", "ScheduleConfig", "get_method", "run_method", "list_schedule"]
