"""The size guard: predict the memory and time of a run from sizes alone, and refuse what will not fit.

This is the one place that estimates what a topology, its routes, a workload DAG (merged
trees, plain PS trees, ring), a schedule of it, a CP-SAT model, a schedule file or a topology
description will cost, from counts known before anything is built (docs/limits.md gives
the model and its calibration). A run whose estimate is over the limit is refused with one
line naming both; ``force=True`` (the CLI's ``--force``) skips the check.

Limits: memory is what the machine has available (MemAvailable or the cgroup's room) less a
reserve of 10% or 1 GiB, whichever is more, or half the address-space rlimit's room, whichever
is least (never under half of the room), or ``ALLREDUCE_LAB_MAX_MEMORY``
(``8GiB``, ``512MiB``, bytes, or ``none``); time is 300 s, or ``ALLREDUCE_LAB_MAX_SECONDS``.

This module imports nothing from the project: every floor above may call it.
"""

from __future__ import annotations

import math
import os
import re
import resource
from dataclasses import dataclass

RESERVE_SHARE = 0.1
"""Share of the machine's room (MemAvailable, or the cgroup's) kept back from one run ..."""
RESERVE_MIN = 2 ** 30
"""... or this many bytes, whichever is more: the run may plan to use the rest (docs/limits.md, "Limits": the estimate
is an upper bound of the whole process's peak RSS, 1.0-1.5x on every calibrated run)."""
MEMORY_SHARE = 0.5
"""Share of the address-space rlimit's room one run may plan to use, and the least share of any room: the rlimit
counts address space, not resident memory (numba and thread stacks reserve more than they touch), so it keeps the
half the guard began with, and a room under 2 GiB is not cut below half by the 1 GiB reserve."""
DEFAULT_SECONDS = 300.0
"""Default time limit of one run, in seconds."""
DAG_KINDS = ("tree", "plain", "ring")

