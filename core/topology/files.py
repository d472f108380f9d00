"""Read a topology from a file: GraphML, or JSON (an edge list, or an allreduce-schedule/1 file).

GraphML: every node needs a ``kind`` attribute (``server`` or ``switch``; ``type`` is accepted
too); optional edge attributes ``capacity``, ``bandwidth`` (Gbit/s), ``latency`` (µs) and
``failed`` (true/false). JSON: ``{"nodes": [{"id": ..., "kind": ..., "label": ...}], "links": [...]}`` where a
link is ``[u, v]``, ``[u, v, capacity]``, ``[u, v, capacity, bandwidth]``, ``[u, v, capacity, bandwidth, latency]``
or an object
``{"u": .., "v": .., "capacity": .., "bandwidth": .., "latency": .., "failed": ..}`` (``edges``
for ``links`` is accepted; an optional ``"failed": [link index, ...]`` marks failed links), or
``{"servers": [...], "edges": [[u, v], ...]}``, or a schedule file's ``topology`` object.
Bandwidths and latencies may carry units (``"25Gbps"``, ``"500ns"``; `core.units`). A node's optional ``label``
(default: its id) follows the id rules: an integer or a string, not empty or padded, unique.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Collection

import numpy as np

from ..guard import check, estimate_json
from ..units import UnitError, parse_bandwidth, parse_latency
from ..text import clip
from .graph import DEFAULT_BANDWIDTH, DEFAULT_LATENCY, SERVER, SWITCH, Topology, TopologyError

if TYPE_CHECKING:  # networkx is imported where a GraphML file is read: ~0.1 s that presets never need
    import networkx as nx

LINK_FIELDS = ("u", "v", "capacity", "bandwidth", "latency")
"""The positions of a link written as a list (to_dict writes all five)."""

LINK_FORMS = ", ".join(f"[{', '.join(LINK_FIELDS[:k])}]" for k in range(2, len(LINK_FIELDS) + 1))
"""The list forms a link may take, as messages name them: ``[u, v]`` up to all of `LINK_FIELDS`."""

MAX_CAPACITY = 2 ** 31 - 1
"""Largest link capacity read from a file (workloads per round; numpy int64 arithmetic stays exact)."""


def _kind_problem(kind: str) -> str:
    """What is wrong with a node's kind (empty when the node has none)."""
    if not kind:
        return "no kind: give kind 'server' or 'switch'"
    return f"kind must be 'server' or 'switch', got {_show(kind)}"


