"""The explanation trace of an RL schedule (`Schedule.trace`) and the tables the debugger shows.

A lower-agent score is h + c.d: h and c come from the round-start features x through the
linear skip path (the heuristic prior, frozen unless trained) plus the MLP; d are the three
within-round features. The trace splits each shown candidate's score into one term per
feature (its skip-path part: ``W0_f x_f + sum_j Wj_f x_f d_j`` for a round-start feature,
``b_j d_j`` for a within-round one), the skip path's bias ``b_0`` and the network's residual
(``mlp_h + mlp_c . d``); the terms add up to the score. The shape is documented in docs/rl.md
(`TRACE_FORMAT`); `step_table`, `upper_table` and `summary` turn it into plain rows.
"""

from __future__ import annotations

import numpy as np
import torch

from ..workloads import WorkloadDAG
from .features import DYNAMIC_FEATURES, LOWER_FEATURES, UPPER_FEATURES

TRACE_FORMAT = "allreduce-lab-rl-trace/2"
TERMS = tuple(LOWER_FEATURES) + tuple(DYNAMIC_FEATURES) + ("bias", "network")
"""The terms of a policy reading every lower feature; one reading fewer (an older checkpoint) has `terms(policy)`."""


def terms(policy) -> tuple[str, ...]:
    """The score terms of `policy`'s trace: its round-start features, the dynamic ones, bias, network."""
    return tuple(policy.lower_features) + tuple(DYNAMIC_FEATURES) + ("bias", "network")
GREEDY_TIE_RULE = "lowest workload id"
SAMPLED_TIE_RULE = "the random draw (Gumbel noise)"
"""A sampled rollout draws each pick from the softmax of score / T: equal scores are as likely, the draw decides."""


class TraceBuilder:
    """Collects the explanation trace while `rollout.play` runs (one instance per episode)."""

    def __init__(self, dag: WorkloadDAG, policy, sample: bool, shown: int = 8):
        self.dag, self.policy, self.sample, self.k = dag, policy, sample, max(1, int(shown))
        skip = policy.lower_skip
        self.w = skip.weight.detach().numpy().astype(np.float64)   # (1 + D, F)
        self.b = skip.bias.detach().numpy().astype(np.float64)     # (1 + D,)
        self.tr: dict = {
            "format": TRACE_FORMAT, "decoding": "sampled" if sample else "greedy",
            "tie_rule": SAMPLED_TIE_RULE if sample else GREEDY_TIE_RULE,
            "lower_features": list(policy.lower_features), "dynamic_features": list(DYNAMIC_FEATURES),
            "upper_features": list(UPPER_FEATURES), "terms": list(terms(policy)),
            "prior": policy.config.prior,
            "tree_probs": [], "trees_selected": [], "trees_ready": [], "tree_features": [],
            "all_ready_selected": [], "pool_fallback": [], "pool_size": [], "scaled": [], "steps": [],
        }
        self._steps: list[StepLog] = []
        self._lf = None

    def open_round(self, uf, prob, selectable, chosen, fallback, lf) -> None:
        """Record the upper agent's view and choice of a round."""
        tr = self.tr
        tr["tree_probs"].append(np.round(prob, 4).tolist())
        tr["trees_selected"].append(np.flatnonzero(chosen).tolist())
        tr["trees_ready"].append(np.flatnonzero(selectable).tolist())
        tr["tree_features"].append(np.round(uf.astype(np.float64), 4).tolist())
        tr["all_ready_selected"].append(bool(np.array_equal(chosen, selectable)))
        tr["pool_fallback"].append(bool(fallback))
        self._lf = lf
        self._steps = []

    def step(self, j: int, score: np.ndarray, d: np.ndarray, n_valid: int) -> None:
        """Record one step: the chosen pool position, every score (-inf where invalid) and d."""
        self._steps.append((j, score.copy(), d, n_valid, int(np.count_nonzero(score == score[j]))))

    def close_round(self, pool: np.ndarray, scaled: bool = False) -> None:
        """Pick each step's shown candidates and compute their score split, for the whole round at once
        (`scaled`: the pool is the scaled mode's shortlist)."""
        steps = self._steps
        self.tr["pool_size"].append(int(len(pool)))
        self.tr["scaled"].append(bool(scaled))
        if not steps:
            self.tr["steps"].append([])
            return
        m = len(steps)
        chosen = np.array([s[0] for s in steps])
        n_valid = np.array([s[3] for s in steps])
        scores = np.stack([s[1] for s in steps])                     # (m, k): -inf where invalid
        best = scores[np.arange(m), chosen]                           # the chosen one's score
        top = scores.max(axis=1)                                      # the step's best score (a sample may not take it)
        cols = np.arange(scores.shape[1])
        rank = (scores > best[:, None]).sum(1) + ((scores == best[:, None]) & (cols < chosen[:, None])).sum(1)
        count = np.minimum(self.k, n_valid)
        # the `count` best of each row by (score, position): all above the count-th score, then the
        # lowest positions among those equal to it
        thr = -np.partition(-scores, count - 1, axis=1)[np.arange(m), count - 1]
        above = scores > thr[:, None]
        equal = scores == thr[:, None]
        take = above | (equal & (np.cumsum(equal, axis=1) <= (count - above.sum(1))[:, None]))
        step_of, pos = np.nonzero(take)
        by_rank = np.lexsort((pos, -scores[step_of, pos], step_of))
        step_of, pos = step_of[by_rank], pos[by_rank]
        extra = np.flatnonzero(rank >= count)  # a sampled pick outside the best: shown after them
        if len(extra):
            step_of, pos = np.r_[step_of, extra], np.r_[pos, chosen[extra]]
            by_step = np.argsort(step_of, kind="stable")
            step_of, pos = step_of[by_step], pos[by_step]
        row_pos = np.split(pos, np.cumsum(np.bincount(step_of, minlength=m))[:-1])
        d = np.stack([steps[i][2] for i in range(m)])[step_of, pos].astype(np.float64)
        x = self._lf[pos].astype(np.float64)
        with torch.no_grad():
            mlp = self.policy.lower(torch.from_numpy(self._lf[pos])).numpy().astype(np.float64)
        terms = np.concatenate([x * (self.w[0] + d @ self.w[1:]), d * self.b[1:],
                                np.full((len(pos), 1), self.b[0]),
                                (mlp[:, 0] + (mlp[:, 1:] * d).sum(axis=1))[:, None]], axis=1)
        sc = scores[step_of, pos]
        # each step's log-partition at temperature 1 over every valid candidate (-inf ones add nothing), so that a
        # shown candidate's probability is exp(score - log_z) although most candidates are not shown (`probabilities`)
        log_z = top + np.log(np.exp(scores - top[:, None]).sum(axis=1))
        ids = pool[pos].tolist()
        sc_l = np.round(sc, 4).tolist()
        sc_full = sc.tolist()
        feats = np.round(np.concatenate([x, d], axis=1), 4).tolist()
        terms_l = np.round(terms, 4).tolist()
        out, at = [], 0
        for i, (j, _, _, nv, n_tied) in enumerate(steps):
            n = len(row_pos[i])
            tie, bf = n_tied > 1, float(best[i])
            out.append({
                "chosen": int(pool[j]), "score": round(bf, 4), "rank": int(rank[i]), "n_valid": int(nv),
                "best_score": round(float(top[i]), 4), "picked_best": bool(bf == top[i]),
                "log_z": round(float(log_z[i]), 6),
                "n_tied": n_tied, "tie_broken_by": self.tr["tie_rule"] if tie else None,
                "candidates": ids[at:at + n], "scores": sc_l[at:at + n],
                "tied": [v == bf for v in sc_full[at:at + n]] if tie else [False] * n,
                "features": feats[at:at + n], "terms": terms_l[at:at + n],
            })
            at += n
        self.tr["steps"].append(out)

    def finish(self, rounds: list[np.ndarray]) -> dict:
        """The finished trace with its summary."""
        self.tr["summary"] = summary(self.tr)
        return self.tr


