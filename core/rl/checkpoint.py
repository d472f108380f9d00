"""Save and load RL checkpoints: ``<stem>.safetensors`` (weights) + ``<stem>.json`` (sidecar).

The sidecar records the topology, features version, network shape, hyperparameters, seed,
training time and final rounds. A checkpoint whose features version or shape does not match
this code refuses to load with a message saying what differs; the lower agent's features are read by
name (the sidecar's `lower_features`), so a checkpoint made before a feature was added still loads
and reads the features it was trained with.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file, save

from ..atomic import write_atomic
from ..topology import FAMILIES, parse_spec
from ..topology.links import without_link_options
from .features import DYNAMIC_FEATURES, FEATURES_VERSION, LOWER_FEATURES, UPPER_FEATURES, lower_columns
from .pair import _REPOSITORY, checkpoint_dir, checkpoint_stem, need_both, pair_file
from .policy import PRIORS, HierarchicalPolicy, PolicyConfig

FORMAT = "allreduce-lab-rl/1"
MAX_HIDDEN = 1024
"""Widest hidden layer a checkpoint may ask for (the shipped ones use 64)."""
MAX_SIDECAR_BYTES = 1_000_000
MAX_HEADER_BYTES = 1_000_000


class CheckpointError(ValueError):
    """A checkpoint that is missing, unreadable or made for other features/shapes."""


class CutShortError(CheckpointError):
    """A weights file whose header names data past its end: the file was cut short (`check_weights_header`)."""


def shown_path(path: str | Path) -> str:
    """A path as --help shows a default: ``<repository>/checkpoints/universal`` for one inside the repository (not
    this machine's absolute path; the default itself stays absolute, so it works from any directory), else as given."""
    try:
        return f"<repository>/{Path(path).resolve().relative_to(_REPOSITORY).as_posix()}"
    except ValueError:
        return str(path)


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
    write_atomic(pair_file(stem, ".safetensors"),
                 save({k: v.detach().contiguous() for k, v in policy.state_dict().items()}))
    side = {"format": FORMAT, "features_version": FEATURES_VERSION, "lower_features": list(policy.lower_features),
            "upper_features": list(UPPER_FEATURES), "policy": policy.config.as_dict(), **meta}
    path = pair_file(stem, ".json")
    write_atomic(path, json.dumps(side, indent=2, default=float).encode())
    return path


PAIR = "a checkpoint is X.json + X.safetensors (give X or either file)"


def not_a_checkpoint(path: str | Path) -> str | None:
    """Why `path`, whose checkpoint pair was not found, is no checkpoint at all, in one line: a directory, or a file
    of another kind (its name ended in .csv: "need both NAME.csv.json and ..." read as if a checkpoint were missing,
    trial 12); None when it may name a checkpoint that is missing."""
    p = Path(path)
    if p.is_dir():  # as given: checkpoints/topdrl is no folder one names (`--checkpoint topdrl` has its own hint)
        return f"checkpoint {path}: a directory, not a checkpoint file: {PAIR}"
    for q in (p,) if p.is_absolute() else (p, checkpoint_dir() / p):  # a relative name may be a shipped file's
        if q.is_file() and q.suffix not in (".json", ".safetensors"):
            return f"checkpoint {path}: not a checkpoint file: {PAIR}"
    return None


def checkpoint_name(stem: str | Path) -> str:
    """A checkpoint's stem as files and `info` record it: relative to `checkpoint_dir` when it lies there
    (``universal``: what --checkpoint accepts, the same from any checkout), else absolute."""
    full = Path(stem).resolve()
    try:
        return full.relative_to(checkpoint_dir().resolve()).as_posix()
    except ValueError:
        return str(full)


def load_checkpoint(path: str | Path) -> tuple[HierarchicalPolicy, dict[str, Any]]:
    """Load a checkpoint (either file of the pair, or the stem); raises CheckpointError on mismatch.

    Every sidecar field's type and range, and every weight's dtype, shape and byte range in
    the safetensors header, are checked before the network is built or a tensor is read.
    """
    stem = checkpoint_stem(path)
    side_path, weights = pair_file(stem, ".json"), pair_file(stem, ".safetensors")
    if not side_path.is_file() or not weights.is_file():
        if (why := not_a_checkpoint(path)) is not None:
            raise CheckpointError(why)
        where = f" (looked in the working folder and in {checkpoint_dir()})" if not stem.is_absolute() else ""
        if not Path(path).is_absolute() and (checkpoint_dir() / "topdrl" / side_path.name).is_file():
            where += f"; checkpoints/topdrl/{stem.name} is TopDRL's job picker, for cluster --scheduler topdrl"
        raise CheckpointError(f"checkpoint {stem}: {need_both(side_path, weights)}{where}")
    meta = _read_json(side_path, MAX_SIDECAR_BYTES, "sidecar")
    if not isinstance(meta, dict):
        raise CheckpointError(f"checkpoint {side_path}: the sidecar must be a JSON object, got {type(meta).__name__}")
    if meta.get("format") != FORMAT:
        hint = ("; it is TopDRL's job picker (for cluster --scheduler topdrl), not a round-model RL checkpoint"
                if str(meta.get("format", "")).startswith("allreduce-lab-topdrl") else "")
        raise CheckpointError(f"checkpoint {side_path}: format must be {FORMAT!r}, got {_show(meta.get('format'))}"
                              + hint)
    if meta.get("features_version") != FEATURES_VERSION:
        raise CheckpointError(f"checkpoint {stem.name}: features version {_show(meta.get('features_version'))} does "
                              f"not match this code's version {FEATURES_VERSION}; retrain it")
    lower = sidecar_lower_features(meta.get("lower_features"), stem.name)
    if meta.get("upper_features") != list(UPPER_FEATURES):
        raise CheckpointError(f"checkpoint {stem.name}: its upper_features differ from this code's; retrain it")
    cfg = policy_config(meta.get("policy"), stem.name, lower)
    with torch.device("meta"):  # shapes only: nothing is allocated
        want = {k: list(v.shape) for k, v in HierarchicalPolicy(cfg).state_dict().items()}
    check_weights_header(weights, want, stem.name)
    policy = HierarchicalPolicy(cfg)
    try:
        state = load_file(str(weights))
    except Exception as err:  # noqa: BLE001 - safetensors' own errors become one line
        raise CheckpointError(f"checkpoint {weights}: unreadable weights ({type(err).__name__}: "
                              f"{str(err).splitlines()[0][:120] if str(err) else ''})") from None
    bad = [k for k, v in state.items() if not bool(torch.isfinite(v).all())]
    if bad:
        raise CheckpointError(f"checkpoint {stem.name}: weight {bad[0]} holds NaN or infinite values")
    policy.load_state_dict(state)
    policy.eval()
    return policy, meta


def _show(x: Any, limit: int = 40) -> str:
    text = repr(x)
    return text if len(text) <= limit else text[:limit] + "..."


def _read_json(path: Path, limit: int, what: str) -> Any:
    """A small JSON file, refused above `limit` bytes, deeply nested or malformed."""
    if path.stat().st_size > limit:
        raise CheckpointError(f"checkpoint {path}: the {what} is {path.stat().st_size} bytes; the limit is {limit}")
    try:
        return json.loads(path.read_bytes())
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise CheckpointError(f"checkpoint {path}: {what} is not JSON ({err})") from None
    except RecursionError:
        raise CheckpointError(f"checkpoint {path}: {what} is nested too deeply") from None


def sidecar_lower_features(raw: Any, name: str) -> tuple[str, ...]:
    """The sidecar's `lower_features`: a list of distinct names of this code's `LOWER_FEATURES`, in the order
    the policy reads them (a checkpoint made before a feature was added lists fewer)."""
    if not isinstance(raw, list) or not raw or not all(isinstance(x, str) for x in raw):
        raise CheckpointError(f"checkpoint {name}: lower_features must be a non-empty list of feature names, "
                              f"got {_show(raw)}")
    try:
        lower_columns(raw)  # the one rule: every name known, none twice
    except ValueError as e:
        raise CheckpointError(f"checkpoint {name}: {e}") from None
    return tuple(raw)


def policy_config(raw: Any, name: str, lower_features: Sequence[str] = LOWER_FEATURES) -> PolicyConfig:
    """The sidecar's ``policy`` object as a PolicyConfig reading `lower_features` (the sidecar's list), every
    field's type and range checked."""
    if not isinstance(raw, dict):
        raise CheckpointError(f"checkpoint {name}: 'policy' must be a JSON object, got {_show(raw)}")
    known = {f.name for f in fields(PolicyConfig)} - {"lower_features"}  # listed at the sidecar's top level
    extra = sorted(set(raw) - known)
    if extra:
        raise CheckpointError(f"checkpoint {name}: unknown policy field {_show(extra[0])}; known: {', '.join(sorted(known))}")

    def number(key: str, lo: float, hi: float, integer: bool = False) -> None:
        if key not in raw:
            return
        x = raw[key]
        ok = type(x) is int if integer else (type(x) in (int, float) and math.isfinite(x))
        if not ok or not lo <= x <= hi:
            kind = "an integer" if integer else "a number"
            raise CheckpointError(f"checkpoint {name}: policy {key} must be {kind} in {lo}..{hi}, got {_show(x)}")

    number("hidden", 1, MAX_HIDDEN, integer=True)
    number("upper_bias", -100.0, 100.0)
    number("prior_scale", -1000.0, 1000.0)
    for key, value in (("features_version", FEATURES_VERSION), ("n_lower", len(lower_features)),
                       ("n_dynamic", len(DYNAMIC_FEATURES)), ("n_upper", len(UPPER_FEATURES))):
        if key in raw and (type(raw[key]) is not int or raw[key] != value):
            raise CheckpointError(f"checkpoint {name}: policy {key} must be {value} (this code's features), "
                                  f"got {_show(raw[key])}")
    if "prior" in raw and raw["prior"] not in PRIORS:
        raise CheckpointError(f"checkpoint {name}: policy prior must be one of {', '.join(PRIORS)}, got {_show(raw['prior'])}")
    cfg = {**raw, "lower_features": tuple(lower_features)}
    cfg.setdefault("n_lower", len(lower_features))
    return PolicyConfig(**cfg)


def check_weights_header(path: Path, want: dict[str, list[int]], name: str) -> None:
    """Check the safetensors header (8-byte length, JSON) against the shapes the network needs."""
    size = path.stat().st_size
    with open(path, "rb") as f:
        head = f.read(8)
        n = int.from_bytes(head, "little") if len(head) == 8 else -1
        if not 2 <= n <= min(MAX_HEADER_BYTES, size - 8):
            raise CheckpointError(f"checkpoint {path}: not a safetensors file (header length {n}, file {size} bytes)")
        raw = f.read(n)
    try:
        header = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise CheckpointError(f"checkpoint {path}: not a safetensors file (its header is not JSON)") from None
    if not isinstance(header, dict):
        raise CheckpointError(f"checkpoint {path}: not a safetensors file (its header is not a JSON object)")
    header.pop("__metadata__", None)
    if set(header) != set(want):
        diff = sorted(set(header) ^ set(want))[:3]
        raise CheckpointError(f"checkpoint {name}: its weights do not match the network (names differ: {diff})")
    data = size - 8 - n
    for key, shape in want.items():
        info = header[key]
        ok = isinstance(info, dict) and info.get("dtype") == "F32" and info.get("shape") == shape
        offs = info.get("data_offsets") if isinstance(info, dict) else None
        if ok:
            ok = (isinstance(offs, list) and len(offs) == 2 and all(type(o) is int for o in offs)
                  and 0 <= offs[0] <= offs[1] and offs[1] - offs[0] == 4 * math.prod(shape))
            if ok and offs[1] > data:  # a well-formed entry whose bytes are missing: the file was cut short
                raise CutShortError(f"checkpoint {path}: weight {key}'s data (bytes {offs[0]}..{offs[1]} after the "
                                      f"header) lies past the end of the file ({size} bytes, {data} after the "
                                      f"header): truncated?")
        if not ok:
            raise CheckpointError(f"checkpoint {name}: weight {key} must be F32 of shape {shape} inside the file, "
                                  f"got {_show(info, 80)}")


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
            meta = _read_json(f, MAX_SIDECAR_BYTES, "sidecar")
        except (OSError, CheckpointError):
            continue
        if isinstance(meta, dict) and meta.get("format") == FORMAT:
            out.append((f, meta))
    return out


def round_spec(spec: str) -> str:
    """`spec` without its link speeds (bw=, lat=, link_seed=; `core.topology.links.without_link_options`): rounds,
    and every feature the agents see, do not depend on them, so a checkpoint trained on the topology serves it at any
    speed."""
    return without_link_options(spec)


TRAINING_DAG = {"merge": True, "routing": "shortest"}
"""What every training run schedules (`recipes.train_spec`, `instances.Instance.dag`): the merged DAG on
shortest routes; only the chunks vary, per instance (a single-topology run uses 1)."""


def training_fit(meta: dict[str, Any], spec: str, *, merge: bool, chunks: int, routing: str,
                 intact: bool = True) -> dict[str, Any]:
    """Whether a checkpoint was trained on this topology and on this DAG's options, as `Schedule.info` fields:
    `trained_on_this_topology` (link speeds aside; never with failed links, `intact` False),
    `trained_on_this_configuration` (also the same merge, chunks and routing), `trained_with` (the options
    trained with on this topology; None when not trained on it) and `run_with` (this run's)."""
    here = round_spec(spec)
    topo = intact and here in {round_spec(x) for x in trained_on(meta)}
    run_with = {"merge": bool(merge), "chunks": int(chunks), "routing": str(routing)}
    trained_with = None
    if topo:
        insts = meta.get("instances")  # the universal sidecar lists each instance with its chunks
        got = sorted({x.get("chunks", 1) for x in insts if isinstance(x, dict) and type(x.get("chunks", 1)) is int
                      and round_spec(str(x.get("topology"))) == here}) if isinstance(insts, list) else []
        trained_with = {**TRAINING_DAG, "chunks": got or [1]}
    same = (trained_with is not None and run_with["chunks"] in trained_with["chunks"]
            and all(run_with[k] == v for k, v in TRAINING_DAG.items()))
    return {"trained_on_this_topology": bool(topo), "trained_on_this_configuration": same,
            "trained_with": trained_with, "run_with": run_with}


def checkpoint_names(directory: Path | None = None) -> list[str]:
    """The RL checkpoints in `directory` (default `checkpoint_dir`) by the names --checkpoint takes (their stems):
    universal first, then the others by name (the per-topology ones shipped, and any trained into the folder); a
    JSON file that is not an RL sidecar is none."""
    d = directory or checkpoint_dir()
    if not d.is_dir():
        return []
    return sorted((f.stem for f, _ in _sidecars(d)), key=lambda n: (n != UNIVERSAL, n))


def find_checkpoint(spec: str, directory: Path | None = None) -> Path | None:
    """The checkpoint for a topology spec: one trained on exactly this topology (link speeds
    aside: `round_spec`), else the universal one (the default on every topology), else None."""
    d = directory or checkpoint_dir()
    if not d.is_dir():
        return None
    sidecars = _sidecars(d)
    for f, meta in sidecars:
        if f.stem != UNIVERSAL and meta.get("topology") is not None and round_spec(str(meta["topology"])) == round_spec(spec):
            return f
    for f, meta in sidecars:
        if f.stem == UNIVERSAL:
            return f
    return None
