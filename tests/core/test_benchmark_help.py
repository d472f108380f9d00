"""Every benchmark's --help is complete: a whole-sentence description and help with its default for each argument.

Read from the scripts' source (ast), so no benchmark is imported or run."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ALL = sorted((Path(__file__).resolve().parents[2] / "benchmarks").glob("bench_*.py"))
# bench_scale reads its arguments by hand (its --help is tested below); every other script uses argparse
SCRIPTS = [p for p in ALL if p.name != "bench_scale.py"]
HELPERS = sorted((Path(__file__).resolve().parents[2] / "benchmarks").glob("_*.py"))
"""Modules the scripts share (`_common.py`: --checkpoint), whose add_argument calls are read with theirs."""


def _calls(tree: ast.AST, name: str) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", None) == name]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_benchmark_help_describes_every_argument_and_a_whole_sentence(script):
    tree = ast.parse(script.read_text())
    parsers = _calls(tree, "ArgumentParser")
    assert parsers, f"{script.name} has no argparse parser"
    doc = ast.get_docstring(tree, clean=False)
    for p in parsers:  # the description argparse prints: evaluated with the module's docstring as __doc__
        (desc,) = [k.value for k in p.keywords if k.arg == "description"]
        text = eval(compile(ast.Expression(desc), script.name, "eval"), {"__doc__": doc})
        assert " ".join(text.split()).endswith("."), f"{script.name}: description stops mid-sentence: {text!r}"
    _check_arguments(tree, script.name)


@pytest.mark.parametrize("helper", HELPERS, ids=lambda p: p.name)
def test_shared_benchmark_options_have_help_with_their_default(helper):
    calls = _calls(ast.parse(helper.read_text()), "add_argument")
    assert calls, f"{helper.name} adds no option"
    _check_arguments(ast.parse(helper.read_text()), helper.name)


def _check_arguments(tree: ast.AST, name: str) -> None:
    """Every add_argument call of `tree` has help, which shows its default when it has one."""
    for call in _calls(tree, "add_argument"):
        kw = {k.arg: k.value for k in call.keywords}
        where = f"{name}:{call.lineno} {ast.unparse(call.args[0]) if call.args else ''}"
        assert "help" in kw, f"{where}: no help"
        default = kw.get("default")
        shown = default is not None and not (isinstance(default, ast.Constant) and default.value in (None, False, ""))
        if shown:
            assert "default" in ast.unparse(kw["help"]), f"{where}: the default is not shown"


ABSOLUTE = re.compile(r"(?:^|[\s(=,'\"\[])(/[^\s/]+/\S*)")
"""A POSIX absolute path with at least two parts (``/work/main/checkpoints``; not ``load / capacity``, ``GB/s``)."""
_SHOWN = ("default", "help", "choices", "metavar")
"""add_argument keywords whose values --help prints."""


def _computed(tree: ast.AST) -> bool:
    """True when a script's --help has text computed at run time: a printed add_argument keyword that is not a
    literal, a parser keyword made of more than the module's docstring, or a parser handed to a function (a shared
    helper such as benchmarks/_common.py's `add_checkpoint_option`, whose options the source does not show)."""
    for call in _calls(tree, "add_argument"):
        if any(k.arg in _SHOWN and not isinstance(k.value, ast.Constant) for k in call.keywords):
            return True
    if any({n.id for n in ast.walk(k.value) if isinstance(n, ast.Name)} - {"__doc__"}
           for call in _calls(tree, "ArgumentParser") for k in call.keywords):
        return True
    parsers = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
               and getattr(n.value.func, "attr", None) == "ArgumentParser" for t in n.targets if isinstance(t, ast.Name)}
    return any(isinstance(n, ast.Call) and any(isinstance(x, ast.Name) and x.id in parsers
                                                for x in n.args + [k.value for k in n.keywords])
               for n in ast.walk(tree))


def test_no_benchmark_help_shows_an_absolute_path():
    """--checkpoint's default printed this machine's path (/work/main/checkpoints/universal); --help shows a path in
    the repository relative to it. A script whose help is all literals and its docstring is read from the source;
    the others' --help is run, from outside the repository (importing them costs seconds each)."""
    import os
    import subprocess
    import sys
    from concurrent.futures import ThreadPoolExecutor

    root = ALL[0].parents[1]
    env = {k: v for k, v in os.environ.items() if k != "ALLREDUCE_LAB_CHECKPOINTS"}
    env.update(PYTHONPATH=str(root), COLUMNS="200")  # this checkout's core; lines unwrapped
    run = []
    for script in ALL:
        tree = ast.parse(script.read_text())
        if _computed(tree):
            run.append(script)
            continue
        texts = [ast.get_docstring(tree, clean=False) or ""] + [
            n.value for call in _calls(tree, "add_argument") + _calls(tree, "ArgumentParser") for k in call.keywords
            for n in ast.walk(k.value) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        assert not [m.group(1) for t in texts for m in ABSOLUTE.finditer(t)], script.name
    assert {p.name for p in run} >= {"bench_generalization.py", "bench_ladder.py", "bench_miss.py",
                                     "bench_temperature.py"}  # the ones that printed /work/main/checkpoints

    def help_of(script: Path) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=300,
                              cwd=Path(root).anchor, env=env)

    with ThreadPoolExecutor(2) as pool:
        for script, r in zip(run, pool.map(help_of, run)):
            assert r.returncode == 0 and not r.stderr, (script.name, r.stderr[-2000:])
            assert str(root) not in r.stdout and not ABSOLUTE.search(r.stdout), \
                (script.name, [m.group(1) for m in ABSOLUTE.finditer(r.stdout)])


def test_bench_scale_help_prints_its_usage_instead_of_a_traceback():
    """bench_scale.py reads sys.argv itself: --help printed an IndexError traceback; a bad command gets one line."""
    import subprocess
    import sys
    script = next(p for p in ALL if p.name == "bench_scale.py")
    r = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "python benchmarks/bench_scale.py quick" in r.stdout and not r.stderr
    r = subprocess.run([sys.executable, str(script), "validate"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and r.stderr.strip() == "bench_scale.py: error: unknown or incomplete command " \
                                                     "'validate' (see --help)"
