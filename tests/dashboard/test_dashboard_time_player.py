"""The player in seconds, with link speeds and with a failed or slowed link: every number checked against core."""

from __future__ import annotations

import numpy as np
import pytest
from apptest_tools import (SVG_NS, capture_deferred_downloads, charts, goto, metric, open_app, pictures, svg_texts,
                           texts, traces, shown)

from core.methods import run_method
from core.replan import LinkEvent, replan
from core.schedule import ScheduleConfig
from core.timing import format_seconds, replay
from core.timing.windows import busy_share
from core.topology import make_topology
from dashboard.sources import TIME_COLUMNS

BCUBE = "bcube:n=3,k=1"
LINKS = f"w:player.links:{BCUBE}"


def player(methods: list[str]):
    at = open_app()
    at.multiselect(key="w:player.methods").set_value(methods).run()
    return at


def numbers(at, label: str) -> list[float]:
    """A metric's values as numbers; "Time" is "Time (ms)" here, its unit in the label so the value
    fits a narrow column (the values are plain numbers)."""
    return [float(str(v)) for v in metric(at, "Time (ms)" if label == "Time" else label)]


def heatmaps(at) -> list[dict]:
    return traces(charts(at)[0], "heatmap")


def marker_x0(at) -> list[float]:
    return [s["x0"] for s in charts(at)[0]["layout"]["shapes"] if s.get("name") == "current round"]


def test_seconds_axis_lines_up_every_method_in_time_sync_or_async():
    methods = ["ring", "critical-path", "time-aware"]  # time-aware comes from the registry like any method
    at = player(methods)
    at.segmented_control(key="w:player.axis").set_value("seconds").run()
    assert not at.exception and not at.error
    t = make_topology(BCUBE)
    got = {m: run_method(m, t, ScheduleConfig()) for m in methods}
    for mode in ("async", "sync"):
        at.segmented_control(key="w:player.mode").set_value(mode).run()
        tm = {m: replay(s, size=1e8, mode=mode) for m, s in got.items()}
        assert numbers(at, "Time") == pytest.approx([tm[m].time * 1e3 for m in methods], rel=5e-3)
        end = max(x.time for x in tm.values())
        k = int(np.clip(max(s.n_rounds for s in got.values()), *TIME_COLUMNS))
        edges = np.linspace(0, end, k + 1)
        heat = heatmaps(at)
        for h, m in zip(heat, methods):  # one time axis: the same column edges (ms) for every method...
            n = h["z"].shape[1]
            assert np.allclose(h["x"], edges[:n + 1] * 1e3)
            assert edges[n - 1] < tm[m].time <= edges[n] + 1e-15  # ...each heatmap stops at its method's end
            want = np.rint(100 * busy_share(got[m].dag, tm[m].start, tm[m].finish, edges[:n + 1])).astype(np.uint8)
            assert np.array_equal(h["z"], want)  # the share of each column every link is busy, from core
        first = format_seconds(edges[1], ("ms", 1e3))  # the cards' 3 significant digits (fix29b; were 4)
        assert f"**Column 1 of {k}: 0–{first}**" in texts(at)
        # the interval is said once, in the header: each method's line gives its end (stop 33's trial: it repeated
        # "0–0.2 ms" on every method)
        lines = [x for x in texts(at).splitlines() if x.startswith("**") and "ends at" in x]
        assert len(lines) == len(methods) and not any(first in x.split("ends at")[0] for x in lines)
        assert [x.split("ends at ")[1] for x in lines] == [format_seconds(tm[m].time, ("ms", 1e3)).replace(" ", "\u00a0")
                                                          for m in methods]  # its unit kept on its line (fix32a)
    at.button(key="player:next").click().run()
    assert marker_x0(at) == pytest.approx([edges[1] * 1e3] * 3)  # the same interval marked in every method


def test_message_size_is_a_control_with_the_documented_default():
    at = player(["ring", "critical-path"])
    assert at.segmented_control(key="w:player.speed").label == "Rounds per second"
    at.segmented_control(key="w:player.axis").set_value("seconds").run()
    assert at.segmented_control(key="w:player.speed").label == "Time columns per second"  # the slider's word
    assert at.text_input(key="w:player.size").value == "100MB"
    t = make_topology(BCUBE)
    ring = run_method("ring", t, ScheduleConfig())
    at.text_input(key="w:player.size").set_value("1GB").run()
    assert numbers(at, "Time")[0] == pytest.approx(replay(ring, size=1e9).time * 1e3, rel=5e-3)
    at.text_input(key="w:player.size").set_value("ten MB").run()
    assert len(at.error) == 1 and "'ten MB'" in at.error[0].value and "Using 100MB" in at.error[0].value
    assert numbers(at, "Time")[0] == pytest.approx(replay(ring, size=1e8).time * 1e3, rel=5e-3)


