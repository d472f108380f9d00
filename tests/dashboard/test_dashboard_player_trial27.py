"""Trial 27, the Schedule player on an uploaded 8-server network with two ToRs and links at 10, 25, 50 and 100 Gbit/s:
its cards' numbers read as the CLI prints them, its links are named as the CLI takes them, time-aware joins the
defaults where link speeds differ, a refused change says the cards are the failure-free run, and a seeded method's
card says its seed."""

from __future__ import annotations

import re
from pathlib import Path

from apptest_tools import metric, open_app, shown

from core import cli

TWO_TOR = Path(__file__).resolve().parents[2] / "docs" / "examples" / "two-tor.json"
NET = TWO_TOR.read_bytes()
"""The trial's net.json, kept as docs/examples/two-tor.json."""


def net_file(tmp_path: Path) -> str:
    return f"file:{TWO_TOR}"


def uploaded(methods: list[str] | None = None):
    """The player on the trial's upload (its methods picked, where given)."""
    at = open_app()
    at.radio(key="w:source_mode").set_value("Upload").run()
    at.file_uploader(key="upload").set_value(("net.json", NET, "application/octet-stream")).run()
    if methods is not None:
        at.multiselect(key="w:player.methods").set_value(methods).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_busbw_card_reads_as_the_cli_prints_it(tmp_path, capsys):
    """Trial 27: PS's card read ``busbw (MB/s) 1e+03`` where the CLI printed ``busbw 999.66 MB/s`` (a ``:.3g``
    format); the card now takes the CLI's text (`core.units.rate_in`), and so does its help's algbw."""
    code, out = cli.main(["schedule", net_file(tmp_path), "--method", "ps"]), capsys.readouterr().out
    assert code == 0
    (line,) = [x for x in out.splitlines() if x.strip().startswith("async")]
    algbw, unit, busbw = re.search(r"algbw +([\d.]+) (\S+) +busbw +([\d.]+) ", line).groups()
    at = uploaded(["ps", "ring"])
    at.segmented_control(key="w:player.axis").set_value("seconds").run()
    assert not at.exception and not at.error
    assert busbw == "999.66"  # the trial's figure
    assert metric(at, f"busbw ({unit})")[0] == busbw
    card = next(m for m in at.metric if m.label == f"busbw ({unit})")
    assert f"algbw {algbw} {unit}" in card.help


def test_the_link_picker_names_links_as_the_cli_takes_them():
    """Trial 27: the CLI, --fail-links and the player's own error box say ``tor0-tor1`` (a hyphen), the Links picker
    listed ``8 · tor0–tor1`` (an en dash), so typing the CLI's name into it found nothing. Every option now names its
    link as core's parser reads it back (`core.topology.degrade.link_name`)."""
    from core.topology import parse_topology_bytes
    from core.topology.degrade import link_ids

    at = uploaded()
    (picker,) = [m for m in at.multiselect if m.key.startswith("w:player.links:")]
    t = parse_topology_bytes(NET, "net.json", "file:net.json")
    assert "8 · tor0-tor1 · 50 Gbit/s" in picker.options  # a file's links are of one level: not said (trial 28)
    assert not [o for o in picker.options if "level" in o]
    for option in picker.options:
        e, name = option.split(" · ")[:2]
        assert link_ids(t, name).tolist() == [int(e)]
    picker.set_value([8]).run()
    assert "**Link 8 (tor0-tor1) fails at 0.5 ms**" in [m.value.split(":")[0] for m in at.markdown]


def test_time_aware_joins_the_players_defaults_where_link_speeds_differ_as_compare_adds_it():
    """Trial 27: on links of different speeds Compare and the CLI's compare add time-aware with a note, the player
    kept PS, Ring and RL (280-373 ms where the CLI's time-aware took 140 ms with the uplink at x0.1). By Compare's
    rule (`data.uneven_reason`, `core.compare.uneven_extra`) it now joins the player's defaults, in place of PS (three
    methods at most), with Compare's note; on one speed the defaults are PS, Ring, RL again, and a list the user
    picked stays theirs."""
    from core.compare import uneven_links
    from core.topology import parse_topology_bytes
    from dashboard.screens.player import page_defaults

    def picked() -> list[str]:
        return at.multiselect(key="w:player.methods").value

    def note() -> list[str]:
        return [shown(c.value) for c in at.caption if "join" in c.value and "the default methods" in c.value]

    at = open_app()
    even = page_defaults(False, rl_ok="rl" in picked())
    assert picked() == even and not note()
    at.radio(key="w:source_mode").set_value("Upload").run()
    at.file_uploader(key="upload").set_value(("net.json", NET, "application/octet-stream")).run()
    assert not at.exception
    assert picked() == even[1:] + ["time-aware"]
    why = uneven_links("net.json", parse_topology_bytes(NET, "net.json", "file:net.json"))
    assert note() == [f"Time-aware (HEFT) joins the default methods in place of Parameter Server: link bandwidths "
                      f"differ ({why}), and it plans by each link's speed, which rounds alone do not see (as Compare "
                      "and the CLI's compare add it); pick up to 3 methods in the sidebar."]
    assert [m.value for m in at.markdown if m.value.startswith("##### ")][-1] == "##### Time-aware (HEFT)"
    at.radio(key="w:source_mode").set_value("Table 2 preset").run()  # one speed: time-aware goes again
    assert picked() == even and not note()
    at.multiselect(key="w:player.methods").set_value(["ps", "ring"]).run()  # the user's own list
    at.radio(key="w:source_mode").set_value("Upload").run()
    assert picked() == ["ps", "ring"] and not note()


