"""Point-to-point transport for the executor: torch.distributed groups, or stand-alone gloo groups.

`DistComm` drives an initialized ``torch.distributed`` group (the default group under
``torchrun``, gloo or NCCL); one round's sends and receives go out together through
``dist.batch_isend_irecv``. `GlooComm` drives a ``ProcessGroupGloo`` built directly over a
store, so that several ranks can live as threads of one process (tests, ``--ranks-per-process``).
"""

from __future__ import annotations

import datetime
import errno
import os
import socket
from typing import Protocol

import torch
import torch.distributed as dist

LOOPBACK = "127.0.0.1"


class Comm(Protocol):
    """What the executor needs from a process group."""

    rank: int
    size: int

    def prepare(self) -> None:
        """Called by every rank at the start of each AllReduce."""

    def post(self, sends: list[tuple[torch.Tensor, int, int]], recvs: list[tuple[torch.Tensor, int, int]]) -> list:
        """Start every (tensor, peer rank, tag) send and receive; returns their pending works."""

    def all_reduce(self, tensor: torch.Tensor) -> None:
        """The library's own AllReduce (sum, in place): the reference."""

    def reduce_max(self, tensor: torch.Tensor) -> None:
        """Element-wise max over ranks, in place (small tensors: timings, flags)."""

    def barrier(self) -> None:
        """Wait until every rank arrives."""


class DistComm:
    """A torch.distributed process group (default: the world) as a Comm."""

    def __init__(self, group: dist.ProcessGroup | None = None):
        self.group = group
        self.rank = dist.get_rank(group)
        self.size = dist.get_world_size(group)
        self._global = [dist.get_global_rank(group, r) if group is not None else r for r in range(self.size)]
        self.backend = str(dist.get_backend(group))
        self._first = self.backend == "nccl"

    def prepare(self) -> None:
        """NCCL: the first batched P2P call of a group must involve every rank, so meet once first."""
        if self._first:
            self.barrier()

    def post(self, sends, recvs) -> list:
        """Start the operations through dist.batch_isend_irecv (NCCL groups them; gloo posts each one)."""
        ops = [dist.P2POp(dist.isend, t, self._global[p], self.group, tag) for t, p, tag in sends]
        ops += [dist.P2POp(dist.irecv, t, self._global[p], self.group, tag) for t, p, tag in recvs]
        return dist.batch_isend_irecv(ops) if ops else []

    def all_reduce(self, tensor: torch.Tensor) -> None:
        """dist.all_reduce (sum)."""
        dist.all_reduce(tensor, group=self.group)

    def reduce_max(self, tensor: torch.Tensor) -> None:
        """dist.all_reduce with MAX."""
        dist.all_reduce(tensor, op=dist.ReduceOp.MAX, group=self.group)

    def barrier(self) -> None:
        """dist.barrier on the group."""
        self._first = False
        dist.barrier(group=self.group)


class GlooComm:
    """A stand-alone ``ProcessGroupGloo`` (not registered with torch.distributed) as a Comm."""

    def __init__(self, store: dist.Store, rank: int, size: int, timeout: float, host: str = LOOPBACK):
        opts = dist.ProcessGroupGloo._Options()
        opts._devices = [dist.ProcessGroupGloo.create_device(hostname=host)]
        opts._timeout = datetime.timedelta(seconds=timeout)
        self.pg = dist.ProcessGroupGloo(store, rank, size, opts)
        self.rank, self.size = rank, size

    def prepare(self) -> None:
        """Nothing to do for gloo."""

    def post(self, sends, recvs) -> list:
        """Start every send and receive on the gloo group."""
        return [self.pg.send([t], p, tag) for t, p, tag in sends] + [self.pg.recv([t], p, tag) for t, p, tag in recvs]

    def all_reduce(self, tensor: torch.Tensor) -> None:
        """Gloo's own allreduce (what dist.all_reduce calls on a gloo group)."""
        self.pg.allreduce([tensor]).wait()

    def reduce_max(self, tensor: torch.Tensor) -> None:
        """Gloo allreduce with MAX."""
        opts = dist.AllreduceOptions()
        opts.reduceOp = dist.ReduceOp.MAX
        self.pg.allreduce([tensor], opts).wait()

    def barrier(self) -> None:
        """Gloo barrier."""
        self.pg.barrier().wait()


def loopback_interface() -> str | None:
    """Name of the loopback network interface (``lo`` on Linux, ``lo0`` on macOS), None if unknown."""
    names = [name for _, name in socket.if_nameindex()]
    return next((n for n in ("lo", "lo0") if n in names), None)


def _listening_socket(port: int, host: str) -> socket.socket:
    """A TCP socket bound to `host`:`port` and listening (port 0: a free port); OSError with a one-line reason."""
    if not 0 <= port < 65536:
        raise OSError(f"--port must be in 1..65535 (or 0 for a free one), got {port}")
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as TCPStore does; a listener still blocks it
        s.bind((host, port))
        s.listen(1024)
    except OSError as err:
        s.close()
        what = "is in use" if err.errno == errno.EADDRINUSE else "cannot be bound"
        raise OSError(f"port {port} on {host} {what} ({err.strerror}); pick another --port, "
                      f"or 0 for a free one") from None
    return s


def master_store(port: int, timeout: float, host: str = LOOPBACK) -> dist.TCPStore:
    """The TCPStore every local rank meets at, served by this process on `host` only (port 0: a free port).

    Given a host and port, torch's TCPStore server binds every interface (``*:PORT``, torch 2.13, libuv or
    not); so the socket is bound to `host` here and handed over as ``master_listen_fd`` (the store owns it).
    """
    sock = _listening_socket(port, host)
    bound = sock.getsockname()[1]
    fd = sock.detach()
    try:
        return dist.TCPStore(host, bound, None, True, datetime.timedelta(seconds=timeout), wait_for_workers=False,
                             master_listen_fd=fd)
    except BaseException:
        os.close(fd)
        raise


def client_store(port: int, timeout: float, host: str = LOOPBACK) -> dist.TCPStore:
    """A client of the master store."""
    return dist.TCPStore(host, port, None, False, datetime.timedelta(seconds=timeout))
