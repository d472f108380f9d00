"""Topology generators, spec strings and presets.

A spec string names a family and its parameters: ``bcube:n=3,k=1``, ``dcell:n=4,k=1``,
``jellyfish:switches=10,ports=5,switch_ports=4,seed=0``, ``fattree:k=4``,
``leafspine:leaves=4,spines=2,servers=4``, ``file:PATH``,
``example:fig3`` (the paper's four-host example). Any spec may add link options
(``bcube:n=4,k=1,bw=100/25,lat=1``; see `core.topology.links` and docs/time.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .bcube import bcube
from .dcell import dcell, dcell_servers
from .examples import EXAMPLES, example, fig3
from .fattree import fattree
from .files import from_dict, from_networkx, load_topology_file, parse_topology_bytes, to_dict
from .graph import DEFAULT_BANDWIDTH, DEFAULT_LATENCY, SERVER, SWITCH, Topology, TopologyError
from .jellyfish import jellyfish
from .leafspine import leafspine
from .links import LINK_KEYS, LinkOptions, split_link_options
from .degrade import DisconnectedError, changes, check_connected, degrade, describe_changes

__all__ = [
    "Topology", "TopologyError", "SERVER", "SWITCH", "bcube", "dcell", "dcell_servers", "fattree",
    "jellyfish", "leafspine", "fig3", "example", "EXAMPLES", "make_topology", "parse_spec", "predicted_size", "FAMILIES", "PRESETS", "Preset", "preset",
    "from_dict", "from_networkx", "load_topology_file", "parse_topology_bytes", "to_dict",
    "DEFAULT_BANDWIDTH", "DEFAULT_LATENCY", "LINK_KEYS", "LinkOptions", "split_link_options",
    "DisconnectedError", "changes", "check_connected", "degrade", "describe_changes",
]


@dataclass(frozen=True)
class Family:
    """A topology family: its builder, required and optional integer parameters."""

    name: str
    build: Callable[..., Topology]
    required: tuple[str, ...]
    optional: dict[str, int]


FAMILIES: dict[str, Family] = {
    "bcube": Family("bcube", bcube, ("n", "k"), {}),
    "dcell": Family("dcell", dcell, ("n", "k"), {}),
    "jellyfish": Family("jellyfish", jellyfish, ("switches", "ports", "switch_ports"), {"seed": 0}),
    "fattree": Family("fattree", fattree, ("k",), {}),
    "leafspine": Family("leafspine", leafspine, ("leaves", "spines", "servers"), {}),
}
_ALIASES = {"fat-tree": "fattree", "fat_tree": "fattree", "leaf-spine": "leafspine", "leaf_spine": "leafspine"}


def parse_spec(spec: str) -> tuple[str, dict[str, int]]:
    """Split ``"bcube:n=3,k=1"`` into ``("bcube", {"n": 3, "k": 1})``, checking names and values."""
    if not isinstance(spec, str) or not spec.strip():
        raise TopologyError("topology spec is empty; try bcube:n=3,k=1")
    spec, _ = split_link_options(spec)  # link options (bw=, lat=) are checked there, applied by make_topology
    head, _, rest = spec.strip().partition(":")
    family = _ALIASES.get(head.lower(), head.lower())
    if family == "file":
        if not rest:
            raise TopologyError("file: spec needs a path, e.g. file:net.graphml")
        return "file", {}
    if family == "example":
        if rest not in EXAMPLES:
            raise TopologyError(f"unknown example {rest!r}; known: {', '.join(EXAMPLES)}")
        return "example", {}
    if family not in FAMILIES:
        known = ", ".join(list(FAMILIES) + ["file", "example"])
        raise TopologyError(f"unknown topology family {head!r}; known: {known}")
    fam = FAMILIES[family]
    params: dict[str, int] = dict(fam.optional)
    for item in filter(None, (s.strip() for s in rest.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq:
            raise TopologyError(f"{spec}: parameter {item!r} must be key=value")
        if key not in fam.required and key not in fam.optional:
            raise TopologyError(f"{spec}: unknown parameter {key!r} for {family}; "
                                f"expected {', '.join(fam.required + tuple(fam.optional))}")
        try:
            params[key] = int(value)
        except ValueError:
            raise TopologyError(f"{spec}: parameter {key} must be an integer, got {value!r}") from None
    missing = [k for k in fam.required if k not in params]
    if missing:
        raise TopologyError(f"{spec}: missing parameter(s) {', '.join(missing)} for {family}")
    return family, params


def predicted_size(spec: str, stop_above: int = 10 ** 7) -> dict[str, int] | None:
    """Servers, switches and nodes a family spec would build (MODEL.md §1), without building it.

    None for file/example specs. Counting stops once servers exceed `stop_above`, so absurd
    parameters cost nothing. Raises TopologyError for a malformed spec.
    """
    family, p = parse_spec(spec)
    if family == "bcube":
        if p["n"] < 2 or p["k"] < 0:
            return None
        servers = p["n"] ** (p["k"] + 1) if p["k"] < 64 else stop_above + 1
        switches = (p["k"] + 1) * p["n"] ** p["k"] if servers <= stop_above else servers
    elif family == "dcell":
        if p["n"] < 2 or p["k"] < 0:
            return None
        servers = p["n"]
        for _ in range(p["k"]):
            servers = servers * (servers + 1)
            if servers > stop_above:
                break
        switches = servers // p["n"]
    elif family == "jellyfish":
        if p["switches"] < 1 or not 0 <= p["switch_ports"] < p["ports"]:
            return None
        switches = p["switches"]
        servers = switches * (p["ports"] - p["switch_ports"])
    elif family == "fattree":
        if p["k"] < 2:
            return None
        servers, switches = p["k"] ** 3 // 4, 5 * p["k"] ** 2 // 4
    elif family == "leafspine":
        if min(p["leaves"], p["spines"], p["servers"]) < 1:
            return None
        servers, switches = p["leaves"] * p["servers"], p["leaves"] + p["spines"]
    else:
        return None
    return {"servers": servers, "switches": switches, "nodes": servers + switches}


def make_topology(spec: str) -> Topology:
    """Build the topology a spec string names, with its link options (raises TopologyError with the rule broken)."""
    base, links = split_link_options(spec)
    family, params = parse_spec(base)
    if family == "file":
        return links.apply(load_topology_file(base.strip().partition(":")[2]))
    if family == "example":
        return links.apply(example(base.strip().partition(":")[2]))
    return links.apply(FAMILIES[family].build(**params))


@dataclass(frozen=True)
class Preset:
    """One configuration of a preset with the paper's reported figures (None where it has none)."""

    name: str
    spec: str
    paper_nodes: int | None = None
    paper_edges: int | None = None
    paper_workloads: int | None = None
    paper_ps: float | None = None
    paper_ring: float | None = None
    paper_rl: float | None = None


