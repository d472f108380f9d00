"""The data-level validator catches planted faults, and reports all of them, not only the first.

The base documents are the Fig. 3 example (ids and rounds frozen in test_core_fig3_log.py):
critical-path rounds [[1, 2, 12, 14, 20], [0, 7, 8, 13, 18], [6, 16, 17, 19], [3, 9, 10, 11, 22, 23],
[4, 5, 15], [21]]; A->B is directed link 0.
"""

from __future__ import annotations

import copy
import json

import pytest

from core import cli
from core.schedule_io import ScheduleFileError, schedule_to_dict
from core.validate import validate_document

from _corelib import schedule


@pytest.fixture()
def doc():
    return copy.deepcopy(schedule_to_dict(schedule("example:fig3", "critical-path")))


@pytest.fixture()
def plain_doc():
    return copy.deepcopy(schedule_to_dict(schedule("example:fig3", "critical-path", merge=False)))


def move(d, w, to_round):
    for r in d["rounds"]:
        if w in r:
            r.remove(w)
    d["rounds"][to_round].append(w)


def test_base_documents_are_valid(doc, plain_doc):
    assert doc["rounds"] == [[1, 2, 12, 14, 20], [0, 7, 8, 13, 18], [6, 16, 17, 19], [3, 9, 10, 11, 22, 23],
                             [4, 5, 15], [21]]
    for d in (doc, plain_doc):
        rep = validate_document(d)
        assert rep.ok and rep.violations == []
        assert rep.trees == 4


def test_planted_double_count_relay_adds_own_piece(plain_doc):
    # merge off, tree A: workload 2 relays C's piece over B->A; claiming it carries B's own piece too
    # counts B twice in A's sum. Rounds and prefixes stay legal: only the data layer can see it.
    w = plain_doc["workloads"][2]
    assert (w["path"], w["prefix"], w["carries_own"]) == ([1, 0], [1], False)
    w["carries_own"] = True
    rep = validate_document(plain_doc)
    assert [v.rule for v in rep.violations] == ["data"]
    assert rep.violations[0].message == "the piece of server 1 (B) is counted 2 times in the sum of flow-tree 0 (A)"


def test_planted_double_count_duplicate_workload(doc):
    # a second copy of B's merged reduce (B + C + D) into A, sent in an extra round
    dup = dict(doc["workloads"][0], id=24)
    doc["workloads"].append(dup)
    doc["rounds"].append([24])
    doc["stats"]["rounds"] = 7
    rep = validate_document(doc)
    msgs = [v.message for v in rep.violations if v.rule == "data"]
    for s in ("1 (B)", "2 (C)", "3 (D)"):
        assert f"the piece of server {s} is counted 2 times in the sum of flow-tree 0 (A)" in msgs
    assert "the piece of server 0 (A) is counted 2 times in the sum of flow-tree 0 (A)" not in msgs


def test_planted_capacity_violation(doc):
    move(doc, 18, 0)  # A->B already carries 12 in round 0
    rep = validate_document(doc)
    assert len(rep.violations) == 1
    (v,) = rep.violations
    assert (v.rule, v.round, v.link, v.workload) == ("capacity", 0, 0, 18)
    assert "link A->B carries 2 workloads (12, 18) over its capacity 1" in v.message


def test_planted_prefix_violation(doc):
    move(doc, 0, 0)  # B->A of tree A in the same round as its prefixes 1 and 2
    rep = validate_document(doc)
    assert len(rep.violations) == 1
    (v,) = rep.violations
    assert (v.rule, v.round, v.workload) == ("prefix", 0, 0)
    assert "prefix 1, 2 not sent earlier" in v.message


