"""Trial 25 on Compare: what CP-SAT had on each configuration said in words once (UNKNOWN: its starting schedule),
the spec a topology file carries in the CSV, and the mark of an optimum not proven in what a screen reader reads."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace

import pytest
from apptest_tools import capture_downloads, open_app, shown

from core.engine import list_schedule
from core.methods import METHODS
from core.priorities import critical_path_rank
from core.schedule import Plan
from core.schedulers.listsched import random_order

STATUS = {"bcube:n=5,k=1": "UNKNOWN", "dcell:n=4,k=1": "UNKNOWN", "jellyfish:switches=10,": "FEASIBLE"}
"""The stand-in CP-SAT's status where it proves nothing (a spec starting so); proven elsewhere."""


def stand_in_optimal(monkeypatch) -> None:
    """`optimal` replaced by a schedule carrying CP-SAT's facts (the real search on Table 2 takes a minute): as CP-SAT
    does, UNKNOWN returns its starting schedule, critical-path's; FEASIBLE a schedule of its own (seeded greedy's)."""
    def plan(dag, config, progress=None):
        status = next((s for spec, s in STATUS.items() if dag.topology.spec.startswith(spec)), "OPTIMAL")
        rounds = list_schedule(dag, critical_path_rank(dag)) if status == "UNKNOWN" else random_order(dag, config)
        return Plan(rounds, {"status": status, "proven_optimal": status == "OPTIMAL",
                             "proven_bound": 7 if status != "OPTIMAL" else len(rounds)})
    monkeypatch.setitem(METHODS, "optimal", replace(METHODS["optimal"], schedule=plan))


def test_the_warning_says_per_configuration_what_cp_sat_had_in_words_and_a_screen_reader_hears_the_mark(
        missing_rl, monkeypatch):
    """Trial 25: at 2 s the warning read "(UNKNOWN, FEASIBLE; deterministic seconds ...)": which configuration had
    which, and that UNKNOWN means CP-SAT found nothing of its own (its result is critical-path's schedule), went
    unsaid. Each configuration is named once under its status in words. The cells' "50*" is drawn on a canvas whose
    accessible table reads a number cell's value ("50"): the table's accessible name (``alt``, the grid's region
    label) names the configurations marked, and the marked column's header help says what * means."""
    stand_in_optimal(monkeypatch)
    at = open_app("compare")
    at.session_state["keep:compare.time"] = 2
    at.multiselect(key="w:compare.methods").set_value(["critical-path", "optimal"]).run()
    assert not at.exception
    (warning,) = [shown(w.value) for w in at.warning if "NOT proven optimal" in w.value]
    assert ("CP-SAT stopped at the 2 s time limit (deterministic seconds of work, the same on any machine): on "
            "BCube(5,1), DCell(4,1) it found no schedule of its own within the limit, so the result is its starting "
            "schedule, critical-path's (status UNKNOWN); on Jellyfish(10) it found a schedule but did not prove it the "
            "shortest (status FEASIBLE). A longer time limit") in warning, warning
    assert "UNKNOWN, FEASIBLE" not in warning and "FEASIBLE, UNKNOWN" not in warning
    table = at.dataframe[0]
    assert table.proto.alt == ("Rounds per configuration and method; Optimal (CP-SAT) NOT proven optimal, marked *, "
                               "on BCube(5,1), DCell(4,1), Jellyfish(10)")
    helps = {c: v.get("help", "") for c, v in json.loads(table.proto.columns).items()}
    assert helps["optimal"] == ("Optimal (CP-SAT): rounds; * after the rounds: NOT proven optimal (CP-SAT stopped at "
                                "its time limit)")
    assert "NOT proven" not in helps["critical-path"]
    notes = shown(" ".join(m.value for m in at.markdown))  # Sizes and notes: per cell, the same words
    assert ("DCell(4,1), Optimal (CP-SAT): NOT proven optimal: CP-SAT stopped at the 2 s time limit (deterministic "
            "seconds of work, the same on any machine) and found no schedule of its own within the limit") in notes
    at.multiselect(key="w:compare.methods").set_value(["critical-path"]).run()
    assert at.dataframe[0].proto.alt == "Rounds per configuration and method"  # nothing marked: nothing said


@pytest.fixture
def torch_rl():
    pytest.importorskip("torch")


def test_the_csv_carries_the_file_spec_sentence_the_page_shows(torch_rl, monkeypatch):
    """Trial 25: for a learned method run on a file whose graph is a family spec's, the page said so (the checkpoint
    is chosen and judged as for that spec) but the CSV did not, the CLI's neither. Both carry it in a column
    ``rl file spec``; a family spec, which carries none, has no such column."""
    from contextlib import redirect_stdout

    from core.cli import main
    from core.schedulers.learned import file_spec_text

    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["topology", "dcell:n=4,k=1", "--format", "json"]) == 0
    got = capture_downloads(monkeypatch)
    at = open_app("compare")
    at.radio(key="w:compare.scope").set_value("The topology in the sidebar").run()
    at.radio(key="w:source_mode").set_value("Upload").run()
    at.file_uploader(key="upload").set_value(("dcell41.json", buf.getvalue().encode(), "application/octet-stream"))
    at.run()
    at.multiselect(key="w:compare.methods").set_value(["critical-path", "rl"]).run()
    assert not at.exception
    sentence = ("the file's graph is that of the spec it carries, dcell:n=4,k=1: the checkpoint is chosen and judged "
                "as for that spec")
    assert sentence in shown(" ".join(c.value for c in at.caption))  # the page says it
    (row,) = csv.DictReader(io.StringIO(got["compare-dcell41.json.csv"].decode()))
    assert row["rl file spec"] == sentence == file_spec_text({"file_spec": {"spec": "dcell:n=4,k=1", "used": True}})
    at.radio(key="w:source_mode").set_value("Spec").run()
    at.text_input(key="w:spec").set_value("dcell:n=4,k=1").run()
    header = next(csv.reader(io.StringIO(got["compare-dcell_n4_k1.csv"].decode())))
    assert "rl checkpoint" in header and "rl file spec" not in header
