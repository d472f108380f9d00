"""The round engine: applies rounds to a workload DAG, checks them, and records the trace.

This module owns the round rules of MODEL.md §4 — a workload may be sent once its prefixes
were all sent in earlier rounds, and no directed link carries more workloads a round than
its capacity — and the one greedy fill that every list scheduler uses. `Engine.run` is the
one round loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .greedy import CLASS, ClassHeads, fill_mask
from .jit import SMALL, both, kernel, prefetch
from .workloads import FIRST_BROADCAST, INTO_ROOT, NEXT, WorkloadDAG, broadcast_half

Rounds = list[np.ndarray]
"""A schedule's rounds: one array of workload ids per round."""


@dataclass(frozen=True)
class Violation:
    """One broken rule: which rule, the workload, the round and the link where it applies.

    `round` is the 0-based index into the rounds; messages number rounds from 1, as the CLI and dashboard do.
    """

    rule: str  # unknown | duplicate | already-sent | prefix | capacity | missing
    round: int | None
    workload: int | None
    link: int | None
    message: str


class InvalidRound(ValueError):
    """A round that breaks the rules; `violations` lists every broken rule found."""

    def __init__(self, violations: list[Violation]):
        self.violations = violations
        more = f" (and {len(violations) - 1} more)" if len(violations) > 1 else ""
        super().__init__(violations[0].message + more)


class RoundLimitError(RuntimeError):
    """A round loop that reached its round limit before every workload was sent."""


def round_limit(dag: WorkloadDAG) -> int:
    """The one round limit of every loop: a schedule whose rounds each send at least one
    workload ends within n rounds, so more means a selector that stalls."""
    return max(dag.n, 1)


