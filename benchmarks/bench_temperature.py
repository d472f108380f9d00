"""Sampling temperature of rl-sample, chosen on the universal policy's training instances only.

rl-sample keeps the best of greedy decoding and K sampled rollouts; each sampled step draws a
workload with probability proportional to exp(score / T). This benchmark runs rl-sample (the
method itself) with the universal checkpoint on `core.rl.instances.UNIVERSAL_TRAINING` (never on
the generalization set, so the choice does not peek at the topologies the generalization
benchmark reports) for every candidate of --temperatures and every seed of --seeds (rl-sample's
own seeding, as `schedule --seed S`), and prints per candidate, over the (instance, seed) pairs:
pairs within 5% of the merged-DAG lower bound, pairs no worse than critical-path, and the total
rounds. A candidate is one temperature (`0.5`) or a split (`0.2,1`: the samples spread over the
listed temperatures in turn, rl-sample's `--temperature 0.2,1`), either with an opening after ``@`` (`0.2@1:0.3`:
temperature 0.2 after the first 30% of the rounds drawn at 1, rl-sample's `--temperature 0.2 --opening 1:0.3`;
`0.2@none,0.5:0.3`: a split opening, the even samples without one and the odd ones opening at 0.5, rl-sample's
`--opening none,0.5:0.3`; docs/rl.md). The rule (docs/rl.md section 1,
fixed before the held-out sets were run with any new candidate): most pairs within 5%, then most
no worse than critical-path, then fewest rounds; a tie on all three keeps the current default.

    python benchmarks/bench_temperature.py                      # K = 16, seed 0, T in 0.1 0.2 0.3 0.5 0.7 1.0
    python benchmarks/bench_temperature.py --seeds 0-3 --temperatures 0.1 0.2 0.3 0.5 0.7 1 0.2,1 --json a.json
    python benchmarks/bench_temperature.py --seeds 0-3 --temperatures 0.2 0.2@1:0.3 0.2@2:0.3 --json a.json
    python benchmarks/bench_temperature.py --seeds 0-3 --temperatures 0.2 0.2@none,0.5:0.3 --json a.json
    python benchmarks/bench_temperature.py --combine a.json b.json   # the rule over several runs' rows
"""

from __future__ import annotations

import argparse
import json
import time

from core import argtypes as at
from core.bounds import lower_bounds
from core.methods import run_method
from core.rl.instances import UNIVERSAL_TRAINING
from core.schedule import (DEFAULT_OPENING, DEFAULT_TEMPERATURE, Openings, ScheduleConfig, Temperature, show_opening,
                           show_temperature)
from _common import add_checkpoint_option, finish, seed_list  # benchmarks/_common.py, beside this script


def candidate(text: str) -> tuple[Temperature, Openings]:
    """A candidate: a temperature or split as --temperature takes it, optionally ``@T:F``, an opening as --opening
    takes it (``0.2@1:0.3``, or a split opening ``0.2@none,0.5:0.3``)."""
    t, _, o = text.partition("@")
    return at.temperature(t), (at.opening(o) if o else None)


def label(t: Temperature, opening: Openings) -> str:
    """A candidate as this benchmark prints it and its rows key it: ``0.2``, ``0.2,1``, ``0.2@1:0.3``,
    ``0.2@none,0.5:0.3``."""
    return show_temperature(t) + (f"@{show_opening(opening)}" if opening is not None else "")


