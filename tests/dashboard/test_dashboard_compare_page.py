"""The Compare page: the Table 2 table, chart, spread and CSV against core's compare()."""

from __future__ import annotations

import json

import pytest
from apptest_tools import capture_downloads, cells, charts, goto, open_app, traces

from core.compare import compare, configurations
from core.schedule import ScheduleConfig
from core.topology import preset
from dashboard.tables import GRID_PAD_PX, PAGE_PX, SORTED_HEADER_PX, text_px


def percent_shown(text: str) -> float:
    """The percent a seconds-table cell's text shows: ``12.5`` or ``12.5%`` (12.5), a ratio ``450,000x`` (44999900.0,
    `core.units.gap_shown`: from 10x its bound up a gap is written as the ratio)."""
    if text.endswith("x"):
        return round(100 * (float(text[:-1].replace(",", "")) - 1), 1)
    return float(text.rstrip("%").replace(",", ""))

FAST = ["greedy", "critical-path"]


@pytest.fixture
def at(missing_rl):
    at = open_app("compare")
    at.multiselect(key="w:compare.methods").set_value(FAST).run()
    at.number_input(key="w:compare.seeds").set_value(2).run()
    return at


def sidebar_seconds_at_1b(methods: list[str]):
    """The Compare page on the sidebar's topology with `methods`, at a 1 B message (its seconds table last)."""
    at = open_app("compare")
    at.radio(key="w:compare.scope").set_value("The topology in the sidebar").run()
    at.multiselect(key="w:compare.methods").set_value(methods).run()
    at.text_input(key="w:compare.size").set_value("1B").run()
    assert not at.exception
    return at


def test_table_has_every_configuration_with_our_numbers_and_the_papers(at):
    frame = at.dataframe[0].value
    assert list(frame["configuration"]) == [p.name for p in preset("table2")]
    want = {r.name: r for r in compare([c for c in configurations("table2") if c[0] in ("BCube(3,1)", "DCell(4,1)")],
                                       FAST, seeds=2)}
    for name, row in want.items():
        got = frame[frame["configuration"] == name].iloc[0]
        assert got["greedy"] == pytest.approx(row.results["greedy"].rounds)
        assert got["critical-path"] == pytest.approx(row.results["critical-path"].rounds)
        assert got["lower bound"] == row.lower_bound
        best = min(row.results["greedy"].rounds, row.results["critical-path"].rounds)
        assert got["best gap %"] == pytest.approx(100 * (best / row.lower_bound - 1))
        sizes = at.dataframe[2].value  # in the "Sizes and notes" expander, so the main table fits the page
        assert sizes[sizes["configuration"] == name].iloc[0]["workloads"] == row.workloads
        papers = at.dataframe[1].value  # the paper's own table, right under ours
        paper = papers[papers["configuration"] == name].iloc[0]
        assert paper["paper ps"] == pytest.approx(row.paper.paper_ps)
        assert paper["paper rl"] == pytest.approx(row.paper.paper_rl)
    assert list(papers["configuration"]) == list(frame["configuration"])  # the same rows in the same order


def test_bar_chart_has_our_bars_and_the_papers_diamonds(at):
    bars = charts(at)[0]
    ours = traces(bars, "bar")
    assert [t["meta"] for t in ours] == FAST and all(len(t["x"]) == 9 for t in ours)
    assert [t["name"] for t in ours] == ["Greedy (merged)", "Critical-path"]
    assert {t["meta"] for t in traces(bars, "scatter")} == {"ps", "ring", "rl"}


def test_seconds_chart_has_each_methods_async_time_in_the_tables_unit(at):
    """Trial 27: the page's only chart was rounds; where two methods take the same rounds their times can still
    differ. The seconds chart's bars are the seconds table's async column, in its unit."""
    fig = charts(at)[1]
    assert fig["layout"]["yaxis"]["title"]["text"] == "ms" and "async time per method" in fig["layout"]["title"]["text"]
    rows = compare([c for c in configurations("table2")], FAST, seeds=2)
    table = cells(at.dataframe[-1])
    for t in traces(fig, "bar"):
        want = [r.results[t["meta"]].time["async"]["time_s"] * 1e3 for r in rows]
        assert list(t["y"]) == pytest.approx(want, rel=1e-9)
        # the hover writes a bar's time as the table's cell does (3 decimals, as the CLI's compare table)
        mine = table[table["", "method"] == t["meta"]]
        assert list(t["hovertext"]) == list(mine["time (ms)", "async"]) and "%{hovertext} ms" in t["hovertemplate"]
    assert not traces(fig, "scatter")  # the paper gives no times


def test_spread_over_seeds_for_one_configuration(at):
    at.selectbox(key="w:compare.spread").set_value("DCell(4,1)").run()
    spread = charts(at)[-1]  # the last chart: rounds, seconds, then the spread
    (row,) = compare([c for c in configurations("table2") if c[0] == "DCell(4,1)"], FAST, seeds=2)
    boxes = {t["meta"]: list(t["y"]) for t in traces(spread, "box")}
    assert boxes == {m: row.results[m].per_seed for m in FAST}
    assert len(boxes["greedy"]) == 2 and len(boxes["critical-path"]) == 1


