"""Topology generators, spec strings and presets.

A spec string names a family and its parameters: ``bcube:n=3,k=1``, ``dcell:n=4,k=1``,
``jellyfish:switches=10,ports=5,switch_ports=4,seed=0``, ``fattree:k=4``,
``leafspine:leaves=4,spines=2,servers=4``, ``file:PATH``,
``example:fig3`` (the paper's four-host example). Any spec may add link options
(``bcube:n=4,k=1,bw=100/25,lat=1``; see `core.topology.links` and docs/time.md).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

from ..guard import Size, check, estimate_topology
from .bcube import bcube
from .dcell import dcell, dcell_servers
from .degrade import DisconnectedError, changes, check_connected, degrade, describe_changes, network_record
from .examples import EXAMPLES, example, fig3
from .fattree import fattree
from .files import from_dict, from_networkx, load_topology_file, parse_topology_bytes, read_topology_dict, to_dict
from .graph import DEFAULT_BANDWIDTH, DEFAULT_LATENCY, SERVER, SWITCH, Topology, TopologyError
from .jellyfish import jellyfish
from .leafspine import leafspine
from .links import LINK_KEYS, LinkOptions, overridden_note, split_link_options
from .sizes import measured_size
from .spec import FAMILIES, Family, keyed_spec, parse_spec

__all__ = [
    "Topology", "TopologyError", "SERVER", "SWITCH", "bcube", "dcell", "dcell_servers", "fattree",
    "jellyfish", "leafspine", "fig3", "example", "EXAMPLES", "keyed_spec", "make_topology", "parse_spec", "predicted_size", "spec_size", "size_of",
    "FAMILIES", "Family", "PRESETS", "Preset", "paper_preset", "preset", "from_dict", "from_networkx", "load_topology_file",
    "parse_topology_bytes", "read_topology_dict", "to_dict",
    "DEFAULT_BANDWIDTH", "DEFAULT_LATENCY", "LINK_KEYS", "LinkOptions", "split_link_options",
    "DisconnectedError", "changes", "check_connected", "degrade", "describe_changes", "network_record",
    "link_option_note",
]


_SIZES: weakref.WeakKeyDictionary[Topology, Size] = weakref.WeakKeyDictionary()
_LINK_NOTES: weakref.WeakKeyDictionary[Topology, str] = weakref.WeakKeyDictionary()
"""Per topology `make_topology` built from a file whose own link speeds a spec option replaced: the note saying so."""


def link_option_note(t: Topology) -> str | None:
    """For a topology `make_topology` read from a file (or an example) with link options (``bw=``, ``lat=``) that
    replaced the speeds the file gives its links: one line saying so (`links.overridden_note`: ``bw=400 replaces the
    file's own bandwidths (10-100 Gbit/s)``), as the CLI's header prints it and a page may show it; else None."""
    return _LINK_NOTES.get(t)


def size_of(t: Topology) -> Size:
    """The Size of a built topology: its family's formulas when its spec names a family, else measured
    (route searches from sampled roots: computed once per topology, as the guard asks per method)."""
    if t not in _SIZES:
        _SIZES[t] = _size_of(t)
    return _SIZES[t]


def _size_of(t: Topology) -> Size:
    try:
        family, params = parse_spec(t.spec)
    except ValueError:
        family = ""
    if family not in FAMILIES:
        return measured_size(t)
    shape = FAMILIES[family].size(**{k: v for k, v in params.items() if k != "seed"})
    return Size(t.n_servers, t.n_nodes - t.n_servers, t.n_edges, segment=shape.segment, fanin=shape.fanin,
                depth=shape.depth, imbalance=shape.imbalance, name=t.spec)


def spec_size(spec: str) -> Size | None:
    """The Size a family spec would build (MODEL.md §1), computed without building it; None for
    file and example specs. Raises TopologyError for a malformed spec."""
    family, p = parse_spec(spec)
    if family not in FAMILIES:
        return None
    params = {k: v for k, v in p.items() if k != "seed"}
    return FAMILIES[family].size(**params)


def predicted_size(spec: str, stop_above: int = 10 ** 7) -> dict[str, int] | None:
    """Servers, switches and nodes a family spec would build, without building it.

    None for file/example specs and for parameters the family refuses (n < 2, ...). Counts
    are computed with an early stop, so absurd parameters cost nothing; counts above
    `stop_above` are only known to be larger. Raises TopologyError for a malformed spec.
    """
    family, p = parse_spec(spec)
    if family not in FAMILIES or not _plausible(family, p):
        return None
    size = spec_size(spec)
    return {key: min(value, stop_above + 1) for key, value in
            (("servers", size.servers), ("switches", size.switches), ("nodes", size.nodes))}


def _plausible(family: str, p: dict[str, int]) -> bool:
    if family in ("bcube", "dcell"):
        return p["n"] >= 2 and p["k"] >= 0
    if family == "jellyfish":
        return p["switches"] >= 1 and 0 <= p["switch_ports"] < p["ports"]
    if family == "leafspine":
        return min(p["leaves"], p["spines"], p["servers"]) >= 1
    return p["k"] >= 2


def make_topology(spec: str, *, force: bool = False) -> Topology:
    """Build the topology a spec string names, with its link options (raises TopologyError with the
    rule broken, or SizeError when building it would exceed the memory or time limit; `force`
    skips that check)."""
    family, params = parse_spec(spec)  # checks the whole spec, link options included
    base, links = split_link_options(spec)
    if family in ("file", "example"):
        name = base.strip().partition(":")[2]
        own = load_topology_file(name, force=force) if family == "file" else example(name)
        t = links.apply(own, spec)
        note = overridden_note(own, t, links, "the file" if family == "file" else "the example")
        if note:
            _LINK_NOTES[t] = note
        return t
    check(estimate_topology(spec_size(base)), force=force)  # parameters the family refuses cost ~nothing
    return links.apply(FAMILIES[family].build(**params), spec)  # messages quote the spec as typed


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


def paper_preset(spec: str) -> Preset | None:
    """The preset configuration (of any preset) that `spec` names, whichever form was typed (``bcube:3,1`` is
    Table 2's ``bcube:n=3,k=1``), or None. Link options (bw=, lat=) are left out of the match: the paper's
    figures are rounds, which they do not change. Raises TopologyError for a spec `parse_spec` refuses."""
    family, params = parse_spec(split_link_options(spec)[0])
    if family in ("file", "example"):
        return None
    for presets in PRESETS.values():
        for p in presets:
            if parse_spec(p.spec) == (family, params):
                return p
    return None


def preset(name: str) -> tuple[Preset, ...]:
    """The configurations of a named preset (raises TopologyError for an unknown name)."""
    if name not in PRESETS:
        raise TopologyError(f"unknown preset {name!r}; known: {', '.join(PRESETS)}")
    return PRESETS[name]
