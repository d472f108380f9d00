"""The Cluster screen through Streamlit's AppTest: figures drawn, bad input shown with st.error."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

SCRIPT = "from dashboard.screens.cluster import render\nrender()\n"
FAST = ["fifo+first-fit", "sjf+closest", "gadget"]


def _open(**state) -> AppTest:
    at = AppTest.from_string(SCRIPT, default_timeout=120)
    at.session_state["cluster:trace"] = "synthetic:jobs=24,seed=1,rate=12"
    at.session_state["cluster:schedulers"] = FAST
    for k, v in state.items():
        at.session_state[k] = v
    return at.run()


def _figures(at: AppTest) -> list[dict]:
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def test_page_draws_every_figure():
    at = _open()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error
    figs = _figures(at)
    assert len(figs) == 4  # JCT boxes, Gantt, snapshot, contention
    boxes = [t for t in figs[0]["data"] if t["type"] == "box"]
    assert [b["name"] for b in boxes] == FAST
    gantt = figs[1]
    assert any(t.get("name") == "waiting" for t in gantt["data"])
    assert "jobs running" in figs[2]["layout"]["title"]["text"]
    assert len(at.dataframe) == 1 and list(at.dataframe[0].value.index) == FAST


def test_time_slider_changes_the_snapshot():
    at = _open()
    at.slider(key="cluster:time").set_value(0.0).run()
    first = _figures(at)[2]["layout"]["title"]["text"]
    at.slider(key="cluster:time").set_value(at.slider(key="cluster:time").max).run()
    last = _figures(at)[2]["layout"]["title"]["text"]
    assert first != last and "0 jobs running" in last


@pytest.mark.parametrize("field, value, says", [
    ("cluster:trace", "synthetic:jobs=0", "jobs must be an integer >= 1"),
    ("cluster:trace", "csv:/no/such.csv", "trace file not found"),
    ("cluster:topology", "bcube:n=1,k=1", "BCube needs n >= 2"),
    ("cluster:trace", "synthetic:jobs=160,seed=0", "needs 32 GPUs, but the cluster has"),
])
def test_bad_input_is_an_error_line_and_the_page_keeps_running(field, value, says):
    state = {field: value}
    if field == "cluster:trace" and "160" in value:
        state["cluster:topology"] = "bcube:n=2,k=1"
    at = _open(**state)
    assert not at.exception
    assert len(at.error) == 1 and says in at.error[0].value
    at.session_state[field] = "bcube:n=4,k=1" if field == "cluster:topology" else "synthetic:jobs=12,seed=2"
    if field == "cluster:trace" and "160" in value:
        at.session_state["cluster:topology"] = "bcube:n=4,k=1"
    at.run()
    assert not at.error and len(_figures(at)) == 4