class Engine:
    """Mutable simulation state of one AllReduce; read it through the properties."""

    def __init__(self, dag: WorkloadDAG, columns: int = 2):
        """`columns` > 2 adds int32 columns to every workload's state row for a list scheduler's own use
        (`ClassHeads`: place and class)."""
        self._dag = dag
        self._cap = dag.topology.link_capacity
        # one int32 row per workload and then per prefix group (docs/scale.md): prefixes not yet sent, the
        # round it was sent in (-1: not yet; unused for a group), then the caller's columns. A workload's
        # state shares one cache line: the release reads a successor's wait and round together.
        ptr = dag.deps.ptr
        self._state = np.empty((len(ptr) - 1, max(2, columns)), np.int32)
        self._waiting = self._state[:, 0]
        np.subtract(ptr[1:], ptr[:-1], out=self._waiting, casting="unsafe")
        self._sent_round = self._state[: dag.n, 1]
        self._sent_round[:] = -1
        self._chains = dag.chains  # the plain PS DAG's successors, implied by its chains (docs/scale.md)
        self._ready: np.ndarray | None = None  # computed when asked (a list scheduler never asks)
        self._last_freed = np.zeros(0, dtype=np.int64)
        self._rounds: list[np.ndarray] = []
        self._n_sent = 0
        self._truncated = False

    # ---- read-only state ----------------------------------------------------------------
    @property
    def dag(self) -> WorkloadDAG:
        """The workload DAG being scheduled."""
        return self._dag

    @property
    def rounds(self) -> list[np.ndarray]:
        """Workload ids of every applied round (read-only arrays, sorted)."""
        return list(self._rounds)

    @property
    def last_round(self) -> np.ndarray:
        """Workload ids of the last applied round (read-only view; empty before the first)."""
        v = (self._rounds[-1] if self._rounds else np.zeros(0, np.int64)).view()
        v.setflags(write=False)
        return v

    @property
    def n_rounds(self) -> int:
        """Rounds applied so far."""
        return len(self._rounds)

    @property
    def n_sent(self) -> int:
        """Workloads sent so far."""
        return self._n_sent

    @property
    def done(self) -> bool:
        """True when every workload has been sent."""
        return self._n_sent == self._dag.n

    @property
    def sent_round(self) -> np.ndarray:
        """Round (0-based) in which each workload was sent, -1 if not yet (read-only view)."""
        v = self._sent_round.view()
        v.setflags(write=False)
        return v

    @property
    def link_capacity(self) -> np.ndarray:
        """Capacity of each directed link."""
        return self._cap

    @property
    def last_freed(self) -> np.ndarray:
        """Workloads that became ready when the last round was applied."""
        return self._last_freed

    def ready_mask(self) -> np.ndarray:
        """Workloads that may be sent in the next round (unsent, all prefixes sent; read-only)."""
        if self._ready is None:
            self._ready = (self._waiting[: self._dag.n] == 0) & (self._sent_round < 0)
            self._ready.setflags(write=False)
        return self._ready

    # ---- rules ----------------------------------------------------------------------------
    def check(self, ids: np.ndarray | list[int], ext: np.ndarray | None = None) -> list[Violation]:
        """Every rule the round `ids` would break if applied now (empty list: valid); `ext` maps
        ids to the ones shown in the violations (a file's own ids)."""
        return check_round(self._dag, np.asarray(ids, dtype=np.int64), self._sent_round, self._waiting,
                           len(self._rounds), ext)

    def apply(self, ids: np.ndarray | list[int]) -> None:
        """Send the round `ids`; raises InvalidRound naming each broken rule, workload and link."""
        ids = np.asarray(ids, dtype=np.int64)
        violations = self.check(ids)
        if violations:
            raise InvalidRound(violations)
        self._commit(ids)

    def _commit(self, ids: np.ndarray) -> None:
        ids = sorted_ids(ids)
        self._sent_round[ids] = len(self._rounds)
        self._ready = None
        if self._chains is not None:
            c = self._chains
            self._last_freed = _release_chains(ids, c.marks, self._dag.tree, c.block, self._waiting,
                                               self._sent_round)
        else:
            s = self._dag.successors
            self._last_freed = _release(ids, s.ptr, s.values, self._waiting, self._sent_round, self._dag.n)
        self._rounds.append(ids)
        self._n_sent += len(ids)

    # ---- scheduling helpers ---------------------------------------------------------------
    def fill(self, candidates: np.ndarray, used: np.ndarray | None = None) -> np.ndarray:
        """Greedy round: walk `candidates` in order, keep each one whose links all have room.

        The one-by-one loop, compiled. `used` (per directed link) is the load already in the
        round and is not modified. Returns the kept ids, sorted.
        """
        cand = np.asarray(candidates, dtype=np.int64)
        load = np.zeros(len(self._cap), np.int64) if used is None else np.array(used, dtype=np.int64)
        links = self._dag.links
        keep = fill_mask(cand, links.ptr, links.values, self._cap, load)
        return np.sort(cand[keep])

    @property
    def truncated(self) -> bool:
        """True when `run` stopped at its round limit before every workload was sent."""
        return self._truncated

    def run(self, select: Callable[["Engine"], np.ndarray], max_rounds: int | None = None, *,
            truncate: bool = False, check: bool = True) -> "Engine":
        """The round loop: apply ``select(self)`` until every workload is sent.

        At `max_rounds` (default `round_limit`) it raises RoundLimitError, or with `truncate`
        stops and sets `truncated`. ``check=False`` skips the per-round rule check for selectors
        that are valid by construction (`fill`); their result is checked once, by replay, in
        the method registry.
        """
        limit = round_limit(self._dag) if max_rounds is None else max_rounds
        while not self.done:
            if len(self._rounds) >= limit:
                if truncate:
                    self._truncated = True
                    return self
                raise RoundLimitError(f"no schedule within {limit} rounds ({self._n_sent}/{self._dag.n} sent)")
            ids = np.asarray(select(self), dtype=np.int64)
            if check:
                self.apply(ids)
            else:
                self._commit(ids)
        return self

    def utilization(self) -> np.ndarray:
        """Share of capacity used on each directed link in each round: float (links, rounds)."""
        return utilization(self._dag, self._rounds)