def test_the_table_leaves_the_sizes_to_an_expander_so_it_fits_the_page(at):
    assert list(at.dataframe[0].value.columns) == ["configuration", "greedy", "critical-path", "lower bound", "best gap %"]
    assert list(at.dataframe[1].value.columns) == ["configuration", "paper ps", "paper ring", "paper rl"]


def test_the_csv_download_is_the_clis_csv_plus_the_pages_columns(missing_rl, monkeypatch, capsys):
    """The page's CSV has the CLI's headers and cells (`compare --format csv`: one function writes both), the
    seconds table's gaps included, then the page's own columns; numbers as the CLI rounds them."""
    import csv
    import io

    from core.cli import main
    got = capture_downloads(monkeypatch)
    at = open_app("compare")
    at.multiselect(key="w:compare.methods").set_value(FAST).run()
    at.number_input(key="w:compare.seeds").set_value(2).run()
    assert [b.label for b in at.get("download_button")] == ["Download table (CSV)"]
    page = list(csv.reader(io.StringIO(got["compare-table2.csv"].decode())))
    assert main(["compare", "--preset", "table2", "--methods", ",".join(FAST), "--seeds", "2", "--format", "csv"]) == 0
    cli = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert page[0] == cli[0] + ["paper workloads"]  # no "notes": no row has one (the CLI's rule for such columns)
    assert "greedy gap BW bound (%)" in cli[0] and "critical-path gap own bound (%)" in cli[0]
    numbers = [i for i, h in enumerate(page[0]) if h.endswith("(%)")]  # percent numbers, not text like 12.5%
    assert len(numbers) == 5 and all(float(row[i]) >= 0 for row in page[1:] for i in numbers)
    assert [row[:len(cli[0])] for row in page[1:]] == cli[1:]
    assert page[1][-1] == "144"  # BCube(3,1): the paper's 144 workloads


def test_rl_missing_on_some_configurations_leaves_those_rows_without_it(monkeypatch):
    from core.methods import METHODS
    from core.schedulers.listsched import random_order
    from fake_rl import stand_in

    def only_bcube(topology, config):
        return None if topology.spec.startswith("bcube") else f"no RL checkpoint for {topology.spec}"

    monkeypatch.setitem(METHODS, "rl", stand_in("rl", random_order, only_bcube))
    at = open_app("compare")
    at.multiselect(key="w:compare.methods").set_value(["critical-path", "rl"]).run()
    (warning,) = at.warning
    assert warning.value.startswith("Hierarchical RL not available on DCell(4,1), DCell(5,1), DCell(6,1), Jellyfish(10)")
    assert "no RL checkpoint for dcell:n=4,k=1" in warning.value
    frame = at.dataframe[0].value
    assert len(frame) == 9 and frame["rl"].notna().tolist() == [True] * 3 + [False] * 6


def test_missing_rl_is_said_and_the_comparison_goes_on(at):
    at.multiselect(key="w:compare.methods").set_value(["critical-path", "rl"]).run()
    assert any(w.value.startswith("Hierarchical RL not available on BCube(3,1)") for w in at.warning)
    frame = at.dataframe[0].value
    assert frame["critical-path"].notna().all() and frame["rl"].isna().all()


def test_a_method_that_crashes_leaves_the_other_methods_compared(monkeypatch):
    from core.methods import METHODS
    from fake_rl import stand_in

    def crash(dag, config, progress=None):
        raise RuntimeError("policy exploded")

    monkeypatch.setitem(METHODS, "rl", stand_in("rl", crash))
    at = open_app("compare")
    at.multiselect(key="w:compare.methods").set_value(["greedy", "rl"]).run()
    assert any("policy exploded" in w.value for w in at.warning)
    assert at.dataframe[0].value["greedy"].notna().all()


def test_compare_on_the_topology_in_the_sidebar(missing_rl):
    at = open_app("compare")
    at.selectbox(key="w:preset").set_value("DCell(4,1)").run()
    at.radio(key="w:compare.scope").set_value("The topology in the sidebar").run()
    at.multiselect(key="w:compare.methods").set_value(["critical-path", "ring"]).run()
    frame = at.dataframe[0].value
    assert list(frame["configuration"]) == ["DCell(4,1)"] and "paper ps" not in frame.columns
    (row,) = compare([c for c in configurations("table2") if c[0] == "DCell(4,1)"], ["critical-path", "ring"])
    assert frame.iloc[0]["critical-path"] == row.results["critical-path"].rounds
    assert frame.iloc[0]["ring"] == row.results["ring"].rounds


