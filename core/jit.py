"""Whether numba's compiled kernels are cached yet: the first run in a fresh checkout compiles
them (about 20 s of CPU on 2 cores, docs/scale.md), and the CLI and the dashboard say so
instead of going quiet."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import TextIO

CORE = Path(__file__).resolve().parent
COLD_NOTE = ("first run in this checkout: compiling the numba kernels once (5-20 s, by what runs; cached in "
             "__pycache__ afterwards, docs/scale.md)")


def cache_dir() -> Path:
    """Where numba keeps its cache: ``NUMBA_CACHE_DIR`` when set, else the package's ``__pycache__`` folders."""
    return Path(os.environ["NUMBA_CACHE_DIR"]) if os.environ.get("NUMBA_CACHE_DIR") else CORE


_warm: set[Path] = set()
"""Cache folders already found warm: a warm cache stays warm, so the dashboard's reruns skip the folder walk."""


def kernels_cached() -> bool:
    """True when numba has cached at least one of core's kernels (an index file ``*.nbi``)."""
    root = cache_dir()
    if root not in _warm and root.is_dir() and next(root.rglob("*.nbi"), None) is not None:
        _warm.add(root)
    return root in _warm


def announce_compile(stream: TextIO | None = None, prefix: str = "allreduce-lab: ",
                     delay: float = 2.0) -> threading.Timer | None:
    """On a terminal with a cold cache, print COLD_NOTE after `delay` seconds unless the returned
    timer is cancelled first: quick commands (and one-line errors) stay as they are."""
    stream = sys.stderr if stream is None else stream
    if not getattr(stream, "isatty", lambda: False)() or kernels_cached():
        return None
    timer = threading.Timer(delay, lambda: print(prefix + COLD_NOTE, file=stream, flush=True))
    timer.daemon = True
    timer.start()
    return timer
