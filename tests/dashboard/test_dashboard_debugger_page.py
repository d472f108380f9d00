"""The Policy debugger on an RL schedule's trace, against a stand-in RL with a known trace and the real one."""

from __future__ import annotations

import json

import numpy as np
import pytest
from apptest_tools import charts, metric, open_app, texts, traces

from core.methods import run_method
from core.schedule import ScheduleConfig
from core.topology import make_topology

BCUBE = "bcube:n=3,k=1"


def both():
    t = make_topology(BCUBE)
    return run_method("rl", t, ScheduleConfig()), run_method("critical-path", t, ScheduleConfig())


def test_without_rl_the_page_says_so_and_keeps_running(missing_rl):
    at = open_app("debugger")
    assert [w.value for w in at.warning] == ["Hierarchical RL not available: the RL scheduler needs torch (No module named 'torch')"]
    assert not charts(at) and not at.exception


def test_overview_and_upper_agent_show_the_trace(stand_in_rl):
    at = open_app("debugger")
    rl, cp = both()
    trace = rl.trace
    assert metric(at, "Hierarchical RL") == [str(rl.n_rounds)]
    assert metric(at, "Critical-path") == [str(cp.n_rounds)]
    differ = sum(set(a.tolist()) != set(b.tolist()) for a, b in zip(rl.rounds, cp.rounds)) + abs(rl.n_rounds - cp.n_rounds)
    assert metric(at, "Rounds that differ") == [str(differ)]
    assert any(c.value.startswith(f"All four in rounds. Rounds that differ counts the rounds 1 to "
                                  f"{max(rl.n_rounds, cp.n_rounds)} ") for c in at.caption)  # trial 26: no unit
    probs_fig, round_fig = charts(at)[:2]
    (heat,) = traces(probs_fig, "heatmap")
    assert heat["z"].shape == (rl.n_rounds, rl.dag.n_trees)
    assert np.allclose(heat["z"], np.array(trace["tree_probs"]))
    (marks,) = traces(probs_fig, name="selected")
    assert len(marks["x"]) == sum(len(s) for s in trace["trees_selected"])
    at.slider(key="w:debug.round").set_value(3).run()
    round_fig = charts(at)[1]
    (bars,) = traces(round_fig, "bar")
    assert np.allclose(bars["y"], trace["tree_probs"][2])
    red = [i for i, c in enumerate(bars["marker"]["color"]) if c == "#e4002b"]
    assert red == sorted(trace["trees_selected"][2])


def test_lower_agent_steps_and_differences_from_critical_path(stand_in_rl):
    at = open_app("debugger")
    rl, cp = both()
    trace = rl.trace
    at.slider(key="w:debug.round").set_value(2).run()
    at.slider(key="w:debug.step").set_value(2).run()
    step = trace["steps"][1][1]
    scores_fig = charts(at)[2]
    (bars,) = traces(scores_fig, "bar")
    assert list(bars["x"]) == [f"#{w}" for w in step["candidates"]]
    assert np.allclose(bars["y"], step["scores"])
    steps_table = at.dataframe[0].value
    assert len(steps_table) == len(trace["steps"][1])
    cp_round = set(cp.rounds[1].tolist())
    assert list(steps_table["critical-path sends it too"]) == [s["chosen"] in cp_round for s in trace["steps"][1]]
    diff_fig = charts(at)[3]
    up, down = traces(diff_fig, "bar")
    n = max(rl.n_rounds, cp.n_rounds)
    only_rl = [len(set(rl.rounds[r].tolist() if r < rl.n_rounds else []) - set(cp.rounds[r].tolist() if r < cp.n_rounds else []))
               for r in range(n)]
    only_cp = [len(set(cp.rounds[r].tolist() if r < cp.n_rounds else []) - set(rl.rounds[r].tolist() if r < rl.n_rounds else []))
               for r in range(n)]
    assert list(up["y"]) == only_rl and list(-np.asarray(down["y"])) == only_cp
    only_rl_table, only_cp_table = at.dataframe[1].value, at.dataframe[2].value
    assert len(only_rl_table) == only_rl[1] and len(only_cp_table) == only_cp[1]
    # the tables' titles name the methods as the chart's legend does (trial 28: "only Critical-path" beside "Only
    # critical-path sends in round 2")
    assert [up["name"], down["name"]] == ["only Hierarchical RL", "only Critical-path"]
    assert {"**Only Hierarchical RL sends in round 2**", "**Only Critical-path sends in round 2**"} <= {
        m.value for m in at.markdown}


