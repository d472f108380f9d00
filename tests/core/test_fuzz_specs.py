"""Fuzzer: spec strings. Every string builds a topology or is refused with one line (exit 2)."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.topology import Topology, TopologyError, make_topology

from _fuzzlib import DEADLINE_MS, assert_exit_0_or_one_line, assert_one_line, cheap_limits, run_cli  # noqa: F401

FAMILIES = ["bcube", "dcell", "fattree", "fat-tree", "jellyfish", "leafspine", "BCube", "torus", "file", "example", ""]
KEYS = ["n", "k", "switches", "ports", "switch_ports", "seed", "N", "", "k ", "\u00e9", "bw", "lat", "link_seed", "leaves", "spines", "servers"]
VALUES = st.one_of(
    st.integers(-5, 12).map(str), st.integers(-10 ** 20, 10 ** 20).map(str),
    st.sampled_from(["1_0", "\u0661", "\uff13", "1e3", "0x10", " 3 ", "+4", "-0", "", "3.0", "9" * 30, "nan",
                     "100/25", "25|100", "1e308", "inf", "-5", "100Gbps", "1us", "0", "1/2/3/4/5", "9" * 5000]),
    st.text(max_size=6))


@st.composite
def specs(draw) -> str:
    head = draw(st.sampled_from(FAMILIES) | st.text(max_size=8))
    items = draw(st.lists(st.tuples(st.sampled_from(KEYS) | st.text(max_size=4), VALUES,
                                    st.sampled_from(["=", "=", "==", ":", ""])), max_size=5))
    sep = draw(st.sampled_from([",", ",", ", ", ";", ",,"]))
    body = sep.join(f"{k}{eq}{v}" for k, v, eq in items)
    return draw(st.sampled_from([f"{head}:{body}", f"{head}{body}", body, f" {head} : {body} "]))


@settings(max_examples=300, deadline=DEADLINE_MS, suppress_health_check=[HealthCheck.too_slow])
@given(spec=specs())
@example(spec="file:n=\n0")  # a missing file's name with a newline: its message was two lines (a fresh-clone run)
def test_spec_strings_build_or_are_refused_in_one_line(spec):
    try:
        t = make_topology(spec)
    except (TopologyError, ValueError) as err:  # SizeError is a ValueError
        assert_one_line(err)
        return
    assert isinstance(t, Topology) and t.n_servers >= 2


@settings(max_examples=60, deadline=DEADLINE_MS, suppress_health_check=[HealthCheck.too_slow])
@given(spec=specs())
def test_topology_command_exits_0_or_2_with_one_line(spec):
    code, out, err = run_cli("topology", spec)
    assert_exit_0_or_one_line(code, err)
