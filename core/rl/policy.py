"""The two policies: shared-weight scorers over candidates (lower) and flow-trees (upper).

Both score each item from its own feature vector with one small MLP, so the same weights
run on any topology and any size. The lower agent's MLP reads a candidate's round-start
features and returns a base score h and coefficients c for the within-round (dynamic)
features d, so its score at a step is ``h + c . d``: one network call per round, a dot
product per step. Infeasible items get their logits masked before the softmax (lower) or
are never selected (upper).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import nn

from .features import ADDED_FEATURES, DYNAMIC_FEATURES, FEATURES_VERSION, LOWER_FEATURES, UPPER_FEATURES, lower_columns


@dataclass(frozen=True)
class PolicyConfig:
    """Shape of both networks (stored in the checkpoint sidecar)."""

    hidden: int = 64
    """Width of the two hidden layers."""
    upper_bias: float = 3.0
    """Initial logit of selecting a tree (sigmoid(3) ~ 0.95: start by selecting nearly all)."""
    prior: str = "none"
    """Initial linear skip path of the lower agent: "none" (zeros: learn from scratch) or
    "heuristic" (score = scale * (tail + link pressure - within-round conflicts))."""
    prior_scale: float = 5.0
    """Scale of the heuristic prior (larger: the untrained policy samples closer to greedy)."""
    features_version: int = FEATURES_VERSION
    n_lower: int = len(LOWER_FEATURES)
    n_dynamic: int = len(DYNAMIC_FEATURES)
    n_upper: int = len(UPPER_FEATURES)
    lower_features: tuple[str, ...] = LOWER_FEATURES
    """The round-start features the lower agent reads, in its input order (the sidecar's top-level
    `lower_features`, not part of `as_dict`); `n_lower` is their count."""

    def as_dict(self) -> dict:
        """Plain dict for JSON (without `lower_features`: the sidecar lists them at its top level)."""
        out = asdict(self)
        del out["lower_features"]
        return out


PRIORS = ("none", "heuristic")


def _mlp(n_in: int, hidden: int, n_out: int, bias: float = 0.0, zero_inputs: tuple[int, ...] = ()) -> nn.Sequential:
    """Two tanh hidden layers, the last layer at zero weights and `bias`. The inputs `zero_inputs` start with zero
    first-layer weights and draw no random numbers: the others are drawn exactly as for a network without them."""
    net = nn.Sequential(nn.Linear(n_in - len(zero_inputs), hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                        nn.Linear(hidden, n_out))
    if zero_inputs:
        first = net[0]
        w = torch.zeros(hidden, n_in)
        w[:, [i for i in range(n_in) if i not in zero_inputs]] = first.weight.detach()
        first.weight, first.in_features = nn.Parameter(w), n_in
    nn.init.zeros_(net[-1].weight)
    nn.init.constant_(net[-1].bias, bias)
    return net


def use_torch_threads() -> None:
    """Run torch on one thread (ALLREDUCE_LAB_TORCH_THREADS overrides).

    The networks are tiny: one thread is fastest, and on a busy 2-core machine several
    threads spin-wait on each other and slow training many times over.
    """
    import os
    torch.set_num_threads(int(os.environ.get("ALLREDUCE_LAB_TORCH_THREADS", "1")))


class HierarchicalPolicy(nn.Module):
    """The flow-tree selection (upper) and workload scheduling (lower) policies."""

    def __init__(self, config: PolicyConfig = PolicyConfig()):
        super().__init__()
        self.config = config
        if config.prior not in PRIORS:
            raise ValueError(f"prior must be one of {', '.join(PRIORS)}, got {config.prior!r}")
        lower_columns(config.lower_features)  # every name known, none twice
        if config.n_lower != len(config.lower_features):
            raise ValueError(f"n_lower must be the number of lower_features ({len(config.lower_features)}), "
                             f"got {config.n_lower}")
        self.lower_features = tuple(config.lower_features)
        self.upper = _mlp(config.n_upper, config.hidden, 1, config.upper_bias)
        # features added after the first checkpoints start at zero weight: an untrained network (and a training
        # run's random start) is that of the same network without them
        added = tuple(i for i, n in enumerate(self.lower_features) if n in ADDED_FEATURES)
        self.lower = _mlp(config.n_lower, config.hidden, 1 + config.n_dynamic, zero_inputs=added)
        # linear skip path beside the MLP: zeros, or the heuristic prior
        self.lower_skip = nn.Linear(config.n_lower - len(added), 1 + config.n_dynamic)  # drawn as without them
        self.lower_skip.weight = nn.Parameter(torch.zeros(1 + config.n_dynamic, config.n_lower))
        self.lower_skip.in_features = config.n_lower
        nn.init.zeros_(self.lower_skip.bias)
        if config.prior == "heuristic":
            with torch.no_grad():
                k = config.prior_scale
                # by name: the prior gives no other feature (unlock_starving included) a weight
                self.lower_skip.weight[0, self.lower_features.index("tail")] = k
                self.lower_skip.weight[0, self.lower_features.index("link_pressure_max")] = k
                self.lower_skip.bias[1 + DYNAMIC_FEATURES.index("conflicts_valid")] = -k

    def tree_logits(self, feats: torch.Tensor) -> torch.Tensor:
        """Selection logit of each flow-tree, shape (n_trees,)."""
        return self.upper(feats).squeeze(-1)

    def workload_heads(self, feats: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Base score h (k,) and dynamic-feature coefficients c (k, D) of each candidate."""
        out = self.lower(feats) + self.lower_skip(feats)
        return out[:, 0], out[:, 1:]
