"""Notes the pages show beside a result, said as the CLI says them: a checkpoint that kept its starting weights, and
a method on other routes left out of Compare's best gap."""

from __future__ import annotations

import pytest
from apptest_tools import open_app, texts

from core.compare import compare_topology
from core.schedule import Plan, ScheduleConfig
from core.schedulers.learned import KEPT_START
from core.topology import make_topology
from dashboard import labels

KEPT = {"checkpoint": "dcell_n5_k1", "trained_on": ["dcell:n=5,k=1"], "trained_on_this_topology": True,
        "kept_start": True}
"""A learned method's info as `core.schedulers.learned` writes it for a checkpoint that kept iteration 0 (DCell(5,1),
DCell(6,1), BCube(5,1))."""


def kept_start_rl(monkeypatch) -> None:
    """Core's `rl` and `rl-sample` replaced by the stand-in, whose results carry `KEPT`."""
    import fake_rl

    from core.methods import METHODS

    def plan(dag, config, progress=None):
        got = fake_rl.fake_rl_plan(dag, config, progress)
        return Plan(got.rounds, info=dict(KEPT), trace=got.trace)

    for name in ("rl", "rl-sample"):
        monkeypatch.setitem(METHODS, name, fake_rl.stand_in(name, plan))


def test_the_checkpoint_note_says_when_training_kept_the_starting_weights():
    note = labels.checkpoint_note(KEPT, "dcell:n=5,k=1")
    assert note == f"checkpoint dcell_n5_k1, trained on this topology; {KEPT_START}"
    assert "iteration 0" in note and "kept" not in labels.checkpoint_note(dict(KEPT, kept_start=False), "x")


def test_player_says_the_checkpoint_kept_its_starting_weights(monkeypatch):
    kept_start_rl(monkeypatch)
    at = open_app("player")
    at.multiselect(key="w:player.methods").set_value(["critical-path", "rl"]).run()
    (line,) = [c for c in at.caption if "checkpoint dcell_n5_k1" in c.value]
    # the card says the checkpoint briefly (trial 22), its training's kept start included (trial 23); the whole note
    # is its caption's tooltip
    assert line.value.endswith("checkpoint dcell_n5_k1, untrained (iteration 0) on this topology; details:"), line.value
    assert line.proto.help == f"checkpoint dcell_n5_k1, trained on this topology; {KEPT_START}"


def test_debugger_says_the_checkpoint_kept_its_starting_weights(monkeypatch):
    kept_start_rl(monkeypatch)
    at = open_app("debugger")
    assert any(c.value == f"Hierarchical RL: checkpoint dcell_n5_k1, trained on this topology; {KEPT_START}."
               for c in at.caption)


def test_compare_notes_say_the_checkpoint_kept_its_starting_weights(monkeypatch):
    kept_start_rl(monkeypatch)
    at = open_app("compare")
    at.radio(key="w:compare.scope").set_value("The topology in the sidebar").run()
    at.multiselect(key="w:compare.methods").set_value(["critical-path", "rl"]).run()
    assert (f"- BCube(3,1), Hierarchical RL: checkpoint dcell_n5_k1, trained on this topology; {KEPT_START}"
            in texts(at).splitlines())


def test_compare_says_a_method_on_other_routes_is_left_out_of_the_best_gap(missing_rl):
    """time-aware picks balanced routes on BCube(4,1) (18 rounds against the shortest routes' bound of 24): the page
    names its routes and its own DAG's bound, and leaves it out of the best gap (core: e448229)."""
    at = open_app("compare")
    at.selectbox(key="w:preset").set_value("BCube(4,1)").run()
    at.radio(key="w:compare.scope").set_value("The topology in the sidebar").run()
    at.multiselect(key="w:compare.methods").set_value(["critical-path", "time-aware"]).run()
    row = compare_topology(make_topology("bcube:n=4,k=1"), ["critical-path", "time-aware"], seeds=5,
                           config=ScheduleConfig(time_limit=10.0), name="BCube(4,1)")
    own = row.results["time-aware"]
    assert own.other_dag and own.rounds < row.lower_bound  # else this test shows nothing
    assert (f"- BCube(4,1), Time-aware (HEFT): chose {own.other_dag} routes; the table's bound is for the flow-tree "
            f"DAG the others schedule, so it is left out of best gap (its own DAG's bound: {own.own_bound})"
            in texts(at).splitlines())
    assert (f"Time-aware (HEFT) scheduled another DAG than the lower bound's on BCube(4,1) ({own.other_dag} routes): "
            "the bound is not one for it, so it is left out of the best gap (its own DAG's bound: Sizes and notes)."
            in texts(at).splitlines())
    frame = at.dataframe[0].value
    cp = row.results["critical-path"].rounds
    assert frame.iloc[0]["best gap %"] == 100 * (cp / row.lower_bound - 1)  # critical-path's, not time-aware's


