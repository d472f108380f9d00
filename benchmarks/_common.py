"""What several benchmarks share (not a benchmark: tests/core/test_benchmark_help.py reads it with them)."""

from __future__ import annotations

import argparse

from core.rl.checkpoint import UNIVERSAL, checkpoint_dir, shown_path


def add_checkpoint_option(ap: argparse.ArgumentParser) -> None:
    """--checkpoint, by default the shipped universal checkpoint: an absolute path, so that it works from any
    directory, which --help shows relative to the repository (``<repository>/checkpoints/universal``)."""
    shipped = checkpoint_dir() / UNIVERSAL
    ap.add_argument("--checkpoint", default=str(shipped),
                    help=f"policy checkpoint (path without suffix) (default {shown_path(shipped)})")
