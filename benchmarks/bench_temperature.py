"""Sampling temperature of rl-sample, chosen on the universal policy's training instances only.

rl-sample keeps the best of greedy decoding and K sampled rollouts; each sampled step draws a
workload with probability proportional to exp(score / T). This benchmark runs rl-sample (the
method itself) with the universal checkpoint on `core.rl.instances.UNIVERSAL_TRAINING` (never on
the generalization set, so the choice does not peek at the topologies the generalization
benchmark reports) for every T of --temperatures, and prints per T: instances within 5% of the merged-DAG lower bound, instances no
worse than critical-path, and the total rounds. The default of `ScheduleConfig.temperature` is the
T this prints as chosen (most within 5%, then most no worse than critical-path, then fewest rounds).

    python benchmarks/bench_temperature.py                      # K = 16, T in 0.1 0.2 0.3 0.5 0.7 1.0
    python benchmarks/bench_temperature.py --temperatures 0.5,1 --samples 8
"""

from __future__ import annotations

import argparse
import os
import time

from core.bounds import lower_bounds
from core.methods import run_method
from core.rl.instances import UNIVERSAL_TRAINING
from core.schedule import ScheduleConfig
from _common import add_checkpoint_option  # benchmarks/_common.py, beside this script


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=16, help="rl-sample's samples K per instance (default %(default)s)")
    ap.add_argument("--temperatures", default="0.1,0.2,0.3,0.5,0.7,1.0",
                    help="comma-separated temperatures to try (default %(default)s)")
    add_checkpoint_option(ap)
    a = ap.parse_args()
    temps = [float(t) for t in a.temperatures.split(",")]
    t0, c0 = time.perf_counter(), time.process_time()
    print(f"{'instance':58} {'CP':>4} {'LB':>4} " + " ".join(f"{'T=' + format(t, 'g'):>6}" for t in temps))
    within = {t: 0 for t in temps}
    le_cp = {t: 0 for t in temps}
    total = {t: 0 for t in temps}
    for inst in UNIVERSAL_TRAINING:
        topo = inst.topology()
        cp = run_method("critical-path", topo, ScheduleConfig(chunks=inst.chunks))
        lb = lower_bounds(cp.dag).best
        got = {t: run_method("rl-sample", topo, ScheduleConfig(chunks=inst.chunks, samples=a.samples, temperature=t,
                                                               checkpoint=a.checkpoint, trace=False)).n_rounds
               for t in temps}
        for t, r in got.items():
            within[t] += r <= 1.05 * lb + 1e-9
            le_cp[t] += r <= cp.n_rounds
            total[t] += r
        print(f"{inst.name:58} {cp.n_rounds:4d} {lb:4d} " + " ".join(f"{got[t]:6d}" for t in temps), flush=True)
    n = len(UNIVERSAL_TRAINING)
    print()
    for t in temps:
        print(f"T={t:g}: within 5% of the lower bound {within[t]}/{n}, no worse than critical-path {le_cp[t]}/{n}, "
              f"total rounds {total[t]}")
    chosen = max(temps, key=lambda t: (within[t], le_cp[t], -total[t]))
    print(f"chosen T={chosen:g} (K={a.samples}); wall {time.perf_counter() - t0:.0f} s, "
          f"CPU {time.process_time() - c0:.0f} s, load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