# ---- calibrated coefficients (benchmarks/bench_guard.py measures them; docs/limits.md) ----------
B_TOPOLOGY = 400          # bytes per node + edge of a built topology (arrays, labels, networkx check)
S_TOPOLOGY = 3e-6         # seconds per node + edge
B_ROUTE_NODE = 24         # bytes per (root server, node): distances and next hops
B_ROUTE_LINK = 17         # bytes per (root server, directed link): the "closer" masks and keys
B_ROUTE_SEG = 24          # bytes per (root, server, segment node): the node-tree walk
S_ROUTE = 3e-8            # seconds per route element above
B_DAG = {"tree": 40, "plain": 16, "ring": 40}  # bytes per workload path node and per prefix entry (DAG +
#   schedule; int32 ids since issue 13; the plain PS DAG keeps links, deps and a byte of chain marks a workload since
#   docs/scale.md's eleventh step: 16 B, the slope of the scheduling peak over the interpreter's in `python
#   benchmarks/bench_guard.py measure bcube:n=12,k=2:ps ... bcube:n=16,k=2:ps`, 1118 MiB / 62.7 M units to 5620 MiB /
#   360.5 M units, 15.9 B, routes included; it was 20, fitted before the successors went). The whole command's
#   estimate stays above its peak on the 33 plain-DAG commands measured (1.04-1.53x; BCube(16,2) PS 9.1 GiB for
#   7.86 GiB, 1.16x; docs/limits.md, "The plain DAG's bytes after its successors went"; since docs/scale.md's
#   thirteenth step the report builds no successors: 6.10 GiB, 1.50x, not re-fitted)
S_DAG = {"tree": 2.5e-7, "plain": 4e-8, "ring": 2.5e-7}  # seconds per workload path node and per prefix entry
#   (building the DAG; the plain DAG is built in one compiled pass: BCube(16,2) 9.8-12.7 s with routes, docs/scale.md)
S_PYTHON_WORKLOAD = {"tree": 0.0, "plain": 0.0, "ring": 1.5e-5}  # per-workload Python loops
# list scheduling (docs/scale.md): per workload (queues, commit, the registry's check), and per
# (directed link, round) for the walk over route-class heads (measured ~2.6 heads per link);
# BCube(16,2): 33.5 M workloads, 7680 rounds, 43-55 s CPU with the DAG. Plain PS, fitted to
# `python benchmarks/bench_guard.py measure bcube:n=12,k=2:ps bcube:n=14,k=2:ps bcube:n=16,k=2:ps` (CPU s of the
# whole run, since the prefetch step of docs/scale.md): 13.2, 38.6 and 96.6 s for 16.4 M, 41.9 M and 94.4 M
# workloads, estimated 20.2, 51.5 and 115.9 s (1.2-1.5x; before this fit 44, 113 and 254 s, 2.6-3.4x)
S_SCHED = {"tree": 1.5e-6, "plain": 5.4e-7, "ring": 1.5e-6}
S_HEAD = 8e-8
# ... or per (route class, round), whichever is more: the walk visits every non-empty class's head each
# round. Where servers hang off single switches (fat-tree, leaf-spine, Jellyfish) every server pair is a
# class, S (S-1) of them holding ~2 workloads each, and they wait on the few shared core or spine links for
# most of the run. Fitted to `python benchmarks/bench_guard.py measure` (docs/limits.md): plain PS takes
# 4.0-4.8 ns CPU per class and estimated round on leaf-spine (24..40 leaves of 16) and fat-tree k=10..14
# (fat-tree k=14: 141.7 s CPU, 23.1 s estimated by the per-link term alone); 7 ns keeps the estimate above
# the measured CPU by 1.2-1.8x. Merged trees (critical-path, greedy) on the same families were 0.75-0.95x
# without it, 1.3-1.9x with it; Jellyfish PS 5-7x optimistic without, 1.3-2.4x with (its rounds are
# overestimated). BCube and DCell have few classes per link (S fanin): the per-link term rules.
S_CLASS = {"tree": 7e-9, "plain": 7e-9, "ring": 0.0}
B_VALIDATE = 22           # bytes per validation unit below (measured: 33.5 M workloads, .npz, 8.3 GiB)
S_VALIDATE = 1e-7         # seconds per validation unit (measured: 41 s CPU for the same file)
B_CPSAT_BASE = 480 * 2 ** 20  # OR-Tools and CP-SAT's workers before the first constraint
B_CPSAT = 265             # bytes per (workload link, round of the horizon) of a CP-SAT model
S_CPSAT = 1e-6            # seconds to build and presolve the model, per the same unit
S_CPSAT_WORK = 1.2        # wall seconds per deterministic second of search (2 workers, quiet machine)
B_RL = 6000               # bytes per workload of the RL observer, features and trace
B_TORCH = 200 * 2 ** 20   # importing torch
S_RL = 2.5e-6               # seconds per (workload, round) of one sampled RL rollout (step by step in Python)
S_RL_GREEDY = 4e-7          # the same for the greedy rollout (compiled decoding; 0.6-4e-7 measured, docs/rl.md §5)
S_DIAMETER = 1.7e-7       # seconds per (node, node + edge) of networkx's diameter; the compiled search that replaced
#                           it takes 2.5-3.7e-9 (docs/limits.md): kept, so the guard refuses what it refused before
B_JSON = 16               # bytes of Python objects per byte of JSON read
# A whole run, as the CLI makes it (docs/limits.md, "Whole CLI runs"): the process's peak RSS, fitted to
# `python benchmarks/bench_guard.py cli` (BCube(8,2), (10,2), DCell(4,2), (5,2), fat-tree k=12, k=16 ring; every list
# method, merged and plain, with and without --out): the estimate is 1.01-1.49x the measured peak on all 59
B_PROCESS = 195 * 2 ** 20  # the interpreter, numpy, core and numba with core's compiled kernels (a run of a few
#                            workloads peaks at 164-180 MiB)
B_REPORT = {"tree": 60, "plain": 40, "ring": 190}  # bytes per workload after scheduling, beside the DAG: the
#   check, stats()' bounds and the time replay's rows; the routes are freed by then. Plain PS since the report keeps
#   one replay mode and one chain at a time (core.seconds.schedule_report; docs/limits.md "The report after
#   scheduling"): 40 B per workload and B_REPORT_BASE, fitted to `python benchmarks/bench_guard.py cli` on the 21
#   plain-DAG commands re-measured (1.02-1.45x; it was 125 B, and the old report's peaks would need 60-95 B)
B_REPORT_BASE = {"tree": 0, "plain": 40 * 2 ** 20, "ring": 0}  # ... and bytes once: the report's kernels and buffers
#   (BCube(8,2) PS, 1.4 M workloads, peaks 82 MiB over its DAG's estimate; DCell(5,2) PS, 9.7 M, under it)
B_OUT = {"json": (24, 0), "npz": (40, 0)}  # writing the file, last: bytes per workload and per path node + prefix
#   entry. JSON is written part by part (core.schedule_io; docs/limits.md, "Streaming the JSON file"): a part (at most
#   2^14 workloads and 2^18 list entries, ~20-30 MiB, under the report's peak) and the arrays the writer derives and
#   the DAG keeps (paths as nodes, roots, chunks), ~24 B per workload. On the 25 calibrated JSON runs, re-measured,
#   the peak stayed the scheduling's or the report's; the estimate is 1.05-1.69x it (before: 850 B + 40 B per entry,
#   a dict per workload, the text and its bytes, 7-10x the file).
#   .npz: 20 B fitted on runs of at most 9.7 M workloads left BCube(16,2) PS to .npz at 0.999x its 12.24 GiB peak,
#   `schedule bcube:16,2 --method ps --out s.npz`, 4.46 GiB over the same command without --out: 40 B, 1.14x)
S_OUT = {"json": (5e-6, 2e-7), "npz": (5e-7, 0.0)}  # seconds of writing the file per workload and per path node +
#   prefix entry (the CPU of the whole command less that of the same command without --out, both measured by
#   `bench_guard.py cli` in one lock hold: JSON, streamed, 2.3-4.7 us per workload (BCube(8,2) PS 3.1, BCube(10,2) PS
#   4.7, DCell(5,2) PS 4.1, BCube(10,2) critical-path 2.3) and fat-tree k=12 critical-path's 80 M prefix entries
#   11.5 s; it was 1e-5 and 3.5e-7 for the writer that built the document; .npz 0-0.44 us per workload)
OUT_FORMS = tuple(B_OUT)
B_VALIDATE_CELL = 16      # bytes per (flow-tree, server) cell of the validator's sum tables


