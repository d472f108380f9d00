"""Trial 15: `run --size 999B` printed algbw/busbw "0" GB/s in every row; its table now takes the one unit rule of
schedule, replay and compare (core.units.rate_unit, time_unit)."""

from __future__ import annotations

from core.cli.run import run_table
from core.timing.model import algbw, busbw


def _row(rep: int, nbytes: float, t_sched: float, t_ar: float, ranks: int = 4) -> dict:
    out = {"rep": rep}
    for who, t in (("schedule", t_sched), ("all_reduce", t_ar)):
        out.update({f"{who}_s": t, f"{who}_algbw": algbw(nbytes, t) / 1e9,
                    f"{who}_busbw": busbw(nbytes, t, ranks) / 1e9})
    return out


def test_999_bytes_read_in_a_unit_that_shows_them():
    rows = [_row(1, 999, 75e-6, 40e-6), _row(2, 999, 80e-6, 42e-6)]
    avg = _row(0, 999, 77.5e-6, 41e-6)
    header, body, note = run_table(rows, avg)
    assert header[1] == "schedule µs" and header[4] == "all_reduce µs"
    assert note.startswith("MB/s")
    for line in body:
        for cell in line[1:]:
            assert float(cell) > 0, line  # no "0" rates, no "0.00" times
    assert body[0][2] == "13.32" and header[2] == "algbw MB/s"  # 999 B / 75 µs = 13.32 MB/s
    assert body[0][1] == "75.00" and body[-1][1] == "77.50"


def test_1mb_in_75_ms_reads_13_3_mb_per_second_not_0_0133_gb():
    header, body, note = run_table([_row(1, 1e6, 75e-3, 40e-3)], _row(0, 1e6, 75e-3, 40e-3))
    assert note.startswith("MB/s (1e6 B/s)") and header[1] == "schedule ms"
    assert body[0][2] == "13.33" and body[0][5] == "25.00"


def test_fast_runs_stay_in_gb_per_second():
    header, body, note = run_table([_row(1, 1e8, 2e-3, 1e-3)], _row(0, 1e8, 2e-3, 1e-3))
    assert note.startswith("GB/s (1e9 B/s)") and header[1] == "schedule ms"
    assert body[0][2] == "50.00" and body[0][5] == "100.00" and header[6] == "busbw GB/s"
