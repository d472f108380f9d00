"""Links failed or slowed before the run: routes avoid failed links (against a BFS reference on the graph
without them), every method schedules the degraded network, `validate` rejects a path over a failed link,
disconnecting failures are one clear error, slowed links slow the replay, files record the changes."""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.cli.common import unwrapped
from core.methods import run_method
from core.routing import DisconnectedError, compute_routes
from core.schedule import ScheduleConfig
from core.replan import LinkEvent
from core.schedule_io import schedule_to_dict
from core.timing import replay_modes
from core.topology import TopologyError, changes, degrade, make_topology
from core.topology.degrade import failed_mask, link_ids, slowed_bandwidth
from core.validate import validate_document

from _corelib import (HEURISTICS, make_graph, payload_problems, random_topologies, reference_segments,
                      relays_through_root, report, to_nx, topo)
from test_core_bad_input import assert_one_line_error, run_cli

METHODS = HEURISTICS + ("time-aware",)
FAMILIES = ["bcube:n=3,k=1", "dcell:n=3,k=1", "fattree:k=4", "jellyfish:switches=8,ports=4,switch_ports=3,seed=0",
            "example:fig3"]


def crossing(dag, failed_edges) -> int:
    """Number of (workload, link) entries on a failed edge."""
    return int(np.isin(dag.links.values // 2, failed_edges).sum())


# ---- parsing ----------------------------------------------------------------------------------------
def test_link_ids_by_id_and_by_labels():
    t = topo("bcube:n=3,k=1")
    assert t.labels[t.edges[0, 0]] == "s00" and t.labels[t.edges[0, 1]] == "sw0.0"
    assert link_ids(t, "0, 9").tolist() == [0, 9]
    assert link_ids(t, "s00-sw0.0,sw1.0-s00").tolist() == [0, 9]  # either order of the ends
    assert link_ids(t, "3,3").tolist() == [3]


def test_random_failures_are_seeded_and_keep_servers_connected():
    t = topo("dcell:n=4,k=1")
    a = failed_mask(t, "random:0.1,seed=3")
    assert np.array_equal(a, failed_mask(t, "random:0.1,seed=3"))
    assert a.sum() == round(0.1 * t.n_edges)
    assert not np.array_equal(a, failed_mask(t, "random:0.1,seed=4"))
    assert failed_mask(t, "random:2").sum() == 2  # a whole number is a count
    for seed in range(10):  # whatever the seed, no server is cut off
        assert len(degrade(t, fail=f"random:0.2,seed={seed}").cut_off_servers()) == 0


def test_slowdowns_absolute_factor_and_random():
    t = topo("bcube:n=3,k=1")
    bw = slowed_bandwidth(t, "0:25,s01-sw0.0:x0.5,2:400Mbps")
    assert bw[:3].tolist() == [25.0, 50.0, 0.4] and np.all(bw[3:] == 100.0)
    r = slowed_bandwidth(t, "random:0.25x0.25,seed=1")
    assert np.sum(r == 25.0) == round(0.25 * t.n_edges) and np.all((r == 25.0) | (r == 100.0))
    assert np.array_equal(r, slowed_bandwidth(t, "random:0.25x0.25,seed=1"))


@pytest.mark.parametrize("fail,slow,needle", [
    ("99", None, "link 99 does not exist"),
    ("s00-s01", None, "not adjacent"),
    ("nope", None, "neither a link id"),
    ("random:1.5", None, "fraction in (0, 1) or a whole count"),
    ("random:0.1,seed=x", None, "random:FRACTION"),
    ("random:0.9", None, "without cutting a server off"),
    ("0,9", None, "every link of server s00 is failed"),
    (None, "0:0", "must be > 0 Gbit/s"),
    (None, "0:25xyz", "unknown unit"),
    (None, "0", "LINK:BANDWIDTH"),
    (None, "0:x", "factor"),
    (None, "random:0.1", "FRACTIONxFACTOR"),
    (None, "random:0.1x2", "factor must lie in (0, 1)"),
    (None, "0:x2", "slowdown factor in '0:x2' must lie in (0, 1)"),  # was taken, and shown as "slowed 100->200"
    (None, "0:x1", "slowdown factor in '0:x1' must lie in (0, 1)"),
    (None, "0:200", "would run link 0 (s00-sw0.0) at 200 Gbit/s, faster than its 100 Gbit/s"),
    (None, "0:1Tbps", "faster than its 100 Gbit/s"),
    (None, "0:100", "'0:100' would run link 0 (s00-sw0.0) at 100 Gbit/s, its own speed; --slow-links only slows"),
    (None, "0:100Gbps", "its own speed"),  # was taken as a no-op while 0:x1 was refused (trial 15)
])
def test_bad_link_choices(fail, slow, needle):
    with pytest.raises(TopologyError, match=None) as err:
        degrade(topo("bcube:n=3,k=1"), fail=fail, slow=slow)
    assert needle in str(err.value)
    assert "\n" not in str(err.value)


# ---- routing and disconnection --------------------------------------------------------------------
def test_disconnecting_failures_name_what_is_cut_off():
    t = topo("fattree:k=4")
    with pytest.raises(DisconnectedError, match="every link of server h0.0 is failed"):
        degrade(t, fail="h0.0-e0.0")
    # both uplinks of one edge switch cut its two hosts off
    e0 = [e for e in range(t.n_edges) if "e0.0" in (t.labels[t.edges[e, 0]], t.labels[t.edges[e, 1]])
          and not (t.labels[t.edges[e, 0]].startswith("h") or t.labels[t.edges[e, 1]].startswith("h"))]
    assert len(e0) == 2
    with pytest.raises(DisconnectedError) as err:
        degrade(t, fail=",".join(map(str, e0)))
    assert str(err.value) == ("failed links " + ", ".join(
        f"{e} ({t.labels[t.edges[e, 0]]}-{t.labels[t.edges[e, 1]]})" for e in sorted(e0))
        + " cut off 2 of 16 servers (h0.0, h0.1)")
    # two failed links that only together cut s10 off (neither touches the other): the message names both
    with pytest.raises(DisconnectedError) as err:
        degrade(topo("bcube:n=2,k=1"), fail="2,4")
    assert str(err.value) == "failed links 2 (s10-sw0.1), 4 (s00-sw1.0) cut off 1 of 4 servers (s10)"
    cut = t.with_links(failed=np.isin(np.arange(t.n_edges), e0))
    with pytest.raises(DisconnectedError):
        compute_routes(cut)  # the one place that routes refuses too


def reference_on_live_graph(t, failed_edges):
    """BFS reference segments computed on a graph that simply lacks the failed edges."""
    keep = [tuple(e) for i, e in enumerate(t.edges.tolist()) if i not in set(failed_edges)]
    live = make_graph(t.is_server.tolist(), keep, spec="live")
    return live, {int(r): reference_segments(live, int(r)) for r in t.servers}


def test_a_switch_isolated_by_failures_is_simply_not_routed_over():
    # s0 - w2 - s1 and a spare switch w3 hanging off s0: failing s0-w3 leaves w3 with no live link
    t = make_graph([True, True, False, False], [(0, 2), (1, 2), (0, 3)]).with_links(failed=[False, False, True])
    r = compute_routes(t)
    assert r.node_tree(0).segments == {1: [1, 2, 0]} and r.node_tree(1).segments == {0: [0, 2, 1]}
    assert r.next_hop[:, 3].tolist() == [-1, -1]
    s = run_method("critical-path", t, ScheduleConfig())
    assert s.n_rounds == 2 and crossing(s.dag, [2]) == 0


@pytest.mark.parametrize("spec", FAMILIES[:4])
def test_routes_avoid_failed_links_like_a_graph_without_them(spec):
    t = topo(spec)
    bad = degrade(t, fail="random:0.1,seed=1")
    failed = np.flatnonzero(bad.failed).tolist()
    routes = compute_routes(bad)
    _, ref = reference_on_live_graph(t, failed)
    for r in t.servers.tolist():
        assert routes.node_tree(r).segments == ref[r]
    assert not np.isin(routes.seg_links[routes.seg_links >= 0] // 2, failed).any()


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("spec", FAMILIES)
def test_every_method_schedules_the_degraded_network_without_failed_links(spec, method):
    t = topo(spec)
    n_fail = 1 if spec.startswith("example") else 2
    bad = degrade(t, fail=f"random:{n_fail},seed=2")
    failed = np.flatnonzero(bad.failed).tolist()
    s = run_method(method, bad, ScheduleConfig())
    assert crossing(s.dag, failed) == 0
    assert payload_problems(s.dag, s.rounds) == []
    doc = schedule_to_dict(s)
    assert doc["topology"]["failed"] == failed  # the file records the failure...
    if not (method == "ring" and relays_through_root(s.dag)):
        rep = validate_document(doc)  # ...and validate checks that no path crosses it
        assert rep.ok, rep.violations[:3]


def test_validate_rejects_a_path_over_a_failed_link(tmp_path, capsys):
    s = run_method("critical-path", topo("bcube:n=3,k=1"), ScheduleConfig())
    doc = schedule_to_dict(s)
    used = int(s.dag.links.row(0)[0]) // 2
    doc["topology"]["failed"] = [used]
    rep = validate_document(doc)
    assert "failed" in rep.by_rule()
    v = [v for v in rep.violations if v.rule == "failed"][0]
    assert f"crosses failed link id {used} (" in v.message and v.link // 2 == used
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    code, out, err = run_cli(capsys, "validate", str(path))
    assert code == 2 and "[failed]" in out
    # one kind of link id on the line, said once (was "crosses failed link 0 (sw0.0->s00)  (workload 136, link 1)",
    # the second a directed link's number; then "... link id 0 (...)  (workload 136, link id 0)", trial 15)
    line = next(x for x in out.splitlines() if x.startswith("  [failed]"))
    assert line.count("link id") == 1 and f"failed link id {used} (" in line and line.count("workload") == 1, line
    doc["topology"].pop("failed")
    assert validate_document(doc).ok


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_topologies(min_nodes=3, max_nodes=7, capacities=True), st.data())
def test_random_graphs_with_a_random_survivable_failure(t, data):
    g = to_nx(t)  # a failed link that keeps the whole graph connected (so the BFS reference applies)
    candidates = [e for e in range(t.n_edges)
                  if nx.is_connected(nx.restricted_view(g, [], [tuple(t.edges[e])]))]
    if not candidates:
        return
    e = data.draw(st.sampled_from(candidates))
    bw = data.draw(st.lists(st.sampled_from([10.0, 25.0, 100.0]), min_size=t.n_edges, max_size=t.n_edges))
    bad = t.with_links(failed=np.arange(t.n_edges) == e, bandwidth=bw)
    routes = compute_routes(bad)
    _, ref = reference_on_live_graph(t, [e])
    for r in t.servers.tolist():
        assert routes.node_tree(r).segments == ref[r]
    for m in METHODS:
        for cfg in (ScheduleConfig(), ScheduleConfig(merge=False)):
            s = run_method(m, bad, cfg)
            assert crossing(s.dag, [e]) == 0
            assert payload_problems(s.dag, s.rounds) == []
            if not (m == "ring" and relays_through_root(s.dag)):
                assert report(s).ok


# ---- slowdowns ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", METHODS)
def test_a_slowed_link_slows_the_replay_of_a_schedule_that_uses_it(method):
    t = topo("bcube:n=3,k=1")
    s = run_method(method, t, ScheduleConfig())
    busiest = int(np.argmax(s.dag.link_load)) // 2
    slow = degrade(t, slow=f"{busiest}:x0.25")
    before = replay_modes(s, size=1e8)
    after = replay_modes(s, size=1e8, link_bandwidth=slow.link_bandwidth)
    for mode in ("sync", "async"):
        assert after[mode].time > before[mode].time
    again = run_method(method, slow, ScheduleConfig())  # every method schedules the slowed network
    assert payload_problems(again.dag, again.rounds) == []
    assert np.array_equal(again.dag.topology.bandwidth, slow.bandwidth)


# ---- files and the CLI --------------------------------------------------------------------------------------
def test_schedule_file_records_failed_and_slowed_links_and_size(tmp_path, capsys):
    path = tmp_path / "s.json"
    code, out, err = run_cli(capsys, "schedule", "bcube:n=3,k=1", "--fail-links", "s00-sw0.0",
                             "--slow-links", "5:25", "--size", "10MB", "--out", str(path))
    assert code == 0, err
    assert "network: failed 0 (s00-sw0.0); slowed 5 (s12-sw0.1) 100->25 Gbit/s" in out
    doc = json.loads(path.read_text())
    assert doc["network"] == {"failed": [0], "slowed": [[5, 100.0, 25.0]]}
    assert doc["topology"]["failed"] == [0] and doc["topology"]["links"][5][3] == 25.0
    assert doc["timing"]["size_bytes"] == 1e7
    code, out, _ = run_cli(capsys, "validate", str(path))
    assert code == 0 and "OK" in out
    code, out, _ = run_cli(capsys, "replay", str(path), "--format", "json")
    assert code == 0 and json.loads(out)["time"]["links"]["failed"] == 1
    assert changes(topo("bcube:n=3,k=1"), degrade(topo("bcube:n=3,k=1"), fail="0")) == {"failed": [0], "slowed": []}


def test_schedule_of_a_topology_file_names_the_files_failed_links(tmp_path, capsys):
    # the file `topology --fail-links 1 --slow-links 3:25 --format json` writes holds link 1 failed; `schedule
    # file:` printed no network line for it (the spec's run prints one). Its slowed link is only a bandwidth there.
    code, out, err = run_cli(capsys, "topology", "bcube:n=3,k=1", "--fail-links", "1", "--slow-links", "3:25",
                             "--format", "json")
    assert code == 0, err
    path = tmp_path / "tf.json"
    path.write_text(out)
    code, out, err = run_cli(capsys, "schedule", f"file:{path}")
    assert code == 0, err
    assert "  network: failed 1 (s01-sw0.0) (from the file)\n" in out
    code, out, err = run_cli(capsys, "schedule", f"file:{path}", "--fail-links", "5", "--slow-links", "7:50")
    assert code == 0, err
    out = "\n".join(unwrapped(out)) + "\n"  # the line is wrapped at 100 characters (fix32b)
    assert ("  network: failed 1 (s01-sw0.0) (from the file); failed 5 (s12-sw0.1); slowed 7 (s21-sw0.2) "
            "100->50 Gbit/s\n") in out
    code, out, err = run_cli(capsys, "schedule", "bcube:n=3,k=1")  # nothing failed, nothing said
    assert code == 0, err
    assert "network:" not in out


def test_topology_command_lists_links_and_failures(capsys):
    code, out, _ = run_cli(capsys, "topology", "bcube:n=3,k=1", "--links", "--fail-links", "0")
    assert code == 0
    assert "1 failed" in out
    rows = [line.split() for line in out.splitlines()]
    assert ["0", "s00-sw0.0", "0", "1", "100", "1", "FAILED"] in rows
    assert ["1", "s01-sw0.0", "0", "1", "100", "1"] in rows
    assert ["link", "u-v", "level", "capacity", "Gbit/s", "µs", "state"] in rows  # the mark's column has a header
    # a link --slow-links slowed is marked with its bandwidth before (it had no mark); JSON says it too
    code, out, _ = run_cli(capsys, "topology", "bcube:n=3,k=1", "--links", "--slow-links", "1:25")
    rows = [line.split() for line in out.splitlines()]
    assert code == 0 and ["1", "s01-sw0.0", "0", "1", "25", "1", "slowed", "from", "100"] in rows
    assert ["2", "s02-sw0.0", "0", "1", "100", "1"] in rows
    code, out, _ = run_cli(capsys, "topology", "bcube:n=3,k=1", "--links", "--slow-links", "1:25", "--format", "json")
    links = json.loads(out)["summary"]["links"]  # the rows; the file's own "links" are [u, v, ...]
    assert links[1]["slowed_from_gbps"] == 100.0 and "slowed_from_gbps" not in links[2]


@pytest.mark.parametrize("argv,needles", [
    (["schedule", "bcube:n=3,k=1", "--fail-links", "99"], ["--fail-links", "link 99 does not exist"]),
    (["schedule", "bcube:n=3,k=1", "--fail-links", "0,9"], ["every link of server s00 is failed"]),
    (["schedule", "bcube:n=3,k=1", "--slow-links", "0:-5"], ["--slow-links"]),
    (["schedule", "bcube:n=3,k=1", "--slow-links", "0:5furlongs"], ["unknown unit"]),
    (["compare", "bcube:n=3,k=1", "--fail-links", "random:0.99"], ["without cutting a server off"]),
    (["topology", "fattree:k=4", "--fail-links", "h0.0-e0.0"], ["every link of server h0.0"]),
    (["schedule", "bcube:n=3,k=1", "--size", "0"], ["--size"]),
])
def test_bad_network_input_is_one_line_exit_2(capsys, argv, needles):
    code, _, err = run_cli(capsys, *argv)
    assert_one_line_error(code, err, *needles)


def test_schedule_config_size_is_checked():
    assert ScheduleConfig().size == 100_000_000
    for bad in (0, -1, True, 1.5, "1MB"):
        with pytest.raises(ValueError, match="size must be a whole number of bytes"):
            ScheduleConfig(size=bad)


def test_failed_links_shape_the_ring():
    t = make_topology("bcube:n=3,k=1")
    bad = degrade(t, fail="0")
    s = run_method("ring", bad, ScheduleConfig())
    assert crossing(s.dag, [0]) == 0
    # s00 has lost its level-0 switch: its ring neighbours are reached over level 1 only
    s00 = 0
    for w in np.flatnonzero((s.dag.src == s00) | (s.dag.dst == s00)).tolist():
        assert 9 not in s.dag.path.row(w).tolist()  # sw0.0 is node 9


NET = {"nodes": [{"id": "L1", "kind": "server"}, {"id": "L2", "kind": "server"}, {"id": "L3", "kind": "server"},
                 {"id": "T", "kind": "switch"}, {"id": "U", "kind": "switch"}],
       "links": [{"u": "L1", "v": "T", "failed": True}, {"u": "L1", "v": "U"}, {"u": "L2", "v": "T"},
                 {"u": "L2", "v": "U"}, {"u": "L3", "v": "T"}, {"u": "L3", "v": "U"}]}


def on_net(capsys, tmp_path, command):
    """(spec of NET written as a file, a runner of `command` on it with extra options)."""
    path = tmp_path / "net.json"
    path.write_text(json.dumps(NET))
    spec = f"file:{path}"
    more = ["--methods", "ring"] if command == "compare" else []
    return spec, lambda *options: run_cli(capsys, command, spec, *options, *more)


@pytest.mark.parametrize("command", ["schedule", "topology", "compare"])
def test_failing_a_link_the_file_already_marks_failed_is_a_note(capsys, tmp_path, command):
    spec, run = on_net(capsys, tmp_path, command)
    code, out, err = run("--fail-links", "T-L1,0,L3-T")
    assert code == 0 and out
    assert err.strip() == f"note: --fail-links: link 0 (L1-T) is already failed in {spec}; nothing changes for it"
    code, out, err = run("--fail-links", "L3-T")
    assert code == 0 and err == ""


@pytest.mark.parametrize("command", ["schedule", "topology", "compare"])
def test_slowing_a_failed_link_is_a_note(capsys, tmp_path, command):
    """--slow-links on a link the file marks failed, or that --fail-links fails: one note; a live link: silence."""
    _, run = on_net(capsys, tmp_path, command)
    code, out, err = run("--slow-links", "0:25,1:25")
    assert code == 0 and err.strip() == "note: --slow-links: link 0 (L1-T) is failed; slowing it changes nothing"
    code, out, err = run("--fail-links", "L3-T", "--slow-links", "L3-T:x0.5")
    assert code == 0 and err.strip() == "note: --slow-links: link 4 (L3-T) is failed; slowing it changes nothing"
    code, out, err = run("--slow-links", "1:25")
    assert code == 0 and err == ""


def test_utilization_leaves_failed_links_out():
    """Mean utilization is over the links that can carry traffic: a failed link is not idle capacity."""
    t = make_topology("bcube:n=3,k=1")
    s = run_method("ring", degrade(t, fail="0"), ScheduleConfig())
    working = t.n_links - 2
    assert s.stats()["mean_utilization"] == pytest.approx(float(s.dag.link_load.sum()) / (working * s.n_rounds))


def test_an_event_after_the_last_round_is_refused_like_one_past_it(capsys):
    """round=R happens after round R: with R the last round nothing is left to re-plan, so schedule refuses it
    (one line, exit 2) as it refuses R past the end; R one less re-plans."""
    n = run_method("ring", make_topology("bcube:n=3,k=1"), ScheduleConfig()).n_rounds
    code, out, err = run_cli(capsys, "schedule", "bcube:n=3,k=1", "--method", "ring", "--fail-at", f"round={n}:0")
    assert code == 2 and err.strip().endswith(f"nothing is left to re-plan (round=R happens after round R; use R < {n})")
    code, out, err = run_cli(capsys, "schedule", "bcube:n=3,k=1", "--method", "ring", "--fail-at", f"round={n - 1}:0")
    assert code == 0 and "re-planned the rest" in out


@pytest.mark.parametrize("command", ["schedule", "compare"])
def test_a_mid_run_failure_naming_failed_links_notes_them(capsys, tmp_path, command):
    """--fail-at naming links failed before the run (in the file or by --fail-links) beside new ones: one note
    naming them (the new ones still fail, and the re-planned run says so); naming only failed links is refused."""
    _, run = on_net(capsys, tmp_path, command)
    code, out, err = run("--fail-links", "L3-T", "--fail-at", "1us:0,L3-T,L2-T",
                         *(["--method", "ring"] if command == "schedule" else []))
    assert code == 0 and err.strip() == ("note: --fail-at: links 0 (L1-T), 4 (L3-T) are already failed before the run; "
                                         "nothing changes for them (the others fail as asked)")
    assert ("during the run, at 1.00 µs: failed 2 (L2-T)" if command == "schedule" else "mid-run link event") in out
    code, out, err = run("--fail-at", "1us:0")
    assert code == 2 and err.strip() == ("allreduce-lab: error: --fail-at: the event changes no link (already failed, "
                                         "or the same bandwidth)")
    code, out, err = run("--slow-at", "1us:0:x0.5,1:x0.5")
    assert code == 0 and err.strip() == "note: --slow-at: link 0 (L1-T) is failed; slowing it changes nothing"
    if command == "schedule":  # the run reports only the live link as slowed (link 0 was reported slowed too)
        line = next(x for x in out.splitlines() if "during the run" in x)
        assert "slowed 1 (" in line and "slowed 0 (" not in line and ", 0 (" not in line
    code, out, err = run("--slow-at", "1us:0:x0.5")
    assert code == 2 and err.strip() == ("allreduce-lab: error: --slow-at: the event changes no link (already failed, "
                                         "or the same bandwidth)")
    # a link the same event fails is dead too: left out of the slowed links, with the same note
    code, out, err = run("--fail-at", "1us:2", "--slow-at", "1us:2:x0.5,1:x0.5",
                         *(["--method", "ring"] if command == "schedule" else []))
    assert code == 0 and err.strip() == "note: --slow-at: link 2 (L2-T) is failed; slowing it changes nothing"


def test_an_event_never_slows_a_failed_link():
    """LinkEvent.parse leaves out of `slowed` a link failed before the run or failing in the same event."""
    t = degrade(make_topology("bcube:n=3,k=1"), fail="0")
    ev = LinkEvent.parse(t, "round=2", fail="3", slow="0:x0.5,3:x0.5,5:x0.5", what="--slow-at")
    assert ev.failed == (3,) and [e for e, _ in ev.slowed] == [5]
