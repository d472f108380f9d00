"""`allreduce-lab train`: train the hierarchical RL scheduler (core.rl)."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from tqdm import tqdm

from .. import argtypes as at
from ..argtypes import UsageError
from ..guard import check_schedulable
from ..topology import make_topology, preset, size_of, spec_size
from .common import FORCE_HELP, refuse_existing_checkpoint, wrapped


def register(sub) -> None:
    """Add this module's subcommands to the parser."""
    p = sub.add_parser("train", help="train the hierarchical RL scheduler (Algorithm 1)")
    p.add_argument("spec", nargs="?", help="topology spec to train on")
    p.add_argument("--preset", help="train one checkpoint per configuration of a preset (e.g. table2)")
    p.add_argument("--universal", action="store_true",
                   help="train one policy across families, sizes, capacities and chunks (checkpoints/universal)")
    p.add_argument("--out", help="checkpoint path without suffix (default checkpoints/<name>); with --preset, a folder "
                                 "that gets each configuration's checkpoint under its usual name (created if missing)")
    p.add_argument("--budget", type=at.seconds(10 ** 6), default=None,
                   help="wall-clock seconds per configuration (default 780); training stops after the update that "
                        "crosses it")
    p.add_argument("--hidden", type=at.int_in(1, 1024), default=None,
                   help="width of the hidden layers (default 64; with --init, that checkpoint's, which it must keep)")
    p.add_argument("--train-prior", action="store_true",
                   help="also optimize the lower agent's linear skip path (default: frozen)")
    p.add_argument("--iterations", type=at.int_in(1, 10 ** 7), default=None,
                   help="outer iterations I of Algorithm 1, 6 updates each (default 400: enough that --budget ends a "
                        "Table 2 run); lr, batch, entropy and the updates per iteration are TrainConfig fields "
                        "(docs/rl.md)")
    p.add_argument("--seed", type=at.seed, default=0, help=f"0..{at.SEED_MAX} (default 0)")
    p.add_argument("--force", action="store_true",
                   help=FORCE_HELP + "; and replace a checkpoint that exists where the run writes (default: refuse, "
                                     "writing nothing: checkpoints/<name> holds the shipped ones)")
    p.add_argument("--reward", default="paper", help="reward shaping: paper (eqs. 3-5, default) or rounds")
    p.add_argument("--init", default=None, help="start from this checkpoint instead of fresh weights")
    p.add_argument("--prior", choices=["none", "heuristic"], default=None,
                   help="fresh lower agent: from scratch (none, default) or from the heuristic prior; with --init, "
                        "that checkpoint's, which it must keep")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_train)


def budget_total(planned: int, done: int, elapsed: float, budget: float) -> int:
    """The updates a run will do: `planned` (what its iterations allow), or fewer where the budget, at the pace of the
    `done` updates so far in `elapsed` seconds, ends it first (at least those done, at most `planned`)."""
    if done <= 0 or elapsed <= 0:
        return planned
    return max(done, min(planned, done + int((budget - elapsed) * done / elapsed)))


