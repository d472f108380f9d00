"""Truthful notes: what a gap is measured against, proven or not, which RL checkpoint ran."""

from __future__ import annotations

import math
import re

from dashboard import labels


def test_optimal_results_say_whether_they_are_proven_with_their_bound():
    proven = {"status": "OPTIMAL", "proven_optimal": True, "proven_bound": 12}
    assert labels.optimal_note(proven, 10) == "proven optimal (lower bound 12 met)"
    limited = {"status": "FEASIBLE", "proven_optimal": False, "proven_bound": 40}
    note = labels.optimal_note(limited, 10)
    assert note.startswith("NOT proven optimal: CP-SAT stopped at the 10 s time limit (deterministic seconds of work, "
                           "the same on any machine) and found a schedule but did not prove it the shortest (status "
                           "FEASIBLE)")
    unknown = labels.optimal_note({**limited, "status": "UNKNOWN"}, 10)  # trial 22: what UNKNOWN means, in words
    assert ("found no schedule of its own within the limit, so the result is its starting schedule, critical-path's "
            "(status UNKNOWN)") in unknown
    assert "between 40 and this result" in note
    assert labels.optimal_note({"checkpoint": "x"}) is None  # not a CP-SAT result
    warm = {"status": "BOUND_MET_BY_WARM_START", "proven_optimal": True, "proven_bound": 4}  # CP-SAT never ran
    assert labels.optimal_note(warm, 10) == ("proven optimal (lower bound 4 met by the warm start, critical-path's "
                                             "schedule: CP-SAT not needed)")


def test_rl_results_name_their_checkpoint_and_where_it_was_trained():
    here = {"checkpoint": "/a/checkpoints/bcube_n3_k1.safetensors", "trained_on": "bcube:n=3,k=1"}
    assert labels.checkpoint_note(here, "bcube:n=3,k=1") == "checkpoint bcube_n3_k1, trained on this topology"
    elsewhere = labels.checkpoint_note(here, "bcube:n=4,k=1")
    assert elsewhere == "checkpoint bcube_n3_k1, trained on bcube:n=3,k=1, NOT on this one"
    flagged = dict(here, trained_on_this_topology=False)  # the scheduler's own flag wins: on its own spec, a failed link
    assert labels.checkpoint_note(flagged, "bcube:n=3,k=1") == (
        "checkpoint bcube_n3_k1, trained on bcube:n=3,k=1 with every link up, not with a failed link")  # trial 22: no NOT
    assert labels.checkpoint_note(flagged, "bcube:n=3,k=1,bw=100/25").endswith("with every link up, not with a failed "
                                                                                "link")  # link speeds aside
    carried = dict(flagged, file_spec={"spec": "bcube:n=3,k=1", "used": True, "why_not": None,
                                       "links": "link 1 (s01-sw0.0) is failed"})
    assert labels.checkpoint_note(carried, "upload:f.json").startswith(
        "checkpoint bcube_n3_k1, trained on bcube:n=3,k=1 with every link up, not with a failed link; the file's graph")
    unused = dict(carried, file_spec={"spec": "bcube:n=3,k=1", "used": False, "why_not": "x", "links": None})
    assert "NOT on this one" in labels.checkpoint_note(unused, "upload:f.json")  # a file that is not the spec's
    # Compare's caption says it the same way (one classifier, `labels.checkpoint_fit`): not as a borrowed checkpoint
    assert labels.checkpoints_line("Hierarchical RL", [("BCube(3,1)", flagged, "bcube:n=3,k=1")]) == (
        "Hierarchical RL ran checkpoint bcube_n3_k1, trained on bcube:n=3,k=1 with every link up, on BCube(3,1), not "
        "trained with a failed link.")
    assert "NOT trained on this one" in labels.checkpoints_line("Hierarchical RL", [("DCell(4,1)", here,
                                                                                      "dcell:n=4,k=1")])
    assert labels.checkpoint_note({"status": "OPTIMAL"}, "x") is None
    universal = {"checkpoint": "checkpoints/universal.safetensors", "trained_on_this_topology": False,
                 "trained_on": ["bcube:n=2,k=1", "dcell:n=3,k=1", "bcube:n=3,k=1|capacity=1..2,seed=1"]}
    # trained across topologies, it is the default on any other: said as information, not as a mismatch (trial 14)
    assert (labels.checkpoint_note(universal, "leafspine:leaves=4,spines=2,servers=4")
            == "checkpoint universal, trained on 3 other topologies (bcube, dcell), not on this one (as meant: a "
               "checkpoint trained across topologies is the default on any other)")
    assert "NOT" in labels.checkpoint_note(dict(here, trained_on=["bcube:n=3,k=1"]), "dcell:n=4,k=1")  # one topology


