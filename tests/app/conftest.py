"""Fixtures for the app's tests (AppTest here; the browser tests live in tests/browser)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest

APP = Path(__file__).resolve().parents[2] / "app.py"


def plain(markdown: str) -> str:
    """What Streamlit shows for Markdown the app escaped (``view.md_escape``): the text, without its backslashes."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown).replace("\u2060", "")  # and the autolink breaks


def box_lines(css: str, selector: str) -> float:
    """How many lines of its own line height the rule for ``selector`` in ``css`` lets its box show."""
    rule = re.search(re.escape(selector) + r"\s*\{([^}]*)\}", css)
    assert rule, selector
    line_height = re.search(r"line-height:\s*([\d.]+)em", rule.group(1))
    height = re.search(r"max-height:\s*([\d.]+)em", rule.group(1))
    assert line_height and height, f"{selector} sets no line height or no height in em: {rule.group(1)}"
    return float(height.group(1)) / float(line_height.group(1))


@pytest.fixture(autouse=True)
def _navigation_not_pages_directory(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """AppTest resets PagesManager.uses_pages_directory before every run, so from the second run on
    it would treat our ``pages/`` folder as an old-style multipage app and run the page without the
    ``app.py`` frame. The real server clears the flag once ``st.navigation`` has run; do the same."""
    original = PagesManager.__init__

    def init(self: PagesManager, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)  # type: ignore[arg-type]
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)
    yield


@pytest.fixture
def app() -> AppTest:
    """The app, run once from app.py on its default sample."""
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at
