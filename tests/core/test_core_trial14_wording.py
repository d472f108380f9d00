"""What the new-user trial 14 found in the CLI's wording: topology-file messages that did not name the node or link
(docs/topology-files.md promises they do), spec parameters listed in part, gaps and bounds that did not say what they
are measured against, help texts."""

from __future__ import annotations

import json
import re

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
    assert _refused(tmp_path, "dup.json", doc) == ("dup.json: parallel edges are not allowed: links 0 and 2 (positions "
                                                   "in the file's list) join 's' and 'a'; give one edge with a larger "
                                                   "capacity instead")
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
    assert _refused(tmp_path, "short.json", doc) == (f"short.json: links[1]: each link must be {forms} or an object "
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


MINE = {"nodes": _nodes([f"gpu{i}" for i in range(6)], ["tor0", "tor1", "spine"]),
        "links": [["gpu0", "tor0"], ["gpu1", "tor0"], ["gpu2", "tor0"], ["gpu3", "tor1"], ["gpu4", "tor1"],
                  ["gpu5", "tor1"], {"u": "tor0", "v": "spine", "capacity": 2, "bandwidth": "400Gbps"},
                  {"u": "tor1", "v": "spine", "capacity": 2, "bandwidth": "400Gbps"},
                  ["gpu2", "gpu3", 1, "25Gbps", "500ns"]]}
"""The trial's own topology: the 25 Gbit/s shortcut is critical-path's busiest link, so its schedule meets its DAG's
best bound (32 ms) while the bandwidth bound of any AllReduce is 12.3 ms."""


def test_the_seconds_line_says_what_each_gap_is_measured_against(capsys, tmp_path):
    """'async 32 ms ... gap to best bound 0.0%' beside a bandwidth bound of 12.3 ms read as "as fast as can be"
    (trial 14): the line names its DAG's best bound and gives the gap to the bandwidth bound too, as compare's two
    columns do."""
    path = _write(tmp_path, "mine.json", MINE)
    assert cli.main(["schedule", f"file:{path}", "--method", "critical-path"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    (i,) = [i for i, x in enumerate(lines) if x.strip().startswith("async")]  # its gaps on the line under it
    assert lines[i + 1] == "      0.0% above its DAG's best bound (busiest link), 160.1% above the bandwidth bound"
    assert "gap to best bound" not in out
    assert "bounds: bandwidth 12.3 ms, busiest link 32.0 ms" in out


@pytest.mark.parametrize("size", ["100MB", "1B"])
def test_each_modes_lines_keep_within_100_characters(capsys, tmp_path, size):
    """`schedule bcube:n=4,k=2 --method ring` and `replay` of its file printed each mode's time, rates and gaps on one
    line of ~140 characters (fix28b): the gaps go on a line of their own under the mode's, every fact kept."""
    out = tmp_path / "s.json"
    assert cli.main(["schedule", "bcube:n=4,k=2", "--method", "ring", "--out", str(out), "--size", size]) == 0
    printed = capsys.readouterr().out
    assert cli.main(["replay", str(out), "--size", size]) == 0
    for text in (printed, capsys.readouterr().out):
        lines = text.splitlines()
        starts = [i for i, x in enumerate(lines) if re.match(r"    (sync |async) +[\d.]+ ", x)]  # not "sync only:"
        assert len(starts) == 2
        for i in starts:
            assert len(lines[i]) <= 100 and len(lines[i + 1]) <= 100, lines[i:i + 2]
            assert f" {'ms' if size == '100MB' else 'µs'}  algbw " in lines[i] and "  busbw " in lines[i], lines[i]
            assert re.fullmatch(r"      [\d,.]+% above its DAG's best bound \(critical path\), "
                                r"([\d,.]+% above|[\d,.]+x) the bandwidth bound", lines[i + 1]), lines[i + 1]
        report = lines[next(i for i, x in enumerate(lines) if x.startswith("  time for ")):]
        assert max(map(len, report)) <= 100, report  # the sync-only line (108) and the latency note (~195) too
    # schedule's whole report: its workloads, lower bound and gap line ran to 101-107 characters (fix29a)
    assert max(map(len, printed.splitlines())) <= 100, printed


def test_rates_at_a_tiny_size_take_a_readable_unit(capsys):
    """`--size 1B` read "algbw 0.00 GB/s busbw 0.00 GB/s" (trial 14): one unit for the rates shown together, by
    `core.units.rate_unit`, in schedule's lines and compare's seconds table alike."""
    from core.units import rate_unit
    assert rate_unit([3.1e9, 5.2e9]) == ("GB/s", 1e9)
    assert rate_unit([2.3e7, 4.1e7]) == ("MB/s", 1e6)
    assert rate_unit([1.7e5, 2.5e5]) == ("KB/s", 1e3)
    assert rate_unit([12.0]) == ("B/s", 1.0)
    assert rate_unit([5e8, 2e9]) == ("GB/s", 1e9) and rate_unit([]) == ("GB/s", 1e9)
    assert cli.main(["schedule", "example:fig3", "--method", "critical-path", "--size", "1B"]) == 0
    out = capsys.readouterr().out
    assert "algbw 166.66 KB/s  busbw 250.00 KB/s" in out and " 0.00 " not in out
    assert cli.main(["compare", "bcube:n=2,k=1", "--methods", "critical-path", "--size", "1B"]) == 0
    out = capsys.readouterr().out
    head = next(x for x in out.splitlines() if x.startswith("config") and "algbw" in x)
    assert "algbw KB/s" in head and "busbw KB/s" in head
    assert "0.00 " not in out.split(head)[1].splitlines()[1] + " "


def test_the_rounds_bound_line_names_whose_bound_it_is(capsys):
    """`--method optimal` printed "lower bound 6 (link load 4, critical path 4, ports 3, link schedule 5)": the 6 is
    CP-SAT's proven bound, named only at the bottom; time-aware's read "lower bound 5 of the DAG it chose, 'shortest',
    (link load ..." (trial 14)."""
    four = "    closed-form bounds: link load 4, critical path 4, ports 3, link schedule 5"  # under it (fix29a: <= 100)
    assert cli.main(["schedule", "example:fig3", "--method", "optimal"]) == 0
    out = capsys.readouterr().out
    assert f"  workloads 24; lower bound 6, proven by CP-SAT, above the closed-form bounds; gap 0.0%\n{four}\n" in out
    assert cli.main(["schedule", "example:fig3", "--method", "critical-path"]) == 0
    assert f"  workloads 24; lower bound 5; gap 20.0%\n{four}\n" in capsys.readouterr().out
    assert cli.main(["schedule", "example:fig3", "--method", "time-aware"]) == 0
    out = capsys.readouterr().out
    assert f"  workloads 24; lower bound 5 of the DAG it chose, 'shortest'; gap 20.0%\n{four}\n" in out


def test_replay_file_and_compare_seed_help_say_what_they_are(capsys):
    """`replay`'s file had no help text and `compare --seed` promised "the same schedule file", which compare never
    writes (trial 14)."""
    with pytest.raises(SystemExit):
        cli.main(["replay", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "file an allreduce-schedule/1 file (.json or .npz), as schedule --out writes it" in out
    with pytest.raises(SystemExit):
        cli.main(["compare", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    seed = out[out.index("--seed SEED seed of"):][:250]
    assert "the same seed gives the same rounds and times" in seed and "schedule file" not in seed
    with pytest.raises(SystemExit):
        cli.main(["schedule", "--help"])
    assert "the same seed writes the same schedule file" in " ".join(capsys.readouterr().out.split())
