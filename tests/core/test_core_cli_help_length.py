"""Every command's --help reads in an 80-column terminal, and no option's help is a paragraph (fix23a: schedule's
--checkpoint help was 289 characters, 6 lines; cluster's --trace 696, 13 lines; the top-level usage line 96 columns
wide, as argparse does not break the ``{topology,schedule,...}`` list)."""

from __future__ import annotations

import argparse
import re

import pytest

from core.cli import build_parser, main

HELP_MAX = 350
"""Most characters an option's help may have: about six lines in the 56 columns argparse leaves it in an 80-column
terminal; what is longer belongs in the command's epilog or in docs/."""

PARSER = build_parser()
COMMANDS = next(a for a in PARSER._actions if isinstance(a, argparse._SubParsersAction)).choices


def _helps():
    """(command, option, its help as printed) of every argument of every command."""
    for name, parser in COMMANDS.items():
        fmt = parser._get_formatter()
        for action in parser._actions:
            if action.help and action.help is not argparse.SUPPRESS:
                yield name, "/".join(action.option_strings) or action.dest, " ".join(fmt._expand_help(action).split())


@pytest.mark.parametrize("command,option,text", list(_helps()), ids=lambda x: x if len(x) < 30 else "")
def test_no_options_help_is_a_paragraph(command, option, text):
    assert len(text) <= HELP_MAX, (command, option, len(text), text)


@pytest.mark.parametrize("command", ["schedule", "compare"])
def test_the_checkpoint_help_is_short(command):
    (text,) = [t for c, o, t in _helps() if c == command and o == "--checkpoint"]
    assert len(text) <= 120, text


@pytest.mark.parametrize("argv", [[]] + [[name] for name in COMMANDS], ids=lambda a: " ".join(a) or "top")
def test_help_fits_an_80_column_terminal(argv, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit):
        main(argv + ["--help"])
    out = capsys.readouterr().out
    wide = [line for line in out.splitlines() if len(line) > 80]
    assert out and not wide, wide


@pytest.mark.parametrize("argv", [[name] for name in COMMANDS], ids=lambda a: " ".join(a))
def test_help_keeps_hyphenated_names_whole(argv, capsys, monkeypatch):
    """argparse's wrapping broke a line after a hyphen (``sjf-`` / ``bco|gavel``); names such as sjf-bco,
    rl-sample and critical-path stay on one line (core.argtypes.WholeWordsFormatter)."""
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit):
        main(argv + ["--help"])
    broken = [line for line in capsys.readouterr().out.splitlines() if re.search(r"[A-Za-z]-$", line)]
    assert not broken, broken
