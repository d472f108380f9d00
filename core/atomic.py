"""Files written whole or not at all: a temporary file in the same folder, then a rename.

The one place the project writes a file atomically (schedule files, their .npz form, checkpoints).
The file ends with the permissions a plain ``open(path, "w")`` gives it: an existing file's mode is
kept, a new file gets 0666 minus the umask (a temporary file alone would stay 0600, unreadable by
colleagues on a shared machine).
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO


def open_mode(path: str | Path) -> int:
    """The permission bits `open(path, "w")` would leave `path` with: its own if it is a file, else 0666 & ~umask."""
    try:
        st = os.stat(path)
        if stat.S_ISREG(st.st_mode):
            return stat.S_IMODE(st.st_mode)
    except OSError:
        pass
    mask = os.umask(0o022)  # the only portable way to read the umask (Python 3.11): set it, then put it back
    os.umask(mask)
    return 0o666 & ~mask


@contextmanager
def atomic_file(path: str | Path) -> Iterator[BinaryIO]:
    """A binary file to write `path` through: renamed over `path` when the block ends, removed if it fails."""
    p = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            os.fchmod(f.fileno(), open_mode(p))
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic(path: str | Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file renamed over it: a reader never sees half
    a file, and a failed write leaves nothing behind."""
    with atomic_file(path) as f:
        f.write(data)
