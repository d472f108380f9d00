"""Jobs and traces: who arrives when, wanting how many GPUs, to train which model for how long.

A `Trace` holds its jobs as flat numpy arrays sorted by arrival (ties keep the file's order);
job i of a trace is row i of every array. A job's *ideal duration* is its iterations times its
model's compute time per iteration: what it would take with free communication (docs/cluster.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .models import MODELS, get_model, model_names


class TraceError(ValueError):
    """A trace that breaks a rule (the message names the trace, the row and the rule)."""


MAX_SECONDS = 10 * 365 * 86400
"""Upper bound on an arrival time and on a job's ideal run time: 10 years (315,360,000 s). Real
traces span months and their jobs days (Philly's longest fitted run: 6.9 days); a larger value is
a typo or a unit slip, and would only print meaningless hours."""
MAX_JOB_GPUS = 1_000_000
"""Upper bound on a job's GPU count, checked before it becomes an integer (larger counts overflow
int64); a job must also fit its cluster (`check_fits`)."""
_LIMIT = f"{MAX_SECONDS:,} s (10 years)"


@dataclass(frozen=True, eq=False)
class Trace:
    """Jobs as arrays, sorted by arrival.

    Attributes
    ----------
    name : the spec or file that made it.
    job_id : one label per job.
    arrival : seconds from the trace's start.
    gpus : GPUs each job needs (gang-scheduled: all at once or none).
    model : index into `models` of each job's model.
    iterations : training iterations each job runs.
    models : the model names `model` indexes.
    row : each job's row in its source (1-based data rows, header excluded), for error messages.
    drawn : a synthetic draw (`traces.synthetic`): it has no rows, so messages name a job by its id alone.
    capped : how many jobs' GPU demands a synthetic draw cut to its ``max_gpus`` (0: none; `traces.synthetic`).
    records : how many records the source file had, kept or not (0: not read from a Philly or Helios log).
    skipped : (reason, count) of the records a Philly or Helios reader left out (`traces.skipped_note` says them).
    from_run_time : per job, whether its iterations were read from a file's run time (``duration_s``, Philly,
        Helios) as its ideal duration: run time / compute per iteration (default: none was); `run_times`: any was.
    """

    name: str
    job_id: tuple[str, ...]
    arrival: np.ndarray
    gpus: np.ndarray
    model: np.ndarray
    iterations: np.ndarray
    models: tuple[str, ...] = field(default_factory=lambda: tuple(model_names()))
    row: np.ndarray = field(default=None)  # type: ignore[assignment]
    capped: int = 0
    drawn: bool = False
    records: int = 0
    skipped: tuple[tuple[str, int], ...] = ()
    from_run_time: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        n = len(self.job_id)
        if self.row is None:
            object.__setattr__(self, "row", np.arange(1, n + 1))
        if self.from_run_time is None:
            object.__setattr__(self, "from_run_time", np.zeros(n, dtype=bool))
        for name, dtype in (("arrival", np.float64), ("gpus", np.int64), ("model", np.int64),
                            ("iterations", np.float64), ("row", np.int64), ("from_run_time", bool)):
            arr = np.asarray(getattr(self, name), dtype=dtype).reshape(-1)
            if len(arr) != n:
                raise TraceError(f"{self.name}: {name} needs one value per job ({n}), got {len(arr)}")
            object.__setattr__(self, name, arr)
        for i in range(n):
            check_job(self.where(i), self.arrival[i], self.gpus[i], self.iterations[i])
        if n and (self.model.min() < 0 or self.model.max() >= len(self.models)):
            raise TraceError(f"{self.name}: model index out of range")
        for m in self.models:
            if m not in MODELS:
                raise TraceError(f"{self.name}: unknown model {m!r}; known: {', '.join(MODELS)}")
        self._check_durations()
        self._check_unique_ids()
        if n and np.any(np.diff(self.arrival) < 0):
            order = np.argsort(self.arrival, kind="stable")
            object.__setattr__(self, "job_id", tuple(self.job_id[i] for i in order))
            for name in ("arrival", "gpus", "model", "iterations", "row", "from_run_time"):
                object.__setattr__(self, name, getattr(self, name)[order])
        for name in ("arrival", "gpus", "model", "iterations", "row", "from_run_time"):
            getattr(self, name).setflags(write=False)

    def where(self, i: int) -> str:
        """Job `i` as messages name it: ``NAME: row 14 (job j13)``, or ``NAME: job j13`` for a synthetic draw, which
        has no rows (trial 16: its max_gpus refusal said "row 14")."""
        if self.drawn:
            return f"{self.name}: job {self.job_id[i]}"
        return f"{self.name}: row {int(self.row[i])} (job {self.job_id[i]})"

    def _check_durations(self) -> None:
        """Raise TraceError naming the first job whose ideal run time exceeds MAX_SECONDS."""
        long = np.flatnonzero(self.ideal_duration > MAX_SECONDS)
        if len(long):
            i = int(long[0])
            raise TraceError(f"{self.where(i)}: ideal run time {self.ideal_duration[i]:.4g} s "
                             f"({self.iterations[i]:.4g} "
                             f"iterations of {self.model_name(i)} at {1e3 * self.compute_s[i]:.1f} ms) exceeds the "
                             f"limit of {_LIMIT} per job")

    def _check_unique_ids(self) -> None:
        """Raise TraceError naming the first job whose id an earlier row already used."""
        first: dict[str, int] = {}
        for i, job in enumerate(self.job_id):
            if job in first:
                raise TraceError(f"{self.where(i)}: job_id {job!r} repeats row {int(self.row[first[job]])}'s; "
                                 "job ids must be unique")
            first[job] = i

    @property
    def run_times(self) -> bool:
        """Some job's iterations were read from a file's run time as compute only (`traces.trace_title` says so in
        a run's header): a trace's jobs, so a head (``limit=N``) says it only when one of its own jobs was."""
        return bool(self.from_run_time.any())

    @property
    def n(self) -> int:
        """Number of jobs."""
        return len(self.job_id)

    @property
    def grad_bytes(self) -> np.ndarray:
        """Bytes each job all-reduces per iteration."""
        table = np.array([get_model(m).grad_bytes for m in self.models])
        return table[self.model]

    @property
    def compute_s(self) -> np.ndarray:
        """Compute seconds per iteration of each job."""
        table = np.array([get_model(m).compute_s for m in self.models])
        return table[self.model]

    @property
    def ideal_duration(self) -> np.ndarray:
        """Seconds each job would run with free communication: iterations × compute."""
        return self.iterations * self.compute_s

    def model_name(self, i: int) -> str:
        """Model name of job i."""
        return self.models[int(self.model[i])]

    def head(self, n: int) -> "Trace":
        """The first n jobs (by arrival)."""
        return Trace(self.name, self.job_id[:n], self.arrival[:n], self.gpus[:n], self.model[:n],
                     self.iterations[:n], self.models, self.row[:n], drawn=self.drawn, records=self.records,
                     skipped=self.skipped, from_run_time=self.from_run_time[:n])

    def rows(self) -> list[dict]:
        """One plain dict per job (the columns of the CSV format)."""
        return [{"job_id": self.job_id[i], "arrival_s": float(self.arrival[i]), "gpus": int(self.gpus[i]),
                 "model": self.model_name(i), "iterations": float(self.iterations[i])} for i in range(self.n)]


def check_job(where: str, arrival: float, gpus: int, iterations: float) -> None:
    """Raise TraceError naming the job (`where`: `Trace.where`) and the rule if a job's numbers are not valid."""
    if not np.isfinite(arrival) or not 0 <= arrival <= MAX_SECONDS:
        raise TraceError(f"{where}: arrival time must be a finite number from 0 to {_LIMIT}, got {arrival:g}")
    if gpus < 1:
        raise TraceError(f"{where}: a job needs at least 1 GPU, got {gpus}")
    if gpus > MAX_JOB_GPUS:
        raise TraceError(f"{where}: a job may need at most {MAX_JOB_GPUS:,} GPUs, got {gpus}")
    if not np.isfinite(iterations) or iterations <= 0:
        raise TraceError(f"{where}: iterations (or duration) must be a finite number > 0, got {iterations}")


def check_fits(trace: Trace, total_gpus: int, what: str = "the cluster") -> None:
    """Raise TraceError naming the first job that needs more GPUs than `total_gpus`."""
    big = np.flatnonzero(trace.gpus > total_gpus)
    if len(big):
        i = int(big[0])
        more = f" ({len(big) - 1} more job{'s' if len(big) > 2 else ''} too)" if len(big) > 1 else ""
        raise TraceError(f"{trace.where(i)}: needs {int(trace.gpus[i])} GPUs, but {what} has {total_gpus}; a job must "
                         f"fit in the cluster{more}")
