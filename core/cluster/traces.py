"""Traces from a spec: the seeded synthetic generator and loaders for Philly, Helios and CSV logs.

Specs (docs/cluster.md, "Traces"):

- ``synthetic:jobs=160,seed=0,rate=6,mix=sjf-bco[,max_gpus=M]`` — seeded jobs whose GPU counts follow the
  SJF-BCO scaling of Microsoft's Philly trace (80×1, 14×2, 26×4, 30×8, 8×16, 2×32 per 160 jobs)
  or Gavel's Philly sampler (``mix=gavel``: 70% 1, 10% 2, 15% 4, 5% 8 GPUs), whose durations
  follow Gavel's Philly fit (10^x minutes, x ~ U[1.5, 3] w.p. 0.8, U[3, 4] w.p. 0.2), with Poisson
  arrivals at `rate` jobs an hour (``rate=0``: all at time 0) and models drawn from the catalog; ``max_gpus=M``
  caps every job's GPU count at M (`load_trace`'s `fit_gpus` adds it, at the cluster's GPUs, to a spec whose
  draw does not fit);
- ``csv:PATH`` (or a path ending in .csv): columns ``arrival_s, gpus, model`` and
  ``iterations`` or ``duration_s``; ``job_id`` optional;
- ``philly:PATH`` — Philly's ``cluster_job_log`` (JSON list of jobs with ``jobid``,
  ``submitted_time``, ``attempts[].start_time/end_time/detail[].gpus``);
- ``helios:PATH`` — Helios' ``cluster_log.csv`` (``job_id, gpu_num, submit_time`` and
  ``duration`` or ``start_time, end_time``).

Philly and Helios logs name no model: each job gets ``model=NAME`` or, by default, one drawn
from the catalog with ``seed``; ``limit=N`` keeps the first N jobs by arrival. Run times become
iterations: duration / the model's compute time per iteration.
"""

from __future__ import annotations

import csv
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from .jobs import MAX_JOB_GPUS, Trace, TraceError
from .models import MODELS, get_model, model_names

SJF_BCO_MIX = {1: 80, 2: 14, 4: 26, 8: 30, 16: 8, 32: 2}
"""GPU counts of SJF-BCO's 160 jobs scaled from Philly (Yu et al., MobiHoc 2022)."""
GAVEL_MIX = {1: 0.70, 2: 0.10, 4: 0.15, 8: 0.05}
"""Gavel's Philly-derived GPU-count sampler (Narayanan et al., OSDI 2020; scheduler/utils.py)."""
MIXES = {"sjf-bco": SJF_BCO_MIX, "gavel": GAVEL_MIX}
MAX_JOBS = 1_000_000
"""Most jobs a synthetic trace may have (the 1,000-job benchmark simulates in seconds; a million
jobs' arrays fit in memory, many more would not)."""
DEFAULT_RATE = 6.0
"""Jobs an hour: 1.6× the rate at which the mean job's ideal GPU-time fills 256 GPUs (docs/cluster.md)."""
_TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
PHILLY_SKIPS = ("no attempt with start and end time", "no GPUs in its first timed attempt",
                "zero run time (end = start)")
"""Why the Philly reader leaves a record out (`skipped_note` names them)."""
HELIOS_SKIPS = ("no GPUs (gpu_num 0)", "zero run time")
"""Why the Helios reader leaves a record out."""


TRACE_KINDS = ("synthetic", "csv", "philly", "helios")
"""The kinds a trace spec names before its first ``:`` (a path after it may hold more: ``philly:/tmp/a:b.json``)."""