def test_planted_broadcast_before_the_sum_is_complete(doc):
    # broadcast 3 (A->B of tree A) with its prefix removed and sent first: the engine rules hold,
    # but A does not hold its sum yet (reduce 0 into A comes in a later round)
    w = doc["workloads"][3]
    assert (w["phase"], w["path"], w["prefix"]) == ("broadcast", [0, 1], [0])
    w["prefix"] = []
    for r in doc["rounds"]:
        if 3 in r:
            r.remove(3)
    doc["rounds"].insert(0, [3])
    doc["stats"]["rounds"] = 7
    rep = validate_document(doc)
    # only the data layer objects, and only about tree A: 3 leaves A too early, so B never holds the
    # sum and its forwards 4 and 5 (and B, C, D's copies) are wrong too
    assert set(rep.by_rule()) == {"data"}
    assert all(v.message.endswith("flow-tree 0 (A)") for v in rep.violations)
    first = rep.violations[0]
    assert (first.workload, first.round) == (3, 0)
    assert first.message == ("round 1: workload 3 (a broadcast) leaves server 0 (A) before it holds the sum of "
                             "flow-tree 0 (A)")
    assert {v.workload for v in rep.violations if "leaves" in v.message} == {3, 4, 5}


def test_planted_missing_workload(doc):
    doc["rounds"][5].remove(21)  # the last broadcast of tree D, B->A; round 6 is left empty
    rep = validate_document(doc)
    assert rep.by_rule() == {"missing": 1, "data": 1}
    missing = [v for v in rep.violations if v.rule == "missing"][0]
    assert missing.workload == 21
    assert "server 0 (A) never receives the sum of flow-tree 3 (D)" in [v.message for v in rep.violations]


def test_missing_flow_tree(doc):
    gone = set(range(18, 24))  # every workload of tree D
    doc["workloads"] = [w for w in doc["workloads"] if w["id"] not in gone]
    doc["rounds"] = [[w for w in r if w not in gone] for r in doc["rounds"]]
    rep = validate_document(doc)
    assert [v.message for v in rep.violations] == ["no flow-tree for shard 3 (D) chunk 0: its sum is never formed"]


def test_reduce_prefix_from_another_tree(doc):
    # 13 (tree C, B->C) also waits for 1 (tree A, C->B): legal order, but it would mix shards
    doc["workloads"][13]["prefix"] = [12, 1]
    rep = validate_document(doc)
    assert rep.by_rule() == {"data": 1}
    assert rep.violations[0].message == "workload 13: reduce prefix 1 belongs to another flow-tree (shards would mix)"


def test_all_violations_are_reported(doc):
    move(doc, 18, 0)  # capacity on A->B
    move(doc, 13, 0)  # 13 (B->C) waits for 12, also in round 0
    rep = validate_document(doc)
    assert len(rep.violations) == 2
    assert rep.by_rule() == {"prefix": 1, "capacity": 1}
    assert {(v.rule, v.workload) for v in rep.violations} == {("prefix", 13), ("capacity", 18)}


def test_cli_reports_all_violations(doc, tmp_path, capsys):
    move(doc, 18, 0)
    move(doc, 13, 0)
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(doc))
    code = cli.main(["validate", str(f)])
    out, err = capsys.readouterr()
    assert code == 2
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 3  # the whole report on stdout (`validate f > report.txt` keeps it), nothing on stderr
    # the where-clause adds what the message does not say (trial 15: "workload 2: ...  (workload 2)")
    assert any(line.startswith("  [capacity] round 1: ") and line.endswith("  (workload 18, link id 0)")
               for line in lines)
    assert any(line.startswith("  [prefix] round 1: workload #13 ") and "  (" not in line for line in lines), lines
    assert lines[0] == f"{f}: INVALID — 2 violation(s): prefix 1, capacity 1" and err == ""  # the verdict first
    assert cli.main(["validate", str(f), "--max-report", "1"]) == 2  # a cut report says so and how to see more
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and lines[2] == "  ... 1 of 2 violations shown (--max-report N shows more)"