def test_a_cards_checkpoint_note_is_brief_and_keeps_the_whole_note_for_its_tooltip():
    """Trial 22: an uploaded DCell(6,1) file with a failed link gave RL's card a 7-line note at 1280 px. A card says
    which checkpoint ran and how it fits, in a few words, pointing to its tooltip, which holds the whole note (the
    CLI's wording, unchanged); nothing to point to when the brief note is the whole note."""
    here = {"checkpoint": "bcube_n3_k1", "trained_on": "bcube:n=3,k=1"}
    carried = dict(here, trained_on_this_topology=False, kept_start=True,
                   file_spec={"spec": "bcube:n=3,k=1", "used": True, "why_not": None,
                              "links": "link 1 (s01-sw0.0) is failed"})
    notes, details = labels.card_notes("rl", carried, "upload:f.json")
    assert notes == ["checkpoint bcube_n3_k1, untrained (iteration 0) on the intact network; details:"]
    assert details == labels.checkpoint_note(carried, "upload:f.json") and "iteration 0" in details
    assert labels.card_notes("rl", here, "bcube:n=3,k=1") == (["checkpoint bcube_n3_k1, trained on this topology"],
                                                              None)
    assert labels.checkpoint_brief(here, "dcell:n=4,k=1") == "checkpoint bcube_n3_k1, NOT trained on this topology"
    universal = {"checkpoint": "universal", "trained_on": ["bcube:n=2,k=1", "dcell:n=3,k=1"]}
    assert labels.checkpoint_brief(universal, "x") == ("checkpoint universal, trained on other topologies (the "
                                                       "default here)")
    assert labels.card_notes("ring", {}, "x") == ([], None)


def test_a_cards_brief_checkpoint_note_says_when_training_kept_the_starting_weights():
    """Trial 23: on dcell:n=6,k=1 RL's card read "checkpoint dcell_n6_k1, trained on this topology; details:" while
    its training kept the starting weights (iteration 0: the heuristic prior alone); only the tooltip said so."""
    here = {"checkpoint": "dcell_n6_k1", "trained_on": "dcell:n=6,k=1", "kept_start": True}
    assert labels.checkpoint_brief(here, "dcell:n=6,k=1") == ("checkpoint dcell_n6_k1, untrained (iteration 0) on "
                                                              "this topology")
    assert labels.checkpoint_brief(here, "bcube:n=3,k=1") == ("checkpoint dcell_n6_k1, untrained (iteration 0), of "
                                                              "another topology")
    assert labels.checkpoint_brief({"checkpoint": "x", "kept_start": True}, "s") == "checkpoint x, untrained (iteration 0)"
    universal = {"checkpoint": "u", "trained_on": ["bcube:n=2,k=1", "dcell:n=3,k=1"], "kept_start": True}
    assert labels.checkpoint_brief(universal, "x") == ("checkpoint u, untrained (iteration 0) on other topologies (the "
                                                       "default here)")


def test_gap_note_names_the_dag_and_its_bound():
    stats = {"lower_bound": 16, "bounds": {"link_load": 16, "critical_path": 9}}
    assert labels.gap_note("ring", stats) == ("gap vs the lower bound of its own DAG (the ring): 16 rounds, set by the "
                                              "link load (link load 16, critical path 9; docs/model.md §6)")
    # every closed-form bound, and which sets it (trial 32: fig3's 5 beside "link load 4, critical path 4" alone)
    fig3 = {"lower_bound": 5, "bounds": {"link_load": 4, "critical_path": 4, "ports": 3, "link_schedule": 5,
                                         "best": 5}}
    assert labels.gap_note("critical-path", fig3) == (
        "gap vs the lower bound of its own DAG (merged trees): 5 rounds, set by the link schedule (link load 4, "
        "critical path 4, ports 3, link schedule 5; docs/model.md §6)")
    tied = {"lower_bound": 4, "bounds": {"link_load": 4, "critical_path": 4, "ports": 2, "link_schedule": 4}}
    assert "set by the link load, the critical path and the link schedule (" in labels.gap_note("ps", tied)
    proven = dict(fig3, lower_bound=6)
    assert labels.gap_note("optimal", proven).startswith(
        "gap vs the lower bound of its own DAG (merged trees): 6 rounds, proven by CP-SAT, above the closed-form bounds "
        "(link load 4,")
    assert labels.dag_name("ps") == "unmerged trees" and labels.dag_name("critical-path") == "merged trees"
    # a result names the DAG it was scheduled on: time-aware may pick a ring
    from core.topology import make_topology
    from core.workloads import build_dag
    t = make_topology("bcube:n=2,k=1")
    assert labels.dag_name("time-aware", build_dag(t, "ring")) == "the ring"
    assert labels.dag_name("time-aware", build_dag(t, "tree")) == "merged trees"
    assert labels.dag_name("critical-path", build_dag(t, "tree", merge=False)) == "unmerged trees"


