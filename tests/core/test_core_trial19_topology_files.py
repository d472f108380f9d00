"""What the new-user trial 19 found in topology files: a node label that was empty, padded or repeated was
accepted (links printed as `-sw0.0` or twice as `s01-sw0.0`, and --fail-links picked one of two alike), an empty
file said "not a readable json graph (JSONDecodeError: ...)", and validate told a user to give `topology` a
topology file that `topology` then refused."""

from __future__ import annotations

import json

import networkx as nx
import pytest

from core import cli
from core.topology import make_topology

UNIQUE = "; labels must be unique: links, --fail-links and --slow-links name nodes by label"


def _net(*labels, ids=("a", "b", "c")) -> dict:
    """Servers a, b on switch c; labels[i] (None: no label) for node i."""
    nodes = [{"id": x, "kind": "server" if i < 2 else "switch"} for i, x in enumerate(ids)]
    for node, lab in zip(nodes, labels):
        if lab is not None:
            node["label"] = lab
    return {"nodes": nodes, "links": [[ids[0], ids[2]], [ids[1], ids[2]]]}


def _one_line_error(capsys, argv) -> str:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1, (argv, code, out, err)
    return err.removeprefix("allreduce-lab: error: ").rstrip("\n")


@pytest.mark.parametrize("labels,message", [
    (("s01", "s01", "sw0.0"), "nodes[1]: 'label' 's01' is also the label of nodes[0]" + UNIQUE),
    ((" s01", None, "sw0.0"), "nodes[0]: 'label' must not begin or end with whitespace, got ' s01'"),
    (("s01", "s02 ", None), "nodes[1]: 'label' must not begin or end with whitespace, got 's02 '"),
    (("", None, None), "nodes[0]: 'label' must not be empty, got ''"),
    (("s01", None, None), None),  # unique: read
    (("b", None, None), "nodes[1]: 'id' 'b' is also the label of nodes[0] (a node without a 'label' is labelled by "
                        "its id)" + UNIQUE),
    ((None, "a", None), "nodes[1]: 'label' 'a' is also the id of nodes[0], which has no 'label' (a node without a "
                        "'label' is labelled by its id)" + UNIQUE),
    ((None, None, None), None),
    ((None, None, 1), None),  # an integer label, as an id may be
    (("3", 3, None), "nodes[1]: 'label' '3' is also the label of nodes[0]" + UNIQUE),  # print the same, as ids
], ids=["repeated", "leading-space", "trailing-space", "empty", "unique", "id-as-label", "label-as-id", "none",
        "integer", "3-and-str-3"])
def test_a_json_label_is_checked_as_ids_are(tmp_path, capsys, labels, message):
    f = tmp_path / "net.json"
    f.write_text(json.dumps(_net(*labels)))
    if message is None:
        assert cli.main(["topology", f"file:{f}"]) == 0
        capsys.readouterr()
        return
    assert _one_line_error(capsys, ["topology", f"file:{f}", "--links"]) == f"net.json: {message}"


@pytest.mark.parametrize("label,message", [(None, "nodes[2]: 'label' must be an integer or a string, got null"),
                                           (True, "nodes[2]: 'label' must be an integer or a string (true and false "
                                                  "are not ids), got true"),
                                           ([1], "nodes[2]: 'label' must be an integer or a string, got [1]")])
def test_a_json_label_that_is_not_an_integer_or_a_string_is_refused(tmp_path, capsys, label, message):
    d = _net()
    d["nodes"][2]["label"] = label  # null printed its links as a-None
    f = tmp_path / "net.json"
    f.write_text(json.dumps(d))
    assert _one_line_error(capsys, ["schedule", f"file:{f}"]) == f"net.json: {message}"


def test_fail_links_no_longer_picks_one_of_two_links_named_alike(tmp_path, capsys):
    f = tmp_path / "net.json"
    f.write_text(json.dumps(_net("s01", "s01", "sw0.0")))
    err = _one_line_error(capsys, ["topology", f"file:{f}", "--fail-links", "s01-sw0.0"])
    assert err == "net.json: nodes[1]: 'label' 's01' is also the label of nodes[0]" + UNIQUE


@pytest.mark.parametrize("labels,message", [
    (("x", "x"), "node 'b': 'label' 'x' is also the label of node 'a'" + UNIQUE),
    (("x", "x "), "node 'b': 'label' must not begin or end with whitespace, got 'x '"),
    (("", None), "node 'a': 'label' must not be empty, got ''"),
    ((None, "a"), "node 'b': 'label' 'a' is also the id of node 'a', which has no 'label' (a node without a 'label' "
                  "is labelled by its id)" + UNIQUE),
    (("x", "y"), None),
])
def test_a_graphml_label_is_checked_as_ids_are(tmp_path, capsys, labels, message):
    g = nx.Graph()
    g.add_nodes_from([("a", {"kind": "server"}), ("b", {"kind": "server"}), ("s", {"kind": "switch"})])
    for v, lab in zip("ab", labels):
        if lab is not None:
            g.nodes[v]["label"] = lab
    g.add_edges_from([("a", "s"), ("b", "s")])
    f = tmp_path / "net.graphml"
    nx.write_graphml(g, f)
    if message is None:
        assert cli.main(["topology", f"file:{f}"]) == 0
        capsys.readouterr()
        return
    assert _one_line_error(capsys, ["topology", f"file:{f}"]) == f"net.graphml: {message}"


