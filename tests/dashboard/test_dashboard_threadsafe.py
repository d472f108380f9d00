"""plotly's optional-module look-up waits for another thread's import (dashboard/threadsafe.py)."""

from __future__ import annotations

import sys
import threading
import time

from dashboard.threadsafe import guard_plotly, settled


def test_a_module_half_imported_by_another_thread_is_waited_for(tmp_path, monkeypatch):
    """Thread A imports a slow module; meanwhile plotly's plain look-up returns it half-initialized (the race the
    preload hit with pandas), while the settled one waits and returns it whole."""
    import _plotly_utils.optional_imports as optional

    name = "allreduce_lab_slow_module"
    (tmp_path / f"{name}.py").write_text("import time\ntime.sleep(0.6)\nVALUE = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importer = threading.Thread(target=__import__, args=(name,))
    importer.start()
    try:
        while name not in sys.modules:
            time.sleep(0.005)
        plotly_own = getattr(optional.get_module, "wrapped", optional.get_module)  # app.py may have wrapped it
        assert not hasattr(plotly_own(name, should_load=False), "VALUE")  # half-initialized, as plotly hands it over
        assert settled(plotly_own)(name, should_load=False).VALUE == 42
    finally:
        importer.join()
        sys.modules.pop(name, None)


def test_guard_wraps_every_plotly_look_up_once():
    import _plotly_utils.basevalidators as validators
    import _plotly_utils.optional_imports as optional
    import _plotly_utils.utils as utils
    import plotly.io._json as to_json

    guard_plotly()
    wrapped = [m.get_module for m in (optional, validators, utils, to_json)]
    assert all(getattr(f, "settled", False) for f in wrapped)
    guard_plotly()
    assert [m.get_module for m in (optional, validators, utils, to_json)] == wrapped  # not wrapped twice
    assert optional.get_module("numpy").ndarray is not None  # still the look-up it was