def test_rl_sample_runs_behind_a_progress_bar(stand_in_rl):
    at = open_app("debugger")
    at.radio(key="w:debug.method").set_value("rl-sample").run()
    at.number_input(key="w:debug.samples").set_value(4).run()
    assert metric(at, "RL, best of samples") == [str(both()[0].n_rounds)]


def test_real_rl_schedule_if_installed():
    try:
        rl, _ = both()
    except Exception as err:  # noqa: BLE001
        pytest.skip(f"RL scheduler not available: {err}")
    at = open_app("debugger")
    (heat,) = traces(charts(at)[0], "heatmap")
    assert heat["z"].shape == (rl.n_rounds, rl.dag.n_trees)
    assert metric(at, "Hierarchical RL") == [str(rl.n_rounds)]


def test_real_trace_explains_every_choice():
    """With the real RL: the upper agent's plain statement and its features table, the honest counts of a step
    (candidates scored, shown, ties and the rule), the chosen workload's score split into terms that add up to its
    score, and the candidates' feature values (issue 11, part 1)."""
    from core.rl import explain
    try:
        rl, _ = both()
    except Exception as err:  # noqa: BLE001
        pytest.skip(f"RL scheduler not available: {err}")
    trace = rl.trace
    at = open_app("debugger")
    at.slider(key="w:debug.round").set_value(2).run()
    at.slider(key="w:debug.step").set_value(3).run()
    assert trace["summary"]["upper"] in [i.value for i in at.info]
    frames = [f.value for f in at.dataframe]
    uppers = [f for f in frames if "tree" in f.columns]
    (split,) = [f for f in frames if "term: network" in f.columns]
    (values,) = [f for f in frames if "feature" in f.columns and "what it is" not in f.columns]
    (meant,) = [f for f in frames if "what it is" in f.columns]  # trial 26: the features' bare names said nothing
    (steps,) = [f for f in frames if "others tied at the top" in f.columns]
    # round 2's steps: the others tied with each step's top score, 0 where none is (trial 28: "1" read as a tie)
    assert list(steps["others tied at the top"]) == [st.get("n_tied", 1) - 1 for st in trace["steps"][1]]
    upper = explain.upper_table(trace, 1, [rl.dag.topology.labels[int(t)] for t in rl.dag.tree_root.tolist()])
    assert len(uppers) > 1 and all(list(u["tree"]) == [row["tree"] for row in upper] for u in uppers)
    for c in upper[0]:  # every column of the flow-trees' table is in one of the tables it is split into
        (u,) = [u for u in uppers if c in u.columns and c != "tree"] or [uppers[0]]
        assert list(u[c]) == [row[c] for row in upper], c
    assert list(uppers[0]["probability"]) == [round(p, 4) for p in trace["tree_probs"][1]]
    step = trace["steps"][1][2]
    note = explain.step_note(trace, 1, 2)
    assert f"{step['n_valid']} candidates scored" in note and any(note in c.value for c in at.caption)
    assert len(split) == len(step["candidates"]) == len(values.columns) - 1  # the values on their side
    (chosen,) = split[split["chosen"]].to_dict("records")
    assert chosen["workload"] == rl.dag.describe(step["chosen"])
    terms = sum(v for c, v in chosen.items() if c.startswith("term: "))
    assert abs(terms - chosen["score"]) < 2e-3  # the split adds up (terms rounded to 4 decimals)
    assert "term: network" in split.columns
    rows = explain.step_table(trace, 1, 2)
    assert list(values["feature"]) == [c.removeprefix("value: ") for c in rows[0] if c.startswith("value: ")]
    for row, column in zip(rows, values.columns[1:]):  # a column per candidate, headed by its id, chosen marked
        assert column == f"#{row['workload']}" + (" chosen" if row["chosen"] else "")
        assert list(values[column]) == [v for c, v in row.items() if c.startswith("value: ")]
    from core.rl.features import LOWER_MEANINGS
    assert list(meant["feature"]) == list(values["feature"])
    assert list(meant["what it is"]) == [LOWER_MEANINGS[f] for f in values["feature"]] and all(meant["what it is"])
    (split_el,) = [el for el in at.dataframe if "term: network" in el.value.columns]
    helps = {c: v.get("help", "") for c, v in json.loads(split_el.proto.columns).items()}
    for c in split.columns:
        if c.startswith("term: ") and c.removeprefix("term: ") in LOWER_MEANINGS:
            assert helps[c].endswith(f"; the feature: {LOWER_MEANINGS[c.removeprefix('term: ')]}"), (c, helps[c])
    assert list(steps["candidates"]) == [s["n_valid"] for s in trace["steps"][1]]
    assert list(steps["shown"]) == [len(s["candidates"]) for s in trace["steps"][1]]
    # "rounded to 4 decimals" is what every score, term, probability and feature value shows (16.2040, not 16.204)
    checked = 0
    for el in at.dataframe:
        frame, config = el.value, json.loads(el.proto.columns)
        floats = [c for c in frame.columns if frame[c].dtype.kind == "f"]
        assert all(config[c]["type_config"]["format"] == "%.4f" for c in floats), (floats, config)
        checked += bool(floats)
    assert checked == len(uppers) + 3  # the flow-trees' tables, the split, the feature values, every step
    if step["n_tied"] > 1:
        assert f"tied for the chosen score {step['score']:.4f};" in note


