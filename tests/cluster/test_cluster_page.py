"""The Cluster screen through Streamlit's AppTest, opened from app.py's navigation: figures drawn,
bad input shown with st.error while the app keeps running."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "dashboard"))  # the dashboard tests' AppTest helpers

from apptest_tools import charts, goto, open_app, shown  # noqa: E402

FAST = ["fifo+first-fit", "sjf+closest", "gadget"]


def _open(**state):
    at = open_app(None)
    at.session_state["keep:cluster.trace"] = "synthetic:jobs=24,seed=1,rate=12"
    at.session_state["keep:cluster.schedulers"] = FAST
    for k, v in state.items():
        at.session_state[k] = v
    return goto(at, "cluster")


def test_page_draws_every_figure():
    at = _open()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error
    figs = charts(at)
    assert len(figs) == 4  # JCT boxes, Gantt, snapshot, contention
    assert [b["name"] for b in figs[0]["data"] if b["type"] == "box"] == FAST
    assert "0.5" in figs[0]["layout"]["yaxis"]["ticktext"]  # log-axis labels written out, not a bare "5"
    assert any(t.get("name") == "waiting" for t in figs[1]["data"])
    assert "jobs running" in figs[2]["layout"]["title"]["text"]
    assert list(at.dataframe[0].value.index) == FAST
    table = at.dataframe[0].value  # readable headers, numbers rounded for the page
    assert list(table.columns[:2]) == ["avg JCT h", "p95 JCT h"]
    assert (table["avg JCT h"] == table["avg JCT h"].round(2)).all()


def test_shares_are_percentages_as_in_the_cli():
    """GPU util read 0.53 on the page where the CLI printed 52.8%: every share column is in percent,
    to one place, and shown with a % sign."""
    import json

    from core.cluster import SHARES, make_cluster, run_schedulers, summarize
    from core.cluster.traces import load_trace
    from core.topology import make_topology
    from dashboard.sources import DEFAULT_SOURCE
    at = _open()
    table = at.dataframe[0].value
    config = json.loads(at.dataframe[0].proto.columns)
    top = make_topology(DEFAULT_SOURCE.spec)  # the sidebar's topology, untouched by _open
    runs = run_schedulers(make_cluster(top, 4), load_trace("synthetic:jobs=24,seed=1,rate=12"), FAST)
    for key, header in (("gpu_util", "GPU util"), ("comm_share", "comm share")):
        assert key in SHARES
        assert config[header]["type_config"]["format"] == "%.1f%%"
        assert table[header].tolist() == [round(100 * summarize(r)[key], 1) for r in runs]
    assert (table["GPU util"] > 1).all()


def test_every_column_has_one_precision_and_it_is_the_clis(capsys):
    """Each column of the page's table is shown with one number of places (core.cluster.DECIMALS), so the page
    reads as the CLI's text table, cell for cell (st.dataframe showed 18.2 beside 18.23 before)."""
    import json

    from core.cli import main
    from core.cluster import DECIMALS
    from dashboard.screens.cluster import COLUMNS
    from dashboard.sources import DEFAULT_SOURCE
    at = _open()
    table = at.dataframe[0].value
    config = json.loads(at.dataframe[0].proto.columns)
    assert main(["cluster", "--topology", DEFAULT_SOURCE.spec, "--trace", "synthetic:jobs=24,seed=1,rate=12",
                 "--scheduler", ",".join(FAST)]) == 0
    lines = capsys.readouterr().out.splitlines()[2:2 + len(FAST)]
    for key, header in COLUMNS.items():
        fmt = config[header]["type_config"]["format"]
        assert fmt == f"%.{DECIMALS[key]}f" + ("%%" if key in ("gpu_util", "comm_share") else "")
        on_page = [(fmt.replace("%%", "") % v) + ("%" if "%%" in fmt else "") for v in table[header]]
        cli = [line.split()[1 + list(COLUMNS).index(key)] for line in lines]
        assert on_page == cli, header


def test_time_slider_changes_the_snapshot():
    at = _open()
    at.slider(key="cluster:time").set_value(0.0).run()
    first = charts(at)[2]["layout"]["title"]["text"]
    at.slider(key="cluster:time").set_value(at.slider(key="cluster:time").max).run()
    last = charts(at)[2]["layout"]["title"]["text"]
    assert first != last and "0 jobs running" in last


