"""What the new-user trial 16 found in the CLI: replay and run without validate's "made for another network" hint,
--slow-at calling a speed --slow-links gave a link its "own", a refusal that read "at 100 Gbit/s, faster than its 100
Gbit/s", compare's CSV in scientific notation with two numbers of digits, --size 1b read as one byte, and a
topology id with a leading space."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from core import cli
from core.topology import TopologyError, make_topology


def _pasted(tmp_path):
    """A bcube:3,1 schedule with leafspine:3,3,3's topology pasted in (as trial 15's test builds it)."""
    from core.schedule_io import schedule_to_dict
    from core.topology import to_dict
    from _corelib import schedule
    d = schedule_to_dict(schedule("bcube:n=3,k=1", "critical-path"))
    d["topology"] = to_dict(make_topology("leafspine:leaves=3,spines=3,servers=3"))
    f = tmp_path / "paste.json"
    f.write_text(json.dumps(d))
    return f


HINT = ("on the file's topology (leafspine:leaves=3,spines=3,servers=3) 72 of 144 workloads break the path or data "
        "rule and 55 of 81 pieces (server, flow-tree) are missing from or repeated in their sums: the schedule was "
        "made for another network")


def test_replay_and_run_say_the_schedule_was_made_for_another_network(tmp_path, capsys):
    """validate named the cause; replay and run refused with the first violation alone (a path on leafspine)."""
    f = _pasted(tmp_path)
    assert cli.main(["validate", str(f), "--max-report", "0"]) == 2
    assert capsys.readouterr().out.splitlines()[0].endswith(f"path 36, data 192; {HINT}")
    assert cli.main(["replay", str(f)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines() == [
        f"allreduce-lab: error: {f}: not a valid schedule, cannot time it: {HINT}; first of 228 violations: [path] "
        f"workload 2: path [3, 12, 0]: no link 3 (h1.0)->12 (spine0) (run validate)"]
    assert cli.main(["run", str(f), "--size", "1KB"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines() == [
        f"allreduce-lab: error: schedule refused, nothing was sent: 228 violation(s) (path 36, data 192); {HINT}; "
        f"first of 228 violations: [path] workload 2: path [3, 12, 0]: no link 3 (h1.0)->12 (spine0) (run validate)"]


def test_replay_of_one_bad_hop_keeps_its_first_violation(tmp_path, capsys):
    """No hint where validate gives none: one broken path is that path."""
    from core.schedule_io import schedule_to_dict
    from _corelib import schedule
    d = schedule_to_dict(schedule("bcube:n=3,k=1", "critical-path"))
    path = d["workloads"][0]["path"]
    d["workloads"][0]["path"] = [path[0], path[-1]]
    f = tmp_path / "hop.json"
    f.write_text(json.dumps(d))
    assert cli.main(["replay", str(f)]) == 2
    err = capsys.readouterr().err
    assert "another network" not in err and re.search(r"cannot time it: \[path\] workload 0: .* \(and \d+ more; run "
                                                      r"validate\)$", err.strip()), err


@pytest.mark.parametrize("args, said", [
    (["--slow-links", "0:50", "--slow-at", "1ms:0:50"],
     "at 50 Gbit/s, the speed --slow-links gave it (nominal 100 Gbit/s); --slow-at only slows links"),
    (["--slow-links", "0:50", "--slow-at", "1ms:0:60"],
     "at 60 Gbit/s, faster than the 50 Gbit/s --slow-links gave it (nominal 100 Gbit/s); --slow-at only slows"),
    (["--slow-at", "1ms:0:100"], "at 100 Gbit/s, its own speed; --slow-at only slows links"),
    (["--slow-links", "1:50", "--slow-at", "1ms:0:100"], "at 100 Gbit/s, its own speed;"),  # another link slowed
    (["--slow-links", "0:100.0000001"], "at 100.0000001 Gbit/s, faster than its 100 Gbit/s;"),
    (["--slow-links", "0:50", "--slow-at", "1ms:0:50.00000001"],
     "at 50.00000001 Gbit/s, faster than the 50 Gbit/s --slow-links gave it (nominal 100 Gbit/s)"),
])
def test_a_refused_slowdown_names_the_speed_it_is_compared_with(args, said, capsys):
    """--slow-at compares with the speed before the event, which --slow-links may have set: it called that 50 the
    link's "own speed"; and 100.0000001 read "at 100 Gbit/s, faster than its 100 Gbit/s"."""
    for command in (["schedule", "bcube:n=3,k=1"], ["compare", "bcube:n=3,k=1", "--methods", "ring"]):
        assert cli.main(command + args) == 2
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and said in err[0], err


def test_a_slowdown_by_a_hair_prints_both_speeds_apart(capsys):
    """Accepted (it is below 100), it read 100->100 Gbit/s and links 100-100 Gbit/s."""
    assert cli.main(["schedule", "bcube:n=3,k=1", "--slow-links", "0:99.9999999"]) == 0
    out = capsys.readouterr().out
    assert "slowed 0 (s00-sw0.0) 100->99.9999999 Gbit/s" in out and "links 99.9999999-100 Gbit/s" in out


