"""Every benchmark's --help is complete: a whole-sentence description and help with its default for each argument.

Read from the scripts' source (ast), so no benchmark is imported or run."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ALL = sorted((Path(__file__).resolve().parents[2] / "benchmarks").glob("bench_*.py"))
# bench_scale reads its arguments by hand (its --help is tested below); every other script uses argparse
SCRIPTS = [p for p in ALL if p.name != "bench_scale.py"]


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
    for call in _calls(tree, "add_argument"):
        kw = {k.arg: k.value for k in call.keywords}
        where = f"{script.name}:{call.lineno} {ast.unparse(call.args[0]) if call.args else ''}"
        assert "help" in kw, f"{where}: no help"
        default = kw.get("default")
        shown = default is not None and not (isinstance(default, ast.Constant) and default.value in (None, False, ""))
        if shown:
            assert "default" in ast.unparse(kw["help"]), f"{where}: the default is not shown"


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
