"""Do the heavy links starve? Idle link-rounds with nothing ready, per instance, for `rl` and critical-path.

The diagnosis of the DCell(2,2) miss (`bench_miss.py`) found the heaviest links idle with no ready
workload on them for more link-rounds under `rl` than under critical-path. This runs the same count
(`bench_miss.starvation`) over a whole instance set, by default the universal policy's training
instances (`instances.UNIVERSAL_TRAINING`), so a feature meant to fix it can be judged on the training
side: for each instance, the rounds of critical-path and greedy `rl`, the merged-DAG bound, and the
heavy links' idle link-rounds with nothing ready (before each link's last use) under each.

    python benchmarks/bench_starvation.py                       # training set, shipped universal checkpoint
    python benchmarks/bench_starvation.py --set confirmation --checkpoint /path/to/universal
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_miss import starvation  # noqa: E402

from core.bounds import lower_bounds  # noqa: E402
from core.methods import run_method  # noqa: E402
from core.rl.checkpoint import UNIVERSAL, checkpoint_dir, shown_path  # noqa: E402
from core.rl.instances import CONFIRMATION, GENERALIZATION, UNIVERSAL_TRAINING  # noqa: E402
from core.schedule import ScheduleConfig  # noqa: E402

SETS = {"training": UNIVERSAL_TRAINING, "generalization": GENERALIZATION, "confirmation": CONFIRMATION}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", choices=sorted(SETS), default="training", help="instance set (default %(default)s)")
    shipped = checkpoint_dir() / UNIVERSAL
    ap.add_argument("--checkpoint", default=str(shipped),
                    help=f"policy checkpoint (path without suffix) (default {shown_path(shipped)})")
    ap.add_argument("--heavy", type=float, default=0.9,
                    help="heavy links: load / capacity >= this share of the largest (default %(default)s)")
    a = ap.parse_args()
    t0, c0 = time.perf_counter(), time.process_time()
    print(f"{'instance':70} {'LB':>4} {'CP':>4} {'rl':>4} {'heavy':>5} {'CP starve':>9} {'rl starve':>9}")
    tot = np.zeros(2, np.int64)
    worse = 0
    for inst in SETS[a.set]:
        topo = inst.topology()
        cfg = ScheduleConfig(chunks=inst.chunks, checkpoint=a.checkpoint, trace=False)
        cp, rl = run_method("critical-path", topo, cfg), run_method("rl", topo, cfg)
        dag = rl.dag
        load = -(-dag.link_load // dag.topology.link_capacity)
        heavy = np.flatnonzero(load >= a.heavy * load.max())
        s_cp, s_rl = starvation(dag, cp.rounds, heavy)[0], starvation(dag, rl.rounds, heavy)[0]
        tot += (s_cp, s_rl)
        worse += s_rl > s_cp
        print(f"{inst.name[:70]:70} {lower_bounds(dag).best:4d} {cp.n_rounds:4d} {rl.n_rounds:4d} {len(heavy):5d} "
              f"{s_cp:9d} {s_rl:9d}", flush=True)
    print(f"total starved link-rounds: critical-path {tot[0]}, rl {tot[1]}; rl starves more on {worse} of "
          f"{len(SETS[a.set])}")
    print(f"wall {time.perf_counter() - t0:.0f} s, CPU {time.process_time() - c0:.0f} s, "
          f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
