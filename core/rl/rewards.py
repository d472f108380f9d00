"""The rewards of both agents, in one place for the trainer and the Gymnasium environments.

``paper`` (default): the upper agent gets eqs. 3-4 each round, Sent/Total flows +
0.1 Selected/Total trees, plus 10 when done and -Total trees/Total flows otherwise; the lower
agent gets eq. 5, 1/Total flows per workload it sends (Sent/Total flows summed over a round).
``rounds``: -1 per round for both agents, the metric itself.
"""

from __future__ import annotations

import numpy as np

REWARDS = ("paper", "rounds")


def check_reward(kind: str) -> str:
    """`kind` if it names a reward shaping, else ValueError naming the known ones."""
    if kind not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {kind!r}")
    return kind


def upper_reward(kind: str, sent, selected, n_flows: int, n_trees: int, done):
    """Reward of the flow-tree selection agent for round(s) that sent `sent` workloads
    with `selected` trees selected (scalars or arrays; `done` marks the final round)."""
    sent = np.asarray(sent, dtype=np.float64)
    if kind == "rounds":
        return -np.ones_like(sent)
    stage = np.where(done, 10.0, -n_trees / n_flows)  # eq. 4
    return sent / n_flows + 0.1 * np.asarray(selected, dtype=np.float64) / n_trees + stage  # eq. 3


def lower_reward(kind: str, sent, n_flows: int):
    """Reward of the workload scheduling agent for round(s) that sent `sent` workloads (eq. 5
    summed over the round's steps; one step that sends one workload earns 1/Total flows)."""
    sent = np.asarray(sent, dtype=np.float64)
    return -np.ones_like(sent) if kind == "rounds" else sent / n_flows
