"""Generalization: checkpoints trained on one topology, evaluated on others.

Rows are evaluation topologies: the nine Table 2 configurations plus topologies no
checkpoint was trained on (two-level BCube and DCell, fat-trees). Columns are the
checkpoints of the small configuration of each family (BCube(3,1), DCell(4,1),
Jellyfish(10)) and, where one exists, the checkpoint trained on that very topology.
Cells are `rl-sample` rounds (best of greedy + K sampled rollouts); critical-path and the
lower bound of the merged DAG are printed beside them.

    python benchmarks/bench_generalization.py            # K = 16
    python benchmarks/bench_generalization.py --samples 4 --quick
"""

from __future__ import annotations

import argparse
import json
import time

from core.bounds import lower_bounds
from core.rl.checkpoint import checkpoint_dir, find_checkpoint, slug
from core.methods import run_method
from core.schedule import ScheduleConfig
from core.workloads import build_dag
from core.topology import make_topology, preset

SOURCES = {"BCube(3,1)": "bcube:n=3,k=1", "DCell(4,1)": "dcell:n=4,k=1",
           "JF(10)": "jellyfish:switches=10,ports=5,switch_ports=4,seed=0"}
EXTRA = ["bcube:n=3,k=2", "bcube:n=4,k=2", "dcell:n=2,k=2", "fattree:k=4", "fattree:k=6"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--quick", action="store_true", help="skip the extra (larger) topologies")
    ap.add_argument("--json", help="also write the table here")
    a = ap.parse_args()
    sources = {name: checkpoint_dir() / f"{slug(spec)}.json" for name, spec in SOURCES.items()}
    missing = [n for n, p in sources.items() if not p.is_file()]
    if missing:
        raise SystemExit(f"missing checkpoints for {', '.join(missing)}: train them first (README)")
    targets = [(p.name, p.spec) for p in preset("table2")] + ([] if a.quick else [(s, s) for s in EXTRA])
    print(f"{'evaluated on':22} {'CP':>5} {'LB':>5} " + " ".join(f"{n:>11}" for n in sources) + f" {'own':>6}")
    rows = []
    for name, spec in targets:
        topo = make_topology(spec)
        dag = build_dag(topo, "tree")
        cp = run_method("critical-path", topo).n_rounds
        lb = lower_bounds(dag).best
        cells = {}
        for src, ck in sources.items():
            t0 = time.perf_counter()
            cells[src] = run_method("rl-sample", topo, ScheduleConfig(checkpoint=str(ck), samples=a.samples)).n_rounds
            cells[src + " s"] = round(time.perf_counter() - t0, 2)
        own = find_checkpoint(topo.spec)
        own_meta = json.loads(own.read_text()) if own else None
        own_rounds = (run_method("rl-sample", topo, ScheduleConfig(checkpoint=str(own), samples=a.samples)).n_rounds
                      if own and own_meta.get("topology") == topo.spec else None)
        rows.append({"topology": name, "spec": spec, "critical_path": cp, "lower_bound": lb, **cells, "own": own_rounds})
        print(f"{name:22} {cp:5d} {lb:5d} " + " ".join(f"{cells[s]:11d}" for s in sources)
              + f" {own_rounds if own_rounds is not None else '-':>6}", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
