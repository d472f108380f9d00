"""rl-sample's opening (issue 11): the first ceil(F x R) rounds of every sampled rollout drawn at T_open, R the
greedy rollout's rounds; greedy decoding unchanged; reproducible, replayed, named in `info` and the file."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest

from core import argtypes as at
from core import cli
from core.methods import get_method, run_method
from core.rl.checkpoint import load_checkpoint
from core.rl.features import Observer
from core.rl.rollout import play, round_temperature
from core.schedule import ScheduleConfig, opening_rounds, show_opening
from core.topology import make_topology
from core.workloads import tree_dag
from _rltest import JF10, bench_module, noisy_checkpoint  # tests/rl/_rltest.py


def _rounds(ep) -> list[list[int]]:
    return [r.tolist() for r in ep.rounds]


# ---- the per-round temperature and the round count ---------------------------------------------------------------
def test_round_temperature_switches_after_the_opening_rounds():
    assert [round_temperature(r, 0.2, 13, 1.0) for r in (0, 12, 13, 14)] == [1.0, 1.0, 0.2, 0.2]
    assert round_temperature(0, 0.2, 0, 1.0) == 0.2  # no rounds: no opening
    assert round_temperature(0, 0.2, 13, None) == 0.2


def test_opening_rounds_is_the_ceiling_of_the_share_of_the_greedy_rounds():
    assert opening_rounds((1.0, 0.3), 43) == 13       # 12.9 -> 13
    assert opening_rounds((1.0, 0.15), 40) == 6       # 0.15 x 40 is 6.000000000000001 in floating point
    assert opening_rounds((1.0, 0.5), 43) == 22
    assert opening_rounds((1.0, 1.0), 43) == 43
    assert opening_rounds((1.0, 0.01), 43) == 1
    assert opening_rounds(None, 43) == 0
    assert show_opening((1.0, 0.3)) == "1:0.3" and show_opening(None) == "none"
    assert show_opening({"temperature": 2.0, "fraction": 0.15, "rounds": 7, "of_rounds": 43}).startswith("2:0.15 (T = 2 in the first 7 of 43")


# ---- the rollout ----------------------------------------------------------------------------------------------------
def test_the_opening_changes_sampled_rollouts_and_not_greedy(tmp_path):
    ck = noisy_checkpoint(tmp_path)
    policy, _ = load_checkpoint(Path(ck))
    dag = tree_dag(make_topology(JF10))
    obs = Observer(dag)
    greedy = play(dag, policy, sample=False, observer=obs)
    assert _rounds(play(dag, policy, sample=False, observer=obs, opening_rounds=5, opening_temperature=50.0)) == _rounds(greedy)
    n = greedy.n_rounds

    def sampled(**kw):
        return _rounds(play(dag, policy, sample=True, rng=np.random.default_rng(7), observer=obs, temperature=0.01, **kw))

    plain = sampled()
    hot = sampled(opening_rounds=n, opening_temperature=50.0)
    assert hot != plain
    # an opening longer than any rollout is the rollout drawn at T throughout
    assert sampled(opening_rounds=10 ** 6, opening_temperature=50.0) == _rounds(play(dag, policy, sample=True, rng=np.random.default_rng(7), observer=obs, temperature=50.0))
    # an opening at the sample's own temperature changes nothing
    assert sampled(opening_rounds=n, opening_temperature=0.01) == plain
    # the opening's rounds are drawn hot, the rest cold: the first round differs from the cold rollout's
    one = sampled(opening_rounds=1, opening_temperature=50.0)
    assert one[0] == hot[0] and one[0] != plain[0]
    with pytest.raises(ValueError, match="opening"):
        play(dag, policy, sample=True, observer=obs, opening_rounds=3, opening_temperature=None)


# ---- the method -----------------------------------------------------------------------------------------------------
def test_seeded_rl_sample_with_an_opening_is_reproducible_and_names_it(tmp_path):
    ck, t = noisy_checkpoint(tmp_path), make_topology(JF10)

    def run(opening):
        return run_method("rl-sample", t, ScheduleConfig(checkpoint=ck, samples=6, seed=1, temperature=0.01,
                                                         opening=opening, trace=True))

    a, b, plain = run((50.0, 0.5)), run((50.0, 0.5)), run(None)
    assert [r.tolist() for r in a.rounds] == [r.tolist() for r in b.rounds]
    assert a.info["rollout_rounds"] == b.info["rollout_rounds"]
    assert a.info["rollout_rounds"][0] == plain.info["rollout_rounds"][0]      # greedy: the same rollout
    assert a.info["rollout_rounds"][1:] != plain.info["rollout_rounds"][1:]   # the samples: not
    r = a.info["rollout_rounds"][0]
    assert a.info["opening"] == {"temperature": 50.0, "fraction": 0.5, "rounds": -(-r // 2), "of_rounds": r}
    assert plain.info["opening"] is None
    assert a.trace is not None  # the kept rollout was replayed with its opening (learned() raises if not)
    assert "opening" not in run_method("rl", t, ScheduleConfig(checkpoint=ck)).info


def test_the_kept_sample_replays_with_its_opening(tmp_path):
    """The trace replay of the kept sample reproduces it only when it is drawn with the opening: learned() raises
    otherwise. Fails if the replay (or the samples) ignored the opening."""
    ck, t = noisy_checkpoint(tmp_path), make_topology(JF10)
    for seed in range(4):
        s = run_method("rl-sample", t, ScheduleConfig(checkpoint=ck, samples=6, seed=seed, temperature=0.01,
                                                      opening=(50.0, 0.3), trace=True))
        if s.info["kept_rollout"] != "greedy":
            assert s.trace["decoding"] == "sampled"
            return
    pytest.fail("no seed kept a sample: the replay was never exercised")


def test_opening_is_read_by_rl_sample_only():
    assert "opening" in get_method("rl-sample").options()
    assert all("opening" not in get_method(m).options() for m in ("rl", "critical-path", "optimal", "greedy"))


# ---- the CLI --------------------------------------------------------------------------------------------------------
def test_opening_option_values():
    assert at.opening("1:0.3") == (1.0, 0.3)
    assert at.opening("none") is None and at.opening("None") is None
    assert at.opening("2:1") == (2.0, 1.0)
    for bad in ("0:0.3", "-1:0.3", "1:0", "1:1.5", "1:-0.1", "1", "1:0.3:2", "x:0.3", "1:x", "nan:0.3", "1:nan",
                "inf:0.5", "", "1:"):
        with pytest.raises(argparse.ArgumentTypeError, match="must be T:F"):
            at.opening(bad)


@pytest.mark.parametrize("value", ["0:0.3", "1:0", "1:1.5", "junk"])
def test_cli_refuses_a_bad_opening_in_one_line(capsys, value):
    code = cli.main(["schedule", JF10, "--method", "rl-sample", "--opening", value])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--opening" in err[0] and repr(value) in err[0], err


@pytest.mark.parametrize("kwargs", [{"opening": (0.0, 0.3)}, {"opening": (1.0, 0.0)}, {"opening": (1.0, 1.1)},
                                    {"opening": (1.0,)}, {"opening": [1.0, 0.3]}, {"opening": (float("nan"), 0.3)},
                                    {"opening": (True, 0.3)}])
def test_bad_opening_in_the_config(kwargs):
    with pytest.raises(ValueError, match="opening must be None or"):
        ScheduleConfig(**kwargs)


def test_cli_opening_goes_to_the_schedule_file_and_the_text(capsys, tmp_path):
    ck, out = noisy_checkpoint(tmp_path), tmp_path / "s.json"
    code = cli.main(["schedule", JF10, "--method", "rl-sample", "--checkpoint", ck, "--samples", "4", "--seed", "1",
                     "--opening", "2:0.25", "--trace", "--out", str(out)])
    text = capsys.readouterr().out
    info = json.loads(out.read_text())["info"]
    assert code == 0 and info["opening"]["temperature"] == 2.0 and info["opening"]["fraction"] == 0.25
    assert "opening: 2:0.25 (T = 2 in the first" in text
    assert cli.main(["schedule", JF10, "--method", "rl-sample", "--checkpoint", ck, "--samples", "4",
                     "--opening", "none", "--out", str(out)]) == 0
    capsys.readouterr()
    assert json.loads(out.read_text())["info"]["opening"] is None


# ---- the benchmark's candidates -------------------------------------------------------------------------------------
def test_bench_temperature_candidates_take_an_opening():
    bt = bench_module("bench_temperature")
    assert bt.candidate("0.2@1:0.3") == (0.2, (1.0, 0.3))
    assert bt.candidate("0.2") == (0.2, None) and bt.candidate("0.2,1") == ((0.2, 1.0), None)
    assert [bt.label(*bt.candidate(c)) for c in ("0.2", "0.2,1", "0.2@1:0.3", "0.2@0.5:0.15")] == \
        ["0.2", "0.2,1", "0.2@1:0.3", "0.2@0.5:0.15"]
    with pytest.raises(argparse.ArgumentTypeError):
        bt.candidate("0.2@0:0.3")
    rows = [{"instance": "a", "seed": 0, "critical_path": 10, "lower_bound": 10,
             "rounds": {"0.2@1:0.3": 10, "0.2": 10, "0.2@none,0.5:0.3": 10, "0.2@2:0.3": 11}}]
    assert bt.choose(rows)[2] == "0.2@none,0.5:0.3"  # a tie keeps the default (the split opening), whatever the order
    rows[0]["rounds"]["0.2@none,0.5:0.3"] = 11
    assert bt.choose(rows)[2] == "0.2@1:0.3"


def test_explain_names_the_opening_of_the_kept_sample():
    from core.cli.schedule import kept_temperature
    o = {"temperature": 1.0, "fraction": 0.3, "rounds": 13, "of_rounds": 43}
    assert kept_temperature({"temperature": 0.2, "kept_rollout": "sample 5", "opening": o, "kept_opening": o}) == \
        "1 in rounds 1-13 (the opening), then 0.2"
    assert kept_temperature({"temperature": 0.2, "kept_rollout": "sample 5", "opening": None,
                             "kept_opening": None}) == "0.2"


def test_compare_notes_and_csv_name_the_opening():
    from core.compare import compare, configurations, learned_columns, learned_notes
    rows = compare(configurations(specs=["bcube:n=2,k=1"]), ["rl-sample"],
                   config=ScheduleConfig(samples=2, opening=(1.0, 0.3), trace=False))
    assert "after an opening 1:0.3 (T = 1 in the first" in " ".join(learned_notes(rows, ["rl-sample"]))
    header, body = learned_columns(rows, ["rl-sample"])
    assert body[0][header.index("rl-sample opening")].startswith("1:0.3")


def test_bench_generalization_passes_the_methods_defaults():
    """bench_generalization runs rl-sample with the method's own temperature and opening unless told otherwise."""
    import inspect
    bg = bench_module("bench_generalization")
    params = inspect.signature(bg.seed_rounds).parameters
    assert params["temperature"].default == ScheduleConfig().temperature
    assert params["opening"].default == ScheduleConfig().opening
    params = inspect.signature(bg.select_all).parameters
    assert params["opening"].default == ScheduleConfig().opening


