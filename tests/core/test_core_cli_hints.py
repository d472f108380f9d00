"""Hints the CLI gives a new user: the one-time numba compile is announced, a bare command lists the commands."""

from __future__ import annotations

import io
import time

import pytest

from core import jit


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_kernels_cached_reads_numba_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert not jit.kernels_cached()
    (tmp_path / "core" / "__pycache__").mkdir(parents=True)
    (tmp_path / "core" / "__pycache__" / "greedy._round-117.py311.nbi").write_bytes(b"")
    assert jit.kernels_cached()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "missing"))
    assert not jit.kernels_cached()


def test_note_only_on_a_terminal_and_once_before_the_first_kernel_not_cached(monkeypatch):
    """Trial 9: the note said nothing when some kernel was cached (a critical-path run before) but those a
    command runs (rl-sample) were not; it is now printed when a kernel about to run must be compiled."""
    cached = {"yes": False}
    monkeypatch.setattr(jit, "kernel_cached", lambda dispatcher: cached["yes"])

    def fresh():  # a kernel whose dispatcher this process has not made yet
        return jit.Kernel(lambda x: x + 1)

    term = Terminal()
    assert jit.announce_compile(term)
    assert term.getvalue() == ""  # nothing compiled yet: a quick command or an error prints nothing
    fresh()(1)
    fresh()(2)
    assert term.getvalue() == "allreduce-lab: " + jit.COMPILE_NOTE + "\n"  # once
    warm = Terminal()
    cached["yes"] = True
    jit.announce_compile(warm)
    fresh()(1)
    assert warm.getvalue() == ""
    jit.on_cold_compile(None)
    cached["yes"] = False
    assert not jit.announce_compile(io.StringIO())  # not a terminal (pipes, tests, CI logs)
    fresh()(1)


def _cold_cli(monkeypatch, argv: list[str]) -> str:
    """stderr of a CLI run on a terminal whose kernels all count as not cached (their dispatchers made anew)."""
    import sys

    from core import cli
    kernels = {id(k): k for name, mod in list(sys.modules.items()) if name.startswith("core.")
               for k in vars(mod).values() if isinstance(k, jit.Kernel)}
    for k in kernels.values():
        monkeypatch.setattr(k, "_dispatcher", None)
    monkeypatch.setattr(jit, "kernel_cached", lambda dispatcher: False)
    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    assert cli.main(argv) == 0
    return term.getvalue()


def test_cli_says_it_compiles_on_a_terminal(monkeypatch, capsys):
    err = _cold_cli(monkeypatch, ["schedule", "bcube:2,1", "--method", "critical-path"])
    assert err == "allreduce-lab: " + jit.COMPILE_NOTE + "\n"


@pytest.mark.parametrize("argv", [["schedule", "bcube:2,1", "--format", "json"],
                                  ["compare", "bcube:2,1", "--methods", "ring", "--format", "csv"]])
def test_cli_says_nothing_when_machine_output_is_asked_for(argv, monkeypatch, capsys):
    assert "compiling" not in _cold_cli(monkeypatch, argv)  # a terminal still sees compare's progress bar


def test_no_command_names_every_command_in_one_line(capsys):
    from core import cli
    assert cli.main([]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "choose a command: topology, schedule" in err[0] and "cluster-train" in err[0]


def test_output_cut_short_by_a_closed_pipe_stops_quietly():
    """`allreduce-lab ... | head`: the reader closes the pipe before the command writes; the command stops with
    141 and writes nothing on stderr (a BrokenPipeError is an OSError; it used to read 'error: : Broken pipe')."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte is written
    try:
        p = subprocess.run([sys.executable, "-m", "core.cli", "topology", "bcube:n=2,k=1"], stdout=write,
                           stderr=subprocess.PIPE, text=True, cwd=root, env={**os.environ, "PYTHONPATH": str(root)},
                           timeout=120)
    finally:
        os.close(write)
    assert p.returncode == 141 and p.stderr == "", (p.returncode, p.stderr)


def _schedule_option(option: str):
    """The argparse action of one option of `schedule`."""
    import argparse

    from core.cli import build_parser
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return next(a for a in sub.choices["schedule"]._actions if option in a.option_strings)


def test_readme_names_every_routing_mode_the_cli_takes():
    """README's quick tour listed shortest and balanced; --routing also takes bandwidth."""
    from pathlib import Path

    from core.routing import ROUTING_MODES
    assert tuple(_schedule_option("--routing").choices) == ROUTING_MODES
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    start = readme.index("Routing: `--routing")
    sentence = readme[start:readme.index(".\n", start)]
    assert [m for m in ROUTING_MODES if f"`{m}`" not in sentence and f"--routing {m}`" not in sentence] == []


def test_link_option_help_names_every_form_they_take():
    """--fail-links' help said random:FRACTION, but a whole number is a count (random:3), and ids and label pairs
    mix; every form the help names is accepted."""
    from core.topology import degrade, make_topology
    t = make_topology("bcube:n=3,k=1")
    for option, key, forms in (("--fail-links", "fail", ["3,17", "s00-sw0.0,4", "random:0.05,seed=1", "random:3"]),
                               ("--slow-links", "slow", ["3:25,s00-sw0.0:x0.5", "random:0.1x0.25,seed=1",
                                                         "random:3x0.5"])):
        text = " ".join(_schedule_option(option).help.split())
        assert "whole count" in text, (option, text)
        for form in forms:
            assert form in text, (option, form, text)
            degrade(t, **{key: form})


KERNEL_RUN = """
import io, sys
sys.path.insert(0, sys.argv[1])
from core import jit
import kmod

class Terminal(io.StringIO):
    def isatty(self):
        return True

term = Terminal()
jit.announce_compile(term)
kmod.twice(float(sys.argv[2]) if "." in sys.argv[2] else int(sys.argv[2]))
print(term.getvalue(), end="")
"""


def test_a_kernel_cached_for_other_argument_types_says_it_compiles(tmp_path):
    """The check when a kernel's dispatcher is made sees an index with an entry for some argument types and counted
    the kernel as cached: a call with other types compiled anew without a word. numba's compile event says it."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    (tmp_path / "kmod.py").write_text("from core.jit import kernel\n\n\n@kernel\ndef twice(x):\n    return 2 * x\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[2]), os.environ.get("PYTHONPATH", "")])}

    def run(arg: str) -> str:
        done = subprocess.run([sys.executable, "-c", KERNEL_RUN, str(tmp_path), arg], env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout

    note = "allreduce-lab: " + jit.COMPILE_NOTE + "\n"
    assert run("1") == note  # nothing cached: said when the dispatcher is made
    assert run("2") == ""  # an int again: loaded from the cache, nothing compiles
    assert run("2.5") == note  # a float: cached for an int only, so it compiles (said nothing before)
    assert run("3.5") == ""
