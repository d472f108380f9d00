"""The rules of every numeric and path option of the CLI, as argparse ``type=`` functions.

Each takes the option's text and returns its value, or raises ``argparse.ArgumentTypeError``
naming the rule and the value; the CLI prints that as one line and exits 2. Nothing here
writes a file: output paths are only checked (the write itself is atomic, core.atomic).
"""

from __future__ import annotations

import argparse
import math
import os
import re
import textwrap
import tempfile
from pathlib import Path
from typing import Callable

from .rl.pair import pair_file, pair_stem
from .schedule import show_opening

SEED_MAX = 2 ** 31 - 1
"""Seeds are 0..2^31-1 for every method: CP-SAT's random_seed is a 32-bit signed integer."""
_INT = re.compile(r"[+-]?[0-9]{1,19}")


def _show(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


def int_in(lo: int, hi: int) -> Callable[[str], int]:
    """An integer option in lo..hi (ASCII digits, optional sign)."""
    def parse(text: str) -> int:
        t = text.strip()
        if not _INT.fullmatch(t) or not lo <= int(t) <= hi:
            raise argparse.ArgumentTypeError(f"must be an integer in {lo}..{hi}, got {_show(text)}")
        return int(t)
    parse.__name__ = "integer"
    return parse


def positive(hi: float, what: str = "a number") -> Callable[[str], float]:
    """A number: finite, > 0 and at most `hi` (nan, inf and negatives are refused)."""
    def parse(text: str) -> float:
        try:
            x = float(text)
        except ValueError:
            x = math.nan
        if not (math.isfinite(x) and 0 < x <= hi):
            raise argparse.ArgumentTypeError(f"must be {what} in (0, {hi:g}], got {_show(text)}")
        return x
    parse.__name__ = "number"
    return parse


def seconds(hi: float) -> Callable[[str], float]:
    """A number of seconds: finite, > 0 and at most `hi`."""
    parse = positive(hi, "a number of seconds")
    parse.__name__ = "seconds"
    return parse


MAX_TEMPERATURES = 100
"""The most temperatures one --temperature lists."""


def temperature(text: str) -> float | tuple[float, ...]:
    """A sampling temperature (finite, > 0, at most 100), or a comma-separated list of them (``0.2,1``, at most
    100), over which rl-sample spreads its samples in turn: a float for one, a tuple for several."""
    one = positive(100)
    parts = text.split(",")
    try:
        if len(parts) > MAX_TEMPERATURES:
            raise argparse.ArgumentTypeError("")
        got = tuple(one(p) for p in parts)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 100] or a comma-separated list of at most "
                                         f"{MAX_TEMPERATURES} of them (0.2 or 0.2,1), got {_show(text)}") from None
    return got[0] if len(got) == 1 else got


MAX_OPENINGS = 100
"""The most openings one --opening lists (a split)."""


def _one_opening(text: str) -> tuple[float, float] | None:
    """One opening, ``T:F`` or ``none`` (`opening`'s item)."""
    if text.strip().lower() == "none":
        return None
    parts = text.split(":")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"must be T:F with a temperature T in (0, 100] and a share of the rounds F in "
                                         f"(0, 1] (1:0.3), or none, got {_show(text)}")
    try:
        t = positive(100)(parts[0])
    except (argparse.ArgumentTypeError, ValueError):
        raise argparse.ArgumentTypeError(f"must be T:F with the temperature T in (0, 100] (1:0.3); T is "
                                         f"{_show(parts[0].strip())} in {_show(text)}") from None
    try:
        f = float(parts[1])
    except ValueError:
        f = math.nan
    if not 0 < f <= 1:  # NaN included
        raise argparse.ArgumentTypeError(f"must be T:F with the share of the rounds F in (0, 1] (1:0.3); F is "
                                         f"{_show(parts[1].strip())} in {_show(text)}")
    return (t, f)


def opening(text: str) -> tuple[float, float] | None | tuple[tuple[float, float] | None, ...]:
    """rl-sample's opening, ``T:F`` (``1:0.3``: the first 30% of the rounds drawn at temperature 1; T in (0, 100],
    F in (0, 1]), or ``none`` for none; or a comma-separated list of them (at most 100), a split over which the
    samples are spread in turn (``none,0.5:0.3``: the odd samples open at 0.5, the even ones do not): a tuple then; a
    split of one opening repeated (``none,none``) is refused."""
    parts = text.split(",")
    if len(parts) == 1:
        return _one_opening(text)
    rule = (f"must be T:F (T in (0, 100], F in (0, 1]) or none, or a comma-separated list of at most {MAX_OPENINGS} "
            f"of them for a split (none,0.5:0.3)")
    if len(parts) > MAX_OPENINGS:
        raise argparse.ArgumentTypeError(f"{rule}; got {len(parts)} items in {_show(text)}")
    got = []
    for i, part in enumerate(parts, 1):
        try:
            got.append(_one_opening(part))
        except argparse.ArgumentTypeError:
            raise argparse.ArgumentTypeError(f"{rule}; item {i} is {_show(part.strip())} in {_show(text)}") from None
    if len(set(got)) == 1:  # trial 17: none,none ran as a split and was printed without its explanation
        raise argparse.ArgumentTypeError(f"a split needs different openings; write {show_opening(got[0])}, got "
                                         f"{_show(text)}")
    return tuple(got)


