"""Issue 13's machinery on small cases: the class-head list scheduler equals the plain list scheduler
(Engine.fill over every ready workload each round), prefix groups mean exactly their explicit lists,
the columnar (.npz) schedule form round-trips and validates like JSON, and the compiled pieces
(chains, async replay, routing) agree with plain references."""

from __future__ import annotations

import contextlib
import json

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import csr, engine as engine_module, greedy, jit, shuffle
from core.engine import Engine, list_schedule, priority_order, priority_places, replay, rounds_valid
from core.methods import run_method
from core.greedy import ClassHeads
from core.routing import compute_routes
from core.priorities import critical_path_rank, random_rank
from core.schedule import ScheduleConfig
from core.schedule_io import read_schedule_file, schedule_to_dict, write_schedule
from core.schedule_npz import columns_of
from core.timing import ReplayPlan
from core.topology import Topology
from core.validate import columns_from_json, validate_document
from core.workloads import ring_dag, tree_dag

from _corelib import jackson, naive_fill, random_topologies, threads, topo

SPECS = ["example:fig3", "bcube:n=3,k=1", "dcell:n=3,k=1", "fattree:k=4",
         "jellyfish:switches=10,ports=5,switch_ports=4,seed=0"]


def with_caps(t: Topology, seed: int) -> Topology:
    rng = np.random.default_rng(seed)
    return Topology(spec=t.spec, is_server=t.is_server, edges=t.edges, capacity=rng.integers(1, 4, size=t.n_edges),
                    labels=t.labels)


def reference_list_schedule(dag, rank) -> list[list[int]]:
    """The list scheduler as MODEL.md says it: each round, walk every ready workload by rank (ties by id),
    keep each whose links all have room (the naive one-by-one loop)."""
    order = np.lexsort((np.arange(dag.n), np.asarray(rank)))
    eng = Engine(dag)
    rounds = []
    while not eng.done:
        ready = eng.ready_mask()
        got = naive_fill(dag, [w for w in order.tolist() if ready[w]], dag.topology.link_capacity)
        eng.apply(got)
        rounds.append(got)
    return rounds


@settings(max_examples=40, deadline=None)
@given(spec=st.sampled_from(SPECS), kind=st.sampled_from(["merged", "plain", "ring"]),
       rank_kind=st.sampled_from(["critical", "random", "ties"]), seed=st.integers(0, 10_000), caps=st.booleans())
def test_class_head_scheduler_equals_plain_list_scheduler(spec, kind, rank_kind, seed, caps):
    t = topo(spec)
    if caps:
        t = with_caps(t, seed)
    dag = {"merged": lambda: tree_dag(t), "plain": lambda: tree_dag(t, merge=False), "ring": lambda: ring_dag(t)}[kind]()
    rank = {"critical": lambda: critical_path_rank(dag), "random": lambda: random_rank(dag, seed),
            "ties": lambda: np.random.default_rng(seed).integers(0, 4, size=dag.n)}[rank_kind]()
    got = [r.tolist() for r in list_schedule(dag, rank)]
    assert got == reference_list_schedule(dag, rank)


@settings(max_examples=30, deadline=None)
@given(t=random_topologies(max_nodes=8, capacities=True), seed=st.integers(0, 1000))
def test_class_head_scheduler_on_random_graphs(t, seed):
    for dag in (tree_dag(t), tree_dag(t, merge=False)):
        rank = random_rank(dag, seed)
        assert [r.tolist() for r in list_schedule(dag, rank)] == reference_list_schedule(dag, rank)


MUTATIONS = ["none", "move-earlier", "move-later", "duplicate", "drop", "unknown", "merge-rounds", "swap", "empty"]


def mutate(rounds: list[list[int]], how: str, rng: np.random.Generator, n: int) -> list[list[int]]:
    """A copy of `rounds` broken (or not) in one way."""
    rounds = [list(r) for r in rounds]
    r = int(rng.integers(len(rounds)))
    if how == "move-earlier" and r > 0 and rounds[r]:
        rounds[int(rng.integers(r))].append(rounds[r].pop(int(rng.integers(len(rounds[r])))))
    elif how == "move-later" and r + 1 < len(rounds) and rounds[r]:
        rounds[int(rng.integers(r + 1, len(rounds)))].append(rounds[r].pop(int(rng.integers(len(rounds[r])))))
    elif how == "duplicate" and rounds[r]:
        rounds[int(rng.integers(len(rounds)))].append(rounds[r][int(rng.integers(len(rounds[r])))])
    elif how == "drop" and rounds[r]:
        rounds[r].pop(int(rng.integers(len(rounds[r]))))
    elif how == "unknown":
        rounds[r].append(int(rng.choice([-1, n, n + 5])))
    elif how == "merge-rounds" and r + 1 < len(rounds):
        rounds[r] += rounds.pop(r + 1)
    elif how == "swap" and r + 1 < len(rounds):
        rounds[r], rounds[r + 1] = rounds[r + 1], rounds[r]
    elif how == "empty":
        rounds.insert(r, [])
    return rounds


@settings(max_examples=80, deadline=None)
@given(spec=st.sampled_from(SPECS), kind=st.sampled_from(["merged", "plain", "ring"]),
       how=st.sampled_from(MUTATIONS), seed=st.integers(0, 10_000), caps=st.booleans(), k=st.sampled_from([1, 2]))
def test_in_order_check_agrees_with_the_replay(spec, kind, how, seed, caps, k):
    """`rounds_valid` (the registry's check) says valid exactly when the replay finds no violation,
    in halves on two threads as on one."""
    t = topo(spec)
    if caps:
        t = with_caps(t, seed)
    dag = {"merged": lambda: tree_dag(t), "plain": lambda: tree_dag(t, merge=False), "ring": lambda: ring_dag(t)}[kind]()
    rounds = mutate([r.tolist() for r in list_schedule(dag, random_rank(dag, seed))], how,
                    np.random.default_rng(seed), dag.n)
    with threads(k):
        assert rounds_valid(dag, rounds) == (not replay(dag, rounds)[1])
    if how in ("none", "empty"):
        assert rounds_valid(dag, rounds)


DAG_ARRAYS = ["tree", "phase", "carries_own", "links", "deps", "successors", "prefix", "groups"]


@pytest.mark.parametrize("spec", ["bcube:n=3,k=1", "dcell:n=3,k=1", "fattree:k=4", "bcube:n=4,k=2"])
def test_two_threads_give_the_serial_results(spec):
    """The plain PS DAG written in two halves, the seeded draw beside the route classes, and the
    check in halves: the same arrays, rounds and verdicts on two threads as on one."""
    t = topo(spec)
    out = {}
    for k in (1, 2):
        with threads(k):
            dag = tree_dag(t, merge=False)
            arrays = [getattr(dag, a) for a in DAG_ARRAYS]
            rounds = [r.tolist() for r in list_schedule(dag, lambda: random_rank(dag, 1))]
            broken = [rounds[1:], rounds + [[rounds[0][0]]], [rounds[0] + rounds[1]] + rounds[2:]]
            out[k] = arrays, rounds, [rounds_valid(dag, b) for b in [rounds] + broken]
    for a, b in zip(out[1][0], out[2][0], strict=True):
        pa, pb = (a.ptr, b.ptr) if hasattr(a, "ptr") else (a, a)
        assert np.array_equal(pa, pb) and np.array_equal(getattr(a, "values", a), getattr(b, "values", b))
    assert out[1][1] == out[2][1] == [r.tolist() for r in list_schedule(dag, random_rank(dag, 1))]
    assert out[1][2] == out[2][2] == [True, False, False, False]


