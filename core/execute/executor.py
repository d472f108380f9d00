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
    An invalid schedule raises ScheduleRefused here, before anything is sent.
    """

    def __init__(self, schedule: Any, comm: Comm | None = None, *,
                 ranks: Sequence[int] | Mapping[int, int] | None = None, cache: int = 4):
        self.plan = schedule if isinstance(schedule, SchedulePlan) else build_plan(schedule, ranks)
        self.comm = comm if comm is not None else DistComm()
        if self.comm.size != self.plan.world_size:
            raise ValueError(f"the schedule has {self.plan.world_size} servers but the process group has "
                             f"{self.comm.size} ranks; run one rank per server")
        self.rank = self.comm.rank
        self._mine = self.plan.ranks[self.rank]
        self._cache: OrderedDict[tuple, tuple[list[int], list[torch.Tensor]]] = OrderedDict()
        self._cache_size = cache

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
        self.comm.prepare()

        def tensor_of(x: Transfer) -> torch.Tensor:
            return pieces[x.tree] if x.where == SLICE else bufs[x.slot]

        def finish(sums) -> None:
            for t, parts in sums:
                if sizes[t]:
                    for s in parts:
                        pieces[t].add_(bufs[s])

        for rnd in self._mine.rounds:
            finish(rnd.finish)
            for m in rnd.merges:
                if not sizes[m.tree]:
                    continue
                out = bufs[m.out]
                if not m.accumulate:
                    out.copy_(pieces[m.tree]) if m.own else out.zero_()
                elif m.own:
                    out.add_(pieces[m.tree])
                for s in m.inputs:
                    out.add_(bufs[s])
            sends = [(tensor_of(x), x.peer, x.tag) for x in rnd.sends if sizes[x.tree]]
            recvs = [(tensor_of(x), x.peer, x.tag) for x in rnd.recvs if sizes[x.tree]]
            try:
                self.comm.exchange(sends, recvs)
            except RuntimeError as err:
                raise self._failure(rnd.round, rnd.sends + rnd.recvs, err) from err
        finish(self._mine.finish_last)
        if not tensor.is_contiguous():  # we worked on a contiguous copy
            tensor.copy_(flat.view(tensor.shape))
        return tensor

    def _failure(self, rnd: int, transfers: tuple[Transfer, ...], err: Exception) -> ExecutionError:
        text, timed_out = error_line(err)
        peers = sorted({x.peer for x in transfers})
        what = "timed out" if timed_out else "failed"
        who = ", ".join(self.plan.describe_rank(p) for p in peers[:6]) + (" ..." if len(peers) > 6 else "")
        return ExecutionError(f"{self.plan.describe_rank(self.rank)}: round {rnd} of {self.plan.method} {what} "
                              f"exchanging with {who}: {text}", self.rank, timed_out)
