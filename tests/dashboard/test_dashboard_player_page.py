"""The Schedule player driven through its widgets; every number checked against core."""

from __future__ import annotations

import numpy as np
import pytest
from apptest_tools import goto, charts, metric, open_app, texts, traces, shown

from core.methods import run_method
from core.schedule import ScheduleConfig
from core.topology import make_topology
from dashboard.controls import method_title
from dashboard.axisnames import ordinal
from dashboard import figures

BCUBE = "bcube:n=3,k=1"


def schedules(spec: str, methods: list[str]) -> dict:
    t = make_topology(spec)
    return {m: run_method(m, t, ScheduleConfig()) for m in methods}


def choose_methods(at, methods: list[str]):
    at.multiselect(key="w:player.methods").set_value(methods).run()
    return at


def test_opens_on_bcube31_with_ps_ring_and_rl_or_critical_path():
    at = open_app()
    chosen = at.multiselect(key="w:player.methods").value
    assert chosen[:2] == ["ps", "ring"] and chosen[2] in ("rl", "critical-path")
    got = schedules(BCUBE, chosen)
    assert metric(at, "Rounds") == [str(got[m].n_rounds) for m in chosen]
    assert metric(at, "Gap") == [f"{100 * got[m].stats()['gap']:.0f}%" for m in chosen]
    for m in chosen:  # each gap says what it is measured against
        assert f"vs bound {got[m].stats()['lower_bound']}" in texts(at)
    assert f"Lower bound of the merged workload DAG: **12 rounds**" in texts(at)
    assert metric(at, "Util.") == [f"{100 * got[m].stats()['mean_utilization']:.0f}%" for m in chosen]
    last = max(s.n_rounds for s in got.values())
    assert f"**Round 1 of {last}**" in texts(at)


def test_heatmaps_have_a_row_per_directed_link_and_a_column_per_round():
    at = choose_methods(open_app(), ["ps", "ring", "critical-path"])
    got = schedules(BCUBE, ["ps", "ring", "critical-path"])
    (fig,) = charts(at)
    heat = traces(fig, "heatmap")
    n_links = make_topology(BCUBE).n_links
    assert [h["z"].shape for h in heat] == [(n_links, got[m].n_rounds) for m in got]
    for h, s in zip(heat, got.values()):  # the numbers are core's utilization, in percent
        assert np.array_equal(h["z"], np.rint(s.utilization() * 100).astype(np.uint8))
    assert fig["layout"]["coloraxis"]["cmin"] == figures.UTIL_CMIN and fig["layout"]["coloraxis"]["cmax"] == 100
    assert all(h["coloraxis"] == "coloraxis" for h in heat)  # one colour scale for all methods
    assert [s["x0"] for s in fig["layout"]["shapes"]] == [0.5, 0.5, 0.5]


def test_stepping_moves_the_counter_the_markers_and_the_busy_links():
    methods = ["ps", "ring", "critical-path"]
    at = choose_methods(open_app(), methods)
    got = schedules(BCUBE, methods)
    last = max(s.n_rounds for s in got.values())
    at.button(key="player:next").click().run()
    at.button(key="player:next").click().run()
    assert f"**Round 3 of {last}**" in texts(at)
    (fig,) = charts(at)
    assert [s["x0"] for s in fig["layout"]["shapes"]] == [2.5, 2.5, 2.5]
    chevrons = traces(fig, name="busy links")
    for tr, s in zip(chevrons, got.values()):
        links = np.unique(s.dag.links.gather(s.rounds[2])[1])
        per_link = 1 if len(links) > 60 else 3
        assert len(tr["x"]) == per_link * len(links)
    for m, s in got.items():
        sent = len(s.rounds[2])
        busy = len(np.unique(s.dag.links.gather(s.rounds[2])[1]))
        assert f"{sent} workloads sent · {busy} of 36 directed links busy" in texts(at)
    at.button(key="player:back").click().run()
    assert f"**Round 2 of {last}**" in texts(at)
    at.slider(key="player:round").set_value(last).run()
    assert f"**Round {last} of {last}**" in texts(at)
    shortest = min(got, key=lambda m: got[m].n_rounds)
    assert f"**{method_title(shortest)}**: finished after {got[shortest].n_rounds} rounds" in texts(at)
    (fig,) = charts(at)  # one round axis: every heatmap marks the last round, finished or not
    assert [s["x0"] for s in fig["layout"]["shapes"]] == [last - 0.5] * 3
    at.button(key="player:first").click().run()
    assert f"**Round 1 of {last}**" in texts(at)
    # no tooltips: after a click on Next, its tooltip stayed over the speed control above it (trial 11)
    assert not any(at.button(key=f"player:{b}").help for b in ("first", "back", "play", "next"))


