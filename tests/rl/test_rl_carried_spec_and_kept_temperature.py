"""Leftovers of the last session (fix20a) that run the learned methods: the checkpoint a topology file carrying a
spec runs, --explain's sampled temperature, and the kept temperature in a schedule file's info."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")

from core import cli  # noqa: E402
from core.topology import make_topology  # noqa: E402
from core.cli.common import unwrapped  # noqa: E402


def _topology_file(tmp_path, capsys, name: str, *argv: str, edit=None):
    """`topology ARGV --format json` written to tmp_path/name (after `edit` of its dict); its path."""
    assert cli.main(["topology", *argv, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    if edit is not None:
        edit(doc)
    f = tmp_path / name
    f.write_text(json.dumps(doc))
    return f


def _schedule(capsys, *argv: str) -> tuple[str, dict]:
    """schedule's text output and its --format json document for the same arguments."""
    assert cli.main(["schedule", *argv]) == 0
    text = capsys.readouterr().out
    assert cli.main(["schedule", *argv, "--format", "json"]) == 0
    return text, json.loads(capsys.readouterr().out)


# ---- 3: a topology file carrying a spec whose graph it is runs that spec's checkpoint ------------------------
@pytest.mark.parametrize("method", ["rl", "rl-sample"])
def test_a_file_of_a_specs_graph_runs_that_specs_checkpoint(tmp_path, capsys, method):
    f = _topology_file(tmp_path, capsys, "t.json", "bcube:n=3,k=1")
    extra = ["--samples", "2"] if method == "rl-sample" else []
    text, doc = _schedule(capsys, f"file:{f}", "--method", method, *extra)
    spec_text, spec_doc = _schedule(capsys, "bcube:n=3,k=1", "--method", method, *extra)
    assert "checkpoint: bcube_n3_k1 (trained on this topology: yes)" in text
    assert "the file's graph is that of the spec it carries, bcube:n=3,k=1" in text
    assert doc["info"]["checkpoint"] == spec_doc["info"]["checkpoint"] == "bcube_n3_k1"
    assert doc["info"]["trained_on_this_topology"] is True
    assert doc["info"]["file_spec"] == {"spec": "bcube:n=3,k=1", "used": True, "why_not": None, "links": None}
    assert doc["rounds"] == spec_doc["rounds"]  # the same policy on the same graph
    assert "file_spec" not in spec_doc["info"] and "the file" not in spec_text


@pytest.mark.parametrize("argv,links,trained", [
    (["--fail-links", "1"], "link 1 (s01-sw0.0) is failed", "no"),
    (["--slow-links", "5:25"], "link 5 (s12-sw0.1) runs at 25 Gbit/s, 100 in bcube:n=3,k=1 (slowed)", "yes"),
])
def test_a_file_with_failed_or_slowed_links_runs_as_the_spec_with_the_option(tmp_path, capsys, argv, links, trained):
    """Failed or slowed links are the spec's links' state (trial 21: a file with link 1 failed ran the universal
    checkpoint while ``bcube:n=3,k=1 --fail-links 1`` ran bcube_n3_k1): the same checkpoint, the same verdict (never
    trained on with a failed link; link speeds aside), the same rounds, and the line names the change."""
    f = _topology_file(tmp_path, capsys, "t.json", "bcube:n=3,k=1", *argv)
    text, doc = _schedule(capsys, f"file:{f}", "--method", "rl")
    spec_text, spec_doc = _schedule(capsys, "bcube:n=3,k=1", "--method", "rl", *argv)
    line = f"checkpoint: bcube_n3_k1 (trained on this topology: {trained})"
    assert line in text and line in spec_text
    assert (f"the file's graph is that of the spec it carries, bcube:n=3,k=1, with its links' state changed "
            f"({links})") in text
    assert doc["info"]["file_spec"] == {"spec": "bcube:n=3,k=1", "used": True, "why_not": None, "links": links}
    assert doc["rounds"] == spec_doc["rounds"]
    # the same file without the change, the option given on the command line instead
    clean = _topology_file(tmp_path, capsys, "clean.json", "bcube:n=3,k=1")
    text, doc = _schedule(capsys, f"file:{clean}", "--method", "rl", *argv)
    assert line in text and links in text and doc["rounds"] == spec_doc["rounds"]


def test_a_file_of_another_structure_keeps_the_universal_checkpoint_and_says_why(tmp_path, capsys):
    f = _topology_file(tmp_path, capsys, "t.json", "bcube:n=3,k=1", edit=lambda d: d["links"][2].__setitem__(2, 2))
    why = "link 2 (s02-sw0.0) has capacity 2, 1 in bcube:n=3,k=1"
    text, doc = _schedule(capsys, f"file:{f}", "--method", "rl")
    assert "checkpoint: universal (trained on this topology: no)" in text
    assert f"the file carries the spec bcube:n=3,k=1, but its graph is not that spec's ({why})" in text
    assert doc["info"]["file_spec"] == {"spec": "bcube:n=3,k=1", "used": False, "why_not": why, "links": None}


