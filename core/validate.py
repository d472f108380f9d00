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

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import csr
from .engine import Violation, replay
from .schedule_io import check_header
from .topology import Topology, TopologyError, from_dict
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


def _v(rule: str, message: str, workload: int | None = None, rnd: int | None = None,
       link: int | None = None) -> Violation:
    return Violation(rule, rnd, workload, link, message)


def validate_document(data: Any, name: str = "schedule") -> Report:
    """Validate a parsed schedule document (raises ScheduleFileError if it is not one at all)."""
    data = check_header(data, name)
    report = Report()
    try:
        topo = from_dict(data["topology"], spec=str(data["topology"].get("spec", "file")))
    except TopologyError as err:
        report.violations.append(_v("topology", f"topology: {err}"))
        return report
    chunks = data.get("chunks", 1)
    if not _is_int(chunks) or chunks < 1:
        report.violations.append(_v("header", f"chunks must be an integer >= 1, got {chunks!r}"))
        chunks = 1
    dag, id_of, problems = _dag_from_workloads(topo, data["workloads"], chunks)
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
            report.violations.append(_v("stats", f"stats.rounds says {stats['rounds']} but the file has {len(rounds)} rounds"))
    return report


def _dag_from_workloads(topo: Topology, items: list, chunks: int) -> tuple[WorkloadDAG, dict, list[Violation]]:
    problems: list[Violation] = []
    id_of: dict[Any, int] = {}
    for k, w in enumerate(items):
        wid = w.get("id") if isinstance(w, dict) else None
        if not isinstance(w, dict) or not _is_int(wid):
            problems.append(_v("structure", f"workload entry {k}: must be an object with an integer 'id'"))
            continue
        if wid in id_of:
            problems.append(_v("structure", f"workload id {wid} is used twice", wid))
            continue
        id_of[wid] = len(id_of)
    n = len(id_of)
    valid = [w for w in items if isinstance(w, dict) and w.get("id") in id_of]
    seen: set = set()
    rows = []
    for w in valid:  # keep the first entry of each id
        if w["id"] not in seen:
            seen.add(w["id"])
            rows.append(w)
    tree_key: dict[tuple[int, int], int] = {}
    tree = np.zeros(n, np.int64)
    phase = np.zeros(n, np.int8)
    own = np.zeros(n, bool)
    paths, links, pre_r, pre_v = [], [], [], []
    for i, w in enumerate(rows):
        wid = w["id"]
        root, chunk = w.get("root"), w.get("chunk", 0)
        if not _is_int(root) or not (0 <= root < topo.n_nodes) or not topo.is_server[root]:
            problems.append(_v("structure", f"workload {wid}: root {root!r} is not a server", wid))
            root = int(topo.servers[0])
        if not _is_int(chunk) or not (0 <= chunk < chunks):
            problems.append(_v("structure", f"workload {wid}: chunk {chunk!r} is not in 0..{chunks - 1}", wid))
            chunk = 0
        tree[i] = tree_key.setdefault((root, chunk), len(tree_key))
        ph = w.get("phase")
        if ph not in PHASES:
            problems.append(_v("structure", f"workload {wid}: phase must be reduce or broadcast, got {ph!r}", wid))
            ph = "reduce"
        phase[i] = PHASES.index(ph)
        own[i] = bool(w.get("carries_own", False))
        path = w.get("path")
        ok, msg = _check_path(topo, path)
        if not ok:
            problems.append(_v("path", f"workload {wid}: {msg}", wid))
            path = [int(topo.servers[0]), int(topo.servers[1])]
            links.append([])
        else:
            links.append(topo.link_ids(path).tolist())
            dead = [x for x in links[-1] if topo.link_failed[x]]
            if dead:
                problems.append(_v("failed", f"workload {wid}: path {path} crosses failed link "
                                             f"{dead[0] // 2} ({topo.link_label(dead[0])})", wid, None, dead[0]))
        paths.append(path)
        prefix = w.get("prefix", [])
        if not isinstance(prefix, list):
            problems.append(_v("structure", f"workload {wid}: prefix must be a list of workload ids, got {prefix!r}", wid))
            prefix = []
        for p in prefix:
            if not _is_int(p) or p not in id_of:
                problems.append(_v("structure", f"workload {wid}: prefix {p!r} is not a workload id", wid))
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


def _check_path(topo: Topology, path: Any) -> tuple[bool, str]:
    if not isinstance(path, list) or len(path) < 2 or not all(_is_int(x) for x in path):
        return False, f"path must be a list of at least 2 node ids, got {path!r}"
    if any(x < 0 or x >= topo.n_nodes for x in path):
        return False, f"path {path} names a node outside 0..{topo.n_nodes - 1}"
    if not (topo.is_server[path[0]] and topo.is_server[path[-1]]):
        return False, f"path {path} must start and end at servers"
    inner = [x for x in path[1:-1] if topo.is_server[x]]
    if inner:
        return False, f"path {path} crosses server {inner[0]}; a workload ends at the next server"
    try:
        topo.link_ids(path)
    except KeyError as err:
        return False, f"path {path}: {err.args[0]}"
    return True, ""


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
            if not _is_int(w) or w not in id_of:
                problems.append(_v("unknown", f"round {r}: workload {w!r} is not defined", None, r))
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
    # payload that reaches the root but is relayed onward (a ring passing through) is not summed
    relayed = np.zeros(n, dtype=bool)
    relayed[pv[good]] = True
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
    # every (server, chunk) must be the root of exactly one tree
    have = {(int(r), int(c)) for r, c in zip(dag.tree_root, dag.tree_chunk)}
    for r in topo.servers.tolist():
        for c in range(chunks):
            if (r, c) not in have:
                problems.append(_v("data", f"no flow-tree for shard {topo.labels[r]} chunk {c}: "
                                           f"its sum is never formed"))
    return problems, nt


def _tree_name(dag: WorkloadDAG, topo: Topology, t: int) -> str:
    c = int(dag.tree_chunk[t])
    return f"{topo.labels[dag.tree_root[t]]}" + (f"/{c}" if dag.chunks > 1 else "")
