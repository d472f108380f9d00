"""TopDRL, reconstructed: a multi-branch CNN picks the next job, the closest-GPUs heuristic places it.

Confirmed (CLUSTER.md): at every time step TopDRL's multi-branch CNN selects a job (trained by
RL on a throughput-based reward) and a heuristic allocates the free GPUs closest to each other.
Reconstructed here (docs/cluster.md, "TopDRL"):

- **Observation.** Branch 1, the cluster: one row per server in index order (BCube/DCell
  indices follow their addresses, so neighbours sit close), channels = the server's G GPU slots
  (busy or free), the longest remaining run time among its jobs, and the most jobs sharing one
  of its own network links. Branch 2, the queue: the first `WINDOW` waiting jobs in arrival
  order, `JOB_FEATURES` each. Branch 3: a few global numbers (`GLOBAL_FEATURES`).
- **Network.** Branch 1: two 1-D convolutions over servers, then mean and max pooling (any
  number of servers); branch 2: two 1x1 convolutions over the window (one embedding a job);
  branch 3: a linear layer. Each job's score comes from its embedding beside the cluster and
  global embeddings; one more score is "start nothing more until the next event" (allowed while
  some job runs). Jobs that do not fit now are masked out before the softmax.
- **Placement.** `placement.closest`; the AllReduce is a ring (as in the sources).

At an event the policy picks again and again until it chooses to wait or no window job fits.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch
from torch import nn

from .cluster import Cluster
from .placement import closest
from .sim import Decisions, Start, State

WINDOW = 32
FORMAT = "allreduce-lab-topdrl/1"
JOB_FEATURES = ("log2_gpus", "log_hours", "log_wait_hours", "comm_intensity", "fits_now", "fits_one_server",
                "extra_servers_now", "log_gpu_hours", "duration_rank", "compact_now", "extra_hops_now",
                "log_slowdown_now", "log_slowdown_best", "log_effective_hours", "present")
"""Per window job; "present" (1 for a job, 0 for an empty slot) must stay last: the wait head pools by it."""
GLOBAL_FEATURES = ("free_share", "log_waiting", "log_running", "beyond_window")
SERVER_EXTRA = ("log_remaining_hours", "link_users")


class CheckpointError(ValueError):
    """A TopDRL checkpoint that is missing, unreadable or shaped for another cluster."""


@dataclass(frozen=True)
class NetConfig:
    """Shape of the network."""

    gpus_per_server: int = 4
    window: int = WINDOW
    hidden: int = 64

    def as_dict(self) -> dict:
        """Plain dict for the sidecar."""
        return asdict(self)


class TopDRLNet(nn.Module):
    """The multi-branch CNN: cluster rows, queue window and globals -> one logit per slot + wait."""

    def __init__(self, cfg: NetConfig):
        super().__init__()
        self.cfg = cfg
        h = cfg.hidden
        c_in = cfg.gpus_per_server + len(SERVER_EXTRA)
        self.cluster = nn.Sequential(nn.Conv1d(c_in, h, 3, padding=1), nn.ReLU(), nn.Conv1d(h, h, 3, padding=1),
                                     nn.ReLU())
        self.queue = nn.Sequential(nn.Conv1d(len(JOB_FEATURES), h, 1), nn.ReLU(), nn.Conv1d(h, h, 1), nn.ReLU())
        self.globals = nn.Sequential(nn.Linear(len(GLOBAL_FEATURES), h // 2), nn.ReLU())
        ctx = 2 * h + h // 2
        self.score = nn.Sequential(nn.Conv1d(h + ctx, h, 1), nn.ReLU(), nn.Conv1d(h, 1, 1))
        self.wait = nn.Sequential(nn.Linear(ctx + h, h), nn.ReLU(), nn.Linear(h, 1))

    def forward(self, servers: torch.Tensor, jobs: torch.Tensor, glob: torch.Tensor, mask: torch.Tensor
                ) -> torch.Tensor:
        """Masked logits (B, window + 1): servers (B, C, S), jobs (B, F, W), glob (B, G), mask (B, W + 1)."""
        c = self.cluster(servers)
        ctx = torch.cat([c.mean(dim=2), c.amax(dim=2), self.globals(glob)], dim=1)  # (B, ctx)
        q = self.queue(jobs)  # (B, h, W)
        wide = torch.cat([q, ctx[:, :, None].expand(-1, -1, q.shape[2])], dim=1)
        job_logits = self.score(wide)[:, 0, :]
        pooled = (q * jobs[:, -1:, :]).sum(dim=2) / jobs[:, -1, :].sum(dim=1, keepdim=True).clamp(min=1)
        wait_logit = self.wait(torch.cat([ctx, pooled], dim=1))
        return torch.cat([job_logits, wait_logit], dim=1).masked_fill(~mask, -1e9)


@dataclass
class Observation:
    """One decision's inputs as numpy arrays (stacked into a batch for training)."""

    servers: np.ndarray
    jobs: np.ndarray
    glob: np.ndarray
    mask: np.ndarray


