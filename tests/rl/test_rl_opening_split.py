"""rl-sample's split opening (issue 11, stop 29): `--opening none,0.5:0.3` spreads the samples over the listed openings
in turn (sample k uses the (k mod n)-th), so the even samples are exactly those drawn without an opening and the odd
ones exactly those drawn with it; a single opening keeps its meaning and output."""

from __future__ import annotations

import argparse
import json

import pytest

import core.rl.rollout as rollout
from core import argtypes as at
from core import cli
from core.methods import run_method
from core.schedule import ScheduleConfig, opening_of, openings, show_opening
from core.topology import make_topology
from _rltest import JF10, bench_module, noisy_checkpoint  # tests/rl/_rltest.py
from core.cli.common import unwrapped  # noqa: E402

HOT = (50.0, 0.5)


def _sampled_rollouts(monkeypatch, topo, config: ScheduleConfig) -> tuple[list, dict]:
    """Every sampled rollout rl-sample draws (its rounds, in sample order) and the method's info."""
    seen, play = [], rollout.play

    def spy(*args, **kw):
        ep = play(*args, **kw)
        if kw.get("sample"):
            seen.append([r.tolist() for r in ep.rounds])
        return ep

    monkeypatch.setattr(rollout, "play", spy)
    s = run_method("rl-sample", topo, config)
    monkeypatch.setattr(rollout, "play", play)
    return seen, s.info


def test_a_split_draws_the_even_samples_without_and_the_odd_ones_with_the_opening(tmp_path, monkeypatch):
    """Fails if a split ignored the sample's index (all samples opened, or none) or changed a sample's seed."""
    ck, topo = noisy_checkpoint(tmp_path), make_topology(JF10)

    def run(opening):
        return _sampled_rollouts(monkeypatch, topo, ScheduleConfig(checkpoint=ck, samples=6, seed=2, temperature=0.01,
                                                                   opening=opening, trace=False))

    plain, plain_info = run(None)
    hot, hot_info = run(HOT)
    split, info = run((None, HOT))
    assert len(plain) == len(hot) == len(split) == 6
    assert all(plain[k] != hot[k] for k in (1, 3, 5))  # else the odd samples could not tell the two apart
    assert [split[k] for k in (0, 2, 4)] == [plain[k] for k in (0, 2, 4)]
    assert [split[k] for k in (1, 3, 5)] == [hot[k] for k in (1, 3, 5)]
    # the other order opens the even samples
    other, _ = run((HOT, None))
    assert [other[k] for k in (0, 2, 4)] == [hot[k] for k in (0, 2, 4)]
    assert [other[k] for k in (1, 3, 5)] == [plain[k] for k in (1, 3, 5)]
    # info: the greedy rollout is the same; the opening is the list, one per item, the hot one as a single's
    assert info["rollout_rounds"][0] == plain_info["rollout_rounds"][0]
    assert info["rollout_rounds"][1::2] == plain_info["rollout_rounds"][1::2]
    assert info["rollout_rounds"][2::2] == hot_info["rollout_rounds"][2::2]
    assert info["opening"] == [None, hot_info["opening"]]


def test_three_openings_cycle_and_a_single_keeps_its_info(tmp_path, monkeypatch):
    ck, topo = noisy_checkpoint(tmp_path), make_topology(JF10)
    cfg = dict(checkpoint=ck, samples=6, seed=1, temperature=0.01, trace=False)
    plain, _ = _sampled_rollouts(monkeypatch, topo, ScheduleConfig(**cfg, opening=None))
    hot, _ = _sampled_rollouts(monkeypatch, topo, ScheduleConfig(**cfg, opening=HOT))
    three, info = _sampled_rollouts(monkeypatch, topo, ScheduleConfig(**cfg, opening=(None, None, HOT)))
    assert three == [plain[0], plain[1], hot[2], plain[3], plain[4], hot[5]]
    assert len(info["opening"]) == 3 and info["opening"][:2] == [None, None]
    one = run_method("rl-sample", topo, ScheduleConfig(**cfg, opening=HOT)).info["opening"]
    assert isinstance(one, dict) and one["temperature"] == 50.0  # a single opening: a dict as before, not a list


def test_the_kept_odd_sample_replays_with_its_opening(tmp_path):
    """learned() replays the kept sample for its trace and raises if the replay differs: the replay must use the
    kept sample's item of the split."""
    ck, t = noisy_checkpoint(tmp_path), make_topology(JF10)
    for seed in range(12):
        s = run_method("rl-sample", t, ScheduleConfig(checkpoint=ck, samples=6, seed=seed, temperature=0.01,
                                                      opening=(None, HOT), trace=True))
        kept = s.info["kept_rollout"]
        if kept != "greedy" and int(kept.split()[1]) % 2 == 1:
            assert s.trace["decoding"] == "sampled"
            return
    pytest.fail("no seed kept an odd sample: the replay with the opening was never exercised")


