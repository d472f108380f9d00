"""What the new-user trial 15 found about node ids and validate: ids that print the same taken as two nodes, a
pasted schedule without its hint, violation lines naming nodes two ways, and wording of --slow-links, --opening
and the spec-mismatch line."""

from __future__ import annotations

import json

import pytest

from core import cli
from core.topology import TopologyError, make_topology


def _refused(tmp_path, name: str, doc) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    with pytest.raises(TopologyError) as info:
        make_topology(f"file:{path}")
    return str(info.value)


def _star(ids: list, hub="s") -> dict:
    return {"nodes": [{"id": x, "kind": "server"} for x in ids] + [{"id": hub, "kind": "switch"}],
            "links": [[x, hub] for x in ids]}


def test_ids_that_print_the_same_are_one_id(tmp_path):
    """3 and "3" were two nodes (links 3-8 and 3-9, --slow-links 3-9 taken silently): a user cannot tell them
    apart (MODEL.md section 8), so they are refused like a repeated id, naming both."""
    assert _refused(tmp_path, "d.json", _star([0, 3, "3"])) == (
        'd.json: node ids must be unique: 3 (node 1) and "3" (node 2) print the same, 3')
    short = {"servers": [0, 3, "3"], "links": [[0, 9], [3, 9], ["3", 9]]}  # the short form names nodes in links
    assert _refused(tmp_path, "s.json", short) == ('s.json: node ids must be unique: 3 (node 2) and "3" (node 3) '
                                                   'print the same, 3')
    assert _refused(tmp_path, "r.json", _star(["a", "b", "a"])) == ("r.json: node ids must be unique: 'a' is the id "
                                                                    "of nodes 0 and 2")
    ok = tmp_path / "ok.json"
    ok.write_text(json.dumps(_star([0, "1", 2])))
    assert make_topology(f"file:{ok}").n_servers == 3  # ids of either type that print differently are fine


