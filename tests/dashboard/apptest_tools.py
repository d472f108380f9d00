"""AppTest helpers for the dashboard tests: run a page, read its figures, texts and metrics."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import numpy as np
from streamlit.testing.v1 import AppTest

APP = Path(__file__).resolve().parents[2] / "app.py"
DEFAULT_SCREEN = "topology"


def open_app(page: str | None = "player", timeout: float = 120) -> AppTest:
    """The app run once (landing on Topology & trees), then switched to the screen at `page` (its url_path)."""
    at = AppTest.from_file(str(APP), default_timeout=timeout).run()
    if page:
        goto(at, page)
    assert not at.exception, [e.value for e in at.exception]
    return at


def goto(at: AppTest, url_path: str) -> AppTest:
    """Switch to the screen registered under `url_path` (app.py's st.Page callables) and run it."""
    want = "" if url_path == DEFAULT_SCREEN else url_path  # the default screen is served at the root
    hashes = [h for h, info in at._registered_pages.items() if info.get("url_pathname") == want]
    assert hashes, f"no screen at {url_path!r}: {[i.get('url_pathname') for i in at._registered_pages.values()]}"
    at._page_hash = hashes[0]
    return at.run()


def decode(obj: Any) -> Any:
    """A plotly JSON value with base64 typed arrays turned into numpy arrays."""
    if isinstance(obj, dict):
        if "bdata" in obj and "dtype" in obj and set(obj) <= {"bdata", "dtype", "shape"}:
            arr = np.frombuffer(base64.b64decode(obj["bdata"]), dtype=np.dtype(obj["dtype"]).newbyteorder("<"))
            if obj.get("shape"):
                arr = arr.reshape([int(x) for x in str(obj["shape"]).split(",")])
            return arr
        return {k: decode(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [decode(v) for v in obj]
    return obj


def charts(at: AppTest) -> list[dict]:
    """Every plotly figure on the page, decoded, in page order."""
    figs = [decode(json.loads(el.proto.spec)) for el in at.get("plotly_chart")]
    return [f for f in figs if f.get("layout", {}).get("meta") != "blank"]  # not the plotly.js preloader


def traces(fig: dict, kind: str | None = None, name: str | None = None) -> list[dict]:
    """The traces of a figure of one type and/or name."""
    return [t for t in fig["data"] if (kind is None or t.get("type", "scatter") == kind)
            and (name is None or t.get("name") == name)]


def iframes(at: AppTest) -> list[str]:
    """The HTML of every st.iframe on the page."""
    return [el.proto.srcdoc for el in at.get("iframe")]


def texts(at: AppTest) -> str:
    """All markdown and caption text of the page, joined."""
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption])


def metric(at: AppTest, label: str) -> list[str]:
    """Values of every metric with this label, in page order."""
    return [m.value for m in at.metric if m.label == label]