def cluster_context(state: State, extra: np.ndarray | None = None, rem: np.ndarray | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Per server: the longest remaining run time (s) of its running jobs (`rem` if given), and
    the most jobs sharing one of its own links (running ones plus `extra` per link)."""
    c: Cluster = state.cluster
    if rem is None and not state.running:
        rem = np.zeros(c.n_servers)
    elif rem is None:
        run = np.array(state.running)
        left = state.remaining[run] * state.iter_time[run]
        on = np.stack([state.alloc[j] for j in state.running]) > 0  # (jobs, S)
        rem = np.where(on, left[:, None], 0.0).max(axis=0)
    node_users = np.zeros(c.topology.n_nodes)
    np.maximum.at(node_users, c.topology.link_src, state.users + (0 if extra is None else extra))
    return rem, node_users[c.nodes]


class PlacementView:
    """What the closest-GPUs heuristic would give each job of the window now, beside the best it
    gives on an empty cluster: what SJF cannot see (docs/cluster.md, "TopDRL")."""

    def __init__(self, cluster: Cluster):
        self.cluster = cluster
        self._best: dict[int, tuple[int, int]] = {}
        self._alone: dict[tuple[int, float, float], float] = {}

    def best(self, g: int) -> tuple[int, int]:
        """(servers, largest hop distance between them) of `g` GPUs placed closest on an empty cluster."""
        if g not in self._best:
            c = self.cluster
            self._best[g] = shape(closest(np.full(c.n_servers, c.gpus_per_server), g, c, None), c)
        return self._best[g]

    def alone(self, state: State, g: int, size: float, compute: float) -> float:
        """Iteration over compute time of a job of `g` GPUs placed closest on an empty cluster, alone."""
        key = (g, size, compute)
        if key not in self._alone:
            c = self.cluster
            a = closest(np.full(c.n_servers, c.gpus_per_server), g, c, None)
            servers = tuple(int(s) for s in np.flatnonzero(a))
            t = state.comm.intra_time(a, size)
            if len(servers) > 1:
                t += state.comm.net_time(state.comm.net_plan(servers, "ring"), size)
            self._alone[key] = (compute + t) / compute
        return self._alone[key]

    def now(self, state: State, window: np.ndarray, free: np.ndarray, extra: np.ndarray) -> np.ndarray:
        """(5, len(window)): compact now (0/1), extra servers and extra hops over the best placement,
        slowdown now (iteration over compute time under the current link sharing plus `extra`
        load of jobs started in this decision), slowdown alone on the best placement."""
        out = np.zeros((5, len(window)))
        c, tr = self.cluster, state.trace
        g_all, m_all = tr.gpus[window], tr.model[window]
        total = int(free.sum())
        for g in np.unique(g_all).tolist():
            rows = np.flatnonzero(g_all == g)
            n_min, far_min = self.best(g)
            a = closest(free, g, c, None) if g <= total else None
            if a is not None:
                n, far = shape(a, c)
                out[0, rows] = float(n <= n_min and far <= far_min)
                out[1, rows] = n - n_min
                out[2, rows] = max(far - far_min, 0)
            for m in np.unique(m_all[rows]).tolist():  # jobs of one size and model slow down alike
                same = rows[m_all[rows] == m]
                j = int(window[same[0]])
                out[4, same] = self.alone(state, g, float(state.size[j]), float(state.compute[j]))
                if a is not None:
                    out[3, same] = state.iteration_time(j, a, "ring", extra)[0] / float(state.compute[j])
        return out


def shape(alloc: np.ndarray, cluster: Cluster) -> tuple[int, int]:
    """(servers an allocation uses, largest hop distance between two of them)."""
    srv = np.flatnonzero(alloc)
    return len(srv), int(cluster.hops[np.ix_(srv, srv)].max())


def observe(state: State, window: list[int], free: np.ndarray, remaining: np.ndarray, link_users: np.ndarray,
            cfg: NetConfig, view: PlacementView | None = None, extra: np.ndarray | None = None) -> Observation:
    """The observation of a decision: `window` jobs (arrival order), `free` GPUs now, per server
    the longest remaining seconds of its jobs and the most jobs on one of its links; `view` gives
    the closest placement's features (`extra`: link load of jobs started in this decision)."""
    c: Cluster = state.cluster
    G, W = c.gpus_per_server, cfg.window
    tr = state.trace
    busy = (np.arange(G)[:, None] < (G - free)[None, :]).astype(np.float32)  # (G, S)
    servers = np.vstack([busy, np.log1p(remaining / 3600.0)[None] / 5.0, np.minimum(link_users, 8)[None] / 4.0])
    jobs = np.zeros((len(JOB_FEATURES), W), np.float32)
    mask = np.zeros(W + 1, bool)
    n = len(window)
    if n:
        idx = np.array(window)
        g = tr.gpus[idx].astype(np.float64)
        hours = tr.ideal_duration[idx] / 3600.0
        total_free = free.sum()
        fits = g <= total_free
        ranks = np.argsort(np.argsort(hours)) / max(n - 1, 1)
        view = view or PlacementView(c)
        extra = np.zeros(c.topology.n_links) if extra is None else extra
        compact, more_srv, more_hops, slow_now, slow_best = view.now(state, idx, free, extra)
        slow = np.where(fits, slow_now, slow_best)
        jobs[:, :n] = np.stack([
            np.log2(g) / 5.0, np.log1p(hours) / 5.0, np.log1p((state.now - tr.arrival[idx]) / 3600.0) / 5.0,
            np.log1p(tr.grad_bytes[idx] / (tr.compute_s[idx] * 12.5e9)) / 3.0, fits, g <= free.max(),
            np.minimum(more_srv, 8) / 4.0, np.log1p(g * hours) / 7.0, ranks,
            compact, np.minimum(more_hops, 8) / 4.0, np.log(slow) / 2.0, np.log(slow_best) / 2.0,
            np.log1p(hours * slow) / 5.0, np.ones(n)])
        mask[:n] = fits
    mask[W] = bool(state.running)
    glob = np.array([free.sum() / c.n_gpus, np.log1p(len(state.waiting)) / 5.0, np.log1p(len(state.running)) / 5.0,
                     float(len(state.waiting) > W)], np.float32)
    return Observation(servers.astype(np.float32), jobs, glob, mask)


def batch(obs: list[Observation]) -> tuple[torch.Tensor, ...]:
    """Stack observations into the network's input tensors."""
    return (torch.from_numpy(np.stack([o.servers for o in obs])), torch.from_numpy(np.stack([o.jobs for o in obs])),
            torch.from_numpy(np.stack([o.glob for o in obs])), torch.from_numpy(np.stack([o.mask for o in obs])))


Chooser = Callable[[Observation, State, list[int]], int]


class TopDRL:
    """The scheduler: the network (greedy, or sampling while training) picks, closest places."""

    def __init__(self, net: TopDRLNet, sample: bool = False, seed: int = 0, chooser: Chooser | None = None):
        torch.set_num_threads(1)  # a tiny net: more threads only spin-wait on a busy machine (as core.rl does)
        self.net, self.sample, self.seed = net, sample, seed
        self.chooser = chooser
        self.name = "topdrl"
        self.log: list[tuple[Observation, int, float, float]] = []  # (obs, action, time, log-prob) per pick
        self.rng = np.random.default_rng(seed)

    def reset(self, state: State) -> None:
        """Fresh log and random stream for a run."""
        self.log = []
        self.rng = np.random.default_rng(self.seed)
        self.view = PlacementView(state.cluster)
        if state.cluster.gpus_per_server != self.net.cfg.gpus_per_server:
            built = self.net.cfg.gpus_per_server  # the way forward too (trial 17: the refusal named none)
            raise CheckpointError(f"TopDRL network was built for {built} GPUs per server; the cluster has "
                                  f"{state.cluster.gpus_per_server} (docs/cluster.md §6): use --gpus-per-server "
                                  f"{built} or another --scheduler")

    def wakeup(self, state: State) -> float:
        """TopDRL acts on arrivals and completions only."""
        return np.inf

    def _pick(self, ob: Observation, state: State, window: list[int]) -> tuple[int, float]:
        """(action, its log-probability under the sampling policy; 0 when greedy or taught)."""
        if self.chooser is not None:
            return self.chooser(ob, state, window), 0.0
        with torch.no_grad():
            logits = self.net(*batch([ob]))[0].numpy().astype(np.float64)
        if not self.sample:
            return int(np.argmax(logits)), 0.0
        p = np.exp(logits - logits.max())
        p /= p.sum()
        a = int(self.rng.choice(len(p), p=p))
        return a, float(np.log(p[a]))

    def decide(self, state: State) -> Decisions:
        """Pick jobs one at a time until the policy waits or nothing in the window fits."""
        dec = Decisions()
        free = state.free.copy()
        left = sorted(state.waiting)
        W = self.net.cfg.window
        if not left or state.trace.gpus[left[:W]].min() > free.sum():
            return dec
        extra = np.zeros(state.cluster.topology.n_links, np.int64)  # link users of this decision's starts
        load = np.zeros(state.cluster.topology.n_links)  # and their load (duty cycles)
        rem, link_users = cluster_context(state, extra)
        while True:
            window = left[:W]
            if not window or state.trace.gpus[window].min() > free.sum():
                break
            ob = observe(state, window, free, rem, link_users, self.net.cfg, self.view, load)
            a, logp = self._pick(ob, state, window)
            self.log.append((ob, a, state.now, logp))
            if a >= len(window):
                break
            j = window[a]
            alloc = closest(free, int(state.trace.gpus[j]), state.cluster, self.rng)
            free -= alloc
            left.remove(j)
            dec.starts.append(Start(j, alloc, "ring"))
            duty, plan = state.duty_of(j, alloc, "ring", load)
            if plan is not None:
                extra[plan.links] += 1
                load[plan.links] += duty
            rem, link_users = cluster_context(state, extra, rem)
            rem = np.where(alloc > 0, np.maximum(rem, state.trace.ideal_duration[j]), rem)
        return dec


def sjf_chooser(ob: Observation, state: State, window: list[int]) -> int:
    """The teacher of the imitation warm-up: the shortest job of the window that fits (SJF)."""
    ok = np.flatnonzero(ob.mask[:len(window)])
    return int(ok[np.argmin(state.trace.ideal_duration[np.array(window)[ok]])])


# ---- checkpoints -----------------------------------------------------------------------------

def default_checkpoint() -> Path:
    """The shipped checkpoint's stem: checkpoints/topdrl/topdrl (a folder of its own, apart from the
    round-model RL checkpoints that checkpoints/*.json holds)."""
    return Path(__file__).resolve().parents[2] / "checkpoints" / "topdrl" / "topdrl"


def save(net: TopDRLNet, stem: str | Path, meta: dict[str, Any]) -> Path:
    """Write ``stem.safetensors`` and the ``stem.json`` sidecar, each whole or not at all and with the
    permissions a plain write gives (core.atomic, as core.rl.checkpoint does); returns the sidecar path."""
    from safetensors.torch import save as to_bytes

    from ..atomic import write_atomic
    from ..rl.pair import pair_file, pair_stem
    stem = pair_stem(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(pair_file(stem, ".safetensors"),
                 to_bytes({k: v.detach().contiguous() for k, v in net.state_dict().items()}))
    side = {"format": FORMAT, "net": net.cfg.as_dict(), "job_features": list(JOB_FEATURES),
            "global_features": list(GLOBAL_FEATURES), "server_features": ["slot_busy"] + list(SERVER_EXTRA), **meta}
    path = pair_file(stem, ".json")
    write_atomic(path, json.dumps(side, indent=2, default=float).encode())
    return path


def checkpoint_stem(path: str | Path) -> Path:
    """A checkpoint's path without suffix, from either file of the pair or the stem; a relative name
    not in the working folder is looked up in checkpoints/topdrl/, then in checkpoints/ (where the
    round-model RL checkpoints lie, so that naming one of them is answered by its format)."""
    from ..rl.checkpoint import checkpoint_dir
    from ..rl.checkpoint import checkpoint_stem as stem_in
    return stem_in(path, (default_checkpoint().parent, checkpoint_dir()))


def trained_on(path: str | Path | None = None) -> dict[str, Any]:
    """What a loadable checkpoint (`load`'s `path`) says of its training: its name (the shipped one as
    ``checkpoints/topdrl/topdrl``), the kept iteration, the cluster and the training traces ("" where a sidecar
    lacks them)."""
    from ..rl.pair import pair_file
    meta = json.loads(pair_file(stem_of(path), ".json").read_text())
    return {"checkpoint": str(checkpoint_stem(path)) if path else "checkpoints/topdrl/topdrl",
            "kept_iteration": meta.get("kept_iteration", ""), "cluster": str(meta.get("cluster", "")),
            "train_traces": str(meta.get("train_traces", ""))}


def trained_note(cluster_spec: str, info: dict[str, Any]) -> str:
    """One line on the checkpoint TopDRL ran (`info`, its `trained_on`) and whether `cluster_spec` (`Cluster.spec`)
    is the cluster it was trained on: elsewhere its picks were never validated, and it can leave GPUs idle that a
    baseline would fill (trial 29: 39% GPU use against sjf+closest's 78% on BCube(2,1), with nothing said). A sidecar
    that does not name its training cluster (a user's, hand-made) is said to leave it unknown (it read "trained on  ()";
    fix32a)."""
    traces = (info.get("train_traces") or "unnamed").split(",seed=")[0]
    iteration = info.get("kept_iteration")
    head = f"topdrl: {info['checkpoint']} (iteration {'not given' if iteration in (None, '') else iteration})"
    if not info.get("cluster"):
        return (f"{head}: its sidecar does not say which cluster it was trained on, so whether it was this one is "
                "unknown; compare it with sjf+closest (docs/cluster.md §6)")
    head += ", trained on"
    if info["cluster"] == cluster_spec:
        return f"{head} this cluster with {traces} traces"
    return (f"{head} {info['cluster']} ({traces}); untested on this cluster: compare it with sjf+closest "
            "(docs/cluster.md §6)")


def stem_of(path: str | Path | None) -> Path:
    """The stem of the checkpoint pair `load` reads for `path` (None: the shipped one)."""
    return checkpoint_stem(path) if path else default_checkpoint()


def load(path: str | Path | None = None) -> tuple[TopDRLNet, dict[str, Any]]:
    """Load a checkpoint (stem or either file, or a name in checkpoints/topdrl/; default the shipped
    one); CheckpointError if unusable."""
    from safetensors.torch import load_file

    from ..rl.checkpoint import FORMAT as RL_FORMAT
    from ..rl.pair import need_both, pair_file
    stem = stem_of(path)
    side, weights = pair_file(stem, ".json"), pair_file(stem, ".safetensors")
    if not side.is_file() or not weights.is_file():
        from ..rl.checkpoint import not_a_checkpoint
        if path and (why := not_a_checkpoint(path)) is not None:
            raise CheckpointError(f"TopDRL {why}")
        where = "" if Path(path or stem).is_absolute() else " (looked in the working folder, checkpoints/topdrl and checkpoints)"
        raise CheckpointError(f"TopDRL checkpoint {stem}: {need_both(side, weights)}{where}; "
                              f"train one with: allreduce-lab cluster-train")
    try:
        meta = json.loads(side.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise CheckpointError(f"TopDRL checkpoint {side}: sidecar is not JSON ({err})") from None
    got = meta.get("format") if isinstance(meta, dict) else None
    if got != FORMAT:
        hint = ("; it is a round-model RL checkpoint (for schedule --method rl), not TopDRL's job picker: pass one "
                "that allreduce-lab cluster-train wrote, or leave --checkpoint out for checkpoints/topdrl/topdrl"
                if got == RL_FORMAT else "")
        raise CheckpointError(f"TopDRL checkpoint {side}: format must be {FORMAT!r}, got {repr(got)[:60]}{hint}")
    if meta.get("job_features") != list(JOB_FEATURES) or meta.get("global_features") != list(GLOBAL_FEATURES):
        raise CheckpointError(f"TopDRL checkpoint {stem.name}: its feature lists differ from this code's; retrain it")
    from ..rl.checkpoint import CheckpointError as WeightsError
    from ..rl.checkpoint import CutShortError, check_weights_header
    try:
        net = TopDRLNet(NetConfig(**meta["net"]))
        # the header first, as the round-model RL's loader does: a file cut short is named so in one line (trial 31:
        # safetensors' own error came out as a traceback)
        check_weights_header(weights, {k: list(v.shape) for k, v in net.state_dict().items()}, stem.name)
        net.load_state_dict(load_file(str(weights)))
    except CutShortError as err:  # said as the RL loader says it
        raise CheckpointError(f"TopDRL {err}") from None
    except WeightsError as err:  # the shapes this network needs
        raise CheckpointError(f"TopDRL checkpoint {stem.name}: does not fit the network ({err})") from None
    except (KeyError, TypeError, RuntimeError) as err:
        raise CheckpointError(f"TopDRL checkpoint {stem.name}: does not fit the network ({err})") from None
    net.eval()
    return net, meta
