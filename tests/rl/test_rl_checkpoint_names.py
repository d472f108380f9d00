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
