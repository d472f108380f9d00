"""Training TopDRL's job picker: imitation warm-up, then policy gradient on a throughput-based reward.

One command makes the shipped checkpoint (docs/cluster.md, "TopDRL"):

    allreduce-lab cluster-train --budget 600 --seed 0 --out checkpoints/topdrl/topdrl

1. **Warm-up** (`imitation` episodes): the network learns to copy SJF's pick (shortest job of
   the window that fits) by cross-entropy, so RL starts from a sensible policy.
2. **Policy gradient (PPO's clipped objective, a learned baseline)** until the time budget: each
   iteration simulates one fresh training trace `rollouts` times with sampled picks. The reward is
   throughput-based: completing jobs sooner empties the system sooner, and every pick's return is
   minus the job-hours still to be spent in the system after it (the area under "jobs in the
   system" from its time on, per job); the network's value head predicts that return and is the
   baseline. `epochs` passes over the picks minimize −min(ρ·A, clip(ρ)·A) − `entropy` · H(π) +
   `value_coef` · (value − return)² with Adam (ρ: new over sampling probability).
3. Every `eval_every` iterations the greedy policy runs on the validation traces; the snapshot
   with the lowest mean average JCT is kept and saved.

Training traces use seeds 1000, 1001, ...; validation seeds 900-902; the benchmark tests on
seeds 0-4, which training never sees.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch

from .cluster import make_cluster
from .comm import CommModel
from .sim import Result, simulate
from .topdrl import NetConfig, Observation, TopDRL, TopDRLNet, batch, save, sjf_chooser
from .traces import load_trace


@dataclass(frozen=True)
class TrainConfig:
    """Hyperparameters of TopDRL training."""

    topology: str = "bcube:n=4,k=1"
    """Cluster topology trained on (64 GPUs with 4 per server: busy enough that order matters)."""
    gpus_per_server: int = 4
    trace: str = "synthetic:jobs=160,rate=6"
    """Trace family; `seed=` is appended per episode."""
    budget_s: float = 600.0
    """Wall-clock seconds of the whole run (warm-up included)."""
    seed: int = 0
    """Seed of the network's initial weights and of the sampled picks."""
    imitation: int = 6
    """Warm-up episodes imitating SJF."""
    imitation_epochs: int = 200
    """Full-batch epochs of the warm-up (enough to copy SJF's picks)."""
    imitation_lr: float = 1e-3
    rollouts: int = 4
    """Sampled rollouts per training trace."""
    lr: float = 1e-4
    entropy: float = 0.003
    value_coef: float = 0.5
    epochs: int = 1
    """Passes over each iteration's picks; with 1 the clipped objective is plain REINFORCE with a
    baseline (4 passes at lr 3e-4 from a looser warm-up did worse: docs/cluster.md)."""
    clip: float = 0.2
    eval_every: int = 4
    hidden: int = 64
    train_seed0: int = 1000
    val_seeds: tuple[int, ...] = field(default=(900, 901, 902))


def _area_after(res: Result, t: np.ndarray) -> np.ndarray:
    """Job-seconds spent in the system after each time in `t`."""
    start = np.maximum(res.arrival[None, :], t[:, None])
    return np.clip(res.end[None, :] - start, 0.0, None).sum(axis=1)


def _episode(cluster, comm, spec: str, policy: TopDRL) -> Result:
    return simulate(cluster, load_trace(spec), policy, comm, record_links=False)


def evaluate(net: TopDRLNet, cfg: TrainConfig, cluster, comm, seeds) -> float:
    """Mean average JCT (hours) of the greedy policy over traces with these seeds."""
    net.eval()
    out = [_episode(cluster, comm, f"{cfg.trace},seed={s}", TopDRL(net)).jct.mean() / 3600 for s in seeds]
    return float(np.mean(out))


