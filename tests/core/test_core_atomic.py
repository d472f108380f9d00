"""Atomic writes (core.atomic): whole or nothing, and the permissions a plain open(path, "w") gives."""

from __future__ import annotations

import os
import stat

import pytest

from core import cli
from core.atomic import atomic_file, write_atomic


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_new_files_get_0666_minus_the_umask(tmp_path, umask_022):
    write_atomic(tmp_path / "a.json", b"{}")
    assert mode(tmp_path / "a.json") == 0o644
    os.umask(0o077)
    write_atomic(tmp_path / "b.json", b"{}")
    assert mode(tmp_path / "b.json") == 0o600


def test_an_existing_file_keeps_its_mode_and_the_umask_is_left_as_it_was(tmp_path, umask_022):
    p = tmp_path / "s.json"
    p.write_bytes(b"old")
    p.chmod(0o640)
    write_atomic(p, b"new")
    assert p.read_bytes() == b"new" and mode(p) == 0o640
    assert os.umask(0o022) == 0o022


def test_a_failed_write_leaves_nothing(tmp_path):
    with pytest.raises(RuntimeError):
        with atomic_file(tmp_path / "x.json") as f:
            f.write(b"half")
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["s.json", "s.npz"])
def test_schedule_out_is_readable_by_others_under_umask_022(tmp_path, capsys, umask_022, name):
    code = cli.main(["schedule", "bcube:n=2,k=1", "--out", str(tmp_path / name)])
    assert code == 0, capsys.readouterr().err
    assert mode(tmp_path / name) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == [name]  # no temporary file left


def test_checkpoints_are_readable_by_others_under_umask_022(tmp_path, umask_022):
    from core.rl.checkpoint import save_checkpoint
    from core.rl.policy import HierarchicalPolicy, PolicyConfig
    side = save_checkpoint(HierarchicalPolicy(PolicyConfig(prior="heuristic")), tmp_path / "c", {"topology": None})
    assert mode(side) == 0o644 and mode(side.with_suffix(".safetensors")) == 0o644