def load_trace(spec: str, fit_gpus: int | None = None) -> Trace:
    """The trace a spec names (TraceError naming the rule, the row or the option).

    `fit_gpus` (the cluster's GPUs): a synthetic spec without ``max_gpus=`` whose draw has a job larger than that is
    drawn again with ``max_gpus=fit_gpus`` and named by the spec plus that option (`capped_note` says so), so a
    default trace runs on a small cluster; a trace file is never changed (a job larger than the cluster is refused
    by `check_fits`: it is the user's data)."""
    if not isinstance(spec, str) or not spec.strip():
        raise TraceError("trace spec is empty; try synthetic:jobs=160,seed=0")
    spec = spec.strip()
    kind, sep, rest = spec.partition(":")
    kind = kind.lower()
    if sep and kind not in TRACE_KINDS and (Path(spec).exists() or any(c in kind for c in "/\\.")):
        kind, sep, rest = spec, "", ""  # a bare path with ':' in it (a kind has no '/' or '.'): /tmp/a:b.csv
    if not sep and spec.lower().endswith(".csv"):
        kind, rest = "csv", spec
    if kind == "synthetic":
        opts = _options(spec, rest, {"jobs": 160, "seed": 0, "rate": DEFAULT_RATE, "mix": "sjf-bco", "models": "",
                                     "max_gpus": ""})
        cap = int(_num(spec, "max_gpus", opts["max_gpus"], 1, high=MAX_JOB_GPUS)) if opts["max_gpus"] != "" else None
        args = dict(jobs=int(_num(spec, "jobs", opts["jobs"], 1, high=MAX_JOBS)),
                    seed=int(_num(spec, "seed", opts["seed"], 0)),
                    rate=_num(spec, "rate", opts["rate"], 0, integer=False), mix=str(opts["mix"]),
                    models=_model_list(spec, str(opts["models"])))
        trace = synthetic(**args, max_gpus=cap, name=spec)
        if cap is None and fit_gpus is not None and len(trace.gpus) and int(trace.gpus.max()) > fit_gpus:
            trace = synthetic(**args, max_gpus=fit_gpus, name=f"{spec},max_gpus={fit_gpus}")
        return trace
    if kind in ("csv", "philly", "helios"):
        path, _, more = rest.partition(",")
        if not path:
            raise TraceError(f"{spec}: a {kind}: trace needs a path, e.g. {kind}:jobs.{'json' if kind == 'philly' else 'csv'}")
        # a CSV names each job's model in its own column and draws nothing: only limit= applies to it
        opts = _options(spec, more, {"limit": 0} if kind == "csv" else {"seed": 0, "model": "", "limit": 0})
        model = str(opts.get("model", ""))
        if model:
            get_model_checked(spec, model)
        limit = int(_num(spec, "limit", opts["limit"], 0))
        # named as typed, in the form a missing topology file has (`file:PATH: no such file`)
        _need_file(spec.partition(":")[0] + ":" + path if sep else path, path)
        if kind == "csv":
            trace = read_csv_trace(path)
        else:
            reader = read_philly if kind == "philly" else read_helios
            trace = reader(path, seed=int(_num(spec, "seed", opts["seed"], 0)), model=model or None)
        return trace.head(limit) if limit else trace
    if not sep and ("/" in spec or "." in spec or Path(spec).exists()):  # a bare path other than a .csv: its kind
        # cannot be told from it (trial: "unknown trace kind '/tmp/philly.json'")
        raise TraceError(bare_path_text(spec))
    nor = f" (nor a file: no such file {spec!r})" if spec.lower().endswith((".csv", ".json")) else ""
    raise TraceError(f"unknown trace kind {kind!r} in {spec!r}{nor}; use synthetic:, csv:, philly: or helios:")


def bare_path_text(path: str) -> str:
    """The one line for a trace named by a bare path that is not a ``.csv`` (read as ``csv:``): the path as a
    file, missing or not, and the specs that read it, ``philly:PATH`` (a Philly job log) or ``helios:PATH``."""
    p = Path(path)
    what = "a folder, not a trace file" if p.is_dir() else "a trace file" if p.is_file() else "no such file"
    return (f"{path}: {what}; name its kind before it: philly:{path} (a Philly job log, JSON) or helios:{path} (a "
            f"Helios CSV); a bare path reads as csv: only if it ends in .csv")


def _need_file(name: str, path: str) -> None:
    """Raise TraceError ``NAME: no such file`` (or ``NAME: a folder, not a trace file``) unless `path` is a file;
    `name` is the trace as the user named it (the spec's kind and path, or the bare path)."""
    p = Path(path)
    if not p.is_file():
        raise TraceError(f"{name}: {'a folder, not a trace file' if p.is_dir() else 'no such file'}")


