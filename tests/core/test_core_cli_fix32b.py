"""fix32b: CLI/API leftovers (the --explain table within 100 columns, long stderr notes, cluster-train's smallest
budget, --init's checks in the API, argtypes' writable folder, one format for cut lists)."""

from __future__ import annotations

import re
import types

from core.cli.schedule import TERM_SHORT, explain_lines
from core.rl.explain import TERMS


def _steps(n: int, chosen: str) -> list[dict]:
    rows = []
    for k in range(n):
        row = {"round": 1, "step": k + 1, "chosen": chosen.format(k=k), "score": 1.5, "p": 0.1,
               "margin": None if k == 0 else 0.01, "best score": 2.0, "picked best": k != 1, "scored": 10,
               "others tied": 0}
        row.update({f"term: {t}": -12.3456 + k + i / 1000 for i, t in enumerate(TERMS)})
        rows.append(row)
    return rows


def test_explain_fits_100_columns_with_every_term_and_long_labels(capsys):
    """The --explain table's rows ran to 143-176 characters (the terms beside the pick). Every term nonzero (18) and
    node labels of a file: every line within 100, every term's value still shown, under a heading or its short form
    that a legend line names, each row keyed by its step."""
    steps = _steps(3, "#{k} reduce a-very-long-server-label-{k}->another-very-long-label (tree root-label-{k})")
    info = {"temperature": 2.0, "kept_rollout": "sample 1",
            "kept_opening": {"temperature": 0.5, "rounds": 1, "fraction": 0.3}}
    explain_lines(types.SimpleNamespace(trace={"decoding": "sampled"}, info=info), steps)
    out = capsys.readouterr().out.splitlines()
    assert max(len(x) for x in out) <= 100, max(out, key=len)
    heads = [x.split() for x in out if x.split()[:2] == ["step", "score"]]
    shown = [h for head in heads for h in head[2:]]
    assert sorted(shown) == sorted(TERM_SHORT.get(t, t) for t in TERMS)  # each term once, over several tables
    legend = " ".join(x.strip() for x in out[out.index(next(x for x in out if "terms shortened:" in x)):])
    assert all(f"{s} = {t}" in legend for t, s in TERM_SHORT.items())
    for i, t in enumerate(TERMS):  # every value, under its heading, in the row of its step
        for k in range(3):
            value = f"{-12.3456 + k + i / 1000:.4f}"
            assert any(x.split()[0] == f"1.{k + 1}" and value in x.split() for x in out), (t, k)
    picks = [x for x in out if re.match(r"  1\.\d +#", x)]
    assert len(picks) == 3 and all("..." in x and x.split()[1] == f"#{k}" for k, x in enumerate(picks))
    assert any("chosen: cut with ... to fit" in x for x in out)


def test_explain_keeps_the_whole_term_names_where_they_fit_one_table(capsys):
    """The shipped checkpoints' four nonzero terms fit one table with their whole names: no legend then."""
    steps = [{k: v for k, v in row.items() if not k.startswith("term: ") or k in (
        "term: tail", "term: link_pressure_max", "term: conflicts_valid", "term: network")}
        for row in _steps(2, "#{k} reduce s01->s02 (tree s22)")]
    explain_lines(types.SimpleNamespace(trace={"decoding": "greedy"}, info={}), steps)
    out = capsys.readouterr().out.splitlines()
    assert [x.split() for x in out if x.split()[:2] == ["step", "score"]] == \
        [["step", "score", "tail", "link_pressure_max", "conflicts_valid", "network"]]
    assert not any("terms shortened" in x for x in out) and max(len(x) for x in out) <= 100


def test_the_cli_uses_argtypes_public_functions_only(tmp_path):
    """train's `_out_folder` called the private `core.argtypes._writable_folder`: it is public and documented now."""
    import argparse
    import pathlib

    import pytest

    from core import argtypes
    assert argtypes.writable_folder.__doc__ and not hasattr(argtypes, "_writable_folder")
    argtypes.writable_folder(tmp_path, "--out")  # a writable folder passes
    with pytest.raises(argparse.ArgumentTypeError, match=r"^--out: folder .* does not exist$"):
        argtypes.writable_folder(tmp_path / "gone", "--out")
    cli_dir = pathlib.Path(argtypes.__file__).parent / "cli"
    private = [f"{p.name}: {m.group(0)}" for p in sorted(cli_dir.glob("*.py"))
               for m in re.finditer(r"\b(?:at|argtypes)\._\w+", p.read_text())]
    assert private == []