@kernel
def _release(ids, sptr, sval, waiting, sent_round, n):  # pragma: no cover - compiled
    """Count the sent `ids` off their successors' waits (through groups: a group whose last
    member is sent releases its own waiters); returns the unsent workloads that became ready."""
    out = np.empty(16 + 2 * len(ids), np.int64)
    k = 0
    stack = np.empty(1, np.int64)
    m = len(ids)
    for i in range(m):
        w = ids[i]
        # the rows, successor lists and waits are far apart: ask for them a few workloads ahead
        if i + 24 < m:
            prefetch(sptr, ids[i + 24])
        if i + 16 < m:
            prefetch(sval, sptr[ids[i + 16]])
        if i + 8 < m and sptr[ids[i + 8]] < len(sval):
            prefetch(waiting, sval[sptr[ids[i + 8]]])  # its round is in the same state row
        for e in range(sptr[w], sptr[w + 1]):
            x = sval[e]
            waiting[x] -= 1
            if waiting[x] != 0:
                continue
            if x < n:
                stack[0] = x
                todo = stack
            else:  # a group completed: its waiters lose one wait each
                todo = np.empty(0, np.int64)
                for f in range(sptr[x], sptr[x + 1]):
                    y = sval[f]
                    waiting[y] -= 1
                if k + sptr[x + 1] - sptr[x] > len(out):
                    out = np.concatenate((out[:k], np.empty(len(out) + sptr[x + 1] - sptr[x], np.int64)))
                for f in range(sptr[x], sptr[x + 1]):
                    y = sval[f]
                    if waiting[y] == 0 and sent_round[y] < 0:
                        out[k] = y
                        k += 1
            for y in todo:
                if sent_round[y] < 0:  # a replay may have sent it out of order
                    if k == len(out):
                        out = np.concatenate((out, np.empty(len(out), np.int64)))
                    out[k] = y
                    k += 1
    return out[:k]


@kernel
def _release_chains(ids, marks, tree, block, waiting, sent_round):  # pragma: no cover - compiled
    """`_release` for the plain PS DAG, whose successors its chains imply (`workloads.PlainChains`): w's
    successor is w + 1 (mark `NEXT`), or for the last reduce hop into root i (`INTO_ROOT`) group i, whose
    waiters are the first broadcast hops (`FIRST_BROADCAST`) of root i's block; the same freed workloads in
    the same order as `_release` over the successors' CSR. One byte of marks a workload is read where the CSR
    cost a row pointer and an entry (two cache lines far apart), and w + 1's state row is next to w's."""
    n = len(marks)
    out = np.empty(16 + 2 * len(ids), np.int64)
    k = 0
    m = len(ids)
    for i in range(m):
        w = ids[i]
        if i + 16 < m:  # ask for the marks and the successor's state row a few workloads ahead
            prefetch(marks, ids[i + 16])
            prefetch(waiting, ids[i + 16] + 1)
        f = marks[w]
        if f & NEXT:
            x = w + 1
            waiting[x] -= 1
            if waiting[x] == 0 and sent_round[x] < 0:  # a replay may have sent it out of order
                if k == len(out):
                    out = np.concatenate((out, np.empty(len(out), np.int64)))
                out[k] = x
                k += 1
        elif f & INTO_ROOT:
            r = tree[w]
            x = n + r
            waiting[x] -= 1
            if waiting[x] != 0:
                continue
            # the group completed: its waiters, root r's first broadcast hops, lose one wait each
            b0, b1 = broadcast_half(block, r)
            for y in range(b0, b1):
                if marks[y] & FIRST_BROADCAST:
                    waiting[y] -= 1
            if k + b1 - b0 > len(out):
                out = np.concatenate((out[:k], np.empty(len(out) + b1 - b0, np.int64)))
            for y in range(b0, b1):
                if marks[y] & FIRST_BROADCAST and waiting[y] == 0 and sent_round[y] < 0:
                    out[k] = y
                    k += 1
    return out[:k]


