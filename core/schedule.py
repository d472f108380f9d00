"""A schedule and the options that made it: the result type every method returns.

`ScheduleConfig` holds the options every method reads (each ignores what does not apply to
it); `Schedule` is a method's rounds over the workload DAG it scheduled, with small facts
about the run in `info` and, for learned methods, a step-by-step `trace` kept apart so that a
schedule file holds it only on request.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .bounds import gap, lower_bounds
from .engine import Rounds, utilization
from .routing import ROUTING_MODES
from .units import DEFAULT_SIZE, parse_size
from .workloads import WorkloadDAG

DEFAULT_SIZE_BYTES = parse_size(DEFAULT_SIZE)
"""The default message size M in bytes (100 MB, `core.units.DEFAULT_SIZE`)."""

MAX_SEED = 2 ** 31 - 1
"""Largest seed: CP-SAT takes 32-bit seeds, and every method accepts the same range."""
DEFAULT_TEMPERATURE = 0.2
"""rl-sample's sampling temperature, chosen on the universal policy's training instances
(benchmarks/bench_temperature.py; docs/rl.md)."""

Temperature = float | tuple[float, ...]
"""One sampling temperature, or several over which rl-sample spreads its samples cyclically (sample k at
the (k mod n)-th)."""


def temperatures(t: Temperature) -> tuple[float, ...]:
    """The temperatures of `t` as a tuple (one for a single temperature)."""
    return tuple(t) if isinstance(t, (tuple, list)) else (t,)


def temperature_of(t: Temperature, k: int) -> float:
    """The temperature rl-sample's k-th sample (from 0) draws at: the listed ones in turn."""
    ts = temperatures(t)
    return ts[k % len(ts)]


def show_temperature(t: Temperature | list) -> str:
    """A temperature as the CLI takes and prints it: ``0.2``, or ``0.2,1`` for a split."""
    return ",".join(f"{x:g}" for x in temperatures(t))


Opening = tuple[float, float] | None
"""One opening of rl-sample: (T_open, F), the first ceil(F x R) rounds of a sampled rollout drawn at T_open (R: the
greedy rollout's rounds), or None for none."""
Openings = Opening | tuple[Opening, ...]
"""rl-sample's opening: one for every sample, or a split, a tuple of them over which the samples are spread in turn
(sample k uses the (k mod n)-th: ``(None, (0.5, 0.3))`` opens the odd samples at 0.5 and leaves the even ones
without one)."""
DEFAULT_OPENING: Openings = (None, (0.5, 0.3))
"""rl-sample's opening by default: a split, the even samples without an opening and the odd ones with the first 30% of
the rounds at 0.5 (docs/rl.md section 1, "A split opening": chosen by the selection rule on the training instances)."""


def _one_opening(o: object) -> bool:
    """Whether `o` is a single opening as a config, a schedule file or `info` holds it (None, (T, F) or [T, F],
    or `info`'s dict), not a split."""
    return o is None or isinstance(o, dict) or (
        isinstance(o, (tuple, list)) and len(o) == 2 and all(isinstance(x, (int, float)) for x in o))


def openings(o: Openings | list | dict) -> tuple:
    """The openings of `o` as a tuple, one per item of a split (one for a single opening or none)."""
    return (o,) if _one_opening(o) else tuple(o)


def opening_of(o: Openings | list | dict, k: int) -> Opening | list | dict:
    """The opening rl-sample's k-th sample (from 0) draws with: the listed ones in turn."""
    ol = openings(o)
    return ol[k % len(ol)]


def opening_rounds(opening: Opening, greedy_rounds: int) -> int:
    """How many first rounds of a sampled rollout the opening covers: ceil(F x R) for R `greedy_rounds`, 0 without
    an opening (a hair under the product before the ceiling, so 0.15 x 40 is 6, not 7 by rounding error)."""
    if opening is None:
        return 0
    return min(greedy_rounds, math.ceil(opening[1] * greedy_rounds - 1e-9))