SPECS = ["bcube:n=2,k=1", "bcube:n=3,k=0", "bcube:n=10,k=1", "bcube:n=11,k=1", "bcube:n=12,k=1", "bcube:n=16,k=1",
         "dcell:n=3,k=1", "dcell:n=2,k=2", "dcell:n=12,k=1", "jellyfish:switches=12,ports=5,switch_ports=3",
         "fattree:k=4", "fattree:k=12", "leafspine:leaves=12,spines=11,servers=12", "example:fig3"]


@pytest.mark.parametrize("spec", SPECS)
def test_every_family_writes_labels_its_file_reads_back(tmp_path, capsys, spec):
    """topology --format json writes each node's label; they are unique (BCube(12,1) had s111 twice: (1, 11) and
    (11, 1)), so the file reads back with the same labels."""
    labels = make_topology(spec).labels
    assert len(set(labels)) == len(labels) and all(lab and lab == lab.strip() for lab in labels)
    assert cli.main(["topology", spec, "--format", "json"]) == 0
    f = tmp_path / "net.json"
    f.write_text(capsys.readouterr().out)
    assert cli.main(["topology", f"file:{f}", "--format", "json"]) == 0
    back = json.loads(capsys.readouterr().out)
    assert [n["label"] for n in back["nodes"]] == list(labels)


def test_bcube_labels_beyond_ten_ports_separate_their_digits():
    t = make_topology("bcube:n=12,k=1")
    assert t.labels[1 * 12 + 11] == "s1.11" and t.labels[11 * 12 + 1] == "s11.1"
    assert make_topology("bcube:n=10,k=1").labels[99] == "s99"  # ten ports or fewer: as before


def test_a_schedule_files_topology_and_its_graphml_still_read(tmp_path, capsys):
    s = tmp_path / "s.json"
    assert cli.main(["schedule", "bcube:n=3,k=1", "--out", str(s)]) == 0
    assert cli.main(["validate", str(s)]) == 0
    assert cli.main(["topology", f"file:{s}"]) == 0  # a schedule file's topology object
    capsys.readouterr()
    f = tmp_path / "net.graphml"
    nx.write_graphml(make_topology("bcube:n=3,k=1").to_networkx(), f)
    assert cli.main(["topology", f"file:{f}"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("name,content,what", [("empty.json", b"", "empty"), ("empty.graphml", b"", "empty"),
                                               ("blank.json", b" \n\t\n", "empty (only whitespace)")])
def test_an_empty_file_says_empty(tmp_path, capsys, monkeypatch, name, content, what):
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_bytes(content)
    for argv in (["topology", f"file:{name}"], ["schedule", f"file:{name}"]):
        assert _one_line_error(capsys, argv) == f"file:{name}: {what}"


def test_an_empty_upload_says_empty():
    from core.topology import TopologyError, parse_topology_bytes
    with pytest.raises(TopologyError, match=r"^net\.json: empty$"):
        parse_topology_bytes(b"", "net.json", "file:net.json")


def test_validate_says_when_a_topology_file_would_be_refused_too(tmp_path, capsys):
    f = tmp_path / "t.json"
    f.write_text(json.dumps(_net(ids=("", "b", "c"))))
    reason = "t.json: nodes[0]: 'id' must not be empty, got ''"
    assert _one_line_error(capsys, ["topology", f"file:{f}"]) == reason
    for command in ("validate", "replay"):
        assert _one_line_error(capsys, [command, str(f)]) == (
            f"{f} is a topology file, not an allreduce-schedule/1 file: topology, schedule and compare would refuse "
            f"it as file:{f} too: {reason}")
    f.write_text(json.dumps(_net()))  # a good one: as before
    assert _one_line_error(capsys, ["validate", str(f)]).endswith(
        f"not an allreduce-schedule/1 file: give it to topology, schedule or compare as file:{f}")
    g = tmp_path / "t.graphml"
    g.write_text('<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph '
                 'edgedefault="undirected"><node id="a"/></graph></graphml>')
    assert _one_line_error(capsys, ["validate", str(g)]) == (
        f"{g} is a GraphML topology file, not an allreduce-schedule/1 file: topology, schedule and compare would "
        f"refuse it as file:{g} too: t.graphml: node 'a': no kind: give kind 'server' or 'switch'")