def seeded_specs(spec: str, n: int) -> list[str]:
    """`n` synthetic specs drawn like `spec` but for the seeds S, S+1, ..., S+n-1 (S: the spec's seed, 0 if it names
    none), each with every other option as written, the first `spec` itself (TraceError for a spec that is not synthetic or
    n < 1)."""
    kind, sep, rest = spec.strip().partition(":")
    if kind.strip().lower() != "synthetic" or not sep:
        raise TraceError(f"{spec.strip()!r}: only a synthetic trace has seeds to draw again")
    if n < 1:
        raise TraceError(f"seeds must be at least 1, not {n}")
    parts = [p.strip() for p in rest.split(",") if p.strip()]
    opts = _options(spec, rest, {"jobs": 160, "seed": 0, "rate": DEFAULT_RATE, "mix": "sjf-bco", "models": "",
                                 "max_gpus": ""})
    first = int(_num(spec, "seed", opts["seed"], 0))
    keep = [p for p in parts if p.partition("=")[0].strip() != "seed"]
    return [spec.strip()] + [f"synthetic:{','.join(keep + [f'seed={first + i}'])}" for i in range(1, n)]


def get_model_checked(where: str, name: str) -> None:
    """Raise TraceError if `name` is not a catalog model."""
    if name not in MODELS:
        raise TraceError(f"{where}: unknown model {name!r}; known: {', '.join(MODELS)}")


def _options(spec: str, text: str, defaults: dict) -> dict:
    out = dict(defaults)
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, eq, value = part.partition("=")
        if not eq:
            raise TraceError(f"{spec}: option {part!r} must be key=value")
        if key not in defaults:
            raise TraceError(f"{spec}: unknown option {key!r}; known: {', '.join(defaults)}")
        out[key] = value
    return out


def _num(spec: str, key: str, value: object, low: float, integer: bool = True, high: float = np.inf) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise TraceError(f"{spec}: {key} must be a number, got {value!r}") from None
    if not np.isfinite(x) or x < low or (integer and not float(x).is_integer()):
        kind = "an integer" if integer else "a number"
        raise TraceError(f"{spec}: {key} must be {kind} >= {low:g}, got {value!r}")
    if x > high:
        raise TraceError(f"{spec}: {key} must be at most {int(high):,}, got {value!r}")
    return x


def _model_list(spec: str, text: str) -> tuple[str, ...]:
    names = tuple(m for m in text.split("/") if m) if text else tuple(model_names())
    for m in names:
        get_model_checked(spec, m)
    return names


def gpu_counts(jobs: int, mix: str, rng: np.random.Generator) -> np.ndarray:
    """GPU counts of `jobs` jobs: the mix's exact shares (largest remainder) shuffled, or sampled."""
    if mix not in MIXES:
        raise TraceError(f"unknown GPU mix {mix!r}; known: {', '.join(MIXES)}")
    table = MIXES[mix]
    sizes = np.array(list(table), dtype=np.int64)
    weight = np.array(list(table.values()), dtype=np.float64)
    share = weight / weight.sum() * jobs
    count = np.floor(share).astype(np.int64)
    left = jobs - count.sum()
    count[np.argsort(-(share - count), kind="stable")[:left]] += 1
    out = np.repeat(sizes, count)
    rng.shuffle(out)
    return out


def philly_minutes(n: int, rng: np.random.Generator) -> np.ndarray:
    """Job run times in minutes from Gavel's Philly fit: 10^U[1.5,3] w.p. 0.8, else 10^U[3,4]."""
    long = rng.random(n) >= 0.8
    x = np.where(long, rng.uniform(3.0, 4.0, n), rng.uniform(1.5, 3.0, n))
    return 10.0 ** x


def capped_note(spec: str, trace: Trace) -> str | None:
    """One line when `load_trace(spec, fit_gpus)` capped a synthetic trace's GPU demands at the cluster's GPUs (its
    name then ends in the ``max_gpus=`` it added); None when the trace is the spec's as drawn."""
    head = spec.strip() + ",max_gpus="
    if not trace.name.startswith(head):
        return None
    cap = trace.name.removeprefix(head)
    jobs = f"{trace.capped} of {trace.n} jobs' GPU demands" if trace.capped else "GPU demands"
    return (f"{spec.strip()}: {jobs} capped at {cap}, the cluster's GPUs (the mix draws jobs larger than the "
            f"cluster): the trace run is {trace.name}")


