"""Fuzzer: topology files (JSON and GraphML). Each is read or refused with one line (exit 2)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import networkx as nx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.topology import TopologyError, make_topology, parse_topology_bytes

from _fuzzlib import (DEADLINE_MS, JSON, SCALARS, assert_exit_0_or_one_line, assert_one_line,  # noqa: F401
                      cheap_limits, run_cli)

KIND = st.sampled_from(["server", "switch", "SERVER", "router", ""]) | SCALARS
NODE = st.fixed_dictionaries({"id": st.integers(0, 6) | SCALARS, "kind": KIND}, optional={"label": JSON})
LINK = st.one_of(st.lists(st.integers(0, 6), min_size=2, max_size=2),
                 st.tuples(st.integers(0, 6), st.integers(0, 6), st.integers(-1, 3) | SCALARS).map(list),
                 JSON)


@st.composite
def json_topologies(draw):
    """Near-valid documents (nodes and links with hostile values) and arbitrary JSON."""
    if draw(st.booleans()):
        return draw(JSON)
    doc = {"nodes": draw(st.lists(NODE, max_size=7)), "links": draw(st.lists(LINK, max_size=10))}
    if draw(st.booleans()):
        doc = {"servers": draw(st.lists(st.integers(0, 6) | SCALARS, max_size=5)), "edges": doc["links"]}
    if draw(st.booleans()):
        doc = {"topology": doc}
    return doc


def read(raw: bytes, suffix: str):
    try:
        return parse_topology_bytes(raw, f"net{suffix}", "file:net")
    except (TopologyError, ValueError) as err:
        assert_one_line(err)
        assert str(err).startswith(f"net{suffix}: "), err  # every error names the file first
        return None


@settings(max_examples=200, deadline=DEADLINE_MS, suppress_health_check=[HealthCheck.too_slow])
@given(doc=json_topologies())
def test_json_topology_files(doc):
    t = read(json.dumps(doc).encode(), ".json")
    if t is not None:
        assert t.n_servers >= 2


@st.composite
def graphml_bytes(draw) -> bytes:
    """A random small graph with hostile node kinds and capacities, written as GraphML, then maybe damaged."""
    g = nx.gnm_random_graph(draw(st.integers(1, 7)), draw(st.integers(0, 12)), seed=draw(st.integers(0, 99)))
    for v in g.nodes:
        kind = draw(st.sampled_from(["server", "switch", "router", None]))
        if kind:
            g.nodes[v]["kind"] = kind
    for u, v in g.edges:
        cap = draw(st.one_of(st.none(), st.integers(-3, 2 ** 40), st.floats(allow_nan=True), st.text(max_size=4)))
        if cap is not None:
            g.edges[u, v]["capacity"] = cap
    raw = "\n".join(nx.generate_graphml(g)).encode()
    damage = draw(st.sampled_from(["none", "truncate", "insert", "replace"]))
    if damage != "none":
        i = draw(st.integers(0, len(raw)))
        junk = draw(st.binary(max_size=20) | st.sampled_from([b"<", b"&", b"<!ENTITY a 'b'>", b"\x00", b"]]>"]))
        raw = raw[:i] if damage == "truncate" else raw[:i] + junk + raw[i + (len(junk) if damage == "replace" else 0):]
    return raw


@settings(max_examples=150, deadline=DEADLINE_MS, suppress_health_check=[HealthCheck.too_slow])
@given(raw=graphml_bytes())
def test_graphml_topology_files(raw):
    t = read(raw, ".graphml")
    if t is not None:
        assert t.n_servers >= 2


@settings(max_examples=40, deadline=DEADLINE_MS, suppress_health_check=[HealthCheck.too_slow])
@given(doc=json_topologies(), raw=graphml_bytes())
def test_cli_topology_and_schedule_on_files(doc, raw):
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "net.json").write_text(json.dumps(doc))
        (Path(d) / "net.graphml").write_bytes(raw)
        for name in ("net.json", "net.graphml"):
            for cmd in ("topology", "schedule"):
                code, out, err = run_cli(cmd, f"file:{Path(d) / name}")
                assert_exit_0_or_one_line(code, err)


def test_xml_entity_expansion_is_refused_in_one_line():
    lol = ("<?xml version='1.0'?><!DOCTYPE g [<!ENTITY a 'aaaaaaaaaa'>"
           + "".join(f"<!ENTITY {c} '{('&' + p + ';') * 10}'>" for p, c in zip("abcdefgh", "bcdefghi"))
           + "]><graphml><graph><node id='&i;'/></graph></graphml>")
    try:
        parse_topology_bytes(lol.encode(), "bomb.graphml", "file:bomb")
    except TopologyError as err:
        assert_one_line(err)
    else:
        raise AssertionError("an entity bomb was read as a topology")


def test_deeply_nested_json_topology_is_one_line(tmp_path):
    f = tmp_path / "deep.json"
    f.write_text("[" * 100000 + "]" * 100000)
    try:
        make_topology(f"file:{f}")
    except TopologyError as err:
        assert_one_line(err)
        assert "nested too deeply" in str(err)
