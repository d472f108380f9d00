"""The files of one checkpoint, named from its stem: ``<stem>.safetensors``, ``<stem>.json`` (+ ``<stem>.log.csv``);
where a name given to --checkpoint finds them; and their version, which changes when they are rewritten.

A stem may hold dots (``my.model``), so a file's name is the stem's name plus the suffix, never
``Path.with_suffix`` (which cut ``my.model`` to ``my`` and wrote ``my.json``, trial 13). No torch here:
the CLI's argument checks and the dashboard's cache keys use it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

_REPOSITORY = Path(__file__).resolve().parents[2]

PAIR_SUFFIXES = (".json", ".safetensors")
"""The suffixes of a checkpoint's two files (the sidecar, the weights)."""


def pair_file(stem: str | Path, suffix: str) -> Path:
    """The file `suffix` (``.json``, ``.safetensors``, ``.log.csv``) of the checkpoint `stem`: ``my.model`` ->
    ``my.model.json``."""
    stem = Path(stem)
    return stem.with_name(stem.name + suffix)


def need_both(side: Path, weights: Path) -> str:
    """The refusal's words for a missing pair: ``need both A and B`` and which of them is missing."""
    missing = [f.name for f in (side, weights) if not f.is_file()]
    which = "neither exists" if len(missing) == 2 else f"{missing[0]} is missing" if missing else "both exist"
    return f"need both {side.name} and {weights.name} ({which})"


def pair_stem(path: str | Path) -> Path:
    """`path` without the suffix of a checkpoint file (``my.model.json`` -> ``my.model``); a stem (``my.model``,
    ``my.model.pt``) as given."""
    p = Path(path)
    for suffix in PAIR_SUFFIXES:
        if p.name.endswith(suffix) and len(p.name) > len(suffix):
            return p.with_name(p.name[:-len(suffix)])
    return p


def checkpoint_dir() -> Path:
    """Where shipped checkpoints live (env ALLREDUCE_LAB_CHECKPOINTS overrides)."""
    env = os.environ.get("ALLREDUCE_LAB_CHECKPOINTS")
    return Path(env) if env else _REPOSITORY / "checkpoints"


def checkpoint_stem(path: str | Path, folders: Sequence[Path] | None = None) -> Path:
    """A checkpoint's path without suffix, from either file of the pair or the stem; a relative one
    (``universal``) that is not in the working folder names one in the first of `folders` that has it
    (default `checkpoint_dir`: a shipped one)."""
    stem = pair_stem(path)
    if not stem.is_absolute() and not pair_file(stem, ".json").is_file():
        for folder in (checkpoint_dir(),) if folders is None else folders:
            if pair_file(folder / stem, ".json").is_file():
                return folder / stem
    return stem


def _stat(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def checkpoint_version(name: str | Path | None) -> tuple:
    """What changes when the checkpoint an RL run would load is rewritten (retrained under the same name): the
    (inode, size, mtime_ns) of both files of `name`'s pair; for None (core picks per topology: the one trained on
    it, else universal) of every checkpoint file in `checkpoint_dir`, so a checkpoint trained into the folder
    counts too. An atomic rewrite (core.atomic) always gives a file a new inode, even within one clock tick."""
    if name is not None:
        stem = checkpoint_stem(name)
        return (str(stem),) + tuple(_stat(pair_file(stem, suffix)) for suffix in PAIR_SUFFIXES)
    try:
        with os.scandir(checkpoint_dir()) as it:
            return tuple(sorted((e.name, e.inode(), st.st_size, st.st_mtime_ns) for e in it
                                if e.name.endswith(PAIR_SUFFIXES) and (st := e.stat())))
    except OSError:  # no folder, or a file gone between the listing and its stat
        return ()
