"""The DDP communication hook trains to the same weights as plain DDP (4 gloo processes on 127.0.0.1)."""

from __future__ import annotations

import pytest
import torch

from core.execute import ScheduleHookState, build_plan, schedule_allreduce_hook
from core.execute.ddp_check import PRELOAD, ddp_match
from core.execute.launch import launch_local

from _execlib import ranks, schedule


@pytest.mark.slow
@pytest.mark.parametrize("method", ["critical-path", "ring"])
def test_ddp_hook_matches_plain_ddp(method):
    plan = build_plan(schedule("bcube:n=2,k=1", method))
    out = launch_local(ddp_match, (plan, 4), plan.world_size, name=plan.describe_rank, timeout=60,
                       preload=PRELOAD)
    assert len(out.results) == 4 and out.processes == 4
    for r in out.results:
        assert r["buckets"] >= 4  # the hook ran at least once per step
        assert r["moved"] > 1e-3  # training changed the weights
        assert r["max_rel_diff"] <= 1e-6


class FakeBucket:
    """What the hook reads from a dist.GradBucket."""

    def __init__(self, t):
        self.t = t

    def buffer(self):
        return self.t


def test_hook_returns_the_mean_in_a_completed_future():
    plan = build_plan(schedule("dcell:n=2,k=1", "greedy"))

    def body(comm):
        state = ScheduleHookState(plan, comm=comm)
        grad = torch.full((37,), float(comm.rank + 1))
        fut = schedule_allreduce_hook(state, FakeBucket(grad))
        assert fut.done()
        return fut.value(), state.buckets

    for value, buckets in ranks(6).run(body):
        assert buckets == 1
        assert torch.allclose(value, torch.full((37,), sum(range(1, 7)) / 6))


def _hook_snippets() -> list[tuple[str, str]]:
    """(file, code) of every Python block of the README and docs/execution.md that registers the hook."""
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    return [(name, code) for name in ("README.md", "docs/execution.md")
            for code in re.findall(r"```python\n(.*?)```", (root / name).read_text(encoding="utf-8"), re.S)
            if "register_comm_hook" in code]


@pytest.mark.parametrize("where, code", _hook_snippets(), ids=lambda x: x if x.endswith(".md") else "")
def test_the_docs_hook_snippet_runs_as_written(where, code, tmp_path, monkeypatch):
    """Trial 20: the README and docs/execution.md showed `ScheduleHookState(schedule)` without saying where `schedule`
    came from. Each snippet imports or makes every name it uses but the model, and runs as written: given the schedule
    file its comment's command writes, a model to hook, and rank 0 of a process group as large as the schedule."""
    import ast

    from core.cli import main
    from core.schedule_io import read_schedule_file
    tree = ast.parse(code)
    made = {a.asname or a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
            for a in n.names}
    made |= {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    assert used - made == {"ddp_model"}, where
    command = next(line.split("# allreduce-lab ")[1].split() for line in code.splitlines()
                   if "# allreduce-lab " in line)
    monkeypatch.chdir(tmp_path)
    assert main(command) == 0  # the file the snippet reads
    world = build_plan(read_schedule_file(command[command.index("--out") + 1])).world_size

    class Rank0:  # what ScheduleHookState reads of the default group
        rank, size = 0, world

    monkeypatch.setattr("core.execute.hook.DistComm", lambda group=None: Rank0())
    hooked = []

    class Model:
        def register_comm_hook(self, state, hook):
            hooked.append((state, hook))

    exec(compile(tree, where, "exec"), {"ddp_model": Model()})
    (state, hook), = hooked
    assert hook is schedule_allreduce_hook and state.world_size == world == 9
