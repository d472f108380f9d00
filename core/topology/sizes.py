"""Sizes of topologies, computed without building them: what the size guard reads.

Family sizes come from the formulas of each paper (MODEL.md §1), evaluated with an early
stop, so that ``dcell:n=2,k=30`` or ``bcube:n=3,k=1000000000`` cost nothing. A built
topology (a file, an example) is measured: counts, and the route shape from a few
breadth-first searches.
"""

from __future__ import annotations

import math

import numpy as np

from ..guard import Size, capped_pow
from .dcell import dcell_servers

CAP = 2 ** 62
"""Counts above this are reported as CAP + 1 (far over any limit)."""


def bcube_size(n: int, k: int) -> Size:
    """BCube(n, k): n^(k+1) servers, (k+1) n^k switches, (k+1) n^(k+1) links; routes cross one switch."""
    servers = capped_pow(n, k + 1, CAP)
    per_level = capped_pow(n, k, CAP)
    levels = min(k + 1, CAP)
    switches = min(levels * per_level, CAP + 1)
    fanin = min(levels * (n - 1), CAP + 1)
    depth = levels * (n - 1) / max(n, 1)
    return Size(servers, switches, min(levels * servers, CAP + 1), segment=3, fanin=fanin, depth=depth,
                imbalance=3.0, name=f"BCube({n},{k})")


def dcell_size(n: int, k: int) -> Size:
    """DCell(n, k): t_k servers, t_k/n switches, t_k (1 + k/2) links.

    Routes cross at most 2^(k+1) - 1 servers; the mean, measured for n = 3..20, is close to
    that bound times (1 - 1/n)."""
    t = dcell_servers(n, k)
    diameter = capped_pow(2, k + 1, CAP) - 1
    return Size(t, t // max(n, 1), min(t + t * min(k, CAP) // 2, CAP + 1), segment=3, fanin=n - 1 + k,
                depth=float(diameter) * (1 - 1 / max(n, 2)), imbalance=2.0, name=f"DCell({n},{k})")


def fattree_size(k: int) -> Size:
    """Fat-tree(k): k^3/4 servers, 5k^2/4 switches, 3k^3/4 links; routes up to 6 links.

    With the lowest-id tie-break every inter-pod route climbs to the first core switch, so the
    busiest link carries about k^2/4 times the mean load.
    """
    s = k ** 3 // 4
    return Size(s, 5 * k * k // 4, 3 * k ** 3 // 4, segment=7, fanin=max(1, s - 1), depth=1.0,
                imbalance=max(3.0, k * k / 4), name=f"Fat-tree({k})")


def jellyfish_size(switches: int, ports: int, switch_ports: int) -> Size:
    """Jellyfish(N, p, r): N (p - r) servers, N switches, about N r / 2 switch links.

    Servers hang off single switches, so every route is one segment: its length is the
    switch graph's diameter plus the two server links (a random r-regular graph's diameter
    is about log N / log(r - 1) + 1).
    """
    n, p, r = switches, ports, switch_ports
    s = n * (p - r)
    if r >= 3:
        diameter = math.ceil(math.log(max(n, 2)) / math.log(r - 1)) + 1
    else:
        diameter = max(1, n - 1 if r <= 1 else n // 2)
    return Size(s, n, s + n * r // 2, segment=min(diameter, n) + 3, fanin=max(1, s - 1), depth=1.0,
                imbalance=4.5, name=f"Jellyfish({n},{p},{r})")


def leafspine_size(leaves: int, spines: int, servers: int) -> Size:
    """Leaf-spine: leaves·servers servers, leaves + spines switches, leaves·(servers + spines) links.

    Servers hang off single leaves: every route is one segment (server, leaf, spine, leaf,
    server). With the lowest-id tie-break all leaf-to-leaf routes climb to the first spine, so
    its link down to a leaf carries 2 m (S - m) workloads (m servers per leaf): that over the
    mean load is the imbalance."""
    s, e = leaves * servers, leaves * (servers + spines)
    imbalance = servers * (s - servers) * e / max(1, 2 * s * (s - 1))
    return Size(s, leaves + spines, e, segment=5, fanin=max(1, s - 1), depth=1.0,
                imbalance=max(3.0, imbalance), name=f"Leaf-spine({leaves},{spines},{servers})")




def measured_size(t, roots: int = 4) -> Size:
    """The Size of a built topology: counts, and the route shape from searches of a few roots.

    From each sampled root, a search that does not pass through other servers finds the
    servers that reach the root over switches only (fanin) and the longest such segment; a
    search over the whole graph gives the mean distance, which over the mean segment length
    estimates the depth.
    """
    n, s = t.n_nodes, t.n_servers
    servers = t.servers
    picks = servers[np.linspace(0, s - 1, min(roots, s)).astype(np.int64)]
    fanin, segment, depths = 1, 2, []
    for root in picks.tolist():
        dist = t.hops(np.array([root]))[0]
        # servers other than the root are sinks: a search from the root stops at each of them
        seg = t.hops(np.array([root]), through=~t.is_server)[0]
        seg = seg[servers[servers != root]]
        seg = seg[seg <= n]  # n + 1: not reached over switches only
        fanin = max(fanin, len(seg))
        segment = max(segment, int(seg.max()) + 1 if len(seg) else 2)
        mean_seg = float(seg.mean()) if len(seg) else 1.0
        depths.append(float(dist[servers].sum()) / max(1, s - 1) / mean_seg)
    return Size(s, n - s, t.n_edges, segment=segment, fanin=fanin, depth=max(1.0, float(np.mean(depths))),
                imbalance=4.0, name=t.spec)
