"""Whether a topology file's graph is the graph of the family spec it carries.

`topology SPEC --format json` writes the spec beside the graph (``"spec": "bcube:n=3,k=1"``), and a schedule
file's topology carries it too. The learned methods look their checkpoint up by spec: for ``file:t.json`` that
found only the universal one, although a checkpoint trained on ``bcube:n=3,k=1`` may exist. The spec is only a
claim (the file may have been edited), so it counts only when the spec builds the same structure: the same node
kinds in the same order, the same links in the same order with the same capacities (`carried_structure`). Failed
and slowed links are then the state of that spec's links (`carried_links`), as ``--fail-links`` and
``--slow-links`` make them on the spec itself: the same checkpoint runs either way, and "trained on this topology"
is judged as for the spec with those options (never with a failed link; link speeds aside).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..guard import SizeError
from . import make_topology, parse_spec
from .degrade import link_names
from ..text import clip
from .graph import Topology, TopologyError


def carried_difference(t: Topology) -> str | None:
    """Why `t`'s graph is not the graph of `t.carried_spec` (one clause: ``link 1 (s01-sw0.0) is failed``), or None
    when it is: `carried_structure`'s reason, else `carried_links`'. Only for a topology that carries a spec
    (`Topology.carried_spec`)."""
    return carried_structure(t) or carried_links(t)


def carried_structure(t: Topology) -> str | None:
    """Why `t`'s nodes, links and capacities are not those of the spec it carries (not a spec, another file, too
    big to build, a node or a link or a capacity differs), or None when they are: then the file is that spec's
    topology with at most its links' state changed (`carried_links`), as ``--fail-links`` and ``--slow-links``
    change a family spec's."""
    built = _carried_built(t)
    if isinstance(built, str):
        return built
    return _structure_difference(t, built, clip(t.carried_spec))


def carried_graph(t: Topology) -> Topology | None:
    """The topology the spec `t` carries builds (built once: cached), when `t` has its structure (`carried_structure`
    is None; its links' state may differ); None otherwise or when `t` carries no spec."""
    if t.carried_spec is None:
        return None
    built = _carried_built(t)
    if isinstance(built, str) or _structure_difference(t, built, "") is not None:
        return None
    return built


def carried_links(t: Topology) -> str | None:
    """How `t`'s links' state differs from the graph of the spec it carries (the first slowed or faster link, else
    the failed ones), or None when it does not or the spec builds no comparable graph (`carried_structure`)."""
    built = carried_graph(t)
    if built is None:
        return None
    name = clip(t.carried_spec)
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


def _carried_built(t: Topology) -> Topology | str:
    """The topology `t`'s carried spec builds, or why there is none (one clause)."""
    spec = t.carried_spec
    if spec is None:
        raise ValueError("carried spec: the topology carries no spec")
    try:
        family, _ = parse_spec(spec)
    except TopologyError as err:
        return f"it is not a spec ({clip(str(err), 120)})"
    if family == "file":
        return "it names another file, not a family"
    try:
        return _built(spec)
    except (TopologyError, SizeError) as err:
        return f"it cannot be built ({clip(str(err), 120)})"


def written_spec(t: Topology) -> str:
    """The ``spec`` a topology file or a schedule file records for `t` (`core.topology.to_dict`): the spec `t`
    carries when its nodes, links and capacities are that spec's graph (bandwidths, latencies and failed links
    may differ, as ``--slow-links`` and ``--fail-links`` write them for a family spec), else `t`'s own spec.
    Writing ``file:PATH`` instead lost the claim on the second write: a schedule of ``file:s1.json`` recorded
    ``file:s1.json``, and a schedule of that file named another file, not a family (so not its checkpoint)."""
    spec = t.carried_spec
    if spec is None or spec == t.spec:
        return t.spec
    return spec if carried_graph(t) is not None else t.spec


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
