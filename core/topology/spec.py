"""Spec strings: ``family:key=value,...`` or ``family:value,...`` -> the family and its integer parameters.

Values are ASCII integers with an optional sign and at most 18 digits (``k=1_0``, Unicode
digits and ``k=1e3`` are refused); a key given twice is an error, not a silent override.
Parameters are given by position, in the family's order (`Family.order`: ``bcube:8,2`` is
``bcube:n=8,k=2``), then by key (``jellyfish:10,5,4,seed=3``); link options (``bw=``, ``lat=``,
``link_seed=``, `core.topology.links`) are always keyed.
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
from ..text import clip, did_you_mean
from .graph import Topology, TopologyError
from .jellyfish import jellyfish
from .leafspine import leafspine
from .links import LINK_OPTIONS, split_link_options
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

    @property
    def order(self) -> tuple[str, ...]:
        """The parameters in the order a positional spec gives them: the required ones, then the optional."""
        return self.required + tuple(self.optional)

    def takes(self) -> str:
        """Every parameter a spec of this family accepts, as a message lists them: its own (the optional ones with
        their defaults), then the link options every spec takes (`core.topology.links`)."""
        own = list(self.required) + [f"{k} (default {v})" for k, v in self.optional.items()]
        links = ", ".join(f"{k} ({what})" for k, what in LINK_OPTIONS.items())
        return f"{self.name} takes {', '.join(own)}, and the link options {links}"


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
    typed = spec
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
        called = None if rest else (re.fullmatch(r"\s*([A-Za-z_-]+)\s*\(([^()]*)\)\s*", head)  # BCube(2,1)
                                    or re.fullmatch(r"\s*([A-Za-z_-]+?)\s*(\d[\d,\s]*)", head))  # bcube2,1
        name = _ALIASES.get(called.group(1).lower(), called.group(1).lower()) if called else ""
        if name in FAMILIES:  # as papers write it, or without the ':' (trial 32)
            hint = f" (write {name}:{clip(called.group(2).replace(' ', ''), 40)})"
        elif not hint:
            hint = did_you_mean(head, list(FAMILIES) + ["file", "example"])
        raise TopologyError(f"unknown topology family {clip(head)!r}{hint}; known: {known}")
    fam = FAMILIES[family]
    shown = clip(typed.strip(), 60)  # as typed, link options included
    if ":" in rest:  # bcube::3,1 or bcube:3:1 would read ':3' or '3:1' as a value
        raise TopologyError(f"{shown}: a spec has one ':', after the family name, got {spec.count(':')}; "
                            f"write {family}:{','.join(fam.order)} (values by position or key=value)")
    given: dict[str, int] = {}
    for key, value in _pairs(shown, fam, rest):
        if key not in fam.required and key not in fam.optional:
            named = next((k for k, what in LINK_OPTIONS.items() if key.lower() == what), None)
            hint = f" ({key.lower()} is set by {named}=)" if named else ""
            raise TopologyError(f"{shown}: unknown parameter {clip(key)!r} for {family}{hint}; {fam.takes()}")
        if key in given:
            raise TopologyError(f"{shown}: parameter {key} is given twice; give each parameter once")
        if not _INT.fullmatch(value):
            raise TopologyError(f"{shown}: parameter {key} must be an integer (ASCII digits, optional sign, "
                                f"at most {MAX_DIGITS} digits), got {clip(value)!r}")
        given[key] = int(value)
    missing = [k for k in fam.required if k not in given]
    if missing:
        raise TopologyError(f"{shown}: missing parameter(s) {', '.join(missing)} for {family} "
                            f"(by key, or by position in the order {family}:{','.join(fam.order)})")
    return family, {**fam.optional, **given}


def _pairs(shown: str, fam: Family, rest: str) -> list[tuple[str, str]]:
    """(key, value text) of a spec's parameters (`rest`, link options removed): values by position first, in
    `Family.order`, then ``key=value`` (``jellyfish:10,5,4,seed=3``, as Python calls take arguments); a value
    by position after a keyed one, or more values than the family has parameters, is an error."""
    items = [s.strip() for s in rest.split(",")]
    while items and not items[-1]:
        items.pop()  # a trailing comma, as the keyed form allows
    order = f"{fam.name}:{','.join(fam.order)}"
    first_keyed = next((i for i, item in enumerate(items) if "=" in item), len(items))
    bare = [item for item in items[first_keyed:] if item and "=" not in item]
    if bare:
        raise TopologyError(f"{shown}: value {clip(bare[0])!r} by position comes after "
                            f"{clip(items[first_keyed])!r}; give values by position first, in the order {order}, "
                            f"then key=value")
    values = items[:first_keyed]
    if "" in values:
        raise TopologyError(f"{shown}: value {values.index('') + 1} is empty; give the values by position in the "
                            f"order {order}")
    if len(values) > len(fam.order):
        many = "value" if len(fam.order) == 1 else "values"
        raise TopologyError(f"{shown}: {fam.name} takes at most {len(fam.order)} {many} by position, in the order "
                            f"{order}; got {len(values)}")
    keyed = [(k.strip(), v.strip()) for k, _, v in (item.partition("=") for item in items[first_keyed:] if item)]
    return list(zip(fam.order, values)) + keyed


def keyed_spec(spec: str) -> str:
    """`spec` with the values given by position written as key=value (``bcube:3,1,bw=100`` ->
    ``bcube:n=3,k=1,bw=100``), so that one topology has one name whichever form was typed; any other spec
    is returned as it is. Raises TopologyError for a spec `parse_spec` refuses."""
    family, _ = parse_spec(spec)
    if family not in FAMILIES:
        return spec
    head, _, rest = spec.strip().partition(":")
    order = iter(FAMILIES[family].order)
    items = [item if "=" in item or not item.strip() else f"{next(order)}={item.strip()}" for item in rest.split(",")]
    return f"{head}:{','.join(items)}"
