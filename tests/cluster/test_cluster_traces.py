"""Traces: the synthetic generator's statistics and seeds, the CSV/Philly/Helios loaders, bad input."""

import json

import numpy as np
import pytest

from core.cluster import TraceError, check_fits, load_trace, synthetic, write_csv_trace
from core.cluster.traces import SJF_BCO_MIX, philly_minutes


def test_sjf_bco_mix_is_exact_for_160_jobs():
    t = load_trace("synthetic:jobs=160,seed=0")
    sizes, counts = np.unique(t.gpus, return_counts=True)
    assert dict(zip(sizes.tolist(), counts.tolist())) == SJF_BCO_MIX


def test_mix_scales_by_largest_remainder():
    t = synthetic(jobs=16, seed=3)  # 80/160 x 16 = 8, 1.4, 2.6, 3, 0.8, 0.2 -> 8, 1, 3, 3, 1, 0
    sizes, counts = np.unique(t.gpus, return_counts=True)
    assert dict(zip(sizes.tolist(), counts.tolist())) == {1: 8, 2: 1, 4: 3, 8: 3, 16: 1}


def test_same_seed_same_trace_other_seed_other_trace():
    a, b, c = (load_trace(f"synthetic:jobs=50,seed={s}") for s in (7, 7, 8))
    for name in ("arrival", "gpus", "model", "iterations"):
        assert np.array_equal(getattr(a, name), getattr(b, name))
    assert not np.array_equal(a.arrival, c.arrival)


def test_durations_follow_the_philly_fit():
    minutes = philly_minutes(20000, np.random.default_rng(0))
    assert minutes.min() >= 10 ** 1.5 and minutes.max() <= 10 ** 4
    assert np.mean(minutes > 1000) == pytest.approx(0.2, abs=0.01)
    t = synthetic(jobs=400, seed=1)
    hours = t.ideal_duration / 3600
    assert hours.min() >= 10 ** 1.5 / 60 * 0.99 and hours.max() <= 10 ** 4 / 60 * 1.01


def test_rate_sets_arrivals_and_zero_means_batch():
    t = load_trace("synthetic:jobs=2000,seed=0,rate=10")
    assert np.diff(t.arrival).mean() == pytest.approx(360.0, rel=0.05)
    assert load_trace("synthetic:jobs=5,rate=0").arrival.max() == 0


def test_csv_round_trip(tmp_path):
    t = synthetic(jobs=30, seed=2)
    path = tmp_path / "t.csv"
    write_csv_trace(t, path)
    back = load_trace(str(path))
    assert back.job_id == t.job_id
    for name in ("arrival", "gpus", "iterations"):
        assert np.allclose(getattr(back, name), getattr(t, name))
    assert [back.model_name(i) for i in range(back.n)] == [t.model_name(i) for i in range(t.n)]