def test_play_advances_a_round_per_run_and_pause_stops():
    at = choose_methods(open_app(), ["ps", "critical-path"])
    at.button(key="player:play").click().run()
    assert at.button(key="player:play").label == "Pause"
    first = [t for t in texts(at).splitlines() if t.startswith("**Round ")][0]
    at.run()
    second = [t for t in texts(at).splitlines() if t.startswith("**Round ")][0]
    assert int(second.split()[1]) == int(first.split()[1]) + 1
    at.button(key="player:play").click().run()
    assert at.button(key="player:play").label == "Play"


def test_a_preset_change_redraws_for_the_new_topology():
    at = choose_methods(open_app(), ["ps", "critical-path"])
    at.selectbox(key="w:preset").set_value("DCell(4,1)").run()
    got = schedules("dcell:n=4,k=1", ["ps", "critical-path"])
    (fig,) = charts(at)
    assert [h["z"].shape for h in traces(fig, "heatmap")] == [(60, got[m].n_rounds) for m in got]
    assert metric(at, "Rounds") == [str(s.n_rounds) for s in got.values()]


def test_another_topology_starts_at_round_1():
    """BCube(4,1) at round 4, then DCell(4,1): it showed 'Round 7 of 68' after three Nexts (trial 11); a new
    topology starts at round 1, and the same topology keeps its round over a rerun."""
    at = choose_methods(open_app(), ["ps", "critical-path"])
    for _ in range(3):
        at.button(key="player:next").click().run()
    at.run()
    assert any(t.startswith("**Round 4 of ") for t in texts(at).splitlines())
    at.selectbox(key="w:preset").set_value("DCell(4,1)").run()
    last = max(s.n_rounds for s in schedules("dcell:n=4,k=1", ["ps", "critical-path"]).values())
    assert f"**Round 1 of {last}**" in texts(at)


def test_invalid_parameters_show_an_error_and_keep_the_last_good_topology():
    at = choose_methods(open_app(), ["ps", "critical-path"])
    at.radio(key="w:source_mode").set_value("Family").run()
    at.number_input(key="w:bcube.n").set_value(1).run()
    assert len(at.error) == 1 and "n >= 2" in shown(at.error[0].value) and "BCube(3,1)" in shown(at.error[0].value)
    (fig,) = charts(at)
    assert [h["z"].shape[0] for h in traces(fig, "heatmap")] == [36, 36]  # still BCube(3,1)
    at.number_input(key="w:bcube.n").set_value(4).run()  # a good value replaces it
    assert not at.error
    assert [h["z"].shape[0] for h in traces(charts(at)[0], "heatmap")] == [2 * make_topology("bcube:n=4,k=1").n_edges] * 2


def test_a_topology_too_big_for_the_browser_is_refused_with_a_warning():
    at = choose_methods(open_app(), ["critical-path"])
    at.radio(key="w:source_mode").set_value("Family").run()
    at.number_input(key="w:bcube.k").set_value(5).run()  # 729 servers + 1458 switches
    (warning,) = [shown(w.value) for w in at.warning if "loads at most 600" in shown(w.value)]
    assert "has more than 600 nodes" in warning  # the predicted count stops at 601: never print it
    assert [h["z"].shape[0] for h in traces(charts(at)[0], "heatmap")] == [36]


def test_a_topology_too_big_to_animate_is_drawn_but_not_played():
    at = choose_methods(open_app(), ["critical-path"])
    at.radio(key="w:source_mode").set_value("Family").run()
    at.number_input(key="w:bcube.n").set_value(9).run()  # 81 servers
    assert any("schedules at most 64" in w.value for w in at.warning)
    assert not charts(at) and not at.info  # no second, wrong note about the methods
    goto(at, "topology")
    assert metric(at, "Servers") == ["81"]


def test_missing_rl_is_said_plainly_and_the_other_methods_still_play(missing_rl):
    at = choose_methods(open_app(), ["ps", "rl", "critical-path"])
    assert any(w.value.startswith("Hierarchical RL not available: ") for w in at.warning)
    assert len(traces(charts(at)[0], "heatmap")) == 2
    assert len(metric(at, "Rounds")) == 2


def test_stand_in_rl_plays_beside_the_baselines(stand_in_rl):
    at = open_app()
    assert at.multiselect(key="w:player.methods").value == ["ps", "ring", "rl"]
    got = schedules(BCUBE, ["ps", "ring", "rl"])
    assert metric(at, "Rounds") == [str(s.n_rounds) for s in got.values()]


