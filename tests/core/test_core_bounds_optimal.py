"""Lower bounds are valid and the CP-SAT optimum is exact, checked against an independent
time-indexed CP-SAT model written in _corelib (no bounds, no hints, no head/tail windows)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from core.bounds import Bounds, lower_bounds, ports_bound
from core.methods import run_method
from core.schedule import ScheduleConfig
from core.engine import list_schedule
from core.priorities import critical_path_rank
from core.schedulers.optimal import solve_optimal
from core.topology import Topology
from core.workloads import ring_dag, tree_dag

from _corelib import (HEURISTICS, exact_min_rounds, longest_chain, make_graph, random_topologies, report,
                      rule_violations, schedule, topo)


def naive_bounds(dag):
    t = dag.topology
    cap = t.link_capacity
    load = np.zeros(t.n_links, int)
    for links in dag.links.to_lists():
        for lk in links:
            load[lk] += 1
    link_load = int(max(-(-load[lk] // cap[lk]) for lk in range(t.n_links)))
    out = {s: 0 for s in t.servers.tolist()}
    for lk in range(t.n_links):
        if t.is_server[t.link_src[lk]]:
            out[int(t.link_src[lk])] += int(cap[lk])
    ports = max(-(-dag.chunks * (t.n_servers - 1) // c) for c in out.values())
    return link_load, longest_chain(dag), ports


def dags_of(t, chunks=1):
    return {"merged": tree_dag(t, chunks=chunks), "plain": tree_dag(t, merge=False, chunks=chunks),
            "ring": ring_dag(t, chunks=chunks)}


@pytest.mark.parametrize("spec", ["example:fig3", "bcube:n=3,k=1", "dcell:n=4,k=1", "fattree:k=4",
                                  "jellyfish:switches=15,ports=5,switch_ports=4,seed=1"])
def test_bound_components_match_definitions(spec):
    for chunks in (1, 2):
        for kind, dag in dags_of(topo(spec), chunks).items():
            b = lower_bounds(dag)
            assert (b.link_load, b.critical_path, b.ports) == naive_bounds(dag), kind
            assert b.best == max(b.link_load, b.critical_path, b.ports, b.link_schedule)
            assert b.dag == max(b.link_load, b.critical_path)
            # the one-link relaxation refines both: a critical chain crosses some link, the busiest link
            # needs ceil(load / capacity) rounds
            assert b.link_schedule >= max(b.link_load, b.critical_path)
            assert ports_bound(dag) == b.ports


def test_bounds_of_bcube31():
    b = lower_bounds(tree_dag(topo("bcube:n=3,k=1")))
    assert b.as_dict() == {"link_load": 12, "critical_path": 4, "ports": 4, "link_schedule": 12, "best": 12}
    assert Bounds(1, 2, 3, 4).best == 4


def test_bcube31_optimal_is_twelve():
    s = schedule("bcube:n=3,k=1", "optimal", time_limit=5.0)
    assert s.n_rounds == 12
    assert s.info["proven_optimal"] is True and s.info["proven_bound"] == 12
    assert rule_violations(s.dag, s.rounds) == [] and report(s).ok
    assert s.stats()["gap"] == 0.0


SMALL = ["example:fig3", "bcube:n=2,k=1", "dcell:n=2,k=1", "fattree:k=2", "bcube:n=3,k=1", "dcell:n=3,k=1",
         "bcube:n=2,k=2"]


@pytest.mark.parametrize("spec", SMALL)
def test_optimal_not_worse_than_any_heuristic(spec):
    opt = schedule(spec, "optimal", time_limit=30.0)  # returns once proven; the margin is for a loaded machine
    assert opt.info["proven_optimal"] is True
    assert rule_violations(opt.dag, opt.rounds) == []
    assert opt.n_rounds >= lower_bounds(opt.dag).best
    for m in HEURISTICS:
        for seed in (0, 1):
            assert opt.n_rounds <= schedule(spec, m, seed=seed).n_rounds, (m, seed)


@pytest.mark.parametrize("spec,expected", [("example:fig3", 6), ("bcube:n=2,k=1", 4), ("fattree:k=2", 2),
                                           ("dcell:n=2,k=1", 6)])
def test_optimal_matches_independent_model(spec, expected):
    t = topo(spec)
    dag = tree_dag(t)
    horizon = len(list_schedule(dag, critical_path_rank(dag)))
    assert exact_min_rounds(dag, horizon) == expected
    assert schedule(spec, "optimal", time_limit=5.0).n_rounds == expected


def test_optimal_without_merge_and_with_capacity():
    # fig3, merge off: independent optimum vs the core solver
    t = topo("example:fig3")
    dag = tree_dag(t, merge=False)
    rounds, info = solve_optimal(dag, time_limit=5.0, workers=1)
    horizon = len(list_schedule(dag, critical_path_rank(dag)))
    want = exact_min_rounds(dag, horizon)
    assert len(rounds) == want and info["proven_optimal"] is True
    assert rule_violations(dag, rounds) == []
    # a capacity-2 link (cumulative constraint): star of 3 servers and one switch, one wide link
    t2 = make_graph([True, True, True, False], [(0, 3), (1, 3), (2, 3)], caps=[2, 1, 1])
    for d in (tree_dag(t2), tree_dag(t2, merge=False)):
        rounds, info = solve_optimal(d, time_limit=5.0, workers=1)
        h = len(list_schedule(d, critical_path_rank(d)))
        assert len(rounds) == exact_min_rounds(d, h) >= lower_bounds(d).best
        assert rule_violations(d, rounds) == []


def test_time_limit_returns_a_valid_schedule():
    # DCell(4,1): critical-path needs 26 rounds, the bound is 24
    s = run_method("optimal", topo("dcell:n=4,k=1"), ScheduleConfig(time_limit=1.0, workers=1))
    assert rule_violations(s.dag, s.rounds) == []
    assert 24 <= s.info["proven_bound"] <= s.n_rounds <= 26
    assert s.info["proven_optimal"] == (s.info["proven_bound"] == s.n_rounds)
    assert s.info["hint_rounds"] == 26


def test_no_solution_in_time_keeps_the_hint_and_a_proven_bound():
    # DCell(3,1): critical-path 16 rounds, bound 12, optimum 12 (RL reaches it); almost no time
    dag = tree_dag(topo("dcell:n=3,k=1"))
    rounds, info = solve_optimal(dag, time_limit=1e-9, workers=1)
    assert info["status"] == "UNKNOWN" and info["hint_rounds"] == len(rounds) == 16
    assert rule_violations(dag, rounds) == []
    assert info["proven_bound"] == 12 and info["proven_optimal"] is False


@settings(max_examples=60, deadline=None)
@given(random_topologies(max_nodes=6, max_servers=4, capacities=True))
def test_bounds_valid_and_optimal_exact_on_random_graphs(t: Topology):
    for kind, dag in dags_of(t).items():
        h = len(list_schedule(dag, critical_path_rank(dag)))
        exact = exact_min_rounds(dag, h)
        b = lower_bounds(dag)
        # no schedule beats the bound: the exact optimum is at least every bound
        assert exact >= b.best, (kind, exact, b)
        assert h >= exact
        if kind == "merged":
            rounds, info = solve_optimal(dag, time_limit=5.0, workers=1)
            assert rule_violations(dag, rounds) == []
            assert len(rounds) == exact and info["proven_optimal"] is True
    for m in HEURISTICS:
        s = run_method(m, t)
        assert s.n_rounds >= lower_bounds(s.dag).best
    opt = run_method("optimal", t, ScheduleConfig(time_limit=5.0, workers=1))
    for m in ("greedy", "critical-path"):  # same DAG: the optimum cannot be worse
        assert opt.n_rounds <= run_method(m, t).n_rounds


def test_every_info_key_of_optimal_is_documented():
    """Each key optimal writes under `info` (schedule file, `schedule --format json`) is explained as `info.<key>` in
    docs/model.md §12, whether the warm start meets the bound or CP-SAT searches (`info.hint_rounds` was not)."""
    from pathlib import Path
    doc = (Path(__file__).resolve().parents[2] / "docs" / "model.md").read_text()
    keys = set()
    for spec in ("bcube:n=2,k=1", "example:fig3"):  # bound met by critical-path; CP-SAT searches (6 rounds vs 5)
        _, info = solve_optimal(tree_dag(topo(spec)), time_limit=1.0, workers=1)
        keys |= set(info)
    assert "hint_rounds" in keys
    assert [k for k in sorted(keys) if f"`info.{k}`" not in doc] == []
