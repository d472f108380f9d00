"""`allreduce-lab topology SPEC --format json` writes a topology file that `file:PATH` reads back (stop 30's review:
a user saved the JSON to feed it back and got only the size summary): the same nodes, labels, links, capacities,
bandwidths, latencies and failed links, and the same rounds for a method."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.methods import run_method
from core.schedule import ScheduleConfig
from core.topology import degrade, make_topology

from test_core_bad_input import run_cli

SPECS = ["bcube:n=3,k=1", "dcell:n=2,k=1", "fattree:k=4", "leafspine:leaves=3,spines=2,servers=2",
         "bcube:n=2,k=1,bw=100/25"]


def _same_network(a, b) -> None:
    assert a.labels == b.labels and a.is_server.tolist() == b.is_server.tolist()
    for name in ("edges", "capacity", "bandwidth", "latency", "failed"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def _write_and_read(capsys, tmp_path, spec: str, *options: str):
    code, out, err = run_cli(capsys, "topology", spec, "--format", "json", *options)
    assert code == 0, err
    (tmp_path / "t.json").write_text(out)
    return json.loads(out), make_topology(f"file:{tmp_path / 't.json'}")


@pytest.mark.parametrize("spec", SPECS)
def test_topology_json_reads_back_as_the_same_network(capsys, tmp_path, spec):
    doc, back = _write_and_read(capsys, tmp_path, spec)
    t = make_topology(spec)
    _same_network(t, back)
    assert doc["summary"] == json.loads(json.dumps(t.summary()))  # the summary, as the JSON printed it alone before
    cfg = ScheduleConfig()
    assert [r.tolist() for r in run_method("critical-path", back, cfg).rounds] == \
        [r.tolist() for r in run_method("critical-path", t, cfg).rounds]


def test_failed_and_slowed_links_travel_in_the_file(capsys, tmp_path):
    options = ("--fail-links", "0,5", "--slow-links", "1:25,s10-sw1.0:40")
    doc, back = _write_and_read(capsys, tmp_path, "bcube:n=3,k=1", *options)
    t = degrade(make_topology("bcube:n=3,k=1"), fail="0,5", slow="1:25,s10-sw1.0:40")
    _same_network(t, back)
    assert doc["failed"] == [0, 5] and back.failed.sum() == 2 and sorted(set(back.bandwidth.tolist())) == [25, 40, 100]
    cfg = ScheduleConfig()
    assert [r.tolist() for r in run_method("time-aware", back, cfg).rounds] == \
        [r.tolist() for r in run_method("time-aware", t, cfg).rounds]
    # written again from the file it wrote: the same file, but for the spec it names
    code, again, _ = run_cli(capsys, "topology", f"file:{tmp_path / 't.json'}", "--format", "json")
    first = (tmp_path / "t.json").read_text()
    assert code == 0 and again.replace(f"file:{tmp_path / 't.json'}", "bcube:n=3,k=1") == first


def test_a_file_with_its_own_ids_and_failed_links_reads_back(capsys, tmp_path):
    net = {"nodes": [{"id": "a", "kind": "server"}, {"id": "b", "kind": "server"}, {"id": "c", "kind": "server"},
                     {"id": "L", "kind": "switch"}, {"id": "S", "kind": "switch"}],
           "links": [["a", "L", 2, "25Gbps", "500ns"], ["b", "L"], ["c", "S"], ["L", "S", 3, 200, 2],
                     {"u": "a", "v": "S", "failed": True}]}
    (tmp_path / "net.json").write_text(json.dumps(net))
    doc, back = _write_and_read(capsys, tmp_path, f"file:{tmp_path / 'net.json'}")
    t = make_topology(f"file:{tmp_path / 'net.json'}")
    _same_network(t, back)
    assert back.labels == ("a", "b", "c", "L", "S") and doc["failed"] == [4]
    assert doc["links"][0] == [0, 3, 2, 25.0, 0.5]


def test_the_links_rows_sit_under_the_summary(capsys, tmp_path):
    doc, back = _write_and_read(capsys, tmp_path, "bcube:n=2,k=1", "--links", "--slow-links", "1:25")
    assert doc["summary"]["links"][1]["slowed_from_gbps"] == 100.0 and len(doc["links"]) == back.n_edges == 8
    assert all(isinstance(link, list) for link in doc["links"])  # the file's links, [u, v, capacity, Gbit/s, µs]


def _schedule_file(capsys, tmp_path, name: str, spec: str, *options: str):
    """`schedule SPEC --out tmp_path/name` (greedy); the file's path."""
    out = tmp_path / name
    code, _, err = run_cli(capsys, "schedule", spec, "--method", "greedy", "--out", str(out), *options)
    assert code == 0, err
    return out


def test_a_schedule_of_a_schedule_file_keeps_the_spec_it_carries(capsys, tmp_path):
    """schedule -> write -> read -> write -> read: the spec the first file records is still the one the third
    reads (fix23a: the second write recorded ``file:s1.json``, and the third read named another file)."""
    from core.topology.carried import carried_difference
    s1 = _schedule_file(capsys, tmp_path, "s1.json", "bcube:n=3,k=1")
    s2 = _schedule_file(capsys, tmp_path, "s2.json", f"file:{s1}")
    s3 = _schedule_file(capsys, tmp_path, "s3.json", f"file:{s2}")
    for f in (s1, s2, s3):
        assert json.loads(f.read_text())["topology"]["spec"] == "bcube:n=3,k=1", f.name
        t = make_topology(f"file:{f}")
        assert t.carried_spec == "bcube:n=3,k=1" and carried_difference(t) is None
        assert run_cli(capsys, "validate", str(f))[0] == 0
    # topology --format json of such a file keeps it too
    code, out, _ = run_cli(capsys, "topology", f"file:{s2}", "--format", "json")
    assert code == 0 and json.loads(out)["spec"] == "bcube:n=3,k=1"
    # a link failed on the way keeps the claim, and the reader says why the graph is no longer the spec's
    s4 = _schedule_file(capsys, tmp_path, "s4.json", f"file:{s3}", "--fail-links", "1")
    t = make_topology(f"file:{s4}")
    assert t.carried_spec == "bcube:n=3,k=1" and carried_difference(t) == "link 1 (s01-sw0.0) is failed"


def test_a_file_no_longer_of_its_specs_graph_records_its_own_spec(capsys, tmp_path):
    """A file whose links were edited is not the spec's graph: its schedule records ``file:PATH``, as before (the
    spec would not build the graph the schedule file holds, and validate would refuse it)."""
    doc, _ = _write_and_read(capsys, tmp_path, "bcube:n=3,k=1")
    doc["links"].pop()
    (tmp_path / "t.json").write_text(json.dumps(doc))
    s1 = _schedule_file(capsys, tmp_path, "s1.json", f"file:{tmp_path / 't.json'}")
    assert json.loads(s1.read_text())["topology"]["spec"] == f"file:{tmp_path / 't.json'}"
    assert run_cli(capsys, "validate", str(s1))[0] == 0
