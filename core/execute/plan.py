"""Per-rank execution plans of an ``allreduce-schedule/1`` document (no torch here).

A plan says, for one rank, what to add, send and receive in each round where it acts. It is
derived once from a validated schedule and then drives any number of AllReduce calls.

Conventions (docs/execution.md):

- **Ranks.** Rank ``i`` runs the ``i``-th server in ascending node id unless a mapping
  ``ranks`` (server node id -> rank, or a list of server ids in rank order) is given.
- **Pieces.** The flattened tensor is split into ``S * chunks`` contiguous pieces the way
  ``torch.tensor_split`` does (the first ``numel % (S*chunks)`` pieces get one element more);
  piece ``t`` is reduced by the flow-tree of root server ``t // chunks`` (by id order) and chunk
  ``t % chunks``. Pieces of size 0 are skipped by both ends.
- **Data** (MODEL.md §3, §8). A reduce workload's payload is the sender's own piece (if
  ``carries_own``) plus the payloads of its reduce prefixes, which ended at the sender; one
  with a single prefix and no own piece is a relay that forwards the buffer it received. The
  root's sum is its own piece plus every reduce payload that ended at it and that no reduce
  workload takes as a prefix. A broadcast sends the sender's piece (it holds the sum); the
  first broadcast a server receives for a tree lands in its own piece, later ones in scratch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ..schedule_io import check_header, schedule_to_dict
from ..schedule_npz import Columns, json_rows
from ..validate import validate_document

SLICE, BUFFER = 0, 1
"""Where a send reads or a receive writes: the rank's own piece of the tensor, or a buffer slot."""


class ScheduleRefused(ValueError):
    """A schedule the validator rejects; nothing was sent."""


@dataclass(frozen=True)
class Merge:
    """Form a payload in buffer `out`: start from own piece `own_tree` (or from `out` itself when
    `accumulate`, or from zero), then add the buffers `inputs`."""

    out: int
    tree: int
    own: bool
    accumulate: bool
    inputs: tuple[int, ...]


@dataclass(frozen=True)
class Transfer:
    """One side of a workload: the peer rank, the message tag, the tree, and SLICE or a BUFFER slot."""

    peer: int
    tag: int
    tree: int
    where: int
    slot: int


@dataclass(frozen=True)
class RoundPlan:
    """What one rank does in one round: finish sums, form payloads, then send and receive."""

    round: int
    finish: tuple[tuple[int, tuple[int, ...]], ...]
    merges: tuple[Merge, ...]
    sends: tuple[Transfer, ...]
    recvs: tuple[Transfer, ...]


@dataclass(frozen=True)
class RankPlan:
    """Every round one rank acts in, the sums it finishes after its last round, and its buffer slots."""

    rank: int
    server: int
    rounds: tuple[RoundPlan, ...]
    finish_last: tuple[tuple[int, tuple[int, ...]], ...]
    slot_tree: tuple[int, ...]

    @property
    def n_messages(self) -> int:
        """Messages this rank sends and receives per AllReduce."""
        return sum(len(r.sends) + len(r.recvs) for r in self.rounds)


@dataclass(frozen=True)
class SchedulePlan:
    """The plans of every rank of one schedule, and what they share."""

    method: str
    spec: str
    servers: tuple[int, ...]
    labels: tuple[str, ...]
    rank_of: tuple[int, ...]
    chunks: int
    n_rounds: int
    n_workloads: int
    ranks: tuple[RankPlan, ...]

    @property
    def world_size(self) -> int:
        """Number of ranks (= servers)."""
        return len(self.servers)

    @property
    def n_pieces(self) -> int:
        """Pieces the tensor is split into (one per flow-tree)."""
        return len(self.servers) * self.chunks

    def server_of(self, rank: int) -> int:
        """Node id of the server a rank runs."""
        return self.ranks[rank].server

    def describe_rank(self, rank: int) -> str:
        """``rank 3 (server s03)``."""
        return f"rank {rank} (server {self.labels[self.ranks[rank].server]})"

    def workspace_elements(self, numel: int) -> int:
        """Largest number of buffer elements any rank needs for a tensor of `numel` elements."""
        sizes = piece_sizes(numel, self.n_pieces)
        return max((sum(sizes[t] for t in r.slot_tree) for r in self.ranks), default=0)


def piece_sizes(numel: int, n: int) -> list[int]:
    """Sizes of the `n` contiguous pieces ``torch.tensor_split`` cuts `numel` elements into."""
    base, extra = divmod(numel, n)
    return [base + 1 if i < extra else base for i in range(n)]


