"""Bad input: every error names the rule broken and the value given; the CLI exits 2 with one line."""

from __future__ import annotations

import json

import networkx as nx
import pytest

from core import cli
from core.methods import get_method
from core.schedule import ScheduleConfig
from core.topology import (TopologyError, bcube, dcell, fattree, from_networkx, jellyfish, make_topology,
                           preset)
from core.workloads import tree_dag

from _corelib import make_graph


def run_cli(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code, err, *needles):
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("allreduce-lab: error: ")
    assert "Traceback" not in err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


# ---- generators (API) -------------------------------------------------------------------------
@pytest.mark.parametrize("build,needles", [
    (lambda: bcube(1, 1), ["n >= 2", "n=1"]),
    (lambda: bcube(0, 1), ["n >= 2", "n=0"]),
    (lambda: bcube(3, -1), ["k >= 0", "k=-1"]),
    (lambda: dcell(1, 1), ["n >= 2", "n=1"]),
    (lambda: dcell(4, -2), ["k >= 0", "k=-2"]),
    (lambda: jellyfish(10, 4, 4), ["switch_ports < ports", "switch_ports=4", "ports=4"]),
    (lambda: jellyfish(10, 4, 6), ["switch_ports < ports", "switch_ports=6"]),
    (lambda: jellyfish(4, 6, 4), ["switch_ports=4", "switches-1=3"]),
    (lambda: jellyfish(0, 5, 4), ["switches >= 1", "switches=0"]),
    (lambda: fattree(3), ["even k", "k=3"]),
    (lambda: fattree(7), ["even k", "k=7"]),
    (lambda: fattree(0), ["k >= 2", "k=0"]),
])
def test_generator_rejects_bad_parameters(build, needles):
    with pytest.raises(TopologyError) as info:
        build()
    for needle in needles:
        assert needle in str(info.value)


def test_jellyfish_without_switch_links_is_disconnected():
    with pytest.raises(TopologyError, match="connected"):
        jellyfish(10, 5, 0)


def test_topology_rules():
    with pytest.raises(TopologyError, match=r"connected, got 2 components"):
        make_graph([True, True, True, True], [(0, 1), (2, 3)])
    with pytest.raises(TopologyError, match=r"at least 2 servers.*got 0"):
        make_graph([False, False], [(0, 1)])
    with pytest.raises(TopologyError, match=r"at least 2 servers.*got 1"):
        make_graph([True, False, False], [(0, 1), (1, 2)])
    with pytest.raises(TopologyError, match="self-loops"):
        make_graph([True, True], [(0, 1), (1, 1)])
    with pytest.raises(TopologyError, match="parallel"):
        make_graph([True, True], [(0, 1), (1, 0)])
    with pytest.raises(TopologyError, match="capacity must be a positive integer, got 0"):
        make_graph([True, True], [(0, 1)], caps=[0])


def test_networkx_node_without_kind():
    g = nx.path_graph(3)
    g.nodes[0]["kind"] = "server"
    g.nodes[1]["kind"] = "server"
    with pytest.raises(TopologyError, match=r"node 2: kind must be 'server' or 'switch', got 'nothing'"):
        from_networkx(g)
    g.nodes[2]["kind"] = "router"
    with pytest.raises(TopologyError, match="got 'router'"):
        from_networkx(g)


@pytest.mark.parametrize("spec,needles", [
    ("", ["empty"]),
    ("torus:n=3", ["unknown topology family", "'torus'"]),
    ("bcube:n=3,k=1,z=2", ["unknown parameter", "'z'"]),
    ("bcube:n=x,k=1", ["must be an integer", "'x'"]),
    ("bcube:n=3.5,k=1", ["must be an integer", "'3.5'"]),
    ("bcube:n=3", ["missing", "k"]),
    ("bcube:n3,k=1", ["key=value", "n3"]),
    ("example:fig9", ["unknown example", "fig9"]),
    ("file:", ["needs a path"]),
])
def test_bad_specs(spec, needles):
    with pytest.raises(TopologyError) as info:
        make_topology(spec)
    for needle in needles:
        assert needle in str(info.value)


