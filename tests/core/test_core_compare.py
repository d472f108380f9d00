"""compare: the paper's Table 2 recomputed, as rows, JSON and CSV."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from core import cli
from core.bounds import lower_bounds
from core.cli.common import notes_joined
from core.compare import compare, configurations, csv_table, default_methods, rows_to_table, time_columns
from core.jsonnumbers import csv_number
from core.seconds import time_report
from core.topology import make_topology, preset
from core.workloads import tree_dag

from _corelib import schedule, topo

METHODS = list(default_methods())


@pytest.fixture(scope="module")
def rows():
    return compare(configurations("table2"), METHODS, seeds=2)


def test_default_methods():
    assert METHODS == ["ps", "ring", "greedy", "critical-path", "rl"]
    assert list(default_methods(uneven=True)) == ["ps", "ring", "greedy", "critical-path", "time-aware", "rl"]


def test_uneven_links_are_those_of_several_speeds(tmp_path):
    """`uneven_links` says why a configuration's links differ in speed (then compare's defaults add time-aware), from
    --slow-links, a spec's bw= (read, not built) or a built file's working links; None where they share one speed."""
    from core.compare import uneven_links
    from core.topology import make_topology
    assert uneven_links("bcube:3,1") is None and uneven_links("bcube:3,1,bw=100/100") is None
    assert uneven_links("bcube:3,1,bw=10") is None  # slower, but every link alike
    assert uneven_links("bcube:3,1,bw=100/25") == "bcube:3,1,bw=100/25 has links at 25 and 100 Gbit/s"
    assert uneven_links("jellyfish:10,4,2,bw=100/25|40|100") == \
        "jellyfish:10,4,2,bw=100/25|40|100 has links at 25, 40 and 100 Gbit/s"
    assert uneven_links("bcube:3,1", slow="3:x0.5") == "--slow-links 3:x0.5"
    net = tmp_path / "net.json"
    links = [[0, "s", 1, 100], [1, "s", 1, 100], [2, "s", 1, 100]]
    for slow_one, failed in ((False, False), (True, False), (True, True)):
        rows = [list(row) for row in links]
        rows[2] = {"u": 2, "v": "s", "capacity": 1, "bandwidth": 25 if slow_one else 100, "failed": failed}
        net.write_text(json.dumps({"nodes": [{"id": i, "kind": "server"} for i in range(3)] + [{"id": "s",
                                   "kind": "switch"}], "links": rows}))
        why = uneven_links(f"file:{net}", make_topology(f"file:{net}"))
        assert why == (f"file:{net} has links at 25 and 100 Gbit/s" if slow_one and not failed else None)


@pytest.mark.parametrize("argv, extra", [
    (["bcube:2,1,bw=100/25"], "bcube:2,1,bw=100/25 has links at 25 and 100 Gbit/s"),
    (["bcube:2,1", "--slow-links", "0:x0.5"], "--slow-links 0:x0.5"),
    (["bcube:2,1"], None),
    (["bcube:2,1,bw=100/25", "--methods", "ps,ring"], None),  # methods named: as named
])
def test_compare_adds_time_aware_to_its_defaults_where_links_differ(capsys, argv, extra):
    """Trial 20: compare's defaults left out time-aware on a network with a slow link, where the round methods cannot
    see it; they add it there, with a note saying why, and stay as they were on a network of one speed."""
    assert cli.main(["compare", *argv, "--seeds", "1", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    ran = list(json.loads(out)[0]["methods"])
    named = argv[argv.index("--methods") + 1].split(",") if "--methods" in argv else None
    assert ran == (named or list(default_methods(uneven=extra is not None)))
    assert ("time-aware" in ran) == (extra is not None)
    note = (f"note: time-aware joins the default methods: link bandwidths differ ({extra}); --methods names the "
            "methods to run")
    assert [line for line in notes_joined(err) if "time-aware" in line] == ([note] if extra else [])


def test_rows_sizes_and_bounds(rows):
    presets = preset("table2")
    assert [r.name for r in rows] == [p.name for p in presets]
    for r, p in zip(rows, presets):
        t = topo(p.spec)
        assert r.paper is p and r.spec == t.spec
        assert (r.nodes, r.edges) == (p.paper_nodes, p.paper_edges)
        assert r.servers == t.n_servers
        assert r.workloads == 2 * t.n_servers * (t.n_servers - 1)
        assert r.lower_bound == lower_bounds(tree_dag(t)).best == r.bounds["best"]
        assert list(r.results) == METHODS


def test_randomized_methods_are_means_over_seeds(rows):
    for r in rows:
        for m in METHODS:
            res = r.results[m]
            if m in ("ps", "greedy"):
                want = [schedule(r.spec, m, seed=s).n_rounds for s in (0, 1)]
                assert res.per_seed == want
                assert res.rounds == pytest.approx(np.mean(want))
                assert res.std == pytest.approx(np.std(want))
            else:
                assert res.per_seed == [schedule(r.spec, m).n_rounds]
                assert res.rounds == res.per_seed[0] and res.std == 0.0
            assert res.own_bound == lower_bounds(schedule(r.spec, m).dag).best
            assert min(res.per_seed) >= res.own_bound


def test_gaps_and_best(rows):
    for r in rows:
        assert r.gap("ps") is None and r.gap("ring") is None  # other DAGs than the bound's
        for m in ("greedy", "critical-path"):
            assert r.gap(m) == pytest.approx(r.results[m].rounds / r.lower_bound - 1)
            assert r.gap(m) >= 0
        best = r.best_merged()
        merged = [r.results[m].rounds for m in ("greedy", "critical-path", "rl") if r.results[m].rounds is not None]
        assert best.rounds == min(merged)
        d = json.loads(json.dumps(r.as_dict()))
        assert d["best_merged_gap"] == pytest.approx(best.rounds / r.lower_bound - 1)
        assert d["paper"]["ps"] == r.paper.paper_ps


def test_table_cells(rows):
    header, body = rows_to_table(rows, METHODS)
    assert header == ["config", "nodes", "edges", "workloads", "ps", "ring", "greedy", "critical-path", "rl",
                      "LB(merged)", "best gap", "paper PS", "paper Ring", "paper RL"]
    assert len(body) == 9
    first = body[0]
    assert first[:4] == ["BCube(3,1)", "15", "18", "144"]
    r = rows[0]
    assert first[4] == f"{r.results['ps'].rounds:.1f}" and first[5] == f"{r.results['ring'].rounds:.0f}"
    assert first[8] == f"{r.results['rl'].rounds:.0f}"
    assert first[9] == "12"
    assert first[11:] == ["16.8", "18.0", "10.2"]


def test_configurations():
    assert configurations(None, ["bcube:n=2,k=1"]) == [("bcube:n=2,k=1", "bcube:n=2,k=1", None)]
    # one name per topology whichever form was typed; the spec is kept as typed
    assert configurations(None, ["bcube:2,1"]) == [("bcube:n=2,k=1", "bcube:2,1", None)]
    assert len(configurations("table2", ["fattree:k=4"])) == 10
    with pytest.raises(ValueError, match="--preset"):
        configurations(None, [])
    with pytest.raises(ValueError, match="seeds must be >= 1"):
        compare(configurations(None, ["bcube:n=2,k=1"]), seeds=0)


def test_cli_compare_json(capsys, rows):
    code = cli.main(["compare", "--preset", "table2", "--format", "json", "--seeds", "2"])
    out, err = capsys.readouterr()
    assert code == 0
    data = json.loads(out)
    assert [d["name"] for d in data] == [r.name for r in rows]
    for d, r in zip(data, rows):
        assert d["nodes"] == r.nodes and d["edges"] == r.edges and d["lower_bound"] == r.lower_bound
        assert set(d["methods"]) == set(METHODS)
        assert d["methods"]["ps"]["per_seed"] == r.results["ps"].per_seed
        assert d["methods"]["critical-path"]["rounds"] == r.results["critical-path"].rounds


def test_cli_compare_csv_and_text(capsys):
    code = cli.main(["compare", "--preset", "table2", "--format", "csv", "--methods", "ps,critical-path",
                     "--seeds", "2"])
    out, err = capsys.readouterr()
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 10
    table = list(csv.reader(io.StringIO(out)))
    assert table[0][:6] == ["config", "nodes", "edges", "workloads", "ps", "critical-path"]
    assert [row[0] for row in table[1:]] == [p.name for p in preset("table2")]
    assert table[1][5] == str(schedule("bcube:n=3,k=1", "critical-path").n_rounds)
    code = cli.main(["compare", "bcube:n=2,k=1", "fattree:k=2", "--methods", "greedy,optimal",
                     "--time-limit", "2"])
    out, err = capsys.readouterr()
    assert code == 0
    lines = out.splitlines()
    # rounds: header, two rows, footnote; a blank line; seconds: header, 2 configs x 2 methods, footnote
    assert len(lines) == 4 + 1 + 6 and lines[5].split()[:4] == ["config", "method", "rounds", "sync"]
    assert lines[6].split()[:2] == ["bcube:n=2,k=1", "greedy"] and "times for M = 100 MB" in lines[10]
    assert lines[1].startswith("bcube:n=2,k=1") and lines[2].startswith("fattree:k=2")
    assert "*" not in lines[1]  # proven optimal: no asterisk
    assert "* = not proven optimal" in lines[3]
    assert "greedy is a mean over 5 seeds" in lines[3]
    assert "greedy: the mean time over seeds, and algbw, busbw and gaps of that mean time" in lines[10]


def test_cli_compare_footnotes_name_only_the_seeded_methods_it_ran(capsys):
    assert cli.main(["compare", "bcube:n=2,k=1", "--methods", "critical-path,ring"]) == 0
    out = capsys.readouterr().out
    assert "mean" not in out and "rounds; LB(merged) is the lower bound" in out
    assert cli.main(["compare", "bcube:n=2,k=1", "--methods", "ps,greedy", "--seeds", "2"]) == 0
    out = capsys.readouterr().out
    assert "ps and greedy are means over 2 seeds" in out and "ps and greedy: the mean time over seeds" in out


def test_cli_compare_text_says_which_checkpoint_and_temperature_ran(capsys):
    assert cli.main(["compare", "bcube:n=3,k=1", "--methods", "critical-path,rl,rl-sample", "--samples", "2",
                     "--temperature", "0.5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].startswith("rounds;")
    assert lines[3] == ("bcube:n=3,k=1: rl: checkpoint bcube_n3_k1 (trained on this topology: yes); rl-sample: "
                        "checkpoint bcube_n3_k1 (trained on this topology: yes), best of greedy and 2 samples at T = 0.5 "
                        "after openings none,0.5:0.3 (a split: sample k takes item k mod 2, counting from 0; T = 0.5 in the first 4 of "
                        "12 rounds, the greedy rollout's)")  # the default opening, a split (docs/rl.md)


def test_cli_compare_csv_says_which_checkpoint_ran_and_how(capsys):
    assert cli.main(["compare", "bcube:n=3,k=1", "--methods", "critical-path,rl,rl-sample", "--samples", "2",
                     "--temperature", "0.5", "--chunks", "2", "--format", "csv"]) == 0
    header, row = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    got = dict(zip(header, row))
    assert header[12:20] == ["rl checkpoint", "rl trained on topology", "rl trained on configuration",
                           "rl-sample checkpoint", "rl-sample trained on topology", "rl-sample trained on configuration",
                           "rl-sample samples", "rl-sample temperature"]
    assert got["rl checkpoint"] == got["rl-sample checkpoint"] == "bcube_n3_k1"
    # its own topology, but trained with chunks 1: not this configuration
    assert got["rl trained on topology"] == "yes" and got["rl trained on configuration"] == "no"
    assert got["rl-sample samples"] == "2" and got["rl-sample temperature"] == "0.5"
    assert cli.main(["compare", "bcube:n=2,k=1", "--methods", "ps,critical-path", "--format", "csv"]) == 0
    assert not any("checkpoint" in h for h in next(csv.reader(io.StringIO(capsys.readouterr().out))))


def test_cli_compare_csv_and_json_carry_what_a_files_spec_did_to_the_checkpoint(capsys, tmp_path):
    """Trial 25: on a topology file whose graph is a family spec's, the text (and the dashboard) say the checkpoint
    went by that spec; the CSV said nothing. It has ``rl file spec``, the text's sentence, where some row ran on such
    a file (a family spec has no such column); the JSON has the record under ``info.file_spec``."""
    pytest.importorskip("torch")
    path = tmp_path / "dcell41.json"
    assert cli.main(["topology", "dcell:n=4,k=1", "--format", "json"]) == 0
    path.write_text(capsys.readouterr().out)
    args = ["compare", f"file:{path}", "dcell:n=4,k=1", "--methods", "critical-path,rl"]
    assert cli.main(args) == 0
    said = ("the file's graph is that of the spec it carries, dcell:n=4,k=1: the checkpoint is chosen and judged as "
            "for that spec")
    assert f"; {said}" in capsys.readouterr().out  # the text's line under the table
    assert cli.main(args + ["--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["rl file spec"] for r in rows] == [said, ""]
    header = rows[0].keys()
    assert list(header).index("rl file spec") == list(header).index("rl trained on configuration") + 1
    assert cli.main(args + ["--format", "json"]) == 0
    info = [r["methods"]["rl"]["info"] for r in json.loads(capsys.readouterr().out)]
    assert info[0]["file_spec"] == {"spec": "dcell:n=4,k=1", "used": True, "why_not": None, "links": None}
    assert "file_spec" not in info[1]
    assert cli.main(["compare", "dcell:n=4,k=1", "--methods", "rl", "--format", "csv"]) == 0
    assert "rl file spec" not in next(csv.reader(io.StringIO(capsys.readouterr().out)))


def test_cli_compare_csv_carries_the_seconds_for_size(capsys):
    """--size reaches the CSV: per method sync and async ms, algbw and busbw, after the existing columns."""
    argv = ["compare", "bcube:n=2,k=1", "fattree:k=2", "--methods", "critical-path,ring", "--format", "csv"]
    tables = {}
    for size in ("1GB", "1MB"):
        assert cli.main(argv + ["--size", size]) == 0
        tables[size] = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    header, *body = tables["1GB"]
    assert header[:11] == ["config", "nodes", "edges", "workloads", "critical-path", "ring", "LB(merged)",
                           "best gap (%)", "paper PS", "paper Ring", "paper RL"]
    assert header[11:] == ["M bytes"] + [f"{m} {x}" for m in ("critical-path", "ring")
                                         for x in ("sync ms", "async ms", "algbw GB/s", "busbw GB/s", "gap BW bound (%)",
                                                   "gap own bound (%)")]  # no latency note at 1 GB
    assert len(body) == 2 and all(len(row) == len(header) for row in body)
    for spec, row in zip(("bcube:n=2,k=1", "fattree:k=2"), body):
        got = dict(zip(header, row))
        assert got["M bytes"] == "1000000000"
        ring = schedule(spec, "ring")
        rep = time_report(ring.dag, ring.rounds, 1e9)
        assert float(got["ring sync ms"]) == pytest.approx(rep["sync"]["time_s"] * 1e3, rel=1e-5)
        assert float(got["ring async ms"]) == pytest.approx(rep["async"]["time_s"] * 1e3, rel=1e-5)
        assert float(got["ring algbw GB/s"]) == pytest.approx(rep["async"]["algbw_Bps"] / 1e9, rel=1e-3)
        assert float(got["ring busbw GB/s"]) == pytest.approx(rep["async"]["busbw_Bps"] / 1e9, rel=1e-3)
        assert float(got["ring gap BW bound (%)"]) == pytest.approx(100 * rep["async"]["gap"]["bandwidth"], rel=1e-5)
        assert float(got["ring gap own bound (%)"]) == pytest.approx(100 * rep["async"]["gap"]["best"], abs=1e-4)
    small = dict(zip(*tables["1MB"][:2]))
    assert small["M bytes"] == "1000000" and float(small["ring async ms"]) < float(body[0][header.index("ring async ms")])


def test_cli_compare_csv_has_every_column_of_the_text_seconds_table(capsys):
    """The text's seconds table (gap BW bound, gap own bound included) is in the CSV, cell for cell."""
    argv = ["compare", "bcube:n=2,k=1", "--methods", "ps,critical-path", "--seeds", "2"]
    assert cli.main(argv + ["--format", "csv"]) == 0
    got = next(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert cli.main(argv) == 0
    text = capsys.readouterr().out.splitlines()
    head = text.index(next(line for line in text if line.startswith("config") and "gap own bound" in line))
    for line in text[head + 1:head + 3]:
        cells = line.split()
        method, bw_gap, own_gap = cells[1], cells[-2], cells[-1]
        assert bw_gap.endswith("%") and own_gap.endswith("%")  # the text keeps its 12.5%
        assert float(got[f"{method} gap BW bound (%)"]) == pytest.approx(float(bw_gap[:-1]), abs=0.05)
        assert float(got[f"{method} gap own bound (%)"]) == pytest.approx(float(own_gap[:-1]), abs=0.05)


def test_the_csv_is_numbers_that_pandas_reads_as_numbers_with_missing_cells_empty():
    """Gaps are percent numbers under a header naming the unit (they were text like 12.5%), a missing value is an
    empty cell (it was - or n/a), and an optimum not proven is a yes/no column (the text's * made the rounds
    text): pandas reads every gap, rounds and paper column as floats, missing as NaN."""
    from dataclasses import replace

    import pandas as pd

    from core.compare import compare_topology, csv_table, csv_text
    from core.topology import make_topology

    methods = ["ps", "critical-path", "optimal"]
    row = compare_topology(make_topology("bcube:n=2,k=1"), methods, seeds=1, size=1000)
    only_ps = replace(row, name="only ps", results={"ps": row.results["ps"]})
    frame = pd.read_csv(io.StringIO(csv_text(*csv_table([row, only_ps], methods, 1000))))
    numeric = ["critical-path", "optimal", "best gap (%)", "paper PS", "paper RL"] + [
        f"{m} {g} (%)" for m in methods for g in ("gap BW bound", "gap own bound")]
    for col in numeric:
        assert pd.api.types.is_numeric_dtype(frame[col]), (col, frame[col].tolist())
    assert frame["paper PS"].isna().all() and pd.isna(frame.loc[1, "best gap (%)"])
    assert pd.isna(frame.loc[1, "critical-path"]) and pd.isna(frame.loc[1, "critical-path gap BW bound (%)"])
    assert frame.loc[0, "best gap (%)"] == pytest.approx(100 * (4 / row.lower_bound - 1))
    t = row.results["ps"].time["async"]
    assert frame.loc[0, "ps gap BW bound (%)"] == pytest.approx(100 * t["gap"]["bandwidth"], rel=1e-5)
    assert frame.loc[0, "ps gap own bound (%)"] == pytest.approx(100 * t["gap"]["best"], rel=1e-5)
    assert list(frame["optimal proven"].fillna("")) == ["yes", ""]
    assert not any(c.endswith("proven optimal") for c in frame.columns)  # read "optimal proven optimal"
    assert "best gap" not in frame.columns and "ps gap BW bound" not in frame.columns


def test_learned_columns_are_empty_where_the_method_could_not_run():
    """A configuration without a learned result (no checkpoint there, torch missing) gets empty cells, not a
    KeyError (the dashboard's Compare page crashed on Table 2 with RL missing on some rows)."""
    from dataclasses import replace

    from core.compare import compare_topology, learned_columns
    from core.topology import make_topology

    row = compare_topology(make_topology("bcube:n=3,k=1"), ["critical-path", "rl"], seeds=1, name="BCube(3,1)")
    without = replace(row, name="no rl", results={"critical-path": row.results["critical-path"]})
    head, cells = learned_columns([row, without], ["critical-path", "rl"])
    assert head == ["rl checkpoint", "rl trained on topology", "rl trained on configuration"]
    assert cells == [["bcube_n3_k1", "yes", "yes"], ["", "", ""]]
    head, cells = time_columns([row, without], ["critical-path", "rl"], 1e8)
    assert len(head) == 13 and cells[1][7:] == [""] * 6 and all(cells[0]) and all(cells[1][:7])


def test_cli_compare_json_and_csv_carry_the_mid_run_event(capsys):
    """--fail-at's table (event, failure-free and re-planned finish, lost, re-sent, re-routed) is in JSON and CSV too,
    with the text's numbers; without an event the CSV has no such columns and JSON's replan is null."""
    args = ["compare", "bcube:n=3,k=1", "--methods", "ring,critical-path", "--seeds", "1", "--fail-at", "1ms:0"]
    assert cli.main(args + ["--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    x = row["methods"]["ring"]["replan"]
    assert x["at_s"] == pytest.approx(1e-3) and x["lost_s"] == pytest.approx(x["finish_s"] - x["failure_free_s"])
    assert cli.main(args + ["--format", "csv"]) == 0
    header, cells = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    got = dict(zip(header, cells))
    assert float(got["ring lost ms"]) == pytest.approx(x["lost_s"] * 1e3, rel=1e-5)
    assert float(got["critical-path event ms"]) == pytest.approx(1.0) and "ring re-routed" in got
    assert cli.main(args[:-2] + ["--format", "csv"]) == 0
    assert not any("lost" in h for h in next(csv.reader(io.StringIO(capsys.readouterr().out))))
    assert cli.main(args[:-2] + ["--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["methods"]["ring"]["replan"] is None


def test_cli_compare_json_writes_counts_as_integers_and_floats_as_the_csv_rounds(capsys):
    """Means over seeds of whole numbers were written 9.0 (ranks), 0.0 (failed links, re-sent workloads),
    100000000.0 (the size); a deterministic method's rounds 16.0. Counts are integers now, a seeded method's mean
    rounds a float (the CSV's 22.0), and every float has at most the CSV's 6 significant digits."""
    args = ["compare", "bcube:n=3,k=1", "--methods", "ps,ring", "--seeds", "2", "--fail-at", "round=3:1"]
    assert cli.main(args + ["--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    ps, ring = row["methods"]["ps"], row["methods"]["ring"]
    assert isinstance(ps["rounds"], float) and isinstance(ring["rounds"], int) and ring["rounds"] == 16
    for res in (ps, ring):
        t, r = res["time"], res["replan"]
        assert [type(x) for x in (t["size_bytes"], t["ranks"], t["links"]["failed"], r["workloads"], r["resent"],
                                  r["rest_rounds"], r["rerouted"], r["size_bytes"])] == [int] * 8, (t, r)
        assert t["ranks"] == 9 and t["size_bytes"] == 10 ** 8

    def floats(x):
        if isinstance(x, dict):
            return [f for v in x.values() for f in floats(v)]
        if isinstance(x, list):
            return [f for v in x for f in floats(v)]
        return [x] if isinstance(x, float) else []
    got = floats(row)
    # 6 significant digits, or to the nearest whole past 6 integer digits (algbw in bytes/s), as the CSV writes them
    assert got and all(float(csv_number(x)) == x for x in got), [x for x in got if float(csv_number(x)) != x]
    assert any(x >= 1e6 and x != float(f"{x:.6g}") for x in got)  # such a number keeps its integer digits


def test_cli_compare_names_the_unmerged_bound_with_no_merge(capsys):
    """With --no-merge the bound is the unmerged tree DAG's (32 workloads on BCube(2,1), not 24): the column,
    the footnote, the CSV header and the JSON say so (the column read LB(merged))."""
    assert cli.main(["compare", "bcube:n=2,k=1", "--methods", "critical-path", "--no-merge"]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0].split()
    assert "LB(unmerged)" in header and "LB(merged)" not in header
    assert "LB(unmerged) is the lower bound of the unmerged (--no-merge) workload DAG" in out
    assert cli.main(["compare", "bcube:n=2,k=1", "--methods", "critical-path", "--no-merge", "--format", "csv"]) == 0
    assert "LB(unmerged)" in next(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert cli.main(["compare", "bcube:n=2,k=1", "--methods", "critical-path", "--no-merge", "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["merge"] is False and row["workloads"] == 32
    assert cli.main(["compare", "bcube:n=2,k=1", "--methods", "critical-path", "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["merge"] is True and row["workloads"] == 24


def test_a_latency_dominated_time_is_said_in_compare_and_schedule(capsys):
    """At 1 KB a gap of ~50,000% to the bandwidth bound had no hint: the DAG's latency bound (8 µs on BCube(3,1),
    every path 2 hops of 1 µs along the longest chain) exceeds the bandwidth bound (2(n-1)/n · M / B = 71.1 ns),
    and compare's and schedule's text say the time is latency-dominated, naming both; at 100 MB they do not."""
    from core.seconds import latency_dominated

    argv = ["compare", "bcube:n=3,k=1", "--methods", "ps,critical-path", "--seeds", "1"]
    assert cli.main(argv + ["--size", "1KB"]) == 0
    out = capsys.readouterr().out
    (line,) = [x for x in out.splitlines() if "latency-dominated" in x]
    assert line.startswith("bcube:n=3,k=1 ps, critical-path: latency-dominated: latency bound ")
    assert line.endswith("> bandwidth bound 71.1 ns: at this size per-hop latency, not bytes, sets the time (the "
                         "bandwidth bound leaves latency out, so the gap to it is large)")  # compare prints that gap
    assert cli.main(argv) == 0
    assert "latency-dominated" not in capsys.readouterr().out
    assert cli.main(["schedule", "bcube:n=3,k=1", "--size", "1KB"]) == 0
    lines = capsys.readouterr().out.splitlines()
    i = next(i for i, x in enumerate(lines) if "latency-dominated" in x)
    # schedule prints the gap to the bandwidth bound beside the best bound's since trial 14: the note explains it;
    # a clause a line (in one it ran to ~195 characters at 1 B)
    assert lines[i:i + 3] == ["    latency-dominated: latency bound 8.00 µs > bandwidth bound 71.1 ns:",
                              "      at this size per-hop latency, not bytes, sets the time",
                              "      (the bandwidth bound leaves latency out, so the gap to it is large)"]
    s = schedule("bcube:n=3,k=1", "critical-path")
    assert latency_dominated(time_report(s.dag, s.rounds, 1e3)) and not latency_dominated(time_report(s.dag, s.rounds, 1e8))


def test_compare_csv_and_json_carry_the_latency_note(capsys):
    """The text's latency note reached neither the CSV nor the JSON: a spreadsheet could not tell why a gap to the
    bandwidth bound is 50,000%. The CSV's ``latency note`` column and the JSON's ``latency_note`` hold the text's
    line without the configuration's name, empty (null) where no time is latency-dominated; the CSV has the column only
    when some row has a note."""
    argv = ["compare", "bcube:n=3,k=1", "fattree:k=2", "--methods", "ring,critical-path", "--seeds", "1", "--size"]
    assert cli.main(argv + ["1KB"]) == 0
    lines = [x for x in capsys.readouterr().out.splitlines() if "latency-dominated" in x]
    assert [x.split(" ", 1)[0] for x in lines] == ["bcube:n=3,k=1", "fattree:k=2"]
    assert cli.main(argv + ["1KB", "--format", "csv"]) == 0
    got = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [f"{g['config']} {g['latency note']}" for g in got] == lines
    assert got[0]["latency note"].startswith("ring, critical-path: latency-dominated: latency bound 8.00 µs "
                                             "(critical-path) to 32.0 µs (ring) > ")
    assert cli.main(argv + ["1KB", "--format", "json"]) == 0
    assert [f"{d['name']} {d['latency_note']}" for d in json.loads(capsys.readouterr().out)] == lines
    assert cli.main(argv + ["100MB", "--format", "csv"]) == 0  # no row latency-dominated: no column
    assert "latency note" not in next(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert cli.main(argv + ["100MB", "--format", "json"]) == 0
    assert [d["latency_note"] for d in json.loads(capsys.readouterr().out)] == [None, None]


def test_compare_latency_note_says_whose_bound_is_which(capsys):
    """Ring's DAG has a longer chain than critical-path's merged trees (32 µs vs 8 µs latency bound at 1 KB on
    BCube(3,1)): the note names each value's methods instead of an ownerless range ``8 µs-32 µs``."""
    from core.seconds import latency_note

    argv = ["compare", "bcube:n=3,k=1", "--methods", "ring,critical-path", "--seeds", "1", "--size", "1KB"]
    assert cli.main(argv) == 0
    (line,) = [x for x in capsys.readouterr().out.splitlines() if "latency-dominated" in x]
    assert "latency bound 8.00 µs (critical-path) to 32.0 µs (ring) > bandwidth bound 71.1 ns:" in line
    rep = lambda lat: {"bounds": {"latency": lat, "bandwidth": 1e-7}}  # noqa: E731
    assert latency_note([rep(8e-6), rep(3.2e-5), rep(8e-6), rep(2.4e-5)], ["greedy", "ring", "optimal", "ps"]) \
        .startswith("latency-dominated: latency bound 8.00 µs (greedy, optimal), 24.0 µs (ps) to 32.0 µs (ring) > bandwidth "
                    "bound 100 ns:")
    assert latency_note([rep(8e-6), rep(8e-6)], ["a", "b"]).startswith("latency-dominated: latency bound 8.00 µs > ")


def test_a_method_on_other_routes_is_left_out_of_the_gap_to_the_tables_bound():
    """time-aware picks its routes: on BCube(4,1) balanced routes give 18 rounds against the shortest routes' bound
    24, and the best gap read -25 % (trial 10). It is left out of the gap, with a note giving its own DAG's bound."""
    from core.compare import routing_notes
    (row,) = compare(configurations(None, ["bcube:4,1"]), ["critical-path", "time-aware"], seeds=1)
    ta = row.results["time-aware"]
    assert ta.other_dag == "balanced" and ta.rounds == 18 == ta.own_bound and row.lower_bound == 24
    assert row.gap("time-aware") is None and row.best_merged() is row.results["critical-path"]
    assert row.results["critical-path"].other_dag is None and row.gap("critical-path") == 0.0
    assert rows_to_table([row], ["critical-path", "time-aware"])[1][0][6:8] == ["24", "0.0%"]
    (note,) = routing_notes([row], ["critical-path", "time-aware"])
    assert "time-aware chose balanced routes" in note and "bound: 18" in note


def test_a_method_that_ran_a_ring_is_left_out_of_the_gap_to_the_tree_dags_bound():
    """time-aware also tries a ring: on Table 2's Jellyfish(15) its ring takes 28 rounds against the flow-tree DAG's
    bound 29, and the best gap read -3.4 % (a helper's 8-method screenshot). A ring's rounds are not bounded by the
    tree DAG's bound: the method is left out of the gap, with a note naming the ring and its own DAG's bound."""
    from core.compare import routing_notes
    (row,) = compare(configurations(None, ["jellyfish:switches=15,ports=5,switch_ports=4,seed=1"]),
                     ["critical-path", "time-aware"], seeds=1)
    ta = row.results["time-aware"]
    assert "ring_adjacent" in ta.info and ta.other_dag == "ring" and ta.rounds < row.lower_bound  # else: nothing shown
    assert row.gap("time-aware") is None and row.best_merged() is row.results["critical-path"]
    assert row.gap("critical-path") > 0
    (note,) = routing_notes([row], ["critical-path", "time-aware"])
    assert "time-aware chose a ring;" in note and f"bound: {ta.own_bound})" in note
    assert row.as_dict()["methods"]["time-aware"]["other_dag"] == "ring"
    assert row.as_dict()["methods"]["critical-path"]["other_dag"] is None
    header, body = csv_table([row], ["critical-path", "time-aware"], 1e8)
    assert body[0][header.index("left out of best gap")] == f"time-aware: a ring (own DAG's bound {ta.own_bound})"
    header, _ = csv_table([row], ["critical-path"], 1e8)
    assert "left out of best gap" not in header  # no such method in the run: no column


def test_compare_notes_say_when_a_checkpoint_kept_its_starting_weights(monkeypatch):
    """As `schedule` says under its checkpoint line (commit 7556627), compare's notes (and through them the dashboard's)
    say when the checkpoint's training kept iteration 0; the info that says so survives into the table's row."""
    from dataclasses import replace

    from core.compare import compare_topology, learned_notes
    from core.methods import METHODS
    from core.schedule import Plan
    from core.schedulers.learned import KEPT_START
    from core.schedulers.listsched import random_order
    from core.topology import make_topology

    kept = {"checkpoint": "dcell_n5_k1", "trained_on": ["bcube:n=2,k=1"], "trained_on_this_topology": True,
            "kept_start": True}
    monkeypatch.setitem(METHODS, "rl", replace(METHODS["rl"], unavailable=None,
                                               schedule=lambda dag, config, progress=None:
                                               Plan(random_order(dag, config), info=dict(kept))))
    row = compare_topology(make_topology("bcube:n=2,k=1"), ["rl"], seeds=1, name="BCube(2,1)")
    assert row.results["rl"].info["kept_start"] is True
    assert learned_notes([row], ["rl"]) == [f"BCube(2,1): rl: checkpoint dcell_n5_k1 (trained on this topology: yes); "
                                            f"{KEPT_START}"]


def test_one_time_unit_per_table_by_one_rule():
    """core.units.time_unit: µs when every time is under 1 ms, s when every one is 1 s or more, else ms; the rule
    `format_seconds` applies to one value (`schedule`'s times), signs ignored."""
    from core.units import format_seconds, time_unit
    assert time_unit([4.3e-5, 3.2e-5, 0.0]) == ("µs", 1e6)
    assert time_unit([1.2, 3.0]) == ("s", 1.0)
    assert time_unit([5e-4, 2.0]) == time_unit([1e-3]) == time_unit([]) == ("ms", 1e3)
    assert time_unit([-5e-6, float("nan")]) == ("µs", 1e6)
    assert [format_seconds(x) for x in (4.56e-6, 0.0123, 1.2, -0.5)] == ["4.56 µs", "12.3 ms", "1.20 s", "-500 ms"]


def test_cli_compare_text_picks_the_unit_of_its_seconds_table(capsys):
    """At 1 KB every time is a few µs: the text table said 0.043 ms; it says µs (and s at 10 GB); the CSV keeps ms."""
    argv = ["compare", "bcube:n=3,k=1", "--methods", "ring,critical-path"]
    for size, unit, per_second in (("1KB", "µs", 1e6), ("100MB", "ms", 1e3), ("10GB", "s", 1.0)):
        assert cli.main(argv + ["--size", size]) == 0
        lines = capsys.readouterr().out.splitlines()
        head = next(line for line in lines if line.startswith("config") and "algbw" in line)
        assert f"sync {unit}  async {unit}" in head, head
        ring = next(line.split() for line in lines[lines.index(head):] if line.split()[1:2] == ["ring"])
        assert cli.main(argv + ["--size", size, "--format", "json"]) == 0
        seconds = json.loads(capsys.readouterr().out)[0]["methods"]["ring"]["time"]["async"]["time_s"]
        assert float(ring[4]) == pytest.approx(seconds * per_second, abs=1e-3)
    assert cli.main(argv + ["--size", "1KB", "--format", "csv"]) == 0
    assert "ring async ms" in capsys.readouterr().out.splitlines()[0]
    assert cli.main(argv + ["--size", "1KB", "--fail-at", "1us:3"]) == 0  # the event table: its own unit, same rule
    out = capsys.readouterr().out
    assert "event µs  failure-free µs  finish µs  lost µs" in out and "re-plan s" in out, out


def test_the_seconds_table_gives_each_number_beside_the_text_the_cli_prints():
    """core.compare.time_cells: the CLI's text (what time_table returns and compare prints) and, beside each cell, the
    number it shows, so the dashboard sorts by numbers without reading the text back (its cli_cells parsed it)."""
    from core.compare import time_cells, time_table
    from core.schedule import ScheduleConfig

    methods = ["ring", "critical-path", "greedy"]
    rows = compare(configurations(None, ["bcube:3,1"]), methods, 2, ScheduleConfig(), size=1)
    header, text, numbers = time_cells(rows, methods)
    assert (header, text) == time_table(rows, methods)
    assert text[0][:3] == ["bcube:n=3,k=1", "ring", "16"] and text[0][-2] == "450,000x"  # 450,000x the BW bound
    assert [line[:2] for line in numbers] == [line[:2] for line in text]  # config and method: text in both
    for shown, line in zip(text, numbers):
        assert all(isinstance(x, float) for x in line[2:])
        # the number the text shows: a ratio's in percent too (the column sorts by one unit)
        assert line[2:] == [round(100 * (float(t[:-1].replace(",", "")) - 1), 1) if t.endswith("x")
                            else float(t.rstrip("%").replace(",", "")) for t in shown[2:]]
    assert numbers[0][-2] == 44999900.0 and numbers[2][2] == 18.0  # greedy's mean rounds, "18.0"


def test_a_printed_number_reads_back_as_the_number_given_beside_it():
    """`_shown`'s number (round) is the one its text (format) shows, for values around every rounding boundary."""
    from core.compare import _shown

    rng = np.random.default_rng(0)
    values = np.concatenate([rng.uniform(0, 1e8, 2000), rng.uniform(0, 2, 2000), np.arange(0, 10, 0.0005) + 0.00025])
    for decimals in (0, 1, 2, 3):
        for v in values.tolist():
            text, number = _shown(v, decimals, ",")
            assert float(text.replace(",", "")) == number, (v, decimals, text, number)


def test_a_changed_network_is_in_the_rows_name(capsys):
    """fix23a: compare --fail-links/--slow-links named the row by its spec alone, so two networks gave rows (and
    JSON/CSV files) of one name; the name says the change as the dashboard's download names do (`run_tag`), and the
    JSON records it under ``network`` as a schedule file does."""
    from core.compare import network_tag

    def run(*options: str) -> dict:
        assert cli.main(["compare", "bcube:n=2,k=1", "--methods", "greedy", "--seeds", "1", "--format", "json",
                         *options]) == 0
        return json.loads(capsys.readouterr().out)[0]

    plain, one, other = run(), run("--fail-links", "1"), run("--fail-links", "2")
    assert plain["name"] == "bcube:n=2,k=1" and "network" not in plain
    # fix29a: each link by the name the user types (link_name), not its id ("slowed 8 x0.1"); the record keeps ids
    assert one["name"] == "bcube:n=2,k=1 (failed s01-sw0.0)" and one["network"] == {"failed": [1], "slowed": []}
    assert other["name"] == "bcube:n=2,k=1 (failed s10-sw0.1)" and one["spec"] == other["spec"] == "bcube:n=2,k=1"
    slow = run("--slow-links", "2:x0.25,5:25")
    assert slow["name"] == "bcube:n=2,k=1 (slowed s10-sw0.1,s01-sw1.1 x0.25 to 25 Gbit/s)"  # trial 31: the speed too
    assert slow["network"] == {"failed": [], "slowed": [[2, 100.0, 25.0], [5, 100.0, 25.0]]}
    assert network_tag({"failed": list(range(8)), "slowed": [[3, 100.0, 25.0], [7, 100.0, 50.0]]}) == \
        " (failed 0,1,2,3,4,5 ... and 2 more; slowed 3 x0.25 to 25 Gbit/s, 7 x0.5 to 50 Gbit/s)"  # few's cut (fix32b)
    assert network_tag({"failed": [], "slowed": [[2, 100.0, 25.0], [5, 100.0, 50.0]]}, make_topology("bcube:n=2,k=1")) \
        == " (slowed s10-sw0.1 x0.25 to 25 Gbit/s, s01-sw1.1 x0.5 to 50 Gbit/s)"
    # one factor over links of other speeds: no one speed to say (a file's links at 10 and 100 Gbit/s)
    assert network_tag({"failed": [], "slowed": [[2, 100.0, 25.0], [5, 10.0, 2.5]]}) == " (slowed 2,5 x0.25)"
    assert cli.main(["compare", "bcube:n=2,k=1", "--methods", "greedy", "--seeds", "1", "--format", "csv",
                     "--fail-links", "1"]) == 0
    assert next(csv.DictReader(io.StringIO(capsys.readouterr().out)))["config"] == "bcube:n=2,k=1 (failed s01-sw0.0)"


def test_cli_compare_lists_the_optima_not_proven_once_with_where_each_lies(capsys):
    """Trial 21: the text marked an optimum not proven with * and a legend, but said neither where nor between what it
    lies (the dashboard's warning did, once per cell). One line now names the configurations and each optimum's range;
    the CSV's ``optimal proven`` and the JSON's ``info.proven_optimal`` say it per row. CP-SAT's limit is deterministic
    work, so DCell(4,1) at 1 s is not proven on any machine."""
    args = ["compare", "dcell:n=4,k=1", "bcube:n=2,k=1", "--methods", "critical-path,optimal", "--time-limit", "1"]
    assert cli.main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[5] == "26*" and lines[2].split()[5] == "4"  # marked in its cell; a proven one not
    assert lines[3].endswith("; * = not proven optimal")
    assert lines[4] == ("* optimal: NOT proven optimal on 1 of 2 configurations. The optimum of the merged-tree "
                        "schedules (the DAG the lower bound is for): not known on dcell:n=4,k=1 (optimum 24 to 26), "
                        "where it lies between CP-SAT's proven bound and the shortest schedule of any method here. "
                        "CP-SAT stopped at its 1 s time limit (--time-limit): on dcell:n=4,k=1 it found no schedule of "
                        "its own within the limit, so the result is its starting schedule, critical-path's (status "
                        "UNKNOWN)")
    assert lines[1].split()[4] == "26"  # critical-path's: UNKNOWN's result is its schedule, as the line says
    assert cli.main(args + ["--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["optimal proven"] for r in rows] == ["no", "yes"] and rows[0]["optimal"] == "26"
    # trial 23: whose the 26 is (UNKNOWN: CP-SAT's starting schedule, critical-path's) in a column, not only in words
    assert [r["optimal status"] for r in rows] == ["UNKNOWN", "BOUND_MET_BY_WARM_START"]
    assert cli.main(args + ["--format", "json"]) == 0
    info = [r["methods"]["optimal"]["info"] for r in json.loads(capsys.readouterr().out)]
    assert [(i["proven_optimal"], i["proven_bound"]) for i in info] == [(False, 24), (True, 4)]


def test_unproven_ranges_say_an_optimum_known_from_another_methods_schedule_once():
    """Trial 21: optimal's 50 on BCube(5,1) was not proven while RL's 40 meets the bound 40, so the optimum is 40,
    not "between 40 and 50"; said once per method for every such configuration, the open ones with their range."""
    from core.compare import MethodResult, Row, unproven, unproven_ranges

    rows = []
    for name, bound, rl, opt in [("BCube(5,1)", 40, 40, 50), ("Jellyfish(20)", 41, 42, 50), ("DCell(4,1)", 24, 24, 26)]:
        results = {"rl": MethodResult("rl", rl, [rl], bound, 0.0),
                   "optimal": MethodResult("optimal", opt, [opt], bound, 0.0,
                                           {"proven_optimal": False, "proven_bound": bound})}
        rows.append(Row(name, name, 1, 1, 1, 1, bound, {}, results, None))
    found = unproven(rows, ["rl", "optimal"])
    assert list(found) == ["optimal"] and len(found["optimal"]) == 3
    # trial 23: each group after its reason ("A (..); B (..), C (..): reason" read as said of A too)
    assert unproven_ranges(found["optimal"], {"rl": "Hierarchical RL"}.get) == (
        "Hierarchical RL's schedule meets the bound on BCube(5,1) (optimum 40), DCell(4,1) (optimum 24); not known on "
        "Jellyfish(20) (optimum 41 to 42), where it lies between CP-SAT's proven bound and the shortest schedule of "
        "any method here")


def test_the_optimum_is_named_as_the_tree_dags_and_the_methods_of_other_dags_are_said():
    """Trial 23: Ring's 38 rounds sat under "optimum 41 to 42" on Jellyfish(20): the optimum is CP-SAT's over the
    merged-tree DAG, which Ring (a ring) and PS (plain trees) do not schedule. The optimum is named as the tree DAG's
    schedules', and the methods that ran on another DAG there are said to possibly take fewer rounds."""
    from core.compare import MethodResult, Row, optimum_scope, unproven

    def row(merge: bool) -> Row:
        results = {"ring": MethodResult("ring", 38, [38], 30, 0.0),
                   "critical-path": MethodResult("critical-path", 42, [42], 41, 0.0),
                   "optimal": MethodResult("optimal", 42, [42], 41, 0.0, {"proven_optimal": False, "proven_bound": 41})}
        return Row("Jellyfish(20)", "j", 1, 1, 1, 1, 41, {}, results, None, merge=merge)

    found = unproven([row(True)], ["ring", "critical-path", "optimal"])["optimal"]
    assert optimum_scope(found, ["ring", "critical-path", "optimal"]) == (
        "the optimum of the merged-tree schedules (the DAG the lower bound is for; ring schedules other DAGs and may "
        "take fewer rounds)")
    assert optimum_scope(found, ["critical-path", "optimal"]) == \
        "the optimum of the merged-tree schedules (the DAG the lower bound is for)"  # no other DAG: nothing to say
    plain = unproven([row(False)], ["optimal"])["optimal"]
    assert optimum_scope(plain, ["optimal"]).startswith("the optimum of the plain-tree schedules")


def test_unproven_statuses_say_per_configuration_what_cp_sat_had_in_words_once():
    """Trial 25: Compare's warning listed CP-SAT's statuses "(UNKNOWN, FEASIBLE; ...)" without saying which
    configuration had which, or that UNKNOWN means no schedule of CP-SAT's own within the limit (its result is its
    starting schedule, critical-path's). Each configuration is named once, under its status in words; one status on
    every configuration is said once for all; the CLI's line says the same."""
    from core.compare import MethodResult, Row, unproven, unproven_lines, unproven_statuses

    def rows(statuses: dict[str, str]) -> list[Row]:
        out = []
        for name, status in statuses.items():
            results = {"optimal": MethodResult("optimal", 26, [26], 24, 0.0,
                                               {"status": status, "proven_optimal": False, "proven_bound": 24})}
            out.append(Row(name, name, 1, 1, 1, 1, 24, {}, results, None))
        return out

    mixed = rows({"BCube(5,1)": "UNKNOWN", "Jellyfish(10)": "FEASIBLE", "DCell(4,1)": "UNKNOWN"})
    said = unproven_statuses(unproven(mixed, ["optimal"])["optimal"])
    assert said == ("on BCube(5,1), DCell(4,1) it found no schedule of its own within the limit, so the result is its "
                    "starting schedule, critical-path's (status UNKNOWN); on Jellyfish(10) it found a schedule but did "
                    "not prove it the shortest (status FEASIBLE)")
    for name in ("BCube(5,1)", "Jellyfish(10)", "DCell(4,1)"):
        assert said.count(name) == 1
    (line,) = unproven_lines(mixed, ["optimal"], 2)
    assert line.endswith(f"CP-SAT stopped at its 2 s time limit (--time-limit): {said}")
    same = rows({"BCube(5,1)": "UNKNOWN", "DCell(4,1)": "UNKNOWN"})
    assert unproven_statuses(unproven(same, ["optimal"])["optimal"]) == (
        "on all 2 it found no schedule of its own within the limit, so the result is its starting schedule, "
        "critical-path's (status UNKNOWN)")


def test_the_seconds_table_marks_an_optimum_not_proven_as_the_rounds_table_does():
    """Trial 22: the rounds table read 26* for CP-SAT's DCell(4,1), the seconds table's rounds cell 26. The mark is the
    text's only (`NOT_PROVEN`); the number beside it is the rounds."""
    from core.compare import NOT_PROVEN, time_cells
    from core.schedule import ScheduleConfig

    rows = compare(configurations(None, ["bcube:3,1"]), ["critical-path"], 1, ScheduleConfig(), size=1)
    res = rows[0].results["critical-path"]
    _, text, numbers = time_cells(rows, ["critical-path"])
    assert text[0][2] == f"{res.rounds:.0f}" and numbers[0][2] == float(res.rounds)
    res.info["proven_optimal"] = False  # as CP-SAT stopped at its time limit says it
    _, text, numbers = time_cells(rows, ["critical-path"])
    assert text[0][2] == f"{res.rounds:.0f}{NOT_PROVEN}" and numbers[0][2] == float(res.rounds)


def test_schedule_status_line_says_what_an_unproven_status_means():
    """Trial 22 left `schedule`'s own line bare ("status: UNKNOWN"): an unproven status now says in words what CP-SAT
    had when it stopped, as Compare's warning does; a proven or unneeded search keeps its own words or none."""
    from core.schedulers.status import BOUND_MET, status_text
    assert status_text({"status": "UNKNOWN"}) == ("UNKNOWN (CP-SAT found no schedule of its own within the limit, so "
                                                  "the result is its starting schedule, critical-path's)")
    assert status_text({"status": "FEASIBLE"}) == "FEASIBLE (CP-SAT found a schedule but did not prove it the shortest)"
    assert status_text({"status": "OPTIMAL"}) == "OPTIMAL"
    assert status_text({"status": BOUND_MET}).startswith(f"{BOUND_MET} (")


def test_a_ring_under_the_merged_bound_is_said_to_schedule_another_dag(capsys):
    """Trial 28: on the two-ToR file ring took 14 rounds beside "LB(merged) 18", and on Jellyfish(15) 28 beside 29,
    read as a bound broken. A method of another DAG (ring, ps) under the table's bound gets a line saying whose
    bound it is and its own DAG's; a method at or over it gets none."""
    from core.compare import under_bound_notes
    from pathlib import Path
    two_tor = Path(__file__).resolve().parents[2] / "docs" / "examples" / "two-tor.json"
    assert cli.main(["compare", f"file:{two_tor}", "--methods", "ring,critical-path"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert (f"file:{two_tor}: ring took 14 rounds, under the lower bound 18: that bound is the merged "
            "tree DAG's, and ring schedules a ring (its own DAG's bound: 14)") in out
    rows = compare([c for c in configurations("table2") if c[0] == "BCube(3,1)"], ["ps", "ring"], seeds=1)
    assert all(r.results[m].rounds >= r.lower_bound for r in rows for m in ("ps", "ring"))
    assert under_bound_notes(rows, ["ps", "ring"]) == []


def test_cut_lists_have_one_form():
    """fix32b: a compare row's name cut its links as ``a,b and 3 more`` while every message (`degrade.few`) wrote
    ``a, b ... and 3 more``: one cut now, the row's links keeping no space after their commas (as --fail-links takes
    them), also in a list of slowed links cut at `most`."""
    from core.compare import network_tag
    from core.topology.degrade import few
    assert few(list("abcdef"), 2) == "a, b ... and 4 more" and few(list("abcdef"), 2, ",") == "a,b ... and 4 more"
    assert few(list("ab"), 2, ",") == "a,b"
    assert network_tag({"failed": list(range(5)), "slowed": []}, most=2) == " (failed 0,1 ... and 3 more)"
    slowed = [[e, 100.0, 10.0 * (e + 1)] for e in range(4)]
    assert network_tag({"failed": [], "slowed": slowed}, most=2) == \
        " (slowed 0 x0.1 to 10 Gbit/s, 1 x0.2 to 20 Gbit/s ... and 2 more)"
