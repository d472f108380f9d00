"""Link groups: a topology's links gathered by structure, for views too big to draw link by link.

BCube: one group per level (the links of a level's switches). DCell(n, k), k >= 1: one group per
top-level copy of DCell(n, k-1) (its inner links) and one for the level-k links between copies.
Fat-tree: one group per pod (host, edge and aggregation links, and its aggregation-core links).
Jellyfish and anything else: by the kinds of the two ends (server-switch, switch-switch,
server-server).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .topology import Topology, TopologyError, parse_spec
from .topology.dcell import dcell_servers


@dataclass(frozen=True, eq=False)
class LinkGroups:
    """Every undirected link's group, and the groups' names."""

    names: tuple[str, ...]
    of_edge: np.ndarray
    """Group index of each undirected link (E,)."""

    @property
    def of_link(self) -> np.ndarray:
        """Group index of each directed link (links 2e and 2e+1 are edge e)."""
        return np.repeat(self.of_edge, 2)

    @property
    def sizes(self) -> np.ndarray:
        """Number of directed links in each group."""
        return 2 * np.bincount(self.of_edge, minlength=len(self.names))

    def utilization(self, util: np.ndarray) -> np.ndarray:
        """Mean of `util` (directed links x rounds, e.g. share of capacity) over each group's links: groups x rounds."""
        util = np.asarray(util, dtype=float)
        sums = np.zeros((len(self.names), util.shape[1]))
        np.add.at(sums, self.of_link, util)
        return sums / np.maximum(self.sizes, 1)[:, None]


def group_bandwidths(groups: LinkGroups, t: Topology) -> list[tuple[float, float]]:
    """(slowest, fastest) bandwidth in Gbit/s of each group's working links ((0, 0) when all have failed)."""
    out = []
    for g in range(len(groups.names)):
        bw = t.bandwidth[(groups.of_edge == g) & ~t.failed]
        out.append((float(bw.min()), float(bw.max())) if len(bw) else (0.0, 0.0))
    return out


def link_groups(t: Topology) -> LinkGroups:
    """The link groups of a topology, chosen by its family (see the module docstring)."""
    try:
        family, params = parse_spec(t.spec)
    except TopologyError:
        family, params = "", {}
    u, v = t.edges[:, 0], t.edges[:, 1]
    if family == "bcube":
        switch = np.where(t.is_server[u], v, u)
        levels = t.layer[switch] - 1
        return LinkGroups(tuple(f"level {lv}" for lv in range(int(levels.max()) + 1)), levels.astype(np.int64))
    if family == "dcell" and params.get("k", 0) >= 1:
        n, k = params["n"], params["k"]
        per_copy = dcell_servers(n, k - 1)
        copy = np.where(t.is_server, np.arange(t.n_nodes), -1) // per_copy
        copy[~t.is_server] = (t.group[~t.is_server] * n) // per_copy  # a switch's cell lies in one copy
        n_copies = per_copy + 1
        unit = "cell" if k == 1 else f"DCell({n},{k - 1})"
        of_edge = np.where(copy[u] == copy[v], copy[u], n_copies)
        return LinkGroups(tuple(f"{unit} {c}" for c in range(n_copies)) + (f"level-{k} links",), of_edge)
    if family == "fattree":
        pod = t.group.copy()
        core = t.layer == 3
        pod[core] = -1
        ends = np.where(pod[u] >= 0, pod[u], pod[v])
        return LinkGroups(tuple(f"pod {p}" for p in range(params["k"])), ends.astype(np.int64))
    kinds = t.is_server[u].astype(np.int64) + t.is_server[v].astype(np.int64)  # 0 switch-switch, 1 mixed, 2 servers
    present = [k for k in (1, 0, 2) if (kinds == k).any()]
    names = {1: "server-switch", 0: "switch-switch", 2: "server-server"}
    index = {k: i for i, k in enumerate(present)}
    return LinkGroups(tuple(names[k] for k in present), np.array([index[k] for k in kinds.tolist()], dtype=np.int64))
