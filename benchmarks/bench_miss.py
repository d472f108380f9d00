"""Why the learned scheduler misses critical-path on a topology: ties, sampling, luck, link starvation.

Written for the generalization set's one miss (DCell(2,2), docs/rl.md §3 "The confirmation set and the DCell(2,2) miss"),
usable on any topology spec. It prints, for the universal checkpoint (or --checkpoint):
- round sizes of critical-path and `rl`, and how many lower-agent steps of `rl` had a tie;
- the best of --draws sampled rollouts at each temperature of --temperatures (rl-sample's seeding);
- critical-path with its ties (equal remaining chain and successors) broken by --draws random orders
  instead of by workload id: how often it gets each round count;
- starvation of the heavy links (load at least --heavy times the largest): link-rounds before a
  link's last use in which it sent nothing, split into "no ready workload on it" and "ready work
  left unsent".

    python benchmarks/bench_miss.py                                  # DCell(2,2)
    python benchmarks/bench_miss.py bcube:n=2,k=3 --draws 8
"""

from __future__ import annotations

import argparse
import collections
import os
import time

import numpy as np

from core.bounds import lower_bounds
from core.engine import Engine, list_schedule
from core.methods import run_method
from core.priorities import critical_path_key
from core.rl.checkpoint import load_checkpoint
from core.rl.features import Observer
from core.rl.rollout import play
from core.schedule import ScheduleConfig
from core.topology import make_topology
from _common import add_checkpoint_option  # benchmarks/_common.py, beside this script


def starvation(dag, rounds: list[np.ndarray], heavy: np.ndarray) -> tuple[int, int, list[int]]:
    """(idle link-rounds with no ready workload on the link, idle link-rounds with ready work unsent, the
    1-based rounds of the former) over the `heavy` links, each counted before its last use."""
    pos, lk = dag.links.gather(np.arange(dag.n))
    n_links = dag.topology.n_links
    used = np.stack([np.bincount(lk[np.isin(pos, ids)], minlength=n_links) for ids in rounds])
    last = {int(link): int(np.flatnonzero(used[:, link]).max()) for link in heavy}
    eng, starved, unsent, when = Engine(dag), 0, 0, []
    for r, ids in enumerate(rounds):
        ready_on = np.bincount(lk[eng.ready_mask()[pos]], minlength=n_links)
        for link in heavy:
            if r < last[int(link)] and used[r, link] == 0:
                starved += ready_on[link] == 0
                when += [r + 1] if ready_on[link] == 0 else []
                unsent += ready_on[link] > 0
        eng.apply(ids)
    return int(starved), int(unsent), when


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("spec", nargs="?", default="dcell:n=2,k=2", help="topology spec to diagnose (default %(default)s)")
    ap.add_argument("--chunks", type=int, default=1, help="chunks per workload (default %(default)s)")
    add_checkpoint_option(ap)
    ap.add_argument("--draws", type=int, default=24,
                    help="sampled rollouts per temperature; random tie orders for critical-path (default %(default)s)")
    ap.add_argument("--temperatures", default="0.05,0.2,0.5,1,2,4",
                    help="comma-separated sampling temperatures (default %(default)s)")
    ap.add_argument("--heavy", type=float, default=0.9,
                    help="heavy links: load / capacity >= this share of the largest (default %(default)s)")
    a = ap.parse_args()
    t0, c0 = time.perf_counter(), time.process_time()
    topo = make_topology(a.spec)
    cfg = ScheduleConfig(chunks=a.chunks, checkpoint=a.checkpoint, trace=True)
    cp = run_method("critical-path", topo, cfg)
    rl = run_method("rl", topo, cfg)
    dag = rl.dag
    print(f"{a.spec} chunks={a.chunks}: {dag.n} workloads; critical-path {cp.n_rounds}, rl {rl.n_rounds}; "
          f"lower bounds {lower_bounds(dag).as_dict()}")
    print(f"critical-path round sizes: {[len(r) for r in cp.rounds]}")
    print(f"rl round sizes:            {[len(r) for r in rl.rounds]}")
    s = rl.trace["summary"]
    print(f"rl steps with a tie for the top score: {s['steps_with_ties']} of {s['steps']} "
          f"(largest tie {s['largest_tie']})")
    policy, _ = load_checkpoint(a.checkpoint)
    obs = Observer(dag)
    for t in [float(x) for x in a.temperatures.split(",")]:
        got = [play(dag, policy, sample=True, observer=obs, temperature=t,
                    rng=np.random.default_rng(np.random.SeedSequence([0, k]))).n_rounds for k in range(a.draws)]
        print(f"sampled at T={t:g}: rounds (count) {sorted(collections.Counter(got).items())}", flush=True)
    key = critical_path_key(dag)
    got = []
    for seed in range(a.draws):
        order = np.lexsort((np.random.default_rng(seed).permutation(dag.n), key))
        rank = np.empty(dag.n, np.int64)
        rank[order] = np.arange(dag.n)
        got.append(len(list_schedule(dag, rank)))
    print(f"critical-path, ties broken by {a.draws} random orders instead of by id: rounds (count) "
          f"{sorted(collections.Counter(got).items())}")
    load = -(-dag.link_load // dag.topology.link_capacity)  # rounds each link needs at least
    heavy = np.flatnonzero(load >= a.heavy * load.max())
    for name, sched in (("critical-path", cp), ("rl", rl)):
        starved, unsent, when = starvation(dag, sched.rounds, heavy)
        print(f"{name}: {len(heavy)} heavy links (load >= {a.heavy:g} x {int(load.max())}); idle link-rounds before "
              f"their last use: {starved} with no ready workload on the link"
              + (f" (rounds {min(when)}-{max(when)})" if when else "") + f", {unsent} with ready work unsent")
    print(f"wall {time.perf_counter() - t0:.0f} s, CPU {time.process_time() - c0:.0f} s, "
          f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