def _drawn_colours(tr: dict) -> set[str]:
    """The colours a trace puts on the picture: its line where it draws lines, its markers where it draws points."""
    xs = [v for v in tr.get("x", []) if v is not None and v == v]
    if not xs:
        return set()
    mode, out = tr.get("mode", "lines"), set()
    if "lines" in mode:
        out.add(tr["line"]["color"])
    if "markers" in mode:
        c = tr["marker"]["color"]
        out |= set(c) if isinstance(c, (list, tuple)) else {c}
    return out


def _legend(fig: dict) -> dict[str, set[str]]:
    """Legend entry name -> the colours its sample shows (a trace with no point has no entry in plotly's legend)."""
    out = {}
    for tr in fig["data"]:
        if tr.get("showlegend", True) and len(tr.get("x", [])):
            mode = tr.get("mode", "lines")
            out[tr["name"]] = ({tr["line"]["color"]} if "lines" in mode else set()) | (
                {tr["marker"]["color"]} if "markers" in mode and isinstance(tr["marker"]["color"], str) else set())
    return out


def test_every_colour_of_the_snapshot_has_a_legend_entry_and_every_running_job_one():
    """Trial 12: BCube(3,1), 60 jobs, fifo+first-fit at 11 h showed 15 jobs running but a legend of 3 (only the
    jobs with links: a trace with no point gets no entry) and one "servers" entry for servers in 12 colours. Now
    every colour drawn is a legend entry's, every running job has one, and one whose colour shows nowhere (no links,
    only on servers another job fills) says so."""
    from core.cluster import make_cluster, run_schedulers, snapshot
    from core.cluster.traces import load_trace
    from core.topology import make_topology
    from dashboard.sources import DEFAULT_SOURCE
    at = _open(**{"keep:cluster.trace": "synthetic:jobs=60,seed=0", "keep:cluster.schedulers": ["fifo+first-fit"]})
    at.slider(key="cluster:time").set_value(10.97).run()
    fig = charts(at)[2]
    (res,) = run_schedulers(make_cluster(make_topology(DEFAULT_SOURCE.spec), 4), load_trace("synthetic:jobs=60,seed=0"),
                            ["fifo+first-fit"])
    running = snapshot(res, 10.97 * 3600)
    assert len(running) > 3 and f"{len(running)} jobs running" in fig["layout"]["title"]["text"]
    legend = _legend(fig)
    drawn = set().union(*(_drawn_colours(tr) for tr in fig["data"])) - {"white"}  # the background's, under shared links
    assert drawn <= set().union(*legend.values())
    assert fig["layout"]["showlegend"] is True
    jobs = [n for n in legend if n.split(" (")[0] in {j["job_id"] for j in running}]
    assert len(jobs) == len(running) and len(set().union(*(legend[n] for n in jobs))) == len(running)
    several = sum(len([j for j in running if v in j["nodes"]]) > 1 for v in range(200))
    assert several and "server running several jobs" in legend  # ringed in black, filled by its largest job
    for n in jobs:  # a job whose colour shows nowhere says so
        assert (legend[n] <= drawn) != n.endswith(", on a shared server"), n


@pytest.mark.parametrize("state, says", [
    ({"keep:cluster.trace": "synthetic:jobs=0"}, "jobs must be an integer >= 1"),
    ({"keep:cluster.trace": "csv:/no/such.csv"}, "the dashboard reads no trace file on the server"),
    ({"keep:cluster.trace": "synthetic:jobs=160,seed=0,max_gpus=32", "keep:cluster.gpus": 1}, "needs 32 GPUs, but the cluster has 9"),
])
def test_bad_input_is_an_error_line_and_the_page_keeps_running(state, says):
    at = _open(**state)
    assert not at.exception
    assert len(at.error) == 1 and says in shown(at.error[0].value)
    at.session_state["keep:cluster.trace"] = "synthetic:jobs=12,seed=2"
    at.session_state["keep:cluster.gpus"] = 4
    at.run()
    assert not at.error and len(charts(at)) == 4
    assert any("a preempted job's later waits count in JCT only" in c.value for c in at.caption)  # trial 29


