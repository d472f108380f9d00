"""Small named examples for teaching and exact tests.

``fig3``: the four hosts of the paper's Fig. 3. A, B, C, D are servers joined by the links
A–B, B–C, B–D and C–D. Routed toward A, C and D go through B, so C–D carries no flow of A's
tree and is pruned; without merging, the pieces of C and D each cross B→A on their own
(workloads ① and ② of the figure share that link); merged, B sends one workload that
carries B + C + D.

>>> t = fig3()
>>> (t.n_servers, t.n_edges, t.labels)
(4, 4, ('A', 'B', 'C', 'D'))
"""

from __future__ import annotations

import numpy as np

from .graph import Topology, TopologyError

EXAMPLES = ("fig3",)


def fig3() -> Topology:
    """The paper's Fig. 3 example: servers A, B, C, D with links A-B, B-C, B-D, C-D."""
    edges = np.array([[0, 1], [1, 2], [1, 3], [2, 3]])
    return Topology(spec="example:fig3", is_server=np.ones(4, bool), edges=edges,
                    capacity=np.ones(4, np.int64), labels=("A", "B", "C", "D"),
                    layer=np.array([0, 1, 2, 2]), group=np.array([0, 0, 0, 1]))


def example(name: str) -> Topology:
    """A named example topology (raises TopologyError for an unknown name)."""
    if name == "fig3":
        return fig3()
    raise TopologyError(f"unknown example {name!r}; known: {', '.join(EXAMPLES)}")
