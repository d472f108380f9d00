"""`allreduce-lab topology`: a topology's size, degrees and links; with ``--format json``, a topology file."""

from __future__ import annotations

import argparse
import json

from ..guard import check, estimate_describe
from ..topology import Topology, changes, link_option_note, size_of, to_dict
from .common import FORCE_HELP, add_network_options, print_table, read_network, same_decimals


def register(sub) -> None:
    """Add this module's subcommands to the parser."""
    p = sub.add_parser("topology", help="describe a topology: servers, switches, links, degrees")
    p.add_argument("spec", help="e.g. bcube:n=3,k=1, dcell:n=4,k=1, fattree:k=4, leafspine:leaves=4,spines=2,servers=3, file:net.graphml")
    p.add_argument("--format", choices=["text", "json"], default="text",
                   help="text (default) or json: a topology file (nodes, links, failed links, with --fail-links and "
                        "--slow-links applied) that file:PATH reads back, the summary under 'summary' "
                        "(docs/topology-files.md)")
    p.add_argument("--links", action="store_true", help="also list every link: id, ends, level, bandwidth, latency")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    add_network_options(p, mid_run=False)
    p.set_defaults(func=cmd_topology)


def cmd_topology(a: argparse.Namespace) -> int:
    """Print the size and degree summary of a topology (and its links with --links); in JSON, the topology as a file
    `file:PATH` reads back, with that summary (and the link rows) under ``summary``."""
    base, t = read_network(a, a.spec)
    check(estimate_describe(size_of(t)), force=a.force)
    s = t.summary()
    was = {e: old for e, old, _ in changes(base, t)["slowed"]}  # links --slow-links slowed: Gbit/s before
    link_rows = [{"id": e, "u": t.labels[u], "v": t.labels[v], "level": int(lev), "capacity": int(c),
              "bandwidth_gbps": float(bw), "latency_us": float(lat), "failed": bool(f)}
             | ({"slowed_from_gbps": was[e]} if e in was else {})
             for e, ((u, v), lev, c, bw, lat, f) in enumerate(zip(t.edges.tolist(), t.edge_level, t.capacity,
                                                                  t.bandwidth, t.latency, t.failed))]
    if a.format == "json":
        print(file_text(t, {**s, "links": link_rows} if a.links else s))
        return 0
    print(s["spec"])
    print(f"  servers {s['servers']}, switches {s['switches']}, nodes {s['nodes']}, "
          f"edges {s['edges']} ({s['directed_links']} directed links), diameter {s['diameter']}")
    for kind in ("server", "switch"):
        hist = s[f"{kind}_degree"]
        if hist:
            print(f"  {kind} degree: " + ", ".join(f"{d} x{c}" for d, c in hist.items()))
    links = "; ".join(f"{name} " + ", ".join(f"{v:g}{unit} x{c}" for v, c in s[key].items())
                      for name, key, unit in (("bandwidth", "bandwidth_gbps", " Gbit/s"), ("latency", "latency_us", " µs")))
    print(f"  links: {links}" + (f"; {s['failed_links']} failed" if s["failed_links"] else ""))
    if overridden := link_option_note(base):  # the spec's bw=/lat= replaced the file's own speeds (fix29a)
        print(f"    ({overridden})")
    print(f"  flow-trees {s['servers']}; merged workloads 2*S*(S-1) = {2 * s['servers'] * (s['servers'] - 1)}")
    if a.links:
        marked = any(x["failed"] for x in link_rows) or bool(was)
        header = ["  link", "u-v", "level", "capacity", "Gbit/s", "µs"] + (["state"] if marked else [])
        bw, lat = (same_decimals([x[k] for x in link_rows]) for k in ("bandwidth_gbps", "latency_us"))
        body = [[str(x["id"]), f"{x['u']}-{x['v']}", str(x["level"]), str(x["capacity"]), bw[i], lat[i]]
                + ([_state(x)] if marked else []) for i, x in enumerate(link_rows)]
        print_table(header, body, (1, 6))  # names and the failure mark flush left, numbers right
    return 0


def _state(link: dict) -> str:
    """The state column of one link row: FAILED, slowed (from its Gbit/s before --slow-links), or empty."""
    if link["failed"]:
        return "FAILED"
    return f"slowed from {link['slowed_from_gbps']:g}" if "slowed_from_gbps" in link else ""


def file_text(t: Topology, summary: dict) -> str:
    """`t` as a topology file (`core.topology.to_dict`, the form schedule files hold; `file:PATH` reads it back) with
    `summary` under ``summary``: one node and one link a line, other lists on one, the summary indented. A user
    saved the JSON to feed it back and got only the summary (stop 30's review)."""
    doc = {**to_dict(t), "summary": summary}

    def value(key: str, v: object) -> str:
        if key in ("nodes", "links") and isinstance(v, list) and v:
            return "[\n" + ",\n".join("    " + json.dumps(x) for x in v) + "\n  ]"
        return json.dumps(v) if isinstance(v, list) else json.dumps(v, indent=2).replace("\n", "\n  ")

    return "{\n" + ",\n".join(f"  {json.dumps(k)}: {value(k, v)}" for k, v in doc.items()) + "\n}"
