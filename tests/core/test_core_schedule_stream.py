"""The JSON schedule writer streams its document (issue 13): the file is byte for byte what the old writer,
which built the whole document and its text in memory, wrote — for plain, merged, grouped, chunked, ring and
failed-link schedules, with timing, a re-plan and a trace — whatever the part sizes."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

import core.schedule_io as sio
from core import cli
from core.schedule import Schedule
from core.schedule_io import header_dict, read_schedule_file, schedule_to_dict, write_schedule

from _corelib import schedule


def old_schedule_to_dict(schedule: Schedule, stats=None, trace=False, timing=None, extra=None) -> dict:
    """`core.schedule_io.schedule_to_dict` as it was before streaming (main at b2e6610), kept verbatim."""
    dag = schedule.dag
    path = dag.path.to_lists()
    prefix = dag.prefix.to_lists()
    phase = ["reduce" if p == 0 else "broadcast" for p in dag.phase.tolist()]
    workloads = [
        {"id": w, "root": r, "chunk": c, "phase": ph, "path": pa, "prefix": pr, "carries_own": own}
        for w, (r, c, ph, pa, pr, own) in enumerate(zip(dag.root.tolist(), dag.chunk.tolist(), phase, path,
                                                        prefix, dag.carries_own.tolist()))
    ]
    if dag.n_groups:
        n = dag.n
        for item in workloads:
            pre = item["prefix"]
            if pre and max(pre) >= n:
                item["prefix"] = [p for p in pre if p < n]
                item["prefix_groups"] = [p - n for p in pre if p >= n]
    doc = header_dict(schedule, stats, trace, timing, extra)
    doc["workloads"] = workloads
    doc["rounds"] = [ids.tolist() for ids in schedule.rounds]
    if dag.n_groups:
        doc["prefix_groups"] = dag.groups.to_lists()
    return doc


def old_bytes(*args, **kw) -> bytes:
    """What the old `write_schedule` wrote: ``json.dumps`` of the whole document, then its bytes."""
    return json.dumps(old_schedule_to_dict(*args, **kw), separators=(",", ":")).encode()


CASES = [  # (spec, method, chunks, merge): merged trees, plain trees with prefix groups, chunks, the ring
    ("bcube:n=3,k=1", "critical-path", 1, True),
    ("bcube:n=3,k=1", "ps", 1, False),
    ("dcell:n=3,k=1", "greedy", 2, False),
    ("dcell:n=2,k=1", "critical-path", 3, True),
    ("bcube:n=2,k=1", "ring", 2, True),
    ("fattree:k=4", "ps", 1, True),
]


@pytest.mark.parametrize("part,entries,part_ids", [(None, None, None), (1, 1, 1), (3, 10 ** 6, 7), (64, 40, 5),
                                                   (10 ** 6, 1, 10 ** 6)])
@pytest.mark.parametrize("spec,method,chunks,merge", CASES)
def test_file_is_the_old_writers_bytes(tmp_path, monkeypatch, spec, method, chunks, merge, part, entries, part_ids):
    if part is not None:  # parts of 1 workload, entry or round id, and sizes that split rows unevenly
        monkeypatch.setattr(sio, "_PART", part)
        monkeypatch.setattr(sio, "_PART_ENTRIES", entries)
        monkeypatch.setattr(sio, "_PART_IDS", part_ids)
    s = schedule(spec, method, chunks=chunks, merge=merge)
    stats = s.stats()
    timing = {"size_bytes": 2 ** 20, "sync": {"time_s": 0.25, "algbw": float("inf")}, "arr": np.arange(3)}
    f = tmp_path / "s.json"
    head = write_schedule(s, f, stats, timing=timing)
    assert f.read_bytes() == old_bytes(s, stats, timing=timing)
    assert head == header_dict(s, stats, timing=timing)
    doc = schedule_to_dict(s, stats, timing=timing)
    assert json.dumps(doc) == json.dumps(old_schedule_to_dict(s, stats, timing=timing))
    if not merge:
        assert "prefix_groups" in doc


def test_trace_extra_and_a_key_of_extra_named_like_the_body(tmp_path, monkeypatch):
    monkeypatch.setattr(sio, "_PART", 2)
    s = dataclasses.replace(schedule("bcube:n=2,k=1", "ps", merge=False),
                            trace={"steps": [[1, 2.5], [3, -0.0]], "name": "é\u2028"})
    # a header key that is also a body key keeps its place (dict assignment in the old writer)
    extra = {"network": {"failed": [1, 2], "slowed": []}, "rounds": "replaced", "zz": None}
    f = tmp_path / "t.json"
    write_schedule(s, f, trace=True, extra=extra)
    assert f.read_bytes() == old_bytes(s, trace=True, extra=extra)
    assert b'"trace":' in f.read_bytes()


def test_empty_rounds(tmp_path):
    s = schedule("bcube:n=2,k=1", "critical-path")
    s = dataclasses.replace(s, rounds=[])
    f = tmp_path / "e.json"
    write_schedule(s, f, stats={"rounds": 0})
    assert f.read_bytes() == old_bytes(s, stats={"rounds": 0})
    assert json.loads(f.read_bytes())["rounds"] == []


@pytest.mark.parametrize("argv", [
    ["bcube:n=3,k=1", "--method", "critical-path", "--fail-links", "0,5"],
    ["dcell:n=3,k=1", "--method", "ps", "--no-merge", "--chunks", "2", "--slow-links", "3:x0.5"],
    ["bcube:n=3,k=1", "--method", "greedy", "--fail-at", "round=3:2"],
])
def test_cli_file_is_the_old_writers_bytes(tmp_path, monkeypatch, capsys, argv):
    """`schedule --out` (stats, timing, failed or slowed links, a re-plan): the file equals the old writer's
    output for the same arguments."""
    import core.cli.schedule as cs
    monkeypatch.setattr(sio, "_PART", 5)
    seen = []

    def spy(sched, path, stats=None, trace=False, timing=None, extra=None):
        seen.append(old_bytes(sched, stats, trace=trace, timing=timing, extra=extra))
        return write_schedule(sched, path, stats, trace=trace, timing=timing, extra=extra)

    monkeypatch.setattr(cs, "write_schedule", spy)
    f = tmp_path / "c.json"
    assert cli.main(["schedule", *argv, "--out", str(f)]) == 0, capsys.readouterr()
    assert len(seen) == 1 and f.read_bytes() == seen[0]
    doc = read_schedule_file(f)
    assert ("network" in doc) == ("--fail-links" in argv or "--slow-links" in argv)
    assert ("replan" in doc) == ("--fail-at" in argv)
    assert cli.main(["validate", str(f)]) == 0


def test_writer_never_builds_the_whole_document(tmp_path, monkeypatch):
    """The largest piece of JSON text the writer encodes at once is one part, not the document."""
    monkeypatch.setattr(sio, "_PART", 8)
    monkeypatch.setattr(sio, "_PART_ENTRIES", 10 ** 9)
    monkeypatch.setattr(sio, "_PART_IDS", 16)
    sizes = []
    real = json.dumps

    def measured(obj, *a, **kw):
        text = real(obj, *a, **kw)
        sizes.append(len(text))
        return text

    monkeypatch.setattr(sio.json, "dumps", measured)
    s = schedule("bcube:n=3,k=1", "ps", merge=False)
    f = tmp_path / "p.json"
    write_schedule(s, f)
    total = f.stat().st_size
    assert sum(sizes) >= total - 2 * len(sizes)  # every byte came from one of these calls (+ brackets and commas)
    assert max(sizes) < total / 10, (max(sizes), total)


def test_cycle_collection_is_paused_only_while_writing(tmp_path, monkeypatch):
    import gc
    s = schedule("bcube:n=2,k=1", "critical-path")
    states = []
    real = sio._write_json
    monkeypatch.setattr(sio, "_write_json", lambda *a: (states.append(gc.isenabled()), real(*a)))
    assert gc.isenabled()
    write_schedule(s, tmp_path / "a.json")
    assert states == [False] and gc.isenabled()
    monkeypatch.setattr(sio, "_write_json", lambda *a: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        write_schedule(s, tmp_path / "b.json")
    assert gc.isenabled() and not (tmp_path / "b.json").exists()
    gc.disable()
    try:
        monkeypatch.setattr(sio, "_write_json", real)
        write_schedule(s, tmp_path / "c.json")
        assert not gc.isenabled()  # a caller's own pause is kept
    finally:
        gc.enable()


def test_parts_are_cut_by_list_entries_too(monkeypatch):
    """Merged trees with S-1 fan-in (fat-tree) hold hundreds of prefix entries per workload: a part is cut at
    `_PART_ENTRIES` path nodes and prefix entries as well as at `_PART` workloads."""
    monkeypatch.setattr(sio, "_PART", 10 ** 6)
    monkeypatch.setattr(sio, "_PART_ENTRIES", 200)
    dag = schedule("fattree:k=4", "critical-path").dag
    parts = list(sio._workload_parts(dag))
    assert sum(map(len, parts)) == dag.n and len(parts) > 1
    for part in parts:
        entries = sum(len(w["path"]) + len(w["prefix"]) + len(w.get("prefix_groups", [])) for w in part)
        assert entries <= 200 or len(part) == 1
    assert [w["id"] for part in parts for w in part] == list(range(dag.n))
