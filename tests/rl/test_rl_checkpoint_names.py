"""The checkpoints a picker offers: the folder's RL sidecars by the names --checkpoint takes."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")

from core.rl.checkpoint import FORMAT, UNIVERSAL, checkpoint_dir, checkpoint_names, checkpoint_stem  # noqa: E402


def test_the_shipped_checkpoints_universal_first_each_resolving_as_the_cli_does():
    names = checkpoint_names()
    assert names[0] == UNIVERSAL and "bcube_n3_k1" in names and names[1:] == sorted(names[1:])
    for n in names:  # the name given to --checkpoint finds the same pair
        assert checkpoint_stem(n) == checkpoint_dir() / n


def test_only_rl_sidecars_count(tmp_path):
    (tmp_path / "mine.json").write_text(json.dumps({"format": FORMAT}))
    (tmp_path / "universal.json").write_text(json.dumps({"format": FORMAT}))
    (tmp_path / "notes.json").write_text(json.dumps({"format": "something else"}))
    (tmp_path / "broken.json").write_text("{")
    assert checkpoint_names(tmp_path) == ["universal", "mine"]
    assert checkpoint_names(tmp_path / "absent") == []


def test_a_checkpoints_version_changes_when_it_is_rewritten_and_only_then(tmp_path, monkeypatch):
    from core.rl.checkpoint import save_checkpoint
    from core.rl.pair import checkpoint_version
    from core.rl.policy import HierarchicalPolicy, PolicyConfig
    monkeypatch.setenv("ALLREDUCE_LAB_CHECKPOINTS", str(tmp_path))
    pol = HierarchicalPolicy(PolicyConfig(prior="heuristic"))
    save_checkpoint(pol, tmp_path / "my.model", {"topology": None})
    first = {n: checkpoint_version(n) for n in ("my.model", None)}
    assert first == {n: checkpoint_version(n) for n in ("my.model", None)}
    save_checkpoint(pol, tmp_path / "my.model", {"topology": None})  # the same bytes, written again at once
    assert all(checkpoint_version(n) != v for n, v in first.items())
    before = checkpoint_version(None)
    save_checkpoint(pol, tmp_path / "other", {"topology": None})  # a new one in the folder: the default may change
    assert checkpoint_version(None) != before
    assert checkpoint_version("absent")[1:] == (None, None)