def test_structure_faults(doc):
    doc["workloads"][4]["path"] = [1, 3, 2]  # B->C of tree A rerouted through server D
    doc["workloads"][5]["path"] = [1, 0, 3]  # A and D are not adjacent (and A is a server)
    doc["workloads"][9]["prefix"] = [6, 7, 8, 77]  # 77 does not exist
    doc["rounds"][0].append(55)  # not a workload
    doc["stats"]["rounds"] = 9
    rep = validate_document(doc)
    by = rep.by_rule()
    assert by["path"] == 2 and by["unknown"] == 1 and by["stats"] == 1 and by["structure"] == 1
    msgs = " | ".join(v.message for v in rep.violations)
    assert "crosses server 3" in msgs and "prefix 77 is not a workload id" in msgs
    assert "workload 55 is not defined" in msgs and "stats.rounds says 9 but the file has 6 rounds" in msgs


def test_an_id_of_the_wrong_type_is_quoted_once(doc, tmp_path, capsys):
    """A string where an id belongs is shown as the file has it, '3', not "'3'" (repr taken twice)."""
    doc["rounds"][0][0] = str(doc["rounds"][0][0])
    doc["workloads"][9]["prefix"] = ["6", 7, 8]
    rep = validate_document(doc)
    msgs = [v.message for v in rep.violations]
    assert f"round 1: workload '{doc['rounds'][0][0]}' is not defined" in msgs
    assert "workload 9: prefix '6' is not a workload id" in msgs
    assert not any("\"'" in m for m in msgs), msgs
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    assert cli.main(["validate", str(path)]) == 2
    assert f"[unknown] round 1: workload '{doc['rounds'][0][0]}' is not defined" in capsys.readouterr().out


def test_duplicate_ids_and_cycles(doc):
    d = copy.deepcopy(doc)
    d["workloads"].append(dict(d["workloads"][0]))
    assert "workload id 0 is used twice" in [v.message for v in validate_document(d).violations]
    d = copy.deepcopy(doc)
    d["workloads"][1]["prefix"] = [0]  # 0 waits for 1 and 1 for 0
    rep = validate_document(d)
    assert rep.by_rule() == {"prefix": 1} and "cycle" in rep.violations[0].message


def test_bad_topology_in_document(doc):
    doc["topology"]["links"] = doc["topology"]["links"][:1]  # A-B only: C and D are cut off
    rep = validate_document(doc)
    assert rep.by_rule() == {"topology": 1}
    assert "connected" in rep.violations[0].message


def test_arbitrary_ids_are_accepted(doc):
    for w in doc["workloads"]:
        w["id"] += 1000
        w["prefix"] = [p + 1000 for p in w["prefix"]]
    doc["rounds"] = [[w + 1000 for w in r] for r in doc["rounds"]]
    assert validate_document(doc).ok
    move(doc, 1018, 0)
    (v,) = validate_document(doc).violations
    assert (v.rule, v.workload, v.round) == ("capacity", 1018, 0)


def test_not_a_document():
    with pytest.raises(ScheduleFileError):
        validate_document([1, 2])


# ---- bugs -------------------------------------------------------------------------------------
def test_validate_ring_relayed_through_root():
    rep = validate_document(schedule_to_dict(schedule("example:fig3", "ring")))
    assert rep.ok, [v.message for v in rep.violations]


def test_messages_use_the_files_ids(doc):
    for w in doc["workloads"]:
        w["id"] += 1000
        w["prefix"] = [p + 1000 for p in w["prefix"]]
    doc["rounds"] = [[w + 1000 for w in r] for r in doc["rounds"]]
    move(doc, 1018, 0)
    move(doc, 1000, 0)
    msgs = {v.rule: v.message for v in validate_document(doc).violations}
    assert "(1012, 1018)" in msgs["capacity"]
    assert "1001, 1002" in msgs["prefix"]


def test_violation_link_matches_the_files_link_list():
    d = copy.deepcopy(schedule_to_dict(schedule("bcube:n=3,k=1", "critical-path")))
    assert 3 in d["rounds"][0]
    assert 4 in d["rounds"][1]
    move(d, 4, 0)  # 3 and 4 both cross sw0.1 -> s10 (server 3, switch 10)
    (v,) = validate_document(d).violations
    links = [tuple(lk[:2]) for lk in d["topology"]["links"]]
    i = links.index((3, 10)) if (3, 10) in links else links.index((10, 3))
    want = 2 * i + (1 if links[i] == (3, 10) else 0)  # the direction 10 -> 3
    assert v.rule == "capacity" and v.link == want


