"""What several benchmarks share (not a benchmark: tests/core/test_benchmark_help.py reads it with them)."""

from __future__ import annotations

import argparse
import json
import os
import time

from core.rl.checkpoint import UNIVERSAL, checkpoint_dir, shown_path


def add_checkpoint_option(ap: argparse.ArgumentParser) -> None:
    """--checkpoint, by default the shipped universal checkpoint: an absolute path, so that it works from any
    directory, which --help shows relative to the repository (``<repository>/checkpoints/universal``)."""
    shipped = checkpoint_dir() / UNIVERSAL
    ap.add_argument("--checkpoint", default=str(shipped),
                    help=f"policy checkpoint (path without suffix) (default {shown_path(shipped)})")


MAX_SEEDS = 1000
"""The most seeds --seeds takes (each one is a whole run of the method)."""


def seed_list(text: str) -> list[int]:
    """--seeds: a range `0-7`, a list `0,1,2` or one seed `3` (mixed: `0-3,9`), each in 0..2^31-1, none twice;
    an argparse ``type=``: bad text raises ArgumentTypeError naming the rule and the value (one line, exit 2)."""
    from core.argtypes import SEED_MAX
    seeds: list[int] = []
    for part in text.split(","):
        lo, sep, hi = part.strip().partition("-")
        if not lo.isdigit() or (sep and not hi.isdigit()) or len(lo) > 10 or len(hi) > 10:
            raise argparse.ArgumentTypeError(f"seeds must be A-B ranges or seeds, comma-separated (0-7 or 0,1,2), "
                                             f"got {text!r}")
        a, b = int(lo), int(hi) if sep else int(lo)
        if not a <= b <= SEED_MAX:
            raise argparse.ArgumentTypeError(f"seeds must be ranges A-B with A <= B <= {SEED_MAX}, got {text!r}")
        if len(seeds) + b - a + 1 > MAX_SEEDS:
            raise argparse.ArgumentTypeError(f"seeds must be at most {MAX_SEEDS} in all, got {text!r}")
        seeds += range(a, b + 1)
    if len(set(seeds)) != len(seeds):
        raise argparse.ArgumentTypeError(f"seeds must not repeat, got {text!r}")
    return seeds


def finish(wall0: float, cpu0: float, rows: list, json_path: str | None) -> None:
    """A benchmark's last line, its wall and CPU seconds since (`wall0`, `cpu0`) (`time.perf_counter`,
    `time.process_time`) and the load average, then its rows written to `json_path` when given (--json)."""
    print(f"wall {time.perf_counter() - wall0:.0f} s, CPU {time.process_time() - cpu0:.0f} s, "
          f"load average {os.getloadavg()[0]:.2f}")
    if json_path:
        with open(json_path, "w") as f:
            json.dump(rows, f, indent=2, default=float)
