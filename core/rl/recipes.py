"""What `allreduce-lab train` trains and writes: one topology, or the universal set.

Each run writes ``<stem>.safetensors`` + ``<stem>.json`` (the sidecar: the command, seed,
hyperparameters, whether the skip path was trained, wall and CPU seconds, the load average
at start and end, the updates done and the final rounds against critical-path and the lower
bound) + ``<stem>.log.csv`` (one row per update; written row by row to ``<stem>.log.csv.partial`` while it trains,
which an interrupted run keeps).
"""

from __future__ import annotations

import csv
import os
import time
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Callable, Iterator

from ..topology import make_topology, parse_spec
from ..workloads import build_dag
from .checkpoint import UNIVERSAL, checkpoint_dir, load_checkpoint, save_checkpoint, slug
from .instances import UNIVERSAL_TRAINING
from .pair import pair_file, pair_stem
from .policy import HierarchicalPolicy
from .train import TrainConfig, TrainResult, train


def _machine() -> dict:
    return {"cpus": os.cpu_count(), "load_average": [round(x, 2) for x in os.getloadavg()], "time": time.time()}


def _skip_path(cfg: TrainConfig) -> str:
    what = "the heuristic prior" if cfg.prior == "heuristic" else "zeros"
    return f"trained (started from {what})" if cfg.train_prior else f"frozen at {what} (only the MLP learns)"


def _write(res: TrainResult, stem: Path, cfg: TrainConfig, names: list[str], specs: list[str], meta: dict,
           command: str, start: dict) -> Path:
    end = _machine()
    meta = {
        **meta, "trained_on": specs, "train": asdict(cfg), "seed": cfg.seed, "command": command,
        "skip_path": _skip_path(cfg), "training_seconds": round(res.seconds, 1),
        "training_cpu_seconds": round(res.cpu_seconds, 1),
        "machine": {"cpus": start["cpus"], "load_average_start": start["load_average"],
                    "load_average_end": end["load_average"]},
        "updates": len(res.log), "kept_iteration": res.kept_iteration,
        "final": [{"instance": n, "rl": g, "rl_sample": s, "eval_samples": cfg.eval_samples,
                   "best_during_training": b, "critical_path": c, "lower_bound": lb}
                  for n, g, s, b, c, lb in zip(names, res.greedy_rounds, res.sample_rounds, res.best_rounds,
                                              res.critical_path_rounds, res.lower_bounds)],
    }
    if len(names) == 1:
        meta["final"] = meta["final"][0]
    side = save_checkpoint(res.policy, stem, meta)
    with open(pair_file(stem, ".log.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(res.log[0]))
        w.writeheader()
        w.writerows(res.log)
    partial_log(stem).unlink(missing_ok=True)
    return side


def partial_log(stem: str | Path) -> Path:
    """Where a run writes its log row by row while it trains (``<stem>.log.csv.partial``): an interrupted run leaves
    it; a finished one writes ``<stem>.log.csv`` and removes it."""
    return pair_file(stem, ".log.csv.partial")


@contextmanager
def _log_as_it_goes(stem: Path, report: Callable[[dict], None] | None) -> Iterator[Callable[[dict], None]]:
    """A report callback that also appends each row to `partial_log(stem)` (flushed, made at the first row)."""
    f, writer = None, None

    def row(r: dict) -> None:
        nonlocal f, writer
        if f is None:
            f = open(partial_log(stem), "w", newline="")
            writer = csv.DictWriter(f, fieldnames=list(r))
            writer.writeheader()
        writer.writerow(r)
        f.flush()
        if report:
            report(r)

    try:
        yield row
    finally:
        if f is not None:
            f.close()


INIT_KEEPS = {"hidden": "width", "prior": "skip path"}
"""The `TrainConfig` fields a run from a checkpoint (`init`) keeps from it, with what each is: its network is the
checkpoint's, so the config (which the sidecar records) must say the same."""


def start_policy(init: str | None, cfg: TrainConfig) -> HierarchicalPolicy | None:
    """The policy a run starts from (`init`, a checkpoint; None: fresh weights). The one check of a run from a
    checkpoint, for the Python API and `train --init` alike: `cfg`'s width and prior must be the checkpoint's
    (`INIT_KEEPS`), else ValueError (one line, naming the option and the field); nothing is written before it."""
    if not init:
        return None
    policy = load_checkpoint(init)[0]
    for field, what in INIT_KEEPS.items():
        given, kept = getattr(cfg, field), getattr(policy.config, field)
        if given != kept:
            raise ValueError(f"--{field} {given} differs from --init {init}'s {kept}: a run from a checkpoint keeps "
                             f"its {what}; leave --{field} out (in Python, TrainConfig({field}={kept!r}))")
    return policy


def checkpoint_out(spec: str | None, out: str | Path | None = None, force: bool = False,
                   folder: str | Path | None = None) -> Path:
    """The stem a training run writes: `out`, else <folder>/<slug of spec> (spec None: <folder>/universal; folder
    default checkpoints/); `force` builds the spec past the size guard, as the run itself was allowed to."""
    if out:
        return pair_stem(out)
    where = Path(folder) if folder is not None else checkpoint_dir()
    return where / (UNIVERSAL if spec is None else slug(make_topology(spec, force=force).spec))


def train_spec(spec: str, cfg: TrainConfig, out: str | Path | None = None, init: str | None = None,
               report: Callable[[dict], None] | None = None, command: str = "") -> tuple[Path, TrainResult]:
    """Train on one topology spec and write the checkpoint (default checkpoints/<slug>)."""
    start = _machine()
    policy = start_policy(init, cfg)  # refused before anything is built
    topo = make_topology(spec)
    dag = build_dag(topo, "tree")
    stem = checkpoint_out(topo.spec, out)
    with _log_as_it_goes(stem, report) as log_row:
        res = train(dag, cfg, policy, log_row)
    meta = {"topology": topo.spec, "family": parse_spec(topo.spec)[0], "servers": topo.n_servers,
            "workloads": dag.n, "init": init}
    return _write(res, stem, cfg, [topo.spec], [topo.spec], meta, command, start), res


def train_universal(cfg: TrainConfig, out: str | Path | None = None, init: str | None = None,
                    report: Callable[[dict], None] | None = None, command: str = "") -> tuple[Path, TrainResult]:
    """Train one policy across `instances.UNIVERSAL_TRAINING` and write checkpoints/universal."""
    start = _machine()
    policy = start_policy(init, cfg)  # refused before anything is built
    dags = [x.dag() for x in UNIVERSAL_TRAINING]
    stem = checkpoint_out(None, out)
    with _log_as_it_goes(stem, report) as log_row:
        res = train(dags, cfg, policy, log_row)
    meta = {"topology": None, "family": UNIVERSAL, "init": init,
            "instances": [{"name": x.name, "topology": x.topology_spec, "chunks": x.chunks, "servers": d.topology.n_servers,
                           "workloads": d.n} for x, d in zip(UNIVERSAL_TRAINING, dags)]}
    names = [x.name for x in UNIVERSAL_TRAINING]
    specs = sorted({x.topology_spec for x in UNIVERSAL_TRAINING})
    side = _write(res, stem, cfg, names, specs, meta, command, start)
    return side, res