@pytest.mark.parametrize("fault", ["prefix_not_list", "round_entry_is_list", "prefix_entry_is_list",
                                   "nodes_not_list"])
def test_validate_malformed_fields_do_not_crash(doc, tmp_path, capsys, fault):
    if fault == "prefix_not_list":
        doc["workloads"][0]["prefix"] = 5
    elif fault == "round_entry_is_list":
        doc["rounds"][0].append([1])
    elif fault == "prefix_entry_is_list":
        doc["workloads"][0]["prefix"] = [[1]]
    else:
        doc["topology"]["nodes"] = 5
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(doc))
    code = cli.main(["validate", str(f)])
    out, err = capsys.readouterr()
    assert code == 2 and "Traceback" not in err


def test_boolean_path_is_a_path_violation(doc):
    doc["workloads"][0]["path"] = [True, False]
    rep = validate_document(doc)
    assert "path" in rep.by_rule()


# ---- node ids are ids, not positions (MODEL.md §8) ---------------------------------------------
def renamed(d, name, order=None):
    """The same schedule with every node id x renamed name(x), nodes listed in `order`."""
    d = copy.deepcopy(d)
    topo = d["topology"]
    for node in topo["nodes"]:
        node["id"] = name(node["id"])
    if order is not None:
        topo["nodes"] = [topo["nodes"][i] for i in order]
    topo["links"] = [[name(u), name(v), *rest] for u, v, *rest in topo["links"]]
    for w in d["workloads"]:
        w["root"] = name(w["root"])
        w["path"] = [name(x) for x in w["path"]]
    return d


@pytest.mark.parametrize("spec", ["example:fig3", "bcube:n=3,k=1"])
def test_node_ids_are_ids_whatever_their_order(spec):
    base = copy.deepcopy(schedule_to_dict(schedule(spec, "critical-path")))
    n = len(base["topology"]["nodes"])
    for d in (renamed(base, lambda x: x, order=list(range(n))[::-1]),   # listed out of id order
              renamed(base, lambda x: x + 10),                          # ids shifted by 10
              renamed(base, lambda x: f"node-{x}", order=list(range(1, n)) + [0])):  # string ids
        rep = validate_document(d)
        assert rep.ok, [v.message for v in rep.violations][:3]
        assert rep.trees == sum(1 for x in base["topology"]["nodes"] if x["kind"] == "server")


def test_paths_written_as_positions_are_rejected(doc):
    # nodes listed D, C, B, A with their ids kept; paths and roots written as list positions
    doc["topology"]["nodes"].reverse()
    for w in doc["workloads"]:
        w["root"] = 3 - w["root"]
        w["path"] = [3 - x for x in w["path"]]
    rep = validate_document(doc)
    assert not rep.ok and "path" in rep.by_rule()


def test_violations_report_the_files_own_node_ids(doc):
    d = renamed(doc, lambda x: x + 10)
    d["workloads"][5]["path"] = [11, 10, 13]  # B->A->D: A is a server
    d["workloads"][6]["path"] = [12, 13, 99]  # 99 is not a node
    d["workloads"][7]["root"] = 77
    msgs = [v.message for v in validate_document(d).violations]
    assert "workload 5: path [11, 10, 13] crosses server 10 (A); a workload ends at the next server" in msgs
    assert "workload 6: path [12, 13, 99] names node 99, which is not in 'nodes'" in msgs
    assert "workload 7: root 77 is not a server" in msgs
    d = renamed(doc, lambda x: x + 10)
    d["workloads"][0]["path"] = [10, 12]  # A and C are not adjacent
    assert "workload 0: path [10, 12]: no link 10 (A)->12 (C)" in [v.message for v in validate_document(d).violations]


