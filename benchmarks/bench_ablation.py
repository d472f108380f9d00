"""Ablations of RL training, each variant trained for the same wall-clock budget and seed.

Studies (``--study``):
- ``reward-prior``: reward shaping (paper eqs. 3-5 vs rounds) x initialization (scratch vs heuristic prior).
- ``skip-path``: the lower agent's linear skip path (the heuristic prior) frozen vs trained
  (reward rounds, heuristic prior).
- ``upper``: the hierarchy: the learned upper agent vs select-all (only the lower agent trains),
  reward rounds, heuristic prior, on instances where choosing a subset of flow-trees could pay
  (chunks 2, unequal capacities, two-level topologies, failed links).

Printed per variant: untrained greedy rounds, trained greedy (rl) and best-of-16 (rl-sample)
rounds, the best seen in training, updates, wall and CPU seconds and the load average. Runs
do a fixed number of outer iterations (not a time budget), so variants get equal work on a
shared machine; training still stops early when greedy decoding meets the lower bound.

    python benchmarks/bench_ablation.py --study skip-path --iterations 6
    python benchmarks/bench_ablation.py --study upper --iterations 4
    python benchmarks/bench_ablation.py --study upper --iterations 6 "bcube:n=3,k=2|fail=random:0.1,seed=1"
    python benchmarks/bench_ablation.py --study reward-prior --iterations 20 bcube:n=3,k=1
"""

from __future__ import annotations

import argparse
import json
import os
import time

from core.bounds import lower_bounds
from core.rl.instances import Instance
from core.rl.policy import HierarchicalPolicy, PolicyConfig
from core.rl.rollout import play
from core.rl.train import TrainConfig, train
from core.engine import list_schedule
from core.priorities import critical_path_rank

STUDIES = {
    "reward-prior": (["bcube:n=3,k=1", "dcell:n=4,k=1", "jellyfish:switches=10,ports=5,switch_ports=4,seed=0"],
                     [dict(reward=r, prior=p) for p in ("none", "heuristic") for r in ("paper", "rounds")]),
    "skip-path": (["jellyfish:switches=10,ports=5,switch_ports=4,seed=0", "fattree:k=4",
                   "leafspine:leaves=4,spines=2,servers=3|capacity=5"],
                  [dict(reward="rounds", prior="heuristic", train_prior=t) for t in (False, True)]),
    "upper": (["bcube:n=3,k=1|capacity=7", "dcell:n=3,k=1|chunks=2",
               "jellyfish:switches=12,ports=5,switch_ports=4,seed=12|fail=random:0.1,seed=1", "fattree:k=4|chunks=2"],
              [dict(reward="rounds", prior="heuristic", upper="learned"),
               dict(reward="rounds", prior="heuristic", upper="all", lower_iters=6)]),  # same 6 updates an iteration
}


def instance(text: str) -> Instance:
    """`spec`, `spec|chunks=2`, `spec|capacity=SEED` or `spec|fail=LINKS` -> Instance."""
    spec, _, extra = text.partition("|")
    if extra.startswith("chunks="):
        return Instance(spec, chunks=int(extra[7:]))
    if extra.startswith("capacity="):
        return Instance(spec, capacity_seed=int(extra[9:]))
    if extra.startswith("fail="):
        return Instance(spec, fail=extra[5:])
    return Instance(spec)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("specs", nargs="*", help="instances (spec, spec|chunks=K or spec|capacity=SEED)")
    ap.add_argument("--study", choices=list(STUDIES), default="skip-path",
                    help="which ablation: its instances and variants (STUDIES) (default %(default)s)")
    ap.add_argument("--budget", type=float, default=3600.0,
                    help="wall-clock seconds of training per run (a cap) (default %(default)s)")
    ap.add_argument("--iterations", type=int, default=6,
                    help="outer iterations per run (default 6 = 36 updates): equal work per variant, whatever the load")
    ap.add_argument("--seed", type=int, default=0, help="training seed of every run (default %(default)s)")
    ap.add_argument("--json", help="also write the rows here")
    a = ap.parse_args()
    specs, variants = STUDIES[a.study]
    rows = []
    print(f"study {a.study}, {a.iterations} outer iterations per run (cap {a.budget:.0f} s), seed {a.seed}")
    print(f"{'instance':58} {'variant':34} {'CP':>4} {'LB':>4} {'untr':>4} {'rl':>4} {'rl-s16':>6} {'best':>4} "
          f"{'upd':>4} {'wall s':>6} {'cpu s':>6} {'load':>5}")
    for text in a.specs or specs:
        inst = instance(text)
        dag = inst.dag()
        cp = len(list_schedule(dag, critical_path_rank(dag)))
        lb = lower_bounds(dag).best
        for v in variants:
            untrained = play(dag, HierarchicalPolicy(PolicyConfig(prior=v["prior"])), sample=False,
                             upper=v.get("upper", "learned")).n_rounds
            cfg = TrainConfig(**v, budget_s=a.budget, iterations=a.iterations, seed=a.seed)
            c0, load0 = time.process_time(), os.getloadavg()[0]
            res = train(dag, cfg)
            label = ", ".join(f"{k}={val}" for k, val in v.items())
            row = {"instance": inst.name, "variant": label, **v, "critical_path": cp, "lower_bound": lb,
                   "untrained": untrained, "rl": res.greedy_rounds[0], "rl_sample16": res.sample_rounds[0],
                   "best_during_training": res.best_rounds[0], "updates": len(res.log), "iterations": a.iterations,
                   "wall_s": round(res.seconds, 1), "cpu_s": round(time.process_time() - c0, 1),
                   "load": round((load0 + os.getloadavg()[0]) / 2, 2)}
            rows.append(row)
            print(f"{inst.name:58} {label:34} {cp:4d} {lb:4d} {untrained:4d} {row['rl']:4d} {row['rl_sample16']:6d} "
                  f"{row['best_during_training']:4d} {row['updates']:4d} {row['wall_s']:6.0f} {row['cpu_s']:6.0f} "
                  f"{row['load']:5.2f}", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