def test_a_file_without_a_spec_says_nothing_of_one(tmp_path, capsys):
    f = _topology_file(tmp_path, capsys, "t.json", "bcube:n=3,k=1", edit=lambda d: d.pop("spec"))
    text, doc = _schedule(capsys, f"file:{f}", "--method", "rl")
    assert "checkpoint: universal (trained on this topology: no)" in text and "spec it carries" not in text
    assert "file_spec" not in doc["info"]


def test_compare_says_what_schedule_says_of_a_files_spec(tmp_path, capsys):
    """`compare` on a topology file carrying a spec printed the checkpoint line without `schedule`'s line of whether
    the checkpoint went by the spec (its results dropped `info["file_spec"]`): the same words, after the checkpoint,
    for a file whose graph is its spec's and for one whose graph is not."""
    from core.schedulers.learned import file_spec_text
    same = _topology_file(tmp_path, capsys, "same.json", "bcube:n=3,k=1")
    failed = _topology_file(tmp_path, capsys, "failed.json", "bcube:n=3,k=1", "--fail-links", "1")
    assert cli.main(["compare", f"file:{same}", f"file:{failed}", "--methods", "ring,rl"]) == 0
    out = capsys.readouterr().out.splitlines()
    for f, text, doc in ((same, *_schedule(capsys, f"file:{same}", "--method", "rl")),
                         (failed, *_schedule(capsys, f"file:{failed}", "--method", "rl"))):
        said = file_spec_text(doc["info"])
        assert f"  {said}" in text.splitlines()  # schedule's line
        (line,) = [x for x in out if x.startswith(f"file:{f}: rl: checkpoint ")]
        answer = "yes" if f == same else "no; trained on bcube:n=3,k=1 with every link up, not with a failed link"
        assert line.endswith(f"(trained on this topology: {answer}); {said}"), line
    assert "with its links' state changed (link 1 (s01-sw0.0) is failed)" in "\n".join(out)


def _edited(tmp_path, capsys, edit):
    from core.topology.carried import carried_difference
    f = _topology_file(tmp_path, capsys, "e.json", "bcube:n=3,k=1", edit=edit)
    return carried_difference(make_topology(f"file:{f}"))


def test_carried_difference_names_the_first_difference(tmp_path, capsys):
    assert _edited(tmp_path, capsys, lambda d: None) is None
    assert _edited(tmp_path, capsys, lambda d: d["links"][2].__setitem__(2, 2)) == \
        "link 2 (s02-sw0.0) has capacity 2, 1 in bcube:n=3,k=1"
    assert _edited(tmp_path, capsys, lambda d: d["links"].pop()) == \
        "the file has 15 nodes and 17 links, bcube:n=3,k=1 15 nodes and 18 links"
    assert _edited(tmp_path, capsys, lambda d: d.__setitem__("spec", "bcube:n=4,k=1")).startswith(
        "the file has 15 nodes and 18 links, bcube:n=4,k=1 24 nodes")
    assert _edited(tmp_path, capsys, lambda d: d["links"].reverse()).startswith("link 0 (s22-sw1.2) joins other nodes "
                                                                                "than link 0 of bcube:n=3,k=1")
    assert _edited(tmp_path, capsys, lambda d: d.__setitem__("spec", "nonsense:1")).startswith("it is not a spec (")
    assert _edited(tmp_path, capsys, lambda d: d.__setitem__("spec", "file:other.json")) == \
        "it names another file, not a family"
    assert _edited(tmp_path, capsys, lambda d: d.__setitem__("spec", "bcube:n=3,k=1,bw=25")) == \
        "link 0 (s00-sw0.0) runs at 100 Gbit/s, 25 in bcube:n=3,k=1,bw=25 (faster) (and 17 more)"


# ---- 4: --explain's sampled line leads with the temperature the shown steps were drawn at ---------------------
JF6 = "jellyfish:switches=6,ports=4,switch_ports=3,seed=0"


def test_kept_temperature_leads_with_the_openings_temperature():
    from core.cli.schedule import kept_temperature
    o = {"temperature": 0.5, "fraction": 0.3, "rounds": 4, "of_rounds": 11}
    info = {"temperature": 0.2, "kept_rollout": "sample 1", "opening": o, "kept_opening": o}
    assert kept_temperature(info, 4) == \
        "0.5 in rounds 1-4 (the opening; every step shown is in them), then 0.2"
    assert kept_temperature(info, 5) == "0.5 in rounds 1-4 (the opening), then 0.2"
    assert kept_temperature({**info, "opening": None, "kept_opening": None}, 5) == "0.2"  # no opening: as before
    split = {**info, "temperature": [0.2, 1.0], "opening": [None, o]}
    assert kept_temperature(split, 2) == ("0.5 in rounds 1-4 (the opening: sample 1's item of none,0.5:0.3; "
                                          "every step shown is in them), then 1 (its item of 0.2,1)")