def test_the_cli_refuses_ids_that_print_the_same(tmp_path, capsys):
    f = tmp_path / "t.json"
    f.write_text(json.dumps(_star([0, 3, "3"])))
    assert cli.main(["topology", f"file:{f}", "--links"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].endswith('node ids must be unique: 3 (node 1) and "3" (node 2) print the same, 3')


def _pasted(tmp_path, made_for: str, onto: str):
    """A `made_for` schedule with `onto`'s topology pasted in (what trial 15 did by hand)."""
    from core.schedule_io import schedule_to_dict
    from core.topology import to_dict
    from _corelib import schedule
    d = schedule_to_dict(schedule(made_for, "critical-path"))
    d["topology"] = to_dict(make_topology(onto))
    f = tmp_path / "paste.json"
    f.write_text(json.dumps(d))
    return f, d


def test_a_pasted_schedule_is_named_when_its_data_breaks_too(tmp_path, capsys):
    """bcube:3,1 on leafspine:3,3,3 broke only 36 of 144 paths (the hint needed more than half): the hint comes when
    some path breaks and at least half the workloads break the path or data rule (72 of 144 here) or most
    pieces miss their sum (55 of 81)."""
    from core.validate import validate_document
    f, d = _pasted(tmp_path, "bcube:n=3,k=1", "leafspine:leaves=3,spines=3,servers=3")
    rep = validate_document(d)
    assert (rep.off_topology, rep.broken, rep.workloads, rep.pieces_wrong, rep.pieces) == (36, 72, 144, 55, 81)
    assert rep.paths_elsewhere()
    assert cli.main(["validate", str(f), "--max-report", "1"]) == 2
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith("path 36, data 192; on the file's topology (leafspine:leaves=3,spines=3,servers=3) 72 of "
                          "144 workloads break the path or data rule and 55 of 81 pieces (server, flow-tree) are "
                          "missing from or repeated in their sums: the schedule was made for another network"), first


def test_a_few_bad_paths_or_a_wrong_sum_alone_give_no_hint():
    """One bad hop is not another network; a file without path breaks (its nodes are this network's) never is."""
    import copy
    from core.schedule_io import schedule_to_dict
    from core.validate import validate_document
    from _corelib import schedule
    d = schedule_to_dict(schedule("bcube:n=3,k=1", "critical-path"))
    one = copy.deepcopy(d)
    path = one["workloads"][0]["path"]
    one["workloads"][0]["path"] = [path[0], path[-1]]  # two servers are never adjacent in BCube
    rep = validate_document(one)
    assert rep.off_topology == 1 and not rep.paths_elsewhere()
    cut = copy.deepcopy(d)  # every reduce workload carries nothing of its own: most pieces miss, no path breaks
    for w in cut["workloads"]:
        w["carries_own"] = False
    rep = validate_document(cut)
    assert rep.off_topology == 0 and 2 * rep.pieces_wrong > rep.pieces and not rep.paths_elsewhere()


def test_violation_lines_name_nodes_one_way_and_say_the_workload_once(tmp_path, capsys):
    """Path lines named nodes by id (`no link 3->12`), data lines by label (`ends at h1.0`), and every line repeated
    its workload (`[path] workload 2: ...  (workload 2)`): now ids, with the label where it differs, said once."""
    f, _ = _pasted(tmp_path, "bcube:n=3,k=1", "leafspine:leaves=3,spines=3,servers=3")
    assert cli.main(["validate", str(f), "--max-report", "300"]) == 2
    lines = capsys.readouterr().out.splitlines()[1:]
    assert "  [path] workload 2: path [3, 12, 0]: no link 3 (h1.0)->12 (spine0)" in lines
    assert ("  [data] workload 2: reduce prefix 3 ends at server 3 (h1.0), not at the sender, server 0 (h0.0)"
            in lines)
    assert "  [data] server 0 (h0.0) never receives the sum of flow-tree 3 (h1.0)" in lines
    assert "  [data] the piece of server 3 (h1.0) is missing from the sum of flow-tree 0 (h0.0)" in lines
    assert not [x for x in lines if x.count("workload 2") > 1 or "(workload" in x.partition(":")[0]]
    for x in lines:
        head, _, where = x.partition("  (")
        assert not where or all(w.strip(")") not in head for w in where.split(", ")), x


def test_wording_of_opening_and_the_spec_counts(tmp_path, capsys):
    """--opening 1:1.5 said the whole T:F rule; now it names the part out of range. The spec-mismatch line compared
    a spec's servers and switches with the file's servers, switches and links: now the same counts on both sides."""
    assert cli.main(["schedule", "bcube:3,1", "-m", "rl-sample", "--opening", "1:1.5"]) == 2
    assert capsys.readouterr().err.strip() == ("allreduce-lab: error: --opening must be T:F with the share of the "
                                               "rounds F in (0, 1] (1:0.3); F is '1.5' in '1:1.5'")
    assert cli.main(["schedule", "bcube:3,1", "-m", "rl-sample", "--opening", "0:0.5"]) == 2
    assert capsys.readouterr().err.strip().endswith("the temperature T in (0, 100] (1:0.3); T is '0' in '0:0.5'")
    from core.schedule_io import schedule_to_dict
    from _corelib import schedule
    d = schedule_to_dict(schedule("leafspine:leaves=3,spines=3,servers=3", "critical-path"))
    d["topology"]["spec"] = "fattree:k=4"
    f = tmp_path / "s.json"
    f.write_text(json.dumps(d))
    assert cli.main(["validate", str(f)]) == 2
    assert capsys.readouterr().err.strip().endswith("topology: its spec 'fattree:k=4' builds 16 servers and 20 "
                                                    "switches, but the file has 9 servers and 6 switches")


def test_a_duplicate_link_names_its_positions(tmp_path):
    """The repeated-id message gave positions, the duplicate-link one only the ends: both give positions now."""
    doc = _star(["a", "b", "c"])
    doc["links"].insert(1, ["s", "a", 2])
    assert _refused(tmp_path, "dup.json", doc) == ("dup.json: parallel edges are not allowed: links 0 and 1 (positions "
                                                  "in the file's list) join 's' and 'a'; give one edge with a larger "
                                                  "capacity instead")


def test_a_link_naming_a_node_by_the_other_type_says_so(tmp_path):
    """Trial 16: a link ["3", "sw"] to the node 3 was refused as 'not in nodes' while node 3 was right there."""
    doc = {"nodes": [{"id": 3, "kind": "server"}, {"id": 1, "kind": "server"}, {"id": "sw", "kind": "switch"}],
           "links": [[1, "sw"], ["3", "sw"]]}
    assert _refused(tmp_path, "mix.json", doc).endswith(
        'link ["3", "sw"] names node "3", which is not in \'nodes\'; the node is 3 (a number), the link names "3" '
        "(a string): write the id as its node does")
    doc["links"][1] = [7, "sw"]  # no node that prints the same: no hint
    assert _refused(tmp_path, "gone.json", doc).endswith("link [7, \"sw\"] names node 7, which is not in 'nodes'")
