"""Hand-placed drawing positions of core's teaching examples (the topologies come from core).

``example:fig3`` is the paper's Fig. 3 as core builds it: hosts A, B, C, D with links A–B,
B–C, B–D, C–D. A sits on top, B below it, C and D at the bottom, so the pruned link C–D of
A's tree is the bottom edge.
"""

from __future__ import annotations

POSITIONS: dict[str, dict[str, tuple[float, float]]] = {
    "fig3": {"A": (0.0, 1.0), "B": (0.0, 0.0), "C": (-1.0, -1.0), "D": (1.0, -1.0)},
}
"""Example name -> drawing position of each node, by label."""


def example_positions(name: str) -> dict[str, tuple[float, float]] | None:
    """Drawing positions of an example's nodes by label, or None for an example without them."""
    return POSITIONS.get(name)