@pytest.mark.parametrize("steps,inside", [("3", True), ("30", False)])
def test_cli_explain_leads_with_the_openings_temperature(capsys, steps, inside):
    """Jellyfish(6 switches), seed 0: the universal checkpoint keeps sample 1, opened at T = 0.5 for its first 4
    rounds; 3 steps are all in round 1, 30 go on to round 5."""
    assert cli.main(["schedule", JF6, "--method", "rl-sample", "--samples", "4", "--opening", "0.5:0.3",
                     "--explain", steps, "--format", "json"]) == 0
    info = json.loads(capsys.readouterr().out)["info"]
    assert info["kept_rollout"].startswith("sample ") and info["kept_opening"]["rounds"] == 4, info
    assert cli.main(["schedule", JF6, "--method", "rl-sample", "--samples", "4", "--opening", "0.5:0.3",
                     "--explain", steps]) == 0
    sampled = [x for x in unwrapped(capsys.readouterr().out) if x.strip().startswith("sampled rollout:")]
    said = "; every step shown is in them" if inside else ""
    assert len(sampled) == 1
    assert f"(T = 0.5 in rounds 1-4 (the opening{said}), then 0.2; column T: each step's)" in sampled[0]


# ---- 5: the kept sample's temperature is recorded in info and read back ----------------------------------------
def test_the_file_records_the_kept_temperature(tmp_path, capsys):
    out = tmp_path / "s.json"
    assert cli.main(["schedule", JF6, "--method", "rl-sample", "--samples", "4", "--temperature", "0.2,1",
                     "--out", str(out)]) == 0
    capsys.readouterr()
    info = json.loads(out.read_text())["info"]
    k = int(info["kept_rollout"].split()[1])  # Jellyfish(6), seed 0: a sample is kept
    assert info["kept_temperature"] == [0.2, 1.0][k % 2]
    assert cli.main(["schedule", "bcube:n=3,k=1", "--method", "rl-sample", "--samples", "2", "--opening", "none",
                     "--format", "json"]) == 0
    info = json.loads(capsys.readouterr().out)["info"]
    assert info["kept_rollout"] == "greedy" and info["kept_temperature"] is None
    assert cli.main(["schedule", "bcube:n=3,k=1", "--method", "rl", "--format", "json"]) == 0
    assert "kept_temperature" not in json.loads(capsys.readouterr().out)["info"]  # greedy decoding draws nothing


def test_kept_temperature_reads_the_record_and_works_it_out_for_older_files():
    from core.cli.schedule import kept_temperature
    info = {"temperature": [0.2, 1.0], "kept_rollout": "sample 1", "opening": None, "kept_opening": None}
    assert kept_temperature(info).startswith("1 (sample 1's item of 0.2,1)")  # an older file: sample 1 drew at 1
    assert kept_temperature({**info, "kept_temperature": 0.2}).startswith("0.2 (sample 1's item")  # the record


def test_explain_says_both_temperatures_of_two_splits_in_order_and_each_rows_own(capsys):
    """Trial: with --temperature 0.2,1 and the split opening none,0.5:0.3 the line read "T = 0.5 in the first 6
    rounds (sample 15's opening in the split none,0.5:0.3), 1, sample 15's temperature in the split 0.2,1 after
    them", and no row of the table said which temperature it was drawn at. BCube(3,1) with links 0 and 5 failed,
    seed 1, keeps sample 15 (opening 0.5 for its first 6 rounds, then T = 1)."""
    from core.cli.schedule import drawn_at
    args = ["schedule", "bcube:n=3,k=1", "--fail-links", "0,5", "--seed", "1", "--temperature", "0.2,1",
            "--method", "rl-sample"]
    assert cli.main(args + ["--format", "json"]) == 0
    info = json.loads(capsys.readouterr().out)["info"]
    k, o = int(info["kept_rollout"].split()[1]), info["kept_opening"]
    assert o and o["rounds"] >= 1 and info["kept_temperature"] == [0.2, 1.0][k % 2], info
    assert cli.main(args + ["--explain", "80"]) == 0
    lines = unwrapped(capsys.readouterr().out)
    sampled = next(x for x in lines if x.strip().startswith("sampled rollout:"))
    said = (f"T = {o['temperature']:g} in rounds 1-{o['rounds']} (the opening: sample {k}'s item of none,0.5:0.3), "
            f"then {info['kept_temperature']:g} (its item of 0.2,1); column T: each step's)")
    assert said in sampled, sampled
    head = next(i for i, x in enumerate(lines) if x.split()[:3] == ["step", "chosen", "T"])
    rows = [x.split() for x in lines[head + 1:head + 81]]  # step, then the chosen cell's 5 words, then T
    assert {r[6] for r in rows} == {f"{o['temperature']:g}", f"{info['kept_temperature']:g}"}  # both are shown
    assert all(r[6] == f"{drawn_at(info, int(r[0].split('.')[0])):g}" for r in rows)
    assert all((int(r[0].split(".")[0]) <= o["rounds"]) == (r[6] == f"{o['temperature']:g}") for r in rows)
