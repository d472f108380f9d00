"""Every method's schedule is valid (engine rules, an independent rule check, the data-level validator
and an independent payload replay) and never beats the lower bound: on every Table 2 preset, on a
fat-tree, with chunks and without merging, with balanced routing, capacities > 1, and on random graphs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from core.bounds import lower_bounds
from core.engine import replay
from core.methods import METHODS, run_method
from core.schedule import ScheduleConfig
from core.topology import Topology, preset

from _corelib import (HEURISTICS, payload_problems, random_topologies, relays_through_root, report,
                      rule_violations, schedule, topo)

PRESET_SPECS = [p.spec for p in preset("table2")]
SPECS = PRESET_SPECS + ["fattree:k=4"]


def check_schedule(s, validator=True):
    dag = s.dag
    rounds = s.rounds
    assert rule_violations(dag, rounds) == []
    _, violations = replay(dag, rounds)
    assert violations == []
    assert payload_problems(dag, rounds) == []
    # every workload exactly once, rounds hold ids
    ids = np.concatenate(rounds) if rounds else np.zeros(0, np.int64)
    assert np.array_equal(np.sort(ids), np.arange(dag.n))
    assert s.n_rounds >= lower_bounds(dag).best
    if validator:
        rep = report(s)
        assert rep.ok, rep.violations[:5]
        assert (rep.rounds, rep.workloads, rep.trees) == (s.n_rounds, dag.n, dag.n_trees)


@pytest.mark.parametrize("method", HEURISTICS)
@pytest.mark.parametrize("spec", SPECS)
def test_valid_on_presets(spec, method):
    s = schedule(spec, method)
    check_schedule(s)
    t = topo(spec)
    n = t.n_servers
    if method == "ring":
        assert s.dag.kind == "ring" and s.info["ring_adjacent"] is True
        assert s.n_rounds >= 2 * (n - 1)
        if spec.startswith(("bcube", "dcell")):
            # every ring step is one switch hop or a direct link and each server sends and receives
            # once a step: Ring AllReduce takes exactly 2(S-1) rounds
            assert s.n_rounds == 2 * (n - 1)
            assert schedule(spec, method, chunks=2).n_rounds == 4 * (n - 1)
    elif method == "ps":
        assert s.dag.merge is False
    else:
        assert s.dag.merge is True and s.dag.n == 2 * n * (n - 1)


@pytest.mark.parametrize("method", HEURISTICS)
@pytest.mark.parametrize("spec", SPECS)
def test_valid_with_two_chunks(spec, method):
    s = schedule(spec, method, chunks=2)
    check_schedule(s)
    assert s.dag.chunks == 2
    assert s.stats()["rounds_per_chunk"] == s.n_rounds / 2
    assert s.dag.n == 2 * schedule(spec, method).dag.n


@pytest.mark.parametrize("method", ["greedy", "critical-path"])
@pytest.mark.parametrize("spec", SPECS)
def test_valid_without_merge(spec, method):
    s = schedule(spec, method, merge=False)
    check_schedule(s)
    assert s.dag.merge is False
    assert s.dag.n == schedule(spec, "ps").dag.n


@pytest.mark.parametrize("method", HEURISTICS)
@pytest.mark.parametrize("spec", ["bcube:n=3,k=1", "dcell:n=4,k=1", "fattree:k=4"])
def test_valid_with_balanced_routing(spec, method):
    s = schedule(spec, method, routing="balanced")
    check_schedule(s)
    assert s.dag.meta["routing"] == "balanced"


def test_ps_ignores_merge_and_greedy_merged_dag_is_smaller():
    assert schedule("bcube:n=3,k=1", "ps", merge=True).dag.n == schedule("bcube:n=3,k=1", "ps", merge=False).dag.n
    assert schedule("bcube:n=3,k=1", "greedy").dag.n == 144 < schedule("bcube:n=3,k=1", "ps").dag.n


def test_randomized_methods_depend_on_seed_only():
    assert {m.name for m in METHODS.values() if m.randomized} == {"ps", "greedy"}
    for m in ("ps", "greedy"):
        a = schedule("bcube:n=4,k=1", m, seed=3)
        b = run_method(m, topo("bcube:n=4,k=1"), ScheduleConfig(seed=3))
        assert [r.tolist() for r in a.rounds] == [r.tolist() for r in b.rounds]
    ps = {schedule("bcube:n=4,k=1", "ps", seed=s).n_rounds for s in range(3)}
    assert len(ps) > 1  # different seeds, different orders (42, 44, ... rounds)
    for m in ("ring", "critical-path"):
        a = schedule("bcube:n=4,k=1", m, seed=0)
        b = schedule("bcube:n=4,k=1", m, seed=5)
        assert [r.tolist() for r in a.rounds] == [r.tolist() for r in b.rounds]


def test_critical_path_meets_the_bound_where_known():
    # the merged DAG of BCube(4,1) and BCube(2,1): critical-path reaches the link-load bound
    assert schedule("bcube:n=4,k=1", "critical-path").n_rounds == 24 == lower_bounds(
        schedule("bcube:n=4,k=1", "critical-path").dag).best
    assert schedule("bcube:n=2,k=1", "critical-path").n_rounds == 4


def test_list_schedulers_send_maximal_rounds():
    """Greedy and critical-path are maximal: no ready workload left out of a round fits in it."""
    for m in ("greedy", "critical-path", "ps"):
        s = schedule("dcell:n=4,k=1", m)
        dag = s.dag
        sent = np.full(dag.n, -1)
        cap = dag.topology.link_capacity
        links = dag.links.to_lists()
        prefixes = dag.explicit().prefix.to_lists()
        for r, ids in enumerate(s.rounds):
            load = np.zeros(len(cap), int)
            for w in ids.tolist():
                for lk in links[w]:
                    load[lk] += 1
            for w in range(dag.n):
                if sent[w] < 0 and w not in set(ids.tolist()) and all(0 <= sent[p] < r for p in prefixes[w]):
                    assert any(load[lk] >= cap[lk] for lk in links[w]), (m, r, w)
            sent[ids] = r


def with_capacities(t: Topology, seed: int) -> Topology:
    caps = np.random.default_rng(seed).integers(1, 4, size=t.n_edges)
    return Topology(spec=t.spec + "+caps", is_server=t.is_server, edges=t.edges, capacity=caps, labels=t.labels)


@pytest.mark.parametrize("method", HEURISTICS)
def test_valid_with_capacities_above_one(method):
    t = with_capacities(topo("bcube:n=3,k=1"), 1)
    s = run_method(method, t)
    check_schedule(s)
    # a file written for it keeps the capacities
    assert report(s).ok


@settings(max_examples=50, deadline=None)
@given(random_topologies(max_nodes=7, capacities=True))
def test_every_heuristic_valid_on_random_graphs(t):
    for m in HEURISTICS:
        for cfg in (ScheduleConfig(), ScheduleConfig(chunks=2, merge=False)):
            s = run_method(m, t, cfg)
            # the validator's root-sum rule miscounts a ring relayed through its own root (see
            # test_validate_ring_relayed_through_root); everything else is checked there too
            check_schedule(s, validator=not (m == "ring" and relays_through_root(s.dag)))


def test_methods_registry():
    assert set(HEURISTICS) | {"time-aware", "optimal", "rl", "rl-sample"} == set(METHODS)
    assert {m.dag for m in METHODS.values()} == {"tree", "plain", "ring"}
    assert METHODS["ps"].dag == "plain" and METHODS["ring"].dag == "ring"
    assert {m.name for m in METHODS.values() if m.slow} == {"optimal", "rl-sample"}
    assert len({m.colour for m in METHODS.values()}) == len(METHODS)
