"""rl-sample across seeds (issue 11): --temperature splits, the benchmarks' --seeds, and that a benchmark's
seed column is what `schedule --seed S` gives."""

from __future__ import annotations

import argparse
import json

import pytest

from core import argtypes as at
from core import cli
from core.methods import run_method
from core.schedule import ScheduleConfig, show_temperature, temperature_of
from core.topology import make_topology
from _rltest import JF10, bench_module, noisy_checkpoint  # tests/rl/_rltest.py


# ---- the option -----------------------------------------------------------------------------------------------
def test_temperature_option_takes_one_temperature_or_a_split():
    assert at.temperature("0.2") == 0.2 and isinstance(at.temperature("0.2"), float)
    assert at.temperature("0.2,1") == (0.2, 1.0)
    assert at.temperature(" 0.5 , 2 ") == (0.5, 2.0)
    for bad in ("0", "0.2,0", "0.2,", ",1", "0.2;1", "x", "0.2,nan", "0.2,101", ",".join(["1"] * 101)):
        with pytest.raises(argparse.ArgumentTypeError, match="comma-separated list"):
            at.temperature(bad)
    assert show_temperature(0.2) == "0.2" and show_temperature((0.2, 1.0)) == "0.2,1"
    assert [temperature_of((0.2, 1.0), k) for k in range(5)] == [0.2, 1.0, 0.2, 1.0, 0.2]
    assert temperature_of(0.3, 7) == 0.3


def test_seeds_option_of_the_benchmarks():
    seed_list = bench_module("_common").seed_list
    assert seed_list("0-7") == list(range(8))
    assert seed_list("0,1,2") == [0, 1, 2]
    assert seed_list("3") == [3]
    assert seed_list("0-2,9") == [0, 1, 2, 9]
    for bad, needle in [("3-1", "A <= B"), ("0-2,1", "not repeat"), ("a", "ranges"), ("-1", "ranges"),
                        ("0-", "ranges"), ("", "ranges"), ("0-2147483648", "A <= B"), ("0-5000", "at most 1000")]:
        with pytest.raises(argparse.ArgumentTypeError, match=needle):
            seed_list(bad)


# ---- the split draws each sample at its own temperature --------------------------------------------------------
def test_a_split_draws_each_sample_at_its_temperature(tmp_path):
    """Sample k of a split (a, b) is sample k of the run at a (k even) or at b (k odd): the same seed sequence
    draws it, at that temperature. Fails if every sample drew at one of them."""
    ck, t = noisy_checkpoint(tmp_path), make_topology(JF10)

    def rolls(temp):
        s = run_method("rl-sample", t, ScheduleConfig(checkpoint=ck, samples=6, seed=1, temperature=temp, trace=False))
        return s.info["rollout_rounds"], s.info["temperature"]

    (cold, _), (hot, _), (split, recorded) = rolls(0.01), rolls(50.0), rolls((0.01, 50.0))
    assert cold[1:] != hot[1:]  # the two temperatures give different rollouts here, so the check below can fail
    assert split == [cold[0]] + [(cold if k % 2 == 0 else hot)[k + 1] for k in range(6)]
    assert recorded == [0.01, 50.0]


def test_cli_split_temperature_is_recorded_and_its_kept_rollout_replays(capsys, tmp_path):
    """`--temperature 0.01,50` via the CLI: the schedule file records the list, and the kept sample's trace is
    replayed at that sample's temperature (learned() raises if the replay does not reproduce the schedule)."""
    ck, out = noisy_checkpoint(tmp_path), tmp_path / "s.json"
    code = cli.main(["schedule", JF10, "--method", "rl-sample", "--checkpoint", ck, "--samples", "6", "--seed", "1",
                     "--temperature", "0.01,50", "--trace", "--out", str(out)])
    text = capsys.readouterr().out
    assert code == 0 and "temperature: 0.01,50" in text
    info = json.loads(out.read_text())["info"]
    assert info["temperature"] == [0.01, 50.0] and info["samples"] == 6


# ---- the benchmark's seed column is the CLI's ---------------------------------------------------------------
def test_bench_generalization_seed_column_equals_schedule_with_that_seed(capsys, tmp_path):
    ck, t = noisy_checkpoint(tmp_path), make_topology(JF10)
    seeds = [0, 1, 2]
    plans = bench_module("bench_generalization").seed_rounds(t, 1, seeds, 4, ck, temperature=2.0)
    cli_rolls = []
    for s in seeds:
        out = tmp_path / f"s{s}.json"
        assert cli.main(["schedule", JF10, "--method", "rl-sample", "--checkpoint", ck, "--samples", "4",
                         "--temperature", "2", "--seed", str(s), "--out", str(out)]) == 0
        doc = json.loads(out.read_text())
        cli_rolls.append((len(doc["rounds"]), doc["info"]["rollout_rounds"]))
    capsys.readouterr()
    assert [(p.n_rounds, p.info["rollout_rounds"]) for p in plans] == cli_rolls
    assert len({tuple(r) for _, r in cli_rolls}) > 1  # the seeds differ here, so a bench ignoring them would fail
