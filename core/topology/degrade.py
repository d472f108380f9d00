"""Failed and slowed links: read the user's choice of links and return the degraded topology.

A **link** here is an undirected edge id (`Topology.edges` row, 0..E-1; both directions fail or
slow together) or a pair of node labels ``u-v`` (``s00-sw0.0``). Texts (docs/time.md):

- failures: ``3,17`` or ``s00-sw0.0,4``; ``random:0.05,seed=1`` fails 5% of the links (a count
  when >= 1: ``random:3``), drawn in a seeded random order that skips any link whose loss would
  cut a server off, so a random failure can always be scheduled;
- slowdowns: ``3:25`` (edge 3 at 25 Gbit/s; units as in `core.units`), ``3:x0.25`` (a quarter of
  its bandwidth), ``s00-sw0.0:25,4:x0.5``; ``random:0.1x0.25,seed=1`` slows 10% of the links (or a
  count) to a quarter of their bandwidth. Every form only slows: a factor lies in (0, 1) and a
  bandwidth may not exceed the link's (``3:x2`` and ``3:800`` on a 400 Gbit/s link are refused).

The topology stays immutable: `degrade` returns a copy (`Topology.with_links`) with the same link
ids and spec. Routing (`core.routing`) never uses a failed link and raises for a failure that
separates servers; `degrade` checks that at once.

>>> from core.topology import bcube
>>> t = degrade(bcube(3, 1), fail="0", slow="random:0.25x0.5,seed=1")
>>> int(t.failed.sum()), sorted(set(t.bandwidth.tolist()))
(1, [50.0, 100.0])
"""

from __future__ import annotations

import math
import re

import numpy as np

from ..units import UnitError, parse_bandwidth, show_apart
from .graph import Topology, TopologyError

_RANDOM = re.compile(r"^random:\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(?:x\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?))?"
                     r"\s*(?:,\s*seed\s*=\s*([0-9]+))?\s*$")


class DisconnectedError(TopologyError):
    """Failed links separate some servers from the others (the message names them)."""


def check_connected(topology: Topology) -> None:
    """Raise DisconnectedError when failed links cut some servers off from the others."""
    cut = topology.cut_off_servers()
    if not len(cut):
        return
    t = topology
    lab = t.labels
    # the failed links on the border of the cut-off servers' live parts of the graph: together they cut them off
    comp = t.components(t.failed)
    inside = np.isin(comp, comp[cut])
    u, v = t.edges[:, 0], t.edges[:, 1]
    near = np.flatnonzero(t.failed & (inside[u] != inside[v]))
    near = near if len(near) else np.flatnonzero(t.failed)
    dead = [x for x in cut.tolist() if t.failed[(u == x) | (v == x)].all()]
    # the links as every message names them (id and name), cut after 4 (`few`)
    links = few([link_names(t, [e]) for e in near.tolist()])
    if dead:
        x = dead[0]
        raise DisconnectedError(f"every link of server {lab[x]} is failed ({links}): it is cut off "
                                f"from the other servers" + (f", and so are {len(cut) - 1} more" if len(cut) > 1 else ""))
    # one line as short as it can be (a mid-run failure adds when and how far the run got, `core.replan.run_at`: it
    # ran to 214 characters): the links, the servers, each list cut after 4
    raise DisconnectedError(f"failed link{'s' if len(near) > 1 else ''} {links} cut off {len(cut)} of {t.n_servers} "
                            f"servers ({few([lab[x] for x in cut.tolist()])})")


def few(names: list[str], most: int = 4, sep: str = ", ") -> str:
    """Names joined by `sep`, cut after `most`: ``a, b, c, d ... and 3 more``, the one form of a cut list (messages,
    and with ``sep=","`` a compare row's name: ``failed a,b,c ... and 3 more``, its links as --fail-links takes them)."""
    return sep.join(names[:most]) + (f" ... and {len(names) - most} more" if len(names) > most else "")


def link_ids(topology: Topology, text: str, what: str = "links") -> np.ndarray:
    """Undirected edge ids named by a comma-separated list of ids or ``u-v`` label pairs (sorted, unique)."""
    items = [x.strip() for x in str(text).split(",")]
    if not text or not str(text).strip() or any(not x for x in items):
        raise TopologyError(f"{what}: give a comma-separated list of link ids or u-v label pairs, got {text!r}")
    return np.unique(np.array([link_id(topology, x, what) for x in items], dtype=np.int64))