def choose(rows: list[dict]) -> tuple[list[str], dict[str, dict], str]:
    """The candidates (in order), per candidate its counts over the (instance, seed) pairs of `rows`
    (one row per instance and seed: critical-path, the merged-DAG bound and each candidate's rounds), and the one
    the rule picks: most within 5% of the bound, then most no worse than critical-path, then fewest rounds, then
    the current default (else the first listed)."""
    cands = list(dict.fromkeys(c for r in rows for c in r["rounds"]))
    stats = {c: {"pairs": 0, "within_5pct": 0, "le_cp": 0, "rounds": 0} for c in cands}
    for r in rows:
        for c, got in r["rounds"].items():
            s = stats[c]
            s["pairs"] += 1
            s["within_5pct"] += got <= 1.05 * r["lower_bound"] + 1e-9
            s["le_cp"] += got <= r["critical_path"]
            s["rounds"] += got
    default = label(DEFAULT_TEMPERATURE, DEFAULT_OPENING)
    chosen = max(cands, key=lambda c: (stats[c]["within_5pct"], stats[c]["le_cp"], -stats[c]["rounds"],
                                       c == default, -cands.index(c)))
    return cands, stats, chosen


def report(rows: list[dict], samples: int | None) -> None:
    """Print each candidate's counts and the chosen one."""
    cands, stats, chosen = choose(rows)
    seeds = sorted({r["seed"] for r in rows})
    print(f"\nover {len({r['instance'] for r in rows})} instances x seeds {','.join(map(str, seeds))}:")
    for c in cands:
        s = stats[c]
        print(f"T={c}: within 5% of the lower bound {s['within_5pct']}/{s['pairs']}, no worse than critical-path "
              f"{s['le_cp']}/{s['pairs']}, total rounds {s['rounds']}")
    print(f"chosen T={chosen}" + (f" (K={samples})" if samples else ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=16, help="rl-sample's samples K per instance (default %(default)s)")
    ap.add_argument("--temperatures", nargs="+", type=candidate, default=[(t, None) for t in (0.1, 0.2, 0.3, 0.5, 0.7, 1.0)],
                    help="the candidates, space-separated; each a temperature or a comma-separated split "
                         "(0.2,1) as rl-sample's --temperature takes it, optionally with @T:F, an opening as "
                         "--opening takes it (0.2@1:0.3, or a split 0.2@none,0.5:0.3) (default 0.1 0.2 0.3 0.5 0.7 1.0, "
                         "no opening)")
    ap.add_argument("--seeds", type=seed_list, default=[0],
                    help="rl-sample's seeds, each a run per instance and candidate (0-7 or 0,1,2) (default 0)")
    ap.add_argument("--json", help="also write the rows (one per instance and seed) here, for --combine")
    ap.add_argument("--combine", nargs="+", metavar="JSON",
                    help="run nothing: apply the rule to the rows of these --json files together (default: run)")
    add_checkpoint_option(ap)
    a = ap.parse_args()
    if a.combine:
        report([r for path in a.combine for r in json.load(open(path))], None)
        return
    cands = [(label(t, o), (t, o)) for t, o in a.temperatures]
    w = max(8, *(len(c) + 2 for c, _ in cands))
    t0, c0 = time.perf_counter(), time.process_time()
    print(f"{'instance':58} {'seed':>4} {'CP':>4} {'LB':>4} " + " ".join(f"{'T=' + c:>{w}}" for c, _ in cands))
    rows = []
    for inst in UNIVERSAL_TRAINING:
        topo = inst.topology()
        cp = run_method("critical-path", topo, ScheduleConfig(chunks=inst.chunks))
        lb = lower_bounds(cp.dag).best
        for seed in a.seeds:
            got = {c: run_method("rl-sample", topo, ScheduleConfig(chunks=inst.chunks, samples=a.samples, seed=seed,
                                                                   temperature=t[0], opening=t[1],
                                                                   checkpoint=a.checkpoint,
                                                                   trace=False)).n_rounds
                   for c, t in cands}
            rows.append({"instance": inst.name, "seed": seed, "critical_path": cp.n_rounds, "lower_bound": lb,
                         "rounds": got})
            print(f"{inst.name:58} {seed:4d} {cp.n_rounds:4d} {lb:4d} " + " ".join(f"{got[c]:{w}d}" for c, _ in cands),
                  flush=True)
    report(rows, a.samples)
    finish(t0, c0, rows, a.json)


if __name__ == "__main__":
    main()
