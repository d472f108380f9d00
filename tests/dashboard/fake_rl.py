"""A stand-in for core's RL scheduler with a trace of the documented shape (for tests and screenshots).

It schedules like seeded greedy (so its rounds differ from critical-path) and records a trace:
per round, made-up flow-tree probabilities with the trees it sent from selected, and per step
the round's remaining workloads as candidates with descending scores.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from core.methods import METHODS
from core.schedule import Plan, ScheduleConfig
from core.schedulers.listsched import random_order


def fake_rl_plan(dag, config: ScheduleConfig, progress=None) -> Plan:
    """A greedy schedule dressed as an RL schedule, with a trace."""
    rounds = random_order(dag, config)
    rng = np.random.default_rng(config.seed)
    probs, selected, steps = [], [], []
    for r, ids in enumerate(rounds):
        trees = sorted(set(dag.tree[ids].tolist()))
        p = rng.uniform(0.0, 0.4, dag.n_trees)
        p[trees] = rng.uniform(0.6, 1.0, len(trees))
        probs.append(p.tolist())
        selected.append(trees)
        order = ids.tolist()
        round_steps = []
        for k, w in enumerate(order):
            cands = order[k:]
            scores = np.linspace(1.0, 0.1, len(cands)).tolist()
            round_steps.append({"candidates": cands, "scores": scores, "chosen": w})
        steps.append(round_steps)
        if progress is not None:
            progress((r + 1) / len(rounds))
    return Plan(rounds, trace={"tree_probs": probs, "trees_selected": selected, "steps": steps})


def stand_in(name: str, schedule=fake_rl_plan, unavailable=None):
    """The registry record of `name` with its scheduling function (and availability check) replaced."""
    return replace(METHODS[name], schedule=schedule, unavailable=unavailable)


def install(monkeypatch=None) -> None:
    """Register the stand-in as core's `rl` and `rl-sample` methods."""
    for name in ("rl", "rl-sample"):
        if monkeypatch is not None:
            monkeypatch.setitem(METHODS, name, stand_in(name))
        else:
            METHODS[name] = stand_in(name)
