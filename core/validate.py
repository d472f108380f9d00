"""Check an ``allreduce-schedule/1`` document from scratch, down to the data it moves.

Three layers, every violation reported (not only the first):

1. structure — ids unique, paths are real server…switches…server routes that cross no failed
   link (the file's ``failed`` list), prefixes exist;
2. rounds — the engine's rules (each workload once, prefixes earlier, link capacity);
3. data — replay the payloads: a reduce workload carries the sender's piece (if carries_own)
   plus the payloads of its reduce prefixes, which must end at the sender; the root's sum must
   hold every server's piece exactly once; a broadcast may leave only a holder of the sum;
   at the end every server holds every tree's sum.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import csr
from .engine import Violation, replay
from .guard import Estimate, Size, check, estimate_validate
from .schedule_io import check_header
from .topology import Topology, TopologyError, read_topology_dict
from .workloads import PHASES, WorkloadDAG


@dataclass
class Report:
    """The outcome of a validation: ok when no violation was found."""

    violations: list[Violation] = field(default_factory=list)
    rounds: int = 0
    workloads: int = 0
    trees: int = 0
    stats_rounds: int | None = None
    dag: WorkloadDAG | None = None
    """The file's workload DAG (ids renumbered 0..n-1 in file order), for replaying it in time."""
    schedule_rounds: list[np.ndarray] = field(default_factory=list)
    """The file's rounds as internal workload ids."""

    @property
    def ok(self) -> bool:
        """True when the schedule is correct."""
        return not self.violations

    def by_rule(self) -> dict[str, int]:
        """Number of violations of each rule."""
        out: dict[str, int] = {}
        for v in self.violations:
            out[v.rule] = out.get(v.rule, 0) + 1
        return out


def _is_int(x: Any) -> bool:
    """A JSON integer (booleans are not)."""
    return type(x) is int


INT64 = 2 ** 63


def _is_id(x: Any) -> bool:
    """A workload id: an integer that fits in 64 bits."""
    return type(x) is int and -INT64 <= x < INT64


def _show(x: Any, limit: int = 60) -> str:
    """repr(x) cut to `limit` characters, for messages."""
    text = repr(x)
    return text if len(text) <= limit else text[:limit] + "..."


def _v(rule: str, message: str, workload: int | None = None, rnd: int | None = None,
       link: int | None = None) -> Violation:
    return Violation(rule, rnd, workload, link, message)


def validate_document(data: Any, name: str = "schedule", *, force: bool = False) -> Report:
    """Validate a parsed schedule document (raises ScheduleFileError if it is not one at all, and
    SizeError when checking it would exceed the memory or time limit, unless `force`)."""
    data = check_header(data, name)
    report = Report()
    chunks = data.get("chunks", 1)
    items = data["workloads"]
    if not _is_int(chunks) or not 1 <= chunks <= max(1, len(items)):
        report.violations.append(_v("header", f"chunks must be an integer in 1..{max(1, len(items))} (the number "
                                              f"of workloads: each chunk of each shard needs its own), got {_show(chunks)}"))
        return report
    check(_estimate(data, chunks), force=force)
    try:
        topo, node_ids = read_topology_dict(data["topology"], spec=_spec_of(data["topology"]))
    except TopologyError as err:
        report.violations.append(_v("topology", f"topology: {err}"))
        return report
    nodes = Nodes(topo, node_ids)
    dag, id_of, problems = _dag_from_workloads(nodes, items, chunks)
    report.violations.extend(problems)
    report.workloads = dag.n
    rounds, round_problems = _rounds(data["rounds"], id_of)
    report.violations.extend(round_problems)
    report.rounds = len(rounds)
    report.dag, report.schedule_rounds = dag, rounds
    try:
        dag.topo_levels
    except ValueError:
        report.violations.append(_v("prefix", "the prefix relation has a cycle: no schedule can satisfy it"))
        return report
    ext = np.array(sorted(id_of, key=id_of.get), dtype=np.int64) if id_of else np.zeros(0, np.int64)
    engine, round_violations = replay(dag, rounds, ext)
    report.violations.extend(round_violations)
    data_problems, n_trees = _check_data(dag, engine.sent_round, topo, chunks, ext)
    report.violations.extend(data_problems)
    report.trees = n_trees
    stats = data.get("stats") or {}
    if isinstance(stats, dict) and "rounds" in stats:
        report.stats_rounds = stats["rounds"]
        if stats["rounds"] != len(rounds):
            report.violations.append(_v("stats", f"stats.rounds says {_show(stats['rounds'])} but the file has "
                                                 f"{len(rounds)} rounds"))
    return report