# ---- the prefix (bench_opening's diagnosis) -----------------------------------------------------------------------
def test_a_prefix_is_played_as_given_then_the_policy_takes_over(tmp_path):
    """Fails if `play` ignored its prefix (the sampled rollout's first rounds would be the greedy ones) or drew
    from the rng during it (the whole sampled rollout given as its own prefix would not come back)."""
    policy, _ = load_checkpoint(Path(noisy_checkpoint(tmp_path)))
    dag = tree_dag(make_topology(JF10))
    obs = Observer(dag)
    greedy = play(dag, policy, sample=False, observer=obs)
    sampled = play(dag, policy, sample=True, rng=np.random.default_rng(5), observer=obs, temperature=50.0)
    k = 3
    assert _rounds(sampled)[:k] != _rounds(greedy)[:k]  # so a prefix ignored would show
    mixed = play(dag, policy, sample=False, observer=obs, prefix=sampled.rounds[:k])
    assert _rounds(mixed)[:k] == _rounds(sampled)[:k]
    assert sum(len(r) for r in mixed.rounds) == dag.n  # the engine checked every round; all workloads sent
    again = play(dag, policy, sample=True, rng=np.random.default_rng(9), observer=obs, prefix=sampled.rounds)
    assert _rounds(again) == _rounds(sampled)
    with pytest.raises(ValueError, match="prefix"):
        play(dag, policy, sample=False, observer=obs, prefix=sampled.rounds[:1], trace=True)
