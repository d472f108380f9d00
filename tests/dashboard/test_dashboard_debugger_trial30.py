"""Trial 30's findings on the Policy debugger: the step table's last column cut at 1280 px under rl-sample, a lone
candidate's margin read "None", and the kept sample numbered otherwise than the CLI's kept: line."""

from __future__ import annotations

import json

import fake_rl
from apptest_tools import open_app

from core.methods import METHODS

DCELL = "dcell:n=2,k=2"


def sampled_stand_in(monkeypatch) -> None:
    """The stand-in RL (tests/dashboard/fake_rl.py) as rl-sample's: its trace says its rollout was sampled, so the
    step table gets rl-sample's "best score" column."""
    def plan(dag, config, progress=None):
        got = fake_rl.fake_rl_plan(dag, config, progress)
        got.trace["decoding"] = "sampled"
        return got
    fake_rl.install(monkeypatch)
    monkeypatch.setitem(METHODS, "rl-sample", fake_rl.stand_in("rl-sample", plan))


def step_table(at):
    (table,) = [el for el in at.dataframe if "others tied at the top" in el.value.columns]
    return table


def test_rl_samples_step_table_fits_a_1280_px_page_on_dcell_2_2(monkeypatch):
    """Trial 30 (1280 px, rl-sample, DCell(2,2)): the columns came to 871 px in the ~818-px table and the last one read
    "in crit". Every column now fits, "chosen" as wide as its longest entry; the short headings are said in full
    under the table."""
    from dashboard.screens.debugger import STEP_HEADINGS, STEP_TABLE_PX
    sampled_stand_in(monkeypatch)
    at = open_app("debugger")
    at.radio(key="w:source_mode").set_value("Spec").run()
    at.text_input(key="w:spec").set_value(DCELL).run()
    at.radio(key="w:debug.method").set_value("rl-sample").run()
    at.number_input(key="w:debug.samples").set_value(2).run()
    assert not at.exception
    table = step_table(at)
    frame, config = table.value, json.loads(table.proto.columns)
    assert "best score" in frame.columns  # rl-sample's column: the one that pushed the table over
    longest = max(len(c) for c in frame["chosen"])
    assert longest >= 36 and config["chosen"]["width"] >= 7 * longest
    assert sum(config[c]["width"] for c in frame.columns) <= STEP_TABLE_PX <= 800
    assert config["critical-path sends it too"]["label"] == "in CP"
    assert any(c.value.endswith(STEP_HEADINGS) for c in at.caption)


def test_a_long_chosen_name_takes_what_the_other_columns_leave():
    """"chosen" takes at most what the other columns leave of the page: the table never scrolls sideways."""
    from dashboard.screens.debugger import STEP_TABLE_PX, step_columns
    row = {"step": 1, "chosen": "#12345 broadcast s10.10->s10.11 (tree s10.10/3)" * 2, "score": 1.0, "p": 1.0,
           "margin": 0.0, "candidates": 1, "shown": 1, "others tied at the top": 0, "best score": 1.0,
           "critical-path sends it too": True}
    config = step_columns([row])
    assert sum(config[c]["width"] for c in row) == STEP_TABLE_PX


def test_a_lone_candidates_margin_reads_a_dash_and_the_page_says_why(stand_in_rl):
    """Trial 30 (Jellyfish(10), 1920 px): a step with one candidate showed the literal "None" as its margin. It reads
    "—", right-aligned with the numbers; the column's help and the caption under the table say a lone candidate has
    no runner-up. The stand-in's last step of a round has one candidate."""
    from dashboard.screens.debugger import NO_MARGIN, NO_MARGIN_NOTE
    at = open_app("debugger")
    assert not at.exception
    table = step_table(at)
    margins, config = list(table.value["margin"]), json.loads(table.proto.columns)["margin"]
    assert margins[-1] == NO_MARGIN == "—" and "None" not in margins
    assert all(float(m) > 0 for m in margins[:-1])  # the others: a number, 4 decimals
    assert all(len(m.split(".")[1]) == 4 for m in margins[:-1])
    assert config["alignment"] == "right" and "only candidate (no runner-up)" in config["help"]
    assert any(NO_MARGIN_NOTE in c.value for c in at.caption)
    assert NO_MARGIN_NOTE == "A margin of —: the step had one candidate, so no runner-up."


SAMPLE_2 = {"samples": 16, "temperature": 0.2, "kept_rollout": "sample 2", "kept_opening": None,
            "kept_temperature": 0.2, "rollout_rounds": [43, 43, 44, 42] + [43] * 13,
            "opening": [None, {"temperature": 0.5, "fraction": 0.3, "rounds": 13, "of_rounds": 43}]}
"""rl-sample's info on DCell(2,2) as trial 30 ran it: the CLI said "kept: sample 2 (of 0-15; no opening)"."""


def test_the_kept_sample_is_named_as_the_clis_kept_line_names_it():
    """Trial 30: the page said "kept the 3rd sample" where `schedule --method rl-sample` said "kept: sample 2 (of 0-15;
    no opening)". The page names it as the CLI does (from 0, with its opening), then which it is counting from 1; the
    opening's samples are numbered from 0 too (they read "the 2nd, 4th, …")."""
    from core.cli.schedule import kept_text
    from dashboard import labels
    assert labels.kept_note(SAMPLE_2) == "kept sample 2 (of 0-15; no opening), the 3rd: 42 rounds, the greedy rollout 43"
    opened = dict(SAMPLE_2, kept_rollout="sample 3", kept_opening=SAMPLE_2["opening"][1])
    one = {"samples": 1, "kept_rollout": "sample 0", "kept_opening": None, "rollout_rounds": [43, 42]}
    for info in (SAMPLE_2, opened, one):
        cli = kept_text(info).split("; rounds of")[0]  # "sample 3 (of 0-15; opening 0.5:0.3)"
        assert labels.kept_note(info).startswith(f"kept {cli}"), (labels.kept_note(info), cli)
    assert "(of 0-15; opening 0.5:0.3), the 4th:" in labels.kept_note(opened)
    assert "every second sample (samples 1, 3, …, counting from 0) drew its first 13 rounds" in labels.sampling_note(
        SAMPLE_2)


def test_the_debugger_says_which_sample_it_kept_as_the_cli_does(monkeypatch):
    from core.schedule import Plan
    from dashboard import labels

    def plan(dag, config, progress=None):
        got = fake_rl.fake_rl_plan(dag, config, progress)
        return Plan(got.rounds, info=dict(SAMPLE_2), trace=got.trace)
    fake_rl.install(monkeypatch)
    monkeypatch.setitem(METHODS, "rl-sample", fake_rl.stand_in("rl-sample", plan))
    at = open_app("debugger")
    at.radio(key="w:debug.method").set_value("rl-sample").run()
    assert not at.exception
    (line,) = [c.value for c in at.caption if " Here: kept " in c.value]
    assert line.endswith(f"Here: {labels.kept_note(SAMPLE_2)}.") and "kept sample 2 (of 0-15; no opening)" in line