RUN_TIMES = "run times read as compute only: iterations = run time / compute per iteration"
"""How a file's run times become iterations, as a run's header says it (docs/cluster.md §5)."""


def trace_title(spec: str, trace: Trace) -> str:
    """The trace as a run's header names it, with its job count: a synthetic trace by its spec
    (``synthetic:jobs=20,seed=2 (20 jobs)``), a file by its name and the options it was read with
    (``philly.json (model=resnet50; 2 jobs; run times read as ...)``, ``cluster_log.csv (models drawn with seed=0,
    limit=100; 100 jobs; ...)``), and, when it read run times, how (`RUN_TIMES`: trial 19's 10-hour job ran 33.7)."""
    jobs = f"{trace.n} job{'' if trace.n == 1 else 's'}" + (f"; {RUN_TIMES}" if trace.run_times else "")
    kind, sep, rest = spec.strip().partition(":")
    kind = kind.lower()
    if kind not in ("csv", "philly", "helios") or not sep:  # synthetic (its name is its spec), or a bare .csv path
        return f"{trace.name} ({jobs})"
    opts = _options(spec, rest.partition(",")[2], {"seed": 0, "model": "", "limit": 0})
    said = []  # the options as load_trace read them (it checked them)
    if kind != "csv":
        said.append(f"model={opts['model']}" if opts["model"] else f"models drawn with seed={int(float(opts['seed']))}")
    if float(opts["limit"]):
        said.append(f"limit={int(float(opts['limit']))}")
    head = ", ".join(said)
    return f"{trace.name} ({head + '; ' if head else ''}{jobs})"


def synthetic(jobs: int = 160, seed: int = 0, rate: float = DEFAULT_RATE, mix: str = "sjf-bco",
              models: tuple[str, ...] | None = None, name: str | None = None, max_gpus: int | None = None) -> Trace:
    """A seeded synthetic trace following published Philly statistics (see the module docstring); `max_gpus` caps
    each job's GPU demand (the same draws otherwise: every job at most that large keeps its demand; the trace's
    `capped` counts the others)."""
    if not 1 <= jobs <= MAX_JOBS:
        raise TraceError(f"synthetic: jobs must be from 1 to {MAX_JOBS:,}, got {jobs}")
    rng = np.random.default_rng(seed)
    models = tuple(models or model_names())
    gpus = gpu_counts(jobs, mix, rng)
    capped = 0
    if max_gpus is not None:
        capped = int((gpus > max_gpus).sum())
        gpus = np.minimum(gpus, max_gpus)
    seconds = 60.0 * philly_minutes(jobs, rng)
    model = rng.integers(len(models), size=jobs)
    if rate > 0:
        arrival = np.cumsum(rng.exponential(3600.0 / rate, jobs))
        arrival -= arrival[0]
    else:
        arrival = np.zeros(jobs)
    compute = np.array([get_model(m).compute_s for m in models])[model]
    iterations = np.maximum(1.0, np.round(seconds / compute))
    name = name or f"synthetic:jobs={jobs},seed={seed}" + (f",max_gpus={max_gpus}" if max_gpus else "")
    return Trace(name, tuple(f"j{i}" for i in range(jobs)), arrival, gpus, model, iterations, models, capped=capped,
                 drawn=True)


# ---- files --------------------------------------------------------------------------------------

def _read_csv(path: str) -> tuple[list[str], list[dict]]:
    _need_file(path, path)
    p = Path(path)
    try:
        with p.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            columns = [c.strip() for c in (reader.fieldnames or [])]
            rows = [{k.strip() if isinstance(k, str) else k: v for k, v in rec.items()} for rec in reader]
    except UnicodeDecodeError:
        raise TraceError(f"{path}: not a UTF-8 text file; a CSV trace is text") from None
    except csv.Error as err:
        raise TraceError(f"{path}: not readable as CSV: {err}") from None
    # an empty file is called empty, not "missing columns ...", which reads as if the header were wrong (trial 25)
    if not any(c for c in columns) and not any(_cells(rec).strip() for rec in rows):
        raise TraceError(f"{path}: {_empty_words(p)}")
    for r, rec in enumerate(rows, start=1):
        # DictReader files extra values under the key None and pads short rows with None
        fields = sum(v is not None for k, v in rec.items() if k is not None) + len(rec.get(None) or [])
        if fields != len(columns):
            raise TraceError(f"{path}: row {r}: {fields} fields, but the header names {len(columns)} "
                             f"({', '.join(columns)}); every row needs one value per column")
    return columns, rows


