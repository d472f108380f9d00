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


def test_masked_candidates_are_never_chosen():
    dag = dag_of("dcell:n=4,k=1")
    ep = play(dag, random_policy(), sample=True, rng=np.random.default_rng(1), record=True, trace=True)
    for rec, steps in zip(ep.records, ep.trace["steps"]):
        # every chosen entry is one of that step's valid candidates
        for m, e in enumerate(rec.chosen.tolist()):
            assert rec.entry_step[e] == m
        # within a step the valid candidates are distinct, and a picked candidate never reappears
        picked = set()
        for m in range(len(rec.chosen)):
            cands = rec.entry_cand[rec.entry_step == m]
            assert len(set(cands.tolist())) == len(cands)
            assert not (set(cands.tolist()) & picked)
            picked.add(int(rec.entry_cand[rec.chosen[m]]))
        assert [s["chosen"] for s in steps] == [int(x) for x in np.asarray(steps and [s["chosen"] for s in steps])]


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
