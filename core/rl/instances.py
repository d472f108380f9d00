"""Training and generalization instances of the universal policy: topologies, capacities, chunks.

An `Instance` is a topology with a chunk count; its workload DAG is the merged one. Two
helpers make the variety the issue asks for: `with_capacities` (unequal link capacities,
seeded) and `random_fabric` (a random switch graph with servers hanging off one or two
switches). Their specs are descriptive (``bcube:n=3,k=1|capacity=1..2,seed=3``), not for
`make_topology`. The three sets (training, generalization, confirmation) share no topology
(`test_rl_universal` checks it).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import networkx as nx
import numpy as np

from ..topology import Topology, degrade, make_topology
from ..workloads import WorkloadDAG, build_dag


@dataclass(frozen=True)
class Instance:
    """A topology spec (or a builder's descriptive one), its chunks, and how to build it."""

    spec: str
    chunks: int = 1
    capacity_seed: int | None = None   # unequal capacities (1 or 2) drawn with this seed
    random: tuple[int, int, int] | None = None  # random fabric (switches, servers, seed)
    fail: str | None = None            # failed links, as `topology.degrade` reads them ("random:0.1,seed=1")

    @property
    def name(self) -> str:
        """The instance's name: its topology spec and, when above 1, its chunks."""
        return self.topology_spec + ("" if self.chunks == 1 else f" chunks={self.chunks}")

    @property
    def topology_spec(self) -> str:
        """The spec of the topology it builds (descriptive for capacity variants and random fabrics)."""
        base = self.spec if self.random is None else "random:switches={},servers={},seed={}".format(*self.random)
        base = base if self.capacity_seed is None else f"{base}|capacity=1..2,seed={self.capacity_seed}"
        return base if self.fail is None else f"{base}|fail={self.fail}"

    def topology(self) -> Topology:
        """Build the topology."""
        t = make_topology(self.spec) if self.random is None else random_fabric(*self.random)
        t = t if self.capacity_seed is None else with_capacities(t, self.capacity_seed)
        if self.fail is not None:
            t = degrade(t, fail=self.fail)
            t = dataclasses.replace(t, spec=self.topology_spec)
        return t

    def dag(self) -> WorkloadDAG:
        """The merged workload DAG."""
        return build_dag(self.topology(), "tree", chunks=self.chunks)


def with_capacities(t: Topology, seed: int, choices: tuple[int, ...] = (1, 2)) -> Topology:
    """`t` with every link's capacity drawn from `choices` (seeded)."""
    cap = np.random.default_rng(seed).choice(np.asarray(choices, dtype=np.int64), size=t.n_edges)
    return dataclasses.replace(t, spec=f"{t.spec}|capacity={min(choices)}..{max(choices)},seed={seed}", capacity=cap)


def random_fabric(switches: int, servers: int, seed: int) -> Topology:
    """A connected random switch graph (about 1.5 links per switch) with `servers` servers, each on
    one random switch, a third of them dual-homed on a second one."""
    rng = np.random.default_rng(seed)
    g = nx.gnm_random_graph(switches, int(1.5 * switches), seed=int(rng.integers(2 ** 31)))
    parts = [sorted(c) for c in nx.connected_components(g)]
    for a, b in zip(parts, parts[1:]):  # join the components into one
        g.add_edge(a[0], b[0])
    sw_edges = np.array(sorted(g.edges()), dtype=np.int64).reshape(-1, 2) + servers
    home = rng.integers(switches, size=servers)
    edges = [(s, servers + int(home[s])) for s in range(servers)]
    for s in rng.choice(servers, size=servers // 3, replace=False).tolist():
        other = int(rng.integers(switches))
        if other != home[s]:
            edges.append((s, servers + other))
    e = np.concatenate([np.array(edges, dtype=np.int64), sw_edges])
    labels = tuple([f"s{i}" for i in range(servers)] + [f"sw{i}" for i in range(switches)])
    return Topology(spec=f"random:switches={switches},servers={servers},seed={seed}",
                    is_server=np.r_[np.ones(servers, bool), np.zeros(switches, bool)], edges=e,
                    capacity=np.ones(len(e), np.int64), labels=labels)


UNIVERSAL_TRAINING = (
    Instance("bcube:n=2,k=1"), Instance("bcube:n=3,k=1"), Instance("bcube:n=4,k=1"), Instance("bcube:n=2,k=2"),
    Instance("bcube:n=3,k=1", chunks=2), Instance("bcube:n=3,k=1", capacity_seed=1),
    Instance("dcell:n=2,k=1"), Instance("dcell:n=3,k=1"), Instance("dcell:n=4,k=1"),
    Instance("dcell:n=3,k=1", chunks=2), Instance("dcell:n=3,k=1", capacity_seed=2),
    Instance("jellyfish:switches=8,ports=4,switch_ports=3,seed=11"),
    Instance("jellyfish:switches=12,ports=5,switch_ports=4,seed=12"),
    Instance("jellyfish:switches=10,ports=6,switch_ports=4,seed=13"),
    Instance("jellyfish:switches=16,ports=5,switch_ports=4,seed=14"),
    Instance("jellyfish:switches=8,ports=4,switch_ports=3,seed=11", chunks=2),
    Instance("jellyfish:switches=12,ports=5,switch_ports=4,seed=12", capacity_seed=3),
    # Table 2's three Jellyfish configurations (Table 2 is not the generalization set)
    Instance("jellyfish:switches=10,ports=5,switch_ports=4,seed=0"),
    Instance("jellyfish:switches=15,ports=5,switch_ports=4,seed=1"),
    Instance("jellyfish:switches=20,ports=5,switch_ports=4,seed=0"),
    Instance("jellyfish:switches=15,ports=5,switch_ports=4,seed=1", capacity_seed=7),
    Instance("fattree:k=2"), Instance("fattree:k=4"), Instance("fattree:k=4", capacity_seed=4),
    Instance("leafspine:leaves=3,spines=2,servers=2"), Instance("leafspine:leaves=4,spines=2,servers=3"),
    Instance("leafspine:leaves=6,spines=3,servers=2"), Instance("leafspine:leaves=3,spines=2,servers=2", chunks=2),
    Instance("leafspine:leaves=4,spines=2,servers=3", capacity_seed=5),
    Instance("random", random=(6, 8, 1)), Instance("random", random=(8, 12, 2)), Instance("random", random=(10, 14, 3)),
    Instance("random", random=(8, 12, 2), capacity_seed=6),
)
"""What `allreduce-lab train --universal` trains on."""

GENERALIZATION = (
    Instance("bcube:n=3,k=2"), Instance("bcube:n=6,k=1"), Instance("bcube:n=5,k=1", chunks=2),
    Instance("dcell:n=2,k=2"), Instance("dcell:n=7,k=1"), Instance("dcell:n=5,k=1", capacity_seed=21),
    Instance("jellyfish:switches=24,ports=5,switch_ports=4,seed=21"),
    Instance("jellyfish:switches=14,ports=6,switch_ports=4,seed=22"),
    Instance("jellyfish:switches=30,ports=4,switch_ports=3,seed=23"),
    Instance("jellyfish:switches=18,ports=5,switch_ports=4,seed=24", capacity_seed=24),
    Instance("fattree:k=6"), Instance("leafspine:leaves=5,spines=3,servers=3", chunks=2),
    Instance("leafspine:leaves=8,spines=4,servers=4"), Instance("leafspine:leaves=5,spines=2,servers=4"),
    Instance("leafspine:leaves=6,spines=2,servers=3", capacity_seed=25),
    Instance("random", random=(14, 20, 101)), Instance("random", random=(20, 30, 102)),
    Instance("random", random=(12, 16, 103), capacity_seed=26),
    Instance("example:fig3"),
)
"""Topologies and seeds never used in training (the generalization benchmark's rows)."""

CONFIRMATION = (
    Instance("bcube:n=7,k=1"), Instance("bcube:n=2,k=4"),
    Instance("dcell:n=8,k=1"), Instance("dcell:n=6,k=1", capacity_seed=33),
    Instance("jellyfish:switches=20,ports=6,switch_ports=4,seed=31"),
    Instance("jellyfish:switches=16,ports=4,switch_ports=3,seed=32", capacity_seed=34),
    Instance("jellyfish:switches=12,ports=5,switch_ports=4,seed=33", chunks=2),
    Instance("leafspine:leaves=7,spines=3,servers=3"),
    Instance("leafspine:leaves=4,spines=3,servers=4", capacity_seed=36),
    Instance("random", random=(16, 22, 201)), Instance("random", random=(10, 12, 202), chunks=2),
    Instance("random", random=(14, 18, 203), capacity_seed=37),
)
"""A second held-out set, added after the generalization set's one miss (DCell(2,2)) was known: any change
made after seeing that miss is reported on these too, before and after. No topology (nor base topology)
of it is in training or generalization; fat-tree has none (k = 2, 4 train, 6 generalizes, 8 is too large)."""
