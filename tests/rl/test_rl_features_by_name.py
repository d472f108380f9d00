"""Lower-agent features by name: `unlock_starving`, and checkpoints that list fewer features.

A checkpoint's sidecar lists the round-start features its policy reads (`lower_features`); the
observer computes them by name, so the checkpoints made before `unlock_starving` existed (twelve
features) load and give the schedules they gave before it was added.
"""

from __future__ import annotations

import hashlib
import json
import shutil

import numpy as np
import pytest

from core.engine import Engine, list_schedule
from core.methods import run_method
from core.priorities import critical_path_rank
from core.rl.checkpoint import CheckpointError, checkpoint_dir, load_checkpoint, save_checkpoint
from core.rl.features import LOWER_FEATURES, Observer
from core.rl.instances import UNIVERSAL_TRAINING
from core.rl.policy import HierarchicalPolicy, PolicyConfig
from core.rl.rollout import play
from core.schedule import ScheduleConfig
from core.topology import make_topology
from core.workloads import build_dag

OLD = LOWER_FEATURES[:12]

# sha256 of repr([sorted(round) for round in rounds]), computed with the code before `unlock_starving` (main at
# 1fd03a5) and the shipped twelve-feature checkpoints
BEFORE = {
    ("bcube_n3_k1", "bcube:n=3,k=1", "rl"): (12, "248bdaae0baf0a75c64080e390659f422fc324d350e21370101a9615d785ad67"),
    ("dcell_n4_k1", "dcell:n=4,k=1", "rl"): (24, "0f63548e6b9f327af33080e376816f143140845b5b0446917e4ab3a252817c75"),
    ("jellyfish_s10_p5_r4_seed0", "bcube:n=3,k=1", "rl"):
        (14, "3fbcdf71eb3821bc3dfcc5cb81f8ca8222b00867143fc1b104526714c7351d9e"),
    ("jellyfish_s10_p5_r4_seed0", "dcell:n=4,k=1", "rl"):
        (26, "09c6dcaf0e355a5ad22af824c5e2686e8f8b442ddec590fb972282462832d95d"),
    ("jellyfish_s10_p5_r4_seed0", "dcell:n=4,k=1", "rl-sample"):
        (25, "80f2b930cebf2e051f5f2237fa599a618b4303140883040d6fdbc3fb69864b80"),
}


def _digest(rounds) -> str:
    return hashlib.sha256(repr([sorted(r.tolist()) for r in rounds]).encode()).hexdigest()


@pytest.mark.parametrize("key", sorted(BEFORE))
def test_old_checkpoints_give_the_same_schedules(key):
    ck, spec, method = key
    _, meta = load_checkpoint(checkpoint_dir() / ck)
    assert meta["lower_features"] == list(OLD)  # a twelve-feature checkpoint
    # no opening: the hashes were taken before rl-sample had one (its default is now a split, docs/rl.md)
    s = run_method(method, make_topology(spec), ScheduleConfig(checkpoint=str(checkpoint_dir() / ck), samples=4, seed=0,
                                                               opening=None))
    assert (s.n_rounds, _digest(s.rounds)) == BEFORE[key]


def test_old_checkpoint_reads_twelve_features_and_its_trace_says_so():
    policy, _ = load_checkpoint(checkpoint_dir() / "bcube_n3_k1")
    assert policy.lower_features == OLD and policy.config.n_lower == 12
    tr = play(build_dag(make_topology("bcube:n=2,k=1"), "tree"), policy, sample=False, trace=True).trace
    assert tr["lower_features"] == list(OLD) and len(tr["terms"]) == 12 + 3 + 2
    assert len(tr["steps"][0][0]["features"][0]) == 15


def test_new_policy_saves_and_loads_thirteen_features(tmp_path):
    pol = HierarchicalPolicy(PolicyConfig(hidden=8, prior="heuristic"))
    save_checkpoint(pol, tmp_path / "new", {"topology": None})
    side = json.loads((tmp_path / "new.json").read_text())
    assert side["lower_features"] == list(LOWER_FEATURES) and side["lower_features"][-1] == "unlock_starving"
    assert side["policy"]["n_lower"] == 13 and "lower_features" not in side["policy"]
    loaded, _ = load_checkpoint(tmp_path / "new")
    assert loaded.lower_features == LOWER_FEATURES


def _edited(tmp_path, change):
    src = checkpoint_dir() / "bcube_n3_k1"
    side = json.loads(src.with_suffix(".json").read_text())
    side.update(change)
    (tmp_path / "ck.json").write_text(json.dumps(side))
    shutil.copy(src.with_suffix(".safetensors"), tmp_path / "ck.safetensors")
    return tmp_path / "ck"


@pytest.mark.parametrize("features,needle", [
    (list(OLD[:11]) + ["unlocks_magic"], "unknown lower feature 'unlocks_magic'"),
    (list(OLD[:11]) + ["tail"], "lower feature 'tail' listed twice"),
    ([], "lower_features must be a non-empty list"),
    ("tail", "lower_features must be a non-empty list"),
])
def test_a_sidecar_naming_an_unknown_feature_is_refused_in_one_line(tmp_path, features, needle):
    with pytest.raises(CheckpointError, match=needle) as info:
        load_checkpoint(_edited(tmp_path, {"lower_features": features}))
    assert "\n" not in str(info.value)


def test_a_sidecar_listing_more_features_than_its_network_reads_is_refused(tmp_path):
    with pytest.raises(CheckpointError, match="n_lower must be 13"):
        load_checkpoint(_edited(tmp_path, {"lower_features": list(LOWER_FEATURES)}))


