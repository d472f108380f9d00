"""What a file given where a schedule file belongs is, when it is another of the project's files.

`validate`, `replay` and `run` take an allreduce-schedule/1 file; given a topology file, a cluster
trace or a results file they said "format must be 'allreduce-schedule/1', got None". `schedule_file`
reads the file as before and, when that fails on a file this module recognises, says what the file is
and which command takes it instead (one line, exit 2).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..argtypes import UsageError
from ..compare import BEST_GAP_CSV
from ..rl.pair import pair_stem
from ..schedule_io import ScheduleFileError, read_schedule_file

RL_CHECKPOINT_FORMAT = "allreduce-lab-rl/1"
"""core.rl.checkpoint.FORMAT, written out: importing it would load torch (a test keeps them equal)."""
TOPDRL_CHECKPOINT_FORMAT = "allreduce-lab-topdrl/1"
"""core.cluster.topdrl.FORMAT, written out for the same reason."""
_WRITES = "allreduce-lab schedule SPEC --out s.json writes one"
_HEAD = 65536  # bytes read to recognise a file that is not JSON (GraphML, CSV)


def schedule_file(path: str, *, force: bool = False) -> dict[str, Any]:
    """`read_schedule_file`, but a file that is another of the project's kinds raises one UsageError saying
    what it is and which command takes it."""
    try:
        return read_schedule_file(path, force=force)
    except ScheduleFileError:
        what = file_kind(path)
        if what is None:
            raise
        raise UsageError(f"{path} is {what[0]}, not an allreduce-schedule/1 file: {what[1]}") from None


def file_kind(path: str | Path) -> tuple[str, str] | None:
    """(what the project file at `path` is, which command takes it), or None when it is none of them."""
    p = Path(path)
    if p.suffix == ".safetensors":
        return ("a checkpoint's weights", f"give the checkpoint, {pair_stem(p)}, to schedule --method rl "
                "--checkpoint or cluster --scheduler topdrl --checkpoint")
    try:
        with p.open("rb") as fh:
            head = fh.read(_HEAD).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    except OSError:
        return None
    if head.startswith("<"):
        return ("a GraphML topology file", _topology_use(path)) if "<graphml" in head else None
    if head[:1] in "{[" and head:
        try:
            return json_kind(json.loads(p.read_bytes()), str(path))
        except (ValueError, RecursionError):  # not JSON after all (or cut short)
            return None
    columns = {c.strip().strip('"').lower() for c in head.splitlines()[0].split(",")} if head else set()
    if {"arrival_s", "gpus", "model"} <= columns:
        return "a CSV cluster trace", f"give it to cluster --trace csv:{path}"
    if {"job_id", "gpu_num", "submit_time"} <= columns:
        return "a Helios cluster trace", f"give it to cluster --trace helios:{path}"
    for cols, what in _OUTPUT_CSVS:
        if cols <= columns:
            return what, _WRITES
    return None


_OUTPUT_CSVS = (
    ({"scheduler", "job_id", "jct_h"}, "cluster's per-job CSV (cluster --jobs-out)"),
    ({"scheduler", "event", "time_h"}, "cluster's events CSV (cluster --events-out)"),
    ({"scheduler", "avg_jct_h", "makespan_h"}, "cluster's CSV results (cluster --format csv)"),
    ({"update", "iteration", "agent", "instance"}, "a training log (a checkpoint's .log.csv)"),
    ({"config", "workloads", BEST_GAP_CSV}, "compare's CSV results (compare --format csv)"),
)
"""Header columns of the project's CSV outputs, each with what it is (checked after the traces)."""


def json_kind(data: Any, path: str) -> tuple[str, str] | None:
    """(what a parsed JSON document of the project is, which command takes it), or None."""
    if isinstance(data, list):
        first = data[0] if data and isinstance(data[0], dict) else {}
        if {"jobid", "submitted_time", "attempts"} <= set(first):
            return "a Philly cluster trace", f"give it to cluster --trace philly:{path}"
        if {"spec", "methods", "lower_bound"} <= set(first):
            return "compare's JSON results (compare --format json)", _WRITES
        return None
    if not isinstance(data, dict):
        return None
    fmt = data.get("format")
    if fmt == RL_CHECKPOINT_FORMAT:
        return "an RL checkpoint's sidecar", f"give it to schedule --method rl --checkpoint {path}"
    if fmt == TOPDRL_CHECKPOINT_FORMAT:
        return "a TopDRL checkpoint's sidecar", f"give it to cluster --scheduler topdrl --checkpoint {path}"
    if fmt is not None:
        return None
    keys = set(data)
    if isinstance(data.get("links", data.get("edges")), list):
        return "a topology file", _topology_use(path)
    if {"cluster", "gpus", "results"} <= keys:
        return "cluster's JSON results (cluster --format json)", _WRITES
    if {"method", "rounds", "lower_bound", "time"} <= keys:
        return "schedule's JSON summary (schedule --format json)", _WRITES
    if {"spec", "servers", "switches", "diameter"} <= keys:  # topology --format json wrote only this before stop 30
        return "an older topology --format json summary (it now writes a topology file)", _WRITES
    if {"file", "method", "rounds", "time"} <= keys or {"size_bytes", "bounds", "ranks"} <= keys:  # and before stop 35
        return "replay's JSON time report (replay --format json)", _WRITES
    if {"spec", "method", "ranks", "correct", "repetitions"} <= keys:
        return "run's JSON report (run --format json)", _WRITES
    return None


def _topology_use(path: str | Path) -> str:
    """Which commands take the topology file at `path`, or, when their reader refuses it, its reason (trial 19:
    "give it to topology ..." was said of a file that topology then refused)."""
    from ..guard import SizeError
    from ..topology import TopologyError, load_topology_file

    try:
        load_topology_file(path)
    except SizeError:  # too large to read here: the command that takes it says so, with --force
        pass
    except TopologyError as err:
        return f"topology, schedule and compare would refuse it as file:{path} too: {err}"
    return f"give it to topology, schedule or compare as file:{path}"
