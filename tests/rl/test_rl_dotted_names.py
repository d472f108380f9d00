"""Checkpoint names holding a dot (``my.model``): the pair is my.model.json + my.model.safetensors, found by the
stem or by either file, written by train --out under that name (Path.with_suffix cut it to ``my``, trial 13)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")

from core import cli  # noqa: E402
from core.methods import run_method  # noqa: E402
from core.rl import recipes  # noqa: E402
from core.rl.checkpoint import CheckpointError, checkpoint_stem, load_checkpoint, save_checkpoint  # noqa: E402
from core.rl.pair import pair_file, pair_stem  # noqa: E402
from core.rl.policy import HierarchicalPolicy, PolicyConfig  # noqa: E402
from core.rl.train import TrainResult  # noqa: E402
from core.schedule import ScheduleConfig  # noqa: E402
from core.topology import make_topology  # noqa: E402


def test_pair_names_keep_every_dot():
    assert pair_file("a/my.model", ".json").as_posix() == "a/my.model.json"
    assert pair_file("my.model", ".log.csv").name == "my.model.log.csv"
    for given in ("my.model", "my.model.json", "my.model.safetensors"):
        assert pair_stem(given).name == "my.model"
    assert pair_stem("my.model.pt").name == "my.model.pt"  # not a suffix of the pair: part of the name
    assert pair_stem(".json").name == ".json"


def test_a_dotted_checkpoint_is_written_and_found_under_its_whole_name(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    side = save_checkpoint(HierarchicalPolicy(PolicyConfig(prior="heuristic")), tmp_path / "my.model",
                           {"topology": "bcube:n=2,k=1"})
    assert side == tmp_path / "my.model.json"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my.model.json", "my.model.safetensors"]
    t = make_topology("bcube:n=2,k=1")
    for given in ("my.model", "my.model.json", "my.model.safetensors", str(tmp_path / "my.model")):
        assert checkpoint_stem(given).name == "my.model"
        load_checkpoint(given)
        info = run_method("rl", t, ScheduleConfig(checkpoint=given, trace=False)).info
        assert (info["checkpoint"], info["checkpoint_path"]) == ("my.model", str(tmp_path / "my.model"))
    # a name that matches no pair: the existing one-line refusal, naming the files it looked for
    assert cli.main(["schedule", "bcube:n=2,k=1", "--method", "rl", "--checkpoint", "my.model.pt"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "need both my.model.pt.json and my.model.pt.safetensors (neither exists)" in line
    # half a pair: the refusal says which half is missing (trial 16)
    (tmp_path / "my.model.safetensors").unlink()
    with pytest.raises(CheckpointError, match=r"need both my\.model\.json and my\.model\.safetensors "
                                              r"\(my\.model\.safetensors is missing\)"):
        load_checkpoint("my.model")


def _fake_train(dag, cfg, init=None, report=None) -> TrainResult:
    """What recipes.train returns, without training (the names are under test, not the weights)."""
    return TrainResult(policy=HierarchicalPolicy(PolicyConfig(prior="heuristic")),
                       log=[{"update": 0, "iteration": 0, "instance": dag.topology.spec}], seconds=0.0,
                       cpu_seconds=0.0, greedy_rounds=[5], sample_rounds=[5], best_rounds=[5], lower_bounds=[4],
                       critical_path_rounds=[4], kept_iteration=0)


@pytest.mark.parametrize("out", ["my.model", "my.model.json"])
def test_train_out_writes_the_dotted_name_it_prints(tmp_path, monkeypatch, capsys, out):
    monkeypatch.setattr(recipes, "train", _fake_train)
    assert cli.main(["train", "bcube:n=2,k=1", "--quiet", "--out", str(tmp_path / out)]) == 0
    assert f"-> {tmp_path / 'my.model.json'}" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my.model.json", "my.model.log.csv", "my.model.safetensors"]
    assert json.loads((tmp_path / "my.model.json").read_text())["topology"] == "bcube:n=2,k=1"
    load_checkpoint(tmp_path / "my.model")


def test_a_dotted_topdrl_checkpoint_round_trips(tmp_path):
    from core.cluster.topdrl import NetConfig, TopDRLNet, load, save
    assert save(TopDRLNet(NetConfig()), tmp_path / "my.picker", {}) == tmp_path / "my.picker.json"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my.picker.json", "my.picker.safetensors"]
    for given in ("my.picker", "my.picker.json", "my.picker.safetensors"):
        load(tmp_path / given)


def test_train_does_not_replace_a_checkpoint_without_force(tmp_path, monkeypatch, capsys):
    """Trial 25: a spec's default --out is checkpoints/<name>, where the shipped checkpoints are; `train` replaced
    them silently. It now refuses before any work (nothing written), as cluster-train does, unless --force."""
    calls = []

    def counted(*args, **kwargs):
        calls.append(1)
        return _fake_train(*args, **kwargs)

    monkeypatch.setattr(recipes, "train", counted)
    # the default --out of bcube:n=3,k=1 is a shipped checkpoint; the refusal is tried on a copy of the folder, so
    # that the code without it (a mutation) writes there, not over the shipped files
    assert recipes.checkpoint_out("bcube:n=3,k=1") == recipes.checkpoint_dir() / "bcube_n3_k1"
    assert pair_file(recipes.checkpoint_out("bcube:n=3,k=1"), ".safetensors").is_file()
    folder = tmp_path / "checkpoints"
    folder.mkdir()
    (folder / "bcube_n3_k1.safetensors").write_bytes(b"shipped")
    monkeypatch.setattr(recipes, "checkpoint_dir", lambda: folder)
    assert cli.main(["train", "bcube:n=3,k=1", "--quiet"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"allreduce-lab: error: {folder / 'bcube_n3_k1.safetensors'} exists: train does not replace a "
                   f"checkpoint; pass --out elsewhere, or --force to replace it"], err
    assert calls == [] and sorted(p.name for p in folder.iterdir()) == ["bcube_n3_k1.safetensors"]
    assert (folder / "bcube_n3_k1.safetensors").read_bytes() == b"shipped"
    (tmp_path / "mine.json").write_text("{}")  # either file of the pair is enough
    assert cli.main(["train", "bcube:n=2,k=1", "--quiet", "--out", str(tmp_path / "mine")]) == 2
    assert f"{tmp_path / 'mine.json'} exists: train" in capsys.readouterr().err and calls == []
    assert cli.main(["train", "bcube:n=2,k=1", "--quiet", "--out", str(tmp_path / "mine"), "--force"]) == 0
    assert calls == [1] and json.loads((tmp_path / "mine.json").read_text())["topology"] == "bcube:n=2,k=1"
