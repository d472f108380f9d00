"""allreduce-schedule/1 files (MODEL.md §8): write -> read round trip for every method, and the CLI
path `schedule --out f.json` then `validate f.json`."""

from __future__ import annotations

import json

import pytest

from core import cli
from core.schedule_io import FORMAT, ScheduleFileError, check_header, read_schedule_file, write_schedule
from core.validate import validate_document

from _corelib import schedule

METHODS = ["ps", "ring", "greedy", "critical-path", "optimal"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("spec,chunks,merge", [("bcube:n=2,k=1", 1, True), ("dcell:n=2,k=1", 2, True),
                                               ("bcube:n=2,k=1", 1, False)])
def test_round_trip(tmp_path, spec, method, chunks, merge):
    s = schedule(spec, method, chunks=chunks, merge=merge, time_limit=2.0)
    f = tmp_path / "s.json"
    written = write_schedule(s, f)
    doc = read_schedule_file(f)
    assert doc == json.loads(json.dumps(written))
    assert doc["format"] == FORMAT and doc["method"] == method
    assert doc["chunks"] == chunks and doc["merge"] == bool(s.dag.merge)
    assert doc["rounds"] == [r.tolist() for r in s.rounds]
    assert doc["workloads"] == [s.dag.workload(w) for w in range(s.dag.n)]
    t = s.dag.topology
    assert doc["topology"]["spec"] == spec
    assert [n["kind"] == "server" for n in doc["topology"]["nodes"]] == t.is_server.tolist()
    assert doc["topology"]["links"] == [[u, v, c, bw, lat] for (u, v), c, bw, lat in zip(
        t.edges.tolist(), t.capacity.tolist(), t.bandwidth.tolist(), t.latency.tolist())]
    assert doc["stats"]["rounds"] == s.n_rounds and doc["stats"]["workloads"] == s.dag.n
    rep = validate_document(doc)
    assert rep.ok, rep.violations[:3]
    assert (rep.rounds, rep.workloads, rep.trees) == (s.n_rounds, s.dag.n, s.dag.n_trees)


@pytest.mark.parametrize("method", METHODS)
def test_cli_schedule_then_validate(tmp_path, capsys, method):
    f = tmp_path / f"{method}.json"
    code = cli.main(["schedule", "bcube:n=3,k=1", "--method", method, "--out", str(f), "--time-limit", "5"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f"wrote {f}" in out
    doc = json.loads(f.read_text())
    want = schedule("bcube:n=3,k=1", method, time_limit=5.0)
    if method != "optimal":  # CP-SAT may return another optimal schedule
        assert doc["rounds"] == [r.tolist() for r in want.rounds]
    assert f"rounds {len(doc['rounds'])}" in out
    code = cli.main(["validate", str(f)])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert out.strip() == (f"{f}: OK — {len(doc['workloads'])} workloads in {len(doc['rounds'])} rounds; every "
                           f"server holds the sum of all 9 flow-trees exactly once")


def test_cli_schedule_options(tmp_path, capsys):
    f = tmp_path / "s.json"
    code = cli.main(["schedule", "dcell:n=3,k=1", "--method", "greedy", "--chunks", "2", "--no-merge",
                     "--seed", "4", "--routing", "balanced", "--out", str(f), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0
    stats = json.loads(out)
    doc = json.loads(f.read_text())
    assert doc["chunks"] == 2 and doc["merge"] is False and doc["routing"] == "balanced"
    want = schedule("dcell:n=3,k=1", "greedy", chunks=2, merge=False, seed=4, routing="balanced")
    assert stats["rounds"] == want.n_rounds == len(doc["rounds"])
    assert stats["rounds_per_chunk"] == want.n_rounds / 2
    assert stats["workloads"] == want.dag.n
    assert cli.main(["validate", str(f)]) == 0


def test_optimal_file_records_proof(tmp_path):
    s = schedule("bcube:n=3,k=1", "optimal", time_limit=5.0)
    doc = write_schedule(s, tmp_path / "o.json")
    assert doc["info"]["proven_optimal"] is True and doc["info"]["proven_bound"] == 12
    assert doc["stats"]["rounds"] == 12 and doc["stats"]["lower_bound"] == 12 and doc["stats"]["gap"] == 0


def test_header_checks(tmp_path):
    with pytest.raises(ScheduleFileError, match="no such file"):
        read_schedule_file(tmp_path / "none.json")
    (tmp_path / "x.json").write_bytes(b"\xff\xfe")
    with pytest.raises(ScheduleFileError, match="not JSON"):
        read_schedule_file(tmp_path / "x.json")
    with pytest.raises(ScheduleFileError, match="'rounds' must be a JSON list"):
        check_header({"format": FORMAT, "topology": {}, "workloads": [], "rounds": {}})
    with pytest.raises(ScheduleFileError, match="'topology' must be a JSON object"):
        check_header({"format": FORMAT, "topology": [], "workloads": [], "rounds": []})
