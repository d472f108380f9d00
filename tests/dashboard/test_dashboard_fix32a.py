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


def test_each_network_is_beside_its_heatmap_so_the_first_heatmap_starts_at_the_figures_top():
    """At 1280x800 the player's first heatmap started ~350 px below its figure's top, under a row of network panels,
    below the fold with the step controls at the window's top. Each method's network is now left of its heatmap, in
    its row: the first heatmap starts at the top, and where a heatmap beside a network would give its columns less
    than `figures.MIN_COLUMN_PX` (150 columns in 820 px), the networks go back above."""
    from test_dashboard_figures import player_parts

    from dashboard import figures

    t, d, pbs, edges, heats = player_parts("bcube:n=3,k=1", ("ps", "ring", "critical-path"))
    lay = figures.player_base(d, heats, edges, width_px=820)["layout"]
    assert lay["meta"]["beside"]
    assert lay["yaxis4"]["domain"][1] == 1.0  # the first heatmap: at the top of the plot, under the legend
    for i in (1, 2, 3):
        net, heat = lay["yaxis" + ("" if i == 1 else str(i))], lay[f"yaxis{3 + i}"]
        assert net["domain"] == heat["domain"]  # one row each: the network beside its heatmap
        assert lay["xaxis" + ("" if i == 1 else str(i))]["domain"][1] < lay[f"xaxis{3 + i}"]["domain"][0]
    plot = 820 - lay["margin"]["l"] - lay["margin"]["r"]
    heat_px = (1 - lay["xaxis4"]["domain"][0]) * plot
    assert heat_px >= figures.MIN_COLUMN_PX * (len(edges) - 1)
    stacked = figures.player_base(d, heats, figures.round_edges(150), width_px=820)["layout"]
    assert not stacked["meta"]["beside"] and stacked["yaxis4"]["domain"][1] < stacked["yaxis"]["domain"][0]


def test_the_caption_under_the_player_says_where_the_networks_are():
    """The caption under the figure read "Top: ... Below: ..." with the networks beside the heatmaps."""
    from dashboard.round_player import View, _legend_text

    view = View(network=True, by_group=False, by_tree=False, edges=(0.5, 1.5), legend=())
    assert _legend_text(view, beside=True).startswith("Left: each directed link busy") and \
        ". Right: utilization of every directed link" in _legend_text(view, beside=True)
    assert _legend_text(view).startswith("Top: ") and ". Below: " in _legend_text(view)


def test_a_specs_link_options_replacing_an_examples_own_speeds_are_said_under_the_picker(monkeypatch):
    """`link_option_note` (core) says when a spec's bw=/lat= replaced the speeds a file or example gives its links; the
    CLI prints it, no page did. The sidebar's picker, every page's, shows it under the topology shown. The dashboard
    takes no file: spec (an upload, which takes no link options, instead) and the shipped example has default speeds,
    so an example with its own speeds (the two-ToR file's, 10-100 Gbit/s) stands in for one here."""
    from pathlib import Path

    import core.topology as topology
    from core.topology import link_option_note, load_topology_file, make_topology

    two_tor = load_topology_file(str(Path(__file__).resolve().parents[2] / "docs" / "examples" / "two-tor.json"))
    monkeypatch.setattr(topology, "example", lambda name: two_tor)
    spec = "example:fig3,bw=400"
    note = link_option_note(make_topology(spec))
    assert note == "bw=400 replaces the example's own bandwidths (10-100 Gbit/s)"
    at = open_app()
    at.sidebar.radio(key="w:source_mode").set_value("Spec").run()
    at.sidebar.text_input(key="w:spec").set_value(spec).run()
    assert not at.exception and not at.error
    said = [c.value for c in at.sidebar.caption]
    assert f"Links: {note}." in said
    at.sidebar.text_input(key="w:spec").set_value("example:fig3").run()
    assert not any(c.value.startswith("Links: ") for c in at.sidebar.caption)


def test_run_tags_name_links_as_typed_cut_after_a_few_and_never_alike():
    """`run_tag` named failed/slowed links by id (``fail3``) where every other place names them as the user types
    them (core's `link_name`, ``s10-sw0.1``). File-name safe names; past `TAG_LINKS` links their count and a digest,
    so that two different runs still never share a name; ids where a topology's labels, kept to file-name characters,
    would name two links alike."""
    import re

    from core.replan import LinkEvent
    from core.schedule import ScheduleConfig
    from core.topology import from_dict, make_topology
    from core.topology.degrade import link_name
    from dashboard.round_player import TAG_LINKS, link_tag, run_tag
    from dashboard.sources import Timeline

    t = make_topology("bcube:n=3,k=1")
    config = ScheduleConfig(size=1)

    def tag(**event):
        return run_tag(config, Timeline(event=LinkEvent(**event)), t)

    assert [link_tag(t, e) for e in range(t.n_edges)] == [link_name(t, e) for e in range(t.n_edges)]
    assert tag(failed=(3,), at_round=2) == "-1B-async-fail-s10-sw0.1-after2"
    assert tag(failed=(3, 4), at_round=2) == "-1B-async-fail-s10-sw0.1_s11-sw0.1-after2"
    many = {tag(failed=links, at_round=2) for links in [(0, 1, 2, 3), (0, 1, 2, 4), (0, 1, 3, 4), (0, 1, 2)]}
    assert len(many) == 4  # the same first two links, told apart
    assert all(re.fullmatch(r"-1B-async-fail-s00-sw0\.0_s01-sw0\.0_[12]more\.[0-9a-f]{8}-after2", x) for x in many)
    slow = {tag(slowed=((0, 50.0), (1, 50.0), (2, f)), at_round=2) for f in (25.0, 10.0)}
    assert len(slow) == 2  # a third link's factor, past the names, is in the digest
    assert TAG_LINKS == 2
    # labels that differ only in characters a file name leaves out ("a b" and "ab"): every link by its id instead
    odd = from_dict({"nodes": [{"id": "a b", "kind": "server"}, {"id": "ab", "kind": "server"},
                               {"id": "sw", "kind": "switch"}], "links": [["a b", "sw"], ["ab", "sw"]]}, "file:odd.json")
    assert [link_tag(odd, e) for e in range(odd.n_edges)] == ["link0", "link1"]
    assert run_tag(config, Timeline(event=LinkEvent(failed=(1,), at_round=1)), odd) == "-1B-async-fail-link1-after1"
