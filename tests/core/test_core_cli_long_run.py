"""A run the size guard admits can still take minutes: the CLI says the guard's estimate first (trial 9:
`schedule bcube:8,3 --out x.npz` ran for minutes without a word)."""

from __future__ import annotations

import json

import pytest

from core import cli
from core.cli import common
from core.cli.common import notes_joined
from core.guard import Estimate


def test_the_note_gives_the_estimate_from_ten_seconds():
    """The workload count is the guard's estimate too (trial 24: DCell(4,2)'s note said 1,847,790 where the DAG has
    1,758,438), so it carries the same "~"."""
    est = Estimate("scheduling BCube(8,3) (tree DAG) and writing it as NPZ", 9_793_798_144, 123.8, 33_546_240)
    assert common.long_run_note("critical-path: " + est.what, [est]) == (
        "note: critical-path: scheduling BCube(8,3) (tree DAG) and writing it as NPZ: ~2.1 min CPU, ~9.1 GiB for "
        "~33,546,240 workloads, the size guard's rough estimate (memory is meant to be above the peak; time can be "
        "under: docs/limits.md)")
    assert common.long_run_note("x", [Estimate("quick", 1 << 20, common.LONG_RUN_S - 0.1)]) is None
    assert common.long_run_note("x", []) is None
    two = common.long_run_note("compare, 2 runs", [Estimate("a", 1 << 30, 6.0), Estimate("b", 2 << 30, 6.0)])
    assert two.startswith("note: compare, 2 runs: ~12 s CPU in all, ~2.0 GiB at most, ")


