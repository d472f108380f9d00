"""Leftovers of the last session (fix20a): an empty schedule file, the network record of a topology file's own
failed links, the checkpoint a file carrying a spec runs, --explain's sampled temperature, the kept temperature
in the file's info, and link names whose node labels contain '-'."""

from __future__ import annotations

import json

import pytest

from core import cli


def _one_line_error(capsys, argv) -> str:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1, (argv, code, out, err)
    return err.removeprefix("allreduce-lab: error: ").rstrip("\n")


# ---- 1: an empty schedule file -------------------------------------------------------------
@pytest.mark.parametrize("name,content,what", [("empty.json", b"", "empty"), ("empty.npz", b"", "empty"),
                                               ("blank.json", b" \n\t\n", "empty (only whitespace)")])
@pytest.mark.parametrize("command", ["validate", "replay", "run"])
def test_an_empty_schedule_file_says_empty(tmp_path, capsys, monkeypatch, name, content, what, command):
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_bytes(content)
    assert _one_line_error(capsys, [command, name]) == f"{name}: {what}"