def test_the_checkpoint_box_shows_the_default_it_runs_with(stand_in_rl):
    """Trial 17: on first load the Checkpoint box read "Choose an option" (its value None, Streamlit's "nothing picked")
    although the page ran with the default checkpoint. It now shows its first option, the default, picked."""
    at = open_app("debugger")
    box = at.selectbox(key="w:debug.checkpoint")
    assert box.index == 0 and box.proto.HasField("default") and box.proto.default == 0
    assert box.options[0] == "bcube_n3_k1 (default)" or (box.options[0] == "default for this topology"
                                                          and box.options[1:] == [])  # no torch: no checkpoint named
    at.radio(key="w:debug.method").set_value("rl-sample").run()  # and it stays so across reruns
    assert at.selectbox(key="w:debug.checkpoint").index == 0 and not at.exception


def test_the_checkpoint_picker_runs_the_one_picked_and_says_which_ran():
    """Issue 12: the debugger ran only the default checkpoint (universal or a self-trained one could only be inspected
    with the CLI's --explain). The picker offers the checkpoints folder's (universal first), passes the name through
    ScheduleConfig.checkpoint as the CLI does, and the line under the numbers says which ran and whether it was
    trained on this topology; critical-path is the same schedule whatever is picked."""
    pytest.importorskip("torch")
    from core.rl.checkpoint import checkpoint_names
    at = open_app("debugger")
    box = at.selectbox(key="w:debug.checkpoint")
    # the default once, first (trial 26: "bcube_n3_k1 (default)" and "bcube_n3_k1" read as two checkpoints)
    assert box.options == ["bcube_n3_k1 (default)", *[
        n + (" (all families)" if n == "universal" else "") for n in checkpoint_names() if n != "bcube_n3_k1"]]
    assert "Hierarchical RL: checkpoint bcube_n3_k1, trained on this topology." in [c.value for c in at.caption]
    t = make_topology(BCUBE)
    cp = run_method("critical-path", t, ScheduleConfig()).n_rounds
    for name in ("universal", "dcell_n4_k1"):
        at.selectbox(key="w:debug.checkpoint").set_value(name).run()
        assert not at.exception and not at.warning
        want = run_method("rl", t, ScheduleConfig(checkpoint=name))
        assert want.info["checkpoint"] == name
        assert metric(at, "Hierarchical RL") == [str(want.n_rounds)] and metric(at, "Critical-path") == [str(cp)]
        notes = [c.value for c in at.caption if c.value.startswith("Hierarchical RL: checkpoint")]
        here = want.info["trained_on_this_topology"]  # universal was trained on BCube(3,1) too, DCell(4,1)'s not
        assert here == (name == "universal")
        assert notes == [f"Hierarchical RL: checkpoint {name}, trained on this topology."] if here else (
            len(notes) == 1 and notes[0].startswith(f"Hierarchical RL: checkpoint {name}, trained on dcell:")
            and notes[0].endswith(", NOT on this one."))
    at.selectbox(key="w:debug.checkpoint").set_value("").run()
    assert "Hierarchical RL: checkpoint bcube_n3_k1, trained on this topology." in [c.value for c in at.caption]