def _cells(rec: dict) -> str:
    """A DictReader row's values joined (extra values under the key None, padding None as nothing)."""
    return "".join([v for k, v in rec.items() if k is not None and v] + list(rec.get(None) or []))


def _empty_words(p: Path) -> str:
    """What an empty trace file is: no bytes at all, or blank lines only."""
    return "the file is empty" if p.stat().st_size == 0 else "the file is empty (blank lines only)"


def _need(path: str, columns: list[str], need: list[str], hint: str, either: str = "") -> None:
    """Every column of `need` is present, else one line naming all that are missing (and `either`, the columns of
    which the trace needs one, when the file has none of them), so a user fixes the header once."""
    missing = [c for c in need if c not in columns]
    if missing:
        names = ", ".join(repr(c) for c in missing)
        raise TraceError(f"{path}: missing column{'s' * (len(missing) > 1)} {names}{either} (a {hint} trace needs "
                         f"{', '.join(need)}{either and ' and one of ' + either.removeprefix(', and one of ')})")


def _field(path: str, row: int, rec: dict, key: str) -> float:
    value = (rec.get(key) or "").strip()
    try:
        return float(value)
    except ValueError:
        raise TraceError(f"{path}: row {row}: column {key!r} must be a number, got {value!r}") from None


def _gpu_field(path: str, row: int, rec: dict, key: str) -> float:
    """A whole GPU count of at most MAX_JOB_GPUS (the lower bound is the caller's rule)."""
    g = _field(path, row, rec, key)
    if not float(g).is_integer() or g > MAX_JOB_GPUS:
        raise TraceError(f"{path}: row {row}: {key} must be a whole number of at most {MAX_JOB_GPUS:,}, got {g:g}")
    return g


def _iterations(path: str, row: int, rec: dict, columns: list[str], model: str) -> tuple[float, bool]:
    """A CSV row's iterations and whether they were read from its run time: the `iterations` cell, else
    `duration_s` / the model's compute time; with both, they must agree within one iteration or 0.1% (`iterations`
    is kept)."""
    it_cell = (rec.get("iterations") or "").strip() if "iterations" in columns else None
    dur_cell = (rec.get("duration_s") or "").strip() if "duration_s" in columns else None
    compute = get_model(model).compute_s
    dur = None
    if dur_cell or it_cell is None:  # an empty cell is named by the column the file has
        dur = _field(path, row, rec, "duration_s")
        if not dur > 0:  # 0 s is no run: refused here, not as "iterations ... > 0" (trial 29)
            raise TraceError(f"{path}: row {row}: duration_s must be > 0, got {dur:g}")
        if not it_cell:
            return dur / compute, True
    it = _field(path, row, rec, "iterations")
    if dur is not None and not abs(it - dur / compute) <= max(1.0, 1e-3 * max(abs(it), dur / compute)):
        raise TraceError(f"{path}: row {row}: iterations {it:g} and duration_s {dur:g} disagree ({dur:g} s is "
                         f"{dur / compute:.6g} iterations of {model} at {1e3 * compute:.1f} ms); give one, or both "
                         "within one iteration or 0.1%")
    return it, False