def link_id(topology: Topology, item: str, what: str = "link") -> int:
    """The undirected edge id of one item: an id ``3`` or a label pair ``s00-sw0.0``."""
    t = topology
    e_max = t.n_edges - 1
    if item.isascii() and item.isdigit():
        e = int(item)
        if e > e_max:
            raise TopologyError(f"{what}: link {e} does not exist; {t.spec} has links 0..{e_max} "
                                f"(`allreduce-lab topology SPEC --links` lists them)")
        return e
    index = {lab: v for v, lab in enumerate(t.labels)}
    # every split at a '-' into two node labels: a label may contain '-' itself, so a name such as a-b-c could be
    # a with b-c or a-b with c; exactly one such split names the link, several are refused (not the first taken)
    pairs = [(u, v) for u, v in ((index.get(item[:cut].strip()), index.get(item[cut + 1:].strip()))
                                 for cut in [i for i, c in enumerate(item) if c == "-"])
             if u is not None and v is not None]
    if len(pairs) > 1:
        def candidate(u: int, v: int) -> str:
            try:
                return f"{t.labels[u]} with {t.labels[v]} (link {t.link_id(u, v) // 2})"
            except KeyError:
                return f"{t.labels[u]} with {t.labels[v]} (not adjacent)"
        raise TopologyError(f"{what}: {item!r} is ambiguous: node labels contain '-', and it splits into two of them "
                            f"{len(pairs)} ways: {'; '.join(candidate(u, v) for u, v in pairs)}; give the link id")
    if pairs:
        u, v = pairs[0]
        try:
            return t.link_id(u, v) // 2
        except KeyError:
            raise TopologyError(f"{what}: {item!r} is not a link: {t.labels[u]} and {t.labels[v]} are not "
                                f"adjacent in {t.spec}") from None
    raise TopologyError(f"{what}: {item!r} is neither a link id (0..{e_max}) nor a pair of node labels u-v "
                        f"such as {t.labels[t.edges[0, 0]]}-{t.labels[t.edges[0, 1]]}")


def _random_spec(text: str, what: str, factor: bool) -> tuple[float, float | None, int]:
    """(fraction or count, factor, seed) of ``random:F[xK][,seed=N]``."""
    m = _RANDOM.match(text.strip())
    form = "random:FRACTIONxFACTOR[,seed=N]" if factor else "random:FRACTION[,seed=N]"
    if m is None or (m.group(2) is None) == factor:
        raise TopologyError(f"{what}: {text!r} is not {form} (e.g. {'random:0.1x0.25,seed=1' if factor else 'random:0.05,seed=1'})")
    amount = float(m.group(1))
    k = float(m.group(2)) if m.group(2) else None
    if not math.isfinite(amount) or amount <= 0 or (amount >= 1 and not amount.is_integer()):
        raise TopologyError(f"{what}: the share of links must be a fraction in (0, 1) or a whole count >= 1, "
                            f"got {m.group(1)!r}")
    if k is not None and not (0 < k < 1):
        raise TopologyError(f"{what}: the slowdown factor must lie in (0, 1) (a share of the bandwidth), got {m.group(2)!r}")
    return amount, k, int(m.group(3) or 0)


def _count(amount: float, n_edges: int) -> int:
    return int(amount) if amount >= 1 else max(1, int(round(amount * n_edges)))


def _servers_connected(t: Topology, failed: np.ndarray) -> bool:
    """True when the links not in `failed` join every server (a quick check without building a Topology)."""
    return len(np.unique(t.components(failed)[t.servers])) == 1


def failed_mask(topology: Topology, text: str, what: str = "--fail-links") -> np.ndarray:
    """Per edge, True for the links the text fails (ids, label pairs or ``random:...``), added to those already failed."""
    t = topology
    out = t.failed.copy()
    if str(text).strip().startswith("random:"):
        amount, _, seed = _random_spec(text, what, factor=False)
        want = _count(amount, t.n_edges)
        got = 0
        for e in np.random.default_rng(seed).permutation(t.n_edges).tolist():
            if got == want:
                break
            if out[e]:
                continue
            out[e] = True
            if _servers_connected(t, out):
                got += 1
            else:
                out[e] = False  # its loss would cut a server off: skip it
        if got < want:
            raise TopologyError(f"{what}: only {got} of the {want} links asked for can fail in {t.spec} without "
                                f"cutting a server off")
        return out
    out[link_ids(t, text, what)] = True
    return out


