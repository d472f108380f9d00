"""Every cluster scheduler by name: ordering × placement heuristics, GADGET, TopDRL and ours.

Names: ``ORDER+PLACEMENT`` with ORDER in fifo, sjf, las and PLACEMENT in first-fit, random,
load-balance, closest, timed, optionally ``+METHOD`` (`comm.METHOD_CHOICES`; default ring);
``gadget``; ``topdrl`` (the shipped checkpoint, or `checkpoint=`); ``ours`` = sjf+timed+adaptive:
SJF order, the candidate allocation × AllReduce method that costs the cluster least now, and
each job re-choosing its method (ring or a tree variant) whenever the link sharing changes,
instead of a fixed ring. The fair baseline for ours is ``sjf+timed`` (the same placement rule
and candidates, ring AllReduce).
"""

from __future__ import annotations

from collections.abc import Collection

from .comm import METHOD_CHOICES
from .gadget import Gadget
from .placement import PLACEMENTS
from .policies import ORDERINGS, Heuristic
from .sim import Scheduler

HEURISTICS = tuple(f"{o}+{p}" for o in ORDERINGS for p in PLACEMENTS)
"""The 12 ordering × placement baselines."""
SPECIAL = ("gadget", "topdrl", "ours")
ALL = HEURISTICS + SPECIAL
"""What ``--scheduler all`` runs."""
OURS_BASELINE = "sjf+timed"


def parse_name(name: str) -> tuple[str, ...]:
    """``("gadget",)``, ``("topdrl",)``, ``("ours",)`` or ``(order, placement, method)``; ValueError if unknown."""
    name = name.strip()
    if name in SPECIAL:
        return (name,)
    parts = name.split("+")
    if len(parts) in (2, 3) and parts[0] in ORDERINGS and (parts[1] in PLACEMENTS or parts[1] == "timed") and \
            (len(parts) == 2 or parts[2] in METHOD_CHOICES):
        return parts[0], parts[1], parts[2] if len(parts) == 3 else "ring"
    raise ValueError(f"unknown scheduler {name!r}; use all, heuristics, gadget, topdrl, ours or ORDER+PLACEMENT[+METHOD] with "
                     f"ORDER in {'/'.join(ORDERINGS)}, PLACEMENT in {'/'.join(list(PLACEMENTS) + ['timed'])}, "
                     f"METHOD in {'/'.join(METHOD_CHOICES)}")


def options(name: str) -> frozenset[str]:
    """The `make_scheduler` arguments a scheduler reads: ``seed`` for random placement (the only random
    draw of a scheduler; TopDRL picks its jobs greedily), ``checkpoint`` for TopDRL."""
    kind = parse_name(name)
    return frozenset({"checkpoint"} if kind == ("topdrl",) else {"seed"} if kind[1:2] == ("random",) else ())


def make_scheduler(name: str, seed: int = 0, checkpoint: str | None = None) -> Scheduler:
    """A fresh scheduler for a name (ValueError naming the known ones)."""
    kind = parse_name(name)
    if kind == ("gadget",):
        return Gadget()
    if kind == ("topdrl",):
        from . import topdrl  # torch only when TopDRL runs
        net, _ = topdrl.load(checkpoint)
        return topdrl.TopDRL(net, seed=seed)
    if kind == ("ours",):
        h = Heuristic("sjf", "timed", "adaptive", seed)
        h.name = "ours"
        return h
    return Heuristic(*kind, seed=seed)


def unfit(names: list[str], gpus_per_server: int, checkpoint: str | None = None,
          keep: Collection[str] = ()) -> tuple[list[str], list[str]]:
    """(the names that can run on a cluster of `gpus_per_server` GPUs a server, one line per name left out): TopDRL's
    network reads a fixed number of GPU slots per server (its checkpoint's, 4 for the shipped one), so on another
    cluster it is left out, naming why, and the rest run. A name in `keep` (the user named it) is not left out:
    its run refuses the cluster (`topdrl.CheckpointError`)."""
    if "topdrl" not in names or "topdrl" in keep:
        return list(names), []
    from . import topdrl  # torch only when TopDRL is asked for
    net, _ = topdrl.load(checkpoint)
    built = net.cfg.gpus_per_server
    if built == gpus_per_server:
        return list(names), []
    return [n for n in names if n != "topdrl"], [
        f"topdrl left out: its network was built for {built} GPUs per server, the cluster has {gpus_per_server} "
        f"(docs/cluster.md §6); the other schedulers run"]


def expand_names(text: str) -> list[str]:
    """Scheduler names from ``all``, ``heuristics`` or a comma list (each checked)."""
    out: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        for n in list(ALL) if part == "all" else list(HEURISTICS) if part == "heuristics" else [part]:
            parse_name(n)
            if n not in out:
                out.append(n)
    if not out:
        raise ValueError("no scheduler named; try --scheduler all")
    return out
