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

import dataclasses
import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import csr
from .engine import Violation, replay
from .guard import Estimate, Size, check, estimate_validate
from .jit import kernel
from .schedule_io import ScheduleFileError, check_header
from .schedule_npz import Columns
from .guard import SizeError
from .topology import Topology, TopologyError, make_topology, parse_spec, read_topology_dict, spec_size
from .workloads import PHASES, WorkloadDAG, assemble_dag


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
    pieces: int = 0
    """Servers times flow-trees: the pieces the trees' sums must hold once each."""
    pieces_wrong: int = 0
    """Pieces missing from their flow-tree's sum or counted more than once."""
    spec: Any = None
    """The file's ``topology.spec`` (None without one), for `elsewhere_note`."""

    @property
    def ok(self) -> bool:
        """True when the schedule is correct."""
        return not self.violations

    @property
    def off_topology(self) -> int:
        """Workloads whose path breaks a path rule (no such link, a server crossed, an unknown node)."""
        return len({v.workload for v in self.violations if v.rule == "path" and v.workload is not None})

    @property
    def broken(self) -> int:
        """Workloads named by a path or a data violation."""
        return len({v.workload for v in self.violations if v.rule in ("path", "data") and v.workload is not None})

    def paths_elsewhere(self) -> bool:
        """True when the schedule was made for another network (pasted onto another topology's file): some path
        is no route here, and at least half the workloads break the path or data rule or most pieces miss their
        sum. The path break says the nodes are not the network's; the wide damage tells a pasted schedule from
        one bad hop (a bcube:3,1 schedule on leafspine:3,3,3 breaks 36 paths, 72 of 144 workloads, 55 of 81
        pieces)."""
        return self.off_topology > 0 and (2 * self.broken >= self.workloads or 2 * self.pieces_wrong > self.pieces)

    def elsewhere_note(self) -> str | None:
        """The line's clause saying the schedule was made for another network, with the damage that tells so (B of W
        workloads, P of S pieces), when `paths_elsewhere`; else None. `validate`, `replay` and `run` all say it
        (trial 16: `replay` and `run` gave only the first violation)."""
        if not self.paths_elsewhere():
            return None
        spec = "no spec" if self.spec is None else str(self.spec)[:80]
        return (f"on the file's topology ({spec}) {self.broken} of {self.workloads} workloads break the path or data "
                f"rule and {self.pieces_wrong} of {self.pieces} pieces (server, flow-tree) are missing from or "
                f"repeated in their sums: the schedule was made for another network")

    def elsewhere_refusal(self) -> str | None:
        """`elsewhere_note` with the first violation and validate's pointer, the clause `replay` and `run` both end
        their refusal with (trial 17: `run` left out "(run validate)"); None when `elsewhere_note` is."""
        note = self.elsewhere_note()
        if note is None:
            return None
        v = self.violations[0]
        return f"{note}; first of {len(self.violations)} violations: [{v.rule}] {v.message} (run validate)"

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


def _node(topo: Topology, ids: list, i: int) -> str:
    """Node position `i` as violations name it: the file's id, with the label in parentheses where it differs."""
    shown = _show(ids[i])
    return shown if topo.labels[i] == str(ids[i]) else f"{shown} ({topo.labels[i]})"


def _v(rule: str, message: str, workload: int | None = None, rnd: int | None = None,
       link: int | None = None) -> Violation:
    return Violation(rule, rnd, workload, link, message)