def seed(text: str) -> int:
    """A seed, 0..2^31-1 for every method (CP-SAT's seeds are 32-bit)."""
    return int_in(0, SEED_MAX)(text)


def writable_folder(folder: Path, what: str) -> None:
    """Refuse (``argparse.ArgumentTypeError`` naming `what`, the option or the path given) a `folder` that does not
    exist, is not a folder, or cannot be written in: the check every output path of the CLI makes of its folder
    before any work. Writability is probed by creating and removing a temporary file there."""
    if not folder.exists():
        raise argparse.ArgumentTypeError(f"{what}: folder {_show(str(folder))} does not exist")
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"{what}: {_show(str(folder))} is not a folder")
    try:  # the only sure test of writability (root ignores permission bits; /proc refuses)
        fd, probe = tempfile.mkstemp(prefix=".allreduce-lab-probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        raise argparse.ArgumentTypeError(f"{what}: cannot write in folder {_show(str(folder))} "
                                         f"({err.strerror or type(err).__name__})") from None


def out_file(text: str) -> str:
    """An output file: not a folder, in a folder that exists and can be written."""
    p = Path(text)
    if not text or text.endswith(os.sep) or p.is_dir():
        raise argparse.ArgumentTypeError(f"{_show(text)} is a folder; give a file name, e.g. {Path(text) / 's.json'}")
    writable_folder(p.parent, _show(text))
    return text


SCHEDULE_FORMS = {".json": "allreduce-schedule/1 JSON", ".npz": "its columnar form"}
"""The forms a schedule file is written in, by the name's ending (`core.schedule_io.write_schedule`)."""


def schedule_out(text: str) -> str:
    """A schedule file to write (`out_file`) whose name ends in a form the tool writes (.json or .npz; a name
    without a suffix is written as JSON): ``x.csv`` was written as JSON under a CSV name."""
    text = out_file(text)
    suffix = Path(text).suffix
    if suffix and suffix.lower() not in SCHEDULE_FORMS:
        forms = " or ".join(f"{k} ({v})" for k, v in SCHEDULE_FORMS.items())
        raise argparse.ArgumentTypeError(f"{_show(text)}: a schedule file is written as {forms}, not {_show(suffix)}; "
                                         f"give a name ending in {' or '.join(SCHEDULE_FORMS)} (or without a suffix: "
                                         "JSON)")
    return text


def csv_out(text: str) -> str:
    """A CSV file to write (`out_file`) whose name ends in .csv or has no suffix: ``jobs.json`` was written as CSV."""
    text = out_file(text)
    suffix = Path(text).suffix
    if suffix and suffix.lower() != ".csv":
        raise argparse.ArgumentTypeError(f"{_show(text)}: this file is written as CSV, not {_show(suffix)}; "
                                         "give a name ending in .csv")
    return text


def out_stem(text: str) -> str:
    """A checkpoint path without suffix: its folder exists and can be written; no file of the pair is a folder."""
    stem = pair_stem(text)
    if not text or text.endswith(os.sep) or stem.is_dir():
        raise argparse.ArgumentTypeError(f"{_show(text)} is a folder; give a checkpoint name, e.g. {stem / 'mine'}")
    for suffix in (".json", ".safetensors", ".log.csv"):
        if pair_file(stem, suffix).is_dir():
            raise argparse.ArgumentTypeError(f"{_show(str(pair_file(stem, suffix)))} is a folder")
    writable_folder(stem.parent, _show(text))
    return text


class WholeWordsFormatter(argparse.HelpFormatter):
    """argparse's help layout without breaking a line at a hyphen: ``sjf-bco``, ``rl-sample`` and
    ``critical-path`` are names and stay whole (argparse's textwrap breaks after their hyphen by default)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(self._whitespace_matcher.sub(" ", text).strip(), width, break_on_hyphens=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return textwrap.fill(self._whitespace_matcher.sub(" ", text).strip(), width, initial_indent=indent,
                             subsequent_indent=indent, break_on_hyphens=False)


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors raise UsageError (one line, exit 2) instead of printing usage, and whose help
    keeps hyphenated names whole (`WholeWordsFormatter`)."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", WholeWordsFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # noqa: D401 - argparse's hook
        # "argument --seed: must be ..." reads "--seed must be ..."
        message = re.sub(r"^argument ([^:]+): must be", r"\1 must be", message)
        raise UsageError(re.sub(r"^argument ([^:]+): ", r"\1: ", message))


class UsageError(ValueError):
    """Bad input given on the command line."""
