"""Shared by the rl-sample tests (seeds, temperature, opening): a small checkpoint with random lower-agent weights,
and a benchmark script loaded as a module."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import torch

from core.rl.checkpoint import save_checkpoint
from core.rl.features import LOWER_FEATURES
from core.rl.policy import HierarchicalPolicy, PolicyConfig

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
JF10 = "jellyfish:switches=10,ports=5,switch_ports=4,seed=0"


def noisy_checkpoint(tmp_path: Path) -> str:
    """Write a Jellyfish(10) checkpoint whose lower agent has random weights (rollouts that differ with seed and
    temperature) to ``tmp_path / "r"`` and return that stem. It reads the first twelve lower features, so its
    random weights are those drawn before `unlock_starving` was added (the rollouts' spread depends on the draw)."""
    torch.manual_seed(3)
    pol = HierarchicalPolicy(PolicyConfig(hidden=8, prior="heuristic", lower_features=LOWER_FEATURES[:12], n_lower=12))
    for p in pol.lower.parameters():
        torch.nn.init.normal_(p, std=0.5)
    save_checkpoint(pol, tmp_path / "r", {"topology": JF10})
    return str(tmp_path / "r")


def bench_module(name: str) -> ModuleType:
    """A benchmark script as a module (benchmarks/ is not a package; its scripts import _common beside them)."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCHMARKS))
