"""Read a topology from a file: GraphML, or JSON (an edge list, or an allreduce-schedule/1 file).

GraphML: every node needs a ``kind`` attribute (``server`` or ``switch``; ``type`` is accepted
too); an optional edge attribute ``capacity``. JSON: ``{"nodes": [{"id": ..., "kind": ...}],
"links": [[u, v, capacity], ...]}`` (``edges`` for ``links`` and ``[u, v]`` pairs are accepted),
or ``{"servers": [...], "edges": [[u, v], ...]}``, or a schedule file's ``topology`` object.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np

from .graph import SERVER, SWITCH, Topology, TopologyError


def from_networkx(g: nx.Graph, spec: str = "networkx") -> Topology:
    """Build a Topology from a networkx graph whose nodes carry ``kind`` (server/switch)."""
    nodes = list(g.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    kinds = []
    for v in nodes:
        data = g.nodes[v]
        kind = str(data.get("kind", data.get("type", ""))).lower()
        if kind not in (SERVER, SWITCH):
            raise TopologyError(f"node {v!r}: kind must be 'server' or 'switch', got {kind or 'nothing'!r}")
        kinds.append(kind == SERVER)
    edges, caps = [], []
    for u, v, data in g.edges(data=True):
        edges.append((index[u], index[v]))
        caps.append(_capacity(data.get("capacity", 1), (u, v)))
    labels = tuple(str(g.nodes[v].get("label", v)) for v in nodes)
    return Topology(spec=spec, is_server=np.array(kinds, bool), edges=np.array(edges, np.int64).reshape(-1, 2),
                    capacity=np.array(caps, np.int64), labels=labels)


def from_dict(data: dict[str, Any], spec: str = "json") -> Topology:
    """Build a Topology from the JSON forms described in this module's docstring.

    Nodes keep the order of ``nodes`` and links the order of ``links``, so directed link
    ``2i``/``2i+1`` is ``links[i]`` forward/backward, as in the file.
    """
    if isinstance(data, dict) and isinstance(data.get("topology"), dict):
        data = data["topology"]
    if not isinstance(data, dict):
        raise TopologyError("a JSON topology must be an object with 'nodes' and 'links'")
    links = data.get("links", data.get("edges"))
    if not isinstance(links, list):
        raise TopologyError("a JSON topology needs a list 'links' (or 'edges') of [u, v] or [u, v, capacity]")
    for link in links:
        if not isinstance(link, (list, tuple)) or len(link) not in (2, 3):
            raise TopologyError(f"each link must be [u, v] or [u, v, capacity], got {link!r}")
    ids: list[Any] = []
    kinds: list[bool] = []
    labels: list[str] = []
    if "nodes" in data:
        if not isinstance(data["nodes"], list):
            raise TopologyError(f"'nodes' must be a list of objects with id and kind, got {data['nodes']!r:.60}")
        for node in data["nodes"]:
            if not isinstance(node, dict) or "id" not in node or not _hashable(node["id"]):
                raise TopologyError(f"each node must be an object with an 'id', got {node!r:.60}")
            kind = str(node.get("kind", node.get("type", ""))).lower()
            if kind not in (SERVER, SWITCH):
                raise TopologyError(f"node {node['id']!r}: kind must be 'server' or 'switch', got {kind or 'nothing'!r}")
            ids.append(node["id"])
            kinds.append(kind == SERVER)
            labels.append(str(node.get("label", node["id"])))
    elif "servers" in data:
        if not isinstance(data["servers"], list) or not all(_hashable(x) for x in data["servers"]):
            raise TopologyError("'servers' must be a list of node ids")
        servers = set(data["servers"])
        for link in links:
            for x in link[:2]:
                if _hashable(x) and x not in ids:
                    ids.append(x)
                    kinds.append(x in servers)
                    labels.append(str(x))
    else:
        raise TopologyError("a JSON topology needs 'nodes' (with kinds) or a 'servers' list")
    index = {x: i for i, x in enumerate(ids)}
    if len(index) != len(ids):
        raise TopologyError("node ids must be unique")
    edges, caps = [], []
    for link in links:
        u, v = link[0], link[1]
        for x in (u, v):
            if not _hashable(x) or x not in index:
                raise TopologyError(f"link {link!r} names node {x!r}, which is not in 'nodes'")
        edges.append((index[u], index[v]))
        caps.append(_capacity(link[2] if len(link) == 3 else 1, (u, v)))
    return Topology(spec=spec, is_server=np.array(kinds, bool), edges=np.array(edges, np.int64).reshape(-1, 2),
                    capacity=np.array(caps, np.int64), labels=tuple(labels))


def _hashable(x: Any) -> bool:
    return isinstance(x, (int, str)) and not isinstance(x, bool)


def load_topology_file(path: str | Path) -> Topology:
    """Read GraphML (``.graphml``/``.xml``) or JSON; the spec of the result is ``file:PATH``."""
    p = Path(path)
    spec = f"file:{path}"
    if not p.is_file():
        raise TopologyError(f"file:{path}: no such file")
    text = p.read_bytes()
    return parse_topology_bytes(text, p.name, spec)


def parse_topology_bytes(raw: bytes, name: str, spec: str) -> Topology:
    """Parse an uploaded or read file by its name's suffix (GraphML or JSON)."""
    suffix = Path(name).suffix.lower()
    try:
        if suffix in (".graphml", ".xml"):
            import io
            g = nx.read_graphml(io.BytesIO(raw))
            if g.is_directed():
                g = g.to_undirected()
            return from_networkx(g, spec)
        if suffix == ".json":
            return from_dict(json.loads(raw.decode("utf-8")), spec)
    except TopologyError:
        raise
    except Exception as err:  # noqa: BLE001 - any parser failure becomes one clear message
        raise TopologyError(f"{name}: not a readable {suffix[1:]} graph ({type(err).__name__}: {err})") from None
    raise TopologyError(f"{name}: unknown file type {suffix or '(none)'}; use .graphml or .json")


def _capacity(value: Any, edge: tuple) -> int:
    if isinstance(value, bool):
        raise TopologyError(f"edge {edge!r}: capacity must be a positive integer, got {value!r}")
    try:
        c = int(value)
    except (TypeError, ValueError):
        raise TopologyError(f"edge {edge!r}: capacity must be a positive integer, got {value!r}") from None
    if c < 1 or c != float(value):
        raise TopologyError(f"edge {edge!r}: capacity must be a positive integer, got {value!r}")
    return c


def to_dict(t: Topology) -> dict[str, Any]:
    """The JSON form used by schedule files: nodes with kinds and labels, undirected links with capacity."""
    return {
        "spec": t.spec,
        "nodes": [{"id": i, "kind": SERVER if s else SWITCH, "label": lab}
                  for i, (s, lab) in enumerate(zip(t.is_server.tolist(), t.labels))],
        "links": [[int(u), int(v), int(c)] for (u, v), c in zip(t.edges.tolist(), t.capacity.tolist())],
    }
