"""Sidebar inputs shared by the screens: the topology picker, method pickers and the scheduling options.

Widget values survive page switches (each widget is re-seeded from a ``keep:`` copy), and the
last topology that loaded is kept in ``st.session_state["good_source"]``: a bad choice shows an
error or warning saying what to change, and the pages keep showing the last good topology.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from typing import Any, Callable, TypeVar

import streamlit as st
from streamlit.runtime.scriptrunner import add_script_run_ctx

from core.methods import METHODS, get_method, method_names
from core.routing import ROUTING_HELP, ROUTING_MODES
from core.schedule import ScheduleConfig
from core.topology import TopologyError, link_option_note, preset
from core.topology.links import LINK_KEYS

from . import data
from .labels import plain
from .sources import (DEFAULT_ROUTING, DEFAULT_SOURCE, FAMILY_DEFAULTS, FAMILY_TITLES, MAX_NODES, MAX_PLAYER_SERVERS,
                      Source, TooBig, family_params, family_spec, spec_source)

T = TypeVar("T")


def method_title(method: str) -> str:
    """How a registered method is named on screen (its registry title)."""
    return METHODS[method].title if method in METHODS else method


def is_slow(method: str) -> bool:
    """True for a method that may run for seconds: it gets a progress bar."""
    return get_method(method).slow


SOURCE_MODES = ("Table 2 preset", "Family", "Upload", "Spec")


def persistent(widget: Callable[..., Any], name: str, default: Any, *args: Any, **kwargs: Any) -> Any:
    """Draw `widget` (e.g. ``st.sidebar.selectbox``) under the key ``w:<name>``; its value survives page switches.

    The value lives in ``keep:<name>``: it seeds the widget on every run and a change callback
    stores the user's new value there before the page runs.
    """
    store, key = f"keep:{name}", f"w:{name}"
    st.session_state.setdefault(store, default)
    st.session_state[key] = st.session_state[store]
    value = widget(*args, key=key, on_change=_remember, args=(name,), **kwargs)
    st.session_state[store] = value
    return value


def remembered(name: str, default: Any) -> Any:
    """The stored value of a persistent widget (its default before it was ever drawn)."""
    return st.session_state.get(f"keep:{name}", default)


def forget(name: str, value: Any) -> None:
    """Replace a persistent widget's stored value (before it is drawn, e.g. to clamp it to a new range)."""
    st.session_state[f"keep:{name}"] = value


PICKED = "\0picked by the user"
"""`follow`'s mark of a widget whose value the user chose."""


def follow(name: str, default: Any) -> None:
    """Until the user changes the persistent widget `name`, set its value to `default` before it is drawn, so that it
    follows the page's defaults of the moment (the topology's methods, the source's scope); once its value differs
    from the default last put there, the user chose it and it stays theirs (Compare's and the player's methods,
    Compare's scope)."""
    auto = f"auto:{name}"
    if remembered(name, None) not in (None, st.session_state.get(auto)):
        st.session_state[auto] = PICKED
    if st.session_state.get(auto) != PICKED:
        forget(name, default)
        st.session_state[auto] = default


def _remember(name: str) -> None:
    st.session_state[f"keep:{name}"] = st.session_state[f"w:{name}"]


def good_source() -> Source:
    """The last topology that loaded (BCube(3,1) at first)."""
    return st.session_state.get("good_source", DEFAULT_SOURCE)


