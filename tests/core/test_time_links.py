"""Link properties (bandwidth, latency, failed) and message sizes: defaults, spec options, files, bad input."""

from __future__ import annotations

import io
import json

import networkx as nx
import numpy as np
import pytest

from core.topology import (DEFAULT_BANDWIDTH, DEFAULT_LATENCY, TopologyError, from_dict, make_topology,
                           parse_spec, parse_topology_bytes, predicted_size, to_dict)
from core.units import UnitError, format_size, parse_bandwidth, parse_latency, parse_size

from _corelib import make_graph
from test_core_bad_input import run_cli

FAMILIES = ["bcube:n=3,k=1", "bcube:n=3,k=2", "dcell:n=3,k=1", "dcell:n=2,k=2", "fattree:k=4",
            "jellyfish:switches=10,ports=5,switch_ports=4,seed=0", "example:fig3"]
LEVELS = {"bcube:n=3,k=1": 2, "bcube:n=3,k=2": 3, "dcell:n=3,k=1": 2, "dcell:n=2,k=2": 3, "fattree:k=4": 3,
          "jellyfish:switches=10,ports=5,switch_ports=4,seed=0": 2, "example:fig3": 1}


# ---- units ------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,expected", [
    ("100MB", 100_000_000), ("1KB", 1000), ("1KiB", 1024), ("2MiB", 2 * 1024 ** 2), ("1GiB", 1024 ** 3),
    ("1.5GB", 1_500_000_000), ("4096", 4096), ("4096B", 4096), ("100 mb", 100_000_000), (512, 512),
])
def test_parse_size(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text,shown", [
    ("1GiB", "1 GiB"), ("1.5GiB", "1.5 GiB"), ("64MiB", "64 MiB"), ("1KiB", "1 KiB"), ("100MB", "100 MB"),
    ("1GB", "1 GB"), ("1000KiB", "1.024 MB"), ("123456789", "123.5 MB"), ("1023", "1.023 KB"), ("999", "999 B"),
])
def test_sizes_are_shown_in_the_units_that_show_them_whole(text, shown):
    # a user who typed 1GiB read "1.074 GB" in the report (trial 24)
    assert format_size(parse_size(text)) == shown


@pytest.mark.parametrize("text,needle", [
    ("0", "at least 1 byte"), ("-5MB", "at least 1 byte"), ("10XB", "unknown unit 'XB'"), ("nan", "'nan'"),
    ("inf", "'inf'"), ("", "''"), ("MB", "'MB'"), (True, "True"), (float("nan"), "finite"),
])
def test_parse_size_rejects(text, needle):
    with pytest.raises(UnitError) as info:
        parse_size(text)
    assert needle in str(info.value) and "\n" not in str(info.value)


def test_bandwidth_and_latency_units():
    assert parse_bandwidth("25") == 25.0 and parse_bandwidth("400Mbps") == pytest.approx(0.4)
    assert parse_bandwidth("1Tbps") == 1000.0 and parse_bandwidth(12.5) == 12.5
    assert parse_latency("500ns") == pytest.approx(0.5) and parse_latency("2ms") == 2000.0
    assert parse_latency("0") == 0.0 and parse_latency("3us") == 3.0
    for bad in ("0", "-1", "nan", "10 furlongs", float("inf")):
        with pytest.raises(UnitError):
            parse_bandwidth(bad)
    for bad in ("-1", "1 parsec", "nan"):
        with pytest.raises(UnitError):
            parse_latency(bad)


@pytest.mark.parametrize("text,gbit", [
    ("50GBps", 400.0), ("50GB/s", 400.0), ("50 GB/s", 400.0), ("1TBps", 8000.0), ("100MB/s", 0.8),
    ("2Gbytes/s", 16.0), ("50Gbps", 50.0), ("50gbps", 50.0), ("50Gb/s", 50.0), ("50Gbit/s", 50.0), ("400Mbps", 0.4),
])
def test_rates_tell_bytes_from_bits_by_the_case_of_b(text, gbit):
    # a capital B is bytes (8 bits), a lowercase b or "bit" is bits; 50GBps used to read as 50 Gbit/s
    assert parse_bandwidth(text) == pytest.approx(gbit)


def test_a_spec_and_a_topology_file_read_gigabytes_per_second(tmp_path):
    assert set(make_topology("bcube:n=2,k=1,bw=50GBps").bandwidth.tolist()) == {400.0}
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"nodes": [{"id": 0, "kind": "server"}, {"id": 1, "kind": "server"}],
                                "links": [[0, 1, 1, "50GBps"]]}))
    assert make_topology(f"file:{path}").bandwidth.tolist() == [400.0]


