"""Link-property options of a spec string: bandwidth and latency per link level, fixed or mixed.

Any spec may end with options that set the time model's link properties (docs/time.md):

- ``bw=100`` every link at 100 Gbit/s; ``lat=1`` every link at 1 µs (units as in `core.units`:
  ``bw=400Mbps``, ``lat=500ns``);
- ``bw=100/25`` one value per **link level** (`Topology.edge_level`): BCube(n,1) level-0 links
  at 100 and level-1 links at 25 Gbit/s; fat-tree ``bw=100/100/25`` slows the core links;
- ``bw=25|100`` each link of that level draws one of the values, uniformly, from a generator
  seeded by ``link_seed`` (default 0): ``jellyfish:...,bw=100/25|100`` mixes 25 and 100
  Gbit/s switch-to-switch links. Quote such a spec in a shell (``|``).

>>> split_link_options("bcube:n=4,k=1,bw=100/25")
('bcube:n=4,k=1', LinkOptions(bandwidth=((100.0,), (25.0,)), latency=(), seed=0, text='bw=100/25'))
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..units import UnitError, parse_bandwidth, parse_latency, show_apart
from ..text import clip
from .graph import DEFAULT_BANDWIDTH, DEFAULT_LATENCY, Topology, TopologyError

LINK_OPTIONS = {"bw": "bandwidth", "lat": "latency", "link_seed": "seed of mixed values"}
"""Spec options that set link properties rather than build the graph, and what each sets (for messages)."""

LINK_KEYS = tuple(LINK_OPTIONS)
"""The keys of `LINK_OPTIONS`."""

LEVELS = {
    "bcube": "level l = links to the level-l switches (k+1 levels)",
    "dcell": "level 0 = server-switch links, level l = the links that join DCell_(l-1)s (k+1 levels)",
    "fattree": "level 0 = host-edge, 1 = edge-aggregation, 2 = aggregation-core",
    "jellyfish": "level 0 = server-switch, 1 = switch-switch",
}
"""What each family's link levels are, for messages and docs."""


@dataclass(frozen=True)
class LinkOptions:
    """Parsed link options: per level, the values a link may take (empty: keep the family's)."""

    bandwidth: tuple[tuple[float, ...], ...] = ()
    latency: tuple[tuple[float, ...], ...] = ()
    seed: int = 0
    text: str = ""

    def apply(self, t: Topology, typed: str | None = None) -> Topology:
        """The topology with these link properties (itself when there are none); a message quotes `typed`, the
        spec as the user wrote it (default: the built topology's spec)."""
        if not self.text:
            return t
        rng = np.random.default_rng(self.seed)
        shown = clip(typed.strip(), 60) if typed else t.spec
        bw = _per_edge(t, self.bandwidth, t.bandwidth, rng, "bw", shown)
        lat = _per_edge(t, self.latency, t.latency, rng, "lat", shown)
        return t.with_links(bandwidth=bw, latency=lat, spec=f"{t.spec},{self.text}")


def overridden_note(own: Topology, now: Topology, options: LinkOptions, whose: str = "the file") -> str | None:
    """One line saying which of `own`'s link speeds, a topology file's (`whose`), the link `options` replaced in
    `now` (documented: a spec option sets every link; ``file:x.json,bw=400`` replaced the file's 10-100 Gbit/s
    silently): ``bw=400 replaces the file's own bandwidths (10-100 Gbit/s)``, with ``lat=`` likewise; None when
    the options changed nothing, or `own` had only the defaults (100 Gbit/s, 1 µs: a file that gives none)."""
    given = dict(item.partition("=")[::2] for item in options.text.split(",") if item)
    parts = []
    for key, what, unit, default in (("bw", "bandwidths", " Gbit/s", DEFAULT_BANDWIDTH),
                                     ("lat", "latencies", " µs", DEFAULT_LATENCY)):
        field = LINK_OPTIONS_FIELD[key]
        was, got = getattr(own, field), getattr(now, field)
        if key not in given or not len(was) or np.all(was == default) or np.array_equal(was, got):
            continue
        lo, hi = show_apart(float(was.min()), float(was.max()))
        parts.append(f"{key}={given[key]} replaces {whose}'s own {what} ({lo if lo == hi else f'{lo}-{hi}'}{unit})")
    return "; ".join(parts) or None


