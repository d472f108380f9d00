"""What a cluster run achieved: JCT, makespan, queueing, utilization, communication, link contention.

All times are seconds in the arrays and hours in the summaries (jobs run for hours to days).
"""

from __future__ import annotations

import numpy as np

from .sim import Result

METRICS = {
    "avg_jct_h": "average job completion time (end − arrival), hours",
    "p95_jct_h": "95th percentile of JCT, hours",
    "makespan_h": "last end − first arrival, hours",
    "avg_queue_h": "average queueing delay (first start − arrival), hours",
    "gpu_util": "busy GPU-time / (GPUs × makespan)",
    "comm_share": "share of busy GPU-time spent in AllReduce",
    "peak_link_users": "most running jobs sharing one directed link at any time",
    "mean_link_users": "time-average jobs per directed link in use",
    "preemptions": "jobs stopped and later resumed (LAS)",
}
SHARES = ("gpu_util", "comm_share")
"""The metrics that are fractions (0..1); the CLI's table and the dashboard show them as percentages."""
DECIMALS = {"avg_jct_h": 2, "p95_jct_h": 2, "makespan_h": 2, "avg_queue_h": 2, "gpu_util": 1, "comm_share": 1,
            "peak_link_users": 0, "mean_link_users": 2, "preemptions": 0}
"""Decimal places of each metric in the CLI's text table and the dashboard's (one per column; shares as
percentages); JSON and CSV keep more (8 significant digits)."""


def metric_text(key: str, value: float) -> str:
    """A metric as the tables show it: `DECIMALS[key]` places, a share in percent (``52.8%``)."""
    return f"{100 * value:.{DECIMALS[key]}f}%" if key in SHARES else f"{value:.{DECIMALS[key]}f}"


def _spans(res: Result) -> np.ndarray:
    """Seconds from each event to the next (0 after the last)."""
    return np.diff(np.r_[res.times, res.times[-1]]) if len(res.times) else np.zeros(0)


def summarize(res: Result) -> dict:
    """The run's headline numbers (keys of `METRICS`, plus name, jobs and run cost)."""
    jct = res.jct
    makespan = float(res.end.max() - res.arrival.min())
    dt = _spans(res)
    busy = float((res.busy_gpus * dt).sum())
    gpus = res.trace.gpus
    run_time = np.zeros(res.trace.n)
    for s in res.segments:
        run_time[s.job] += s.end - s.start
    used_links = (res.link_users > 0).sum(axis=1) if res.link_users.size else np.zeros(0)
    users_sum = res.link_users.sum(axis=1, dtype=np.int64) if res.link_users.size else np.zeros(0)
    link_time = float((used_links * dt[:len(used_links)]).sum())
    return {
        "scheduler": res.scheduler, "jobs": res.trace.n, "gpus": res.cluster.n_gpus,
        "avg_jct_h": float(jct.mean()) / 3600, "p95_jct_h": float(np.percentile(jct, 95)) / 3600,
        "makespan_h": makespan / 3600, "avg_queue_h": float(res.queueing.mean()) / 3600,
        "gpu_util": busy / (res.cluster.n_gpus * makespan) if makespan > 0 else 0.0,
        "comm_share": float((res.comm_seconds * gpus).sum() / max((run_time * gpus).sum(), 1e-12)),
        "peak_link_users": int(res.link_users.max()) if res.link_users.size else 0,
        "mean_link_users": float((users_sum * dt[:len(users_sum)]).sum() / link_time) if link_time > 0 else 0.0,
        "preemptions": res.preemptions, "events": res.events, "wall_s": res.wall_s, "cpu_s": res.cpu_s,
    }


def row_notes(results: list[Result], summaries: list[dict] | None = None) -> tuple[str | None, str | None]:
    """(`same_allreduce_note`, `identical_rows_note`) of one set of runs, each row summarized once; `summaries`:
    `summarize` of each result, in order, where the caller has them already."""
    summary = {r.scheduler: s for r, s in zip(results, summaries or [summarize(r) for r in results])}
    found = _same_allreduce(results, summary)
    return _same_text(found), _identical_text(results, summary, set(found[0]) if found else set())


def same_allreduce_note(results: list[Result]) -> str | None:
    """A note when a scheduler that chooses its AllReduce (ours, ``+best``, ``+adaptive``) ran every job that
    spans servers with one method and so has the same metrics as other schedulers (trial 25: on fattree:k=4 and
    leafspine ours, sjf+timed and sjf+closest share one row, all ring); None otherwise."""
    return row_notes(results)[0]


def _same_text(found: tuple[list[str], str] | None) -> str | None:
    if found is None:
        return None
    names, method = found
    listed = ", ".join(names[:-1]) + f" and {names[-1]}"
    return (f"{listed} have identical rows: {names[0]} ran every job that spans servers with {method}, as they do "
            f"(a tree AllReduce helps only where a job's servers reach each other through several ports; README, "
            f"\"A tree AllReduce beats the ring only where...\"; docs/cluster.md §8)")


