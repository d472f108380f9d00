"""Save and load RL checkpoints: ``<stem>.safetensors`` (weights) + ``<stem>.json`` (sidecar).

The sidecar records the topology, features version, network shape, hyperparameters, seed,
training time and final rounds. A checkpoint whose features version or shape does not match
this code refuses to load with a message saying what differs.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from safetensors.torch import load_file, save_file

from ..topology import FAMILIES, parse_spec
from .features import FEATURES_VERSION, LOWER_FEATURES, UPPER_FEATURES
from .policy import HierarchicalPolicy, PolicyConfig

FORMAT = "allreduce-lab-rl/1"


class CheckpointError(ValueError):
    """A checkpoint that is missing, unreadable or made for other features/shapes."""


def checkpoint_dir() -> Path:
    """Where shipped checkpoints live (env ALLREDUCE_LAB_CHECKPOINTS overrides)."""
    env = os.environ.get("ALLREDUCE_LAB_CHECKPOINTS")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "checkpoints"


def slug(spec: str) -> str:
    """File-name stem for a topology spec: ``bcube:n=3,k=1`` -> ``bcube_n3_k1``."""
    family, params = parse_spec(spec)
    if family not in FAMILIES:
        raise ValueError(f"no checkpoint name for {spec!r}: give --out")
    fam = FAMILIES[family]
    short = {"switches": "s", "ports": "p", "switch_ports": "r", "seed": "seed"}
    names = fam.required + tuple(fam.optional)
    return "_".join([family] + [f"{short.get(k, k)}{params[k]}" for k in names])


def save_checkpoint(policy: HierarchicalPolicy, stem: str | Path, meta: dict[str, Any]) -> Path:
    """Write weights and sidecar; returns the sidecar path."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    save_file({k: v.detach().contiguous() for k, v in policy.state_dict().items()},
              str(stem.with_suffix(".safetensors")))
    side = {"format": FORMAT, "features_version": FEATURES_VERSION, "lower_features": list(LOWER_FEATURES),
            "upper_features": list(UPPER_FEATURES), "policy": policy.config.as_dict(), **meta}
    path = stem.with_suffix(".json")
    path.write_text(json.dumps(side, indent=2, default=float))
    return path


def load_checkpoint(path: str | Path) -> tuple[HierarchicalPolicy, dict[str, Any]]:
    """Load a checkpoint (either file of the pair, or the stem); raises CheckpointError on mismatch."""
    p = Path(path)
    stem = p.with_suffix("") if p.suffix in (".json", ".safetensors") else p
    side_path, weights = stem.with_suffix(".json"), stem.with_suffix(".safetensors")
    if not side_path.is_file() or not weights.is_file():
        raise CheckpointError(f"checkpoint {stem}: need both {side_path.name} and {weights.name}")
    try:
        meta = json.loads(side_path.read_text())
    except json.JSONDecodeError as err:
        raise CheckpointError(f"checkpoint {side_path}: sidecar is not JSON ({err})") from None
    if meta.get("format") != FORMAT:
        raise CheckpointError(f"checkpoint {side_path}: format must be {FORMAT!r}, got {meta.get('format')!r}")
    if meta.get("features_version") != FEATURES_VERSION:
        raise CheckpointError(f"checkpoint {stem.name}: features version {meta.get('features_version')} does not "
                              f"match this code's version {FEATURES_VERSION}; retrain it")
    if meta.get("lower_features") != list(LOWER_FEATURES) or meta.get("upper_features") != list(UPPER_FEATURES):
        raise CheckpointError(f"checkpoint {stem.name}: its feature lists differ from this code's; retrain it")
    try:
        cfg = PolicyConfig(**meta["policy"])
    except (KeyError, TypeError) as err:
        raise CheckpointError(f"checkpoint {stem.name}: bad policy config ({err})") from None
    policy = HierarchicalPolicy(cfg)
    state = load_file(str(weights))
    want = {k: tuple(v.shape) for k, v in policy.state_dict().items()}
    got = {k: tuple(v.shape) for k, v in state.items()}
    if want != got:
        diff = sorted(set(want.items()) ^ set(got.items()))[:3]
        raise CheckpointError(f"checkpoint {stem.name}: weight shapes do not match the network ({diff})")
    policy.load_state_dict(state)
    policy.eval()
    return policy, meta


UNIVERSAL = "universal"
"""Stem of the universal checkpoint (trained across families, sizes, capacities and chunks)."""


def trained_on(meta: dict[str, Any]) -> list[str]:
    """The topology specs a checkpoint was trained on (its sidecar's `trained_on`, else its `topology`)."""
    specs = meta.get("trained_on")
    if isinstance(specs, list):
        return [str(x) for x in specs]
    return [str(meta["topology"])] if meta.get("topology") else []


def _sidecars(d: Path) -> list[tuple[Path, dict]]:
    out = []
    for f in sorted(d.glob("*.json")):
        try:
            meta = json.loads(f.read_text())
        except (OSError, json.JSONDecodeError, UnicodeDecodeError):
            continue
        if isinstance(meta, dict) and meta.get("format") == FORMAT:
            out.append((f, meta))
    return out


def find_checkpoint(spec: str, directory: Path | None = None) -> Path | None:
    """The checkpoint for a topology spec: one trained on exactly this topology, else the
    universal one (the default on every topology), else None."""
    d = directory or checkpoint_dir()
    if not d.is_dir():
        return None
    sidecars = _sidecars(d)
    for f, meta in sidecars:
        if meta.get("topology") == spec and f.stem != UNIVERSAL:
            return f
    for f, meta in sidecars:
        if f.stem == UNIVERSAL:
            return f
    return None
