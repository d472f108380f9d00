"""Start the ranks of a schedule on this machine (gloo over 127.0.0.1) and watch them.

One process per server by default: processes are forked from a forkserver that imported torch
once, so each costs a few MiB and no second import; each joins the default torch.distributed
group (gloo bound to the loopback interface) exactly as it would under ``torchrun``. With
``ranks_per_process > 1`` a process hosts several ranks as threads, each with its own
stand-alone gloo group over the same store (every rank then, also one left alone in the last
process when the processes do not divide the ranks evenly). The parent serves the store (port 0: a free port,
chosen by the kernel at bind time, so no race), relays progress, and stops every process as
soon as one fails, dies or times out, naming the rank.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue as queue_mod
import resource
import signal
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable

PROCESS_MIB = 64
"""Memory one rank process costs beside its tensors (measured ~10 MiB private with torch shared
from the forkserver; docs/execution.md), rounded up generously."""
FORKSERVER_MIB = 300
"""The forkserver that imports torch once (~220 MiB resident measured), rounded up."""
GRACE_S = 1.0
"""After the first failure, seconds to collect the other ranks' reports before stopping them."""


class LaunchError(RuntimeError):
    """A local run that could not start or did not finish; the message is one line naming the cause."""


@dataclass(frozen=True)
class Seat:
    """Where a rank that joins no group itself (``join=False``) finds the others: its rank, the
    world size, and the port of the store on 127.0.0.1 (a torchrun agent store, in effect)."""

    rank: int
    world: int
    port: int


@dataclass
class Outcome:
    """What came back from the ranks: one result per rank, CPU seconds of every rank process."""

    results: list[Any]
    cpu_s: float
    processes: int
    pss_mib: float = 0.0
    """Proportional set size of the rank processes at their end, summed (Linux; 0 elsewhere)."""


def _groups(world: int, per: int) -> list[list[int]]:
    return [list(range(i, min(i + per, world))) for i in range(0, world, per)]


def describe_ranks(ranks: list[int], name: Callable[[int], str]) -> str:
    """``rank 3 (server s03)`` or ``ranks 0-4 (servers ...)`` for the ranks of one process."""
    if len(ranks) == 1:
        return name(ranks[0])
    return f"the process of ranks {ranks[0]}-{ranks[-1]} ({', '.join(name(r) for r in ranks[:4])}{' ...' if len(ranks) > 4 else ''})"