def sampled_rl(monkeypatch) -> None:
    """Core's `rl-sample` replaced by the stand-in, whose results carry rl-sample's samples, temperature and opening
    as `core.schedulers.learned` writes them (the run's config's opening: by default the split ``none,0.5:0.3``, a
    list with the rounds each covered)."""
    import fake_rl

    from core.methods import METHODS
    from core.schedule import opening_rounds, openings, temperatures

    def plan(dag, config, progress=None):
        got = fake_rl.fake_rl_plan(dag, config, progress)
        n = len(got.rounds)
        said = [None if o is None else {"temperature": o[0], "fraction": o[1], "rounds": opening_rounds(o, n),
                                        "of_rounds": n} for o in openings(config.opening)]
        ts = temperatures(config.temperature)
        info = dict(KEPT, kept_start=False, samples=config.samples, temperature=ts[0] if len(ts) == 1 else list(ts),
                    opening=said[0] if len(said) == 1 else said)
        return Plan(got.rounds, info=info, trace=got.trace)

    monkeypatch.setitem(METHODS, "rl-sample", fake_rl.stand_in("rl-sample", plan))


def test_the_sampling_note_says_samples_temperature_and_a_split_opening_in_plain_words():
    """Trial 26: "best of greedy and 16 samples at T = 0.2 after openings none,0.5:0.3 (a split: sample k takes item
    k mod 2, counting from 0; ...)" was hard to parse. In words: how many rollouts, at which temperature, which
    samples drew their first rounds at another, what was kept; the option as typed in parentheses."""
    split = [None, {"temperature": 0.5, "fraction": 0.3, "rounds": 4, "of_rounds": 12}]
    assert labels.sampling_note({"samples": 16, "temperature": 0.2, "opening": split}) == (
        "sampled 16 rollouts, each pick drawn at temperature 0.2; every second sample (samples 1, 3, …, counting from "
        "0) drew its first 4 rounds at 0.5 instead; kept the shortest, or the greedy rollout where none was shorter "
        "(--opening none,0.5:0.3; 30% of the greedy rollout's 12 rounds, rounded up, is 4)")
    one = {"temperature": 1.0, "fraction": 0.3, "rounds": 4, "of_rounds": 12}
    assert labels.sampling_note({"samples": 4, "temperature": [0.2, 1.0], "opening": one}) == (
        "sampled 4 rollouts, each pick drawn at temperatures 0.2 and 1, the samples taking them in turn; every sample "
        "drew its first 4 rounds at 1 instead; kept the shortest, or the greedy rollout where none was shorter "
        "(--opening 1:0.3; 30% of the greedy rollout's 12 rounds, rounded up, is 4)")
    assert labels.sampling_note({"samples": 4, "temperature": 1.0, "opening": None}) == (
        "sampled 4 rollouts, each pick drawn at temperature 1; kept the shortest, or the greedy rollout where none was "
        "shorter")
    assert "a split" not in labels.sampling_note({"samples": 16, "temperature": 0.2, "opening": split})
    assert labels.sampling_note({"samples": 0}) is None and labels.sampling_note(KEPT) is None  # greedy rl, others
    assert labels.kept_note({"samples": 6, "kept_rollout": "sample 5", "rollout_rounds": [10, 11, 12, 13, 14, 15, 9]}) \
        == "kept sample 5 (of 0-5; no opening), the 6th: 9 rounds, the greedy rollout 10"
    assert labels.kept_note({"samples": 4, "kept_rollout": "greedy", "rollout_rounds": [10, 11, 12, 13, 14]}) == (
        "kept the greedy rollout: 10 rounds, no sample was shorter")


def _rl_sample_info(at_spec: str = "bcube:n=3,k=1", samples: int = 16) -> dict:
    """The info the stand-in rl-sample carries on BCube(3,1) with the dashboard's default config."""
    from core.methods import run_method
    from core.topology import make_topology
    return run_method("rl-sample", make_topology(at_spec), ScheduleConfig(samples=samples)).info


def test_player_names_rl_samples_opening(monkeypatch):
    sampled_rl(monkeypatch)
    at = open_app("player")
    at.multiselect(key="w:player.methods").set_value(["critical-path", "rl-sample"]).run()
    info = _rl_sample_info()
    assert isinstance(info["opening"], list)  # the default: a split
    (line,) = [c.value for c in at.caption if "checkpoint dcell_n5_k1" in c.value]
    assert labels.sampling_note(info) in line.split(" · ")


def test_debugger_names_rl_samples_opening(monkeypatch):
    sampled_rl(monkeypatch)
    at = open_app("debugger")
    at.radio(key="w:debug.method").set_value("rl-sample").run()
    info = _rl_sample_info()
    assert any(c.value.startswith(f"RL, best of samples: {labels.sampling_note(info)}.") for c in at.caption)


def test_compare_notes_name_rl_samples_opening(monkeypatch):
    sampled_rl(monkeypatch)
    at = open_app("compare")
    at.radio(key="w:compare.scope").set_value("The topology in the sidebar").run()
    at.multiselect(key="w:compare.methods").set_value(["critical-path", "rl-sample"]).run()
    info = _rl_sample_info()
    assert f"- BCube(3,1), RL, best of samples: {labels.sampling_note(info)}" in texts(at).splitlines()