def test_downloads_are_offered_per_method():
    at = choose_methods(open_app(), ["ps", "critical-path"])
    labels = [b.label for b in at.get("download_button")]
    assert labels == ["Parameter Server: schedule (JSON)", "Parameter Server: heatmap (CSV)",
                      "Critical-path: schedule (JSON)", "Critical-path: heatmap (CSV)",
                      "Animation of all rounds (HTML, for slides)"]


def test_time_limited_optimal_runs_behind_a_progress_bar_is_cached_and_says_if_it_is_proven(monkeypatch):
    # CP-SAT under a wall-clock limit may stop at different rounds on a loaded machine, so the page is
    # checked against the very search it ran (recorded by a spy), not against a second search.
    import dashboard.data as data_module
    import dashboard.round_player as player_module

    searches, bars = [], []
    run, bar = data_module.run_method, player_module.with_progress

    def recording_run(name, topology, config=None, progress=None):
        s = run(name, topology, config, progress)
        if name == "optimal":
            searches.append(s)
        return s

    def recording_bar(label, work, expected_seconds):
        bars.append((label, expected_seconds))
        return bar(label, work, expected_seconds)

    monkeypatch.setattr(data_module, "run_method", recording_run)
    monkeypatch.setattr(player_module, "with_progress", recording_bar)
    at = open_app()
    at.slider(key="w:player.time").set_value(2).run()
    choose_methods(at, ["critical-path", "optimal"])
    assert bars == [("Scheduling BCube(3,1) with Optimal (CP-SAT)", 2.0)]  # only the slow method gets a bar
    (got,) = searches
    assert got.config.time_limit == 2
    assert metric(at, "Rounds")[1] == str(got.n_rounds)  # the page shows that search's result
    cp = run_method("critical-path", make_topology(BCUBE)).n_rounds
    assert 12 <= got.n_rounds <= cp  # CP-SAT starts from critical-path's schedule; 12 is the merged DAG's bound
    if got.info["proven_optimal"]:
        assert got.n_rounds == 12 and "proven optimal (lower bound 12 met)" in texts(at)
    else:
        assert "NOT proven optimal: CP-SAT stopped at the 2 s time limit" in texts(at)
        assert "proven optimal (lower bound" not in texts(at)
    at.run()  # cached: a rerun shows the same schedule without a second search
    assert len(searches) == 1 and metric(at, "Rounds")[1] == str(got.n_rounds)


def test_heatmap_rows_per_link_group_are_the_mean_of_their_links():
    from core.linkgroups import link_groups

    at = choose_methods(open_app(), ["ps", "critical-path"])
    at.segmented_control(key="w:player.rows").set_value("link groups").run()
    (fig,) = charts(at)
    t = make_topology(BCUBE)
    g = link_groups(t)
    got = schedules(BCUBE, ["ps", "critical-path"])
    for heat, s in zip(traces(fig, "heatmap"), got.values()):
        assert list(heat["y"]) == ["level 0", "level 1"]
        want = np.rint(g.utilization(np.rint(s.utilization() * 100))).astype(np.uint8)
        assert np.array_equal(heat["z"], want)
    at.segmented_control(key="w:player.rows").set_value("every link").run()
    assert [h["z"].shape[0] for h in traces(charts(at)[0], "heatmap")] == [t.n_links] * 2


def test_a_topology_too_big_to_draw_in_the_player_shows_link_group_bars():
    at = choose_methods(open_app(), ["ps", "critical-path"])
    at.selectbox(key="w:preset").set_value("DCell(6,1)").run()  # 49 nodes, 126 directed links
    (fig,) = charts(at)
    bars = traces(fig, "bar")
    assert len(bars) == 2 and list(bars[0]["y"])[-1] == "level-1 links"
    assert not traces(fig, name="servers")
    assert [h["z"].shape[0] for h in traces(fig, "heatmap")] == [8, 8]  # auto: link groups above 64 links
    at.button(key="player:next").click().run()
    (fig,) = charts(at)
    assert [s["x0"] for s in fig["layout"]["shapes"]] == [1.5, 1.5]


def test_play_speed_sets_the_time_between_rounds():
    from dashboard.round_player import SPEEDS

    at = choose_methods(open_app(), ["ps", "critical-path"])
    assert at.segmented_control(key="w:player.speed").label == "Rounds per second"  # "Columns per second" (trial 19)
    at.segmented_control(key="w:player.speed").set_value("4").run()
    assert SPEEDS["4"] == 0.25 and SPEEDS["½"] == 2.0
    at.button(key="player:play").click().run()
    first = int([t for t in texts(at).splitlines() if t.startswith("**Round ")][0].split()[1])
    at.run()
    assert int([t for t in texts(at).splitlines() if t.startswith("**Round ")][0].split()[1]) == first + 1
    assert at.segmented_control(key="w:player.speed").value == "4"