class SizeError(ValueError):
    """A run refused because its estimate is over the limit (the message names both)."""


@dataclass(frozen=True)
class Size:
    """What the estimates read: a topology's counts and three shape figures of its routes.

    ``segment``: nodes on the longest route segment between consecutive servers (3 for
    BCube: server, switch, server); ``fanin``: most servers whose route to a root reaches it
    before any other server (the root's children in its node tree); ``depth``: mean servers
    crossed from a server to a root (hops of a plain PS piece); ``imbalance``: load of the
    busiest link over the mean link load (how many rounds the load needs).
    """

    servers: int
    switches: int
    edges: int
    segment: int = 3
    fanin: int = 1
    depth: float = 1.0
    imbalance: float = 3.0
    name: str = ""

    @property
    def nodes(self) -> int:
        """Servers plus switches."""
        return self.servers + self.switches


@dataclass(frozen=True)
class Estimate:
    """Predicted peak extra memory (bytes) and time (seconds) of one piece of work."""

    what: str
    bytes: int
    seconds: float
    workloads: int = 0
    search: float = 0.0
    """The part of `seconds` that CP-SAT may spend: building its model, then searching up to its ``--time-limit``.
    A ceiling: it stops sooner when the bound is met or proven, and optimal does not start it at all when the
    heuristic's schedule (its warm start) already meets the lower bound."""

    @property
    def sure(self) -> float:
        """The seconds that will be spent whatever CP-SAT does: `seconds` less `search`."""
        return self.seconds - self.search

    def __add__(self, other: "Estimate") -> "Estimate":
        return Estimate(self.what, self.bytes + other.bytes, self.seconds + other.seconds,
                        max(self.workloads, other.workloads), self.search + other.search)


# ---- estimates ----------------------------------------------------------------------------------
def estimate_topology(size: Size) -> Estimate:
    """Building the topology (arrays, labels, the connectivity check)."""
    units = size.nodes + size.edges
    return Estimate(f"building {size.name or 'the topology'}", B_TOPOLOGY * units, S_TOPOLOGY * units)


def estimate_describe(size: Size) -> Estimate:
    """Describing it: building it plus the diameter (a breadth-first search from every node)."""
    t = estimate_topology(size)
    return Estimate(f"describing {size.name or 'the topology'}", t.bytes,
                    t.seconds + S_DIAMETER * size.nodes * (size.nodes + size.edges))