# Table 2 of the paper. Jellyfish uses one server per switch (p=5, r=4). Seeds are chosen so
# the edge counts match the paper: every port used for N=10 (seed 0) and N=15 (seed 1; seed 0
# leaves a port pair unused), one port pair unused for N=20 (seed 0), as its 59 edges show.
PRESETS: dict[str, tuple[Preset, ...]] = {
    "table2": (
        Preset("BCube(3,1)", "bcube:n=3,k=1", 15, 18, 144, 16.8, 18.0, 10.2),
        Preset("BCube(4,1)", "bcube:n=4,k=1", 24, 32, 240, 31.8, 64.0, 20.8),
        Preset("BCube(5,1)", "bcube:n=5,k=1", 35, 50, 1200, 51.6, 150.0, 34.7),
        Preset("DCell(4,1)", "dcell:n=4,k=1", 25, 30, 380, 30.0, 47.1, 23.2),
        Preset("DCell(5,1)", "dcell:n=5,k=1", 36, 45, 870, 48.4, 75.9, 33.8),
        Preset("DCell(6,1)", "dcell:n=6,k=1", 49, 63, 1722, 71.2, 112.3, 48.0),
        Preset("Jellyfish(10)", "jellyfish:switches=10,ports=5,switch_ports=4,seed=0", 20, 30, 180, 23.0, 40.0, 22.7),
        Preset("Jellyfish(15)", "jellyfish:switches=15,ports=5,switch_ports=4,seed=1", 30, 45, 420, 36.0, 69.6, 39.9),
        Preset("Jellyfish(20)", "jellyfish:switches=20,ports=5,switch_ports=4,seed=0", 40, 59, 760, 51.2, 80.0, 62.2),
    ),
}


def preset(name: str) -> tuple[Preset, ...]:
    """The configurations of a named preset (raises TopologyError for an unknown name)."""
    if name not in PRESETS:
        raise TopologyError(f"unknown preset {name!r}; known: {', '.join(PRESETS)}")
    return PRESETS[name]