def test_show_apart_uses_the_digits_it_takes():
    from core.units import show_apart
    assert show_apart(100.0, 100.0) == ("100", "100") and show_apart(25.0, 100.0) == ("25", "100")
    assert show_apart(100.0000001, 100.0) == ("100.0000001", "100")
    a, b = show_apart(1.0 + 2 ** -52, 1.0)
    assert a != b and float(a) == 1.0 + 2 ** -52


def test_compare_csv_writes_every_number_by_one_rule(capsys):
    """At 1 B the CSV had 8.333e-05-style cells and 4 significant digits in the rates against 6 elsewhere: every
    cell is now a plain decimal (whole numbers whole), 6 significant digits, and equals the JSON's number."""
    args = ["compare", "bcube:3,1", "--methods", "critical-path,ring,ps", "--seeds", "3", "--size", "1B"]
    assert cli.main(args + ["--format", "csv"]) == 0
    header, row = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    got = dict(zip(header, row))
    numbers = [c for h, c in got.items() if h not in ("config", "latency note") and c]
    assert numbers and not [c for c in numbers if not re.fullmatch(r"-?\d+(\.\d+)?", c)], numbers
    for c in numbers:  # 6 significant digits at most, and the rates have them as the times do
        assert len(c.replace("-", "").replace(".", "").lstrip("0")) <= 6 or "." not in c, c
    assert got["ring algbw GB/s"] == "0.0000312499" and got["ps"] == "21.3333"  # 3.125e-05 and 21.3 before
    assert cli.main(args + ["--format", "json"]) == 0
    (js,) = json.loads(capsys.readouterr().out)
    ring = js["methods"]["ring"]["time"]["async"]
    assert float(got["ring algbw GB/s"]) == pytest.approx(ring["algbw_Bps"] / 1e9, rel=1e-5)
    assert float(got["ring gap BW bound (%)"]) == pytest.approx(100 * ring["gap"]["bandwidth"], rel=1e-5)


def test_csv_number():
    from core.jsonnumbers import csv_number
    assert [csv_number(x) for x in (8.333333e-05, 5.06251253e7, 12.5, 16.0, 1e8, 0.0360002, -2.5e-7, 1234567.25)] == [
        "0.0000833333", "50625125", "12.5", "16", "100000000", "0.0360002", "-0.00000025", "1234567"]
    # trial 17: a number of 7 or more integer digits keeps them all (50625125.0 printed as 50625100)
    assert [csv_number(x) for x in (50625125.000001, -50625125.4, 999999.7, 123456.7)] == [
        "50625125", "-50625125", "1000000", "123457"]


def test_json_and_csv_numbers_share_the_whole_number_rule(monkeypatch):
    """Past 6 integer digits a number is rounded to the whole, in JSON as in the CSV; at 6 it keeps 6 significant
    digits (999999.5 is 1000000 either way). One private helper says the rule and both forms ask it."""
    from core import jsonnumbers
    from core.jsonnumbers import csv_number, json_numbers
    assert [json_numbers(x) for x in (999999.5, 1234567.89, -1234567.5)] == [1000000.0, 1234568.0, -1234568.0]
    assert [csv_number(x) for x in (999999.5, 1234567.89, -1234567.5)] == ["1000000", "1234568", "-1234568"]
    asked = []
    rule = jsonnumbers._whole_past
    monkeypatch.setattr(jsonnumbers, "_whole_past", lambda x, digits: asked.append(x) or rule(x, digits))
    assert (json_numbers(1234567.89), csv_number(1234567.89)) == (1234568.0, "1234568") and asked == [1234567.89] * 2