def dag_counts(size: Size, kind: str, chunks: int) -> tuple[int, int]:
    """(workloads, prefix entries) of a workload DAG of that kind, from the size alone.

    Merged trees: 2 S (S-1) workloads; a root's broadcasts wait for each of its `fanin`
    reduce workloads (S fanin^2 entries), every other workload for one. Plain trees: a piece
    crosses `depth` servers; every hop but each piece's first waits for one entry (the hop
    before, or its tree's prefix group of the S-1 last reduce hops: docs/scale.md).
    Ring: 2 (S-1) sends per chunk chain, each waiting for the one before.
    """
    if kind not in DAG_KINDS:
        raise ValueError(f"DAG kind must be one of {', '.join(DAG_KINDS)}, got {kind!r}")
    s, c = size.servers, min(size.fanin, size.servers - 1)
    pairs = s * (s - 1)
    if kind == "tree":
        w = 2 * pairs
        q = s * c * c + 2 * (pairs - s * c)
    elif kind == "plain":
        w = math.ceil(2 * pairs * max(1.0, size.depth))
        q = w - pairs
    else:
        w = 2 * pairs
        q = w - s
    return w * chunks, q * chunks


def n_route_classes_estimate(size: Size) -> int:
    """An estimate of how many route classes (distinct tuples of links) one hop of a plain PS piece has, from the
    size alone (the classes themselves are found by `core.route_classes.classes_of`): each server to each server it
    reaches over switches only, S · min(fanin, S-1) (BCube: S (k+1)(n-1); fat-tree, leaf-spine: S (S-1))."""
    return size.servers * max(1, min(size.fanin, size.servers - 1))


def rounds_estimate(size: Size, kind: str, workloads: int, chunks: int) -> int:
    """A rough number of rounds: the mean link load times the imbalance (a ring: its chain length)."""
    links = max(1, 2 * size.edges)
    load = workloads * max(1, size.segment - 1) / links
    if kind == "ring":
        return max(2 * (size.servers - 1) * chunks, math.ceil(1.5 * load))
    return max(2 * chunks, math.ceil(size.imbalance * load))


def estimate_schedule(size: Size, kind: str, chunks: int = 1, *, solver: str | None = None,
                      time_limit: float = 0.0, rollouts: int = 1, out: str | None = None) -> Estimate:
    """A whole run: the process with its compiled kernels, routes, the DAG of `kind` with `chunks` pieces,
    list-scheduling it, checking it and its report (bounds, time replay); `solver` adds a CP-SAT model
    ("cp-sat", searching `time_limit` seconds) or `rollouts` RL rollouts ("rl"); `out` writing the schedule
    file ("json" or "npz"). The memory is the process's peak RSS (docs/limits.md)."""
    s, n, e, seg = size.servers, size.nodes, size.edges, max(2, size.segment)
    route_units = s * (n + 2 * e) + s * s * seg
    route = Estimate("routes", B_ROUTE_NODE * s * n + B_ROUTE_LINK * s * 2 * e + B_ROUTE_SEG * s * s * seg,
                     S_ROUTE * route_units)
    w, q = dag_counts(size, kind, chunks)
    rounds = rounds_estimate(size, kind, w, chunks)
    dag = Estimate("dag", B_DAG[kind] * (w * seg + q),
                   S_DAG[kind] * (w * seg + q) + S_PYTHON_WORKLOAD[kind] * w + S_SCHED[kind] * w
                   + max(S_HEAD * 2 * e, S_CLASS[kind] * n_route_classes_estimate(size)) * rounds, w)
    topology = estimate_topology(size)
    # the peak: scheduling (routes alive) or the report after it (routes freed; the DAG, then the bounds and the
    # time replay's rows), whichever is more, over the process with its kernels; then the file, written last
    report = B_REPORT_BASE[kind] + B_REPORT[kind] * w + (per_out(out, w, w * seg + q) if out is not None else 0)
    peak = B_PROCESS + topology.bytes + max(route.bytes + dag.bytes, dag.bytes + report)
    writing = S_OUT[out][0] * w + S_OUT[out][1] * (w * seg + q) if out is not None else 0.0
    total = Estimate("run", peak, topology.seconds + route.seconds + dag.seconds + writing)
    what = f"scheduling {size.name or 'the topology'} ({kind} DAG" + (f", {chunks} chunks)" if chunks > 1 else ")")
    if out is not None:
        what += f" and writing it as {out.upper()}"
    if solver == "cp-sat":
        x = w * (seg - 1) * rounds
        search = S_CPSAT * x + S_CPSAT_WORK * time_limit
        total = total + Estimate("cp-sat", B_CPSAT_BASE + B_CPSAT * x, search, search=search)
        what += " with CP-SAT"
    elif solver == "rl":
        total = total + Estimate("rl", B_TORCH + B_RL * w, (S_RL_GREEDY + S_RL * max(0, rollouts - 1)) * w * rounds)
        what += f" with {rollouts} RL rollout" + ("s" if rollouts > 1 else "")
    elif solver is not None:
        raise ValueError(f"solver must be None, 'cp-sat' or 'rl', got {solver!r}")
    return Estimate(what, total.bytes, total.seconds, w, total.search)