def train(cfg: TrainConfig, out: str | Path, command: str = "", log=print) -> dict:
    """Train and save the best snapshot at `out` (stem); returns the sidecar's metadata."""
    torch.set_num_threads(1)
    torch.manual_seed(cfg.seed)
    wall0, cpu0, load0 = time.perf_counter(), time.process_time(), os.getloadavg()
    cluster = make_cluster(cfg.topology, cfg.gpus_per_server)
    comm = CommModel(cluster)
    net = TopDRLNet(NetConfig(cfg.gpus_per_server, hidden=cfg.hidden))
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    history: list[dict] = []
    seed = cfg.train_seed0

    # 1. imitation warm-up
    obs: list[Observation] = []
    acts: list[int] = []
    for _ in range(cfg.imitation):
        teacher = TopDRL(net, chooser=sjf_chooser)
        _episode(cluster, comm, f"{cfg.trace},seed={seed}", teacher)
        seed += 1
        obs += [e[0] for e in teacher.log]
        acts += [e[1] for e in teacher.log]
    if obs:
        x = batch(obs)
        y = torch.tensor(acts)
        bc = torch.optim.Adam(net.parameters(), lr=cfg.imitation_lr)
        for _ in range(cfg.imitation_epochs):
            loss = torch.nn.functional.cross_entropy(net(*x), y)
            bc.zero_grad()
            loss.backward()
            bc.step()
        log(f"imitation: {len(obs)} picks from {cfg.imitation} episodes, loss {loss.item():.3f}")
    best = evaluate(net, cfg, cluster, comm, cfg.val_seeds)
    best_state = {k: v.clone() for k, v in net.state_dict().items()}
    history.append({"iteration": 0, "episodes": cfg.imitation, "val_avg_jct_h": best, "elapsed_s": time.perf_counter() - wall0})
    log(f"after imitation: validation average JCT {best:.2f} h")

    # 2. policy gradient
    it, episodes = 0, cfg.imitation
    last_eval = time.perf_counter() - wall0
    while time.perf_counter() - wall0 + max(10.0, last_eval / max(it, 1)) < cfg.budget_s:
        it += 1
        spec = f"{cfg.trace},seed={seed}"
        seed += 1
        net.eval()
        runs = []
        for k in range(cfg.rollouts):
            pol = TopDRL(net, sample=True, seed=cfg.seed * 1_000_003 + seed * 31 + k)
            runs.append((pol, _episode(cluster, comm, spec, pol)))
            episodes += 1
        n_jobs = runs[0][1].trace.n
        picks = [e for pol, _ in runs for e in pol.log]
        if not picks:
            continue
        ret = torch.tensor(np.concatenate([-_area_after(res, np.array([e[2] for e in pol.log])) / (3600.0 * n_jobs)
                                           for pol, res in runs if pol.log]), dtype=torch.float32)
        x = batch([e[0] for e in picks])
        act = torch.tensor([e[1] for e in picks])
        old = torch.tensor([e[3] for e in picks], dtype=torch.float32)
        net.train()
        adv = None
        for _ in range(cfg.epochs):
            logits, value = net.heads(*x)
            if adv is None:
                adv = ret - value.detach()
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            logp = torch.log_softmax(logits, dim=1)
            ratio = torch.exp(logp.gather(1, act[:, None])[:, 0] - old)
            clipped = torch.clamp(ratio, 1 - cfg.clip, 1 + cfg.clip)
            ent = -(logp.exp() * logp.clamp(min=-30)).sum(dim=1)
            loss = (-torch.min(ratio * adv, clipped * adv).mean() - cfg.entropy * ent.mean()
                    + cfg.value_coef * ((value - ret) ** 2).mean())
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
        mean_jct = float(np.mean([r.jct.mean() for _, r in runs]) / 3600)
        if it % cfg.eval_every == 0:
            val = evaluate(net, cfg, cluster, comm, cfg.val_seeds)
            history.append({"iteration": it, "episodes": episodes, "train_avg_jct_h": mean_jct, "val_avg_jct_h": val,
                            "elapsed_s": time.perf_counter() - wall0})
            log(f"iteration {it}: train {mean_jct:.2f} h, validation {val:.2f} h (best {min(best, val):.2f} h), "
                f"{time.perf_counter() - wall0:.0f} s")
            if val < best:
                best = val
                best_state = {k: v.clone() for k, v in net.state_dict().items()}
        last_eval = time.perf_counter() - wall0
    net.load_state_dict(best_state)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    meta = {
        "command": command,
        "config": {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(cfg).items()},
        "cluster": cluster.spec,
        "train_traces": f"{cfg.trace},seed={cfg.train_seed0}..{seed - 1}",
        "validation_traces": [f"{cfg.trace},seed={s}" for s in cfg.val_seeds],
        "episodes": episodes,
        "iterations": it,
        "best_val_avg_jct_h": best,
        "history": history,
        "training": {"wall_s": time.perf_counter() - wall0, "cpu_s": time.process_time() - cpu0,
                     "max_rss_mib": usage.ru_maxrss / 1024, "loadavg_start": list(load0),
                     "loadavg_end": list(os.getloadavg()), "torch_threads": torch.get_num_threads(),
                     "python": sys.version.split()[0], "torch": torch.__version__},
    }
    save(net, out, meta)
    return meta
