"""Ablation: reward shaping (paper eqs. 3-5 vs rounds) x initialization (scratch vs heuristic prior).

Each variant trains for the same wall-clock budget on the same configurations and seed.
Printed per variant: the untrained policy's greedy rounds, the trained policy's greedy and
best-of-16-sampled rounds, the best rounds seen during training, and the updates done.

    python benchmarks/bench_ablation.py                  # 120 s per run, 3 configs x 4 variants
    python benchmarks/bench_ablation.py --budget 60 bcube:n=3,k=1
"""

from __future__ import annotations

import argparse
import json

from core.bounds import lower_bounds
from core.rl.policy import HierarchicalPolicy, PolicyConfig
from core.rl.rollout import play
from core.rl.train import TrainConfig, train
from core.methods import run_method
from core.schedule import ScheduleConfig
from core.workloads import build_dag
from core.topology import make_topology

DEFAULT = ["bcube:n=3,k=1", "dcell:n=4,k=1", "jellyfish:switches=10,ports=5,switch_ports=4,seed=0"]
VARIANTS = [("paper", "none"), ("rounds", "none"), ("paper", "heuristic"), ("rounds", "heuristic")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("specs", nargs="*", default=DEFAULT)
    ap.add_argument("--budget", type=float, default=120.0, help="seconds of training per run")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", help="also write the rows here")
    a = ap.parse_args()
    rows = []
    print(f"{'topology':44} {'reward':7} {'prior':10} {'CP':>4} {'LB':>4} {'untrained':>9} {'rl':>4} "
          f"{'rl-s16':>6} {'best':>5} {'updates':>7}")
    for spec in a.specs:
        topo = make_topology(spec)
        dag = build_dag(topo, "tree")
        cp = run_method("critical-path", topo).n_rounds
        lb = lower_bounds(dag).best
        for reward, prior in VARIANTS:
            untrained = play(dag, HierarchicalPolicy(PolicyConfig(prior=prior)), sample=False).n_rounds
            cfg = TrainConfig(reward=reward, prior=prior, budget_s=a.budget, iterations=100_000, seed=a.seed)
            res = train(dag, cfg, progress=False)
            row = {"spec": topo.spec, "reward": reward, "prior": prior, "critical_path": cp, "lower_bound": lb,
                   "untrained": untrained, "rl": res.greedy_rounds, "rl_sample16": res.sample_rounds,
                   "best_during_training": res.best_rounds, "updates": len(res.log), "budget_s": a.budget}
            rows.append(row)
            print(f"{topo.spec:44} {reward:7} {prior:10} {cp:4d} {lb:4d} {untrained:9d} {res.greedy_rounds:4d} "
                  f"{res.sample_rounds:6d} {res.best_rounds:5d} {len(res.log):7d}", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
