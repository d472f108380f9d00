"""AppTest helpers for the dashboard tests: run a page, read its figures, texts and metrics."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

from dashboard.svg import decode

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


def charts(at: AppTest) -> list[dict]:
    """Every plotly figure on the page, decoded, in page order."""
    figs = [decode(json.loads(el.proto.spec)) for el in at.get("plotly_chart")]
    return [f for f in figs if f.get("layout", {}).get("meta") != "blank"]  # not the plotly.js preloader


SVG_NS = "{http://www.w3.org/2000/svg}"


def pictures(at: AppTest) -> dict[str, ET.Element]:
    """Every static SVG picture on the page (charts.picture), parsed, by its data-picture key, in page order."""
    out = {}
    for m in at.markdown:
        if "<svg data-picture=" in m.value:
            svg = ET.fromstring(m.value.removeprefix("<div>\n").removesuffix("\n</div>"))
            out[svg.get("data-picture")] = svg
    return out


def svg_texts(svg: ET.Element) -> list[str]:
    """The text of every <text> of an SVG picture, in drawing order."""
    return [el.text or "" for el in svg.iter(f"{SVG_NS}text")]


def traces(fig: dict, kind: str | None = None, name: str | None = None) -> list[dict]:
    """The traces of a figure of one type and/or name."""
    return [t for t in fig["data"] if (kind is None or t.get("type", "scatter") == kind)
            and (name is None or t.get("name") == name)]


def iframes(at: AppTest) -> list[str]:
    """The HTML of every st.iframe on the page."""
    return [el.proto.srcdoc for el in at.get("iframe")]


def cells(table: Any) -> "pd.DataFrame":
    """A table's cells as the page shows them: a pandas Styler's display text where the table has one (its
    `.value` holds the numbers, what a column sorts by), else its values."""
    from streamlit import dataframe_util
    shown = table.proto.arrow_data.styler.display_values
    return dataframe_util.convert_arrow_bytes_to_pandas_df(shown) if shown else table.value


def texts(at: AppTest) -> str:
    """All markdown and caption text of the page, joined."""
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption])


def shown(markdown: str) -> str:
    """The text a user reads in a Markdown string written with backslash escapes (`dashboard.labels.plain`)."""
    return re.sub(r"\\(.)", r"\1", markdown, flags=re.S)


def metric(at: AppTest, label: str) -> list[str]:
    """Values of every metric with this label, in page order."""
    return [m.value for m in at.metric if m.label == label]


def capture_downloads(monkeypatch) -> dict[str, bytes]:
    """File name -> bytes of every download button's data from now on (AppTest keeps them in a media store
    that is dropped after each run; this records them as they are added)."""
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
    got: dict[str, bytes] = {}
    add = MemoryMediaFileStorage.load_and_get_id

    def record(self, path_or_data, mimetype, kind, filename=None):
        if isinstance(path_or_data, bytes) and filename:
            got[filename] = path_or_data
        return add(self, path_or_data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", record)
    return got


def capture_deferred_downloads(monkeypatch) -> dict[str, Any]:
    """File name -> the callable of every download button whose data is made on click (``data=callable``) from now
    on: calling it gives the file the user downloads (AppTest clicks no browser download)."""
    from streamlit.runtime.media_file_manager import MediaFileManager
    got: dict[str, Any] = {}
    add = MediaFileManager.add_deferred

    def record(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        if file_name:
            got[file_name] = data_callable
        return add(self, data_callable, mimetype, coordinates, file_name, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add_deferred", record)
    return got
