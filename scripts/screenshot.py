"""Screenshots of the app for the docs: the Inspect page (and the Evaluate page) on the default sample.

Starts the real app (``streamlit run app.py``, headless, on a free port of 127.0.0.1) and drives it in
headless Chromium, as the browser tests do (``tests/browser/harness.py``: the same server, browser and
flags). Every wait is on the app being idle (its script not running) or on an element, never a sleep.

Usage: .venv/bin/python scripts/screenshot.py [--out docs/img] [--chunk 3] [--evaluate]
Writes OUT/inspect.png (1440 px wide, a chunk chosen in the table) and, with --evaluate, OUT/evaluate.png.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from playwright.sync_api import Page, expect, sync_playwright  # noqa: E402

from tests.browser.harness import IDLE, launch, open_app, serve_app  # noqa: E402

WIDTH, HEIGHT = 1440, 960
ROW = 35  # the height of a row of st.dataframe, its header row included


def idle(page: Page) -> None:
    page.wait_for_selector(IDLE, timeout=90_000)


def title_at_top(page: Page) -> None:
    """Scroll the page so that its title sits just under the top bar (no empty band above it), the mouse out
    of the way (no hover card in the picture)."""
    title = page.locator('[data-testid="stMain"] h3').first
    page.locator('[data-testid="stMain"]').evaluate(
        "(main, title) => main.scrollBy(0, title.getBoundingClientRect().top - 70)", title.element_handle()
    )
    page.mouse.move(0, 0)
    idle(page)


def choose_chunk(page: Page, row: int) -> None:
    """Click the row marker of the chunk table's ``row``-th row (1-based) and wait for the page to redraw."""
    table = page.locator('[data-testid="stDataFrame"]').nth(1)  # the heading tree is the first table
    table.scroll_into_view_if_needed()
    box = table.bounding_box()
    if box is None:
        raise RuntimeError("the chunk table is not on the page")
    page.mouse.click(box["x"] + 18, box["y"] + ROW * row + ROW // 2)
    expect(page.get_by_text("Selected:", exact=False).first).to_be_visible(timeout=60_000)
    idle(page)


def inspect_png(page: Page, url: str, out: Path, row: int) -> None:
    open_app(page, url)
    expect(page.locator('[data-testid="stMetric"]').first).to_be_visible()
    choose_chunk(page, row)
    # The metrics, the histogram and the heading tree above; the chunk table with the chosen row and the source
    # beside it below.
    title_at_top(page)
    page.screenshot(path=str(out), full_page=False)


def evaluate_png(page: Page, url: str, out: Path) -> None:
    open_app(page, url, "evaluate")
    expect(page.get_by_role("heading", name="Evaluate · retrieval")).to_be_visible()
    expect(page.locator('[data-testid="stMetric"]').first).to_be_visible(timeout=120_000)
    title_at_top(page)
    page.screenshot(path=str(out), full_page=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img", help="folder for the PNGs")
    parser.add_argument("--chunk", type=int, default=3, help="row of the chunk table to choose (1-based)")
    parser.add_argument("--evaluate", action="store_true", help="also the Evaluate page (evaluate.png)")
    parser.add_argument("--height", type=int, default=HEIGHT, help=f"viewport height (default {HEIGHT})")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with serve_app() as url, sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            context = browser.new_context(viewport={"width": WIDTH, "height": args.height})
            page = context.new_page()
            page.set_default_timeout(60_000)
            inspect_png(page, url, args.out / "inspect.png", args.chunk)
            print(f"wrote {args.out / 'inspect.png'}")
            if args.evaluate:
                evaluate_png(page, url, args.out / "evaluate.png")
                print(f"wrote {args.out / 'evaluate.png'}")
            context.close()
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
