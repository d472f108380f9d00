"""Trial 27, the CLI on an 8-server network with two ToRs and links at 10, 25, 50 and 100 Gbit/s: a mid-run failure
that cuts servers off says when it came and how far the run had got."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from core import cli
from core.methods import run_method
from core.schedule import ScheduleConfig
from core.timing import replay
from core.topology import make_topology
from core.units import format_seconds

TWO_TOR = Path(__file__).resolve().parents[2] / "docs" / "examples" / "two-tor.json"
"""The trial's net.json, kept as docs/examples/two-tor.json."""


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def net(tmp_path: Path) -> str:
    return f"file:{TWO_TOR}"  # the file as the trial had it (tmp_path: where it was copied before)


CUT = "failed links 8 (tor0-tor1), 9 (gpu3-gpu4) cut off 4 of 8 servers (gpu4, gpu5, gpu6, gpu7)"  # 157 with all


def test_a_mid_run_failure_that_cuts_servers_off_says_when_and_how_far_the_run_had_got(tmp_path):
    """Trial 27: ``--fail-at 20ms:tor0-tor1,gpu3-gpu4`` printed the line of a failure before the run ("failed links
    cut off 4 of 8 servers ..."), without the moment or what had finished. It now starts with both (exit 2, one
    line); a failure before the run reads as it did."""
    spec = net(tmp_path)
    sched = run_method("critical-path", make_topology(spec), ScheduleConfig())
    tm = replay(sched, size=1e8, mode="async")
    code, out, err = run_cli("schedule", spec, "--fail-at", "20ms:tor0-tor1,gpu3-gpu4")
    assert code == 2 and not out
    done = int((tm.finish <= 0.02).sum())
    assert 0 < done < len(tm.finish)
    assert err.strip() == (f"allreduce-lab: error: at {format_seconds(0.02)} ({done} of {len(tm.finish)} workloads "
                           f"done, async): {CUT}")
    code, _, err = run_cli("schedule", spec, "--fail-at", "round=5:tor0-tor1,gpu3-gpu4")
    at = float(tm.round_end[4])
    done = int((tm.finish <= at).sum())
    assert code == 2 and err.strip() == (f"allreduce-lab: error: after round 5 ({format_seconds(at)}; {done} of "
                                         f"{len(tm.finish)} workloads done, async): {CUT}")
    code, _, err = run_cli("schedule", spec, "--fail-links", "tor0-tor1,gpu3-gpu4")
    assert code == 2 and err.strip() == f"allreduce-lab: error: {CUT}"


def test_schedules_header_names_the_seed_of_a_seeded_method(tmp_path):
    """Trial 27: PS took 23 rounds in the player and 25.2 in Compare (the mean of 5 seeds); neither said which seed
    the one run used. `schedule`'s first line names it for a method that reads it (`Method.options`), and only
    there: critical-path's line is as it was."""
    spec = net(tmp_path)
    for method, seeded in (("ps", True), ("greedy", True), ("critical-path", False), ("ring", False)):
        code, out, _ = run_cli("schedule", spec, "--method", method, "--seed", "3")
        first = out.splitlines()[0]
        want = f"{spec}  method={method}{'  seed=3' if seeded else ''}  merge="
        assert code == 0 and first.startswith(want), first
