"""Where a sampled rollout goes wrong: how much the first rounds decide, and what an opening does (issue 11).

Two diagnoses of rl-sample's sampled rollouts (temperature T = 0.2 by default, the universal
checkpoint) on one topology, each against critical-path's rounds:

- ``--prefix S``: draw S sampled rollouts; for every one above critical-path's rounds, keep its
  first f of rounds (f = 0, 0.2, 0.4, 0.6, 0.8) and resample the rest four times (`play`'s
  `prefix`); prints, per f, how many resamples beat the rollout. If late cuts never help, the
  rounds that decide are early.
- ``--openings C [C ...]``: per candidate opening ``T_open:F`` (or ``none``), N single sampled
  rollouts with the first ceil(F x R) rounds at T_open (R: the greedy rollout's rounds, as
  rl-sample's `--opening`); prints the spread of their rounds and how many reach critical-path's.

    python benchmarks/bench_opening.py dcell:n=2,k=2 --prefix 24
    python benchmarks/bench_opening.py dcell:n=2,k=2 --openings none 0.5:0.15 0.5:0.3 1:0.15 1:0.3 2:0.15 --samples 160

A diagnosis, not a selection: an opening becomes rl-sample's default only by the rule of docs/rl.md
("An opening temperature"), on the training instances (bench_temperature.py).
"""

from __future__ import annotations

import argparse
import collections
import time

import numpy as np

from core import argtypes as at
from core.methods import run_method
from core.rl.checkpoint import load_checkpoint
from core.rl.features import Observer
from core.rl.policy import use_torch_threads
from core.rl.rollout import play
from core.schedule import ScheduleConfig, opening_rounds
from core.topology import make_topology
from core.workloads import build_dag
from _common import add_checkpoint_option, finish  # benchmarks/_common.py, beside this script

FRACTIONS = (0.0, 0.2, 0.4, 0.6, 0.8)
RESAMPLES = 4


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("topology", nargs="?", default="dcell:n=2,k=2", help="topology spec (default %(default)s)")
    ap.add_argument("--prefix", type=at.int_in(0, 10_000), default=0, metavar="S",
                    help="resample after a prefix of S sampled rollouts (default 0: skip)")
    ap.add_argument("--openings", nargs="+", type=at.opening, default=[], metavar="T:F",
                    help="candidate openings, each T_open:F or none (default: skip)")
    ap.add_argument("--samples", type=at.int_in(1, 100_000), default=160, help="rollouts per opening (default 160)")
    ap.add_argument("--temperature", type=at.positive(100.0, "a temperature"), default=0.2, help="T after the opening (default 0.2)")
    add_checkpoint_option(ap)
    ap.add_argument("--json", help="also write the rows here")
    args = ap.parse_args()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    topo = make_topology(args.topology)
    dag = build_dag(topo)
    use_torch_threads()
    policy, _ = load_checkpoint(args.checkpoint)
    obs = Observer(dag)
    cp = len(run_method("critical-path", topo, ScheduleConfig()).rounds)
    greedy = play(dag, policy, sample=False, observer=obs).n_rounds
    print(f"{args.topology}: critical-path {cp} rounds, greedy rollout {greedy}, T = {args.temperature:g}")
    rows: list[dict] = []
    if args.prefix:
        better: dict[float, list[int]] = {f: [0, 0] for f in FRACTIONS}
        for s in range(args.prefix):
            base = play(dag, policy, sample=True, rng=np.random.default_rng(np.random.SeedSequence([s, 99])),
                        observer=obs, temperature=args.temperature)
            if base.n_rounds <= cp:
                continue
            for f in FRACTIONS:
                for k in range(RESAMPLES):
                    rng = np.random.default_rng(np.random.SeedSequence([s, k, int(f * 10)]))
                    ep = play(dag, policy, sample=True, rng=rng, observer=obs, temperature=args.temperature,
                              prefix=base.rounds[:int(f * base.n_rounds)])
                    better[f][0] += ep.n_rounds < base.n_rounds
                    better[f][1] += 1
        for f, (won, tried) in better.items():
            print(f"prefix: keep the first {f:.0%} of a rollout above critical-path, resample the rest: "
                  f"better in {won} of {tried}")
            rows.append({"mode": "prefix", "fraction": f, "better": won, "tried": tried})
    for opening in args.openings:
        first = opening_rounds(opening, greedy)
        spread = collections.Counter()
        for k in range(args.samples):
            ep = play(dag, policy, sample=True, rng=np.random.default_rng(np.random.SeedSequence([k, 7])),
                      observer=obs, temperature=args.temperature, opening_rounds=first,
                      opening_temperature=opening[0] if opening else None)
            spread[ep.n_rounds] += 1
        hit = sum(n for r, n in spread.items() if r <= cp)
        name = "none" if opening is None else f"{opening[0]:g}:{opening[1]:g}"
        print(f"opening {name:>9} (first {first} rounds): {hit} of {args.samples} at or below critical-path; "
              f"rounds {dict(sorted(spread.items()))}")
        rows.append({"mode": "opening", "opening": name, "rounds_covered": first, "hits": hit,
                     "samples": args.samples, "spread": dict(sorted(spread.items()))})
    finish(wall0, cpu0, rows, args.json)


if __name__ == "__main__":
    main()
