"""allreduce-schedule/1 files (MODEL.md §8): write -> read round trip for every method, and the CLI
path `schedule --out f.json` then `validate f.json`."""

from __future__ import annotations

import json

import pytest

from core import cli
from core.schedule_io import (FORMAT, ScheduleFileError, check_header, read_schedule_file, schedule_to_dict,
                              write_schedule)
from core.validate import validate_document

from _corelib import schedule

METHODS = ["ps", "ring", "greedy", "critical-path", "optimal"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("spec,chunks,merge", [("bcube:n=2,k=1", 1, True), ("dcell:n=2,k=1", 2, True),
                                               ("bcube:n=2,k=1", 1, False)])
def test_round_trip(tmp_path, spec, method, chunks, merge):
    s = schedule(spec, method, chunks=chunks, merge=merge, time_limit=2.0)
    f = tmp_path / "s.json"
    written = write_schedule(s, f)  # the header: every field but the workloads, rounds and prefix groups
    doc = read_schedule_file(f)
    assert doc == json.loads(json.dumps(schedule_to_dict(s)))
    assert {k: v for k, v in doc.items() if k not in ("workloads", "rounds", "prefix_groups")} == \
        json.loads(json.dumps(written))
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


def _project_files(tmp_path, capsys) -> dict[str, tuple[str, str]]:
    """Files of the project's other kinds, each written by the command or in the form its docs give:
    name -> (path, what `validate` must call it)."""
    import networkx as nx
    g = nx.Graph()
    g.add_nodes_from([("a", {"kind": "server"}), ("b", {"kind": "server"}), ("s", {"kind": "switch"})])
    g.add_edges_from([("a", "s"), ("b", "s")])
    nx.write_graphml(g, tmp_path / "net.graphml")
    (tmp_path / "net.json").write_text(json.dumps({"nodes": [{"id": 0, "kind": "server"}, {"id": 1, "kind": "server"},
                                                             {"id": 2, "kind": "switch"}], "links": [[0, 2], [1, 2]]}))
    from core.topology import make_topology  # topology --format json's output before stop 30: the summary alone
    (tmp_path / "old_topology.json").write_text(json.dumps(make_topology("bcube:n=2,k=1").summary()))
    (tmp_path / "jobs.csv").write_text("arrival_s,gpus,model,iterations\n0,2,resnet50,100\n")
    (tmp_path / "cluster_log.csv").write_text("job_id,gpu_num,submit_time,start_time,end_time\n"
                                              "1,1,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 04:55:09\n")
    (tmp_path / "cluster_job_log").write_text(json.dumps([{"jobid": "a", "submitted_time": "2017-10-03 02:00:00",
                                                           "attempts": []}]))
    for name, argv in {"compare.json": ["compare", "bcube:n=2,k=1", "--methods", "ring", "--format", "json"],
                       "summary.json": ["schedule", "bcube:n=2,k=1", "--format", "json"],
                       "topology.json": ["topology", "bcube:n=2,k=1", "--format", "json"],
                       "cluster.json": ["cluster", "--topology", "bcube:n=2,k=1", "--trace", "synthetic:jobs=2",
                                        "--scheduler", "gadget", "--format", "json"],
                       "cluster.csv": ["cluster", "--topology", "bcube:n=2,k=1", "--trace", "synthetic:jobs=2",
                                       "--scheduler", "gadget", "--format", "csv", "--jobs-out",
                                       str(tmp_path / "per_job.csv"), "--events-out", str(tmp_path / "events.csv")],
                       "compare.csv": ["compare", "bcube:n=2,k=1", "--methods", "ring", "--format", "csv"]}.items():
        assert cli.main(argv) == 0
        (tmp_path / name).write_text(capsys.readouterr().out)
    assert cli.main(["schedule", "bcube:n=2,k=1", "--out", str(tmp_path / "s.json")]) == 0
    capsys.readouterr()
    for name, argv in {"replay.json": ["replay", str(tmp_path / "s.json"), "--format", "json"],
                       "replay_time.json": ["replay", str(tmp_path / "s.json"), "--format", "json"]}.items():
        assert cli.main(argv) == 0
        doc = json.loads(capsys.readouterr().out)
        # replay's JSON before stop 35 was its "time" block alone
        (tmp_path / name).write_text(json.dumps(doc if name == "replay.json" else doc["time"]))
    (tmp_path / "s.json").unlink()
    writes = "allreduce-lab schedule SPEC --out s.json writes one"
    topo = "give it to topology, schedule or compare as file:{}"
    return {"net.graphml": ("a GraphML topology file", topo), "net.json": ("a topology file", topo),
            "jobs.csv": ("a CSV cluster trace", "give it to cluster --trace csv:{}"),
            "cluster_log.csv": ("a Helios cluster trace", "give it to cluster --trace helios:{}"),
            "cluster_job_log": ("a Philly cluster trace", "give it to cluster --trace philly:{}"),
            "compare.json": ("compare's JSON results (compare --format json)", writes),
            "summary.json": ("schedule's JSON summary (schedule --format json)", writes),
            "topology.json": ("a topology file", topo),  # topology --format json writes one since stop 30
            "old_topology.json": ("an older topology --format json summary (it now writes a topology file)", writes),
            "cluster.json": ("cluster's JSON results (cluster --format json)", writes),
            "cluster.csv": ("cluster's CSV results (cluster --format csv)", writes),
            "per_job.csv": ("cluster's per-job CSV (cluster --jobs-out)", writes),
            "events.csv": ("cluster's events CSV (cluster --events-out)", writes),
            "compare.csv": ("compare's CSV results (compare --format csv)", writes),
            "replay.json": ("replay's JSON time report (replay --format json)", writes),
            "replay_time.json": ("replay's JSON time report (replay --format json)", writes),
            "checkpoints/universal.log.csv": ("a training log (a checkpoint's .log.csv)", writes),
            "checkpoints/universal.safetensors": ("a checkpoint's weights", "give the checkpoint, checkpoints/universal, "
                                                  "to schedule --method rl --checkpoint or cluster --scheduler topdrl "
                                                  "--checkpoint"),
            "checkpoints/universal.json": ("an RL checkpoint's sidecar", "give it to schedule --method rl --checkpoint {}"),
            "checkpoints/topdrl/topdrl.json": ("a TopDRL checkpoint's sidecar",
                                               "give it to cluster --scheduler topdrl --checkpoint {}")}


def test_a_file_of_another_kind_is_named_with_the_command_that_takes_it(tmp_path, capsys):
    """validate/replay/run given a topology file, a trace, a results file or a checkpoint say what it is and
    which command takes it (one line, exit 2), instead of "format must be 'allreduce-schedule/1', got None"."""
    from pathlib import Path
    for name, (what, use) in _project_files(tmp_path, capsys).items():
        path = name if name.startswith("checkpoints/") else str(tmp_path / name)
        assert Path(path).is_file()
        for command in ("validate", "replay", "run"):
            assert cli.main([command, path]) == 2
            out, err = capsys.readouterr()
            assert (out, err) == ("", f"allreduce-lab: error: {path} is {what}, not an allreduce-schedule/1 file: "
                                      f"{use.format(path)}\n"), (name, command)


def test_an_unknown_json_file_keeps_the_format_rule(tmp_path, capsys):
    (tmp_path / "x.json").write_text('{"hello": 1}')
    assert cli.main(["validate", str(tmp_path / "x.json")]) == 2
    assert capsys.readouterr().err.strip().endswith("not an allreduce-schedule/1 file (it has no 'format' key)")


def test_the_checkpoint_formats_written_out_are_the_checkpoints_own():
    from core.cli.kinds import RL_CHECKPOINT_FORMAT, TOPDRL_CHECKPOINT_FORMAT
    from core.cluster.topdrl import FORMAT as TOPDRL
    from core.rl.checkpoint import FORMAT as RL
    assert (RL_CHECKPOINT_FORMAT, TOPDRL_CHECKPOINT_FORMAT) == (RL, TOPDRL)


def test_docs_model_lists_every_record_a_schedule_file_holds(tmp_path, capsys):
    """fix23a: docs/model.md §8 listed MODEL.md §8's records and a few of ours, not `network` (nor `timing`,
    `replan`, `trace`): every top-level record a file written here holds, and each of `network`'s, is named there."""
    from pathlib import Path

    assert cli.main(["topology", "bcube:n=3,k=1", "--fail-links", "1", "--format", "json"]) == 0
    net = tmp_path / "net.json"
    net.write_text(capsys.readouterr().out)
    out = tmp_path / "s.json"
    assert cli.main(["schedule", f"file:{net}", "--method", "ps", "--fail-links", "2", "--slow-links", "3:25",
                     "--fail-at", "round=1:4", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert set(doc["network"]) == {"failed", "slowed", "failed_in_file"} and "replan" in doc
    section = (Path(__file__).resolve().parents[2] / "docs" / "model.md").read_text().partition(
        "## 8. Schedule files")[2].partition("\n## ")[0]
    records = set(doc) | set(doc["network"]) | {"trace", "prefix_groups"}  # with --trace; the plain DAG's groups
    assert not [key for key in sorted(records) if f"`{key}`" not in section]