# ---- values, parsing and refusals ------------------------------------------------------------------------------
def test_openings_of_a_split_and_of_a_single():
    assert openings(None) == (None,) and openings((1.0, 0.3)) == ((1.0, 0.3),)
    assert openings([1.0, 0.3]) == ([1.0, 0.3],)  # a single as a JSON file holds it
    assert openings((None, (1.0, 0.3))) == (None, (1.0, 0.3))
    assert [opening_of((None, (1.0, 0.3)), k) for k in range(4)] == [None, (1.0, 0.3), None, (1.0, 0.3)]
    assert opening_of((1.0, 0.3), 5) == (1.0, 0.3)
    assert show_opening((None, (0.5, 0.3))) == "none,0.5:0.3"
    assert show_opening([None, [1, 0.15], [2, 0.3]]) == "none,1:0.15,2:0.3"
    o = {"temperature": 0.5, "fraction": 0.3, "rounds": 13, "of_rounds": 43}
    assert show_opening([None, o]) == ("none,0.5:0.3 (a split: sample k takes item k mod 2, counting from 0; T = 0.5 in the first "
                                       "13 of 43 rounds, the greedy rollout's)")
    assert show_opening(o) == "0.5:0.3 (T = 0.5 in the first 13 of 43 rounds, the greedy rollout's)"  # as before


def test_show_opening_short_is_the_form_opening_takes():
    """The CLI's kept and only-sample-ran notes and --explain's split name the opening as --opening takes it: one
    function says it (they cut `show_opening`'s text at its first space and rebuilt tuples from the dicts)."""
    o = {"temperature": 0.5, "fraction": 0.3, "rounds": 13, "of_rounds": 43}
    assert [show_opening(x, short=True) for x in (o, None, [None, o], (None, (0.5, 0.3)), [o, None, (2, 0.15)])] == \
        ["0.5:0.3", "none", "none,0.5:0.3", "none,0.5:0.3", "0.5:0.3,none,2:0.15"]
    assert show_opening([None, o], short=True) == show_opening((None, (0.5, 0.3)))


def test_opening_option_takes_a_list():
    assert at.opening("none,0.5:0.3") == (None, (0.5, 0.3))
    assert at.opening("none, 1:0.3,2:0.15") == (None, (1.0, 0.3), (2.0, 0.15))  # three items are fine
    assert at.opening("1:0.3,none") == ((1.0, 0.3), None)
    assert at.opening("none,none,1:0.3") == (None, None, (1.0, 0.3))  # a repeat beside another is a weighting
    for same, one in (("none,none", "none"), ("1:0.3, 1:0.3", "1:0.3")):  # trial 17: all the same is no split
        with pytest.raises(argparse.ArgumentTypeError, match=f"^a split needs different openings; write {one}, got"):
            at.opening(same)
    assert at.opening("1:0.3") == (1.0, 0.3) and at.opening("none") is None  # a single, as before
    for bad in ("none,", ",1:0.3", "none,,1:0.3", "none,1:1.5", "none,x", "none,0:0.3", "1:0.3,1", ","):
        with pytest.raises(argparse.ArgumentTypeError, match="comma-separated list"):
            at.opening(bad)
    with pytest.raises(argparse.ArgumentTypeError, match="at most 100"):
        at.opening(",".join(["none"] * 101))
    assert len(at.opening(",".join(["none", "1:0.3"] * 50))) == 100


@pytest.mark.parametrize("value", ["none,", "none,1:1.5", "1:0.3,,none"])
def test_cli_refuses_a_bad_split_in_one_line(capsys, value):
    code = cli.main(["schedule", JF10, "--method", "rl-sample", "--opening", value])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--opening" in err[0] and repr(value) in err[0], err


@pytest.mark.parametrize("opening", [(), (None, (0.0, 0.3)), [None, (1.0, 0.3)], (None, [1.0, 0.3]),
                                     ((1.0, 0.3), (1.0, 1.5)), (None, (1.0,)), ((None, (1.0, 0.3)),)])
def test_bad_split_in_the_config(opening):
    with pytest.raises(ValueError, match="opening must be None or"):
        ScheduleConfig(opening=opening)


def test_cli_split_goes_to_the_schedule_file_and_the_text(capsys, tmp_path):
    ck, out = noisy_checkpoint(tmp_path), tmp_path / "s.json"
    code = cli.main(["schedule", JF10, "--method", "rl-sample", "--checkpoint", ck, "--samples", "4", "--seed", "1",
                     "--opening", "none,2:0.25", "--out", str(out)])
    text = capsys.readouterr().out
    info = json.loads(out.read_text())["info"]
    assert code == 0 and info["opening"][0] is None
    assert info["opening"][1]["temperature"] == 2.0 and info["opening"][1]["fraction"] == 0.25
    assert "opening: none,2:0.25 (a split: sample k takes item k mod 2, counting from 0; T = 2 in the first" in text


