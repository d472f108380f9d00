"""Time a schedule against ``dist.all_reduce`` on real tensors, after checking it computes the same sum.

Figures follow nccl-tests: the time of one AllReduce is the slowest rank's (each rank starts
after a barrier), ``algbw = bytes / time`` and ``busbw = algbw * 2(n-1)/n`` (GB/s, 1e9 bytes).
Integer tensors must match bitwise; float tensors within the worst-case rounding of summing n
terms in two orders, ``2(n-1) * n * eps`` (inputs are uniform in [-1, 1)).
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from ..timing.model import algbw, busbw

DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "uint8")


def bandwidths(nbytes: int, seconds: float, ranks: int) -> tuple[float, float]:
    """(algbw, busbw) in GB/s (1e9 bytes/s) of one AllReduce of `nbytes` over `ranks` ranks taking `seconds`."""
    if seconds <= 0:
        return math.inf, math.inf
    return algbw(nbytes, seconds) / 1e9, (busbw(nbytes, seconds, ranks) / 1e9 if ranks > 1 else 0.0)


@dataclass(frozen=True)
class BenchConfig:
    """One measurement: tensor elements and type, repetitions (after warm-up), input seed, device, and
    the executor's segment size (0: whole pieces)."""

    numel: int
    dtype: str = "float32"
    repeat: int = 5
    warmup: int = 1
    seed: int = 0
    device: str = "cpu"
    segment_bytes: int = 0


def _torch_dtype(name: str):
    import torch
    return getattr(torch, name)


