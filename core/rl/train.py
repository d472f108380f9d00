"""Algorithm 1 of the paper: alternate training of the two agents with REINFORCE and a baseline.

for i in 1..I:
    for j in 1..J: freeze the lower policy; collect episodes; update the upper policy
    for k in 1..K: freeze the upper policy; collect episodes; update the lower policy

Both agents act in every episode; "freeze" means only one agent's weights get the update.
Returns are per round, discounted by gamma; the baseline is the batch mean of the return at
the same round index, so the advantage says how much better an episode did than its peers.
Training runs on one DAG or on a set of DAGs (the universal policy): each update draws one
DAG and plays its whole batch there, so the baseline compares episodes of one instance.
After each outer iteration the greedy policy is evaluated on every training DAG and the
best weights so far are kept (`Snapshot`), so training never ends worse than it began;
training stops early once greedy decoding meets every DAG's lower bound (it is then optimal).

`train` reports each update through a callback; it prints nothing (the CLI does).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import torch

from ..bounds import lower_bounds
from ..engine import list_schedule
from ..priorities import critical_path_rank
from ..workloads import WorkloadDAG
from .features import Observer
from .policy import HierarchicalPolicy, PolicyConfig, use_torch_threads
from .rewards import check_reward, lower_reward, upper_reward
from .rollout import UPPER_MODES, Episode, RoundRecord, play


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
    train_prior: bool = False
    """Optimize the lower agent's linear skip path too; False keeps it frozen at its initial
    value (the heuristic prior, or zeros), so only the MLP learns (see docs/rl.md's ablation)."""
    upper: str = "learned"
    """"learned": Algorithm 1 trains both agents; "all": the upper agent is replaced by select-all
    and only the lower agent trains (the hierarchy ablation)."""
    budget_s: float = 780.0
    """Wall-clock limit; training stops after the update that crosses it (the final evaluation
    adds well under a minute on Table 2 sizes)."""
    eval_samples: int = 16
    """Sampled rollouts of the final evaluation (rl-sample)."""
    seed: int = 0
    """Seed of torch, of the rollouts and of the order in which training DAGs are drawn."""

    @property
    def planned_updates(self) -> int:
        """Updates the iterations allow, I x (J + K) (I x K when `upper` is "all"); `budget_s` or reaching every
        lower bound may end a run sooner."""
        return self.iterations * ((self.upper_iters if self.upper == "learned" else 0) + self.lower_iters)

    def __post_init__(self) -> None:
        check_reward(self.reward)
        if self.upper not in UPPER_MODES:
            raise ValueError(f"upper must be one of {', '.join(UPPER_MODES)}, got {self.upper!r}")
        for name in ("iterations", "upper_iters", "lower_iters", "batch", "eval_samples"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if not (self.budget_s > 0 and np.isfinite(self.budget_s)):
            raise ValueError(f"budget must be > 0 seconds and finite, got {self.budget_s!r}")


@dataclass
class Instance:
    """One training DAG with what training needs of it, computed once."""

    dag: WorkloadDAG
    observer: Observer
    lower_bound: int
    critical_path: int

    @classmethod
    def of(cls, dag: WorkloadDAG) -> "Instance":
        """The instance of a DAG: its observer, lower bound and critical-path rounds."""
        return cls(dag, Observer(dag), lower_bounds(dag).best, len(list_schedule(dag, critical_path_rank(dag))))


@dataclass
class Snapshot:
    """The best weights so far: greedy rounds on every instance, ordered by (mean gap, sampled mean)."""

    rounds: list[int]
    gap: float
    sampled_mean: float
    iteration: int
    state: dict = field(repr=False)

    @classmethod
    def take(cls, policy: HierarchicalPolicy, insts: list[Instance], iteration: int,
             sampled_mean: float = float("inf"), upper: str = "learned") -> "Snapshot":
        """Evaluate greedy decoding on every instance and copy the weights."""
        rounds = [play(x.dag, policy, sample=False, observer=x.observer, upper=upper).n_rounds for x in insts]
        gap = float(np.mean([r / x.lower_bound - 1 for r, x in zip(rounds, insts)]))
        return cls(rounds, gap, sampled_mean, iteration, {k: v.clone() for k, v in policy.state_dict().items()})

    def better_than(self, other: "Snapshot") -> bool:
        """Lower mean gap wins; ties go to the better mean of the last iteration's sampled rounds."""
        return (self.gap, self.sampled_mean) < (other.gap - 1e-12, other.sampled_mean)

    def optimal(self, insts: list[Instance]) -> bool:
        """True when greedy decoding meets the lower bound on every instance."""
        return all(r <= x.lower_bound for r, x in zip(self.rounds, insts))


@dataclass
class TrainResult:
    """What a training run produced (rounds lists follow the order of the training DAGs)."""

    policy: HierarchicalPolicy
    log: list[dict]
    seconds: float
    cpu_seconds: float
    greedy_rounds: list[int]
    sample_rounds: list[int]
    best_rounds: list[int]
    lower_bounds: list[int]
    critical_path_rounds: list[int]
    kept_iteration: int


def round_rewards(ep: Episode, dag: WorkloadDAG, reward: str) -> tuple[np.ndarray, np.ndarray]:
    """Per-round rewards (upper, lower) of an episode."""
    sent = np.array([r.sent for r in ep.records], dtype=np.float64)
    selected = np.array([r.selected.sum() for r in ep.records], dtype=np.float64)
    done = np.zeros(len(sent), dtype=bool)
    done[-1:] = not ep.truncated
    return (upper_reward(reward, sent, selected, dag.n, dag.n_trees, done),
            lower_reward(reward, sent, dag.n))


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
    padded = np.zeros((len(rets), max(len(g) for g in rets)))
    for i, g in enumerate(rets):
        padded[i, : len(g)] = g
    base = padded.mean(axis=0)
    adv = [g - base[: len(g)] for g in rets]
    scale = np.concatenate(adv).std() + 1e-8
    return [a / scale for a in adv]


def segment_log_softmax(scores: torch.Tensor, segment: torch.Tensor, n_segments: int) -> torch.Tensor:
    """log softmax of `scores` within each segment (entries sharing a `segment` id), per entry."""
    top = torch.full((n_segments,), -torch.inf).scatter_reduce(0, segment, scores.detach(), "amax")
    z = torch.zeros(n_segments).index_add(0, segment, torch.exp(scores - top[segment]))
    return scores - (torch.log(z) + top)[segment]


def upper_logp(policy: HierarchicalPolicy, recs: list[RoundRecord]) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probability of each round's tree selection, and the mean Bernoulli entropy."""
    feats = torch.from_numpy(np.concatenate([r.upper_feats for r in recs]))
    sel = torch.from_numpy(np.concatenate([r.selected for r in recs]).astype(np.float32))
    mask = torch.from_numpy(np.concatenate([r.selectable for r in recs]).astype(np.float32))
    seg = torch.from_numpy(np.repeat(np.arange(len(recs)), [len(r.selected) for r in recs]))
    logit = policy.tree_logits(feats)
    logsig = torch.nn.functional.logsigmoid
    lp = (sel * logsig(logit) + (1 - sel) * logsig(-logit)) * mask
    p = torch.sigmoid(logit)
    ent = -(p * torch.log(p + 1e-9) + (1 - p) * torch.log(1 - p + 1e-9)) * mask
    return torch.zeros(len(recs)).index_add(0, seg, lp), ent.sum() / mask.sum().clamp(min=1)


def lower_logp(policy: HierarchicalPolicy, recs: list[RoundRecord]) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probability of each round's sequence of picks, and the mean per-step entropy."""
    def offsets(sizes) -> np.ndarray:
        return np.r_[0, np.cumsum(sizes)[:-1]].astype(np.int64)

    cand_off = offsets([len(r.lower_feats) for r in recs])
    n_steps = np.array([len(r.chosen) for r in recs])
    step_off = offsets(n_steps)
    entry_off = offsets([len(r.entry_cand) for r in recs])
    h, c = policy.workload_heads(torch.from_numpy(np.concatenate([r.lower_feats for r in recs])))
    cand = torch.from_numpy(np.concatenate([r.entry_cand + o for r, o in zip(recs, cand_off)]))
    step = torch.from_numpy(np.concatenate([r.entry_step + o for r, o in zip(recs, step_off)]))
    dyn = torch.from_numpy(np.concatenate([r.entry_dyn for r in recs]))
    chosen = torch.from_numpy(np.concatenate([r.chosen + o for r, o in zip(recs, entry_off)]))
    total = int(n_steps.sum())
    logp = segment_log_softmax(h[cand] + (c[cand] * dyn).sum(dim=1), step, total)
    rnd = torch.from_numpy(np.repeat(np.arange(len(recs)), n_steps))
    ent = -torch.zeros(total).index_add(0, step, torch.exp(logp) * logp).mean()
    return torch.zeros(len(recs)).index_add(0, rnd, logp[chosen]), ent


def optimizers(policy: HierarchicalPolicy, cfg: TrainConfig) -> dict[str, torch.optim.Optimizer]:
    """One Adam per agent; the lower agent's includes the skip path only with `train_prior`."""
    lower = list(policy.lower.parameters()) + (list(policy.lower_skip.parameters()) if cfg.train_prior else [])
    return {"upper": torch.optim.Adam(policy.upper.parameters(), lr=cfg.lr),
            "lower": torch.optim.Adam(lower, lr=cfg.lr)}


def train(dags: WorkloadDAG | list[WorkloadDAG], cfg: TrainConfig, policy: HierarchicalPolicy | None = None,
          report: Callable[[dict], None] | None = None) -> TrainResult:
    """Train both agents with Algorithm 1 on one DAG or a set, until `iterations` or `budget_s` runs out;
    `report(row)` gets every update's log row."""
    use_torch_threads()
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    start, cpu_start = time.perf_counter(), time.process_time()
    insts = [Instance.of(d) for d in (dags if isinstance(dags, list) else [dags])]
    policy = policy or HierarchicalPolicy(PolicyConfig(hidden=cfg.hidden, prior=cfg.prior))
    policy.train()
    opt = optimizers(policy, cfg)
    gamma = 1.0 if cfg.reward == "rounds" else cfg.gamma
    best = Snapshot.take(policy, insts, iteration=0, upper=cfg.upper)
    best_seen = list(best.rounds)
    plan = [(i, agent) for i in range(cfg.iterations)
            for agent in ["upper"] * (cfg.upper_iters if cfg.upper == "learned" else 0) + ["lower"] * cfg.lower_iters]
    assert len(plan) == cfg.planned_updates
    log: list[dict] = []
    for u, (i, agent) in enumerate(plan):
        k = int(rng.integers(len(insts))) if len(insts) > 1 else 0  # one DAG: the rollouts' stream as before
        x = insts[k]
        eps = [play(x.dag, policy, sample=True, rng=rng, observer=x.observer, record=True, upper=cfg.upper)
               for _ in range(cfg.batch)]
        rewards = [round_rewards(e, x.dag, cfg.reward)[0 if agent == "upper" else 1] for e in eps]
        adv = torch.from_numpy(np.concatenate(advantages(rewards, gamma)).astype(np.float32))
        logp, ent = (upper_logp if agent == "upper" else lower_logp)(policy, [r for e in eps for r in e.records])
        loss = -(adv * logp).mean() - cfg.entropy * ent
        opt[agent].zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
        opt[agent].step()

        rounds = [e.n_rounds for e in eps]
        best_seen[k] = min(best_seen[k], min(rounds))
        row = {"update": u + 1, "iteration": i + 1, "agent": agent, "instance": x.dag.topology.spec,
               "mean_rounds": float(np.mean(rounds)), "min_rounds": int(min(rounds)),
               "lower_bound": x.lower_bound, "loss": loss.item(), "entropy": ent.item(),
               "seconds": round(time.perf_counter() - start, 2)}
        log.append(row)
        if report:
            report(row)

        out_of_time = time.perf_counter() - start > cfg.budget_s
        if out_of_time or u + 1 == len(plan) or plan[u + 1][0] != i:  # end of an outer iteration
            recent = [r["mean_rounds"] / r["lower_bound"] for r in log if r["iteration"] == i + 1]
            now = Snapshot.take(policy, insts, i + 1, float(np.mean(recent)), cfg.upper)
            if now.better_than(best):
                best = now
            if out_of_time or best.optimal(insts):
                break  # out of time, or greedy decoding meets every lower bound: it is optimal
    policy.load_state_dict(best.state)
    policy.eval()
    erng = np.random.default_rng(cfg.seed + 1)
    sampled = [min([g] + [play(x.dag, policy, sample=True, rng=erng, observer=x.observer, upper=cfg.upper).n_rounds
                          for _ in range(cfg.eval_samples)]) for g, x in zip(best.rounds, insts)]
    return TrainResult(policy, log, time.perf_counter() - start, time.process_time() - cpu_start, best.rounds,
                       sampled, [min(a, b) for a, b in zip(best_seen, sampled)], [x.lower_bound for x in insts],
                       [x.critical_path for x in insts], best.iteration)
