"""What the new-user trial 17 found in the CLI's rl-sample lines: the kept line named no opening and did not say
samples count from 0, and a split that fewer samples ran than it has items read as if it applied."""

from __future__ import annotations

import json

from core import cli
from core.cli.schedule import kept_text, opening_text

O = {"temperature": 0.5, "fraction": 0.3, "rounds": 13, "of_rounds": 43}


def test_kept_text_names_the_samples_range_and_its_opening():
    info = {"samples": 16, "kept_rollout": "sample 2", "kept_opening": None, "rollout_rounds": [43, 42, 44]}
    assert kept_text(info) == "sample 2 (of 0-15; no opening); rounds of the greedy rollout and the samples: 42-44"
    info.update(kept_rollout="sample 3", kept_opening=O)
    assert kept_text(info).startswith("sample 3 (of 0-15; opening 0.5:0.3); ")
    assert kept_text({"samples": 1, "kept_rollout": "sample 0", "kept_opening": None}) == \
        "sample 0 (the only one; no opening)"
    assert kept_text({"samples": 4, "kept_rollout": "greedy", "rollout_rounds": [43] * 5}) == \
        "the greedy rollout; rounds of the greedy rollout and the samples: all 43"


def test_opening_text_says_when_fewer_samples_than_items_ran():
    split = [None, O]
    assert opening_text({"samples": 1, "opening": split}).endswith(
        "the greedy rollout's; only sample 0 ran: no opening)")
    assert opening_text({"samples": 1, "opening": [O, None]}).endswith("; only sample 0 ran: opening 0.5:0.3)")
    assert opening_text({"samples": 2, "opening": [None, O, None]}).endswith("; only samples 0-1 ran: none,0.5:0.3)")
    assert "only" not in opening_text({"samples": 2, "opening": split})
    assert "only" not in opening_text({"samples": 1, "opening": O})  # a single opening: no split to note


def test_cli_kept_line_and_file_record_the_kept_samples_opening(capsys, tmp_path):
    out = tmp_path / "s.json"
    assert cli.main(["schedule", "bcube:3,1", "--method", "rl-sample", "--samples", "4", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    info = json.loads(out.read_text())["info"]
    kept = [line.strip() for line in text.splitlines() if line.strip().startswith("kept:")]
    assert "kept_opening" in info and len(kept) == 1
    if info["kept_rollout"] == "greedy":
        assert info["kept_opening"] is None and kept[0].startswith("kept: the greedy rollout; ")
    else:
        k = int(info["kept_rollout"].split()[1])
        assert info["kept_opening"] == info["opening"][k % 2]  # the default split, none,0.5:0.3
        assert kept[0].startswith(f"kept: sample {k} (of 0-3; {'no opening' if k % 2 == 0 else 'opening 0.5:0.3'})")


def test_cli_refuses_a_split_of_one_opening(capsys):
    assert cli.main(["schedule", "bcube:3,1", "--method", "rl-sample", "--opening", "none,none"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "a split needs different openings; write none" in err[0], err