# ---- the ring relayed through its own root (MODEL.md §8: a reduce payload that a later reduce
# workload takes as a prefix only passes through the root) -------------------------------------
def test_a_payload_taken_as_a_prefix_only_passes_through_the_root():
    d = copy.deepcopy(schedule_to_dict(schedule("example:fig3", "ring")))
    w = {x["id"]: x for x in d["workloads"]}
    # tree B: 15 (D->B, carries C+D) ends at the root B and 16 (B->A) takes it as a prefix;
    # 17 (A->B) takes 16 and carries A+C+D into B. B's sum: its own piece + 17's payload.
    assert (w[15]["path"], w[15]["root"], w[16]["path"], w[16]["prefix"]) == ([3, 1], 1, [1, 0], [15])
    assert (w[17]["path"], w[17]["prefix"], w[16]["carries_own"]) == ([0, 1], [16], False)
    assert validate_document(d).ok
    # if 17 no longer takes 16 as a prefix, 16's payload (C+D) ends at A unused: 15 was relayed,
    # not summed, so C and D are missing from B's sum (were 15 summed at B, they would not be)
    w[17]["prefix"] = []
    msgs = [v.message for v in validate_document(d).violations if v.rule == "data"]
    assert msgs == ["the piece of server 2 (C) is missing from the sum of flow-tree 1 (B)",
                    "the piece of server 3 (D) is missing from the sum of flow-tree 1 (B)"]
    # if the relay 16 also carried B's own piece, B would be counted twice
    w[17]["prefix"] = [16]
    w[16]["carries_own"] = True
    msgs = [v.message for v in validate_document(d).violations]
    assert msgs == ["the piece of server 1 (B) is counted 2 times in the sum of flow-tree 1 (B)"]
    # the rule holds whoever takes the payload: 23 (tree C, leaving B) takes 15 instead of 16 —
    # a violation in itself, and 15 is still not summed at B, so C and D are missing there
    w[16]["carries_own"], w[16]["prefix"], w[23]["prefix"] = False, [], [22, 15]
    msgs = [v.message for v in validate_document(d).violations if v.rule == "data"]
    assert msgs == ["workload 23: reduce prefix 15 belongs to another flow-tree (shards would mix)",
                    "the piece of server 2 (C) is missing from the sum of flow-tree 1 (B)",
                    "the piece of server 3 (D) is missing from the sum of flow-tree 1 (B)"]


# ---- hostile values: one violation or one line, never a traceback or an unbounded allocation ----
@pytest.mark.parametrize("chunks", [0, -1, 10 ** 9, 2 ** 70, 1.5, "2", None, [1], True])
def test_chunks_must_fit_the_workloads(doc, chunks):
    doc["chunks"] = chunks
    rep = validate_document(doc)
    assert rep.by_rule() == {"header": 1}
    assert "chunks must be an integer in 1..24" in rep.violations[0].message


@pytest.mark.parametrize("where,value", [
    ("id", [1]), ("id", {"a": 1}), ("id", 2 ** 70), ("id", -2 ** 70), ("id", 1.0), ("id", None),
    ("root", 2 ** 70), ("root", [0]), ("root", "A"), ("root", True), ("chunk", 2 ** 70), ("chunk", [0]),
    ("phase", ["reduce"]), ("carries_own", "yes"), ("path", [0, 2 ** 70]), ("path", [[0], 1]),
    ("path", "0-1"), ("prefix", [2 ** 70]), ("prefix", [{"id": 1}]),
])
def test_hostile_workload_fields_are_violations(doc, where, value):
    doc["workloads"][0][where] = value
    rep = validate_document(doc)
    assert not rep.ok
    assert all("\n" not in v.message and len(v.message) < 400 for v in rep.violations)


@pytest.mark.parametrize("fault", ["capacity 2**70", "capacity nan", "capacity inf", "capacity '3'",
                                   "node id 2**70", "node id list", "links not list"])
