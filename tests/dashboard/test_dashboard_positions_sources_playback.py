"""Structured layouts, size predictions and the per-round arrays of a playback."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.methods import run_method
from core.schedule import ScheduleConfig
from core.topology import TopologyError, make_topology
from dashboard.sources import MAX_NODES, TooBig, check_drawable, family_spec, predicted_nodes
from dashboard.positions import positions, tree_positions
from dashboard.playback import build_playback, heatmap_table


@pytest.mark.parametrize("spec", ["bcube:n=3,k=1", "bcube:n=2,k=2", "fattree:k=4", "dcell:n=4,k=1",
                                  "jellyfish:switches=10,ports=5,switch_ports=4,seed=0"])
def test_positions_are_finite_and_distinct(spec):
    t = make_topology(spec)
    pos = positions(t)
    assert pos.shape == (t.n_nodes, 2) and np.isfinite(pos).all()
    assert len(np.unique(pos.round(6), axis=0)) == t.n_nodes


def test_layered_families_put_servers_at_the_bottom_and_levels_above():
    t = make_topology("bcube:n=3,k=2")
    pos = positions(t)
    assert np.all(pos[t.servers, 1] == 0)
    for level in range(1, 4):
        assert np.all(pos[t.layer == level, 1] > pos[t.layer == level - 1].max(axis=0)[1] - 1e-9)


def test_dcell_switches_sit_outside_the_ring_of_servers():
    t = make_topology("dcell:n=4,k=1")
    r = np.hypot(*positions(t).T)
    assert np.allclose(r[t.servers], 1.0) and np.all(r[t.switches] > 1.0)


def test_tree_positions_put_the_root_on_top_and_children_below_parents():
    parent = {1: 0, 2: 0, 3: 1, 4: 1}
    pos = tree_positions(parent, 0)
    assert pos[0][1] == 0 and all(pos[c][1] == pos[p][1] - 1 for c, p in parent.items())
    assert pos[0][0] == (pos[1][0] + pos[2][0]) / 2


@settings(max_examples=25, deadline=None)
@given(family=st.sampled_from(["bcube", "dcell", "fattree"]), n=st.integers(2, 5), k=st.integers(0, 2))
def test_predicted_sizes_equal_what_core_builds(family, n, k):
    params = {"k": 2 * n} if family == "fattree" else {"n": n, "k": k}
    want = predicted_nodes(family, params)
    if want is None or want > MAX_NODES:
        return
    assert make_topology(family_spec(family, params)).n_nodes == want


def test_absurd_parameters_are_refused_before_anything_is_built():
    assert predicted_nodes("dcell", {"n": 40, "k": 9}) > MAX_NODES
    assert predicted_nodes("bcube", {"n": 10, "k": 10_000}) > MAX_NODES
    with pytest.raises(TooBig, match="at most 600"):
        check_drawable(601, "x")
    assert issubclass(TooBig, TopologyError)


@pytest.mark.parametrize("method", ["ps", "ring", "critical-path"])
def test_playback_arrays_are_core_schedule_arrays(method):
    t = make_topology("dcell:n=4,k=1")
    s = run_method(method, t, ScheduleConfig())
    pb = build_playback(s)
    assert pb.n_rounds == s.n_rounds and pb.util_pct.shape == (t.n_links, s.n_rounds)
    assert np.array_equal(pb.util_pct, np.rint(s.utilization() * 100))
    for r in (0, s.n_rounds // 2, s.n_rounds - 1):
        view = pb.round(r)
        assert sorted(set(view.workloads.tolist())) == sorted(s.rounds[r].tolist())
        assert view.n_links_busy == pb.busy[r] == int((s.utilization()[:, r] > 0).sum())
        assert np.array_equal(view.trees, s.dag.tree[view.workloads])
    assert len(pb.round(s.n_rounds).links) == 0
    table = heatmap_table(pb)
    assert table.shape == (t.n_links, s.n_rounds + 2) and table["link"][0] == t.link_label(0)


def test_busy_caption_counts_working_links_when_some_failed():
    """A failed link is not idle capacity: the player's caption counts working links and says how many failed."""
    from core.methods import run_method
    from core.schedule import ScheduleConfig
    from core.topology import degrade, make_topology
    from dashboard.playback import build_playback
    from dashboard.round_player import _busy

    t = make_topology("bcube:n=3,k=1")
    assert _busy(build_playback(run_method("ring", t, ScheduleConfig())), 5) == "5 of 36 directed links busy"
    pb = build_playback(run_method("ring", degrade(t, fail="0"), ScheduleConfig()))
    assert pb.n_failed_links == 2 and _busy(pb, 5) == "5 of 34 working directed links busy (2 failed)"


def test_a_file_carrying_its_family_spec_is_drawn_as_that_family():
    """Trial 21: `topology bcube:n=3,k=1 --fail-links 1 --format json`, uploaded, was drawn with the spring layout.
    A file whose graph is the graph of the family spec it carries (failed links allowed) is drawn as that family;
    one edited away from it (a link removed), or carrying no spec, keeps the spring layout."""
    import json
    import subprocess
    import sys

    from core.topology import parse_topology_bytes
    from dashboard.positions import spring
    raw = subprocess.run([sys.executable, "-m", "core.cli", "topology", "bcube:n=3,k=1", "--fail-links", "1",
                          "--format", "json"], capture_output=True, check=True).stdout
    t = parse_topology_bytes(raw, "net.json", spec="upload:net.json")
    assert t.carried_spec == "bcube:n=3,k=1" and t.failed.sum() == 1
    assert np.array_equal(positions(t), positions(make_topology("bcube:n=3,k=1")))
    doc = json.loads(raw)
    del doc["spec"]
    plain = parse_topology_bytes(json.dumps(doc).encode(), "net.json", spec="upload:net.json")
    assert np.array_equal(positions(plain), spring(plain))
    doc = json.loads(raw)
    links = next(k for k in ("links", "edges") if k in doc)
    doc[links] = doc[links][1:]
    edited = parse_topology_bytes(json.dumps(doc).encode(), "net.json", spec="upload:net.json")
    assert edited.carried_spec == "bcube:n=3,k=1" and np.array_equal(positions(edited), spring(edited))
