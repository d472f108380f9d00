"""Node positions that show a topology's structure (drawing only; no routing here).

BCube and fat-tree are drawn in layers (servers at the bottom, switches above by level or
tier); DCell as cells around a ring (servers on the ring, each cell's switch outside it);
Jellyfish as a ring of switches with their servers outside; teaching examples where they were
placed by hand; a topology file that carries a family spec whose graph it is (`core.topology.carried`) as that
family; anything else (uploads) with a seeded spring layout.
"""

from __future__ import annotations

import numpy as np

from core.topology import Topology
from core.topology.carried import carried_graph

from .examples import example_positions


def positions(t: Topology) -> np.ndarray:
    """(n, 2) drawing coordinates of every node, chosen by the topology's family."""
    family, _, rest = t.spec.partition(":")
    if family in ("bcube", "fattree"):
        return layered(t)
    if family == "dcell":
        return cell_ring(t)
    if family == "jellyfish":
        return switch_ring(t)
    placed = example_positions(rest) if family == "example" else None
    if placed is not None:
        return np.array([placed[label] for label in t.labels], dtype=float)
    carried = carried_family(t)
    if carried is not None:  # its nodes are the family graph's, in its order: drawn as it is
        return positions(carried)
    return spring(t)


def carried_family(t: Topology) -> Topology | None:
    """The family topology whose graph `t` is, when `t` (a topology file) carries its spec and has its nodes and links
    (`core.topology.carried.carried_graph`: failed or slowed links allowed, as ``topology SPEC --fail-links 1 --format
    json`` writes them); None otherwise. A BCube(3,1) file with link 1 failed was drawn with the spring layout
    (trial 21)."""
    if t.carried_spec is None or t.carried_spec == t.spec:
        return None
    return carried_graph(t)


def layered(t: Topology) -> np.ndarray:
    """Servers evenly on the bottom row; each switch layer above, ordered by its neighbours' mean x."""
    pos = np.zeros((t.n_nodes, 2))
    ptr, nbr, _ = t.adjacency
    layers = np.unique(t.layer)
    placed = np.zeros(t.n_nodes, dtype=bool)
    for level in layers.tolist():
        ids = np.flatnonzero(t.layer == level)
        if level == layers[0]:
            key = np.lexsort((ids, t.group[ids]))
        else:
            bary = np.array([_mean_x(pos, nbr[ptr[v]:ptr[v + 1]], placed) for v in ids.tolist()])
            key = np.lexsort((ids, bary))
        ordered = ids[key]
        pos[ordered, 0] = _spread(len(ordered))
        if level != layers[0] and len(ordered) > 1:
            xs = np.sort(bary)
            if np.diff(xs).min() >= 0.5 / len(ordered):  # switches sit right above their servers
                pos[ordered, 0] = xs
        pos[ordered, 1] = level
        placed[ordered] = True
    pos[:, 1] = pos[:, 1] / max(1, layers.max()) * 0.7  # flatter than wide
    return pos


def cell_ring(t: Topology) -> np.ndarray:
    """Servers around a ring grouped by cell with gaps; each cell's switch just outside its servers."""
    pos = np.zeros((t.n_nodes, 2))
    servers = t.servers[np.lexsort((t.servers, t.group[t.servers]))]
    cells = t.group[servers]
    n_cells = len(np.unique(cells))
    slots = len(servers) + n_cells  # one empty slot between cells
    angle = np.empty(len(servers))
    slot = 0
    for i in range(len(servers)):
        if i and cells[i] != cells[i - 1]:
            slot += 1
        angle[i] = 2 * np.pi * slot / slots
        slot += 1
    pos[servers] = np.c_[np.cos(angle), np.sin(angle)]
    for sw in t.switches.tolist():
        mine = angle[cells == t.group[sw]]
        a = np.angle(np.exp(1j * mine).mean()) if len(mine) else 0.0
        pos[sw] = 1.3 * np.array([np.cos(a), np.sin(a)])
    return pos


def switch_ring(t: Topology) -> np.ndarray:
    """Switches on a ring; the servers of a switch just outside it, fanned out."""
    pos = np.zeros((t.n_nodes, 2))
    sw = t.switches
    angle = 2 * np.pi * np.arange(len(sw)) / max(1, len(sw))
    pos[sw] = np.c_[np.cos(angle), np.sin(angle)]
    ptr, nbr, _ = t.adjacency
    for i, s in enumerate(sw.tolist()):
        mine = [v for v in nbr[ptr[s]:ptr[s + 1]].tolist() if t.is_server[v]]
        fan = (np.arange(len(mine)) - (len(mine) - 1) / 2) * (0.6 / max(1, len(sw)))
        for v, d in zip(mine, fan):
            pos[v] = 1.3 * np.array([np.cos(angle[i] + d), np.sin(angle[i] + d)])
    lonely = t.servers[~np.isin(t.servers, [v for v in range(t.n_nodes) if pos[v].any()])]
    if len(lonely):  # servers not hanging off a switch: place them by a spring layout
        pos[lonely] = spring(t)[lonely]
    return pos


def spring(t: Topology, seed: int = 0) -> np.ndarray:
    """A seeded force-directed layout (for graphs without a known structure)."""
    import networkx as nx  # here: only unstructured graphs need it, and its import (~0.1 s) delays the first screen
    g = nx.Graph()
    g.add_nodes_from(range(t.n_nodes))
    g.add_edges_from(t.edges.tolist())
    if t.n_nodes <= 60:
        got = nx.kamada_kawai_layout(g)
    else:
        got = nx.spring_layout(g, seed=seed, iterations=60)
    return np.array([got[v] for v in range(t.n_nodes)], dtype=float)


def tree_positions(parent: dict[int, int], root: int) -> dict[int, tuple[float, float]]:
    """Tidy top-down positions of a tree given child -> parent: root on top, leaves spaced evenly."""
    children: dict[int, list[int]] = {}
    for child, par in sorted(parent.items()):
        children.setdefault(par, []).append(child)
    depth = {root: 0}
    order = []  # depth-first pre-order, children ascending
    stack = [root]
    while stack:
        v = stack.pop()
        order.append(v)
        for c in reversed(children.get(v, [])):
            depth[c] = depth[v] + 1
            stack.append(c)
    x: dict[int, float] = {}
    leaf = 0.0
    for v in order:
        if v not in children:
            x[v] = leaf
            leaf += 1.0
    for v in reversed(order):
        if v in children:
            x[v] = (x[children[v][0]] + x[children[v][-1]]) / 2
    return {v: (x[v], -float(depth[v])) for v in order}


def _spread(n: int) -> np.ndarray:
    """n evenly spaced x positions in [0, 1] (one in the middle)."""
    return np.linspace(0.0, 1.0, n) if n > 1 else np.array([0.5])


def _mean_x(pos: np.ndarray, nbrs: np.ndarray, placed: np.ndarray) -> float:
    """Mean x of the already placed neighbours (0.5 when none is placed)."""
    done = nbrs[placed[nbrs]]
    return float(pos[done, 0].mean()) if len(done) else 0.5
