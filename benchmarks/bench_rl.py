"""RL benchmark: the shipped checkpoints on the paper's Table 2, against the issue's targets.

For every configuration it prints critical-path, `rl` (greedy decoding) and `rl-sample`
(best of K sampled rollouts) rounds, the lower bound of the merged DAG, the gap, PS (mean of
5 seeds), our RL/PS ratio beside the paper's, the training time recorded in the checkpoint,
and the inference time of `rl`. Each target is printed as MET or MISSED with the margin.

    python benchmarks/bench_rl.py                 # K = 64 samples
    python benchmarks/bench_rl.py --samples 16
    python benchmarks/bench_rl.py --cp-sat 120    # also let CP-SAT try to prove a higher bound
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace

import numpy as np

from core.bounds import lower_bounds
from core.rl.checkpoint import find_checkpoint
from core.methods import run_method
from core.schedule import ScheduleConfig
from core.workloads import build_dag
from core.schedulers.optimal import solve_optimal
from core.topology import make_topology, preset


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=64)
    ap.add_argument("--cp-sat", type=float, default=0.0, help="seconds of CP-SAT per config for a proven bound")
    ap.add_argument("--json", help="also write the rows here")
    a = ap.parse_args()
    rows = []
    head = (f"{'config':14} {'CP':>4} {'rl':>4} {'rl-s':>5} {'LB':>4} {'gap':>6} {'<=CP':>5} {'<=5%':>5} "
            f"{'PS':>6} {'RL/PS':>6} {'paper':>6} {'train s':>8} {'rl s':>6}")
    print(head)
    for p in preset("table2"):
        topo = make_topology(p.spec)
        ck = find_checkpoint(topo.spec)
        if ck is None:
            print(f"{p.name:14} no checkpoint")
            continue
        meta = json.loads(ck.read_text())
        cfg = ScheduleConfig(checkpoint=str(ck), samples=a.samples, seed=0)
        dag = build_dag(topo, "tree")
        lb = lower_bounds(dag).best
        if a.cp_sat > 0:
            _, info = solve_optimal(dag, a.cp_sat)
            lb = max(lb, int(info["proven_bound"]))
        cp = run_method("critical-path", topo, cfg).n_rounds
        t0 = time.perf_counter()
        rl = run_method("rl", topo, cfg).n_rounds
        rl_s = time.perf_counter() - t0
        rls = run_method("rl-sample", topo, cfg).n_rounds
        ps = float(np.mean([run_method("ps", topo, replace(cfg, seed=s)).n_rounds for s in range(5)]))
        ratio, paper = rls / ps, p.paper_rl / p.paper_ps
        gap = rls / lb - 1
        row = {"config": p.name, "critical_path": cp, "rl": rl, "rl_sample": rls, "samples": a.samples,
               "lower_bound": lb, "gap": gap, "ps": ps, "rl_ps": ratio, "paper_rl_ps": paper,
               "train_seconds": meta.get("training_seconds"), "rl_seconds": rl_s,
               "le_cp": rls <= cp, "within_5pct": gap <= 0.05 + 1e-9, "beats_paper_ratio": ratio < paper}
        rows.append(row)
        print(f"{p.name:14} {cp:4d} {rl:4d} {rls:5d} {lb:4d} {100 * gap:5.1f}% {('yes' if row['le_cp'] else 'NO'):>5} "
              f"{('yes' if row['within_5pct'] else 'NO'):>5} {ps:6.1f} {ratio:6.2f} {paper:6.2f} "
              f"{meta.get('training_seconds', 0):8.0f} {rl_s:6.2f}")
    if not rows:
        return
    print()
    n = len(rows)
    cp_ok = sum(r["le_cp"] for r in rows)
    gap_ok = sum(r["within_5pct"] for r in rows)
    ratio_ok = sum(r["beats_paper_ratio"] for r in rows)
    worst = max(rows, key=lambda r: r["gap"])
    slowest = max(rows, key=lambda r: r["train_seconds"] or 0)
    print(f"target rl-sample <= critical-path: {cp_ok}/{n} {'MET' if cp_ok == n else 'MISSED'}")
    print(f"target within 5% of the lower bound: {gap_ok}/{n} {'MET' if gap_ok == n else 'MISSED'} "
          f"(worst {worst['config']}: {100 * worst['gap']:.1f}%)")
    print(f"target RL/PS below the paper's: {ratio_ok}/{n} {'MET' if ratio_ok == n else 'MISSED'}")
    print(f"target training <= 15 min per configuration: {'MET' if (slowest['train_seconds'] or 0) <= 900 else 'MISSED'} "
          f"(longest {slowest['config']}: {slowest['train_seconds']:.0f} s)")
    dc = next((r for r in rows if r["config"] == "DCell(6,1)"), None)
    if dc:
        print(f"target rl inference on DCell(6,1) <= 5 s: {'MET' if dc['rl_seconds'] <= 5 else 'MISSED'} "
              f"({dc['rl_seconds']:.2f} s)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=2, default=float)


if __name__ == "__main__":
    main()
