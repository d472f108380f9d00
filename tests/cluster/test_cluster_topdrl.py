"""TopDRL: network shapes and masks, checkpoint round-trip and refusals, a short training run, the shipped checkpoint."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from core.cluster import CommModel, load_trace, make_cluster, simulate
from core.cluster.topdrl import (GLOBAL_FEATURES, JOB_FEATURES, CheckpointError, NetConfig, TopDRL, TopDRLNet, batch,
                                 default_checkpoint, load, observe, save, sjf_chooser)
from core.cluster.topdrl_train import TrainConfig, evaluate, mean_ratio, reference_jct, train

CLUSTER = make_cluster("bcube:n=4,k=1", 4)
TRACE = load_trace("synthetic:jobs=30,seed=4,rate=20")


def _net(seed: int = 0) -> TopDRLNet:
    torch.manual_seed(seed)
    return TopDRLNet(NetConfig(4, hidden=16))


def test_masked_jobs_and_wait_get_no_probability():
    net = _net()
    pol = TopDRL(net)
    r = simulate(CLUSTER, TRACE, pol, CommModel(CLUSTER))
    assert np.all(np.isfinite(r.end)) and pol.log
    obs = [e[0] for e in pol.log]
    with torch.no_grad():
        p = torch.softmax(net(*batch(obs)), dim=1).numpy()
    mask = np.stack([o.mask for o in obs])
    assert np.all(p[~mask] < 1e-12)
    assert all(o.jobs.shape == (len(JOB_FEATURES), 32) and o.glob.shape == (len(GLOBAL_FEATURES),) for o in obs)
    assert all(o.servers.shape == (4 + 2, CLUSTER.n_servers) for o in obs)


def test_the_network_runs_on_any_number_of_servers():
    big = make_cluster("bcube:n=4,k=2", 4)
    r = simulate(big, TRACE, TopDRL(_net()), CommModel(big))
    assert np.all(np.isfinite(r.end))
    with pytest.raises(CheckpointError, match="built for 4 GPUs per server"):
        simulate(make_cluster("bcube:n=4,k=1", 8), TRACE, TopDRL(_net()))


def test_sjf_teacher_picks_the_shortest_job_that_fits():
    batch_trace = load_trace("synthetic:jobs=40,seed=4,rate=0")  # all arrive at t = 0; the window is jobs 0..31
    teacher = TopDRL(_net(), chooser=sjf_chooser)
    simulate(CLUSTER, batch_trace, teacher, CommModel(CLUSTER))
    assert teacher.log[0][1] == int(np.argmin(batch_trace.ideal_duration[:32]))
    assert all(e[1] < 32 for e in teacher.log)  # the teacher never waits


def test_checkpoint_round_trip(tmp_path):
    net = _net(3)
    save(net, tmp_path / "ck", {"command": "test"})
    back, meta = load(tmp_path / "ck.json")
    assert meta["command"] == "test" and meta["net"]["hidden"] == 16
    ob = observe_some()
    with torch.no_grad():
        assert torch.equal(net(*batch([ob])), back(*batch([ob])))


def observe_some():
    from core.cluster.sim import State
    st = State(CLUSTER, TRACE, CommModel(CLUSTER))
    st.waiting = list(range(10))
    rem = np.zeros(CLUSTER.n_servers)
    return observe(st, st.waiting, st.free.copy(), rem, rem, NetConfig(4, hidden=16))


def test_checkpoint_refusals(tmp_path):
    with pytest.raises(CheckpointError, match="need both"):
        load(tmp_path / "missing")
    save(_net(), tmp_path / "ck", {})
    side = tmp_path / "ck.json"
    meta = json.loads(side.read_text())
    side.write_text(json.dumps({**meta, "job_features": ["x"]}))
    with pytest.raises(CheckpointError, match="feature lists differ"):
        load(side)
    side.write_text(json.dumps({**meta, "net": {**meta["net"], "hidden": 32}}))
    with pytest.raises(CheckpointError, match="does not fit the network"):
        load(side)
    side.write_text("{")
    with pytest.raises(CheckpointError, match="not JSON"):
        load(side)
    side.write_text("[1, 2]")  # JSON, but not an object: refused by its format, no AttributeError
    with pytest.raises(CheckpointError, match="format must be 'allreduce-lab-topdrl/1', got None"):
        load(side)


def test_names_are_looked_up_in_the_checkpoint_folders(tmp_path, monkeypatch):
    """`--checkpoint universal` named a round-model RL checkpoint of checkpoints/ and was answered
    "need both universal.json and universal.safetensors": the names are found, and an RL one is
    refused by its format, as the RL side refuses a TopDRL one."""
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    (shipped / "universal.json").write_text(json.dumps({"format": "allreduce-lab-rl/1"}))
    (shipped / "universal.safetensors").write_bytes(b"")
    monkeypatch.setenv("ALLREDUCE_LAB_CHECKPOINTS", str(shipped))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CheckpointError) as err:
        load("universal")
    assert ("format must be 'allreduce-lab-topdrl/1', got 'allreduce-lab-rl/1'; it is a round-model RL checkpoint"
            in str(err.value))
    with pytest.raises(CheckpointError, match=r"looked in the working folder, checkpoints/topdrl and checkpoints"):
        load("nosuch")
    _, meta = load("topdrl")  # the shipped one, by its name in checkpoints/topdrl/
    assert meta == load(default_checkpoint())[1]


def test_a_short_training_run_writes_a_complete_sidecar(tmp_path):
    cfg = TrainConfig(budget_s=8, imitation=1, imitation_epochs=5, eval_every=1, hidden=16,
                      trace="synthetic:jobs=16,rate=10", val_seeds=(900,), confirm_seeds=(901,), confirm_top=2)
    meta = train(cfg, tmp_path / "t", command="pytest", log=lambda *_: None)
    side = json.loads((tmp_path / "t.json").read_text())
    assert side["command"] == "pytest" and side["config"]["seed"] == 0
    assert side["train_traces"].startswith("synthetic:jobs=16,rate=10,seed=1000..")
    assert side["training"]["wall_s"] > 0 and side["training"]["cpu_s"] > 0 and len(side["training"]["loadavg_start"]) == 3
    assert meta["episodes"] >= 1 and side["history"][0]["iteration"] == 0
    net, _ = load(tmp_path / "t")
    assert np.all(np.isfinite(simulate(CLUSTER, TRACE, TopDRL(net)).end))
    # the confirmed snapshots are the best-screened ones; the saved weights are the kept one's
    screened = sorted(side["history"], key=lambda h: h["val_ratio"])[:cfg.confirm_top]
    assert [c["iteration"] for c in side["confirmed"]] == [h["iteration"] for h in screened]
    kept = min(side["confirmed"], key=lambda c: c["ratio"])
    assert side["kept_iteration"] == kept["iteration"]
    c = make_cluster(cfg.topology, cfg.gpus_per_server)
    comm = CommModel(c)
    seeds = cfg.val_seeds + cfg.confirm_seeds
    ratio = mean_ratio(evaluate(net, cfg, c, comm, seeds), reference_jct(cfg, c, comm, seeds))
    assert ratio == pytest.approx(side["kept_val_ratio"], rel=1e-9)


def test_the_shipped_checkpoint_loads_and_says_how_it_was_made():
    net, meta = load(default_checkpoint())
    assert meta["command"].startswith("allreduce-lab cluster-train")
    assert meta["training"]["wall_s"] <= 900
    assert all(900 <= s < 1000 for s in (int(v.rsplit("=", 1)[1]) for v in meta["validation_traces"]))
    assert meta["kept_iteration"] in {c["iteration"] for c in meta["confirmed"]}
    assert meta["kept_val_ratio"] == min(c["ratio"] for c in meta["confirmed"])
    assert meta["train_traces"].split("seed=")[1].startswith("1000")
    assert np.all(np.isfinite(simulate(CLUSTER, TRACE, TopDRL(net)).end))


def test_default_validation_seeds_are_neither_training_nor_benchmark_seeds():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_cluster.py"
    spec = importlib.util.spec_from_file_location("bench_cluster", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    cfg = TrainConfig()
    val = cfg.val_seeds + cfg.confirm_seeds
    assert len(set(val)) == len(val) >= 16 and len(cfg.val_seeds) >= 8
    assert not set(val) & set(bench.TEST_SEEDS)
    assert max(val) < cfg.train_seed0  # training draws seeds train_seed0, train_seed0 + 1, ...


TINY = dict(imitation=1, imitation_epochs=5, hidden=16, trace="synthetic:jobs=16,rate=10", val_seeds=(900,),
            confirm_seeds=(901,), confirm_top=2)
"""The smallest training run the code allows (a second or two)."""


class FakeClock:
    """A wall clock that advances `step` seconds at every reading: the budget logic without timing anything."""

    def __init__(self, step: float):
        self.t, self.step = 0.0, step

    def perf_counter(self) -> float:
        self.t += self.step
        return self.t

    @staticmethod
    def process_time() -> float:
        import time
        return time.process_time()


def test_the_budget_caps_the_warm_up_and_says_so(tmp_path, monkeypatch):
    """Trial 25: `--budget 20 --iterations 1` took 46 s (200 warm-up epochs, then validation) and kept iteration 0
    without a word. Under a clock read 0.05 s apart the warm-up's epochs stop within the budget, and the notes say
    that the budget ran out before the first iteration was screened."""
    from types import SimpleNamespace

    import core.cluster.topdrl_train as tt
    from core.cli.cluster import budget_notes
    clock = FakeClock(0.05)
    monkeypatch.setattr(tt, "time", SimpleNamespace(perf_counter=clock.perf_counter, process_time=clock.process_time))
    cfg = TrainConfig(**{**TINY, "imitation_epochs": 1000}, budget_s=4, iterations=1)
    meta = train(cfg, tmp_path / "t", log=lambda *_: None)
    assert meta["training"]["wall_s"] <= cfg.budget_s
    assert meta["iterations"] == 0 and meta["stopped_by"] == "budget" and meta["kept_iteration"] == 0
    assert any(c.startswith("warm-up: ") and c.endswith(" of 1000 epochs") for c in meta["budget_cuts"])
    # no policy iteration: the sidecar says so plainly, and the CLI prints it on stdout (fix32b), not as a note here
    epochs = int(next(c for c in meta["budget_cuts"] if c.startswith("warm-up: ")).split()[1])
    assert meta["untrained"] == (f"no policy iteration ran: the 4 s budget ended before one could, so this checkpoint "
                                 f"is the warm-up policy (iteration 0): {epochs} of 1000 epochs copying SJF's picks, "
                                 f"screening ratio {meta['history'][0]['val_ratio']:.3f} to sjf+closest")
    notes = budget_notes(meta, cfg.budget_s)
    assert "policy iteration: 0 of 1 iterations" in notes[0] and len(notes) == 1


@pytest.mark.parametrize("iterations, screened", [(1, [0, 1]), (5, [0, 4, 5])])
def test_the_last_iteration_run_is_screened_and_can_be_kept(tmp_path, iterations, screened):
    """Trial 25: with --iterations 1 to 3 only iteration 0 was screened (every 4th is), so what was trained was
    thrown away without a word. The last iteration run is screened too, and the sidecar says why one was kept."""
    cfg = TrainConfig(**TINY, budget_s=600, iterations=iterations)
    meta = train(cfg, tmp_path / "t", log=lambda *_: None)
    assert [h["iteration"] for h in meta["history"]] == screened
    assert meta["stopped_by"] == "iterations" and meta["budget_cuts"] == []
    assert len(meta["confirmed"]) == 2 and meta["kept_iteration"] in screened
    assert meta["kept_why"] == f"lowest mean ratio on 2 traces of the 2 best-screened of {len(screened)} snapshots"
    assert "untrained" not in meta  # an iteration ran


def test_the_warm_up_says_what_it_does_before_it_starts(tmp_path):
    """Trial 29: cluster-train printed nothing for its first 37 s (the warm-up and its screening)."""
    logs: list[str] = []
    train(TrainConfig(**TINY, budget_s=600, iterations=1), tmp_path / "w", log=logs.append)
    assert logs[0] == "warm-up: copying SJF's picks from 1 episode, then up to 5 epochs (budget 600 s)", logs
    assert logs[1].startswith("warm-up: ") and logs[1].endswith("; screening it on 1 validation trace"), logs


def test_training_runs_without_a_warm_up_or_without_confirmation(tmp_path):
    """`train` is public, and the CLI cannot pass either: `imitation_epochs=0` failed on the warm-up's loss, which
    no epoch set; empty `confirm_seeds` "confirmed" every top snapshot on no trace (a NaN ratio in the sidecar)."""
    logs: list[str] = []
    meta = train(TrainConfig(**{**TINY, "imitation_epochs": 0}, budget_s=600, iterations=1), tmp_path / "a",
                 log=logs.append)
    assert logs[0] == "warm-up: none (imitation=1, imitation_epochs=0)" and logs[1].startswith("initial weights: ")
    assert meta["history"][0]["episodes"] == 0 and meta["train_traces"].endswith("seed=1000..1000")  # no warm-up
    assert len(meta["confirmed"]) == 2 and meta["budget_cuts"] == []
    meta = train(TrainConfig(**{**TINY, "confirm_seeds": ()}, budget_s=600, iterations=1), tmp_path / "b",
                 log=lambda *_: None)
    assert meta["confirmed"] == [] and meta["budget_cuts"] == [] and meta["kept_val_traces"] == 1
    best = min(meta["history"], key=lambda h: h["val_ratio"])
    assert meta["kept_iteration"] == best["iteration"] and meta["kept_val_ratio"] == best["val_ratio"]
    assert meta["kept_why"] == "lowest mean ratio on the 1 screening traces of 2 snapshots; no confirmation seeds"
    json.loads((tmp_path / "b.json").read_text(), parse_constant=lambda c: pytest.fail(f"{c} in the sidecar"))


def test_checkpoint_files_are_written_with_normal_permissions(tmp_path):
    """Trial 25: topdrl.safetensors came out -rw------- (its .json -rw-r--r--): both files of the pair are now
    written atomically with the permissions a plain write gives."""
    import os
    old = os.umask(0o022)
    try:
        save(_net(), tmp_path / "m", {})
    finally:
        os.umask(old)
    assert {p.name: p.stat().st_mode & 0o777 for p in tmp_path.iterdir()} == {"m.json": 0o644,
                                                                             "m.safetensors": 0o644}
    assert load(tmp_path / "m")[0].cfg.hidden == 16


def test_training_without_screening_seeds_is_refused_before_it_starts(tmp_path):
    """fix29a: `val_seeds=()` divided by zero after the warm-up (the screening's pace per seed); it is refused at
    the top with a ValueError that says why, and nothing is written."""
    with pytest.raises(ValueError, match=r"at least one screening seed \(val_seeds is empty\)"):
        train(TrainConfig(**{**TINY, "val_seeds": ()}, budget_s=60, iterations=1), tmp_path / "a", log=lambda *_: None)
    assert not list(tmp_path.iterdir())


def test_a_cut_short_weights_file_is_one_line_naming_it_truncated(tmp_path, capsys):
    """Trial 31: a TopDRL .safetensors cut short ended `cluster` with safetensors' traceback (exit 1), where the
    round-model RL's loader says the file was cut short; both now check the header first."""
    from core.cli import main
    stem = default_checkpoint()
    (tmp_path / "cut.json").write_bytes(stem.with_suffix(".json").read_bytes())
    (tmp_path / "cut.safetensors").write_bytes(stem.with_suffix(".safetensors").read_bytes()[:20000])
    with pytest.raises(CheckpointError, match=r"lies past the end of the file \(20000 bytes.*truncated\?$"):
        load(tmp_path / "cut")
    assert main(["cluster", "--topology", "bcube:n=4,k=1", "--trace", "synthetic:jobs=4,seed=0", "--scheduler",
                 "topdrl", "--checkpoint", str(tmp_path / "cut.safetensors")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("allreduce-lab: error: TopDRL checkpoint ") and "truncated?" in err[0]