def _upload(at, name: str, raw: bytes, kind: str = "csv", options: str = ""):
    at.radio(key="w:cluster.trace_from").set_value("uploaded file").run()
    at.selectbox(key="w:cluster.trace_kind").set_value(kind)
    at.text_input(key="w:cluster.trace_options").set_value(options)
    return at.file_uploader(key="cluster:upload").set_value((name, raw, "text/csv")).run()


def test_bad_csv_trace_row_is_an_error_line():
    raw = b"arrival_s,gpus,model,iterations\n100,4,resnet50,1000\n50,4,resnet50,1000\n"
    at = _upload(_open(), "back.csv", raw)
    assert not at.exception
    assert len(at.error) == 1
    assert shown(at.error[0].value).startswith("back.csv: row 2 (job j1): arrival_s 50 is earlier than row 1's 100")
    assert "trace-" not in at.error[0].value  # the temporary file it was read from is not named


@pytest.mark.parametrize("trace, upload, says", [
    ("csv:/no/such.csv", None, "'csv:/no/such.csv': the dashboard reads no trace file on the server; choose "
                               "\"uploaded file\" to use a CSV, Philly or Helios trace, or type synthetic:jobs=N,seed=S"),
    (None, ("x.json", b"hello\n", "philly"), "x.json: not a Philly cluster_job_log (JSON): Expecting value: line 1 "
                                              "column 1 (char 0)"),
])
def test_a_trace_error_is_shown_alone(trace, upload, says):
    """Trial 9: after the specific error the page added a generic 'Change the trace, the GPUs per server, the
    schedulers or the topology.', which contradicted it ('choose uploaded file'). Only the error is shown."""
    at = _open(**({"keep:cluster.trace": trace} if trace else {}))
    if upload:
        at = _upload(at, upload[0], upload[1], kind=upload[2])
    assert not at.exception
    assert [shown(e.value) for e in at.error] == [says]
    assert not at.info and not at.warning


def test_an_uploaded_trace_is_simulated_with_its_options():
    """A trace file comes from the user's upload (CSV, Philly or Helios), with the loader's options."""
    from core.cluster import make_cluster, run_schedulers, summarize
    from core.cluster.traces import load_trace, write_csv_trace
    from core.topology import make_topology
    from dashboard.sources import DEFAULT_SOURCE
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "jobs.csv"
        write_csv_trace(load_trace("synthetic:jobs=30,seed=4,rate=12"), str(path))
        raw = path.read_bytes()
        want = load_trace(f"csv:{path},limit=20")
    at = _upload(_open(), "jobs.csv", raw, options="limit=20")
    assert not at.exception and not at.error, [e.value for e in at.error]
    runs = run_schedulers(make_cluster(make_topology(DEFAULT_SOURCE.spec), 4), want, FAST)
    assert at.dataframe[0].value["avg JCT h"].tolist() == [round(summarize(r)["avg_jct_h"], 2) for r in runs]


def _philly_job(i: int, attempts: bool = True) -> dict:
    """One Philly cluster_job_log record: 2 GPUs for 30 min, or (attempts=False) one that never ran."""
    timed = [{"start_time": f"2017-10-07 0{i}:05:00", "end_time": f"2017-10-07 0{i}:35:00",
              "detail": [{"ip": "m1", "gpus": ["gpu0", "gpu1"]}]}]
    return {"jobid": f"application_{i}", "submitted_time": f"2017-10-07 0{i}:00:00",
            "attempts": timed if attempts else []}


def test_an_uploaded_trace_is_titled_and_its_skipped_records_said_as_the_cli_says_them():
    """Trial 20's follow-up: the CLI's header names a file with the options it was read with and says run times are
    read as compute only, and a note counts the records a Philly/Helios reader skipped; the page said neither (a
    3-record log ran as 2 jobs, unsaid). One caption says both, from the same core functions."""
    import json
    from core.cluster.traces import RUN_TIMES
    raw = json.dumps([_philly_job(1), _philly_job(2, attempts=False), _philly_job(3)]).encode()
    at = _upload(_open(), "my_log.json", raw, kind="philly", options="model=vgg16")
    assert not at.exception and not at.error, [e.value for e in at.error]
    said = [shown(c.value) for c in at.caption if shown(c.value).startswith("Trace ")]
    assert said == [f"Trace my_log.json (model=vgg16; 2 jobs; {RUN_TIMES}). my_log.json: 1 of 3 records skipped: "
                    "no attempt with start and end time."]
    at = _upload(at, "my_log.json", json.dumps([_philly_job(1), _philly_job(3)]).encode(), kind="philly")
    said = [shown(c.value) for c in at.caption if shown(c.value).startswith("Trace ")]
    assert said == [f"Trace my_log.json (models drawn with seed=0; 2 jobs; {RUN_TIMES})."]
    at = _open()  # a synthetic draw: its spec is in the box above, no title caption
    assert not any(shown(c.value).startswith("Trace ") for c in at.caption)