def topology_picker() -> Source:
    """Sidebar: a Table 2 preset, a family with parameters, an upload or a typed spec; returns the last good choice
    (every one behind the same size guard, `data.topology`)."""
    sb = st.sidebar
    sb.subheader("Topology")
    mode = persistent(sb.radio, "source_mode", SOURCE_MODES[0], "Source", SOURCE_MODES, horizontal=True,
                      label_visibility="collapsed")
    candidate: Source | None = None
    if mode == "Table 2 preset":
        presets = {p.name: p for p in preset("table2")}
        chosen = presets[persistent(sb.selectbox, "preset", DEFAULT_SOURCE.label, "Configuration", list(presets))]
        candidate = Source(chosen.spec, chosen.name)
    elif mode == "Family":
        family = persistent(sb.selectbox, "family", "bcube", "Family", list(FAMILY_DEFAULTS),
                            format_func=FAMILY_TITLES.get)
        params = {}
        cols = sb.columns(2)
        for i, name in enumerate(family_params(family)):
            params[name] = int(persistent(cols[i % 2].number_input, f"{family}.{name}",
                                          FAMILY_DEFAULTS[family][name], name, step=1))
        spec = family_spec(family, params)
        named = {p.spec: p.name for p in preset("table2")}
        candidate = Source(spec, named.get(spec, spec))
    elif mode == "Spec":
        text = persistent(sb.text_input, "spec", "", "Spec", placeholder="e.g. bcube:8,2 or dcell:4,1,bw=100/25",
                          help="a topology as the command line takes it: FAMILY:VALUES by position, then key=value "
                               "(bcube:3,1 · dcell:n=4,k=1 · fattree:4 · jellyfish:10,5,4,seed=3 · leafspine:...), "
                               "with link options (bw=100/25, lat=1, link_seed=0; docs/time.md) in the spec itself. "
                               "Press Enter to apply").strip()
        if not text:
            sb.caption("Type a spec and press Enter.")
        else:
            try:
                candidate = spec_source(text)
            except TopologyError as err:
                candidate = f"Spec: {err}."
    if isinstance(candidate, Source) and mode != "Spec":  # a typed spec carries its own link options
        candidate = _with_link_options(sb, candidate)
    just_received = st.session_state.pop(UPLOAD_RECEIVED, False)  # the file came on the run before this one
    if mode == "Upload":
        up = sb.file_uploader("GraphML or JSON edge list", type=["graphml", "xml", "json"], key="upload",
                              help="GraphML: nodes need kind=server|switch. JSON: {\"nodes\": [{\"id\", \"kind\"}], "
                                   "\"links\": [[u, v], ...]}.")
        if up is not None:
            candidate = Source(f"upload:{up.name}", up.name, up.getvalue())
        elif good_source().family == "upload":  # the file box empties on a page switch; the file stays in use
            when = "uploaded" if just_received else "uploaded earlier"
            sb.caption(f"In use: **{good_source().name}**, {when}. Upload a file to replace it.")
            sb.button("Clear upload", key="upload.clear", on_click=_clear_upload,
                      help=f"stop using the uploaded file; show {DEFAULT_SOURCE.name} instead")
        else:
            sb.caption("Upload a file to replace the topology shown.")
    good = good_source()
    if isinstance(candidate, str):
        st.error(plain(f"{candidate} Still showing {good.name}."))
        candidate = None
    if candidate is not None and (candidate.spec, candidate.data) != (good.spec, good.data):
        try:
            data.topology(candidate)
        except TooBig as err:
            st.warning(plain(f"{err} Still showing {good.name}."))
        except (TopologyError, ValueError, KeyError) as err:
            why = str(err)  # a file's errors already start with its name
            why = why if why.startswith(f"{candidate.name}: ") else f"{candidate.name}: {why}"
            st.error(plain(f"Cannot use {why}. Change the input; still showing {good.name}."))
        else:
            good = candidate
            st.session_state["good_source"] = good
            if candidate.family == "upload":
                st.session_state[UPLOAD_RECEIVED] = True
    sb.caption(showing_line(good))
    if note := link_option_note(data.topology(good)):  # the CLI's "links:" line: a spec's bw=/lat= replaced the
        sb.caption(f"Links: {plain(note)}.")  # speeds a file or example gives its links (core, fix29a)
    return good


def showing_line(source: Source) -> str:
    """The sidebar's line under the picker: the topology shown and both size limits, the one of the pages that draw
    it (`MAX_NODES`) and the one of those that schedule it (`MAX_PLAYER_SERVERS`). With only the first said,
    "Showing fattree:k=8 (topologies up to 600 nodes)" sat beside the player refusing its 128 servers (trial 21)."""
    servers = data.topology(source).n_servers
    if servers > MAX_PLAYER_SERVERS:
        return (f"Showing **{plain(source.name)}**: {servers} servers, more than the {MAX_PLAYER_SERVERS} the "
                f"player, Compare and the debugger schedule; Topology & trees draws it (up to {MAX_NODES} nodes).")
    return (f"Showing **{plain(source.name)}** (drawn up to {MAX_NODES} nodes; scheduled up to "
            f"{MAX_PLAYER_SERVERS} servers).")