def as_document(schedule: Any) -> dict[str, Any]:
    """The allreduce-schedule/1 document of a Schedule object or of an already parsed document."""
    if isinstance(schedule, Mapping):
        return check_header(dict(schedule))
    if hasattr(schedule, "dag") and hasattr(schedule, "rounds"):
        return schedule_to_dict(schedule, stats={})
    raise TypeError(f"expected a Schedule or an allreduce-schedule/1 document, got {type(schedule).__name__}")


def build_plan(schedule: Any, ranks: Sequence[int] | Mapping[int, int] | None = None,
               name: str = "schedule") -> SchedulePlan:
    """Validate a schedule (refusing it with ScheduleRefused if invalid; `name` heads the reader's one-line
    errors) and plan every rank."""
    doc = as_document(schedule)
    report = validate_document(doc, name)
    if not report.ok:
        counts = ", ".join(f"{k} {n}" for k, n in report.by_rule().items())
        elsewhere = report.elsewhere_refusal()  # validate's hint, as replay says it (trials 16 and 17)
        raise ScheduleRefused(f"schedule refused, nothing was sent: {len(report.violations)} violation(s) "
                              f"({counts}); " + (elsewhere or f"first: {report.violations[0].message}"))
    return _plan(doc, ranks)


def _rank_mapping(servers: list[int], ranks: Sequence[int] | Mapping[int, int] | None) -> dict[int, int]:
    if ranks is None:
        return {s: i for i, s in enumerate(servers)}
    rule = (f"a rank mapping must give each of the {len(servers)} servers (node ids {servers[0]}..{servers[-1]}) "
            f"a distinct rank 0..{len(servers) - 1}")
    if isinstance(ranks, Mapping):
        mapping = {int(k): int(v) for k, v in ranks.items()}
        given = str(dict(ranks))
    else:
        order = [int(s) for s in ranks]
        given = ",".join(map(str, order))  # as typed (--rank-map 0,0,1,2), not the dict it becomes
        seen: dict[int, int] = {}
        for rank, s in enumerate(order):
            if s in seen:
                raise ValueError(f"{rule}: server {s} is given twice (ranks {seen[s]} and {rank}), got {given}")
            seen[s] = rank
        mapping = {s: i for i, s in enumerate(order)}
    unknown = sorted(set(mapping) - set(servers))
    missing = sorted(set(servers) - set(mapping))
    ranks_used = sorted(mapping.values())
    if unknown or missing or ranks_used != list(range(len(servers))):
        why = (f"node {unknown[0]} is not a server" if unknown else f"server {missing[0]} has no rank" if missing
               else "the ranks are not 0..n-1 once each")
        raise ValueError(f"{rule}: {why}, got {given}")
    return mapping


