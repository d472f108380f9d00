"""The two Gymnasium environments: API conformance and action masks."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import core.rl.envs  # noqa: F401  (registers the environments)
from core.rl.envs import FlowTreeSelectionEnv, WorkloadSchedulingEnv

SPECS = ["example:fig3", "bcube:n=3,k=1", "dcell:n=4,k=1", "jellyfish:switches=10,ports=5,switch_ports=4,seed=0",
         "fattree:k=4"]


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("env_id", ["allreduce-lab/FlowTreeSelection-v0", "allreduce-lab/WorkloadScheduling-v0"])
def test_check_env(spec, env_id):
    env = gym.make(env_id, spec=spec)
    check_env(env.unwrapped, skip_render_check=True)


@pytest.mark.parametrize("spec", SPECS[:4])
def test_lower_mask_allows_only_ready_fitting_workloads(spec):
    env = WorkloadSchedulingEnv(spec=spec)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    dag = env.dag
    in_round: list[int] = []
    start_round = 0
    done = False
    while not done:
        mask = info["action_mask"].astype(bool)
        allowed = np.flatnonzero(mask)
        assert len(allowed) > 0
        ready = env.engine.ready_mask()
        assert ready[allowed].all(), "a masked-in workload is not ready"
        # every allowed workload fits beside what the round already holds
        used = np.zeros(dag.topology.n_links, int)
        for w in in_round:
            used[dag.links.row(w)] += 1
        cap = dag.topology.link_capacity
        fits = {int(w) for w in np.flatnonzero(ready) if w not in in_round
                and np.all(used[dag.links.row(w)] < cap[dag.links.row(w)])}
        # every allowed workload fits beside the round (not too loose), and every ready workload
        # that fits is allowed (not too strict; select-all makes the pool every ready workload)
        assert set(allowed.tolist()) == fits
        a = int(rng.choice(allowed))
        obs, r, term, trunc, info = env.step(a)
        assert r == pytest.approx(1 / dag.n)
        assert obs.shape == env.observation_space.shape
        if info["rounds"] > start_round:
            in_round, start_round = [], info["rounds"]
        else:
            in_round.append(a)
        done = term or trunc
    assert env.engine.done


def test_lower_invalid_action_changes_nothing():
    env = WorkloadSchedulingEnv(spec="bcube:n=3,k=1")
    _, info = env.reset(seed=0)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    sent = env.engine.n_sent
    _, r, term, trunc, info2 = env.step(bad)
    assert info2["invalid_action"] and r == 0.0 and not term and not trunc
    assert env.engine.n_sent == sent
    assert np.array_equal(info["action_mask"], info2["action_mask"])


def test_upper_mask_and_paper_reward():
    env = FlowTreeSelectionEnv(spec="bcube:n=3,k=1")
    _, info = env.reset(seed=0)
    dag = env.dag
    ready_trees = np.unique(dag.tree[env.engine.ready_mask()])
    assert np.array_equal(np.flatnonzero(info["action_mask"]), ready_trees)
    total, selected, done = 0.0, [], False
    while not done:
        selected.append(int(info["action_mask"].sum()))
        _, r, term, trunc, info = env.step(info["action_mask"])
        total += r
        done = term or trunc
    assert term and env.engine.done
    # eqs. 3-4 summed over R rounds: every flow sent once (F/F = 1), the selection bonus
    # 0.1 * selected/T each round, -T/F in every round but the last, and +10 at the end
    f, t, n_rounds = dag.n, dag.n_trees, env.engine.n_rounds
    expected = 1.0 + 0.1 * sum(selected) / t - (n_rounds - 1) * t / f + 10.0
    assert total == pytest.approx(expected, rel=1e-12)


def test_upper_empty_selection_falls_back_to_all_trees():
    env = FlowTreeSelectionEnv(spec="bcube:n=3,k=1")
    env.reset(seed=0)
    _, _, _, _, info = env.step(np.zeros(env.dag.n_trees, dtype=np.int8))
    assert info["sent"] > 0  # an empty selection never makes an empty round


def test_rounds_reward_counts_rounds():
    env = FlowTreeSelectionEnv(spec="example:fig3", reward="rounds")
    _, info = env.reset(seed=0)
    total, done = 0.0, False
    while not done:
        _, r, term, trunc, info = env.step(info["action_mask"])
        total += r
        done = term or trunc
    assert total == -env.engine.n_rounds


def test_upper_env_with_select_all_is_the_longest_chain_list_schedule():
    """Select-all over the default longest-chain fill plays exactly the engine's list schedule
    with rank (-tail, id): the env's rounds come from the shared engine's rules."""
    from core.engine import list_schedule
    env = FlowTreeSelectionEnv(spec="dcell:n=4,k=1")
    _, info = env.reset(seed=0)
    done = False
    while not done:
        _, _, term, trunc, info = env.step(info["action_mask"])
        done = term or trunc
    dag = env.dag
    want = list_schedule(dag, np.lexsort((np.arange(dag.n), -dag.tail)).argsort())
    assert [r.tolist() for r in env.engine.rounds] == [r.tolist() for r in want]