def test_unknown_preset_and_method():
    with pytest.raises(TopologyError, match="unknown preset 'table9'"):
        preset("table9")
    with pytest.raises(ValueError, match="unknown method 'fastest'"):
        get_method("fastest")


@pytest.mark.parametrize("kwargs,needle", [
    ({"chunks": 0}, "chunks must be an integer >= 1, got 0"),
    ({"routing": "ecmp"}, "routing must be one of"),
    ({"time_limit": 0}, "time_limit must be > 0"),
    ({"samples": 0}, "samples must be >= 1"),
])
def test_bad_schedule_config(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        ScheduleConfig(**kwargs)


def test_bad_chunks_for_dag():
    with pytest.raises(ValueError, match="chunks must be an integer >= 1, got 0"):
        tree_dag(make_topology("example:fig3"), chunks=0)


# ---- files ------------------------------------------------------------------------------------
def test_file_errors(tmp_path):
    with pytest.raises(TopologyError, match="no such file"):
        make_topology(f"file:{tmp_path / 'missing.graphml'}")
    (tmp_path / "bad.graphml").write_text("<graphml><node id=")
    with pytest.raises(TopologyError, match=r"bad.graphml: not a readable graphml graph"):
        make_topology(f"file:{tmp_path / 'bad.graphml'}")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(TopologyError, match=r"bad.json: not a readable json graph"):
        make_topology(f"file:{tmp_path / 'bad.json'}")
    g = nx.Graph()
    g.add_node("a", kind="server")
    g.add_node("b", kind="server")
    g.add_node("c")
    g.add_edges_from([("a", "c"), ("b", "c")])
    nx.write_graphml(g, tmp_path / "nokind.graphml")
    with pytest.raises(TopologyError, match=r"node 'c': kind must be"):
        make_topology(f"file:{tmp_path / 'nokind.graphml'}")
    (tmp_path / "nokind.json").write_text(json.dumps(
        {"nodes": [{"id": 0, "kind": "server"}, {"id": 1}], "links": [[0, 1]]}))
    with pytest.raises(TopologyError, match=r"node 1: kind must be"):
        make_topology(f"file:{tmp_path / 'nokind.json'}")
    (tmp_path / "dangling.json").write_text(json.dumps(
        {"nodes": [{"id": 0, "kind": "server"}, {"id": 1, "kind": "server"}], "links": [[0, 7]]}))
    with pytest.raises(TopologyError, match=r"names node 7"):
        make_topology(f"file:{tmp_path / 'dangling.json'}")
    (tmp_path / "cap.json").write_text(json.dumps(
        {"nodes": [{"id": 0, "kind": "server"}, {"id": 1, "kind": "server"}], "links": [[0, 1, 1.5]]}))
    with pytest.raises(TopologyError, match=r"capacity must be a positive integer, got 1.5"):
        make_topology(f"file:{tmp_path / 'cap.json'}")
    (tmp_path / "net.txt").write_text("0 1")
    with pytest.raises(TopologyError, match="unknown file type .txt"):
        make_topology(f"file:{tmp_path / 'net.txt'}")
    (tmp_path / "one.json").write_text(json.dumps(
        {"nodes": [{"id": 0, "kind": "server"}, {"id": 1, "kind": "switch"}], "links": [[0, 1]]}))
    with pytest.raises(TopologyError, match="at least 2 servers"):
        make_topology(f"file:{tmp_path / 'one.json'}")


# ---- CLI: exit 2, one line, no traceback ------------------------------------------------------
@pytest.mark.parametrize("argv,needles", [
    (["topology", "bcube:n=1,k=1"], ["n >= 2", "n=1"]),
    (["topology", "bcube:n=3,k=-1"], ["k >= 0", "k=-1"]),
    (["topology", "dcell:n=1,k=1"], ["n >= 2", "n=1"]),
    (["topology", "jellyfish:switches=10,ports=5,switch_ports=5"], ["switch_ports < ports", "switch_ports=5"]),
    (["topology", "jellyfish:switches=4,ports=6,switch_ports=4"], ["switch_ports=4", "switches-1=3"]),
    (["topology", "fattree:k=5"], ["even k", "k=5"]),
    (["topology", "mesh:n=3"], ["unknown topology family", "'mesh'"]),
    (["topology", "bcube:n=3,k=1,q=1"], ["unknown parameter", "'q'"]),
    (["topology", "bcube:n=three,k=1"], ["must be an integer", "'three'"]),
    (["topology", "file:/nonexistent/net.graphml"], ["no such file"]),
    (["schedule", "bcube:n=2,k=1", "--method", "quantum"], ["unknown method", "'quantum'"]),
    (["schedule", "bcube:n=2,k=1", "--chunks", "0"], ["chunks", "got 0"]),
    (["schedule", "bcube:n=2,k=1", "--time-limit", "-1", "--method", "optimal"], ["time_limit", "-1"]),
    (["compare", "bcube:n=2,k=1", "--methods", "ps,quantum"], ["unknown method", "'quantum'"]),
    (["compare"], ["--preset"]),
    (["compare", "--preset", "table9"], ["unknown preset", "'table9'"]),
    (["compare", "bcube:n=2,k=1", "--seeds", "0"], ["seeds", "got 0"]),
    (["validate", "/nonexistent/s.json"], ["no such file"]),
])
def test_cli_bad_input(capsys, argv, needles):
    code, out, err = run_cli(capsys, *argv)
    assert_one_line_error(code, err, *needles)


def test_cli_file_errors(capsys, tmp_path):
    (tmp_path / "bad.graphml").write_text("<graphml")
    assert_one_line_error(*run_cli(capsys, "topology", f"file:{tmp_path / 'bad.graphml'}")[::2], "bad.graphml")
    g = nx.Graph([(0, 1), (2, 3)])
    nx.set_node_attributes(g, "server", "kind")
    nx.write_graphml(g, tmp_path / "split.graphml")
    assert_one_line_error(*run_cli(capsys, "topology", f"file:{tmp_path / 'split.graphml'}")[::2],
                          "connected", "2 components")
    for name, kinds, needle in (("one.json", ["server", "switch"], "got 1"),
                                ("none.json", ["switch", "switch"], "got 0")):
        (tmp_path / name).write_text(json.dumps(
            {"nodes": [{"id": i, "kind": k} for i, k in enumerate(kinds)], "links": [[0, 1]]}))
        assert_one_line_error(*run_cli(capsys, "schedule", f"file:{tmp_path / name}")[::2],
                              "at least 2 servers", needle)


@pytest.mark.parametrize("content,needles", [
    ("{oops", ["not JSON"]),
    ("[1, 2]", ["must be a JSON object"]),
    ('{"format": "other/1"}', ["format must be 'allreduce-schedule/1'", "'other/1'"]),
    ('{"format": "allreduce-schedule/1", "topology": {}, "workloads": {}, "rounds": []}', ["'workloads'"]),
])
def test_cli_validate_malformed_file(capsys, tmp_path, content, needles):
    f = tmp_path / "s.json"
    f.write_text(content)
    assert_one_line_error(*run_cli(capsys, "validate", str(f))[::2], *needles)


def test_cli_topology_ok(capsys):
    code, out, err = run_cli(capsys, "topology", "bcube:n=3,k=1", "--format", "json")
    assert code == 0
    s = json.loads(out)
    assert (s["servers"], s["switches"], s["edges"], s["directed_links"]) == (9, 6, 18, 36)
    code, out, err = run_cli(capsys, "topology", "dcell:n=4,k=1")
    assert code == 0
    assert "servers 20, switches 5, nodes 25, edges 30" in out
    assert "merged workloads 2*S*(S-1) = 760" in out


def test_jellyfish_negative_seed_names_the_parameter():
    with pytest.raises(TopologyError, match="seed"):
        make_topology("jellyfish:switches=10,ports=5,switch_ports=4,seed=-1")


def test_jellyfish_has_a_size_limit_like_other_families():
    with pytest.raises(TopologyError, match="limit"):
        jellyfish(1, 100_002, 0)