@pytest.mark.parametrize("argv, says", [
    (["schedule", "bcube:2,1"], "note: critical-path: scheduling BCube(2,1) (tree DAG): ~"),
    (["schedule", "bcube:2,1", "--method", "ring", "--out", "{tmp}/s.npz"],
     "note: ring: scheduling BCube(2,1) (ring DAG) and writing it as NPZ: ~"),
    (["compare", "bcube:2,1", "bcube:3,1", "--methods", "greedy,ring", "--seeds", "2"], "note: compare, 6 runs: ~"),
])
def test_a_long_run_says_its_estimate_on_stderr_and_keeps_stdout(argv, says, monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(common, "LONG_RUN_S", 0.0)  # every run counts as long
    argv = [x.format(tmp=tmp_path) for x in argv]
    assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    notes = [line for line in notes_joined(err) if line.startswith("note: ")]
    assert len(notes) == 1 and notes[0].startswith(says), err
    assert "estimated by the size guard" not in out
    assert cli.main(argv + ["--format", "json"]) == 0  # machine-readable output: no note
    assert "estimated by the size guard" not in capsys.readouterr().err


def test_a_file_topology_says_its_estimate_once_read(monkeypatch, capsys, tmp_path):
    from core.topology import make_topology, to_dict
    path = tmp_path / "net.json"
    path.write_text(json.dumps(to_dict(make_topology("bcube:2,1"))))
    monkeypatch.setattr(common, "LONG_RUN_S", 0.0)
    assert cli.main(["schedule", f"file:{path}"]) == 0
    notes = [line for line in notes_joined(capsys.readouterr().err) if line.startswith("note: ")]
    assert len(notes) == 1 and notes[0].startswith("note: critical-path: scheduling "), notes


def test_a_quick_run_says_nothing(capsys):
    assert cli.main(["schedule", "bcube:2,1"]) == 0
    assert capsys.readouterr().err == ""


def test_cpsat_search_is_said_apart_as_a_ceiling():
    """CP-SAT's part of an estimate (its --time-limit) is a ceiling it may not reach or start: it is said beside the
    sure part and does not make a note by itself (`schedule bcube:2,1 --method optimal` said '~72 s' for a 2.5 s
    run whose heuristic met the bound)."""
    from core.guard import S_CPSAT_WORK, Size, estimate_schedule
    size = Size(servers=4, switches=4, edges=8, name="BCube(2,1)")
    plain, exact = estimate_schedule(size, "tree"), estimate_schedule(size, "tree", solver="cp-sat", time_limit=60)
    assert exact.sure == pytest.approx(plain.seconds) and exact.search >= S_CPSAT_WORK * 60
    assert plain.search == 0 and (plain + exact).search == exact.search
    assert common.long_run_note("optimal: x", [Estimate("x", 1 << 30, 72.5, 24, search=72.0)]) is None
    note = common.long_run_note("optimal: x", [Estimate("x", 1 << 30, 92.0, 24, search=72.0)])
    assert note.startswith("note: optimal: x: ~20 s CPU, plus up to ~72 s of CP-SAT (--time-limit; it runs only "
                           "when critical-path's schedule misses the lower bound"), note


def test_optimal_says_nothing_when_the_heuristic_meets_the_bound(capsys):
    assert cli.main(["schedule", "bcube:2,1", "--method", "optimal"]) == 0
    assert "note:" not in capsys.readouterr().err


def test_optimal_says_its_search_when_it_starts(capsys):
    """example:fig3: critical-path's 6 rounds miss the lower bound of 5, so CP-SAT searches (up to 1.2 x 9 s, over
    LONG_RUN_S): said once, when it starts; not with --format json."""
    argv = ["schedule", "example:fig3", "--method", "optimal", "--time-limit", "9"]
    assert cli.main(argv) == 0
    notes = [line for line in notes_joined(capsys.readouterr().err) if line.startswith("note: ")]
    assert notes == ["note: optimal: critical-path's schedule misses the lower bound, so CP-SAT searches for up to "
                     "~11 s (--time-limit; it stops when it proves the optimum)"], notes
    assert cli.main(argv + ["--format", "json"]) == 0
    assert "note:" not in capsys.readouterr().err


def test_compare_says_the_first_search_once_and_nothing_when_none_starts(capsys):
    """compare: no note where critical-path meets every bound (bcube:2,1); where CP-SAT searches (example:fig3), one
    line naming the configuration and the ceiling of all the runs' searches."""
    assert cli.main(["compare", "bcube:2,1", "--methods", "optimal,ring"]) == 0
    assert "note:" not in capsys.readouterr().err
    assert cli.main(["compare", "example:fig3", "bcube:2,1", "example:fig3", "--methods", "ring,optimal",
                     "--time-limit", "9"]) == 0
    notes = [line for line in notes_joined(capsys.readouterr().err) if line.startswith("note: ")]
    assert notes == ["note: compare: critical-path's schedule misses the lower bound on example:fig3, so optimal's "
                     "CP-SAT searches there for up to ~11 s, as on each configuration where it does (~32 s at most in "
                     "all; --time-limit; it stops when it proves the optimum)"], notes


def test_a_large_json_schedule_points_to_npz(monkeypatch, capsys, tmp_path):
    """Trial 24: BCube(10,2)'s 677 MB JSON schedule took over a minute to validate, with no word that the .npz form
    (31 MB) reads back in seconds. From `JSON_HINT_WORKLOADS` workloads `schedule --out x.json` says so on stderr;
    not for .npz, not for a smaller schedule, not with --format json."""
    from core.cli import schedule as cli_schedule
    est = [Estimate("scheduling", 1 << 30, 1.0, cli_schedule.JSON_HINT_WORKLOADS)]
    hint = cli_schedule.json_hint(str(tmp_path / "s.json"), est)
    assert hint.startswith(f"note: s.json: JSON of ~{cli_schedule.JSON_HINT_WORKLOADS:,} workloads") and ".npz" in hint
    assert cli_schedule.json_hint("s.npz", est) is None and cli_schedule.json_hint(None, est) is None
    assert cli_schedule.json_hint("s.json", [Estimate("x", 1, 1.0, cli_schedule.JSON_HINT_WORKLOADS - 1)]) is None
    monkeypatch.setattr(cli_schedule, "JSON_HINT_WORKLOADS", 1)
    argv = ["schedule", "bcube:2,1", "--out", str(tmp_path / "s.json")]
    assert cli.main(argv) == 0
    assert [line for line in notes_joined(capsys.readouterr().err) if "JSON of ~" in line]
    assert cli.main(argv + ["--format", "json"]) == 0 and "JSON of ~" not in capsys.readouterr().err
    assert cli.main(["schedule", "bcube:2,1", "--out", str(tmp_path / "s.npz")]) == 0
    assert "JSON of ~" not in capsys.readouterr().err


def test_replay_takes_the_force_its_refusal_names(monkeypatch, capsys, tmp_path):
    """Trial 24: `replay`, refused by the size guard, was told "--force ... overrides" and then rejected --force."""
    path = tmp_path / "s.json"
    assert cli.main(["schedule", "bcube:2,1", "--out", str(path)]) == 0
    capsys.readouterr()
    monkeypatch.setenv("ALLREDUCE_LAB_MAX_MEMORY", "1KiB")
    assert cli.main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert "refused before building anything (--force" in err and len(err.strip().splitlines()) == 1
    assert cli.main(["replay", str(path), "--force"]) == 0
    assert "time for" in capsys.readouterr().out


def test_a_write_cut_short_keeps_the_report(monkeypatch, capsys, tmp_path):
    """Trial 24: Ctrl-C while `schedule --out x.json` wrote its file lost the whole report, printed after the file.
    The text report now comes first, then the file, then "wrote"; the interrupted run exits 130 without the line."""
    from core.cli import schedule as cli_schedule

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_schedule, "write_schedule", interrupted)
    assert cli.main(["schedule", "bcube:2,1", "--out", str(tmp_path / "s.json")]) == 130
    out, err = capsys.readouterr()
    assert "  rounds " in out and "time for" in out and "wrote" not in out
    assert err.strip() == "allreduce-lab: interrupted"