def test_the_policy_reads_the_columns_its_sidecar_lists_in_that_order(tmp_path):
    # the same weights listed in another order read other columns: the schedule follows the names
    order = [OLD[1], OLD[0]] + list(OLD[2:])
    a, _ = load_checkpoint(_edited(tmp_path, {"lower_features": order}))
    assert a.lower_features == tuple(order)
    dag = build_dag(make_topology("dcell:n=3,k=1"), "tree")
    obs = Observer(dag)
    st = obs.state(Engine(obs.dag))
    ready = np.flatnonzero(st.ready)
    full = obs.lower(st, ready)
    np.testing.assert_array_equal(obs.lower(st, ready, order), full[:, [1, 0] + list(range(2, 12))])


def test_heuristic_prior_is_set_by_name_and_leaves_unlock_starving_at_zero():
    for names in (LOWER_FEATURES, OLD, ("link_pressure_max", "unlock_starving", "tail")):
        pol = HierarchicalPolicy(PolicyConfig(prior="heuristic", lower_features=tuple(names), n_lower=len(names)))
        w = dict(zip(names, pol.lower_skip.weight[0].tolist()))
        assert w["tail"] == 5.0 and w["link_pressure_max"] == 5.0
        assert all(v == 0.0 for k, v in w.items() if k not in ("tail", "link_pressure_max"))
    # the untrained prior decodes the same with or without the new column (its weight is zero, the MLP's last
    # layer starts at zero)
    dag = build_dag(make_topology("dcell:n=3,k=1"), "tree")
    new = play(dag, HierarchicalPolicy(PolicyConfig(prior="heuristic")), sample=False)
    old = play(dag, HierarchicalPolicy(PolicyConfig(prior="heuristic", lower_features=OLD, n_lower=12)), sample=False)
    assert [r.tolist() for r in new.rounds] == [r.tolist() for r in old.rounds]


def _unlock_reference(obs: Observer, st, cand) -> np.ndarray:
    """`unlock_starving` as its docstring defines it, one workload at a time."""
    d = obs.dag
    sent = st.round_sent
    ready = np.flatnonzero(st.ready)
    on = np.bincount(d.links.gather(ready)[1], minlength=d.topology.n_links)
    cap = d.topology.link_capacity
    out = []
    for w in cand:
        best = 0.0
        for s in d.successors.values[d.successors.ptr[w]:d.successors.ptr[w + 1]]:
            if sent[s] or any(p != w and not sent[p] for p in d.deps.values[d.deps.ptr[s]:d.deps.ptr[s + 1]]):
                continue
            for link in d.links.values[d.links.ptr[s]:d.links.ptr[s + 1]]:
                if on[link] <= cap[link]:
                    best = max(best, st.remaining[link] / st.lmax)
        out.append(best)
    return np.array(out, np.float32)


@pytest.mark.parametrize("inst", [UNIVERSAL_TRAINING[i] for i in (3, 9, 10, 11, 24)], ids=lambda i: i.name)
def test_unlock_starving_matches_its_definition_every_round(inst):
    dag = inst.dag()
    obs = Observer(dag)
    eng = Engine(obs.dag)
    seen = 0
    for ids in list_schedule(obs.dag, critical_path_rank(obs.dag)):
        st = obs.state(eng)
        ready = np.flatnonzero(st.ready)
        got = obs.lower(st, ready)[:, LOWER_FEATURES.index("unlock_starving")]
        np.testing.assert_array_equal(got, _unlock_reference(obs, st, ready))
        assert ((got >= 0) & (got <= 1)).all()
        seen += int((got > 0).sum())
        eng.apply(ids)
    assert seen > 0  # it is not identically zero


def test_an_added_feature_starts_at_zero_and_leaves_the_random_start_unchanged():
    import torch
    torch.manual_seed(7)
    new = HierarchicalPolicy(PolicyConfig(hidden=16, prior="heuristic"))
    after_new = torch.rand(4)
    torch.manual_seed(7)
    old = HierarchicalPolicy(PolicyConfig(hidden=16, prior="heuristic", lower_features=OLD, n_lower=12))
    assert torch.equal(after_new, torch.rand(4))  # the same random numbers were drawn
    a, b = new.state_dict(), old.state_dict()
    j = LOWER_FEATURES.index("unlock_starving")
    for k in a:
        if a[k].shape != b[k].shape:  # the first layer and the skip path: one column more, at zero
            assert torch.equal(a[k][:, j], torch.zeros(a[k].shape[0]))
            assert torch.equal(torch.cat([a[k][:, :j], a[k][:, j + 1:]], 1), b[k])
        else:
            assert torch.equal(a[k], b[k])


def test_the_shipped_universal_checkpoint_reads_unlock_starving_and_its_table2_ones_do_not():
    policy, meta = load_checkpoint(checkpoint_dir() / "universal")
    assert policy.lower_features == LOWER_FEATURES and meta["updates"] == 2700
    for ck in ("bcube_n3_k1", "dcell_n6_k1", "jellyfish_s20_p5_r4_seed0"):
        assert load_checkpoint(checkpoint_dir() / ck)[0].lower_features == OLD


def test_every_feature_has_one_line_saying_what_it_is():
    """The policy debugger shows these lines beside the features' names (trial 26: bare names said nothing)."""
    from core.rl.features import DYNAMIC_FEATURES, LOWER_FEATURES, LOWER_MEANINGS, UPPER_FEATURES, UPPER_MEANINGS
    assert list(LOWER_MEANINGS) == [*LOWER_FEATURES, *DYNAMIC_FEATURES]
    assert list(UPPER_MEANINGS) == list(UPPER_FEATURES)
    assert all(v and "\n" not in v for v in [*LOWER_MEANINGS.values(), *UPPER_MEANINGS.values()])