def link_speeds_hint() -> str:
    """Where the sidebar's source mode sets link speeds, as one sentence for a caption: the Link speeds box (presets
    and families), the spec itself (Spec); empty for Upload, which has no box (a file carries its own bandwidths)."""
    mode = remembered("source_mode", SOURCE_MODES[0])
    if mode == "Upload":
        return ""
    if mode == "Spec":
        return "Set other speeds in the spec itself (e.g. bcube:3,1,bw=100/25)."
    return "Set other speeds in the sidebar (Link speeds, e.g. bw=100/25)."


UPLOAD_RECEIVED = "upload:received"
"""Session key set on the run that took a newly uploaded file into use, and dropped on the next: if the file box is
empty then (a page switch right after the upload), the sidebar says "uploaded", not "uploaded earlier" (trial 23)."""


def _clear_upload() -> None:
    st.session_state["good_source"] = DEFAULT_SOURCE


def _with_link_options(sb: Any, source: Source) -> Source | str:
    """The source with the link options typed in the sidebar (``bw=100/25``) appended to its spec, or a line
    saying what is wrong with them (the options' values are checked by core when the topology is built)."""
    text = persistent(sb.text_input, "link_options", "", "Link speeds (optional)", placeholder="e.g. bw=100/25",
                      help="spec options for every link, per level (docs/time.md): bw=100 (Gbit/s), bw=100/25 (level 0 "
                           "at 100, level 1 at 25), bw=25|100 (a seeded mix), lat=1 (µs), link_seed=0. Empty: "
                           "100 Gbit/s and 1 µs everywhere").strip().strip(",")
    if not text:
        return source
    keys = [item.partition("=")[0].strip() for item in text.split(",")]
    wrong = [k for k in keys if k not in LINK_KEYS]
    if wrong:
        return (f"Link speeds: {wrong[0]!r} is not a link option; use {', '.join(k + '=' for k in LINK_KEYS)} "
                f"(e.g. bw=100/25), got {text!r}.")
    return Source(f"{source.spec},{text}", f"{source.name} {text}")


WHOLE_TAGS = """<style>
[data-testid="stSidebar"] div:has(> [data-testid="stMultiSelectTagsContainer"]),
[data-testid="stSidebar"] [data-testid="stMultiSelectTagsContainer"] { max-height: none !important; }
</style>"""
"""The sidebar's multiselects show every chosen option: Streamlit caps a wrapping multiselect at 4.5 rows of tags and
scrolls the rest inside the box (with 5 or more methods, one tag a row in the sidebar, the chosen methods could not
all be seen); uncapped, the box grows a row per tag. Streamlit 1.67 has no option for the cap."""


def methods_picker(name: str, default: list[str], limit: int | None = None, label: str = "Methods", where: Any = None,
                   why: str = "") -> list[str]:
    """A multiselect of core's methods, in the sidebar or in the container `where`: every registered method, or at
    most `limit` of them, with `why` (the reason for the limit) as the picker's help. A capped picker offers no
    "Select all": with two of three chosen it added one method and said nothing of the rest (trial 21)."""
    box = where if where is not None else st.sidebar
    st.html(WHOLE_TAGS)  # style only: sent to the page's event container, takes no room
    default = [m for m in default if m in METHODS]
    kept = [m for m in remembered(name, default) if m in METHODS]  # a method may have been unregistered
    forget(name, kept[:limit] if limit else kept)
    return list(persistent(box.multiselect, name, default, label, method_names(), max_selections=limit,
                           format_func=method_title, help=why or None, **({"select_all": False} if limit else {})))


ROUTING_KEY = "routing"
"""The Routing option's key: one choice for the player and Compare (the trees both schedule)."""


def routing_option(where: Any = None) -> str:
    """The Routing option (the CLI's --routing: same modes, default and help), in `where` (the sidebar by default);
    one value shared by the pages that take it."""
    box = where if where is not None else st.sidebar
    return str(persistent(box.selectbox, ROUTING_KEY, DEFAULT_ROUTING, "Routing", list(ROUTING_MODES),
                          help=ROUTING_HELP[0].upper() + ROUTING_HELP[1:] + " (the CLI's --routing)."))


