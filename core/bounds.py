"""Lower bounds on the number of rounds (MODEL.md §6), and one stronger bound of our own.

- link load: max over directed links of ceil(load / capacity);
- critical path: the longest prefix chain;
- ports (routing-free): a non-root server sends at least k(S-1) reduce pieces, so
  rounds >= ceil(k(S-1) / its outgoing capacity);
- link schedule (ours, valid for the DAG): for each link, the optimal one-link schedule of its
  workloads with release rounds = head and delivery tails = tail - 1 (Jackson's rule,
  largest tail first, is exact for unit-time jobs on parallel identical machines).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import csr
from .jit import kernel
from .workloads import WorkloadDAG


@dataclass(frozen=True)
class Bounds:
    """The lower bounds of one DAG; `best` is their maximum."""

    link_load: int
    critical_path: int
    ports: int
    link_schedule: int

    @property
    def best(self) -> int:
        """The largest (tightest) bound."""
        return max(self.link_load, self.critical_path, self.ports, self.link_schedule)

    @property
    def dag(self) -> int:
        """The bound MODEL.md §6 defines for a DAG: max(link load, critical path)."""
        return max(self.link_load, self.critical_path)

    def as_dict(self) -> dict:
        """All bounds and the best, as plain ints."""
        return {"link_load": self.link_load, "critical_path": self.critical_path, "ports": self.ports,
                "link_schedule": self.link_schedule, "best": self.best}


def ports_bound(dag: WorkloadDAG) -> int:
    """ceil(k(S-1) / outgoing capacity) over servers: independent of routing."""
    t = dag.topology
    out = t.out_capacity()[t.servers]
    need = dag.chunks * (t.n_servers - 1)
    return int(np.max(-(-need // out)))


def link_schedule_bound(dag: WorkloadDAG) -> int:
    """max over links of the exact one-link relaxation (release = head, tail = tail - 1)."""
    return one_link_bound(dag.links, dag.head, dag.tail, dag.topology.link_capacity.astype(np.int64))


def one_link_bound(links: csr.CSR, head: np.ndarray, tail: np.ndarray, cap: np.ndarray) -> int:
    """`link_schedule_bound` of workloads whose links are the rows of `links` (values: link ids below len(cap)),
    with releases `head` and tails `tail` - 1."""
    n_links = len(cap)
    # each link's load and range of (release, tail), then the counts of its (release, tail) pairs, in two passes over
    # the links' CSR in workload order: no transpose (0.7 GiB at BCube(16,2)) and no gathered rows (docs/scale.md,
    # fourteenth step). Links whose ranges hold more than HISTOGRAM_CELLS cells, or beyond CELL_BUDGET in all, take the
    # transpose and the heap (`_link_schedule`), and only where their bound could beat the rest's
    lptr, lval = links.ptr, links.values
    count, hmin, hmax, tmin, tmax = _link_ranges(lptr, lval, head, tail, n_links)
    order = np.argsort(-count, kind="stable")
    size = (hmax - hmin + 1) * (tmax - tmin + 1) * (count > 0)
    fits = (size <= HISTOGRAM_CELLS) & (count > 0)
    off = np.full(n_links, -1, np.int64)
    ordered = np.where(fits[order], size[order], 0)
    within = np.cumsum(ordered) <= CELL_BUDGET  # the largest loads first
    keep = order[fits[order] & within]
    off[keep] = np.r_[0, np.cumsum(size[keep])[:-1]] if len(keep) else keep
    cells = np.zeros(int(size[keep].sum()), np.int64)
    _link_cells(lptr, lval, head, tail, off, hmin, tmin, tmax, cells)
    best, rest = _link_counts_bound(order, count, hmin, hmax, tmin, tmax, cap, off, cells)
    del cells
    if rest:  # links left to the heap whose bound could beat `best`
        by_link = links.transpose(n_links)
        left = order[(off[order] < 0) & (count[order] > 0)]
        best = max(best, int(_link_schedule(left, by_link.ptr, by_link.values, head, tail, cap, HISTOGRAM_CELLS,
                                            best)))
    return int(best)


NAMED_LINK_MAX = 1 << 20
"""`link_schedule_link` names a link on DAGs up to this many workloads (its search transposes the links)."""


def link_schedule_link(dag: WorkloadDAG, bound: int) -> int | None:
    """A directed link whose one-link relaxation reaches `bound` (`link_schedule_bound`'s value), the heaviest such,
    so that a report can say where the bound comes from (trial 32: "link schedule 5", and no word of which link);
    None on a DAG over `NAMED_LINK_MAX` workloads or where no link reaches it."""
    if dag.n == 0 or dag.n > NAMED_LINK_MAX or bound <= 0:
        return None
    cap = dag.topology.link_capacity.astype(np.int64)
    head, tail = dag.head, dag.tail
    count, _, hmax, _, tmax = _link_ranges(dag.links.ptr, dag.links.values, head, tail, len(cap))
    by_link = dag.links.transpose(len(cap))
    for g in np.argsort(-count, kind="stable").tolist():
        if count[g] == 0:
            break
        if hmax[g] + -(-count[g] // cap[g]) + tmax[g] < bound:  # its upper bound cannot reach it
            continue
        if _link_schedule(np.array([g], np.int64), by_link.ptr, by_link.values, head, tail, cap, HISTOGRAM_CELLS,
                          0) >= bound:
            return g
    return None


def schedule_link_name(dag: WorkloadDAG, bounds: dict) -> str | None:
    """``A->B``, the directed link whose one-link relaxation gives the link-schedule bound (`link_schedule_link`),
    where that bound (of `bounds`, `Bounds.as_dict`) is above the link load and the critical path: the one closed-form
    bound no count explains (trial 32); else None."""
    if bounds["link_schedule"] <= max(bounds["link_load"], bounds["critical_path"]):
        return None
    g = link_schedule_link(dag, bounds["link_schedule"])
    t = dag.topology
    return None if g is None else f"{t.labels[t.link_src[g]]}->{t.labels[t.link_dst[g]]}"


HISTOGRAM_CELLS = 4096
"""A link runs Jackson's rule over counts (`_jackson_counts`) where its workloads have at most this many (release,
tail) cells, else over the sorted jobs with a heap (`_jackson_sorted`)."""

CELL_BUDGET = 1 << 24
"""The most (release, tail) cells `link_schedule_bound` counts in all (8 bytes each): the links of the largest loads
first; the rest take the heap."""


@kernel(nogil=True)
def _link_ranges(lptr, lval, head, tail, n_links):  # pragma: no cover - compiled
    """Per link: how many workloads cross it and the least and largest head and tail - 1 among them (0 and -1 ... for
    a link nobody crosses), in one pass over the links' CSR."""
    count = np.zeros(n_links, np.int64)
    hmin = np.zeros(n_links, np.int64)
    hmax = np.zeros(n_links, np.int64)
    tmin = np.zeros(n_links, np.int64)
    tmax = np.zeros(n_links, np.int64)
    for w in range(len(lptr) - 1):
        h = np.int64(head[w])
        t = np.int64(tail[w]) - 1
        for e in range(lptr[w], lptr[w + 1]):
            g = lval[e]
            if count[g] == 0:
                hmin[g] = hmax[g] = h
                tmin[g] = tmax[g] = t
            else:
                hmin[g] = min(hmin[g], h)
                hmax[g] = max(hmax[g], h)
                tmin[g] = min(tmin[g], t)
                tmax[g] = max(tmax[g], t)
            count[g] += 1
    return count, hmin, hmax, tmin, tmax


