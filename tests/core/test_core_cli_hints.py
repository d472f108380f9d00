"""Hints the CLI gives a new user: the one-time numba compile is announced, a bare command lists the commands."""

from __future__ import annotations

import io
import time

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


def test_note_only_on_a_terminal_with_a_cold_cache_and_only_for_slow_work(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # empty: cold
    slow = Terminal()
    timer = jit.announce_compile(slow, delay=0.05)
    timer.join(2)
    assert slow.getvalue() == "allreduce-lab: " + jit.COLD_NOTE + "\n"
    quick = Terminal()
    jit.announce_compile(quick, delay=0.5).cancel()  # the command ended first: nothing printed
    time.sleep(0.6)
    assert quick.getvalue() == ""
    assert jit.announce_compile(io.StringIO(), delay=0.0) is None  # not a terminal (pipes, tests, CI logs)
    (tmp_path / "x.nbi").write_bytes(b"")
    assert jit.announce_compile(Terminal(), delay=0.0) is None  # warm


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