def test_a_latency_dominated_time_is_said_once_above_the_methods():
    """At 1 KB the DAG's latency bound (8 µs on BCube(3,1); 32 µs for ring's DAG) exceeds the bandwidth bound
    (0.07 µs): one caption (not one per method) says the time is latency-dominated, with each method's bound
    (core.seconds.latency_note); at 100 MB it does not."""
    from core.seconds import latency_note, time_report

    at = player(["ring", "critical-path"])
    at.segmented_control(key="w:player.axis").set_value("seconds").run()
    assert "latency-dominated" not in texts(at)
    at.text_input(key="w:player.size").set_value("1KB").run()
    assert texts(at).count("latency-dominated") == 1
    (cap,) = [c.value for c in at.caption if "latency-dominated" in c.value]
    reps = [time_report(r.dag, r.rounds, 1000) for r in
            (run_method(m, make_topology(BCUBE), ScheduleConfig()) for m in ("ring", "critical-path"))]
    assert latency_note(reps, ["Ring AllReduce", "Critical-path"]) in cap
    assert "8.00 µs (Critical-path) to 32.0 µs (Ring AllReduce)" in cap and "gap" not in cap  # the player's gaps are to the best bound


def test_a_bandwidth_dominated_time_is_said_once_above_the_methods_too():
    """Trial 32: at 1 KB a caption said per-hop latency sets the time, at 100 MB nothing said what does. One caption
    names what sets each method's time there (core.seconds.size_line), the CLI's words."""
    from core.seconds import size_line, time_report

    at = player(["ring", "critical-path"])
    at.segmented_control(key="w:player.axis").set_value("seconds").run()
    caps = [c.value for c in at.caption if "bandwidth-dominated" in c.value]
    reps = [time_report(r.dag, r.rounds, 1e8) for r in
            (run_method(m, make_topology(BCUBE), ScheduleConfig()) for m in ("ring", "critical-path"))]
    line = size_line(list(zip(["Ring AllReduce", "Critical-path"], reps)))
    assert caps == [line], caps
    # one sentence for both, each bound once with its owners where they differ (trial 33: it was said twice)
    assert line.startswith("Ring AllReduce, Critical-path: bandwidth-dominated: latency bound 8.00 µs (Critical-path) "
                           "to 32.0 µs (Ring AllReduce) against the bandwidth bound "), line
    assert line.count("bandwidth-dominated") == 1 and line.endswith("not per-hop latency, set the time")
    at.text_input(key="w:player.size").set_value("1KB").run()
    assert "bandwidth-dominated" not in texts(at)  # latency-dominated there, said by the caption above


def test_a_busbw_above_a_links_speed_is_explained_once_above_the_methods():
    """Trial 33: on BCube(2,1) at 1 GB a card read busbw 18.75 GB/s on links of 12.5 GB/s, and only the CLI said why."""
    from core.seconds import busbw_note

    from core.seconds import time_report

    at = open_app()
    at.radio(key="w:source_mode").set_value("Spec").run()
    at.text_input(key="w:spec").set_value("bcube:n=2,k=1").run()
    at.multiselect(key="w:player.methods").set_value(["ring", "critical-path"]).run()
    at.segmented_control(key="w:player.axis").set_value("seconds").run()
    at.text_input(key="w:player.size").set_value("1GB").run()
    assert not at.exception and not at.error
    said = [c.value for c in at.caption if "busbw is above" in c.value]
    cp = run_method("critical-path", make_topology("bcube:n=2,k=1"), ScheduleConfig())
    note = busbw_note(time_report(cp.dag, cp.rounds, 1e9))
    assert note and said == [note + "."], said
    at.text_input(key="w:player.size").set_value("1KB").run()
    assert not [c.value for c in at.caption if "busbw is above" in c.value]  # 185.64 MB/s: under a link


