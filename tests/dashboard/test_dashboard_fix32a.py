"""fix32a: dashboard leftovers (the player's seconds-axis cards, first screen, links note, run tags, TopDRL note)."""

from __future__ import annotations

from apptest_tools import open_app, texts

from core.methods import METHODS


def test_every_methods_end_line_fits_a_third_of_1280_px_and_keeps_its_unit():
    """The line over each heatmap on the seconds axis read "Hierarchical RL: sending, ends at 24.1 / µs", its unit
    wrapped to the next line at 1280 px. Every registered method's line, at its longest number (0.996 beside 1.12 in the
    shared unit), is within the characters a third of the page held on one line in Chromium, its unit joined to it."""
    from dashboard.round_player import END_HEADLINE_CHARS, end_headline

    for method in METHODS.values():
        for finished in (False, True):
            line = end_headline(method.title, "0.996 µs", finished)
            assert len(line.replace("**", "")) <= END_HEADLINE_CHARS, line
            assert line.endswith(" at 0.996\u00a0µs") and line.startswith(f"**{method.title}**: ")
    assert "ends at" in end_headline("Ring AllReduce", "1 ms", False)
    assert "ended at" in end_headline("Ring AllReduce", "1 ms", True)


def test_the_seconds_axis_says_its_cards_share_one_unit_per_page():
    """The busbw cards share one rate unit for the page (`labels.shared_rate_unit`) where the CLI's schedule picks its
    own for its one method: the page says so under the cards, with the units it used."""
    at = open_app()
    at.multiselect(key="w:player.methods").set_value(["ps", "ring"]).run()
    at.segmented_control(key="w:player.axis").set_value("seconds").run()
    at.text_input(key="w:player.size").set_value("1KB").run()
    assert not at.exception and not at.error
    captions = [c.value for c in at.caption]
    assert "One unit for the page: every card's times in µs, busbw in MB/s (the CLI's schedule picks them for its " \
           "one method)." in captions
    at.segmented_control(key="w:player.axis").set_value("rounds").run()
    assert not any(c.value.startswith("One unit for the page") for c in at.caption)  # no rate card on the rounds axis
