"""Spec strings: ``family:key=value,...`` -> the family and its integer parameters.

Values are ASCII integers with an optional sign and at most 18 digits (``k=1_0``, Unicode
digits and ``k=1e3`` are refused); a key given twice is an error, not a silent override.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from ..guard import Size
from .bcube import bcube
from .dcell import dcell
from .examples import EXAMPLES
from .fattree import fattree
from .graph import Topology, TopologyError, clip
from .jellyfish import jellyfish
from .leafspine import leafspine
from .links import split_link_options
from .sizes import bcube_size, dcell_size, fattree_size, jellyfish_size, leafspine_size

MAX_DIGITS = 18
_INT = re.compile(r"[+-]?[0-9]{1,%d}" % MAX_DIGITS)
MAX_SPEC_CHARS = 4096


@dataclass(frozen=True)
class Family:
    """A topology family: its builder, its size formulas, required and optional integer parameters."""

    name: str
    build: Callable[..., Topology]
    size: Callable[..., Size]
    required: tuple[str, ...]
    optional: dict[str, int]


FAMILIES: dict[str, Family] = {
    "bcube": Family("bcube", bcube, bcube_size, ("n", "k"), {}),
    "dcell": Family("dcell", dcell, dcell_size, ("n", "k"), {}),
    "jellyfish": Family("jellyfish", jellyfish, jellyfish_size, ("switches", "ports", "switch_ports"), {"seed": 0}),
    "fattree": Family("fattree", fattree, fattree_size, ("k",), {}),
    "leafspine": Family("leafspine", leafspine, leafspine_size, ("leaves", "spines", "servers"), {}),
}
_ALIASES = {"fat-tree": "fattree", "fat_tree": "fattree", "leaf-spine": "leafspine", "leaf_spine": "leafspine"}


def parse_spec(spec: str) -> tuple[str, dict[str, int]]:
    """Split ``"bcube:n=3,k=1"`` into ``("bcube", {"n": 3, "k": 1})``, checking names and values."""
    if not isinstance(spec, str) or not spec.strip():
        raise TopologyError("topology spec is empty; try bcube:n=3,k=1")
    if len(spec) > MAX_SPEC_CHARS:
        raise TopologyError(f"topology spec is {len(spec)} characters long; the limit is {MAX_SPEC_CHARS}")
    spec, _ = split_link_options(spec)  # link options (bw=, lat=) are checked there, applied by make_topology
    head, _, rest = spec.strip().partition(":")
    family = _ALIASES.get(head.lower(), head.lower())
    if family == "file":
        if not rest:
            raise TopologyError("file: spec needs a path, e.g. file:net.graphml")
        return "file", {}
    if family == "example":
        if rest not in EXAMPLES:
            raise TopologyError(f"unknown example {clip(rest)!r}; known: {', '.join(EXAMPLES)}")
        return "example", {}
    if family not in FAMILIES:
        known = ", ".join(list(FAMILIES) + ["file", "example"])
        hint = f" (a topology file is given as file:{clip(spec.strip())})" if not rest and head.lower().endswith(
            (".json", ".graphml", ".xml")) else ""
        raise TopologyError(f"unknown topology family {clip(head)!r}; known: {known}{hint}")
    fam = FAMILIES[family]
    shown = clip(spec.strip(), 60)
    given: dict[str, int] = {}
    for item in filter(None, (s.strip() for s in rest.split(","))):
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not eq:
            raise TopologyError(f"{shown}: parameter {clip(item)!r} must be key=value")
        if key not in fam.required and key not in fam.optional:
            raise TopologyError(f"{shown}: unknown parameter {clip(key)!r} for {family}; "
                                f"expected {', '.join(fam.required + tuple(fam.optional))}")
        if key in given:
            raise TopologyError(f"{shown}: parameter {key} is given twice; give each parameter once")
        if not _INT.fullmatch(value):
            raise TopologyError(f"{shown}: parameter {key} must be an integer (ASCII digits, optional sign, "
                                f"at most {MAX_DIGITS} digits), got {clip(value)!r}")
        given[key] = int(value)
    missing = [k for k in fam.required if k not in given]
    if missing:
        raise TopologyError(f"{shown}: missing parameter(s) {', '.join(missing)} for {family}")
    return family, {**fam.optional, **given}