def test_file_names_carry_the_spec_without_parentheses():
    from dashboard.sources import Source, file_stem

    assert file_stem(Source("dcell:n=6,k=1", "DCell(6,1)")) == "dcell_n6_k1"
    assert file_stem(Source("upload:my net (v2).json", "my net (v2).json", b"{}")) == "my_net__v2_.json"


def test_the_width_control_sets_the_figure_width(monkeypatch):
    """Trial 21: at 1920 px the 820-px default left half the page empty, its drawings ~130 px wide; "page width" drew
    them ~160 px tall. The default is now the page's width as the browser reports it (820 px until it has), and the
    figure is laid out for that width: its network panels larger (wider, beside their heatmaps: fix32a), their names
    larger; "820 px" stays 820."""
    from dashboard import charts as chart_module
    from dashboard import pagewidth

    shown_figures = []
    shown = chart_module.show

    def spy(fig, key, name, buttons=None, **kwargs):
        if key == "player:figure":
            shown_figures.append((kwargs.get("width"), fig))
        return shown(fig, key, name, buttons, **kwargs)

    def top_px(fig) -> float:  # the network panel's width in px (beside its heatmap, as tall as the heatmap)
        layout = fig["layout"]
        assert layout["meta"]["beside"]
        domain = layout["xaxis"]["domain"]
        return (domain[1] - domain[0]) * (layout["meta"]["width_px"] - layout["margin"]["l"] - layout["margin"]["r"])

    monkeypatch.setattr(chart_module, "show", spy)
    reported = {"width": None}
    monkeypatch.setattr(pagewidth, "page_width", lambda key: reported["width"])
    at = open_app()  # BCube(3,1), three methods
    assert at.segmented_control(key="w:player.width").value == "page width"
    width, fig = shown_figures[-1]
    assert width == 820 and fig["layout"]["meta"]["width_px"] == 820  # the browser has not said yet
    narrow = top_px(fig)
    reported["width"] = 1440  # the page at 1920 px
    at.run()
    width, fig = shown_figures[-1]
    assert width == 1440 and fig["layout"]["meta"]["width_px"] == 1440
    assert top_px(fig) > 1.3 * narrow and fig["layout"]["meta"]["name_font"] > 11
    at.segmented_control(key="w:player.width").set_value("820 px").run()
    width, fig = shown_figures[-1]
    assert width == 820 and top_px(fig) == pytest.approx(narrow) and fig["layout"]["meta"]["name_font"] == 11


def test_one_or_two_methods_on_a_wide_page_draw_the_network_no_taller_than_three_do(monkeypatch):
    """Trial 22: at 1920 px with one or two methods the network row was ~470-520 px tall (three: ~310) and pushed
    the heatmaps below the fold. On the page width at 1920 (1440 px) it is at most `figures.TOP_PX[2]`, 340 px; the
    first heatmap starts at most 450 px below the figure's top (here 426, 437, 414 px; 606 and 576 before with
    one and two methods, as chromium measured them too). Since fix32a each network is beside its heatmap, as tall
    as it: the first heatmap starts at the figure's top, under the legend."""
    from dashboard import charts as chart_module
    from dashboard import pagewidth

    shown_figures = []
    shown = chart_module.show

    def spy(fig, key, name, buttons=None, **kwargs):
        if key == "player:figure":
            shown_figures.append(fig)
        return shown(fig, key, name, buttons, **kwargs)

    def rows_px(fig) -> tuple[float, float]:  # the network row's height; the first heatmap's top below the figure's
        lay = fig["layout"]
        plot = lay["height"] - lay["margin"]["t"] - lay["margin"]["b"]
        net, heat = lay["yaxis"]["domain"], lay[f"yaxis{lay['meta']['methods'] + 1}"]["domain"]
        return (net[1] - net[0]) * plot, lay["margin"]["t"] + (1 - heat[1]) * plot

    monkeypatch.setattr(chart_module, "show", spy)
    monkeypatch.setattr(pagewidth, "page_width", lambda key: 1440)
    at = open_app()  # BCube(3,1)
    for methods in (["rl"], ["ring", "rl"], ["ps", "ring", "rl"]):
        choose_methods(at, methods)
        fig = shown_figures[-1]
        assert fig["layout"]["meta"]["top"] == "network" and fig["layout"]["meta"]["methods"] == len(methods)
        _, heat = rows_px(fig)
        assert fig["layout"]["meta"]["beside"] and heat == pytest.approx(fig["layout"]["margin"]["t"]), (methods, heat)