def per_out(out: str, workloads: int, entries: int) -> int:
    """Bytes of writing a schedule file as `out` ("json", "npz"): per workload and per path node + prefix entry."""
    if out not in B_OUT:
        raise ValueError(f"out must be None or one of {', '.join(OUT_FORMS)}, got {out!r}")
    per_workload, per_entry = B_OUT[out]
    return per_workload * workloads + per_entry * entries


def estimate_validate(size: Size, workloads: int, path_nodes: int, prefixes: int, trees: int,
                      file_bytes: int = 0) -> Estimate:
    """Checking a schedule file: its JSON, the topology, the DAG of its workloads and the sum tables."""
    units = workloads * 8 + path_nodes + prefixes
    return Estimate(f"validating {size.name or 'the file'}",
                    B_JSON * file_bytes + estimate_topology(size).bytes + B_VALIDATE * units
                    + B_VALIDATE_CELL * trees * size.servers,
                    estimate_topology(size).seconds + S_VALIDATE * units, workloads)


def estimate_json(n_bytes: int, name: str = "the file") -> Estimate:
    """Reading `n_bytes` of JSON or GraphML into Python objects."""
    return Estimate(f"reading {name} ({n_bytes} bytes)", B_JSON * n_bytes, 2e-8 * n_bytes)


# ---- limits -------------------------------------------------------------------------------------
_UNITS = {"": 1, "b": 1, "k": 2 ** 10, "kb": 10 ** 3, "kib": 2 ** 10, "m": 2 ** 20, "mb": 10 ** 6, "mib": 2 ** 20,
          "g": 2 ** 30, "gb": 10 ** 9, "gib": 2 ** 30, "t": 2 ** 40, "tb": 10 ** 12, "tib": 2 ** 40}


def parse_bytes(text: str) -> float:
    """``"8GiB"`` -> 8589934592; ``"none"``/``"inf"`` -> infinity (raises ValueError otherwise)."""
    t = text.strip().lower().replace(" ", "")
    if t in ("none", "inf", "unlimited"):
        return math.inf
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)([a-z]*)", t)
    if not m or m.group(2) not in _UNITS:
        raise ValueError(f"a memory size must look like 8GiB, 512MiB or 1000000 (bytes), got {text!r}")
    return float(m.group(1)) * _UNITS[m.group(2)]


def _meminfo_available() -> float:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return math.inf


def _cgroup_room() -> float:
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            top = f.read().strip()
        with open("/sys/fs/cgroup/memory.current") as f:
            used = int(f.read().strip())
    except (OSError, ValueError):
        return math.inf
    return math.inf if top == "max" else max(0, int(top) - used)


def _rlimit_room() -> float:
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return math.inf
    vm = 0
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    vm = int(line.split()[1]) * 1024
    except OSError:
        pass
    return max(0, soft - vm)


def memory_limit() -> tuple[float, str]:
    """The memory one run may plan to use, in bytes, and where that number comes from."""
    env = os.environ.get("ALLREDUCE_LAB_MAX_MEMORY")
    if env:
        try:
            return parse_bytes(env), "ALLREDUCE_LAB_MAX_MEMORY"
        except ValueError as err:
            raise SizeError(f"ALLREDUCE_LAB_MAX_MEMORY: {err}") from None
    rooms = {"available memory": _meminfo_available(), "cgroup memory.max room": _cgroup_room(),
             "address-space rlimit room": _rlimit_room()}
    limits = {name: usable(room, reserve=name != "address-space rlimit room") for name, room in rooms.items()}
    source = min(limits, key=limits.get)
    room, limit = rooms[source], limits[source]
    if limit > MEMORY_SHARE * room:
        return limit, f"the {source}, {fmt_bytes(room)}, less a reserve of {fmt_bytes(room - limit)}"
    return limit, f"half the {source}, {fmt_bytes(room)}"


def usable(room: float, *, reserve: bool = True) -> float:
    """What one run may plan to use of `room` bytes: all but a reserve of RESERVE_SHARE of it or RESERVE_MIN,
    whichever is more, and never less than MEMORY_SHARE of it (`reserve=False`: that share only)."""
    if math.isinf(room):
        return room
    half = MEMORY_SHARE * room
    return max(half, room - max(RESERVE_SHARE * room, RESERVE_MIN)) if reserve else half


