"""Trial 15: times below 1 µs read in ns or ps, never in scientific notation ("bandwidth bound 7.11e-05 µs" at
1 B)."""

from __future__ import annotations

import re

import pytest

from core import cli
from core.units import format_seconds, time_unit


@pytest.mark.parametrize("seconds, text", [(7.11e-11, "71.1 ps"), (1.07e-10, "107 ps"), (3e-8, "30.0 ns"),
                                           (4.56e-6, "4.56 µs"), (0.012, "12.0 ms"), (2.5, "2.50 s"), (0.0, "0 µs")])
def test_format_seconds_picks_a_readable_unit(seconds, text):
    assert format_seconds(seconds) == text


def test_format_seconds_keeps_its_trailing_zeros():
    """A table read "15 ms" beside "14.4 ms": three significant digits keep their zeros (fix28b); a whole 100 µs and
    an exact 0 have none to keep. A bare number (`plain_number`, a factor) still drops them."""
    from core.units import plain_number
    assert [format_seconds(x) for x in (0.015, 0.0144, 1.5, 1e-4, 0.0, -2e-3, 0.09996)] == \
        ["15.0 ms", "14.4 ms", "1.50 s", "100 µs", "0 µs", "-2.00 ms", "100 ms"]
    assert format_seconds(0.95e-6, ("µs", 1e6)) == "0.950 µs" and format_seconds(1.2e-6, ("µs", 1e6)) == "1.20 µs"
    assert format_seconds(1.5, digits=4) == "1.500 s" and format_seconds(1234.5) == "1234 s"
    assert plain_number(15.0) == "15" and plain_number(0.25) == "0.25"


def test_time_unit_goes_below_microseconds_only_when_every_time_is():
    assert time_unit([7.11e-11, 1.07e-10]) == ("ps", 1e12)
    assert time_unit([7.11e-11, 0.0, 3e-8]) == ("ns", 1e9)  # a 0 does not pull the unit down or up
    assert time_unit([7.11e-11, 8e-6]) == ("µs", 1e6)  # a table keeps one unit: µs when any reaches 1 µs


def test_replay_at_1_byte_prints_no_scientific_notation(tmp_path, capsys):
    out = tmp_path / "s.json"
    assert cli.main(["schedule", "bcube:3,1", "--out", str(out)]) == 0
    capsys.readouterr()
    assert cli.main(["replay", str(out), "--size", "1B"]) == 0
    text = capsys.readouterr().out
    assert "bandwidth 71.1 ps, busiest link 107 ps" in text and "bandwidth bound 71.1 ps" in text
    assert not re.search(r"\de[-+]\d", text), text
    assert "KB/s" in text  # algbw, busbw at 1 B