def element_size(dtype: str) -> int:
    """Bytes per element of a dtype name."""
    if dtype not in DTYPES:
        raise ValueError(f"--dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    import torch
    return torch.empty(0, dtype=_torch_dtype(dtype)).element_size()


def whole_elements(nbytes: int, dtype: str) -> tuple[int, str | None]:
    """Elements of `dtype` a message of `nbytes` bytes runs as (rounded down, at least one), and a one-line note
    saying what size runs when that is not exactly `nbytes` (None when it is)."""
    size = element_size(dtype)
    numel = max(1, nbytes // size)
    if numel * size == nbytes:
        return numel, None
    return numel, (f"{nbytes} bytes is not a whole number of {dtype} elements ({size} bytes each): running "
                   f"{numel} element{'s' if numel != 1 else ''} = {numel * size} bytes per rank")


def float_tolerance(dtype: str, ranks: int) -> float:
    """Largest allowed |schedule - all_reduce| on float inputs in [-1, 1): 2(n-1)·n·eps; 0 for integers."""
    import torch
    dt = _torch_dtype(dtype)
    if not dt.is_floating_point:
        return 0.0
    return 2 * max(ranks - 1, 1) * ranks * torch.finfo(dt).eps


def make_input(cfg: BenchConfig, rank: int):
    """This rank's deterministic input: uniform in [-1, 1) for floats, [-2^20, 2^20) for int64/int32, [-4, 4) for
    int8 and [0, 4) for uint8."""
    import torch
    dt = _torch_dtype(cfg.dtype)
    g = torch.Generator().manual_seed(cfg.seed * 1_000_003 + rank)
    if dt.is_floating_point:
        x = torch.rand(cfg.numel, generator=g, dtype=dt if dt.itemsize >= 4 else torch.float32).mul_(2).sub_(1).to(dt)
    else:
        hi = 2 ** 20 if torch.iinfo(dt).bits >= 32 else 4
        lo = 0 if dt == torch.uint8 else -hi
        x = torch.randint(lo, hi, (cfg.numel,), generator=g, dtype=dt)
    return x.to(cfg.device)


def bench_rank(comm, report: Callable[[Any], None], plan, cfg: BenchConfig) -> dict[str, Any]:
    """On one rank: per repetition, time dist.all_reduce and the schedule on the same input and compare.

    Returns the slowest rank's times (seconds per repetition, warm-up excluded), the largest
    difference to the reference, and the number of elements that differ on the worst rank.
    """
    import torch

    from .executor import Executor

    ex = Executor(plan, comm, segment_bytes=cfg.segment_bytes)
    x = make_input(cfg, comm.rank)
    work, ref = torch.empty_like(x), torch.empty_like(x)
    n = cfg.warmup + cfg.repeat
    times = torch.zeros(2, n, dtype=torch.float64, device=x.device)
    cpu = torch.zeros(2, n, dtype=torch.float64)  # CPU seconds of this process (all its threads)
    worst = torch.zeros(2, dtype=torch.float64, device=x.device)  # max |difference|, elements that differ

    def sync() -> None:
        if x.is_cuda:
            torch.cuda.synchronize()

    for i in range(n):
        for k, (buf, run) in enumerate(((ref, comm.all_reduce), (work, ex.allreduce_))):
            buf.copy_(x)
            sync()
            comm.barrier()
            t0, c0 = time.perf_counter(), time.process_time()
            run(buf)
            sync()
            times[k, i] = time.perf_counter() - t0
            cpu[k, i] = time.process_time() - c0
        differ = int((work != ref).sum())
        if differ:
            worst[1] = max(float(worst[1]), differ)
            worst[0] = max(float(worst[0]), float(ref.sub_(work).abs_().max()))
        report(i + 1)
    comm.reduce_max(times)
    if not x.is_cuda:
        comm.all_reduce(cpu)  # summed over ranks (one process per rank: exact; threads: overcounted)
    comm.reduce_max(worst)
    return {"schedule_s": times[1, cfg.warmup:].tolist(), "all_reduce_s": times[0, cfg.warmup:].tolist(),
            "schedule_cpu_s": cpu[1, cfg.warmup:].tolist(), "all_reduce_cpu_s": cpu[0, cfg.warmup:].tolist(),
            "max_abs_diff": float(worst[0]), "elements_differ": int(worst[1])}


@dataclass
class BenchReport:
    """The outcome of `allreduce-lab run`: the check, per-repetition times and the bandwidths."""

    spec: str
    method: str
    ranks: int
    nbytes: int
    dtype: str
    schedule_s: list[float]
    all_reduce_s: list[float]
    max_abs_diff: float
    elements_differ: int
    tolerance: float
    mode: str
    processes: int = 0
    wall_s: float = 0.0
    cpu_s: float = 0.0
    load: tuple[float, float, float] = (0.0, 0.0, 0.0)
    schedule_cpu_s: list[float] = field(default_factory=list)
    all_reduce_cpu_s: list[float] = field(default_factory=list)
    memory_mib: float = 0.0
    """Summed proportional set size of the local rank processes at their end (0 if unknown)."""
    one_machine: bool = True
    """Every rank ran on this one machine (local runs; torchrun with LOCAL_WORLD_SIZE = WORLD_SIZE)."""
    cpu_absent: str = ""
    """Why the CPU seconds per AllReduce are not given (empty lists), or "" when they are."""

    @property
    def correct(self) -> bool:
        """Bitwise equal (integers) or within the float tolerance."""
        return self.elements_differ == 0 if self.tolerance == 0 else self.max_abs_diff <= self.tolerance

    def rows(self) -> list[dict[str, float]]:
        """Per repetition: seconds, algbw and busbw of the schedule and of dist.all_reduce."""
        out = []
        for i, (a, b) in enumerate(zip(self.schedule_s, self.all_reduce_s)):
            sa, sb = bandwidths(self.nbytes, a, self.ranks), bandwidths(self.nbytes, b, self.ranks)
            out.append({"rep": i + 1, "schedule_s": a, "schedule_algbw": sa[0], "schedule_busbw": sa[1],
                        "all_reduce_s": b, "all_reduce_algbw": sb[0], "all_reduce_busbw": sb[1],
                        "schedule_cpu_s": self.schedule_cpu_s[i] if self.schedule_cpu_s else None,
                        "all_reduce_cpu_s": self.all_reduce_cpu_s[i] if self.all_reduce_cpu_s else None})
        return out

    def average(self) -> dict[str, float]:
        """The ``avg`` row: the mean seconds of the schedule and of dist.all_reduce over the repetitions, and
        algbw/busbw of those mean times (bytes / mean time, as algbw is defined; not the mean of the rates)."""
        out: dict[str, float] = {}
        for who, times in (("schedule", self.schedule_s), ("all_reduce", self.all_reduce_s)):
            mean = sum(times) / len(times) if times else math.nan
            alg, bus = bandwidths(self.nbytes, mean, self.ranks) if times else (math.nan, math.nan)
            out.update({f"{who}_s": mean, f"{who}_algbw": alg, f"{who}_busbw": bus})
        for who, cpu in (("schedule", self.schedule_cpu_s), ("all_reduce", self.all_reduce_cpu_s)):
            out[f"{who}_cpu_s"] = sum(cpu) / len(cpu) if cpu else None
        return out

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form."""
        return {"spec": self.spec, "method": self.method, "ranks": self.ranks, "bytes": self.nbytes,
                "dtype": self.dtype, "mode": self.mode, "processes": self.processes, "correct": self.correct,
                "max_abs_diff": self.max_abs_diff, "elements_differ": self.elements_differ,
                "tolerance": self.tolerance, "repetitions": self.rows(), "average": self.average(), "wall_s": self.wall_s, "cpu_s": self.cpu_s,
                "load": list(self.load), "memory_mib": self.memory_mib}


def rank_bytes(plan, numel: int, itemsize: int) -> int:
    """Memory one rank of `bench_rank` holds: input, result, reference and the schedule's buffers."""
    return (3 * numel + plan.workspace_elements(numel)) * itemsize


def run_local(plan, cfg: BenchConfig, *, port: int = 0, timeout: float = 300.0, ranks_per_process: int = 1,
              progress: Callable[[int, Any], None] | None = None, fault: dict | None = None) -> BenchReport:
    """Benchmark on this machine: one gloo rank per server (processes; threads with ranks_per_process > 1)."""
    from .launch import check_capacity, launch_local

    itemsize = element_size(cfg.dtype)
    check_capacity(plan.world_size, ranks_per_process, rank_bytes(plan, cfg.numel, itemsize),
                   f"{plan.spec} ({plan.world_size} servers)")
    t0, c0 = time.perf_counter(), time.process_time()
    out = launch_local(bench_rank, (plan, cfg), plan.world_size, name=plan.describe_rank,
                       ranks_per_process=ranks_per_process, port=port, timeout=timeout, progress=progress,
                       fault=fault)
    rep = _report(plan, cfg, out.results[0], "local gloo, 127.0.0.1", out.processes, time.perf_counter() - t0,
                  time.process_time() - c0 + out.cpu_s)
    rep.memory_mib = out.pss_mib
    if out.processes < plan.world_size:  # each rank thread read its process's clock, which all its ranks share
        rep.schedule_cpu_s, rep.all_reduce_cpu_s = [], []
        rep.cpu_absent = (f"{plan.world_size} ranks in {out.processes} process{'es' if out.processes > 1 else ''} "
                          f"share each process's CPU clock (--ranks-per-process)")
    return rep


def _report(plan, cfg: BenchConfig, r: dict[str, Any], mode: str, processes: int, wall: float, cpu: float) -> BenchReport:
    return BenchReport(plan.spec, plan.method, plan.world_size, cfg.numel * element_size(cfg.dtype), cfg.dtype,
                       r["schedule_s"], r["all_reduce_s"], r["max_abs_diff"], r["elements_differ"],
                       float_tolerance(cfg.dtype, plan.world_size), mode, processes, wall, cpu, os.getloadavg(),
                       r["schedule_cpu_s"], r["all_reduce_cpu_s"])


class SameOnEveryRank(ValueError):
    """An error every torchrun rank finds alike before joining the group (`run` prints it on rank 0 only)."""


def under_torchrun() -> bool:
    """True when torchrun (or any launcher setting RANK and WORLD_SIZE) started this process."""
    return "RANK" in os.environ and "WORLD_SIZE" in os.environ


def run_torchrun(plan, cfg: BenchConfig, *, backend: str = "gloo", timeout: float = 300.0,
                 progress: Callable[[int, Any], None] | None = None) -> BenchReport | None:
    """Benchmark as one rank of a torchrun job (env:// rendezvous); rank 0 returns the report, others None."""
    import datetime

    import torch
    import torch.distributed as dist

    from .comm import DistComm

    world = int(os.environ["WORLD_SIZE"])
    if world != plan.world_size:
        raise SameOnEveryRank(f"the schedule has {plan.world_size} servers but torchrun started {world} ranks; "
                         f"use --nnodes/--nproc-per-node that multiply to {plan.world_size}")
    if backend == "nccl":
        if not torch.cuda.is_available():
            raise ValueError("--backend nccl needs CUDA GPUs; use --backend gloo")
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
        cfg = dataclasses.replace(cfg, device=f"cuda:{torch.cuda.current_device()}")
    t0, c0 = time.perf_counter(), time.process_time()
    dist.init_process_group(backend, timeout=datetime.timedelta(seconds=timeout))
    try:
        comm = DistComm()
        res = bench_rank(comm, (lambda i: progress(comm.rank, i)) if progress else (lambda i: None), plan, cfg)
        cpu = torch.tensor([time.process_time() - c0], dtype=torch.float64, device=cfg.device)
        dist.all_reduce(cpu)
        rank = comm.rank
    finally:
        dist.destroy_process_group()
    if rank != 0:
        return None
    rep = _report(plan, cfg, res, f"torchrun {backend}", world, time.perf_counter() - t0, float(cpu))
    rep.one_machine = os.environ.get("LOCAL_WORLD_SIZE") == str(world)  # torchrun sets it: ranks on this node
    if cfg.device != "cpu":  # bench_rank sums CPU seconds over the ranks for CPU tensors only
        rep.schedule_cpu_s, rep.all_reduce_cpu_s = [], []
        rep.cpu_absent = "with NCCL the AllReduce runs on the GPUs (CPU seconds are not summed over the ranks)"
    return rep
