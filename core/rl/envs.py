"""Gymnasium environments of the two POMDPs (the paper's Section 4.2), on the project's engine.

Both wrap the same `Engine` and `RoundBuilder` every other method uses, so the round rules
exist once. Register with ``import core.rl.envs`` and make them with
``gymnasium.make("allreduce-lab/FlowTreeSelection-v0", spec="bcube:n=3,k=1")``.
"""

from __future__ import annotations

from typing import Callable

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..engine import Engine, RoundBuilder, round_limit
from ..topology import Topology, make_topology
from ..workloads import WorkloadDAG, build_dag
from .features import DYNAMIC_FEATURES, LOWER_FEATURES, UPPER_FEATURES, Observer, RoundState, dynamic_features
from .rewards import check_reward, lower_reward, upper_reward

OBS_BOUND = 10.0  # features are normalized; observations are clipped to [-10, 10]

LowerFill = Callable[[Engine, RoundState, np.ndarray], np.ndarray]
UpperSelect = Callable[[RoundState, np.ndarray], np.ndarray]


def _dag(spec: str | None, topology: Topology | None, chunks: int) -> WorkloadDAG:
    topo = topology if topology is not None else make_topology(spec or "bcube:n=3,k=1")
    return build_dag(topo, "tree", chunks=chunks)


def longest_chain_fill(engine: Engine, state: RoundState, pool: np.ndarray) -> np.ndarray:
    """Default frozen lower agent: fill the round from the pool by longest remaining chain."""
    tails = engine.dag.tail[pool]
    return engine.fill(pool[np.lexsort((pool, -tails))])


def select_all(state: RoundState, ready_trees: np.ndarray) -> np.ndarray:
    """Default frozen upper agent: select every tree with a ready workload."""
    return ready_trees.copy()


