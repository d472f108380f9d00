"""Rollouts of the hierarchical policy: validity, determinism, masks, traces."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from core.rl.features import LOWER_FEATURES, UPPER_FEATURES, Observer
from core.rl.policy import HierarchicalPolicy, PolicyConfig
from core.rl.rollout import play
from core.schedule_io import schedule_to_dict
from core.schedule import Schedule, ScheduleConfig
from core.workloads import build_dag
from core.topology import make_topology
from core.validate import validate_document

SPECS = ["example:fig3", "bcube:n=3,k=1", "dcell:n=4,k=1", "jellyfish:switches=10,ports=5,switch_ports=4,seed=0"]


def dag_of(spec):
    return build_dag(make_topology(spec), "tree")


def random_policy(seed=0):
    torch.manual_seed(seed)
    pol = HierarchicalPolicy(PolicyConfig(hidden=16))
    for p in pol.parameters():  # random, not the neutral zero-initialised output layer
        torch.nn.init.normal_(p, std=0.5)
    return pol


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("sample", [False, True])
def test_rollout_schedules_are_valid(spec, sample):
    dag = dag_of(spec)
    ep = play(dag, random_policy(), sample=sample, rng=np.random.default_rng(3))
    sched = Schedule("rl-sample" if sample else "rl", dag, ep.rounds, ScheduleConfig())
    rep = validate_document(json.loads(json.dumps(schedule_to_dict(sched))))
    assert rep.ok, rep.violations[:3]
    assert all(len(r) > 0 for r in ep.rounds)  # the fallback rule never makes an empty round


def test_seeded_rollout_is_deterministic():
    dag = dag_of("bcube:n=3,k=1")
    pol = random_policy()
    a = play(dag, pol, sample=True, rng=np.random.default_rng(7))
    b = play(dag, pol, sample=True, rng=np.random.default_rng(7))
    c = play(dag, pol, sample=True, rng=np.random.default_rng(8))
    assert [r.tolist() for r in a.rounds] == [r.tolist() for r in b.rounds]
    assert [r.tolist() for r in a.rounds] != [r.tolist() for r in c.rounds]


def fitting(dag, candidates, picked):
    """Candidates that fit beside `picked` (every link below capacity), computed from scratch."""
    used = np.zeros(dag.topology.n_links, int)
    for w in picked:
        used[dag.links.row(w)] += 1
    cap = dag.topology.link_capacity
    return {int(w) for w in candidates if w not in picked and np.all(used[dag.links.row(w)] < cap[dag.links.row(w)])}


@pytest.mark.parametrize("spec", ["dcell:n=4,k=1", "example:fig3"])
def test_each_step_scores_exactly_the_ready_candidates_that_fit(spec):
    dag = dag_of(spec)
    ep = play(dag, random_policy(), sample=True, rng=np.random.default_rng(1), record=True)
    sent = np.zeros(dag.n, bool)
    for rec, ids in zip(ep.records, ep.rounds):
        ready = {w for w in range(dag.n) if not sent[w] and sent[dag.prefix.row(w)].all()}
        assert set(rec.pool.tolist()) <= ready
        picked: list[int] = []
        for m, e in enumerate(rec.chosen.tolist()):
            scored = {int(rec.pool[p]) for p in rec.entry_cand[rec.entry_step == m]}
            assert scored == fitting(dag, rec.pool.tolist(), picked), f"step {m}: the mask is too strict or too loose"
            picked.append(int(rec.pool[rec.entry_cand[e]]))
        assert not fitting(dag, rec.pool.tolist(), picked), "the round closed while a candidate still fitted"
        assert sorted(picked) == ids.tolist()
        sent[ids] = True


def test_trace_steps_replay_the_round_pick_by_pick():
    dag = dag_of("dcell:n=4,k=1")
    ep = play(dag, random_policy(), sample=False, trace=True)
    sent = np.zeros(dag.n, bool)
    tr = ep.trace
    for ids, steps, trees, fallback in zip(ep.rounds, tr["steps"], tr["trees_selected"], tr["pool_fallback"]):
        ready = [w for w in range(dag.n) if not sent[w] and sent[dag.prefix.row(w)].all()
                 and (fallback or dag.tree[w] in trees)]
        picked: list[int] = []
        for s in steps:
            assert s["chosen"] in fitting(dag, ready, picked), "the trace's pick was masked at its step"
            assert s["n_valid"] == len(fitting(dag, ready, picked))
            picked.append(s["chosen"])
        assert sorted(picked) == ids.tolist()
        sent[ids] = True


def test_trace_shape_for_the_debugger():
    dag = dag_of("bcube:n=3,k=1")
    ep = play(dag, random_policy(), sample=False, trace=True)
    tr = ep.trace
    assert len(tr["tree_probs"]) == len(tr["trees_selected"]) == len(tr["steps"]) == ep.n_rounds
    assert all(len(p) == dag.n_trees for p in tr["tree_probs"])
    for ids, steps in zip(ep.rounds, tr["steps"]):
        assert sorted(s["chosen"] for s in steps) == sorted(ids.tolist())
        for s in steps:
            assert s["chosen"] in s["candidates"]
            assert len(s["candidates"]) == len(s["scores"])
            assert s["scores"] == sorted(s["scores"], reverse=True)


def test_features_shapes_are_size_independent():
    for spec in SPECS:
        dag = dag_of(spec)
        obs = Observer(dag)
        from core.engine import Engine
        st = obs.state(Engine(dag))
        ready = np.flatnonzero(st.ready)
        assert obs.lower(st, ready).shape == (len(ready), len(LOWER_FEATURES))
        assert obs.upper(st, np.zeros(dag.n_trees, bool), np.zeros(dag.n_trees)).shape == (dag.n_trees, len(UPPER_FEATURES))
        assert np.isfinite(obs.lower(st, ready)).all()
