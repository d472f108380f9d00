"""What the player plays and on which axis: rounds or seconds, the replay mode, the message size, and a
link that fails or slows down before or during the run.

The widgets here only read the user's choice; core parses and checks it (`core.units.parse_size`,
`LinkEvent.parse`, `core.topology.degrade`). What they pick becomes a `sources.Timeline`, the key
the cached functions of `dashboard.data` take beside the source, method and `ScheduleConfig`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import streamlit as st

from core.timing import DEFAULT_SIZE, parse_size
from core.topology import TopologyError
from core.topology.degrade import link_names

from . import data
from .controls import persistent
from .sources import Source

if TYPE_CHECKING:
    from core.replan import LinkEvent

AXES = ("rounds", "seconds")
MODES = ("async", "sync")
CHANGES = ("fail", "slow down")
SLOW_FACTORS = {"×0.5": 0.5, "×0.25": 0.25, "×0.1": 0.1}
WHEN = ("before the run", "at a time", "after a round")
WHEN_SHORT = {"before the run": "before run", "at a time": "at a time", "after a round": "after round"}
MAX_EVENT_LINKS = 4


@dataclass(frozen=True)
class Choice:
    """What the user picked above the player: the axis, the replay mode, the size, the event and its words."""

    seconds: bool
    mode: str
    size: int
    event: LinkEvent | None
    what: str
    """The event in words (``link 3 (s00-sw0.0) fails at 2 ms``), empty without one."""
    refused: bool = False
    """A change was asked for and refused (its error shown): the methods play the network as it is."""


def controls(key: str, source: Source) -> Choice:
    """A row of axis / replay / size widgets and an expander to fail or slow links; bad input is shown
    with `st.error` and left out (the default size, no event)."""
    axis_col, mode_col, size_col = st.columns([1, 1, 1.1])
    with axis_col:
        axis = persistent(st.segmented_control, f"{key}.axis", "rounds", "Axis", AXES,
                          help="rounds: a column is a round. seconds: every method on one time axis (the replay "
                               "below), a column is an interval of time, so columns line up in time") or "rounds"
    with mode_col:
        mode = persistent(st.segmented_control, f"{key}.mode", "async", "Replay", MODES,
                          help="async: a workload starts once its prefixes arrived and its links are free (how a "
                               "runtime runs it); sync: a barrier after every round (the round model)") or "async"
    with size_col:
        text = persistent(st.text_input, f"{key}.size", DEFAULT_SIZE, "Message size",
                          help=f"the AllReduce's size M: 100MB, 1.5GiB, 4096 (bytes); default {DEFAULT_SIZE}. "
                               "KB/MB/GB are powers of 1000, KiB/MiB/GiB of 1024")
    try:
        size = parse_size(text, "message size")
    except ValueError as err:
        st.error(f"{err}. Using {DEFAULT_SIZE}.")
        size = parse_size(DEFAULT_SIZE)
    event, what, refused = _event(key, source)
    return Choice(axis == "seconds", mode, size, event, what, refused)


def _event(key: str, source: Source) -> tuple[LinkEvent | None, str, bool]:
    """The expander that fails or slows links: which, how, and when; returns the parsed event, its words, and whether
    a change asked for was refused."""
    chosen = st.session_state.get(f"keep:{key}.links:{source.spec}") or []
    with st.expander("Fail or slow down a link, and watch every method re-plan", expanded=bool(chosen)):
        choices = data.link_choices(source)
        names = dict(choices)
        links = persistent(st.multiselect, f"{key}.links:{source.spec}", [], "Links", [e for e, _ in choices],
                           format_func=names.get, max_selections=MAX_EVENT_LINKS,
                           placeholder="pick up to 4 links (id · ends · level · bandwidth)",
                           help=f"at most {MAX_EVENT_LINKS} links at once; for more, give --fail-links or --slow-links "
                                "to the CLI", select_all=False)  # "Select all" would take the first few, unsaid
        a, b, c = st.columns([1, 1.25, 0.8])
        with a:
            change = persistent(st.segmented_control, f"{key}.change", "fail", "Change", CHANGES) or "fail"
            factor = SLOW_FACTORS[persistent(st.segmented_control, f"{key}.factor", "×0.25", "Slow to",
                                             list(SLOW_FACTORS), disabled=change != "slow down") or "×0.25"]
        with b:
            when = persistent(st.segmented_control, f"{key}.when", "at a time", "When", WHEN, format_func=WHEN_SHORT.get,
                              help="before the run: every method schedules the changed network (re-planned from "
                                   "time 0). At a time or after a round: the run goes on until then, the methods "
                                   "re-plan what is left") or "at a time"
        with c:
            if when == "at a time":
                ms = persistent(st.number_input, f"{key}.at_ms", 0.5, "At (ms)", min_value=0.0, step=0.1,
                                format="%.3f")
                moment = f"{ms}ms"
            elif when == "after a round":
                moment = f"round={int(persistent(st.number_input, f'{key}.at_round', 5, 'After round', min_value=1, step=1))}"
            else:
                moment = "0s"
        if not links:
            st.caption("No link picked: the methods run on the network as it is.")
            return None, "", False
        fail = ",".join(str(e) for e in links) if change == "fail" else None
        slow = ",".join(f"{e}:x{factor:g}" for e in links) if change == "slow down" else None
        at = {"before the run": "before the run", "at a time": f"at {moment[:-2]} ms",
              "after a round": f"after round {moment.partition('=')[2]}"}[when]
        try:
            event = data.link_event(source, moment, fail, slow)
        except (TopologyError, ValueError) as err:  # when, as the CLI's refusal says it (trial 28)
            st.error(f"Cannot apply this change {at}: {err}")
            return None, "", True
    one = len(links) == 1
    subject = ("link " if one else "links ") + link_names(data.topology(source), links)  # "3 (s00-sw0.0), ..."
    verb = ("fails" if one else "fail") if fail else f"slow{'s' if one else ''} to {factor:g}× of the bandwidth"
    return event, f"{subject} {verb} {at}", False
