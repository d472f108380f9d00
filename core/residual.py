"""The work left after part of a schedule ran: the residual workload DAG, and the whole run as one DAG.

When the network changes during a run (`core.replan`), every workload is either **delivered**
(finished, or in flight on links that still work and allowed to finish) or **to send**. The
residual DAG holds what is left to send, on the changed topology, built from the new routes
(`core.routing` on the changed network, in the DAG's own routing mode):

**Merged trees (regrown).** A server that has sent its reduce workload of a flow-tree is done
with that tree's reduce: its partial sum sits at its old parent, inside that parent's payload
or one of its ancestors'. Every server that has not sent yet sends once, along the **new** node
tree: to its new parent, where the payload merges if that parent has not sent either (or is the
root); a parent that has already sent only forwards it (a relay hop, carries_own = false) further
up the new tree until a server that has not sent, or the root. Its prefixes are the reduce
workloads that reached it (delivered ones, and the residual chains that merge at it). Servers
that do not hold the sum yet get it along the new tree from their new parent (from the root once
every reduce into it is in). Chains only climb the new tree, so the result has no cycle, and a
tree nothing of which was delivered is exactly the tree a fresh build on the changed network
has: a change at time 0 re-plans like scheduling the changed network from the start.

**Plain trees and rings (re-routed).** Each unsent workload keeps its endpoints and role; it keeps
its path when that path crosses no failed link (removing links never shortens a route, so a
surviving shortest route stays one), otherwise it is re-routed by `core.routing.send_segments`
(the switch-only shortest path, else the routed path cut into a relay chain at every server it
crosses; the first hop carries the sender's own piece). Its undelivered prefixes map to the last
hop of their chains; delivered ones are dropped. A flow-tree none of whose workloads was
delivered is taken whole from `fresh` (the DAG the method would build on the changed network).

`combine` joins the delivered part (the original rounds, keeping only delivered workloads) and a
residual schedule into one DAG and one list of rounds over the original topology, so the
independent validator can check that together they deliver every sum to every server.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from . import csr
from .engine import Rounds
from .routing import Routes, compute_routes, send_segments
from .topology import Topology
from .workloads import BROADCAST, REDUCE, WorkloadDAG, assemble_dag


class _Builder:
    """Residual workloads as they are added: role, path, prefixes (residual ids or delivered ids)."""

    def __init__(self) -> None:
        self.tree: list[int] = []
        self.phase: list[int] = []
        self.own: list[bool] = []
        self.paths: list[list[int]] = []
        self.origin: list[int] = []
        self.pre: list[tuple[int, int]] = []  # (residual id, residual prefix)
        self.done: list[tuple[int, int]] = []  # (residual id, delivered prefix in the original DAG)

    def chain(self, tree: int, phase: int, own: bool, segments: list[list[int]], origin: int,
              first_pre: list[int] = (), first_done: list[int] = ()) -> int:
        """Add a chain of hops (relays after the first); returns the id of its last hop."""
        for k, seg in enumerate(segments):
            i = len(self.tree)
            self.tree.append(tree)
            self.phase.append(phase)
            self.own.append(own and k == 0)
            self.paths.append([int(x) for x in seg])
            self.origin.append(origin if k == 0 else -1)
            if k == 0:
                self.pre += [(i, p) for p in first_pre]
                self.done += [(i, p) for p in first_done]
            else:
                self.pre.append((i, i - 1))
        return len(self.tree) - 1

    def dag(self, dag: WorkloadDAG, topology: Topology, **meta) -> WorkloadDAG:
        n = len(self.tree)
        pr = np.array([a for a, _ in self.pre], np.int64)
        pv = np.array([b for _, b in self.pre], np.int64)
        full = {**dag.meta, "residual": True, "origin": np.array(self.origin, dtype=np.int64),
                "done_prefix": (np.array([a for a, _ in self.done], np.int64),
                                np.array([b for _, b in self.done], np.int64)), **meta}
        return assemble_dag(topology, dag.kind, dag.merge, dag.chunks, tree=np.array(self.tree, dtype=np.int64),
                            phase=np.array(self.phase, dtype=np.int8), carries_own=np.array(self.own, dtype=bool),
                            path=csr.from_lists(self.paths), prefix=csr.from_pairs(pr, pv, n),
                            tree_root=dag.tree_root, tree_chunk=dag.tree_chunk, meta=full)


def residual_dag(dag: WorkloadDAG, delivered: np.ndarray, topology: Topology, routing: str | None = None,
                 fresh: WorkloadDAG | None = None) -> WorkloadDAG:
    """What is left of `dag` once `delivered` workloads are in, on `topology` (the changed network).

    ``meta["origin"]`` maps each residual workload to the workload of `dag` whose role it takes (-1: a
    relay hop or a rebuilt tree's), ``meta["done_prefix"]`` lists (residual id, delivered prefix in
    `dag`) pairs; ``meta["rerouted"]`` counts unsent workloads whose path changed or that became relay
    chains, ``meta["rebuilt_trees"]`` the flow-trees not begun and built afresh; ``meta["rebuild"](routing)``
    builds the same rest under another routing mode.
    """
    delivered = np.asarray(delivered, dtype=bool)
    dag = dag.explicit()  # prefix groups (plain PS DAG) as explicit lists: the rebuild works pair by pair
    fresh = fresh.explicit() if fresh is not None else None
    routing = routing or dag.meta.get("routing", "shortest")
    if dag.kind == "tree" and dag.merge:
        out = _regrown(dag, delivered, topology, compute_routes(topology, routing))
    else:
        out = _rerouted(dag, delivered, topology, routing, fresh)
    # a method that chooses its routes (time-aware) rebuilds the same rest under another routing mode
    out.meta["rebuild"] = partial(residual_dag, dag, delivered, topology, fresh=fresh)
    out.meta["routing"] = routing
    return out


def _regrown(dag: WorkloadDAG, delivered: np.ndarray, topology: Topology, routes: Routes) -> WorkloadDAG:
    """Merged trees: every server that has not sent yet sends once along the new node tree (module doc)."""
    t = topology
    s_idx = t.server_index
    s = t.n_servers
    nt = dag.n_trees
    red_of = np.full((nt, s), -1, dtype=np.int64)  # the reduce workload sent by server j in tree k
    bc_of = np.full((nt, s), -1, dtype=np.int64)  # the broadcast received by server j in tree k
    is_red = dag.phase == REDUCE
    red_of[dag.tree[is_red], s_idx[dag.src[is_red]]] = np.flatnonzero(is_red)
    bc_of[dag.tree[~is_red], s_idx[dag.dst[~is_red]]] = np.flatnonzero(~is_red)
    into = [[] for _ in range(s)]  # delivered reduce workloads ending at each server, of the current tree
    b = _Builder()
    rerouted = 0
    old_parent = np.full(s, -1, dtype=np.int64)
    for k in range(nt):
        i = int(s_idx[dag.tree_root[k]])
        par = routes.parent[i]
        sent = np.zeros(s, dtype=bool)
        sent[(red_of[k] >= 0)] = delivered[red_of[k][red_of[k] >= 0]]
        for lst in into:
            lst.clear()
        old_parent[:] = -1
        mine = red_of[k] >= 0
        old_parent[mine] = s_idx[dag.dst[red_of[k][mine]]]
        for j in np.flatnonzero(sent).tolist():
            into[old_parent[j]].append(int(red_of[k][j]))
        # reduce: each unsent server, deepest in the new tree first, so chains that merge at a server
        # are known before that server's own send is added
        todo = [j for j in range(s) if j != i and not sent[j]]
        todo.sort(key=lambda j: -int(routes.depth[i, j]))
        merging = [[] for _ in range(s)]  # residual chains that end (merge) at each server
        first_of: dict[int, int] = {}
        for j in todo:
            segs, cur = [], j
            while True:
                q = int(par[cur])
                segs.append(routes.seg_nodes[i, cur, : routes.seg_len[i, cur] + 1].tolist())
                if q == i or not sent[q]:
                    break
                cur = q  # q has sent already: forward without merging
            origin = int(red_of[k][j])
            if len(segs) > 1 or old_parent[j] != int(par[j]) or segs[0] != dag.path.row(origin).tolist():
                rerouted += 1
            first = len(b.tree)
            last = b.chain(k, REDUCE, True, segs, origin, merging[j], into[j])
            first_of[j] = first
            merging[q].append(last)
        # broadcast: servers without the sum get it from their new parent, top of the new tree first
        holds = np.zeros(s, dtype=bool)
        holds[(bc_of[k] >= 0)] = delivered[bc_of[k][bc_of[k] >= 0]]
        got: dict[int, int] = {}
        for j in sorted((j for j in range(s) if j != i and not holds[j]), key=lambda j: int(routes.depth[i, j])):
            p = int(par[j])
            seg = routes.seg_nodes[i, j, : routes.seg_len[i, j] + 1].tolist()[::-1]
            if p == i:
                pre, done = merging[i], into[i]
            elif holds[p]:
                pre, done = [], [int(bc_of[k][p])]
            else:
                pre, done = [got[p]], []
            got[j] = b.chain(k, BROADCAST, False, [seg], int(bc_of[k][j]), pre, done)
    return b.dag(dag, topology, rerouted=rerouted, rebuilt_trees=0)


def _rerouted(dag: WorkloadDAG, delivered: np.ndarray, topology: Topology, routing: str,
              fresh: WorkloadDAG | None) -> WorkloadDAG:
    """Plain trees and rings: unsent workloads keep their endpoints, re-routed around failed links."""
    begun = np.zeros(dag.n_trees, dtype=bool)
    begun[dag.tree[delivered]] = True
    fresh_tree = _tree_map(dag, fresh) if fresh is not None else None
    rebuild = ~begun if fresh_tree is not None else np.zeros(dag.n_trees, dtype=bool)
    todo = np.flatnonzero(~delivered & ~rebuild[dag.tree])
    crosses = np.zeros(dag.n, dtype=bool)
    np.logical_or.at(crosses, dag.links.rows_of_values(), topology.link_failed[dag.links.values])
    routes = compute_routes(topology, routing) if crosses[todo].any() else None
    # hops per workload: one (its own path) unless it is re-routed into a relay chain
    old_paths = dag.path.to_lists()
    hops = {w: send_segments(topology, routes, int(dag.src[w]), int(dag.dst[w]))
            for w in todo[crosses[todo]].tolist()}
    count = np.ones(len(todo), dtype=np.int64)
    for k, w in enumerate(todo.tolist()):
        if w in hops:
            count[k] = len(hops[w])
    first = np.full(dag.n, -1, dtype=np.int64)
    first[todo] = np.r_[0, np.cumsum(count)[:-1]]
    last = np.full(dag.n, -1, dtype=np.int64)
    last[todo] = first[todo] + count - 1
    n = int(count.sum())
    b = _Builder()
    b.tree = np.repeat(dag.tree[todo], count).tolist()
    b.phase = np.repeat(dag.phase[todo], count).tolist()
    head = np.zeros(n, dtype=bool)
    head[first[todo]] = True
    b.own = (np.repeat(dag.carries_own[todo], count) & head).tolist()
    b.origin = np.where(head, np.repeat(todo, count), -1).tolist()
    b.paths = [seg for w in todo.tolist() for seg in hops.get(w, [old_paths[w]])]
    relay = np.flatnonzero(~head)
    b.pre = list(zip(relay.tolist(), (relay - 1).tolist()))  # a relay hop waits for the hop before it
    pr, pv = dag.prefix.rows_of_values(), dag.prefix.values
    mine = first[pr] >= 0
    pr, pv = pr[mine], pv[mine]
    done = delivered[pv]
    b.done = list(zip(first[pr[done]].tolist(), pv[done].tolist()))
    b.pre += list(zip(first[pr[~done]].tolist(), last[pv[~done]].tolist()))
    if rebuild.any():
        assert fresh is not None and fresh_tree is not None
        take = np.flatnonzero(rebuild[fresh_tree])
        base = len(b.tree)
        new_id = np.full(fresh.n, -1, dtype=np.int64)
        new_id[take] = base + np.arange(len(take))
        fresh_paths = fresh.path.to_lists()
        for w in take.tolist():
            b.chain(int(fresh_tree[w]), int(fresh.phase[w]), bool(fresh.carries_own[w]), [fresh_paths[w]], -1)
        pos, pre = fresh.prefix.gather(take)  # prefixes never leave their flow-tree
        b.pre += list(zip((base + pos).tolist(), new_id[pre].tolist()))
    return b.dag(dag, topology, rerouted=int(crosses[todo].sum()), rebuilt_trees=int(rebuild.sum()))


def _tree_map(dag: WorkloadDAG, fresh: WorkloadDAG) -> np.ndarray | None:
    """For each workload of `fresh`, the flow-tree of `dag` with the same (root, chunk); None if the two
    DAGs do not have the same flow-trees."""
    key = {(int(r), int(c)): k for k, (r, c) in enumerate(zip(dag.tree_root, dag.tree_chunk))}
    fresh_keys = [(int(r), int(c)) for r, c in zip(fresh.tree_root, fresh.tree_chunk)]
    if sorted(fresh_keys) != sorted(key) or fresh.kind != dag.kind or fresh.merge != dag.merge:
        return None
    return np.array([key[k] for k in fresh_keys], dtype=np.int64)[fresh.tree]


def combine(dag: WorkloadDAG, rounds: Rounds, delivered: np.ndarray, residual: WorkloadDAG,
            residual_rounds: Rounds) -> tuple[WorkloadDAG, Rounds]:
    """The whole run as one DAG over `dag`'s topology and its rounds: the delivered workloads of `dag`
    (ids first, in order, each in its original round) and then the residual schedule."""
    delivered = np.asarray(delivered, dtype=bool)
    dag = dag.explicit()
    done = np.flatnonzero(delivered)
    new_id = np.full(dag.n, -1, dtype=np.int64)
    new_id[done] = np.arange(len(done))
    off = len(done)
    pr, pv = dag.prefix.rows_of_values(), dag.prefix.values
    keep = delivered[pr]
    d_r, d_v = residual.meta["done_prefix"]
    rows = np.concatenate([new_id[pr[keep]], residual.prefix.rows_of_values() + off, d_r + off])
    vals = np.concatenate([new_id[pv[keep]], residual.prefix.values + off, new_id[d_v]])
    paths = dag.path.to_lists()
    both = assemble_dag(dag.topology, dag.kind, dag.merge, dag.chunks,
                        tree=np.r_[dag.tree[done], residual.tree], phase=np.r_[dag.phase[done], residual.phase],
                        carries_own=np.r_[dag.carries_own[done], residual.carries_own],
                        path=csr.from_lists([paths[w] for w in done.tolist()] + residual.path.to_lists()),
                        prefix=csr.from_pairs(rows, vals, off + residual.n),
                        tree_root=dag.tree_root, tree_chunk=dag.tree_chunk, meta=dict(dag.meta))
    out: Rounds = []
    for r in rounds:
        r = np.asarray(r, dtype=np.int64)
        kept = new_id[r[delivered[r]]]
        if len(kept):
            out.append(np.sort(kept))
    out += [np.sort(np.asarray(r, dtype=np.int64) + off) for r in residual_rounds]
    return both, out
