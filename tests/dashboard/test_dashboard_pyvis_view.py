"""The interactive network pages work offline: every script and style is in-line."""

from __future__ import annotations

import re

import pytest

from core.routing import compute_routes
from core.topology import make_topology
from dashboard.positions import positions
from dashboard.pyvis_view import graph_data, node_tree_html, topology_html

SPECS = ["bcube:n=3,k=1", "dcell:n=4,k=1", "jellyfish:switches=10,ports=5,switch_ports=4,seed=0", "fattree:k=4"]
REMOTE = re.compile(r"<(script|link|img|iframe)\b[^>]*\b(src|href)\s*=\s*[\"']?\s*(https?:)?//", re.I)


def pages(spec: str) -> list[str]:
    t = make_topology(spec)
    pos = positions(t)
    root = int(t.servers[0])
    tree = compute_routes(t).node_tree(root)
    return [topology_html(t, pos), node_tree_html(t, pos, root, tree.segments, tree.pruned_edges, {root: 0})]


@pytest.mark.parametrize("spec", SPECS)
def test_no_resource_is_loaded_from_the_network(spec):
    for html in pages(spec):
        assert not REMOTE.search(html), REMOTE.search(html).group(0)
        assert not re.search(r"\b(src|href)\s*=", html.split("<body>")[1])  # nothing external in the body at all
        assert not re.search(r"url\(\s*['\"]?(https?:)?//", html) and "@import" not in html  # nor from the styles
        assert "new vis.Network(" in html and "vis-network" in html.lower()  # the library is in the page


@pytest.mark.parametrize("spec", SPECS)
def test_the_page_carries_every_node_and_link(spec):
    t = make_topology(spec)
    net, tree_page = pages(spec)
    g = graph_data(net)
    assert len(g["nodes"]) == t.n_nodes and len(g["edges"]) == t.n_edges
    assert sum(n["shape"] == "dot" for n in g["nodes"]) == t.n_servers
    tree = compute_routes(t).node_tree(int(t.servers[0]))
    g = graph_data(tree_page)
    assert sum(bool(e.get("dashes")) for e in g["edges"]) == len(tree.pruned_edges)


def test_the_graph_data_cannot_close_its_script_tag():
    t = make_topology("bcube:n=2,k=0")
    object.__setattr__(t, "labels", ("</script><b>", "x", "sw"))
    html = topology_html(t, positions(t))
    assert graph_data(html)["nodes"][0]["label"] == "</script><b>"
