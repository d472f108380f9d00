"""A candidate not adopted: rl-sample with its samples spread over a temperature ladder, on three sets.

Measured after the DCell(2,2) miss was known (README, Generalization; docs/rl.md section 3): the
universal checkpoint's best of greedy decoding and K samples, the k-th drawn at
T = LO * (HI / LO) ** (k / (K - 1)) with rl-sample's seeding, on the generalization set, the
confirmation set or Table 2, beside critical-path and the merged-DAG bound. Compare with the
shipped rl-sample (fixed T = 0.2): `bench_generalization.py` (both held-out sets) and `bench_rl.py`.

    python benchmarks/bench_ladder.py generalization
    python benchmarks/bench_ladder.py table2 --samples 16 --low 0.1 --high 2
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from core.bounds import lower_bounds
from core.methods import run_method
from core.rl.checkpoint import load_checkpoint
from core.rl.features import Observer
from core.rl.instances import CONFIRMATION, GENERALIZATION
from core.rl.rollout import play
from core.schedule import ScheduleConfig
from core.topology import make_topology, preset
from core.workloads import build_dag
from _common import add_checkpoint_option  # benchmarks/_common.py, beside this script


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("set", choices=("generalization", "confirmation", "table2"),
                    help="the instances: the generalization set, the confirmation set or Table 2")
    ap.add_argument("--samples", type=int, default=16,
                    help="samples K, one per ladder temperature (default %(default)s)")
    ap.add_argument("--low", type=float, default=0.1,
                    help="lowest temperature of the geometric ladder (default %(default)s)")
    ap.add_argument("--high", type=float, default=2.0,
                    help="highest temperature of the geometric ladder (default %(default)s)")
    add_checkpoint_option(ap)
    a = ap.parse_args()
    policy, _ = load_checkpoint(a.checkpoint)
    temps = [a.low * (a.high / a.low) ** (k / max(1, a.samples - 1)) for k in range(a.samples)]
    if a.set == "table2":
        dags = [(p.spec, build_dag(make_topology(p.spec), "tree")) for p in preset("table2")]
    else:
        dags = [(i.name, i.dag()) for i in (GENERALIZATION if a.set == "generalization" else CONFIRMATION)]
    t0, c0 = time.perf_counter(), time.process_time()
    le_cp = within = total = 0
    for name, dag in dags:
        cp = run_method("critical-path", dag.topology, ScheduleConfig(chunks=dag.chunks)).n_rounds
        lb = lower_bounds(dag).best
        obs = Observer(dag)
        greedy = play(dag, policy, sample=False, observer=obs).n_rounds
        best = min([greedy] + [play(dag, policy, sample=True, observer=obs, temperature=t,
                                    rng=np.random.default_rng(np.random.SeedSequence([0, k]))).n_rounds
                               for k, t in enumerate(temps)])
        le_cp += best <= cp
        within += best <= 1.05 * lb + 1e-9
        total += best
        print(f"{name:60} CP {cp:4d} LB {lb:4d} greedy {greedy:4d} ladder {best:4d}", flush=True)
    print(f"ladder T {a.low:g}..{a.high:g}, K={a.samples}: no worse than critical-path {le_cp}/{len(dags)}, "
          f"within 5% of the merged-DAG bound {within}/{len(dags)}, total rounds {total}")
    print(f"wall {time.perf_counter() - t0:.0f} s, CPU {time.process_time() - c0:.0f} s, "
          f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
