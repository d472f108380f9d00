"""DCell(n, k): Guo et al., "DCell: A Scalable and Fault-Tolerant Network Structure for Data
Centers", SIGCOMM 2008.

DCell_0 is n servers on one switch. DCell_k is g = t_{k-1} + 1 copies of DCell_{k-1}; for
every i < j, server j-1 of copy i links directly to server i of copy j. t_k = t_{k-1}·g.

>>> t = dcell(4, 1)
>>> (t.n_servers, t.n_nodes - t.n_servers, t.n_edges)
(20, 5, 30)
"""

from __future__ import annotations

import numpy as np

from .graph import MAX_SERVERS, Topology, TopologyError


def dcell_servers(n: int, k: int, cap: int = 2 ** 62) -> int:
    """t_k, the number of servers of DCell(n, k), or cap + 1 as soon as it exceeds `cap`."""
    t = n
    for _ in range(k):
        t = t * (t + 1)
        if t > cap:
            return cap + 1
    return t


def dcell(n: int, k: int) -> Topology:
    """Return DCell(n, k): t_k servers, t_k/n switches."""
    if n < 2:
        raise TopologyError(f"DCell needs n >= 2 servers per DCell_0, got n={n}")
    if k < 0:
        raise TopologyError(f"DCell needs k >= 0, got k={k}")
    t_k = dcell_servers(n, k, MAX_SERVERS)
    if t_k > MAX_SERVERS:
        raise TopologyError(f"DCell({n},{k}) has more than {MAX_SERVERS} servers; the limit is {MAX_SERVERS}")
    n_sw = t_k // n
    # level-0: server s joins switch s // n
    s = np.arange(t_k)
    edges = [np.stack([s, t_k + s // n], axis=1)]
    t_prev = n
    for level in range(1, k + 1):
        g = t_prev + 1
        block = t_prev * g  # servers in one DCell_level
        i, j = np.triu_indices(g, k=1)
        base = np.arange(t_k // block)[:, None] * block
        u = (base + i[None, :] * t_prev + (j[None, :] - 1)).reshape(-1)
        v = (base + j[None, :] * t_prev + i[None, :]).reshape(-1)
        edges.append(np.stack([u, v], axis=1))
        t_prev = block
    e = np.concatenate(edges)
    level = np.repeat(np.arange(len(edges)), [len(x) for x in edges])  # 0: server-switch, l: DCell_l links
    labels = [f"s{c}.{p}" for c, p in zip((s // n).tolist(), (s % n).tolist())]
    labels += [f"sw{c}" for c in range(n_sw)]
    is_server = np.r_[np.ones(t_k, bool), np.zeros(n_sw, bool)]
    group = np.r_[s // n, np.arange(n_sw)]
    return Topology(spec=f"dcell:n={n},k={k}", is_server=is_server, edges=e,
                    capacity=np.ones(len(e), np.int64), labels=tuple(labels), group=group, edge_level=level)
