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