def check_round(dag: WorkloadDAG, ids: np.ndarray, sent_round: np.ndarray, waiting: np.ndarray,
                round_no: int, ext: np.ndarray | None = None) -> list[Violation]:
    """The rules a round would break, given the state before it (the one place rounds are checked).

    `ext` maps internal workload ids to the ids shown in messages (a file's own ids).
    """
    links = dag.links
    unknown, dup, again, early, over, load = _round_rules(
        np.asarray(ids, dtype=np.int64), dag.n, sent_round, waiting, links.ptr, links.values,
        dag.topology.link_capacity)
    if not (len(unknown) or len(dup) or len(again) or len(early) or len(over)):
        return []
    out: list[Violation] = []
    topo = dag.topology

    def show(w: int) -> int:
        return int(w) if ext is None else int(ext[w])

    def name(w: int) -> str:
        return dag.describe(w, show(w))

    for w in unknown.tolist():
        out.append(Violation("unknown", round_no, w, None, f"round {round_no + 1}: workload {w} does not exist"))
    for w in dup.tolist():
        out.append(Violation("duplicate", round_no, show(w), None,
                             f"round {round_no + 1}: workload {name(w)} appears twice in the round"))
    for w in again.tolist():
        out.append(Violation("already-sent", round_no, show(w), None,
                             f"round {round_no + 1}: workload {name(w)} was already sent in round {sent_round[w] + 1}"))
    for w in early.tolist():
        missing = [show(p) for p in dag.prefix_of(w) if sent_round[p] < 0]
        out.append(Violation("prefix", round_no, show(w), None,
                             f"round {round_no + 1}: workload {name(w)} waits for prefix "
                             f"{', '.join(map(str, missing[:5]))}{'...' if len(missing) > 5 else ''} not sent earlier"))
    if len(over):
        ids = np.asarray(ids, dtype=np.int64)
        uniq = np.unique(ids[(ids >= 0) & (ids < dag.n)])
        lk = dag.links_padded[uniq]
        cap = topo.link_capacity
        for link, on_link in zip(over.tolist(), load.tolist()):
            on = [show(w) for w in uniq[(lk == link).any(axis=1)].tolist()]
            out.append(Violation("capacity", round_no, on[-1], link,
                                 f"round {round_no + 1}: link {topo.link_label(link)} carries {on_link} workloads "
                                 f"({', '.join(map(str, on[:6]))}) over its capacity {cap[link]}"))
    return out


@kernel
def _round_rules(ids, n, sent_round, waiting, lptr, lval, cap):  # pragma: no cover - compiled
    """The round's rule breaks: (unknown ids in order; then, ascending: duplicated, already sent,
    prefix-waiting workloads, links over capacity, and those links' loads)."""
    unknown = ids[(ids < 0) | (ids >= n)]
    uniq = np.sort(ids[(ids >= 0) & (ids < n)])
    keep = np.ones(len(uniq), np.bool_)
    dup = np.zeros(len(uniq), np.bool_)
    for k in range(1, len(uniq)):
        if uniq[k] == uniq[k - 1]:
            keep[k] = False
            dup[k - 1] = True
    dups = uniq[dup & keep]
    uniq = uniq[keep]
    again = np.zeros(len(uniq), np.bool_)
    early = np.zeros(len(uniq), np.bool_)
    load = np.zeros(len(cap), np.int64)
    m = len(uniq)
    for k in range(m):
        if k + 16 < m:  # far apart in memory: ask for them a few workloads ahead
            prefetch(sent_round, uniq[k + 16])
            prefetch(waiting, uniq[k + 16])
            prefetch(lptr, uniq[k + 16])
        if k + 8 < m and lptr[uniq[k + 8]] < len(lval):
            prefetch(lval, lptr[uniq[k + 8]])
        w = uniq[k]
        if sent_round[w] >= 0:
            again[k] = True
        elif waiting[w] > 0:
            early[k] = True
        for e in range(lptr[w], lptr[w + 1]):
            load[lval[e]] += 1
    n_over = 0
    for k in range(len(uniq)):
        w = uniq[k]
        for e in range(lptr[w], lptr[w + 1]):
            if load[lval[e]] > cap[lval[e]]:
                n_over += 1
    over = np.empty(0, np.int64)
    if n_over:
        over = np.flatnonzero(load > cap)
    return unknown, dups, uniq[again], uniq[early], over, load[over]


