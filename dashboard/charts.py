"""Showing plotly figures, one way for every screen: each chart's modebar saves it as PNG or SVG.

The browser draws the file (plotly.js's own image export), so nothing is installed or fetched
for it: kaleido, plotly's server-side exporter, needs a Chrome of its own. The format is one
setting in the sidebar (`export_setting`).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from .controls import persistent, remembered
from .svg import figure_svg

EXPORT_FORMATS = ("png", "svg")
_KEEP = "figure_export"


def chart_config(name: str, buttons: tuple[str, ...] | None = None) -> dict[str, Any]:
    """The plotly config of a chart saved as ``<name>.png`` (2x scale) or ``<name>.svg``; `buttons`
    limits the modebar to those buttons (always with the camera)."""
    fmt = remembered(_KEEP, "png") or "png"
    config: dict[str, Any] = {"displaylogo": False,
                              "toImageButtonOptions": {"format": fmt, "filename": name, "scale": 2 if fmt == "png" else 1}}
    if buttons is not None:
        config["modeBarButtons"] = [["toImage", *buttons]]
    return config


def show(fig: Any, key: str, name: str, buttons: tuple[str, ...] | None = None, **kwargs: Any) -> None:
    """Draw a plotly figure (a go.Figure or its dict) across the column, exportable from its modebar."""
    st.plotly_chart(fig, config=chart_config(name, buttons), key=key, **kwargs)


def picture(fig: Any, key: str, name: str, static: bool) -> None:
    """`fig` as a static SVG drawn on the server (`static`: no plotly.js in the browser; hover texts as tooltips) or
    as an interactive plotly chart (`show`); either is tagged with `key` (the SVG's data-picture, the figure's
    layout.meta)."""
    if static:  # a <div> opens an HTML block: markdown leaves the one-line SVG inside it as it is
        st.markdown(f"<div>\n{figure_svg(fig, key)}\n</div>", unsafe_allow_html=True)
    else:
        show(fig.update_layout(meta=key) if hasattr(fig, "update_layout") else dict(fig, layout={**fig["layout"], "meta": key}),
             key=key, name=name)


def export_setting() -> str:
    """Sidebar: the format the camera button of every chart saves (PNG or SVG)."""
    return persistent(st.sidebar.segmented_control, _KEEP, "png", "Save figures as", EXPORT_FORMATS,
                      format_func=str.upper, help="Every interactive chart's camera button (top right, on hover) saves it as a "
                      "file in this format; the browser draws it, nothing is sent anywhere. The static "
                      "drawings (Topology & trees' default) have no camera: set Drawings to Interactive "
                      "there to save them.")
