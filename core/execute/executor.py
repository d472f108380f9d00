"""Run a schedule's rounds on real tensors: the in-place AllReduce of one rank."""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any, Mapping, Sequence

import torch

from .comm import Comm, DistComm
from .plan import SLICE, SchedulePlan, Transfer, build_plan, piece_sizes


def error_line(err: BaseException) -> tuple[str, bool]:
    """The most telling line of a (possibly multi-line) backend error, and whether it is a timeout."""
    lines = [re.sub(r"^\[[^\]]*\]\s*", "", x.strip()) for x in str(err).splitlines() if x.strip()]
    timed = [x for x in lines if "timed out" in x.lower() or "timeout" in x.lower()]
    return (timed or lines or [type(err).__name__])[0], bool(timed)


MAX_SEGMENTS = 4096
"""At most this many segments per piece (larger pieces get larger segments); tags are workload * this + k."""


class ExecutionError(RuntimeError):
    """A transfer that failed; the message names the rank, its server, the round and the peers."""

    def __init__(self, message: str, rank: int, timed_out: bool):
        super().__init__(message)
        self.rank = rank
        self.timed_out = timed_out


class Executor:
    """All-reduces tensors by a schedule, on the calling rank of `comm`.

    Build one per rank and schedule (the plan is computed once); `allreduce_(tensor)` sums
    `tensor` over all ranks in place. Buffers are kept for the last `cache` tensor shapes.
    With `segment_bytes` > 0 pieces travel in segments of that size, so that forming one segment
    of a merged payload overlaps sending the previous ones (off by default: on loopback, where
    the CPU is the bottleneck, it measured no gain; docs/execution.md). An invalid schedule
    raises ScheduleRefused here, before anything is sent.
    """

    def __init__(self, schedule: Any, comm: Comm | None = None, *,
                 ranks: Sequence[int] | Mapping[int, int] | None = None, cache: int = 4,
                 segment_bytes: int = 0):
        self.plan = schedule if isinstance(schedule, SchedulePlan) else build_plan(schedule, ranks)
        self.comm = comm if comm is not None else DistComm()
        if self.comm.size != self.plan.world_size:
            raise ValueError(f"the schedule has {self.plan.world_size} servers but the process group has "
                             f"{self.comm.size} ranks; run one rank per server")
        self.rank = self.comm.rank
        self._mine = self.plan.ranks[self.rank]
        self._cache: OrderedDict[tuple, tuple[list[int], list[torch.Tensor]]] = OrderedDict()
        self._cache_size = cache
        self.segment_bytes = segment_bytes

    def _buffers(self, numel: int, dtype: torch.dtype, device: torch.device) -> tuple[list[int], list[torch.Tensor]]:
        """Piece sizes and this rank's buffer slots for a tensor shape (views of one workspace)."""
        key = (numel, dtype, device)
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        sizes = piece_sizes(numel, self.plan.n_pieces)
        lens = [sizes[t] for t in self._mine.slot_tree]
        space = torch.empty(sum(lens), dtype=dtype, device=device)
        bufs = list(space.split(lens)) if lens else []
        self._cache[key] = (sizes, bufs)
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return sizes, bufs

    def allreduce_(self, tensor: torch.Tensor) -> torch.Tensor:
        """Sum `tensor` over every rank, in place, by the schedule; returns `tensor`."""
        flat = tensor.view(-1) if tensor.is_contiguous() else tensor.contiguous().view(-1)
        sizes, bufs = self._buffers(flat.numel(), flat.dtype, flat.device)
        pieces = flat.tensor_split(self.plan.n_pieces)
        seg = self._segment_elements(flat)
        comm = self.comm
        comm.prepare()

        def tensor_of(x: Transfer) -> torch.Tensor:
            return pieces[x.tree] if x.where == SLICE else bufs[x.slot]

        def split(t: torch.Tensor) -> tuple[torch.Tensor, ...]:
            return t.split(max(seg, -(-t.numel() // MAX_SEGMENTS))) if seg else (t,)

        def finish(sums) -> None:
            for t, parts in sums:
                if sizes[t]:
                    for s in parts:
                        pieces[t].add_(bufs[s])

        for rnd in self._mine.rounds:
            finish(rnd.finish)
            try:
                # receives first, then each send segment as soon as its payload is formed, so the
                # additions of one segment overlap the transfer of the previous ones
                works = comm.post([], [(part, x.peer, x.tag * MAX_SEGMENTS + k) for x in rnd.recvs if sizes[x.tree]
                                       for k, part in enumerate(split(tensor_of(x)))])
                merge_of = {m.out: m for m in rnd.merges}
                for x in rnd.sends:
                    if not sizes[x.tree]:
                        continue
                    parts = split(tensor_of(x))
                    m = merge_of.get(x.slot) if x.where != SLICE else None
                    if m is None:
                        works += comm.post([(p, x.peer, x.tag * MAX_SEGMENTS + k) for k, p in enumerate(parts)], [])
                        continue
                    own = split(pieces[m.tree])
                    inputs = [split(bufs[i]) for i in m.inputs]
                    for k, out in enumerate(parts):
                        if not m.accumulate:
                            out.copy_(own[k]) if m.own else out.zero_()
                        elif m.own:
                            out.add_(own[k])
                        for other in inputs:
                            out.add_(other[k])
                        works += comm.post([(out, x.peer, x.tag * MAX_SEGMENTS + k)], [])
                for w in works:
                    w.wait()
            except RuntimeError as err:
                raise self._failure(rnd.round, rnd.sends + rnd.recvs, err) from err
        finish(self._mine.finish_last)
        if not tensor.is_contiguous():  # we worked on a contiguous copy
            tensor.copy_(flat.view(tensor.shape))
        return tensor

    def _segment_elements(self, flat: torch.Tensor) -> int:
        """Elements per pipelined segment (0: whole pieces)."""
        return max(1, self.segment_bytes // flat.element_size()) if self.segment_bytes > 0 else 0

    def _failure(self, rnd: int, transfers: tuple[Transfer, ...], err: Exception) -> ExecutionError:
        text, timed_out = error_line(err)
        peers = sorted({x.peer for x in transfers})
        what = "timed out" if timed_out else "failed"
        who = ", ".join(self.plan.describe_rank(p) for p in peers[:6]) + (" ..." if len(peers) > 6 else "")
        return ExecutionError(f"{self.plan.describe_rank(self.rank)}: round {rnd + 1} of {self.plan.method} {what} "
                              f"exchanging with {who}: {text}", self.rank, timed_out)