def test_link_speeds_show_on_the_topology_and_in_the_player():
    at = open_app("topology")
    at.text_input(key="w:link_options").set_value("bw=100/25").run()
    assert "Showing **BCube(3,1) bw=100/25**" in texts(at)
    assert "Links (full duplex, per direction): 9 at 100 Gbit/s, 9 at 25 Gbit/s" in texts(at)
    static = pictures(at)["topology-network"]  # the static drawing: two link widths, both in the legend
    assert {"100 Gbit/s link", "25 Gbit/s link"} <= set(svg_texts(static))
    widths = {float(p.get("stroke-width")) for p in static.iter(f"{SVG_NS}path") if p.get("d", "").count("M") == 9}
    assert len(widths) == 2  # nine cables at each speed, one path each, the slower thinner
    at.segmented_control(key="w:topology:drawing").set_value("interactive").run()
    net = charts(at)[0]
    legend = [tr["name"] for tr in net["data"] if tr.get("showlegend")]
    assert "100 Gbit/s link" in legend and "25 Gbit/s link" in legend
    fast, slow = traces(net, name="100 Gbit/s links")[0], traces(net, name="25 Gbit/s links")[0]
    assert fast["line"]["width"] > slow["line"]["width"]  # slower links are drawn thinner
    t = make_topology("bcube:n=3,k=1,bw=100/25")
    assert len(slow["x"]) == 3 * int((t.bandwidth == 25).sum())  # each link a segment (two ends and a gap)
    hover = traces(net, name="link names")[0]["hovertext"]
    assert len(hover) == t.n_edges and "level 1 · 25 Gbit/s" in hover[int(np.flatnonzero(t.bandwidth == 25)[0])]
    goto(at, "player")
    fig = charts(at)[0]
    assert {"100 Gbit/s link", "25 Gbit/s link"} <= {tr["name"] for tr in fig["data"] if tr.get("showlegend")}
    at.text_input(key="w:link_options").set_value("n=5").run()
    line = shown(at.error[0].value)
    assert "'n' is not a link option" in line and "Still showing BCube(3,1) bw=100/25" in line
    at.text_input(key="w:link_options").set_value("bw=0").run()
    assert "bw must be > 0" in shown(at.error[0].value)


def test_failing_a_link_mid_run_replans_every_method_and_marks_the_event():
    methods = ["ps", "ring", "critical-path"]
    at = player(methods)
    at.multiselect(key=LINKS).set_value([0]).run()  # link 0: s00-sw0.0
    at.segmented_control(key="w:player.when").set_value("after a round").run()
    at.number_input(key="w:player.at_round").set_value(3).run()
    assert not at.exception and not at.error
    t = make_topology(BCUBE)
    event = LinkEvent.parse(t, "round=3", fail="0")
    runs = {m: replan(run_method(m, t, ScheduleConfig()), event) for m in methods}
    assert "**Link 0 (s00-sw0.0) fails after round 3**" in texts(at)
    assert numbers(at, "End (ms)") == pytest.approx([r.finish_s * 1e3 for r in runs.values()], rel=5e-3)
    assert numbers(at, "Lost (ms)") == pytest.approx([r.lost_s * 1e3 for r in runs.values()], rel=5e-2, abs=0.05)
    combined = {m: r.combined() for m, r in runs.items()}
    assert numbers(at, "Rounds") == [len(rounds) for _, rounds in combined.values()]
    for h, (dag, rounds) in zip(heatmaps(at), combined.values()):  # the re-planned run, round by round
        assert h["z"].shape == (t.n_links, len(rounds))
    fig = charts(at)[0]
    lines = [s for s in fig["layout"]["shapes"] if s["name"].startswith("event")]
    done = [len(combined[m][1]) - runs[m].rest.n_rounds for m in methods]
    assert [s["x0"] for s in lines] == [d + 0.5 for d in done]  # after the last round that ran before it
    changed = traces(fig, name="link 0 (s00-sw0.0) fails after round 3")
    assert len(changed) == 1 + 3  # the legend key and the link on each network
    assert len(changed[1]["x"]) == 3  # one cable
    for r in runs.values():  # the rest never crosses the failed link
        assert not r.topology.link_failed[r.rest.dag.links.values].any()