def test_a_run_far_beyond_the_limits_points_to_a_smaller_size(monkeypatch):
    """Trial 24: BCube(64,3) PS was offered --force for 2.1e+05 TiB, and BCube(100000,5)'s workloads filled the line
    with 40 digits. From `FAR_OVER` times a limit the refusal says to try a smaller size, not --force; a count of
    10^12 workloads or more is written as 4.3e+37."""
    from core import guard
    from core.guard import SizeError
    monkeypatch.setenv("ALLREDUCE_LAB_MAX_MEMORY", "1GiB")
    monkeypatch.setenv("ALLREDUCE_LAB_MAX_SECONDS", "100")

    def refusal(gib: float, seconds: float, workloads: int) -> str:
        with pytest.raises(SizeError) as err:
            guard.check(Estimate("scheduling X", int(gib * 2 ** 30), seconds, workloads))
        return str(err.value)

    near = refusal(2.0, 1.0, 5_000_000)
    assert near.endswith("for 5,000,000 workloads; refused before building anything (--force, "
                         "ALLREDUCE_LAB_MAX_MEMORY or ALLREDUCE_LAB_MAX_SECONDS overrides)")
    far = f": over {guard.FAR_OVER}x a limit, so try a smaller size, not --force (docs/limits.md)"
    refused = "refused before building anything"
    assert refusal(guard.FAR_OVER + 1, 1.0, 10 ** 12).endswith(f"for 1e+12 workloads; {refused}{far}")
    assert refusal(0.5, 100 * guard.FAR_OVER + 1, 42_535_295_865_117_307_942).endswith(
        f"for 4.3e+19 workloads; {refused}{far}")
    assert refusal(guard.FAR_OVER - 1, 1.0, 0).endswith(
        f"{refused} (--force, ALLREDUCE_LAB_MAX_MEMORY or ALLREDUCE_LAB_MAX_SECONDS overrides)")


def test_schedule_json_names_what_the_texts_first_line_names(capsys):
    """Trial 24: `schedule --format json` left out the topology, merge and chunks that the text's first line gives."""
    argv = ["schedule", "bcube:n=2,k=1", "--method", "ps", "--chunks", "2"]
    assert cli.main(argv) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert cli.main(argv + ["--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert first == (f"{got['spec']}  method={got['method']}  seed={got['seed']}  "
                     f"merge={'on' if got['merge'] else 'off'}  chunks={got['chunks']}")  # the seed: trial 27
    assert (got["merge"], got["chunks"]) == (False, 2)


def test_the_time_lines_name_the_links_latency(capsys):
    """Trial 24: "(links 100 Gbit/s, 1 µs)" left the reader to guess what the 1 µs was."""
    assert cli.main(["schedule", "bcube:n=2,k=1,bw=100/25,lat=2"]) == 0
    assert "over 4 servers (links 25-100 Gbit/s, latency 2 µs):" in capsys.readouterr().out