def _spec_of(topology: dict) -> str:
    spec = topology.get("spec", "file")
    return spec[:200] if isinstance(spec, str) else "file"


def _estimate(data: dict, chunks: int) -> Estimate:
    """What checking the document will allocate, from counts read off the JSON before building anything."""
    topo = data["topology"]
    nodes = topo.get("nodes", topo.get("servers"))
    links = topo.get("links", topo.get("edges"))
    n_nodes = len(nodes) if isinstance(nodes, list) else 0
    n_servers = sum(1 for x in nodes if isinstance(x, dict) and x.get("kind") == "server") if n_nodes else 0
    path_nodes = prefixes = 0
    for w in data["workloads"]:
        if isinstance(w, dict):
            path_nodes += len(w["path"]) if isinstance(w.get("path"), list) else 0
            prefixes += len(w["prefix"]) if isinstance(w.get("prefix"), list) else 0
    path_nodes += sum(len(r) for r in data["rounds"] if isinstance(r, list))
    w = len(data["workloads"])
    size = Size(n_servers, max(0, n_nodes - n_servers), len(links) if isinstance(links, list) else 0,
                name=f"the schedule file's {n_nodes} nodes")
    return estimate_validate(size, w, path_nodes, prefixes, min(w, n_servers * chunks))


class Nodes:
    """A topology read from a file, with the file's node ids: id -> node position."""

    def __init__(self, topo: Topology, ids: list):
        self.topo = topo
        self._index = {x: i for i, x in enumerate(ids)}

    def position(self, x: Any) -> int | None:
        """The position of file id `x` (an integer or a string, not a boolean), or None."""
        if isinstance(x, bool) or not isinstance(x, (int, str)):
            return None
        return self._index.get(x)


def _dag_from_workloads(nodes: Nodes, items: list, chunks: int) -> tuple[WorkloadDAG, dict, list[Violation]]:
    topo = nodes.topo
    problems: list[Violation] = []
    id_of: dict[int, int] = {}
    rows = []
    for k, w in enumerate(items):
        wid = w.get("id") if isinstance(w, dict) else None
        if not _is_id(wid):
            problems.append(_v("structure", f"workload entry {k}: must be an object with an integer 'id' that "
                                            f"fits in 64 bits, got {_show(wid)}"))
            continue
        if wid in id_of:
            problems.append(_v("structure", f"workload id {wid} is used twice", wid))
            continue
        id_of[wid] = len(id_of)
        rows.append(w)  # the first entry of each id
    n = len(id_of)
    tree_key: dict[tuple[int, int], int] = {}
    tree = np.zeros(n, np.int64)
    phase = np.zeros(n, np.int8)
    own = np.zeros(n, bool)
    paths, links, pre_r, pre_v = [], [], [], []
    first_server = int(topo.servers[0])
    for i, w in enumerate(rows):
        wid = w["id"]
        root, chunk = w.get("root"), w.get("chunk", 0)
        pos = nodes.position(root)
        if pos is None or not topo.is_server[pos]:
            problems.append(_v("structure", f"workload {wid}: root {_show(root)} is not a server", wid))
            pos = first_server
        if not _is_int(chunk) or not (0 <= chunk < chunks):
            problems.append(_v("structure", f"workload {wid}: chunk {_show(chunk)} is not in 0..{chunks - 1}", wid))
            chunk = 0
        tree[i] = tree_key.setdefault((pos, chunk), len(tree_key))
        ph = w.get("phase")
        if ph not in PHASES:
            problems.append(_v("structure", f"workload {wid}: phase must be reduce or broadcast, got {_show(ph)}", wid))
            ph = "reduce"
        phase[i] = PHASES.index(ph)
        carries = w.get("carries_own", False)
        if not isinstance(carries, bool):
            problems.append(_v("structure", f"workload {wid}: carries_own must be true or false, got {_show(carries)}", wid))
        own[i] = carries is True
        path, msg = _check_path(nodes, w.get("path"))
        if msg:
            problems.append(_v("path", f"workload {wid}: {msg}", wid))
            path = [int(topo.servers[0]), int(topo.servers[1])]
            links.append([])
        else:
            links.append(topo.link_ids(path).tolist())
            dead = [x for x in links[-1] if topo.link_failed[x]]
            if dead:
                problems.append(_v("failed", f"workload {wid}: path {_show(w.get('path'))} crosses failed link "
                                             f"{dead[0] // 2} ({topo.link_label(dead[0])})", wid, None, dead[0]))
        paths.append(path)
        prefix = w.get("prefix", [])
        if not isinstance(prefix, list):
            problems.append(_v("structure", f"workload {wid}: prefix must be a list of workload ids, got {_show(prefix)}", wid))
            prefix = []
        for p in prefix:
            if not _is_id(p) or p not in id_of:
                problems.append(_v("structure", f"workload {wid}: prefix {_show(p)} is not a workload id", wid))
                continue
            pre_r.append(i)
            pre_v.append(id_of[p])
    roots = sorted(tree_key, key=tree_key.get)
    dag = WorkloadDAG(
        topology=topo, kind="file", merge=False, chunks=chunks, tree=tree,
        root=np.array([roots[t][0] for t in tree], np.int64), chunk=np.array([roots[t][1] for t in tree], np.int64),
        phase=phase, src=np.array([p[0] for p in paths], np.int64), dst=np.array([p[-1] for p in paths], np.int64),
        carries_own=own, path=csr.from_lists(paths), links=csr.from_lists(links),
        prefix=csr.from_pairs(np.array(pre_r, np.int64), np.array(pre_v, np.int64), n),
        tree_root=np.array([r for r, _ in roots], np.int64), tree_chunk=np.array([c for _, c in roots], np.int64))
    return dag, id_of, problems