def test_compare_refuses_a_topology_too_big_to_schedule():
    at = open_app("compare")
    at.radio(key="w:compare.scope").set_value("The topology in the sidebar").run()
    at.radio(key="w:source_mode").set_value("Family").run()
    at.number_input(key="w:bcube.n").set_value(9).run()  # 81 servers
    assert any("schedules at most 64" in w.value for w in at.warning)
    assert not at.dataframe and not at.info


def test_csv_carries_the_learned_columns_of_the_cli():
    """The page's CSV has the CLI's columns for each learned method (checkpoint, trained on topology and on
    configuration, samples and temperature) beside the table and the notes."""
    import csv
    import io

    from core.compare import compare_topology
    from core.topology import make_topology
    from dashboard.screens.compare import export_csv

    row = compare_topology(make_topology("bcube:n=3,k=1"), ["critical-path", "rl-sample"], seeds=1,
                           config=ScheduleConfig(samples=2, temperature=0.5, chunks=2), name="BCube(3,1)")
    text = export_csv([row], ["critical-path", "rl-sample"], ["BCube(3,1), Hierarchical RL: a note"])
    (got,) = csv.DictReader(io.StringIO(text))
    assert got["rl-sample checkpoint"] == "bcube_n3_k1" and got["rl-sample trained on topology"] == "yes"
    assert got["rl-sample trained on configuration"] == "no"  # trained with chunks 1, run with 2
    assert (got["rl-sample samples"], got["rl-sample temperature"], got["notes"]) == ("2", "0.5", "a note")
    assert "critical-path checkpoint" not in got
    assert "latency note" not in got  # 100 MB: bandwidth-dominated, no row has a note, so no column (as the CLI's)


def test_csv_carries_the_latency_note_of_the_cli():
    """A latency-dominated row's CSV download says so (the CLI's ``latency note`` column), before the page's own."""
    import csv
    import io

    from core.compare import compare_topology
    from core.topology import make_topology
    from dashboard.screens.compare import export_csv

    row = compare_topology(make_topology("bcube:n=3,k=1"), ["ring", "critical-path"], seeds=1, size=1e3,
                           name="BCube(3,1)")
    header, *body = list(csv.reader(io.StringIO(export_csv([row], ["ring", "critical-path"], []))))
    assert header[-2:] == ["latency note", "paper workloads"]  # no notes on the page: no "notes" column
    assert body[0][-2] == row.latency_note() and body[0][-2].startswith("ring, critical-path: latency-dominated: ")


def test_every_registered_method_can_be_compared_at_once(missing_rl):
    """The picker stopped at 6 of the 8 methods (a cap from when there were 7, with no reason given): now every
    method can be picked; slow ones run under the page's time limit."""
    from core.methods import method_names
    at = open_app("compare")
    assert not at.multiselect(key="w:compare.methods").max_selections  # 0: no cap
    at.session_state["keep:compare.time"] = 2  # the slow methods' time limit (s), before they are picked
    at.radio(key="w:compare.scope").set_value("The topology in the sidebar").run()
    at.multiselect(key="w:compare.methods").set_value(method_names()).run()
    assert not at.exception and len(method_names()) == 8
    frame = at.dataframe[0].value
    assert [c for c in frame.columns if c in method_names()] == method_names()
    assert frame.iloc[0][["ps", "ring", "greedy", "critical-path", "time-aware", "optimal"]].notna().all()


def test_whole_rounds_show_without_a_decimal_and_means_with_one():
    """A deterministic method's rounds read 16 (as the CLI prints them), not 16.0; a mean over seeds keeps one
    decimal; an empty column (a method that could not run) is not mistaken for whole numbers with a fraction."""
    import pandas as pd

    from dashboard.screens.compare import _number_format

    assert _number_format(pd.Series([16.0, 18.0, None])) == "%d"
    assert _number_format(pd.Series([21.2, 18.0])) == "%.1f"
    assert _number_format(pd.Series([None, None], dtype=float)) == "%.1f"


def test_the_default_methods_are_the_clis_but_what_the_page_cannot_run_and_the_best_gap_has_one_decimal(missing_rl):
    """Trial: the page's default methods lacked greedy, which the CLI's compare runs by default; they are the CLI's
    (`core.compare.default_methods`) less what the page cannot run (rl here, its checkpoint missing), which a caption
    names. The best gap read 0 on one topology (whole values: "%d"; BCube(2,1), critical-path at the bound) and 0.0 in
    Table 2: one decimal always, as the
    CLI prints a gap (0.0%)."""
    from core.compare import default_methods

    at = open_app("compare")
    assert at.multiselect(key="w:compare.methods").value == [m for m in default_methods() if m != "rl"]
    assert "greedy" in default_methods() and "rl" in default_methods()
    left = [c.value for c in at.caption if "left out of the page's" in c.value]
    assert len(left) == 1 and "(rl)" in left[0] and "needs torch" in left[0], left
    assert json.loads(at.dataframe[0].proto.columns)["best gap %"]["type_config"]["format"] == "%.1f"
    at.radio(key="w:compare.scope").set_value("The topology in the sidebar").run()
    at.radio(key="w:source_mode").set_value("Spec").run()
    at.text_input(key="w:spec").set_value("bcube:2,1").run()
    at.multiselect(key="w:compare.methods").set_value(["critical-path"]).run()
    assert not at.exception and at.dataframe[0].value["best gap %"].tolist() == [0.0]  # a whole number: was "%d"
    assert json.loads(at.dataframe[0].proto.columns)["best gap %"]["type_config"]["format"] == "%.1f"


