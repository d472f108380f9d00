"""Play one episode of the hierarchical policy on the engine, round by round.

Each round: the upper agent picks a set of flow-trees (independent Bernoulli per tree with
ready workloads); the pool is their ready workloads; the lower agent then picks workloads
one at a time, each from a softmax over the candidates that still fit, until none fits
(greedy decoding takes the best-scored; among equal scores, the lowest workload id). The
round goes to the engine, which checks it.

If the selected trees have no ready workload, the round uses every tree: an empty round
never helps (deleting it keeps a schedule valid), so this rule loses nothing.

Large pools (more than `POOL_LIMIT` candidates, e.g. BCube(8,2)'s 100,000 ready workloads a
round) are first cut, in a scaled mode documented in docs/rl.md, to the workloads a
critical-path fill would take with `SHORTLIST` times each link's capacity; the lower agent
then decodes that shortlist as usual, one workload a step. Pools up to the limit (every
Table 2 configuration) are decoded whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from ..engine import Engine, RoundBuilder
from ..priorities import critical_path_rank
from ..workloads import WorkloadDAG
from .decode import greedy_round
from .explain import TraceBuilder
from .features import Observer, dynamic_features
from .policy import HierarchicalPolicy

POOL_LIMIT = 4096     # above this many candidates a round is decoded in the scaled mode
SHORTLIST = 2         # scaled mode: keep what a critical-path fill takes with this many times the capacity
UPPER_MODES = ("learned", "all")


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
    pool: np.ndarray             # (k,) workload id of each pool position


@dataclass
class Episode:
    """One played schedule with optional training records and debugger trace."""

    rounds: list[np.ndarray]
    records: list[RoundRecord] = field(default_factory=list)
    trace: dict | None = None
    truncated: bool = False
    scaled_rounds: int = 0
    """Rounds decoded in the scaled mode (pool above POOL_LIMIT)."""

    @property
    def n_rounds(self) -> int:
        """Rounds of the schedule."""
        return len(self.rounds)


def dynamic_scores(b: RoundBuilder, h: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Score h + c.d of every pool position at this step (-inf where invalid) and the dynamic features d."""
    d = dynamic_features(b)
    score = h + (c[:, 0] * d[:, 0] + c[:, 1] * d[:, 1] + c[:, 2] * d[:, 2])
    score[~b.valid] = -np.inf
    return score, d


class _CriticalOrder:
    """The engine's ready set kept in critical-path order (`priorities.critical_path_rank`), round by round."""

    def __init__(self, dag: WorkloadDAG):
        self.order = np.argsort(critical_path_rank(dag))
        self.place = np.empty(dag.n, dtype=np.int64)
        self.place[self.order] = np.arange(dag.n)
        self.ready: np.ndarray | None = None
        self.at_round = -1

    def ready_ids(self, eng: Engine) -> np.ndarray:
        """Ready workload ids, critical-path order (updated from the last round when called every round)."""
        if self.ready is not None and eng.n_rounds == self.at_round + 1:
            self.ready[self.place[eng.last_round]] = False
            self.ready[self.place[eng.last_freed]] = True
        else:
            self.ready = eng.ready_mask()[self.order].copy()
        self.at_round = eng.n_rounds
        return self.order[np.flatnonzero(self.ready)]


def round_temperature(round_index: int, temperature: float, opening_rounds: int = 0,
                      opening_temperature: float | None = None) -> float:
    """The temperature a sampled rollout draws round `round_index` (from 0) at: `opening_temperature` in the
    first `opening_rounds` rounds (the opening), `temperature` after them."""
    if opening_temperature is not None and round_index < opening_rounds:
        return opening_temperature
    return temperature