class FlowTreeSelectionEnv(gym.Env):
    """Flow-tree selection, the upper POMDP: one step per round.

    ## Action Space
    ``MultiBinary(n_trees)``: 1 selects a flow-tree; its ready workloads join the round's pool.
    Trees with no ready workload are masked (``info["action_mask"]``). If the selection holds
    no ready workload, every tree is used (an empty round never helps).

    ## Observation Space
    ``Box(n_trees, 9)``: per flow-tree, the features of ``UPPER_FEATURES`` (remaining share,
    ready count, longest remaining chain, link pressure, slack, last action, shared links,
    round progress, sent last round) — the paper's routed flows, available flows, network
    pressure and last action.

    ## Rewards
    ``reward="paper"`` (default): eqs. 3-4, Sent/Total flows + 0.1 Selected/Total trees, plus
    10 when done, otherwise -Total trees/Total flows. ``reward="rounds"``: -1 per round.

    ## Episode End
    Terminated when every workload is sent; truncated after ``max_rounds`` rounds.
    """

    metadata = {"render_modes": []}

    def __init__(self, spec: str | None = None, topology: Topology | None = None, chunks: int = 1,
                 lower: LowerFill | None = None, reward: str = "paper", max_rounds: int | None = None):
        self.dag = _dag(spec, topology, chunks)
        self.observer = Observer(self.dag)
        self.lower = lower or longest_chain_fill
        self.reward_kind = check_reward(reward)
        self.max_rounds = max_rounds or round_limit(self.dag)
        nt = self.dag.n_trees
        self.action_space = spaces.MultiBinary(nt)
        self.observation_space = spaces.Box(-OBS_BOUND, OBS_BOUND, shape=(nt, len(UPPER_FEATURES)),
                                            dtype=np.float32)
        self.engine = Engine(self.dag)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a new AllReduce; returns (observation, info with action_mask)."""
        super().reset(seed=seed)
        self.engine = Engine(self.dag)
        self._last = np.zeros(self.dag.n_trees, dtype=bool)
        self._sent_last = np.zeros(self.dag.n_trees)
        return self._observe()

    def _observe(self):
        self._state = self.observer.state(self.engine)
        ready = np.flatnonzero(self._state.ready)
        self._selectable = np.zeros(self.dag.n_trees, dtype=bool)
        self._selectable[self.dag.tree[ready]] = True
        obs = np.clip(self.observer.upper(self._state, self._last, self._sent_last), -OBS_BOUND, OBS_BOUND)
        return obs, {"action_mask": self._selectable.astype(np.int8), "rounds": self.engine.n_rounds,
                     "sent": self.engine.n_sent}

    def step(self, action):
        """Play one round with the selected trees; returns (obs, reward, terminated, truncated, info)."""
        sel = np.asarray(action, dtype=bool).reshape(-1) & self._selectable
        ready = np.flatnonzero(self._state.ready)
        pool = ready[sel[self.dag.tree[ready]]]
        if len(pool) == 0:
            pool = ready
        ids = self.lower(self.engine, self._state, pool)
        self.engine.apply(ids)
        self._last = sel
        self._sent_last = np.bincount(self.dag.tree[ids], minlength=self.dag.n_trees).astype(np.float64)
        done = self.engine.done
        reward = upper_reward(self.reward_kind, len(ids), sel.sum(), self.dag.n, self.dag.n_trees, done)
        truncated = not done and self.engine.n_rounds >= self.max_rounds
        obs, info = self._observe()
        return obs, float(reward), done, truncated, info


class WorkloadSchedulingEnv(gym.Env):
    """Workload scheduling, the lower POMDP: one step per workload within a round.

    ## Action Space
    ``Discrete(n_workloads)``: the id of the workload to add to the current round. Only the
    candidates in ``info["action_mask"]`` are valid: ready, in a selected tree, and fitting
    beside what the round already holds. An invalid action changes nothing (reward 0,
    ``info["invalid_action"] = True``). The round closes when no candidate fits.

    ## Observation Space
    ``Box(n_workloads, 16)``: for every workload, its round-start features (``LOWER_FEATURES``)
    and within-round features (``DYNAMIC_FEATURES``); zeros for workloads that are not
    candidates this round.

    ## Rewards
    ``reward="paper"`` (default): eq. 5, 1/Total flows per workload sent.
    ``reward="rounds"``: -1 each time a round closes.

    ## Episode End
    Terminated when every workload is sent; truncated after ``max_rounds`` rounds.
    """

    metadata = {"render_modes": []}

    def __init__(self, spec: str | None = None, topology: Topology | None = None, chunks: int = 1,
                 upper: UpperSelect | None = None, reward: str = "paper", max_rounds: int | None = None):
        self.dag = _dag(spec, topology, chunks)
        self.observer = Observer(self.dag)
        self.upper = upper or select_all
        self.reward_kind = check_reward(reward)
        self.max_rounds = max_rounds or round_limit(self.dag)
        self.n_features = len(LOWER_FEATURES) + len(DYNAMIC_FEATURES)
        self.action_space = spaces.Discrete(self.dag.n)
        self.observation_space = spaces.Box(-OBS_BOUND, OBS_BOUND, shape=(self.dag.n, self.n_features),
                                            dtype=np.float32)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a new AllReduce; returns (observation, info with action_mask)."""
        super().reset(seed=seed)
        self.engine = Engine(self.dag)
        self._open_round()
        return self._observe()

    def _open_round(self) -> None:
        st = self.observer.state(self.engine)
        ready = np.flatnonzero(st.ready)
        sel = self.upper(st, np.unique(self.dag.tree[ready]))
        pool = ready[np.isin(self.dag.tree[ready], sel)]
        if len(pool) == 0:
            pool = ready
        self._static = self.observer.lower(st, pool)
        self._builder = RoundBuilder(self.engine, pool)

    def _observe(self):
        b = self._builder
        obs = np.zeros((self.dag.n, self.n_features), dtype=np.float32)
        mask = np.zeros(self.dag.n, dtype=np.int8)
        if not self.engine.done:
            obs[b.pool, : len(LOWER_FEATURES)] = self._static
            obs[b.pool, len(LOWER_FEATURES):] = dynamic_features(b)
            mask[b.pool[b.valid]] = 1
        return np.clip(obs, -OBS_BOUND, OBS_BOUND), {"action_mask": mask, "rounds": self.engine.n_rounds, "sent": self.engine.n_sent}

    def step(self, action):
        """Add one workload to the round (closing it when nothing else fits)."""
        a = int(action)
        b = self._builder
        where = np.flatnonzero(b.pool == a)
        if len(where) == 0 or not b.valid[where[0]]:
            obs, info = self._observe()
            return obs, 0.0, False, False, {**info, "invalid_action": True}
        b.add(int(where[0]))
        # eq. 5 per workload sent; with "rounds", -1 when the round closes
        reward = lower_reward("paper", 1, self.dag.n) if self.reward_kind == "paper" else 0.0
        if b.done:
            self.engine.apply(b.ids())
            if self.reward_kind == "rounds":
                reward = lower_reward("rounds", len(b.ids()), self.dag.n)
            if not self.engine.done:
                self._open_round()
        done = self.engine.done
        truncated = not done and self.engine.n_rounds >= self.max_rounds
        obs, info = self._observe()
        return obs, float(reward), done, truncated, info


def register_envs() -> None:
    """Register both environments with Gymnasium (idempotent)."""
    for name, cls in (("FlowTreeSelection-v0", FlowTreeSelectionEnv),
                      ("WorkloadScheduling-v0", WorkloadSchedulingEnv)):
        env_id = f"allreduce-lab/{name}"
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=f"{__name__}:{cls.__name__}")


register_envs()

__all__ = ["FlowTreeSelectionEnv", "WorkloadSchedulingEnv", "register_envs", "longest_chain_fill", "select_all"]