def _check_path(nodes: Nodes, path: Any) -> tuple[list[int], str]:
    """The path as node positions and "" when it is a real route, else ([], the reason)."""
    topo = nodes.topo
    if not isinstance(path, list) or len(path) < 2:
        return [], f"path must be a list of at least 2 node ids, got {_show(path)}"
    pos = [nodes.position(x) for x in path]
    if None in pos:
        bad = path[pos.index(None)]
        return [], f"path {_show(path)} names node {_show(bad)}, which is not in 'nodes'"
    if not (topo.is_server[pos[0]] and topo.is_server[pos[-1]]):
        return [], f"path {_show(path)} must start and end at servers"
    inner = [x for x, p in zip(path[1:-1], pos[1:-1]) if topo.is_server[p]]
    if inner:
        return [], f"path {_show(path)} crosses server {_show(inner[0])}; a workload ends at the next server"
    try:
        topo.link_ids(pos)
    except KeyError:
        for a, b, pa, pb in zip(path, path[1:], pos, pos[1:]):
            try:
                topo.link_id(pa, pb)
            except KeyError:
                return [], f"path {_show(path)}: no link {_show(a)}->{_show(b)}"
    return pos, ""


def _rounds(raw: list, id_of: dict) -> tuple[list[np.ndarray], list[Violation]]:
    problems: list[Violation] = []
    rounds = []
    for r, ids in enumerate(raw):
        if not isinstance(ids, list):
            problems.append(_v("structure", f"round {r} must be a list of workload ids"))
            rounds.append(np.zeros(0, np.int64))
            continue
        got = []
        for w in ids:
            if not _is_id(w) or w not in id_of:
                problems.append(_v("unknown", f"round {r}: workload {_show(w)} is not defined", None, r))
            else:
                got.append(id_of[w])
        rounds.append(np.array(got, np.int64))
    return rounds, problems


