"""Compiled kernels of the engine's greedy round fill (numba), used only by `core.engine`.

`fill_mask` is the one-by-one greedy itself: walk the candidates in order and keep each one
whose links all have room. `ClassHeads` runs the same greedy for a list scheduler over the
whole ready set without walking all of it every round (docs/scale.md):

* workloads with the same link tuple form a **route class**; two of them always conflict on
  every link, so the greedy can keep at most ``c`` of a class in one round (c = the smallest
  capacity on its links), and it keeps them in priority order: once one of the class is
  refused, every later one is refused too (the load on its links only grows);
* so each round only the best ready workload of every class (its **head**) needs to be
  walked, in priority order, plus the class's next one when a head was kept and c > 1.
  The result is exactly the one-by-one greedy over every ready workload.

Each class keeps its ready workloads sorted by priority in a window of its own region (they
mostly become ready in priority order, so an insertion is usually an append, and the memory
touched stays a cache line or two); the heads are kept as one sorted array, updated each
round only for the classes that changed.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .csr import CSR
from .jit import SMALL, both, kernel, prefetch
from .route_classes import class_table, classes_of


@kernel
def fill_mask(cand, lptr, lval, cap, used):  # pragma: no cover - compiled
    """Which of `cand` (in order) the one-by-one greedy keeps; `used` (per link) is updated."""
    keep = np.zeros(len(cand), np.bool_)
    for i in range(len(cand)):
        w = cand[i]
        ok = True
        for e in range(lptr[w], lptr[w + 1]):
            if used[lval[e]] >= cap[lval[e]]:
                ok = False
                break
        if ok:
            for e in range(lptr[w], lptr[w + 1]):
                used[lval[e]] += 1
            keep[i] = True
    return keep


@kernel(nogil=True)
def _class_ids(lptr, lval, width, sentinel):  # pragma: no cover - compiled
    """Route class of every workload (workloads with the same link tuple share one), by hashing: the padded
    links of 1,024 workloads at a time through `core.route_classes.classes_of`.

    Returns (class of each workload, links of each class padded with `sentinel` to `width`). The
    hash table and the class links stay small (classes, not workloads), so they stay in cache.
    """
    n = len(lptr) - 1
    table, clinks, chash = class_table(width)
    cls = np.empty(n, np.int32)
    n_cls = 0
    block = 1024  # workloads a call of `classes_of`: their keys stay in L1
    keys = np.empty((block, width), np.int64)
    for w0 in range(0, n, block):
        m = min(block, n - w0)
        for r in range(m):
            w = w0 + r
            for k in range(width):
                keys[r, k] = lval[lptr[w] + k] if lptr[w] + k < lptr[w + 1] else sentinel
        n_cls, table, clinks, chash = classes_of(keys[:m], cls[w0:w0 + m], table, clinks, chash, n_cls)
    return cls, clinks[:n_cls].copy()


@kernel
def _push(queue, crow, c, key, lo_col):  # pragma: no cover - compiled
    """Insert `key` into class c's sorted window queue[lo:hi] (``crow[c, lo_col]``, ``crow[c, lo_col
    + 1]``), from the back: ready workloads of a critical-path order mostly arrive in priority order,
    so this is usually an append."""
    lo = crow[c, lo_col]
    k = crow[c, lo_col + 1]
    while k > lo and queue[k - 1] > key:
        queue[k] = queue[k - 1]
        k -= 1
    queue[k] = key
    crow[c, lo_col + 1] += 1


@kernel(nogil=True)
def _push_all(state, crow, queue, freed, c0, c1, lo_col):  # pragma: no cover - compiled
    """Push the workloads of `freed` whose class is in c0..c1-1 into their class windows (see `_push`): append
    each, then sort each window of those classes. A window ends up holding the same sorted keys in whatever
    order its pushes come, so this is `_push` one by one with the shifting done per class, in cache, instead
    of per workload in windows scattered over the queue (the first round pushes every initially ready
    workload); two calls with disjoint class ranges write disjoint rows and windows."""
    hi_col = lo_col + 1
    n_freed = len(freed)
    for k in range(n_freed):
        if k + 12 < n_freed:
            prefetch(crow[state[freed[k + 12], CLASS]], hi_col)
        if k + 4 < n_freed:
            c2 = state[freed[k + 4], CLASS]
            if c0 <= c2 < c1:
                prefetch(queue, crow[c2, hi_col])
        w = freed[k]
        c = np.int64(state[w, CLASS])
        if c < c0 or c >= c1:
            continue
        hi = crow[c, hi_col]
        queue[hi] = (np.int64(state[w, PLACE]) << 32) | w
        crow[c, hi_col] = hi + 1
    for c in range(c0, c1):
        if crow[c, hi_col] - crow[c, lo_col] > 1:
            queue[crow[c, lo_col]:crow[c, hi_col]].sort()


@kernel
def _sort_bits(keys, shift0, n_bits):  # pragma: no cover - compiled
    """A sorted copy of `keys` (non-negative, unique in bits shift0 .. shift0 + n_bits - 1, none above):
    an LSD radix sort on those bits, 11 at a time (a round's few thousand fresh heads, or kept ids, sort
    several times faster than by comparison)."""
    n = len(keys)
    if n < 256:
        return np.sort(keys)
    src = keys.copy()
    dst = np.empty(n, np.int64)
    count = np.empty(2049, np.int64)
    shift = shift0
    while shift < shift0 + n_bits:
        count[:] = 0
        for k in range(n):
            count[((src[k] >> shift) & 2047) + 1] += 1
        for b in range(2048):
            count[b + 1] += count[b]
        for k in range(n):
            d = (src[k] >> shift) & 2047
            dst[count[d]] = src[k]
            count[d] += 1
        src, dst = dst, src
        shift += 11
    return src


@kernel
def _round(state, crow, width, cap, queue, heads, n_heads, new_heads,
           changed, freed, room, pending, kept, extra, lused, n_place_bits):  # pragma: no cover - compiled
    """One round of the class-head list scheduler: add `freed`, refresh heads, walk them.

    ``state[w, PLACE]``, ``state[w, CLASS]``: workload w's place and class, in the engine's row for w (the
    engine's release has just read that row's wait count, so it is in cache). In a class's queue a workload
    is ``place << 32 | w``
    (ascending = priority order; the id comes back without a look-up). A head and an entry of
    the `extra` heap is ``place << 32 | class``: places are unique, so the order is the same,
    the heads need no second array, and the fresh ones are sorted by value (no argsort).
    Returns (kept workload ids, ascending, new number of heads). `heads[:n_heads]` holds the ascending heads
    of every non-empty class; the new ones are written to `new_heads`.

    `crow` holds one row per class, so that a head's visit reads one cache line: its links
    (`width` of them, padded with the sentinel link, whose capacity is unlimited), then its
    capacity (the least of its links'), its front (best ready workload, valid while it has a head),
    and the bounds lo, hi of its window in `queue`. The state, the queues and the rows are far larger
    than the caches at scale, so each loop asks for them (`prefetch`) a few steps ahead.
    """
    n_cls = len(crow)
    CC, FR, LO, HI = width, width + 1, width + 2, width + 3
    touched = np.zeros((n_cls >> 6) + 1, np.uint64)  # a bit per class: small enough for L1
    todo = np.empty(len(freed) + n_cls + 1, np.int64)  # classes whose head is stale
    n_todo = 0
    low = np.int64(0xFFFFFFFF)
    high = ~low
    n_freed = len(freed)
    for k in range(n_freed):
        if k + 24 < n_freed:
            prefetch(state[freed[k + 24]], PLACE)
        if k + 12 < n_freed:
            prefetch(crow[state[freed[k + 12], CLASS]], HI)
        if k + 4 < n_freed:
            c2 = state[freed[k + 4], CLASS]
            prefetch(queue, max(crow[c2, HI] - 1, 0))
        w = freed[k]
        c = np.int64(state[w, CLASS])
        _push(queue, crow, c, (np.int64(state[w, PLACE]) << 32) | w, LO)
        bit = np.uint64(1) << np.uint64(c & 63)
        if not changed[c] and not (touched[c >> 6] & bit):
            touched[c >> 6] |= bit
            todo[n_todo] = c
            n_todo += 1
    # the new heads of the classes that changed: the ones the last walk took from, and the ones
    # that got work; all other heads stay
    for t in range(len(pending)):
        c = pending[t]
        if c < 0:
            break
        changed[c] = False  # the walk below records the classes it takes from afresh
        touched[c >> 6] |= np.uint64(1) << np.uint64(c & 63)
        todo[n_todo] = c
        n_todo += 1
    fresh = np.empty(n_todo + 1, np.int64)
    n_fresh = 0
    for t in range(n_todo):
        if t + 16 < n_todo:
            prefetch(crow[todo[t + 16]], LO)
        if t + 8 < n_todo:
            prefetch(queue, min(crow[todo[t + 8], LO], len(queue) - 1))
        c = todo[t]
        if crow[c, HI] > crow[c, LO]:
            x = queue[crow[c, LO]]
            fresh[n_fresh] = (x & high) | c
            crow[c, FR] = x & low  # the walk reads the kept workload here, not in the (cold) queue
            n_fresh += 1
    fresh = _sort_bits(fresh[:n_fresh], 32, n_place_bits)

    # one pass: merge the unchanged old heads with the fresh ones into new_heads, and walk the
    # result in priority order; `extra` is a small heap of next-in-class candidates (c > 1)
    n_kept = 0
    n_extra = 0
    n_pend = 0
    n_lused = 0
    i = 0  # next old head
    j = 0  # next fresh head
    out = 0  # heads written
    inf = np.iinfo(np.int64).max
    while True:
        while i < n_heads and (touched[(heads[i] & low) >> 6] >> np.uint64(heads[i] & 63)) & np.uint64(1):
            i += 1
        if i + 32 < n_heads:
            prefetch(crow[heads[i + 32] & low], 0)
        if j + 32 < n_fresh:
            prefetch(crow[fresh[j + 32] & low], 0)
        hp = heads[i] if i < n_heads else inf
        fp = fresh[j] if j < n_fresh else inf
        ep = extra[0] if n_extra > 0 else inf
        if hp == inf and fp == inf and ep == inf:
            break
        if ep < hp and ep < fp:
            p = ep
            n_extra -= 1  # pop the extra heap
            last = extra[n_extra]
            ii = 0
            while True:
                ch = 2 * ii + 1
                if ch >= n_extra:
                    break
                if ch + 1 < n_extra and extra[ch + 1] < extra[ch]:
                    ch += 1
                if extra[ch] >= last:
                    break
                extra[ii] = extra[ch]
                ii = ch
            if n_extra > 0:
                extra[ii] = last
        else:
            if hp < fp:
                p = hp
                i += 1
            else:
                p = fp
                j += 1
            new_heads[out] = p
            out += 1
        c = p & low
        free = np.int64(1)  # no early exit: which link is full first is unpredictable
        for e in range(width):
            free = min(free, np.int64(room[crow[c, e]]))
        if free <= 0:
            continue
        for e in range(width):
            lk = crow[c, e]
            if room[lk] == cap[lk]:
                lused[n_lused] = lk
                n_lused += 1
            room[lk] -= 1
        kept[n_kept] = crow[c, FR]  # it was the class's best
        n_kept += 1
        crow[c, LO] += 1
        if not changed[c]:
            changed[c] = True
            pending[n_pend] = c
            n_pend += 1
        if crow[c, CC] > 1 and crow[c, HI] > crow[c, LO]:  # the class's next workload may still fit this round
            x = queue[crow[c, LO]]
            crow[c, FR] = x & low
            q = (x & high) | c
            ii = n_extra
            n_extra += 1
            while ii > 0:
                par = (ii - 1) >> 1
                if extra[par] <= q:
                    break
                extra[ii] = extra[par]
                ii = par
            extra[ii] = q
    for t in range(n_lused):
        room[lused[t]] = cap[lused[t]]
    if n_pend < len(pending):
        pending[n_pend] = -1
    return _sort_bits(kept[:n_kept], 0, n_place_bits), out  # ids and places are both below n


PLACE, CLASS = 2, 3
"""Columns of the engine's state rows (`Engine(dag, columns=4)`) where `ClassHeads` keeps each workload's
place and route class, beside its wait count and round (columns 0 and 1)."""


@kernel(interpret_below=SMALL)
def _place_class(place, cls, state):  # pragma: no cover - compiled
    """Write each workload's place and class into its state row, in one pass."""
    for w in range(len(place)):
        state[w, PLACE] = place[w]
        state[w, CLASS] = cls[w]


class ClassHeads:
    """State of the class-head list scheduler over one DAG and one priority order."""

    def __init__(self, links: CSR, capacity: np.ndarray, prepare: Callable[[], tuple[np.ndarray, np.ndarray]],
                 classes: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]] | None = None):
        """`prepare()` returns (place, state), and runs while the route classes are found on a second core
        (`jit.both`): `place[w]` is workload w's position in the walk order (a permutation of 0..n-1),
        `state` the engine's int32 rows (one per workload first, at least CLASS + 1 columns), whose PLACE and
        CLASS columns this fills. `classes(state)`, when given, writes the classes into the CLASS column itself
        (the plain PS DAG's, from its hops: `workloads.PlainClasses`) and returns (each class's links padded with
        the sentinel link to the most links of one workload, as `_class_ids` gives them; each class's size);
        then nothing is hashed."""
        n = links.n_rows
        n_links = len(capacity)
        width = max(1, int(links.lengths.max()) if n else 1)
        # the classes' links are padded with the sentinel link (`n_links`)
        if classes is not None:
            place, state = prepare()
            clinks, size = classes(state)
            if clinks.shape[1:] != (width,):
                raise ValueError(f"route classes of {clinks.shape[1:]} links for workloads of up to {width}")
            self.state = state
            state[: len(place), PLACE] = place
            del place
        else:
            (cls, clinks), (place, state) = both(lambda: _class_ids(links.ptr, links.values, width, n_links),
                                                 prepare, size=n)
            # in the engine's rows: pushing a workload that the engine's release has just made ready reads a
            # cache line the release has just read (docs/scale.md)
            self.state = state
            _place_class(np.asarray(place), cls, state)
            del place
            size = np.bincount(cls, minlength=len(clinks))
            del cls
        n_cls = len(clinks)
        cap = np.asarray(capacity, dtype=np.int64)
        self.cap = np.r_[cap, 2 ** 30]  # the sentinel link never fills
        # one row per class (see `_round`): links, capacity, front, lo, hi; rows of a power of two
        # int32s, so that none straddles two cache lines
        self.width = width
        self.crow = np.zeros((n_cls, 1 << (width + 3).bit_length()), np.int32)
        self.crow[:, :width] = clinks
        self.crow[:, width] = self.cap[clinks].min(axis=1) if n_cls else 0
        # each class's ready workloads, sorted by key, in queue[lo:hi] inside its own region
        # (every workload enters once and leaves once, so a region of the class's size suffices)
        self.crow[:, width + 2] = np.r_[0, np.cumsum(size)[:-1]] if n_cls else 0
        self.crow[:, width + 3] = self.crow[:, width + 2]
        self.queue = np.empty(n, np.int64)
        self.heads = np.empty(n_cls + 1, np.int64)
        self.new_heads = np.empty(n_cls + 1, np.int64)
        self.n_heads = 0
        self.place_bits = max(1, int(n - 1).bit_length())
        self.changed = np.zeros(n_cls, np.bool_)
        self.pending = np.full(n_cls + 1, -1, np.int64)
        self.room = self.cap.astype(np.int32) if n_links else np.zeros(1, np.int32)  # free lanes per link
        linkless = int(np.count_nonzero(links.ptr[1:] == links.ptr[:-1]))
        room = int(min(cap.sum() + linkless, n)) + 1  # a round keeps at most this many workloads
        self.kept = np.empty(room, np.int64)
        self.extra = np.empty(room, np.int64)
        self.lused = np.empty(n_links + 2, np.int64)
        self.n_rounds = 0

    def _push_first(self, freed: np.ndarray) -> None:
        """The first round's pushes (every initially ready workload, into empty windows) by `_push_all`, the
        classes in two halves of the queue on two cores (`jit.both`), and those classes listed in `pending`,
        whose heads the round then makes as it makes those of the classes a walk took from."""
        lo, hi = self.width + 2, self.width + 3
        n_cls = len(self.crow)
        mid = int(np.searchsorted(self.crow[:, lo], len(self.queue) // 2)) if n_cls else 0
        both(lambda: _push_all(self.state, self.crow, self.queue, freed, 0, mid, lo),
             lambda: _push_all(self.state, self.crow, self.queue, freed, mid, n_cls, lo), size=len(freed))
        got = np.flatnonzero(self.crow[:, hi] > self.crow[:, lo])
        self.pending[: len(got)] = got
        self.pending[len(got)] = -1

    def next_round(self, freed: np.ndarray) -> np.ndarray:
        """Add the newly ready workloads `freed`, then return the round the greedy keeps (ascending ids,
        read-only: the engine records it as it is)."""
        freed = np.asarray(freed, dtype=np.int64)
        if self.n_rounds == 0 and len(freed):  # every window is empty
            self._push_first(freed)
            freed = freed[:0]
        self.n_rounds += 1
        kept, self.n_heads = _round(self.state, self.crow, self.width, self.cap, self.queue, self.heads,
                                    self.n_heads, self.new_heads, self.changed,
                                    freed, self.room, self.pending, self.kept,
                                    self.extra, self.lused, self.place_bits)
        self.heads, self.new_heads = self.new_heads, self.heads
        kept.setflags(write=False)
        return kept
