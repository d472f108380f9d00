"""The registry's in-order check with its per-round pass streamed beside the round loop (`engine.RoundMarks`,
docs/scale.md, sixth step): the same verdicts and messages as the in-order check run afterwards, on one
thread (nothing streamed) and on two, and no worker thread outlives `Engine.run`."""

from __future__ import annotations

import pickle
import threading

import numpy as np
import pytest

from core import engine as engine_mod
from core import greedy
from core.engine import Engine, MarkedRounds, RoundMarks, list_schedule, replay, rounds_valid, sorted_rounds
from core.methods import InvalidSchedule, check_rounds, run_method
from core.priorities import random_rank
from core.workloads import tree_dag

from _corelib import topo
from test_core_scale import threads

WORKER = "allreduce-lab-marks"


def workers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == WORKER]


def recorded(dag, rounds: list[list[int]], k: int) -> list[np.ndarray]:
    """`rounds` as an engine's streamed `run` records them (k = 2: the check's pass on a worker thread, down to
    the smallest DAGs; k = 1: nothing streamed); a schedule that never sends everything stops after them."""
    it = iter(rounds)
    with threads(k):
        eng = Engine(dag).run(lambda e: np.asarray(next(it, []), np.int64), max_rounds=len(rounds), truncate=True,
                              check=False)
    assert not workers()
    return eng.rounds


def message(dag, rounds) -> str | None:
    try:
        check_rounds(dag, rounds)
    except InvalidSchedule as e:
        return str(e)
    return None


@pytest.fixture(scope="module")
def case():
    """A plain PS DAG (with prefix groups) and a valid schedule of it."""
    dag = tree_dag(topo("dcell:n=3,k=1"), merge=False)
    return dag, [r.tolist() for r in list_schedule(dag, random_rank(dag, 0))]


def broken(dag, rounds: list[list[int]], how: str) -> list[list[int]]:
    """A copy of the valid `rounds` with one rule broken (the workloads still add up to n, except `missing`)."""
    rounds = [list(r) for r in rounds]
    at = {w: r for r, ids in enumerate(rounds) for w in ids}
    if how == "over-capacity":
        # the list scheduler is maximal: a workload ready a round before it was sent was refused for a full
        # link, so sending it then overloads that link (its prefixes went two rounds before or earlier)
        w = next(w for w in range(dag.n) if at[w] >= 2 and all(at[p] <= at[w] - 2 for p in dag.prefix_of(w)))
        rounds[at[w]].remove(w)
        rounds[at[w] - 1].append(w)
    elif how == "over-capacity-last":  # in the last round, every id of which is marked: only the verdict says so
        last = {int(x) for w in rounds[-1] for x in dag.links.row(w)}
        w = next(w for w in range(dag.n) if at[w] < len(rounds) - 1 and not len(dag.successors.row(w))
                 and last & set(dag.links.row(w).tolist()))
        rounds[at[w]].remove(w)
        rounds[-1].append(w)
    elif how == "repeated":  # sent twice, so one other is never sent
        rounds[-1][-1] = rounds[0][0]
    elif how == "missing":
        rounds[-1].pop()
    elif how == "prefix-late":  # a prefix moved to the last round, after the workloads that wait for it
        p = next(p for p in range(dag.n) if any(at[w] < len(rounds) - 1 for w in dag.successors.row(p) if w < dag.n))
        rounds[at[p]].remove(p)
        rounds[-1].append(p)
    return rounds


RULES = {"over-capacity": "over its capacity", "over-capacity-last": "over its capacity", "repeated": "was already sent", "missing": "is never sent",
         "prefix-late": "waits for prefix"}


@pytest.mark.parametrize("batch", [1, RoundMarks.BATCH])
@pytest.mark.parametrize("how", ["valid"] + list(RULES))
def test_streamed_check_judges_like_the_in_order_check(case, how, batch, monkeypatch):
    """Every round its own batch (the rounds after a broken one are marked too, unless the pass stops there),
    or all of them at once."""
    dag, good = case
    monkeypatch.setattr(RoundMarks, "BATCH", batch)
    rounds = good if how == "valid" else broken(dag, good, how)
    want = replay(dag, rounds)[1]
    streamed = recorded(dag, rounds, 2)
    assert isinstance(streamed, MarkedRounds)  # the check's pass ran beside the round loop
    serial = recorded(dag, rounds, 1)
    assert type(serial) is list  # one thread: nothing streamed, as before
    assert [r.tolist() for r in streamed] == [r.tolist() for r in serial]
    assert streamed.marks._sent is not None  # noqa: SLF001 - its result, not yet handed over
    verdicts = {}
    for name, rs, k in (("streamed", streamed, 2), ("serial", serial, 1), ("halves", [list(r) for r in rounds], 2)):
        with threads(k):
            verdicts[name] = rounds_valid(dag, rs), message(dag, rs)
    assert streamed.marks.take(dag, streamed) is None  # the streamed pass was used (handed over once)
    assert verdicts["streamed"] == verdicts["serial"] == verdicts["halves"]
    assert verdicts["streamed"][0] is (not want)
    if how == "valid":
        assert verdicts["streamed"][1] is None
    else:  # the replay names the first broken rule, the one made here
        assert verdicts["streamed"][1].endswith(want[0].message + (f" (and {len(want) - 1} more)" if len(want) > 1 else ""))
        assert RULES[how] in want[0].message