@pytest.mark.parametrize("text,needle", [
    ("10Mb", "write MB (megabytes): 10Mb = 1.25MB"), ("8Mb", "8Mb = 1MB"), ("1Gbit", "write GB (gigabytes)"),
    ("1Gb", "'1Gb' is in gigabits"), ("4Kib", "write KiB"), ("2Mbits", "write MB"), ("1bit", "write B (bytes)"),
])
def test_a_size_in_bits_is_refused_naming_the_byte_unit(text, needle):
    with pytest.raises(UnitError) as info:
        parse_size(text, "--size")
    msg = str(info.value)
    assert needle in msg and "sizes are in bytes" in msg and msg.startswith("--size: ") and "\n" not in msg


def test_all_lowercase_sizes_stay_bytes():
    # the documented "100 mb" form: an all-lowercase unit tells no case apart, so it is read as bytes
    assert parse_size("100mb") == parse_size("100MB") == 10 ** 8
    assert parse_size("3kb") == parse_size("3kB") == 3000 and parse_size("1mib") == 2 ** 20


# ---- defaults and levels ------------------------------------------------------------------------
@pytest.mark.parametrize("spec", FAMILIES)
def test_every_family_has_default_link_properties(spec):
    t = make_topology(spec)
    assert np.all(t.bandwidth == DEFAULT_BANDWIDTH) and np.all(t.latency == DEFAULT_LATENCY)
    assert not t.failed.any()
    assert len(t.link_bandwidth) == t.n_links and np.all(t.link_bandwidth[0::2] == t.bandwidth)
    assert int(t.edge_level.max()) + 1 == LEVELS[spec]


def test_levels_follow_each_family():
    b = make_topology("bcube:n=3,k=1")
    # a level-l link joins a server to a level-l switch: BCube labels switches "sw<level>.<j>"
    for (u, v), lev in zip(b.edges.tolist(), b.edge_level.tolist()):
        assert b.labels[v].startswith(f"sw{lev}.")
    f = make_topology("fattree:k=4")
    kinds = {lev: {(f.labels[u][0], f.labels[v][0]) for (u, v), x in zip(f.edges.tolist(), f.edge_level.tolist())
                   if x == lev} for lev in range(3)}
    assert kinds == {0: {("h", "e")}, 1: {("e", "a")}, 2: {("a", "c")}}
    d = make_topology("dcell:n=3,k=1")
    srv = d.is_server
    for (u, v), lev in zip(d.edges.tolist(), d.edge_level.tolist()):
        assert (srv[u] and srv[v]) == (lev == 1)
    j = make_topology("jellyfish:switches=10,ports=5,switch_ports=4")
    for (u, v), lev in zip(j.edges.tolist(), j.edge_level.tolist()):
        assert (not j.is_server[u] and not j.is_server[v]) == (lev == 1)


# ---- spec options ---------------------------------------------------------------------------------
def test_uniform_options_set_every_link():
    t = make_topology("bcube:n=3,k=1,bw=25,lat=500ns")
    assert np.all(t.bandwidth == 25.0) and np.allclose(t.latency, 0.5)
    assert t.spec == "bcube:n=3,k=1,bw=25,lat=500ns"
    again = make_topology(t.spec)  # the spec rebuilds the same links
    assert np.array_equal(again.bandwidth, t.bandwidth) and np.array_equal(again.latency, t.latency)


def test_per_level_bandwidth():
    t = make_topology("bcube:n=4,k=1,bw=100/25")
    assert np.all(t.bandwidth[t.edge_level == 0] == 100) and np.all(t.bandwidth[t.edge_level == 1] == 25)
    assert t.summary()["bandwidth_gbps"] == {25: 16, 100: 16} and t.summary()["latency_us"] == {1: 32}
    f = make_topology("fattree:k=4,bw=100/100/25")
    assert set(f.bandwidth[f.edge_level == 2]) == {25.0} and set(f.bandwidth[f.edge_level < 2]) == {100.0}


