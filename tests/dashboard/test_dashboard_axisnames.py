"""The one rule every category axis names its categories by (`dashboard.axisnames`), and the axes that use it."""

from __future__ import annotations

import numpy as np
import pytest

from dashboard import figures
from dashboard.axisnames import LINE, MIN_ROW_FONT, ROW_FONT, Naming, named_axis, naming, ordinal, unnamed_note


@pytest.mark.parametrize("n, px", [(20, 254), (20, 361), (36, 468), (64, 468), (126, 468), (60, 245), (1, 10)])
def test_every_name_fits_its_room_at_the_largest_font_or_every_kth_at_the_fewest_k(n, px):
    how = naming(n, px)
    pitch = px / n
    assert MIN_ROW_FONT <= how.font <= ROW_FONT and LINE * how.font <= how.stride * pitch  # plotly keeps each name
    if how.stride == 1:
        assert how.font == ROW_FONT or LINE * (how.font + 1) > pitch  # no larger font would fit
    else:
        assert how.font == MIN_ROW_FONT and LINE * MIN_ROW_FONT > (how.stride - 1) * pitch  # no smaller k would


def test_paired_rows_are_named_from_each_links_first_direction_both_ways():
    """Rows 2e, 2e+1 are link e's two directions: k is made even, so every named row is a first direction, and its
    name says both (with every 2nd row named, only one direction of each link was, trial 13)."""
    names = [f"{a}->{b}" for e in range(32) for a, b in ((f"s{e}", f"w{e}"), (f"w{e}", f"s{e}"))]
    pairs = [f"s{e}<->w{e}" for e in range(32)]
    for px in (468, 300, 150):
        plain, paired = naming(64, px), naming(64, px, paired=True)
        assert paired.stride == plain.stride + plain.stride % 2 and paired.both_ways
        ax = named_axis(names, paired, pairs)
        assert ax["tickvals"] == names[::paired.stride] and all(v.startswith("s") for v in ax["tickvals"])
        assert ax["ticktext"] == pairs[::paired.stride // 2]
    assert naming(8, 468, paired=True) == Naming(1, ROW_FONT)  # all fit: each row its own name


def test_the_caption_words():
    assert unnamed_note(Naming(1, 11), "flow-tree", "under the bars") == ""
    assert unnamed_note(Naming(3, 9), "flow-tree", "under the bars") == ("every 3rd flow-tree is named under the bars; "
                                                                         "hover for the rest")
    assert unnamed_note(Naming(3, 9), "tree", "here", hover=False) == "every 3rd tree is named here"
    assert unnamed_note(Naming(2, 9, True), "directed link", "on the left", "s00<->sw0.0") == (
        "every 2nd directed link is named on the left, with its link's other direction, the row below it "
        "(s00<->sw0.0 names s00->sw0.0 and, below it, sw0.0->s00); hover for the rest")
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 112)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "112th"]


def test_the_players_link_group_bars_set_their_names():
    """The group bars' axis named its groups by plotly's own ticks; it now names them by the rule, explicitly."""
    groups = [f"group {i}" for i in range(12)]
    heats = [figures.HeatRows("ps", np.zeros((12, 5), dtype=np.uint8), groups)]
    base = figures.player_base(None, heats, figures.round_edges(5), (), groups)
    ax = base["layout"]["yaxis"]
    assert ax["tickmode"] == "array" and list(ax["tickvals"]) == groups and ax["showticklabels"]
    assert base["layout"]["meta"]["group_stride"] == 1