def summary(trace: dict) -> dict:
    """Counts over the whole trace, and a plain sentence about the upper agent."""
    n = len(trace["steps"])
    all_sel = sum(trace["all_ready_selected"])
    steps = [s for r in trace["steps"] for s in r]
    ties = [s["n_tied"] for s in steps if s["n_tied"] > 1]
    if all_sel == n:
        upper = f"The upper agent selected every flow-tree with ready work in all {n} rounds: it never narrowed the pool."
    else:
        upper = (f"The upper agent selected every flow-tree with ready work in {all_sel} of {n} rounds and a "
                 f"subset in {n - all_sel}.")
    return {"rounds": n, "rounds_all_ready_selected": all_sel, "rounds_pool_fallback": sum(trace["pool_fallback"]),
            "rounds_scaled": sum(trace["scaled"]),
            "steps": len(steps), "steps_with_ties": len(ties), "largest_tie": max(ties, default=1),
            "upper": upper, "tie_rule": trace["tie_rule"]}


def probabilities(step: dict) -> list[float]:
    """The policy's probability of picking each shown candidate of `step` (a trace step): the softmax of the scores
    at temperature 1, the distribution training samples from (greedy decoding takes the highest score; rl-sample
    draws from the softmax of score / T). Over every candidate scored when the step keeps their log-partition
    (``log_z``, a real trace), else over those shown (a stand-in's, which shows them all)."""
    scores = np.asarray(step["scores"], dtype=np.float64)
    if "log_z" in step:
        log_z = float(step["log_z"])
    else:
        top = scores.max()
        log_z = top + float(np.log(np.exp(scores - top).sum()))
    return np.minimum(np.exp(scores - log_z), 1.0).tolist()  # a lone candidate's rounded score may top log_z


