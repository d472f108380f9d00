"""The `schedule` report computed with less memory prints the same numbers.

`core.seconds.schedule_report` (stats, then the time report one mode at a time, one pass over the links' CSR for
the path sums, the links' transpose for the link-schedule bound, int32 replay orders) is compared byte for byte, as JSON, with the
report as it was computed before (reproduced here from numpy's own calls: `np.bincount` of repeated durations, the
whole `links_padded` matrix, both chains stacked, an argsort over every path entry), on small runs of every kind of
DAG, heterogeneous links and a failed link."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from _corelib import jackson, threads

from core import bounds
from core.bounds import Bounds, bandwidth_bound, gap, ports_bound
from core.methods import run_method
from core.schedule import ScheduleConfig
from core.seconds import link_summary, mode_gaps, schedule_report, sync_rounds_bound
from core.timing import MODES, ReplayPlan, link_arrays, n_ranks, piece_bytes
from core.timing import model as timing_model
from core.topology import degrade, make_topology
from core.units import gbps_to_bytes

RUNS = [
    ("bcube:4,1", "ps", {}),
    ("bcube:4,1", "critical-path", {}),
    ("bcube:4,1", "greedy", {"merge": False}),
    ("bcube:4,1", "ring", {"chunks": 2}),
    ("dcell:3,1", "ps", {}),
    ("fattree:4", "ps", {}),                              # paths of up to 4 links: sums over more than two terms
    ("fattree:6", "critical-path", {}),
    ("leafspine:4,2,3,bw=100,lat=2", "ps", {"size": 10 ** 6}),
    ("bcube:4,1,bw=100/25", "ps", {"size": 3 * 10 ** 6}),
    ("jellyfish:10,5,4", "greedy", {}),
]


# ---- the report as it was computed before (main at 4fbae19) ----------------------------------------------------------
def _old_transfer_times(dag, size):
    bw, lat = link_arrays(dag)
    lane = gbps_to_bytes(bw) / dag.topology.link_capacity
    pad = dag.links_padded
    slowest = np.r_[lane, np.inf][pad].min(axis=1)
    return np.r_[lat * 1e-6, 0.0][pad].sum(axis=1) + piece_bytes(dag, size) / slowest


def _old_link_schedule_bound(dag):
    cap = dag.topology.link_capacity
    rows = dag.links.rows_of_values()
    order = np.argsort(dag.links.values, kind="stable")
    lk, w = dag.links.values[order], rows[order]
    starts = np.r_[0, np.flatnonzero(np.diff(lk)) + 1]
    ends = np.r_[starts[1:], len(lk)]
    head, tail = dag.head, dag.tail - 1
    best = 0
    for g in np.argsort(-(ends - starts)).tolist():
        ws = w[starts[g]:ends[g]]
        c = int(cap[lk[starts[g]]])
        simple = int(head[ws].min() + -(-len(ws) // c) + tail[ws].min())
        upper = int(head[ws].max() + -(-len(ws) // c) + tail[ws].max())
        if upper > best:
            best = max(best, simple, jackson(head[ws], tail[ws], c))
    return best


def _old_report(sched, size):
    dag = sched.dag
    cap = dag.topology.link_capacity
    lb = Bounds(link_load=int(np.max(-(-dag.link_load // cap))), critical_path=int(dag.tail.max()),
                ports=ports_bound(dag), link_schedule=_old_link_schedule_bound(dag))
    bound = max(lb.best, int(sched.info.get("proven_bound", 0) or 0))
    stats = {"method": sched.method, "rounds": sched.n_rounds, "rounds_per_chunk": sched.n_rounds / dag.chunks,
             "workloads": dag.n, "lower_bound": bound, "gap": gap(sched.n_rounds, bound),
             "mean_utilization": sched.mean_utilization(), "bounds": lb.as_dict()}
    plan = ReplayPlan(dag, sched.rounds)
    plan.order, plan.round_of = plan.order.astype(np.int64), plan.round_of.astype(np.int64)
    dur = _old_transfer_times(dag, size)
    busy = np.bincount(dag.links.values, weights=np.repeat(dur, dag.links.lengths),
                       minlength=dag.topology.n_links) / cap
    timings = {m: plan.run(size, m, durations=dur, busy=busy) for m in MODES}
    bw, lat = link_arrays(dag)
    rate = bw * (1e9 / 8)
    load = dag.link_load * piece_bytes(dag, size)
    used = load > 0
    path_latency = np.r_[lat * 1e-6, 0.0][dag.links_padded].sum(axis=1)
    chains = dag.longest_chain(np.stack([path_latency, dur], axis=1)).max(axis=0)
    tb = bounds.TimeBounds(bandwidth=bandwidth_bound(dag, size), link=float(np.max(load[used] / rate[used])),
                           latency=float(chains[0]), critical_path=float(chains[1])).as_dict()
    # the sync rounds bound came after 4fbae19 (trial 15): a function of numbers computed above, not of memory
    out = {"size_bytes": float(size), "ranks": n_ranks(dag), "links": link_summary(dag), "bounds": tb,
           "sync_rounds": sync_rounds_bound(bound, float(dur.min()))}
    for m in MODES:
        s = timings[m].summary()
        for key in ("mode", "size_bytes", "ranks"):
            s.pop(key)
        s.update(mode_gaps(out, m, s["time_s"]))
        out[m] = s
    return stats, out


def _text(stats, timing) -> str:
    return json.dumps({**stats, "time": timing}, indent=2, default=float)


def _schedule(spec, method, options, fail=()):
    options = dict(options)
    size = options.pop("size", ScheduleConfig().size)
    topo = make_topology(spec)
    if fail:
        topo = degrade(topo, fail=fail)
    cfg = ScheduleConfig(size=size, **options)
    return run_method(method, topo, cfg), size


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("spec,method,options", RUNS)
def test_report_prints_the_same_numbers(spec, method, options, k):
    """On one thread and on two (the async pass beside the stats, the sync replay and the time bounds, down to the
    smallest DAG: `threads`)."""
    sched, size = _schedule(spec, method, options)
    with threads(k):
        new = _text(*schedule_report(sched, size))
    sched, size = _schedule(spec, method, options)  # afresh: the old code builds and keeps its own caches
    assert new == _text(*_old_report(sched, size))


def test_report_with_a_failed_link_prints_the_same_numbers():
    sched, size = _schedule("fattree:4", "ps", {}, fail="20")
    assert sched.dag.topology.failed.any()
    new = _text(*schedule_report(sched, size))
    assert new == _text(*_old_report(*_schedule("fattree:4", "ps", {}, fail="20")))


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("spec,method,options", RUNS + [("fattree:4", "ps", {"chunks": 2})])
def test_path_sums_equal_numpys_padded_sums_bit_for_bit(spec, method, options, compiled):
    """The one pass over the links' CSR adds each path's latencies in numpy's order (left to right): the same bits
    as the padded matrix's ``sum(axis=1)`` with latencies whose sums round differently in another order, and the
    same slowest lane; its Python body (small inputs before numba is loaded) and its compiled form alike."""
    dag = _schedule(spec, method, options)[0].dag
    rng = np.random.default_rng(7)
    lat = rng.uniform(0.1, 9.9, dag.topology.n_links) * rng.choice([1e-3, 1.0, 1e3], dag.topology.n_links)
    bw = rng.uniform(1.0, 400.0, dag.topology.n_links)
    run = timing_model._path_sums.dispatcher if compiled else timing_model._path_sums.py_func
    lane = gbps_to_bytes(bw) / dag.topology.link_capacity
    slowest, latency = np.empty(dag.n), np.empty(dag.n)
    run(dag.links.ptr, dag.links.values, lane, lat * 1e-6, slowest, latency)
    pad = dag.links_padded
    want = np.r_[lat * 1e-6, 0.0][pad].sum(axis=1)
    assert latency.tobytes() == want.tobytes()
    assert slowest.tobytes() == np.r_[lane, np.inf][pad].min(axis=1).tobytes()
    got = timing_model.transfer_times(dag, 3e6, bw, lat)
    assert got.tobytes() == (want + piece_bytes(dag, 3e6) / np.r_[lane, np.inf][pad].min(axis=1)).tobytes()
    assert timing_model.path_latency(dag, lat).tobytes() == want.tobytes()


def test_report_frees_what_it_derived():
    sched, size = _schedule("bcube:4,1", "ps", {})
    had = set(sched.dag.__dict__)
    schedule_report(sched, size)
    # head, tail, topo_order, links_padded, ... are rebuilt on demand; only the per-link loads stay
    assert set(sched.dag.__dict__) - had <= {"link_load"}


def test_transpose_lists_rows_ascending_and_checks_values():
    from core.csr import from_lists
    m = from_lists([[2, 0], [], [0, 2, 1], [2]])
    t = m.transpose(4)
    assert t.to_lists() == [[0, 2], [2], [0, 2, 3], []]
    with pytest.raises(ValueError, match="row ids"):
        m.transpose(2)


def test_new_kernels_compiled_match_their_python_body():
    from core import csr
    from core.timing.replay import _link_seconds
    rng = np.random.default_rng(0)
    lens = rng.integers(0, 5, 200)
    ptr = np.r_[0, np.cumsum(lens)].astype(np.int64)
    values = rng.integers(0, 30, int(ptr[-1])).astype(np.int32)
    dur = rng.random(200)
    a = csr._transpose.dispatcher(ptr, values, 30, np.empty(len(values), np.int32))
    b = csr._transpose.py_func(ptr, values, 30, np.empty(len(values), np.int32))
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    fast = _link_seconds.dispatcher(ptr, values, dur, 30)
    slow = _link_seconds.py_func(ptr, values, dur, 30)
    assert np.array_equal(fast, slow)
    assert np.array_equal(fast, np.bincount(values, weights=np.repeat(dur, lens), minlength=30))  # bit for bit


@pytest.mark.parametrize("spec,method,options", RUNS)
def test_summary_without_per_workload_arrays_equals_the_full_replays(spec, method, options):
    """`ReplayPlan.summary` (the report's: no start, no finish kept) gives what `run(...).summary()` gives, bit for
    bit, in both modes: on the method's rounds, with random durations (zeros among them) and with empty rounds
    inserted (an empty round lasts 0 s), where a sum in another order or a round's end taken wrongly would move the
    last bit."""
    sched, size = _schedule(spec, method, options)
    dag = sched.dag
    rng = np.random.default_rng(3)
    rounds = [list(r) for r in sched.rounds]
    gappy = rounds[:1] + [[]] + rounds[1:] + [[]]
    for rs in (rounds, gappy):
        plan = ReplayPlan(dag, rs)
        for dur in (None, rng.random(dag.n) * 1e-3 * (rng.random(dag.n) < 0.9)):
            for mode in MODES:
                want = plan.run(size, mode, durations=dur).summary()
                assert plan.summary(size, mode, durations=dur) == want
                assert json.dumps(plan.summary(size, mode, durations=dur)) == json.dumps(want)


@pytest.mark.parametrize("k", [1, 2])
def test_report_of_a_broken_order_raises_on_either_thread(k):
    """A schedule whose order breaks a wait: the async pass on the second thread raises the same message as on one
    (`jit.both` hands the worker's exception to the caller), and the stats beside it do not hide it."""
    sched, size = _schedule("bcube:4,1", "ps", {})
    rounds = [list(r) for r in sched.rounds]
    rounds[0], rounds[-1] = rounds[-1], rounds[0]
    broken = dataclasses.replace(sched, rounds=rounds)
    with threads(k), pytest.raises(ValueError, match="not a valid schedule: workload"):
        schedule_report(broken, size)