def already_failed(topology: Topology, text: str, what: str = "--fail-links") -> list[int]:
    """The links a --fail-links text names by id or label pair that `topology` already marks failed (a
    ``random:`` text picks among the live links only: none)."""
    if str(text).strip().startswith("random:"):
        return []
    ids = np.unique(link_ids(topology, text, what))
    return ids[topology.failed[ids]].tolist()


def link_name(topology: Topology, edge: int) -> str:
    """An undirected link's name as --fail-links, --slow-links and --fail-at take it (`link_ids`) and every message
    and the dashboard's link picker show it: its ends' labels joined by a hyphen, ``s00-sw0.0``."""
    t = topology
    return f"{t.labels[t.edges[edge, 0]]}-{t.labels[t.edges[edge, 1]]}"


def link_names(topology: Topology, edges: list[int]) -> str:
    """Links as ``3 (s00-sw0.0), 7 (s01-sw0.1)``."""
    return ", ".join(f"{e} ({link_name(topology, e)})" for e in edges)


def slowed_bandwidth(topology: Topology, text: str, what: str = "--slow-links",
                     nominal: np.ndarray | None = None) -> np.ndarray:
    """Per edge, the bandwidth in Gbit/s after the slowdowns the text names (``3:25``, ``3:x0.5``, ``random:...``).

    Every item must slow its link below the speed it has in `topology`; `nominal` (Gbit/s per edge, the network as
    built) is given where `topology` was slowed already (--slow-at after --slow-links), so that a refusal names the
    speed it compares against: the one --slow-links gave the link, not its "own" (trial 16)."""
    t = topology
    bw = t.bandwidth.copy()
    text = str(text).strip()
    if text.startswith("random:"):
        amount, k, seed = _random_spec(text, what, factor=True)
        n = _count(amount, t.n_edges)
        if n > t.n_edges:
            raise TopologyError(f"{what}: asks for {n} links but {t.spec} has {t.n_edges}")
        pick = np.random.default_rng(seed).choice(t.n_edges, size=n, replace=False)
        bw[pick] *= k
        return bw
    items = [x.strip() for x in text.split(",")]
    if not text or any(not x for x in items):
        raise TopologyError(f"{what}: give LINK:BANDWIDTH or LINK:xFACTOR items separated by commas, got {text!r}")
    for item in items:
        link, colon, value = item.rpartition(":")
        if not colon or not link.strip() or not value.strip():
            raise TopologyError(f"{what}: {item!r} must be LINK:BANDWIDTH (3:25, s00-sw0.0:25Gbps) or LINK:xFACTOR (3:x0.25)")
        e = link_id(t, link.strip(), what)
        value = value.strip()
        try:
            if value.lower().startswith("x"):
                f = float(value[1:])
                if not (math.isfinite(f) and 0 < f):
                    raise ValueError
                if f >= 1:  # the random: form's rule: a slowdown keeps a share of the bandwidth
                    raise TopologyError(f"{what}: the slowdown factor in {item!r} must lie in (0, 1) (a share of "
                                        f"the bandwidth), got {value[1:]!r}")
                bw[e] = t.bandwidth[e] * f
            else:
                bw[e] = parse_bandwidth(value, f"{what}: link {e}")
                if bw[e] >= t.bandwidth[e]:  # equal is refused as x1 is: an item that slows nothing is a mistake
                    raise TopologyError(f"{what}: {item!r} would run link {link_names(t, [e])} at "
                                        f"{_not_slower(bw[e], t.bandwidth[e], nominal, e)}; {what} only slows links "
                                        f"(a bandwidth below the link's, or xFACTOR with a factor in (0, 1))")
        except UnitError as err:
            raise TopologyError(str(err)) from None
        except TopologyError:
            raise
        except ValueError:
            raise TopologyError(f"{what}: the factor in {item!r} must be a number > 0, got {value[1:]!r}") from None
    return bw