def cmd_train(a: argparse.Namespace) -> int:
    """Train RL checkpoints (core.rl.recipes) and print what each got."""
    from dataclasses import replace

    from ..rl.recipes import start_policy, train_spec, train_universal
    from ..rl.train import TrainConfig

    if sum(map(bool, (a.spec, a.preset, a.universal))) != 1:
        raise UsageError("train needs exactly one of: a topology spec, --preset NAME, --universal")
    cfg = TrainConfig(seed=a.seed, reward=a.reward, prior=a.prior or "none", train_prior=a.train_prior)
    for name, value in (("budget_s", a.budget), ("iterations", a.iterations), ("hidden", a.hidden)):
        if value is not None:
            cfg = replace(cfg, **{name: value})
    if a.init:  # a run from a checkpoint keeps its network: its width and prior unless given, and the API refuses
        # a given one that differs (trial 30: --hidden 32 was dropped; --prior was, the sidecar recording it), before
        # anything is made
        from ..rl.checkpoint import load_checkpoint
        start = load_checkpoint(a.init)[0].config
        cfg = replace(cfg, hidden=start.hidden if a.hidden is None else a.hidden, prior=a.prior or start.prior)
        start_policy(a.init, cfg)
    folder = _out_folder(a.out) if a.preset and a.out else None
    if a.out and not a.preset:
        try:
            at.out_stem(a.out)
        except argparse.ArgumentTypeError as err:
            raise UsageError(f"--out: {err}") from None
    command = "allreduce-lab train " + " ".join(sys.argv[2:]) if sys.argv[1:2] == ["train"] else ""
    jobs = ([("universal", None)] if a.universal else
            [(p.spec, p.spec) for p in preset(a.preset)] if a.preset else [(a.spec, a.spec)])
    for _, spec in jobs:  # the size guard, before anything is built
        if spec is not None:
            size = spec_size(spec)
            check_schedulable(size if size else size_of(make_topology(spec, force=a.force)), "tree", 1, force=a.force)
    from ..rl.recipes import checkpoint_out, partial_log
    outs = {spec: checkpoint_out(spec, None if folder else a.out, a.force, folder) for _, spec in jobs}
    for stem in outs.values():  # before any training: a spec's default --out may be a shipped checkpoint (trial 25)
        refuse_existing_checkpoint(stem, a.force, "train")
    if folder is not None:
        folder.mkdir(exist_ok=True)
    for label, spec in jobs:
        # the total is what the iterations allow; the budget may end the run sooner, so the bar names it
        bar = tqdm(desc=f"train {label} (budget {cfg.budget_s:g} s)", total=cfg.planned_updates,
                   disable=True if a.quiet else None, leave=False, unit="update")

        done = []  # the updates done (the bar counts nothing with --quiet)
        started = time.perf_counter()

        def report(row: dict) -> None:
            done.append(1)
            # the total follows whichever limit ends the run first, so the bar's percent and time left do too (trial
            # 31: 0% and "3:01:50" left of a 5 s budget)
            bar.total = budget_total(cfg.planned_updates, len(done), time.perf_counter() - started, cfg.budget_s)
            bar.update(1)
            bar.set_postfix_str(f"{row['instance']} mean {row['mean_rounds']:.1f} lb {row['lower_bound']}")

        try:
            with _sigterm_interrupts():
                if spec is None:
                    side, res = train_universal(cfg, outs[spec], a.init, report, command)
                else:
                    side, res = train_spec(spec, cfg, outs[spec], a.init, report, command)
        except KeyboardInterrupt:
            bar.close()
            kept = partial_log(outs[spec])
            what = (f"kept the log of its {len(done)} updates in {kept}" if done and kept.is_file()
                    else "no update had finished, nothing kept")
            print(f"allreduce-lab: interrupted training {label}: {what}; no checkpoint written for it", file=sys.stderr)
            return 130
        bar.close()
        ended = ("" if len(res.log) >= cfg.planned_updates else f" (the {cfg.budget_s:g} s budget ended it)"
                 if res.seconds > cfg.budget_s else " (greedy decoding met every lower bound: it is optimal)")
        print(wrapped(f"{label}: {len(res.log)} of {cfg.planned_updates} updates{ended} in {res.seconds:.0f} s wall, "
                      f"{res.cpu_seconds:.0f} s CPU -> {side}"))
        for name, g, s_, c, lb in zip(_instance_names(side), res.greedy_rounds, res.sample_rounds,
                                      res.critical_path_rounds, res.lower_bounds):
            print(f"  {name}: rl {g}, rl-sample {s_} (critical-path {c}, lower bound {lb})", flush=True)
    return 0


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt while training (as Ctrl-C does), so the run says what it kept."""
    def interrupt(signum, frame) -> None:
        raise KeyboardInterrupt

    try:
        before, installed = signal.signal(signal.SIGTERM, interrupt), True
    except ValueError:  # not the main thread: leave SIGTERM as it is
        before, installed = None, False
    try:
        yield
    finally:
        if installed:
            signal.signal(signal.SIGTERM, before)


def _out_folder(text: str) -> Path:
    """--out with --preset: a writable folder, or a new one in a writable folder (made once nothing is refused)."""
    folder = Path(text)
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--out: {text} is a file; with --preset, --out is a folder that gets one "
                         f"checkpoint per configuration")
    try:
        at.writable_folder(folder if folder.is_dir() else folder.parent, "--out")
    except argparse.ArgumentTypeError as err:
        raise UsageError(str(err)) from None
    return folder


def _instance_names(side) -> list[str]:
    """Instance names in a checkpoint sidecar's `final` records."""
    meta = json.loads(open(side).read())
    final = meta["final"] if isinstance(meta["final"], list) else [meta["final"]]
    return [f.get("instance", meta.get("topology")) for f in final]
