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
def playwright(sync_api):
    """One Playwright driver for the session (a second sync_playwright() in the same thread is refused)."""
    with sync_api.sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright):
    """Headless Debian chromium driven by Playwright."""
    b = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    yield b
    b.close()


@pytest.fixture(scope="session")
def app_url(sync_api):
    """The dashboard served by `streamlit run app.py`."""
    with streamlit_server() as url:
        yield url


@pytest.fixture(scope="session")
def browser_with_scrollbars(playwright):
    """Headless chromium that draws scrollbars as a desktop browser does (Playwright hides them in headless mode,
    `--hide-scrollbars`): a page's vertical scrollbar takes its width from the content, as in the user's window."""
    b = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS,
                                   ignore_default_args=["--hide-scrollbars"])
    yield b
    b.close()


@pytest.fixture
def page(browser):
    """A fresh page that records every request leaving the machine; the test fails if there is one."""
    yield from _page(browser)


@pytest.fixture
def page_with_scrollbars(browser_with_scrollbars):
    """As `page`, with the scrollbars drawn."""
    yield from _page(browser_with_scrollbars)


def _page(browser):
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": WIDTH, "height": 900})
    pg = context.new_page()
    remote: list[str] = []
    pg.on("request", lambda r: remote.append(r.url) if not r.url.startswith(LOCAL) else None)
    pg.set_default_timeout(90_000)
    yield pg
    context.close()
    assert not remote, f"requests to the network: {remote}"
