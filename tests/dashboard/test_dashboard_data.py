"""The cached wrappers over core: sources, trees, counts, schedule documents (outside a running app)."""

from __future__ import annotations

import csv
import io
import json

import pytest

from core.compare import compare, configurations
from core.schedule import ScheduleConfig
from core.topology import TopologyError
from dashboard import data
from dashboard.sources import Source, TooBig

FIG3 = Source("example:fig3", "Fig. 3")


def test_fig3_counts_and_payloads():
    counts = data.tree_counts(FIG3, 0)
    assert (counts["unmerged_reduce"], counts["merged_reduce"]) == (5, 3)
    assert counts["merged_total"] == 2 * 4 * 3
    merged = {(a.src, a.dst): a.text for a in data.workload_arcs(FIG3, 0, True)}
    assert "carries B+C+D" in merged[(1, 0)] and "carries C" in merged[(2, 1)] and "carries D" in merged[(3, 1)]
    relays = [a for a in data.workload_arcs(FIG3, 0, False) if a.relay]
    assert [(a.src, a.dst) for a in relays] == [(1, 0), (1, 0)]  # B relays C's and D's pieces
    assert data.node_tree(FIG3, 0).pruned_edges.tolist() == [3]  # C–D


def test_bad_sources_raise_one_line_errors():
    with pytest.raises(TopologyError, match="n >= 2"):
        data.topology(Source("bcube:n=1,k=1"))
    with pytest.raises(TooBig):
        data.topology(Source("dcell:n=9,k=3"))
    with pytest.raises(TopologyError):
        data.topology(Source("upload:x.txt", "x.txt", b"a b"))


def test_schedule_document_and_heatmap_csv():
    src, config = Source("bcube:n=3,k=1"), ScheduleConfig()
    doc = json.loads(data.schedule_json(src, "critical-path", config))
    assert doc["format"] == "allreduce-schedule/1" and len(doc["workloads"]) == 144
    rows = list(csv.reader(io.StringIO(data.heatmap_csv(src, "critical-path", config))))
    assert len(rows) == 1 + 36 and len(rows[0]) == 2 + len(doc["rounds"])


def test_compare_row_matches_core_and_failures_become_reasons(monkeypatch):
    from core.methods import METHODS
    from fake_rl import stand_in

    src = Source("bcube:n=3,k=1", "BCube(3,1)")
    row, failed = data.compare_row(src, ("greedy",), 2, ScheduleConfig())
    (want,) = compare([c for c in configurations("table2") if c[0] == "BCube(3,1)"], ["greedy"], seeds=2)
    assert row.results["greedy"].per_seed == want.results["greedy"].per_seed and not failed
    assert row.lower_bound == want.lower_bound and row.paper is not None  # the paper's numbers come along

    def crash(dag, config, progress=None):
        raise RuntimeError("policy exploded")

    monkeypatch.setitem(METHODS, "rl", stand_in("rl", crash))
    row, failed = data.compare_row(src, ("rl", "greedy"), 2, ScheduleConfig())
    assert failed == {"rl": "policy exploded"} and list(row.results) == ["greedy"]


def test_an_uploaded_topology_is_compared_too():
    raw = json.dumps({"nodes": [{"id": i, "kind": "server" if i < 4 else "switch"} for i in range(5)],
                      "links": [[i, 4] for i in range(4)]}).encode()
    row, failed = data.compare_row(Source("upload:star.json", "star.json", raw), ("critical-path", "ring"), 1,
                                   ScheduleConfig())
    assert not failed and row.name == "star.json" and row.servers == 4 and row.paper is None
    assert row.results["critical-path"].rounds >= row.lower_bound


def test_size_problem_names_the_limit():
    assert data.size_problem(Source("bcube:n=3,k=1")) is None
    assert "at most 64" in data.size_problem(Source("bcube:n=9,k=1"))  # 81 servers


