"""fix29a: the player's card follows core's rules (`Method.seeded`)."""

from __future__ import annotations

from core.methods import Method
from core.schedule import ScheduleConfig


def test_the_cards_seed_note_follows_method_seeded(monkeypatch):
    """`seed_note` wrote out the rule ``"seed" in options()`` a third time; it reads `Method.seeded`, as the CLI."""
    from dashboard.round_player import seed_note

    config = ScheduleConfig(seed=3)
    assert seed_note("ps", config) == ["seed 3"] and seed_note("critical-path", config) == []
    monkeypatch.setattr(Method, "seeded", property(lambda self: True))
    assert seed_note("critical-path", config) == ["seed 3"]


def test_a_cards_gap_of_10x_its_bound_reads_as_the_clis_ratio():
    """`labels.percent` (the cards' gap) writes a gap of 10x its bound or more as the CLI does (`core.units.gap_text`):
    ``42.2x``, not ``4120%``; below it as before."""
    from dashboard import labels

    assert [labels.percent(f) for f in (0, 0.0004, 0.002, 0.5, 8.5)] == ["0%", "< 0.1%", "0.2%", "50%", "850%"]
    assert labels.percent(41.2) == "42.2x" and labels.percent(421876.125) == "422,000x"