def utilization(dag: WorkloadDAG, rounds: list[np.ndarray]) -> np.ndarray:
    """Share of capacity used on each directed link in each round: float (links, rounds)."""
    n_links = dag.topology.n_links
    out = np.zeros((n_links, len(rounds)), dtype=np.float64)
    for r, ids in enumerate(rounds):
        _, lk = dag.links.gather(ids)
        out[:, r] = np.bincount(lk, minlength=n_links)
    return out / dag.topology.link_capacity[:, None]


def replay(dag: WorkloadDAG, rounds: list[np.ndarray] | list[list[int]],
           ext: np.ndarray | None = None) -> tuple[Engine, list[Violation]]:
    """Apply rounds in order, collecting every violation instead of stopping at the first.

    A round with violations is still recorded (its valid workloads count as sent) so later
    rounds are judged against a sensible state. Workloads never sent are reported as `missing`.
    `ext` maps internal ids to the ids used in the violations (a file's own ids).
    """
    eng = Engine(dag)
    violations: list[Violation] = []
    for ids in rounds:
        ids = np.asarray(ids, dtype=np.int64)
        v = eng.check(ids, ext)
        if v:
            violations.extend(v)
            ids = np.unique(ids[(ids >= 0) & (ids < dag.n)])
            ids = ids[eng.sent_round[ids] < 0]
        eng._commit(ids)  # noqa: SLF001 - replay keeps going to report everything
    for w in np.flatnonzero(eng.sent_round < 0)[:1000].tolist():
        shown = w if ext is None else int(ext[w])
        violations.append(Violation("missing", None, shown, None, f"workload {dag.describe(w, shown)} is never sent"))
    return eng, violations


