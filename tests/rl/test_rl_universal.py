"""The universal policy's instance sets, checkpoint resolution, multi-DAG training, the scaled mode."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from core.methods import run_method
from core.rl import rollout
from core.rl.checkpoint import UNIVERSAL, checkpoint_dir, find_checkpoint, save_checkpoint
from core.rl.instances import CONFIRMATION, GENERALIZATION, UNIVERSAL_TRAINING, Instance, random_fabric, with_capacities
from core.rl.policy import HierarchicalPolicy, PolicyConfig
from core.rl.rollout import play
from core.rl.train import TrainConfig, segment_log_softmax, train
from core.schedule import ScheduleConfig
from core.topology import make_topology
from core.workloads import build_dag
from _rltest import JF10, noisy_checkpoint  # tests/rl/_rltest.py


def test_generalization_set_shares_no_topology_with_training():
    train_specs = {x.topology_spec for x in UNIVERSAL_TRAINING}
    assert not train_specs & {x.topology_spec for x in GENERALIZATION}
    families = {x.topology_spec.split(":")[0] for x in UNIVERSAL_TRAINING}
    assert families == {"bcube", "dcell", "jellyfish", "fattree", "leafspine", "random"}
    assert {x.chunks for x in UNIVERSAL_TRAINING} == {1, 2}
    assert any(x.capacity_seed is not None for x in UNIVERSAL_TRAINING)


def test_confirmation_set_shares_no_topology_with_training_or_generalization():
    # the confirmation set was added after the generalization miss was known: it must be fresh,
    # so not even a base topology (before a capacity or failure suffix) may be shared
    def bases(xs):
        return {x.topology_spec.split("|")[0] for x in xs}
    conf = bases(CONFIRMATION)
    assert len(CONFIRMATION) >= 10
    assert not conf & bases(UNIVERSAL_TRAINING)
    assert not conf & bases(GENERALIZATION)
    assert not {x.topology_spec for x in CONFIRMATION} & {x.topology_spec for x in UNIVERSAL_TRAINING + GENERALIZATION}


def test_shipped_universal_checkpoint_was_trained_on_the_training_set():
    # the sidecar of checkpoints/universal must list what `train --universal` trains on today
    side = checkpoint_dir() / f"{UNIVERSAL}.json"
    meta = json.loads(side.read_text())
    assert [x["name"] for x in meta["instances"]] == [x.name for x in UNIVERSAL_TRAINING]
    assert meta["trained_on"] == sorted({x.topology_spec for x in UNIVERSAL_TRAINING})
    assert meta["command"].startswith("allreduce-lab train --universal ")
    with open(side.with_suffix(".log.csv")) as f:
        assert meta["updates"] == sum(1 for _ in f) - 1  # one log row per update, after the header


def test_random_fabric_and_capacities_are_seeded_and_valid():
    a, b, c = random_fabric(10, 14, 3), random_fabric(10, 14, 3), random_fabric(10, 14, 4)
    assert np.array_equal(a.edges, b.edges) and not np.array_equal(a.edges, c.edges)
    assert a.n_servers == 14 and len(a.switches) == 10
    t = with_capacities(make_topology("bcube:n=3,k=1"), 5)
    assert set(np.unique(t.capacity).tolist()) == {1, 2} and "capacity=1..2,seed=5" in t.spec
    assert np.array_equal(t.capacity, with_capacities(make_topology("bcube:n=3,k=1"), 5).capacity)
    dag = Instance("random", random=(6, 8, 1), capacity_seed=2, chunks=2).dag()
    assert dag.chunks == 2 and dag.n == 2 * 8 * 7 * 2


def test_checkpoint_resolution_prefers_the_topology_own_then_universal(tmp_path, monkeypatch):
    monkeypatch.setenv("ALLREDUCE_LAB_CHECKPOINTS", str(tmp_path))
    assert find_checkpoint("bcube:n=3,k=1") is None
    pol = HierarchicalPolicy(PolicyConfig(prior="heuristic"))
    save_checkpoint(pol, tmp_path / UNIVERSAL, {"topology": None, "family": UNIVERSAL,
                                                "trained_on": ["bcube:n=3,k=1", "fattree:k=4"]})
    assert find_checkpoint("dcell:n=4,k=1") == tmp_path / "universal.json"
    s = run_method("rl", make_topology("dcell:n=3,k=1"), ScheduleConfig(trace=False))
    assert s.info["checkpoint"] == UNIVERSAL and s.info["trained_on_this_topology"] is False
    s = run_method("rl", make_topology("bcube:n=3,k=1"), ScheduleConfig(trace=False))
    assert s.info["checkpoint"] == UNIVERSAL and s.info["trained_on_this_topology"] is True
    save_checkpoint(pol, tmp_path / "mine", {"topology": "dcell:n=3,k=1", "family": "dcell"})
    assert find_checkpoint("dcell:n=3,k=1") == tmp_path / "mine.json"
    s = run_method("rl", make_topology("dcell:n=3,k=1"))
    assert s.info["checkpoint"] == "mine" and s.info["trained_on"] == ["dcell:n=3,k=1"]
    assert s.info["trained_on_this_topology"] is True and s.trace is not None  # small: traced by default
    # link speeds change no round and no feature: the topology's own checkpoint still serves it
    assert find_checkpoint("dcell:n=3,k=1,bw=100/25") == tmp_path / "mine.json"
    s = run_method("rl", make_topology("dcell:n=3,k=1,bw=100/25,lat=2"), ScheduleConfig(trace=False))
    assert s.info["checkpoint"] == "mine" and s.info["trained_on_this_topology"] is True


def test_trained_on_says_when_merge_chunks_or_routing_differ_from_training(tmp_path, monkeypatch, capsys):
    from core import cli
    from core.schedulers.learned import training_answer
    from dashboard.labels import checkpoint_note
    monkeypatch.setenv("ALLREDUCE_LAB_CHECKPOINTS", str(tmp_path))
    pol = HierarchicalPolicy(PolicyConfig(prior="heuristic"))
    save_checkpoint(pol, tmp_path / "own", {"topology": "bcube:n=2,k=1"})  # trained as train_spec does: chunks 1
    save_checkpoint(pol, tmp_path / "multi", {"topology": None, "trained_on": ["bcube:n=2,k=1"], "instances": [
        {"topology": "bcube:n=2,k=1", "chunks": 1}, {"topology": "bcube:n=2,k=1", "chunks": 2}]})
    t = make_topology("bcube:n=2,k=1")

    def info(**kw):
        return run_method("rl", t, ScheduleConfig(trace=False, **kw)).info

    exact = info()
    assert exact["trained_on_this_topology"] is True and exact["trained_on_this_configuration"] is True
    assert exact["trained_with"] == {"merge": True, "routing": "shortest", "chunks": [1]}
    assert training_answer(exact) == "yes"
    two = info(chunks=2)
    assert two["trained_on_this_topology"] is True and two["trained_on_this_configuration"] is False
    assert two["run_with"] == {"merge": True, "chunks": 2, "routing": "shortest"}
    assert training_answer(two) == "yes (topology only; trained with chunks 1, run with chunks 2)"
    assert (checkpoint_note(two, t.spec) == "checkpoint own, trained on this topology: "
            "yes (topology only; trained with chunks 1, run with chunks 2)")
    assert training_answer(info(merge=False)) == "yes (topology only; trained with merge on, run with merge off)"
    assert training_answer(info(checkpoint="multi", chunks=2)) == "yes"  # trained with chunks 1 and 2
    both = info(checkpoint="multi", chunks=3, merge=False, routing="balanced")
    assert training_answer(both) == ("yes (topology only; trained with merge on and chunks 1 or 2 and routing shortest, "
                                     "run with merge off and chunks 3 and routing balanced)")
    elsewhere = run_method("rl", make_topology("bcube:n=3,k=1"), ScheduleConfig(trace=False, chunks=2, checkpoint="own")).info
    assert elsewhere["trained_with"] is None and training_answer(elsewhere) == "no"
    assert cli.main(["schedule", "bcube:n=2,k=1", "--method", "rl", "--chunks", "2"]) == 0
    assert ("  checkpoint: own (trained on this topology: yes (topology only; trained with chunks 1, run with chunks 2))"
            in capsys.readouterr().out.splitlines())


def test_segment_log_softmax_is_log_softmax_per_segment():
    scores = torch.tensor([1.0, 2.0, 3.0, -1.0, 0.5])
    seg = torch.tensor([0, 0, 1, 1, 1])
    got = segment_log_softmax(scores, seg, 2)
    want = torch.cat([torch.log_softmax(scores[:2], 0), torch.log_softmax(scores[2:], 0)])
    assert torch.allclose(got, want)


@pytest.mark.parametrize("train_prior", [False, True])
def test_training_on_several_dags_and_the_skip_path_flag(train_prior):
    dags = [build_dag(make_topology(s), "tree") for s in ("bcube:n=2,k=1", "leafspine:leaves=3,spines=2,servers=2")]
    pol = HierarchicalPolicy(PolicyConfig(hidden=8, prior="heuristic"))
    before = {k: v.clone() for k, v in pol.lower_skip.state_dict().items()}
    cfg = TrainConfig(reward="rounds", prior="heuristic", iterations=1, upper_iters=1, lower_iters=2, batch=4,
                      train_prior=train_prior, eval_samples=2)
    res = train(dags, cfg, pol)
    assert len(res.greedy_rounds) == len(res.lower_bounds) == 2
    assert {r["instance"] for r in res.log} <= {d.topology.spec for d in dags}
    assert all(g >= lb for g, lb in zip(res.greedy_rounds, res.lower_bounds))
    after = res.policy.lower_skip.state_dict()
    moved = any(not torch.equal(before[k], after[k]) for k in before)
    # frozen: the heuristic prior never moves; trained: the optimizer moves it (unless the snapshot kept
    # the initial weights, which the kept iteration tells)
    assert moved is (train_prior and res.kept_iteration > 0)


def test_select_all_upper_replaces_the_agent():
    dag = build_dag(make_topology("bcube:n=3,k=1"), "tree")
    pol = HierarchicalPolicy(PolicyConfig(upper_bias=-5.0, prior="heuristic"))
    tr = play(dag, pol, sample=False, upper="all", trace=True).trace
    assert all(tr["all_ready_selected"]) and not any(tr["pool_fallback"])
    with pytest.raises(ValueError, match="upper must be one of"):
        play(dag, pol, sample=False, upper="some")


def test_scaled_mode_gives_valid_schedules(monkeypatch):
    from core.methods import check_rounds
    monkeypatch.setattr(rollout, "POOL_LIMIT", 10)
    dag = build_dag(make_topology("dcell:n=3,k=1"), "tree", chunks=2)
    pol = HierarchicalPolicy(PolicyConfig(prior="heuristic"))
    for sample in (False, True):
        ep = play(dag, pol, sample=sample, rng=np.random.default_rng(0), trace=True)
        check_rounds(dag, ep.rounds, "rl")
        assert ep.scaled_rounds > 0 and sum(ep.trace["scaled"]) == ep.scaled_rounds
        # a scaled round's pool is the shortlist: at most twice what each link can carry
        for size, sc in zip(ep.trace["pool_size"], ep.trace["scaled"]):
            assert not sc or size <= 2 * dag.topology.link_capacity.sum()


def test_a_topology_with_failed_links_is_not_the_one_trained_on(tmp_path, monkeypatch):
    from core.topology import degrade
    monkeypatch.setenv("ALLREDUCE_LAB_CHECKPOINTS", str(tmp_path))
    save_checkpoint(HierarchicalPolicy(PolicyConfig(prior="heuristic")), tmp_path / "b", {"topology": "bcube:n=3,k=1"})
    t = make_topology("bcube:n=3,k=1")
    assert run_method("rl", t, ScheduleConfig(trace=False)).info["trained_on_this_topology"] is True
    s = run_method("rl", degrade(t, fail="3"), ScheduleConfig(trace=False))
    assert s.info["checkpoint"] == "b" and s.info["trained_on_this_topology"] is False


def test_rl_sample_draws_its_rollouts_at_the_configured_temperature(tmp_path):
    noisy_checkpoint(tmp_path)
    t = make_topology(JF10)
    runs = {}
    for temp in (0.01, 50.0):
        s = run_method("rl-sample", t, ScheduleConfig(checkpoint=str(tmp_path / "r"), samples=6, seed=2,
                                                      temperature=temp, trace=False))
        assert s.info["temperature"] == temp and s.info["samples"] == 6
        runs[temp] = s.info["rollout_rounds"]
    greedy = runs[0.01][0]
    assert runs[50.0][0] == greedy  # the greedy rollout does not depend on the temperature
    # near zero a draw is the top score, ties broken at random; far above, nearly uniform: much worse rollouts
    assert np.mean(runs[50.0][1:]) > np.mean(runs[0.01][1:]) + 1.5
    assert "temperature" not in run_method("rl", t, ScheduleConfig(checkpoint=str(tmp_path / "r"), trace=False)).info


def test_rl_sample_trace_explains_the_kept_rollout(tmp_path):
    noisy_checkpoint(tmp_path)
    t = make_topology(JF10)
    s = run_method("rl-sample", t, ScheduleConfig(checkpoint=str(tmp_path / "r"), samples=6, seed=2))
    assert s.info["rollout_rounds"][0] >= s.n_rounds == min(s.info["rollout_rounds"])
    assert s.trace["decoding"] == ("greedy" if s.info["kept_rollout"] == "greedy" else "sampled")
    for ids, steps in zip(s.rounds, s.trace["steps"]):
        assert sorted(st["chosen"] for st in steps) == ids.tolist()


def test_checkpoint_by_shipped_name_or_either_file_gives_one_path(tmp_path, monkeypatch):
    from core.rl.checkpoint import CheckpointError, load_checkpoint
    shipped, elsewhere = tmp_path / "shipped", tmp_path / "cwd"
    shipped.mkdir(), elsewhere.mkdir()
    monkeypatch.setenv("ALLREDUCE_LAB_CHECKPOINTS", str(shipped))
    monkeypatch.chdir(elsewhere)
    save_checkpoint(HierarchicalPolicy(PolicyConfig(prior="heuristic")), shipped / "mine", {"topology": "bcube:n=2,k=1"})
    t = make_topology("bcube:n=3,k=1")
    paths = {run_method("rl", t, ScheduleConfig(checkpoint=c, trace=False)).info["checkpoint_path"]
             for c in ("mine", str(shipped / "mine"), str(shipped / "mine.json"), str(shipped / "mine.safetensors"))}
    assert paths == {"mine"}  # relative to the checkpoints folder: the same from any checkout
    (shipped / "sub").mkdir()
    save_checkpoint(HierarchicalPolicy(PolicyConfig(prior="heuristic")), shipped / "sub" / "deep", {"topology": None})
    save_checkpoint(HierarchicalPolicy(PolicyConfig(prior="heuristic")), elsewhere / "own", {"topology": None})
    recorded = {c: run_method("rl", t, ScheduleConfig(checkpoint=c, trace=False)).info["checkpoint_path"]
                for c in (str(shipped / "sub" / "deep"), "own")}
    assert recorded == {str(shipped / "sub" / "deep"): "sub/deep", "own": str(elsewhere / "own")}  # outside: absolute
    monkeypatch.chdir(tmp_path)  # what a schedule file records loads again, from elsewhere
    for name in ("mine", "sub/deep", str(elsewhere / "own")):
        assert run_method("rl", t, ScheduleConfig(checkpoint=name, trace=False)).info["checkpoint_path"] == name
    with pytest.raises(CheckpointError, match=r"checkpoint nope: need both nope.json and nope.safetensors "
                                              r"\(neither exists\) \(looked in the working folder and in "):
        load_checkpoint("nope")


def test_a_topdrl_checkpoint_given_to_rl_says_what_it_is(capsys):
    """--checkpoint naming TopDRL's job picker: one line that says it is TopDRL's, for cluster --scheduler topdrl."""
    from core import cli
    from core.rl.checkpoint import checkpoint_dir

    assert cli.main(["schedule", "bcube:n=2,k=1", "--method", "rl",
                     "--checkpoint", str(checkpoint_dir() / "topdrl" / "topdrl")]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "got 'allreduce-lab-topdrl/1'" in line and "cluster --scheduler topdrl" in line

    assert cli.main(["schedule", "bcube:n=2,k=1", "--method", "rl", "--checkpoint", "topdrl"]) == 2  # by its name
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "need both topdrl.json" in line and "checkpoints/topdrl/topdrl is TopDRL's job picker" in line
