"""Start the app with `streamlit run` on 127.0.0.1 and drive it in headless Chromium.

Shared by the browser tests and benchmarks/app_slider.py. The browser is Debian's
``/usr/bin/chromium`` when present (``make browser`` installs it), else the one
``playwright install chromium`` downloads.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Browser, Page, Playwright

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serve_app(timeout: float = 90.0) -> Iterator[str]:
    """`streamlit run app.py` on a free local port; yields its URL, stops it afterwards."""
    with serve_app_process(timeout) as (url, _):
        yield url


@contextmanager
def serve_app_process(
    timeout: float = 90.0, env: Mapping[str, str] | None = None, root: Path = ROOT
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """:func:`serve_app`, yielding the server's process too (its pid for memory samples); ``env`` is added to
    the server's environment; ``root`` is the checkout whose app.py runs (another commit's, for a benchmark
    of before and after). The server is stopped afterwards, killed if it does not stop."""
    port = _free_port()
    command = [sys.executable, "-m", "streamlit", "run", str(root / "app.py"), "--server.port", str(port)]
    command += ["--server.address", "127.0.0.1", "--server.headless", "true", "--server.fileWatcherType", "none"]
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            command, cwd=root, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
        )
        try:
            deadline = time.monotonic() + timeout
            while not _healthy(url):
                if process.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise RuntimeError(f"streamlit did not start on {url}:\n{log.read().decode()[-2000:]}")
                time.sleep(0.3)
            yield url, process
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def chromium_path() -> str | None:
    """Debian's chromium if installed; None lets Playwright use its own download."""
    for candidate in ("/usr/bin/chromium", "/usr/bin/chromium-browser", shutil.which("chromium")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def launch(playwright: Playwright) -> Browser:
    try:
        return playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
    except Exception as exc:  # Playwright raises its own Error type with a long message
        raise RuntimeError(
            "No Chromium for the browser tests. Run `make browser` (apt-get install chromium, or "
            f"`python -m playwright install chromium` where there is internet). Cause: {str(exc)[:300]}"
        ) from exc


def open_app(page: Page, url: str, query: str = "") -> None:
    """Load the app and wait until its script has finished running."""
    page.goto(f"{url}/{query}")
    page.wait_for_selector(IDLE, timeout=90_000)


def metric(page: Page, label: str) -> str:
    """The value of the st.metric whose label is ``label``."""
    box = page.locator('[data-testid="stMetric"]').filter(
        has=page.locator('[data-testid="stMetricLabel"]', has_text=label)
    )
    return box.locator('[data-testid="stMetricValue"]').first.inner_text().strip()
