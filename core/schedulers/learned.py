"""The hierarchical RL scheduler as a method: `rl` (greedy decoding) and `rl-sample` (best of K).

This module is the one bridge between the method registry and `core.rl`; torch is imported
only when a learned method runs.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..schedule import Plan, ScheduleConfig
from ..topology import Topology
from ..workloads import WorkloadDAG


def checkpoint_problem(topology: Topology, config: ScheduleConfig) -> str | None:
    """Why the learned methods cannot run on `topology` (no checkpoint, torch missing), or None."""
    try:
        import torch  # noqa: F401
    except ImportError as err:
        return f"the RL scheduler needs torch ({err})"
    from ..rl.checkpoint import find_checkpoint
    if config.checkpoint is None and find_checkpoint(topology.spec) is None:
        return (f"no RL checkpoint for {topology.spec}: train one with "
                f"`allreduce-lab train {topology.spec} --reward rounds` or pass --checkpoint")
    return None


def learned(dag: WorkloadDAG, config: ScheduleConfig, progress: Callable[[float], None] | None = None,
            sample: bool = False) -> Plan:
    """Schedule with the trained agents; with `sample`, keep the best of the greedy and K sampled rollouts.

    The trace holds, per round, the upper agent's tree probabilities and choice and, per step,
    the lower agent's best-scored candidates and pick (for the policy debugger).
    """
    from ..rl.checkpoint import CheckpointError, find_checkpoint, load_checkpoint
    from ..rl.features import Observer
    from ..rl.policy import use_torch_threads
    from ..rl.rollout import play

    path = config.checkpoint or find_checkpoint(dag.topology.spec)
    if path is None:
        raise CheckpointError(checkpoint_problem(dag.topology, config) or "no RL checkpoint")
    use_torch_threads()
    policy, meta = load_checkpoint(path)
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
            "rollout_rounds": tried}
    return Plan(best.rounds, info, best.trace)


def learned_sample(dag: WorkloadDAG, config: ScheduleConfig,
                   progress: Callable[[float], None] | None = None) -> Plan:
    """`learned` with sampling: the best of greedy decoding and `config.samples` sampled rollouts."""
    return learned(dag, config, progress, sample=True)