def validate_document(data: Any, name: str = "schedule", *, force: bool = False) -> Report:
    """Validate a parsed schedule document, JSON or columnar (raises ScheduleFileError if it is not one
    at all, and SizeError when checking it would exceed the memory or time limit, unless `force`)."""
    data = check_header(data, name)
    report = Report(spec=data["topology"].get("spec") if isinstance(data.get("topology"), dict) else None)
    chunks = data.get("chunks", 1)
    items = data["workloads"]
    n_items = items.n if isinstance(items, Columns) else len(items)
    if not _is_int(chunks) or not 1 <= chunks <= max(1, n_items):
        report.violations.append(_v("header", f"chunks must be an integer in 1..{max(1, n_items)} (the number "
                                              f"of workloads: each chunk of each shard needs its own), got {_show(chunks)}"))
        return report
    check(_estimate(data, chunks), force=force)
    try:
        topo, node_ids = read_topology_dict(data["topology"], spec=_spec_of(data["topology"]))
    except TopologyError as err:
        report.violations.append(_v("topology", f"topology: {err}"))
        return report
    mismatch = spec_mismatch(data["topology"], topo, node_ids)
    if mismatch:
        raise ScheduleFileError(f"{name}: {mismatch}")
    nodes = Nodes(topo, node_ids)
    if isinstance(items, Columns):
        cols = nodes.columns(items)
    else:
        cols = columns_from_json(items, data["rounds"], data.get("prefix_groups", []), nodes, chunks)
    report.violations.extend(_v(rule, msg, w, r) for rule, w, r, msg in cols.problems)
    dag, ext, problems = _dag_from_columns(topo, cols, chunks, node_ids)
    report.violations.extend(problems)
    report.workloads = dag.n
    rounds, round_problems = _rounds_of(cols, ext)
    report.violations.extend(round_problems)
    report.rounds = len(rounds)
    report.dag, report.schedule_rounds = dag, rounds
    try:
        dag.topo_levels
    except ValueError:
        report.violations.append(_v("prefix", "the prefix relation has a cycle: no schedule can satisfy it"))
        return report
    engine, round_violations = replay(dag, rounds, ext)
    report.violations.extend(round_violations)
    data_problems, n_trees, report.pieces_wrong = _check_data(dag, engine.sent_round, topo, chunks, ext, node_ids)
    report.violations.extend(data_problems)
    report.trees, report.pieces = n_trees, n_trees * topo.n_servers
    stats = data.get("stats") or {}
    if isinstance(stats, dict) and "rounds" in stats:
        report.stats_rounds = stats["rounds"]
        if stats["rounds"] != len(rounds):
            report.violations.append(_v("stats", f"stats.rounds says {_show(stats['rounds'])} but the file has "
                                                 f"{len(rounds)} rounds"))
    return report


def _counts(servers: int, switches: int, links: int | None = None) -> str:
    """The counts as the spec-mismatch line says them (the links only where both sides give them)."""
    if links is None:
        return f"{servers} servers and {switches} switches"
    return f"{servers} servers, {switches} switches and {links} links"


def spec_mismatch(topology: dict, topo: Topology, node_ids: list) -> str | None:
    """Why a schedule file's topology is not the one its ``spec`` builds, or None when they agree or the spec
    builds nothing here (a file: spec, a job's sub-topology, free text).

    Compared: the counts (servers and switches before anything is built, so a large spec costs nothing when they
    differ; links after), then each
    node's kind and the links with their capacities. Nodes are matched by label (the files this tool writes
    label every node), else by id; ids may be renamed and listed in any order (MODEL.md §8), and when neither
    matches, degrees are compared. Bandwidth, latency and failed links may differ (--slow-links, --fail-links)."""
    spec = topology.get("spec")
    if not isinstance(spec, str):
        return None
    try:
        family, _ = parse_spec(spec)
        size = spec_size(spec) if family != "file" else None
    except TopologyError:
        return None
    if family == "file":
        return None
    says = f"topology: its spec {spec[:80]!r} builds"
    have = (topo.n_servers, topo.n_nodes - topo.n_servers, topo.n_edges)
    if size is not None and (size.servers, size.switches) != have[:2]:  # size.edges is an upper bound (Jellyfish
        #   may leave port pairs unused), so the links are counted on the built topology
        return f"{says} {size.servers} servers and {size.switches} switches, but the file has {_counts(*have[:2])}"
    try:
        built = make_topology(spec)
    except (TopologyError, SizeError):
        return None
    if (built.n_servers, built.n_nodes - built.n_servers, built.n_edges) != have:
        return (f"{says} {_counts(built.n_servers, built.n_nodes - built.n_servers, built.n_edges)}, but the file "
                f"has {_counts(*have)}")
    n = topo.n_nodes
    by_label = {lab: i for i, lab in enumerate(built.labels)}
    if len(set(topo.labels)) == n and set(topo.labels) == set(by_label):
        to_built = np.array([by_label[lab] for lab in topo.labels], dtype=np.int64)
    elif all(_is_int(x) for x in node_ids) and sorted(node_ids) == list(range(n)):
        to_built = np.array(node_ids, dtype=np.int64)
    else:
        def degrees(t: Topology) -> tuple:
            deg = np.bincount(t.edges.reshape(-1), minlength=t.n_nodes)
            return sorted(deg[t.is_server].tolist()), sorted(deg[~t.is_server].tolist()), sorted(t.capacity.tolist())
        return None if degrees(built) == degrees(topo) else (
            f"{says} a network whose node degrees or link capacities differ from the file's nodes and links")
    name = lambda i: f"node {_show(node_ids[i])}" + (  # noqa: E731
        f" ({topo.labels[i]})" if topo.labels[i] != str(node_ids[i]) else "")
    kind = np.flatnonzero(built.is_server[to_built] != topo.is_server)
    if len(kind):
        i = int(kind[0])
        what = "a server" if topo.is_server[i] else "a switch"
        return f"{says} {name(i)} as {'a switch' if topo.is_server[i] else 'a server'}, but the file has it as {what}"
    back = np.empty(n, dtype=np.int64)
    back[to_built] = np.arange(n)

    def keyed(edges: np.ndarray, capacity: np.ndarray) -> set:
        lo, hi = edges.min(axis=1), edges.max(axis=1)
        return {(int(u), int(v), int(c)) for u, v, c in zip(lo.tolist(), hi.tolist(), capacity.tolist())}
    want, got = keyed(back[built.edges], built.capacity), keyed(topo.edges, topo.capacity)
    if want != got:
        extra, missing = sorted(got - want), sorted(want - got)
        lab = topo.labels
        parts = ([f"the file's link {lab[u]}-{lab[v]} (capacity {c}) is not in it" for u, v, c in extra[:1]]
                 + [f"its link {lab[u]}-{lab[v]} (capacity {c}) is not in the file" for u, v, c in missing[:1]])
        return f"{says} other links: {'; '.join(parts)} ({len(missing)} of {built.n_edges} links differ)"
    return None