def test_a_path_on_the_server_is_never_read_nor_echoed(tmp_path):
    """The trace box took csv:PATH, philly:PATH, helios:PATH: any file the server can read, and an error could
    quote a line of it (a Helios file's header). Only synthetic specs are typed; files are uploaded."""
    secret = tmp_path / "secret.csv"
    secret.write_text("SECRET-LINE,a,b\nx,y\n")
    for trace in (f"helios:{secret}", f"csv:{secret}", f"philly:{secret}", str(secret)):
        at = _open(**{"keep:cluster.trace": trace})
        assert not at.exception
        assert len(at.error) == 1 and "reads no trace file on the server" in at.error[0].value
        assert "SECRET" not in at.error[0].value


def test_an_error_is_plain_text_not_markdown():
    """'*' and '_' in what the user typed stay as typed (they were emphasis), '<b>' is shown (it was dropped)."""
    from dashboard.labels import plain
    at = _open(**{"keep:cluster.trace": "synthetic:jobs=2*3_x_,seed=<b>"})
    (err,) = at.error
    assert "2\\*3\\_x\\_" in err.value and "\\<b\\>" in err.value
    assert err.value == plain(shown(err.value))  # every Markdown character escaped, nothing else
    assert "2*3_x_,seed=<b>" in shown(err.value)


def test_gpus_per_server_take_the_clis_bounds():
    from core.cluster import GPUS_PER_SERVER, make_cluster
    at = _open()
    box = at.number_input(key="w:cluster.gpus")
    assert (box.min, box.max) == GPUS_PER_SERVER == (1, 64)
    with pytest.raises(Exception, match="1..64"):
        make_cluster("bcube:n=3,k=1", 65)
    at.number_input(key="w:cluster.gpus").set_value(32).run()  # above the old limit of 16
    assert not at.error and len(charts(at)) == 4


def test_topdrl_is_left_out_with_a_note_on_a_cluster_its_network_does_not_read():
    """With 8 GPUs per server the page (topdrl in its default schedulers) showed only TopDRL's error (trial 12)."""
    at = _open(**{"keep:cluster.gpus": 8, "keep:cluster.schedulers": FAST + ["topdrl"]})
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert list(at.dataframe[0].value.index) == FAST
    assert any("topdrl left out: its network was built for 4 GPUs per server, the cluster has 8" in c.value
               for c in at.caption)
    at.number_input(key="w:cluster.gpus").set_value(4).run()
    assert list(at.dataframe[0].value.index) == FAST + ["topdrl"]


def test_the_default_trace_runs_on_a_small_cluster():
    """On a 6-server topology the page's default trace (a 32-GPU job against 24 GPUs) showed only an error (trial
    12): the synthetic draw is capped at the cluster's GPUs, and the page says so."""
    at = _open(**{"keep:cluster.trace": "synthetic:jobs=60,seed=0", "keep:cluster.gpus": 2})  # the default topology: 9 servers
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("GPU demands capped at 18, the cluster's GPUs" in shown(c.value) and "max_gpus=18" in shown(c.value)
               for c in at.caption)
    assert list(at.dataframe[0].value.index) == FAST


def _job(i: int, node: int) -> dict:
    return {"job": i, "job_id": f"j{i}", "gpus": 1, "nodes": [node], "gpus_on": [1], "edges": []}


