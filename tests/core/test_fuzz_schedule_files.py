"""Fuzzer: schedule files. A correct document with one value replaced by a hostile one is either
still checked (violations, each one line) or refused with one line; the CLI exits 0 or 2."""

from __future__ import annotations

import copy
import json
import tempfile
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.schedule_io import ScheduleFileError, schedule_to_dict
from core.validate import validate_document

from _corelib import schedule
from _fuzzlib import DEADLINE_MS, JSON, assert_exit_0_or_one_line, assert_one_line, cheap_limits, run_cli  # noqa: F401

BASES = [("example:fig3", "critical-path"), ("example:fig3", "ring"), ("example:fig3", "ps"),
         ("bcube:n=2,k=1", "critical-path")]


@lru_cache(maxsize=None)
def base(i: int) -> str:
    return json.dumps(schedule_to_dict(schedule(*BASES[i])))


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    """Schedule every base and validate it once before the examples: in a fresh clone the first example paid
    for that (5.7 s under load, then ~1 ms each) and failed the deadline, which is meant for each document's own
    checking."""
    for i in range(len(BASES)):
        validate_document(json.loads(base(i)))


@st.composite
def mutated(draw):
    """A base document with 1-3 values (anywhere in the tree) replaced, deleted or duplicated."""
    doc = json.loads(base(draw(st.integers(0, len(BASES) - 1))))
    for _ in range(draw(st.integers(1, 3))):
        node, parent, key = doc, None, None
        for _depth in range(draw(st.integers(0, 5))):  # walk down a random path
            if isinstance(node, dict) and node:
                k = draw(st.sampled_from(sorted(node)))
            elif isinstance(node, list) and node:
                k = draw(st.integers(0, len(node) - 1))
            else:
                break
            parent, key, node = node, k, node[k]
        action = draw(st.sampled_from(["replace", "replace", "delete", "duplicate"]))
        if parent is None:
            doc = draw(JSON) if action == "replace" else doc
        elif action == "replace":
            parent[key] = draw(JSON)
        elif action == "delete":
            del parent[key]
        elif isinstance(parent, list):
            parent.append(copy.deepcopy(parent[key]))
    return doc


@settings(max_examples=300, deadline=DEADLINE_MS, suppress_health_check=[HealthCheck.too_slow])
@given(doc=mutated())
def test_mutated_schedule_documents(doc):
    try:
        rep = validate_document(doc)
    except (ScheduleFileError, ValueError) as err:  # not a document at all, or too big for the limits
        assert_one_line(err)
        return
    for v in rep.violations:
        assert "\n" not in v.message and len(v.message) < 600, v.message


@settings(max_examples=40, deadline=DEADLINE_MS, suppress_health_check=[HealthCheck.too_slow])
@given(doc=mutated())
def test_validate_command_exits_0_or_2_with_its_report_or_one_line(doc):
    """0 for a valid file; 2 with the report on stdout (its INVALID verdict first) for an invalid one; 2 with one
    line on stderr for a file that is not a schedule document at all."""
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "s.json"
        f.write_text(json.dumps(doc))
        code, out, err = run_cli("validate", str(f))
        if code == 2 and not err.strip():  # a readable but invalid schedule: the report is on stdout, its verdict first
            assert "Traceback" not in out and out.strip().splitlines()[0].startswith(f"{f}: INVALID"), out[-1000:]
            return
        assert_exit_0_or_one_line(code, err)  # valid, or one line on stderr: not a schedule document at all