def test_an_unreadable_checkpoint_picked_is_one_warning_and_the_page_keeps_running(monkeypatch, tmp_path):
    """A sidecar without its weights (a training stopped half-way) is offered, and picking it says what is wrong."""
    pytest.importorskip("torch")
    import shutil

    from core.rl.checkpoint import checkpoint_dir
    for suffix in (".json", ".safetensors"):
        shutil.copy(checkpoint_dir() / f"universal{suffix}", tmp_path / f"universal{suffix}")
    shutil.copy(checkpoint_dir() / "universal.json", tmp_path / "half.json")
    monkeypatch.setenv("ALLREDUCE_LAB_CHECKPOINTS", str(tmp_path))
    at = open_app("debugger")
    # universal is the default here (no checkpoint trained on BCube(3,1) in this folder): listed once, first
    assert at.selectbox(key="w:debug.checkpoint").options == ["universal (default)", "half"]
    at.selectbox(key="w:debug.checkpoint").set_value("half").run()
    assert not at.exception and len(at.warning) == 1
    assert at.warning[0].value.startswith("Hierarchical RL not available: ") and "half" in at.warning[0].value
    assert "Pick another checkpoint in the sidebar." in [c.value for c in at.caption]


def test_the_flow_tree_axes_name_every_tree_that_fits_and_say_which_when_not(stand_in_rl):
    """Trial 13: DCell(4,1)'s 20 flow-trees in this round's bars (254 px wide at 1280 px) showed every other name:
    plotly drops category names under 1.2 x their font of room each. The axes now set their ticks (the player's rule,
    `axisnames.naming`): all 20 named in both charts; a 60-server Jellyfish's trees every k-th, and the caption says
    which."""
    from dashboard.axisnames import naming, ordinal
    from dashboard.screens.debugger import AXIS_PX
    at = open_app("debugger")
    at.radio(key="w:source_mode").set_value("Spec").run()
    for spec, n in (("dcell:4,1", 20), ("jellyfish:30,6,4", 60)):
        at.text_input(key="w:spec").set_value(spec).run()
        probs_fig, round_fig = charts(at)[:2]
        names = list(traces(probs_fig, "heatmap")[0]["x"])
        assert len(names) == n
        for fig, px, where in ((probs_fig, AXIS_PX["trees"], "heatmap"), (round_fig, AXIS_PX["round"], "bars")):
            ax, how = fig["layout"]["xaxis"], naming(n, px)
            assert ax["tickmode"] == "array" and list(ax["tickvals"]) == names[::how.stride] == list(ax["ticktext"])
            assert 1.2 * ax["tickfont"]["size"] <= how.stride * px / n
            said = f"every {ordinal(how.stride)} flow-tree is named under the {where}"
            assert (said in texts(at)) == (how.stride > 1)
        assert ("No room to name all" in texts(at)) == (n == 60)
    assert ("No room to name all 60 trees: every 2nd flow-tree is named under the heatmap; every 3rd flow-tree is "
            "named under the bars; hover for the rest.") in texts(at)


