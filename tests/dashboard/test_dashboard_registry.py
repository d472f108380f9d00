"""A method registered in core's registry shows up in every method picker of the dashboard, with its
registry title and colour, and runs like the built-in ones."""

from __future__ import annotations

import numpy as np
import pytest
from apptest_tools import charts, metric, open_app, texts, traces

from core.engine import list_schedule
from core.methods import Method, register, run_method, unregister
from core.topology import make_topology


def lowest_id_first(dag, config, progress=None):
    """A toy scheduler: ready workloads in id order."""
    return list_schedule(dag, np.arange(dag.n))


@pytest.fixture
def toy():
    register(Method("toy", "Toy (lowest id first)", lowest_id_first, dag="tree", colour="#123456"))
    yield "toy"
    unregister("toy")


def test_a_registered_method_is_offered_and_played_in_the_schedule_player(toy):
    at = open_app("player")
    picker = at.multiselect(key="w:player.methods")
    assert "Toy (lowest id first)" in picker.options
    picker.set_value(["critical-path", toy]).run()
    want = run_method(toy, make_topology("bcube:n=3,k=1"))
    assert metric(at, "Rounds") == [metric(at, "Rounds")[0], str(want.n_rounds)]
    assert "##### Toy (lowest id first)" in texts(at) or any(m.value == "##### Toy (lowest id first)" for m in at.markdown)
    (fig,) = charts(at)
    assert len(traces(fig, "heatmap")) == 2
    titles = [a["text"] for a in fig["layout"]["annotations"]]
    assert "<b>Toy (lowest id first)</b>: link utilization per round" in titles


def test_a_registered_method_is_compared_in_its_registry_colour(toy, missing_rl):
    at = open_app("compare")
    picker = at.multiselect(key="w:compare.methods")
    assert "Toy (lowest id first)" in picker.options
    picker.set_value([toy]).run()
    at.number_input(key="w:compare.seeds").set_value(1).run()
    frame = at.dataframe[0].value
    assert "toy" in frame.columns and "toy = Toy (lowest id first)" in texts(at)
    want = run_method(toy, make_topology("dcell:n=4,k=1")).n_rounds
    assert frame[frame["configuration"] == "DCell(4,1)"].iloc[0]["toy"] == want
    (bars,) = traces(charts(at)[0], "bar")
    assert bars["marker"]["color"] == "#123456" and bars["name"] == "Toy (lowest id first)"


def test_an_unregistered_method_disappears_from_the_pickers(toy):
    at = open_app("player")
    at.multiselect(key="w:player.methods").set_value(["ps", toy]).run()
    unregister(toy)
    at.run()
    assert "Toy (lowest id first)" not in at.multiselect(key="w:player.methods").options
    assert at.multiselect(key="w:player.methods").value == ["ps"] and not at.exception
