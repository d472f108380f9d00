"""What the new-user trial 15 found about node ids and validate: ids that print the same taken as two nodes, a
pasted schedule without its hint, violation lines naming nodes two ways, and wording of --slow-links, --opening
and the spec-mismatch line."""

from __future__ import annotations

import json

import pytest

from core import cli
from core.topology import TopologyError, make_topology


def _refused(tmp_path, name: str, doc) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    with pytest.raises(TopologyError) as info:
        make_topology(f"file:{path}")
    return str(info.value)


def _star(ids: list, hub="s") -> dict:
    return {"nodes": [{"id": x, "kind": "server"} for x in ids] + [{"id": hub, "kind": "switch"}],
            "links": [[x, hub] for x in ids]}


def test_ids_that_print_the_same_are_one_id(tmp_path):
    """3 and "3" were two nodes (links 3-8 and 3-9, --slow-links 3-9 taken silently): a user cannot tell them
    apart (MODEL.md section 8), so they are refused like a repeated id, naming both."""
    assert _refused(tmp_path, "d.json", _star([0, 3, "3"])) == (
        'd.json: node ids must be unique: 3 (node 1) and "3" (node 2) print the same, 3')
    short = {"servers": [0, 3, "3"], "links": [[0, 9], [3, 9], ["3", 9]]}  # the short form names nodes in links
    assert _refused(tmp_path, "s.json", short) == 's.json: node ids must be unique: 3 (node 2) and "3" (node 3) print the same, 3'
    assert _refused(tmp_path, "r.json", _star(["a", "b", "a"])) == "r.json: node ids must be unique: 'a' is the id of nodes 0 and 2"
    assert make_topology(f"file:{tmp_path / 'ok.json'}" if (tmp_path / "ok.json").write_text(
        json.dumps(_star([0, "1", 2]))) else "").n_servers == 3  # different ids of either type are fine


def test_the_cli_refuses_ids_that_print_the_same(tmp_path, capsys):
    f = tmp_path / "t.json"
    f.write_text(json.dumps(_star([0, 3, "3"])))
    assert cli.main(["topology", f"file:{f}", "--links"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].endswith('node ids must be unique: 3 (node 1) and "3" (node 2) print the same, 3')