def test_the_csv_has_a_notes_column_only_when_some_row_has_a_note(missing_rl, monkeypatch):
    """As the CLI's optional columns (`compare --help`: written only when some row has one): the page wrote its
    `notes` column empty on every row when no result had a note."""
    import csv
    import io

    got = capture_downloads(monkeypatch)
    at = open_app("compare")
    at.session_state["keep:compare.time"] = 2  # optimal's time limit (s)
    at.radio(key="w:compare.scope").set_value("The topology in the sidebar").run()
    headers = {}
    for methods in (["critical-path"], ["critical-path", "optimal"]):
        at.multiselect(key="w:compare.methods").set_value(methods).run()
        assert not at.exception
        (name,) = [n for n in got if n != "compare-table2.csv"]
        headers[len(methods)], *body = list(csv.reader(io.StringIO(got.pop(name).decode())))
    assert "notes" not in headers[1] and headers[1][-1] == "paper workloads"
    assert headers[2][-2:] == ["paper workloads", "notes"] and body[0][-1].startswith("proven optimal"), body


MINE = b"""{"nodes": [{"id": "gpu0", "kind": "server"}, {"id": "gpu1", "kind": "server"}, {"id": "gpu2", "kind": "server"},
 {"id": "gpu3", "kind": "server"}, {"id": "gpu4", "kind": "server"}, {"id": "gpu5", "kind": "server"},
 {"id": "tor0", "kind": "switch"}, {"id": "tor1", "kind": "switch"}, {"id": "spine", "kind": "switch"}],
 "links": [["gpu0", "tor0"], ["gpu1", "tor0"], ["gpu2", "tor0"], ["gpu3", "tor1"], ["gpu4", "tor1"], ["gpu5", "tor1"],
  {"u": "tor0", "v": "spine", "capacity": 2, "bandwidth": "400Gbps"},
  {"u": "tor1", "v": "spine", "capacity": 2, "bandwidth": "400Gbps"}, ["gpu2", "gpu3", 1, "25Gbps", "500ns"]]}"""
"""The new user's own topology in trial 14."""


def test_an_upload_gets_the_seconds_table_at_the_pages_size_as_its_csv_and_no_checkpoint_warning(monkeypatch):
    """Trial 14: every upload warned "Some results are not what their name promises — ... checkpoint universal ...
    NOT on this one", though universal is the default on any topology (the CLI says calmly "trained on this
    topology: no"); and the page showed rounds only, while its CSV carried seconds at a fixed 100 MB. Now the
    universal checkpoint on an unseen topology is a caption, the page has a size and a seconds table, and the CSV's
    times are the table's, at that size."""
    pytest.importorskip("torch")
    import csv
    import io

    from apptest_tools import shown

    got = capture_downloads(monkeypatch)
    at = open_app("compare")
    at.radio(key="w:compare.scope").set_value("The topology in the sidebar").run()
    at.radio(key="w:source_mode").set_value("Upload").run()
    at.file_uploader(key="upload").set_value(("mine.json", MINE, "application/octet-stream")).run()
    at.multiselect(key="w:compare.methods").set_value(["critical-path", "rl"]).run()
    assert not at.exception
    assert not [w.value for w in at.warning if "not what their name promises" in w.value]
    assert ("Hierarchical RL ran checkpoint universal, trained across topologies, on mine.json, which it was not "
            "trained on: the default on a topology without its own checkpoint.") in [shown(c.value) for c in at.caption]
    at.text_input(key="w:compare.size").set_value("1MB").run()
    assert not at.exception
    seconds = at.dataframe[-1].value
    assert list(seconds["", "method"]) == ["critical-path", "rl"]
    (unit,) = [g for g, leaf in seconds.columns if leaf == "async"]
    assert unit == "time (µs)" and "Seconds for M = 1 MB" in [h.value for h in at.subheader]
    (page,) = csv.DictReader(io.StringIO(got["compare-mine.json.csv"].decode()))
    assert page["M bytes"] == "1000000"
    for m in ("critical-path", "rl"):  # the CSV's ms are the table's µs, at the same size
        shown = seconds[seconds["", "method"] == m].iloc[0]
        assert float(page[f"{m} async ms"]) * 1e3 == pytest.approx(float(shown["time (µs)", "async"]), abs=1e-3)
        assert float(page[f"{m} gap BW bound (%)"]) == pytest.approx(shown["gap to bound (%)", "BW"], abs=0.05)
    assert "NOT" not in page["notes"] and "not on this one (as meant" in page["notes"]