def test_hostile_topology_fields(doc, fault):
    links = doc["topology"]["links"]
    if fault == "capacity 2**70":
        links[0][2] = 2 ** 70
    elif fault == "capacity nan":
        links[0][2] = float("nan")
    elif fault == "capacity inf":
        links[0][2] = float("inf")
    elif fault == "capacity '3'":
        links[0][2] = "3"
    elif fault == "node id 2**70":
        doc["topology"]["nodes"][0]["id"] = 2 ** 70
    elif fault == "node id list":
        doc["topology"]["nodes"][0]["id"] = [0]
    else:
        doc["topology"]["links"] = {"a": 1}
    rep = validate_document(doc)
    # a JSON capacity "3" is a string, refused as in a topology file (trial 12); GraphML's text attributes are read
    # as capacities by files.from_networkx, which a schedule file's JSON topology does not go through
    assert rep.by_rule() == {"topology": 1}, [v.message for v in rep.violations]


def test_deeply_nested_file_is_one_line(tmp_path, capsys):
    f = tmp_path / "deep.json"
    f.write_text('{"format": "allreduce-schedule/1", "topology": ' + "[" * 100000 + "]" * 100000 + "}")
    code = cli.main(["validate", str(f)])
    out, err = capsys.readouterr()
    assert code == 2 and err.strip().splitlines() == [f"allreduce-lab: error: {f}: nested too deeply to be a schedule"]


def test_validate_refuses_what_it_cannot_afford(doc, monkeypatch):
    from core.guard import SizeError
    doc["topology"]["nodes"] += [{"id": 100 + i, "kind": "server"} for i in range(2000)]
    monkeypatch.setenv("ALLREDUCE_LAB_MAX_MEMORY", "1MiB")
    with pytest.raises(SizeError, match="validating the schedule file's 2004 nodes: estimated .* for 24 workloads"):
        validate_document(doc)
    assert validate_document(doc, force=True).by_rule() == {"topology": 1}  # disconnected


# ---- the file's spec must build its nodes and links (validate, replay and run share the reader) ---------------
@pytest.fixture()
def bcube_doc():
    return copy.deepcopy(schedule_to_dict(schedule("bcube:n=2,k=1", "critical-path")))


def _relabel(d, a, b):
    nodes = d["topology"]["nodes"]
    nodes[a]["label"], nodes[b]["label"] = nodes[b]["label"], nodes[a]["label"]


def _rewire(d):
    links = d["topology"]["links"]  # s00-sw0.0 and s10-sw0.1 become s00-sw0.1 and s10-sw0.0: same counts and degrees
    assert links[0][:2] == [0, 4] and links[2][:2] == [2, 5]
    links[0][1], links[2][1] = 5, 4


@pytest.mark.parametrize("change,needle", [
    (lambda d: d["topology"].update(spec="bcube:n=3,k=1"), "its spec 'bcube:n=3,k=1' builds 9 servers and 6 switches, "
     "but the file has 4 servers and 4 switches"),  # like with like (trial 15: the file's side added its links)
    (lambda d: d["topology"].update(spec="leafspine:leaves=2,spines=2,servers=2"),  # the same counts, other links
     "builds other links: the file's link s00-sw1.0 (capacity 1) is not in it; its link sw0.0-sw1.0 (capacity 1) "
     "is not in the file (4 of 8 links differ)"),
    (lambda d: _relabel(d, 0, 4), "node 0 (sw0.0) as a switch, but the file has it as a server"),
    (lambda d: d["topology"]["links"][1].__setitem__(2, 2), "the file's link s01-sw0.0 (capacity 2) is not in it"),
    (_rewire, "builds other links: the file's link s00-sw0.1 (capacity 1) is not in it"),
], ids=["spec", "same-counts", "kind", "capacity", "rewired"])
def test_a_spec_that_builds_other_nodes_or_links_is_refused(bcube_doc, change, needle):
    change(bcube_doc)
    with pytest.raises(ScheduleFileError) as info:
        validate_document(bcube_doc, "s.json")
    assert needle in str(info.value) and str(info.value).startswith("s.json: topology: ")