def test_a_refused_change_says_the_cards_below_are_the_failure_free_run():
    """Trial 27: failing tor0-tor1 and gpu3-gpu4 (which cuts four servers off) showed a clear red box in the
    expander, but the method cards below it silently showed the failure-free run. A warning above them says so; a
    change that applies has none."""
    at = uploaded(["ps", "ring"])
    (picker,) = [m for m in at.multiselect if m.key.startswith("w:player.links:")]
    picker.set_value([8, 9]).run()
    assert not at.exception
    # trial 28: the box says when, as the CLI's refusal does (the default moment is 0.5 ms, at a time)
    (error,) = [e.value for e in at.error if "Cannot apply this change" in e.value]
    assert error.startswith("Cannot apply this change at 0.5 ms: failed links 8 (tor0-tor1), 9 (gpu3-gpu4) cut off 4 "
                            "of 8 servers"), error
    (warning,) = [w.value for w in at.warning if "failure-free" in w.value]
    assert warning == ("The link change above was refused: the methods below play the failure-free run, on the "
                       "network as it is.")
    assert not [m for m in at.markdown if "each method re-plans" in m.value]
    picker.set_value([9]).run()  # gpu3-gpu4 alone leaves every server connected
    assert not at.error and not [w for w in at.warning if "failure-free" in w.value]
    assert [m for m in at.markdown if "each method re-plans" in m.value]


def test_a_seeded_methods_card_says_its_seed():
    """Trial 27: PS read 23 rounds here and 25.2 in Compare (the mean of 5 seeds), and its card did not say which
    seed it ran. A seeded method's card caption says it (``seed 0``, the sidebar's Seed), on the rounds and seconds
    axes and with a link change; an unseeded method's says no seed."""
    at = uploaded(["ps", "ring"])

    def seeds() -> list[str]:
        return [c.value for c in at.caption if "seed " in c.value]

    got = seeds()
    assert len(got) == 1 and got[0].endswith(" · seed 0") and "vs bound" in got[0]
    at.number_input(key="w:player.seed").set_value(4).run()
    got = seeds()
    assert len(got) == 1 and got[0].endswith(" · seed 4")
    at.segmented_control(key="w:player.axis").set_value("seconds").run()
    assert len(seeds()) == 1 and seeds()[0].endswith(" · seed 4")
    (picker,) = [m for m in at.multiselect if m.key.startswith("w:player.links:")]
    picker.set_value([9]).run()
    assert not at.exception and not at.error
    assert len(seeds()) == 1 and seeds()[0].endswith(" · seed 4")


def test_the_tree_legend_lists_the_trees_by_their_roots():
    """Trial 28: on the two-ToR file with the ring shown first, the legend read "tree of gpu7, tree of gpu0, ..."
    (the ring DAG's order); it lists the trees by their roots, each in its own colour still."""
    from apptest_tools import charts

    from core.methods import run_method
    from core.schedule import ScheduleConfig
    from core.topology import parse_topology_bytes
    from dashboard.figures import tree_colour
    at = uploaded(["ring"])
    assert not at.exception
    entries = [t for t in charts(at)[0]["data"] if str(t.get("name", "")).startswith("tree of ")]
    assert [t["name"] for t in entries] == [f"tree of gpu{i}" for i in range(8)]
    ring = run_method("ring", parse_topology_bytes(NET, "net.json", "file:net.json"), ScheduleConfig())
    labels = [f"gpu{i}" for i in range(8)]
    for t in entries:  # each root's colour is its tree's, whatever the DAG's order
        i = [int(r) for r in ring.dag.tree_root].index(labels.index(t["name"][8:]))
        assert t["marker"]["color"] == tree_colour(i)
