"""Leftovers of the last session (fix20a): an empty schedule file, the network record of a topology file's own
failed links, the checkpoint a file carrying a spec runs, --explain's sampled temperature, the kept temperature
in the file's info, and link names whose node labels contain '-'."""

from __future__ import annotations

import json
import re

import pytest

from core import cli
from core.topology import TopologyError, make_topology
from core.topology.degrade import link_id


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


# ---- 6: a link name is the one split at a '-' into two node labels -------------------------------------------
DASHED = {"nodes": [{"id": "a", "kind": "server"}, {"id": "c", "kind": "server"}, {"id": "a-b", "kind": "server"},
                    {"id": "b", "kind": "switch"}, {"id": "b-c", "kind": "switch"}],
          "links": [["a", "b"], ["c", "b"], ["a-b", "b"], ["a", "b-c"], ["c", "b-c"]]}


@pytest.fixture
def dashed(tmp_path):
    f = tmp_path / "net.json"
    f.write_text(json.dumps(DASHED))
    return make_topology(f"file:{f}"), f


@pytest.mark.parametrize("name,link", [("a-b", 0), ("a-b-b", 2), ("c-b-c", 4), ("b-c-a", 3), ("3", 3)])
def test_a_name_with_one_split_into_two_labels_names_its_link(dashed, name, link):
    assert link_id(dashed[0], name, "--fail-links") == link


def test_a_name_that_splits_two_ways_is_refused_naming_both(dashed, capsys):
    t, f = dashed
    said = ("'a-b-c' is ambiguous: node labels contain '-', and it splits into two of them 2 ways: a with b-c "
            "(link 3); a-b with c (not adjacent); give the link id")
    with pytest.raises(TopologyError, match=re.escape(f"--fail-links: {said}")):
        link_id(t, "a-b-c", "--fail-links")
    assert _one_line_error(capsys, ["schedule", f"file:{f}", "--fail-links", "a-b-c"]) == f"--fail-links: {said}"
    assert _one_line_error(capsys, ["schedule", f"file:{f}", "--slow-links", "a-b-c:25"]) == f"--slow-links: {said}"
    assert cli.main(["schedule", f"file:{f}", "--fail-links", "b-c-a"]) == 0  # the other order: one split
    assert "network: failed 3 (a-b-c)" in capsys.readouterr().out


def test_existing_names_keep_working():
    t = make_topology("bcube:n=3,k=1")
    assert link_id(t, "s00-sw0.0") == 0 and link_id(t, " s12 - sw0.1 ") == 5
    with pytest.raises(TopologyError, match="is not a link: s00 and s01 are not adjacent"):
        link_id(t, "s00-s01")
    with pytest.raises(TopologyError, match="is neither a link id"):
        link_id(t, "s00-nowhere")
