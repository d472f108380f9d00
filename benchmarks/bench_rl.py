"""RL benchmark: the paper's Table 2 with the per-topology checkpoints and with the universal one.

For every configuration it prints critical-path, `rl` (greedy decoding) and `rl-sample`
(best of K sampled rollouts) of the checkpoint trained on that topology, the same for the
universal checkpoint (K = 16 unless --universal-samples), the lower bound of the merged DAG,
the gaps, PS (mean of 5 seeds) and our RL/PS ratio beside the paper's, the training time
recorded in the checkpoint and the inference time of `rl` (wall and CPU). Targets are
printed as MET or MISSED with the margin, with the load average.

    python benchmarks/bench_rl.py                 # K = 64 samples for the per-topology checkpoints
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
from core.methods import run_method
from core.rl.checkpoint import UNIVERSAL, checkpoint_dir, find_checkpoint
from core.rl.pair import pair_file, pair_stem
from core.schedule import DEFAULT_TEMPERATURE, ScheduleConfig
from core.schedulers.optimal import solve_optimal
from core.topology import make_topology, preset
from core.workloads import build_dag
from _common import finish  # benchmarks/_common.py, beside this script

README_RL = {"BCube(3,1)": 12, "BCube(4,1)": 24, "BCube(5,1)": 40, "DCell(4,1)": 24, "DCell(5,1)": 40,
             "DCell(6,1)": 60, "Jellyfish(10)": 18, "Jellyfish(15)": 29, "Jellyfish(20)": 42}
"""`rl` rounds of the README before issue 11 (the per-topology checkpoints must not regress)."""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=64,
                    help="rl-sample's samples with the per-topology checkpoints (default %(default)s)")
    ap.add_argument("--universal-samples", type=int, default=16,
                    help="rl-sample's samples with the universal checkpoint (default %(default)s)")
    ap.add_argument("--temperature", type=float, default=DEFAULT_TEMPERATURE,
                    help=f"rl-sample's sampling temperature (default {DEFAULT_TEMPERATURE:g}, the method's)")
    ap.add_argument("--cp-sat", type=float, default=0.0, help="seconds of CP-SAT per config for a proven bound")
    ap.add_argument("--universal", default=str(checkpoint_dir() / UNIVERSAL),
                    help="the universal checkpoint to compare (path without suffix; default the shipped one)")
    ap.add_argument("--json", help="also write the rows here")
    a = ap.parse_args()
    start, cpu0 = time.perf_counter(), time.process_time()
    uni = pair_file(pair_stem(a.universal), ".json")
    rows = []
    print(f"{'config':14} {'CP':>4} {'rl':>4} {'rl-s':>5} {'uni':>4} {'uni-s':>5} {'LB':>4} {'gap':>6} {'ugap':>6} "
          f"{'PS':>6} {'RL/PS':>6} {'paper':>6} {'train s':>8} {'rl s':>6} {'rl cpu':>6}")
    for p in preset("table2"):
        topo = make_topology(p.spec)
        ck = find_checkpoint(topo.spec)
        meta = json.loads(ck.read_text()) if ck else {}
        cfg = ScheduleConfig(checkpoint=str(ck) if ck else None, samples=a.samples, seed=0, trace=False,
                             temperature=a.temperature)
        dag = build_dag(topo, "tree")
        lb = lower_bounds(dag).best
        if a.cp_sat > 0:
            _, info = solve_optimal(dag, a.cp_sat)
            lb = max(lb, int(info["proven_bound"]))
        cp = run_method("critical-path", topo, cfg).n_rounds
        t0, c0 = time.perf_counter(), time.process_time()
        rl = run_method("rl", topo, cfg).n_rounds if ck else None
        rl_s, rl_cpu = time.perf_counter() - t0, time.process_time() - c0
        rls = run_method("rl-sample", topo, cfg).n_rounds if ck else None
        ucfg = replace(cfg, checkpoint=str(uni), samples=a.universal_samples)
        u = run_method("rl", topo, ucfg).n_rounds if uni.is_file() else None
        us = run_method("rl-sample", topo, ucfg).n_rounds if uni.is_file() else None
        ps = float(np.mean([run_method("ps", topo, replace(cfg, seed=s)).n_rounds for s in range(5)]))
        best = min(x for x in (rls, us) if x is not None)
        row = {"config": p.name, "critical_path": cp, "rl": rl, "rl_sample": rls, "samples": a.samples,
               "universal_rl": u, "universal_rl_sample": us, "universal_samples": a.universal_samples,
               "lower_bound": lb, "gap": rls / lb - 1 if rls else None, "universal_gap": us / lb - 1 if us else None,
               "ps": ps, "rl_ps": best / ps, "paper_rl_ps": p.paper_rl / p.paper_ps,
               "train_seconds": meta.get("training_seconds"), "rl_seconds": rl_s, "rl_cpu_seconds": rl_cpu}
        rows.append(row)

        def show(x):
            return "-" if x is None else str(x)
        print(f"{p.name:14} {cp:4d} {show(rl):>4} {show(rls):>5} {show(u):>4} {show(us):>5} {lb:4d} "
              f"{100 * (row['gap'] or 0):5.1f}% {100 * (row['universal_gap'] or 0):5.1f}% {ps:6.1f} "
              f"{row['rl_ps']:6.2f} {row['paper_rl_ps']:6.2f} {meta.get('training_seconds', 0) or 0:8.0f} "
              f"{rl_s:6.2f} {rl_cpu:6.2f}", flush=True)
    print()
    n = len(rows)
    regress = [r for r in rows if r["rl"] is not None and r["rl"] > README_RL[r["config"]]]
    names = ", ".join(f"{r['config']} {r['rl']} > {README_RL[r['config']]}" for r in regress)
    print(f"target rl (per-topology checkpoints) at or below the README's rounds: {n - len(regress)}/{n} "
          f"{'MET' if not regress else 'MISSED: ' + names}")
    done = [r for r in rows if r["universal_rl_sample"] is not None]
    if done:
        ok = [r for r in done if r["universal_rl_sample"] <= 1.05 * r["lower_bound"] + 1e-9]
        worst = max(done, key=lambda r: r["universal_gap"])
        print(f"target universal rl-sample (K={a.universal_samples}) within 5% of the lower bound on all nine: "
              f"{len(ok)}/{n} {'MET' if len(ok) == n else 'MISSED'} (worst {worst['config']}: "
              f"{100 * worst['universal_gap']:.1f}%)")
        better = sum(r["universal_rl_sample"] < r["rl_sample"] for r in done)
        worse = sum(r["universal_rl_sample"] > r["rl_sample"] for r in done)
        print(f"universal vs per-topology rl-sample: better on {better}, equal on {len(done) - better - worse}, "
              f"worse on {worse} (per-topology checkpoints stay the default where they exist)")
    finish(start, cpu0, rows, a.json)


if __name__ == "__main__":
    main()