# ---- a topology file carrying a spec: the checkpoint went by the spec or not, said as `schedule` says it ------------
CARRIED_USED = {"spec": "bcube:n=3,k=1", "used": True, "why_not": None}
CARRIED_NOT = {"spec": "bcube:n=3,k=1", "used": False, "why_not": "link 2 (s02-sw0.0) has capacity 2, 1 in bcube:n=3,k=1"}
"""`info["file_spec"]` as `core.schedulers.learned` writes it for a file whose graph is its spec's, and for one whose
graph is not (a link's capacity edited)."""


def test_the_checkpoint_note_says_whether_the_checkpoint_went_by_the_spec_a_file_carries():
    from core.schedulers.learned import file_spec_text
    used = dict(KEPT, kept_start=False, checkpoint="bcube_n3_k1", file_spec=CARRIED_USED)
    assert labels.checkpoint_note(used, "upload:t.json") == (
        "checkpoint bcube_n3_k1, trained on this topology; the file's graph is that of the spec it carries, "
        "bcube:n=3,k=1: the checkpoint is chosen and judged as for that spec")
    other = {"checkpoint": "universal", "trained_on": ["bcube:n=3,k=1", "dcell:n=4,k=1"],
             "trained_on_this_topology": False, "file_spec": CARRIED_NOT, "kept_start": True}
    note = labels.checkpoint_note(other, "upload:t.json")
    assert f"; {file_spec_text(other)}; {KEPT_START}" in note  # in the CLI's order: the spec, then iteration 0
    assert "but its graph is not that spec's (link 2 (s02-sw0.0) has capacity 2, 1 in bcube:n=3,k=1)" in note
    assert "NOT" not in note  # information, not Compare's warning of a borrowed checkpoint
    assert "spec it carries" not in labels.checkpoint_note(KEPT, "dcell:n=5,k=1")  # no file, no line
    failed = dict(used, trained_on_this_topology=False,
                  file_spec=dict(CARRIED_USED, links="link 1 (s01-sw0.0) is failed"))  # trial 21's upload
    assert labels.checkpoint_note(failed, "upload:t.json").endswith(
        "the file's graph is that of the spec it carries, bcube:n=3,k=1, with its links' state changed (link 1 "
        "(s01-sw0.0) is failed): the checkpoint is chosen and judged as for that spec with --fail-links/--slow-links")


def carried_upload(at, edit=None):
    """Upload BCube(3,1) written as `topology bcube:n=3,k=1 --format json` writes it (the spec beside the graph; after
    `edit` of its dict) as t.json, in the sidebar of `at`."""
    import json

    from core.topology import to_dict
    doc = to_dict(make_topology("bcube:n=3,k=1"))
    assert doc["spec"] == "bcube:n=3,k=1"
    if edit is not None:
        edit(doc)
    at.radio(key="w:source_mode").set_value("Upload").run()
    at.file_uploader(key="upload").set_value(("t.json", json.dumps(doc).encode(), "application/octet-stream")).run()
    assert not at.exception and not at.error
    return at


def test_player_says_an_uploaded_files_graph_is_that_of_the_spec_it_carries():
    pytest.importorskip("torch")
    from core.schedulers.learned import file_spec_text
    at = carried_upload(open_app("player"))
    at.multiselect(key="w:player.methods").set_value(["critical-path", "rl"]).run()
    assert not at.exception
    (line,) = [c for c in at.caption if "checkpoint bcube_n3_k1" in c.value]
    assert f"; {file_spec_text({'file_spec': CARRIED_USED})}" in line.proto.help, line.proto.help  # the card's tooltip


def test_debugger_says_why_an_uploaded_files_spec_was_not_used():
    pytest.importorskip("torch")
    at = carried_upload(open_app("debugger"), edit=lambda d: d["links"][2].__setitem__(2, 2))
    (line,) = [c.value for c in at.caption if c.value.startswith("Hierarchical RL: checkpoint universal")]
    assert ("the file carries the spec bcube:n=3,k=1, but its graph is not that spec's (link 2 (s02-sw0.0) has "
            "capacity 2, 1 in bcube:n=3,k=1): the checkpoint is chosen and judged as for any file") in line, line


def test_compare_notes_say_an_uploaded_files_graph_is_that_of_the_spec_it_carries():
    pytest.importorskip("torch")
    from core.schedulers.learned import file_spec_text
    at = open_app("compare")
    at.radio(key="w:compare.scope").set_value("The topology in the sidebar").run()
    at = carried_upload(at)
    at.multiselect(key="w:compare.methods").set_value(["critical-path", "rl"]).run()
    assert not at.exception
    assert (f"- t.json, Hierarchical RL: checkpoint bcube_n3_k1, trained on this topology; "
            f"{file_spec_text({'file_spec': CARRIED_USED})}" in texts(at).splitlines())
