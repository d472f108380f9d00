"""Whether a topology file's graph is the graph of the family spec it carries.

`topology SPEC --format json` writes the spec beside the graph (``"spec": "bcube:n=3,k=1"``), and a schedule
file's topology carries it too. The learned methods look their checkpoint up by spec: for ``file:t.json`` that
found only the universal one, although a checkpoint trained on ``bcube:n=3,k=1`` may exist. The spec is only a
claim (the file may have been edited, or written with failed or slowed links), so it counts only when the spec
builds the same graph: the same node kinds in the same order, the same links in the same order with the same
capacities, the same bandwidths, and no failed link.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..guard import SizeError
from . import make_topology, parse_spec
from .degrade import link_names
from .graph import Topology, TopologyError, clip


def carried_difference(t: Topology) -> str | None:
    """Why `t`'s graph is not the graph of `t.carried_spec` (one clause: ``link 1 (s01-sw0.0) is failed``), or None
    when it is. Only for a topology that carries a spec (`Topology.carried_spec`)."""
    spec = t.carried_spec
    if spec is None:
        raise ValueError("carried_difference: the topology carries no spec")
    try:
        family, _ = parse_spec(spec)
    except TopologyError as err:
        return f"it is not a spec ({clip(str(err), 120)})"
    if family == "file":
        return "it names another file, not a family"
    name = clip(spec)
    try:
        built = _built(spec)
    except (TopologyError, SizeError) as err:
        return f"it cannot be built ({clip(str(err), 120)})"
    if (why := _structure_difference(t, built, name)) is not None:
        return why
    if (hit := _first(t.bandwidth != built.bandwidth)) is not None:
        i, more = hit
        how = "slowed" if t.bandwidth[i] < built.bandwidth[i] else "faster"
        return (f"link {link_names(t, [i])} runs at {t.bandwidth[i]:g} Gbit/s, {built.bandwidth[i]:g} in {name} "
                f"({how}){more}")
    failed = np.flatnonzero(t.failed).tolist()
    if failed:
        return (f"link{'s' if len(failed) > 1 else ''} {link_names(t, failed[:3])}"
                f"{' and more' if len(failed) > 3 else ''} {'are' if len(failed) > 1 else 'is'} failed")
    return None


def written_spec(t: Topology) -> str:
    """The ``spec`` a topology file or a schedule file records for `t` (`core.topology.to_dict`): the spec `t`
    carries when its nodes, links and capacities are that spec's graph (bandwidths, latencies and failed links
    may differ, as ``--slow-links`` and ``--fail-links`` write them for a family spec), else `t`'s own spec.
    Writing ``file:PATH`` instead lost the claim on the second write: a schedule of ``file:s1.json`` recorded
    ``file:s1.json``, and a schedule of that file named another file, not a family (so not its checkpoint)."""
    spec = t.carried_spec
    if spec is None or spec == t.spec:
        return t.spec
    try:
        family, _ = parse_spec(spec)
        if family == "file":
            return t.spec
        built = _built(spec)
    except (TopologyError, SizeError):
        return t.spec
    return spec if _structure_difference(t, built, clip(spec)) is None else t.spec


def _first(differs: np.ndarray) -> tuple[int, str] | None:
    """The first index where `differs` holds, with ``(and N more)`` when it holds elsewhere too; None if nowhere."""
    at = np.flatnonzero(differs)
    return None if not len(at) else (int(at[0]), f" (and {len(at) - 1} more)" if len(at) > 1 else "")


def _structure_difference(t: Topology, built: Topology, name: str) -> str | None:
    """Why `t`'s nodes, links or capacities are not those of `built` (the graph of the spec `name`), or None."""
    if (t.n_nodes, t.n_edges) != (built.n_nodes, built.n_edges):
        return (f"the file has {t.n_nodes} nodes and {t.n_edges} links, {name} {built.n_nodes} nodes and "
                f"{built.n_edges} links")
    if (hit := _first(t.is_server != built.is_server)) is not None:
        i, more = hit
        kinds = ("a server", "a switch") if t.is_server[i] else ("a switch", "a server")
        return f"node {i} ({t.labels[i]}) is {kinds[0]}, {kinds[1]} in {name}{more}"
    if (hit := _first(np.any(t.edges != built.edges, axis=1))) is not None:
        i, more = hit
        return f"link {link_names(t, [i])} joins other nodes than link {i} of {name}{more}"
    if (hit := _first(t.capacity != built.capacity)) is not None:
        i, more = hit
        return f"link {link_names(t, [i])} has capacity {t.capacity[i]}, {built.capacity[i]} in {name}{more}"
    return None


@lru_cache(maxsize=8)
def _built(spec: str) -> Topology:
    """The topology a carried spec builds (the size guard applies: a file cannot make it build a huge one)."""
    return make_topology(spec)