def test_explain_names_the_kept_samples_item_of_the_split():
    from core.cli.schedule import kept_temperature
    o = {"temperature": 1.0, "fraction": 0.3, "rounds": 13, "of_rounds": 43}
    assert kept_temperature({"temperature": 0.2, "kept_rollout": "sample 5", "opening": [None, o],
                             "kept_opening": o}) == \
        "1 in rounds 1-13 (the opening: sample 5's item of none,1:0.3), then 0.2"
    assert kept_temperature({"temperature": 0.2, "kept_rollout": "sample 4", "opening": [None, o],
                             "kept_opening": None}) == "0.2 (no opening: sample 4's item of none,1:0.3)"


def test_explain_reads_the_kept_opening_the_run_recorded():
    """--explain's sampled line names `info["kept_opening"]`, the item the run recorded for the kept sample, rather
    than working it out from the split again (`opening_of`, the rule core.schedulers.learned owns): given a record
    the modulo rule would not give, the line follows the record."""
    from core.cli.schedule import kept_temperature
    o = {"temperature": 1.0, "fraction": 0.3, "rounds": 13, "of_rounds": 43}
    assert kept_temperature({"temperature": 0.2, "kept_rollout": "sample 4", "opening": [None, o],
                             "kept_opening": o}) == \
        "1 in rounds 1-13 (the opening: sample 4's item of none,1:0.3), then 0.2"
    assert kept_temperature({"temperature": 0.2, "kept_rollout": "sample 5", "opening": [None, o],
                             "kept_opening": None}) == "0.2 (no opening: sample 5's item of none,1:0.3)"


def test_cli_explain_names_the_kept_samples_opening_of_a_split(capsys, tmp_path):
    """schedule --explain with --opening none,0.5:0.3 on a tiny topology: the sampled line names the opening the
    schedule file records for the kept sample (Jellyfish(6 switches), seed 0 keeps a sample; the greedy rollout
    kept has no sampled line)."""
    out = tmp_path / "s.json"
    code = cli.main(["schedule", "jellyfish:switches=6,ports=4,switch_ports=3,seed=0", "--method", "rl-sample",
                     "--samples", "4", "--opening", "none,0.5:0.3", "--explain", "2", "--out", str(out)])
    text = capsys.readouterr().out
    info = json.loads(out.read_text())["info"]
    sampled = [line for line in unwrapped(text) if line.strip().startswith("sampled rollout:")]
    assert code == 0 and info["opening"][0] is None and info["opening"][1]["fraction"] == 0.3
    if info["kept_rollout"] == "greedy":
        assert sampled == []
        return
    k, o = int(info["kept_rollout"].split()[1]), info["kept_opening"]
    said = (f"{o['temperature']:g} in rounds 1-{o['rounds']} (the opening: sample {k}'s item of none,0.5:0.3"
            "; every step shown is in them), then 0.2; column T: each step's"  # the 2 steps shown are in round 1
            if o else f"0.2 (no opening: sample {k}'s item of none,0.5:0.3)")
    assert len(sampled) == 1 and f"(T = {said})" in sampled[0], sampled


def test_compare_notes_and_csv_name_the_split():
    from core.compare import compare, configurations, learned_columns, learned_notes
    rows = compare(configurations(specs=["bcube:n=2,k=1"]), ["rl-sample"],
                   config=ScheduleConfig(samples=2, opening=(None, (1.0, 0.3)), trace=False))
    assert "after openings none,1:0.3 (a split" in " ".join(learned_notes(rows, ["rl-sample"]))
    header, body = learned_columns(rows, ["rl-sample"])
    assert body[0][header.index("rl-sample opening")].startswith("none,1:0.3")


# ---- the benchmarks -------------------------------------------------------------------------------------------------
def test_bench_temperature_candidates_take_a_split_opening():
    bt = bench_module("bench_temperature")
    assert bt.candidate("0.2@none,0.5:0.3") == (0.2, (None, (0.5, 0.3)))
    assert [bt.label(*bt.candidate(c)) for c in ("0.2@none,0.5:0.3", "0.2@none,1:0.15", "0.2,1@none,1:0.3")] == \
        ["0.2@none,0.5:0.3", "0.2@none,1:0.15", "0.2,1@none,1:0.3"]
    with pytest.raises(argparse.ArgumentTypeError):
        bt.candidate("0.2@none,")


def test_bench_generalization_select_all_spreads_a_split(tmp_path, monkeypatch):
    """select_all gives sample k the split's (k mod n)-th opening, as rl-sample does."""
    from core.rl.checkpoint import load_checkpoint
    from core.workloads import tree_dag
    from pathlib import Path
    bg = bench_module("bench_generalization")
    policy, _ = load_checkpoint(Path(noisy_checkpoint(tmp_path)))
    dag = tree_dag(make_topology(JF10))
    calls, play = [], bg.play

    def spy(*args, **kw):
        if kw.get("sample"):
            calls.append(kw.get("opening_temperature"))
        return play(*args, **kw)

    monkeypatch.setattr(bg, "play", spy)
    bg.select_all(dag, policy, 4, temperature=0.2, opening=(None, HOT))
    assert calls == [None, 50.0, None, 50.0]
