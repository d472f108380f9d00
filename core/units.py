"""Units of the time model: one parser each for message sizes, link bandwidths and latencies.

Sizes are bytes (``100MB`` = 100·10^6 B; ``KiB``/``MiB``/``GiB`` are powers of 1024), link
bandwidths are Gbit/s per direction (a bare number), latencies are microseconds (a bare number;
``ns``/``us``/``µs``/``ms``/``s`` suffixes accepted). Every parser raises `UnitError` (a ValueError)
with one line naming the rule and the value.

One rule tells bits from bytes, the case of the letter b (docs/time.md, units):

- a rate with a capital ``B`` is bytes per second, 8 bits each: ``GB/s``, ``GBps``, ``MB/s``, ``TBps``;
  a lowercase ``b`` or ``bit`` is bits: ``Gbps``, ``Gb/s``, ``Gbit/s``, ``400Mbps`` (the prefix's case
  does not matter: ``gbps`` is Gbit/s);
- a size is always bytes: ``MB``, ``kB``, ``MiB``, or all lowercase (``100mb``, no case told apart); a
  capital prefix with a lowercase ``b`` (``10Mb``, ``1Gb``, ``4Kib``) or any ``bit`` (``1Gbit``) names bits,
  and is refused with one line that gives the byte unit to write; a bare lowercase ``b`` (``1b``: bits in a rate,
  bytes in a size) is refused as ambiguous, naming ``1B`` and what ``8bit`` would be.

>>> parse_size("100MB"), parse_size("1KiB"), parse_bandwidth("25"), parse_bandwidth("50GBps"), parse_latency("500ns")
(100000000, 1024, 25.0, 400.0, 0.5)
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from .text import clip

DEFAULT_SIZE = "100MB"
"""Default AllReduce message size M (the issue's example; a mid-size gradient bucket set)."""

_SIZE_UNITS = {"": 1, "b": 1, "kb": 10 ** 3, "mb": 10 ** 6, "gb": 10 ** 9, "tb": 10 ** 12,
               "kib": 2 ** 10, "mib": 2 ** 20, "gib": 2 ** 30, "tib": 2 ** 40}
_BW_PREFIX = {"m": 1e-3, "g": 1.0, "t": 1e3}
"""Gbit/s per bit/s of a rate prefix (either case)."""
_BW_BITS = ("bps", "b/s", "bit/s", "bits/s")
"""Rate endings in bits: the letter forms with the lowercase b as written (case-sensitive), the words in any case."""
_BW_BYTES = ("Bps", "B/s", "byte/s", "bytes/s")
"""Rate endings in bytes, 8 bits each: the letter forms with the capital B as written, the words in any case."""
_BW_UNITS = {"": 1.0, **{p + e: f for p, f in _BW_PREFIX.items() for e in _BW_BITS},
             **{p + e: 8 * f for p, f in _BW_PREFIX.items() for e in _BW_BYTES}}
"""Every rate unit (prefix lowercase; `_bandwidth_unit` maps what was written onto these), to Gbit/s."""
_LAT_UNITS = {"": 1.0, "us": 1.0, "\u00b5s": 1.0, "\u03bcs": 1.0, "ns": 1e-3, "ms": 1e3, "s": 1e6}
_NUMBER = re.compile(r"^\s*([+-]?[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([^\s0-9.][^\s]*)?\s*$")


class UnitError(ValueError):
    """A size, bandwidth or latency that cannot be read (the message names the rule and the value)."""


_SHOWN = {id(_SIZE_UNITS): "B, KB, MB, GB, TB, KiB, MiB, GiB, TiB",
          id(_BW_UNITS): "Mbps, Gbps, Tbps, Gbit/s (bits; none: Gbit/s) or MBps, GBps, TBps, GB/s (bytes, 8 bits each; "
                         "in a spec write GBps, since '/' separates link levels)",
          id(_LAT_UNITS): "ns, us, ms, s (or none: µs)"}


def _shown(text: object, limit: int = 60) -> str:
    """`text` as a refusal quotes it: its repr, clipped (a schedule file's link field can hold a list of long strings:
    the fuzz test's 673-character message)."""
    return clip(repr(text), limit)


def _split(text: object, what: str, units: dict, hint: str, key=str.lower) -> tuple[float, float]:
    """(number, unit factor) of a value given as a number or a string with an optional unit (`key` maps the
    unit as written onto `units`' keys; None for one it refuses before the lookup)."""
    if isinstance(text, bool):
        raise UnitError(f"{what} must be a number{hint}, got {_shown(text)}")
    if isinstance(text, (int, float)):
        value, factor = float(text), 1.0
    else:
        m = _NUMBER.match(text) if isinstance(text, str) else None
        if m is None:
            if isinstance(text, str) and _not_finite(text):  # inf, -inf, nan: the same rule as 1e400's
                raise UnitError(f"{what} must be a finite number, got {_shown(text)}")
            raise UnitError(f"{what} must be a number{hint}, got {_shown(text)}")
        unit = key(m.group(2) or "")
        if unit not in units:
            raise UnitError(f"{what}: unknown unit {_shown(m.group(2), 20)} in {_shown(text)}; use {_SHOWN[id(units)]}")
        value, factor = float(m.group(1)), units[unit]
    if not math.isfinite(value):
        raise UnitError(f"{what} must be a finite number, got {_shown(text)}")
    return value, factor


def _not_finite(text: str) -> bool:
    """Whether `text` is a float that is not finite (``inf``, ``-Infinity``, ``nan``)."""
    try:
        return not math.isfinite(float(text.strip()))
    except ValueError:
        return False


_PREFIX_NAME = {"k": "kilo", "m": "mega", "g": "giga", "t": "tera", "ki": "kibi", "mi": "mebi", "gi": "gibi", "ti": "tebi"}
_BITS = re.compile(r"^(?:(?P<p>[KMGT]i?)b|(?P<q>[kmgt]i?)?bits?)$", re.IGNORECASE)


def _size_bits(text: str, value: str, unit: str, what: str) -> None:
    """Refuse a size written in bits (a capital prefix with a lowercase b, or ``bit``), naming the byte unit."""
    m = _BITS.match(unit)
    if m is None or (m.group("p") is not None and (unit[0].islower() or unit[-1] == "B")):
        return  # not bits: "MB", "kB", "mb" (all lowercase tells no case apart), "MiB", "mib"
    prefix = (m.group("p") or m.group("q") or "").lower()
    byte_unit = (prefix[:1].upper() + prefix[1:] + "B") if prefix else "B"
    bits = f"{_PREFIX_NAME[prefix]}bits" if prefix else "bits"
    raise UnitError(f"{what}: {_shown(text.strip())} is in {bits}, but sizes are in bytes; write {byte_unit} "
                    f"({bits.replace('bits', 'bytes')}): {value}{unit} = {float(value) / 8:g}{byte_unit}")


def _bare_b(text: str, value: str, what: str) -> None:
    """Refuse a size whose unit is a bare lowercase ``b``: a rate reads it as bits (``25Gbps``), so ``1b`` may mean
    1 bit as well as the 1 byte it read as (trial 16)."""
    n = float(value)
    raise UnitError(f"{what}: {_shown(text.strip())} is ambiguous (a bare b may be a byte or a bit): write {value}B for "
                    f"{value} byte{'' if n == 1 else 's'} or {value}bit for bits ({n / 8:g}B)")


MAX_SIZE_BYTES = 2 ** 50
"""The largest message size taken, 1 PiB: a trillion-parameter model's fp32 gradients are 4 TB; past this a time
report reads nothing a user can act on (trial 27: ``--size 1e30B`` printed "time for 1e+18 TB")."""


def parse_size(text: object, what: str = "size") -> int:
    """Bytes of a message size such as ``100MB``, ``1.5GiB`` or ``4096`` (bytes); must be > 0. A size in bits
    (``10Mb``, ``1Gbit``) is refused with the byte unit to write, and one in a bare lowercase ``b`` (``1b``) as
    ambiguous (see the module's rule)."""
    if isinstance(text, str) and (m := _NUMBER.match(text)) is not None and m.group(2):
        if m.group(2) == "b":
            _bare_b(text, m.group(1), what)
        _size_bits(text, m.group(1), m.group(2), what)
    value, factor = _split(text, what, _SIZE_UNITS, " of bytes, optionally with a unit B, KB, MB, GB, TB, KiB, MiB, GiB, TiB")
    size = value * factor
    if size < 1:
        negative = " (a size cannot be negative)" if value < 0 else ""
        raise UnitError(f"{what} must be at least 1 byte{negative}, got {_shown(text)}")
    if size > MAX_SIZE_BYTES:
        raise UnitError(f"{what} must be at most 1024TiB, got {_shown(text)}")
    return int(round(size))


def _bandwidth_unit(unit: str) -> str | None:
    """The `_BW_UNITS` key of a rate unit as written: the prefix in either case, then an ending of `_BW_BITS` or
    `_BW_BYTES`: a letter form (``bps``, ``B/s``) as written, the case of its b telling bits from bytes, or a word
    (``bit/s``, ``Bytes/s``) in any case. An all-uppercase ``GBPS`` tells nothing apart: None."""
    if unit == "":
        return ""
    prefix, end = unit[:1].lower(), unit[1:]
    word = end.lower()
    for ends in (_BW_BITS, _BW_BYTES):
        if end in ends:
            return prefix + end
        if word in ends and word[1:2] not in ("p", "/"):  # a word; "BPS" is no letter form of either
            return prefix + word
    return None


def parse_bandwidth(text: object, what: str = "bandwidth") -> float:
    """Gbit/s of a link bandwidth such as ``100``, ``25Gbps``, ``400Mbps`` or ``50GBps`` (gigabytes per
    second: 400 Gbit/s); must be > 0."""
    value, factor = _split(text, what, _BW_UNITS, " in Gbit/s", key=_bandwidth_unit)
    if value <= 0:
        raise UnitError(f"{what} must be > 0 Gbit/s, got {_shown(text)}")
    return value * factor


def parse_latency(text: object, what: str = "latency") -> float:
    """Microseconds of a link latency such as ``1``, ``500ns`` or ``0.002ms``; must be >= 0."""
    value, factor = _split(text, what, _LAT_UNITS, " in µs")
    if value < 0:
        raise UnitError(f"{what} must be >= 0 µs, got {_shown(text)}")
    return value * factor


def show_apart(a: float, b: float, digits: int = 6) -> tuple[str, str]:
    """`a` and `b` as text, to `digits` significant digits (``100``, ``25``), or with as many more as it takes to
    tell two different numbers apart (``100.0000001`` beside ``100``: trial 16's "at 100 Gbit/s, faster than its
    100 Gbit/s"); equal numbers read the same."""
    for p in range(digits, 18):
        x, y = f"{a:.{p}g}", f"{b:.{p}g}"
        if x != y or a == b:
            return x, y
    return repr(float(a)), repr(float(b))


def gbps_to_bytes(gbps: float | object) -> float | object:
    """Bytes per second of a bandwidth in Gbit/s (works on numpy arrays too)."""
    return gbps * (1e9 / 8)


def format_size(n_bytes: float) -> str:
    """A readable size: ``100 MB`` in decimal units, but ``1 GiB`` where the size is a whole binary one that the
    decimal units would show rounded or longer (a user who typed 1GiB should not read 1.074 GB)."""
    for (unit, f), (bunit, bf) in zip((("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("KB", 1e3)),
                                      (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))):
        dec = f"{n_bytes / f:.4g} {unit}" if n_bytes >= f else None
        binary = f"{n_bytes / bf:.4g} {bunit}" if n_bytes >= bf and _exact(n_bytes / bf) else None
        if binary and (dec is None or not _exact(n_bytes / f) or len(binary) <= len(dec)):
            return binary
        if dec:
            return dec
    return f"{n_bytes:.0f} B"


def _exact(x: float) -> bool:
    """Whether four significant digits show `x` exactly."""
    return float(f"{x:.4g}") == x


TIME_UNITS = (("s", 1.0), ("ms", 1e3), ("µs", 1e6), ("ns", 1e9), ("ps", 1e12))
"""The units durations are shown in, and each one's count per second."""


def magnitudes(values: Iterable[float]) -> list[float]:
    """The sizes a unit is picked from (`time_unit`'s, `rate_unit`'s, the dashboard's shared unit): each value's
    absolute value (a time lost may be negative), NaN left out (it does not count)."""
    return [abs(float(x)) for x in values if not math.isnan(x)]


def time_unit(seconds: Iterable[float]) -> tuple[str, float]:
    """The one unit (name, count per second) for durations shown together, a table's or a single value's: µs when
    every one is under 1 ms, s when every one is 1 s or more, else ms (and ms for none); below 1 µs, ns when every
    one that is not 0 is under 1 µs, ps when every one is under 1 ns (the bandwidth bound of a 1 B message: 71.1 ps,
    not 7.11e-05 µs). Signs are ignored (a time lost may be negative); NaN does not count."""
    sizes = magnitudes(seconds)
    nonzero = [x for x in sizes if x > 0]
    if nonzero and all(x < 1e-9 for x in nonzero):
        return TIME_UNITS[4]
    if nonzero and all(x < 1e-6 for x in nonzero):
        return TIME_UNITS[3]
    if sizes and all(x < 1e-3 for x in sizes):
        return TIME_UNITS[2]
    if sizes and all(x >= 1 for x in sizes):
        return TIME_UNITS[0]
    return TIME_UNITS[1]


def format_seconds(seconds: float, unit: tuple[str, float] | None = None, digits: int = 3) -> str:
    """A readable duration, 3 significant digits (`digits`) in the unit `time_unit` picks for it alone: ``12.3 ms``,
    ``4.56 µs``, ``1.20 s``, ``71.1 ps``; or in `unit` (a `TIME_UNITS` pair), the one of durations shown side by side
    (``0.950 µs`` beside ``1.20 µs``). Trailing zeros are kept (``15.0 ms`` beside ``14.4 ms``, not ``15 ms``; ``100
    µs`` and an exact ``0 µs`` have none to keep). Never in scientific notation (`plain_number`)."""
    name, per_second = unit or time_unit([seconds])
    return f"{plain_number(seconds * per_second, digits, zeros=True)} {name}"


def seconds_in(seconds: float, per_second: float, digits: int = 3, zeros: bool = False) -> str:
    """The number of a duration in a unit (`per_second` of it make a second), `digits` significant digits, never in
    scientific notation (`plain_number`): a value under 0.0001 of its unit (a duration under 1 ps, which no link of
    this model takes, or a time lost far smaller than the run) or of 10^digits or more reads with the decimals it
    needs. `zeros`: keep trailing zeros, as `format_seconds` does (``15.0`` beside ``14.4``)."""
    return plain_number(seconds * per_second, digits, zeros)


def plain_number(value: float, digits: int = 3, zeros: bool = False) -> str:
    """A number with no unit (a ratio such as a slow-down's factor: ``0.25``), `digits` significant digits, never in
    scientific notation: a value under 0.0001 or of 10^digits or more reads with the decimals it needs
    (``0.00001000``, ``12346``). `zeros` keeps the trailing zeros of the `digits` digits (``15.0``, ``1.50``; ``100``
    and ``0`` as they are)."""
    text = f"{value:{'#' if zeros and value != 0 else ''}.{digits}g}"
    if "e" in text:
        text = f"{value:.{max(0, digits - math.floor(math.log10(abs(value))))}f}"
    return text.rstrip(".")


RATE_UNITS = (("GB/s", 1e9), ("MB/s", 1e6), ("KB/s", 1e3), ("B/s", 1.0))
"""The units rates (algbw, busbw: bytes per second, decimal as nccl-tests') are shown in, and each one's bytes per
second."""


def rate_unit(bytes_per_second: Iterable[float]) -> tuple[str, float]:
    """The one unit (name, bytes per second) for rates shown together, as `time_unit` does for durations: GB/s, or
    the largest unit the largest rate reaches 1 in (MB/s at 1 KB messages, KB/s at 1 B: not ``0.00 GB/s``), B/s
    below that; GB/s for none. NaN does not count."""
    top = max(magnitudes(bytes_per_second), default=math.inf)
    return next(((name, f) for name, f in RATE_UNITS if top >= f), RATE_UNITS[-1])


def rate_in(bytes_per_second: float, per_unit: float) -> str:
    """The number of a rate (algbw, busbw) in a unit of `rate_unit` (`per_unit` bytes per second), two decimals, as
    the CLI's time lines print it (``999.66``); the dashboard's cards print the same text (trial 27: ``1e+03`` on the
    player's card where the CLI said ``999.66 MB/s``)."""
    return f"{bytes_per_second / per_unit:.2f}"


RATIO_FROM = 10.0
"""From this many times its bound up, a time's gap to the bound is written as that ratio (``422,000x``), not in
percent: at 1 B the gap to the bandwidth bound read ``42,187,612.5%``."""


def gap_shown(fraction: float) -> tuple[str, float]:
    """A time's gap to a bound (`fraction` = time / bound - 1, `core.bounds.gap`) as text, and the gap in percent
    that the text shows (the number a table sorts by): below `RATIO_FROM` times the bound in percent, one decimal,
    thousands separated (``12.5%``, ``864.3%``: 12.5, 864.3), from there the ratio time / bound to 3 significant
    digits (``10.0x``, ``42.2x``, ``422,000x``: 900.0, 4120.0, 42199900.0), from 10^9 in powers of ten
    (``4.22e9x``)."""
    ratio = 1.0 + float(fraction)
    if not ratio >= RATIO_FROM or math.isinf(ratio):  # NaN and inf read as the percent they are
        percent = 100 * float(fraction)
        return f"{percent:,.1f}%", round(percent, 1)
    r = float(f"{ratio:.3g}")  # the shown ratio: 3 significant digits
    if r < 100:
        text = f"{r:.1f}x"
    elif r < 1e9:
        text = f"{r:,.0f}x"
    else:
        mantissa, _, power = f"{r:.2e}".partition("e")
        text = f"{mantissa}e{int(power)}x"
    return text, round(100 * (r - 1), 1)


def gap_text(fraction: float) -> str:
    """`gap_shown`'s text: ``12.5%``, ``422,000x``."""
    return gap_shown(fraction)[0]


def gap_words(fraction: float, bound: str) -> str:
    """A gap and the bound it is to, as a sentence part: ``864.3% above the bandwidth bound``, from `RATIO_FROM`
    times it up ``422,000x the bandwidth bound``."""
    text = gap_text(fraction)
    return f"{text} {bound}" if text.endswith("x") else f"{text} above {bound}"