def _not_slower(asked: float, now: float, nominal: np.ndarray | None, e: int) -> str:
    """The speed `asked` for link `e` and the speed `now` it is not below, named as what it is: ``150 Gbit/s, faster
    than its 100 Gbit/s``, or where --slow-links set `now` (`nominal` differs) ``60 Gbit/s, faster than the 50 Gbit/s
    --slow-links gave it (nominal 100 Gbit/s)``; with the digits it takes to tell them apart (`show_apart`)."""
    a, b = show_apart(asked, now)
    if nominal is None or nominal[e] == now:
        tail = "its own speed" if asked == now else f"faster than its {b} Gbit/s"
    else:
        built = f"nominal {show_apart(float(nominal[e]), now)[0]} Gbit/s"
        tail = (f"the speed --slow-links gave it ({built})" if asked == now
                else f"faster than the {b} Gbit/s --slow-links gave it ({built})")
    return f"{a} Gbit/s, {tail}"


def degrade(topology: Topology, fail: str | np.ndarray | None = None, slow: str | np.ndarray | None = None,
            what: tuple[str, str] = ("--fail-links", "--slow-links")) -> Topology:
    """The topology with failed and/or slowed links (texts as in this module, a bool mask per edge for `fail`,
    or Gbit/s per edge for `slow`); raises TopologyError (DisconnectedError) if a server is cut off."""
    t = topology
    failed = None
    if fail is not None:
        failed = failed_mask(t, fail, what[0]) if isinstance(fail, str) else np.asarray(fail, bool)
    bandwidth = None
    if slow is not None:
        bandwidth = slowed_bandwidth(t, slow, what[1]) if isinstance(slow, str) else np.asarray(slow, np.float64)
    if failed is None and bandwidth is None:
        return t
    out = t.with_links(bandwidth=bandwidth, failed=failed)
    check_connected(out)
    return out


def changes(base: Topology, now: Topology) -> dict:
    """What differs between two versions of one topology: failed edge ids and slowed links
    ``[edge, from Gbit/s, to Gbit/s]`` (JSON-ready; schedule files record it)."""
    failed = np.flatnonzero(now.failed & ~base.failed)
    slowed = np.flatnonzero(now.bandwidth != base.bandwidth)
    return {"failed": failed.tolist(),
            "slowed": [[int(e), float(base.bandwidth[e]), float(now.bandwidth[e])] for e in slowed.tolist()]}


def network_record(base: Topology, now: Topology) -> dict:
    """What a schedule file and ``schedule --format json`` record as ``network``: `changes` (the links the options
    failed or slowed, under ``failed`` and ``slowed``, as before) and, when `base` was read with failed links (a
    topology file's own; ``topology.failed`` holds both), those under ``failed_in_file``, as the text output's
    ``network:`` line marks them ``(from the file)``. Empty of links when nothing is failed or slowed."""
    record = changes(base, now)
    held = np.flatnonzero(base.failed).tolist()
    if held:
        record["failed_in_file"] = held
    return record


def describe_changes(topology: Topology, diff: dict, held: list[int] | None = None, source: str = "the file") -> str:
    """One line naming the failed and slowed links of `changes`: ``failed 3 (s00-sw0.0); slowed 4 (...) 100->25 Gbit/s``.
    `held`: links the topology was read with failed (a file's own), named first as ``failed 1 (s01-sw0.0) (from the
    file)``; a file's slowed links are only its bandwidths (it holds no nominal speed), so they are not named."""
    t = topology
    parts = []
    if held:
        parts.append("failed " + link_names(t, held[:6]) + (f" and {len(held) - 6} more" if len(held) > 6 else "")
                     + f" (from {source})")
    if diff.get("failed"):
        f = diff["failed"]
        parts.append("failed " + link_names(t, f[:6]) + (f" and {len(f) - 6} more" if len(f) > 6 else ""))
    if diff.get("slowed"):
        s = diff["slowed"]
        parts.append("slowed " + ", ".join(f"{link_names(t, [e])} {'->'.join(show_apart(a, b))} Gbit/s"
                                           for e, a, b in s[:6])
                     + (f" and {len(s) - 6} more" if len(s) > 6 else ""))
    return "; ".join(parts) if parts else "no link changed"
