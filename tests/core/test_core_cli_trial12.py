"""What the new-user trial 12 found in the CLI: sampled --explain, cluster with topdrl, checkpoints by path, JSON."""

from __future__ import annotations

import types

import numpy as np

from core import cli


def test_explain_of_a_sampled_rollout_shows_the_best_score_and_says_picks_are_drawn(capsys):
    """`--explain` on rl-sample showed a pick of 16.2038 while 16.3241 was available, with no best-score column, and
    its footer read 'broken by sampled (Gumbel noise)' (trial 12)."""
    from core.cli.schedule import explain_lines
    from core.rl.explain import chosen_steps
    from core.rl.rollout import play
    from tests.rl.test_rl_explain import dag_of, trained_looking
    trace = play(dag_of("dcell:n=4,k=1"), trained_looking(), sample=True, rng=np.random.default_rng(2), trace=True,
                 temperature=2.0).trace
    steps = chosen_steps(trace, 40)
    assert any(not s["picked best"] for s in steps)
    explain_lines(types.SimpleNamespace(trace=trace, info={"temperature": 2.0}), steps)
    out = capsys.readouterr().out.splitlines()
    head = next(line for line in out if line.strip().startswith("round"))
    assert head.split()[:9] == ["round", "step", "chosen", "score", "best", "score", "picked", "best", "scored"]
    rows = out[out.index(head) + 1:out.index(head) + 1 + len(steps)]
    assert {row.split()[5] for row in rows} == {"yes", "no"}  # after score and best score
    assert any("drawn at random from the softmax of score / T (T = the temperature, 2.0)" in line for line in out)
    assert "broken by the random draw (Gumbel noise)" in out[-1] and "broken by sampled" not in out[-1]
