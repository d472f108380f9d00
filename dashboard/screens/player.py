"""Schedule player: up to three methods side by side on one axis (rounds or seconds); fail or slow a link and
watch each method re-plan."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from core.compare import uneven_extra
from core.methods import METHODS

from .. import controls, data, labels, round_player, timeline
from ..controls import method_title
from ..sources import Timeline

KEY = "player"
MAX_METHODS = 3
"""Methods played side by side (three network panels fit a 1280-px window beside the sidebar)."""


def render() -> None:
    """The Schedule player screen."""
    st.title("Schedule player")
    st.caption("Each round sends a set of workloads that share no directed link. Step or play the rounds — or, on "
               "the seconds axis, intervals of time; each heatmap marks the current column, and all methods share "
               "one axis.")
    source = controls.topology_picker()
    methods_box = st.sidebar.container()  # the methods are listed above the options they depend on
    config = controls.schedule_options(KEY)
    rl_ok = "rl" in METHODS and data.method_problem("rl", config) is None
    uneven = data.uneven_reason([source])
    default = page_defaults(uneven is not None, rl_ok)
    controls.follow(f"{KEY}.methods", default)  # untouched by the user, it follows the topology's defaults
    methods = controls.methods_picker(f"{KEY}.methods", default,
                                      limit=MAX_METHODS, label=f"Methods (up to {MAX_METHODS})", where=methods_box,
                                      why=f"At most {MAX_METHODS}: each method gets a network panel and a heatmap "
                                          "side by side, and at 1280 px a fourth panel would be too narrow to read. "
                                          "Compare takes every method.")
    if not controls.can_schedule(methods, source):
        return
    if methods == default and (note := uneven_note(default, uneven, rl_ok)):
        st.caption(labels.plain(note))
    choice = timeline.controls(KEY, source)
    config = replace(config, size=choice.size)  # the time-aware method plans for this size
    line = Timeline(choice.mode, choice.event)
    plays = round_player.load(source, methods, config, line)
    if not plays:
        st.info("None of the chosen methods could schedule this topology; pick another method (sidebar).")
        return
    if choice.seconds:
        line, plays = round_player.on_time_axis(source, config, plays, line)
    if choice.refused:  # the red box is in the expander above; the cards below said nothing of it (trial 27)
        st.warning("The link change above was refused: the methods below play the failure-free run, on the network "
                   "as it is.", icon=":material/info:")
    if choice.event is not None:
        st.markdown(f"**{choice.what[0].upper() + choice.what[1:]}**: each method re-plans what is left "
                    f"({choice.mode} replay, {labels.size(config.size)}).")
    if hint := controls.routing_hint(source, config, "Scheduling options → Routing, in the sidebar"):
        st.info(labels.plain(hint), icon=":material/alt_route:")
    round_player.summary(plays, source, config, data.merged_bound(source, config), line, seed=True)
    view = round_player.show(KEY, source, config, plays, timeline=line, what=choice.what)
    with st.expander("Downloads: schedules, heatmap data, an animation for slides"):
        round_player.downloads(KEY, source, plays, config, view)


def page_defaults(uneven: bool, rl_ok: bool = True) -> list[str]:
    """The methods the player picks first: PS, Ring and RL (critical-path where RL cannot run); where link
    bandwidths differ (`uneven`, Compare's rule: `data.uneven_reason`), also the methods Compare and the CLI's
    compare add there (`core.compare.uneven_extra`: time-aware, which plans by each link's speed), in place of the
    first ones within `MAX_METHODS`: PS, the plain baseline, gives way (trial 27: on links at 10 to 100 Gbit/s the
    page showed PS, Ring and RL at 280-373 ms, time-aware 140 ms in the CLI)."""
    base = ["ps", "ring", "rl" if rl_ok else "critical-path"]
    if not uneven:
        return base
    extra = [m for m in uneven_extra() if m in METHODS and m not in base]
    return (base + extra)[-MAX_METHODS:]


def uneven_note(default: list[str], uneven: str | None, rl_ok: bool = True) -> str | None:
    """Compare's note where its defaults added time-aware, for the player: which methods joined, in place of which,
    and why; None where the defaults added none."""
    added = [m for m in uneven_extra() if m in default]
    if uneven is None or not added:
        return None
    gone = [m for m in page_defaults(False, rl_ok) if m not in default]
    return labels.uneven_note([method_title(m) for m in added], uneven, [method_title(m) for m in gone],
                              by="Compare and the CLI's compare", pick=f"pick up to {MAX_METHODS} methods in the sidebar")
