"""Algorithm 1 of the paper: alternate training of the two agents with REINFORCE and a baseline.

for i in 1..I:
    for j in 1..J: freeze the lower policy; collect episodes; update the upper policy
    for k in 1..K: freeze the upper policy; collect episodes; update the lower policy

Both agents act in every episode; "freeze" means only one agent's weights get the update.
Returns are per round, discounted by gamma; the baseline is the batch mean of the return at
the same round index, so the advantage says how much better an episode did than its peers.
After each outer iteration the greedy policy is evaluated and the best weights so far are
kept (ties go to the better sampled mean), so training never ends worse than it began;
training stops early once greedy decoding meets the DAG's lower bound (it is then optimal).
"""

from __future__ import annotations

import csv
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Callable

import numpy as np
import torch
from tqdm import tqdm

from ..bounds import lower_bounds
from ..engine import list_schedule
from ..priorities import critical_path_rank
from ..topology import make_topology, parse_spec, preset
from ..workloads import WorkloadDAG, build_dag
from .checkpoint import checkpoint_dir, load_checkpoint, save_checkpoint, slug
from .features import Observer
from .policy import HierarchicalPolicy, PolicyConfig, use_torch_threads
from .rewards import check_reward, lower_reward, upper_reward
from .rollout import Episode, RoundRecord, play

