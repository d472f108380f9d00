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


# ---- 2: the network record says a topology file's own failed links, apart from the options' --------------
@pytest.fixture
def held_file(tmp_path, capsys):
    """A BCube(3,1) topology file holding link 1 (s01-sw0.0) failed."""
    f = tmp_path / "t.json"
    assert cli.main(["topology", "bcube:n=3,k=1", "--fail-links", "1", "--format", "json"]) == 0
    f.write_text(capsys.readouterr().out)
    return f


def test_network_record_names_the_files_own_failed_links(tmp_path, capsys, held_file):
    out = tmp_path / "s.json"
    assert cli.main(["schedule", f"file:{held_file}", "--fail-links", "0", "--slow-links", "5:25",
                     "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "network: failed 1 (s01-sw0.0) (from the file); failed 0 (s00-sw0.0); slowed 5" in text
    doc = json.loads(out.read_text())
    assert doc["network"] == {"failed": [0], "slowed": [[5, 100.0, 25.0]], "failed_in_file": [1]}
    assert doc["topology"]["failed"] == [0, 1]
    assert cli.main(["schedule", f"file:{held_file}", "--format", "json"]) == 0  # no option changed a link
    assert json.loads(capsys.readouterr().out)["network"] == {"failed": [], "slowed": [], "failed_in_file": [1]}
    assert cli.main(["schedule", "bcube:n=3,k=1", "--format", "json"]) == 0  # nothing failed: no record
    assert "network" not in json.loads(capsys.readouterr().out)


def test_an_old_form_network_record_still_validates_and_replays(tmp_path, capsys, held_file):
    out = tmp_path / "s.json"
    assert cli.main(["schedule", f"file:{held_file}", "--fail-links", "0", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    del doc["network"]["failed_in_file"]  # as versions before fix20a wrote it
    out.write_text(json.dumps(doc))
    capsys.readouterr()
    assert cli.main(["validate", str(out)]) == 0 and "OK" in capsys.readouterr().out
    assert cli.main(["replay", str(out)]) == 0 and "rounds" in capsys.readouterr().out
