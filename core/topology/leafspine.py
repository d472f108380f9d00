"""Leaf-spine (two-tier Clos): every leaf switch links to every spine switch; servers hang off
the leaves. The fabric of most current data centers (e.g. Alizadeh and Edsall, "On the Data
Path Performance of Leaf-Spine Datacenter Fabrics", HOTI 2013).

>>> t = leafspine(4, 2, 3)
>>> (t.n_servers, t.n_nodes - t.n_servers, t.n_edges)
(12, 6, 20)
"""

from __future__ import annotations

import numpy as np

from .graph import Topology, TopologyError

MAX_SERVERS = 100_000


def leafspine(leaves: int, spines: int, servers: int) -> Topology:
    """Return Leaf-spine(leaves, spines, servers per leaf): leaves·servers servers,
    leaves + spines switches, leaves·(servers + spines) links."""
    if leaves < 1:
        raise TopologyError(f"leaf-spine needs leaves >= 1, got leaves={leaves}")
    if spines < 1:
        raise TopologyError(f"leaf-spine needs spines >= 1, got spines={spines}")
    if servers < 1:
        raise TopologyError(f"leaf-spine needs servers >= 1 per leaf, got servers={servers}")
    if leaves * servers < 2:
        raise TopologyError(f"leaf-spine needs at least 2 servers, got leaves*servers={leaves * servers}")
    if leaves * servers > MAX_SERVERS or leaves * spines > 10 ** 6:
        raise TopologyError(f"leaf-spine with {leaves * servers} servers and {leaves * spines} fabric links "
                            f"is over the limit of {MAX_SERVERS} servers / 1000000 links")
    n_srv = leaves * servers
    leaf0, spine0 = n_srv, n_srv + leaves
    srv = np.arange(n_srv)
    e_srv = np.stack([srv, leaf0 + srv // servers], axis=1)
    lf, sp = np.meshgrid(np.arange(leaves), np.arange(spines), indexing="ij")
    e_fab = np.stack([leaf0 + lf.ravel(), spine0 + sp.ravel()], axis=1)
    e = np.concatenate([e_srv, e_fab])
    labels = ([f"h{i // servers}.{i % servers}" for i in range(n_srv)] + [f"leaf{i}" for i in range(leaves)]
              + [f"spine{i}" for i in range(spines)])
    is_server = np.r_[np.ones(n_srv, bool), np.zeros(leaves + spines, bool)]
    layer = np.r_[np.zeros(n_srv), np.ones(leaves), np.full(spines, 2)].astype(np.int64)
    group = np.r_[srv // servers, np.arange(leaves), np.arange(spines)]
    return Topology(spec=f"leafspine:leaves={leaves},spines={spines},servers={servers}", is_server=is_server,
                    edges=e, capacity=np.ones(len(e), np.int64), labels=tuple(labels), layer=layer, group=group)
