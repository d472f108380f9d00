"""Greedy decoding of one round by the lower agent, compiled (numba): the fast path of `rollout`.

It makes the same picks as the step-by-step loop in `rollout._steps` (``argmax h + c . d``, the
lowest pool position among equal scores), with the same arithmetic: the dynamic features d
are computed as `features.dynamic_features` does (in float64, stored as float32) and the
score sums in the same order, so the picks are identical. One call per round replaces a
Python-level step per workload (on BCube(8,2), 523,264 steps); it is used when nothing
per step is recorded (no training records, no trace, no sampling).
"""

from __future__ import annotations

import numpy as np

from ..engine import RoundBuilder
from ..jit import kernel


def greedy_round(b: RoundBuilder, h: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Pool positions the greedy lower agent picks, in pick order; `b` is left with them added."""
    if len(b.pool) == 0:
        return np.zeros(0, np.int64)
    picks = _greedy(b._start.astype(np.int64), b.lk.astype(np.int64), b._link_pos.astype(np.int64),  # noqa: SLF001
                    b._link_start.astype(np.int64), np.asarray(b.cap, dtype=np.int64),  # noqa: SLF001
                    np.ascontiguousarray(h, dtype=np.float64), np.ascontiguousarray(c, dtype=np.float64))
    b.take(picks)
    return picks


@kernel
def _greedy(start, lk, link_pos, link_start, cap, h, c):  # pragma: no cover - compiled
    """The greedy step loop over one pool; see the module docstring for the arithmetic it mirrors."""
    k = len(start) - 1
    n_links = len(cap)
    valid = np.ones(k, np.bool_)
    on_link = np.zeros(n_links, np.int64)
    for e in range(len(lk)):
        on_link[lk[e]] += 1
    used = np.zeros(n_links, np.int64)
    alive = np.arange(k)  # valid positions, ascending
    n_alive = k
    deg = np.empty(k, np.float64)
    alone = np.empty(k, np.float64)
    picks = np.empty(k, np.int64)
    n_picks = 0
    while n_alive > 0:
        top = 1.0
        for t in range(n_alive):
            i = alive[t]
            s = 0
            a = 0
            for e in range(start[i], start[i + 1]):
                o = on_link[lk[e]]
                s += o
                if o <= 1:
                    a += 1
            nl = start[i + 1] - start[i]
            deg[i] = np.float64(s - nl)
            alone[i] = a / max(nl, 1)
            if deg[i] > top:
                top = deg[i]
        nv = max(1, n_alive)
        best = -np.inf
        j = -1
        for t in range(n_alive):
            i = alive[t]
            d0 = np.float64(np.float32(deg[i] / nv))
            d1 = np.float64(np.float32(deg[i] / top))
            d2 = np.float64(np.float32(alone[i]))
            score = h[i] + (c[i, 0] * d0 + c[i, 1] * d1 + c[i, 2] * d2)
            if j < 0 or score > best:  # the first of equal scores stays
                best = score
                j = i
        picks[n_picks] = j
        n_picks += 1
        # add j: its links carry one more; it and every valid candidate on a full link drop out
        for e in range(start[j], start[j + 1]):
            used[lk[e]] += 1
        _drop(j, valid, on_link, start, lk)
        for e in range(start[j], start[j + 1]):
            x = lk[e]
            if used[x] >= cap[x]:
                for f in range(link_start[x], link_start[x + 1]):
                    y = link_pos[f]
                    if valid[y]:
                        _drop(y, valid, on_link, start, lk)
        m = 0
        for t in range(n_alive):
            if valid[alive[t]]:
                alive[m] = alive[t]
                m += 1
        n_alive = m
    return picks[:n_picks].copy()


@kernel
def _drop(i, valid, on_link, start, lk):  # pragma: no cover - compiled
    """Candidate i stops being valid: its links count one valid candidate fewer."""
    valid[i] = False
    for e in range(start[i], start[i + 1]):
        on_link[lk[e]] -= 1