@pytest.mark.parametrize("picked", ["mine", None])
def test_a_checkpoint_retrained_under_the_same_name_is_run_again(tmp_path, monkeypatch, picked):
    """Two checkpoints written to one path: the second is what the cached schedule (and every view built on it)
    shows, at once, not the first until the cache drops it (trial 13). None: core's default (here universal)."""
    pytest.importorskip("torch")
    from core.rl.checkpoint import save_checkpoint
    from core.rl.policy import HierarchicalPolicy, PolicyConfig
    monkeypatch.setenv("ALLREDUCE_LAB_CHECKPOINTS", str(tmp_path))
    stem = tmp_path / (picked or "universal")
    source, config = Source("bcube:n=2,k=1"), ScheduleConfig(checkpoint=picked, trace=False)

    def shown() -> tuple[list, list]:
        return (data.schedule(source, "rl", config).info["trained_on"],
                data.playback(source, "rl", config).info["trained_on"])

    save_checkpoint(HierarchicalPolicy(PolicyConfig(prior="heuristic")), stem, {"topology": "dcell:n=2,k=1"})
    assert shown() == (["dcell:n=2,k=1"], ["dcell:n=2,k=1"])
    assert data.schedule(source, "rl", config) is data.schedule(source, "rl", config)  # cached while unchanged
    save_checkpoint(HierarchicalPolicy(PolicyConfig(prior="heuristic")), stem, {"topology": "bcube:n=3,k=1"})
    assert shown() == (["bcube:n=3,k=1"], ["bcube:n=3,k=1"])


def test_a_checkpoint_trained_into_the_folder_reruns_only_the_learned_methods(tmp_path, monkeypatch, stand_in_rl):
    """Issue 12: every cached result with the default config was keyed by the version of every checkpoint file in
    the folder, whatever the method, so training a checkpoint into the folder scheduled greedy and critical-path again.
    Only a learned method's results depend on the checkpoint's version now (`data.checkpoint_key`)."""
    monkeypatch.setenv("ALLREDUCE_LAB_CHECKPOINTS", str(tmp_path))
    timed: list[str] = []
    time_report = data.time_report
    monkeypatch.setattr(data, "time_report", lambda dag, *a, **k: timed.append(dag.kind) or time_report(dag, *a, **k))
    source, config, methods = Source("bcube:n=3,k=1"), ScheduleConfig(), ("greedy", "critical-path", "rl")

    def cached() -> dict:
        for m in methods:
            data.seconds_report(source, m, config)
        return {m: (data.schedule(source, m, config), data.playback(source, m, config),
                    data.compare_cell(source, m, 1, config)) for m in methods}

    before = cached()
    assert cached() == before and len(timed) == 3  # cached while nothing changes
    (tmp_path / "mine.json").write_text("{}")  # a checkpoint trained into the folder (its files' versions count)
    (tmp_path / "mine.safetensors").write_bytes(b"")
    after = cached()
    for m in ("greedy", "critical-path"):
        assert all(a is b for a, b in zip(after[m], before[m])), m  # the very objects cached before
    assert not any(a is b for a, b in zip(after["rl"], before["rl"]))  # the learned method runs again
    assert len(timed) == 4  # and only its seconds are computed again


def test_the_checkpoint_list_shows_a_checkpoint_trained_into_the_folder_at_once(tmp_path, monkeypatch):
    """Issue 12: the checkpoint list and the default's name were re-read every 30 s, so a checkpoint just trained was
    missing from the picker while the schedules (keyed by the checkpoint's version) already ran it. Both are keyed
    by the folder's checkpoint version now: a checkpoint trained or removed shows at once."""
    pytest.importorskip("torch")
    from core.rl.checkpoint import save_checkpoint
    from core.rl.policy import HierarchicalPolicy, PolicyConfig
    monkeypatch.setenv("ALLREDUCE_LAB_CHECKPOINTS", str(tmp_path))
    source = Source("bcube:n=2,k=1")

    def train(name: str, spec: str) -> None:
        save_checkpoint(HierarchicalPolicy(PolicyConfig(prior="heuristic")), tmp_path / name, {"topology": spec})

    assert data.rl_checkpoints() == () and data.default_checkpoint(source) is None
    train("universal", "dcell:n=2,k=1")
    assert data.rl_checkpoints() == ("universal",) and data.default_checkpoint(source) == "universal"
    train("bcube_n2_k1", "bcube:n=2,k=1")
    assert data.rl_checkpoints() == ("universal", "bcube_n2_k1")
    assert data.default_checkpoint(source) == "bcube_n2_k1"  # trained on this topology: now the default
    for f in tmp_path.glob("bcube_n2_k1.*"):
        f.unlink()
    assert data.rl_checkpoints() == ("universal",) and data.default_checkpoint(source) == "universal"
