"""Training TopDRL's job picker: imitation warm-up, then REINFORCE on a throughput-based reward.

One command makes the shipped checkpoint (docs/cluster.md, "TopDRL"):

    allreduce-lab cluster-train --budget 600 --seed 0 --out checkpoints/topdrl

1. **Warm-up** (`imitation` episodes): the network learns to copy SJF's pick (shortest job of
   the window that fits) by cross-entropy, so RL starts from a sensible policy.
2. **REINFORCE** until the time budget: each iteration simulates one fresh training trace
   `rollouts` times with sampled picks. The reward is throughput-based: completing jobs sooner
   empties the system sooner, and every pick is credited with minus the job-seconds still to be
   spent in the system after it (area under "jobs in the system" from its time on, per job and
   hour); the baseline is the same quantity averaged over the iteration's rollouts at that time.
   Loss = −advantage · log π − `entropy` · H(π); Adam.
3. Every `eval_every` iterations the greedy policy runs on the validation traces; the snapshot
   with the lowest mean average JCT is kept and saved.

Training traces use seeds 1000, 1001, ...; validation seeds 900-901; the benchmark tests on
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
    imitation_epochs: int = 30
    rollouts: int = 4
    """Sampled rollouts per training trace (their mean is the baseline)."""
    lr: float = 3e-4
    entropy: float = 0.01
    eval_every: int = 5
    hidden: int = 64
    train_seed0: int = 1000
    val_seeds: tuple[int, ...] = field(default=(900, 901))


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
        obs += [o for o, _, _ in teacher.log]
        acts += [a for _, a, _ in teacher.log]
    if obs:
        x = batch(obs)
        y = torch.tensor(acts)
        for _ in range(cfg.imitation_epochs):
            loss = torch.nn.functional.cross_entropy(net(*x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        log(f"imitation: {len(obs)} picks from {cfg.imitation} episodes, loss {float(loss):.3f}")
    best = evaluate(net, cfg, cluster, comm, cfg.val_seeds)
    best_state = {k: v.clone() for k, v in net.state_dict().items()}
    history.append({"iteration": 0, "episodes": cfg.imitation, "val_avg_jct_h": best, "elapsed_s": time.perf_counter() - wall0})
    log(f"after imitation: validation average JCT {best:.2f} h")

    # 2. REINFORCE
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
        b_obs, b_act, b_adv = [], [], []
        for pol, res in runs:
            t = np.array([tt for _, _, tt in pol.log])
            if not len(t):
                continue
            mine = _area_after(res, t)
            base = np.mean([_area_after(r, t) for _, r in runs], axis=0)
            b_adv.append(-(mine - base) / (3600.0 * n_jobs))
            b_obs += [o for o, _, _ in pol.log]
            b_act += [a for _, a, _ in pol.log]
        if not b_obs:
            continue
        adv = torch.tensor(np.concatenate(b_adv), dtype=torch.float32)
        adv = adv / (adv.std() + 1e-8)
        net.train()
        logits = net(*batch(b_obs))
        logp = torch.log_softmax(logits, dim=1)
        act = torch.tensor(b_act)
        chosen = logp.gather(1, act[:, None])[:, 0]
        ent = -(logp.exp() * logp.clamp(min=-30)).sum(dim=1)
        loss = -(adv * chosen).mean() - cfg.entropy * ent.mean()
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
