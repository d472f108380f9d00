"""What the new-user trial 12 found in the CLI: sampled --explain, cluster with topdrl, checkpoints by path, JSON."""

from __future__ import annotations

import types

import numpy as np

from core import cli
from core.jsonnumbers import csv_number


def test_explain_of_a_sampled_rollout_shows_the_best_score_and_says_picks_are_drawn(capsys):
    """`--explain` on rl-sample showed a pick of 16.2038 while 16.3241 was available, with no best-score column, and
    its footer read 'broken by sampled (Gumbel noise)' (trial 12)."""
    from core.cli.schedule import explain_lines
    from core.rl.explain import chosen_steps
    from core.rl.rollout import play
    from tests.rl.test_rl_explain import dag_of, trained_looking
    trace = play(dag_of("dcell:n=4,k=1"), trained_looking(), sample=True, rng=np.random.default_rng(2), trace=True,
                 temperature=2.0).trace
    steps = chosen_steps(trace, 40)
    assert any(not s["picked best"] for s in steps)
    explain_lines(types.SimpleNamespace(trace=trace, info={"temperature": 2.0}), steps)
    out = capsys.readouterr().out.splitlines()
    head = next(line for line in out if line.strip().startswith("step  chosen"))
    assert head.split() == ["step", "chosen", "score", "p", "margin", "best", "scored", "ties"]
    rows = [row.split() for row in out[out.index(head) + 1:out.index(head) + 1 + len(steps)]]
    # best: yes where the pick had the step's best score, else that score (fix32b: "best score" and "picked best")
    assert [r[-3] for r in rows] == ["yes" if s["picked best"] else f"{s['best score']:.4f}" for s in steps]
    assert all(len(line) <= 100 for line in out)
    assert any("drawn at random from the softmax of score / T (T = 2)" in line for line in out)
    last = " ".join(x.strip() for x in out[-3:])  # the legend's last line, wrapped
    assert "broken by the random draw (Gumbel noise)" in last and "broken by sampled" not in last


def test_a_checkpoint_of_ones_own_is_named_by_its_path(tmp_path, capsys):
    """`--checkpoint /tmp/x/universal` printed 'checkpoint: universal', as the shipped one does (trial 12)."""
    import shutil

    from core.rl.checkpoint import checkpoint_dir
    for ext in (".json", ".safetensors"):
        shutil.copy(checkpoint_dir() / f"universal{ext}", tmp_path / f"universal{ext}")
    own = tmp_path / "universal"
    lines = {}
    for given in (str(own), "universal"):
        assert cli.main(["schedule", "bcube:3,1", "--method", "rl", "--checkpoint", given]) == 0
        lines[given] = [line.strip() for line in capsys.readouterr().out.splitlines() if "checkpoint:" in line]
    assert lines[str(own)] == [f"checkpoint: {own.resolve()} (trained on this topology: yes)"]
    assert lines["universal"] == ["checkpoint: universal (trained on this topology: yes)"]


def test_a_checkpoint_that_is_no_checkpoint_file_says_what_it_is(tmp_path, capsys):
    """A training log said "need both dcell_n4_k1.log.json and dcell_n4_k1.log.safetensors", a folder "need both
    tmp.json and tmp.safetensors" (trial 12): one line saying what it is, exit 2; a missing one keeps its message."""
    log = tmp_path / "dcell_n4_k1.log.csv"
    log.write_text("iteration,rounds\n")
    pair = "a checkpoint is X.json + X.safetensors (give X or either file)"
    for given, says in ((log, f"checkpoint {log}: not a checkpoint file: {pair}"),
                        (tmp_path, f"checkpoint {tmp_path}: a directory, not a checkpoint file: {pair}"),
                        ("dcell_n4_k1.log.csv", f"checkpoint dcell_n4_k1.log.csv: not a checkpoint file: {pair}"),
                        (tmp_path / "gone", "checkpoint " + str(tmp_path / "gone") + ": need both gone.json and "
                                                                                      "gone.safetensors (neither exists)")):
        assert cli.main(["schedule", "bcube:3,1", "--method", "rl", "--checkpoint", str(given)]) == 2
        assert capsys.readouterr().err.splitlines() == [f"allreduce-lab: error: {says}"]
    assert cli.main(["cluster", "--topology", "bcube:2,1", "--trace", "synthetic:jobs=3,seed=0", "--scheduler",
                     "topdrl", "--checkpoint", str(tmp_path)]) == 2
    assert capsys.readouterr().err.splitlines() == [f"allreduce-lab: error: TopDRL checkpoint {tmp_path}: a directory, "
                                                    f"not a checkpoint file: {pair}"]


def test_schedule_json_writes_numbers_as_compare_does(capsys, tmp_path):
    """`schedule --format json` gave size_bytes 100000000.0 and 0.012806000000000001 where compare's JSON gave
    100000000 and 0.012806 (trial 12): one rule (core.jsonnumbers) for both."""
    import json

    def floats(x):
        if isinstance(x, dict):
            return [v for y in x.values() for v in floats(y)]
        if isinstance(x, list):
            return [v for y in x for v in floats(y)]
        return [x] if isinstance(x, float) else []
    out = tmp_path / "s.json"
    assert cli.main(["schedule", "dcell:n=3,k=1", "--format", "json", "--out", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert type(doc["time"]["size_bytes"]) is int and doc["time"]["size_bytes"] == 100_000_000
    got = floats(doc)
    assert got and all(v == float(csv_number(v)) for v in got)  # 6 digits, integer digits kept (as compare's CSV)
    assert any(v != float(f"{v:.6g}") for v in floats(json.loads(out.read_text())["timing"]))  # the noise it had
    assert cli.main(["compare", "dcell:n=3,k=1", "--methods", "critical-path", "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["methods"]["critical-path"]["time"] == doc["time"]  # the same numbers, written the same way


def test_explain_names_the_kept_samples_own_temperature_of_a_split_and_equal_rounds_read_all() -> None:
    """Trial 13: with `--temperature 0.2,1` the sentence printed the Python list ([0.2, 1.0]) and never said which
    temperature the kept sample drew at; rollouts that all took 43 rounds read '43-43'."""
    from core.cli.schedule import kept_temperature, rounds_range
    assert kept_temperature({"temperature": [0.2, 1.0], "kept_rollout": "sample 1"}) == \
        "1 (sample 1's item of 0.2,1)"
    assert kept_temperature({"temperature": [0.2, 1.0], "kept_rollout": "sample 2"}).startswith("0.2 (sample 2's")
    assert kept_temperature({"temperature": 0.2, "kept_rollout": "sample 5"}) == "0.2"
    assert rounds_range([43, 43, 43]) == "all 43" and rounds_range([44, 42, 43]) == "42-44"