def test_the_three_method_cap_says_why_next_to_the_picker():
    from dashboard.screens.player import MAX_METHODS
    at = open_app()
    picker = at.multiselect(key="w:player.methods")
    assert picker.max_selections == MAX_METHODS == 3
    assert picker.label == "Methods (up to 3)" and "1280 px" in picker.help and "Compare takes every method" in picker.help


def test_node_names_without_room_are_said_under_the_figure():
    """DCell(4,1)'s 25 names do not all fit three ~236-px panels: those left out are on hover, and the caption under
    the figure says how many (the figure's own count); BCube(3,1)'s all fit and nothing is said."""
    at = open_app()
    assert charts(at)[0]["layout"]["meta"]["unnamed"] == 0 and "no room" not in texts(at)
    at.selectbox(key="w:preset").set_value("DCell(4,1)").run()
    fig = charts(at)[0]
    unnamed = fig["layout"]["meta"]["unnamed"]
    named = [a for a in fig["layout"]["annotations"] if a.get("name", "").endswith("label") and a["xref"] == "x"]
    assert unnamed > 0 and len(named) + unnamed == 25
    assert f"{unnamed} node names have no room in a panel this narrow: hover a node for its name." in texts(at)


def _row_axes(fig: dict) -> list[tuple[dict, list[str], float]]:
    """Each heatmap's row axis, its rows and its panel height in px."""
    lay = fig["layout"]
    plot_px = lay["height"] - lay["margin"]["t"] - lay["margin"]["b"]
    out = []
    for h in traces(fig, "heatmap"):
        ax = lay["yaxis" + h["yaxis"].removeprefix("y")]
        out.append((ax, list(h["y"]), (ax["domain"][1] - ax["domain"][0]) * plot_px))
    return out


def test_every_heatmap_row_is_named_when_the_rows_fit():
    """An uploaded 20-link GraphML showed only every other link's name (trial 12): plotly drops category ticks it
    thinks would overlap. The ticks are set explicitly: BCube(3,1)'s 36 rows, 3 methods, are all named, in a font
    whose line (1.2 x its size, plotly's own rule) fits a row, and nothing is said about names left out."""
    at = open_app()
    for ax, rows, px in _row_axes(charts(at)[0]):
        assert ax["tickmode"] == "array" and list(ax["tickvals"]) == rows and list(ax["ticktext"]) == rows
        assert len(rows) == 36 and 9 <= ax["tickfont"]["size"] and 1.2 * ax["tickfont"]["size"] <= px / len(rows)
    assert "no room to name every row" not in texts(at)


def test_heatmap_rows_too_many_to_name_say_which_are_named():
    """BCube(4,1) in auto shows its 64 directed links, DCell(6,1) with "every link" its 126: no font fits them all, so
    every k-th is named (at 9 px, each name's line within its k rows, k the fewest EVEN number that fits) and the
    caption says so. k is even and rows 2e, 2e+1 are link e's two directions, so each named row is a link's first
    direction, named with both (s00<->sw0.0): with every 2nd row named only one direction of each link was (trial 13).
    DCell(6,1) in auto names its 8 link groups, all of them."""
    at = choose_methods(open_app(), ["ps"])
    at.radio(key="w:source_mode").set_value("Spec").run()
    for spec, mode, n, first in [("bcube:4,1", "auto", 64, "s00<->sw0.0"), ("dcell:6,1", "every link", 126,
                                                                          "s0.0<->sw0")]:
        at.text_input(key="w:spec").set_value(spec).run()
        at.segmented_control(key="w:player.rows").set_value(mode).run()
        fig = charts(at)[0]
        (ax, rows, px), = _row_axes(fig)
        k = fig["layout"]["meta"]["row_stride"]
        assert len(rows) == n and k > 1 and k % 2 == 0 and list(ax["tickvals"]) == rows[::k]
        a, b = first.split("<->")
        assert rows[:2] == [f"{a}->{b}", f"{b}->{a}"] and ax["ticktext"][0] == first
        assert all(t == "{0}<->{1}".format(*v.split("->")) for t, v in zip(ax["ticktext"], ax["tickvals"]))
        line = 1.2 * ax["tickfont"]["size"]
        fewest = next(j for j in range(2, n, 2) if line <= j * px / n)
        assert ax["tickfont"]["size"] == 9 and k == fewest
        assert (f"The heatmaps have no room to name every row: every {ordinal(k)} directed link is named on the "
                f"left, with its link's other direction, the row below it ({first} names {a}->{b} and, below it, "
                f"{b}->{a}); hover for the rest.") in texts(at)
    at.segmented_control(key="w:player.rows").set_value("auto").run()
    (ax, rows, px), = _row_axes(charts(at)[0])
    assert len(rows) == 8 and list(ax["tickvals"]) == rows and "no room to name every row" not in texts(at)