def test_a_slowdown_at_a_time_on_the_seconds_axis_marks_its_moment_and_the_drain():
    methods = ["ring", "critical-path"]
    at = player(methods)
    at.segmented_control(key="w:player.axis").set_value("seconds").run()
    at.multiselect(key=LINKS).set_value([0]).run()
    at.segmented_control(key="w:player.change").set_value("slow down").run()
    at.number_input(key="w:player.at_ms").set_value(0.3).run()
    assert not at.exception and not at.error
    t = make_topology(BCUBE)
    event = LinkEvent.parse(t, "0.3ms", slow="0:x0.25")
    runs = {m: replan(run_method(m, t, ScheduleConfig()), event) for m in methods}
    assert "**Link 0 (s00-sw0.0) slows to 0.25× of the bandwidth at 0.3 ms**" in texts(at)
    shapes = charts(at)[0]["layout"]["shapes"]
    lines = [s["x0"] for s in shapes if s["name"].startswith("event")]
    assert lines == pytest.approx([0.3, 0.3])
    drains = [x for s in shapes if s["name"] == "draining" for x in (s["x0"], s["x1"])]
    want = [x for r in runs.values() if r.resume_s > r.at_s for x in (r.at_s * 1e3, r.resume_s * 1e3)]
    assert want and drains == pytest.approx(want)  # shaded while the transfers slowed in flight finish
    assert numbers(at, "End (ms)") == pytest.approx([r.finish_s * 1e3 for r in runs.values()], rel=5e-3)


def test_a_change_before_the_run_is_every_method_scheduling_the_changed_network():
    at = player(["critical-path"])
    at.multiselect(key=LINKS).set_value([0]).run()
    at.segmented_control(key="w:player.when").set_value("before the run").run()
    t = make_topology(BCUBE)
    r = replan(run_method("critical-path", t, ScheduleConfig()), LinkEvent.parse(t, "0s", fail="0"))
    assert numbers(at, "End (ms)") == pytest.approx([r.finish_s * 1e3], rel=5e-3)
    assert "changed before the run" in texts(at)
    shapes = charts(at)[0]["layout"]["shapes"]
    assert not [s for s in shapes if s["name"].startswith("event")]  # nothing ran before it: no moment to mark


def test_a_failure_that_cuts_a_server_off_is_one_error_and_the_run_plays_unchanged():
    at = player(["critical-path"])
    at.multiselect(key=LINKS).set_value([0, 9]).run()  # both links of s00
    assert len(at.error) == 1 and "every link of server s00 is failed" in at.error[0].value
    assert numbers(at, "Rounds") == [run_method("critical-path", make_topology(BCUBE)).n_rounds]
    assert not at.exception


def test_busbw_at_1_byte_reads_in_a_unit_that_shows_it():
    """Trial 15: at 1 B the busbw metric read 0.0 (GB/s) for every method; it takes core.units.rate_unit's unit."""
    at = player(["ring", "critical-path"])
    at.segmented_control(key="w:player.axis").set_value("seconds").run()
    at.text_input(key="w:player.size").set_value("1B").run()
    t = make_topology(BCUBE)
    shown_busbw = metric(at, "busbw (KB/s)")
    assert len(shown_busbw) == 2, [m.label for m in at.metric]
    for m, got in zip(("ring", "critical-path"), shown_busbw):
        want = replay(run_method(m, t, ScheduleConfig()), size=1, mode="async").busbw / 1e3
        assert float(str(got)) == pytest.approx(want, rel=5e-3) and float(str(got)) > 0
    assert "e-0" not in texts(at)



def player_in_seconds(methods: list[str], size: str):
    """The player with `methods` on the sidebar's BCube without latency (lat=0), its axis in seconds, at `size`."""
    at = player(methods)
    at.text_input(key="w:link_options").set_value("lat=0").run()
    at.segmented_control(key="w:player.axis").set_value("seconds").run()
    at.text_input(key="w:player.size").set_value(size).run()
    assert not at.exception and not at.error
    return at

def test_sub_microsecond_times_read_in_ps_as_the_cli_writes_them():
    """Issue 12: the player's time unit went no lower than µs, so without latency (lat=0) at 1 B the Time metric read
    0.000142 (µs) and a time column 8e-06 µs; it takes core.units.time_unit's unit, the CLI's (142 ps, 8 ps)."""
    methods = ["ring", "critical-path"]
    at = player_in_seconds(methods, "1B")
    t = make_topology(f"{BCUBE},lat=0")
    tm = {m: replay(run_method(m, t, ScheduleConfig()), size=1, mode="async") for m in methods}
    assert max(x.time for x in tm.values()) < 1e-9  # every time is under 1 ns: core's unit is ps
    shown_times = metric(at, "Time (ps)")
    assert [float(str(v)) for v in shown_times] == pytest.approx([tm[m].time * 1e12 for m in methods], rel=5e-3)
    assert all(float(str(v)) >= 1 for v in shown_times)  # 142, not 0.000142
    heat = heatmaps(at)
    end = max(x.time for x in tm.values())
    k = int(np.clip(max(len(run_method(m, t, ScheduleConfig()).rounds) for m in methods), *TIME_COLUMNS))
    assert np.allclose(heat[0]["x"], np.linspace(0, end, k + 1)[:len(heat[0]["x"])] * 1e12)  # the axis in ps too
    assert "'time (ps)'" in str(charts(at)[0]["layout"])  # its title
    assert f"({format_seconds(end / k, ('ps', 1e12))})" in texts(at) and "e-0" not in texts(at)