def _spec_of(topology: dict) -> str:
    spec = topology.get("spec", "file")
    return spec[:200] if isinstance(spec, str) else "file"


def _estimate(data: dict, chunks: int) -> Estimate:
    """What checking the document will allocate, from counts read off it before building anything."""
    topo = data["topology"]
    nodes = topo.get("nodes", topo.get("servers"))
    links = topo.get("links", topo.get("edges"))
    n_nodes = len(nodes) if isinstance(nodes, list) else 0
    n_servers = sum(1 for x in nodes if isinstance(x, dict) and x.get("kind") == "server") if n_nodes else 0
    items = data["workloads"]
    if isinstance(items, Columns):
        w = items.n
        path_nodes = len(items.path.values) + len(items.rounds.values)
        prefixes = len(items.prefix.values) + len(items.prefix_groups.values)
    else:
        w = len(items)
        path_nodes = prefixes = 0
        for x in items:
            if isinstance(x, dict):
                path_nodes += len(x["path"]) if isinstance(x.get("path"), list) else 0
                prefixes += len(x["prefix"]) if isinstance(x.get("prefix"), list) else 0
        path_nodes += sum(len(r) for r in data["rounds"] if isinstance(r, list))
    size = Size(n_servers, max(0, n_nodes - n_servers), len(links) if isinstance(links, list) else 0,
                name=f"the schedule file's {n_nodes} nodes")
    return estimate_validate(size, w, path_nodes, prefixes, min(w, n_servers * chunks))


class Nodes:
    """A topology read from a file, with the file's node ids: id -> node position."""

    def __init__(self, topo: Topology, ids: list):
        self.topo = topo
        self.ids = ids
        self._index = {x: i for i, x in enumerate(ids)}

    def position(self, x: Any) -> int | None:
        """The position of file id `x` (an integer or a string, not a boolean), or None."""
        if isinstance(x, bool) or not isinstance(x, (int, str)):
            return None
        return self._index.get(x)

    def columns(self, cols: Columns) -> Columns:
        """Columnar workloads with roots and paths as node positions (unknown ids become -1)."""
        if list(self.ids) == list(range(len(self.ids))):
            return cols
        lookup = np.vectorize(lambda x: -1 if self.position(int(x)) is None else self.position(int(x)), otypes=[np.int64])
        return dataclasses.replace(cols, root=lookup(cols.root),
                                   path=csr.CSR(cols.path.ptr, lookup(cols.path.values)))


