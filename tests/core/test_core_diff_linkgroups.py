"""Round differences between two schedules, and the link groups of every family."""

from __future__ import annotations

import numpy as np
import pytest

from core.diff import round_differences
from core.linkgroups import group_bandwidths, link_groups
from core.methods import run_method
from core.topology import make_topology


def test_round_differences_by_hand():
    a = [np.array([0, 1, 2]), np.array([3])]
    b = [np.array([1, 2]), np.array([0, 3]), np.array([4])]
    only_a, only_b = round_differences(a, b)
    assert [x.tolist() for x in only_a] == [[0], [], []]
    assert [x.tolist() for x in only_b] == [[], [0], [4]]


def test_round_differences_of_two_methods_cover_every_workload_once_each():
    t = make_topology("bcube:n=3,k=1")
    g, c = run_method("greedy", t), run_method("critical-path", t)
    only_g, only_c = round_differences(g.rounds, c.rounds)
    assert len(only_g) == max(g.n_rounds, c.n_rounds)
    # every workload that moved rounds appears exactly once on each side
    assert sorted(np.concatenate(only_g).tolist()) == sorted(np.concatenate(only_c).tolist())
    same = sum(len(set(x.tolist()) & set(y.tolist())) for x, y in zip(g.rounds, c.rounds))
    assert same + len(np.concatenate(only_g)) == g.dag.n


@pytest.mark.parametrize("spec,names,sizes", [
    ("bcube:n=3,k=1", ("level 0", "level 1"), [18, 18]),
    ("dcell:n=4,k=1", tuple(f"cell {c}" for c in range(5)) + ("level-1 links",), [8] * 5 + [20]),
    ("fattree:k=4", ("pod 0", "pod 1", "pod 2", "pod 3"), [24] * 4),
    ("jellyfish:switches=10,ports=5,switch_ports=4,seed=0", ("server-switch", "switch-switch"), [20, 40]),
])
def test_link_groups_by_hand(spec, names, sizes):
    g = link_groups(make_topology(spec))
    assert g.names == names and g.sizes.tolist() == sizes


def test_dcell_k2_groups_are_copies_of_dcell_k1_and_the_level2_links():
    t = make_topology("dcell:n=2,k=2")  # t1 = 6 servers per copy, 7 copies, 42 servers
    g = link_groups(t)
    assert len(g.names) == 8 and g.names[0] == "DCell(2,1) 0" and g.names[-1] == "level-2 links"
    assert g.sizes[-1] == 2 * 21  # one link per pair of the 7 copies
    assert (g.sizes[:-1] == g.sizes[0]).all()


@pytest.mark.parametrize("spec", ["bcube:n=2,k=2", "dcell:n=3,k=1", "fattree:k=2", "example:fig3"])
def test_group_utilization_is_the_mean_over_each_groups_links(spec):
    t = make_topology(spec)
    s = run_method("critical-path", t)
    util = s.utilization()
    g = link_groups(t)
    got = g.utilization(util)
    assert got.shape == (len(g.names), s.n_rounds)
    for i in range(len(g.names)):
        assert np.allclose(got[i], util[g.of_link == i].mean(axis=0))
    assert g.sizes.sum() == t.n_links


def test_group_bandwidths_follow_the_spec_levels_and_skip_failed_links():
    from core.topology import degrade

    t = make_topology("bcube:n=4,k=1,bw=100/25")
    assert group_bandwidths(link_groups(t), t) == [(100.0, 100.0), (25.0, 25.0)]
    level1 = np.flatnonzero(link_groups(t).of_edge == 1)
    slow = degrade(t, slow=f"{int(level1[0])}:x0.5", fail=str(int(level1[1])))
    assert group_bandwidths(link_groups(slow), slow) == [(100.0, 100.0), (12.5, 25.0)]
