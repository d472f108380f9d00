"""What the new-user trial 14 found in the CLI's wording: topology-file messages that did not name the node or link
(docs/topology-files.md promises they do), spec parameters listed in part, gaps and bounds that did not say what they
are measured against, help texts."""

from __future__ import annotations

import json

import pytest

from core import cli
from core.topology import TopologyError, make_topology


def _refused(tmp_path, name: str, doc) -> str:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    with pytest.raises(TopologyError) as info:
        make_topology(f"file:{path}")
    return str(info.value)


def _nodes(servers: list[str], switches: list[str]) -> list[dict]:
    return [{"id": s, "kind": "server"} for s in servers] + [{"id": s, "kind": "switch"} for s in switches]


def test_a_disconnected_file_names_the_nodes_cut_off(tmp_path):
    """'the graph must be connected, got 2 components' named nothing (trial 14): the nodes outside the largest
    piece are named, servers first, a few then 'and N more'."""
    doc = {"nodes": _nodes(["a", "b", "c", "x", "y"], ["s", "t"]),
           "links": [["a", "s"], ["b", "s"], ["c", "s"], ["x", "t"], ["y", "t"]]}
    msg = _refused(tmp_path, "two.json", doc)
    assert msg == ("two.json: the graph must be connected, got 2 components: 3 nodes (2 servers) not linked to the "
                   "largest (4 nodes): x, y, t")
    main = [f"m{i}" for i in range(10)]
    many = {"nodes": _nodes(main + [f"g{i}" for i in range(8)], ["s"]),
            "links": [[m, "s"] for m in main] + [[f"g{i}", f"g{i + 1}"] for i in range(7)]}
    msg = _refused(tmp_path, "many.json", many)
    assert msg.endswith("8 nodes (8 servers) not linked to the largest (11 nodes): g0, g1, g2, g3, g4, g5 and 2 more")
    assert _refused(tmp_path, "bare.json", {"nodes": _nodes(["a", "b"], []), "links": []}).endswith(
        "got 2 components: there are no links")


def test_a_duplicate_link_and_a_duplicate_node_are_named(tmp_path):
    doc = {"nodes": _nodes(["a", "b"], ["s"]), "links": [["a", "s"], ["b", "s"], ["s", "a", 2]]}
    assert _refused(tmp_path, "dup.json", doc) == ("dup.json: parallel edges are not allowed: 2 links join 's' and "
                                                   "'a'; give one edge with a larger capacity instead")
    doc = {"nodes": _nodes(["a", "b", "a"], ["s"]), "links": [["a", "s"], ["b", "s"]]}
    assert _refused(tmp_path, "dupnode.json", doc) == ("dupnode.json: node ids must be unique: 'a' is the id of "
                                                       "nodes 0 and 2")


GRAPHML = """<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="kind" for="node" attr.name="kind" attr.type="string"/>
  <graph edgedefault="undirected">
    <node id="a"><data key="kind">server</data></node>
    <node id="b"><data key="kind">server</data></node>
    <node id="sw"><data key="kind">switch</data></node>
    {more}
    <edge source="a" target="sw"/>
    <edge source="b" target="zz"/>
  </graph>
</graphml>
"""


def test_a_graphml_edge_to_an_undeclared_node_says_so(tmp_path):
    """An edge to node zz, declared nowhere, read "node 'zz': no kind: give kind 'server' or 'switch'" (trial 14)."""
    msg = _refused(tmp_path, "edge.graphml", GRAPHML.format(more=""))
    assert msg == ("edge.graphml: edge ('b', 'zz') names node 'zz', which is not declared: add <node id=\"zz\"> with "
                   "kind 'server' or 'switch', or fix the edge")
    declared = _refused(tmp_path, "declared.graphml", GRAPHML.format(more='<node id="zz"/>'))
    assert declared == "declared.graphml: node 'zz': no kind: give kind 'server' or 'switch'"


def test_a_bad_link_lists_every_form_the_reader_takes(tmp_path):
    """The message left out [u, v, capacity, bandwidth], which the docs and the reader allow (trial 14)."""
    forms = "[u, v], [u, v, capacity], [u, v, capacity, bandwidth], [u, v, capacity, bandwidth, latency]"
    doc = {"nodes": _nodes(["a", "b"], ["s"]), "links": [["a", "s", 1, "25Gbps"], ["b"]]}
    assert _refused(tmp_path, "short.json", doc) == (f"short.json: link 1: each link must be {forms} or an object "
                                                     f"with u and v, got ['b']")
    assert forms in _refused(tmp_path, "nolinks.json", {"nodes": _nodes(["a", "b"], [])})
    doc["links"] = doc["links"][:1] + [["b", "s", 1, "25Gbps"]]
    assert make_topology(f"file:{_write(tmp_path, 'four.json', doc)}").bandwidth.tolist() == [25.0, 25.0]


def _write(tmp_path, name: str, doc: dict) -> str:
    (tmp_path / name).write_text(json.dumps(doc))
    return str(tmp_path / name)


@pytest.mark.parametrize("family", ["bcube", "dcell", "jellyfish", "fattree", "leafspine"])
def test_an_unknown_spec_parameter_lists_every_one_the_parser_takes(family):
    """`bcube:n=3,k=1,bandwidth=25` said "expected n, k", leaving out bw, lat and link_seed, which the parser takes
    (trial 14): the message lists the family's parameters and the link options, and each one it lists is taken."""
    from core.topology import FAMILIES, LINK_KEYS, parse_spec
    fam = FAMILIES[family]
    values = ",".join(f"{k}=1" for k in fam.order)
    with pytest.raises(TopologyError) as info:
        parse_spec(f"{family}:{values},bandwidth=25")
    msg = str(info.value)
    assert "(bandwidth is set by bw=)" in msg
    listed = msg.partition(f"; {family} takes ")[2].replace("and the link options ", "").split(", ")
    names = [item.split(" (")[0] for item in listed]
    assert names == list(fam.order) + list(LINK_KEYS)
    for name in names:  # each listed parameter is one the parser takes (not "unknown parameter")
        spec = f"{family}:{values}" if name in fam.order else f"{family}:{values},{name}=1"
        parse_spec(spec)