def test_switches_have_a_colour_no_job_has_and_the_legend_is_in_job_order():
    """Trial 13: switches were orange like job j30 (#FF9616 beside #FF7F0E) and the legend followed the order jobs
    started in. Every job colour is now at least APART from the snapshot's own colours, and the legend is by job."""
    import math

    from dashboard import cluster_figures as cf
    own = (cf.EDGE, cf.SERVER, cf.SWITCH, cf.IDLE, cf.SHARED)
    assert all(math.dist(cf._rgb(c), cf._rgb(o)) >= cf.APART for c in cf.JOB_COLOURS for o in own)
    assert cf.job_colour(30) != cf.SWITCH and len(set(cf.JOB_COLOURS)) == len(cf.JOB_COLOURS) >= 40
    x, y = np.arange(4.0), np.zeros(4)
    fig = cf.snapshot_figure(x, y, np.array([[0, 1], [1, 2]]), np.array([True, True, True, False]),
                             ["s0", "s1", "s2", "w"], [_job(10, 0), _job(2, 1), _job(7, 2)]).to_dict()
    entries = [tr["name"] for tr in fig["data"] if tr.get("showlegend", True) and tr["name"].startswith("j")]
    assert entries == ["j2 (1 GPU)", "j7 (1 GPU)", "j10 (1 GPU)"]
    (switches,) = [tr for tr in fig["data"] if tr["name"] == "switches"]
    assert switches["marker"]["color"] == cf.SWITCH


def test_the_page_says_when_running_jobs_share_a_colour():
    from dashboard import cluster_figures as cf
    from dashboard.screens.cluster import repeat_note
    n = len(cf.JOB_COLOURS)
    running = [_job(3, 0), _job(5, 1), _job(3 + n, 2), _job(3 + 2 * n, 3)]
    assert cf.shared_colours(running) == [["j3", f"j{3 + n}", f"j{3 + 2 * n}"]]
    assert repeat_note(running) == (f" Colours repeat every {n} jobs (in trace order): j3, j{3 + n} and j{3 + 2 * n} "
                                    "share a colour here; hover to tell them apart.")
    assert cf.shared_colours(running[:2]) == [] and repeat_note(running[:2]) == ""


def test_each_scheduler_has_one_colour_in_every_chart_and_the_box_plot_says_its_dashed_line_is_the_mean():
    """The JCT boxes took plotly's colours by trace order and the contention lines the job colours: one scheduler had
    two colours on one page (new-user trial 19). The box plot's dashed line (plotly's boxmean) is the mean, said."""
    at = _open()
    figs = charts(at)
    boxes = {t["name"]: {t.get("marker", {}).get("color"), t.get("line", {}).get("color")}
             for t in figs[0]["data"] if t["type"] == "box"}
    lines: dict[str, set[str]] = {}
    for t in figs[3]["data"]:
        lines.setdefault(t["name"].split(":")[0], set()).add(t["line"]["color"])
    assert set(boxes) == set(lines) == set(FAST)
    assert all(len(boxes[n]) == 1 and boxes[n] == lines[n] for n in FAST), (boxes, lines)
    assert len({c for n in FAST for c in boxes[n]}) == len(FAST)  # and the schedulers' colours differ
    alone = _open(**{"keep:cluster.schedulers": FAST[1:]})  # a scheduler keeps its colour whichever others are picked
    assert {t["name"]: t.get("marker", {}).get("color") for t in charts(alone)[0]["data"]}[FAST[1]] in boxes[FAST[1]]
    assert any("dashed line the mean" in c.value for c in at.caption)


def test_the_default_list_holds_ours_and_its_baseline_and_one_draw_says_how_they_compare():
    """On the defaults ours read as second worst, 29.5% above sjf+timed, its own ring baseline, which was not in the
    default list (trial 19): the default list holds it, and the one-draw note gives both numbers on this seed."""
    from dashboard.screens.cluster import DEFAULT_SCHEDULERS
    assert DEFAULT_SCHEDULERS[-2:] == ["sjf+timed", "ours"]
    at = _open(**{"keep:cluster.schedulers": ["sjf+timed", "ours"]})
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    ours, base = table.loc["ours", "avg JCT h"], table.loc["sjf+timed", "avg JCT h"]
    note = [c.value for c in at.caption if c.value.startswith("One trace is one draw")]
    assert len(note) == 1 and f"{ours:.2f} h against {base:.2f} h for sjf+timed" in note[0], note
    assert f"{abs(ours / base - 1) * 100:.1f}% {'lower' if ours < base else 'higher'}" in note[0]
    assert "Seeds" in note[0]