def _same_allreduce(results: list[Result], summary: dict[str, dict]) -> tuple[list[str], str] | None:
    """(the chooser of `same_allreduce_note` and the schedulers whose rows equal its, the one AllReduce it used)."""
    from .schedulers import parse_name
    rows = {n: tuple(v[k] for k in METRICS) for n, v in summary.items()}
    for r in results:
        kind = parse_name(r.scheduler)
        if kind != ("ours",) and kind[2:] not in (("best",), ("adaptive",)):
            continue
        used = {s.method for s in r.segments if np.count_nonzero(s.alloc) > 1}
        twins = [n for n in rows if n != r.scheduler and rows[n] == rows[r.scheduler]]
        if len(used) == 1 and twins:
            return [r.scheduler] + twins, used.pop()
    return None


def identical_rows_note(results: list[Result]) -> str | None:
    """A note naming schedulers whose rows read the same (`metric_text` of every metric) for another reason than
    `same_allreduce_note`'s, with what the runs show: every job started and ended at the same times, or how far apart
    their jobs' ends are; and, where no job waited for GPUs, that the order of jobs never came into play (trial 26:
    gadget and sjf+timed on bcube:n=4,k=2 read "40.15 / 146.63 / 827.86" alike, unexplained). None when no two rows
    read the same, or only those that note explains."""
    return row_notes(results)[1]


def _identical_text(results: list[Result], summary: dict[str, dict], explained: set[str]) -> str | None:
    by = {r.scheduler: r for r in results}
    groups: dict[tuple, list[str]] = {}
    for n, v in summary.items():
        groups.setdefault(tuple(metric_text(k, v[k]) for k in METRICS), []).append(n)
    lines, same = [], []
    for names in (g for g in groups.values() if len(g) > 1):
        new = [n for n in names if n not in explained]
        # a row that reads as those the first note explains is named beside one of them (trial 29: gadget read as
        # ours, fifo+closest and sjf+closest, and neither note named it)
        ref = next((n for n in names if n in explained), None)
        if not new or (ref is None and len(new) < 2):
            continue
        first = by[ref or new[0]]
        others = new if ref else new[1:]
        # seconds; within a millisecond is the same time (sums in another order differ by ~1e-10 s)
        apart = max(float(np.max(np.abs(by[n].end - first.end), initial=0.0)) for n in others)
        alike = apart < 1e-3 and all(np.allclose(first.first_start, by[n].first_start, rtol=0, atol=1e-3)
                                     for n in others)
        listed = ", ".join(new[:-1]) + f" and {new[-1]}" if len(new) > 1 else new[0]
        gap = f"{apart:.2g} s" if apart < 360 else f"{apart / 3600:.2g} h"
        if ref:
            verb = "reads" if len(new) == 1 else "read"
            line = (f"{listed} {verb} the same as {ref}: {'it' if len(new) == 1 else 'they'} started and ended every "
                    "job at the same times" if alike else
                    f"{listed} {verb} the same as {ref} to the decimals shown, though the jobs' ends differ by up to "
                    f"{gap}")
        elif alike:
            same.append((listed, all(summary[n]["avg_queue_h"] == 0 for n in names)))
            continue
        else:
            line = f"{listed} read the same to the decimals shown, though their jobs' ends differ by up to {gap}"
        lines.append((line, all(summary[n]["avg_queue_h"] == 0 for n in names)))
    if same:  # the groups that ran alike in one clause (trial 31: a clause each, four in one note)
        groups_said = ", ".join(g for g, _ in same[:-1]) + f", and {same[-1][0]}" if len(same) > 1 else same[0][0]
        lines.insert(0, (f"{groups_said} have the same row{'s, group by group' if len(same) > 1 else ''}: they "
                         "started and ended every job at the same times", all(idle for _, idle in same)))
    why = "no job waited for GPUs, so the order of jobs never came into play"
    if len(lines) > 1 and all(idle for _, idle in lines):  # said once (trial 31: four times in one note)
        return "; ".join(line for line, _ in lines) + f" (in each, {why})"
    return "; ".join(line + (f" ({why})" if idle else "") for line, idle in lines) or None


def running_at(res: Result, t: float) -> list:
    """The run segments in progress at time t."""
    return [s for s in res.segments if s.start <= t < s.end]


def link_contention(res: Result) -> dict[str, np.ndarray]:
    """Timelines: event times, most jobs on one link, mean jobs per link in use, links in use."""
    lu = res.link_users
    used = (lu > 0).sum(axis=1)
    return {"time_h": res.times / 3600, "max_users": lu.max(axis=1) if lu.size else np.zeros(len(res.times)),
            "mean_users": np.where(used > 0, lu.sum(axis=1) / np.maximum(used, 1), 0.0), "links_in_use": used}


