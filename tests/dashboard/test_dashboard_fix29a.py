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
