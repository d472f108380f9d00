"""The fast paths of `rl`: the compiled greedy decoder makes the step loop's picks; the
compiled pressures equal the level sweep; the scaled mode's critical-path fallback is recorded."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from core.engine import Engine, RoundBuilder
from core.methods import run_method
from core.rl import rollout
from core.rl.decode import greedy_round
from core.rl.features import Observer
from core.rl.policy import HierarchicalPolicy, PolicyConfig
from core.schedule import ScheduleConfig
from core.topology import make_topology
from core.workloads import build_dag

SPECS = ["bcube:n=3,k=1", "dcell:n=3,k=1", "jellyfish:switches=10,ports=5,switch_ports=4,seed=0", "fattree:k=4"]


def _random_policy(seed: int) -> HierarchicalPolicy:
    torch.manual_seed(seed)
    pol = HierarchicalPolicy(PolicyConfig(hidden=8, prior="heuristic"))
    for p in pol.lower.parameters():
        torch.nn.init.normal_(p, std=0.5)
    return pol


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("chunks", [1, 2])
def test_compiled_decoder_makes_the_step_loops_picks(spec, chunks):
    dag = build_dag(make_topology(spec), "tree", chunks=chunks)
    obs = Observer(dag)
    eng = Engine(dag)
    rng = np.random.default_rng(len(spec) + chunks)
    for r in range(4):
        st = obs.state(eng)
        pool = np.flatnonzero(st.ready)
        h = rng.normal(size=len(pool))
        c = rng.normal(size=(len(pool), 3))
        if r == 1:  # ties everywhere: the lowest position must win in both
            h[:], c[:] = 0.0, 0.0
        slow, fast = RoundBuilder(eng, pool), RoundBuilder(eng, pool)
        rollout._steps(slow, h, c, None, 1.0, False, None)
        picks = greedy_round(fast, h, c)
        assert slow.picked == fast.picked == picks.tolist()
        assert np.array_equal(slow.valid, fast.valid) and fast.n_valid == 0
        assert np.array_equal(slow.used, fast.used) and np.array_equal(slow.on_link, fast.on_link)
        eng.apply(fast.ids())


def test_round_builder_take_refuses_picks_that_overfill():
    dag = build_dag(make_topology("bcube:n=3,k=1"))
    eng = Engine(dag)
    pool = np.flatnonzero(eng.ready_mask())
    b = RoundBuilder(eng, pool)
    on_first = [i for i in range(len(pool)) if set(dag.links.row(pool[i])) & set(dag.links.row(pool[0]))]
    with pytest.raises(ValueError, match="do not fit"):
        b.take(np.array(on_first[:2]))  # two workloads on one capacity-1 link
    assert b.picked == [] and b.used.sum() == 0  # nothing changed


@pytest.mark.parametrize("spec", SPECS)
def test_compiled_pressures_equal_the_level_sweep(spec):
    dag = build_dag(make_topology(spec), "tree", chunks=2)
    obs = Observer(dag)
    eng = Engine(dag)
    for _ in range(3):
        eng.apply(eng.fill(np.flatnonzero(eng.ready_mask())))
    st = obs.state(eng)
    d = obs.dag
    sent = eng.sent_round >= 0
    press = np.r_[st.remaining / st.lmax, 0.0][d.links_padded].max(axis=1)
    desc = np.where(sent, 0.0, press)
    for level in reversed(d.topo_levels[:-1]):  # successors' levels first
        for w in level:
            if not sent[w]:
                desc[w] = max([desc[w]] + [desc[s] for s in d.successors.row(w)])
    assert np.array_equal(st.pressure, press) and np.array_equal(st.desc_pressure, desc)


def test_scaled_mode_falls_back_to_critical_path_and_says_so(monkeypatch):
    monkeypatch.setattr(rollout, "POOL_LIMIT", 8)
    cp = run_method("critical-path", make_topology("bcube:n=4,k=1")).n_rounds
    seen = set()
    for spec in ("bcube:n=3,k=1", "bcube:n=4,k=1"):
        s = run_method("rl", make_topology(spec), ScheduleConfig(trace=True))  # replayed by the registry
        i = s.info
        assert i["scaled_rounds"] > 0
        assert s.n_rounds == min(i["policy_rounds"], i["critical_path_rounds"])
        if i["fallback"]:
            assert i["critical_path_rounds"] < i["policy_rounds"] and s.trace is None and "upper_agent" not in i
        else:
            assert s.n_rounds == i["policy_rounds"] and s.trace is not None
        seen.add(bool(i["fallback"]))
        if spec == "bcube:n=4,k=1":
            assert i["critical_path_rounds"] == cp
    assert seen == {True, False}  # both outcomes occur on these two


def test_no_fallback_without_the_scaled_mode():
    s = run_method("rl", make_topology("bcube:n=4,k=1"), ScheduleConfig(trace=False))
    assert s.info["scaled_rounds"] == 0 and "fallback" not in s.info and "policy_rounds" not in s.info
