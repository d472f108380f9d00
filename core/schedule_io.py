"""Read and write ``allreduce-schedule/1`` files (MODEL.md §8)."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from .atomic import atomic_file
from .guard import check, estimate_json
from .schedule import Schedule
from .schedule_npz import REWRITE, Columns, ColumnsError, columns_of, is_npz, read_npz, write_npz
from .topology import to_dict

FORMAT = "allreduce-schedule/1"


class ScheduleFileError(ValueError):
    """A file that is not a readable allreduce-schedule/1 document (one-line reason)."""


def schedule_to_dict(schedule: Schedule, stats: dict | None = None, trace: bool = False,
                     timing: dict | None = None, extra: dict | None = None) -> dict[str, Any]:
    """The JSON document of a schedule: topology (with link properties), workloads, rounds and stats (and
    the learned method's step-by-step trace, only when `trace` is asked for; the timing it was replayed
    with — message size, seconds per mode, bounds — when given; `extra` top-level entries such as the
    links failed or slowed before the run, ``network``, and a mid-run re-plan's summary, ``replan``).
    `write_schedule` writes the same document piece by piece, without building it."""
    doc = header_dict(schedule, stats, trace, timing, extra)
    for key, rows in _body(schedule):
        doc[key] = [item for part in rows for item in part]
    return doc


def _body(schedule: Schedule) -> list[tuple[str, Iterator[list]]]:
    """The document's fields after its header, each as its items in consecutive parts: workloads (a dict
    each), rounds (a list of ids each) and, when the DAG has groups, the groups' members (docs/scale.md)."""
    dag = schedule.dag
    body = [("workloads", _workload_parts(dag)), ("rounds", _round_parts(schedule.rounds))]
    if dag.n_groups:
        body.append(("prefix_groups", (dag.groups.rows_between(a, min(a + _PART, dag.n_groups)).to_lists()
                                       for a in range(0, dag.n_groups, _PART))))
    return body


_PART = 2 ** 14  # workloads (or groups) per part; a part's dicts and text are the writer's working set beside the
#   DAG: +21-24 MiB writing BCube(8,2) PS (1.4 M workloads) with these sizes, +109 MiB with 2^16 workloads and 2^20 ids
_PART_ENTRIES = 2 ** 18  # path nodes + prefix entries per part (a workload with more is one part)
_PART_IDS = 2 ** 16  # round entries per part (a round longer than that is one part)


def _workload_parts(dag) -> Iterator[list[dict[str, Any]]]:
    """The workloads as dicts (the file's form: ids >= n in a prefix list name group id - n, moved to the
    workload's ``prefix_groups``), in parts of at most `_PART` workloads and about `_PART_ENTRIES` list entries."""
    n, grouped = dag.n, bool(dag.n_groups)
    a = 0
    while a < n:
        b = _part_end(dag.path.ptr, dag.prefix.ptr, a, n)
        phase = ["reduce" if p == 0 else "broadcast" for p in dag.phase[a:b].tolist()]
        items = [{"id": w, "root": r, "chunk": c, "phase": ph, "path": pa, "prefix": pr, "carries_own": own}
                 for w, r, c, ph, pa, pr, own in zip(range(a, b), dag.root[a:b].tolist(), dag.chunk[a:b].tolist(),
                                                     phase, dag.path.rows_between(a, b).to_lists(),
                                                     dag.prefix.rows_between(a, b).to_lists(),
                                                     dag.carries_own[a:b].tolist())]
        if grouped:
            for item in items:
                pre = item["prefix"]
                if pre and max(pre) >= n:
                    item["prefix"] = [p for p in pre if p < n]
                    item["prefix_groups"] = [p - n for p in pre if p >= n]
        yield items
        a = b


def _part_end(path_ptr: np.ndarray, prefix_ptr: np.ndarray, a: int, n: int) -> int:
    """Where the part of workloads from `a` ends: at most `_PART` workloads holding at most `_PART_ENTRIES` path
    nodes and prefix entries together (fat-tree k=12 merged: 215 prefix entries per workload), at least one."""
    b = min(a + _PART, n)
    cum = path_ptr[a:b + 1] + prefix_ptr[a:b + 1]
    if cum[-1] - cum[0] <= _PART_ENTRIES:
        return b
    return a + max(1, int(np.searchsorted(cum, cum[0] + _PART_ENTRIES, side="right")) - 1)


def _round_parts(rounds) -> Iterator[list[list[int]]]:
    """The rounds as lists of workload ids, about `_PART_IDS` ids at a time."""
    part: list[list[int]] = []
    size = 0
    for ids in rounds:
        part.append(ids.tolist())
        size += len(ids)
        if size >= _PART_IDS:
            yield part
            part, size = [], 0
    if part:
        yield part