def test_the_step_scores_are_drawn_on_an_axis_around_them():
    """Trial 21: the real RL's first step on BCube(3,1) scores 5.6519 ... 5.6492; on an axis from 0 the eight bars
    looked identical. The axis now spans the scores, and the caption says it does not start at 0."""
    try:
        rl, _ = both()
    except Exception as err:  # noqa: BLE001
        pytest.skip(f"RL scheduler not available: {err}")
    scores = rl.trace["steps"][0][0]["scores"]
    at = open_app("debugger")
    layout = charts(at)[2]["layout"]
    lo, hi = layout["yaxis"]["range"]
    assert min(scores) - lo < max(scores) - min(scores) and hi - max(scores) < max(scores) - min(scores)
    assert any(f"The score axis starts at {lo:.4f}, not 0" in c.value for c in at.caption)


def test_the_step_table_and_the_checkpoint_box_are_readable_at_1280_px():
    """Trial 21 (DCell(6,1), 1280 px): the step table's "chosen" column was cut to "#2477 reduce s2.5->s2.4 (tree s5.0"
    and the Checkpoint box to "default for this topology (dcell_n". "chosen" is now as wide as its longest entry and
    the other columns narrow, all within the ~820-px page; the default option reads its checkpoint's name first."""
    try:
        rl, _ = both()
    except Exception as err:  # noqa: BLE001
        pytest.skip(f"RL scheduler not available: {err}")
    at = open_app("debugger")
    at.radio(key="w:source_mode").set_value("Spec").run()
    at.text_input(key="w:spec").set_value("dcell:n=6,k=1").run()
    assert at.selectbox(key="w:debug.checkpoint").options[0] == "dcell_n6_k1 (default)"
    (steps,) = [el for el in at.dataframe if "others tied at the top" in el.value.columns]
    config = json.loads(steps.proto.columns)
    longest = max(len(c) for c in steps.value["chosen"])
    assert config["chosen"]["width"] >= 7 * longest
    assert sum(config[c]["width"] for c in steps.value.columns) <= 800  # the page is ~820 px wide at 1280


def test_the_routing_option_reaches_the_debuggers_schedules(stand_in_rl):
    """The player and Compare took the CLI's routing since trial 21; the debugger built its trees with the default
    only, so on a fat-tree its RL and critical-path both crossed one core switch. The same option (one value shared
    with the other pages) and the same fat-tree line; the schedules follow it."""
    spec = "fattree:k=4"
    at = open_app("debugger")
    at.radio(key="w:source_mode").set_value("Spec").run()
    at.text_input(key="w:spec").set_value(spec).run()
    assert not at.exception and at.selectbox(key="w:routing").value == "shortest"
    assert any('Routing "balanced" spreads them' in i.value for i in at.info)
    t = make_topology(spec)
    cp = {m: run_method("critical-path", t, ScheduleConfig(routing=m)).n_rounds for m in ("shortest", "balanced")}
    assert cp["shortest"] != cp["balanced"]
    assert metric(at, "Critical-path") == [str(cp["shortest"])]
    at.selectbox(key="w:routing").set_value("balanced").run()
    assert not at.exception and not at.info
    assert metric(at, "Critical-path") == [str(cp["balanced"])]


def test_the_score_table_says_equal_looking_scores_may_differ():
    """Trial 22: two candidates shown at 5.6509, neither marked tied, read as a tie; the caption under the step's
    score table says that the 4 decimals may hide a difference and that only equal scores are tied."""
    pytest.importorskip("torch")  # the real trace: the score table is drawn where the trace explains a step
    from dashboard.screens.debugger import SAME_AT_FOUR
    at = open_app("debugger")
    assert not at.exception
    assert any(c.value.endswith(SAME_AT_FOUR) for c in at.caption), [c.value for c in at.caption]