def columns_from_json(items: Any, raw_rounds: Any, raw_groups: Any = None, nodes: Nodes | None = None,
                      chunks: int = 2 ** 31) -> Columns:
    """The JSON workloads, rounds and prefix groups as columns, in one light pass (roots and paths as
    node positions through `nodes`, the file's node ids); what cannot be represented (wrong types,
    unknown nodes) is dropped and listed in `problems` as (rule, workload, round, message)."""
    position = nodes.position if nodes is not None else (lambda x: x if _is_int(x) else None)
    problems: list[tuple] = []
    ids, roots, chunk_of, phases, own = [], [], [], [], []
    paths: list = []
    pre_len, pre_vals, grp_len, grp_vals = [], [], [], []
    phase_code = {p: k for k, p in enumerate(PHASES)}

    def ints(values: Any, what: str, wid: int | None, rnd: int | None, rule: str = "structure") -> list:
        good = [x for x in values if _is_id(x)]
        if len(good) < len(values):
            problems.extend((rule, wid, rnd, what.format(x=_show(x))) for x in values if not _is_id(x))
        return good

    def id_list(w: dict, wid: int, key: str, kind: str, item: str) -> list:
        """The ids a workload lists under `key` (none when the field is not a list), each bad one reported."""
        values = w.get(key, [])
        if not isinstance(values, list):
            problems.append(("structure", wid, None, f"workload {wid}: {key} must be a list of {kind}, got {_show(values)}"))
            values = []
        return ints(values, f"workload {wid}: {item} {{x}} is not a {kind[:-1]}", wid, None)

    for k, w in enumerate(items):
        wid = w.get("id") if isinstance(w, dict) else None
        if not isinstance(w, dict) or not _is_id(wid):
            problems.append(("structure", None, None, f"workload entry {k}: must be an object with an integer 'id' "
                                                      f"that fits in 64 bits, got {_show(wid)}"))
            continue
        ids.append(wid)
        root, chunk = w.get("root"), w.get("chunk", 0)
        pos = position(root)
        if pos is None or (nodes is not None and not nodes.topo.is_server[pos]):
            problems.append(("structure", wid, None, f"workload {wid}: root {_show(root)} is not a server"))
            pos = -1  # reported here: the vectorized check skips -1
        roots.append(pos)
        if not _is_int(chunk) or not 0 <= chunk < chunks:
            problems.append(("structure", wid, None, f"workload {wid}: chunk {_show(chunk)} is not in 0..{chunks - 1}"))
            chunk = 0
        chunk_of.append(chunk)
        ph = w.get("phase")
        code = phase_code.get(ph) if isinstance(ph, str) else None
        if code is None:
            problems.append(("structure", wid, None, f"workload {wid}: phase must be reduce or broadcast, got {_show(ph)}"))
            code = 0
        phases.append(code)
        carries = w.get("carries_own", False)
        if not isinstance(carries, bool):
            problems.append(("structure", wid, None, f"workload {wid}: carries_own must be true or false, got {_show(carries)}"))
        own.append(carries is True)
        path = w.get("path")
        if not isinstance(path, list) or len(path) < 2:
            problems.append(("path", wid, None, f"workload {wid}: path must be a list of at least 2 node ids, got {_show(path)}"))
            path = []  # reported here; the vectorized check gives it a placeholder
        else:
            pos = [position(x) for x in path]
            if None in pos:
                problems.append(("path", wid, None, f"workload {wid}: path {_show(path)} names node "
                                                    f"{_show(path[pos.index(None)])}, which is not in 'nodes'"))
                pos = []
            path = pos
        paths.append(path)
        good = id_list(w, wid, "prefix", "workload ids", "prefix")
        pre_len.append(len(good))
        pre_vals.extend(good)
        good = id_list(w, wid, "prefix_groups", "group ids", "prefix group")
        grp_len.append(len(good))
        grp_vals.extend(good)
    raw_groups = [] if raw_groups is None else raw_groups
    if not isinstance(raw_groups, list):
        problems.append(("structure", None, None, f"prefix_groups must be a list of lists of workload ids, got {_show(raw_groups)}"))
        raw_groups = []
    g_len, g_vals = [], []
    for g, members in enumerate(raw_groups):
        if not isinstance(members, list):
            problems.append(("structure", None, None, f"prefix group {g} must be a list of workload ids, got {_show(members)}"))
            members = []
        good = ints(members, f"prefix group {g}: member {{x}} is not a workload id", None, None)
        g_len.append(len(good))
        g_vals.extend(good)
    r_len, r_vals = [], []
    for r, got in enumerate(raw_rounds):
        if not isinstance(got, list):
            problems.append(("structure", None, r, f"round {r + 1} must be a list of workload ids"))
            got = []
        good = ints(got, f"round {r + 1}: workload {{x}} is not defined", None, r, "unknown")
        r_len.append(len(good))
        r_vals.extend(good)

    def rows(lens: list, vals: list) -> csr.CSR:
        return csr.CSR(np.r_[0, np.cumsum(np.array(lens, np.int64))].astype(np.int64), np.array(vals, np.int64))

    return Columns(ids=np.array(ids, np.int64), root=np.array(roots, np.int64), chunk=np.array(chunk_of, np.int64),
                   phase=np.array(phases, np.int64), carries_own=np.array(own, bool),
                   path=rows([len(p) for p in paths], [x for p in paths for x in p]),
                   prefix=rows(pre_len, pre_vals), prefix_groups=rows(grp_len, grp_vals),
                   groups=rows(g_len, g_vals), rounds=rows(r_len, r_vals), problems=tuple(problems))