def test_seeds_show_each_schedulers_mean_and_how_often_it_beat_sjf_timed():
    """Seeds = 3 runs the trace's seed and the next two: per scheduler the mean over them and on how many seeds its
    average JCT was below sjf+timed's (run for the table when not picked), as core computes them."""
    from core.cluster import load_trace, make_cluster, run_schedulers, summarize
    from core.topology import make_topology
    at = _open(**{"keep:cluster.seeds": 3})
    assert not at.exception and not at.error, [e.value for e in at.error]
    seeds = at.dataframe[1].value
    cluster = make_cluster(make_topology("bcube:n=3,k=1"), 4)
    names = FAST + ["sjf+timed"]
    jct = {n: [] for n in names}
    for seed in (1, 2, 3):
        trace = load_trace(f"synthetic:jobs=24,rate=12,seed={seed}", cluster.n_gpus)
        for n, r in zip(names, run_schedulers(cluster, trace, names)):
            jct[n].append(summarize(r)["avg_jct_h"])
    assert list(seeds.index) == names
    for n in FAST:
        assert seeds.loc[n, "mean avg JCT h"] == pytest.approx(np.mean(jct[n]), abs=0.006)
        beat = sum(a < b for a, b in zip(jct[n], jct["sjf+timed"]))
        assert seeds.loc[n, "beat sjf+timed"] == f"{beat} of 3"
    assert seeds.loc["sjf+timed", "beat sjf+timed"] == "baseline"
    assert any("sjf+timed was run for this table only" in c.value for c in at.caption)
    assert not any(c.value.startswith("One trace is one draw") for c in at.caption)


def test_seeds_times_jobs_are_guarded():
    at = _open(**{"keep:cluster.seeds": 5, "keep:cluster.trace": "synthetic:jobs=61,seed=0"})
    assert at.number_input(key="w:cluster.seeds").max == 5
    assert [e.value for e in at.error] == ["Seeds x jobs must be at most 300: 5 seeds x 61 jobs = 305; showing one "
                                           "seed."]
    assert len(at.dataframe) == 1 and any(c.value.startswith("One trace is one draw") for c in at.caption)


def test_identical_rows_from_one_allreduce_are_explained_as_the_cli_explains_them():
    """Trial 25: on fattree:k=4 ours ran every job with ring, so its row equals sjf+timed's; the CLI now says why
    under its table, and the page says the same (it said nothing)."""
    from core.cluster import make_cluster, run_schedulers, same_allreduce_note
    from core.cluster.traces import load_trace
    from core.topology import make_topology
    names = ["ours", "sjf+timed"]
    at = _open(**{"keep:cluster.schedulers": names})
    at.radio(key="w:source_mode").set_value("Spec").run()
    at.text_input(key="w:spec").set_value("fattree:k=4").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    table = at.dataframe[0].value
    assert list(table.index) == names and table.loc["ours"].tolist() == table.loc["sjf+timed"].tolist()
    runs = run_schedulers(make_cluster(make_topology("fattree:k=4"), 4),
                          load_trace("synthetic:jobs=24,seed=1,rate=12"), names)
    note = same_allreduce_note(runs)
    assert note and "ours and sjf+timed have identical rows: ours ran every job that spans servers with ring" in note
    # the schedulers' names as the CLI writes them, the first too (trial 28: "Sjf+closest and sjf+timed read ...")
    assert [c for c in at.caption if shown(c.value) == note + "."], [c.value for c in at.caption]
    # and the one-draw line calls equal averages the same (trial 26: "40.85 h against 40.85 h ... 0.0% higher")
    (draw,) = [shown(c.value) for c in at.caption if c.value.startswith("One trace is one draw")]
    assert "(the same placement with ring AllReduce): the same on this seed." in draw and "0.0%" not in draw, draw
    at.text_input(key="w:spec").set_value("bcube:n=4,k=2").run()  # ours uses a tree there: no note
    assert not any("identical rows" in shown(c.value) for c in at.caption)