def test_validate_replay_and_run_refuse_a_wrong_spec_in_one_line(bcube_doc, tmp_path, capsys):
    bcube_doc["topology"]["spec"] = "bcube:n=3,k=1"
    f = tmp_path / "s.json"
    f.write_text(json.dumps(bcube_doc))
    for argv in (["validate", str(f)], ["replay", str(f)], ["run", str(f), "--size", "1KB"]):
        code = cli.main(argv)
        out, err = capsys.readouterr()
        assert code == 2 and out == "" and err.count("\n") == 1, (argv, out, err)
        assert err.startswith(f"allreduce-lab: error: {f}: topology: its spec 'bcube:n=3,k=1' builds 9 servers and 6 "
                              "switches, but the file has 4 servers and 4 switches"), err


def test_a_spec_still_matches_renamed_slowed_or_failed_files(bcube_doc):
    d = renamed(bcube_doc, lambda x: f"n{x}", order=list(range(8))[::-1])  # matched by label
    for link in d["topology"]["links"]:
        link[3] = 25.0  # --slow-links changes bandwidth only
    assert validate_document(d).ok
    d["topology"]["failed"] = [1]  # --fail-links: the spec still matches (the paths now cross a failed link)
    assert set(validate_document(d).by_rule()) == {"failed"}
    for x in d["topology"]["nodes"]:
        del x["label"]  # neither labels nor ids 0..n-1 to match nodes by: compared by degrees
    d["topology"].pop("failed")
    assert validate_document(d).ok


def test_a_schedule_pasted_onto_another_topology_says_so_first(tmp_path, capsys):
    from core.topology import make_topology, to_dict
    d = copy.deepcopy(schedule_to_dict(schedule("bcube:n=3,k=1", "critical-path")))
    d["topology"] = to_dict(make_topology("dcell:n=3,k=1"))  # 12 servers: the paths run elsewhere
    f = tmp_path / "s.json"
    f.write_text(json.dumps(d))
    assert cli.main(["validate", str(f), "--max-report", "2"]) == 2
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{f}: INVALID — ") and lines[0].endswith(
        "on the file's topology (dcell:n=3,k=1) 144 of 144 workloads break the path or data rule and 99 of 108 "
        "pieces (server, flow-tree) are missing from or repeated in their sums: the schedule was made for another "
        "network"), lines[0]
    assert lines[1].startswith("  [path]") and len(lines) == 4


def test_validate_prints_json_with_the_texts_verdict_and_counts(tmp_path, capsys):
    """Trial 24: `validate --format json` was refused though `schedule` and `replay` take it. The JSON has the text's
    verdict, counts by rule and first --max-report violations (rounds from 1, link ids as --fail-links takes them),
    and the same exit code."""
    path = tmp_path / "s.json"
    assert cli.main(["schedule", "bcube:n=2,k=1", "--out", str(path)]) == 0
    capsys.readouterr()
    assert cli.main(["validate", str(path), "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["valid"] is True and got["violations"] == 0 and got["shown"] == [] and got["workloads"] == 24
    doc = json.loads(path.read_text())
    doc["rounds"][0], doc["rounds"][-1] = doc["rounds"][-1], doc["rounds"][0]  # sent before their prefixes
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    assert cli.main(["validate", str(bad)]) == 2
    text = capsys.readouterr().out.splitlines()
    assert cli.main(["validate", str(bad), "--format", "json", "--max-report", "2"]) == 2
    got = json.loads(capsys.readouterr().out)
    counts = ", ".join(f"{k} {n}" for k, n in got["by_rule"].items())
    assert got["valid"] is False and text[0].endswith(f"INVALID — {got['violations']} violation(s): {counts}")
    assert len(got["shown"]) == 2 and [f"  [{v['rule']}] {v['message']}" for v in got["shown"]] == \
        [line.split("  (")[0] for line in text[1:3]]
    assert all(v["round"] is None or 1 <= v["round"] <= len(doc["rounds"]) for v in got["shown"])