def test_seconds_table_at_1_byte_reads_as_the_cli_with_its_latency_note():
    """Trial 15: at 1 B the page's seconds table showed "gap BW bound %" 88428767.1 with nothing explaining it, cut
    "critical-path" to "critical-pat" at 1280 px, and lost fixed decimals (15.06 beside 14.254). Now its cells are the
    CLI's (core.compare.time_table: one number of decimals per column, thousands separators), the method column is
    as wide as its longest name, and the CLI's latency note (core.compare.latency_notes) is under the table."""
    import re

    from core.compare import latency_notes

    at = sidebar_seconds_at_1b(["ring", "critical-path"])
    table = at.dataframe[-1]
    frame = cells(table)
    assert list(frame["", "method"]) == ["ring", "critical-path"]
    for group, leaf in frame.columns[3:]:
        column_cells = list(frame[group, leaf])
        if group.startswith("time "):  # 3 decimals in one unit, as the CLI's compare table
            assert all(re.fullmatch(r"\d+\.\d{3}", c) for c in column_cells), (leaf, column_cells)
        elif group.startswith("bandwidth "):
            assert all(re.fullmatch(r"\d+\.\d{2}", c) for c in column_cells), (leaf, column_cells)
        else:
            # a percent, or from 10x its bound up the ratio (fix29a: "45,000,100.0" read as a huge percent)
            assert all(re.fullmatch(r"\d{1,3}(,\d{3})*\.\d|\d{1,3}(,\d{3})*x|\d\d\.\dx", c)
                       for c in column_cells), (leaf, column_cells)
    assert frame["gap to bound (%)", "BW"].iloc[0] == "450,000x"
    width = json.loads(table.proto.columns)["method"]["width"]
    assert width >= 16 + text_px("critical-path")
    rows = [r for r in compare(configurations(None, ["bcube:3,1"]), ["ring", "critical-path"], 1, ScheduleConfig(),
                               size=1)]
    (core_line,) = latency_notes(rows, ["ring", "critical-path"])
    shown = [c.value for c in at.caption if "latency-dominated" in c.value]
    assert shown == [core_line.replace(rows[0].name, "BCube(3,1)", 1)], shown
    assert "(the bandwidth bound leaves latency out, so the gap to it is large)" in shown[0]


def test_seconds_table_columns_are_numbers_shown_as_the_cli_prints_them():
    """Issue 12: the seconds table's columns were text, so sorting one sorted text ("10.000" before "9.000"). Its
    numeric columns are numbers now (what a column sorts by), each cell still showing the CLI's text: rounds 16
    beside greedy's mean 16.0 in one column, gaps with thousands separators."""
    from core.compare import time_table

    at = open_app("compare")
    at.radio(key="w:compare.scope").set_value("The topology in the sidebar").run()
    at.multiselect(key="w:compare.methods").set_value(["ring", "critical-path", "greedy"]).run()
    at.number_input(key="w:compare.seeds").set_value(2).run()
    at.text_input(key="w:compare.size").set_value("1B").run()
    assert not at.exception
    table = at.dataframe[-1]
    numbers, shown = table.value, cells(table)
    rows = compare(configurations(None, ["bcube:3,1"]), ["ring", "critical-path", "greedy"], 2, ScheduleConfig(),
                   size=1)
    header, body = time_table(rows, ["ring", "critical-path", "greedy"])
    assert [leaf for _, leaf in numbers.columns[:2]] == ["config", "method"] and len(numbers.columns) == len(header)
    for j, column in enumerate(numbers.columns[2:], start=2):
        assert numbers[column].dtype.kind == "f", (column, numbers[column].dtype)  # a number, sorted as one
        assert list(shown[column]) == [c[j].removesuffix("%") for c in body], column  # the CLI's number, unit above
        assert list(numbers[column]) == pytest.approx([percent_shown(c[j]) for c in body])
    assert list(shown["", "rounds"]) == ["16", "18", "18.0"]  # greedy: a mean over seeds, one decimal, as the CLI's
    bw = ("gap to bound (%)", "BW")
    assert shown[bw].iloc[0] == "450,000x" and numbers[bw].iloc[0] == 44999900.0  # the ratio, sorted as its percent
    config = json.loads(table.proto.columns)
    assert {config[leaf]["type_config"]["type"] for _, leaf in numbers.columns[2:]} == {"number"}


