"""A stand-in for core's RL scheduler with a trace of the documented shape (for tests and screenshots).

It schedules like seeded greedy (so its rounds differ from critical-path) and records a trace:
per round, made-up flow-tree probabilities with the trees it sent from selected, and per step
the round's remaining workloads as candidates with descending scores.
"""

from __future__ import annotations

import numpy as np

from core import schedulers
from core.schedulers import Schedule, ScheduleConfig, run_method


def fake_rl_schedule(topology, config: ScheduleConfig, progress=None, method: str = "rl") -> Schedule:
    """A greedy schedule dressed as an RL schedule, with `info["trace"]`."""
    base = run_method("greedy", topology, config)
    dag = base.dag
    rng = np.random.default_rng(config.seed)
    probs, selected, steps = [], [], []
    for r, ids in enumerate(base.rounds):
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
            progress((r + 1) / len(base.rounds))
    return Schedule(method, dag, base.rounds, config,
                    info={"trace": {"tree_probs": probs, "trees_selected": selected, "steps": steps}})


def install(monkeypatch=None) -> None:
    """Register the stand-in as core's `rl` and `rl-sample` methods."""
    methods = {"rl": lambda t, c, p=None: fake_rl_schedule(t, c, p, "rl"),
               "rl-sample": lambda t, c, p=None: fake_rl_schedule(t, c, p, "rl-sample")}
    for name, fn in methods.items():
        if monkeypatch is not None:
            monkeypatch.setitem(schedulers.METHODS, name, fn)
        else:
            schedulers.METHODS[name] = fn