def test_every_methods_times_share_one_unit_the_largest_ones():
    """Issue 12 (a browser trial): each method's time took its own unit, so ns sat beside µs on one screen. Without
    latency at 7 KB, ring's async replay takes 996 ns and critical-path's 1.12 µs: both now read in µs, the unit
    core.units.time_unit picks for the largest (the seconds axis's: it runs to the latest finish), in the metrics,
    the captions' bounds and the axis; with a link failing, End and Lost too."""
    from core.units import time_unit

    methods = ["ring", "critical-path"]
    at = player_in_seconds(methods, "7KB")
    t = make_topology(f"{BCUBE},lat=0")
    tm = {m: replay(run_method(m, t, ScheduleConfig()), size=7000, mode="async") for m in methods}
    assert tm["ring"].time < 1e-6 <= tm["critical-path"].time  # alone, 996 ns and 1.12 µs
    assert time_unit([tm["ring"].time])[0] == "ns"
    assert [m.label for m in at.metric if m.label.startswith("Time")] == ["Time (µs)", "Time (µs)"]
    assert [float(str(v)) for v in metric(at, "Time (µs)")] == pytest.approx([tm[m].time * 1e6 for m in methods],
                                                                             rel=5e-3)
    bounds = [c.value for c in at.caption if c.value.startswith("vs bound ")]
    assert len(bounds) == 2 and all(b.split(" (")[0].endswith(" µs") for b in bounds), bounds
    assert "'time (µs)'" in str(charts(at)[0]["layout"])
    links = next(m.key for m in at.multiselect if m.key.startswith("w:player.links:"))  # the spec's, lat=0 in it
    at.multiselect(key=links).set_value([0]).run()  # link 0 fails after round 3
    at.segmented_control(key="w:player.when").set_value("after a round").run()
    at.number_input(key="w:player.at_round").set_value(3).run()
    assert not at.exception and not at.error
    event = LinkEvent.parse(t, "round=3", fail="0")
    runs = {m: replan(run_method(m, t, ScheduleConfig()), event, size=7000) for m in methods}
    unit, per = time_unit([max(r.finish_s for r in runs.values())])
    ends = [m.label for m in at.metric if m.label.startswith(("End", "Lost"))]
    assert ends == [f"End ({unit})", f"Lost ({unit})"] * 2, ends
    assert [float(str(v)) for v in metric(at, f"End ({unit})")] == pytest.approx(
        [r.finish_s * per for r in runs.values()], rel=5e-3)
    notes = [c.value for c in at.caption if c.value.startswith("failure-free ")]
    assert len(notes) == 2 and all(n.split(" · ")[0].endswith(f" {unit}") for n in notes), notes


def test_the_heatmap_csv_names_its_time_columns_in_the_players_unit(monkeypatch):
    """Issue 12 (a browser trial): on the seconds axis at 1 B the heatmap CSV's columns were named in ms whatever
    the times, "8e-09-1.6e-08 ms". They are named in the unit of the player's axis (core.units.time_unit, for the
    latest finish), one for the file and for every method's file: without latency at 1 B, ps ("0-8 ps", "8-16 ps")."""
    import csv
    import io
    import re

    from core.units import time_unit

    got = capture_deferred_downloads(monkeypatch)
    methods = ["ring", "critical-path"]
    at = player_in_seconds(methods, "1B")
    t = make_topology(f"{BCUBE},lat=0")
    runs = {m: run_method(m, t, ScheduleConfig()) for m in methods}
    end = max(replay(s, size=1, mode="async").time for s in runs.values())
    k = int(np.clip(max(s.n_rounds for s in runs.values()), *TIME_COLUMNS))
    edges = np.linspace(0, end, k + 1)
    unit, per = time_unit([end])
    assert unit == "ps"
    files = {name: got[name] for name in (f"bcube_n3_k1_lat0-{m}-1B-async.utilization.csv" for m in methods)}
    for name, make in files.items():
        header = next(csv.reader(io.StringIO(make())))
        columns = header[2:]
        assert columns and all(re.fullmatch(r"\d+(\.\d+)?-\d+(\.\d+)? ps", c) for c in columns), columns[:3]
        for c, a, b in zip(columns, edges, edges[1:]):
            lo, hi = c.removesuffix(" ps").split("-")
            assert float(lo) == pytest.approx(a * per, rel=1e-5, abs=1e-9) and float(hi) == pytest.approx(b * per, rel=1e-5)