def test_seconds_table_headers_stay_readable_when_sorted_at_1280_px():
    """Issue 12 (a browser trial): a sorted column's header was cut at 1280 px, "↑ gap BW bou⋮": Streamlit puts "↑ "
    before the title and, while the header is hovered (as right after the click), its menu over the last 35 px; the
    CLI's nine headers ("gap own bound %") had no room for either. The unit is now said once above its columns, the
    names under it are short, every column is wide enough for its name sorted and hovered and for its widest cell,
    and the table still fits the page: on Table 2 at 1 B, the widest cells ("1,760,000x", "critical-path")."""
    methods = ["ring", "critical-path", "time-aware"]
    at = open_app("compare")
    at.multiselect(key="w:compare.methods").set_value(methods).run()
    at.text_input(key="w:compare.size").set_value("1B").run()
    assert not at.exception
    table = at.dataframe[-1]
    shown = cells(table)
    assert list(shown.columns) == [("", "config"), ("", "method"), ("", "rounds"), ("time (µs)", "sync"),
                                   ("time (µs)", "async"), ("bandwidth (KB/s)", "alg"), ("bandwidth (KB/s)", "bus"),
                                   ("gap to bound (%)", "BW"), ("gap to bound (%)", "own")]
    assert len(shown) == 9 * len(methods)
    config = json.loads(table.proto.columns)
    cli = {"sync": "sync µs", "async": "async µs", "alg": "algbw KB/s", "bus": "busbw KB/s", "BW": "gap BW bound",
           "own": "gap own bound"}
    widths = []
    for group, leaf in shown.columns:
        width = config[leaf]["width"]
        assert width >= text_px("↑ " + leaf) + GRID_PAD_PX + 35, leaf  # sorted and hovered: "↑ own ⋮"
        assert width >= max(text_px(c) for c in shown[group, leaf]) + 2 * GRID_PAD_PX, leaf
        assert config[leaf]["help"] and cli.get(leaf, leaf) in config[leaf]["help"] + leaf, leaf  # the CLI's name
        widths.append(width)
    assert sum(widths) <= PAGE_PX, widths  # no sideways scrolling at 1280 px
    assert "1,760,000x" in list(shown["gap to bound (%)", "BW"])  # the widest gap a cell shows here
    assert SORTED_HEADER_PX >= GRID_PAD_PX + text_px("↑ ") + 35


def test_seconds_table_cells_show_the_numbers_its_grid_exposes():
    """Issue 12 (a browser trial): the grid's accessible table, which exposes a number column's value, read 0.5 where
    the cell showed 0.5%. Streamlit cannot expose a number column's display text (its grid's accessibility string is
    the value), and a text column sorts as text: so each cell shows the number itself, as the CLI writes it (its
    decimals and thousands separators), the unit only in the header, and the table's accessible name says the units.
    A gap of 10x its bound or more shows the ratio (``450,000x``, fix29a) and exposes the percent that ratio is
    (44999900), the unit of its column, which it sorts by."""
    at = sidebar_seconds_at_1b(["ring", "critical-path"])
    table = at.dataframe[-1]
    numbers, shown = table.value, cells(table)
    for column in numbers.columns[2:]:
        for value, text in zip(numbers[column], shown[column]):
            assert percent_shown(text) == value, (column, text, value)  # no unit, the same number (a ratio: its %)
    assert shown["gap to bound (%)", "own"].iloc[0] == "0.0" and numbers["gap to bound (%)", "own"].iloc[0] == 0
    assert table.proto.alt == "Seconds for M = 1 B, units: time (µs), bandwidth (KB/s), gap to bound (%)"


def test_the_seconds_tables_numbers_come_from_core_beside_the_clis_text():
    """cli_cells took the CLI's text and parsed it back into numbers; it takes the numbers core.compare.time_cells gives
    beside the text, and shows each as the text: 16 and 16.0 (one number) in one column, thousands separated."""
    import pandas as pd

    from dashboard.screens.compare import cli_cells

    body = [["c", "ring", "16", "45,000,100.0"], ["c", "greedy", "16.0", "0.5"]]
    numbers = [["c", "ring", 16.0, 45000100.0], ["c", "greedy", 16.0, 0.5]]
    styled = cli_cells(["config", "method", "rounds", "BW"], body, numbers)
    assert styled.data.equals(pd.DataFrame(numbers, columns=["config", "method", "rounds", "BW"]))
    assert [styled.data[c].dtype.kind for c in ("rounds", "BW")] == ["f", "f"]
    html = styled.to_html()
    assert all(f">{t}</td>" in html for t in ("16", "16.0", "45,000,100.0", "0.5")), html


LONG_NAME = "datacenter_topology_with_a_rather_long_descriptive_name_v2_final.json"


def compare_upload(name: str):
    """The Compare page on an uploaded file named `name` (MINE's bytes), ring and critical-path picked."""
    at = open_app("compare")
    at.radio(key="w:compare.scope").set_value("The topology in the sidebar").run()
    at.radio(key="w:source_mode").set_value("Upload").run()
    at.file_uploader(key="upload").set_value((name, MINE, "application/octet-stream")).run()
    at.multiselect(key="w:compare.methods").set_value(["ring", "critical-path"]).run()
    return at