def _check_data(dag: WorkloadDAG, sent: np.ndarray, topo: Topology, chunks: int,
                ext: np.ndarray) -> tuple[list[Violation], int]:
    """Payload replay: every root's sum once-each, broadcasts only from holders, all servers hold all sums."""
    problems: list[Violation] = []
    n, nt = dag.n, dag.n_trees
    s_idx = topo.server_index
    reduce = dag.phase == 0
    # reduce prefixes that feed payload: reduce, same tree, ending at the sender
    pr = dag.prefix.rows_of_values()
    pv = dag.prefix.values
    feeds = reduce[pr] & reduce[pv]
    wrong_tree = feeds & (dag.tree[pr] != dag.tree[pv])
    wrong_end = feeds & ~wrong_tree & (dag.dst[pv] != dag.src[pr])
    for a, b in zip(pr[wrong_tree][:200].tolist(), pv[wrong_tree][:200].tolist()):
        problems.append(_v("data", f"workload {ext[a]}: reduce prefix {ext[b]} belongs to another flow-tree "
                                   f"(shards would mix)", int(ext[a])))
    for a, b in zip(pr[wrong_end][:200].tolist(), pv[wrong_end][:200].tolist()):
        problems.append(_v("data", f"workload {ext[a]}: reduce prefix {ext[b]} ends at {topo.labels[dag.dst[b]]}, "
                                   f"not at the sender {topo.labels[dag.src[a]]}", int(ext[a])))
    good = feeds & ~wrong_tree & ~wrong_end
    feed = csr.from_pairs(pv[good], pr[good], n)  # w -> reduce workloads whose payload includes w
    # multiplicity of each reduce payload in its root's sum, in reverse topological order; a
    # payload that reaches the root but is relayed onward (a ring passing through) is not summed:
    # MODEL.md §8, a reduce payload that a later reduce workload takes as a prefix only passes
    # through the root (whether that prefix is legal is reported above; either way it was taken)
    relayed = np.zeros(n, dtype=bool)
    relayed[pv[feeds]] = True
    at_root = reduce & (dag.dst == dag.root) & ~relayed
    mult = at_root.astype(np.int64)
    for level in reversed(dag.topo_levels):
        pos, up = feed.gather(level)
        if len(pos):
            add = np.zeros(len(level), np.int64)
            np.add.at(add, pos, mult[up])
            mult[level] += add
    s = topo.n_servers
    count = np.zeros((nt, s), np.int64)
    count[np.arange(nt), s_idx[dag.tree_root]] += 1  # the root's own piece
    contrib = reduce & dag.carries_own
    np.add.at(count, (dag.tree[contrib], s_idx[dag.src[contrib]]), mult[contrib])
    bad_t, bad_s = np.nonzero(count != 1)
    for t, j in list(zip(bad_t.tolist(), bad_s.tolist()))[:500]:
        what = "is missing from" if count[t, j] == 0 else f"is counted {count[t, j]} times in"
        problems.append(_v("data", f"server {topo.labels[topo.servers[j]]}'s piece {what} the sum of flow-tree "
                                   f"{_tree_name(dag, topo, t)}"))
    if len(bad_t) > 500:
        problems.append(_v("data", f"... and {len(bad_t) - 500} more wrong sums"))

    # broadcast: a holder of the sum may forward it; the root holds it after every reduce into it
    big = np.iinfo(np.int64).max
    holds = np.full((nt, s), big, np.int64)
    into_root = at_root & (sent >= 0)
    done_at = np.full(nt, -1, np.int64)
    np.maximum.at(done_at, dag.tree[into_root], sent[into_root])
    holds[np.arange(nt), s_idx[dag.tree_root]] = done_at
    bc = np.flatnonzero((dag.phase == 1) & (sent >= 0))
    bc = bc[np.argsort(sent[bc], kind="stable")]
    for w in bc.tolist():
        t, a, b, r = int(dag.tree[w]), s_idx[dag.src[w]], s_idx[dag.dst[w]], int(sent[w])
        if holds[t, a] < r:
            holds[t, b] = min(holds[t, b], r)
        else:
            problems.append(_v("data", f"round {r}: broadcast {ext[w]} leaves {topo.labels[dag.src[w]]} before it "
                                       f"holds the sum of flow-tree {_tree_name(dag, topo, t)}", int(ext[w]), r))
    missing_t, missing_s = np.nonzero(holds == big)
    for t, j in list(zip(missing_t.tolist(), missing_s.tolist()))[:500]:
        problems.append(_v("data", f"server {topo.labels[topo.servers[j]]} never receives the sum of flow-tree "
                                   f"{_tree_name(dag, topo, t)}"))
    # every (server, chunk) must be the root of a tree (listed lazily: S x chunks may be large)
    have = {(int(r), int(c)) for r, c in zip(dag.tree_root, dag.tree_chunk)}
    missing = ((r, c) for r in topo.servers.tolist() for c in range(chunks) if (r, c) not in have)
    for r, c in itertools.islice(missing, 500):
        problems.append(_v("data", f"no flow-tree for shard {topo.labels[r]} chunk {c}: its sum is never formed"))
    n_missing = topo.n_servers * chunks - len({(r, c) for r, c in have if topo.is_server[r]})
    if n_missing > 500:
        problems.append(_v("data", f"... and {n_missing - 500} more shards without a flow-tree"))
    return problems, nt


def _tree_name(dag: WorkloadDAG, topo: Topology, t: int) -> str:
    c = int(dag.tree_chunk[t])
    return f"{topo.labels[dag.tree_root[t]]}" + (f"/{c}" if dag.chunks > 1 else "")