def test_the_heatmap_csv_and_animation_names_carry_the_message_size_on_the_seconds_axis(monkeypatch):
    """A trial: on the seconds axis the heatmap CSV was bcube_n3_k1_lat0-ring.utilization.csv at 1 B and at 7 KB, so
    one download overwrote the other; its numbers change with the size, so the size is in the name (file-name safe:
    no space, ``_`` for a decimal point). On the rounds axis the numbers do not depend on the size: no size."""
    got = capture_deferred_downloads(monkeypatch)
    at = player(["ring"])
    assert "bcube_n3_k1-ring.utilization.csv" in got and "bcube_n3_k1-ring.animation.html" in got
    got.clear()
    at = player_in_seconds(["ring"], "1B")
    assert ("bcube_n3_k1_lat0-ring-1B-async.utilization.csv" in got
            and "bcube_n3_k1_lat0-ring-1B-async.animation.html" in got)
    at.text_input(key="w:player.size").set_value("7KB").run()
    at.text_input(key="w:player.size").set_value("1.5MB").run()
    assert not at.exception and not at.error
    names = [f"bcube_n3_k1_lat0-ring-{s}-async.utilization.csv" for s in ("1B", "7KB", "1p5MB")]
    assert all(n in got for n in names), sorted(got)
    assert got[names[0]]() != got[names[1]]()  # different files, different names


def figure_file_name(at) -> str:
    """The name the player figure's camera button saves it under (its modebar's toImageButtonOptions)."""
    import json
    configs = [json.loads(el.proto.config) for el in at.get("plotly_chart")]
    return [c for c in configs if not c.get("staticPlot")][0]["toImageButtonOptions"]["filename"]


def test_sync_async_and_a_link_event_each_give_their_downloads_a_name_of_their_own(monkeypatch):
    """The seconds axis's CSV and animation had one name for the sync and the async replay, and for a run with and
    without a link event, so one download overwrote the other; the figure's PNG/SVG name had no message size. The
    replay, the size and the event (change, links, moment) are in every one of these names, file-name safe."""
    import re

    got = capture_deferred_downloads(monkeypatch)
    at = player_in_seconds(["ring"], "1B")
    assert figure_file_name(at) == "bcube_n3_k1_lat0-column1-1B-async"
    at.segmented_control(key="w:player.mode").set_value("sync").run()
    assert figure_file_name(at) == "bcube_n3_k1_lat0-column1-1B-sync"
    links = next(m.key for m in at.multiselect if m.key.startswith("w:player.links:"))
    at.multiselect(key=links).set_value([0]).run()
    at.number_input(key="w:player.at_ms").set_value(0.25).run()
    assert not at.exception and not at.error
    assert figure_file_name(at) == "bcube_n3_k1_lat0-column1-1B-sync-fail-s00-sw0.0-at0p25ms"
    at.segmented_control(key="w:player.change").set_value("slow down").run()
    at.segmented_control(key="w:player.when").set_value("after a round").run()
    at.number_input(key="w:player.at_round").set_value(3).run()
    at.segmented_control(key="w:player.axis").set_value("rounds").run()  # with an event, rounds too depend on both
    assert not at.exception and not at.error
    assert figure_file_name(at) == "bcube_n3_k1_lat0-round1-1B-sync-slow-s00-sw0.0x0p25-after3"
    at.segmented_control(key="w:player.factor").set_value("×0.5").run()  # the same link and moment, another factor
    assert not at.exception and not at.error
    assert figure_file_name(at) == "bcube_n3_k1_lat0-round1-1B-sync-slow-s00-sw0.0x0p5-after3"
    csvs = [f"bcube_n3_k1_lat0-ring-1B-{run}.utilization.csv" for run in ("async", "sync",
                                                                          "sync-fail-s00-sw0.0-at0p25ms",
                                                                          "sync-slow-s00-sw0.0x0p25-after3",
                                                                          "sync-slow-s00-sw0.0x0p5-after3")]
    assert set(csvs) <= set(got), sorted(got)  # (and the names of the steps between, each its own run)
    assert "bcube_n3_k1_lat0-ring-1B-sync-fail-s00-sw0.0-at0p25ms.animation.html" in got
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+", n) for n in got), sorted(got)
    # trial 22: the schedule's JSON had the routing alone (bcube_n3_k1_lat0-ring.schedule.json) beside these; it
    # carries the same tag now, every run's name as its CSV's
    schedules = sorted(n for n in got if n.endswith(".schedule.json"))
    assert schedules == sorted({n.replace(".utilization.csv", ".schedule.json") for n in got
                                if n.endswith(".utilization.csv")}), schedules
    assert {c.replace(".utilization.csv", ".schedule.json") for c in csvs} <= set(schedules)


