"""The method registry: one record per method, read by the CLI, compare and the dashboard; every
result is replayed through the engine before it is returned."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from core import cli
from core.compare import compare, configurations, default_methods
from core.engine import list_schedule
from core.methods import (METHODS, InvalidSchedule, Method, MethodUnavailable, get_method, register, run_method,
                          unregister)
from core.schedule import Plan, ScheduleConfig
from core.topology import make_topology


def longest_path_first(dag, config, progress=None):
    """A toy method: the list scheduler with the longest remaining chain first (ties by id)."""
    return list_schedule(dag, -dag.tail)


@pytest.fixture
def toy():
    """A toy method registered for one test (and removed after it)."""
    m = register(Method("toy-lpf", "Toy: longest path first", longest_path_first, dag="tree", colour="#123456"))
    yield m
    unregister("toy-lpf")


def test_a_registered_method_runs_through_run_method(toy):
    t = make_topology("bcube:n=3,k=1")
    s = run_method("toy-lpf", t)
    assert s.method == "toy-lpf" and s.dag.n == 144
    assert s.n_rounds == len(list_schedule(s.dag, -s.dag.tail))


def test_a_registered_method_is_found_by_the_cli_schedule_command(toy, capsys, tmp_path):
    out = tmp_path / "toy.json"
    assert cli.main(["schedule", "bcube:n=3,k=1", "--method", "toy-lpf", "--out", str(out)]) == 0
    assert "method=toy-lpf" in capsys.readouterr().out
    assert json.loads(out.read_text())["method"] == "toy-lpf"
    assert cli.main(["validate", str(out)]) == 0


def test_a_registered_method_is_found_by_compare(toy, capsys):
    assert "toy-lpf" in default_methods()
    (row,) = compare(configurations(None, ["bcube:n=3,k=1"]), ["critical-path", "toy-lpf"], seeds=1)
    assert row.results["toy-lpf"].rounds == run_method("toy-lpf", make_topology("bcube:n=3,k=1")).n_rounds
    assert cli.main(["compare", "bcube:n=3,k=1", "--methods", "toy-lpf", "--format", "csv"]) == 0
    assert "toy-lpf" in capsys.readouterr().out.splitlines()[0]


def test_a_registered_method_is_in_the_dashboards_method_list(toy):
    from dashboard.controls import method_title
    from dashboard.figures import method_colour
    from core.methods import method_names

    assert "toy-lpf" in method_names()
    assert method_title("toy-lpf") == "Toy: longest path first"
    assert method_colour("toy-lpf") == "#123456"


def test_every_result_is_replayed_through_the_engine():
    def cheat(dag, config, progress=None):
        return [np.arange(dag.n)]  # everything in one round: breaks prefixes and capacity

    register(Method("cheat", "Cheat", cheat))
    try:
        with pytest.raises(InvalidSchedule, match="method cheat returned an invalid schedule: round 1"):
            run_method("cheat", make_topology("bcube:n=2,k=1"))
    finally:
        unregister("cheat")


def test_a_plan_carries_info_and_a_trace_apart_from_info():
    def planned(dag, config, progress=None):
        return Plan(list_schedule(dag, -dag.tail), info={"note": "hi"}, trace={"steps": [1]})

    register(Method("planned", "Planned", planned))
    try:
        s = run_method("planned", make_topology("bcube:n=2,k=1"))
        assert s.info == {"note": "hi"} and s.trace == {"steps": [1]}
    finally:
        unregister("planned")


def test_unavailable_methods_say_why_without_running():
    calls = []

    def never(dag, config, progress=None):
        calls.append(1)
        return []

    register(Method("never", "Never", never, unavailable=lambda t, c: f"not on {t.spec}"))
    try:
        with pytest.raises(MethodUnavailable, match="not on bcube:n=2,k=1"):
            run_method("never", make_topology("bcube:n=2,k=1"))
        assert calls == []
    finally:
        unregister("never")


def test_names_are_unique_and_kinds_checked():
    with pytest.raises(ValueError, match="already registered"):
        register(replace(METHODS["ps"]))
    with pytest.raises(ValueError, match="dag must be one of tree, plain, ring"):
        Method("x", "X", longest_path_first, dag="mesh")
    with pytest.raises(ValueError, match="unknown method 'nope'; known: ps, ring"):
        get_method("nope")


def test_the_dag_kind_decides_what_is_scheduled():
    t = make_topology("bcube:n=3,k=1")
    cfg = ScheduleConfig(chunks=2)
    assert run_method("greedy", t, cfg).dag.n == 2 * 144
    assert run_method("ps", t, cfg).dag.merge is False
    assert run_method("ring", t, cfg).dag.kind == "ring"


def test_run_method_applies_the_size_guard_unless_forced(monkeypatch):
    from core.guard import SizeError

    t = make_topology("bcube:n=4,k=1")
    monkeypatch.setenv("ALLREDUCE_LAB_MAX_MEMORY", "1000")
    with pytest.raises(SizeError, match="over the memory limit"):
        run_method("critical-path", t)
    assert run_method("critical-path", t, ScheduleConfig(force=True)).n_rounds == 24
    # the guard prices what a method adds beyond its DAG: CP-SAT's model is dearer than a list scheduler
    cfg = ScheduleConfig(force=True)
    assert METHODS["optimal"].guard(t, cfg).bytes > METHODS["critical-path"].guard(t, cfg).bytes
    assert METHODS["rl-sample"].guard(t, cfg).seconds > METHODS["rl"].guard(t, cfg).seconds