def test_the_api_checks_inits_width_and_prior_with_the_clis_message(tmp_path, monkeypatch, capsys):
    """`--init`'s width was checked twice (the CLI and recipes._init) and its prior by the CLI alone: the Python API
    trained from a heuristic-prior checkpoint with TrainConfig(prior="none") and its sidecar said "none". The API
    (`recipes.start_policy`) is the one check now; the CLI's refusal is its message, nothing written."""
    import pytest

    from core import cli
    from core.rl import recipes
    from core.rl.checkpoint import save_checkpoint
    from core.rl.policy import HierarchicalPolicy, PolicyConfig
    from tests.rl.test_rl_cli_trial30 import _fake_train
    monkeypatch.setattr(recipes, "train", _fake_train)
    init = str(tmp_path / "h")
    save_checkpoint(HierarchicalPolicy(PolicyConfig(prior="heuristic", hidden=8)), init, {"topology": "bcube:n=2,k=1"})
    for field, value, flag in (("prior", "none", "none"), ("hidden", 32, "32")):
        cfg = recipes.TrainConfig(**{"hidden": 8, "prior": "heuristic", field: value})
        for run in (lambda: recipes.train_spec("bcube:n=2,k=1", cfg, tmp_path / "py", init),
                    lambda: recipes.train_universal(cfg, tmp_path / "py", init)):
            with pytest.raises(ValueError) as err:
                run()
            assert str(err.value).startswith(f"--{field} {value} differs from --init {init}'s "), err.value
        assert cli.main(["train", "bcube:n=2,k=1", "--quiet", "--init", init, f"--{field}", flag,
                         "--out", str(tmp_path / "run")]) == 2
        assert capsys.readouterr().err.strip() == f"allreduce-lab: error: {err.value}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.json", "h.safetensors"]  # nothing written
    assert recipes.start_policy(init, recipes.TrainConfig(hidden=8, prior="heuristic")).config.hidden == 8


def test_cluster_train_states_its_smallest_budget_and_says_plainly_when_nothing_was_trained(tmp_path, monkeypatch,
                                                                                             capsys):
    """cluster-train never said the budget one policy iteration needs, and a budget short of it wrote the warm-up
    policy with a stderr note only. --help states it; such a run still writes the checkpoint and says on stdout, as
    its sidecar does (`untrained`), that no iteration ran, how far the warm-up went and its screening ratio."""
    import core.cluster.topdrl_train as tt
    from core import cli
    from core.cli.cluster import ONE_ITERATION_BUDGET_S
    with __import__("pytest").raises(SystemExit):
        cli.main(["cluster-train", "--help"])
    assert f"One policy iteration needs about {ONE_ITERATION_BUDGET_S} s" in " ".join(capsys.readouterr().out.split())
    untrained = "no policy iteration ran: the 3 s budget ended before one could, so this checkpoint is the warm-up " \
                "policy (iteration 0): 1 of 200 epochs copying SJF's picks, screening ratio 5.687 to sjf+closest"
    meta = {"kept_iteration": 0, "kept_why": "the only snapshot screened", "config": {"reference": "sjf+closest"},
            "kept_val_ratio": 1.04, "best_val_avg_jct_h": 48.3, "iterations": 0, "episodes": 22,
            "training": {"wall_s": 3.0, "cpu_s": 3.0, "loadavg_start": [1.0], "loadavg_end": [1.0]},
            "stopped_by": "budget", "budget_cuts": ["policy iteration: 0 of 1 iterations"], "untrained": untrained}
    monkeypatch.setattr(tt, "train", lambda cfg, out, command: meta)
    assert cli.main(["cluster-train", "--budget", "3", "--iterations", "1", "--out", str(tmp_path / "t")]) == 0
    out, err = capsys.readouterr()
    joined = " ".join(out.split())
    assert f"note: {untrained}; about {ONE_ITERATION_BUDGET_S} s trains one on the project's 2-core machine" in joined
    assert "ran out before the first iteration" not in err and "policy iteration: 0 of 1" in err
    assert max(len(x) for x in (out + err).splitlines()) <= 100


def test_long_notes_on_stderr_are_wrapped_at_100_and_read_back_whole(monkeypatch, capsys):
    """`schedule --method rl-sample` on a long run printed its estimate as one ~220-character stderr line, and the note
    naming the options a method ignores ran as long: notes are wrapped at 100 (`common.note`) and
    `notes_joined` reads each back as one line."""
    from core import cli
    from core.cli import common
    monkeypatch.setattr(common, "LONG_RUN_S", 0.0)  # every run is "long": the note is printed
    assert cli.main(["schedule", "bcube:n=2,k=1", "--method", "rl-sample", "--samples", "2", "--time-limit", "5",
                     "--no-merge", "--seed", "3"]) == 0
    err = capsys.readouterr().err
    assert err.strip() and max(len(x) for x in err.splitlines()) <= 100, err
    notes = [x for x in common.notes_joined(err) if x.startswith("note: ")]
    assert len(notes) == 2, notes
    assert notes[0].startswith("note: rl-sample: ") and notes[0].endswith("time can be under: docs/limits.md)")
    assert len(notes[0]) > 150  # the one line it was
    assert notes[1].startswith("note: rl-sample ignores --time-limit")


def test_the_clis_stderr_prose_goes_through_the_wrapping_helpers():
    """Every print to stderr in core/cli is a one-line error (``allreduce-lab: ...``), a note through `note`, or text
    through `wrapped` (fix32b: the notes were printed whole, up to ~300 characters)."""
    import pathlib

    import core.cli
    loose = []
    for p in sorted(pathlib.Path(core.cli.__file__).parent.glob("*.py")):
        text = p.read_text()
        for m in re.finditer(r"(print|tqdm\.write)\((?P<arg>(?:[^()]|\([^()]*\))*?),\s*file=sys\.stderr\)", text, re.S):
            arg = m.group("arg").strip()
            if not (arg.startswith(("wrapped(", 'f"allreduce-lab: ', '"allreduce-lab: ')) or "wrote" in arg):
                loose.append(f"{p.name}: {arg[:60]}")
    assert loose == []
