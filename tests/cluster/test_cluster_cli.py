"""The cluster command: text, JSON and CSV output, per-job CSV, and one-line errors with exit 2."""

from __future__ import annotations

import csv
import io
import json

import pytest

from core.cli import main
from core.cli.common import notes_joined  # notes are wrapped at 100 characters (fix32b)

ARGS = ["cluster", "--topology", "bcube:n=4,k=1", "--trace", "synthetic:jobs=20,seed=2,rate=10",
        "--scheduler", "fifo+first-fit,gadget"]


def test_text_table(capsys):
    assert main(ARGS) == 0
    out = capsys.readouterr().out
    assert "bcube:n=4,k=1 x4 GPUs (64 GPUs), trace synthetic:jobs=20,seed=2,rate=10 (20 jobs)" in out
    assert "fifo+first-fit" in out and "gadget" in out and "avg JCT h" in out
    assert "first scheduler to need one pays for it" in out  # why the first row's sim s is the largest
    # trial 29: LAS read "queue 0.00" beside 214 preemptions
    assert "queue = first start - arrival (a preempted job's later waits count in JCT only)" in out


def test_json_and_csv_agree(capsys, tmp_path):
    assert main(ARGS + ["--format", "json", "--jobs-out", str(tmp_path / "jobs.csv")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["jobs"] == 20 and data["gpus"] == 64
    assert [r["scheduler"] for r in data["results"]] == ["fifo+first-fit", "gadget"]
    assert main(ARGS + ["--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert all(len(v) <= 15 for r in rows for k, v in r.items() if k != "scheduler")  # 8 significant digits, no float noise
    for r, j in zip(rows, data["results"]):
        assert float(r["avg_jct_h"]) == pytest.approx(j["avg_jct_h"])
        assert float(r["makespan_h"]) == pytest.approx(j["makespan_h"])
    jobs = list(csv.DictReader((tmp_path / "jobs.csv").open()))
    assert len(jobs) == 40 and {r["scheduler"] for r in jobs} == {"fifo+first-fit", "gadget"}
    mean = sum(float(r["jct_h"]) for r in jobs if r["scheduler"] == "gadget") / 20
    assert mean == pytest.approx(data["results"][1]["avg_jct_h"])


@pytest.mark.parametrize("extra, says", [
    (["--scheduler", "sjf+nearest"], "unknown scheduler 'sjf+nearest'"),
    (["--trace", "synthetic:jobs=-3"], "jobs must be an integer >= 1"),
    (["--gpus-per-server", "0"], "gpus per server must be an integer in 1..64"),
    (["--topology", "bcube:n=2,k=1", "--trace", "synthetic:jobs=160,seed=0,max_gpus=32"], "needs 32 GPUs, but the cluster"),
    (["--checkpoint", "/no/such", "--scheduler", "topdrl"], "need both such.json and such.safetensors"),
    (["--checkpoint", "universal", "--scheduler", "topdrl"],
     "format must be 'allreduce-lab-topdrl/1', got 'allreduce-lab-rl/1'; it is a round-model RL checkpoint"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, extra, says):
    assert main(ARGS + extra) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and err.startswith("allreduce-lab: error:") and "\n" not in err


@pytest.mark.parametrize("rows, says", [
    ("0,1,resnet50,10\n5,2,mystery,10", "row 2: unknown model 'mystery'"),
    ("0,4,resnet50,1000,extra", "row 1: 5 fields, but the header names 4"),
    ("9,4,resnet50,1000\n5,4,resnet50,1000", "row 2 (job j1): arrival_s 5 is earlier than row 1's 9"),
    ("0,4,resnet50,1e30", "exceeds the limit of 315,360,000 s (10 years) per job"),
])
def test_bad_trace_file_rows(capsys, tmp_path, rows, says):
    p = tmp_path / "t.csv"
    p.write_text("arrival_s,gpus,model,iterations\n" + rows + "\n")
    assert main(ARGS[:-2] + ["--trace", str(p), "--scheduler", "fifo+closest"]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and str(p) in err and "\n" not in err


@pytest.mark.parametrize("trace", ["nofile.csv", "csv:nofile.csv", "philly:nofile.json", "helios:nofile.csv"])
def test_a_missing_trace_file_reads_as_a_missing_topology_file(capsys, tmp_path, monkeypatch, trace):
    """Trial 20: a missing trace said "trace file not found: nofile.json", a missing topology "file:PATH: no such
    file"; every missing input file is named as typed and then said the same way."""
    monkeypatch.chdir(tmp_path)
    assert main(["topology", "file:nofile.json"]) == 2
    topology = capsys.readouterr().err.strip()
    assert topology == "allreduce-lab: error: file:nofile.json: no such file"
    given = trace + (",limit=3" if ":" in trace else "")  # a bare .csv path takes no options
    assert main(ARGS[:-2] + ["--trace", given, "--scheduler", "fifo+closest"]) == 2
    assert capsys.readouterr().err.strip() == f"allreduce-lab: error: {trace}: no such file"
    (tmp_path / "folder.csv").mkdir()
    assert main(ARGS[:-2] + ["--trace", "csv:folder.csv", "--scheduler", "fifo+closest"]) == 2
    assert capsys.readouterr().err.strip() == "allreduce-lab: error: csv:folder.csv: a folder, not a trace file"


def test_a_philly_run_names_its_options_and_the_records_it_left_out(capsys, tmp_path):
    """Trial 20: the header said "trace philly.json (2 jobs)" from 3 records, naming neither the model every job was
    given nor the record left out: the header names the options, a note the records skipped."""
    from test_cluster_traces import PHILLY

    from core.cluster.traces import RUN_TIMES
    p = tmp_path / "philly.json"
    p.write_text(json.dumps(PHILLY))
    assert main(ARGS[:-2] + ["--trace", f"philly:{p},model=resnet50", "--scheduler", "fifo+closest"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0].endswith(f"trace {p} (model=resnet50; 2 jobs; {RUN_TIMES})")
    assert notes_joined(err) == [f"note: {p}: 1 of 3 records skipped: no attempt with start and end time"]


def test_json_and_csv_say_what_the_text_says_of_the_trace(capsys, tmp_path):
    """fix23a: the text's header said the run times were read as compute only and a note counted the records
    skipped, but --format json and csv said neither: JSON has them as fields, CSV as columns after the metrics."""
    from test_cluster_traces import PHILLY

    from core.cluster.traces import RUN_TIMES
    p = tmp_path / "philly.json"
    p.write_text(json.dumps(PHILLY))
    args = ARGS[:-2] + ["--trace", f"philly:{p},model=resnet50", "--scheduler", "fifo+closest,gadget", "--format"]
    note = f"{p}: 1 of 3 records skipped: no attempt with start and end time"
    assert main(args + ["json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["trace_title"] == f"{p} (model=resnet50; 2 jobs; {RUN_TIMES})"
    assert doc["run_times_as_compute"] is True and doc["records"] == 3 and doc["records_skipped"] == 1
    assert doc["skipped_reasons"] == {"no attempt with start and end time": 1} and doc["skipped_note"] == note
    assert main(args + ["csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["scheduler"] for r in rows] == ["fifo+closest", "gadget"]
    for r in rows:
        assert (r["run_times_as_compute"], r["records"], r["records_skipped"], r["skipped_reasons"]) == \
            ("yes", "3", "1", "no attempt with start and end time (1)")
    # a synthetic trace: no file run times read (its draws are ideal durations by design), no records
    assert main(ARGS + ["--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["run_times_as_compute"], doc["records"], doc["records_skipped"], doc["skipped_note"]) == \
        (False, 0, 0, None)
    assert doc["trace_title"] == "synthetic:jobs=20,seed=2,rate=10 (20 jobs)"


@pytest.mark.parametrize("column, said", [("duration_s", True), ("iterations", False)])
def test_the_header_says_how_run_times_were_read(capsys, tmp_path, column, said):
    """Trial 20: a gpt2 job with duration_s=36000 on 16 GPUs ran 33.7 h, and neither the output nor the help said that a
    run time is read as compute only: the header says so whenever a run time was read, and the help says it."""
    from core.cluster.traces import RUN_TIMES
    p = tmp_path / "gpt2.csv"
    p.write_text(f"arrival_s,gpus,model,{column}\n0,16,gpt2,36000\n")
    assert main(ARGS[:-2] + ["--trace", str(p), "--scheduler", "fifo+closest"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert head.endswith(f"trace {p} (1 job; {RUN_TIMES})" if said else f"trace {p} (1 job)")
    with pytest.raises(SystemExit):
        main(["cluster", "--help"])
    assert "is read as compute only, iterations = run time / the model's compute per iteration" in \
        " ".join(capsys.readouterr().out.split())


def _subparser(name: str):
    import argparse

    from core.cli import build_parser
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[name]


@pytest.mark.parametrize("command", ["cluster", "cluster-train"])
def test_help_shows_every_default(command):
    """`cluster --help` did not show --trace's default (a new-user trial): every option with a
    default names it, and options without one say what happens instead."""
    import argparse
    parser = _subparser(command)
    fmt = parser._get_formatter()
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        text = " ".join(fmt._expand_help(action).split())
        assert "default" in text, (action.dest, text)
        if action.default is not None:
            value = f"{action.default:g}" if isinstance(action.default, float) else str(action.default)
            assert value in text, (action.dest, text)


def test_trace_help_names_the_synthetic_defaults(capsys):
    from core.cluster.traces import DEFAULT_RATE
    with pytest.raises(SystemExit):
        main(["cluster", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "default synthetic:jobs=160,seed=0" in out
    assert f"rate defaults to {DEFAULT_RATE:g} jobs an hour" in out  # the help's number follows the code's


@pytest.mark.parametrize("extra, note", [
    (["--scheduler", "gadget", "--seed", "3"], "note: gadget ignores --seed (read by fifo+random, sjf+random, las+random)"),
    (["--scheduler", "fifo+random,gadget", "--seed", "0", "--checkpoint", "topdrl"],
     "note: none of the schedulers run reads --checkpoint (read by topdrl)"),  # fifo+random reads --seed
    (["--scheduler", "sjf+random,las+random+critical-path", "--seed", "3"], None),
])
def test_cluster_names_the_given_options_its_schedulers_ignore(capsys, extra, note):
    """The note schedule and compare print (one mechanism): --seed only reaches random placement, --checkpoint
    only TopDRL; a default value given counts."""
    assert main(ARGS[:-2] + ["--trace", "synthetic:jobs=4,seed=0", "--format", "csv"] + extra) == 0
    assert (capsys.readouterr().err.strip() or None) == note


@pytest.mark.parametrize("name", ["fifo+first-fit", "sjf+load-balance", "las+closest", "sjf+timed", "gadget", "ours",
                                  "fifo+random", "topdrl"])
def test_a_scheduler_reads_the_seed_exactly_when_it_says_so(name):
    """`schedulers.options` is what the note trusts: a scheduler that does not list ``seed`` runs the same
    under any seed; one that does gives another result for some seed."""
    from core.cluster import load_trace, make_cluster, run_schedulers, summarize
    from core.cluster.schedulers import options
    cluster, trace = make_cluster("bcube:n=4,k=1", 4), load_trace("synthetic:jobs=12,seed=1,rate=30")
    runs = [summarize(r)["avg_jct_h"] for s in range(4) for r in run_schedulers(cluster, trace, [name], seed=s)]
    assert (len(set(runs)) > 1) == ("seed" in options(name))


def test_each_metric_has_its_places():
    from core.cluster import DECIMALS, METRICS, metric_text
    assert list(DECIMALS) == list(METRICS)
    assert [metric_text(k, 0.52815) for k in ("avg_jct_h", "gpu_util", "peak_link_users")] == ["0.53", "52.8%", "1"]


def test_the_events_are_a_table_too(capsys, tmp_path):
    """--events-out writes one row per simulation event and scheduler (the JSON's `events` counts them), named on
    stderr; the summary CSV keeps its columns. Running jobs at each event agree with the per-job CSV."""
    ev, jobs = tmp_path / "events.csv", tmp_path / "jobs.csv"
    assert main(ARGS + ["--format", "json", "--events-out", str(ev), "--jobs-out", str(jobs)]) == 0
    out, err = capsys.readouterr()
    counts = {r["scheduler"]: r["events"] for r in json.loads(out)["results"]}
    assert err.splitlines() == [f"wrote {jobs}: one row per job and scheduler",
                                f"wrote {ev}: one row per event and scheduler"]
    rows = list(csv.DictReader(ev.open()))
    assert list(rows[0]) == ["scheduler", "event", "time_h", "busy_gpus", "running_jobs", "max_link_jobs",
                             "mean_link_jobs", "links_in_use"]
    assert {s: sum(r["scheduler"] == s for r in rows) for s in counts} == counts
    spans = [(r["scheduler"], float(r["start_h"]), float(r["end_h"]), int(r["gpus"])) for r in csv.DictReader(jobs.open())]
    for r in rows:  # neither scheduler preempts: a job runs from its start to its end
        t = float(r["time_h"])
        here = [g for s, a, b, g in spans if s == r["scheduler"] and a <= t < b]
        assert int(r["running_jobs"]) == len(here) and int(r["busy_gpus"]) == sum(here), r
    assert main(ARGS + ["--format", "csv"]) == 0
    assert next(csv.reader(io.StringIO(capsys.readouterr().out))) == [
        "scheduler", "avg_jct_h", "p95_jct_h", "makespan_h", "avg_queue_h", "gpu_util", "comm_share", "peak_link_users",
        "mean_link_users", "preemptions", "wall_s", "cpu_s", "run_times_as_compute", "records", "records_skipped",
        "skipped_reasons"]


def test_all_leaves_out_topdrl_on_a_cluster_its_network_does_not_read(capsys):
    """`--scheduler all` with 8 GPUs per server exited 2 ('TopDRL network was built for 4 GPUs per server') and
    nothing ran (trial 12): TopDRL is left out with one note naming why, the rest run; `topdrl` named still refuses."""
    args = ["cluster", "--topology", "bcube:2,1", "--gpus-per-server", "8", "--trace", "synthetic:jobs=3,seed=0",
            "--format", "csv"]
    assert main(args + ["--scheduler", "all"]) == 0
    out, err = capsys.readouterr()
    from core.cluster import ALL
    assert [line.split(",")[0] for line in out.splitlines()[1:]] == [n for n in ALL if n != "topdrl"]
    assert notes_joined(err) == ["note: topdrl left out: its network was built for 4 GPUs per server, the cluster has 8 "
                                "(docs/cluster.md §6); the other schedulers run"]
    for named in ("topdrl", "gadget,topdrl"):
        assert main(args + ["--scheduler", named]) == 2
        err = capsys.readouterr().err.splitlines()
        assert err == ["allreduce-lab: error: TopDRL network was built for 4 GPUs per server; the cluster has 8 "
                       "(docs/cluster.md §6): use --gpus-per-server 4 or another --scheduler"]
        # trial 16: the refusal gave no pointer (that section explains it); trial 17: nor a way forward
    from pathlib import Path
    section = Path(__file__).parents[2].joinpath("docs/cluster.md").read_text().partition("\n## 6. ")[2]
    assert section.startswith("Schedulers") and "**TopDRL's limit:**" in section.partition("\n## 7. ")[0]
    assert main(args[:4] + ["4"] + args[5:] + ["--scheduler", "all"]) == 0  # 4 GPUs: topdrl runs
    assert "topdrl," in capsys.readouterr().out


def test_a_synthetic_trace_larger_than_the_cluster_is_capped_with_a_note(capsys):
    """On a 6-server topology the default synthetic trace had a 32-GPU job against 24 GPUs and nothing ran (trial
    12): a synthetic draw is capped at the cluster's GPUs, said in a note and in the trace's name."""
    args = ["cluster", "--topology", "bcube:n=2,k=1", "--gpus-per-server", "4", "--scheduler", "gadget", "--format",
            "json", "--trace"]
    assert main(args + ["synthetic:jobs=60,seed=0"]) == 0
    out, err = capsys.readouterr()
    from core.cluster import load_trace
    over = int((load_trace("synthetic:jobs=60,seed=0").gpus > 16).sum())  # how many jobs the note must count
    assert over >= 1
    assert notes_joined(err) == [f"note: synthetic:jobs=60,seed=0: {over} of 60 jobs' GPU demands capped at 16, the "
                                "cluster's GPUs (the mix draws jobs larger than the cluster): the trace run is "
                                "synthetic:jobs=60,seed=0,max_gpus=16"]
    capped = json.loads(out)
    assert capped["trace"] == "synthetic:jobs=60,seed=0,max_gpus=16"
    assert main(args + ["synthetic:jobs=60,seed=0,max_gpus=16"]) == 0  # the name is a spec that makes the same trace
    out, err = capsys.readouterr()
    assert err == "" and json.loads(out)["results"][0]["avg_jct_h"] == capped["results"][0]["avg_jct_h"]


def test_a_refused_cluster_command_prints_only_its_error(capsys):
    """Trial 13: the capping note came before TopDRL's refusal of a 2-GPU-per-server cluster; a refused command prints
    only its one-line error (exit 2), its notes not at all."""
    args = ["cluster", "--topology", "bcube:n=2,k=1", "--gpus-per-server", "2", "--trace", "synthetic:jobs=30",
            "--format", "json", "--scheduler"]
    assert main(args + ["topdrl"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "TopDRL network was built for 4 GPUs" in err
    assert main(args + ["gadget"]) == 0  # the same trace, run: the note says how many jobs were capped
    err = capsys.readouterr().err
    assert "jobs' GPU demands capped at 8" in err and "note: synthetic:jobs=30: " in err


def test_a_trace_path_with_a_colon_reads_or_fails_in_one_line(capsys, tmp_path, monkeypatch):
    """fix23a: a spec is read at its first ':', so a bare path holding one (/tmp/t:1.csv, a .csv path read as csv:)
    said "unknown trace kind '/tmp/t'"; it reads as the path it is, and a kind-prefixed one (philly:/tmp/a:b.json,
    csv:d:x/t.csv) reads as before. What cannot be read fails with one line naming it (exit 2)."""
    from test_cluster_traces import PHILLY
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t:1.csv").write_text("arrival_s,gpus,model,iterations\n0,2,resnet50,1000\n")
    (tmp_path / "d:x").mkdir()
    (tmp_path / "d:x" / "t.csv").write_text("arrival_s,gpus,model,iterations\n0,2,resnet50,1000\n")
    (tmp_path / "a:b.json").write_text(json.dumps(PHILLY))
    base = ["cluster", "--topology", "bcube:n=2,k=1", "--gpus-per-server", "2", "--scheduler", "fifo+closest",
            "--format", "json", "--trace"]
    for spec, jobs in ((f"{tmp_path}/t:1.csv", 1), ("t:1.csv", 1), ("d:x/t.csv", 1), ("csv:d:x/t.csv,limit=1", 1),
                       ("csv:t:1.csv", 1), (f"philly:{tmp_path}/a:b.json,model=resnet50", 2)):
        assert main(base + [spec]) == 0, (spec, capsys.readouterr().err)
        assert json.loads(capsys.readouterr().out)["jobs"] == jobs, spec
    for spec, said in ((f"{tmp_path}/no:such.csv", f"{tmp_path}/no:such.csv: no such file"),
                       ("a:b.json", "a:b.json: a trace file; name its kind before it: philly:a:b.json"),
                       ("no:such.csv", "unknown trace kind 'no' in 'no:such.csv' (nor a file: no such file "),
                       ("philly:no:such.json", "philly:no:such.json: no such file"),
                       ("synthetic:jobs=3:seed=1", "jobs must be a number, got '3:seed=1'")):
        assert main(base + [spec]) == 2, spec
        out, err = capsys.readouterr()
        assert out == "" and len(err.strip().splitlines()) == 1 and said in err, (spec, err)


def test_cluster_train_does_not_replace_a_checkpoint_without_force(tmp_path, monkeypatch, capsys):
    """Trial 25: the default --out is the shipped checkpoint, which a run from the repository root replaced without
    a word. An existing checkpoint is refused (one line, exit 2, nothing trained or written) unless --force."""
    from pathlib import Path

    import core.cluster.topdrl_train as tt
    calls = []

    def fake_train(cfg, out, command):
        calls.append(command)
        raise SystemExit(0)  # stands for a run: nothing is written

    monkeypatch.setattr(tt, "train", fake_train)
    monkeypatch.chdir(Path(__file__).resolve().parents[2])  # the repository root: the default --out is the shipped one
    assert main(["cluster-train"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == ["allreduce-lab: error: checkpoints/topdrl/topdrl.safetensors exists (shipped with the project): "
                   "cluster-train does not replace a checkpoint; pass --out elsewhere, or --force to replace it"]
    (tmp_path / "mine.json").write_text("{}")  # either file of the pair is enough
    assert main(["cluster-train", "--out", str(tmp_path / "mine")]) == 2
    assert f"{tmp_path / 'mine.json'} exists: cluster-train" in capsys.readouterr().err
    assert calls == [] and (tmp_path / "mine.json").read_text() == "{}"
    with pytest.raises(SystemExit):
        main(["cluster-train", "--out", str(tmp_path / "mine"), "--force"])
    assert calls[0].endswith(f"--out {tmp_path / 'mine'} --force")


def test_a_note_says_when_ours_matches_others_because_every_job_used_ring(capsys):
    """Trial 25: on fattree:k=4 (one port per server) ours, sjf+timed and sjf+closest printed identical rows with
    every job on ring, and nothing said why. A note under the table does; where ours uses a tree (BCube(4,2)) and
    its row differs, none."""
    base = ["cluster", "--trace", "synthetic:jobs=10,seed=0"]
    assert main(base + ["--topology", "fattree:k=4", "--scheduler", "ours,sjf+timed,sjf+closest"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("note: ours, sjf+timed and sjf+closest have identical rows: ours ran every job that spans "
                           "servers with ring, as they do (a tree AllReduce helps only where a job's servers reach "
                           "each other through several ports")
    assert main(base + ["--topology", "fattree:k=4", "--scheduler", "ours,sjf+timed", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["same_allreduce_note"].startswith("ours and sjf+timed have identical")
    assert main(base + ["--topology", "bcube:n=4,k=2", "--scheduler", "ours,sjf+timed"]) == 0
    assert "note:" not in capsys.readouterr().out


def test_rows_that_read_the_same_are_named_with_what_the_runs_show(capsys):
    """Trial 26: on bcube:n=4,k=2 gadget and sjf+timed both read "40.15 / 146.63 / 827.86 ...", unexplained. Rows
    that read the same are named, with whether every job ran at the same times (else how far apart their ends are)
    and, where no job waited, that the order of jobs never came into play; JSON carries the same note."""
    argv = ["cluster", "--topology", "bcube:n=4,k=2", "--trace", "synthetic:jobs=40,seed=0", "--scheduler",
            "gadget,sjf+timed,sjf+first-fit,fifo+first-fit,fifo+closest"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    rows = {line.split()[0]: line.split()[1:-1] for line in out if line.split()[:1] and line.split()[0] in argv[-1]}
    assert rows["gadget"] == rows["sjf+timed"] and rows["sjf+first-fit"] == rows["fifo+first-fit"] != rows["gadget"]
    assert out[-1] == ("note: sjf+first-fit and fifo+first-fit have the same row: they started and ended every job at "
                       "the same times; gadget, sjf+timed and fifo+closest read the same to the decimals shown, though "
                       "their jobs' ends differ by up to 41 s (in each, no job waited for GPUs, so the order of jobs "
                       "never came into play)")  # the reason once (trial 31: said once a group)
    assert main(argv + ["--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "note: " + doc["identical_rows_note"] == out[-1] and doc["same_allreduce_note"] is None
    assert main(argv[:-1] + ["gadget,topdrl"]) == 0  # no two rows read the same: no note (but TopDRL's checkpoint)
    assert [line for line in capsys.readouterr().out.splitlines() if line.startswith("note:")] == [
        "note: topdrl: checkpoints/topdrl/topdrl (iteration 80), trained on bcube:n=4,k=1 x4 GPUs "
        "(synthetic:jobs=160,rate=6); untested on this cluster: compare it with sjf+closest (docs/cluster.md §6)"]


def test_topdrl_names_its_checkpoint_and_says_when_the_cluster_is_not_its_training_one(capsys):
    """Trial 29: on BCube(2,1) TopDRL kept GPUs idle (39% use against sjf+closest's 78%) and nothing said which
    checkpoint ran or that it was trained on BCube(4,1) x 4 only. Text and JSON now say both."""
    other = ["cluster", "--topology", "bcube:n=2,k=1", "--trace", "synthetic:jobs=8,seed=3", "--scheduler", "topdrl"]
    assert main(other) == 0
    out = capsys.readouterr().out
    assert ("note: topdrl: checkpoints/topdrl/topdrl (iteration 80), trained on bcube:n=4,k=1 x4 GPUs "
            "(synthetic:jobs=160,rate=6); untested on this cluster: compare it with sjf+closest") in out
    assert main(["cluster", "--topology", "bcube:n=4,k=1", "--trace", "synthetic:jobs=8,seed=3", "--scheduler",
                 "topdrl", "--format", "json"]) == 0
    said = json.loads(capsys.readouterr().out)["topdrl_checkpoint"]
    assert said["cluster"] == "bcube:n=4,k=1 x4 GPUs" and said["kept_iteration"] == 80
    assert said["note"].endswith("trained on this cluster with synthetic:jobs=160,rate=6 traces")
    assert main(ARGS) == 0 and "topdrl:" not in capsys.readouterr().out  # not run: not named
    assert main(ARGS + ["--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["topdrl_checkpoint"] is None


TRIAL29_CSV = """job_id,arrival_s,gpus,model,iterations,duration_s
j1,0,4,resnet50,100000,
j2,0,8,vgg16,,7200
j3,60,2,bert_base,50000,
j4,120,8,gpt2,,3600
j5,120,1,resnet18,200000,
j6,300,4,alexnet,,1800
j7,300,16,resnet50,,10800
j8,600,2,inception_v3,30000,
j9,900,8,resnet50,,5400
j10,900,4,vgg16,,3600
"""


def test_a_row_that_reads_as_the_first_notes_rows_is_named_too(capsys, tmp_path):
    """Trial 29: gadget's row read as ours, fifo+closest and sjf+closest, which the first note explains (all ring),
    but neither note named gadget, whose jobs' ends differ from theirs by a few seconds."""
    trace = tmp_path / "mine.csv"
    trace.write_text(TRIAL29_CSV)
    assert main(["cluster", "--topology", "fattree:k=4", "--trace", f"csv:{trace}", "--scheduler",
                 "fifo+closest,gadget,ours,sjf+closest"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2].startswith("note: ours, fifo+closest and sjf+closest have identical rows: ours ran every job")
    assert out[-1] == ("note: gadget reads the same as fifo+closest to the decimals shown, though the jobs' ends differ "
                       "by up to 5 s (no job waited for GPUs, so the order of jobs never came into play)")
    # trial 31: with every scheduler the note ran to 692 characters, a clause and the same reason for each pair
    assert main(["cluster", "--topology", "fattree:k=4", "--trace", f"csv:{trace}", "--scheduler",
                 "fifo+first-fit,las+first-fit,fifo+random,las+random,fifo+closest,gadget,ours"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "note: fifo+first-fit and las+first-fit, and fifo+random and las+random have the same rows, group by group: "
        "they started and ended every job at the same times; gadget reads the same as fifo+closest to the decimals "
        "shown, though the jobs' ends differ by up to 5 s (in each, no job waited for GPUs, so the order of jobs "
        "never came into play)")