@pytest.mark.parametrize("text, said", [
    # trial 17: the reason no longer says "a lowercase b is bits", which 1kb and 100mb (bytes) contradicted
    ("1b", "--size: '1b' is ambiguous (a bare b may be a byte or a bit): write 1B for 1 byte or 1bit for bits "
           "(0.125B)"),
    ("64 b", "write 64B for 64 bytes or 64bit for bits (8B)"),
])
def test_a_bare_lowercase_b_size_is_refused(text, said, capsys):
    """`--size 1b` ran as 1 byte, though a bandwidth reads a lowercase b as bits."""
    assert cli.main(["schedule", "bcube:2,1", "--size", text]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and said in err[0], err


def test_every_other_size_form_reads_as_before():
    from core.units import parse_size
    assert [parse_size(x) for x in ("1B", "4096", "100mb", "100MB", "1kb", "1KiB", "1mib", "2 B")] == [
        1, 4096, 10 ** 8, 10 ** 8, 1000, 1024, 2 ** 20, 2]
    for bits in ("8bit", "10Mb", "1Kib"):
        with pytest.raises(ValueError, match="is in .*bits, but sizes are in bytes"):
            parse_size(bits)


def test_rate_endings_are_one_tuple_per_kind():
    """units wrote bit/s, bits/s, byte/s, bytes/s beside _BW_BITS/_BW_BYTES, twice; the readings are unchanged."""
    from core import units
    assert units._BW_BITS == ("bps", "b/s", "bit/s", "bits/s")
    assert units._BW_BYTES == ("Bps", "B/s", "byte/s", "bytes/s")
    got = {x: units.parse_bandwidth(x) for x in ("25Gbps", "25gb/s", "25GBIT/S", "25Gbits/s", "50GBps", "50gB/s",
                                                 "50Gbyte/s", "50GBYTES/S", "400Mbps", "1TBps")}
    assert got == {"25Gbps": 25, "25gb/s": 25, "25GBIT/S": 25, "25Gbits/s": 25, "50GBps": 400, "50gB/s": 400,
                   "50Gbyte/s": 400, "50GBYTES/S": 400, "400Mbps": 0.4, "1TBps": 8000}
    for bad in ("25GBPS", "25GB/S", "25GbPS", "25Gbyte"):
        with pytest.raises(ValueError, match="unknown unit"):
            units.parse_bandwidth(bad)


def _file(tmp_path, name: str, doc) -> str:
    f = tmp_path / name
    f.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return f"file:{f}"


@pytest.mark.parametrize("name, doc, said", [
    # trial 17: "node 1" read as the node with id 1; a list entry is nodes[1], a GraphML node its id
    ("i.json", {"nodes": [{"id": 1, "kind": "server"}, {"id": " 3", "kind": "server"}, {"id": "s", "kind": "switch"}],
                "links": [[1, "s"], [" 3", "s"]]},
     "i.json: nodes[1]: 'id' must not begin or end with whitespace, got ' 3'"),
    ("n.json", {"nodes": [{"id": 0, "kind": "server"}, {"id": " 3", "kind": "server"}, {"id": "s", "kind": "switch"}],
                "links": [[0, "s"], [" 3", "s"]]},
     "n.json: nodes[1]: 'id' must not begin or end with whitespace, got ' 3'"),
    ("s.json", {"servers": [0, "3 "], "links": [[0, "s"], ["3 ", "s"]]},
     "s.json: 'servers': a node id must not begin or end with whitespace, got '3 '"),
    ("l.json", {"servers": [0, 3], "links": [[0, "s\t"], [3, "s\t"]]},
     "l.json: link [0, \"s\\t\"]: a node id must not begin or end with whitespace, got 's\\t'"),
    ("g.graphml", '<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns"><key id="k" for="node" '
     'attr.name="kind" attr.type="string"/><graph edgedefault="undirected"><node id="a"><data key="k">server</data>'
     '</node><node id="b "><data key="k">server</data></node><node id="s"><data key="k">switch</data></node><edge '
     'source="a" target="s"/><edge source="b " target="s"/></graph></graphml>',
     "g.graphml: node 'b ': 'id' must not begin or end with whitespace, got 'b '"),
])
def test_an_id_with_leading_or_trailing_whitespace_is_refused(tmp_path, name, doc, said):
    """`" 3"` was read, and its link printed as `1- 3`."""
    with pytest.raises(TopologyError) as info:
        make_topology(_file(tmp_path, name, doc))
    assert str(info.value) == said


@pytest.mark.parametrize("name, doc, said", [
    ("e.json", {"nodes": [{"id": 1, "kind": "server"}, {"id": "", "kind": "server"}, {"id": "s", "kind": "switch"}],
                "links": [[1, "s"], ["", "s"]]}, "e.json: nodes[1]: 'id' must not be empty, got ''"),
    ("es.json", {"servers": [0, ""], "links": [[0, "s"], ["", "s"]]},
     "es.json: 'servers': a node id must not be empty, got ''"),
    ("el.json", {"servers": [0, 3], "links": [[0, ""], [3, ""]]}, "el.json: link [0, \"\"]: a node id must not be "
     "empty, got ''"),
    ("eg.graphml", '<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns"><key id="k" for="node" '
     'attr.name="kind" attr.type="string"/><graph edgedefault="undirected"><node id="a"><data key="k">server</data>'
     '</node><node id=""><data key="k">server</data></node><node id="s"><data key="k">switch</data></node><edge '
     'source="a" target="s"/><edge source="" target="s"/></graph></graphml>',
     "eg.graphml: node '': 'id' must not be empty, got ''"),
])
def test_an_empty_id_is_refused_through_the_cli(capsys, tmp_path, name, doc, said):
    """`""` was read as an id (its link printed as `1-`), while `" 3"` was refused since trial 16."""
    assert cli.main(["topology", _file(tmp_path, name, doc)]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"allreduce-lab: error: {said}\n")


def test_ids_with_inner_spaces_are_still_ids(tmp_path):
    spec = _file(tmp_path, "ok.json", {"servers": ["a 1", "b 2"], "links": [["a 1", "s w"], ["b 2", "s w"]]})
    assert make_topology(spec).n_servers == 2