def test_the_inputs_survive_a_visit_to_another_page():
    """Trial 26: after How merging works and back, the trace and the schedulers were the defaults again (Streamlit
    drops a widget's state on a run that does not draw it); the sidebar's topology and the other pages' state
    survived the same trip."""
    at = goto(open_app(None), "cluster")  # no state set from outside: AppTest would set it again on every run
    at.text_input(key="w:cluster.trace").set_value("synthetic:jobs=12,seed=3").run()
    at.multiselect(key="w:cluster.schedulers").set_value(["gadget", "sjf+closest"]).run()
    at.number_input(key="w:cluster.gpus").set_value(2).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    before = at.dataframe[0].value
    goto(at, "merging")
    assert not at.exception
    goto(at, "cluster")
    assert not at.exception and not at.error and not at.warning, [w.value for w in at.warning]
    assert at.text_input(key="w:cluster.trace").value == "synthetic:jobs=12,seed=3"
    assert at.multiselect(key="w:cluster.schedulers").value == ["gadget", "sjf+closest"]
    assert at.number_input(key="w:cluster.gpus").value == 2
    assert at.dataframe[0].value.equals(before)


def test_an_empty_uploaded_file_is_said_to_be_empty_as_the_cli_says():
    """Trial 29: an empty upload (b"") read as no upload and got "the dashboard reads no trace file on the server"."""
    at = _upload(_open(), "empty.csv", b"")
    assert not at.exception
    errors = [shown(e.value) for e in at.error]
    assert len(errors) == 1 and "empty" in errors[0] and "reads no trace file" not in errors[0], errors


def test_an_uploaded_trace_gets_no_seeds_advice():
    """Trial 29: under an uploaded file's results the one-draw note told the user to set Seeds, an input that mode
    does not have (a file has no seed)."""
    from core.cluster.traces import load_trace, write_csv_trace
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "jobs.csv"
        write_csv_trace(load_trace("synthetic:jobs=12,seed=4,rate=12"), str(path))
        raw = path.read_bytes()
    at = _upload(_open(**{"keep:cluster.schedulers": ["sjf+timed", "ours"]}), "jobs.csv", raw)
    assert not at.exception and not at.error, [e.value for e in at.error]
    notes = [c.value for c in at.caption if c.value.startswith("One trace")]
    assert len(notes) == 1 and notes[0].startswith("One trace file is one sample"), notes
    assert "Seeds" not in notes[0] and "seed" not in notes[0] and "on this trace" in notes[0], notes


def test_topdrl_results_follow_the_checkpoint_on_disk(monkeypatch):
    """Trial 29: `cluster_runs` was cached by its arguments alone, so after `cluster-train --force` rewrote the
    checkpoint the page kept the old picker's results for a trace it had run. The cache is keyed by the checkpoint's
    version, as the round-model RL's results are (`data.by_checkpoint`)."""
    from dashboard import data
    from dashboard.sources import DEFAULT_SOURCE
    calls = []
    versions = iter([("a",), ("a",), ("b",)])
    monkeypatch.setattr(data, "checkpoint_version", lambda stem: next(versions))
    monkeypatch.setattr("core.cluster.run_schedulers",
                        lambda cluster, trace, names: calls.append(names) or [len(calls)] * len(names))
    data._cluster_runs.clear()
    spec = "synthetic:jobs=6,seed=1"
    first = data.cluster_runs(DEFAULT_SOURCE, 4, spec, ("topdrl",))
    again = data.cluster_runs(DEFAULT_SOURCE, 4, spec, ("topdrl",))
    retrained = data.cluster_runs(DEFAULT_SOURCE, 4, spec, ("topdrl",))
    assert first == again == {"topdrl": 1} and retrained == {"topdrl": 2} and len(calls) == 2
    data.cluster_runs(DEFAULT_SOURCE, 4, spec, ("sjf+closest",))  # no TopDRL: no version read (the iterator is done)
    data._cluster_runs.clear()


def test_the_page_names_topdrls_checkpoint_as_the_cli_does():
    """Trial 29: the page gave no hint that TopDRL's picker was trained on another cluster."""
    from core.cluster.topdrl import trained_note, trained_on
    at = _open(**{"keep:cluster.schedulers": ["topdrl"]})
    assert not at.exception and not at.error, [e.value for e in at.error]
    said = [shown(c.value) for c in at.caption if shown(c.value).startswith("topdrl: ")]
    # the page's default: BCube(3,1), 4 GPUs
    assert said == [trained_note("bcube:n=3,k=1 x4 GPUs", trained_on()) + "."], said
    assert "untested on this cluster" in said[0]