def test_marks_are_used_only_for_the_arrays_they_marked(case):
    """A round replaced after the run (or a round made writable, or another DAG) is checked afresh."""
    dag, good = case
    streamed = recorded(dag, good, 2)
    bad = MarkedRounds(list(streamed), streamed.marks)
    bad[-1] = np.r_[streamed[-1], streamed[0][:1]]  # sent twice: the marks said valid
    bad[-1].setflags(write=False)
    assert rounds_valid(dag, bad) is False and streamed.marks.take(dag, streamed) is not None
    again = recorded(dag, good, 2)
    again[0].setflags(write=True)  # owned by the engine's copy: a writable round may have changed
    assert again.marks.take(dag, again) is None
    again[0].setflags(write=False)
    other = tree_dag(topo("dcell:n=3,k=1"), merge=False)
    assert again.marks.take(other, again) is None and again.marks.take(dag, again) is not None


def test_unknown_ids_and_rounds_fed_directly():
    """`RoundMarks` over rounds fed by hand: an id that does not exist, and one sent twice in one round."""
    dag = tree_dag(topo("bcube:n=2,k=1"), merge=False)
    good = [r.tolist() for r in list_schedule(dag, random_rank(dag, 3))]
    for rounds, ok in ((good, True), (good[:1] + [good[1] + [dag.n]] + good[2:], False),
                       (good[:1] + [good[1] + good[1][:1]] + good[2:], False)):
        marks = RoundMarks(dag)
        arrays = [np.sort(np.asarray(r, np.int64)) for r in rounds]
        for a in arrays:
            a.setflags(write=False)
            marks.add(a)
        marks.close()
        assert not workers()
        got = MarkedRounds(arrays, marks)
        assert rounds_valid(dag, got) is ok is (not replay(dag, rounds)[1])
        assert marks.take(dag, got) is None


@pytest.mark.parametrize("batch", [1, 50, 1 << 20])
def test_worker_takes_rounds_in_batches(case, monkeypatch, batch):
    dag, good = case
    calls = []
    real = engine_mod._mark_rounds

    def counted(flat, starts, *rest):
        calls.append(len(starts) - 1)
        return real(flat, starts, *rest)

    monkeypatch.setattr(engine_mod, "_mark_rounds", counted)
    monkeypatch.setattr(RoundMarks, "BATCH", batch)
    streamed = recorded(dag, good, 2)
    assert sum(calls) == len(good) and rounds_valid(dag, streamed) is True
    if batch > dag.n:
        assert calls == [len(good)]  # everything at the end, in one call
    else:
        assert len(calls) <= len(good) and max(calls) >= 1


@pytest.mark.parametrize("error", [KeyboardInterrupt, RuntimeError])
def test_no_worker_outlives_an_exception_in_the_round_loop(case, error):
    dag, good = case
    it = iter(good)

    def select(eng):
        if eng.n_rounds == 3:
            raise error("stop")
        return np.asarray(next(it), np.int64)

    with threads(2), pytest.raises(error):
        Engine(dag).run(select, check=False)
    assert not workers()
    with threads(2), pytest.raises(engine_mod.RoundLimitError):
        Engine(dag).run(lambda e: np.asarray(next(it, []), np.int64), max_rounds=2, check=False)
    assert not workers()


def test_a_worker_error_is_raised_by_the_run(case, monkeypatch):
    dag, good = case

    def fails(*args):
        raise ZeroDivisionError("in the worker")

    monkeypatch.setattr(engine_mod, "_mark_rounds", fails)
    with pytest.raises(ZeroDivisionError):
        recorded(dag, good, 2)
    assert not workers()


def test_one_thread_or_small_dags_stream_nothing(case):
    dag, _ = case
    with threads(1):
        assert type(list_schedule(dag, random_rank(dag, 0))) is list
    assert type(list_schedule(dag, random_rank(dag, 0))) is list  # below jit.PARALLEL_MIN
    with threads(2):
        assert isinstance(list_schedule(dag, random_rank(dag, 0)), MarkedRounds)
    assert greedy._round.nogil and engine_mod._release.nogil  # the round loop leaves the GIL to the worker


def test_registry_uses_the_streamed_pass(monkeypatch):
    """`run_method` keeps the marks through its sorting of the rounds, so its check does not mark them again;
    the schedule it returns holds a plain list, which pickles."""
    t = topo("bcube:n=3,k=1")
    with threads(2):
        want = run_method("ps", t).rounds
        monkeypatch.setattr(engine_mod, "_marks_in_halves", lambda *a: pytest.fail("marked twice"))
        sched = run_method("ps", t)
    assert type(sched.rounds) is list and [r.tolist() for r in sched.rounds] == [r.tolist() for r in want]
    dag = tree_dag(t, merge=False)
    with threads(2):
        rounds = list_schedule(dag, random_rank(dag, 0))
    kept = sorted_rounds(rounds)
    assert isinstance(kept, MarkedRounds) and all(a is b for a, b in zip(kept, rounds))
    assert type(pickle.loads(pickle.dumps(rounds))) is list