def read_csv_trace(path: str) -> Trace:
    """A trace in the project's CSV format (columns in the module docstring), rows in arrival order."""
    columns, rows = _read_csv(path)
    lacks_length = "iterations" not in columns and "duration_s" not in columns
    _need(path, columns, ["arrival_s", "gpus", "model"], "CSV",
          ", and one of 'iterations' or 'duration_s'" if lacks_length else "")
    if lacks_length:
        raise TraceError(f"{path}: missing column 'iterations' (or 'duration_s'): a CSV trace needs one of them")
    if not rows:
        raise TraceError(f"{path}: no jobs: the file has a header but no rows")
    ids, arrival, gpus, model, iters = [], [], [], [], []
    names = model_names()
    from_run_time = []
    for r, rec in enumerate(rows, start=1):
        m = (rec.get("model") or "").strip()
        if m not in MODELS:
            raise TraceError(f"{path}: row {r}: unknown model {m!r}; known: {', '.join(MODELS)}")
        g = _gpu_field(path, r, rec, "gpus")
        it, timed = _iterations(path, r, rec, columns, m)
        from_run_time.append(timed)
        ids.append((rec.get("job_id") or f"j{r - 1}").strip())
        arrival.append(_field(path, r, rec, "arrival_s"))
        if r > 1 and arrival[-1] < arrival[-2] and arrival[-1] >= 0:  # a negative time is check_job's rule
            raise TraceError(f"{path}: row {r} (job {ids[-1]}): arrival_s {arrival[-1]:g} is earlier than row {r - 1}'s "
                             f"{arrival[-2]:g}; a CSV trace lists its jobs in arrival order (sort the file by arrival_s)")
        gpus.append(int(g))
        model.append(names.index(m))
        iters.append(it)
    return Trace(path, tuple(ids), arrival, gpus, model, iters, from_run_time=from_run_time)


def _time(path: str, row: int, key: str, text: object) -> float:
    try:
        return datetime.strptime(str(text).strip(), _TIME_FORMAT).timestamp()
    except ValueError:
        raise TraceError(f"{path}: row {row}: {key} must be a time like 2017-10-07 01:11:39, got {text!r}") from None


def _assemble(path: str, jobs: list[tuple[str, float, int, float, int]], seed: int, model: str | None,
              records: int, skipped: dict[str, int]) -> Trace:
    """Trace from (id, submit epoch s, gpus, run seconds, row) records: models assigned, arrivals from 0; `records`
    the file's records, `skipped` the reasons and counts of those left out."""
    left_out = tuple((why, n) for why, n in skipped.items() if n)
    if not jobs:
        raise TraceError(f"{path}: no usable job: " + (_skipped_text(records, left_out) if records else
                                                         "the file has no records"))
    names = model_names()
    rng = np.random.default_rng(seed)
    idx = np.full(len(jobs), names.index(model)) if model else rng.integers(len(names), size=len(jobs))
    compute = np.array([get_model(m).compute_s for m in names])[idx]
    submit = np.array([j[1] for j in jobs])
    dur = np.array([j[3] for j in jobs])
    return Trace(path, tuple(j[0] for j in jobs), submit - submit.min(), [j[2] for j in jobs], idx,
                 np.maximum(1.0, np.round(dur / compute)), row=[j[4] for j in jobs], records=records,
                 skipped=left_out, from_run_time=np.ones(len(jobs), dtype=bool))


def _skipped_text(records: int, skipped: tuple[tuple[str, int], ...]) -> str:
    """``1 of 3 records skipped: no attempt with start and end time`` (several reasons: each with its count)."""
    total = sum(n for _, n in skipped)
    why = skipped[0][0] if len(skipped) == 1 else ", ".join(f"{why} ({n})" for why, n in skipped)
    return f"{total} of {records} record{'' if records == 1 else 's'} skipped: {why}"


def skipped_note(trace: Trace) -> str | None:
    """One line when a Philly or Helios reader left records of the file out (``philly.json: 1 of 3 records skipped:
    no attempt with start and end time``); None when it kept them all (trial 19: "(2 jobs)" from 3 records, unsaid)."""
    if not trace.skipped:
        return None
    return f"{trace.name}: {_skipped_text(trace.records, trace.skipped)}"


def trace_facts(trace: Trace) -> dict[str, Any]:
    """What the text output says of a trace beside its metrics, as fields for ``cluster --format json`` and columns
    for ``--format csv`` (the text's header and notes: `trace_title`, `skipped_note`): ``run_times_as_compute``
    (some job's iterations were read from a run time as compute only: `RUN_TIMES`), ``records`` (records the
    Philly or Helios log had, kept or not; 0 for other traces), ``records_skipped`` (how many of them the reader
    left out) and ``skipped_reasons`` (each reason with its count)."""
    return {"run_times_as_compute": bool(trace.run_times), "records": int(trace.records),
            "records_skipped": sum(n for _, n in trace.skipped),
            "skipped_reasons": {why: int(n) for why, n in trace.skipped}}


