"""A real Streamlit server on a free port, and where Debian's chromium is (for the browser tests)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
LOCAL = ("http://localhost", "http://127.0.0.1", "ws://localhost", "ws://127.0.0.1", "data:", "blob:", "about:")


def free_port() -> int:
    """A TCP port nobody listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def streamlit_server(script: str = "app.py", timeout: float = 60) -> Iterator[str]:
    """`streamlit run <script> --server.headless true` on a free port; yields its URL."""
    port = free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", script, "--server.headless", "true", "--server.port", str(port),
           "--browser.gatherUsageStats", "false"]
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    url = f"http://localhost:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise RuntimeError(f"streamlit did not start: {log.read().decode(errors='replace')[-2000:]}")
            time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


WIDTH = 1280
"""Browser width of the tests and their screenshots (the narrow laptop the dashboard must fit)."""


def screenshot_whole(page, path: Path) -> None:
    """A screenshot of the whole page at its current width: the window is made as tall as the app's content
    (Streamlit scrolls inside its main block, so a plain full-page screenshot would stop at the window)."""
    width = page.viewport_size["width"]
    height = page.evaluate("""() => { const m = document.querySelector('[data-testid="stMain"]');
        return m ? m.scrollHeight : document.body.scrollHeight; }""")
    page.set_viewport_size({"width": width, "height": max(900, int(height) + 40)})
    page.wait_for_timeout(800)
    page.screenshot(path=str(path), full_page=True)