def _own_checkpoint(tmp_path, monkeypatch, **sidecar):
    """The shipped TopDRL weights under a sidecar of the user's (`sidecar`: keys set, None: key dropped), put where the
    page's TopDRL reads its checkpoint, as `cluster-train`'s default --out puts the user's own."""
    import json
    import shutil

    import core.cluster.topdrl as topdrl
    shipped = Path(topdrl.__file__).resolve().parents[2] / "checkpoints" / "topdrl" / "topdrl"
    meta = json.loads(shipped.with_suffix(".json").read_text())
    for k, v in sidecar.items():
        meta.pop(k, None) if v is None else meta.__setitem__(k, v)
    folder = tmp_path / str(len(list(tmp_path.iterdir())))
    folder.mkdir()
    stem = folder / "topdrl"
    shutil.copy(shipped.with_suffix(".safetensors"), stem.with_suffix(".safetensors"))
    stem.with_suffix(".json").write_text(json.dumps(meta))
    monkeypatch.setattr(topdrl, "default_checkpoint", lambda: stem)


def test_the_page_says_what_the_users_own_topdrl_checkpoint_was_trained_on_or_that_it_cannot_tell(tmp_path,
                                                                                                   monkeypatch):
    """fix32a: the note under the results is read from the sidecar of the checkpoint TopDRL ran, the user's own where
    cluster-train wrote it in place of the shipped one: here one trained on this very cluster. Where its sidecar does
    not name the cluster, the page (and the CLI: core's trained_note) says plainly that it cannot tell (it read "trained on  ()"). The schedulers' help
    no longer says "shipped checkpoint" alone."""
    _own_checkpoint(tmp_path, monkeypatch, cluster="bcube:n=3,k=1 x4 GPUs", kept_iteration=3,
                    train_traces="synthetic:jobs=40,rate=6,seed=7..9")
    at = _open(**{"keep:cluster.schedulers": ["topdrl"]})
    assert not at.exception and not at.error, [e.value for e in at.error]
    said = [shown(c.value) for c in at.caption if shown(c.value).startswith("topdrl: ")]
    assert said == ["topdrl: checkpoints/topdrl/topdrl (iteration 3), trained on this cluster with "
                    "synthetic:jobs=40,rate=6 traces."], said
    assert "yours where cluster-train wrote it there" in at.multiselect(key="w:cluster.schedulers").help
    _own_checkpoint(tmp_path, monkeypatch, cluster=None, train_traces=None, kept_iteration=None)
    at = _open(**{"keep:cluster.schedulers": ["topdrl"]})
    assert not at.exception and not at.error, [e.value for e in at.error]
    said = [shown(c.value) for c in at.caption if shown(c.value).startswith("topdrl: ")]
    assert said == ["topdrl: checkpoints/topdrl/topdrl (iteration not given): its sidecar does not say which cluster "
                    "it was trained on, so whether it was this one is unknown; compare it with sjf+closest "
                    "(docs/cluster.md §6)."], said


def test_the_trained_note_of_a_sidecar_without_its_cluster_says_it_is_unknown_for_the_cli_too():
    """core's trained_note, which the CLI prints under its table and in its JSON, read "trained on  ()" and "(iteration
    )" for a sidecar without those fields (fix32a left it to the page): one rule for both now."""
    from core.cluster.topdrl import trained_note
    bare = trained_note("bcube:n=2,k=1 x4 GPUs", {"checkpoint": "mine"})
    assert bare == ("topdrl: mine (iteration not given): its sidecar does not say which cluster it was trained on, so "
                    "whether it was this one is unknown; compare it with sjf+closest (docs/cluster.md §6)")
    full = {"checkpoint": "mine", "kept_iteration": 0, "cluster": "bcube:n=2,k=1 x4 GPUs",
            "train_traces": "synthetic:jobs=8,seed=1..2"}
    assert trained_note("bcube:n=2,k=1 x4 GPUs", full) == ("topdrl: mine (iteration 0), trained on this cluster with "
                                                          "synthetic:jobs=8 traces")
