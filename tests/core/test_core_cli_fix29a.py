"""fix29a: CLI and core leftovers (huge gaps as ratios, line widths, the mid-run disconnect error, a file's own link
speeds overridden, slowed links by name, TopDRL's empty validation seeds, one rule for a seeded method)."""

from __future__ import annotations

import contextlib
import io
import json

from core import cli
from core.methods import Method, get_method


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_a_seeded_method_is_one_property_that_schedules_text_and_json_heads_follow(monkeypatch):
    """The rule "a seeded method names its seed" was written out (``"seed" in method.options()``) in schedule's text
    line and its JSON head (and the player's card): `Method.seeded` is the one place, both heads follow it."""
    assert [get_method(m).seeded for m in ("ps", "greedy", "optimal", "critical-path", "ring")] == \
        [True, True, True, False, False]
    spec = "bcube:n=2,k=1"
    for seeded in (False, True):  # critical-path as if it read the seed: both heads say it, from the one property
        monkeypatch.setattr(Method, "seeded", property(lambda self, s=seeded: s or "seed" in self.options()))
        code, out, _ = run_cli("schedule", spec, "--method", "critical-path", "--seed", "4")
        assert code == 0 and ("  seed=4  " in out.splitlines()[0]) == seeded, out.splitlines()[0]
        code, out, _ = run_cli("schedule", spec, "--method", "critical-path", "--seed", "4", "--format", "json")
        assert code == 0 and json.loads(out).get("seed") == (4 if seeded else None)


def test_a_gap_of_10x_its_bound_or_more_reads_as_the_ratio():
    """`core.units.gap_shown`: percent below 10x the bound, from there the ratio time / bound to 3 significant digits,
    and beside each text the percent it shows (what the dashboard's seconds table sorts by)."""
    from core.units import gap_shown, gap_words

    assert gap_shown(0.125) == ("12.5%", 12.5) and gap_shown(8.643) == ("864.3%", 864.3)
    assert gap_shown(8.99999) == ("900.0%", 900.0)  # under 10x: still percent
    assert gap_shown(9.0) == ("10.0x", 900.0) and gap_shown(41.2) == ("42.2x", 4120.0)
    assert gap_shown(98.96) == ("100x", 9900.0) and gap_shown(421876.125) == ("422,000x", 42199900.0)
    assert gap_shown(4.2e9)[0] == "4.20e9x"
    assert gap_words(421876.125, "the bandwidth bound") == "422,000x the bandwidth bound"
    assert gap_words(0.5, "the bandwidth bound") == "50.0% above the bandwidth bound"


def test_schedules_and_compares_gap_to_the_bandwidth_bound_at_1_byte_is_a_ratio():
    """`schedule ... --size 1B` printed "13,333,233.3% above the bandwidth bound"; it prints "133,000x the bandwidth
    bound" (one formatter, `core.units.gap_shown`), and compare's seconds table writes the same cell."""
    code, out, _ = run_cli("schedule", "bcube:n=2,k=1", "--size", "1B")
    lines = out.splitlines()
    (i,) = [i for i, x in enumerate(lines) if x.startswith("    async ")]
    assert code == 0 and lines[i + 1] == ("      0.0% above its DAG's best bound (critical path), 133,000x the "
                                          "bandwidth bound"), lines[i + 1]
    code, out, _ = run_cli("compare", "bcube:n=2,k=1", "--methods", "critical-path", "--size", "1B")
    row = next(x for x in out.splitlines() if x.startswith("bcube:n=2,k=1  critical-path"))
    assert code == 0 and row.split()[-2:] == ["133,000x", "0.0%"], row
    assert "(from 10x a bound up, as the ratio time / bound)" in out


def test_a_disconnecting_failure_is_one_short_line_with_long_lists_cut():
    """The mid-run disconnect error ran to 214 characters ("... (30 of 112 workloads finished, async replay): failed
    links cut off 4 of 8 servers (...) from the others: no route avoids failed links ..."): every fact is kept in
    157 (tests/core/test_core_cli_trial27.py pins it), and a long list of links or servers ends "... and N more"."""
    import pytest

    from core.topology import degrade, make_topology
    from core.topology.degrade import DisconnectedError

    code, _, err = run_cli("schedule", "file:docs/examples/two-tor.json", "--fail-at", "20ms:tor0-tor1,gpu3-gpu4")
    assert code == 2 and len(err.strip()) <= 160 and err.count("\n") == 1, err
    t = make_topology("fattree:k=4")  # both uplinks of the four edge switches of pods 0 and 1: 8 hosts cut off
    with pytest.raises(DisconnectedError) as got:
        degrade(t, fail="16,17,18,19,20,21,22,23")
    assert str(got.value) == ("failed links 16 (e0.0-a0.0), 17 (e0.0-a0.1), 18 (e0.1-a0.0), 19 (e0.1-a0.1) ... and 4 "
                              "more cut off 8 of 16 servers (h0.0, h0.1, h0.2, h0.3 ... and 4 more)")


def test_a_spec_option_that_replaces_a_files_own_link_speeds_says_so(tmp_path):
    """``file:x.json,bw=400`` set every link to 400 Gbit/s, as documented, and said nothing of the file's own 10-100
    Gbit/s it replaced: schedule's header (and topology's summary) say so in one line, from core
    (`core.topology.link_option_note`, for a page too); nothing is said without the option, nor for a file that
    gives no speeds of its own."""
    from core.topology import link_option_note, make_topology

    net = "file:docs/examples/two-tor.json"
    note = "bw=400 replaces the file's own bandwidths (10-100 Gbit/s)"
    assert link_option_note(make_topology(f"{net},bw=400")) == note
    assert link_option_note(make_topology(f"{net},lat=2")) == "lat=2 replaces the file's own latencies (1-5 µs)"
    assert link_option_note(make_topology(net)) is None
    code, out, _ = run_cli("schedule", f"{net},bw=400")
    assert code == 0 and out.splitlines()[1] == f"  links: {note}", out
    code, out, _ = run_cli("schedule", f"{net},bw=400", "--format", "json")
    assert code == 0 and json.loads(out)["links_note"] == note  # the JSON says it too
    code, out, _ = run_cli("schedule", net, "--format", "json")
    assert code == 0 and "links_note" not in json.loads(out)
    code, out, _ = run_cli("topology", f"{net},bw=400")
    assert code == 0 and f"    ({note})" in out.splitlines()
    code, out, _ = run_cli("schedule", net)
    assert code == 0 and "links:" not in out
    plain = tmp_path / "plain.json"  # no speeds of its own: the defaults, nothing replaced that the file gave
    plain.write_text(json.dumps({"nodes": [{"id": "a", "kind": "server"}, {"id": "b", "kind": "server"},
                                           {"id": "s", "kind": "switch"}], "links": [["a", "s"], ["b", "s"]]}))
    code, out, _ = run_cli("schedule", f"file:{plain},bw=400")
    assert code == 0 and "links:" not in out and link_option_note(make_topology(f"file:{plain},bw=400")) is None