def test_csv_with_durations(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text("arrival_s,gpus,model,duration_s\n0,2,resnet50,2617.6\n")
    t = load_trace(f"csv:{p}")
    assert t.iterations[0] == pytest.approx(2617.6 / 0.026176)


def test_csv_edge_cases_that_are_fine(tmp_path):
    p = tmp_path / "ok.csv"
    # equal arrivals keep the file's order; iterations and a duration agreeing within 0.1% keep the
    # iterations (26.2 s / 26.176 ms = 1000.9); spaces around header names are ignored
    p.write_text("job_id, arrival_s, gpus, model, iterations, duration_s\n"
                 "x,0,4,resnet50,1000,26.2\ny,0,1,vgg16,,99\nz,3,2,gpt2,7,\n")
    t = load_trace(f"csv:{p}")
    assert t.job_id == ("x", "y", "z")
    assert t.iterations.tolist() == pytest.approx([1000, 99 / 0.099, 7], rel=1e-3)
    assert t.iterations[0] == 1000


PHILLY = [
    {"status": "Pass", "vc": "a", "jobid": "application_1", "user": "u", "submitted_time": "2017-10-07 01:11:39",
     "attempts": [{"start_time": "2017-10-07 01:12:09", "end_time": "2017-10-07 01:13:23",
                   "detail": [{"ip": "m47", "gpus": ["gpu0", "gpu1"]}]},
                  {"start_time": "2017-10-07 01:13:30", "end_time": "2017-10-07 02:13:09",
                   "detail": [{"ip": "m4", "gpus": ["gpu0", "gpu1"]}]}]},
    {"status": "Failed", "vc": "a", "jobid": "application_2", "user": "u", "submitted_time": "2017-10-07 01:00:00",
     "attempts": []},
    {"status": "Pass", "vc": "b", "jobid": "application_3", "user": "v", "submitted_time": "2017-10-07 01:05:00",
     "attempts": [{"start_time": "2017-10-07 01:05:00", "end_time": "2017-10-07 01:35:00",
                   "detail": [{"ip": "m1", "gpus": ["gpu0"]}, {"ip": "m2", "gpus": ["gpu3"]}]}]},
]


def test_philly_loader(tmp_path):
    p = tmp_path / "cluster_job_log"
    p.write_text(json.dumps(PHILLY))
    t = load_trace(f"philly:{p},model=vgg16")
    # job 2 has no attempt: skipped; job 3 was submitted 6 min 39 s before job 1
    assert t.job_id == ("application_3", "application_1")
    assert t.arrival.tolist() == [0.0, 399.0]
    assert t.gpus.tolist() == [2, 2]
    # run time = last end - first start: 30 min and 01:12:09 -> 02:13:09 = 61 min
    assert (t.ideal_duration / 60).round(1).tolist() == pytest.approx([30.0, 61.0], abs=0.01)
    assert t.row.tolist() == [3, 1]


def test_the_records_a_log_reader_leaves_out_are_counted_and_said(tmp_path):
    """Trial 20: a Philly record without a timed attempt was left out silently ("2 jobs" from 3 records); the trace
    counts every record and why each one left out was, `skipped_note` says it in one line, and a limit keeps it."""
    from core.cluster import skipped_note
    p = tmp_path / "philly.json"
    p.write_text(json.dumps(PHILLY))
    for spec in (f"philly:{p},model=vgg16", f"philly:{p},limit=1"):
        t = load_trace(spec)
        assert (t.records, t.skipped) == (3, (("no attempt with start and end time", 1),))
        assert skipped_note(t) == f"{p}: 1 of 3 records skipped: no attempt with start and end time"
    no_gpus = dict(PHILLY[0], jobid="application_4", attempts=[dict(PHILLY[0]["attempts"][0], detail=[])])
    p.write_text(json.dumps(PHILLY + [no_gpus]))
    assert skipped_note(load_trace(f"philly:{p}")) == (f"{p}: 2 of 4 records skipped: no attempt with start and end "
                                                       "time (1), no GPUs in its first timed attempt (1)")
    p.write_text(json.dumps([PHILLY[1]]))
    with pytest.raises(TraceError, match="no usable job: 1 of 1 record skipped: no attempt with start and end time$"):
        load_trace(f"philly:{p}")
    assert skipped_note(load_trace("synthetic:jobs=5")) is None


def test_a_file_trace_is_titled_with_the_options_it_was_read_with(tmp_path):
    from core.cluster import trace_title
    from core.cluster.traces import RUN_TIMES
    p = tmp_path / "philly.json"
    p.write_text(json.dumps(PHILLY))
    spec = f"philly:{p},model=vgg16"
    assert trace_title(spec, load_trace(spec)) == f"{p} (model=vgg16; 2 jobs; {RUN_TIMES})"
    spec = f"PHILLY:{p},seed=03,limit=1"
    assert trace_title(spec, load_trace(spec)) == f"{p} (models drawn with seed=3, limit=1; 1 job; {RUN_TIMES})"
    spec = "synthetic:jobs=4,seed=1"
    assert trace_title(spec, load_trace(spec)) == "synthetic:jobs=4,seed=1 (4 jobs)"


def test_a_trace_knows_whether_it_read_run_times(tmp_path):
    """A CSV row read from duration_s, and every Philly or Helios job, is a run time read as compute only
    (`Trace.run_times`, said in the header); iterations given are not."""
    p = tmp_path / "t.csv"
    p.write_text("arrival_s,gpus,model,iterations,duration_s\n0,1,resnet50,10,\n1,1,resnet50,,20\n")
    assert load_trace(f"csv:{p}").run_times
    p.write_text("arrival_s,gpus,model,iterations,duration_s\n0,1,resnet50,10,\n")
    assert not load_trace(str(p)).run_times
    h = tmp_path / "philly.json"
    h.write_text(json.dumps(PHILLY))
    assert load_trace(f"philly:{h}").run_times and not load_trace("synthetic:jobs=3").run_times


def test_a_head_says_run_times_only_when_its_own_jobs_read_one(tmp_path):
    """`run_times` means some job's iterations were read from a run time: a head (``limit=N``) keeps only its own
    jobs, so it says so only when one of them was (fix23a: `Trace.head` kept the whole trace's flag, and a CSV
    whose first row gives iterations said, under limit=1, that its one job's run time was read as compute only)."""
    from core.cluster import trace_title
    from core.cluster.jobs import Trace
    from core.cluster.traces import RUN_TIMES
    p = tmp_path / "t.csv"
    p.write_text("arrival_s,gpus,model,iterations,duration_s\n0,1,resnet50,10,\n1,1,resnet50,,20\n")
    assert not load_trace(f"csv:{p},limit=1").run_times and load_trace(f"csv:{p},limit=2").run_times
    assert trace_title(f"csv:{p},limit=1", load_trace(f"csv:{p},limit=1")) == f"{p} (limit=1; 1 job)"
    assert load_trace(f"csv:{p}").from_run_time.tolist() == [False, True]
    h = tmp_path / "philly.json"
    h.write_text(json.dumps(PHILLY))
    assert load_trace(f"philly:{h},limit=1").run_times  # every Philly job's is
    # a job's flag follows it when the trace is sorted by arrival
    t = Trace("hand", ("a", "b"), [5.0, 1.0], [1, 1], [0, 0], [10.0, 10.0], from_run_time=[True, False])
    assert t.job_id == ("b", "a") and t.from_run_time.tolist() == [False, True] and not t.head(1).run_times
    assert RUN_TIMES in trace_title(f"csv:{p}", load_trace(f"csv:{p}"))


def test_helios_loader(tmp_path):
    p = tmp_path / "cluster_log.csv"
    p.write_text("job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n"
                 "1,u,v,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 04:55:09,36848,0\n"
                 "2,u,v,0,16,1,COMPLETED,2020-06-09 18:41:27,2020-06-09 18:41:27,2020-06-09 18:45:36,249,0\n"
                 "3,u,v,8,16,1,FAILED,2020-06-09 18:42:01,2020-06-09 18:43:00,2020-06-09 19:43:00,3600,59\n")
    t = load_trace(f"helios:{p},model=resnet50,limit=5")
    assert t.job_id == ("1", "3")  # the CPU-only job is skipped
    assert t.gpus.tolist() == [1, 8]
    assert t.arrival.tolist() == [0.0, 60.0]
    assert t.ideal_duration.tolist() == pytest.approx([36848, 3600], rel=1e-4)
    from core.cluster import skipped_note
    assert skipped_note(t) == f"{p}: 1 of 3 records skipped: no GPUs (gpu_num 0)"


@pytest.mark.parametrize("text, rule", [
    ("arrival_s,gpus,model,iterations\n0,1,resnet50,10\n-5,1,resnet50,10\n", "row 2 (job j1): arrival time must be"),
    ("arrival_s,gpus,model,iterations\n0,1,resnet51,10\n", "row 1: unknown model 'resnet51'"),
    ("arrival_s,model,iterations\n0,resnet50,10\n", "missing column 'gpus'"),
    ("arrival_s,gpus,model\n0,1,resnet50\n", "missing column 'iterations' (or 'duration_s')"),
    ("arrival_s,gpus,model,iterations\n0,0,resnet50,10\n", "row 1 (job j0): a job needs at least 1 GPU"),
    ("arrival_s,gpus,model,iterations\n0,1,resnet50,abc\n", "row 1: column 'iterations' must be a number"),
    ("arrival_s,gpus,model,duration_s\n0,1,resnet50,-3\n", "row 1: duration_s must be > 0, got -3"),
    # trial 29: 0 read "iterations (or duration) must be ... > 0" after -3's ">= 0"
    ("arrival_s,gpus,model,duration_s\n0,1,resnet50,0\n", "row 1: duration_s must be > 0, got 0"),
    # an empty value names the column the file has, not the other one
    ("arrival_s,gpus,model,iterations\n0,1,resnet50,10\n0,1,resnet50,\n", "row 2: column 'iterations' must be a number, got ''"),
    ("arrival_s,gpus,model,iterations\n", "no jobs: the file has a header but no rows"),
    ("", "bad.csv: the file is empty"),  # trial 25: it read "missing columns 'arrival_s', ..."
    ("\n \n", "bad.csv: the file is empty (blank lines only)"),
    ("arrival_s,gpus\n0,1\n", "missing column 'model', and one of 'iterations' or 'duration_s'"),  # all at once
    ("\xff\xfe binary", "not a UTF-8 text file"),
    # found by a new-user trial: each of these was accepted with exit 0
    ("arrival_s,gpus,model,iterations\n0,4,resnet50,1000,extra\n",
     "row 1: 5 fields, but the header names 4 (arrival_s, gpus, model, iterations)"),
    ("arrival_s,gpus,model,iterations\n0,4,resnet50,1000\n0,4,resnet50\n", "row 2: 3 fields, but the header names 4"),
    ("arrival_s,gpus,model,iterations\n100,4,resnet50,1000\n50,4,resnet50,1000\n",
     "row 2 (job j1): arrival_s 50 is earlier than row 1's 100; a CSV trace lists its jobs in arrival order"),
    ("job_id,arrival_s,gpus,model,iterations\na,0,4,resnet50,1000\nb,5,1,vgg16,9\na,10,4,resnet50,1000\n",
     "row 3 (job a): job_id 'a' repeats row 1's; job ids must be unique"),
    ("arrival_s,gpus,model,iterations,duration_s\n0,4,resnet50,1000,5\n",
     "row 1: iterations 1000 and duration_s 5 disagree (5 s is 191.015 iterations of resnet50 at 26.2 ms)"),
    ("arrival_s,gpus,model,iterations\n0,4,resnet50,1e30\n",
     "row 1 (job j0): ideal run time 2.618e+28 s (1e+30 iterations of resnet50 at 26.2 ms) exceeds the limit of "
     "315,360,000 s (10 years) per job"),
    ("arrival_s,gpus,model,duration_s\n0,4,resnet50,4e8\n", "row 1 (job j0): ideal run time 4e+08 s"),
    ("arrival_s,gpus,model,iterations\n0,4,resnet50,10\n1e12,4,resnet50,10\n",
     "row 2 (job j1): arrival time must be a finite number from 0 to 315,360,000 s (10 years), got 1e+12"),
    ("arrival_s,gpus,model,iterations\n0,1e30,resnet50,10\n", "row 1: gpus must be a whole number of at most 1,000,000"),
    ("arrival_s,gpus,model,iterations\n0,2.5,resnet50,10\n", "row 1: gpus must be a whole number"),
])
def test_bad_csv_names_row_and_rule(tmp_path, text, rule):
    p = tmp_path / "bad.csv"
    p.write_bytes(text.encode("latin-1"))
    with pytest.raises(TraceError) as err:
        load_trace(str(p))
    assert rule in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("kind", ["philly", "helios"])
def test_an_empty_philly_or_helios_file_is_called_empty(tmp_path, kind):
    """Trial 25: a 0-byte file was "missing columns" (Helios) or "not JSON: Expecting value" (Philly)."""
    p = tmp_path / "e.txt"
    p.write_text("")
    with pytest.raises(TraceError, match=r"e\.txt: the file is empty$"):
        load_trace(f"{kind}:{p}")


def test_bad_philly_and_helios(tmp_path):
    p = tmp_path / "p.json"
    p.write_text(json.dumps([{"jobid": "x", "attempts": []}]))
    with pytest.raises(TraceError, match="row 1: missing key 'submitted_time'"):
        load_trace(f"philly:{p}")
    back = [dict(PHILLY[0], attempts=[dict(PHILLY[0]["attempts"][0], end_time="2017-10-07 01:00:00")])]
    p.write_text(json.dumps(back))
    with pytest.raises(TraceError, match="row 1 .*times must not run backwards"):
        load_trace(f"philly:{p}")
    h = tmp_path / "h.csv"
    h.write_text("job_id,gpu_num,submit_time\n1,1,2020-06-09 18:41:01\n")
    with pytest.raises(TraceError, match="missing column 'duration'"):
        load_trace(f"helios:{h}")
    twice = [PHILLY[0], dict(PHILLY[2], jobid="application_1")]
    p.write_text(json.dumps(twice))
    with pytest.raises(TraceError, match=r"row 2 \(job application_1\): job_id 'application_1' repeats row 1's"):
        load_trace(f"philly:{p}")  # rows in the file's order, although row 2 was submitted first


@pytest.mark.parametrize("row, rule", [
    ("1,1e30,2020-06-09 18:41:01,,,100", "row 1: gpu_num must be a whole number of at most 1,000,000, got 1e+30"),
    ("1,1,2020-06-09 18:41:01,,,100,7", "row 1: 7 fields, but the header names 6"),
    ("1,1,2020-06-09 18:41:01,,,4e8", "row 1 (job 1): ideal run time"),
    ("1,1,2020-06-09 18:41:01,,,100\n1,2,2020-06-09 18:42:01,,,100", "row 2 (job 1): job_id '1' repeats row 1's"),
])
def test_bad_helios_rows(tmp_path, row, rule):
    h = tmp_path / "h.csv"
    h.write_text("job_id,gpu_num,submit_time,start_time,end_time,duration\n" + row + "\n")
    with pytest.raises(TraceError) as err:
        load_trace(f"helios:{h},model=resnet50")
    assert rule in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("spec, rule", [
    ("synthetic:jobs=0", "jobs must be an integer >= 1"),
    ("synthetic:jobs=2000000", "jobs must be at most 1,000,000"),
    ("synthetic:jobs=10,rate=-1", "rate must be a number >= 0"),
    ("synthetic:jobs=10,color=red", "unknown option 'color'"),
    ("synthetic:jobs=10,mix=google", "unknown GPU mix 'google'"),
    ("synthetic:jobs=10,models=resnet50/lenet", "unknown model 'lenet'"),
    ("pai:x.csv", "unknown trace kind 'pai'"),
    ("/no/such/philly.json",
     "^/no/such/philly.json: no such file; name its kind before it: philly:/no/such/philly.json "),
    ("log.json", "^log.json: no such file; name its kind before it: philly:log.json "),
    ("pai", "unknown trace kind 'pai'"),  # a word, no file: a kind mistyped
    ("csv:/no/such/file.csv", "csv:/no/such/file.csv: no such file"),
    ("/no/such/file.csv", "^/no/such/file.csv: no such file$"),
    ("Philly:/no/such/log.json,model=vgg16", "^Philly:/no/such/log.json: no such file$"),  # the kind as typed
    ("csv:/no/such/file.csv,model=vgg16", "unknown option 'model'; known: limit"),  # a CSV names its models
    ("csv:/no/such/file.csv,seed=3", "unknown option 'seed'; known: limit"),
    ("", "trace spec is empty"),
])
def test_bad_specs(spec, rule):
    with pytest.raises(TraceError, match=rule.replace("(", r"\(")):
        load_trace(spec)


def test_jobs_larger_than_the_cluster(tmp_path):
    """A file's job is named by its row; a synthetic draw has no rows (trial 16: `row 19` named nothing the user
    could look up), so its job is named by its id, which is its index in the draw."""
    t = load_trace("synthetic:jobs=160,seed=0")
    big = np.flatnonzero(t.gpus > 12)
    assert len(big) > 2 and [int(t.job_id[i][1:]) for i in big] == big.tolist()  # ids j0.. in arrival order
    with pytest.raises(TraceError) as info:
        check_fits(t, 12)
    assert str(info.value) == (f"synthetic:jobs=160,seed=0: job j{big[0]}: needs {t.gpus[big[0]]} GPUs, but the "
                               f"cluster has 12; a job must fit in the cluster ({len(big) - 1} more jobs too)")
    f = tmp_path / "t.csv"
    f.write_text("arrival_s,gpus,model,iterations\n0,1,resnet50,10\n1,8,resnet50,10\n2,8,resnet50,10\n")
    with pytest.raises(TraceError) as info:
        check_fits(load_trace(f"csv:{f}"), 4)
    assert str(info.value) == (f"{f}: row 2 (job j1): needs 8 GPUs, but the cluster has 4; a job must fit in the "
                               f"cluster (1 more job too)")


def test_a_synthetic_draw_is_capped_at_the_cluster_only_where_it_does_not_fit():
    """The default synthetic trace did not fit a 24-GPU cluster (trial 12): `fit_gpus` caps a synthetic draw there
    (named by max_gpus=), leaves a draw that fits, and never touches an explicit max_gpus."""
    from core.cluster.traces import capped_note
    full = load_trace("synthetic:jobs=160,seed=0")
    same = load_trace("synthetic:jobs=160,seed=0", fit_gpus=32)  # the largest job is 32: nothing to cap
    assert same.name == full.name and capped_note(full.name, same) is None
    for key in ("arrival", "gpus", "model", "iterations"):
        assert np.array_equal(getattr(same, key), getattr(full, key))
    small = load_trace("synthetic:jobs=160,seed=0", fit_gpus=24)
    assert small.name == "synthetic:jobs=160,seed=0,max_gpus=24"
    assert np.array_equal(small.gpus, np.minimum(full.gpus, 24)) and np.array_equal(small.iterations, full.iterations)
    over = int((full.gpus > 24).sum())
    assert small.capped == over >= 1 and full.capped == same.capped == 0
    assert f"{over} of 160 jobs' GPU demands capped at 24" in capped_note("synthetic:jobs=160,seed=0", small)
    assert load_trace("synthetic:jobs=160,seed=0,max_gpus=32", fit_gpus=24).gpus.max() == 32  # as the user asked
    with pytest.raises(TraceError, match="max_gpus must be an integer >= 1"):
        load_trace("synthetic:jobs=3,max_gpus=0")


def test_seeded_specs_draw_the_next_seeds_with_every_other_option():
    from core.cluster import TraceError, seeded_specs
    assert seeded_specs("synthetic:jobs=60,seed=0", 3) == ["synthetic:jobs=60,seed=0", "synthetic:jobs=60,seed=1",
                                                           "synthetic:jobs=60,seed=2"]
    assert seeded_specs("synthetic:seed=4,jobs=6,rate=2", 2) == ["synthetic:seed=4,jobs=6,rate=2",
                                                                 "synthetic:jobs=6,rate=2,seed=5"]
    assert seeded_specs("synthetic:jobs=6", 2)[1] == "synthetic:jobs=6,seed=1"  # no seed named: seed 0 first
    with pytest.raises(TraceError, match="only a synthetic trace"):
        seeded_specs("csv:jobs.csv", 2)
    with pytest.raises(TraceError, match="at least 1, not 0"):
        seeded_specs("synthetic:jobs=6", 0)


def test_over_seeds_means_and_counts_the_seeds_that_beat_the_baseline():
    from core.cluster import over_seeds
    runs = [{"a": {"avg_jct_h": 1.0, "p95_jct_h": 2.0}, "b": {"avg_jct_h": 2.0, "p95_jct_h": 3.0}},
            {"a": {"avg_jct_h": 3.0, "p95_jct_h": 4.0}, "b": {"avg_jct_h": 2.0, "p95_jct_h": 5.0}},
            {"a": {"avg_jct_h": 2.0, "p95_jct_h": 6.0}, "b": {"avg_jct_h": 2.0, "p95_jct_h": 7.0}}]
    rows = {r["scheduler"]: r for r in over_seeds(runs, "b")}
    assert rows["a"]["avg_jct_h"] == 2.0 and rows["a"]["p95_jct_h"] == 4.0 and rows["a"]["per_seed"] == [1.0, 3.0, 2.0]
    assert rows["a"]["beat"] == 1 and rows["b"]["beat"] is None and rows["a"]["seeds"] == 3  # a tie is no win


def test_a_bare_json_path_is_named_as_a_file_with_the_specs_that_read_it(tmp_path, capsys):
    """Trial: `cluster --trace /tmp/philly.json` said "unknown trace kind '/tmp/philly.json' in '/tmp/philly.json'";
    a bare path is named as a file, with philly:PATH and helios:PATH (a bare .csv reads as csv:), one line, exit 2."""
    from core import cli
    log = tmp_path / "philly.json"
    log.write_text("[]")
    assert cli.main(["cluster", "--trace", str(log)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "unknown trace kind" not in err, err
    assert f"{log}: a trace file; name its kind before it: philly:{log} " in err and f"helios:{log} " in err, err