def test_plain_escapes_what_markdown_would_act_on_and_nothing_else():
    from apptest_tools import shown
    from dashboard.labels import plain
    typed = "csv:/data/run_1/*.csv: row 2 <b>x</b> $5 ~a~ [l](u) `c` # h |t| a\\b"
    out = plain(typed)
    assert shown(out) == typed  # read back, it is what was typed
    bare = re.sub(r"\\.", "", out)  # what is left outside the escapes
    assert not set("*_<>$~[]`#|:\\") & set(bare) and set(bare) == set(typed) - set("*_<>$~[]`#|:\\")
    assert plain("BCube(3,1) has 15 nodes.") == "BCube(3,1) has 15 nodes."
    assert plain("two\nlines") == "two  \nlines"  # a line break stays a line break


def test_a_checkpoint_with_a_dot_in_its_name_is_named_whole():
    """my.model was cut to "my" (Path.stem), trial 13."""
    dotted = {"checkpoint": "my.model", "trained_on_this_topology": True}
    assert labels.checkpoint_note(dotted, "x") == "checkpoint my.model, trained on this topology"


def test_times_beside_each_other_share_the_largest_ones_unit():
    """Issue 12: ns beside µs on one screen. One unit for several methods' times: the one core.units.time_unit picks
    for the largest; the smaller read as decimals, never in scientific notation."""
    unit = labels.shared_unit([9.96e-7, 1.12e-6, float("nan")])
    assert unit == ("µs", 1e6)
    assert [labels.seconds(x, unit=unit) for x in (9.96e-7, 1.12e-6)] == ["0.996 µs", "1.12 µs"]
    assert labels.seconds(9.96e-7) == "996 ns"  # alone, its own unit (the tooltips)
    assert labels.shared_unit([0.5, 2.0]) == ("s", 1.0) and labels.seconds(0.5, unit=("s", 1.0)) == "0.500 s"
    assert labels.shared_unit([7.1e-11, 1.6e-10]) == ("ps", 1e12)
    assert labels.seconds(3e-12, signed=True, unit=("ms", 1e3)) == "+0.000000003000 ms"  # no 3e-09
    assert labels.shared_unit([]) == ("ms", 1e3)


def test_the_shared_unit_has_no_rule_of_its_own_on_which_values_count(monkeypatch):
    """`shared_unit` is `time_unit` of the largest value; which values count (NaN not, a negative as its size) is
    `core.units.magnitudes`' rule alone: swapped for one that leaves out infinities too, the shared unit follows it
    (it filtered NaN and took absolute values itself, a second copy of the rule)."""
    from core import units
    assert units.magnitudes([-2e-3, float("nan"), 1e-6]) == [2e-3, 1e-6]
    assert labels.shared_unit([float("nan"), -2e-3, 1e-6]) == ("ms", 1e3)  # the largest by size, NaN first
    assert labels.shared_unit([math.inf, 1e-6]) == ("s", 1.0)
    rule = units.magnitudes
    monkeypatch.setattr(units, "magnitudes", lambda values: [x for x in rule(values) if math.isfinite(x)])
    assert labels.shared_unit([math.inf, 1e-6]) == ("µs", 1e6)


def test_the_seconds_gap_help_says_which_bound_sets_the_gap():
    """Trial 33: the rounds axis's help said "set by the link schedule", the seconds axis's listed its bounds alone."""
    bounds = {"bandwidth": 0.06, "link": 0.08, "latency": 8e-06, "critical_path": 0.080008, "best": 0.080008}
    assert labels.time_gap_note(bounds) == ("gap vs the best lower bound in seconds (set by the critical path): "
                                            "bandwidth 60.0 ms, busiest link 80.0 ms, latency 8.00 µs, critical path "
                                            "80.0 ms")
    rounds = {"rounds": 5, "round_s": 0.02, "bound_s": 0.1}
    assert labels.time_gap_note(bounds, rounds).startswith("gap vs the best lower bound in seconds (set by the sync "
                                                           "rounds): ")
    tied = dict(bounds, link=0.080008)
    assert "(set by the busiest link and the critical path)" in labels.time_gap_note(tied)



def test_the_gap_help_names_the_link_of_the_link_schedule_bound():
    """Trial 32: the bound 5 of Fig. 3 is the link schedule's, on A->B (docs/model.md §9); the help says so, as the CLI."""
    from core.methods import run_method
    from core.topology import make_topology
    s = run_method("critical-path", make_topology("example:fig3"))
    assert labels.gap_note("critical-path", s.stats(), s.dag).endswith(
        "5 rounds, set by the link schedule (link load 4, critical path 4, ports 3, link schedule 5 on link A->B; "
        "docs/model.md §6)")
