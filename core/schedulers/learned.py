"""The hierarchical RL scheduler as a method: `rl` (greedy decoding) and `rl-sample` (best of K)."""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..rl.checkpoint import CheckpointError, find_checkpoint, load_checkpoint
from ..rl.features import Observer
from ..rl.policy import use_torch_threads
from ..rl.rollout import play
from ..topology import Topology
from .base import Schedule, ScheduleConfig
from .listsched import merged_dag


def learned_schedule(topology: Topology, config: ScheduleConfig, sample: bool = False,
                     progress: Callable[[float], None] | None = None) -> Schedule:
    """Schedule with the trained agents; with `sample`, keep the best of the greedy and K sampled rollouts.

    ``info["trace"]`` holds, per round, the upper agent's tree probabilities and choice and, per
    step, the lower agent's best-scored candidates and pick (for the policy debugger).
    """
    path = config.checkpoint or find_checkpoint(topology.spec)
    if path is None:
        raise CheckpointError(f"no RL checkpoint for {topology.spec}: train one with "
                              f"`allreduce-lab train {topology.spec} --reward rounds` or pass --checkpoint")
    use_torch_threads()
    policy, meta = load_checkpoint(path)
    dag = merged_dag(topology, config)
    obs = Observer(dag)
    best = play(dag, policy, sample=False, observer=obs, trace=True)
    tried = [best.n_rounds]
    if sample:
        rng = np.random.default_rng(config.seed)
        for k in range(config.samples):
            ep = play(dag, policy, sample=True, rng=rng, observer=obs, trace=True)
            tried.append(ep.n_rounds)
            if ep.n_rounds < best.n_rounds:
                best = ep
            if progress:
                progress((k + 1) / config.samples)
    info = {"checkpoint": str(path), "trained_on": meta.get("topology"), "samples": config.samples if sample else 0,
            "rollout_rounds": tried, "trace": best.trace}
    return Schedule("rl-sample" if sample else "rl", dag, best.rounds, config, info=info)
