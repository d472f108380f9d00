"""Helpers for the cluster tests: hand-built traces and a scheduler that follows a fixed plan."""

from __future__ import annotations

import numpy as np

from core.cluster.jobs import Trace
from core.cluster.models import get_model, model_names
from core.cluster.sim import Decisions, Start, State

RESNET50 = get_model("resnet50")
M = RESNET50.grad_bytes            # 4 B x 25.56e6 params = 102.24e6 B
C = RESNET50.compute_s             # 3 x 4.09e9 FLOP x 64 / 30e12 FLOP/s = 0.026176 s
LINK = 100e9 / 8                   # 100 Gbit/s = 12.5e9 B/s per direction
NVLINK = 2400e9 / 8                # 300e9 B/s per direction


def trace(rows: list[tuple[float, int, float]], model: str = "resnet50") -> Trace:
    """A trace of (arrival s, GPUs, iterations) rows, every job training `model`."""
    n = len(rows)
    return Trace("hand", tuple(f"j{i}" for i in range(n)), [r[0] for r in rows], [r[1] for r in rows],
                 [model_names().index(model)] * n, [r[2] for r in rows])


class Fixed:
    """Starts job j on `plan[j]` (GPUs per server) as soon as it has arrived and those GPUs are free."""

    def __init__(self, plan: dict[int, list[int]], method: str = "ring"):
        self.plan, self.method, self.name = plan, method, "fixed"

    def reset(self, state: State) -> None:
        pass

    def wakeup(self, state: State) -> float:
        return np.inf

    def decide(self, state: State) -> Decisions:
        dec = Decisions()
        free = state.free.copy()
        for j in sorted(state.waiting):
            alloc = np.array(self.plan[j])
            if np.all(alloc <= free):
                free -= alloc
                dec.starts.append(Start(j, alloc, self.method))
        return dec
