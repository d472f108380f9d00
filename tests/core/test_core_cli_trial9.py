"""What a new user tripped over in the CLI (trial 9): a schedule file name in a form the tool does not write,
compare's time and algbw columns that disagreed for a mean over seeds, paper columns only with --preset."""

from __future__ import annotations

import pytest

from core import cli
from core.cli.common import unwrapped


@pytest.mark.parametrize("name", ["x.csv", "x.json.gz", "x.txt"])
def test_schedule_out_in_a_form_not_written_is_refused_before_anything_is_built(name, tmp_path, capsys, monkeypatch):
    import core.cli.schedule as sched
    monkeypatch.setattr(sched, "read_network", lambda *a: pytest.fail("built a topology for a refused --out"))
    out = tmp_path / name
    assert cli.main(["schedule", "bcube:2,1", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("allreduce-lab: error: --out: ") and repr(out.suffix) in err[0]
    assert ".json" in err[0] and ".npz" in err[0]
    assert not out.exists()


@pytest.mark.parametrize("name, npz", [("s.json", False), ("s", False), ("S.JSON", False), ("s.npz", True),
                                       ("s.NPZ", True)])
def test_schedule_out_writes_the_form_its_name_says(name, npz, tmp_path, capsys):
    from core.schedule_npz import is_npz
    out = tmp_path / name
    assert cli.main(["schedule", "bcube:2,1", "--method", "ring", "--out", str(out)]) == 0
    assert is_npz(out) == npz
    assert cli.main(["validate", str(out)]) == 0


def test_compare_algbw_is_of_the_time_shown_for_a_mean_over_seeds():
    """greedy's time is a mean over seeds; its algbw was the mean of each seed's M / time, larger than M / the mean
    time whenever the seeds differ: greedy and critical-path showed 16.036 ms each, algbw 6.27 and 6.24 GB/s."""
    from core.compare import compare, configurations
    from core.schedule import ScheduleConfig
    size = 100e6
    (row,) = compare(configurations(None, ["bcube:3,1"]), ["greedy", "critical-path"], 5, ScheduleConfig(), size=size)
    greedy = row.results["greedy"]
    for res in row.results.values():
        for mode in ("sync", "async"):
            m = res.time[mode]
            assert m["algbw_Bps"] == pytest.approx(size / m["time_s"], rel=1e-12)
            n = res.time["ranks"]
            assert m["busbw_Bps"] == pytest.approx(m["algbw_Bps"] * 2 * (n - 1) / n, rel=1e-12)
            for name, b in res.time["bounds"].items():
                b = m["best_bound_s"] if name == "best" else b  # sync's best may be its rounds bound (trial 15)
                assert m["gap"][name] == pytest.approx(m["time_s"] / b - 1, rel=1e-9)
    cp = row.results["critical-path"].time["async"]
    if f"{greedy.time['async']['time_s'] * 1e3:.3f}" == f"{cp['time_s'] * 1e3:.3f}":  # as the table prints them
        assert f"{greedy.time['async']['algbw_Bps'] / 1e9:.2f}" == f"{cp['algbw_Bps'] / 1e9:.2f}"


def test_mean_time_report_takes_algbw_of_the_mean_time():
    """Two seeds at 1 s and 3 s: the mean time is 2 s, so algbw is M / 2 s (the mean of M/1 and M/3 is 2/3 M)."""
    from core.compare import mean_time_report

    def report(t: float) -> dict:
        mode = {"time_s": t, "algbw_Bps": 6.0 / t, "busbw_Bps": 1.5 * 6.0 / t, "gap": {"bandwidth": t - 1}}
        return {"size_bytes": 6.0, "ranks": 4, "bounds": {"bandwidth": 1.0}, "sync": dict(mode), "async": dict(mode)}

    out = mean_time_report([report(1.0), report(3.0)])
    assert out["async"]["time_s"] == 2.0
    assert out["async"]["algbw_Bps"] == 3.0 and out["async"]["busbw_Bps"] == 4.5
    assert out["async"]["gap"]["bandwidth"] == pytest.approx(1.0)


@pytest.mark.parametrize("spec, name, ps", [("bcube:3,1", "BCube(3,1)", 16.8), ("bcube:n=3,k=1,bw=40", "BCube(3,1)", 16.8),
                                            ("dcell:n=6,k=1", "DCell(6,1)", 71.2),
                                            ("jellyfish:switches=10,ports=5,switch_ports=4,seed=0", "Jellyfish(10)", 23.0)])
def test_a_spec_that_is_a_table2_configuration_has_its_paper_values(spec, name, ps):
    from core.compare import configurations
    ((_, typed, paper),) = configurations(None, [spec])
    assert typed == spec and paper is not None and paper.name == name and paper.paper_ps == ps


@pytest.mark.parametrize("spec", ["bcube:2,1", "dcell:n=6,k=2", "jellyfish:switches=10,ports=5,switch_ports=4,seed=3",
                                  "example:fig3"])
def test_a_spec_that_is_no_preset_configuration_has_none(spec):
    from core.compare import configurations
    assert configurations(None, [spec])[0][2] is None


def test_compare_text_fills_the_paper_columns_for_a_table2_spec(capsys):
    assert cli.main(["compare", "bcube:3,1", "bcube:2,1", "--methods", "ring"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("paper PS  paper Ring  paper RL")
    assert lines[1].split()[-3:] == ["16.8", "18.0", "10.2"]
    assert lines[2].split()[-3:] == ["-", "-", "-"]


def test_explain_is_refused_for_a_method_that_is_not_learned(capsys):
    assert cli.main(["schedule", "bcube:2,1", "--method", "critical-path", "--explain", "3"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["allreduce-lab: error: --explain applies to the learned methods (rl, rl-sample), got --method "
                   "critical-path"]


def test_explain_prints_the_first_steps_of_the_debuggers_trace(capsys):
    """`--explain N` prints core's trace (`core.rl.explain.chosen_steps`), as the debugger shows it: the first N
    steps, each with the workload chosen and its score split into terms that add up to the score."""
    import json
    from dataclasses import replace

    from core.methods import run_method
    from core.rl.explain import chosen_steps
    from core.schedule import ScheduleConfig
    from core.topology import make_topology
    assert cli.main(["schedule", "bcube:3,1", "--method", "rl", "--explain", "5", "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)["explain"]
    sched = run_method("rl", make_topology("bcube:3,1"), replace(ScheduleConfig(), trace=True))
    assert got == chosen_steps(sched.trace, 5, sched.dag.describe)
    assert [(r["round"], r["step"]) for r in got] == [(1, k) for k in range(1, 6)]
    assert got[0]["chosen"] == sched.dag.describe(sched.trace["steps"][0][0]["chosen"])
    for row in got:
        terms = [v for c, v in row.items() if c.startswith("term: ")]
        assert len(terms) == len(sched.trace["terms"])
        assert sum(terms) == pytest.approx(row["score"], abs=1e-4 * len(terms))
    assert cli.main(["schedule", "bcube:3,1", "--method", "rl", "--explain", "5"]) == 0
    out = unwrapped(capsys.readouterr().out)  # its prose wrapped at 100 characters (trial 31)
    at = next(i for i, line in enumerate(out) if line.startswith("  explain: the first 5 steps"))
    assert out[at + 1].split() == ["step", "chosen", "score", "p", "margin", "scored", "ties"]
    rows = out[at + 2:at + 7]
    assert [line.split()[:2] for line in rows] == [[f"1.{k}", got[k - 1]["chosen"].split()[0]] for k in range(1, 6)]
    assert out[at + 7].split()[:2] == ["step", "score"]  # the terms' table
    assert [line.split()[0] for line in out[at + 8:at + 13]] == [f"1.{k}" for k in range(1, 6)]
    assert "explain" not in out[at + 13]


@pytest.mark.parametrize("option", ["--jobs-out", "--events-out"])
def test_cluster_csv_outputs_refuse_another_form(option, tmp_path, capsys):
    """cluster writes these files as CSV whatever their name: jobs.json held CSV."""
    out = tmp_path / "jobs.json"
    assert cli.main(["cluster", "--topology", "bcube:2,1", "--trace", "synthetic:jobs=4,seed=0", "--scheduler",
                     "fifo+first-fit", option, str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"allreduce-lab: error: {option}: ") and "'.json'" in err[0]
    assert ".csv" in err[0] and not out.exists()


def test_rl_sample_says_which_rollout_it_kept(capsys):
    """The text output said 'samples: 16' but not which rollout the schedule (and --explain) is (trial 10)."""
    assert cli.main(["schedule", "bcube:3,1", "--method", "rl-sample", "--samples", "2"]) == 0
    kept = [line.strip() for line in capsys.readouterr().out.splitlines() if line.strip().startswith("kept:")]
    assert len(kept) == 1 and kept[0].startswith("kept: ") and "; rounds of the greedy rollout" in kept[0], kept


def test_a_checkpoint_that_kept_its_starting_weights_says_so(capsys):
    """DCell(6,1)'s checkpoint kept iteration 0 (the prior already met the bound): `--explain` showed `network` 0 in
    every step beside 'trained on this topology: yes' with no word why (trial 10). BCube(3,1)'s kept iteration 1."""
    assert cli.main(["schedule", "dcell:n=6,k=1", "--method", "rl"]) == 0
    out = capsys.readouterr().out
    assert "kept the starting weights (iteration 0)" in out and "kept: the" not in out  # greedy rl: no rollout line
    assert cli.main(["schedule", "bcube:3,1", "--method", "rl"]) == 0
    assert "kept the starting weights" not in capsys.readouterr().out
