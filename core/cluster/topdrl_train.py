"""Training TopDRL's job picker: imitation warm-up, then rollout policy iteration on the JCT reward.

One command makes the shipped checkpoint (docs/cluster.md, "TopDRL"):

    allreduce-lab cluster-train --budget 840 --iterations 80 --seed 0 --out checkpoints/topdrl/topdrl --force

(--force: it replaces the shipped files; the shipped sidecar's command predates the flag.)

1. **Warm-up** (`imitation` episodes): the network learns to copy SJF's pick (shortest job of
   the window that fits) by cross-entropy, so RL starts from a sensible order (SJF never
   waits: RL finds out when waiting pays).
2. **Rollout policy iteration**: `iterations` steps, or fewer if the wall-clock budget ends first. The reward is the standard one for
   average JCT: minus the number of jobs in the system per unit time, whose sum over an episode
   is minus the total JCT. The simulator is deterministic, so an action's advantage can be
   measured exactly by branching (the "vine" estimate of TRPO, Schulman et al. 2015; rollout
   classification policy iteration, Lagoudakis and Parr 2003): each iteration runs the greedy
   policy on a fresh training trace, picks `branches` of its decisions at random, and for each
   replays the episode with one other action there (the wait action with probability
   `wait_share`, else a job sampled from the policy at `temperature`) and the greedy policy
   after it. The advantage of the alternative is the difference of the two episodes' total JCT
   (per job, hours). The network then takes `epochs` Adam steps on a pairwise logistic loss over
   the last `buffer` branches: raise the better action's logit over the other's, each pair
   weighted by its |advantage| over the mean |advantage| (capped at `weight_cap`).
3. Snapshots are scored by their **mean per-trace ratio** of average JCT to sjf+closest's on the
   same trace (computed once per validation trace): traces of one family differ about 2x in
   average JCT, so a plain mean lets two or three heavy traces rank the snapshots. Every
   `eval_every` iterations, and after the last iteration run, the greedy policy runs on the 8
   screening seeds `val_seeds`; at the end the `confirm_top` best-screened snapshots also run on
   the 16 `confirm_seeds`, and the one with the lowest mean ratio over all 24 traces is kept and
   saved (the budget reserves time for this; a budget too short confirms fewer, or none: then the
   best-screened one is kept). Eight traces alone did not rank snapshots reliably (docs/cluster.md
   §8).

Training traces use seeds 1000, 1001, ...; validation seeds 900-923; the benchmark tests on
seeds 0-4, which training and selection never see. The budget counts wall-clock seconds, so the
run ends in time on a busy machine (the sidecar records CPU time and the load average too). It
caps the whole run (`train`'s docstring says how); the sidecar's `budget_cuts` says what it cut.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import torch

from .cluster import make_cluster
from .comm import CommModel
from .policies import Heuristic
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
    budget_s: float = 840.0
    """Wall-clock seconds of the whole run (warm-up and confirmation included): a cap."""
    iterations: int = 80
    """Policy-iteration steps (0: as many as the budget allows). The trajectory is deterministic,
    so a run that reaches them makes the same checkpoint on any machine; a busy machine may hit
    the budget first (the sidecar's `iterations` says)."""
    seed: int = 0
    """Seed of the network's initial weights and of the branch choices."""
    imitation: int = 6
    """Warm-up episodes imitating SJF."""
    imitation_epochs: int = 200
    """Full-batch epochs of the warm-up (enough to copy SJF's picks)."""
    imitation_lr: float = 1e-3
    branches: int = 8
    """Decisions branched per training trace (one replayed episode each)."""
    wait_share: float = 0.5
    """Probability that a branch tries the wait action (where waiting is allowed)."""
    temperature: float = 2.0
    """Softmax temperature of the policy when a branch samples another job."""
    lr: float = 3e-4
    epochs: int = 10
    """Adam steps per iteration over the buffer (full batch)."""
    buffer: int = 1500
    """Most recent branches the loss uses."""
    weight_cap: float = 5.0
    eval_every: int = 4
    """Iterations between screening runs (each costs len(val_seeds) episodes)."""
    hidden: int = 64
    train_seed0: int = 1000
    val_seeds: tuple[int, ...] = field(default=tuple(range(900, 908)))
    """Screening seeds: every snapshot runs on them."""
    confirm_seeds: tuple[int, ...] = field(default=tuple(range(908, 924)))
    """Confirmation seeds: only the `confirm_top` best-screened snapshots run on them too."""
    confirm_top: int = 5
    reference: str = "sjf+closest"
    """The heuristic whose per-trace average JCT divides a snapshot's (the ratio it is ranked by)."""


class Replay:
    """A chooser that repeats recorded actions, takes `alt` at pick `at`, then follows the greedy net."""

    def __init__(self, net: TopDRLNet, actions: list[int], at: int, alt: int):
        self.net, self.actions, self.at, self.alt = net, actions, at, alt
        self.k = 0

    def __call__(self, ob: Observation, state, window) -> int:
        k = self.k
        self.k += 1
        if k < self.at:
            return self.actions[k]
        if k == self.at:
            return self.alt
        with torch.no_grad():
            return int(torch.argmax(self.net(*batch([ob]))[0]))


def _episode(cluster, comm, spec: str, policy: TopDRL) -> Result:
    return simulate(cluster, load_trace(spec), policy, comm, record_links=False)


def _avg_jct(cfg: TrainConfig, cluster, comm, seeds, scheduler: Callable[[], object]) -> dict[int, float]:
    """Average JCT (hours) on each seed's trace, a fresh `scheduler()` per trace."""
    return {s: float(_episode(cluster, comm, f"{cfg.trace},seed={s}", scheduler()).jct.mean() / 3600) for s in seeds}


def reference_jct(cfg: TrainConfig, cluster, comm, seeds) -> dict[int, float]:
    """Average JCT (hours) of the reference heuristic on each seed's trace."""
    order, place = cfg.reference.split("+")
    return _avg_jct(cfg, cluster, comm, seeds, lambda: Heuristic(order, place))


def evaluate(net: TopDRLNet, cfg: TrainConfig, cluster, comm, seeds) -> dict[int, float]:
    """Average JCT (hours) of the greedy policy on each seed's trace."""
    net.eval()
    return _avg_jct(cfg, cluster, comm, seeds, lambda: TopDRL(net))


def mean_ratio(jct: dict[int, float], ref: dict[int, float]) -> float:
    """Mean over traces of average JCT over the reference's on the same trace (lower is better)."""
    return float(np.mean([jct[s] / ref[s] for s in jct]))


def _alternative(net: TopDRLNet, ob: Observation, a: int, cfg: TrainConfig, rng: np.random.Generator) -> int | None:
    """Another valid action than `a` at this observation: wait (often), else a job sampled from the policy."""
    W = len(ob.mask) - 1
    valid = np.flatnonzero(ob.mask)
    valid = valid[valid != a]
    if not len(valid):
        return None
    if ob.mask[W] and a != W and rng.random() < cfg.wait_share:
        return W
    jobs = valid[valid < W]
    if not len(jobs):
        return W
    with torch.no_grad():
        logits = net(*batch([ob]))[0].numpy().astype(np.float64)[jobs] / cfg.temperature
    p = np.exp(logits - logits.max())
    return int(jobs[rng.choice(len(jobs), p=p / p.sum())])


def _pairwise_step(net: TopDRLNet, opt, data: list[tuple[Observation, int, int, float]], cfg: TrainConfig) -> float:
    """`cfg.epochs` Adam steps raising the better action's logit over the other's; returns the last loss."""
    x = batch([d[0] for d in data])
    a = torch.tensor([d[1] for d in data])
    alt = torch.tensor([d[2] for d in data])
    adv = torch.tensor([d[3] for d in data], dtype=torch.float32)
    w = (adv.abs() / adv.abs().mean().clamp(min=1e-9)).clamp(max=cfg.weight_cap)
    y = (adv > 0).float()
    net.train()
    loss = torch.zeros(())
    for _ in range(cfg.epochs):
        logits = net(*x)
        diff = logits.gather(1, alt[:, None])[:, 0] - logits.gather(1, a[:, None])[:, 0]
        loss = (w * torch.nn.functional.binary_cross_entropy_with_logits(diff, y, reduction="none")).mean()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        opt.step()
    net.eval()
    return float(loss.detach())


def train(cfg: TrainConfig, out: str | Path, command: str = "", log=print) -> dict:
    """Train and save the best snapshot at `out` (stem); returns the sidecar's metadata.

    The wall-clock budget caps every step: the warm-up's episodes and epochs stop early, the policy
    iteration stops, and fewer snapshots are confirmed (none: the best-screened one is kept on its
    screening ratio) when the rest would not fit. One floor is not cut: one warm-up episode, one
    epoch and the screening of the warm-up policy (iteration 0) always run, so a checkpoint always
    has a validation ratio; a budget smaller than they take ends a few seconds late. The sidecar's
    `budget_cuts` says what the budget cut, `kept_why` why the kept snapshot was kept.

    `imitation` or `imitation_epochs` 0: no warm-up (not even its episodes); policy iteration starts from the
    initial weights. `confirm_seeds` empty (or `confirm_top` 0): no confirmation; the best-screened snapshot is
    kept, as when the budget leaves no time to confirm. `val_seeds` empty: refused (ValueError), as every snapshot is
    screened, and the kept one chosen, on them."""
    if not cfg.val_seeds:  # the screening's pace and mean ratio divided by their number
        raise ValueError("TopDRL training needs at least one screening seed (val_seeds is empty): every snapshot, "
                         "the warm-up policy's too, is ranked by its mean JCT ratio on them")
    torch.set_num_threads(1)
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    wall0, cpu0, load0 = time.perf_counter(), time.process_time(), os.getloadavg()
    deadline = wall0 + cfg.budget_s

    def cpu() -> float:
        return time.process_time() - cpu0

    def left() -> float:
        return deadline - time.perf_counter()

    cluster = make_cluster(cfg.topology, cfg.gpus_per_server)
    comm = CommModel(cluster)
    net = TopDRLNet(NetConfig(cfg.gpus_per_server, hidden=cfg.hidden))
    history: list[dict] = []
    cuts: list[str] = []  # what the budget cut, in words (the CLI prints them)
    seed = cfg.train_seed0
    n_val, n_conf = len(cfg.val_seeds), len(cfg.confirm_seeds)
    ref: dict[int, float] = {}  # the reference's JCT per validation seed, computed when first needed

    def need_ref(seeds) -> None:
        ref.update(reference_jct(cfg, cluster, comm, [s for s in seeds if s not in ref]))

    # 1. imitation warm-up: its episodes stop early only past half the budget; its epochs leave room for
    # screening the warm-up policy (reference and policy, one episode each per screening seed)
    pace = 0.0  # seconds per episode: the fastest warm-up episode's (the first pays for setting up), then the
    #             latest screening's

    def reserve0() -> float:
        return 1.5 * pace * 2 * n_val + 1.0

    obs: list[Observation] = []
    acts: list[int] = []
    episodes, epochs = 0, 0
    warm_up = cfg.imitation > 0 and cfg.imitation_epochs > 0  # copying SJF takes both episodes and epochs
    if warm_up:  # the warm-up and its screening take tens of seconds before the next line (trial 29: silent)
        log(f"warm-up: copying SJF's picks from {cfg.imitation} episode{'s' * (cfg.imitation != 1)}, then up to {cfg.imitation_epochs} "
            f"epochs (budget {cfg.budget_s:g} s)")
    for i in range(cfg.imitation if warm_up else 0):
        if i and left() < cfg.budget_s / 2:
            cuts.append(f"warm-up: {i} of {cfg.imitation} episodes")
            break
        t_ep = time.perf_counter()
        teacher = TopDRL(net, chooser=sjf_chooser)
        _episode(cluster, comm, f"{cfg.trace},seed={seed}", teacher)
        pace = min(pace or np.inf, time.perf_counter() - t_ep)
        seed += 1
        episodes += 1
        obs += [e[0] for e in teacher.log]
        acts += [e[1] for e in teacher.log]
    if obs:
        x = batch(obs)
        y = torch.tensor(acts)
        bc = torch.optim.Adam(net.parameters(), lr=cfg.imitation_lr)
        per_epoch = 0.0
        for e in range(cfg.imitation_epochs):
            if e and left() < reserve0() + per_epoch:
                cuts.append(f"warm-up: {e} of {cfg.imitation_epochs} epochs")
                break
            t_ep = time.perf_counter()
            loss = torch.nn.functional.cross_entropy(net(*x), y)
            bc.zero_grad()
            loss.backward()
            bc.step()
            per_epoch = time.perf_counter() - t_ep
            epochs = e + 1
        log(f"warm-up: {len(obs)} picks from {episodes} episodes, loss {loss.item():.3f}; screening it on "
            f"{n_val} validation trace{'s' * (n_val != 1)}")
    else:
        log(f"warm-up: none (imitation={cfg.imitation}, imitation_epochs={cfg.imitation_epochs})")
    net.eval()
    snapshots: list[tuple[int, float, dict, dict]] = []  # (iteration, screening ratio, JCT per seed, weights)

    def screen(it: int, extra: dict) -> float:
        nonlocal pace
        need_ref(cfg.val_seeds)
        t_val = time.perf_counter()
        jct = evaluate(net, cfg, cluster, comm, cfg.val_seeds)
        pace = (time.perf_counter() - t_val) / n_val
        ratio = mean_ratio(jct, ref)
        snapshots.append((it, ratio, jct, {k: v.clone() for k, v in net.state_dict().items()}))
        history.append({"iteration": it, **extra, "val_avg_jct_h": float(np.mean(list(jct.values()))),
                        "val_ratio": ratio, "cpu_s": cpu(), "elapsed_s": time.perf_counter() - wall0})
        return ratio

    best = screen(0, {"episodes": episodes})
    log(f"{'after imitation' if obs else 'initial weights'}: validation ratio to {cfg.reference} {best:.3f}")

    # 2. rollout policy iteration; every `eval_every`-th iteration is screened, and the last one run
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    data: list[tuple[Observation, int, int, float]] = []
    it, wins = 0, 0
    episodes += n_val + n_val  # the reference's and the warm-up policy's screening episodes
    per_iter = 0.0
    total0, n_jobs, loss = 0.0, 1, 0.0

    def screen_it(why: str = "") -> None:
        nonlocal best, episodes
        episodes += n_val
        val = screen(it, {"episodes": episodes, "train_avg_jct_h": total0 / 3600 / n_jobs,
                          "branches": len(data), "better_alternatives": int(wins), "loss": loss})
        best = min(best, val)
        log(f"iteration {it}: train {total0 / 3600 / n_jobs:.2f} h, validation ratio {val:.3f} "
            f"(best {best:.3f}), {wins} better alternatives so far, {cpu():.0f} s CPU{why}")

    # (time left for one more iteration, its screening and the confirmation)
    while (not cfg.iterations or it < cfg.iterations) and \
            left() > max(5.0, per_iter) + 1.5 * pace * (n_val + cfg.confirm_top * n_conf) + 5.0:
        t_it = time.perf_counter()
        it += 1
        spec = f"{cfg.trace},seed={seed}"
        seed += 1
        base_pol = TopDRL(net)
        base = _episode(cluster, comm, spec, base_pol)
        episodes += 1
        total0, n_jobs = float(base.jct.sum()), base.trace.n
        actions = [e[1] for e in base_pol.log]
        choices = [k for k, e in enumerate(base_pol.log) if e[0].mask.sum() >= 2]
        for k in rng.permutation(choices)[:cfg.branches].tolist():
            ob, a = base_pol.log[k][0], actions[k]
            alt = _alternative(net, ob, a, cfg, rng)
            if alt is None:
                continue
            res = _episode(cluster, comm, spec, TopDRL(net, chooser=Replay(net, actions, k, alt)))
            episodes += 1
            adv = (total0 - float(res.jct.sum())) / (3600.0 * base.trace.n)  # hours of average JCT saved
            wins += adv > 0
            data.append((ob, a, alt, adv))
        data = data[-cfg.buffer:]
        loss = _pairwise_step(net, opt, data, cfg) if data else 0.0
        if it % cfg.eval_every == 0:
            screen_it()
        per_iter = time.perf_counter() - t_it
    if it and snapshots[-1][0] != it:  # the last iteration run is screened too, so what was trained can be kept
        screen_it(" (the last iteration run)")
    stopped = "iterations" if cfg.iterations and it >= cfg.iterations else "budget"
    if stopped == "budget":
        cuts.append(f"policy iteration: {it} of {cfg.iterations} iterations" if cfg.iterations
                    else f"policy iteration: {it} iterations (--iterations 0: until the budget)")

    # 3. confirmation: the best-screened snapshots on the confirmation seeds too; keep the best on all.
    # As many of the `confirm_top` as the time left allows (the reference's runs count as one more)
    ranked = sorted(snapshots, key=lambda x: x[1])
    n_top = min(cfg.confirm_top, len(ranked)) if n_conf else 0  # no confirmation seeds: nothing to confirm on
    n_fit = n_top
    while n_fit and left() < 1.5 * pace * n_conf * (n_fit + 1):
        n_fit -= 1
    if n_fit < n_top:
        cuts.append(f"confirmation: {n_fit} of {n_top} snapshots")
    if n_fit:
        need_ref(cfg.confirm_seeds)
        episodes += n_conf
    confirmed = []
    for k, ratio, jct, state in ranked[:n_fit]:
        net.load_state_dict(state)
        more = evaluate(net, cfg, cluster, comm, cfg.confirm_seeds)
        rest = mean_ratio(more, ref)
        episodes += n_conf
        every = {**jct, **more}
        confirmed.append({"iteration": k, "screen_ratio": ratio, "confirm_ratio": rest,
                          "ratio": mean_ratio(every, ref), "avg_jct_h": float(np.mean(list(every.values()))),
                          "state": state})
        log(f"snapshot {k}: ratio {ratio:.3f} on screening seeds, {rest:.3f} on confirmation seeds")
    if confirmed:
        kept = min(confirmed, key=lambda x: x["ratio"])
        n_traces = n_val + n_conf
        why = (f"the only snapshot screened, confirmed on {n_traces} traces" if len(ranked) == 1 else
               f"best on the {n_val} screening traces of {len(ranked)} snapshots, confirmed on {n_traces} traces "
               f"(the budget left no time to confirm more)" if len(confirmed) == 1 and n_fit < n_top else
               f"lowest mean ratio on {n_traces} traces of the {len(confirmed)} best-screened of "
               f"{len(ranked)} snapshots")
    else:
        k, ratio, jct, state = ranked[0]
        kept = {"iteration": k, "ratio": ratio, "avg_jct_h": float(np.mean(list(jct.values()))), "state": state}
        n_traces = n_val
        why = ("the only snapshot screened" if len(ranked) == 1 else
               f"lowest mean ratio on the {n_val} screening traces of {len(ranked)} snapshots") + \
            (f"; the budget left no time to confirm it on {n_conf} more traces" if n_fit < n_top else
             "; no confirmation seeds" if not n_conf else "")
    net.load_state_dict(kept["state"])
    usage = resource.getrusage(resource.RUSAGE_SELF)
    # how far the warm-up went, with its ratio: a budget of a few seconds leaves 1 epoch of 200, ratio ~5.7 (fix32b)
    start = (f"the warm-up policy (iteration 0): {epochs} of {cfg.imitation_epochs} epochs copying SJF's picks"
             if obs else "its initial weights (iteration 0)")
    untrained = (f"no policy iteration ran: the {cfg.budget_s:g} s budget ended before one could, so this checkpoint "
                 f"is {start}, screening ratio {snapshots[0][1]:.3f} to {cfg.reference}") if it == 0 else None
    meta = {
        "command": command,
        "config": {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(cfg).items()},
        "cluster": cluster.spec,
        "train_traces": f"{cfg.trace},seed={cfg.train_seed0}..{seed - 1}",
        "validation_traces": [f"{cfg.trace},seed={s}" for s in cfg.val_seeds + cfg.confirm_seeds],
        "reference_avg_jct_h": {str(s): v for s, v in ref.items()},
        "episodes": episodes,
        "iterations": it,
        "stopped_by": stopped,
        "budget_cuts": cuts,
        "kept_iteration": kept["iteration"],
        "kept_why": why,
        **({"untrained": untrained} if untrained else {}),
        "kept_val_ratio": kept["ratio"],
        "kept_val_traces": n_traces,
        "best_val_avg_jct_h": kept["avg_jct_h"],
        "confirmed": [{k: v for k, v in c.items() if k != "state"} for c in confirmed],
        "history": history,
        "training": {"wall_s": time.perf_counter() - wall0, "cpu_s": cpu(),
                     "max_rss_mib": usage.ru_maxrss / 1024, "loadavg_start": list(load0),
                     "loadavg_end": list(os.getloadavg()), "torch_threads": torch.get_num_threads(),
                     "python": sys.version.split()[0], "torch": torch.__version__},
    }
    save(net, out, meta)
    return meta
