"""SHA-256 of every round of the list schedulers on a fixed set of cases, to show that a change to the
scheduler's code keeps the rounds identical (docs/scale.md).

The 40 cases: PS and greedy with seeds 0-2, critical-path and ring, on BCube(8,2), BCube(10,2),
DCell(4,2), fat-tree k=8 and a jellyfish. Each case runs through the method registry (`run_method`:
DAG, schedule, check) with the code of the checkout this script lives in, and prints one line:
method, seed, spec, rounds, and the SHA-256 over every round's ascending int64 ids, each round
preceded by its length. Run it with ``NUMBA_NUM_THREADS=1`` and ``2`` and on both sides of a change,
and compare the outputs (``--compare``).

    python benchmarks/round_hashes.py --out /tmp/after.txt
    NUMBA_NUM_THREADS=1 python benchmarks/round_hashes.py --compare /tmp/after.txt
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's code, not an installed copy

import numpy as np  # noqa: E402

from core.methods import run_method  # noqa: E402
from core.schedule import ScheduleConfig  # noqa: E402
from core.topology import make_topology  # noqa: E402

SPECS = ["bcube:n=8,k=2", "bcube:n=10,k=2", "dcell:n=4,k=2", "fattree:k=8",
         "jellyfish:switches=100,ports=8,switch_ports=4,seed=0"]
CASES = [("ps", s) for s in range(3)] + [("greedy", s) for s in range(3)] + [("critical-path", 0), ("ring", 0)]


def rounds_digest(rounds: list[np.ndarray]) -> str:
    """SHA-256 over every round's ascending int64 ids, each preceded by its length."""
    h = hashlib.sha256()
    for r in rounds:
        ids = np.sort(np.asarray(r, dtype=np.int64))
        h.update(np.int64(len(ids)).tobytes())
        h.update(ids.tobytes())
    return h.hexdigest()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    p.add_argument("--specs", nargs="+", default=SPECS, help=f"topology specs (default: {' '.join(SPECS)})")
    p.add_argument("--out", help="also write the lines to this file (default: stdout only)")
    p.add_argument("--compare", help="a file written by --out: exit 1 naming every line that differs "
                                     "(default: no comparison)")
    args = p.parse_args(argv)
    lines = []
    for spec in args.specs:
        topo = make_topology(spec)
        for method, seed in CASES:
            t = time.perf_counter()
            sched = run_method(method, topo, ScheduleConfig(seed=seed))
            line = f"{method} seed={seed} {spec} rounds={sched.n_rounds} {rounds_digest(sched.rounds)}"
            print(f"{line}  ({time.perf_counter() - t:.1f} s)", flush=True)
            lines.append(line)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")
    if args.compare:
        want = Path(args.compare).read_text().splitlines()
        diff = [f"{a}  !=  {b}" for a, b in zip(lines, want) if a != b]
        if len(want) != len(lines):
            diff.append(f"{len(lines)} cases here, {len(want)} in {args.compare}")
        for d in diff:
            print("DIFFERS:", d)
        print(f"{len(lines) - len(diff)} of {len(lines)} cases identical to {args.compare}")
        return 1 if diff else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