@kernel(nogil=True)
def _link_cells(lptr, lval, head, tail, off, hmin, tmin, tmax, cells):  # pragma: no cover - compiled
    """Count each link's (release, tail) pairs into its block of `cells` (row-major, release by tail, from `off`;
    links with off -1 are left out), in one pass over the links' CSR."""
    for w in range(len(lptr) - 1):
        h = np.int64(head[w])
        t = np.int64(tail[w]) - 1
        for e in range(lptr[w], lptr[w + 1]):
            g = lval[e]
            if off[g] >= 0:
                cells[off[g] + (h - hmin[g]) * (tmax[g] - tmin[g] + 1) + (t - tmin[g])] += 1


@kernel
def _link_counts_bound(order, count, hmin, hmax, tmin, tmax, cap, off, cells):  # pragma: no cover - compiled
    """The largest one-link bound over the links with counted cells, in `order` (by load, largest first): each one's
    simple bound (min head + ceil(load / capacity) + min tail - 1) and, unless its upper one (the same with the
    maxima) cannot beat the best so far, Jackson's rule over its counts. Returns (best, whether a link without
    counts could beat it)."""
    best = 0
    for g in order:
        if count[g] == 0:
            break
        if off[g] < 0:
            continue
        c = cap[g]
        rounds = -(-count[g] // c)
        if hmax[g] + rounds + tmax[g] <= best:
            continue
        n_rel, n_tail = hmax[g] - hmin[g] + 1, tmax[g] - tmin[g] + 1
        block = cells[off[g]:off[g] + n_rel * n_tail].reshape((n_rel, n_tail))
        best = max(best, hmin[g] + rounds + tmin[g], _jackson_counts(block, hmin[g], tmin[g], c))
    rest = False
    for g in order:
        if count[g] == 0:
            break
        if off[g] < 0 and hmax[g] + -(-count[g] // cap[g]) + tmax[g] > best:
            rest = True
    return best, rest


@kernel
def _link_schedule(order, bptr, bval, head, tail, cap, max_cells, best):  # pragma: no cover - compiled
    """`link_schedule_bound` over the links in `order` (by load, largest first; the rows of `bptr`/`bval` list each
    link's workloads): per link its simple bound (min head + ceil(load / capacity) + min tail - 1) and, unless its
    upper one (the same with the maxima) cannot beat the best so far, Jackson's rule over its workloads sorted by
    release: over the counts of its (release, tail) pairs where there are at most `max_cells` of them
    (`_jackson_counts`), else with a heap over the jobs sorted by release (`_jackson_sorted`; the order among equal
    releases does not change its value). `best`: a bound already known (the links with counted cells'), which a
    link must beat to be worth the rule."""
    width = 0
    for g in order:
        width = max(width, bptr[g + 1] - bptr[g])
    rel = np.empty(width, np.int64)
    tl = np.empty(width, np.int64)
    for g in order:
        lo, hi = bptr[g], bptr[g + 1]
        m = hi - lo
        if m == 0:
            break
        w = bval[lo]
        hmin = hmax = np.int64(head[w])
        tmin = tmax = np.int64(tail[w]) - 1
        for e in range(lo, hi):
            w = bval[e]
            h = np.int64(head[w])
            t = np.int64(tail[w]) - 1
            rel[e - lo] = h
            tl[e - lo] = t
            hmin = min(hmin, h)
            hmax = max(hmax, h)
            tmin = min(tmin, t)
            tmax = max(tmax, t)
        c = cap[g]
        rounds = -(-m // c)
        simple = hmin + rounds + tmin
        upper = hmax + rounds + tmax
        if upper <= best:
            continue
        if (hmax - hmin + 1) * (tmax - tmin + 1) <= max_cells:
            # few distinct (release, tail) pairs (a tree's depths): Jackson's rule over their counts
            cells = np.zeros((hmax - hmin + 1, tmax - tmin + 1), np.int64)
            for e in range(m):
                cells[rel[e] - hmin, tl[e] - tmin] += 1
            jackson = _jackson_counts(cells, hmin, tmin, c)
        else:
            by_release = np.argsort(rel[:m], kind="mergesort")
            jackson = _jackson_sorted(rel[:m][by_release], tl[:m][by_release], c)
        best = max(best, simple, jackson)
    return best


@kernel
def _jackson_counts(cells, hmin, tmin, cap):  # pragma: no cover - compiled
    """`_jackson_sorted`'s value from the jobs' counts: `cells[i, j]` jobs of release hmin + i and tail tmin + j.
    The same rounds: each round releases what is due (or, with none waiting, jumps to the next release), then
    runs the `cap` waiting jobs of largest tail, the first of which sets that round's round_end + tail; a count
    per tail stands for the heap (the jobs of one tail are alike)."""
    n_rel, n_tail = cells.shape
    waiting = np.zeros(n_tail, np.int64)
    top = -1  # the largest tail index with a job waiting
    size = 0
    i = 0  # the next release row not yet released
    t, best = 0, 0
    while True:
        if size == 0:
            while i < n_rel and cells[i].sum() == 0:
                i += 1
            if i == n_rel:
                break
            if hmin + i > t:
                t = hmin + i
        while i < n_rel and hmin + i <= t:
            for j in range(n_tail):
                if cells[i, j]:
                    waiting[j] += cells[i, j]
                    size += cells[i, j]
                    if j > top:
                        top = j
            i += 1
        k = min(cap, size)
        if k > 0:
            if t + 1 + tmin + top > best:
                best = t + 1 + tmin + top
            size -= k
            while k > 0:
                take = min(k, waiting[top])
                waiting[top] -= take
                k -= take
                while top >= 0 and waiting[top] == 0:
                    top -= 1
        t += 1
    return best


@kernel
def _jackson_sorted(rel, tl, cap):  # pragma: no cover - compiled
    """Jackson's rule over jobs sorted by release: each round runs the `cap` ready jobs of largest tail."""
    n = len(rel)
    heap = np.empty(n, np.int64)  # max-heap of the tails of released jobs
    size = 0
    i, t, best = 0, 0, 0
    while i < n or size > 0:
        if size == 0 and rel[i] > t:
            t = rel[i]
        while i < n and rel[i] <= t:
            k = size  # push tl[i]
            size += 1
            while k > 0 and heap[(k - 1) >> 1] < tl[i]:
                heap[k] = heap[(k - 1) >> 1]
                k = (k - 1) >> 1
            heap[k] = tl[i]
            i += 1
        for _ in range(min(cap, size)):
            top = heap[0]  # pop the largest tail
            size -= 1
            last = heap[size]
            k = 0
            while True:
                c = 2 * k + 1
                if c >= size:
                    break
                if c + 1 < size and heap[c + 1] > heap[c]:
                    c += 1
                if heap[c] <= last:
                    break
                heap[k] = heap[c]
                k = c
            if size > 0:
                heap[k] = last
            if t + 1 + top > best:
                best = t + 1 + top
        t += 1
    return best


def link_load_bound(dag: WorkloadDAG) -> int:
    """max over directed links of ceil(load / capacity): a link sends at most its capacity of workloads a round."""
    return int(np.max(-(-dag.link_load // dag.topology.link_capacity))) if dag.n else 0


def lower_bounds(dag: WorkloadDAG) -> Bounds:
    """All lower bounds of a DAG."""
    return Bounds(link_load=link_load_bound(dag), critical_path=int(dag.tail.max()) if dag.n else 0,
                  ports=ports_bound(dag), link_schedule=link_schedule_bound(dag))


ROUNDING = 1e-12
"""A relative difference float rounding can make between a time and its bound summed in another order (a few ulps,
~1e-16 each); `gap` reads one this small below the bound as none."""


def gap(value: float, bound: float) -> float:
    """How far `value` is above its lower `bound`: value / bound - 1 (0 when the bound is 0, and where `value` is
    below the bound by float rounding alone: a time and its bound added in another order, trial 27's "-0.0%")."""
    if not bound:
        return 0.0
    g = float(value) / float(bound) - 1.0
    return 0.0 if -ROUNDING < g < 0 else g


# ---- lower bounds in seconds (docs/time.md) ------------------------------------------------


@dataclass(frozen=True)
class TimeBounds:
    """Lower bounds on the AllReduce time in seconds; `best` is their maximum.

    bandwidth: any AllReduce (no DAG): the servers' own links must carry the data (nccl-tests'
        2(n-1) transfers per element, over the summed server bandwidth; and each server sends and
        receives at least M);
    link: this DAG: bytes on its busiest directed link / that link's bandwidth;
    latency: this DAG: its longest prefix chain, counting only link latencies;
    critical_path: this DAG: its longest prefix chain of whole transfer times (latency + piece /
        bottleneck), which no replay can beat.
    """

    bandwidth: float
    link: float
    latency: float
    critical_path: float

    @property
    def best(self) -> float:
        """The largest (tightest) bound."""
        return max(self.bandwidth, self.link, self.latency, self.critical_path)

    def as_dict(self) -> dict:
        """All bounds and the best, in seconds."""
        return {"bandwidth": self.bandwidth, "link": self.link, "latency": self.latency,
                "critical_path": self.critical_path, "best": self.best}


def bandwidth_bound(dag: WorkloadDAG, size: float, link_bandwidth: np.ndarray | None = None) -> float:
    """Seconds no AllReduce of `size` bytes over the DAG's servers can beat, whatever its routes.

    Every element needs 2(n-1) server-to-server transfers (n-1 additions, n-1 copies of the sum;
    nccl-tests doc/PERFORMANCE.md), each leaving one server and entering one, so
    T >= 2(n-1)·M / (summed egress bandwidth of the n servers), and the same for ingress. Each
    server also sends and receives at least one value per element: T >= M / its own bandwidth.
    With equal servers of bandwidth B both give the familiar 2(n-1)/n · M / B at most.
    """
    from .timing import link_arrays, n_ranks
    bw, _ = link_arrays(dag, link_bandwidth)
    t = dag.topology
    servers = np.unique(dag.tree_root)
    n = n_ranks(dag)
    rate = bw * (1e9 / 8)
    out = np.bincount(t.link_src, weights=rate, minlength=t.n_nodes)[servers]
    inn = np.bincount(t.link_dst, weights=rate, minlength=t.n_nodes)[servers]
    if n < 2 or not (out.min() > 0 and inn.min() > 0):
        return 0.0 if n < 2 else float("inf")
    return float(max(2 * (n - 1) * size / out.sum(), 2 * (n - 1) * size / inn.sum(),
                     size / out.min(), size / inn.min()))


def time_bounds(dag: WorkloadDAG, size: float, link_bandwidth: np.ndarray | None = None,
                link_latency: np.ndarray | None = None, durations: np.ndarray | None = None) -> TimeBounds:
    """All lower bounds in seconds for moving `size` bytes with this DAG (per-link overrides as in timing;
    `durations` may pass the transfer times already computed for the same size and links)."""
    from .timing import link_arrays, longest_chain, piece_bytes, transfer_times
    from .timing.model import path_latency
    bw, lat = link_arrays(dag, link_bandwidth, link_latency)
    rate = bw * (1e9 / 8)
    load = dag.link_load * piece_bytes(dag, size)
    used = load > 0
    link = float(np.max(load[used] / rate[used])) if used.any() else 0.0
    # the two chains one after the other (each column is its own longest path: the same numbers as chaining both at
    # once, with one (n,) weight and its (n,) result alive instead of (n, 2) of each)
    latency = float(longest_chain(dag, path_latency(dag, lat)).max()) if dag.n else 0.0
    dur = transfer_times(dag, size, link_bandwidth, link_latency) if durations is None else durations
    critical = float(longest_chain(dag, dur).max()) if dag.n else 0.0
    return TimeBounds(bandwidth=bandwidth_bound(dag, size, link_bandwidth), link=link,
                      latency=latency, critical_path=critical)
