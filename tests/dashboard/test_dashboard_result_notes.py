"""Notes the pages show beside a result, said as the CLI says them: a checkpoint that kept its starting weights, and
a method on other routes left out of Compare's best gap."""

from __future__ import annotations

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
    (line,) = [c.value for c in at.caption if "checkpoint dcell_n5_k1" in c.value]
    assert KEPT_START in line


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


def test_the_sampling_note_names_samples_temperature_and_a_split_opening_as_core_shows_them():
    from core.schedule import show_opening
    split = [None, {"temperature": 0.5, "fraction": 0.3, "rounds": 4, "of_rounds": 12}]
    note = labels.sampling_note({"samples": 16, "temperature": 1.0, "opening": split})
    assert note == f"best of greedy and 16 samples at T = 1 after openings {show_opening(split)}"
    assert note.startswith("best of greedy and 16 samples at T = 1 after openings none,0.5:0.3 (a split")
    one = {"temperature": 1.0, "fraction": 0.3, "rounds": 4, "of_rounds": 12}
    assert labels.sampling_note({"samples": 4, "temperature": [0.2, 1.0], "opening": one}) == (
        "best of greedy and 4 samples at T = 0.2,1 after an opening 1:0.3 (T = 1 in the first 4 of 12 rounds, "
        "the greedy rollout's)")
    assert labels.sampling_note({"samples": 4, "temperature": 1.0, "opening": None}).endswith("T = 1")
    assert labels.sampling_note({"samples": 0}) is None and labels.sampling_note(KEPT) is None  # greedy rl, others


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
    assert f"best of greedy and {info['samples']} samples at T = {temp(info)} after openings {show(info)}" in line.split(" · ")


def test_debugger_names_rl_samples_opening(monkeypatch):
    sampled_rl(monkeypatch)
    at = open_app("debugger")
    at.radio(key="w:debug.method").set_value("rl-sample").run()
    info = _rl_sample_info()
    assert (f"RL, best of samples: best of greedy and 16 samples at T = {temp(info)} after openings {show(info)}."
            in [c.value for c in at.caption])


def test_compare_notes_name_rl_samples_opening(monkeypatch):
    sampled_rl(monkeypatch)
    at = open_app("compare")
    at.radio(key="w:compare.scope").set_value("The topology in the sidebar").run()
    at.multiselect(key="w:compare.methods").set_value(["critical-path", "rl-sample"]).run()
    info = _rl_sample_info()
    assert (f"- BCube(3,1), RL, best of samples: best of greedy and 16 samples at T = {temp(info)} after openings {show(info)}"
            in texts(at).splitlines())


def show(info: dict) -> str:
    from core.schedule import show_opening
    return show_opening(info["opening"])


def temp(info: dict) -> str:
    from core.schedule import show_temperature
    return show_temperature(info["temperature"])