def time_limit() -> tuple[float, str]:
    """The seconds one run may be expected to take, and where that number comes from."""
    env = os.environ.get("ALLREDUCE_LAB_MAX_SECONDS")
    if not env:
        return DEFAULT_SECONDS, "the default"
    try:
        value = math.inf if env.strip().lower() in ("none", "inf") else float(env)
    except ValueError:
        value = math.nan
    if not value > 0:
        raise SizeError(f"ALLREDUCE_LAB_MAX_SECONDS must be a number of seconds > 0 or 'none', got {env!r}")
    return value, "ALLREDUCE_LAB_MAX_SECONDS"


def fmt_bytes(x: float) -> str:
    """``1.5 GiB``-style text."""
    if math.isinf(x):
        return "unlimited"
    if x >= 2 ** 50:
        return f"{x / 2 ** 40:.1e} TiB"
    for unit, scale in (("TiB", 2 ** 40), ("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if x >= scale:
            return f"{x / scale:.1f} {unit}"
    return f"{int(x)} B"


def fmt_seconds(x: float) -> str:
    """``40 s``, ``12 min``, ``3.5 h``, ``2e+05 h``."""
    if math.isinf(x):
        return "unlimited"
    if x < 120:
        return f"{x:.0f} s" if x >= 1 else f"{x:.2f} s"
    if x < 7200:
        return f"{x / 60:.1f} min"
    return f"{x / 3600:.1f} h" if x < 1e6 else f"{x / 3600:.0e} h"


def check(estimate: Estimate, *, force: bool = False) -> Estimate:
    """Raise SizeError when the estimate is over a limit (unless `force`); returns the estimate."""
    if force:
        return estimate
    mem, mem_src = memory_limit()
    sec, sec_src = time_limit()
    over = []
    if estimate.bytes > mem:
        over.append(f"{fmt_bytes(estimate.bytes)} memory, over the memory limit of {fmt_bytes(mem)} ({mem_src})")
    if estimate.seconds > sec:
        over.append(f"{fmt_seconds(estimate.seconds)} CPU, over the time limit of {fmt_seconds(sec)} ({sec_src})")
    if over:
        w = estimate.workloads
        count = (f" for {w:,} workloads" if w < 10 ** 12 else f" for {w:.2g} workloads") if w else ""
        far = estimate.bytes > FAR_OVER * mem or estimate.seconds > FAR_OVER * sec
        hint = (f": over {FAR_OVER}x a limit, so try a smaller size, not --force (docs/limits.md)" if far
                else " (--force, ALLREDUCE_LAB_MAX_MEMORY or ALLREDUCE_LAB_MAX_SECONDS overrides)")
        raise SizeError(f"{estimate.what}: estimated {' and '.join(over)}{count}; refused before building "
                        f"anything{hint}")
    return estimate


FAR_OVER = 100
"""A run estimated at this many times a limit or more is refused with a hint to a smaller size instead of the
overrides (trial 24: BCube(64,3) PS offered --force for 2.1e+05 TiB)."""


def check_schedulable(size: Size, dag_kind: str, chunks: int = 1, *, solver: str | None = None,
                      time_limit: float = 0.0, rollouts: int = 1, out: str | None = None,
                      force: bool = False) -> Estimate:
    """Check that scheduling a topology of `size` (`core.topology.size_of` of a built one) with a DAG of `dag_kind` fits the limits.

    `dag_kind` is "tree" (merged trees), "plain" (PS trees, merge off) or "ring"; `solver`
    "cp-sat" adds an exact model searching `time_limit` seconds, "rl" `rollouts` RL rollouts; `out` ("json",
    "npz") writing the schedule file. Raises SizeError when it does not fit; returns the estimate.
    """
    if not isinstance(size, Size):
        raise TypeError(f"check_schedulable takes a core.guard.Size, got {type(size).__name__}")
    if not isinstance(chunks, int) or isinstance(chunks, bool) or chunks < 1:
        raise ValueError(f"chunks must be an integer >= 1, got {chunks!r}")
    return check(estimate_schedule(size, dag_kind, chunks, solver=solver, time_limit=time_limit,
                                   rollouts=rollouts, out=out), force=force)


def capped_pow(base: int, exp: int, cap: int) -> int:
    """``base ** exp``, or ``cap + 1`` as soon as it exceeds `cap` (never a huge integer)."""
    if base <= 1 or exp <= 0:
        return base ** max(exp, 0) if base >= 0 else base ** exp
    out = 1
    for _ in range(exp):
        out *= base
        if out > cap:
            return cap + 1
    return out