def _plan(doc: dict[str, Any], ranks: Sequence[int] | Mapping[int, int] | None) -> SchedulePlan:
    if isinstance(doc["workloads"], Columns):  # the columnar .npz form: walk it as the JSON form's workloads
        doc = dict(doc, **json_rows(doc["workloads"]))
    nodes = doc["topology"]["nodes"]
    label = {int(n["id"]): str(n.get("label", n["id"])) for n in nodes}
    servers = sorted(int(n["id"]) for n in nodes if n.get("kind") == "server")
    index = {s: i for i, s in enumerate(servers)}
    rank_of = _rank_mapping(servers, ranks)
    chunks = int(doc.get("chunks", 1))
    items = doc["workloads"]
    pos = {int(w["id"]): i for i, w in enumerate(items)}
    sent = [-1] * len(items)
    for r, ids in enumerate(doc["rounds"]):
        for w in ids:
            sent[pos[int(w)]] = r
    tree = [index[int(w["root"])] * chunks + int(w.get("chunk", 0)) for w in items]
    src = [int(w["path"][0]) for w in items]
    dst = [int(w["path"][-1]) for w in items]
    reduce = [w["phase"] == "reduce" for w in items]
    own = [bool(w.get("carries_own", False)) for w in items]
    red_prefix = [[pos[int(p)] for p in w.get("prefix", []) if reduce[pos[int(p)]]] if reduce[i] else []
                  for i, w in enumerate(items)]
    uses = [0] * len(items)  # how many reduce payloads take each reduce workload's payload
    for pre in red_prefix:
        for p in pre:
            uses[p] += 1
    root_server = [servers[t // chunks] for t in tree]

    builders = {s: _RankBuilder(rank_of[s], s) for s in servers}
    order = sorted(range(len(items)), key=lambda i: (sent[i], i))  # one fixed order for both ends
    for i in order:
        r, t, a, b = sent[i], tree[i], builders[src[i]], builders[dst[i]]
        if reduce[i]:
            a.send_reduce(r, i, t, rank_of[dst[i]], own[i], red_prefix[i], uses)
            b.recv_reduce(r, i, t, rank_of[src[i]])
            if dst[i] == root_server[i] and uses[i] == 0:
                b.add_to_sum(t, i, r)
        else:
            a.send(r, i, t, rank_of[dst[i]], SLICE, -1)
            b.recv_broadcast(r, i, t, rank_of[src[i]], is_root=dst[i] == root_server[i])
    plans = sorted((b.build() for b in builders.values()), key=lambda p: p.rank)
    return SchedulePlan(method=str(doc.get("method", "?")), spec=str(doc["topology"].get("spec", "file")),
                        servers=tuple(servers), labels=tuple(label.get(i, str(i)) for i in range(max(label) + 1)),
                        rank_of=tuple(rank_of[s] for s in servers), chunks=chunks, n_rounds=len(doc["rounds"]),
                        n_workloads=len(items), ranks=tuple(plans))


class _RankBuilder:
    """Collects one rank's operations while the workloads are walked in (round, id) order."""

    def __init__(self, rank: int, server: int):
        self.rank, self.server = rank, server
        self.slot_tree: list[int] = []
        self.slot_of: dict[int, int] = {}  # received reduce workload -> its buffer slot
        self.scratch: dict[int, int] = {}  # tree -> scratch slot for repeated broadcasts
        self.holds: set[int] = set()  # trees whose sum this rank's piece already holds
        self.rounds: dict[int, dict[str, list]] = {}
        self.sum_parts: dict[int, list[int]] = {}  # tree -> buffer slots of the root's sum
        self.sum_round: dict[int, int] = {}  # tree -> round of its last part

    def _round(self, r: int) -> dict[str, list]:
        return self.rounds.setdefault(r, {"merges": [], "sends": [], "recvs": []})

    def _slot(self, t: int) -> int:
        self.slot_tree.append(t)
        return len(self.slot_tree) - 1

    def send(self, r: int, w: int, t: int, peer: int, where: int, slot: int) -> None:
        self._round(r)["sends"].append(Transfer(peer, w, t, where, slot))

    def send_reduce(self, r: int, w: int, t: int, peer: int, own: bool, prefixes: list[int], uses: list[int]) -> None:
        ins = [self.slot_of[p] for p in prefixes]
        if own and not ins:
            self.send(r, w, t, peer, SLICE, -1)
            return
        if not own and len(ins) == 1:  # a relay forwards what it received
            self.send(r, w, t, peer, BUFFER, ins[0])
            return
        # accumulate into a received buffer that nothing else reads, else into a fresh one
        mine = [s for p, s in zip(prefixes, ins) if uses[p] == 1]
        if mine:
            out = mine[0]
            merge = Merge(out, t, own, True, tuple(s for s in ins if s != out))
        else:
            out = self._slot(t)
            merge = Merge(out, t, own, False, tuple(ins))
        self._round(r)["merges"].append(merge)
        self.send(r, w, t, peer, BUFFER, out)

    def recv_reduce(self, r: int, w: int, t: int, peer: int) -> None:
        slot = self.slot_of[w] = self._slot(t)
        self._round(r)["recvs"].append(Transfer(peer, w, t, BUFFER, slot))

    def add_to_sum(self, t: int, w: int, r: int) -> None:
        self.sum_parts.setdefault(t, []).append(self.slot_of[w])
        self.sum_round[t] = max(self.sum_round.get(t, -1), r)

    def recv_broadcast(self, r: int, w: int, t: int, peer: int, is_root: bool) -> None:
        if is_root or t in self.holds:
            if t not in self.scratch:
                self.scratch[t] = self._slot(t)
            self._round(r)["recvs"].append(Transfer(peer, w, t, BUFFER, self.scratch[t]))
        else:
            self.holds.add(t)
            self._round(r)["recvs"].append(Transfer(peer, w, t, SLICE, -1))

    def build(self) -> RankPlan:
        active = sorted(self.rounds)
        finish: dict[int, list[tuple[int, tuple[int, ...]]]] = {}
        last: list[tuple[int, tuple[int, ...]]] = []
        for t, r in sorted(self.sum_round.items()):
            # the sum is finished before the first round this rank acts in after round r
            nxt = next((x for x in active if x > r), None)
            (finish.setdefault(nxt, []) if nxt is not None else last).append((t, tuple(self.sum_parts[t])))
        rounds = tuple(RoundPlan(r, tuple(finish.get(r, [])), tuple(self.rounds[r]["merges"]),
                                 tuple(self.rounds[r]["sends"]), tuple(self.rounds[r]["recvs"])) for r in active)
        return RankPlan(self.rank, self.server, rounds, tuple(last), tuple(self.slot_tree))