LINK_OPTIONS_FIELD = {"bw": "bandwidth", "lat": "latency"}
"""The `Topology` field each link option sets."""


def _per_edge(t: Topology, levels: tuple[tuple[float, ...], ...], current: np.ndarray,
              rng: np.random.Generator, key: str, shown: str) -> np.ndarray:
    """Per-edge values from per-level choices (one level: every link); a message quotes `shown`."""
    if not levels:
        return current
    n_levels = int(t.edge_level.max()) + 1 if t.n_edges else 1
    if len(levels) not in (1, n_levels):
        family = t.spec.partition(":")[0]
        what = f" ({LEVELS[family]})" if family in LEVELS else ""
        raise TopologyError(f"{shown}: {key} gives {len(levels)} levels; give one value or one per link level: "
                            f"this topology has {n_levels}{what}")
    out = np.empty(t.n_edges, dtype=np.float64)
    for lev in range(n_levels):
        choices = np.asarray(levels[lev if len(levels) > 1 else 0], dtype=np.float64)
        at = t.edge_level == lev if len(levels) > 1 else np.ones(t.n_edges, dtype=bool)
        out[at] = choices[rng.integers(len(choices), size=int(at.sum()))] if len(choices) > 1 else choices[0]
        if len(levels) == 1:
            break
    return out


def without_link_options(spec: str) -> str:
    """`spec` without its link speeds (bw=, lat=, link_seed=), or `spec` itself where they do not parse: the graph's
    own spec, which rounds and every feature the RL agents see depend on (`core.rl.checkpoint.round_spec`)."""
    try:
        return split_link_options(spec)[0]
    except ValueError:
        return spec


def split_link_options(spec: str) -> tuple[str, LinkOptions]:
    """Split a spec into the graph's own spec and its link options (raises TopologyError if bad)."""
    if not isinstance(spec, str):
        return spec, LinkOptions()
    head, colon, rest = spec.strip().partition(":")
    keep: list[str] = []
    given: dict[str, str] = {}
    for item in rest.split(","):
        key, eq, value = item.partition("=")
        key = key.strip()
        if eq and key in LINK_KEYS:
            if key in given:
                raise TopologyError(f"{clip(spec)}: parameter {key!r} is given twice")
            given[key] = value.strip()
        else:
            keep.append(item)
    if not given:
        return spec, LinkOptions()
    base = head + colon + ",".join(keep)
    seed = 0
    if "link_seed" in given:
        text = given["link_seed"]
        if not (text.isascii() and text.isdigit()):
            raise TopologyError(f"{clip(spec)}: link_seed must be an integer >= 0, got {clip(text, 30)!r}")
        seed = int(text)
    opts = LinkOptions(bandwidth=_levels(spec, "bw", given.get("bw"), parse_bandwidth),
                       latency=_levels(spec, "lat", given.get("lat"), parse_latency), seed=seed,
                       text=",".join(f"{k}={given[k]}" for k in LINK_KEYS if k in given))
    return base, opts


def _levels(spec: str, key: str, value: str | None, parse) -> tuple[tuple[float, ...], ...]:
    """``100/25|100`` -> ((100.0,), (25.0, 100.0)); each value read by `parse`."""
    if value is None:
        return ()
    try:
        return tuple(tuple(parse(x.strip(), key) for x in level.split("|")) for level in value.split("/"))
    except UnitError as err:
        raise TopologyError(f"{clip(spec)}: {clip(str(err), 200)}") from None