@dataclass(frozen=True)
class TrainConfig:
    """Hyperparameters of Algorithm 1 (stored in the checkpoint sidecar)."""

    iterations: int = 400
    """I: outer iterations (each trains the upper agent J times, then the lower agent K times);
    large enough that `budget_s` is what ends a Table 2 run."""
    upper_iters: int = 2
    """J: upper-agent updates per outer iteration."""
    lower_iters: int = 4
    """K: lower-agent updates per outer iteration."""
    batch: int = 16
    """Episodes collected per update."""
    lr: float = 3e-3
    """Adam learning rate of both agents."""
    gamma: float = 0.99
    """Discount per round (the rounds reward uses 1.0 whatever is set here)."""
    entropy: float = 0.01
    """Entropy bonus weight (keeps exploring)."""
    reward: str = "paper"
    """"paper": eqs. 3-5; "rounds": -1 per round for both agents (the metric itself)."""
    hidden: int = 64
    """Width of the hidden layers."""
    prior: str = "none"
    """Lower agent's initial skip path: "none" (learn from scratch) or "heuristic" (see PolicyConfig)."""
    budget_s: float = 780.0
    """Wall-clock limit; training stops after the update that crosses it (the final evaluation
    adds well under a minute on Table 2 sizes)."""
    eval_samples: int = 16
    """Sampled rollouts of the final evaluation (rl-sample)."""
    seed: int = 0
    """Seed of torch and of the rollouts."""

    def __post_init__(self) -> None:
        check_reward(self.reward)
        for name in ("iterations", "upper_iters", "lower_iters", "batch"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")


def round_rewards(ep: Episode, dag: WorkloadDAG, cfg: TrainConfig) -> tuple[np.ndarray, np.ndarray]:
    """Per-round rewards (upper, lower) of an episode."""
    sent = np.array([r.sent for r in ep.records], dtype=np.float64)
    selected = np.array([r.selected.sum() for r in ep.records], dtype=np.float64)
    done = np.zeros(len(sent), dtype=bool)
    done[-1:] = not ep.truncated
    return (upper_reward(cfg.reward, sent, selected, dag.n, dag.n_trees, done),
            lower_reward(cfg.reward, sent, dag.n))


def advantages(rewards: list[np.ndarray], gamma: float) -> list[np.ndarray]:
    """Discounted returns minus the batch mean at the same round index, scaled by their std.

    An episode that has ended contributes a return of 0 (the terminal value) to the mean, so
    the baseline of late rounds is not biased toward the long episodes that are still running.
    """
    rets = []
    for r in rewards:
        g = np.zeros(len(r))
        acc = 0.0
        for i in range(len(r) - 1, -1, -1):
            acc = r[i] + gamma * acc
            g[i] = acc
        rets.append(g)
    horizon = max(len(g) for g in rets)
    padded = np.zeros((len(rets), horizon))
    for i, g in enumerate(rets):
        padded[i, : len(g)] = g
    base = padded.mean(axis=0)
    adv = [g - base[: len(g)] for g in rets]
    scale = np.concatenate(adv).std() + 1e-8
    return [a / scale for a in adv]


def upper_logp(policy: HierarchicalPolicy, recs: list[RoundRecord]) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probability of each round's tree selection, and the mean Bernoulli entropy."""
    feats = torch.from_numpy(np.concatenate([r.upper_feats for r in recs]))
    sel = torch.from_numpy(np.concatenate([r.selected for r in recs]).astype(np.float32))
    mask = torch.from_numpy(np.concatenate([r.selectable for r in recs]).astype(np.float32))
    seg = torch.from_numpy(np.repeat(np.arange(len(recs)), [len(r.selected) for r in recs]))
    logit = policy.tree_logits(feats)
    lp = (sel * torch.nn.functional.logsigmoid(logit) + (1 - sel) * torch.nn.functional.logsigmoid(-logit)) * mask
    out = torch.zeros(len(recs)).index_add(0, seg, lp)
    p = torch.sigmoid(logit)
    ent = -(p * torch.log(p + 1e-9) + (1 - p) * torch.log(1 - p + 1e-9)) * mask
    return out, ent.sum() / mask.sum().clamp(min=1)


def lower_logp(policy: HierarchicalPolicy, recs: list[RoundRecord]) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probability of each round's sequence of picks, and the mean per-step entropy."""
    sizes = np.array([len(r.lower_feats) for r in recs])
    offset = np.r_[0, np.cumsum(sizes)[:-1]]
    h, c = policy.workload_heads(torch.from_numpy(np.concatenate([r.lower_feats for r in recs])))
    n_steps = np.array([len(r.chosen) for r in recs])
    step_off = np.r_[0, np.cumsum(n_steps)[:-1]]
    cand = torch.from_numpy(np.concatenate([r.entry_cand + o for r, o in zip(recs, offset)]))
    step = torch.from_numpy(np.concatenate([r.entry_step + o for r, o in zip(recs, step_off)]))
    dyn = torch.from_numpy(np.concatenate([r.entry_dyn for r in recs]))
    e_off = np.r_[0, np.cumsum([len(r.entry_cand) for r in recs])[:-1]]
    chosen = torch.from_numpy(np.concatenate([r.chosen + o for r, o in zip(recs, e_off)]))
    score = h[cand] + (c[cand] * dyn).sum(dim=1)
    total = int(n_steps.sum())
    top = torch.full((total,), -torch.inf).scatter_reduce(0, step, score.detach(), "amax")
    z = torch.zeros(total).index_add(0, step, torch.exp(score - top[step]))
    lse = torch.log(z) + top
    logp_entry = score - lse[step]
    step_logp = logp_entry[chosen]
    rnd = torch.from_numpy(np.repeat(np.arange(len(recs)), n_steps))
    lp = torch.zeros(len(recs)).index_add(0, rnd, step_logp)
    ent = -(torch.zeros(total).index_add(0, step, torch.exp(logp_entry) * logp_entry)).mean()
    return lp, ent


@dataclass
class TrainResult:
    """What a training run produced."""

    policy: HierarchicalPolicy
    log: list[dict]
    seconds: float
    best_rounds: int
    greedy_rounds: int
    sample_rounds: int
    lower_bound: int
    critical_path_rounds: int
    kept_iteration: int = 0


def train(dag: WorkloadDAG, cfg: TrainConfig, policy: HierarchicalPolicy | None = None,
          progress: bool = True, on_log: Callable[[dict], None] | None = None) -> TrainResult:
    """Train both agents on one DAG with Algorithm 1 until `iterations` or `budget_s` runs out."""
    use_torch_threads()
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    policy = policy or HierarchicalPolicy(PolicyConfig(hidden=cfg.hidden, prior=cfg.prior))
    policy.train()
    obs = Observer(dag)
    opt = {"upper": torch.optim.Adam(policy.upper.parameters(), lr=cfg.lr),
           "lower": torch.optim.Adam(policy.lower.parameters(), lr=cfg.lr)}
    gamma = 1.0 if cfg.reward == "rounds" else cfg.gamma
    cp_rounds = len(list_schedule(dag, critical_path_rank(dag)))
    lb = lower_bounds(dag).best
    start = time.perf_counter()
    log: list[dict] = []
    best = 10 ** 9
    # keep the weights whose greedy decoding is best so far (checked after each outer iteration)
    keep = {"rounds": play(dag, policy, sample=False, observer=obs).n_rounds, "mean": float("inf"),
            "state": {k: v.clone() for k, v in policy.state_dict().items()}, "iteration": 0}
    total = cfg.iterations * (cfg.upper_iters + cfg.lower_iters)
    bar = tqdm(total=total, desc=f"train {dag.topology.spec}", disable=not progress or None, leave=False)
    step = 0
    for i in range(cfg.iterations):
        for agent, count in (("upper", cfg.upper_iters), ("lower", cfg.lower_iters)):
            for _ in range(count):
                eps = [play(dag, policy, sample=True, rng=rng, observer=obs, record=True)
                       for _ in range(cfg.batch)]
                rewards = [round_rewards(e, dag, cfg) for e in eps]
                adv = advantages([r[0] if agent == "upper" else r[1] for r in rewards], gamma)
                recs = [rec for e in eps for rec in e.records]
                a = torch.from_numpy(np.concatenate(adv).astype(np.float32))
                logp, ent = (upper_logp if agent == "upper" else lower_logp)(policy, recs)
                loss = -(a * logp).mean() - cfg.entropy * ent
                opt[agent].zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
                opt[agent].step()
                rounds = [e.n_rounds for e in eps]
                best = min(best, min(rounds))
                step += 1
                row = {"update": step, "iteration": i + 1, "agent": agent, "mean_rounds": float(np.mean(rounds)),
                       "min_rounds": int(min(rounds)), "best_rounds": int(best), "loss": loss.item(),
                       "entropy": ent.item(), "seconds": round(time.perf_counter() - start, 2)}
                log.append(row)
                if on_log:
                    on_log(row)
                bar.update(1)
                bar.set_postfix(mean=f"{row['mean_rounds']:.1f}", best=best, lb=lb)
                if time.perf_counter() - start > cfg.budget_s:
                    break
            if time.perf_counter() - start > cfg.budget_s:
                break
        greedy_now = play(dag, policy, sample=False, observer=obs).n_rounds
        recent = float(np.mean([r["mean_rounds"] for r in log[-(cfg.upper_iters + cfg.lower_iters):]]))
        if (greedy_now, recent) < (keep["rounds"], keep["mean"]):
            keep = {"rounds": greedy_now, "mean": recent, "iteration": i + 1,
                    "state": {k: v.clone() for k, v in policy.state_dict().items()}}
        if time.perf_counter() - start > cfg.budget_s or keep["rounds"] <= lb:
            break  # out of time, or greedy decoding meets the lower bound: it is optimal
    bar.close()
    policy.load_state_dict(keep["state"])
    policy.eval()
    greedy = play(dag, policy, sample=False, observer=obs).n_rounds
    erng = np.random.default_rng(cfg.seed + 1)
    sample = min([greedy] + [play(dag, policy, sample=True, rng=erng, observer=obs).n_rounds
                             for _ in range(cfg.eval_samples)])
    return TrainResult(policy, log, time.perf_counter() - start, best, greedy, sample, lb, cp_rounds,
                       kept_iteration=keep["iteration"])


def train_spec(spec: str, cfg: TrainConfig, out: str | Path | None = None, init: str | None = None,
               progress: bool = True, command: str = "") -> tuple[Path, TrainResult]:
    """Train on a topology spec and write the checkpoint (default checkpoints/<slug>)."""
    topo = make_topology(spec)
    dag = build_dag(topo, "tree")
    policy = None
    if init:
        policy, _ = load_checkpoint(init)
    stem = Path(out) if out else checkpoint_dir() / slug(topo.spec)
    log_rows: list[dict] = []
    res = train(dag, cfg, policy, progress, on_log=log_rows.append)
    family = parse_spec(topo.spec)[0]
    meta = {
        "topology": topo.spec, "family": family, "servers": topo.n_servers, "workloads": dag.n,
        "train": asdict(cfg), "init": init, "seed": cfg.seed, "training_seconds": round(res.seconds, 1),
        "updates": len(res.log), "kept_iteration": res.kept_iteration, "command": command,
        "final": {"rl": res.greedy_rounds, "rl_sample": res.sample_rounds, "eval_samples": cfg.eval_samples,
                  "best_during_training": res.best_rounds, "critical_path": res.critical_path_rounds,
                  "lower_bound": res.lower_bound},
    }
    side = save_checkpoint(res.policy, stem, meta)
    with open(Path(stem).with_suffix(".log.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(log_rows[0]))
        w.writeheader()
        w.writerows(log_rows)
    return side, res


def train_command(a) -> int:
    """`allreduce-lab train`: one spec or every configuration of a preset."""
    if not a.spec and not a.preset:
        raise ValueError("train needs a topology spec or --preset NAME")
    cfg = TrainConfig(seed=a.seed, reward=a.reward, prior=a.prior)
    if a.budget is not None:
        cfg = replace(cfg, budget_s=a.budget)
    if a.iterations is not None:
        cfg = replace(cfg, iterations=a.iterations)
    specs = [p.spec for p in preset(a.preset)] if a.preset else [a.spec]
    if a.out and len(specs) > 1:
        raise ValueError("--out names one checkpoint; leave it out with --preset (files go to checkpoints/)")
    import sys
    command = "allreduce-lab " + " ".join(sys.argv[1:]) if sys.argv and sys.argv[0].endswith("allreduce-lab") else ""
    for spec in specs:
        side, res = train_spec(spec, cfg, a.out, a.init, progress=not a.quiet, command=command)
        print(f"{spec}: rl {res.greedy_rounds}, rl-sample {res.sample_rounds} (critical-path "
              f"{res.critical_path_rounds}, lower bound {res.lower_bound}) in {res.seconds:.0f}s -> {side}",
              flush=True)
    return 0