def test_a_slow_downs_factor_is_in_the_run_tag():
    """×0.25 and ×0.5 on the same link at the same moment had one name (`run_tag` left the factor out), so one
    download overwrote the other: the factor is the new bandwidth over the link's before the event, file-name safe,
    one for all links where they share it, else each link's. Links by name, as typed (fix32a: by id, ``slow0``)."""
    from dashboard.round_player import run_tag
    from dashboard.sources import Timeline

    config = ScheduleConfig(size=1)
    t = make_topology("bcube:n=3,k=1,bw=100/25")  # links 0-8 (level 0) at 100 Gbit/s, 9-17 (level 1) at 25

    def tag(slowed, **when):
        return run_tag(config, Timeline(event=LinkEvent(slowed=slowed, **when)), t)

    assert tag(((0, 25.0),), at_round=3) == "-1B-async-slow-s00-sw0.0x0p25-after3"
    assert tag(((0, 50.0),), at_round=3) == "-1B-async-slow-s00-sw0.0x0p5-after3"
    # one factor, links of two speeds
    assert tag(((0, 10.0), (9, 2.5)), at_s=0.0) == "-1B-async-slow-s00-sw0.0_s00-sw1.0x0p1-before"
    assert tag(((0, 50.0), (3, 25.0)), at_s=2.5e-4) == "-1B-async-slow-s00-sw0.0x0p5_s10-sw0.1x0p25-at0p25ms"
    both = run_tag(config, Timeline(event=LinkEvent(failed=(1,), slowed=((0, 25.0),), at_round=2)), t)
    assert both == "-1B-async-fail-s01-sw0.0-slow-s00-sw0.0x0p25-after2"


def test_download_names_are_made_once_per_render_and_keep_a_slow_downs_factor_on_links_of_two_speeds(monkeypatch):
    """`run_tag` was worked out twice per render (the figure's name, then the downloads') and formatted a slow-down's
    factor as a duration (`seconds_in(x, 1)`). It is made once per render (`View.tag`) and the factor is a plain
    number (`core.units.plain_number`); the names are those of before: on BCube(3,1) with its levels at 100 and 25
    Gbit/s (bw=100/25), link 9 (level 1, 25 Gbit/s) slowed to x0.5 after round 3 is ``slow9x0p5``, the new 12.5 Gbit/s
    over the link's own 25, in the figure's, the heatmap CSV's and the animation's names."""
    import dashboard.round_player as rp

    made = []
    real = rp.run_tag
    monkeypatch.setattr(rp, "run_tag", lambda *a: made.append(a) or real(*a))
    got = capture_deferred_downloads(monkeypatch)
    at = player(["ring"])
    at.text_input(key="w:link_options").set_value("bw=100/25").run()
    at.segmented_control(key="w:player.axis").set_value("seconds").run()
    at.text_input(key="w:player.size").set_value("1B").run()
    assert not at.exception and not at.error
    stem = "bcube_n3_k1_bw100_25"
    assert figure_file_name(at) == f"{stem}-column1-1B-async"
    links = next(m.key for m in at.multiselect if m.key.startswith("w:player.links:"))
    at.multiselect(key=links).set_value([9]).run()
    at.segmented_control(key="w:player.change").set_value("slow down").run()
    at.segmented_control(key="w:player.factor").set_value("×0.5").run()
    at.segmented_control(key="w:player.when").set_value("after a round").run()
    at.number_input(key="w:player.at_round").set_value(3).run()
    assert not at.exception and not at.error
    made.clear()
    at.segmented_control(key="w:player.axis").set_value("rounds").run()
    assert not at.exception and not at.error
    assert len(made) == 1, made  # once for the figure and every download of this render
    tag = "1B-async-slow-s00-sw1.0x0p5-after3"
    assert figure_file_name(at) == f"{stem}-round1-{tag}"
    assert f"{stem}-ring-{tag}.utilization.csv" in got and f"{stem}-ring-{tag}.animation.html" in got, sorted(got)
    assert f"{stem}-ring-1B-async.utilization.csv" in got  # the seconds axis before the event: size and replay