def show_opening(opening: Openings | list | dict, short: bool = False) -> str:
    """An opening as the CLI takes and prints it: ``1:0.3`` (T_open:F), ``none``, or ``none,0.5:0.3`` for a split;
    also a learned method's `info["opening"]` (a dict, which adds the rounds it covered: ``1:0.3 (T = 1 in the first
    13 of 43 rounds)``, or for a split a list of such dicts and None). `short`: only as ``--opening`` takes it,
    without the rounds covered (``0.5:0.3``, ``none,0.5:0.3``)."""
    ol = openings(opening)
    text = ",".join("none" if o is None else f"{o['temperature']:g}:{o['fraction']:g}" if isinstance(o, dict)
                    else f"{o[0]:g}:{o[1]:g}" for o in ol)
    covered = list(dict.fromkeys(f"T = {o['temperature']:g} in the first {o['rounds']} of {o['of_rounds']}"
                                 for o in ol if isinstance(o, dict)))
    if short or not covered:
        return text
    if len(ol) == 1:
        return f"{text} ({covered[0]} rounds, the greedy rollout's)"
    return (f"{text} (a split: sample k takes item k mod {len(ol)}, counting from 0; " + ", ".join(covered)
            + " rounds, the greedy rollout's)")


def sampling_note(info: dict) -> str | None:
    """A sampled learned result's decoding in words, as compare's notes and the dashboard say it: ``best of greedy
    and 16 samples at T = 0.2 after openings none,0.5:0.3 (...)``; None for a result that drew no samples."""
    if not info.get("samples"):
        return None
    note = f"best of greedy and {info['samples']} samples at T = {show_temperature(info['temperature'])}"
    if info.get("opening"):  # a split lists one per sample in turn, none among them
        many = isinstance(info["opening"], list)
        note += f" after {'openings' if many else 'an opening'} {show_opening(info['opening'])}"
    return note


def _valid_opening(o: object) -> bool:
    """One opening as `ScheduleConfig` takes it: None, or a tuple (T_open > 0, F in (0, 1]), both finite numbers."""
    return o is None or (isinstance(o, tuple) and len(o) == 2
                         and all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
                                 for x in o)
                         and o[0] > 0 and 0 < o[1] <= 1)


@dataclass(frozen=True)
class ScheduleConfig:
    """Options every method reads (each ignores what does not apply to it)."""

    merge: bool = True
    """Merge reduce workloads at servers (tree methods; PS never merges)."""
    chunks: int = 1
    """Pieces per shard (k); every piece is its own flow-tree."""
    routing: str = "shortest"
    """Tie-break among shortest routes: "shortest" (lowest node id) or "balanced"."""
    seed: int = 0
    """Seed of the random orders (PS, greedy), of sampled RL rollouts and of CP-SAT."""
    time_limit: float = 60.0
    """Seconds CP-SAT may search (optimal)."""
    samples: int = 16
    """Sampled rollouts of rl-sample; the best is kept."""
    temperature: Temperature = DEFAULT_TEMPERATURE
    """Sampling temperature of rl-sample's rollouts: a step draws a workload with probability
    proportional to exp(score / temperature) (docs/rl.md: how the default was chosen). A tuple
    spreads the samples over its temperatures in turn (`temperature_of`)."""
    opening: Openings = DEFAULT_OPENING
    """rl-sample's opening (T_open, F): the first ceil(F x R) rounds of every sampled rollout are drawn at T_open,
    the rest at the sample's temperature, R the greedy rollout's rounds (`opening_rounds`); None: no opening. A
    tuple of them (None among them) is a split: sample k uses the (k mod n)-th (`opening_of`)."""
    checkpoint: str | None = None
    """RL checkpoint path; None picks the shipped one for the topology."""
    workers: int = 2
    """CP-SAT search workers (optimal)."""
    force: bool = False
    """Run even when the size guard (core/guard.py) estimates the run over the machine's limits."""
    size: int = DEFAULT_SIZE_BYTES
    """Message size M in bytes: the time-aware method plans with its transfer times (others ignore it)."""
    trace: bool | None = None
    """Learned methods' explanation trace (docs/rl.md): True always, False never, None (default)
    when the DAG has at most 20,000 workloads (the sizes the debugger shows)."""

    def __post_init__(self) -> None:
        if isinstance(self.chunks, bool) or not isinstance(self.chunks, (int, np.integer)) or self.chunks < 1:
            raise ValueError(f"chunks must be an integer >= 1, got {self.chunks!r}")
        if self.routing not in ROUTING_MODES:
            raise ValueError(f"routing must be one of {', '.join(ROUTING_MODES)}, got {self.routing!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) or not 0 <= self.seed <= MAX_SEED:
            raise ValueError(f"seed must be an integer in 0..{MAX_SEED}, got {self.seed!r}")
        if not (isinstance(self.time_limit, (int, float)) and math.isfinite(self.time_limit) and self.time_limit > 0):
            raise ValueError(f"time_limit must be > 0 seconds and finite, got {self.time_limit!r}")
        if isinstance(self.samples, bool) or not isinstance(self.samples, (int, np.integer)) or self.samples < 1:
            raise ValueError(f"samples must be >= 1 (an integer), got {self.samples!r}")
        if not (not isinstance(self.temperature, list) and temperatures(self.temperature)
                and all(isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t) and t > 0
                        for t in temperatures(self.temperature))):
            raise ValueError(f"temperature must be a finite number > 0 or a non-empty tuple of them, "
                             f"got {self.temperature!r}")
        if not (_valid_opening(self.opening) or (
                isinstance(self.opening, tuple) and self.opening and all(map(_valid_opening, self.opening)))):
            raise ValueError(f"opening must be None or (T_open, F) with T_open > 0 finite and F in (0, 1], or a "
                             f"non-empty tuple of them (a split), got {self.opening!r}")
        if isinstance(self.size, bool) or not isinstance(self.size, (int, np.integer)) or self.size < 1:
            raise ValueError(f"size must be a whole number of bytes >= 1, got {self.size!r}")
        if self.trace not in (None, True, False):
            raise ValueError(f"trace must be true, false or null, got {self.trace!r}")
        if isinstance(self.workers, bool) or not isinstance(self.workers, (int, np.integer)) or self.workers < 1:
            raise ValueError(f"workers must be an integer >= 1, got {self.workers!r}")