def spec_player(spec: str, methods: list[str], monkeypatch=None):
    """The player on a typed spec with `methods` picked (download names recorded when `monkeypatch` is given)."""
    from apptest_tools import capture_deferred_downloads
    at = open_app()
    names = capture_deferred_downloads(monkeypatch) if monkeypatch else None
    at.radio(key="w:source_mode").set_value("Spec").run()
    at.text_input(key="w:spec").set_value(spec).run()
    choose_methods(at, methods)
    assert not at.exception, [e.value for e in at.exception]
    return at, names


def test_routing_is_an_option_and_a_fat_tree_says_the_default_crowds_one_core_switch(monkeypatch):
    """Trial 21: on fattree:k=6 the page offered no routing, and its critical path took 844 rounds where the CLI's
    --routing balanced takes 150. The Routing option is the CLI's (modes, default, help); on a fat-tree under the
    default one line says the trees share core switches and balanced spreads them, its numbers as core measures
    them; balanced re-schedules, and the downloads' names say it."""
    from core.bounds import lower_bounds
    from core.routing import ROUTING_HELP, ROUTING_MODES, compute_routes, top_spread
    from core.workloads import build_dag

    spec = "fattree:k=6"
    at, names = spec_player(spec, ["ring", "critical-path"], monkeypatch)
    box = at.selectbox(key="w:routing")
    assert box.options == list(ROUTING_MODES) and box.value == "shortest" and ROUTING_HELP[1:] in box.help
    t = make_topology(spec)
    now, spread = (top_spread(compute_routes(t, m)) for m in ("shortest", "balanced"))
    bound = {m: lower_bounds(build_dag(t, "tree", routing=m)).best for m in ("shortest", "balanced")}
    line = shown(" ".join(i.value for i in at.info))
    assert (f"cross the same core switch {t.labels[now.used[0]]} (1 of {now.total}; the busiest link carries "
            f"{now.busiest} route segments of the 54 trees), so the merged trees' bound is {bound['shortest']} "
            f"rounds") in line, line
    assert (f"\"balanced\" spreads them over {len(spread.used)} of {spread.total} core switches (busiest link "
            f"{spread.busiest} segments, bound {bound['balanced']} rounds)") in line
    assert (now.total, len(now.used), len(spread.used)) == (9, 1, 9)
    cp = {m: run_method("critical-path", t, ScheduleConfig(routing=m)) for m in ("shortest", "balanced")}
    assert metric(at, "Rounds")[1] == str(cp["shortest"].n_rounds)
    assert metric(at, "Gap")[1] == "4.2%" == f"{100 * cp['shortest'].stats()['gap']:.1f}%"  # 844 / 810: not "4%"
    assert "critical-path.schedule.json" in " ".join(names)
    names.clear()
    at.selectbox(key="w:routing").set_value("balanced").run()
    assert not at.exception and not at.info  # the line is for the default routing only
    assert metric(at, "Rounds")[1] == str(cp["balanced"].n_rounds) and cp["balanced"].n_rounds < 200
    assert f"**{bound['balanced']} rounds**" in texts(at)  # the merged bound under balanced routing
    assert {"fattree_k6-critical-path-balanced.schedule.json", "fattree_k6-critical-path-balanced.utilization.csv",
            "fattree_k6-ring-critical-path-balanced.animation.html"} <= set(names), names


def test_a_gap_above_zero_never_reads_0_percent():
    """Trial 21: RL's 812 rounds against the bound 810 read "Gap 0%". One decimal under 10%, "< 0.1%" below that."""
    from dashboard.labels import percent

    assert [percent(g) for g in (0, 2 / 810, 0.0004, 34 / 810, 0.0996, 0.3, 1.0667)] == \
        ["0%", "0.2%", "< 0.1%", "4.2%", "10%", "30%", "107%"]