def rounds_valid(dag: WorkloadDAG, rounds: list[np.ndarray] | list[list[int]]) -> bool | None:
    """True when `replay` would find no violation in `rounds`, False when it would find one; None
    when this check does not apply (a prefix group with a group among its members).

    The same rules as the replay, checked in passes that read memory in order instead of round
    by round (docs/scale.md): every id exists and is sent exactly once, no link carries more than
    its capacity in a round, and every prefix entry of every workload (every member, for a group)
    was sent in an earlier round. The method registry's check runs this first and the replay only
    to name what is broken, so its messages are the replay's.
    """
    n = dag.n
    sent = np.full(n, -1, np.int32)  # round of each workload
    links = dag.links
    cap = dag.topology.link_capacity
    rounds = [_id_array(ids) for ids in rounds]
    if sum(len(ids) for ids in rounds) != n:
        return False  # some workload is never sent, or one is sent twice
    sizes = np.cumsum([len(ids) for ids in rounds])
    half = int(np.searchsorted(sizes, n // 2))

    def mark(r0: int, r1: int) -> bool:
        load = np.zeros(len(cap), np.int64)  # each half its own
        return all(_mark_round(rounds[r], r, sent, links.ptr, links.values, cap, load) for r in range(r0, r1))

    # two halves of the rounds on two cores: each id is in one round (counted above), so the halves
    # write different entries of `sent` unless an id is repeated, which either half then finds
    # (seeing the other's mark or an unmarked id below)
    if not all(both(lambda: mark(0, half), lambda: mark(half, len(rounds)), size=n)):
        return False
    deps = dag.deps
    g = dag.n_groups
    done = np.empty(g, np.int32)  # the round in which each group's last member was sent
    ok = both(lambda: _groups_sent(sent, deps.ptr, deps.values, 0, g // 2, done),
              lambda: _groups_sent(sent, deps.ptr, deps.values, g // 2, g, done), size=n)
    if min(ok) < 1:
        return None if min(ok) < 0 else False
    ok = both(lambda: _sent_after_prefixes(sent, deps.ptr, deps.values, done, 0, n // 2),
              lambda: _sent_after_prefixes(sent, deps.ptr, deps.values, done, n // 2, n), size=n)
    return bool(min(ok))


def _id_array(ids: np.ndarray | list[int]) -> np.ndarray:
    """A round's ids as an integer array (a list of ints, or an empty one, as int64)."""
    ids = np.asarray(ids)
    return ids if ids.dtype.kind in "iu" else ids.astype(np.int64)


@kernel(nogil=True)
def _mark_round(ids, r, sent, lptr, lval, cap, load):  # pragma: no cover - compiled
    """Record round `r` in `sent`; False when an id does not exist or was already sent, or a link
    is over capacity (`load`, zero per link, is left zero)."""
    n = len(sent)
    m = len(ids)
    ok = True
    for k in range(m):
        if k + 16 < m and 0 <= ids[k + 16] < n:  # far apart in memory: ask a few workloads ahead
            prefetch(sent, ids[k + 16])
            prefetch(lptr, ids[k + 16])
        if k + 8 < m and 0 <= ids[k + 8] < n and lptr[ids[k + 8]] < len(lval):
            prefetch(lval, lptr[ids[k + 8]])
        w = ids[k]
        if w < 0 or w >= n or sent[w] >= 0:
            ok = False
            m = k  # only these ids have counted their links
            break
        sent[w] = r
        for e in range(lptr[w], lptr[w + 1]):
            load[lval[e]] += 1
    for k in range(m):
        w = ids[k]
        for e in range(lptr[w], lptr[w + 1]):
            if load[lval[e]] > cap[lval[e]]:
                ok = False
    for k in range(m):
        w = ids[k]
        for e in range(lptr[w], lptr[w + 1]):
            load[lval[e]] = 0
    return ok


@kernel(nogil=True)
def _groups_sent(sent, dptr, dval, g0, g1, done):  # pragma: no cover - compiled
    """Write `done[g]`, the round of prefix group g's last member, for g0 <= g < g1; 1 when all were
    sent, 0 when one was not, -1 when a group has a group member."""
    n = len(sent)
    for g in range(g0, g1):
        last = -1
        for e in range(dptr[n + g], dptr[n + g + 1]):
            if e + 16 < dptr[n + g + 1] and dval[e + 16] < n:
                prefetch(sent, dval[e + 16])
            p = dval[e]
            if p >= n:
                return -1
            if sent[p] < 0:
                return 0
            last = max(last, sent[p])
        done[g] = last
    return 1


@kernel(nogil=True)
def _sent_after_prefixes(sent, dptr, dval, done, w0, w1):  # pragma: no cover - compiled
    """1 when every workload w0 <= w < w1 was sent (`sent` >= 0) after every prefix entry of its row
    in the prefix relation (for a group: after its last member, `done`), else 0."""
    n = len(sent)
    for w in range(w0, w1):
        t = sent[w]
        if t < 0:
            return 0
        for e in range(dptr[w], dptr[w + 1]):
            p = dval[e]
            if (sent[p] if p < n else done[p - n]) >= t:
                return 0
    return 1


class RoundBuilder:
    """A round being assembled one workload at a time from a candidate pool.

    Tracks the load each directed link already carries in the round and which candidates
    still fit (all their links below capacity). Used by the step-by-step agents and envs.
    """

    def __init__(self, engine: Engine, pool: np.ndarray):
        dag = engine.dag
        self.pool = np.asarray(pool, dtype=np.int64)
        self.cap = engine.link_capacity
        self.used = np.zeros(len(self.cap), dtype=np.int64)
        self.pos, self.lk = dag.links.gather(self.pool)  # (candidate position, link) pairs, by position
        self.n_links_of = np.bincount(self.pos, minlength=len(self.pool))
        self._start = np.r_[0, np.cumsum(self.n_links_of)]  # pairs of position i: _start[i]:_start[i+1]
        by_link = np.argsort(self.lk, kind="stable")
        self._link_pos = self.pos[by_link]  # candidate positions on each link, link by link
        self._link_start = np.r_[0, np.cumsum(np.bincount(self.lk, minlength=len(self.cap)))]
        self.valid = np.ones(len(self.pool), dtype=bool)
        self.n_valid = len(self.pool)
        self.picked: list[int] = []  # positions in pool, in pick order
        self.on_link = np.bincount(self.lk, minlength=len(self.cap))  # valid candidates per link

    @property
    def done(self) -> bool:
        """True when no candidate fits any more."""
        return self.n_valid == 0

    def ids(self) -> np.ndarray:
        """Workload ids picked so far, in pick order."""
        return self.pool[np.array(self.picked, dtype=np.int64)]

    def add(self, i: int) -> None:
        """Pick pool position i (must be valid); candidates whose links fill up stop being valid."""
        if not self.valid[i]:
            raise InvalidRound([Violation("capacity", None, int(self.pool[i]), None,
                                          f"workload {int(self.pool[i])} conflicts with the round so far")])
        links = self.lk[self._start[i]:self._start[i + 1]]
        self.used[links] += 1
        self.picked.append(int(i))
        full = links[self.used[links] >= self.cap[links]]
        ls = self._link_start
        self._drop(np.concatenate([[i]] + [self._link_pos[ls[x]:ls[x + 1]] for x in full.tolist()]))

    def take(self, positions: np.ndarray) -> None:
        """Pick the pool positions in order at once (as `add` one by one would; the picks were
        decided elsewhere, e.g. by a compiled decoder); raises InvalidRound if they overfill a link."""
        positions = np.asarray(positions, dtype=np.int64)
        if len(positions) == 0:
            return
        picked = np.zeros(len(self.pool), dtype=bool)
        picked[positions] = True
        used = self.used + np.bincount(self.lk[picked[self.pos]], minlength=len(self.cap))
        if np.any(used > self.cap) or not self.valid[positions].all() or np.count_nonzero(picked) != len(positions):
            raise InvalidRound([Violation("capacity", None, int(self.pool[positions[-1]]), None,
                                          f"the picks {self.pool[positions[:6]].tolist()}... do not fit the round so far")])
        self.used = used
        self.picked.extend(positions.tolist())
        blocked = picked.copy()
        blocked[self.pos[(self.used >= self.cap)[self.lk]]] = True
        self._drop(np.flatnonzero(blocked))

    def _drop(self, positions: np.ndarray) -> None:
        """Mark positions (repeats allowed) invalid and take the newly invalid ones off their links' counts."""
        was = self.valid.copy()
        self.valid[positions] = False
        gone = was != self.valid
        self.n_valid = int(np.count_nonzero(self.valid))
        self.on_link -= np.bincount(self.lk[gone[self.pos]], minlength=len(self.cap))

    def conflicts(self) -> tuple[np.ndarray, np.ndarray]:
        """(`conflict_degree`, `exclusive_share`) in one pass."""
        if len(self.pool) == 0:
            return np.zeros(0), np.zeros(0)
        on = self.on_link[self.lk]
        starts = self._start[:-1]
        deg = (np.add.reduceat(on, starts) - self.n_links_of).astype(np.float64)
        alone = np.add.reduceat(on <= 1, starts, dtype=np.int64) / np.maximum(self.n_links_of, 1)
        return deg, alone

    def conflict_degree(self) -> np.ndarray:
        """For each candidate, how many other valid candidates share one of its links (counted per link)."""
        return self.conflicts()[0]

    def exclusive_share(self) -> np.ndarray:
        """For each candidate, the share of its links no other valid candidate needs."""
        return self.conflicts()[1]


def list_schedule(dag: WorkloadDAG, rank: np.ndarray | Callable[[], np.ndarray], *,
                  permutation: bool = False) -> Rounds:
    """Rounds of the list scheduler: each round walks the ready workloads by ascending `rank`
    (ties by workload id) and keeps every one that still fits (`Engine.fill`'s greedy; only the
    best ready workload of each route class is walked, which gives the same rounds: see
    `core.greedy`). `rank` may be a function that draws it: it then runs on a second core, beside
    the making of the engine's state rows (after the route classes, found there from the DAG's hops
    when it keeps them, `WorkloadDAG.take_route_classes`, else beside the classes hashed). `permutation`:
    the caller vouches that the rank is a permutation of 0..n-1 (the seeded draw,
    `priorities.random_rank`), so it is used as the places without the check (`priority_places`)."""
    ranks = [rank]  # held here only: the caller's rank goes once the heads hold the places
    del rank
    made: list[Engine] = []
    source = [dag.take_route_classes()]  # popped when used: the hops it holds go once the classes are written
    given = source[0] is not None
    found: list[tuple[np.ndarray, np.ndarray]] = []

    def places() -> np.ndarray:
        r = ranks.pop()
        return priority_places(r() if callable(r) else r, permutation=permutation)

    def rows() -> Engine:  # the first touch of the rows' pages
        made.append(Engine(dag, columns=CLASS + 1))
        return made[0]

    def prepare() -> tuple[np.ndarray, np.ndarray]:
        if not given:  # beside the route classes: the rows, then the places
            state = rows()._state
            return places(), state
        # the classes of the hops, then the draw, beside the rows
        (hops, place), engine = both(lambda: (source[0].find(), places()), rows, size=dag.n)
        found.append(hops)
        return place, engine._state

    def write(state: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        hop_class, clinks = found.pop()
        return clinks, source.pop().write(dag, hop_class, state, CLASS, len(clinks))

    heads = ClassHeads(dag.links, dag.topology.link_capacity, prepare, write if given else None)
    engine = made[0]
    first = np.flatnonzero(engine.ready_mask())

    def select(eng: Engine) -> np.ndarray:
        return heads.next_round(eng.last_freed if eng.n_rounds else first)

    return engine.run(select, check=False).rounds


def sorted_ids(ids: np.ndarray) -> np.ndarray:
    """`ids` as a read-only ascending int64 array: `ids` itself when it already is one (a replayed
    round shares the memory of the round it replays), else a sorted copy."""
    ids = np.asarray(ids)
    if ids.dtype == np.int64 and not ids.flags.writeable and _ascending(ids):
        return ids
    out = np.sort(ids.astype(np.int64, copy=False))
    out.setflags(write=False)
    return out


@kernel(interpret_below=SMALL)
def _ascending(a):  # pragma: no cover - compiled
    """True when `a` never decreases."""
    for k in range(1, len(a)):
        if a[k] < a[k - 1]:
            return False
    return True


@kernel(interpret_below=SMALL, nogil=True)
def _is_permutation(rank):  # pragma: no cover - compiled
    """True when `rank` holds every value of 0..len(rank)-1 exactly once."""
    n = len(rank)
    seen = np.zeros((n >> 6) + 1, np.uint64)  # a bit per value: 8x smaller than bools, so mostly in cache
    for r in rank:
        if r < 0 or r >= n:
            return False
        bit = np.uint64(1) << np.uint64(r & 63)
        if seen[r >> 6] & bit:
            return False
        seen[r >> 6] |= bit
    return True


def priority_places(rank: np.ndarray, *, permutation: bool = False) -> np.ndarray:
    """Each workload's place in the order of ascending rank, ties by id: `rank` itself when it is a
    permutation of 0..n-1 (no copy), else the inverse of `priority_order`. `permutation`: the caller
    vouches that it is one (the seeded draw, tested against numpy's): the check's pass over it (1-2 s
    at 94 M workloads) is skipped."""
    rank = np.asarray(rank)
    n = len(rank)
    if permutation and rank.dtype.kind in "iu":
        return rank
    if n and rank.dtype.kind in "iu" and _is_permutation(rank):
        return rank
    place = np.empty(n, np.int64)
    place[np.argsort(rank, kind="stable")] = np.arange(n)
    return place


def priority_order(rank: np.ndarray) -> np.ndarray:
    """Workload ids by ascending rank, ties by id (a permutation rank is inverted in linear time)."""
    rank = np.asarray(rank)
    n = len(rank)
    if n and rank.dtype.kind in "iu" and rank.min() == 0 and rank.max() == n - 1:
        order = np.full(n, -1, np.int64)
        order[rank] = np.arange(n)
        if order.min() >= 0:  # every rank appears once: a permutation
            return order
    return np.argsort(rank, kind="stable")