def _proc_mib(path: str, key: str) -> float | None:
    """The value of `key` (in kB) in a /proc file, in MiB; None where the system does not say."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def available_mib() -> float | None:
    """MemAvailable of /proc/meminfo in MiB (None where the system does not say)."""
    return _proc_mib("/proc/meminfo", "MemAvailable:")


def check_capacity(world: int, ranks_per_process: int, rank_bytes: int, what: str) -> None:
    """Raise LaunchError when `world` local ranks of `rank_bytes` each would not fit this machine."""
    if ranks_per_process < 1:
        raise LaunchError(f"--ranks-per-process must be >= 1, got {ranks_per_process}")
    procs = len(_groups(world, ranks_per_process))
    need = FORKSERVER_MIB + procs * PROCESS_MIB + world * rank_bytes / 2 ** 20
    have = available_mib()
    if have is not None and need > 0.9 * have:
        raise LaunchError(f"{what}: {world} local ranks need about {need / 1024:.1f} GiB ({rank_bytes / 2 ** 20:.0f} MiB "
                          f"of tensors and buffers per rank + {PROCESS_MIB} MiB per process), but only "
                          f"{have / 1024:.1f} GiB is available (limit: 90%); use a smaller --size, or run across "
                          f"machines with torchrun")
    soft, _ = resource.getrlimit(resource.RLIMIT_NPROC)
    if soft != resource.RLIM_INFINITY and procs * 16 > soft:
        raise LaunchError(f"{what}: {procs} processes of ~16 threads exceed the process limit {soft} (ulimit -u); "
                          f"host several ranks per process with --ranks-per-process")
    nofile, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if nofile != resource.RLIM_INFINITY and ranks_per_process * (world + 16) > nofile:
        raise LaunchError(f"{what}: {ranks_per_process} ranks per process need ~{ranks_per_process * (world + 16)} "
                          f"open files, more than the limit {nofile} (ulimit -n); use fewer --ranks-per-process")


def _context(preload: tuple[str, ...]) -> mp.context.BaseContext:
    if "forkserver" in mp.get_all_start_methods():
        ctx = mp.get_context("forkserver")
        # import torch (and the main module, as multiprocessing does by default) once, in the server;
        # this only has an effect before the first launch of this process starts the server
        ctx.set_forkserver_preload(["__main__", "torch", "torch.distributed", "core.execute.executor",
                                    "core.execute.bench", *preload, "core.execute._freeze"])
        return ctx
    return mp.get_context("spawn")


def launch_local(task: Callable[..., Any], args: tuple, world: int, *, name: Callable[[int], str],
                 ranks_per_process: int = 1, port: int = 0, timeout: float = 300.0,
                 progress: Callable[[int, Any], None] | None = None, fault: dict | None = None,
                 preload: tuple[str, ...] = (), join: bool = True) -> Outcome:
    """Run ``task(comm, report, *args)`` on `world` local ranks; returns every rank's result.

    `report(x)` inside the task sends `x` to `progress(rank, x)` here. `fault` (tests only) maps
    a rank to ``("die", exit_code)`` or ``("stall", seconds)``. `preload` names more modules the
    forkserver imports once (if this is the first launch of the process). With ``join=False`` the
    task gets a `Seat` instead of a comm and joins a group itself. Raises LaunchError naming
    the rank that failed, died or timed out; every process is stopped before it returns or raises.
    """
    from .comm import master_store

    if ranks_per_process < 1:
        raise LaunchError(f"--ranks-per-process must be >= 1, got {ranks_per_process}")
    try:
        store = master_store(port, timeout)
    except OSError as err:
        raise LaunchError(str(err)) from None
    except RuntimeError as err:  # torch's DistNetworkError: bind failed after the check (a race)
        raise LaunchError(f"cannot serve the rendezvous store on 127.0.0.1:{port}: {str(err).splitlines()[0]}") from None
    ctx = _context(preload)
    q = ctx.Queue()
    groups = _groups(world, ranks_per_process)
    # one path for every process: with several ranks per process all ranks use stand-alone groups, even in
    # a last process left with one rank (an uneven split); mixing them with init_process_group never meets
    threaded = ranks_per_process > 1
    procs = [ctx.Process(target=_process_main, daemon=True,
                         args=(store.port, g, world, timeout, task, args, q, fault or {}, join, threaded))
             for g in groups]
    results: dict[int, Any] = {}
    errors: list[tuple[int, str, bool]] = []
    cpu = pss = 0.0
    reported_cpu = 0
    try:
        for p in procs:
            p.start()
        last = time.monotonic()
        failed_at = None
        while True:
            try:
                msg = q.get(timeout=0.2)
            except queue_mod.Empty:
                msg = None
            now = time.monotonic()
            if msg is not None:
                last = now
                kind = msg[0]
                if kind == "done":
                    results[msg[1]] = msg[2]
                elif kind == "progress" and progress is not None:
                    progress(msg[1], msg[2])
                elif kind == "error":
                    errors.append((msg[1], msg[2], msg[3]))
                elif kind == "cpu":
                    cpu += msg[1]
                    pss += msg[2]
                    reported_cpu += 1
            dead = [(g, p.exitcode) for g, p in zip(groups, procs) if p.exitcode not in (None, 0)]
            if (errors or dead) and failed_at is None:
                failed_at = now
            if failed_at is not None and now - failed_at > GRACE_S:
                raise LaunchError(_failure_message(errors, dead, name, timeout, world))
            if len(results) == world and reported_cpu == len(procs):
                break
            if all(p.exitcode is not None for p in procs) and msg is None and failed_at is None:
                missing = [r for r in range(world) if r not in results]
                if missing:  # every process left but some rank never reported: treat as a death
                    failed_at = now
                    errors.append((missing[0], f"{name(missing[0])} exited without a result", False))
                else:
                    break
            if now - last > 2 * timeout + 30:
                raise LaunchError(f"timed out: no rank reported anything for {now - last:.0f} s "
                                  f"(limit 2 x --timeout + 30 s); the ranks were stopped")
    finally:
        started = [p for p in procs if p.pid is not None]
        for p in started:
            if p.is_alive():
                p.kill()
        for p in started:
            p.join(timeout=5)
        q.close()
        del store
    return Outcome([results[r] for r in range(world)], cpu, len(procs), pss)


def _failure_message(errors: list[tuple[int, str, bool]], dead: list[tuple[list[int], int]],
                     name: Callable[[int], str], timeout: float, world: int) -> str:
    if dead:
        ranks, code = dead[0]
        how = (f"was killed by signal {-code} ({signal.Signals(-code).name})" if code < 0
               else f"exited with code {code}")
        more = f" (and {len(dead) - 1} more process(es))" if len(dead) > 1 else ""
        return f"{describe_ranks(ranks, name)} died: it {how}{more}; the other ranks were stopped"
    timeouts = [e for e in errors if e[2]]
    if timeouts:
        quiet = sorted(set(range(world)) - {r for r, _, _ in errors})
        return (f"timed out after {timeout:g} s (--timeout): {timeouts[0][1]}"
                + (f"; ranks that never reported: {', '.join(map(str, quiet[:8]))}" if quiet else "")
                + "; the ranks were stopped")
    return f"{errors[0][1]}; the other ranks were stopped"


def _process_main(port: int, ranks: list[int], world: int, timeout: float, task: Callable[..., Any], args: tuple,
                  q: Any, fault: dict, join: bool, threaded: bool) -> None:
    """One local process: join the group(s), run the task for each hosted rank, send back results.

    `threaded`: the run hosts several ranks per process, so every rank (even one alone in its process)
    joins through a stand-alone gloo group; else each joins the default group, as under torchrun.
    """
    import torch

    from .comm import DistComm, GlooComm, client_store, loopback_interface

    torch.set_num_threads(1)  # many ranks share few cores; intra-op threads would only contend
    import torch.distributed as dist

    def run(rank: int) -> None:
        try:
            kind, value = fault.get(rank, (None, None))
            if not join:
                comm = Seat(rank, world, port)
            elif not threaded:
                store = dist.PrefixStore("group/", client_store(port, timeout))
                iface = loopback_interface()
                if iface:
                    os.environ["GLOO_SOCKET_IFNAME"] = iface  # listen on 127.0.0.1 only
                dist.init_process_group("gloo", store=store, rank=rank, world_size=world,
                                        timeout=_td(timeout))
                comm = DistComm()
            else:
                comm = GlooComm(dist.PrefixStore("group/", client_store(port, timeout)), rank, world, timeout)
            if kind == "die":
                os._exit(int(value))
            if kind == "stall":
                time.sleep(float(value))
            result = task(comm, lambda x: q.put(("progress", rank, x)), *args)
            if join:  # nobody leaves (closing its sockets) while another rank may still need it
                comm.barrier()
            q.put(("done", rank, result))
        except Exception as err:  # reported to the parent, which names the rank and stops the others
            from .executor import ExecutionError, error_line
            text, timed_out = error_line(err)
            if not isinstance(err, ExecutionError):
                text = f"rank {rank}: {type(err).__name__}: {text}"
                if os.environ.get("ALLREDUCE_LAB_DEBUG"):
                    traceback.print_exc()
            q.put(("error", rank, text, timed_out))

    if len(ranks) == 1:
        run(ranks[0])
    else:
        threads = [threading.Thread(target=run, args=(r,), daemon=True) for r in ranks]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    q.put(("cpu", time.process_time(), _pss_mib()))
    q.close()
    q.join_thread()
    os._exit(0)  # skip interpreter teardown (gloo threads); everything was reported


def _pss_mib() -> float:
    """This process's proportional set size in MiB (shared pages split among their users), 0 if unknown."""
    return _proc_mib("/proc/self/smaps_rollup", "Pss:") or 0.0


def _td(seconds: float):
    import datetime
    return datetime.timedelta(seconds=seconds)