def test_time_aware_says_what_it_chose_that_its_rounds_are_of_half_pieces_and_its_time(stand_in_rl):
    """Trial 21: time-aware's card on DCell(6,1) read "Rounds 82 ... vs bound 82 (the ring)" beside RL's 60, and
    nothing said it chose a fast ring both ways in half-size pieces, finishing first (7.97 ms against 11.5 ms).
    Trial 22: its "Gap 0%" and "Util. 100%" were drawn large and its time was grey caption text, shown twice (card
    and the line under the cards). Its card now shows its time and gap in time as metrics, its rounds and what their
    gap means in words; the line under the cards gives the others' times only, in the metric's unit."""
    from core.seconds import time_report
    from core.units import seconds_in
    from dashboard.labels import percent, seconds, shared_unit

    spec = "dcell:n=4,k=1"
    at, _ = spec_player(spec, ["ps", "time-aware"])
    config = ScheduleConfig(size=100_000_000)
    t = make_topology(spec)
    runs = {m: run_method(m, t, config) for m in ("ps", "time-aware")}
    reports = {m: time_report(s.dag, s.rounds, config.size, rounds_bound=s.lower_bound) for m, s in runs.items()}
    time_s = {m: r["async"]["time_s"] for m, r in reports.items()}
    unit = shared_unit(time_s.values())
    ta = runs["time-aware"].stats()
    # the figures to compare it on, large: its time and its gap in time; rounds, gap and util. only for PS
    assert metric(at, f"Time ({unit[0]})") == [seconds_in(time_s["time-aware"], unit[1])]
    assert metric(at, "Gap in time") == [percent(reports["time-aware"]["async"]["gap"]["best"])]
    assert metric(at, "Rounds") == [str(runs["ps"].n_rounds)] and len(metric(at, "Gap")) == 1
    assert len(metric(at, "Util.")) == 1
    cards = [shown(c.value) for c in at.main.caption]
    card = next(c for c in cards if "chose" in c)
    assert "chose fast ring both ways: 2 chunks per shard, merging off" in card
    assert (f"{ta['rounds']} rounds, {percent(ta['gap'])} over its own DAG's bound {ta['lower_bound']} (the ring): "
            "its rounds move half-size pieces (the others' move whole shards): not comparable with theirs") in card
    assert "it plans by time, not rounds" in card
    # trial 23: the replay and size once, in the line under the cards (not in the card too); its gap's bound named
    assert "async replay" not in card and "100 MB" not in card, card
    best = reports["time-aware"]["async"].get("best_bound_s", reports["time-aware"]["bounds"]["best"])
    assert card.startswith(f"vs bound {seconds(best, unit=unit)} ("), card
    (help,) = [m.proto.help for m in at.metric if m.label == f"Time ({unit[0]})"]
    assert help == f"async replay of {ta['rounds']} rounds, message 100 MB", help  # the value once: the metric's
    # its time once on the page (the metric); the line under the cards: the others' times, in the same unit
    page = shown(texts(at))
    assert all(seconds(time_s["time-aware"], unit=u) not in page for u in (None, unit)), page
    assert (f"The others' time for 100 MB (async replay), to compare with Time-aware (HEFT)'s above: "
            f"Parameter Server {seconds(time_s['ps'], unit=unit)}.") in "\n".join(cards)
    ps_card = next(c for c in cards if c.startswith("vs bound"))
    assert "half-size" not in ps_card


def test_the_sidebar_says_both_size_limits_and_that_the_player_will_not_schedule_a_bigger_topology():
    """Trial 21: "Showing fattree:k=8 (topologies up to 600 nodes)", and then the player refused its 128 servers."""
    at = open_app()
    assert "(drawn up to 600 nodes; scheduled up to 64 servers)" in shown(texts(at.sidebar))
    at.radio(key="w:source_mode").set_value("Spec").run()
    at.text_input(key="w:spec").set_value("fattree:k=8").run()
    line = shown(" ".join(c.value for c in at.sidebar.caption))
    assert ("Showing **fattree:k=8**: 128 servers, more than the 64 the player, Compare and the debugger schedule; "
            "Topology & trees draws it (up to 600 nodes).") in line
    assert "has 128 servers; the dashboard schedules at most 64" in at.warning[0].value


def test_capped_pickers_offer_no_select_all():
    """Trial 21: with two methods chosen, "Select all" in "Methods (up to 3)" added one and said nothing."""
    at = open_app()
    assert at.multiselect(key="w:player.methods").proto.select_all == 0
    links = [m for m in at.multiselect if m.key.startswith("w:player.links:")]
    assert links and all(m.proto.select_all == 0 for m in links)
    at = open_app("compare")
    assert at.multiselect(key="w:compare.methods").proto.select_all != 0  # no cap: every method if wanted