@pytest.mark.parametrize("spec", ["bcube:n=3,k=1", "dcell:n=3,k=1", "fattree:k=4"])
def test_depths_and_hops_by_hand(spec):
    """Node-tree depths (parents followed to the root) and hop counts (a plain BFS), on two threads as on one."""
    t = topo(spec)
    for k in (1, 2):
        with threads(k):
            routes = compute_routes(t)
            hops = t.hops(t.servers)
        parent = routes.parent
        for i in range(len(parent)):
            for j in range(len(parent)):
                d, x = 0, parent[i, j]
                while x >= 0:
                    d, x = d + 1, parent[i, x]
                assert routes.depth[i, j] == d
        g = t.to_networkx()
        for r, src in enumerate(t.servers.tolist()):
            dist = nx.single_source_shortest_path_length(g, src)
            assert hops[r].tolist() == [dist.get(v, t.n_nodes + 1) for v in range(t.n_nodes)]


def test_both_runs_two_parts_and_raises_their_error():
    with threads(2):
        assert jit.both(lambda: 1, lambda: 2, size=1) == (1, 2)
        with pytest.raises(ZeroDivisionError):
            jit.both(lambda: 1 // 0, lambda: 2, size=1)
    with threads(1):
        assert jit.both(lambda: 1, lambda: 2, size=1) == (1, 2)


def test_in_order_check_sees_each_broken_rule():
    dag = tree_dag(topo("dcell:n=3,k=1"), merge=False)  # with prefix groups
    rounds = [r.tolist() for r in list_schedule(dag, random_rank(dag, 0))]
    assert rounds_valid(dag, rounds) is True
    first_broadcast = next(w for w in range(dag.n) if (dag.deps.row(w) >= dag.n).any())
    r = next(k for k, ids in enumerate(rounds) if first_broadcast in ids)
    early = [list(x) for x in rounds]
    early[r].remove(first_broadcast)
    early[0].append(first_broadcast)  # before its group's members
    wide = [list(x) for x in rounds]
    wide[0] += wide.pop(1)  # two rounds in one: some link over capacity
    for broken in (early, wide, rounds[:-1], rounds + [[rounds[0][0]]], rounds + [[dag.n]]):
        assert rounds_valid(dag, broken) is False and replay(dag, broken)[1]


@pytest.mark.parametrize("m", [0, 7, 255, 256, 3000])
def test_radix_sort_of_round_keys_equals_a_sort(m):
    # the list scheduler sorts fresh heads by their place bits (32 and up) and each round's kept ids (bits 0 and
    # up) with one radix sort; from 256 keys on it is the radix path
    from core.greedy import _sort_bits
    rng = np.random.default_rng(m)
    n = 1 << 21  # 21 bits: two passes of 11
    ids = rng.choice(n, size=m, replace=False).astype(np.int64)
    assert _sort_bits(ids, 0, 21).tolist() == np.sort(ids).tolist()
    keys = (ids << 32) | rng.integers(0, 1 << 20, size=m)  # places unique, anything below them
    assert _sort_bits(keys, 32, 21).tolist() == np.sort(keys).tolist()


def test_rounds_of_hundreds_are_ascending_and_read_only():
    # wide links make rounds of more than 256 workloads, where the kept ids take the radix sort
    t = topo("bcube:n=5,k=1")
    t = Topology(spec=t.spec, is_server=t.is_server, edges=t.edges, capacity=np.full(t.n_edges, 60), labels=t.labels)
    dag = tree_dag(t, merge=False)
    rank = random_rank(dag, 1)
    rounds = list_schedule(dag, rank)
    assert max(len(r) for r in rounds) >= 256
    for r in rounds:
        assert r.dtype == np.int64 and not r.flags.writeable and np.all(np.diff(r) > 0)
    assert [r.tolist() for r in rounds] == reference_list_schedule(dag, rank)


def test_state_rows_keep_the_callers_columns():
    # the list scheduler keeps place and class beside each workload's wait and round (Engine(columns=4)): the
    # engine must give the same waits, rounds and released workloads as with two columns, and leave the others
    dag = tree_dag(topo("dcell:n=3,k=1"), merge=False)
    rounds = list_schedule(dag, random_rank(dag, 2))
    two, four = Engine(dag), Engine(dag, columns=4)
    four._state[:, 2:] = -7  # noqa: SLF001 - the columns a list scheduler owns
    for r in rounds:
        two.apply(r)
        four.apply(r)
        assert two.last_freed.tolist() == four.last_freed.tolist()
        assert two.sent_round.tolist() == four.sent_round.tolist()
        assert two.ready_mask().tolist() == four.ready_mask().tolist()
    assert four.done and np.all(four._state[:, 2:] == -7)  # noqa: SLF001


def test_priority_order_is_a_stable_sort():
    rng = np.random.default_rng(3)
    for rank in (rng.permutation(50), rng.integers(0, 5, 50), -rng.integers(0, 5, 50)):
        assert priority_order(rank).tolist() == np.lexsort((np.arange(50), rank)).tolist()


def test_priority_places_invert_the_order():
    rng = np.random.default_rng(4)
    for rank in (rng.permutation(50), rng.integers(0, 5, 50), -rng.integers(0, 5, 50), np.r_[rng.permutation(49), 3]):
        place = priority_places(rank)
        assert place[priority_order(rank)].tolist() == list(range(50))
    perm = rng.permutation(50)
    assert priority_places(perm) is perm  # a permutation is its own place: no copy


def test_replay_shares_the_rounds_it_checks():
    dag = tree_dag(topo("bcube:n=3,k=1"), merge=False)
    rounds = list_schedule(dag, random_rank(dag, 0))
    eng, violations = replay(dag, rounds)
    assert not violations and all(np.shares_memory(a, b) for a, b in zip(eng.rounds, rounds))
    writable = [np.array(r[::-1]) for r in rounds]  # unsorted, writable: copied and sorted
    eng, violations = replay(dag, writable)
    assert not violations and not any(np.shares_memory(a, b) for a, b in zip(eng.rounds, writable))
    assert [r.tolist() for r in eng.rounds] == [r.tolist() for r in rounds]


# ---- prefix groups ---------------------------------------------------------------------------
def plain_reference_prefixes(dag) -> list[list[int]]:
    """MODEL.md §3, merge off: a relay hop waits for the hop before it; the first broadcast hop of a tree
    waits for every reduce hop into the root (explicitly listed), any other for the hop before it."""
    out = [[] for _ in range(dag.n)]
    red = dag.phase == 0
    for t in range(dag.n_trees):
        ws = np.flatnonzero(dag.tree == t)
        root = int(dag.tree_root[t])
        into_root = sorted(w for w in ws if red[w] and dag.dst[w] == root)
        for w in ws:
            if red[w] and not dag.carries_own[w]:
                out[w] = [w - 1]
            elif not red[w]:
                out[w] = into_root if dag.src[w] == root else [w - 1]
    return out


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("chunks", [1, 2])
def test_prefix_groups_mean_their_explicit_lists(spec, chunks):
    dag = tree_dag(topo(spec), merge=False, chunks=chunks)
    assert dag.n_groups == dag.n_trees  # one group per flow-tree: the reduce hops into its root
    assert len(dag.prefix.values) < dag.n + dag.n_trees  # each workload lists at most one entry
    full = dag.explicit()
    assert [sorted(p) for p in full.prefix.to_lists()] == plain_reference_prefixes(dag)
    # the same chains, successor counts, schedules and timings with the compact and the explicit form
    assert np.array_equal(dag.head, full.head) and np.array_equal(dag.tail, full.tail)
    assert np.array_equal(dag.successor_count, full.successors.lengths)
    rank = random_rank(dag, 1)
    rounds = list_schedule(dag, rank)
    assert [r.tolist() for r in rounds] == [r.tolist() for r in list_schedule(full, rank)]
    assert np.allclose(ReplayPlan(dag, rounds).run(1e6).start, ReplayPlan(full, rounds).run(1e6).start)
    # the engine refuses a first broadcast hop before its group is complete, in both forms
    first_bc = int(np.flatnonzero((dag.phase == 1) & (dag.src == dag.root))[0])
    for d in (dag, full):
        assert any(v.rule == "prefix" for v in Engine(d).check([first_bc]))


def test_reverse_swaps_groups_and_waiters():
    dag = tree_dag(topo("bcube:n=3,k=1"), merge=False)
    rev = dag.reverse()
    want = dag.explicit().successors.to_lists()
    assert [sorted(p) for p in rev.explicit().prefix.to_lists()] == [sorted(x) for x in want]


# ---- the columnar file ---------------------------------------------------------------------------
@pytest.mark.parametrize("spec,method,chunks", [("bcube:n=3,k=1", "critical-path", 1), ("dcell:n=3,k=1", "ps", 2),
                                                ("fattree:k=4", "ring", 1), ("example:fig3", "ps", 1)])
def test_npz_round_trip_and_validation(tmp_path, spec, method, chunks):
    sched = run_method(method, topo(spec), ScheduleConfig(chunks=chunks))
    path = tmp_path / "s.npz"
    write_schedule(sched, path)
    data = read_schedule_file(path)
    cols = data["workloads"]
    ref = columns_of(sched)
    assert np.array_equal(cols.root, sched.dag.root) and np.array_equal(cols.phase, sched.dag.phase)
    assert cols.path.to_lists() == sched.dag.path.to_lists()
    assert cols.prefix.to_lists() == ref.prefix.to_lists()
    assert cols.prefix_groups.to_lists() == ref.prefix_groups.to_lists()
    assert cols.groups.to_lists() == sched.dag.groups.to_lists()
    assert cols.rounds.to_lists() == [r.tolist() for r in sched.rounds]
    rep = validate_document(data, str(path))
    assert rep.ok, rep.violations[:3]
    assert rep.rounds == sched.n_rounds and rep.workloads == sched.dag.n
    # the same verdict as the JSON form of the same schedule
    js = validate_document(json.loads(json.dumps(schedule_to_dict(sched))))
    assert js.ok and js.rounds == rep.rounds


def test_npz_catches_a_broken_schedule(tmp_path):
    sched = run_method("ps", topo("bcube:n=3,k=1"), ScheduleConfig())
    bad = type(sched)(sched.method, sched.dag, [sched.rounds[1], sched.rounds[0]] + list(sched.rounds[2:]),
                      sched.config)
    path = tmp_path / "bad.npz"
    write_schedule(bad, path, stats={"rounds": bad.n_rounds})
    rep = validate_document(read_schedule_file(path), str(path))
    assert not rep.ok and "prefix" in rep.by_rule()


def test_json_prefix_groups_are_checked():
    sched = run_method("ps", topo("example:fig3"), ScheduleConfig())
    doc = json.loads(json.dumps(schedule_to_dict(sched)))
    assert "prefix_groups" in doc and any("prefix_groups" in w for w in doc["workloads"])
    assert validate_document(doc).ok
    doc["prefix_groups"][0] = doc["prefix_groups"][0][:-1]  # a reduce hop into the root no longer awaited
    first_bc = next(w for w in doc["workloads"] if w.get("prefix_groups") == [0])
    doc["workloads"][first_bc["id"]]["prefix_groups"] = [7]  # and a group that does not exist
    rep = validate_document(doc)
    assert not rep.ok and any("prefix group 7" in v.message for v in rep.violations)


def test_columns_from_json_reports_bad_types():
    cols = columns_from_json([{"id": 0, "root": "x", "phase": "up", "path": [0, True], "prefix": ["a"]}], [[0, 1.5]])
    rules = [p[0] for p in cols.problems]
    assert rules.count("structure") == 3 and rules.count("path") == 1 and rules.count("unknown") == 1


def test_replay_of_groups_counts_each_member():
    dag = tree_dag(topo("dcell:n=3,k=1"), merge=False)
    rounds = list_schedule(dag, random_rank(dag, 0))
    eng, violations = replay(dag, rounds)
    assert not violations and eng.done


def test_cli_writes_validates_and_replays_npz(tmp_path, capsys):
    from core.cli import main

    out = tmp_path / "s.npz"
    assert main(["schedule", "dcell:n=3,k=1", "--method", "ps", "--out", str(out)]) == 0
    assert main(["validate", str(out)]) == 0
    assert "OK" in capsys.readouterr().out
    assert main(["replay", str(out)]) == 0
    assert "async" in capsys.readouterr().out
    out.write_bytes(out.read_bytes()[:200])  # a truncated archive: one line, exit 2, saying what to do
    capsys.readouterr()
    assert main(["validate", str(out)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "not a readable .npz archive" in line and line.endswith("write it again with allreduce-lab schedule ... --out")
    js = tmp_path / "s.json"
    assert main(["schedule", "dcell:n=3,k=1", "--method", "ps", "--out", str(js)]) == 0
    js.write_bytes(js.read_bytes()[:-300])
    capsys.readouterr()
    assert main(["replay", str(js)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert ": not JSON (" in line and line.endswith("write it again with allreduce-lab schedule ... --out")


# ---- the set-up of the list scheduler at scale (docs/scale.md, seventh step) ------------------------
@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 5000), seed=st.integers(0, 2 ** 63))
def test_seeded_permutation_is_numpys(n, seed):
    """The compiled shuffle, forced down to every size, gives numpy's own permutation value for value."""
    old = shuffle.FAST_MIN
    shuffle.FAST_MIN = 0
    try:
        got = shuffle.seeded_permutation(n, seed)
    finally:
        shuffle.FAST_MIN = old
    assert np.array_equal(got, np.random.default_rng(seed).permutation(n))


@pytest.mark.parametrize("n", [1 << 20, (1 << 20) + 1, 3_000_017, (1 << 22) + 5])
def test_seeded_permutation_at_scale(n):
    """From FAST_MIN up the compiled shuffle runs (int32), with numpy's values: sizes around the 2^20 and 2^22
    masks, a prime size, several seeds."""
    for seed in (0, 1, 12345):
        got = shuffle.seeded_permutation(n, seed)
        assert got.dtype == np.int32
        assert np.array_equal(got, np.random.default_rng(seed).permutation(n))


def test_seeded_permutation_from_a_buffered_half_draw():
    """A PCG64 state holding the high half of its last output (numpy serves it as the next 32-bit draw)."""
    bits = np.random.PCG64(7)
    bits.random_raw(3)
    state = bits.state
    state["has_uint32"], state["uinteger"] = 1, 0xDEADBEEF
    bits.state = state
    got = shuffle._shuffle(np.empty(4097, np.int32), shuffle.state_words(state))
    assert np.array_equal(got, np.random.Generator(bits).permutation(4097))


def class_heads(dag, place) -> tuple[Engine, ClassHeads]:
    engine = Engine(dag, columns=4)
    return engine, ClassHeads(dag.links, dag.topology.link_capacity, lambda: (place, engine._state))


@pytest.mark.parametrize("spec", ["bcube:n=3,k=1", "dcell:n=3,k=1", "fattree:k=4", "bcube:n=4,k=2"])
@pytest.mark.parametrize("kind", ["merged", "plain"])
@pytest.mark.parametrize("k", [1, 2])
def test_first_round_pushes_equal_one_by_one(spec, kind, k):
    """The first round's pushes appended and sorted per class (on two threads by class halves, or one) leave
    every window, class row, head and kept workload as `_round` pushing them one by one does."""
    t = with_caps(topo(spec), 3)
    dag = tree_dag(t) if kind == "merged" else tree_dag(t, merge=False)
    for place in (random_rank(dag, 5), priority_places(critical_path_rank(dag))):
        eng_a, a = class_heads(dag, place)
        eng_b, b = class_heads(dag, place)
        first = np.flatnonzero(eng_a.ready_mask())
        with threads(k):
            kept_a = a.next_round(first)  # the bulk path
        kept_b, b.n_heads = greedy._round(b.state, b.crow, b.width, b.cap, b.queue, b.heads, b.n_heads, b.new_heads,
                                          b.changed, first.astype(np.int64), b.room, b.pending, b.kept, b.extra,
                                          b.lused, b.place_bits)  # one push at a time
        b.heads, b.new_heads = b.new_heads, b.heads
        assert kept_a.tolist() == kept_b.tolist() and a.n_heads == b.n_heads
        assert np.array_equal(a.heads[: a.n_heads], b.heads[: b.n_heads])
        assert np.array_equal(a.crow, b.crow) and np.array_equal(a.changed, b.changed)
        lo, hi = a.width + 2, a.width + 3
        for c in range(len(a.crow)):
            assert np.array_equal(a.queue[a.crow[c, lo]:a.crow[c, hi]], b.queue[b.crow[c, lo]:b.crow[c, hi]])
        n_pend = int(np.argmax(a.pending < 0))
        assert np.array_equal(a.pending[: n_pend + 1], b.pending[: n_pend + 1])


@pytest.mark.parametrize("spec", ["bcube:n=4,k=2", "dcell:n=3,k=1"])
def test_list_schedule_with_the_compiled_draw(spec):
    """PS and greedy with the compiled draw (forced to every size) beside the route classes and the engine's
    rows, on one thread or two: the rounds of numpy's permutation given as the rank."""
    t = topo(spec)
    old = shuffle.FAST_MIN
    for dag in (tree_dag(t), tree_dag(t, merge=False)):
        want = [r.tolist() for r in list_schedule(dag, np.random.default_rng(4).permutation(dag.n))]
        for k in (1, 2):
            shuffle.FAST_MIN = 0
            try:
                with threads(k):
                    got = [r.tolist() for r in list_schedule(dag, lambda: random_rank(dag, 4))]
            finally:
                shuffle.FAST_MIN = old
            assert got == want


def builder_classes(dag) -> tuple[np.ndarray, np.ndarray]:
    """The route classes a plain DAG hands over (`PlainClasses`), as `_class_ids` returns them: each workload's
    (written into a state column), each class's links; the sizes it counts are checked on the way."""
    source = dag.take_route_classes()
    hop_class, clinks = source.find()
    state = np.full((dag.n, 4), -7, np.int32)
    size = source.write(dag, hop_class, state, 3, len(clinks))
    assert np.all(state[:, :3] == -7)  # the other columns untouched
    cls = state[:, 3].copy()
    assert np.array_equal(size, np.bincount(cls, minlength=len(clinks)))
    return cls, clinks


def hashed_classes(dag) -> tuple[np.ndarray, np.ndarray]:
    """The route classes as the list scheduler finds them when a DAG comes without them: by hashing the links."""
    width = max(1, int(dag.links.lengths.max()))
    return greedy._class_ids(dag.links.ptr, dag.links.values, width, len(dag.topology.link_capacity))


@pytest.mark.parametrize("spec", SPECS + ["bcube:n=4,k=2", "dcell:n=4,k=1", "dcell:n=3,k=2", "fattree:k=6"])
@pytest.mark.parametrize("mode", ["shortest", "balanced", "bandwidth"])
def test_plain_builder_finds_the_hashed_route_classes(spec, mode):
    """The plain PS DAG's classes, found once per hop, are the hashed ones: same class of every workload
    (numbered alike, by first appearance in id order) and the same links of every class; handed over once."""
    t = topo(spec)
    dag = tree_dag(t, merge=False, routes=compute_routes(t, mode))
    cls, clinks = builder_classes(dag)
    want_cls, want_links = hashed_classes(dag)
    assert cls.dtype == want_cls.dtype and np.array_equal(cls, want_cls)
    assert clinks.dtype == want_links.dtype and np.array_equal(clinks, want_links)
    assert dag.take_route_classes() is None


def some_links_failed(t, fail: int):
    """`t` with the links whose bit is set in `fail` (link e reads bit e % 16) failed, or `t` itself where that
    would disconnect its servers: the hypothesis tests' failed graphs."""
    from core.topology import DisconnectedError, degrade
    mask = np.array([(fail >> (e % 16)) & 1 for e in range(t.n_edges)], bool)
    try:
        return degrade(t, mask)
    except DisconnectedError:
        return t


@settings(max_examples=40, deadline=None)
@given(t=random_topologies(max_nodes=9, capacities=True), fail=st.integers(0, 2 ** 16))
def test_plain_builder_route_classes_on_random_and_failed_graphs(t, fail):
    """On random graphs, with some links failed where the servers stay connected (routes around them: hops of
    several switches, classes of one tree reused by others)."""
    t = some_links_failed(t, fail)
    dag = tree_dag(t, merge=False)
    cls, clinks = builder_classes(dag)
    want_cls, want_links = hashed_classes(dag)
    assert np.array_equal(cls, want_cls) and np.array_equal(clinks, want_links)


def test_only_the_plain_dag_of_one_chunk_comes_with_classes():
    t = topo("bcube:n=3,k=1")
    assert tree_dag(t).take_route_classes() is None
    assert tree_dag(t, merge=False, chunks=2).take_route_classes() is None
    assert ring_dag(t).take_route_classes() is None


@pytest.mark.parametrize("k", [1, 2])
def test_list_schedule_takes_the_builders_classes(k, monkeypatch):
    """PS on a fresh plain DAG hashes nothing and skips the permutation check of its seeded draw (drawn beside
    the engine's rows); its rounds are the one-by-one list scheduler's, and a second schedule of the same DAG
    (its classes taken) hashes them and gives the same rounds."""
    t = with_caps(topo("bcube:n=4,k=2"), 1)
    calls = {"hash": 0, "check": 0}
    hashing, checking = greedy._class_ids, engine_module._is_permutation

    def counted(name, f):
        def g(*a):
            calls[name] += 1
            return f(*a)
        return g
    monkeypatch.setattr(greedy, "_class_ids", counted("hash", hashing))
    monkeypatch.setattr(engine_module, "_is_permutation", counted("check", checking))
    dag = tree_dag(t, merge=False)
    with threads(k):
        first = [r.tolist() for r in run_method("ps", t, ScheduleConfig(seed=3)).rounds]
    assert calls == {"hash": 0, "check": 0}
    assert first == reference_list_schedule(dag, random_rank(dag, 3))
    dag.take_route_classes()
    with threads(k):
        again = [r.tolist() for r in list_schedule(dag, random_rank(dag, 3))]
    assert calls == {"hash": 1, "check": 1} and again == first


# ---- the plain PS DAG's successors, implied by its chains (docs/scale.md, eleventh step) -------------------
CHAIN_SPECS = SPECS + ["bcube:n=4,k=2", "dcell:n=3,k=2", "fattree:k=6"]


def released_both_ways(dag, rounds) -> tuple[list[list[int]], list[list[int]]]:
    """Apply `rounds` (each as the replay does: what is valid of it) to an engine on `dag`, which releases from
    the chains, and to one on the same DAG without them (`_replace`: the successors' CSR, a transpose of deps);
    the workloads each freed, round by round, after checking the two engines' waits and rounds agree."""
    csr_dag = dag._replace()
    assert dag.chains is not None and csr_dag.chains is None
    a, b = Engine(dag), Engine(csr_dag)
    assert a._chains is not None and b._chains is None
    got, want = [], []
    for ids in rounds:
        ids = np.asarray(ids, dtype=np.int64)
        ids = np.unique(ids[(ids >= 0) & (ids < dag.n)])
        ids = ids[a.sent_round[ids] < 0]
        a._commit(ids)
        b._commit(ids)
        got.append(a.last_freed.tolist())
        want.append(b.last_freed.tolist())
        assert np.array_equal(a._waiting, b._waiting) and np.array_equal(a.sent_round, b.sent_round)
    return got, want


def check_chains(dag, seed: int) -> None:
    """The implied release frees what the CSR's does, in the same order, on a list schedule and on broken
    forms of it (out of order, repeated, dropped: the replay's paths); the successors written from the chains
    equal deps' transpose, dtypes included; replay and the in-order check say what they say without chains."""
    rng = np.random.default_rng(seed)
    rounds = [r.tolist() for r in list_schedule(dag, random_rank(dag, seed))]
    for how in ["none", "move-earlier", "move-later", "duplicate", "drop", "swap", "merge-rounds"]:
        broken = mutate(rounds, how, rng, dag.n)
        got, want = released_both_ways(dag, broken)
        assert got == want
        mine, theirs = replay(dag, broken), replay(dag._replace(), broken)
        assert mine[1] == theirs[1] and np.array_equal(mine[0].sent_round, theirs[0].sent_round)
        assert mine[0].last_freed.tolist() == theirs[0].last_freed.tolist()
    if len(rounds) > 1:
        # everything sent at once: each group completes within the round, with its waiters
        got, want = released_both_ways(dag, [np.arange(dag.n)])
        assert got == want
    s, t = dag.successors, dag.deps.transpose(dag.n + dag.n_groups)
    assert s.ptr.dtype == dag.deps.ptr.dtype and s.values.dtype == t.values.dtype
    assert np.array_equal(s.ptr, t.ptr) and np.array_equal(s.values, t.values)


@pytest.mark.parametrize("spec", CHAIN_SPECS)
def test_implied_release_equals_the_csr_release(spec):
    t = with_caps(topo(spec), 5)
    for seed in range(3):
        check_chains(tree_dag(t, merge=False), seed)


@settings(max_examples=40, deadline=None)
@given(t=random_topologies(max_nodes=9, capacities=True), fail=st.integers(0, 2 ** 16), seed=st.integers(0, 1000))
def test_implied_release_on_random_and_failed_graphs(t, fail, seed):
    t = some_links_failed(t, fail)
    check_chains(tree_dag(t, merge=False), seed)


def test_only_the_plain_dag_of_one_chunk_has_chains():
    """Every other DAG (merged, chunks > 1, ring, a replaced or reversed one, a schedule file read back) releases
    from the successors' CSR as before."""
    t = topo("bcube:n=3,k=1")
    plain = tree_dag(t, merge=False)
    assert plain.chains is not None and Engine(plain)._chains is not None
    others = [tree_dag(t), tree_dag(t, merge=False, chunks=2), ring_dag(t), plain._replace(), plain.reverse(),
              plain.explicit()]
    assert all(d.chains is None and Engine(d)._chains is None for d in others)


def test_plain_schedule_file_replays_and_times_as_before(tmp_path):
    """A plain PS schedule: its file read back (no chains) validates, and the time replay of the DAG with chains
    (which builds no successors) equals the one of the DAG without."""
    from core.timing import replay_modes
    t = topo("bcube:n=4,k=2")
    sched = run_method("ps", t, ScheduleConfig(seed=2))
    assert sched.dag.chains is not None
    path = tmp_path / "ps.npz"
    write_schedule(sched, str(path))
    assert validate_document(read_schedule_file(str(path)), str(path)).ok
    mine, theirs = replay_modes(sched.dag, sched.rounds), replay_modes(sched.dag._replace(), sched.rounds)
    assert {k: v.time for k, v in mine.items()} == {k: v.time for k, v in theirs.items()}
    assert "successors" not in sched.dag.__dict__


# ---- the report without the successors (docs/scale.md, thirteenth step) -----------------------------------
def old_async_starts(plan: ReplayPlan, dur: np.ndarray) -> tuple[np.ndarray, int, int]:
    """The async pass as it was before the thirteenth step, in Python: a group's finish raised by each member as
    it is replayed, found through the successors (deps' transpose). (start, offending workload, what it waited
    for), as `_async_pass` returns them."""
    dag = plan.dag
    n, d, lk = dag.n, dag.deps, dag.links
    s = d.transpose(n + dag.n_groups)
    cap = dag.topology.link_capacity.astype(np.int64)
    lane0 = np.r_[0, np.cumsum(cap)].astype(np.int64)
    g = dag.groups
    g_round = np.full(g.n_rows, -1, np.int64)
    for i in range(g.n_rows):
        if len(g.row(i)):
            g_round[i] = plan.round_of[g.row(i)].max()
    start, finish = np.zeros(n), np.zeros(n)
    g_finish = np.zeros(g.n_rows)
    lane_finish, lane_round = np.zeros(lane0[-1]), np.full(lane0[-1], -1, np.int64)
    used = np.zeros(len(cap), np.int64)
    for w in plan.order.tolist():
        r, t = plan.round_of[w], 0.0
        for p in d.row(w).tolist():
            if p < n:
                if plan.round_of[p] >= r:
                    return start, w, p
                t = max(t, finish[p])
            else:
                if g_round[p - n] >= r:
                    return start, w, -1
                t = max(t, g_finish[p - n])
        for link in lk.row(w).tolist():
            slot = lane0[link] + used[link] % cap[link]
            if lane_round[slot] >= r and used[link] >= cap[link]:
                return start, w, -1
            t = max(t, lane_finish[slot])
        start[w] = t
        finish[w] = f = t + dur[w]
        for link in lk.row(w).tolist():
            slot = lane0[link] + used[link] % cap[link]
            lane_finish[slot], lane_round[slot] = f, r
            used[link] += 1
        for x in s.row(w).tolist():
            if x >= n:
                g_finish[x - n] = max(g_finish[x - n], f)
    return start, -1, -1


def async_starts(plan: ReplayPlan, dur: np.ndarray) -> tuple[np.ndarray, int, int]:
    """`_async_pass` as `ReplayPlan._async` calls it: (start, offending workload or -1, what it waited for or -1)."""
    import sys
    dag = plan.dag
    g = dag.groups
    g_round = np.full(g.n_rows, -1, np.int64)
    full = g.lengths > 0
    if full.any():
        g_round[full] = np.maximum.reduceat(plan.round_of[g.values], g.ptr[:-1][full])
    lane0 = np.r_[0, np.cumsum(dag.topology.link_capacity.astype(np.int64))].astype(np.int64)
    args = (plan.order, plan.round_of, dur, dag.deps.ptr, dag.deps.values, dag.links.ptr, dag.links.values, lane0,
            g_round, dag.n)
    kernel = sys.modules["core.timing.replay"]._async_pass
    start, finish = np.zeros(dag.n), np.zeros(dag.n)
    latest, bad, other = kernel(*args, start, finish)
    # the interpreted body gives the same, and raises where compiled code would read out of range (numba checks no
    # bounds). It did not catch an inner loop that reused `m`, the prefetch's bound: on these DAGs deps has no more
    # entries than workloads, so the reused `m` only stopped the prefetching early
    py_start, py_finish = np.zeros(dag.n), np.zeros(dag.n)
    py_latest, py_bad, py_other = kernel.py_func(*args, py_start, py_finish)
    assert (int(py_bad), int(py_other), py_latest) == (int(bad), int(other), latest)
    assert np.array_equal(py_start, start) and np.array_equal(py_finish, finish)
    # without the starts (the report's call): the same finishes and latest finish, no start written
    none = np.zeros(0)
    assert kernel(*args, none, lean := np.zeros(dag.n))[:3] == (latest, bad, other) and np.array_equal(lean, finish)
    if dag.chains is not None:  # the pass along the chains' marks: the same in everything, compiled and interpreted
        chains = sys.modules["core.timing.replay"]._async_chains
        c_args = (plan.order, plan.round_ptr, dur, dag.chains.marks, dag.tree, g.ptr, g.values, dag.links.ptr,
                  dag.links.values, lane0, g_round)
        for run in (chains, chains.py_func):
            for keep in (True, False):  # the caller's finish holds anything: the pass sets it first
                c_start, c_finish = np.zeros(dag.n if keep else 0), np.full(dag.n, 5.0)
                got = run(*c_args, c_start, c_finish)
                assert (float(got[0]), int(got[1]), int(got[2])) == (latest, int(bad), int(other))
                # a broken order stops the pass: what it wrote before the offending workload is the same (the rest
                # of `finish` holds the -1 it was set to)
                done = plan.order[:int(np.flatnonzero(plan.order == bad)[0])] if bad >= 0 else plan.order
                assert np.array_equal(c_finish[done], finish[done]) and (bad >= 0 or np.array_equal(c_finish, finish))
                assert not keep or np.array_equal(c_start[done], start[done])
    if bad < 0:  # and the plan's own call gives the same starts and finishes, the latest the largest of them
        got = plan._async(dur)
        assert np.array_equal(got[0], start) and np.array_equal(got[1], start + dur) and np.array_equal(got[1], finish)
        assert latest == (finish.max() if dag.n else 0.0)
    return start, int(bad), int(other)


def check_report_paths(dag, seed: int) -> None:
    """On a plain DAG with chains: head, tail and the longest chains (both ways, one weighting and three, zeros
    among the weights) along the chains equal those over a topological order of the same DAG without chains
    (`_replace`), dtypes included, and neither the successors nor the order is built; the async replay, whose
    groups' finishes come from their rows of deps, gives the starts the old pass gave through the successors on
    a list schedule and on broken orders of it (the same workload named where the order is broken)."""
    rng = np.random.default_rng(seed)
    csr_dag = dag._replace()
    for name in ("head", "tail"):
        got, want = getattr(dag, name), getattr(csr_dag, name)
        assert got.dtype == want.dtype and np.array_equal(got, want)
    for shape in [(dag.n,), (dag.n, 1), (dag.n, 3)]:
        weight = rng.random(shape) * (rng.random(shape) < 0.8)
        for forward in (False, True):
            got, want = dag.longest_chain(weight, forward=forward), csr_dag.longest_chain(weight, forward=forward)
            assert got.shape == want.shape and got.dtype == want.dtype and np.array_equal(got, want)
    assert "successors" not in dag.__dict__ and "topo_order" not in dag.__dict__
    check_async(dag, rng)
    assert "successors" not in dag.__dict__


def check_async(dag, rng: np.random.Generator) -> None:
    """The async replay from the groups' rows equals the old pass through the successors (`old_async_starts`) on
    a list schedule of `dag` and on broken orders of it."""
    rounds = [r.tolist() for r in list_schedule(dag, random_rank(dag, int(rng.integers(1000))))]
    for how in ["none", "move-earlier", "move-later", "swap", "merge-rounds", "swap"]:
        plan = ReplayPlan(dag, mutate(rounds, how, rng, dag.n))
        dur = rng.random(dag.n) * (rng.random(dag.n) < 0.9)
        start, bad, other = async_starts(plan, dur)
        want, want_bad, want_other = old_async_starts(plan, dur)
        assert (bad, other) == (want_bad, want_other) and np.array_equal(start, want)


@pytest.mark.parametrize("spec", CHAIN_SPECS)
def test_report_along_the_chains_equals_the_csr_report(spec):
    t = with_caps(topo(spec), 7)
    for seed in range(2):
        check_report_paths(tree_dag(t, merge=False), seed)


@settings(max_examples=40, deadline=None)
@given(t=random_topologies(max_nodes=9, capacities=True), fail=st.integers(0, 2 ** 16), seed=st.integers(0, 1000))
def test_report_along_the_chains_on_random_and_failed_graphs(t, fail, seed):
    t = some_links_failed(t, fail)
    check_report_paths(tree_dag(t, merge=False), seed)


@pytest.mark.parametrize("spec", ["example:fig3", "bcube:n=3,k=1", "dcell:n=3,k=1", "fattree:k=4"])
@pytest.mark.parametrize("kind", ["merged", "plain-2", "ring", "explicit"])
def test_async_replay_without_successors_on_every_dag_kind(spec, kind):
    """The async pass changed for every DAG (groups or none): merged trees, plain trees of two chunks (groups, no
    chains), the ring, a plain DAG with its groups expanded."""
    t = with_caps(topo(spec), 3)
    dag = {"merged": lambda: tree_dag(t), "plain-2": lambda: tree_dag(t, merge=False, chunks=2),
           "ring": lambda: ring_dag(t), "explicit": lambda: tree_dag(t, merge=False).explicit()}[kind]()
    assert dag.chains is None
    check_async(dag, np.random.default_rng(11))


@pytest.mark.parametrize("m", [0, 1, 7, 5000, 300_000])
def test_round_maxima_equal_numpys_reduceat(m):
    """The replay's per-round maxima (`_round_max`, no gathered copy) equal ``np.maximum.reduceat`` over the
    non-empty rounds of the gathered values, empty rounds 0 and a NaN winning its round; small inputs run the
    Python body, large ones the compiled kernel."""
    import sys
    round_max = sys.modules["core.timing.replay"]._round_max
    rng = np.random.default_rng(m)
    values = rng.random(m) * 10
    values[rng.random(m) < 0.01] = np.nan
    order = rng.permutation(m)
    lens = rng.integers(0, 5, size=max(1, m // 2))
    lens[-1] += m - lens.sum() if lens.sum() < m else 0
    while lens.sum() > m:
        lens[int(np.flatnonzero(lens)[-1])] -= 1
    ptr = np.r_[0, np.cumsum(lens)]
    want = np.zeros(len(lens))
    nonempty = ptr[:-1] < ptr[1:]
    if nonempty.any():
        want[nonempty] = np.maximum.reduceat(values[order], ptr[:-1][nonempty])
    got = round_max(order, ptr, values)
    assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True)


def loop_link_schedule_bound(dag) -> int:
    """`bounds.link_schedule_bound` as it was before the thirteenth step: a Python loop over the links by load,
    each link's workloads gathered by numpy and Jackson's rule on them (`_corelib.jackson`, core's `bounds._jackson` before)."""
    cap = dag.topology.link_capacity
    by_link = dag.links.transpose(dag.topology.n_links)
    head, tail = dag.head, dag.tail - 1
    loads = by_link.lengths
    best = 0
    for g in np.argsort(-loads).tolist():
        if loads[g] == 0:
            break
        ws = by_link.row(g)
        c = int(cap[g])
        simple = int(head[ws].min() + -(-len(ws) // c) + tail[ws].min())
        upper = int(head[ws].max() + -(-len(ws) // c) + tail[ws].max())
        if upper <= best:
            continue
        best = max(best, simple, jackson(head[ws], tail[ws], c))
    return best


@settings(max_examples=60, deadline=None)
@given(t=random_topologies(max_nodes=9, capacities=True), fail=st.integers(0, 2 ** 16),
       kind=st.sampled_from(["merged", "plain", "plain-2", "ring", "explicit"]))
def test_compiled_link_schedule_bound_equals_the_loop(t, fail, kind):
    """The link-schedule bound in one compiled pass equals the per-link loop's on random graphs with failed links
    and random capacities, for every DAG kind (plain: head and tail along the chains)."""
    from core.bounds import link_schedule_bound
    t = some_links_failed(t, fail)
    dag = {"merged": lambda: tree_dag(t), "plain": lambda: tree_dag(t, merge=False),
           "plain-2": lambda: tree_dag(t, merge=False, chunks=2), "ring": lambda: ring_dag(t),
           "explicit": lambda: tree_dag(t, merge=False).explicit()}[kind]()
    want = loop_link_schedule_bound(dag)
    assert link_schedule_bound(dag) == want
    with heap_only():
        assert link_schedule_bound(dag) == want
    for budget in (1, 7, 40):  # some links counted, the rest on the heap (after them, only where they could beat them)
        with heap_only(cells=budget):
            assert link_schedule_bound(dag) == want


def one_link_reference(dag, g: int) -> int:
    """Link g's own one-link bound, as `loop_link_schedule_bound` computes it for each link."""
    ws = dag.links.transpose(dag.topology.n_links).row(g)
    head, tail, c = dag.head, dag.tail - 1, int(dag.topology.link_capacity[g])
    return max(int(head[ws].min() + -(-len(ws) // c) + tail[ws].min()), jackson(head[ws], tail[ws], c))


@settings(max_examples=60, deadline=None)
@given(t=random_topologies(max_nodes=9, capacities=True), fail=st.integers(0, 2 ** 16),
       kind=st.sampled_from(["merged", "plain", "ring"]))
def test_the_named_link_of_the_link_schedule_bound_reaches_it(t, fail, kind):
    """Trial 32: "link schedule 5" named no link. `link_schedule_link` names the heaviest link whose own one-link
    bound (the per-link loop's reference) reaches the DAG's bound, and none for a bound one above it."""
    from core.bounds import link_schedule_bound, link_schedule_link
    t = some_links_failed(t, fail)
    dag = {"merged": lambda: tree_dag(t), "plain": lambda: tree_dag(t, merge=False), "ring": lambda: ring_dag(t)}[kind]()
    bound = link_schedule_bound(dag)
    g = link_schedule_link(dag, bound)
    if dag.n == 0:
        assert g is None
        return
    assert g is not None and one_link_reference(dag, g) == bound
    loads = dag.link_load  # the heaviest of the links that reach it
    assert all(loads[h] <= loads[g] for h in range(t.n_links) if loads[h] and one_link_reference(dag, h) >= bound)
    assert link_schedule_link(dag, bound + 1) is None  # nothing reaches above the bound


def test_fig3s_link_schedule_bound_is_named_on_the_cli_and_the_page():
    """By hand (docs/model.md §9): A->B carries the first hops of trees C and D, both released in round 1, each
    starting a chain of 4, so one ends in round 5 at the earliest."""
    import contextlib
    import io

    from core import cli
    from core.bounds import schedule_link_name
    from core.methods import run_method
    from core.topology import make_topology
    s = run_method("critical-path", make_topology("example:fig3"))
    assert schedule_link_name(s.dag, s.stats()["bounds"]) == "A->B"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["schedule", "example:fig3"]) == 0
    lines = out.getvalue().splitlines()
    at = lines.index("    closed-form bounds: link load 4, critical path 4, ports 3, link schedule 5")
    assert lines[at + 1] == ("    link schedule 5: link A->B, whose workloads wait on chains before it and start "
                             "chains after it")
    bcube = run_method("critical-path", make_topology("bcube:n=2,k=1"))  # link schedule 4 = link load: not named
    assert schedule_link_name(bcube.dag, bcube.stats()["bounds"]) is None


@contextlib.contextmanager
def heap_only(cells: int = 0):
    """`link_schedule_bound` with Jackson's rule over the heap for every link beyond the first `cells` (release,
    tail) cells counted (the links of the largest loads first); 0: over the heap only, never over counts."""
    from core import bounds
    old = bounds.HISTOGRAM_CELLS, bounds.CELL_BUDGET
    if cells:
        bounds.CELL_BUDGET = cells
    else:
        bounds.HISTOGRAM_CELLS = 0
    try:
        yield
    finally:
        bounds.HISTOGRAM_CELLS, bounds.CELL_BUDGET = old


@pytest.mark.parametrize("spec", CHAIN_SPECS)
@pytest.mark.parametrize("kind", ["merged", "plain", "ring"])
def test_compiled_link_schedule_bound_on_the_families(spec, kind):
    from core.bounds import link_schedule_bound
    t = with_caps(topo(spec), 2)
    dag = {"merged": lambda: tree_dag(t), "plain": lambda: tree_dag(t, merge=False), "ring": lambda: ring_dag(t)}[kind]()
    want = loop_link_schedule_bound(dag)
    assert link_schedule_bound(dag) == want
    with heap_only():
        assert link_schedule_bound(dag) == want
    for budget in (1, 7, 40):
        with heap_only(cells=budget):
            assert link_schedule_bound(dag) == want


@settings(max_examples=300, deadline=None)
@given(jobs=st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), min_size=1, max_size=120),
       cap=st.integers(1, 4), shift=st.integers(0, 3))
def test_jackson_over_counts_equals_the_heap(jobs, cap, shift):
    """Jackson's rule over the counts of (release, tail) pairs gives the heap's value, on job sets whose releases
    leave gaps (idle rounds) and whose tails are uneven (so that it exceeds the simple bound)."""
    from core.bounds import _jackson_counts
    rel = np.array([r * (shift + 1) for r, _ in jobs], np.int64)
    tl = np.array([t for _, t in jobs], np.int64)
    cells = np.zeros((rel.max() - rel.min() + 1, tl.max() - tl.min() + 1), np.int64)
    np.add.at(cells, (rel - rel.min(), tl - tl.min()), 1)
    assert _jackson_counts(cells, int(rel.min()), int(tl.min()), cap) == jackson(rel, tl, cap)


@settings(max_examples=300, deadline=None)
@given(links=st.lists(st.lists(st.tuples(st.integers(0, 5), st.integers(1, 6)), max_size=25), min_size=1, max_size=6),
       caps=st.lists(st.integers(1, 3), min_size=6, max_size=6), max_cells=st.sampled_from([0, 4096]))
def test_link_schedule_pass_is_the_largest_links_bound(links, caps, max_cells):
    """`_link_schedule` (links by load, a link skipped when even its upper bound cannot beat the best so far) gives
    the largest over every link of its simple bound and Jackson's rule, with counts or with the heap; links whose
    jobs are all alike make the skip's equality cases."""
    from core.bounds import _link_schedule
    jobs = [j for row in links for j in row]
    head = np.array([h for h, _ in jobs], np.int32)
    tail = np.array([t for _, t in jobs], np.int32)
    lens = np.array([len(row) for row in links], np.int64)
    ptr = np.r_[0, np.cumsum(lens)].astype(np.int64)
    val = np.arange(len(jobs), dtype=np.int32)
    cap = np.array(caps[:len(links)], np.int64)
    want = 0
    for g in range(len(links)):
        ws = val[ptr[g]:ptr[g + 1]]
        if len(ws):
            simple = int(head[ws].min() + -(-len(ws) // cap[g]) + tail[ws].min() - 1)
            want = max(want, simple, jackson(head[ws], tail[ws] - 1, int(cap[g])))
    assert _link_schedule(np.argsort(-lens), ptr, val, head, tail, cap, max_cells, 0) == want
    assert _link_schedule(np.argsort(-lens), ptr, val, head, tail, cap, max_cells, want) == want
    # the two passes over the workloads' links (each job crosses its own link here), counted where the cells fit
    # within the budget, the heap after them
    from core import bounds
    links = csr.CSR(np.arange(len(jobs) + 1, dtype=np.int64), np.repeat(np.arange(len(links)), lens).astype(np.int32))
    old = bounds.HISTOGRAM_CELLS, bounds.CELL_BUDGET
    try:
        for bounds.HISTOGRAM_CELLS, bounds.CELL_BUDGET in [(max_cells, 1 << 24), (max_cells, 5), (4096, 1 << 24)]:
            assert bounds.one_link_bound(links, head, tail, cap) == want
    finally:
        bounds.HISTOGRAM_CELLS, bounds.CELL_BUDGET = old


def old_plan_rounds(dag, rounds) -> tuple[np.ndarray, np.ndarray, np.ndarray] | str:
    """`ReplayPlan`'s order, round pointers and rounds of the workloads as computed before the thirteenth step (a
    count of every id, a scatter of the repeated round numbers), or its error message."""
    n = dag.n
    lens = np.array([len(r) for r in rounds], dtype=np.int64)
    every = np.concatenate([np.asarray(r, dtype=np.int64) for r in rounds]) if len(rounds) else np.zeros(0, np.int64)
    ok = len(every) == n and (not len(every) or (every.min() >= 0 and every.max() < n))
    if ok and n:
        ok = bool(np.all(np.bincount(every, minlength=n) == 1))
    if not ok:
        inside = every[(every >= 0) & (every < n)]
        return (f"the rounds must send each of the DAG's {n} workloads exactly once "
                f"(got {len(every)} entries, {len(np.unique(inside))} distinct)")
    order = np.concatenate([np.sort(np.asarray(r, dtype=np.int64)) for r in rounds]) if len(rounds) else every
    round_of = np.empty(n, np.int64)
    round_of[order] = np.repeat(np.arange(len(rounds)), lens)
    return order, np.r_[0, np.cumsum(lens)], round_of


@pytest.mark.parametrize("form", ["list", "int32"])
@pytest.mark.parametrize("spec", ["example:fig3", "bcube:n=3,k=1", "dcell:n=3,k=2"])
@pytest.mark.parametrize("how", MUTATIONS + ["unsorted", "one-swap", "repeat-last", "repeat-inside"])
def test_replay_plan_rounds_equal_the_counted_ones(spec, how, form):
    """The replay plan's rounds of the workloads (one compiled pass that stops at an id seen twice) equal those of
    the count of every id, and a schedule that repeats, drops or invents a workload is refused with the same
    message; rounds as lists or as the engine's int32 arrays, ascending (kept as they are), reversed or with one
    pair out of order (sorted)."""
    dag = tree_dag(topo(spec), merge=False)
    rng = np.random.default_rng(5)
    rounds = mutate([r.tolist() for r in list_schedule(dag, random_rank(dag, 5))], how, rng, dag.n)
    if how == "unsorted":
        rounds = [list(reversed(r)) for r in rounds]
    elif how == "one-swap":  # a round ascending but for one adjacent pair
        for r in rounds:
            if len(r) > 2:
                r[1], r[2] = r[2], r[1]
    elif how == "repeat-last":  # n entries, one of them twice and one workload missing
        rounds[-1][-1] = rounds[0][0]
    elif how == "repeat-inside":  # a round holding one workload twice, side by side
        r = next(r for r in rounds if len(r) > 1)
        r[1] = r[0]
    if form == "int32":
        rounds = [np.asarray(r, np.int32) for r in rounds]
    want = old_plan_rounds(dag, rounds)
    if isinstance(want, str):
        with pytest.raises(ValueError) as e:
            ReplayPlan(dag, rounds)
        assert str(e.value) == want
    else:
        plan = ReplayPlan(dag, rounds)
        assert np.array_equal(plan.order, want[0]) and np.array_equal(plan.round_ptr, want[1])
        assert np.array_equal(plan.round_of, want[2]) and plan.round_of.dtype == plan.order.dtype