def test_mixed_bandwidth_is_seeded_and_uses_both_values():
    spec = "jellyfish:switches=20,ports=5,switch_ports=4,bw=100/25|100"
    a, b = make_topology(spec), make_topology(spec)
    assert np.array_equal(a.bandwidth, b.bandwidth)
    sw = a.edge_level == 1
    assert set(a.bandwidth[sw]) == {25.0, 100.0} and set(a.bandwidth[~sw]) == {100.0}
    c = make_topology(spec + ",link_seed=7")
    assert not np.array_equal(a.bandwidth, c.bandwidth)


def test_parse_spec_and_predicted_size_accept_link_options():
    assert parse_spec("bcube:n=4,k=1,bw=100/25,lat=1") == ("bcube", {"n": 4, "k": 1})
    assert predicted_size("bcube:n=4,k=1,bw=100") == predicted_size("bcube:n=4,k=1")


@pytest.mark.parametrize("spec,needles", [
    ("bcube:n=3,k=1,bw=0", ["bw must be > 0", "'0'"]),
    ("bcube:n=3,k=1,bw=-10", ["bw must be > 0", "'-10'"]),
    ("bcube:n=3,k=1,bw=nan", ["bw must be a finite number", "'nan'"]),
    ("bcube:n=3,k=1,bw=10Xbps", ["unknown unit", "10Xbps"]),
    ("bcube:n=3,k=1,lat=-1", ["lat must be >= 0", "'-1'"]),
    ("bcube:n=3,k=1,bw=", ["bw must be a number"]),
    ("bcube:n=3,k=1,bw=1,bw=2", ["'bw' is given twice"]),
    ("bcube:n=3,k=1,bw=10/20/30", ["3 levels", "has 2"]),
    ("bcube:n=3,k=1,bw=10,link_seed=x", ["link_seed", "'x'"]),
])
def test_bad_link_options(spec, needles):
    with pytest.raises(TopologyError) as info:
        make_topology(spec)
    for needle in needles:
        assert needle in str(info.value)


# ---- the data model: immutable copies, failed links ----------------------------------------------
def test_with_links_is_a_copy_with_the_same_link_ids():
    t = make_topology("bcube:n=3,k=1")
    failed = np.zeros(t.n_edges, bool)
    failed[4] = True
    u = t.with_links(bandwidth=np.arange(1, t.n_edges + 1), failed=failed)
    assert np.all(t.bandwidth == DEFAULT_BANDWIDTH) and not t.failed.any()  # the original is unchanged
    assert np.array_equal(u.edges, t.edges) and u.link_failed[8] and u.link_failed[9] and u.link_failed.sum() == 2
    assert u.link_bandwidth[9] == 5.0
    with pytest.raises(ValueError):
        u.bandwidth[0] = 1.0  # read-only
    for bad in (0.0, -1.0, np.nan, np.inf):
        with pytest.raises(TopologyError, match="bandwidth"):
            t.with_links(bandwidth=bad)
    with pytest.raises(TopologyError, match="latency"):
        t.with_links(latency=-1.0)


def test_with_servers_keeps_links_and_demotes_the_rest():
    t = make_topology("bcube:n=3,k=1")
    job = t.with_servers([0, 4, 8])
    assert job.n_servers == 3 and np.array_equal(job.edges, t.edges)
    assert job.link_id(0, 9) == t.link_id(0, 9)
    with pytest.raises(TopologyError, match="not a server"):
        t.with_servers([0, 9])


# ---- files ----------------------------------------------------------------------------------------
def test_json_round_trip_keeps_link_properties():
    t = make_topology("jellyfish:switches=10,ports=5,switch_ports=4,bw=100/25|100,lat=1/2")
    failed = np.zeros(t.n_edges, bool)
    failed[[3, 17]] = True
    t = t.with_links(failed=failed)
    doc = json.loads(json.dumps(to_dict(t)))
    assert doc["links"][0] == [0, 10, 1, 100.0, 1.0] and doc["failed"] == [3, 17]
    back = from_dict(doc)
    for name in ("edges", "capacity", "bandwidth", "latency", "failed"):
        assert np.array_equal(getattr(back, name), getattr(t, name)), name


def test_json_link_forms():
    nodes = [{"id": "a", "kind": "server"}, {"id": "b", "kind": "server"}, {"id": "x", "kind": "switch"}]
    t = from_dict({"nodes": nodes, "links": [["a", "x"], ["b", "x", 2, 40, 3],
                                             {"u": "a", "v": "b", "bandwidth": "25Gbps", "latency": "500ns"}]})
    assert t.capacity.tolist() == [1, 2, 1]
    assert t.bandwidth.tolist() == [DEFAULT_BANDWIDTH, 40.0, 25.0] and t.latency.tolist() == [DEFAULT_LATENCY, 3.0, 0.5]
    t = from_dict({"nodes": nodes, "links": [["a", "x"], {"u": "b", "v": "x", "failed": True}]})
    assert t.failed.tolist() == [False, True]


