"""The files of one checkpoint, named from its stem: ``<stem>.safetensors``, ``<stem>.json`` (+ ``<stem>.log.csv``).

A stem may hold dots (``my.model``), so a file's name is the stem's name plus the suffix, never
``Path.with_suffix`` (which cut ``my.model`` to ``my`` and wrote ``my.json``, trial 13). No torch here:
the CLI's argument checks use it.
"""

from __future__ import annotations

from pathlib import Path

PAIR_SUFFIXES = (".json", ".safetensors")
"""The suffixes of a checkpoint's two files (the sidecar, the weights)."""


def pair_file(stem: str | Path, suffix: str) -> Path:
    """The file `suffix` (``.json``, ``.safetensors``, ``.log.csv``) of the checkpoint `stem`: ``my.model`` ->
    ``my.model.json``."""
    stem = Path(stem)
    return stem.with_name(stem.name + suffix)


def pair_stem(path: str | Path) -> Path:
    """`path` without the suffix of a checkpoint file (``my.model.json`` -> ``my.model``); a stem (``my.model``,
    ``my.model.pt``) as given."""
    p = Path(path)
    for suffix in PAIR_SUFFIXES:
        if p.name.endswith(suffix) and len(p.name) > len(suffix):
            return p.with_name(p.name[:-len(suffix)])
    return p
