"""Play one episode of the hierarchical policy on the engine, round by round.

Each round: the upper agent picks a set of flow-trees (independent Bernoulli per tree with
ready workloads); the pool is their ready workloads; the lower agent then picks workloads
one at a time, each from a softmax over the candidates that still fit, until none fits
(greedy decoding takes the best-scored). The round goes to the engine, which checks it.

If the selected trees have no ready workload, the round uses every tree: an empty round
never helps (deleting it keeps a schedule valid), so this rule loses nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from ..engine import Engine, RoundBuilder
from ..workloads import WorkloadDAG
from .features import Observer, dynamic_features
from .policy import HierarchicalPolicy

TRACE_CANDIDATES = 50  # per step, the debugger trace keeps at most this many best-scored candidates


@dataclass
class RoundRecord:
    """What training needs to recompute the log-probabilities of one round."""

    upper_feats: np.ndarray      # (n_trees, G)
    selectable: np.ndarray       # (n_trees,) bool: trees with a ready workload
    selected: np.ndarray         # (n_trees,) bool: the upper agent's action
    lower_feats: np.ndarray      # (k, F) round-start features of the pool
    entry_cand: np.ndarray       # (E,) pool position of each (step, valid candidate) entry
    entry_step: np.ndarray       # (E,) step of the entry
    entry_dyn: np.ndarray        # (E, D) dynamic features of the entry
    chosen: np.ndarray           # (M,) entry index picked at each step
    sent: int                    # workloads sent this round


@dataclass
class Episode:
    """One played schedule with optional training records and debugger trace."""

    rounds: list[np.ndarray]
    records: list[RoundRecord] = field(default_factory=list)
    trace: dict | None = None
    truncated: bool = False

    @property
    def n_rounds(self) -> int:
        """Rounds of the schedule."""
        return len(self.rounds)


def play(dag: WorkloadDAG, policy: HierarchicalPolicy, *, sample: bool, rng: np.random.Generator | None = None,
         observer: Observer | None = None, record: bool = False, trace: bool = False,
         temperature: float = 1.0) -> Episode:
    """Run the policy to the end of the AllReduce through the engine's round loop (truncated at
    the engine's one round limit) and return the episode."""
    obs = observer or Observer(dag)
    rng = rng or np.random.default_rng(0)
    nt = dag.n_trees
    prev = {"selected": np.zeros(nt, dtype=bool), "sent": np.zeros(nt)}
    records: list[RoundRecord] = []
    tr = {"tree_probs": [], "trees_selected": [], "steps": []} if trace else None

    def select(eng: Engine) -> np.ndarray:
        st = obs.state(eng)
        ready = np.flatnonzero(st.ready)
        selectable = np.zeros(nt, dtype=bool)
        selectable[dag.tree[ready]] = True
        uf = obs.upper(st, prev["selected"], prev["sent"])
        with torch.no_grad():
            logits = policy.tree_logits(torch.from_numpy(uf)).numpy().astype(np.float64)
        prob = 1.0 / (1.0 + np.exp(-logits))
        chosen = (rng.random(nt) < prob) if sample else (prob > 0.5)
        chosen &= selectable
        pool = ready[chosen[dag.tree[ready]]]
        if len(pool) == 0:
            pool = ready
        lf = obs.lower(st, pool)
        with torch.no_grad():
            h, c = policy.workload_heads(torch.from_numpy(lf))
        h, c = h.numpy().astype(np.float64), c.numpy().astype(np.float64)
        builder = RoundBuilder(eng, pool)
        e_cand, e_step, e_dyn, picks, steps = [], [], [], [], []
        n_entries = 0
        while not builder.done:
            valid = np.flatnonzero(builder.valid)
            dyn = dynamic_features(builder)[valid]
            score = h[valid] + (c[valid] * dyn).sum(axis=1)
            key = score / temperature
            if sample:
                key = key + rng.gumbel(size=len(valid))
            j = int(np.argmax(key))
            if record:
                e_cand.append(valid)
                e_step.append(np.full(len(valid), len(picks)))
                e_dyn.append(dyn)
                picks.append(n_entries + j)
                n_entries += len(valid)
            else:
                picks.append(j)
            if trace:
                top = np.argpartition(-score, TRACE_CANDIDATES)[:TRACE_CANDIDATES] \
                    if len(score) > TRACE_CANDIDATES else np.arange(len(score))
                top = top[np.argsort(-score[top], kind="stable")]
                steps.append({"candidates": pool[valid[top]].tolist(), "scores": score[top].round(4).tolist(),
                              "chosen": int(pool[valid[j]])})
            builder.add(int(valid[j]))
        ids = builder.ids()
        if record:
            records.append(RoundRecord(uf, selectable, chosen.copy(), lf, np.concatenate(e_cand),
                                       np.concatenate(e_step), np.concatenate(e_dyn).astype(np.float32),
                                       np.array(picks), len(ids)))
        if trace:
            tr["tree_probs"].append(prob.round(4).tolist())
            tr["trees_selected"].append(np.flatnonzero(chosen).tolist())
            tr["steps"].append(steps)
        prev["selected"] = chosen
        prev["sent"] = np.bincount(dag.tree[ids], minlength=nt).astype(np.float64)
        return ids

    eng = Engine(dag).run(select, truncate=True)
    return Episode(eng.rounds, records, tr, truncated=eng.truncated)
