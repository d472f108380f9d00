"""Plotly's optional-module check made safe for Streamlit's one thread per script run.

plotly's validators ask `_plotly_utils.optional_imports.get_module("pandas", should_load=False)`,
which returns `sys.modules.get("pandas")` as it is. While another script run's thread is still
importing pandas (the Compare page, `st.dataframe`), that is a half-initialized module, and
plotly's `isinstance(v, pd.Series)` fails with "partially initialized module 'pandas' has no
attribute 'Series'" (seen once in a fresh checkout, on the plotly.js preload in app.py). Python's
own import waits for another thread's import of the same module; this wrapper makes plotly's check
do the same. docs/dashboard.md, "Threads".
"""

from __future__ import annotations

import sys
from importlib import import_module
from typing import Any, Callable


def settled(get_module: Callable[..., Any]) -> Callable[..., Any]:
    """`get_module` that, for a module another thread is still initializing, first waits for that import."""
    def get(name: str, should_load: bool = True) -> Any:
        found = sys.modules.get(name)
        if found is not None and getattr(getattr(found, "__spec__", None), "_initializing", False):
            import_module(name)  # blocks on the module's import lock until the other thread has finished
        return get_module(name, should_load)
    get.settled, get.wrapped = True, get_module
    return get


def guard_plotly() -> None:
    """Route plotly's validators' optional-module look-ups through `settled` (once per process)."""
    import _plotly_utils.basevalidators as validators
    import _plotly_utils.optional_imports as optional
    import _plotly_utils.utils as utils
    import plotly.io._json as to_json  # each bound get_module by name when it was imported

    for module in (optional, validators, utils, to_json):
        if not getattr(module.get_module, "settled", False):
            module.get_module = settled(module.get_module)