def read_philly(path: str, seed: int = 0, model: str | None = None) -> Trace:
    """Philly's cluster_job_log: arrival = submitted_time, GPUs of the first timed attempt,
    run time = last end − first start; jobs without a timed attempt or GPUs are skipped."""
    _need_file(path, path)
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
        if not text.strip():
            raise TraceError(f"{path}: {_empty_words(p)}")
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise TraceError(f"{path}: not a Philly cluster_job_log (JSON): {err}") from None
    if not isinstance(data, list):
        raise TraceError(f"{path}: a Philly cluster_job_log is a JSON list of jobs")
    jobs, skipped = [], dict.fromkeys(PHILLY_SKIPS, 0)
    for r, rec in enumerate(data, start=1):
        if not isinstance(rec, dict):
            raise TraceError(f"{path}: row {r}: a job must be a JSON object")
        for key in ("jobid", "submitted_time", "attempts"):
            if key not in rec:
                raise TraceError(f"{path}: row {r}: missing key {key!r} (a Philly job has jobid, submitted_time, attempts)")
        timed = [a for a in rec["attempts"] or [] if isinstance(a, dict) and a.get("start_time") and a.get("end_time")]
        gpus = sum(len(d.get("gpus") or []) for d in (timed[0].get("detail") or [])) if timed else 0
        if not timed or gpus == 0:
            skipped[PHILLY_SKIPS[0 if not timed else 1]] += 1
            continue
        submit = _time(path, r, "submitted_time", rec["submitted_time"])
        start = _time(path, r, "start_time", timed[0]["start_time"])
        end = _time(path, r, "end_time", timed[-1]["end_time"])
        if end < start or start < submit:
            raise TraceError(f"{path}: row {r} (job {rec['jobid']}): times must not run backwards "
                             f"(submitted {rec['submitted_time']}, start {timed[0]['start_time']}, end {timed[-1]['end_time']})")
        if end == start:
            skipped[PHILLY_SKIPS[2]] += 1
            continue
        jobs.append((str(rec["jobid"]), submit, gpus, end - start, r))
    return _assemble(path, jobs, seed, model, len(data), skipped)


def read_helios(path: str, seed: int = 0, model: str | None = None) -> Trace:
    """Helios' cluster_log.csv: arrival = submit_time, GPUs = gpu_num, run time = duration
    (or end_time − start_time); CPU-only jobs (gpu_num 0) and zero-length jobs are skipped."""
    columns, rows = _read_csv(path)
    _need(path, columns, ["job_id", "gpu_num", "submit_time"], "Helios")
    if "duration" not in columns and not {"start_time", "end_time"} <= set(columns):
        raise TraceError(f"{path}: missing column 'duration' (or 'start_time' and 'end_time'): a Helios trace needs one")
    jobs, skipped = [], dict.fromkeys(HELIOS_SKIPS, 0)
    for r, rec in enumerate(rows, start=1):
        gpus = _gpu_field(path, r, rec, "gpu_num")
        if gpus < 0:
            raise TraceError(f"{path}: row {r}: gpu_num must be a whole number >= 0, got {gpus:g}")
        submit = _time(path, r, "submit_time", rec["submit_time"])
        if "duration" in columns and (rec.get("duration") or "").strip():
            dur = _field(path, r, rec, "duration")
        else:
            dur = _time(path, r, "end_time", rec["end_time"]) - _time(path, r, "start_time", rec["start_time"])
        if dur < 0:
            raise TraceError(f"{path}: row {r} (job {rec['job_id']}): duration must be >= 0 s, got {dur:g}")
        if gpus == 0 or dur == 0:
            skipped[HELIOS_SKIPS[0 if gpus == 0 else 1]] += 1
            continue
        jobs.append((str(rec["job_id"]).strip(), submit, int(gpus), dur, r))
    return _assemble(path, jobs, seed, model, len(rows), skipped)


def write_csv_trace(trace: Trace, path: str | Path) -> None:
    """Write a trace in the project's CSV format (read back by `read_csv_trace`)."""
    with Path(path).open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["job_id", "arrival_s", "gpus", "model", "iterations"])
        w.writeheader()
        w.writerows(trace.rows())