def test_a_long_uploaded_file_name_is_shortened_in_the_seconds_table_and_said_whole_under_it():
    """A long uploaded file name made the seconds table's config column so wide that the table, 820 px of columns
    at most at 1280 px, scrolled sideways by a few px. The name is shortened around an ellipsis in the table (its
    extension kept) and said whole in a caption under it; a short name stays whole."""
    from dashboard.screens.compare import short_names

    name = LONG_NAME
    at = compare_upload(name)
    at.text_input(key="w:compare.size").set_value("1B").run()
    assert not at.exception and not at.error
    table = at.dataframe[-1]
    shown = cells(table)
    config = json.loads(table.proto.columns)
    assert sum(config[leaf]["width"] for _, leaf in shown.columns) <= PAGE_PX  # no sideways scrolling at 1280 px
    (short,) = set(shown["", "config"])
    assert short != name and "…" in short and short.endswith(".json") and name.startswith(short.split("…")[0])
    assert config["config"]["width"] >= text_px(short) + 2 * GRID_PAD_PX
    captions = [c.value for c in at.caption]
    assert any(name.replace("_", "\\_") in c and short.replace("_", "\\_") in c for c in captions), captions
    assert short_names(["BCube(3,1)"], 100) == {"BCube(3,1)": "BCube(3,1)"}


def test_the_default_methods_add_time_aware_where_link_bandwidths_differ_as_the_clis_do(missing_rl):
    """The CLI's compare adds time-aware to its defaults, with a note, where link bandwidths differ
    (`core.compare.uneven_links`, `default_methods(uneven=True)`); the page kept its own list. It now follows the same
    rule, says so in one caption, and gives time-aware back where the links share one speed; a list the user picked
    is theirs and stays."""
    from apptest_tools import shown

    from core.compare import default_methods, uneven_links

    def picked() -> list[str]:
        return at.multiselect(key="w:compare.methods").value

    def note() -> list[str]:
        return [shown(c.value) for c in at.caption if "joins the default methods" in c.value]

    even = ["ps", "ring", "greedy", "critical-path"]  # rl missing here
    added = [m for m in default_methods(True) if m not in default_methods()]
    assert added == ["time-aware"]
    at = open_app("compare")
    assert picked() == even and not note()  # Table 2: one speed, as the CLI's --preset table2
    at.radio(key="w:compare.scope").set_value("The topology in the sidebar").run()
    assert picked() == even and not note()
    at.radio(key="w:source_mode").set_value("Spec").run()
    at.text_input(key="w:spec").set_value("bcube:3,1,bw=100/25").run()  # a spec's bw= with several values
    assert not at.exception and picked() == even + added
    assert note() == [f"Time-aware (HEFT) joins the default methods: link bandwidths differ "
                      f"({uneven_links('bcube:n=3,k=1,bw=100/25')}), and it plans by each link's speed, which rounds "
                      "alone do not see (as the CLI's compare adds it); pick the methods in the sidebar."]
    assert "time-aware" in at.dataframe[0].value.columns
    at.radio(key="w:source_mode").set_value("Family").run()  # BCube(3,1) at one speed: time-aware goes again
    assert picked() == even and not note()
    at.text_input(key="w:link_options").set_value("bw=100/25").run()  # the sidebar's Link speeds
    assert picked() == even + added and "bcube:n=3,k=1,bw=100/25 has links at 25 and 100 Gbit/s" in note()[0]
    at.radio(key="w:source_mode").set_value("Upload").run()
    at.file_uploader(key="upload").set_value(("mine.json", MINE, "application/octet-stream")).run()
    assert picked() == even + added  # an upload with links at 25, 100 and 400 Gbit/s
    assert "(mine.json has links at 25, 100 and 400 Gbit/s)" in note()[0]
    at.multiselect(key="w:compare.methods").set_value(["ring", "critical-path"]).run()  # the user's own list
    assert not note()
    at.radio(key="w:source_mode").set_value("Table 2 preset").run()
    assert picked() == ["ring", "critical-path"] and not note()


def test_a_long_uploaded_file_name_is_shortened_in_the_rounds_table_and_the_bar_chart_as_in_the_seconds_table():
    """The seconds table shortened a long uploaded file name (`tables.shortened`), but the rounds table and the bar
    chart's x axis still showed it whole: the same short name there, said whole in a caption under each (and on a
    bar's hover); the CSV keeps the whole name."""
    from apptest_tools import shown

    name = LONG_NAME
    at = compare_upload(name)
    assert not at.exception and not at.error
    (short,) = set(cells(at.dataframe[-1])["", "config"])  # the seconds table's, as before
    assert short != name and "…" in short
    assert list(at.dataframe[0].value["configuration"]) == [short]  # the rounds table
    fig = charts(at)[0]  # rounds per configuration
    assert fig["layout"]["xaxis"]["ticktext"] == [short]
    assert all(list(bar["customdata"]) == [name] for bar in traces(fig, "bar"))  # the hover names it whole
    captions = [shown(c.value) for c in at.caption]
    for where in ("in the tables to fit the page", "in the table to fit the page",
                  "on the x axis as in the tables; a bar's hover says it whole"):
        assert any(c.endswith(f"{short}: {name} (shortened {where}).") for c in captions), (where, captions)
    at = open_app("compare")  # Table 2's names are whole everywhere: no such caption
    at.multiselect(key="w:compare.methods").set_value(["critical-path"]).run()
    assert not any("(shortened " in c.value for c in at.caption)
    assert charts(at)[0]["layout"]["xaxis"]["ticktext"] == [p.name for p in preset("table2")]


