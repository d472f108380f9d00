"""Read and write ``allreduce-schedule/1`` files (MODEL.md §8)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from .atomic import write_atomic
from .guard import check, estimate_json
from .schedule import Schedule
from .schedule_npz import Columns, ColumnsError, columns_of, is_npz, read_npz, write_npz
from .topology import to_dict

FORMAT = "allreduce-schedule/1"


class ScheduleFileError(ValueError):
    """A file that is not a readable allreduce-schedule/1 document (one-line reason)."""


def schedule_to_dict(schedule: Schedule, stats: dict | None = None, trace: bool = False,
                     timing: dict | None = None, extra: dict | None = None) -> dict[str, Any]:
    """The JSON document of a schedule: topology (with link properties), workloads, rounds and stats (and
    the learned method's step-by-step trace, only when `trace` is asked for; the timing it was replayed
    with — message size, seconds per mode, bounds — when given; `extra` top-level entries such as the
    links failed or slowed before the run, ``network``, and a mid-run re-plan's summary, ``replan``)."""
    dag = schedule.dag
    path = dag.path.to_lists()
    prefix = dag.prefix.to_lists()
    phase = ["reduce" if p == 0 else "broadcast" for p in dag.phase.tolist()]
    workloads = [
        {"id": w, "root": r, "chunk": c, "phase": ph, "path": pa, "prefix": pr, "carries_own": own}
        for w, (r, c, ph, pa, pr, own) in enumerate(zip(dag.root.tolist(), dag.chunk.tolist(), phase, path,
                                                        prefix, dag.carries_own.tolist()))
    ]
    if dag.n_groups:  # prefix groups (docs/scale.md): ids >= n in a prefix list name group id - n
        n = dag.n
        for item in workloads:
            pre = item["prefix"]
            if pre and max(pre) >= n:
                item["prefix"] = [p for p in pre if p < n]
                item["prefix_groups"] = [p - n for p in pre if p >= n]
    doc = header_dict(schedule, stats, trace, timing, extra)
    doc["workloads"] = workloads
    doc["rounds"] = [ids.tolist() for ids in schedule.rounds]
    if dag.n_groups:
        doc["prefix_groups"] = dag.groups.to_lists()
    return doc


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


def write_schedule(schedule: Schedule, path: str | Path, stats: dict | None = None,
                   trace: bool = False, timing: dict | None = None, extra: dict | None = None) -> dict[str, Any]:
    """Write the schedule as JSON (with the trace only if asked), whole or not at all (a temporary
    file renamed), or in the columnar form when the path ends in ``.npz`` (docs/scale.md);
    returns the document written (its header for .npz)."""
    if str(path).lower().endswith(".npz"):
        head = header_dict(schedule, stats, trace, timing, extra)
        write_npz(path, head, columns_of(schedule))
        return head
    doc = schedule_to_dict(schedule, stats, trace, timing, extra)
    write_atomic(path, json.dumps(doc, separators=(",", ":")).encode())
    return doc


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
    try:
        data = json.loads(p.read_bytes())
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ScheduleFileError(f"{path}: not JSON ({err})") from None
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
