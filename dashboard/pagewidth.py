"""The width (px) of the page's main column, as the browser lays it out: a figure drawn on the server (node names
placed in pixels, panels as tall as their width needs) can then be made for the width it is shown at.

A small `st.components.v2` component (no iframe: its script runs in the page) measures the block it sits in with a
ResizeObserver and reports the width, rounded to `STEP_PX`, as its state; the script reruns when it changes (a
resized window). Until the browser has reported (the first run of a session, AppTest, a browser without scripts),
the width is None and the caller falls back to a fixed width.
"""

from __future__ import annotations

import streamlit as st

STEP_PX = 20
"""Widths are reported rounded down to a multiple of this: a window resized by a few px does not redraw the page."""
_JS = """
export default function (component) {
    const { setStateValue, parentElement, data } = component;
    const block = parentElement.closest('[data-testid="stVerticalBlock"]') || parentElement.parentElement;
    const holder = parentElement.closest('[data-testid="stElementContainer"]');
    if (holder) { holder.style.display = 'none'; }  // no empty row (and no gap) where it sits
    let last = null;
    const report = () => {
        const w = Math.floor(block.getBoundingClientRect().width / data.step) * data.step;
        if (w > 0 && w !== last) { last = w; setStateValue('width', w); }
    };
    const observer = new ResizeObserver(report);
    observer.observe(block);
    report();
    return () => observer.disconnect();
}
"""
_probe = None


def page_width(key: str) -> int | None:
    """The width (px, a multiple of `STEP_PX`) of the block this is called in, as the browser last reported it; None
    until it has."""
    global _probe
    if _probe is None:
        _probe = st.components.v2.component("allreduce_lab_page_width", js=_JS, isolate_styles=False)
    result = _probe(key=key, data={"step": STEP_PX}, on_width_change=lambda: None, height=0)
    width = getattr(result, "width", None)
    return int(width) if isinstance(width, (int, float)) and width > 0 else None