@dataclass(frozen=True)
class Plan:
    """What a method's function may return instead of bare rounds: the rounds, small facts
    about the run (`info`, JSON-ready) and an optional step-by-step `trace`."""

    rounds: Rounds
    info: dict = field(default_factory=dict)
    trace: dict | None = None
    dag: WorkloadDAG | None = None
    """A DAG the method built itself over the same topology and of the same kind (other routes, as the
    time-aware method chooses); None: the rounds are for the DAG the registry gave it."""


@dataclass
class Schedule:
    """A method's schedule: the DAG it scheduled and its rounds (arrays of workload ids)."""

    method: str
    dag: WorkloadDAG
    rounds: Rounds
    config: ScheduleConfig
    info: dict = field(default_factory=dict)
    """Small JSON-ready facts about the run (proven bound, checkpoint, ring order...)."""
    trace: dict | None = None
    """A learned method's decisions step by step (the policy debugger reads it); large."""

    @property
    def n_rounds(self) -> int:
        """Number of rounds (the paper's metric)."""
        return len(self.rounds)

    def utilization(self) -> np.ndarray:
        """Share of capacity used on each directed link in each round (links x rounds)."""
        return utilization(self.dag, self.rounds)

    def mean_utilization(self) -> float:
        """Mean over working directed links and rounds of the share of capacity used (failed links, which can
        carry nothing, left out; without the links x rounds matrix)."""
        dag = self.dag
        cells = int(np.count_nonzero(~dag.topology.link_failed)) * self.n_rounds
        if not cells:
            return 0.0
        return float(np.sum(dag.link_load / dag.topology.link_capacity) / cells)

    @property
    def lower_bound(self) -> int:
        """The best lower bound of this schedule's DAG (and CP-SAT's proven bound, if any)."""
        return max(lower_bounds(self.dag).best, int(self.info.get("proven_bound", 0) or 0))

    def stats(self) -> dict:
        """Rounds, workloads, lower bounds of this DAG, gap and mean link utilization."""
        lb = lower_bounds(self.dag)
        bound = max(lb.best, int(self.info.get("proven_bound", 0) or 0))
        return {
            "method": self.method,
            "rounds": self.n_rounds,
            "rounds_per_chunk": self.n_rounds / self.dag.chunks,
            "workloads": self.dag.n,
            "lower_bound": bound,
            "gap": gap(self.n_rounds, bound),
            "mean_utilization": self.mean_utilization(),
            "bounds": lb.as_dict(),
        }