def test_rl_on_an_uploaded_file_with_a_failed_link_runs_its_carried_specs_checkpoint_and_says_so():
    """Trial 21: on an uploaded BCube(3,1) file with link 1 failed, RL's card named the universal checkpoint and not
    why bcube_n3_k1 was not used. Since then a failed link is the spec's links' state, as --fail-links makes it on the
    spec: bcube_n3_k1 runs (not trained on this topology: a link is failed), and the card says so."""
    pytest.importorskip("torch")
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    if not (root / "checkpoints" / "bcube_n3_k1.safetensors").exists():
        pytest.skip("no bcube_n3_k1 checkpoint")
    raw = subprocess.run([sys.executable, "-m", "core.cli", "topology", BCUBE, "--fail-links", "1", "--format", "json"],
                         cwd=root, capture_output=True, check=True).stdout
    at = open_app()
    at.radio(key="w:source_mode").set_value("Upload").run()
    at.file_uploader(key="upload").set_value(("net.json", raw, "application/octet-stream")).run()
    choose_methods(at, ["ring", "rl"])
    assert not at.exception and not at.warning
    (el,) = [c for c in at.main.caption if "checkpoint" in c.value]
    card, details = shown(el.value), el.proto.help
    # trial 22: the note took 7 lines at 1280 px; the card says it in three (chromium), the whole note one hover away
    assert card == "vs bound 12 (merged trees) · checkpoint bcube_n3_k1, trained on the intact network; details:", card
    assert details.startswith("checkpoint bcube_n3_k1, trained on bcube:n=3,k=1 with every link up, not with a failed "
                              "link; the file's graph is that of the spec it carries, bcube:n=3,k=1, with its links' "
                              "state changed (link 1 (s01-sw0.0) is failed)"), details


def test_rls_card_says_in_its_short_note_that_the_checkpoint_kept_its_starting_weights():
    """Trial 23: on dcell:n=6,k=1 RL's card read "checkpoint dcell_n6_k1, trained on this topology; details: ?" while
    that checkpoint's training kept its starting weights (iteration 0: the heuristic prior alone), said only in the
    tooltip. The short note says it, as Compare does; the whole note stays one hover away."""
    pytest.importorskip("torch")
    from pathlib import Path
    if not (Path(__file__).resolve().parents[2] / "checkpoints" / "dcell_n6_k1.safetensors").exists():
        pytest.skip("no dcell_n6_k1 checkpoint")
    at, _ = spec_player("dcell:n=6,k=1", ["ps", "rl"])
    (el,) = [c for c in at.main.caption if "checkpoint" in c.value]
    card = shown(el.value)
    assert card.endswith("checkpoint dcell_n6_k1, untrained (iteration 0) on this topology; details:"), card
    assert "iteration 0" in el.proto.help


def test_time_aware_alone_speaks_of_no_others_and_no_merged_bound(stand_in_rl):
    """Trial 23: time-aware shown alone read "(the others' move whole shards): not comparable with theirs" and, under
    its card, the merged workload DAG's bound as "the common reference of every method that schedules merged trees",
    though no method shown schedules merged trees. Alone, its card says what its rounds move, plainly, and the
    replay and size it was timed in (no line under the cards says them); the bound line appears with a method on
    merged trees, naming the shown methods on other DAGs."""
    at, _ = spec_player("dcell:n=4,k=1", ["time-aware"])
    cards = [shown(c.value) for c in at.main.caption]
    card = next(c for c in cards if "chose fast ring both ways" in c)
    assert "the others'" not in card and "its rounds move half-size pieces, not whole shards" in card, card
    assert "async replay of 100 MB: it plans by time, not rounds" in card
    assert "Lower bound of the merged workload DAG" not in texts(at)
    choose_methods(at, ["time-aware", "critical-path"])
    page = shown(texts(at))
    assert ("the common reference of every method that schedules merged trees. Time-aware (HEFT) schedules another "
            "DAG (the ring): its gap is against that DAG's bound.") in page, page
    choose_methods(at, ["ring", "time-aware", "critical-path"])  # two on one DAG name it once (trial 28)
    page = shown(texts(at))
    assert ("Ring AllReduce and Time-aware (HEFT) schedule another DAG (the ring): each gap is against its own DAG's "
            "bound.") in page, page


def test_an_uploaded_file_of_a_family_spec_keeps_that_familys_link_groups():
    """Trial 23: an uploaded DCell(6,1) file (one link failed) carries its spec, yet its heatmap rows were
    "server-switch" and "server-server" where the typed spec gives a row per cell and the level-1 links. A file whose
    graph is its spec's has that family's link groups, in the heatmaps and the group bars."""
    import subprocess
    import sys
    from pathlib import Path

    from core.linkgroups import link_groups

    spec = "dcell:n=6,k=1"
    raw = subprocess.run([sys.executable, "-m", "core.cli", "topology", spec, "--fail-links", "random:1,seed=3",
                          "--format", "json"], cwd=Path(__file__).resolve().parents[2], capture_output=True,
                         check=True).stdout
    at = open_app()
    at.radio(key="w:source_mode").set_value("Upload").run()
    at.file_uploader(key="upload").set_value(("t23.json", raw, "application/octet-stream")).run()
    choose_methods(at, ["ps"])
    assert not at.exception
    (fig,) = charts(at)
    (heat,) = traces(fig, "heatmap")
    family = link_groups(make_topology(spec)).names
    assert family[0] == "cell 0" and family[-1] == "level-1 links"
    assert list(heat["y"]) == list(family), list(heat["y"])
