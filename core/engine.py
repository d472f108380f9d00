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

from .workloads import WorkloadDAG

Rounds = list[np.ndarray]
"""A schedule's rounds: one array of workload ids per round."""


@dataclass(frozen=True)
class Violation:
    """One broken rule: which rule, the workload, the round (0-based) and the link where it applies."""

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

    def __init__(self, dag: WorkloadDAG):
        self._dag = dag
        self._cap = dag.topology.link_capacity
        # capacities with one extra "sentinel" link of unlimited capacity that pads short paths
        self._cap_ext = np.r_[self._cap, np.iinfo(np.int64).max // 4]
        self._unit_capacity = bool(self._cap.max() == 1)
        self._sent_round = np.full(dag.n, -1, dtype=np.int64)
        self._waiting = dag.n_prefix.copy()  # prefixes not yet sent
        self._ready = self._waiting == 0
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
        """Workload ids of every applied round (copies)."""
        return [r.copy() for r in self._rounds]

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
        """Workloads that may be sent in the next round (unsent, all prefixes sent; read-only view)."""
        v = self._ready.view()
        v.setflags(write=False)
        return v

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
        self._sent_round[ids] = len(self._rounds)
        self._ready[ids] = False
        _, succ = self._dag.successors.gather(ids)
        np.subtract.at(self._waiting, succ, 1)
        freed = succ[self._waiting[succ] == 0]
        self._last_freed = freed[self._sent_round[freed] < 0]  # replay may send out of order
        self._ready[self._last_freed] = True
        self._rounds.append(np.sort(ids))
        self._n_sent += len(ids)

    # ---- scheduling helpers ---------------------------------------------------------------
    def fill(self, candidates: np.ndarray, used: np.ndarray | None = None) -> np.ndarray:
        """Greedy round: walk `candidates` in order, keep each one whose links all have room.

        Equal to the sequential loop, computed in vectorized passes. `used` (per directed link)
        is the load already in the round and is not modified. Returns the kept ids, sorted.
        """
        cap = self._cap_ext
        used_ext = np.zeros(len(cap), dtype=np.int64)
        if used is not None:
            used_ext[:-1] = used
        cols = self._dag.link_columns
        chosen: list[np.ndarray] = []
        first = max(4096, 4 * len(self._cap))  # usually fills most links; the rest goes in one pass
        for part in (candidates[:first], candidates[first:]):
            part = np.asarray(part, dtype=np.int64)
            if len(part) == 0:
                continue
            part = part[_fits(used_ext < cap, cols, part)]
            if len(part):
                links = np.stack([c[part] for c in cols], axis=1)
                chosen.append(_fill_batch(part, links, cap, used_ext, self._unit_capacity))
        return np.sort(np.concatenate(chosen)) if chosen else np.zeros(0, dtype=np.int64)

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


def _fits(room: np.ndarray, cols: tuple[np.ndarray, ...], ids: np.ndarray) -> np.ndarray:
    """Mask of the workloads `ids` whose every link has room (column-wise: fast for short paths)."""
    ok = room[cols[0][ids]]
    for c in cols[1:]:
        ok &= room[c[ids]]
    return ok


def _all_cols(mask: np.ndarray) -> np.ndarray:
    """Row-wise all() of a 2-D bool array, column by column."""
    out = mask[:, 0].copy()
    for j in range(1, mask.shape[1]):
        out &= mask[:, j]
    return out


def _fill_batch(cand: np.ndarray, links: np.ndarray, cap: np.ndarray, used: np.ndarray,
                unit: bool) -> np.ndarray:
    """Sequential greedy over one batch (in priority order), vectorized; updates `used` in place.

    Each pass accepts every candidate that would be accepted whatever the undecided
    candidates ahead of it do (it has room on each link even if all of them were taken),
    then drops the candidates that no longer fit. The best remaining candidate is always
    accepted, so every pass makes progress; the result equals the one-by-one loop.
    """
    sentinel = len(cap) - 1
    width = links.shape[1]
    idx = np.arange(len(cand))
    accepted = []
    while len(idx):
        lk = links[idx]
        if unit:
            best = np.full(len(cap), len(cand), dtype=np.int64)
            np.minimum.at(best, lk.ravel(), np.repeat(idx, width))
            safe = _all_cols((best[lk] == idx[:, None]) | (lk == sentinel))
        else:
            flat = lk.ravel()
            order = np.argsort(flat, kind="stable")  # candidate order kept within a link
            fs = flat[order]
            first = np.r_[True, fs[1:] != fs[:-1]]
            start = np.maximum.accumulate(np.where(first, np.arange(len(fs)), 0))
            ahead = np.empty(len(fs), dtype=np.int64)
            ahead[order] = np.arange(len(fs)) - start
            room = (used[flat] + ahead.reshape(-1) < cap[flat]).reshape(lk.shape)
            safe = _all_cols(room)
        acc = idx[safe]
        accepted.append(acc)
        np.add.at(used, links[acc].ravel(), 1)
        used[sentinel] = 0
        rest = idx[~safe]
        if len(rest) == 0:
            break
        idx = rest[_all_cols((used < cap)[links[rest]])]
    return cand[np.sort(np.concatenate(accepted))] if accepted else cand[:0]


def check_round(dag: WorkloadDAG, ids: np.ndarray, sent_round: np.ndarray, waiting: np.ndarray,
                round_no: int, ext: np.ndarray | None = None) -> list[Violation]:
    """The rules a round would break, given the state before it (the one place rounds are checked).

    `ext` maps internal workload ids to the ids shown in messages (a file's own ids).
    """
    out: list[Violation] = []
    topo = dag.topology

    def show(w: int) -> int:
        return int(w) if ext is None else int(ext[w])

    def name(w: int) -> str:
        return dag.describe(w, show(w))

    bad = (ids < 0) | (ids >= dag.n)
    for w in ids[bad].tolist():
        out.append(Violation("unknown", round_no, w, None, f"round {round_no}: workload {w} does not exist"))
    ids = ids[~bad]
    uniq, counts = np.unique(ids, return_counts=True)
    for w in uniq[counts > 1].tolist():
        out.append(Violation("duplicate", round_no, show(w), None,
                             f"round {round_no}: workload {name(w)} appears twice in the round"))
    for w in uniq[sent_round[uniq] >= 0].tolist():
        out.append(Violation("already-sent", round_no, show(w), None,
                             f"round {round_no}: workload {name(w)} was already sent in round {sent_round[w]}"))
    for w in uniq[(waiting[uniq] > 0) & (sent_round[uniq] < 0)].tolist():
        missing = [show(p) for p in dag.prefix.row(w).tolist() if sent_round[p] < 0]
        out.append(Violation("prefix", round_no, show(w), None,
                             f"round {round_no}: workload {name(w)} waits for prefix "
                             f"{', '.join(map(str, missing[:5]))}{'...' if len(missing) > 5 else ''} not sent earlier"))
    lk = dag.links_padded[uniq]
    load = np.bincount(lk.ravel(), minlength=topo.n_links + 1)[:-1]
    cap = topo.link_capacity
    for link in np.flatnonzero(load > cap).tolist():
        on = [show(w) for w in uniq[(lk == link).any(axis=1)].tolist()]
        out.append(Violation("capacity", round_no, on[-1], link,
                             f"round {round_no}: link {topo.link_label(link)} carries {load[link]} workloads "
                             f"({', '.join(map(str, on[:6]))}) over its capacity {cap[link]}"))
    return out


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
        violations.extend(v)
        ok = ids[(ids >= 0) & (ids < dag.n)]
        ok = np.unique(ok)
        ok = ok[eng.sent_round[ok] < 0]
        eng._commit(ok)  # noqa: SLF001 - replay keeps going to report everything
    for w in np.flatnonzero(eng.sent_round < 0)[:1000].tolist():
        shown = w if ext is None else int(ext[w])
        violations.append(Violation("missing", None, shown, None, f"workload {dag.describe(w, shown)} is never sent"))
    return eng, violations


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


def list_schedule(dag: WorkloadDAG, rank: np.ndarray) -> Rounds:
    """Rounds of the list scheduler: each round walks the ready workloads by ascending `rank`
    (ties by workload id) and keeps every one that still fits (`Engine.fill`)."""
    order = np.lexsort((np.arange(dag.n), rank))  # workloads in priority order
    place = np.empty(dag.n, dtype=np.int64)
    place[order] = np.arange(dag.n)
    engine = Engine(dag)
    ready_by_place = engine.ready_mask()[order].copy()  # the ready set, kept in priority order

    def select(eng: Engine) -> np.ndarray:
        if eng.n_rounds:
            ready_by_place[place[eng.last_round]] = False
            ready_by_place[place[eng.last_freed]] = True
        return eng.fill(order[np.flatnonzero(ready_by_place)])

    return engine.run(select, check=False).rounds
