"""Jellyfish(N, p, r): Singla, Hong, Popa, Godfrey, "Jellyfish: Networking Data Centers
Randomly", NSDI 2012.

N switches with p ports each; r ports of every switch go to other switches and p - r to
servers. Switch links come from random pairing: join a random pair of switches that both
have free ports and are not yet neighbours, until no such pair is left. Then the repair
step of the paper: while a switch has two or more free ports, remove a random link (x, y)
between two switches that are not its neighbours and join it to both x and y.

>>> t = jellyfish(10, 5, 4, seed=0)
>>> (t.n_servers, t.n_nodes - t.n_servers, t.n_edges)
(10, 10, 30)
"""

from __future__ import annotations

import numpy as np

from .graph import MAX_SERVERS, Topology, TopologyError


def jellyfish_links(n_switches: int, switch_ports: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """Random switch-to-switch links (switch indices 0..N-1) with the paper's repair step."""
    free = np.full(n_switches, switch_ports, dtype=np.int64)
    nbrs: list[set[int]] = [set() for _ in range(n_switches)]

    def valid_pairs() -> list[tuple[int, int]]:
        open_ = np.flatnonzero(free > 0).tolist()
        return [(a, b) for i, a in enumerate(open_) for b in open_[i + 1:] if b not in nbrs[a]]

    while True:
        stubs = np.repeat(np.arange(n_switches), free)
        pair = None
        for _ in range(32):  # cheap random tries before the exhaustive search
            if len(stubs) < 2:
                break
            a, b = rng.choice(stubs, size=2, replace=False)
            if a != b and b not in nbrs[a]:
                pair = (int(a), int(b))
                break
        if pair is None:
            pairs = valid_pairs()
            if not pairs:
                break
            pair = pairs[int(rng.integers(len(pairs)))]
        a, b = pair
        nbrs[a].add(b)
        nbrs[b].add(a)
        free[a] -= 1
        free[b] -= 1

    # repair: a switch with >= 2 free ports takes over a random link (x, y) as x-s-y
    while True:
        needy = np.flatnonzero(free >= 2)
        if len(needy) == 0:
            break
        s = int(needy[int(rng.integers(len(needy)))])
        links = [(x, y) for x in range(n_switches) for y in nbrs[x]
                 if x < y and s not in (x, y) and x not in nbrs[s] and y not in nbrs[s]]
        if not links:
            break
        x, y = links[int(rng.integers(len(links)))]
        nbrs[x].discard(y)
        nbrs[y].discard(x)
        for z in (x, y):
            nbrs[s].add(z)
            nbrs[z].add(s)
        free[s] -= 2
    return sorted((a, b) for a in range(n_switches) for b in nbrs[a] if a < b)


def jellyfish(switches: int, ports: int, switch_ports: int, seed: int = 0) -> Topology:
    """Return Jellyfish(N=switches, p=ports, r=switch_ports) built with the given seed."""
    n, p, r = switches, ports, switch_ports
    if n < 1:
        raise TopologyError(f"Jellyfish needs switches >= 1, got switches={n}")
    if r >= p:
        raise TopologyError(f"Jellyfish needs switch_ports < ports (servers get the rest), got switch_ports={r}, ports={p}")
    if r < 0:
        raise TopologyError(f"Jellyfish needs switch_ports >= 0, got switch_ports={r}")
    if r > n - 1:
        raise TopologyError(f"Jellyfish degree impossible: switch_ports={r} > switches-1={n - 1} (no parallel links)")
    if n > 2000:
        raise TopologyError(f"Jellyfish switches={n} is over the limit of 2000")
    if n * (p - r) > MAX_SERVERS:
        raise TopologyError(f"Jellyfish has switches*(ports-switch_ports) = {n * (p - r)} servers; the limit is {MAX_SERVERS}")
    if seed < 0:
        raise TopologyError(f"Jellyfish needs seed >= 0, got seed={seed}")
    per = p - r
    n_srv = n * per
    rng = np.random.default_rng(seed)
    sw_links = np.array(jellyfish_links(n, r, rng), dtype=np.int64).reshape(-1, 2)
    srv = np.arange(n_srv)
    e = np.concatenate([np.stack([srv, n_srv + srv // per], axis=1), n_srv + sw_links])
    labels = [f"s{i}" for i in range(n_srv)] + [f"sw{i}" for i in range(n)]
    is_server = np.r_[np.ones(n_srv, bool), np.zeros(n, bool)]
    group = np.r_[srv // per, np.arange(n)]
    spec = f"jellyfish:switches={n},ports={p},switch_ports={r},seed={seed}"
    try:
        return Topology(spec=spec, is_server=is_server, edges=e, capacity=np.ones(len(e), np.int64),
                        labels=tuple(labels), group=group, edge_level=np.repeat([0, 1], [n_srv, len(sw_links)]))
    except TopologyError as err:
        raise TopologyError(f"{spec}: {err} (random pairing left it disconnected; try another seed or more switch_ports)") from None
