"""Re-planning after a mid-run failure or slowdown: the delivered part plus the re-planned rest is a
valid AllReduce (validator and payload replay), the rest never uses a failed link, a change at time 0
re-plans like a schedule made on the changed network, the time lost is accounted, bad input is one line."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.methods import run_method
from core.replan import LinkEvent, replan, replan_methods, run_state
from core.residual import residual_dag
from core.routing import DisconnectedError
from core.schedule import Schedule, ScheduleConfig
from core.schedule_io import schedule_to_dict
from core.timing import ReplayPlan
from core.topology import degrade, make_topology
from core.validate import validate_document
from core.workloads import build_dag

from _corelib import HEURISTICS, payload_problems, random_topologies, relays_through_root, topo
from test_core_bad_input import assert_one_line_error, run_cli

METHODS = HEURISTICS + ("time-aware",)


def check_run(r, check_validator=True) -> None:
    """The whole run (delivered part + re-planned rest) delivers every sum to every server; the rest avoids
    failed links and its own schedule is valid."""
    dag, rounds = r.combined()
    assert payload_problems(dag, rounds) == []
    if check_validator and not relays_through_root(dag):
        rep = validate_document(schedule_to_dict(Schedule(r.method, dag, rounds, r.schedule.config)))
        assert rep.ok, rep.violations[:3]
    rest = r.rest.dag
    assert not r.topology.link_failed[rest.links.values].any()
    assert rest.topology is r.topology
    ids = np.concatenate(r.rest.rounds) if r.rest.rounds else np.zeros(0, np.int64)
    assert np.array_equal(np.sort(ids), np.arange(rest.n))
    assert r.finish_s >= r.at_s - 1e-15 or rest.n == 0


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("spec,when,fail,slow", [
    ("bcube:n=3,k=1", "2ms", "0", None),
    ("dcell:n=4,k=1", "round=4", "s1.1-sw1", None),
    ("fattree:k=4", "1ms", "e0.0-a0.0", None),
    ("jellyfish:switches=10,ports=5,switch_ports=4,seed=0", "round=2", "random:2,seed=1", "random:1x0.25,seed=3"),
    ("bcube:n=4,k=1,bw=100/25", "0.5ms", None, "0:x0.1"),
    ("example:fig3", "0s", "C-D", None),
])
def test_the_rest_is_valid_and_avoids_failed_links(spec, when, fail, slow, method):
    t = topo(spec)
    r = replan(run_method(method, t, ScheduleConfig()), LinkEvent.parse(t, when, fail=fail, slow=slow))
    check_run(r, check_validator=method != "ring")
    s = r.summary()
    assert s["finished"] + s["in_flight_kept"] + s["resent"] + s["not_started"] == r.schedule.dag.n
    assert r.lost_s == pytest.approx(r.finish_s - r.failure_free_s)


@pytest.mark.parametrize("method", ["critical-path", "greedy", "time-aware"])
@pytest.mark.parametrize("spec", ["dcell:n=4,k=1", "bcube:n=4,k=1"])
def test_a_failure_at_time_0_replans_like_a_schedule_of_the_changed_network(spec, method):
    t = topo(spec)
    event = LinkEvent.parse(t, "0s", fail="random:2,seed=5")
    r = replan(run_method(method, t, ScheduleConfig()), event)
    own = r.schedule.dag  # time-aware may have chosen a ring: the same kind of DAG, built afresh
    fresh = build_dag(event.apply(t), own.kind, chunks=own.chunks, routing=r.rest.dag.meta["routing"],
                      both_ways=bool(own.meta.get("both_ways")), fastest=bool(own.meta.get("fastest")))

    def shape(d):  # a flow-tree is named by its (root, chunk)
        key = [(int(d.tree_root[d.tree[w]]), int(d.tree_chunk[d.tree[w]]), int(d.phase[w]),
                tuple(d.path.row(w).tolist())) for w in range(d.n)]
        pre = Counter((key[w], key[p]) for w in range(d.n) for p in d.prefix.row(w).tolist())
        return Counter(key), pre

    assert shape(r.rest.dag) == shape(fresh)
    assert r.summary()["finished"] == 0 and r.resume_s == 0


def test_a_slowdown_keeps_routes_and_an_event_after_the_end_loses_nothing():
    t = topo("bcube:n=3,k=1")
    s = run_method("critical-path", t, ScheduleConfig())
    r = replan(s, LinkEvent.parse(t, "3ms", slow="0:x0.5"))
    check_run(r)
    origin = r.rest.dag.meta["origin"]
    assert (origin >= 0).all()  # every workload of the rest is an unsent one, on its old path
    for i, w in enumerate(origin.tolist()):
        assert r.rest.dag.path.row(i).tolist() == s.dag.path.row(w).tolist()
    assert r.summary()["rerouted"] == 0
    late = replan(s, LinkEvent.parse(t, "1s", fail="0"))
    assert late.rest.dag.n == 0 and late.lost_s == 0.0 and late.finish_s == late.failure_free_s
    with pytest.raises(ValueError, match=r"the event time 1.00 s is past the schedule's end at 16.0 ms \(async replay\)"):
        replan(s, LinkEvent.parse(t, "1s", fail="0"), past_end=False)  # as the schedule command asks
    assert replan(s, LinkEvent.parse(t, "16ms", fail="0"), past_end=False).at_s == pytest.approx(16e-3)


def test_a_time_lost_below_a_nanosecond_is_zero(capsys):
    """Rounding noise of float sums is no loss: lost_s snaps to 0 below 1 ns, and the CLI prints 0."""
    from dataclasses import replace
    t = topo("leafspine:leaves=2,spines=2,servers=2")
    r = replan(run_method("critical-path", t, ScheduleConfig()), LinkEvent.parse(t, "2ms", fail="4"))
    assert r.lost_s == 0.0 and r.summary()["lost_share"] == 0.0
    assert replace(r, resume_s=r.resume_s + 5e-13).lost_s == 0.0
    assert replace(r, resume_s=r.resume_s + 2e-9).lost_s == pytest.approx(2e-9 + r.finish_s - r.failure_free_s)
    code, out, _ = run_cli(capsys, "schedule", "leafspine:leaves=2,spines=2,servers=2", "--fail-at", "2ms:4")
    assert code == 0 and out.rstrip().endswith("failure-free: lost 0 µs (+0.0%)")


def test_transfers_in_flight_on_a_failed_link_are_lost_and_sent_again():
    t = topo("bcube:n=3,k=1")
    s = run_method("critical-path", t, ScheduleConfig())
    timing = ReplayPlan(s.dag, s.rounds).run(1e8, "async")
    at = float(timing.duration.min()) / 2  # the first round is in flight
    first = s.rounds[0]
    edge = int(s.dag.links.row(int(first[0]))[0]) // 2
    event = LinkEvent(failed=(edge,), at_s=at)
    delivered, lost, resume, _ = run_state(s.dag, timing, at, event.apply(t))
    on_edge = [int(w) for w in first if edge in (s.dag.links.row(int(w)) // 2).tolist()]
    assert sorted(np.flatnonzero(lost).tolist()) == sorted(on_edge)
    assert not delivered[lost].any()
    # the others in flight finish: the rest starts when they have
    assert resume == pytest.approx(float(timing.finish[first[~np.isin(first, on_edge)]].max()))
    r = replan(s, event, timing=timing)
    assert r.summary()["resent"] == len(on_edge)
    check_run(r)


def test_a_disconnecting_mid_run_failure_is_refused():
    t = topo("bcube:n=3,k=1")
    with pytest.raises(DisconnectedError, match="every link of server s00"):
        replan(run_method("critical-path", t, ScheduleConfig()), LinkEvent.parse(t, "1ms", fail="0,9"))


def test_time_aware_replans_around_a_slowed_link_and_its_rest_replays_as_planned():
    t = topo("dcell:n=4,k=1")
    event = LinkEvent.parse(t, "round=3", slow="5:x0.25")
    cp = replan(run_method("critical-path", t, ScheduleConfig()), event)
    ta = replan(run_method("time-aware", t, ScheduleConfig()), event)
    check_run(ta)
    assert ta.rest_timing.time == pytest.approx(ta.rest.info["planned_time_s"], rel=1e-12)
    assert ta.finish_s < cp.finish_s  # it may re-grow the rest on other routes; critical-path keeps hops


@pytest.mark.slow
def test_rl_replans_through_its_policy():
    t = topo("dcell:n=4,k=1")
    out = replan_methods(t, ScheduleConfig(), ["rl"], LinkEvent.parse(t, "2ms", fail="3"))
    if isinstance(out[0], tuple):
        pytest.skip(f"no RL checkpoint here: {out[0][1]}")
    check_run(out[0])
    assert out[0].rest.info.get("checkpoint") or out[0].info.get("checkpoint")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_topologies(min_nodes=3, max_nodes=7, capacities=True), st.data())
def test_random_graphs_random_bandwidths_random_mid_run_failure(t, data):
    bw = data.draw(st.lists(st.sampled_from([10.0, 25.0, 100.0]), min_size=t.n_edges, max_size=t.n_edges))
    t = t.with_links(bandwidth=bw)
    ok = [e for e in range(t.n_edges) if len(t.with_links(failed=np.arange(t.n_edges) == e).cut_off_servers()) == 0]
    method = data.draw(st.sampled_from(METHODS))
    merge = data.draw(st.booleans())
    s = run_method(method, t, ScheduleConfig(merge=merge))
    timing = ReplayPlan(s.dag, s.rounds).run(1e8, "async")
    at = data.draw(st.floats(0, 1.1)) * timing.time
    if ok and data.draw(st.booleans()):
        event = LinkEvent(failed=(data.draw(st.sampled_from(ok)),), at_s=at)
    else:
        event = LinkEvent(slowed=((data.draw(st.integers(0, t.n_edges - 1)), 1.0),), at_s=at)
    r = replan(s, event, timing=timing)
    check_run(r, check_validator=method != "ring")
    assert r.finish_s >= r.at_s or r.rest.dag.n == 0


def test_residual_ids_map_to_the_original_run():
    t = topo("bcube:n=3,k=1")
    s = run_method("ps", t, ScheduleConfig())
    delivered = np.zeros(s.dag.n, bool)
    delivered[np.concatenate(s.rounds[:3])] = True
    after = degrade(t, fail="0")
    rest = residual_dag(s.dag, delivered, after, fresh=build_dag(after, "plain"))
    origin = rest.meta["origin"]
    kept = origin[origin >= 0]
    assert not delivered[kept].any() and len(np.unique(kept)) == len(kept)
    assert rest.meta["rebuilt_trees"] == 0  # every PS tree has begun after three rounds


# ---- CLI ---------------------------------------------------------------------------------------------
def test_schedule_with_a_mid_run_failure(tmp_path, capsys):
    path = tmp_path / "s.json"
    code, out, err = run_cli(capsys, "schedule", "dcell:n=4,k=1", "--fail-at", "2ms:s1.1-sw1", "--out", str(path))
    assert code == 0, err
    assert "during the run, at 2.00 ms: failed 5 (s1.1-sw1)" in out
    assert "critical-path re-planned the rest" in out and "failure-free" in out
    doc = json.loads(path.read_text())
    assert doc["replan"]["event"]["failed"] == [5] and doc["replan"]["at_s"] == pytest.approx(2e-3)
    code, out, _ = run_cli(capsys, "schedule", "dcell:n=4,k=1", "--slow-at", "round=2:5:25", "--format", "json")
    rep = json.loads(out)["replan"]
    assert code == 0 and rep["changes"]["slowed"] == [[5, 100.0, 25.0]] and rep["event"]["at_round"] == 2


def test_compare_reports_time_lost_per_method(capsys):
    code, out, err = run_cli(capsys, "compare", "bcube:n=3,k=1", "--methods", "critical-path,ring",
                             "--fail-at", "round=3:4", "--seeds", "1")
    assert code == 0, err
    assert "failure-free ms" in out and "lost ms" in out
    assert out.count("bcube:n=3,k=1  ") >= 4  # rounds, seconds and the re-plan table


@pytest.mark.parametrize("argv,needles", [
    (["schedule", "bcube:n=3,k=1", "--fail-at", "2ms"], ["--fail-at", "WHEN:LINKS"]),
    (["schedule", "bcube:n=3,k=1", "--fail-at", "2:0"], ["--fail-at", "a time with a unit"]),
    (["schedule", "bcube:n=3,k=1", "--fail-at", "2ms:0", "--slow-at", "3ms:1:25"], ["the same moment"]),
    (["schedule", "bcube:n=3,k=1", "--fail-at", "round=999:0"], ["past the schedule"]),
    (["schedule", "bcube:n=3,k=1", "--fail-at", "1s:0"], ["the event time 1.00 s is past the schedule's end at 16.0 ms"]),
    (["schedule", "bcube:n=3,k=1", "--fail-at", "16.04ms:0"], ["0.01604 s is past the schedule's end at 0.016036 s"]),
    (["schedule", "bcube:n=3,k=1", "--fail-at", "1ms:0,9"], ["every link of server s00"]),
    (["schedule", "bcube:n=3,k=1", "--fail-at", "1ms:42"], ["link 42 does not exist"]),
    (["schedule", "bcube:n=3,k=1", "--fail-links", "0", "--fail-at", "1ms:0"], ["changes no link"]),
    (["schedule", "bcube:n=3,k=1", "--slow-at", "1ms:0:100"], ["--slow-at", "its own speed"]),  # as 0:x1 is (trial 15)
    (["compare", "bcube:n=3,k=1", "--fail-at", "1ms:x"], ["neither a link id"]),
])
def test_bad_mid_run_input_is_one_line_exit_2(capsys, argv, needles):
    code, _, err = run_cli(capsys, *argv)
    assert_one_line_error(code, err, *needles)


def test_link_event_rules():
    t = make_topology("bcube:n=3,k=1")
    with pytest.raises(ValueError, match="exactly one moment"):
        LinkEvent(failed=(0,))
    with pytest.raises(ValueError, match="fail or slow"):
        LinkEvent(at_s=1.0)
    e = LinkEvent.parse(t, "round=3", fail="0,1", slow="2:x0.5")
    assert e == LinkEvent(failed=(0, 1), slowed=((2, 50.0),), at_round=3)
    assert hash(e) == hash(LinkEvent(failed=(0, 1), slowed=((2, 50.0),), at_round=3))
    assert LinkEvent.parse(t, "250us", fail="0").at_s == pytest.approx(250e-6)
