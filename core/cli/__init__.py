"""The ``allreduce-lab`` command line: argument parsing -> core calls; the only place that prints tables.

One module per command family registers its subcommands (`register(sub)`) and their functions.
"""

from __future__ import annotations

import sys
from typing import Sequence

from ..argtypes import OneLineParser, UsageError
from ..jit import announce_compile, on_cold_compile
from ..schedule_io import ScheduleFileError
from ..topology import TopologyError
from . import cluster, compare, run, schedule, topology, train
from .common import machine_output

COMMAND_MODULES = (topology, schedule, compare, run, train, cluster)


def build_parser() -> OneLineParser:
    """The argument parser with every subcommand."""
    ap = OneLineParser(prog="allreduce-lab", description="AllReduce scheduling lab: topologies, methods, time, "
                                                         "real execution and cluster simulation.")
    ap.add_argument("--version", action="version", version=f"allreduce-lab {_version()}")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")  # not the 96-column {a,b,...}
    for module in COMMAND_MODULES:
        module.register(sub)
    ap.commands = list(sub.choices)  # for the one-line hint when no command is given
    ap.subcommands = dict(sub.choices)  # for joining an option to a value that starts with "-"
    return ap


def _version() -> str:
    """The installed package's version ("unknown" when run from a tree that is not installed)."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("allreduce-lab")
    except PackageNotFoundError:
        return "unknown"


def _join_dashed_values(argv: list[str], parser: OneLineParser) -> list[str]:
    """`--size -5MB` as `--size=-5MB`: argparse takes a value that starts with "-" and is not a plain number
    for an option, and would answer "expected one argument" instead of the rule the value breaks. A token
    after an option that takes a value is joined to it unless it is an option itself (`--size --format`
    still reads "expected one argument")."""
    takes, known = set(), set()
    for p in [parser, *parser.subcommands.values()]:
        for action in p._actions:  # argparse has no public list of a parser's options
            known.update(action.option_strings)
            if action.nargs is None and action.option_strings:
                takes.update(action.option_strings)
    out: list[str] = []
    for tok in argv:
        if out and out[-1] in takes and tok.startswith("-") and tok not in known and tok.split("=")[0] not in known:
            out[-1] = f"{out[-1]}={tok}"
        else:
            out.append(tok)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit code (2 for bad input)."""
    try:
        parser = build_parser()
        given = sys.argv[1:] if argv is None else list(argv)
        if not given:
            raise UsageError("choose a command: " + ", ".join(parser.commands)
                             + " (allreduce-lab --help; allreduce-lab COMMAND --help)")
        args = parser.parse_args(_join_dashed_values(given, parser))
        if not machine_output(args):
            announce_compile()
        try:
            return args.func(args)
        finally:
            on_cold_compile(None)
    except (TopologyError, ScheduleFileError, UsageError, ValueError) as err:
        msg = str(err.args[0] if err.args else err)
        print(f"allreduce-lab: error: {msg.splitlines()[0] if msg else type(err).__name__}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output cut short (`| head`): stop quietly, as Unix tools do (before OSError: it is one)
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as err:  # a file that cannot be read or written: its name and the reason, not an errno
        print(f"allreduce-lab: error: {err.filename or ''}: {err.strerror or type(err).__name__}", file=sys.stderr)
        return 2
    except MemoryError:
        print("allreduce-lab: error: out of memory (the size guard's estimate was too low, or --force was given); "
              "try a smaller size (docs/limits.md)", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("allreduce-lab: interrupted", file=sys.stderr)
        return 130
