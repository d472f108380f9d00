"""Time replay: hand-computed tiny cases, sync = rounds x round time, async <= sync, bounds below every
replay, Ring within 2% of 2(n-1)/n · M / B, per-link overrides, schedule files and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.bounds import gap, time_bounds
from core.engine import replay as engine_replay
from core.jsonnumbers import json_numbers
from core.methods import run_method
from core.routing import compute_routes
from core.schedule import ScheduleConfig
from core.schedule_io import schedule_to_dict
from core.timing import ReplayPlan, busbw, piece_bytes, replay, replay_modes, transfer_times
from core.topology import make_topology, preset
from core.workloads import BROADCAST, REDUCE, tree_dag

from _corelib import HEURISTICS, make_graph, random_topologies, schedule
from test_core_bad_input import assert_one_line_error, run_cli

MS = 1e-3


def find(dag, root, phase, src, dst) -> int:
    """The id of the workload of tree `root` in `phase` going src -> dst."""
    hit = np.flatnonzero((dag.root == root) & (dag.phase == phase) & (dag.src == src) & (dag.dst == dst))
    assert len(hit) == 1
    return int(hit[0])


# ---- tiny cases by hand ---------------------------------------------------------------------------
def test_two_servers_by_hand():
    # A - B, one link of 8 Gbit/s = 1e9 B/s and 10 µs. M = 2 MB over 2 flow-trees: pieces of 1 MB.
    # Each workload: 10 µs + 1e6 B / 1e9 B/s = 1.010 ms. Round 0: both reduces (opposite directions),
    # round 1: both broadcasts -> 2.020 ms in both modes.
    t = make_graph([True, True], [(0, 1)]).with_links(bandwidth=8.0, latency=10.0)
    dag = tree_dag(t)
    rounds = [[find(dag, 0, REDUCE, 1, 0), find(dag, 1, REDUCE, 0, 1)],
              [find(dag, 0, BROADCAST, 0, 1), find(dag, 1, BROADCAST, 1, 0)]]
    assert not engine_replay(dag, rounds)[1]
    assert piece_bytes(dag, 2e6) == 1e6
    assert np.allclose(transfer_times(dag, 2e6), 1.010 * MS)
    for mode in ("sync", "async"):
        tm = replay(dag, rounds, size=2e6, mode=mode)
        assert tm.time == pytest.approx(2.020 * MS)
        assert tm.algbw == pytest.approx(2e6 / 2.020e-3)
        assert tm.busbw == pytest.approx(tm.algbw * 2 * 1 / 2)  # n = 2: busbw = algbw
        assert np.allclose(tm.link_busy, 2.020 * MS)  # each direction carries two 1.010 ms transfers
        assert np.allclose(tm.link_bytes, 2e6)
    b = time_bounds(dag, 2e6)
    # bandwidth: 2(n-1)·M / (1e9 + 1e9) = 2 ms, and M / 1e9 per server = 2 ms; busiest link 2 MB / 1e9 = 2 ms;
    # latency: chains of two workloads = 20 µs; critical path 2 x 1.010 ms
    assert (b.bandwidth, b.link, b.latency, b.critical_path) == pytest.approx((2 * MS, 2 * MS, 20e-6, 2.020 * MS))


def line_topology(cap: int = 1, bw=(8.0, 2.0)):
    """A - B - C with link A-B and B-C at the given Gbit/s, latency 0."""
    return make_graph([True, True, True], [(0, 1), (1, 2)], [cap, cap]).with_links(bandwidth=np.array(bw), latency=0.0)


LINE_ROUNDS = [["a1", "b1"], ["b2", "c1", "a2"], ["c2", "b3", "a3"], ["c3", "a4"], ["b4", "c4"]]
"""A hand-made valid schedule of the merged line DAG, capacity 1 (names: tree, then step of that tree)."""
LANE_ROUNDS = [["b1", "c1", "a1", "b2"], ["a2", "c2", "b3", "b4"], ["a3", "c3"], ["a4", "c4"]]
"""The same DAG on capacity-2 links: two workloads per directed link in rounds 0 and 1."""


def line_rounds(dag, names=LINE_ROUNDS):
    """Workload ids by name, and the rounds `names` as ids."""
    A, B, C = 0, 1, 2
    w = {
        "a1": find(dag, A, REDUCE, C, B), "a2": find(dag, A, REDUCE, B, A),
        "a3": find(dag, A, BROADCAST, A, B), "a4": find(dag, A, BROADCAST, B, C),
        "b1": find(dag, B, REDUCE, A, B), "b2": find(dag, B, REDUCE, C, B),
        "b3": find(dag, B, BROADCAST, B, A), "b4": find(dag, B, BROADCAST, B, C),
        "c1": find(dag, C, REDUCE, A, B), "c2": find(dag, C, REDUCE, B, C),
        "c3": find(dag, C, BROADCAST, C, B), "c4": find(dag, C, BROADCAST, B, A),
    }
    return w, [[w[x] for x in r] for r in names]


def test_line_by_hand_async_beats_sync():
    # A-B at 8 Gbit/s (1e9 B/s), B-C at 2 Gbit/s (0.25e9 B/s), latency 0; M = 3 MB -> pieces of 1 MB:
    # 1 ms on A-B, 4 ms on B-C. Every round holds a B-C transfer, so sync = 5 rounds x 4 ms = 20 ms.
    t = line_topology()
    dag = tree_dag(t)
    w, rounds = line_rounds(dag)
    assert not engine_replay(dag, rounds)[1]
    sync, asyn = replay_modes(dag, rounds, size=3e6).values()
    assert sync.time == pytest.approx(20 * MS)
    assert sync.round_end == pytest.approx(np.array([4, 8, 12, 16, 20]) * MS)
    # async, by hand (start, finish in ms), links keep the schedule's order:
    #   a1 0-4 (C>B), b1 0-1 (A>B); b2 after a1 on C>B: 4-8; c1 after b1 on A>B: 1-2; a2 after a1: 4-5;
    #   c2 after c1: 2-6; b3 after b2 (8): 8-9; a3 after a2 (5): 5-6; c3 after c2 (6) and b2 on C>B (8): 8-12;
    #   a4 after a3 (6) and c2 on B>C (6): 6-10; b4 after b2 (8) and a4 on B>C (10): 10-14;
    #   c4 after c3 (12): 12-13. Done at 14 ms.
    expect = {"a1": (0, 4), "b1": (0, 1), "b2": (4, 8), "c1": (1, 2), "a2": (4, 5), "c2": (2, 6), "b3": (8, 9),
              "a3": (5, 6), "c3": (8, 12), "a4": (6, 10), "b4": (10, 14), "c4": (12, 13)}
    for name, (s, f) in expect.items():
        assert (asyn.start[w[name]], asyn.finish[w[name]]) == pytest.approx((s * MS, f * MS)), name
    assert asyn.time == pytest.approx(14 * MS)
    # busy: C>B and B>C carry three 4 ms transfers each, A>B and B>A three 1 ms ones
    assert asyn.link_busy == pytest.approx(np.array([3, 3, 12, 12]) * MS)
    b = time_bounds(dag, 3e6)
    # bandwidth: server egress A 1e9, B 1.25e9, C 0.25e9 B/s: max(2·2·3e6/2.5e9 = 4.8 ms, 3e6/0.25e9 = 12 ms);
    # busiest link: C>B carries 3 MB at 0.25e9 B/s = 12 ms; critical path: tree A or C, 4+1+1+4 = 10 ms
    assert (b.bandwidth, b.link, b.latency, b.critical_path) == pytest.approx((12 * MS, 12 * MS, 0.0, 10 * MS))
    assert gap(asyn.time, b.best) == pytest.approx(14 / 12 - 1)


def test_capacity_splits_bandwidth_into_lanes():
    # Both links: capacity 2 at 16 Gbit/s -> two lanes of 1e9 B/s: every 1 MB piece takes 1 ms, also when it
    # is alone on its link (lanes are static, so async can never be slower than sync).
    t = line_topology(cap=2, bw=(16.0, 16.0))
    dag = tree_dag(t)
    w, rounds = line_rounds(dag, LANE_ROUNDS)
    assert not engine_replay(dag, rounds)[1]  # two workloads per directed link in rounds 0 and 1
    assert np.allclose(transfer_times(dag, 3e6), 1 * MS)
    sync, asyn = replay_modes(dag, rounds, size=3e6).values()
    assert sync.time == pytest.approx(4 * MS) and asyn.time == pytest.approx(4 * MS)
    # busy = Σ durations / capacity: A>B carries b1, c1, a3 -> 3 ms / 2
    assert sync.link_busy[t.link_id(0, 1)] == pytest.approx(1.5 * MS)


def test_lane_order_on_a_link():
    # Link A>B (capacity 2) carries b1, c1 (round 0) and a3 (round 2). Given durations: b1 takes 5 ms, the
    # rest 1 ms. c1's lane is free at 1 ms, but lanes go round-robin in schedule order, so a3 waits for the
    # transfer 2 places ahead on A>B, b1, which keeps the order on the link.
    t = line_topology(cap=2, bw=(16.0, 16.0))
    dag = tree_dag(t)
    w, rounds = line_rounds(dag, LANE_ROUNDS)
    plan = ReplayPlan(dag, rounds)
    dur = np.full(dag.n, 1 * MS)
    dur[w["b1"]] = 5 * MS  # b1 holds one A>B lane for 5 ms
    asyn = plan.run(3e6, "async", durations=dur)
    # a3 needs a2 (after a1: 1-2 ms) and the lane of b1: starts at 5 ms, not 2 ms
    assert asyn.start[w["a3"]] == pytest.approx(5 * MS)
    sync = plan.run(3e6, "sync", durations=dur)
    assert sync.time == pytest.approx((5 + 1 + 1 + 1) * MS) and asyn.time <= sync.time  # rounds of 5, 1, 1, 1 ms


# ---- sync = rounds x round time on uniform links ----------------------------------------------------
@pytest.mark.parametrize("spec", ["bcube:n=3,k=1", "bcube:n=4,k=1"])
@pytest.mark.parametrize("method", HEURISTICS)
def test_sync_is_rounds_times_round_time_on_bcube(spec, method):
    # every BCube workload crosses server-switch-server: 2 links, so each round lasts 2·lat + piece / B
    sched = schedule(spec, method)
    size = 1e8
    round_time = 2 * 1e-6 + size / sched.dag.n_trees / (100e9 / 8)
    tm = replay(sched, size=size, mode="sync")
    assert tm.time == pytest.approx(sched.n_rounds * round_time, rel=1e-12)


@pytest.mark.parametrize("spec", ["dcell:n=4,k=1", "jellyfish:switches=10,ports=5,switch_ports=4,seed=0",
                                  "fattree:k=4", "example:fig3"])
@pytest.mark.parametrize("method", HEURISTICS)
def test_sync_round_time_is_its_slowest_workload(spec, method):
    # uniform links, paths of different lengths: round r lasts max over its workloads of hops·lat + piece/B
    sched = schedule(spec, method)
    size, lat, rate = 5e6, 1e-6, 100e9 / 8
    hops = sched.dag.links.lengths
    expect = sum(max(hops[r]) * lat + size / sched.dag.n_trees / rate for r in sched.rounds if len(r))
    assert replay(sched, size=size, mode="sync").time == pytest.approx(expect, rel=1e-12)


# ---- async <= sync, bounds below both: random graphs, random links ----------------------------------
@st.composite
def timed_topologies(draw):
    t = draw(random_topologies(max_nodes=7, capacities=True))
    bw = draw(st.lists(st.sampled_from([1.0, 10.0, 25.0, 40.0, 100.0]), min_size=t.n_edges, max_size=t.n_edges))
    lat = draw(st.lists(st.floats(0.0, 20.0), min_size=t.n_edges, max_size=t.n_edges))
    return t.with_links(bandwidth=np.array(bw), latency=np.array(lat))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(t=timed_topologies(), method=st.sampled_from(HEURISTICS), size=st.sampled_from([1e3, 1e6, 1e9]))
def test_async_never_slower_than_sync_and_bounds_hold(t, method, size):
    sched = run_method(method, t, ScheduleConfig())
    sync, asyn = replay_modes(sched, size=size).values()
    assert asyn.time <= sync.time * (1 + 1e-12)
    # the induction behind it: a workload of round r finishes, without barriers, by the barrier that ends r
    round_of = ReplayPlan(sched.dag, sched.rounds).round_of
    assert np.all(asyn.finish <= sync.round_end[round_of] * (1 + 1e-12))
    b = time_bounds(sched.dag, size)
    assert b.best <= asyn.time * (1 + 1e-9)
    # every workload waits for its prefixes in both modes
    full = sched.dag.explicit()  # prefix groups expanded
    rows = full.prefix.rows_of_values()
    for tm in (sync, asyn):
        assert np.all(tm.start[rows] >= tm.finish[full.prefix.values] * (1 - 1e-12))


def reference_async(dag, rounds, dur):
    """Start times written from docs/time.md, one workload at a time: after every prefix, and on each link
    after the transfer `capacity` places ahead in (round, id) order."""
    cap = dag.topology.link_capacity
    on_link: dict[int, list[float]] = {}  # finish times of the transfers so far on each link, in order
    finish = {}
    start = {}
    for r in rounds:
        for w in sorted(int(x) for x in r):
            s = max([finish[int(p)] for p in dag.prefix_of(w)], default=0.0)
            for link in dag.links.row(w).tolist():
                seen = on_link.setdefault(link, [])
                if len(seen) >= cap[link]:
                    s = max(s, seen[-cap[link]])
            start[w] = s
            finish[w] = s + dur[w]
            for link in dag.links.row(w).tolist():
                on_link[link].append(finish[w])
    return np.array([start[w] for w in range(dag.n)])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(t=timed_topologies(), method=st.sampled_from(HEURISTICS))
def test_async_matches_a_one_at_a_time_reference(t, method):
    sched = run_method(method, t, ScheduleConfig())
    tm = replay(sched, size=1e6, mode="async")
    assert np.allclose(tm.start, reference_async(sched.dag, sched.rounds, tm.duration), rtol=1e-12, atol=0)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(t=timed_topologies(), method=st.sampled_from(HEURISTICS))
def test_a_link_never_holds_more_than_its_capacity_at_once(t, method):
    sched = run_method(method, t, ScheduleConfig())
    asyn = replay(sched, size=1e6, mode="async")
    dag = sched.dag
    rows, lk = dag.links.rows_of_values(), dag.links.values
    for link in np.unique(lk):
        ws = rows[lk == link]
        times = np.r_[asyn.start[ws], asyn.finish[ws]]
        delta = np.r_[np.ones(len(ws)), -np.ones(len(ws))]
        order = np.lexsort((delta, times))  # a finish at time x frees the lane before a start at x
        assert np.cumsum(delta[order]).max() <= t.link_capacity[link]


# ---- Ring: 2(n-1)/n · M / B -------------------------------------------------------------------------
@pytest.mark.parametrize("p", preset("table2"), ids=lambda p: p.name)
def test_ring_matches_the_textbook_time(p):
    sched = schedule(p.spec, "ring")
    s = sched.dag.topology.n_servers
    if sched.n_rounds != 2 * (s - 1):
        pytest.skip("ring needs relays here")
    size, rate = 1e9, 100e9 / 8
    ideal = 2 * (s - 1) / s * size / rate
    for tm in replay_modes(sched, size=size).values():
        assert abs(tm.time / ideal - 1) < 0.02
        assert tm.busbw == pytest.approx(busbw(size, tm.time, s))
        assert tm.busbw / rate > 0.98  # bus bandwidth close to the link bandwidth, as for NCCL's ring


# ---- overrides: a bandwidth share per directed link --------------------------------------------------
def test_link_bandwidth_override_scales_transfer_times():
    sched = schedule("bcube:n=3,k=1", "critical-path")
    t = sched.dag.topology
    no_lat = np.zeros(t.n_links)
    full = replay(sched, size=1e8, link_latency=no_lat).time
    half = replay(sched, size=1e8, link_latency=no_lat, link_bandwidth=t.link_bandwidth * 0.5).time
    assert half == pytest.approx(2 * full)
    share = t.link_bandwidth.copy()
    unused = np.setdiff1d(np.arange(t.n_links), sched.dag.links.values)
    share[unused] = 0.0  # links the DAG never uses may get no share at all
    if len(unused):
        assert replay(sched, size=1e8, link_latency=no_lat, link_bandwidth=share).time == pytest.approx(full)
    share = t.link_bandwidth.copy()
    share[sched.dag.links.row(0)[0]] = 0.0
    with pytest.raises(ValueError, match="given bandwidth 0"):
        replay(sched, size=1e8, link_bandwidth=share)
    with pytest.raises(ValueError, match="one value per directed link"):
        replay(sched, size=1e8, link_bandwidth=np.ones(3))
    with pytest.raises(ValueError, match="finite and >= 0"):
        replay(sched, size=1e8, link_bandwidth=np.full(t.n_links, -1.0))


def test_a_failed_link_cannot_be_timed():
    sched = schedule("bcube:n=3,k=1", "critical-path")
    t = sched.dag.topology
    failed = np.zeros(t.n_edges, bool)
    failed[0] = True
    dag = tree_dag(t.with_links(failed=failed), routes=compute_routes(t))
    with pytest.raises(ValueError, match="which is failed"):
        replay(dag, sched.rounds, size=1e8)


def test_rounds_must_cover_the_dag_in_a_valid_order():
    sched = schedule("example:fig3", "critical-path")
    with pytest.raises(ValueError, match="exactly once"):
        replay(sched.dag, sched.rounds[:-1])
    swapped = [sched.rounds[1], sched.rounds[0]] + list(sched.rounds[2:])
    with pytest.raises(ValueError, match="not a valid schedule"):
        replay(sched.dag, swapped)


# ---- files and the CLI --------------------------------------------------------------------------------
def test_schedule_file_records_links_and_timing(tmp_path, capsys):
    spec = "bcube:n=4,k=1,bw=100/25"
    path = tmp_path / "s.json"
    code, out, _ = run_cli(capsys, "schedule", spec, "--method", "critical-path", "--size", "50MB", "--out", str(path))
    assert code == 0 and "time for 50 MB" in out and "busbw" in out
    doc = json.loads(path.read_text())
    assert doc["topology"]["spec"] == spec and {lk[3] for lk in doc["topology"]["links"]} == {100.0, 25.0}
    assert doc["timing"]["size_bytes"] == 50e6
    sched = schedule(spec, "critical-path")
    expect = replay_modes(sched, size=50e6)
    for mode in ("sync", "async"):
        assert doc["timing"][mode]["time_s"] == pytest.approx(expect[mode].time)
    # replay reads the recorded size by default and matches the in-memory replay
    # its JSON has the figures of every JSON output (core.jsonnumbers: 6 significant digits), so it is compared
    # exactly with the in-memory replay's so rounded, and with schedule --format json's "time" block (trial 13)
    code, out, _ = run_cli(capsys, "replay", str(path), "--format", "json")
    whole = json.loads(out)  # what was timed, then the figures under "time" as in schedule's JSON (trial 24)
    rep = whole.pop("time")
    assert code == 0 and rep["size_bytes"] == 50e6
    assert whole == {"file": str(path), "method": "critical-path", "spec": spec, "workloads": sched.dag.n,
                     "rounds": sched.n_rounds}
    assert rep["async"]["time_s"] == json_numbers(expect["async"].time) != expect["async"].time
    code, out, _ = run_cli(capsys, "schedule", spec, "--method", "critical-path", "--size", "50MB", "--format", "json")
    assert code == 0 and json.loads(out)["time"] == {k: v for k, v in rep.items() if k in json.loads(out)["time"]}
    code, out, _ = run_cli(capsys, "replay", str(path), "--size", "1GB", "--mode", "sync", "--format", "json")
    rep = json.loads(out)["time"]
    assert "async" not in rep and rep["sync"]["time_s"] == json_numbers(replay(sched, size=1e9, mode="sync").time)


def test_replay_of_an_edited_file_uses_its_link_properties(tmp_path, capsys):
    sched = schedule("bcube:n=3,k=1", "ring")
    doc = schedule_to_dict(sched)
    for link in doc["topology"]["links"]:
        link[3] = 50.0  # halve every link
    path = tmp_path / "half.json"
    path.write_text(json.dumps(doc))
    code, out, _ = run_cli(capsys, "replay", str(path), "--mode", "async", "--format", "json")
    # 16 ring rounds x (2 links x 1 µs + 100 MB / 9 pieces / 6.25e9 B/s), to 6 significant digits as every JSON output
    assert code == 0 and json.loads(out)["time"]["async"]["time_s"] == json_numbers(16 * (2e-6 + 1e8 / 9 / 6.25e9)) == 0.0284764


@pytest.mark.parametrize("argv,needles", [
    (["schedule", "bcube:n=3,k=1", "--size", "0"], ["--size", "at least 1 byte"]),
    (["schedule", "bcube:n=3,k=1", "--size", "12XB"], ["unknown unit 'XB'"]),
    (["schedule", "bcube:n=3,k=1", "--size", "nan"], ["'nan'"]),
    (["compare", "bcube:n=3,k=1", "--size=-1GB"], ["at least 1 byte"]),
    (["schedule", "bcube:n=3,k=1,bw=0"], ["bw must be > 0"]),
    (["schedule", "bcube:n=3,k=1,bw=-25"], ["bw must be > 0", "-25"]),
    (["schedule", "bcube:n=3,k=1,bw=nan"], ["bw must be a finite number", "nan"]),
    (["schedule", "bcube:n=3,k=1,lat=5parsec"], ["unknown unit 'parsec'"]),
    (["compare", "bcube:n=3,k=1,bw=1/2/3"], ["3 levels"]),
])
def test_bad_time_input_is_one_line_exit_2(capsys, argv, needles):
    code, _, err = run_cli(capsys, *argv)
    assert_one_line_error(code, err, *needles)


def test_replay_rejects_bad_files(tmp_path, capsys):
    sched = schedule("example:fig3", "critical-path")
    doc = schedule_to_dict(sched)
    doc["topology"]["links"][0][3] = 0
    bad_bw = tmp_path / "bw.json"
    bad_bw.write_text(json.dumps(doc))
    assert_one_line_error(*run_cli(capsys, "replay", str(bad_bw))[::2], "not a valid schedule", "bandwidth must be > 0")
    doc = schedule_to_dict(sched)
    doc["rounds"] = doc["rounds"][1:]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(doc))
    assert_one_line_error(*run_cli(capsys, "replay", str(broken))[::2], "not a valid schedule")
    doc = schedule_to_dict(sched, timing={"size_bytes": "lots"})
    odd = tmp_path / "size.json"
    odd.write_text(json.dumps(doc))
    assert_one_line_error(*run_cli(capsys, "replay", str(odd))[::2], "timing.size_bytes")


def test_a_job_on_some_servers_uses_the_cluster_link_ids():
    # the cluster simulator's recipe: a job on 4 servers of BCube(4,1); the other servers only forward.
    cluster = make_topology("bcube:n=4,k=1")
    job = cluster.with_servers([0, 1, 4, 5])
    sched = run_method("critical-path", job, ScheduleConfig())
    plan = ReplayPlan(sched.dag, sched.rounds)
    tm = plan.run(1e8, "async")
    assert tm.ranks == 4 and sched.dag.n == 2 * 4 * 3
    # every workload crosses server-switch-server: each round lasts 2 µs + (100 MB / 4) / 12.5e9 B/s = 2.002 ms
    assert tm.time == pytest.approx(sched.n_rounds * 2.002 * MS)
    # a half share of every cluster link doubles the bandwidth part
    half = plan.time(1e8, "async", link_bandwidth=cluster.link_bandwidth * 0.5)
    assert half == pytest.approx(sched.n_rounds * (2e-6 + 4 * MS))
