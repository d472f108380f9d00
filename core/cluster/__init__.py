"""Many jobs on one network: a shared GPU cluster simulated on the project's topologies.

`make_cluster` (topology × GPUs per server), `load_trace` (synthetic, CSV, Philly, Helios),
`make_scheduler` (ordering × placement heuristics, GADGET, TopDRL, ours), `simulate` (the event
loop; every job's AllReduce is scheduled by a registered method and timed with core.timing under
per-link shares) and `summarize` (metrics). See docs/cluster.md.
"""

from .cluster import GPUS_PER_SERVER, Cluster, make_cluster
from .comm import CommModel
from .jobs import Trace, TraceError, check_fits
from .metrics import (DECIMALS, METRICS, SHARES, events_table, gantt_rows, identical_rows_note, jobs_table,
                      link_contention, metric_text, over_seeds, row_notes, running_at, same_allreduce_note, snapshot,
                      summarize)
from .models import MODELS, get_model
from .schedulers import ALL, HEURISTICS, OURS_BASELINE, expand_names, make_scheduler, parse_name, unfit
from .sim import Result, Segment, simulate
from .traces import (capped_note, load_trace, seeded_specs, skipped_note, synthetic, trace_facts, trace_title,
                     write_csv_trace)

__all__ = ["Cluster", "GPUS_PER_SERVER", "make_cluster", "CommModel", "Trace", "TraceError", "check_fits", "METRICS", "SHARES", "DECIMALS",
           "metric_text", "events_table", "gantt_rows", "jobs_table", "snapshot",
           "link_contention", "running_at", "same_allreduce_note", "identical_rows_note", "row_notes", "summarize", "MODELS", "get_model", "ALL", "HEURISTICS", "OURS_BASELINE",
           "expand_names", "make_scheduler", "parse_name", "Result", "Segment", "simulate", "load_trace", "synthetic",
           "write_csv_trace", "run_schedulers", "unfit", "capped_note", "skipped_note", "trace_facts", "trace_title",
           "over_seeds",
           "seeded_specs"]


def run_schedulers(cluster: Cluster, trace: Trace, names: list[str], seed: int = 0, checkpoint: str | None = None,
                   progress=None) -> list[Result]:
    """Simulate `trace` on `cluster` under each named scheduler (one shared plan cache)."""
    comm = CommModel(cluster)
    check_fits(trace, cluster.n_gpus)
    out = []
    for name in names:
        sch = make_scheduler(name, seed, checkpoint)
        cb = (lambda f, n=name: progress(n, f)) if progress else None
        out.append(simulate(cluster, trace, sch, comm, cb))
    return out
