"""Helpers of the execution tests: cached schedules, and every rank of a group as a thread of this process.

The thread ranks use stand-alone gloo groups over an in-process HashStore, bound to 127.0.0.1:
no port is chosen by the tests and nothing listens beyond loopback.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any, Callable

import torch
import torch.distributed as dist

from core.execute.comm import GlooComm
from core.methods import METHODS, run_method
from core.schedule import ScheduleConfig
from core.topology import make_topology

SMALL = ("example:fig3", "bcube:n=2,k=1", "dcell:n=2,k=1")
ALL_METHODS = tuple(METHODS)
TIMEOUT = 20.0


@lru_cache(maxsize=None)
def schedule(spec: str, method: str, chunks: int = 1, merge: bool = True):
    """run_method on a small spec, cached (optimal gets a short time limit)."""
    return run_method(method, make_topology(spec), ScheduleConfig(chunks=chunks, merge=merge, time_limit=5.0))


def rank_input(rank: int, numel: int, dtype: torch.dtype = torch.int64, seed: int = 0) -> torch.Tensor:
    """Rank `rank`'s deterministic test input (integers in [-1000, 1000) or floats in [-1, 1))."""
    g = torch.Generator().manual_seed(1000 * seed + rank)
    if dtype.is_floating_point:
        return (torch.rand(numel, generator=g, dtype=torch.float64) * 2 - 1).to(dtype)
    return torch.randint(-1000, 1000, (numel,), generator=g, dtype=dtype)


class ThreadRanks:
    """`world` ranks of one gloo group, each a thread of this process."""

    def __init__(self, world: int, timeout: float = TIMEOUT):
        self.world, self.timeout = world, timeout
        store = dist.HashStore()
        self.comms: list[GlooComm] = [None] * world  # type: ignore[list-item]

        def make(comm_rank: int) -> None:
            self.comms[comm_rank] = GlooComm(dist.PrefixStore("test/", store), comm_rank, world, timeout)
        self._threads(lambda r: make(r))

    def _threads(self, fn: Callable[[int], Any]) -> list[Any]:
        out: list[Any] = [None] * self.world
        errors: list[BaseException] = []

        def body(r: int) -> None:
            try:
                out[r] = fn(r)
            except BaseException as err:  # re-raised below in the test's thread
                errors.append(err)
        threads = [threading.Thread(target=body, args=(r,), daemon=True) for r in range(self.world)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(self.timeout + 10)
        if any(t.is_alive() for t in threads):
            raise TimeoutError(f"a rank thread is still running after {self.timeout + 10:.0f} s")
        if errors:
            raise errors[0]
        return out

    def run(self, fn: Callable[[Any], Any]) -> list[Any]:
        """fn(comm) on every rank at once; the results by rank (the first exception is re-raised)."""
        return self._threads(lambda r: fn(self.comms[r]))


_GROUPS: dict[int, ThreadRanks] = {}


def ranks(world: int) -> ThreadRanks:
    """A group of `world` thread ranks, built once per test session and world size."""
    if world not in _GROUPS:
        _GROUPS[world] = ThreadRanks(world)
    return _GROUPS[world]


def torchrun_cli(seat, report, argv: list[str]) -> tuple[int, str, str]:
    """One rank of `allreduce-lab run` with the environment torchrun gives it (agent store at seat.port)."""
    import io
    import os
    from contextlib import redirect_stderr, redirect_stdout

    from core import cli
    from core.execute.comm import loopback_interface

    os.environ.update({"RANK": str(seat.rank), "LOCAL_RANK": str(seat.rank), "WORLD_SIZE": str(seat.world),
                       "LOCAL_WORLD_SIZE": str(seat.world),
                       "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(seat.port),
                       "TORCHELASTIC_USE_AGENT_STORE": "True", "GLOO_SOCKET_IFNAME": loopback_interface() or "lo"})
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = cli.main(argv)
    return rc, out.getvalue(), err.getvalue()


def listening_addresses(pid: int) -> list[str]:
    """``host:port`` of every TCP socket (IPv4 and IPv6) that process `pid` holds in LISTEN state (Linux /proc)."""
    import ipaddress
    import os

    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:  # closed meanwhile
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    out = []
    for table in ("tcp", "tcp6"):
        with open(f"/proc/{pid}/net/{table}") as f:
            next(f)
            for line in f:
                cols = line.split()
                if cols[3] != "0A" or cols[9] not in inodes:  # 0A: TCP_LISTEN
                    continue
                host, port = cols[1].split(":")
                # the kernel prints each 32-bit word of the address in host (little-endian) order
                raw = b"".join(bytes.fromhex(host[i:i + 8])[::-1] for i in range(0, len(host), 8))
                out.append(f"{ipaddress.ip_address(raw)}:{int(port, 16)}")
    return out


def is_loopback(address: str) -> bool:
    """Whether ``host:port`` is on a loopback address (127.0.0.0/8, ::1, or IPv4-mapped ::ffff:127.x)."""
    import ipaddress

    ip = ipaddress.ip_address(address.rpartition(":")[0])
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_loopback or bool(mapped and mapped.is_loopback)


def listeners(comm, report, parent: int) -> dict[int, list[str]]:
    """A launch_local task: once every rank's group is up, the LISTEN sockets of this rank's process and of the
    launching process `parent` (which serves the store), by process id."""
    import os

    comm.barrier()
    found = {pid: listening_addresses(pid) for pid in (os.getpid(), parent)}
    comm.barrier()
    return found
