"""Fixtures of the browser tests: Debian's chromium (headless, offline) and the dashboard served by streamlit."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser_tools import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, LOCAL, WIDTH, streamlit_server  # noqa: E402


@pytest.fixture(scope="session")
def sync_api():
    """playwright.sync_api, or a skip when playwright or chromium is missing."""
    api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed")
    return api


@pytest.fixture(scope="session")
def browser(sync_api):
    """Headless Debian chromium driven by Playwright."""
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def app_url(sync_api):
    """The dashboard served by `streamlit run app.py`."""
    with streamlit_server() as url:
        yield url


@pytest.fixture
def page(browser):
    """A fresh page that records every request leaving the machine; the test fails if there is one."""
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": WIDTH, "height": 900})
    pg = context.new_page()
    remote: list[str] = []
    pg.on("request", lambda r: remote.append(r.url) if not r.url.startswith(LOCAL) else None)
    pg.set_default_timeout(90_000)
    yield pg
    context.close()
    assert not remote, f"requests to the network: {remote}"
