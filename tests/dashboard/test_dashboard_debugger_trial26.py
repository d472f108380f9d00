"""Trial 26's findings on the Policy debugger: each step's probability and margin, rl-sample's decoding in plain
words, and the differences chart's legend clear of its bars."""

from __future__ import annotations

import json

import pytest
from apptest_tools import open_app

from core.methods import run_method
from core.rl import explain
from core.schedule import ScheduleConfig
from core.topology import make_topology

BCUBE = "bcube:n=3,k=1"


def test_every_step_shows_the_chosen_ones_probability_and_its_margin_and_the_caption_says_what_they_are():
    """The lower agent's choice was shown as raw scores only. Per step, the chosen workload's p (the softmax at
    temperature 1 of the scores, over every candidate scored) and its margin over the runner-up; per candidate, p
    in the score split; the caption says what p is and that greedy RL takes the highest."""
    pytest.importorskip("torch")
    from dashboard.screens.debugger import margin_text
    rl = run_method("rl", make_topology(BCUBE), ScheduleConfig())
    at = open_app("debugger")
    at.slider(key="w:debug.round").set_value(2).run()
    at.slider(key="w:debug.step").set_value(2).run()
    assert not at.exception
    steps = rl.trace["steps"][1]
    (table,) = [el for el in at.dataframe if "others tied at the top" in el.value.columns]
    frame = table.value
    assert list(frame.columns[:5]) == ["step", "chosen", "score", "p", "margin"]
    want = [explain.probabilities(s)[s["candidates"].index(s["chosen"])] for s in steps]
    assert list(frame["p"]) == pytest.approx(want) and all(0 < p <= 1 for p in want)
    assert list(frame["margin"]) == [margin_text(explain.margin(s)) for s in steps]  # 4 decimals, "—" for none
    assert "best score" not in frame.columns  # greedy: the chosen score is the best
    config = json.loads(table.proto.columns)
    assert sum(config[c]["width"] for c in frame.columns) <= 800  # still within the page at 1280 px
    (split,) = [el.value for el in at.dataframe if "term: network" in el.value.columns]
    assert list(split["p"]) == pytest.approx(explain.probabilities(steps[1]))
    (note,) = [c.value for c in at.caption if c.value.startswith("p: ")]
    assert "softmax of the scores at temperature 1 over every candidate scored" in note
    assert "greedy Hierarchical RL takes the highest" in note and "margin: the chosen one's score minus the runner-up's" in note


def test_the_probability_note_says_at_which_temperature_a_kept_sample_drew():
    """p is at temperature 1; rl-sample's kept sample drew at its own (0.2 by default, an opening's in its first
    rounds): the caption says so, a greedy rollout kept by rl-sample needs no such line."""
    from dashboard.screens.debugger import probability_note
    info = {"kept_rollout": "sample 3", "kept_temperature": 0.2,
            "kept_opening": {"temperature": 0.5, "fraction": 0.3, "rounds": 4, "of_rounds": 12}}
    note = probability_note(info, True)
    assert "the kept sample, drew each pick from the softmax of score / T at T = 0.2 (T = 0.5 in its first 4 " \
           "rounds)" in note
    assert "score / T" not in probability_note(dict(info, kept_rollout="greedy"), True)
    assert "over the candidates listed" in probability_note({}, False)


def test_the_differences_legend_sits_under_the_plot_where_no_bar_reaches():
    """Trial 26: the "Where RL differs" legend sat over the plot's top (y = 1.12 in a 6-px margin) and the tallest
    bars ran into it. It is now at the foot of the figure, in a strip of its own under the axis title."""
    from dashboard import figures
    fig = figures.round_diff_figure([2, 9, 1], [1, 1], "rl", "critical-path", current_round=2)
    legend, margin = fig.layout.legend, fig.layout.margin
    assert legend.orientation == "h" and legend.yref == "container"
    assert legend.y == 0 and legend.yanchor == "bottom"  # the figure's bottom edge, growing upwards
    assert margin.b >= figures.DIFF_LEGEND_PX >= 24  # a strip below the plot for its one row (~20 px)
    assert fig.layout.height == 240 + figures.DIFF_LEGEND_PX  # the plot keeps its height
