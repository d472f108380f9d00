"""The explanation trace: score splits that add up, ties shown as ties, honest counts, the upper agent."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from core.rl.explain import GREEDY_TIE_RULE, TERMS, step_note, step_table, summary, upper_table
from core.rl.policy import HierarchicalPolicy, PolicyConfig
from core.rl.rollout import play
from core.topology import make_topology
from core.workloads import build_dag


def dag_of(spec, chunks=1):
    return build_dag(make_topology(spec), "tree", chunks=chunks)


def trained_looking(seed=0, prior="heuristic"):
    """A policy with a heuristic skip path and a random MLP (a non-zero residual)."""
    torch.manual_seed(seed)
    pol = HierarchicalPolicy(PolicyConfig(hidden=16, prior=prior))
    for p in list(pol.lower.parameters()) + list(pol.upper.parameters()):
        torch.nn.init.normal_(p, std=0.3)
    return pol


@pytest.mark.parametrize("sample", [False, True])
def test_terms_add_up_to_the_score_and_the_chosen_is_always_shown(sample):
    dag = dag_of("dcell:n=4,k=1")
    ep = play(dag, trained_looking(), sample=sample, rng=np.random.default_rng(2), trace=True)
    tr = ep.trace
    assert tr["terms"] == list(TERMS) and len(TERMS) == len(tr["lower_features"]) + len(tr["dynamic_features"]) + 2
    n_steps = 0
    for steps in tr["steps"]:
        for s in steps:
            n_steps += 1
            assert s["chosen"] in s["candidates"]
            i = s["candidates"].index(s["chosen"])
            assert s["scores"][i] == pytest.approx(s["score"], abs=1e-4)
            for score, terms in zip(s["scores"], s["terms"]):
                assert sum(terms) == pytest.approx(score, abs=2e-3)
            assert len(s["candidates"]) <= min(8, s["n_valid"]) + 1
            assert s["n_valid"] >= len(s["candidates"]) - 1
            if not sample:  # greedy: the chosen is the best, and shown first
                assert s["rank"] == 0 and s["candidates"][0] == s["chosen"]
                assert s["scores"] == sorted(s["scores"], reverse=True)
    assert n_steps == dag.n  # one step per workload: every step is in the trace
    assert tr["summary"]["steps"] == dag.n


def test_network_residual_is_zero_for_the_untrained_prior_and_terms_name_the_heuristic():
    dag = dag_of("bcube:n=3,k=1")
    tr = play(dag, HierarchicalPolicy(PolicyConfig(prior="heuristic")), sample=False, trace=True).trace
    s = tr["steps"][0][0]
    t = dict(zip(tr["terms"], s["terms"][0]))
    f = dict(zip(tr["lower_features"] + tr["dynamic_features"], s["features"][0]))
    assert t["network"] == 0.0 and t["bias"] == 0.0
    # the prior: h = 5 (tail + link pressure), c_conflicts_valid = -5
    assert t["tail"] == pytest.approx(5 * f["tail"], abs=1e-3)
    assert t["link_pressure_max"] == pytest.approx(5 * f["link_pressure_max"], abs=1e-3)
    assert t["conflicts_valid"] == pytest.approx(-5 * f["conflicts_valid"], abs=1e-3)
    assert t["slack"] == 0.0


def test_ties_are_shown_as_ties_with_the_rule_that_broke_them():
    dag = dag_of("dcell:n=4,k=1")
    tr = play(dag, HierarchicalPolicy(PolicyConfig(prior="heuristic")), sample=False, trace=True).trace
    tied_steps = [s for r in tr["steps"] for s in r if s["n_tied"] > 1]
    assert tied_steps, "the untrained prior ties on DCell"
    r, k = next((r, k) for r, steps in enumerate(tr["steps"]) for k, s in enumerate(steps) if s["n_tied"] > 1)
    s = tr["steps"][r][k]
    assert f"{s['n_tied']} tied for the chosen score" in step_note(tr, r, k) and GREEDY_TIE_RULE in step_note(tr, r, k)
    for s in tied_steps:
        assert s["tie_broken_by"] == GREEDY_TIE_RULE
        tied = [w for w, t in zip(s["candidates"], s["tied"]) if t]
        assert s["chosen"] == min(tied) and len(tied) == min(s["n_tied"], len(s["candidates"]))
    untied = [s for r in tr["steps"] for s in r if s["n_tied"] == 1]
    assert all(s["tie_broken_by"] is None and not any(s["tied"]) for s in untied)
    assert tr["summary"]["steps_with_ties"] == len(tied_steps)
    assert tr["summary"]["largest_tie"] == max(s["n_tied"] for s in tied_steps)


def test_upper_agent_statement_when_it_selects_every_ready_tree_and_when_it_does_not():
    dag = dag_of("bcube:n=3,k=1")
    tr = play(dag, HierarchicalPolicy(PolicyConfig(upper_bias=3.0)), sample=False, trace=True).trace
    assert all(tr["all_ready_selected"]) and tr["trees_selected"] == tr["trees_ready"]
    assert "in all" in tr["summary"]["upper"] and "never narrowed" in tr["summary"]["upper"]
    tr = play(dag, HierarchicalPolicy(PolicyConfig(upper_bias=-3.0)), sample=False, trace=True).trace
    assert not any(tr["all_ready_selected"]) and all(tr["pool_fallback"])
    assert tr["summary"]["rounds_pool_fallback"] == len(tr["steps"])
    assert "a subset in" in summary(tr)["upper"]
    rows = upper_table(tr, 0)
    assert len(rows) == dag.n_trees and all(r["probability"] < 0.5 for r in rows)
    assert [r["ready"] for r in rows] == [t in tr["trees_ready"][0] for t in range(dag.n_trees)]
    assert all(len([k for k in r if k.startswith("value: ")]) == len(tr["upper_features"]) for r in rows)


def test_step_table_rows():
    dag = dag_of("bcube:n=3,k=1", chunks=2)
    tr = play(dag, trained_looking(1), sample=False, trace=True).trace
    rows = step_table(tr, 1, 0, describe=dag.describe)
    s = tr["steps"][1][0]
    assert [r["chosen"] for r in rows] == [w == s["chosen"] for w in s["candidates"]]
    assert rows[0]["workload"] == dag.describe(s["chosen"])
    assert sum(v for k, v in rows[0].items() if k.startswith("term: ")) == pytest.approx(rows[0]["score"], abs=2e-3)
    assert f"{s['n_valid']} candidates scored" in step_note(tr, 1, 0)


def test_a_sampled_trace_keeps_each_steps_best_score_and_whether_the_pick_had_it():
    """rl-sample's --explain showed a pick of 16.2038 beside no word of the 16.3241 available (trial 12): a sampled
    step keeps its best score and whether the pick had it; `chosen_steps` shows both for a sampled trace only."""
    from core.rl.explain import SAMPLED_TIE_RULE, best_score, chosen_steps, picked_best
    dag = dag_of("dcell:n=4,k=1")
    sampled = play(dag, trained_looking(), sample=True, rng=np.random.default_rng(2), trace=True, temperature=2.0).trace
    steps = [s for r in sampled["steps"] for s in r]
    assert all(best_score(s) == max(s["scores"]) and picked_best(s) == (s["score"] == best_score(s)) for s in steps)
    below = [s for s in steps if not picked_best(s)]
    assert below and all(s["score"] < s["best_score"] and s["rank"] > 0 for s in below)
    rows = chosen_steps(sampled, len(steps))
    assert [(r["best score"], r["picked best"]) for r in rows] == [(s["best_score"], s["picked_best"]) for s in steps]
    assert list(rows[0])[:10] == ["round", "step", "chosen", "score", "p", "margin", "best score", "picked best",
                                  "scored", "others tied"]
    assert sampled["tie_rule"] == SAMPLED_TIE_RULE and f"broken by {SAMPLED_TIE_RULE}".startswith("broken by the ")
    greedy = play(dag, trained_looking(), sample=False, trace=True).trace
    assert all(s["picked_best"] and s["best_score"] == s["score"] for r in greedy["steps"] for s in r)
    assert "best score" not in chosen_steps(greedy, 3)[0]  # greedy: the pick is the best, no column to say so


def test_probabilities_are_the_softmax_at_temperature_1_and_the_margin_is_over_the_runner_up():
    """Trial 26: the debugger showed raw scores only. Hand-computed: scores ln 2 and 0 with a log-partition ln 4 (two
    more candidates scored, not shown, e^0 each) give 1/2 and 1/4; without one, over the shown: e^2, e, 1 over their
    sum. The margin is the chosen score minus the best other one, the log of their probabilities' ratio; a sampled
    pick below the best has a negative margin."""
    from core.rl.explain import margin, probabilities
    step = {"candidates": [7, 3], "scores": [np.log(2.0), 0.0], "chosen": 7, "log_z": np.log(4.0)}
    assert probabilities(step) == pytest.approx([0.5, 0.25]) and margin(step) == pytest.approx(np.log(2.0))
    shown = {"candidates": [1, 2, 3], "scores": [2.0, 1.0, 0.0], "chosen": 2}
    total = np.e ** 2 + np.e + 1
    assert probabilities(shown) == pytest.approx([np.e ** 2 / total, np.e / total, 1 / total])
    assert margin(shown) == pytest.approx(-1.0)  # the pick was not the likeliest: e times less likely
    assert margin({"candidates": [5], "scores": [3.0], "chosen": 5}) is None


def test_a_real_trace_keeps_the_log_partition_over_every_candidate_scored():
    """The probabilities of the shown candidates are over all those scored: they sum to 1 where every candidate is
    shown and to less where some are not; greedy decoding picks the likeliest (margin >= 0)."""
    from core.rl.explain import margin, probabilities
    dag = dag_of("dcell:n=4,k=1")
    tr = play(dag, trained_looking(), sample=False, trace=True).trace
    steps = [s for r in tr["steps"] for s in r]
    whole = [s for s in steps if len(s["candidates"]) == s["n_valid"]]
    cut = [s for s in steps if len(s["candidates"]) < s["n_valid"]]
    assert whole and cut
    assert all(sum(probabilities(s)) == pytest.approx(1.0, abs=1e-3) for s in whole)
    assert all(sum(probabilities(s)) < 1 - 1e-6 for s in cut)
    assert all(m is None or m >= 0 for m in map(margin, steps))
    rows = step_table(tr, 0, 0)
    assert [r["p"] for r in rows] == probabilities(tr["steps"][0][0])
