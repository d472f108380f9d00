"""The simulation across every scheduler: valid AllReduces, capacity, reproducibility, policies' rules."""

import numpy as np
import pytest

from core.cluster import HEURISTICS, CommModel, load_trace, make_cluster, make_scheduler, simulate, summarize
from core.cluster.comm import VARIANTS
from core.cluster.gadget import Gadget
from core.cluster.policies import LAS_THRESHOLDS
from core.schedule_io import schedule_to_dict
from core.validate import validate_document

from _clusterlib import C, trace

CLUSTER = make_cluster("bcube:n=4,k=1", 4)  # 16 servers, 64 GPUs
TRACE = load_trace("synthetic:jobs=40,seed=3,rate=20")
COMM = CommModel(CLUSTER)
NAMES = list(HEURISTICS) + ["gadget", "ours", "sjf+timed", "fifo+closest+critical-path"]


@pytest.fixture(scope="module")
def runs():
    return {n: simulate(CLUSTER, TRACE, make_scheduler(n), COMM) for n in NAMES}


@pytest.mark.parametrize("name", NAMES)
def test_every_job_finishes_no_sooner_than_its_compute(runs, name):
    r = runs[name]
    assert np.all(np.isfinite(r.end))
    assert np.all(r.first_start >= r.arrival - 1e-9)
    assert np.all(r.jct >= TRACE.ideal_duration * (1 - 1e-9))
    assert r.busy_gpus.max() <= CLUSTER.n_gpus and r.busy_gpus.min() >= 0


@pytest.mark.parametrize("name", NAMES)
def test_gpus_are_never_shared(runs, name):
    r = runs[name]
    edges = sorted({s.start for s in r.segments} | {s.end for s in r.segments})
    for t in edges:
        use = sum((s.alloc for s in r.segments if s.start <= t < s.end), np.zeros(CLUSTER.n_servers, np.int64))
        assert np.all(use <= CLUSTER.gpus_per_server)


def test_every_allreduce_schedule_validates(runs):
    plans = {}
    for r in runs.values():
        for s in r.segments:
            servers = tuple(np.flatnonzero(s.alloc).tolist())
            if len(servers) > 1:
                plans[(servers, s.method)] = COMM.net_plan(servers, s.method)
    assert {m for _, m in plans} >= {"ring", "critical-path", "critical-path-x4"}
    for (servers, method), plan in plans.items():
        rep = validate_document(schedule_to_dict(plan.schedule))
        assert rep.ok, (servers, method, rep.violations[:1])
        assert rep.trees == len(servers) * VARIANTS[method][1].get("chunks", 1)  # a flow-tree per root and piece


def test_placement_rules_differ_in_communication(runs):
    # closest keeps jobs on few servers; random and load-balance spread them (more AllReduce time)
    share = {n: summarize(runs[n])["comm_share"] for n in ("fifo+closest", "fifo+random", "fifo+load-balance")}
    assert share["fifo+closest"] < share["fifo+random"] and share["fifo+closest"] < share["fifo+load-balance"]


def test_seeded_runs_repeat_and_seeds_matter():
    a, b = (simulate(CLUSTER, TRACE, make_scheduler("sjf+random", seed=5), COMM) for _ in range(2))
    assert np.array_equal(a.end, b.end) and len(a.segments) == len(b.segments)
    assert all(np.array_equal(x.alloc, y.alloc) for x, y in zip(a.segments, b.segments))
    c = simulate(CLUSTER, TRACE, make_scheduler("sjf+random", seed=6), COMM)
    assert not np.array_equal(a.end, c.end)


def test_fifo_and_sjf_start_in_their_order():
    # two 1-GPU slots; six 1-GPU jobs at t = 0 with 50, 10, 40, 20, 60, 30 iterations
    tr = trace([(0.0, 1, n) for n in (50, 10, 40, 20, 60, 30)])
    tiny = make_cluster("bcube:n=2,k=0", 1)
    fifo = simulate(tiny, tr, make_scheduler("fifo+first-fit"))
    sjf = simulate(tiny, tr, make_scheduler("sjf+first-fit"))
    assert np.argsort(fifo.first_start, kind="stable").tolist() == [0, 1, 2, 3, 4, 5]
    assert np.argsort(sjf.first_start, kind="stable").tolist() == [1, 3, 5, 2, 0, 4]
    # SJF on equal machines: total JCT (10+20)+(10+30+20+40)+... is the smallest of any order
    assert sjf.jct.sum() < fifo.jct.sum()
    assert sjf.jct.sum() == pytest.approx(C * (10 + 20 + 40 + 60 + 90 + 120), rel=1e-9)


def test_las_preempts_and_resumes():
    tr = load_trace("synthetic:jobs=40,seed=0,rate=30")
    r = simulate(CLUSTER, tr, make_scheduler("las+closest"), COMM)
    assert r.preemptions > 0
    run = np.zeros(tr.n)
    for s in r.segments:
        run[s.job] += s.end - s.start
    assert np.all(run >= tr.ideal_duration * (1 - 1e-9))
    resumed = {s.job for s in r.segments if s.start > r.first_start[s.job]}
    assert resumed
    assert LAS_THRESHOLDS == tuple(sorted(LAS_THRESHOLDS))


def test_gadget_never_lets_more_rings_share_a_link_than_it_reserves(runs):
    assert runs["gadget"].link_users.max() <= 2
    full = simulate(CLUSTER, TRACE, Gadget(reserve=1.0), COMM)
    assert full.link_users.max() <= 1


def test_scheduler_bugs_are_caught():
    class Greedy:
        name = "bad"

        def reset(self, state):
            pass

        def wakeup(self, state):
            return np.inf

        def decide(self, state):
            from core.cluster.sim import Decisions, Start
            return Decisions([Start(j, state.free.copy(), "ring") for j in state.waiting[:1]])

    with pytest.raises(RuntimeError, match="allocation of 64 GPUs"):
        simulate(CLUSTER, TRACE, Greedy(), COMM)
