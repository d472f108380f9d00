"""Shared pieces of the fuzzers: hostile JSON values, cheap limits, and the one-line CLI check."""

from __future__ import annotations

import contextlib
import io
import os

import pytest
from hypothesis import strategies as st

from core import cli

DEADLINE_MS = 30_000
"""Hypothesis's per-example wall deadline for every fuzzer (and the property tests that build topologies): it
catches an example that blows up (a hang, a super-linear pass), not the machine's load. At 2-5 s, a ~1 ms example
took 4.5 s in a fresh-clone CI run beside another suite on a shared 2-core machine (load ~3) and failed the run;
speed is the benchmarks' business, not a unit test's."""

# JSON scalars a hostile file may hold: huge and negative integers, floats (nan and inf too: Python's
# json reads them), odd strings (Unicode digits, empty, long), booleans and null.
SCALARS = st.one_of(
    st.integers(-2 ** 70, 2 ** 70), st.sampled_from([0, 1, -1, 2 ** 31, 2 ** 63, 2 ** 64, 10 ** 9]),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
    st.sampled_from(["", "server", "switch", "reduce", "broadcast", "\u0661", "1_0", "x" * 300]),
    st.booleans(), st.none())
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                          max_size=4), max_leaves=12)


@pytest.fixture(scope="module", autouse=True)
def cheap_limits():
    """Module-wide: the size guard refuses anything over ~0.05 s or 256 MiB (keeps every example fast)."""
    old = {k: os.environ.get(k) for k in ("ALLREDUCE_LAB_MAX_SECONDS", "ALLREDUCE_LAB_MAX_MEMORY")}
    os.environ.update(ALLREDUCE_LAB_MAX_SECONDS="0.05", ALLREDUCE_LAB_MAX_MEMORY="256MiB")
    yield
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def run_cli(*argv: str) -> tuple[int, str, str]:
    """cli.main in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def assert_exit_0_or_one_line(code: int, err: str) -> None:
    """Success, or exit 2 with exactly one short line on stderr and no traceback."""
    assert "Traceback" not in err, err
    if code == 0:
        return
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and len(lines[0]) < 600, (code, err[-1000:])


def assert_one_line(err: BaseException) -> None:
    """An exception whose message is one short line."""
    msg = str(err)
    assert msg and "\n" not in msg and len(msg) < 600, msg
