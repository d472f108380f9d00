"""Wide tables made to fit 1280 px: columns split by estimated width, a table on its side."""

from __future__ import annotations

import math

import pytest

from dashboard import tables


def test_columns_are_split_in_order_each_group_led_by_the_key_and_within_the_width():
    rows = [{"tree": f"s{i}", **{f"value: feature_{k}": 0.1234 * k for k in range(12)}} for i in range(9)]
    groups = tables.split_columns(rows, ["tree"], fit_px=400)
    assert len(groups) > 1 and all(g[0] == "tree" for g in groups)
    assert [c for g in groups for c in g[1:]] == list(rows[0])[1:]  # every column once, in order
    for g in groups:
        assert sum(tables.column_px(c, [r[c] for r in rows]) for c in g) <= 400
    assert tables.split_columns(rows, ["tree"], fit_px=10_000) == [list(rows[0])]  # fits: one table


def test_a_column_is_as_wide_as_its_header_or_its_widest_cell():
    assert tables.column_px("sent_last_round", [0.5]) > tables.column_px("tail", [0.5])
    assert tables.column_px("x", ["#129 reduce s01->s02 (tree s22)"]) > tables.column_px("x", [1.0])


def test_a_table_on_its_side_has_a_row_per_column_and_a_column_per_row():
    rows = [{"workload": 3, "value: a": 1.0, "value: b": 2.0}, {"workload": 5, "value: a": 3.0, "value: b": 4.0}]
    assert tables.transpose(rows, ["#3", "#5"], ["value: a", "value: b"], "feature") == [
        {"feature": "value: a", "#3": 1.0, "#5": 3.0}, {"feature": "value: b", "#3": 2.0, "#5": 4.0}]


def test_text_widths_are_the_grids_as_measured_in_chromium_never_less():
    """Words measured with the canvas in chromium at 1280 px, the grid's font (Source Sans 14 px), against the
    estimate: never narrower (a column set from it fits), at most 5% wider."""
    measured = {"critical-path": 70.88, "45,000,100.0": 73.08, "Jellyfish(15)": 70.74, "method": 46.12,
                "gap BW bound %": 99.15, "↑ ": 11.47, "async": 33.50, "µs": 7.87 + 5.87}
    for word, px in measured.items():
        assert px - 0.01 <= tables.text_px(word) <= 1.05 * px + 0.5, (word, tables.text_px(word), px)
    assert tables.text_px("☃") == tables.GLYPH_DEFAULT_PX  # a character not measured counts as the widest


def test_a_sortable_column_has_room_for_its_sorted_header_or_its_widest_cell():
    """Issue 12: "↑ gap BW bou⋮" — a sorted, hovered header needs its title plus the sort mark and the menu's 35 px."""
    assert tables.sortable_px("BW", ["0.5"]) >= 8 + tables.text_px("↑ BW") + 35
    assert tables.sortable_px("BW", ["45,000,100.0"]) >= 16 + tables.text_px("45,000,100.0")
    assert tables.sortable_px("gap own bound %", []) > 150  # the CLI's header would need 161 px of a ~117 px column


def test_one_width_estimate_serves_the_debuggers_split_and_compares_columns():
    """dashboard/tables.py had two estimates: 6.5 px for any character (the debugger's split) and each character's
    width in the grid's font (Compare's column widths). One serves both: a column of wide letters is wider than one of
    narrow letters, and a sortable column's width is the same estimate with room for the sorted header."""
    assert tables.column_px("WWWW", []) > tables.column_px("iiii", []) + 25  # 46.4 px against 14.8 px of text
    assert tables.column_px("x", ["mmmm"]) == tables.text_px("mmmm") + 2 * tables.GRID_PAD_PX
    assert tables.column_px("x", [0.5]) == tables.text_px("0.5000") + 2 * tables.GRID_PAD_PX  # as the table shows it
    for header, cells in (("BW", ["0.5"]), ("gap own bound %", ["12"]), ("x", ["45,000,100.0"])):
        assert tables.sortable_px(header, cells) == math.ceil(tables.column_px(header, cells, sortable=True))
    assert tables.column_px("gap own bound %", [], sortable=True) - tables.column_px("gap own bound %", []) == (
        pytest.approx(tables.SORTED_HEADER_PX - 2 * tables.GRID_PAD_PX))
    # the debugger's flow-tree table, as its columns are headed: 13 columns drew ~1270 px in chromium (unsplit, each
    # feature headed "value: NAME"); the estimate is never less and at most 3% more
    heads = ["tree", "ready", "selected", "probability"] + ["value: " + f for f in (
        "remaining", "ready", "tail", "pressure", "slack", "last_selected", "shared_links", "round_progress",
        "sent_last_round")]
    cells = ["s00", True, True, 0.9529, 1.0, 0.75, 0.3636, 1.0, 0.4167, 1.0, 1.0, 0.0833, 0.0]
    assert 1270 <= sum(tables.column_px(h, [c]) for h, c in zip(heads, cells)) <= 1.03 * 1270


def test_a_long_text_is_shortened_around_an_ellipsis_to_its_width():
    name = "datacenter_topology_with_a_rather_long_descriptive_name_v2_final.json"
    short = tables.shortened(name, 150)
    assert tables.text_px(short) <= 150 < tables.text_px(tables.shortened(name, 200)) + 20
    head, tail = short.split(tables.ELLIPSIS)
    assert name.startswith(head) and name.endswith(tail) and tail.endswith(".json") and len(head) - len(tail) in (0, 1)
    assert tables.shortened("mine.json", 150) == "mine.json"  # fits: whole
    assert tables.shortened(name, 1) == tables.ELLIPSIS


def test_a_long_name_is_cut_at_its_separators_where_that_fills_most_of_the_room():
    """A cut at characters alone cut words (``datacente…inal.json`` at 124 px): the cut is at separators (``_``,
    ``-``, ``.``, space) where that fills at least `SEPARATOR_KEEP` of the room, else at characters."""
    name = "datacenter_topology_with_a_rather_long_descriptive_name_v2_final.json"
    assert tables.shortened(name, 124) == "datacenter_….json"
    assert tables.shortened(name, 150) == "datacenter_…_final.json"
    for px in range(60, 400, 7):
        short = tables.shortened(name, px)
        head, tail = short.split(tables.ELLIPSIS)
        assert tables.text_px(short) <= px and name.startswith(head) and name.endswith(tail)
        at_separators = head[-1:] in tables.SEPARATORS and tail[:1] in tables.SEPARATORS
        assert at_separators or tables.text_px(short) > tables.SEPARATOR_KEEP * px  # fills most of the room
    assert tables.shortened(name, 90) == "datace…l.json"  # "datacenter_" alone is too wide: characters
    plain = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnop.json"  # one separator: its extension's
    assert tables.shortened(plain, 124) == "abcdefghi…nop.json"
