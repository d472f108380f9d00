"""Trial 30's leftovers in the learned scheduler's CLI: a truncated weights file, train's --hidden with --init,
--preset with --out, the progress bar's total, the log kept on interrupt, and schedule --explain's p and margin."""

from __future__ import annotations

import shutil

import pytest

pytest.importorskip("torch")

from core import cli  # noqa: E402
from core.rl.checkpoint import checkpoint_dir  # noqa: E402


def test_a_truncated_weights_file_is_named_as_truncated(tmp_path, capsys):
    """Trial 30: a .safetensors cut to 20,000 bytes was refused as 'must be F32 of shape [64, 9] inside the file,
    got {'dtype': 'F32', 'shape': [64, 9], ...}', which reads as a wrong dtype or shape."""
    shipped = checkpoint_dir() / "bcube_n3_k1"
    shutil.copy(shipped.with_suffix(".json"), tmp_path / "cut.json")
    (tmp_path / "cut.safetensors").write_bytes(shipped.with_suffix(".safetensors").read_bytes()[:20_000])
    assert cli.main(["schedule", "bcube:n=3,k=1", "--method", "rl", "--checkpoint", str(tmp_path / "cut")]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "lies past the end of the file (20000 bytes" in line and line.endswith("truncated?"), line
    assert "must be F32" not in line


def _fake_train(dag, cfg, init=None, report=None):
    """What recipes.train returns, without training: the policy it started from (or a fresh one of cfg's width)."""
    from core.rl.policy import HierarchicalPolicy, PolicyConfig
    from core.rl.train import TrainResult
    dags = dag if isinstance(dag, list) else [dag]
    row = {"update": 1, "iteration": 1, "agent": "upper", "instance": dags[0].topology.spec, "mean_rounds": 5.0,
           "lower_bound": 4}
    if report:
        report(row)
    return TrainResult(policy=init or HierarchicalPolicy(PolicyConfig(hidden=cfg.hidden)), log=[row], seconds=0.0,
                       cpu_seconds=0.0, greedy_rounds=[5] * len(dags), sample_rounds=[5] * len(dags),
                       best_rounds=[5] * len(dags), lower_bounds=[4] * len(dags),
                       critical_path_rounds=[4] * len(dags), kept_iteration=0)


def test_train_init_keeps_its_width_and_says_so(tmp_path, monkeypatch, capsys):
    """Trial 30: `train ... --init bcube_n3_k1 --hidden 32` exited 0 with a 64-wide network and a sidecar whose
    train.hidden said 32. A --hidden that differs from --init's is refused; without it the sidecar records --init's."""
    from core.rl import recipes
    from core.rl.checkpoint import load_checkpoint, save_checkpoint
    from core.rl.policy import HierarchicalPolicy, PolicyConfig
    monkeypatch.setattr(recipes, "train", _fake_train)
    save_checkpoint(HierarchicalPolicy(PolicyConfig(hidden=8)), tmp_path / "narrow", {"topology": "bcube:n=2,k=1"})
    out = str(tmp_path / "run")
    assert cli.main(["train", "bcube:n=2,k=1", "--quiet", "--init", str(tmp_path / "narrow"), "--hidden", "32",
                     "--out", out]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "--hidden 32 differs from --init" in line and "'s 8" in line, line
    assert not (tmp_path / "run.json").exists()
    assert cli.main(["train", "bcube:n=2,k=1", "--quiet", "--init", str(tmp_path / "narrow"), "--out", out]) == 0
    policy, meta = load_checkpoint(out)
    assert policy.config.hidden == meta["train"]["hidden"] == meta["policy"]["hidden"] == 8
    with pytest.raises(ValueError, match="--hidden 64 differs from --init"):  # the Python API refuses it too
        recipes.train_spec("bcube:n=2,k=1", recipes.TrainConfig(), tmp_path / "py", str(tmp_path / "narrow"))


def test_train_init_keeps_its_prior_and_says_so(tmp_path, monkeypatch, capsys):
    """As --hidden was: `--init` with a --prior that differs from the checkpoint's ran from the checkpoint's skip path
    while the sidecar recorded the flag's value. It is refused; without it the sidecar records --init's."""
    from core.rl import recipes
    from core.rl.checkpoint import load_checkpoint, save_checkpoint
    from core.rl.policy import HierarchicalPolicy, PolicyConfig
    monkeypatch.setattr(recipes, "train", _fake_train)
    save_checkpoint(HierarchicalPolicy(PolicyConfig(prior="heuristic")), tmp_path / "h", {"topology": "bcube:n=2,k=1"})
    out = str(tmp_path / "run")
    assert cli.main(["train", "bcube:n=2,k=1", "--quiet", "--init", str(tmp_path / "h"), "--prior", "none",
                     "--out", out]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "--prior none differs from --init" in line and "'s heuristic" in line, line
    assert cli.main(["train", "bcube:n=2,k=1", "--quiet", "--init", str(tmp_path / "h"), "--out", out]) == 0
    _, meta = load_checkpoint(out)
    assert meta["train"]["prior"] == meta["policy"]["prior"] == "heuristic", (meta["train"], meta["policy"])
    assert cli.main(["train", "bcube:n=2,k=1", "--quiet", "--out", str(tmp_path / "fresh")]) == 0
    assert load_checkpoint(tmp_path / "fresh")[1]["train"]["prior"] == "none"  # the default without --init


def test_train_preset_out_is_a_folder_of_checkpoints_under_their_usual_names(tmp_path, monkeypatch, capsys):
    """Trial 30: `train --preset table2 --out DIR` was refused ('--out names one checkpoint') and without --out it
    refuses to replace the shipped ones, so the nine could be remade only over them. --out is now a folder."""
    from core.cli import train as cli_train
    from core.rl import recipes
    from core.topology import Preset
    monkeypatch.setattr(recipes, "train", _fake_train)
    two = (Preset("BCube(2,1)", "bcube:n=2,k=1", 0, 0, 0, 0, 0, 0),
           Preset("DCell(2,1)", "dcell:n=2,k=1", 0, 0, 0, 0, 0, 0))
    monkeypatch.setattr(cli_train, "preset", lambda name: two)
    folder = tmp_path / "remade"  # made by the run
    assert cli.main(["train", "--preset", "table2", "--quiet", "--out", str(folder)]) == 0
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted(f"{s}{x}" for s in ("bcube_n2_k1", "dcell_n2_k1")
                           for x in (".json", ".log.csv", ".safetensors"))
    assert f"-> {folder / 'dcell_n2_k1.json'}" in capsys.readouterr().out
    # what is there is not replaced without --force; a file is not a folder
    assert cli.main(["train", "--preset", "table2", "--quiet", "--out", str(folder)]) == 2
    assert f"{folder / 'bcube_n2_k1.safetensors'} exists" in capsys.readouterr().err
    assert cli.main(["train", "--preset", "table2", "--quiet", "--out", str(folder / "bcube_n2_k1.json")]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "is a file; with --preset, --out is a folder" in line


def test_train_bar_has_a_total_and_an_interrupted_run_keeps_its_log(tmp_path, monkeypatch, capsys):
    """Trial 30: the bar had no total ('1update [00:02, ...]') and <stem>.log.csv was written only at the end, so
    Ctrl-C or SIGTERM kept nothing. The bar's total is iterations x updates per iteration, its label names the
    budget; the log is written row by row to <stem>.log.csv.partial, which an interrupted run keeps and names."""
    import os
    import signal

    from core.cli import train as cli_train
    from core.rl import recipes
    bars, before = [], signal.getsignal(signal.SIGTERM)

    class Bar:
        def __init__(self, **kw):
            bars.append(kw)
            self.n = 0

        def update(self, k):
            self.n += k

        def set_postfix_str(self, text):
            pass

        def close(self):
            pass

    monkeypatch.setattr(cli_train, "tqdm", Bar)
    monkeypatch.setattr(recipes, "train", _fake_train)
    assert cli.main(["train", "bcube:n=2,k=1", "--iterations", "7", "--budget", "60",
                     "--out", str(tmp_path / "a")]) == 0
    assert bars[-1]["total"] == 7 * (2 + 4) and "budget 60 s" in bars[-1]["desc"]
    assert "1 of 42 updates (greedy decoding met every lower bound" in capsys.readouterr().out
    assert not (tmp_path / "a.log.csv.partial").exists() and (tmp_path / "a.log.csv").is_file()

    def stopped(how):
        def run(dag, cfg, init=None, report=None):
            for u in (1, 2, 3):
                report({"update": u, "iteration": 1, "agent": "upper", "instance": dag.topology.spec,
                        "mean_rounds": 5.0, "lower_bound": 4})
            how()
        return run

    def ctrl_c():
        raise KeyboardInterrupt

    for name, how in (("c", ctrl_c), ("t", lambda: os.kill(os.getpid(), signal.SIGTERM))):
        monkeypatch.setattr(recipes, "train", stopped(how))
        stem = tmp_path / name
        assert cli.main(["train", "bcube:n=2,k=1", "--quiet", "--out", str(stem)]) == 130
        (line,) = capsys.readouterr().err.strip().splitlines()
        assert f"kept the log of its 3 updates in {stem}.log.csv.partial" in line, line
        assert len((tmp_path / f"{name}.log.csv.partial").read_text().splitlines()) == 1 + 3
        assert not (tmp_path / f"{name}.json").exists()
    assert signal.getsignal(signal.SIGTERM) == before  # put back after the run


def test_explain_gives_p_and_margin_and_counts_the_others_tied_as_the_debugger_does(capsys):
    """Trial 30: `schedule --explain` lacked the pick's p and margin that the Policy debugger shows, and its
    'tied 1' counted the chosen workload where the page's 'ties 0' counts the others tied at the top."""
    import json
    from dataclasses import replace

    from core.cli.schedule import explain_cells
    from core.methods import run_method
    from core.rl import explain
    from core.schedule import ScheduleConfig
    from core.topology import make_topology
    assert cli.main(["schedule", "bcube:n=3,k=1", "--method", "rl", "--explain", "6", "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)["explain"]
    sched = run_method("rl", make_topology("bcube:n=3,k=1"), replace(ScheduleConfig(), trace=True))
    steps = [s for r in sched.trace["steps"] for s in r][:6]
    for row, s in zip(got, steps, strict=True):
        p = explain.probabilities(s)[s["candidates"].index(s["chosen"])]
        assert row["p"] == pytest.approx(p, abs=5e-5) and 0 < row["p"] <= 1
        assert row["margin"] == pytest.approx(explain.margin(s), abs=5e-5)
        assert row["others tied"] == s["n_tied"] - 1 and "tied" not in row  # the page's column, 0 without a tie
    assert cli.main(["schedule", "bcube:n=3,k=1", "--method", "rl", "--explain", "6"]) == 0
    out = capsys.readouterr().out.splitlines()
    head = next(line for line in out if line.split()[:2] == ["step", "chosen"])
    assert head.split()[2:] == ["score", "p", "margin", "scored", "ties"]
    assert f"{got[0]['p']:.4f}  {got[0]['margin']:.4f}" in out[out.index(head) + 1]
    assert any(line.startswith("  p: the policy's probability of the pick") for line in out)
    assert explain_cells([None, 0.5]) == ["-", "0.5000"] and explain_cells([None]) == ["-"]  # no runner-up


@pytest.mark.parametrize("argv,says", [
    (["dcell:n=3,k=1", "--checkpoint", "dcell_n4_k1"], "trained on dcell:n=4,k=1, NOT on this one"),
    (["dcell:n=4,k=1", "--fail-links", "1"], "trained on dcell:n=4,k=1 with every link up, not with a failed link"),
    (["dcell:n=2,k=2"], "trained on 29 other topologies (bcube, dcell, fattree, jellyfish, leafspine, random), "
                        "as meant: one trained across topologies is the default on any other"),
    (["dcell:n=4,k=1"], None),
])
def test_the_checkpoint_line_names_what_it_was_trained_on(capsys, argv, says):
    """Trial 30: the CLI said 'checkpoint: dcell_n4_k1 (trained on this topology: no)' where the page said 'trained
    on dcell:n=4,k=1, NOT on this one': the line under it now says it in the page's words (within 100 characters)."""
    assert cli.main(["schedule", *argv, "--method", "rl"]) == 0
    out = capsys.readouterr().out.splitlines()
    at = next(i for i, x in enumerate(out) if x.startswith("  checkpoint: "))
    assert out[at].endswith(f"(trained on this topology: {'yes' if says is None else 'no'})")
    under = [x for x in out[at + 1:at + 3] if x.startswith(("    trained on", "      "))]
    assert " ".join(x.strip() for x in under) == (says or "") and all(len(x) <= 100 for x in under), under


def test_compares_checkpoint_note_names_what_it_was_trained_on(capsys):
    """Trial 30's follow-up: `compare`'s checkpoint note said only "(trained on this topology: no)"."""
    assert cli.main(["compare", "dcell:n=2,k=2", "--methods", "rl"]) == 0
    notes = [x for x in capsys.readouterr().out.splitlines() if ": rl: checkpoint " in x]
    assert notes == ["dcell:n=2,k=2: rl: checkpoint universal (trained on this topology: no; trained on 29 other "
                     "topologies (bcube, dcell, fattree, jellyfish, leafspine, random), as meant: one trained across "
                     "topologies is the default on any other)"], notes
    assert cli.main(["compare", "dcell:n=4,k=1", "--methods", "rl"]) == 0
    assert "dcell:n=4,k=1: rl: checkpoint dcell_n4_k1 (trained on this topology: yes)" in capsys.readouterr().out


def test_train_help_gives_the_true_defaults(capsys):
    """Trial 30: `train --help` gave no default for --iterations or --budget; they are TrainConfig's."""
    import re

    from core.rl.train import TrainConfig
    with pytest.raises(SystemExit):
        cli.main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    cfg = TrainConfig()
    assert re.search(rf"--iterations ITERATIONS outer iterations I of Algorithm 1, {cfg.upper_iters + cfg.lower_iters} "
                     rf"updates each \(default {cfg.iterations}\b", text), text
    assert f"--budget BUDGET wall-clock seconds per configuration (default {cfg.budget_s:g})" in text
    assert f"(default {cfg.hidden};" in text and "TrainConfig fields" in text


def test_the_bars_total_follows_the_budget_where_it_ends_the_run_first():
    """Trial 31: with --budget 5 the bar read 0% of 2400 updates and hours left: its total was the iterations' alone."""
    from core.cli.train import budget_total
    assert budget_total(2400, 0, 0.0, 5) == 2400  # nothing done yet: the iterations' count
    assert budget_total(2400, 2, 1.0, 5) == 10  # 2 updates a second, 4 s left: 8 more
    assert budget_total(2400, 10, 6.0, 5) == 10  # past the budget: what was done
    assert budget_total(24, 2, 1.0, 780) == 24  # the iterations end it first


@pytest.mark.parametrize("argv", [
    ["bcube:n=4,k=1", "--method", "rl", "--explain", "3"],  # the explain legends ran to 281 characters
    ["bcube:n=5,k=1", "--method", "rl"],  # its training kept the starting weights ...: 110
    ["dcell:n=2,k=2", "--method", "rl-sample", "--samples", "2", "--opening", "none,0.5:0.3"],  # opening: 139
])
def test_the_reports_prose_is_within_100_characters(capsys, argv):
    """Trial 31: lines of `schedule`'s report past 100 characters; its prose is wrapped now, and the explain tables'
    rows (143-176 characters) fit too, a step a row (fix32b)."""
    assert cli.main(["schedule", *argv]) == 0
    assert [x for x in capsys.readouterr().out.splitlines() if len(x) > 100] == []
