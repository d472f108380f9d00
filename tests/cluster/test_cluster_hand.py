"""Tiny clusters whose job completion times are computed by hand (the arithmetic is in the comments).

Constants (see _clusterlib): ResNet-50 all-reduces M = 102.24e6 B per iteration and computes
C = 0.026176 s; network links run at 12.5e9 B/s with 1 µs latency; NVLink at 300e9 B/s, 1 µs.
"""

import numpy as np
import pytest

from core.cluster import make_cluster, simulate
from core.cluster.comm import CommModel

from _clusterlib import LINK, NVLINK, C, Fixed, M, trace  # noqa: F401

# BCube(2,0): servers s0, s1 on one switch; a ring AllReduce of M between them is 2 steps, each a
# piece of M/2 over server -> switch -> server (2 links, 2 µs latency):
RING2 = 2 * (2e-6 + (M / 2) / LINK)          # = 2 x (2e-6 + 4.0896e-3) = 8.1832e-3 s
# Two such jobs on the same links: each one's bandwidth is divided by 1 + the other's duty cycle
# (share of its iteration in the network AllReduce), rounded to 1/8. Alone the duty is
# RING2 / (C + RING2) = 8.1832 / 34.3592 = 0.238 -> rounds to 2/8; sharing 1.25 gives
RING2_SHARED = 2 * (2e-6 + 1.25 * (M / 2) / LINK)  # = 4e-6 + 1.25 x 8.1792e-3 = 10.228e-3 s
# and a duty of 10.228 / (26.176 + 10.228) = 0.281, which still rounds to 2/8: the fixed point.
# Intra-server ring of g GPUs: reduce-scatter + all-gather = 2 (g-1) (M/g / NVLINK + 1 µs)
INTRA2 = 2 * 1 * ((M / 2) / NVLINK + 1e-6)   # g = 2: 2 x (1.704e-4 + 1e-6) = 3.428e-4 s


def test_single_gpu_job_is_pure_compute():
    # 1000 iterations x 0.026176 s = 26.176 s; arrival 5 s -> ends at 31.176 s
    c = make_cluster("bcube:n=2,k=0", 1)
    r = simulate(c, trace([(5.0, 1, 1000)]), Fixed({0: [1, 0]}))
    assert r.end[0] == pytest.approx(5.0 + 1000 * C, rel=1e-12)
    assert r.jct[0] == pytest.approx(26.176, rel=1e-9)
    assert r.comm_seconds[0] == 0


def test_job_inside_one_server_pays_nvlink_only():
    # 2 GPUs on s0: iteration = C + INTRA2 = 0.026176 + 0.0003428 = 0.0265188 s; x 500 = 13.2594 s
    c = make_cluster("bcube:n=2,k=0", 2)
    r = simulate(c, trace([(0.0, 2, 500)]), Fixed({0: [2, 0]}))
    assert INTRA2 == pytest.approx(3.428e-4, rel=1e-3)
    assert r.end[0] == pytest.approx(500 * (C + INTRA2), rel=1e-9)
    assert r.comm_seconds[0] == pytest.approx(500 * INTRA2, rel=1e-9)


def test_job_across_two_servers_pays_the_ring():
    # one GPU on each server: iteration = C + RING2 = 0.026176 + 0.0081832 = 0.0343592 s; x 100 = 3.43592 s
    c = make_cluster("bcube:n=2,k=0", 1)
    r = simulate(c, trace([(0.0, 2, 100)]), Fixed({0: [1, 1]}))
    assert RING2 == pytest.approx(8.1832e-3, rel=1e-6)
    assert r.end[0] == pytest.approx(100 * (C + RING2), rel=1e-9)


def test_two_jobs_sharing_links_then_one_alone():
    # G = 2; jobs 0 and 1 each take one GPU on s0 and one on s1, both from t = 0, so every link
    # carries both rings: iteration = C + RING2_SHARED = 0.026176 + 0.010228 = 0.036404 s.
    # Job 1 (100 iterations) ends at t1 = 100 x 0.036404 = 3.6404 s. Job 0 (300 iterations) has
    # 200 left, now alone: 200 x (C + RING2) = 200 x 0.0343592 = 6.87184 s -> ends at 10.51224 s.
    c = make_cluster("bcube:n=2,k=0", 2)
    r = simulate(c, trace([(0.0, 2, 300), (0.0, 2, 100)]), Fixed({0: [1, 1], 1: [1, 1]}))
    t1 = 100 * (C + RING2_SHARED)
    assert r.end[1] == pytest.approx(t1, rel=1e-9)
    assert r.end[0] == pytest.approx(t1 + 200 * (C + RING2), rel=1e-9)
    assert r.end[0] == pytest.approx(10.51224, rel=1e-4)
    assert r.link_users.max() == 2