def margin(step: dict) -> float | None:
    """How far the chosen candidate's score is above the runner-up's, the best other candidate's (negative where a
    sampled pick was not the best): the log of the ratio of their probabilities at temperature 1 (`probabilities`),
    so a margin of 0.0003 is a near coin toss between them and one of 1 makes the pick e = 2.7 times as likely. In
    score units, not as a difference of probabilities: over dozens of near-equal candidates that difference is
    under 0.0001 and reads 0.0000 at the page's 4 decimals. None when it was the only candidate. The runner-up is
    always shown: the trace keeps the best candidates of every step."""
    chosen = step["candidates"].index(step["chosen"])
    others = [float(x) for i, x in enumerate(step["scores"]) if i != chosen]
    return float(step["scores"][chosen]) - max(others) if others else None


def step_table(trace: dict, r: int, k: int, describe=None) -> list[dict]:
    """Rows (one per shown candidate, best first) of step k (0-based) of round r (0-based): workload,
    score, p (`probabilities`), chosen, tied, then one ``term: NAME`` column per score term and one ``value: NAME``
    per feature."""
    s = trace["steps"][r][k]
    rows = []
    names = trace["lower_features"] + trace["dynamic_features"]
    p = probabilities(s)
    for i, w in enumerate(s["candidates"]):
        row = {"workload": describe(w) if describe else w, "score": s["scores"][i], "p": p[i],
               "chosen": w == s["chosen"], "tied": bool(s["tied"][i])}
        row.update({f"term: {t}": v for t, v in zip(trace["terms"], s["terms"][i])})
        row.update({f"value: {f}": v for f, v in zip(names, s["features"][i])})
        rows.append(row)
    return rows


def best_score(step: dict) -> float:
    """The highest score any candidate had at `step` (a trace step): the chosen one's under greedy decoding, not
    always under sampling. A trace made before the field was kept has it as the first shown candidate's."""
    return step["best_score"] if "best_score" in step else max(step["scores"])


def picked_best(step: dict) -> bool:
    """Whether `step`'s pick had the step's best score (always true for a greedy trace)."""
    return step["picked_best"] if "picked_best" in step else step["score"] >= best_score(step)


def chosen_steps(trace: dict, n: int, describe=None) -> list[dict]:
    """The first `n` steps of the trace, round by round, one row each: round and step (1-based), the workload
    chosen, its score, its probability ``p`` (`probabilities`) and ``margin`` over the runner-up (`margin`; None
    when it was the only candidate), both to 4 decimals as the debugger shows them, for a sampled trace the step's
    ``best score`` and whether the pick had it (``picked best``: a sample draws its pick, the best score is only the
    likeliest), the candidates scored, how many ``others tied`` with the chosen score (0: no tie; the debugger's
    count), then its ``term: NAME`` split (`step_table`'s row of the chosen candidate; the terms add up to the
    score)."""
    rows: list[dict] = []
    sampled = trace.get("decoding") == "sampled"
    for r, steps in enumerate(trace["steps"]):
        for k, s in enumerate(steps):
            if len(rows) >= n:
                return rows
            chosen = next(row for row in step_table(trace, r, k, describe) if row["chosen"])
            best = {"best score": best_score(s), "picked best": picked_best(s)} if sampled else {}
            gap = margin(s)
            rows.append({"round": r + 1, "step": k + 1, "chosen": chosen["workload"], "score": s["score"],
                         "p": round(chosen["p"], 4), "margin": None if gap is None else round(gap, 4), **best,
                         "scored": s["n_valid"], "others tied": s["n_tied"] - 1,
                         **{c: v + 0.0 for c, v in chosen.items() if c.startswith("term: ")}})  # + 0.0: no -0.0
    return rows


def zero_terms(rows: list[dict]) -> list[str]:
    """The ``term: NAME`` columns of `rows` (`step_table` or `chosen_steps`) that are 0 in every row: named beside
    the table by the CLI's --explain and the debugger, not drawn."""
    return [c for c in rows[0] if c.startswith("term: ") and all(row[c] == 0 for row in rows)]


def step_note(trace: dict, r: int, k: int) -> str:
    """One line about step k of round r: how many candidates were scored and shown, and any tie."""
    s = trace["steps"][r][k]
    shown = len(s["candidates"])
    line = f"{s['n_valid']} candidates scored, {shown} shown (best first; the chosen one always)."
    if s["n_tied"] > 1:
        line += f" {s['n_tied']} tied for the chosen score {s['score']:.4f}; broken by {s['tie_broken_by']}."
    return line


def upper_table(trace: dict, r: int, names: list[str] | None = None) -> list[dict]:
    """Rows (one per flow-tree) of round r (0-based): tree, ready, selected, probability, then its features."""
    ready, sel = set(trace["trees_ready"][r]), set(trace["trees_selected"][r])
    rows = []
    for t, (p, f) in enumerate(zip(trace["tree_probs"][r], trace["tree_features"][r])):
        row = {"tree": names[t] if names else t, "ready": t in ready, "selected": t in sel, "probability": p}
        row.update({f"value: {n}": v for n, v in zip(trace["upper_features"], f)})
        rows.append(row)
    return rows