def routing_hint(source: Source, config: ScheduleConfig, where: str = "Routing, in the sidebar") -> str | None:
    """On a fat-tree under the default routing, one line: every tree crosses the same core switches and "balanced"
    spreads them, with both routings' spread, busiest link and merged bound as measured (`core.routing.top_spread`);
    None elsewhere, or where balanced spreads them no wider. On fattree:k=6 the default's critical path took 844
    rounds where balanced took 150, and the page offered no routing (trial 21). `where`: where the option is."""
    t = data.topology(source)
    fat_tree = any(str(s or "").partition(":")[0].lower() == "fattree" for s in (t.spec, t.carried_spec))
    if config.routing != DEFAULT_ROUTING or not fat_tree:
        return None
    now, spread = data.top_spread(source, DEFAULT_ROUTING), data.top_spread(source, "balanced")
    if len(now.used) >= len(spread.used):
        return None
    names = ", ".join(t.labels[v] for v in now.used)
    bound = data.merged_bound(source, config)
    balanced = data.merged_bound(source, replace(config, routing="balanced"))
    return (f"Routing \"{DEFAULT_ROUTING}\" (the default): every tree's routes between pods cross the same core "
            f"switch{'es' if len(now.used) > 1 else ''} {names} ({len(now.used)} of {now.total}; the busiest link "
            f"carries {now.busiest} route segments of the {t.n_servers} trees), so the merged trees' bound is {bound} "
            f"rounds. Routing \"balanced\" spreads them over {len(spread.used)} of {spread.total} core switches "
            f"(busiest link {spread.busiest} segments, bound {balanced} rounds): pick it under {where}.")


def schedule_options(name: str) -> ScheduleConfig:
    """Sidebar: routing, seed, chunks, merge and the optimal solver's time limit, as a core ScheduleConfig."""
    with st.sidebar.expander("Scheduling options"):
        routing = routing_option(st)
        seed = persistent(st.number_input, f"{name}.seed", 0, "Seed (PS, greedy, sampled RL)", min_value=0,
                          max_value=10_000, step=1)
        chunks = persistent(st.number_input, f"{name}.chunks", 1, "Chunks per shard (k)", min_value=1, max_value=4,
                            step=1)
        merge = persistent(st.checkbox, f"{name}.merge", True, "Merge reduce workloads")
        limit = persistent(st.slider, f"{name}.time", 10, "Optimal: time limit (s)", 2, 120)
    return ScheduleConfig(seed=int(seed), chunks=int(chunks), merge=bool(merge), time_limit=float(limit),
                          routing=routing)


def can_schedule(methods: list[str] | None, source: Source | None = None) -> bool:
    """False, with one warning or note saying why, when `source` is too big to schedule here or no
    method is picked (`methods` None: no method is needed)."""
    too_big = data.size_problem(source) if source is not None else None
    if too_big:
        st.warning(too_big)
        return False
    if methods is not None and not methods:
        st.info("Pick at least one method (sidebar).")
        return False
    return True


def with_progress(label: str, work: Callable[[Callable[[float], None]], T], expected_seconds: float) -> T:
    """Run `work(progress)` in a helper thread while a progress bar shows its progress (or elapsed time)."""
    state: dict[str, Any] = {"done": 0.0}

    def progress(frac: float) -> None:
        state["done"] = float(frac)

    def run() -> None:
        try:
            state["value"] = work(progress)
        except BaseException as err:  # noqa: BLE001 - re-raised in the script thread below
            state["error"] = err

    worker = threading.Thread(target=run, daemon=True)
    add_script_run_ctx(worker)
    bar = st.progress(0.0, text=label)
    start = time.perf_counter()
    worker.start()
    while worker.is_alive():
        elapsed = time.perf_counter() - start
        frac = min(0.99, max(state["done"], elapsed / max(expected_seconds, 1e-3)))
        bar.progress(frac, text=f"{label} — {elapsed:.0f} s")
        worker.join(0.2)
    bar.empty()
    if "error" in state:
        raise state["error"]
    return state["value"]