def test_a_waiting_job_starts_when_gpus_free():
    # G = 1: job 0 holds both GPUs for 100 x (C + RING2) = 3.43592 s; job 1 (1 GPU, 10 iterations,
    # arrives at 1 s) waits for it, then runs 10 x C = 0.26176 s: ends 3.69768 s, queued 2.43592 s.
    c = make_cluster("bcube:n=2,k=0", 1)
    r = simulate(c, trace([(0.0, 2, 100), (1.0, 1, 10)]), Fixed({0: [1, 1], 1: [1, 0]}))
    t0 = 100 * (C + RING2)
    assert r.first_start[1] == pytest.approx(t0)
    assert r.end[1] == pytest.approx(t0 + 10 * C, rel=1e-9)
    assert r.queueing[1] == pytest.approx(t0 - 1.0, rel=1e-9)


def test_contention_slows_exactly_the_jobs_that_share_links():
    # BCube(2,1): s00,s01 share switch sw0.0; s10,s11 share sw0.1 (server indices 0,1 and 2,3).
    # Jobs 0 and 2 both sit on s00+s01, job 1 on s10+s11: 0 and 2 share links, 1 is alone.
    c = make_cluster("bcube:n=2,k=1", 2)
    plan = {0: [1, 1, 0, 0], 1: [0, 0, 1, 1], 2: [1, 1, 0, 0]}
    together = simulate(c, trace([(0.0, 2, 200)] * 3), Fixed(plan))
    alone = {j: simulate(c, trace([(0.0, 2, 200)]), Fixed({0: plan[j]})).end[0] for j in plan}
    assert together.end[1] == pytest.approx(alone[1], rel=1e-12)       # untouched
    assert together.end[0] > 1.05 * alone[0]                            # slowed by sharing
    assert together.end[0] == pytest.approx(together.end[2], rel=1e-12)
    assert together.end[0] == pytest.approx(200 * (C + RING2_SHARED), rel=1e-9)


def test_times_are_cached_per_sharing_pattern():
    c = make_cluster("bcube:n=2,k=0", 2)
    comm = CommModel(c)
    tr = trace([(0.0, 2, 50), (0.0, 2, 50)])
    simulate(c, tr, Fixed({0: [1, 1], 1: [1, 1]}), comm)
    builds, replays = comm.plan_builds, comm.replays
    simulate(c, tr, Fixed({0: [1, 1], 1: [1, 1]}), comm)
    # one plan, two sharing patterns: alone (job 0's duty at its start) and 1.25 on every link
    assert (comm.plan_builds, comm.replays) == (builds, replays) == (1, 2)
    assert np.isclose(comm.net_time(comm.net_plan((0, 1), "ring"), M), RING2)


def test_placement_cost_is_own_slowdown_plus_the_bound_on_the_neighbours():
    # G = 2, BCube(2,0). Job 0 runs alone on s0+s1 (one GPU each, no intra-server step): its duty
    # is RING2 / (C + RING2) = 8.1832 / 34.3592 = 0.2382. Job 1 on the same GPUs' links: its own
    # share is 1 + round(8 x 0.2382) / 8 = 1.25, iteration C + RING2_SHARED = 0.036404 s, so its
    # own part is 2 GPUs x 0.036404 / 0.026176 = 2.78148; its duty 10.228 / 36.404 = 0.2810 raises
    # job 0's share from 1 to 1.25 (f = 1.25): bound 2 GPUs x 0.25 x RING2 / C = 0.15631.
    from core.cluster.sim import Start, State, _start
    c = make_cluster("bcube:n=2,k=0", 2)
    st = State(c, trace([(0.0, 2, 100), (0.0, 2, 100)]), CommModel(c))
    st.waiting += [0, 1]
    _start(st, "t", Start(0, np.array([1, 1])), np.full(2, np.nan), np.zeros(2))
    assert st.duty[0] == pytest.approx(RING2 / (C + RING2), rel=1e-9)
    own = 2 * (C + RING2_SHARED) / C
    assert st.placement_cost(1, np.array([1, 1]), "ring", own_only=True) == pytest.approx(own, rel=1e-9)
    assert st.placement_cost(1, np.array([1, 1]), "ring") == pytest.approx(own + 2 * 0.25 * RING2 / C, rel=1e-9)
    assert own + 2 * 0.25 * RING2 / C == pytest.approx(2.78148 + 0.15631, rel=1e-5)