def from_networkx(g: nx.Graph, spec: str = "networkx", declared: Collection | None = None) -> Topology:
    """Build a Topology from a networkx graph whose nodes carry ``kind`` (server/switch). `declared`: the node ids
    the file declares (a GraphML reader adds a node an edge names without declaring it, with no kind), so that such
    a node is reported as unknown rather than as a node without a kind."""
    nodes = list(g.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    kinds = []
    for v in nodes:
        data = g.nodes[v]
        kind = str(data.get("kind", data.get("type", ""))).lower()
        if kind not in (SERVER, SWITCH) and declared is not None and v not in declared:
            u = next(iter(g.neighbors(v)), v)
            raise TopologyError(f"edge {_show((u, v))} names node {_show(v)}, which is not declared: add "
                                f"<node id=\"{_cut(str(v), 40)}\"> with kind 'server' or 'switch', or fix the edge")
        if kind not in (SERVER, SWITCH):
            raise TopologyError(f"node {_show(v)}: {_kind_problem(kind)}")
        _refuse_padded(v, f"node {_show(v)}: 'id'")  # a GraphML node by its id: it has no list position
        if "label" in data:
            _refuse_padded(data["label"], f"node {_show(v)}: 'label'")
        kinds.append(kind == SERVER)
    labels = [str(g.nodes[v].get("label", v)) for v in nodes]
    _refuse_repeated_labels(labels, [f"node {_show(v)}" for v in nodes], ["label" in g.nodes[v] for v in nodes])
    edges, props = [], []
    for u, v, data in g.edges(data=True):
        edges.append((index[u], index[v]))
        props.append(_link_props(data, (u, v)))
    return _topology(spec, kinds, edges, props, labels)


def _topology(spec: str, kinds: list[bool], edges: list[tuple[int, int]], props: list[tuple], labels,
              carried: str | None = None) -> Topology:
    """A Topology from node kinds, edges and per-edge (capacity, bandwidth, latency, failed); `carried`: the
    spec the file carries (`Topology.carried_spec`)."""
    cap, bw, lat, failed = (list(x) for x in zip(*props)) if props else ([], [], [], [])
    return Topology(spec=spec, is_server=np.array(kinds, bool), edges=np.array(edges, np.int64).reshape(-1, 2),
                    capacity=np.array(cap, np.int64), labels=tuple(labels), bandwidth=np.array(bw, np.float64),
                    latency=np.array(lat, np.float64), failed=np.array(failed, bool), carried_spec=carried)


def _link_props(data: dict, edge: tuple, typed: bool = False) -> tuple[int, float, float, bool]:
    """(capacity, bandwidth Gbit/s, latency µs, failed) of one edge's attributes, defaults filled in; `typed` (JSON,
    whose numbers are numbers): a capacity must be a JSON number, not a string (GraphML's may be: its attributes
    are text unless the file declares a type)."""
    try:
        bw = parse_bandwidth(data.get("bandwidth", DEFAULT_BANDWIDTH), f"edge {_show(edge)}: bandwidth")
        lat = parse_latency(data.get("latency", DEFAULT_LATENCY), f"edge {_show(edge)}: latency")
    except UnitError as err:
        raise TopologyError(str(err)) from None
    failed = data.get("failed", False)
    if isinstance(failed, str) and failed.lower() in ("true", "false", "1", "0"):
        failed = failed.lower() in ("true", "1")
    if not isinstance(failed, (bool, np.bool_)) and failed not in (0, 1):
        raise TopologyError(f"edge {_show(edge)}: failed must be true or false, got {_show(failed)}")
    return _capacity(data.get("capacity", 1), edge, typed), bw, lat, bool(failed)


def from_dict(data: dict[str, Any], spec: str = "json") -> Topology:
    """Build a Topology from the JSON forms described in this module's docstring.

    Nodes keep the order of ``nodes`` and links the order of ``links``, so directed link
    ``2i``/``2i+1`` is ``links[i]`` forward/backward, as in the file.
    """
    return read_topology_dict(data, spec)[0]


def read_topology_dict(data: dict[str, Any], spec: str = "json") -> tuple[Topology, list[Any]]:
    """The Topology of a JSON form and the file's node ids in node order (node ``i`` has id ``ids[i]``).

    Ids are the file's own (integers or strings, in any order); links name nodes by id.
    """
    if isinstance(data, dict) and isinstance(data.get("topology"), dict):
        data = data["topology"]
    if not isinstance(data, dict):
        raise TopologyError("a JSON topology must be an object with 'nodes' and 'links'")
    links = data.get("links", data.get("edges"))
    at = "links" if "links" in data else "edges"  # a list item is named by its key and 0-based position, links[2]
    if not isinstance(links, list):
        raise TopologyError(f"a JSON topology needs a list 'links' (or 'edges') of links, each {LINK_FORMS} or an "
                            f"object with u and v")
    for k, link in enumerate(links):
        if isinstance(link, dict):
            if "u" not in link or "v" not in link:
                raise TopologyError(f"{at}[{k}]: an object link needs 'u' and 'v', got {_show(link, 80)}")
            unknown = set(link) - {"u", "v", "capacity", "bandwidth", "latency", "failed"}
            if unknown:
                raise TopologyError(f"{at}[{k}]: unknown field(s) {', '.join(sorted(map(str, unknown)))}; "
                                    f"known: u, v, capacity, bandwidth, latency, failed")
        elif not isinstance(link, (list, tuple)) or not 2 <= len(link) <= 5:
            raise TopologyError(f"{at}[{k}]: each link must be {LINK_FORMS} or an object with u and v, "
                                f"got {_show(link, 80)}")
    links = [link if isinstance(link, dict) else dict(zip(LINK_FIELDS, link)) for link in links]
    ids: list[Any] = []
    kinds: list[bool] = []
    labels: list[str] = []
    if "nodes" in data:
        if not isinstance(data["nodes"], list):
            raise TopologyError(f"'nodes' must be a list of objects with id and kind, got {data['nodes']!r:.60}")
        for k, node in enumerate(data["nodes"]):
            if not isinstance(node, dict) or "id" not in node:
                raise TopologyError(f"nodes[{k}]: each node must be an object with an 'id' (an integer or a string) "
                                    f"and a 'kind', got {_json(node, 60)}")
            if not _hashable(node["id"]):
                raise TopologyError(f"nodes[{k}]: 'id' {_id_rule(node['id'])}, got {_json(node['id'])}")
            _refuse_padded(node["id"], f"nodes[{k}]: 'id'")
            kind = str(node.get("kind", node.get("type", ""))).lower()
            if kind not in (SERVER, SWITCH):
                raise TopologyError(f"node {_show(node['id'])}: {_kind_problem(kind)}")
            if "label" in node:
                if not _hashable(node["label"]):
                    raise TopologyError(f"nodes[{k}]: 'label' {_id_rule(node['label'])}, got {_json(node['label'])}")
                _refuse_padded(node["label"], f"nodes[{k}]: 'label'")
            ids.append(node["id"])
            kinds.append(kind == SERVER)
            labels.append(str(node.get("label", node["id"])))
    elif "servers" in data:
        if not isinstance(data["servers"], list):
            raise TopologyError(f"'servers' must be a list of node ids, got {_json(data['servers'])}")
        for x in data["servers"]:
            if not _hashable(x):
                raise TopologyError(f"'servers': a node id {_id_rule(x)}, got {_json(x)}")
            _refuse_padded(x, "'servers': a node id")
        servers = set(data["servers"])
        for link in links:
            for x in (link["u"], link["v"]):
                if _hashable(x) and x not in ids:
                    _refuse_padded(x, f"link {_json([link['u'], link['v']])}: a node id")
                    ids.append(x)
                    kinds.append(x in servers)
                    labels.append(str(x))
    else:
        raise TopologyError("a JSON topology needs 'nodes' (with kinds) or a 'servers' list")
    _refuse_repeated_ids(ids)
    if "nodes" in data:  # the servers form's labels are its ids
        _refuse_repeated_labels(labels, [f"nodes[{k}]" for k in range(len(ids))],
                                ["label" in node for node in data["nodes"]])
    index = {x: i for i, x in enumerate(ids)}
    edges, props = [], []
    for link in links:
        u, v = link["u"], link["v"]
        for x in (u, v):
            if not _hashable(x):
                raise TopologyError(f"link {_json([u, v])}: a node id {_id_rule(x)}, got {_json(x)}")
            if x not in index:
                near = next((y for y in ids if str(y) == str(x)), None)  # 3 for "3": ids are compared as written
                kind = lambda y: "a string" if isinstance(y, str) else "a number"  # noqa: E731
                hint = "" if near is None else (f"; the node is {_json(near)} ({kind(near)}), the link names "
                                                f"{_json(x)} ({kind(x)}): write the id as its node does")
                raise TopologyError(f"link {_json([u, v])} names node {_json(x)}, which is not in 'nodes'{hint}")
        edges.append((index[u], index[v]))
        props.append(_link_props(link, (u, v), typed=True))
    failed = data.get("failed", [])
    if not isinstance(failed, list) or not all(_is_index(i, len(props)) for i in failed):
        raise TopologyError(f"'failed' must be a list of link indices in 0..{len(props) - 1}, got {_show(failed, 80)}")
    for i in failed:
        props[i] = props[i][:3] + (True,)
    carried = data.get("spec")  # what topology --format json (and a schedule file's topology) records
    carried = carried if isinstance(carried, str) and carried.strip() else None
    return _topology(spec, kinds, edges, props, labels, carried), ids


def _refuse_repeated_ids(ids: list[Any]) -> None:
    """Refuse two nodes with the same id, or with ids that print the same (3 and "3"): a user, the link list
    (``3-9``) and ``--slow-links`` cannot tell them apart (MODEL.md section 8: node ids are ids)."""
    seen: dict[str, int] = {}
    for k, x in enumerate(ids):
        j = seen.setdefault(str(x), k)
        if j == k:
            continue
        if ids[j] == x:
            raise TopologyError(f"node ids must be unique: {_show(x)} is the id of nodes {j} and {k}")
        raise TopologyError(f"node ids must be unique: {_json(ids[j])} (node {j}) and {_json(x)} (node {k}) "
                            f"print the same, {_cut(str(x), 40)}")


def _refuse_repeated_labels(labels: list[str], names: list[str], labelled: list[bool]) -> None:
    """Refuse two nodes whose labels print the same (a node without a ``label`` is labelled by its id): links print
    by label (``s01-sw0.0`` twice) and --fail-links/--slow-links ``u-v`` picked one of the two silently (trial 19).
    `names`: how messages name each node (``nodes[2]``, ``node 'a'``); `labelled`: whether it has its own label."""
    seen: dict[str, int] = {}
    for k, lab in enumerate(labels):
        j = seen.setdefault(lab, k)
        if j == k:
            continue
        what = "'label'" if labelled[k] else "'id'"
        other = f"label of {names[j]}" if labelled[j] else f"id of {names[j]}, which has no 'label'"
        why = "" if labelled[k] and labelled[j] else " (a node without a 'label' is labelled by its id)"
        raise TopologyError(f"{names[k]}: {what} {_cut(repr(lab), 40)} is also the {other}{why}; labels must be "
                            f"unique: links, --fail-links and --slow-links name nodes by label")


def _refuse_padded(x: Any, what: str) -> None:
    """Refuse a string id that is empty or begins or ends with whitespace: it prints as another id or as none
    (``" 3"`` made the link ``1- 3``, trial 16; ``""`` made a link to ``s`` ``-s``), and a link, --fail-links or
    --slow-links written by hand names the id without it."""
    if x == "":
        raise TopologyError(f"{what} must not be empty, got ''")
    if isinstance(x, str) and x != x.strip():
        raise TopologyError(f"{what} must not begin or end with whitespace, got {x!r}")


def _is_index(i: Any, n: int) -> bool:
    return isinstance(i, int) and not isinstance(i, bool) and 0 <= i < n


ID_RULE = "must be an integer or a string"


def _id_rule(x: object) -> str:
    """The id rule as said for value `x`: a bool is told why it is not an integer."""
    return ID_RULE + (" (true and false are not ids)" if isinstance(x, bool) else "")


def _hashable(x: Any) -> bool:
    """A node id: an int or a str; a bool is not one (JSON true would be node 1)."""
    return isinstance(x, (int, str)) and not isinstance(x, bool)


def _json(x: Any, limit: int = 40) -> str:
    """`x` as JSON writes it (true, null, 1.5), cut to `limit` characters, for messages."""
    try:
        return _cut(json.dumps(x), limit)
    except (TypeError, ValueError):
        return _show(x, limit)


def load_topology_file(path: str | Path, *, force: bool = False) -> Topology:
    """Read GraphML (``.graphml``/``.xml``) or JSON; the spec of the result is ``file:PATH``.

    The size guard checks the file's length before it is read (`force` skips that check)."""
    p = Path(path)
    spec = f"file:{path}"
    if not p.is_file():
        raise TopologyError(f"file:{clip(str(path), 300)}: no such file")  # a newline in the name stays escaped
    check(estimate_json(p.stat().st_size, p.name), force=force)
    text = p.read_bytes()
    if not text.strip():  # not "not a readable json graph (JSONDecodeError: Expecting value ...)" (trial 19)
        raise TopologyError(f"file:{clip(str(path), 300)}: {_empty(text)}")
    return parse_topology_bytes(text, p.name, spec, force=True)


def _empty(raw: bytes) -> str:
    """What an empty file (no bytes, or whitespace only) is called in messages."""
    return "empty" if not raw else "empty (only whitespace)"


def parse_topology_bytes(raw: bytes, name: str, spec: str, *, force: bool = False) -> Topology:
    """Parse an uploaded or read file by its name's suffix (GraphML or JSON), after the size guard."""
    suffix = Path(name).suffix.lower()
    check(estimate_json(len(raw), name), force=force)
    if not raw.strip() and suffix in (".graphml", ".xml", ".json"):
        raise TopologyError(f"{name}: {_empty(raw)}")
    try:
        if suffix in (".graphml", ".xml"):
            import io

            import networkx as nx
            g = nx.read_graphml(io.BytesIO(raw))
            if g.is_directed():
                g = g.to_undirected()
            no_kind = any("kind" not in d and "type" not in d for _, d in g.nodes(data=True))
            return from_networkx(g, spec, _graphml_node_ids(raw) if no_kind else None)
        if suffix == ".json":
            return from_dict(json.loads(raw.decode("utf-8")), spec)
    except TopologyError as err:  # every rule a file breaks is reported with the file's name first
        msg = str(err)
        raise TopologyError(msg if msg.startswith(f"{name}: ") else f"{name}: {msg}") from None
    except RecursionError:
        raise TopologyError(f"{name}: nested too deeply to be a {suffix[1:]} graph") from None
    except Exception as err:  # noqa: BLE001 - any parser failure becomes one clear message
        raise TopologyError(f"{name}: not a readable {suffix[1:]} graph ({type(err).__name__}: {err})") from None
    raise TopologyError(f"{name}: unknown file type {suffix or '(none)'}; use .graphml or .json")


def _graphml_node_ids(raw: bytes) -> set[str]:
    """The ids of the ``<node>`` elements a GraphML file declares (at any depth), read only when some node has no
    kind, to tell a node declared without one from one that only an edge names."""
    from xml.etree import ElementTree

    return {el.get("id") for el in ElementTree.fromstring(raw).iter() if el.tag.rpartition("}")[2] == "node"}


def _capacity(value: Any, edge: tuple, typed: bool = False) -> int:
    """A link capacity: an integer (or integral float, or with not `typed` a digit string) in 1..MAX_CAPACITY."""
    if typed and isinstance(value, str):  # JSON's "1" is text: the docs ask for a positive integer (trial 12)
        raise TopologyError(f"edge {_show(edge)}: capacity must be a JSON integer in 1..{MAX_CAPACITY}, not a string, "
                            f"got {_show(value)}")
    c = None
    if isinstance(value, int) and not isinstance(value, bool):
        c = value
    elif isinstance(value, float) and value.is_integer():
        c = int(value)
    elif isinstance(value, str) and value.strip().isascii() and value.strip().isdigit() and len(value) < 12:
        c = int(value)
    if c is None or not 1 <= c <= MAX_CAPACITY:
        raise TopologyError(f"edge {_show(edge)}: capacity must be an integer in 1..{MAX_CAPACITY}, got {_show(value)}")
    return c


def _show(x: Any, limit: int = 40) -> str:
    """repr(x) cut to `limit` characters, for messages."""
    return _cut(repr(x), limit)


def _cut(text: str, limit: int) -> str:
    """`text`, or its first `limit` characters and "..." when it is longer."""
    return text if len(text) <= limit else text[:limit] + "..."


def to_dict(t: Topology) -> dict[str, Any]:
    """The JSON form used by schedule files: nodes with kinds and labels, undirected links as
    ``[u, v, capacity, bandwidth Gbit/s, latency µs]``, and the indices of failed links (if any). ``spec`` is the
    spec a file `t` was read from carries when `t` is still that spec's graph (`carried.written_spec`), so the
    claim survives a schedule of a schedule file; else `t`'s own spec."""
    from .carried import written_spec  # carried imports this package

    out: dict[str, Any] = {
        "spec": written_spec(t),
        "nodes": [{"id": i, "kind": SERVER if s else SWITCH, "label": lab}
                  for i, (s, lab) in enumerate(zip(t.is_server.tolist(), t.labels))],
        "link_fields": list(LINK_FIELDS),
        "links": [[u, v, c, bw, lat] for (u, v), c, bw, lat in
                  zip(t.edges.tolist(), t.capacity.tolist(), t.bandwidth.tolist(), t.latency.tolist())],
    }
    if t.failed.any():
        out["failed"] = np.flatnonzero(t.failed).tolist()
    return out