@pytest.mark.parametrize("link,needle", [
    ({"u": "a", "v": "b", "bandwidth": 0}, "bandwidth must be > 0"),
    ({"u": "a", "v": "b", "bandwidth": -3}, "bandwidth must be > 0"),
    ({"u": "a", "v": "b", "bandwidth": "10 furlongs"}, "unknown unit"),
    ({"u": "a", "v": "b", "latency": -1}, "latency must be >= 0"),
    ({"u": "a", "v": "b", "failed": "maybe"}, "failed must be true or false"),
    ({"u": "a", "v": "b", "speed": 3}, "unknown field(s) speed"),
    ({"u": "a"}, "needs 'u' and 'v'"),
    (["a", "b", 1, float("nan"), 1], "finite"),
    (["a", "b", 1, 100, 1, 9], "each link must be"),
])
def test_json_bad_link_properties(link, needle):
    nodes = [{"id": "a", "kind": "server"}, {"id": "b", "kind": "server"}]
    with pytest.raises(TopologyError) as info:
        from_dict({"nodes": nodes, "links": [link]})
    assert needle in str(info.value)


def test_graphml_link_properties():
    g = nx.Graph()
    for v, kind in (("a", "server"), ("b", "server"), ("x", "switch")):
        g.add_node(v, kind=kind)
    g.add_edge("a", "x", bandwidth=25.0, latency=2.0)
    g.add_edge("b", "x", failed=True)
    buf = io.BytesIO()
    nx.write_graphml(g, buf)
    t = parse_topology_bytes(buf.getvalue(), "net.graphml", "file:net.graphml")
    e_ax = [i for i, (u, v) in enumerate(t.edges.tolist()) if {t.labels[u], t.labels[v]} == {"a", "x"}][0]
    assert t.bandwidth[e_ax] == 25.0 and t.latency[e_ax] == 2.0 and not t.failed[e_ax]
    assert t.failed[1 - e_ax] and t.bandwidth[1 - e_ax] == DEFAULT_BANDWIDTH
    g.add_edge("a", "b", bandwidth=-1.0)
    buf = io.BytesIO()
    nx.write_graphml(g, buf)
    with pytest.raises(TopologyError, match="bandwidth must be > 0"):
        parse_topology_bytes(buf.getvalue(), "net.graphml", "file:net.graphml")


def test_file_spec_takes_link_options(tmp_path):
    t = make_graph([True, True, False], [(0, 2), (1, 2)])
    path = tmp_path / "net.json"
    path.write_text(json.dumps(to_dict(t)))
    u = make_topology(f"file:{path},bw=10")
    assert np.all(u.bandwidth == 10.0) and u.spec == f"file:{path},bw=10"


def test_cli_topology_shows_link_properties(capsys):
    code, out, _ = run_cli(capsys, "topology", "bcube:n=4,k=1,bw=100/25,lat=500ns")
    assert code == 0 and "links: bandwidth 25 Gbit/s x16, 100 Gbit/s x16; latency 0.5 µs x32" in out


def test_a_size_past_one_pib_is_refused_and_one_pib_taken():
    """Trial 27: `--size 1e30B` ran and printed "time for 1e+18 TB" and a bound above the replayed time."""
    assert parse_size("1024TiB") == 2 ** 50
    for text in ("1e30B", "1025TiB", str(2 ** 50 + 1)):
        with pytest.raises(UnitError, match=r"^--size must be at most 1024TiB, got '"):
            parse_size(text, "--size")


def test_a_time_below_its_bound_by_rounding_alone_has_no_gap_and_one_below_it_for_real_keeps_its_own():
    """Trial 27: a time and its bound summed in another order differ in the last bit, and the report read "-0.0%
    above its DAG's best bound"."""
    from core.bounds import gap
    bound = 0.1 + 0.2  # 0.30000000000000004
    assert gap(0.3, bound) == 0.0 and 0.3 / bound - 1 < 0
    assert gap(0.3, 0.3) == 0.0 and gap(0.6, 0.3) == pytest.approx(1.0) and gap(1.0, 0.0) == 0.0
    assert gap(0.29, 0.3) == pytest.approx(-1 / 30)  # a bound that is no bound still shows