def play(dag: WorkloadDAG, policy: HierarchicalPolicy, *, sample: bool, rng: np.random.Generator | None = None,
         observer: Observer | None = None, record: bool = False, trace: bool = False,
         temperature: float = 1.0, upper: str = "learned", trace_shown: int = 8,
         opening_rounds: int = 0, opening_temperature: float | None = None,
         prefix: Sequence[np.ndarray] = ()) -> Episode:
    """Run the policy to the end of the AllReduce through the engine's round loop (truncated at
    the engine's one round limit) and return the episode.

    `upper="all"` replaces the upper agent by select-all (the ablation); `trace` records the
    explanation trace of docs/rl.md, `trace_shown` candidates per step besides the chosen one.
    A sampled rollout draws its first `opening_rounds` rounds at `opening_temperature` (the opening,
    `round_temperature`) and the rest at `temperature`; greedy decoding reads neither.
    `prefix` rounds (workload ids) are played as given before the policy takes over, to diagnose how much
    the first rounds decide (benchmarks/bench_opening.py); the upper agent's memory of a given round is the
    trees it sent work of. Not with `record` or `trace`, which would explain rounds the policy did not choose.
    """
    if opening_rounds < 0 or (opening_rounds and not (opening_temperature and opening_temperature > 0)):
        raise ValueError(f"an opening needs opening_rounds >= 0 and opening_temperature > 0, got "
                         f"{opening_rounds!r} and {opening_temperature!r}")
    if upper not in UPPER_MODES:
        raise ValueError(f"upper must be one of {', '.join(UPPER_MODES)}, got {upper!r}")
    if len(prefix) and (record or trace):
        raise ValueError("a prefix cannot be recorded or traced: the policy did not choose its rounds")
    obs = observer or Observer(dag)
    rng = rng or np.random.default_rng(0)
    nt = dag.n_trees
    prev = {"selected": np.zeros(nt, dtype=bool), "sent": np.zeros(nt)}
    records: list[RoundRecord] = []
    tb = TraceBuilder(dag, policy, sample, trace_shown) if trace else None
    crit: list[_CriticalOrder] = []  # made on the first scaled round
    scaled = [0]

    def select(eng: Engine) -> np.ndarray:
        st = obs.state(eng)
        if eng.n_rounds < len(prefix):
            ids = np.asarray(prefix[eng.n_rounds], dtype=np.int64)
            sent = np.bincount(dag.tree[ids], minlength=nt)
            prev["selected"], prev["sent"] = sent > 0, sent.astype(np.float64)
            return ids
        ready = np.flatnonzero(st.ready)
        selectable = np.zeros(nt, dtype=bool)
        selectable[dag.tree[ready]] = True
        uf = obs.upper(st, prev["selected"], prev["sent"])
        with torch.no_grad():
            logits = policy.tree_logits(torch.from_numpy(uf)).numpy().astype(np.float64)
        prob = 1.0 / (1.0 + np.exp(-logits))
        if upper == "all":
            chosen = selectable.copy()
        else:
            chosen = ((rng.random(nt) < prob) if sample else (prob > 0.5)) & selectable
        pool = ready[chosen[dag.tree[ready]]]
        fallback = len(pool) == 0
        if fallback:
            pool = ready
        large = len(pool) > POOL_LIMIT and not record
        if large:
            if not crit:
                crit.append(_CriticalOrder(dag))
            cands = crit[0].ready_ids(eng)
            if not fallback:
                cands = cands[chosen[dag.tree[cands]]]
            pool = eng.fill(cands, used=-(SHORTLIST - 1) * eng.link_capacity)
            scaled[0] += 1
        lf = obs.lower(st, pool, policy.lower_features)
        with torch.no_grad():
            h, c = policy.workload_heads(torch.from_numpy(lf))
        h, c = h.numpy().astype(np.float64), c.numpy().astype(np.float64)
        b = RoundBuilder(eng, pool)
        if tb:
            tb.open_round(uf, prob, selectable, chosen, fallback, lf)
        if sample or record or tb or not b.n_links_of.all():
            t_round = round_temperature(eng.n_rounds, temperature, opening_rounds, opening_temperature)
            entries = _steps(b, h, c, rng if sample else None, t_round, record, tb.step if tb else None)
        else:  # greedy, nothing kept per step: the compiled loop makes the same picks
            greedy_round(b, h, c)
        ids = b.ids()
        if record:
            records.append(RoundRecord(uf, selectable, chosen.copy(), lf, *entries, len(ids), pool))
        if tb:
            tb.close_round(pool, scaled=large)
        prev["selected"] = chosen
        prev["sent"] = np.bincount(dag.tree[ids], minlength=nt).astype(np.float64)
        return ids

    eng = Engine(dag).run(select, truncate=True)
    return Episode(eng.rounds, records, tb.finish(eng.rounds) if tb else None, truncated=eng.truncated,
                   scaled_rounds=scaled[0])


def _steps(b: RoundBuilder, h: np.ndarray, c: np.ndarray, rng: np.random.Generator | None, temperature: float,
           record: bool, on_step) -> tuple | None:
    """One pick a step until nothing fits: argmax (greedy; lowest position wins ties) or a Gumbel sample.
    With `record`, returns the round's (entry_cand, entry_step, entry_dyn, chosen) for training."""
    e_cand, e_step, e_dyn, picks = [], [], [], []
    n_entries = 0
    while b.n_valid:
        score, d = dynamic_scores(b, h, c)
        if rng is None:
            j = int(np.argmax(score))
        else:
            valid = np.flatnonzero(b.valid)
            j = int(valid[np.argmax(score[valid] / temperature + rng.gumbel(size=len(valid)))])
        if record:
            valid = np.flatnonzero(b.valid)
            e_cand.append(valid)
            e_step.append(np.full(len(valid), len(picks)))
            e_dyn.append(d[valid])
            picks.append(n_entries + int(np.searchsorted(valid, j)))
            n_entries += len(valid)
        if on_step:
            on_step(j, score, d, b.n_valid)
        b.add(j)
    if record:
        return np.concatenate(e_cand), np.concatenate(e_step), np.concatenate(e_dyn), np.array(picks)
    return None
