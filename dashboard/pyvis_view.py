"""Draggable, zoomable network views built with pyvis and rendered to one self-contained HTML page.

pyvis's own templates load Bootstrap from a CDN even with ``cdn_resources="in_line"``, so the
page is rendered here: pyvis builds the nodes, edges and options, and the vis-network script
and stylesheet that ship inside the pyvis package are written into the page. Nothing is
fetched from the network. No Streamlit here.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np
import pyvis
from pyvis.network import Network

from core.topology import Topology

SERVER_COLOUR = "#1f77b4"
SWITCH_COLOUR = "#ff7f0e"
ROOT_COLOUR = "#d62728"
FADED = "#d9d9d9"
LABELLED_NODES = 30
"""Bigger networks are drawn without names (hover a node for its name) so labels do not pile up."""
_LIB = Path(pyvis.__file__).parent / "templates" / "lib"

_PAGE = """<!doctype html>
<html><head><meta charset="utf-8">
<style>{css}</style>
<script>{js}</script>
<style>html, body {{ margin: 0; padding: 0; background: #ffffff; font-family: sans-serif; }}
#net {{ width: 100%; height: {height}px; border: 1px solid #e6e6e6; border-radius: 6px;
        box-sizing: border-box; }}</style>
</head><body>
<div id="net"></div>
<script type="application/json" id="graph-data">{data}</script>
<script>
const g = JSON.parse(document.getElementById("graph-data").textContent);
const net = new vis.Network(document.getElementById("net"),
  {{nodes: new vis.DataSet(g.nodes), edges: new vis.DataSet(g.edges)}}, g.options);
const fit = () => net.fit({{animation: false}});
net.once("afterDrawing", fit);
setTimeout(fit, 150);
window.addEventListener("resize", fit);
</script>
</body></html>
"""


@lru_cache(maxsize=1)
def _assets() -> tuple[str, str]:
    """The vis-network script and stylesheet bundled with pyvis."""
    lib = _LIB / "vis-9.1.2"
    js = (lib / "vis-network.min.js").read_text(encoding="utf-8")
    return js, (lib / "vis-network.css").read_text(encoding="utf-8")


def _options() -> dict:
    """vis-network options: fixed structured positions (no physics), drag, zoom, hover tooltips."""
    return {
        "physics": {"enabled": False},
        "interaction": {"dragNodes": True, "zoomView": True, "dragView": True, "hover": True,
                        "tooltipDelay": 80, "navigationButtons": False},
        "edges": {"smooth": False},
        "nodes": {"font": {"size": 12, "face": "sans-serif"}},
    }


def _new_network(height: int) -> Network:
    return Network(height=f"{height}px", width="100%", directed=True, cdn_resources="in_line")


def _add_nodes(net: Network, t: Topology, pos: np.ndarray, scale: float, root: int | None = None,
               depth: dict[int, int] | None = None) -> None:
    """Servers as dots, switches as squares, at the structured positions (y grows downward in vis)."""
    xy = _to_pixels(pos, scale)
    named = t.n_nodes <= LABELLED_NODES
    for v in range(t.n_nodes):
        server = bool(t.is_server[v])
        colour = ROOT_COLOUR if v == root else (SERVER_COLOUR if server else SWITCH_COLOUR)
        title = f"{t.labels[v]} ({'server' if server else 'switch'}, node {v})"
        if depth is not None and v in depth:
            title += f", depth {depth[v]} in the node tree"
        net.add_node(v, label=t.labels[v] if named or v == root else " ", shape="dot" if server else "square",
                     color=colour,
                     size=16 if v == root else (11 if server else 9), title=title,
                     x=float(xy[v, 0]), y=float(xy[v, 1]), physics=False)


def topology_html(t: Topology, pos: np.ndarray, height: int = 520) -> str:
    """An interactive drawing of the whole topology."""
    net = _new_network(height)
    _add_nodes(net, t, pos, _scale(t))
    for e, (u, v) in enumerate(t.edges.tolist()):
        net.add_edge(u, v, color="#9e9e9e", width=1.2, arrows={"to": {"enabled": False}},
                     title=f"{t.labels[u]} – {t.labels[v]} (capacity {int(t.capacity[e])})")
    return render(net, height)


def node_tree_html(t: Topology, pos: np.ndarray, root: int, segments: dict[int, list[int]],
                   pruned_edges: np.ndarray, depth: dict[int, int], height: int = 520) -> str:
    """The node tree of `root`: route segments as arrows toward the root, pruned links faded and dashed."""
    net = _new_network(height)
    _add_nodes(net, t, pos, _scale(t), root=root, depth=depth)
    for e in np.asarray(pruned_edges).tolist():
        u, v = t.edges[e].tolist()
        net.add_edge(u, v, color=FADED, width=1, dashes=True, arrows={"to": {"enabled": False}},
                     title=f"{t.labels[u]} – {t.labels[v]}: pruned (no route to {t.labels[root]} uses it)")
    for server, path in sorted(segments.items()):
        for a, b in zip(path[:-1], path[1:]):
            net.add_edge(a, b, color="#2ca02c", width=2.5, arrows="to",
                         title=f"{t.labels[a]} → {t.labels[b]}: on {t.labels[server]}'s route to its parent "
                               f"{t.labels[path[-1]]}")
    return render(net, height)


def render(net: Network, height: int) -> str:
    """One self-contained HTML page for a pyvis network (scripts and styles in-line)."""
    nodes, edges, _heading, _h, _w, _options_json = net.get_network_data()
    data = json.dumps({"nodes": nodes, "edges": edges, "options": _options()}).replace("</", "<\\/")
    js, css = _assets()
    return _PAGE.format(css=css, js=js, height=height, data=data)


def graph_data(html: str) -> dict:
    """The nodes, edges and options embedded in a page made by `render` (for tests and checks)."""
    start = html.index('<script type="application/json" id="graph-data">')
    start = html.index(">", start) + 1
    end = html.index("</script>", start)
    return json.loads(html[start:end])


def _scale(t: Topology) -> float:
    """Pixels per layout unit, growing with the node count so labels stay apart."""
    return float(np.clip(60 * np.sqrt(t.n_nodes), 350, 2400))


def _to_pixels(pos: np.ndarray, scale: float) -> np.ndarray:
    lo, hi = pos.min(axis=0), pos.max(axis=0)
    span = np.where(hi - lo > 0, hi - lo, 1.0)
    unit = (pos - lo) / span.max()
    out = unit * scale
    out[:, 1] = -out[:, 1]  # vis-network's y axis points down
    return out