def events_table(res: Result) -> list[dict]:
    """One row per simulation event (`Result.events` of them): its number and time (hours), and from it to the
    next event the GPUs in use, the jobs running, and the jobs per directed link (most on one; mean and count
    of the links in use)."""
    starts = np.searchsorted(res.times, [s.start for s in res.segments])
    ends = np.searchsorted(res.times, [s.end for s in res.segments])  # a segment runs from events start..end-1
    running = np.cumsum(np.bincount(starts, minlength=len(res.times) + 1)
                        - np.bincount(ends, minlength=len(res.times) + 1))[:len(res.times)]
    c = link_contention(res)
    return [{"event": i + 1, "time_h": float(c["time_h"][i]), "busy_gpus": int(res.busy_gpus[i]),
             "running_jobs": int(running[i]), "max_link_jobs": int(c["max_users"][i]),
             "mean_link_jobs": float(c["mean_users"][i]), "links_in_use": int(c["links_in_use"][i])}
            for i in range(len(res.times))]


def jobs_table(res: Result) -> list[dict]:
    """One row per job: id, GPUs, model, arrival, start, end, JCT (hours), servers, comm share."""
    tr = res.trace
    servers: dict[int, set] = {}
    run_time = np.zeros(tr.n)
    methods: dict[int, str] = {}
    for s in res.segments:
        servers.setdefault(s.job, set()).update(np.flatnonzero(s.alloc).tolist())
        run_time[s.job] += s.end - s.start
        methods[s.job] = s.method
    return [{"job_id": tr.job_id[j], "gpus": int(tr.gpus[j]), "model": tr.model_name(j),
             "arrival_h": tr.arrival[j] / 3600, "start_h": res.first_start[j] / 3600, "end_h": res.end[j] / 3600,
             "jct_h": (res.end[j] - tr.arrival[j]) / 3600, "servers": len(servers.get(j, ())),
             "allreduce": methods.get(j, "-"),
             "comm_share": float(res.comm_seconds[j] / run_time[j]) if run_time[j] > 0 else 0.0}
            for j in range(tr.n)]


def snapshot(res: Result, t: float) -> list[dict]:
    """The jobs running at time t: id, GPUs, servers (topology node ids) with their GPU counts,
    and the undirected edges their AllReduce crosses."""
    out = []
    for s in running_at(res, t):
        idx = np.flatnonzero(s.alloc)
        out.append({"job": s.job, "job_id": res.trace.job_id[s.job], "gpus": int(res.trace.gpus[s.job]),
                    "model": res.trace.model_name(s.job), "method": s.method,
                    "nodes": res.cluster.nodes[idx].tolist(), "gpus_on": s.alloc[idx].tolist(),
                    "edges": np.unique(s.links // 2).tolist()})
    return out


def gantt_rows(res: Result) -> list[dict]:
    """One row per run on one allocation (hours): job id, GPUs, model, arrival, start, end, servers used and the
    AllReduce method(s). A job that only changed its method (ours re-chooses at events) stays one row, its methods
    joined in order by " → "; a preempted job that resumes gets a row per run."""
    tr = res.trace
    rows: list[dict] = []
    last = None
    for s in sorted(res.segments, key=lambda x: (x.job, x.start)):
        if last is not None and last.job == s.job and s.start <= last.end + 1e-9 and np.array_equal(last.alloc, s.alloc):
            row = rows[-1]
            row["end_h"] = s.end / 3600
            if not row["method"].endswith(s.method):
                row["method"] += f" → {s.method}"
        else:
            rows.append({"job_id": tr.job_id[s.job], "gpus": int(tr.gpus[s.job]), "model": tr.model_name(s.job),
                         "arrival_h": tr.arrival[s.job] / 3600, "start_h": s.start / 3600, "end_h": s.end / 3600,
                         "servers": int((s.alloc > 0).sum()), "method": s.method})
        last = s
    return rows


def over_seeds(per_seed: list[dict[str, dict]], baseline: str) -> list[dict]:
    """Per scheduler, its runs on several seeds (`per_seed`: one {scheduler: `summarize` dict} per seed, every seed
    with the same schedulers, `baseline` among them): ``scheduler``, ``avg_jct_h`` and ``p95_jct_h`` (means over the
    seeds), ``per_seed`` (each seed's average JCT, hours), ``beat`` (on how many seeds its average JCT is lower than
    the baseline's; None for the baseline) and ``seeds``."""
    names = list(per_seed[0])
    base = [run[baseline]["avg_jct_h"] for run in per_seed]
    out = []
    for name in names:
        jct = [run[name]["avg_jct_h"] for run in per_seed]
        out.append({"scheduler": name, "avg_jct_h": float(np.mean(jct)),
                    "p95_jct_h": float(np.mean([run[name]["p95_jct_h"] for run in per_seed])), "per_seed": jct,
                    "beat": None if name == baseline else sum(j < b for j, b in zip(jct, base)),
                    "seeds": len(per_seed)})
    return out