_MAX = 1000
"""At most this many violations of one kind are listed per check (a broken file can have millions)."""


def _dag_from_columns(topo: Topology, cols: Columns, chunks: int,
                      node_ids: list | None = None) -> tuple[WorkloadDAG, np.ndarray, list[Violation]]:
    """The file's DAG (internal ids 0..n-1 in file order, first entry of each id), the file id of
    each internal id, and the structure problems (naming nodes by `node_ids`, the file's own);
    vectorized (docs/scale.md)."""
    node_ids = list(range(topo.n_nodes)) if node_ids is None else node_ids
    problems: list[Violation] = []
    if np.array_equal(cols.ids, np.arange(cols.n)):  # the columnar form: ids are positions
        keep = np.arange(cols.n)
    else:
        _, first = np.unique(cols.ids, return_index=True)
        keep = np.sort(first)
    if len(keep) < cols.n:
        twice = np.setdiff1d(np.arange(cols.n), keep)
        for wid in cols.ids[twice][:_MAX].tolist():
            problems.append(_v("structure", f"workload id {wid} is used twice", wid))
    ext = cols.ids[keep]
    n = len(keep)
    internal = _id_map(ext)

    def report(bad: np.ndarray, text, rule: str = "structure") -> None:
        for k in np.flatnonzero(bad)[:_MAX].tolist():
            problems.append(_v(rule, text(k), int(ext[k])))

    root = cols.root[keep]
    known = root >= 0  # -1: reported while reading the JSON
    bad = known & ~((root < topo.n_nodes) & topo.is_server[np.clip(root, 0, topo.n_nodes - 1)])
    report(bad, lambda k: f"workload {ext[k]}: root "
                          f"{_node(topo, node_ids, root[k]) if root[k] < topo.n_nodes else root[k]} is not a server")
    root = np.where(bad | ~known, topo.servers[0], root)
    chunk = cols.chunk[keep]
    bad = (chunk < 0) | (chunk >= chunks)
    report(bad, lambda k: f"workload {ext[k]}: chunk {chunk[k]} is not in 0..{chunks - 1}")
    chunk = np.where(bad, 0, chunk)
    phase = cols.phase[keep]
    bad = (phase < 0) | (phase > 1)
    report(bad, lambda k: f"workload {ext[k]}: phase must be 0 (reduce) or 1 (broadcast), got {phase[k]}")
    phase = np.where(bad, 0, phase).astype(np.int8)

    path = _rows(cols.path, keep)
    ptr, nbr, link = topo.adjacency
    code, lptr, lvals = _path_links(path.ptr, path.values, ptr, nbr, link, topo.is_server, topo.n_nodes)
    links = csr.CSR(lptr, lvals)
    if (code > 0).any():
        report((code > 0) & (path.lengths > 0),
               lambda k: f"workload {ext[k]}: {_check_path(topo, path.row(k).tolist(), node_ids)[1]}", "path")
        path = _placeholder_paths(path, code > 0, topo)
    dead = topo.link_failed[links.values] if len(links.values) else np.zeros(0, bool)
    if dead.any():
        rows_ = links.rows_of_values()
        for e in np.unique(rows_[dead], return_index=True)[1][:_MAX].tolist():
            e = int(np.flatnonzero(dead)[e])
            k, lk = int(rows_[e]), int(links.values[e])
            problems.append(_v("failed", f"workload {ext[k]}: path {_show([node_ids[x] for x in path.row(k).tolist()])} "
                                         f"crosses failed link id "
                                         f"{lk // 2} ({topo.link_label(lk)})", int(ext[k]), None, lk))

    n_groups = cols.groups.n_rows
    pre = _rows(cols.prefix, keep)
    pv = internal(pre.values)
    pr = pre.rows_of_values()
    for k, p in zip(pr[pv < 0][:_MAX].tolist(), pre.values[pv < 0][:_MAX].tolist()):
        problems.append(_v("structure", f"workload {ext[k]}: prefix {p!r} is not a workload id", int(ext[k])))
    pg = _rows(cols.prefix_groups, keep)
    gr = pg.rows_of_values()
    bad = (pg.values < 0) | (pg.values >= n_groups)
    for k, g in zip(gr[bad][:_MAX].tolist(), pg.values[bad][:_MAX].tolist()):
        problems.append(_v("structure", f"workload {ext[k]}: prefix group {g!r} is not in 0..{n_groups - 1}", int(ext[k])))
    if len(pg.values) == 0 and (len(pv) == 0 or pv.min() >= 0):
        prefix = csr.CSR(pre.ptr, csr.ids(pv))  # nothing dropped or added: the file's rows as they are
    else:
        prefix = csr.from_pairs(np.r_[pr[pv >= 0], gr[~bad]], np.r_[pv[pv >= 0], n + pg.values[~bad]], n)
    gm = internal(cols.groups.values)
    g_rows = cols.groups.rows_of_values()
    for g, m in zip(g_rows[gm < 0][:_MAX].tolist(), cols.groups.values[gm < 0][:_MAX].tolist()):
        problems.append(_v("structure", f"prefix group {g}: member {m!r} is not a workload id"))
    groups = csr.from_pairs(g_rows[gm >= 0], gm[gm >= 0], n_groups)

    # flow-trees (root, chunk), numbered in order of first appearance
    tree, tkeys = _first_appearance(topo.server_index[root].astype(np.int64) * chunks + chunk,
                                    topo.n_servers * chunks)
    tkeys = topo.servers[tkeys // chunks] * chunks + tkeys % chunks
    dag = assemble_dag(topo, "file", False, chunks, tree=tree, phase=phase, carries_own=cols.carries_own[keep],
                       path=path, links=links, prefix=prefix, tree_root=tkeys // chunks, tree_chunk=tkeys % chunks,
                       groups=groups)
    return dag, ext, problems


@kernel
def _first_appearance(key, n_keys):  # pragma: no cover - compiled
    """Number the distinct keys (0..n_keys-1) in order of first appearance: (number of each entry, keys in order)."""
    num = np.full(n_keys, -1, np.int64)
    out = np.empty(len(key), np.int32)
    order = np.empty(n_keys, np.int64)
    m = 0
    for i in range(len(key)):
        k = key[i]
        if num[k] < 0:
            num[k] = m
            order[m] = k
            m += 1
        out[i] = num[k]
    return out, order[:m].copy()


def _placeholder_paths(path: csr.CSR, bad: np.ndarray, topo: Topology) -> csr.CSR:
    """The paths with each bad one replaced by a path between the first two servers (it has no links)."""
    lens = np.where(bad, 2, path.lengths)
    ptr = np.r_[0, np.cumsum(lens)]
    vals = np.empty(int(ptr[-1]), np.int64)
    good = np.flatnonzero(~bad)
    pos, v = path.gather(good)
    offset = np.arange(len(pos)) - np.r_[0, np.cumsum(path.lengths[good])][:-1][pos]
    vals[ptr[good][pos] + offset] = v
    hole = np.flatnonzero(bad)
    vals[ptr[hole]] = topo.servers[0]
    vals[ptr[hole] + 1] = topo.servers[min(1, len(topo.servers) - 1)]
    return csr.from_lengths(lens, vals)


def _id_map(ext: np.ndarray):
    """A function from file ids to internal ids (-1 where unknown), for the file ids `ext` in order."""
    n = len(ext)
    if n == 0 or np.array_equal(ext, np.arange(n)):
        def plain(x: np.ndarray) -> np.ndarray:
            x = np.asarray(x)
            if x.size == 0 or (x.min() >= 0 and x.max() < n):
                return x  # every id known: no copy
            return np.where((x >= 0) & (x < n), x, -1)
        return plain
    order = np.argsort(ext, kind="stable")
    srt = ext[order]

    def lookup(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, np.int64)
        pos = np.clip(np.searchsorted(srt, x), 0, n - 1)
        return np.where(srt[pos] == x, order[pos], -1)
    return lookup


def _rows(m: csr.CSR, rows: np.ndarray) -> csr.CSR:
    """The CSR of the given rows of m (m itself when they are all its rows, in order)."""
    if len(rows) == m.n_rows:
        return m
    _, vals = m.gather(rows)
    return csr.from_lengths(m.lengths[rows], vals)


@kernel
def _path_links(pptr, pval, aptr, nbr, alink, is_server, n_nodes):  # pragma: no cover - compiled
    """Check every path (>= 2 nodes, nodes exist, server ends, switches inside, adjacent steps) and
    return (0 or a problem code per path, link ptr, link ids; a bad path has no links)."""
    n = len(pptr) - 1
    code = np.zeros(n, np.int8)
    lptr = np.zeros(n + 1, np.int64)
    lval = np.empty(len(pval), np.int32)
    m = 0
    for w in range(n):
        a, b = pptr[w], pptr[w + 1]
        c = 0
        if b - a < 2:
            c = 1
        else:
            for k in range(a, b):
                if pval[k] < 0 or pval[k] >= n_nodes:
                    c = 2
                    break
            if c == 0 and not (is_server[pval[a]] and is_server[pval[b - 1]]):
                c = 3
            if c == 0:
                for k in range(a + 1, b - 1):
                    if is_server[pval[k]]:
                        c = 4
                        break
        start = m
        if c == 0:
            for k in range(a, b - 1):
                u, v = pval[k], pval[k + 1]
                found = -1
                for e in range(aptr[u], aptr[u + 1]):
                    if nbr[e] == v:
                        found = alink[e]
                        break
                if found < 0:
                    c = 5
                    break
                lval[m] = found
                m += 1
        if c != 0:
            m = start
        code[w] = c
        lptr[w + 1] = m
    return code, lptr, lval[:m].copy()


def _rounds_of(cols: Columns, ext: np.ndarray) -> tuple[list[np.ndarray], list[Violation]]:
    """The rounds as internal ids, and an `unknown` violation for every id that is not a workload."""
    problems: list[Violation] = []
    ids = _id_map(ext)(cols.rounds.values)
    rows = cols.rounds.rows_of_values()
    for r, w in zip(rows[ids < 0][:_MAX].tolist(), cols.rounds.values[ids < 0][:_MAX].tolist()):
        problems.append(_v("unknown", f"round {r + 1}: workload {w!r} is not defined", None, r))
    lens = np.bincount(rows[ids >= 0], minlength=cols.rounds.n_rows)
    flat = ids[ids >= 0]
    ptr = np.r_[0, np.cumsum(lens)]
    return [flat[ptr[r]:ptr[r + 1]] for r in range(cols.rounds.n_rows)], problems


def _check_path(topo: Topology, path: list[int], ids: list) -> tuple[bool, str]:
    """Why a path of node positions is not a real route (messages name the file's node `ids`)."""
    shown = _show([ids[x] if 0 <= x < len(ids) else x for x in path])
    if len(path) < 2:
        return False, f"path must be a list of at least 2 node ids, got {shown}"
    if any(x < 0 or x >= topo.n_nodes for x in path):
        return False, f"path {shown} names a node that is not in 'nodes'"
    if not (topo.is_server[path[0]] and topo.is_server[path[-1]]):
        return False, f"path {shown} must start and end at servers"
    inner = [x for x in path[1:-1] if topo.is_server[x]]
    if inner:
        return False, f"path {shown} crosses server {_node(topo, ids, inner[0])}; a workload ends at the next server"
    for a, b in zip(path, path[1:]):
        try:
            topo.link_id(a, b)
        except KeyError:
            return False, f"path {shown}: no link {_node(topo, ids, a)}->{_node(topo, ids, b)}"
    return True, ""


def _check_data(dag: WorkloadDAG, sent: np.ndarray, topo: Topology, chunks: int,
                ext: np.ndarray, node_ids: list | None = None) -> tuple[list[Violation], int, int]:
    """Payload replay: every root's sum once-each, broadcasts only from holders, all servers hold all sums;
    (the violations, the number of flow-trees, the pieces missing from or counted twice in their sums; messages
    name nodes by `node_ids`, the file's own, with the label where it differs)."""
    problems: list[Violation] = []
    ids = list(range(topo.n_nodes)) if node_ids is None else node_ids
    node = lambda i: _node(topo, ids, int(i))  # noqa: E731
    tree_name = lambda t: _tree_name(dag, topo, ids, t)  # noqa: E731
    n, nt = dag.n, dag.n_trees
    s_idx = topo.server_index
    reduce = dag.phase == 0
    # reduce prefixes that feed payload: reduce, same tree, ending at the sender
    pr = dag.prefix.rows_of_values()
    pv = dag.prefix.values
    grp = pv >= n
    if grp.any():  # a reduce workload's payload also takes the members of its prefix groups
        on_reduce = grp & reduce[pr]
        pos, members = dag.groups.gather(pv[on_reduce] - n)
        pr = np.r_[pr[~grp], pr[on_reduce][pos]]
        pv = np.r_[pv[~grp], members.astype(pv.dtype)]
    feeds = reduce[pr] & reduce[pv]
    wrong_tree = feeds & (dag.tree[pr] != dag.tree[pv])
    wrong_end = feeds & ~wrong_tree & (dag.dst[pv] != dag.src[pr])
    for a, b in zip(pr[wrong_tree][:200].tolist(), pv[wrong_tree][:200].tolist()):
        problems.append(_v("data", f"workload {ext[a]}: reduce prefix {ext[b]} belongs to another flow-tree "
                                   f"(shards would mix)", int(ext[a])))
    for a, b in zip(pr[wrong_end][:200].tolist(), pv[wrong_end][:200].tolist()):
        problems.append(_v("data", f"workload {ext[a]}: reduce prefix {ext[b]} ends at server {node(dag.dst[b])}, "
                                   f"not at the sender, server {node(dag.src[a])}", int(ext[a])))
    good = feeds & ~wrong_tree & ~wrong_end
    feed = csr.from_pairs(pv[good], pr[good], n)  # w -> reduce workloads whose payload includes w
    # multiplicity of each reduce payload in its root's sum, in reverse topological order; a
    # payload that reaches the root but is relayed onward (a ring passing through) is not summed
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
        problems.append(_v("data", f"the piece of server {node(topo.servers[j])} {what} the sum of flow-tree "
                                   f"{tree_name(t)}"))
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
    bc = csr.from_pairs(sent[bc], bc, int(sent.max()) + 1 if len(bc) else 0).values  # by round, stable
    early = _spread(bc, dag.tree.astype(np.int64), s_idx[dag.src].astype(np.int64),
                    s_idx[dag.dst].astype(np.int64), sent.astype(np.int64), holds)
    for w in early[:_MAX].tolist():
        t, r = int(dag.tree[w]), int(sent[w])
        problems.append(_v("data", f"round {r + 1}: workload {ext[w]} (a broadcast) leaves server "
                                   f"{node(dag.src[w])} before it holds the sum of flow-tree {tree_name(t)}",
                           int(ext[w]), r))
    missing_t, missing_s = np.nonzero(holds == big)
    for t, j in list(zip(missing_t.tolist(), missing_s.tolist()))[:500]:
        problems.append(_v("data", f"server {node(topo.servers[j])} never receives the sum of flow-tree "
                                   f"{tree_name(t)}"))
    # every (server, chunk) must be the root of a tree (listed lazily: S x chunks may be large)
    have = {(int(r), int(c)) for r, c in zip(dag.tree_root, dag.tree_chunk)}
    missing = ((r, c) for r in topo.servers.tolist() for c in range(chunks) if (r, c) not in have)
    for r, c in itertools.islice(missing, 500):
        problems.append(_v("data", f"no flow-tree for shard {node(r)} chunk {c}: its sum is never formed"))
    n_missing = topo.n_servers * chunks - len({(r, c) for r, c in have if topo.is_server[r]})
    if n_missing > 500:
        problems.append(_v("data", f"... and {n_missing - 500} more shards without a flow-tree"))
    return problems, nt, len(bad_t)


@kernel
def _spread(bc, tree, src, dst, sent, holds):  # pragma: no cover - compiled
    """Broadcasts in round order: a sender that held the sum before the round passes it on
    (holds[t, j]: the round server j got tree t's sum); returns the broadcasts sent too early."""
    early = np.empty(len(bc), np.int64)
    k = 0
    for w in bc:
        t, r = tree[w], sent[w]
        if holds[t, src[w]] < r:
            if r < holds[t, dst[w]]:
                holds[t, dst[w]] = r
        else:
            early[k] = w
            k += 1
    return early[:k]


def _tree_name(dag: WorkloadDAG, topo: Topology, ids: list, t: int) -> str:
    """Flow-tree `t` named by its root (as `_node` names it) and, with chunks, its chunk."""
    c = int(dag.tree_chunk[t])
    return _node(topo, ids, int(dag.tree_root[t])) + (f" chunk {c}" if dag.chunks > 1 else "")