def header_dict(schedule: Schedule, stats: dict | None = None, trace: bool = False,
                timing: dict | None = None, extra: dict | None = None) -> dict[str, Any]:
    """The document's fields other than its workloads, rounds and prefix groups (see `schedule_to_dict`)."""
    dag = schedule.dag
    stats = stats if stats is not None else schedule.stats()
    doc = {"format": FORMAT, "topology": to_dict(dag.topology), "method": schedule.method,
           "merge": bool(dag.merge), "chunks": int(dag.chunks), "kind": dag.kind,
           "routing": dag.meta.get("routing", "shortest"), "stats": _plain(stats), "info": _plain(schedule.info)}
    if timing is not None:
        doc["timing"] = _plain(timing)
    for key, value in (extra or {}).items():
        doc[key] = _plain(value)
    if trace and schedule.trace is not None:
        doc["trace"] = _plain(schedule.trace)
    return doc


def file_form(path: str | Path) -> str:
    """The form `write_schedule` writes to `path`: "npz" for a name ending in ``.npz`` (either case), else "json"."""
    return "npz" if str(path).lower().endswith(".npz") else "json"


def write_schedule(schedule: Schedule, path: str | Path, stats: dict | None = None,
                   trace: bool = False, timing: dict | None = None, extra: dict | None = None) -> dict[str, Any]:
    """Write the schedule as JSON (with the trace only if asked), whole or not at all (a temporary
    file renamed), or in the columnar form when the path ends in ``.npz`` (docs/scale.md); returns the
    document's header (every field but its workloads, rounds and prefix groups). JSON is written one
    part at a time (`_part_end`), the same bytes as ``json.dumps`` of `schedule_to_dict` without building it."""
    head = header_dict(schedule, stats, trace, timing, extra)
    if file_form(path) == "npz":
        write_npz(path, head, columns_of(schedule))
        return head
    with atomic_file(path) as f, _no_cycle_collection():
        _write_json(f, head, _body(schedule))
    return head


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """The cyclic garbage collector paused: a part's dicts and lists hold no cycles (reference counting frees them),
    and the collections their allocations set off took a third of the writer's CPU (BCube(8,2) PS: 7.5 s, 5.0 s
    paused)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _write_json(f: BinaryIO, head: dict[str, Any], body: list[tuple[str, Iterator[list]]]) -> None:
    """Write the document `head` + `body` as ``json.dumps(doc, separators=(",", ":"))`` would, byte for byte,
    but one part at a time: the whole text, or a dict per workload, never exists at once."""
    streamed = dict(body)
    keys = list(head) + [key for key in streamed if key not in head]  # a key already in head keeps its place
    f.write(b"{")
    for i, key in enumerate(keys):
        f.write((("," if i else "") + json.dumps(key) + ":").encode())
        if key not in streamed:
            f.write(json.dumps(head[key], separators=_SEPARATORS).encode())
            continue
        f.write(b"[")
        first = True
        for part in streamed[key]:
            if not part:
                continue
            text = json.dumps(part, separators=_SEPARATORS).encode()
            if not first:
                f.write(b",")
            f.write(memoryview(text)[1:-1])  # the part's items without its brackets
            first = False
        f.write(b"]")
    f.write(b"}")


_SEPARATORS = (",", ":")


def read_schedule_file(path: str | Path, *, force: bool = False) -> dict[str, Any]:
    """Load a schedule file (JSON, or the columnar ``.npz`` form), checking only its format tag
    (for JSON the size guard checks the file's length first; `force` skips that check)."""
    p = Path(path)
    if not p.is_file():
        what = "is a folder, not a schedule file" if p.is_dir() else "no such file"
        raise ScheduleFileError(f"{path}: {what}")
    if is_npz(p):
        try:
            return check_header(read_npz(p), str(path))
        except ColumnsError as err:
            raise ScheduleFileError(str(err)) from None
    check(estimate_json(p.stat().st_size, str(path)), force=force)
    raw = p.read_bytes()
    if not raw.strip():  # not the parser's "not JSON (Expecting value: line 1 column 1 (char 0))"
        raise ScheduleFileError(f"{path}: {'empty' if not raw else 'empty (only whitespace)'}")
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        named = " and not a .npz archive (it does not start like a zip file)" if file_form(p) == "npz" else ""
        raise ScheduleFileError(f"{path}: not JSON ({err}){named}; {REWRITE}") from None
    except RecursionError:
        raise ScheduleFileError(f"{path}: nested too deeply to be a schedule") from None
    return check_header(data, str(path))


def check_header(data: Any, name: str = "schedule") -> dict[str, Any]:
    """Raise ScheduleFileError unless `data` looks like an allreduce-schedule/1 document."""
    if not isinstance(data, dict):
        raise ScheduleFileError(f"{name}: the document must be a JSON object")
    if "format" not in data:
        raise ScheduleFileError(f"{name}: not an {FORMAT} file (it has no 'format' key)")
    if data.get("format") != FORMAT:
        raise ScheduleFileError(f"{name}: format must be {FORMAT!r}, got {repr(data.get('format'))[:60]}")
    for key, kind in (("topology", dict), ("workloads", list), ("rounds", list)):
        if key != "topology" and isinstance(data.get(key), Columns):
            continue  # the columnar form (core.schedule_npz)
        if not isinstance(data.get(key), kind):
            raise ScheduleFileError(f"{name}: '{key}' must be a JSON {kind.__name__.replace('dict', 'object')}")
    return data


def _plain(x: Any) -> Any:
    """JSON-safe copy (numpy scalars and arrays to Python)."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    return x