def test_the_time_card_keeps_its_trailing_zero_as_the_cli_prints_it():
    """fix28b: the CLI's "16.0 ms" read "16" on the player's Time card, beside "14.3" (critical-path on BCube(3,1) at
    100 MB takes 16.0 ms): the card's number is the CLI's, unit aside."""
    methods = ["ring", "critical-path"]
    at = player(methods)
    at.segmented_control(key="w:player.axis").set_value("seconds").run()
    t = make_topology(BCUBE)
    want = [format_seconds(replay(run_method(m, t, ScheduleConfig()), size=1e8, mode="async").time) for m in methods]
    assert want == ["14.3 ms", "16.0 ms"]
    assert [str(v) for v in metric(at, "Time (ms)")] == [w.removesuffix(" ms") for w in want]


def test_a_time_reads_alike_in_the_cards_and_the_frame_text_beside_them():
    """fix29b: the player's Time card said 80.0 ms while the caption over the heatmaps said "ends at 80.02 ms" and the
    column header "76.02–80.02 ms" for the same time (core.units' 3 significant digits on the card, 4 in the frame
    text). Every method's end reads as its card, and the last column ends at the latest finish's card text."""
    methods = ["ps", "ring", "critical-path"]
    at = player(methods)
    at.segmented_control(key="w:player.axis").set_value("seconds").run()
    cards = [str(v) for v in metric(at, "Time (ms)")]
    titles = ["Parameter Server", "Ring AllReduce", "Critical-path"]
    ends = [m.value for m in at.markdown if " ends at " in m.value]
    assert ends == [f"**{t}**: ends at {c}\u00a0ms" for t, c in zip(titles, cards)], (ends, cards)
    last = int(at.slider(key="player:round").max)
    at.slider(key="player:round").set_value(last).run()
    (header,) = [m.value for m in at.markdown if m.value.startswith(f"**Column {last} of {last}: ")]
    assert header.endswith(f"–{max(cards, key=float)} ms**"), (header, cards)  # 3 digits tell 20 columns apart
    assert "around %{x:.3r} ms" in str(charts(at)[0]["data"])  # a column's middle in the hover, 3 digits too


def test_column_edges_take_more_digits_only_where_3_would_write_two_alike():
    """The seconds axis's column edges read with the cards' 3 significant digits unless two edges would then read
    the same (150 columns over 120 ms: 102.4 and 102.8 both "102"): then with as many as tell every edge apart."""
    from core.timing.windows import time_edges
    from dashboard.round_player import edge_digits

    assert edge_digits(tuple(time_edges(80.02, 20).tolist())) == 3
    assert edge_digits(tuple(time_edges(120.0, 150).tolist())) == 4


def test_every_methods_busbw_card_shares_one_rate_unit_in_which_each_reads_at_least_1():
    """fix29b: each busbw card took its own unit (core.units.rate_unit, by its own largest rate), so at 20 KB on
    BCube(3,1) Ring read busbw (GB/s) 1.02 beside PS's and critical-path's (MB/s) 709.85 and 907.03. One unit for the
    row now, the largest in which every rate shown (busbw on the cards, algbw in their help) reads at least 1: MB/s."""
    from core.units import rate_in

    from dashboard.labels import shared_rate_unit

    methods = ["ps", "ring", "critical-path"]
    at = player(methods)
    at.segmented_control(key="w:player.axis").set_value("seconds").run()
    at.text_input(key="w:player.size").set_value("20KB").run()
    assert not at.exception and not at.error
    t = make_topology(BCUBE)
    runs = [replay(run_method(m, t, ScheduleConfig()), size=2e4, mode="async") for m in methods]
    assert [r.busbw >= 1e9 for r in runs] == [False, True, False]  # alone, ring's card would read GB/s
    labels = [m.label for m in at.metric if m.label.startswith("busbw")]
    assert labels == ["busbw (MB/s)"] * 3, labels
    assert [str(v) for v in metric(at, "busbw (MB/s)")] == [rate_in(r.busbw, 1e6) for r in runs]
    assert shared_rate_unit([5e8, 2e9]) == ("MB/s", 1e6) and shared_rate_unit([1.5e9, 2e9]) == ("GB/s", 1e9)
    assert shared_rate_unit([0.0, 500.0]) == ("B/s", 1.0) and shared_rate_unit([]) == ("GB/s", 1e9)