def test_routing_is_the_players_option_and_balanced_re_schedules_the_fat_tree(monkeypatch):
    """Trial 21: Compare had no routing either. The Routing option (one value with the player's) sets every method's
    routing; on a fat-tree under the default one line says the trees share a core switch; the CSV's name says a
    routing other than the default."""
    from core.methods import run_method
    from core.topology import make_topology

    got = capture_downloads(monkeypatch)
    at = open_app("compare")
    at.radio(key="w:compare.scope").set_value("The topology in the sidebar").run()
    at.radio(key="w:source_mode").set_value("Spec").run()
    at.text_input(key="w:spec").set_value("fattree:k=4").run()
    at.multiselect(key="w:compare.methods").set_value(["critical-path"]).run()
    assert not at.exception and at.selectbox(key="w:routing").value == "shortest"
    assert "every tree's routes between pods cross the same core switch c0 (1 of 4;" in at.info[0].value
    t = make_topology("fattree:k=4")
    rounds = {m: run_method("critical-path", t, ScheduleConfig(routing=m)).n_rounds for m in ("shortest", "balanced")}
    assert at.dataframe[0].value["critical-path"].iloc[0] == rounds["shortest"] and "compare-fattree_k4.csv" in got
    at.selectbox(key="w:routing").set_value("balanced").run()
    assert not at.exception and not at.info
    assert at.dataframe[0].value["critical-path"].iloc[0] == rounds["balanced"] < rounds["shortest"]
    assert "compare-fattree_k4-balanced.csv" in got
    goto(at, "player")  # one choice for both pages
    assert at.selectbox(key="w:routing").value == "balanced"


def test_compare_on_follows_the_source_until_the_user_picks_it():
    """Trial 27: after an upload, Compare still ran the paper's nine configurations; the user's file was compared
    only once they found the "Compare on" radio. Until the user picks a scope it follows the sidebar's source (Table 2
    for a Table 2 preset, the sidebar's topology otherwise); once picked, it stays."""
    at = open_app("compare")
    at.multiselect(key="w:compare.methods").set_value(FAST).run()
    assert at.radio(key="w:compare.scope").value == "Table 2 (nine configurations)"
    at.radio(key="w:source_mode").set_value("Upload").run()
    at.file_uploader(key="upload").set_value(("mine.json", MINE, "application/octet-stream")).run()
    assert not at.exception
    assert at.radio(key="w:compare.scope").value == "The topology in the sidebar"
    assert list(at.dataframe[0].value["configuration"]) == ["mine.json"]
    at.radio(key="w:source_mode").set_value("Table 2 preset").run()
    assert at.radio(key="w:compare.scope").value == "Table 2 (nine configurations)"
    at.radio(key="w:compare.scope").set_value("The topology in the sidebar").run()  # the user's pick
    at.radio(key="w:source_mode").set_value("Family").run()
    at.radio(key="w:source_mode").set_value("Table 2 preset").run()
    assert at.radio(key="w:compare.scope").value == "The topology in the sidebar"


def test_a_bad_message_size_is_said_on_the_page_not_only_in_the_sidebar(at):
    """Trial 27: "-5MB" got its error under the sidebar's input, below the fold, while the page read "Seconds for M =
    100 MB". The page says it too, above the tables."""
    at.text_input(key="w:compare.size").set_value("-5MB").run()
    assert not at.exception
    assert [e.value for e in at.sidebar.error] and "Using 100MB" in at.sidebar.error[0].value
    (warning,) = [w.value for w in at.main.warning if "Message size" in w.value]
    assert warning == ("Message size must be at least 1 byte (a size cannot be negative), got '-5MB'; the times below "
                       "are for 100 MB.")  # the input quoted once, the size as the page's heading writes it (trial 28)


def test_a_ring_under_the_merged_bound_is_said_on_the_page():
    """Trial 28: ring 14 beside "lower bound 18" on the two-ToR file read as a bound broken; the page says whose bound
    it is, as the CLI does (`core.compare.under_bound_notes`)."""
    from pathlib import Path

    from apptest_tools import shown
    data = (Path(__file__).resolve().parents[2] / "docs" / "examples" / "two-tor.json").read_bytes()
    at = open_app("compare")
    at.radio(key="w:source_mode").set_value("Upload").run()
    at.file_uploader(key="upload").set_value(("two-tor.json", data, "application/octet-stream")).run()
    at.multiselect(key="w:compare.methods").set_value(["ring", "critical-path"]).run()
    assert not at.exception
    assert ("two-tor.json: Ring AllReduce took 14 rounds, under the lower bound 18: that bound is the merged tree DAG's, "
            "and Ring AllReduce schedules a ring (its own DAG's bound: 14).") in [shown(c.value) for c in at.caption]
