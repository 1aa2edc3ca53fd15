"""How long a hard-cap slider move takes to show in the browser, on the largest bundled sample.

Starts the app with `streamlit run` on 127.0.0.1, opens it in headless Chromium on
the largest file of sample_docs/, and walks the hard cap up its stops with the
keyboard, once per target in TARGETS. Every move is to a setting not seen before, so
each one really re-packs (only the parse is cached). A move is timed from the key
press until the page shows the new chunk count (the engine's own count for that
setting), and until the whole page is redrawn (the script idle again); stops where the count would not change are
passed over in one move, since the page would not show a difference.

    .venv/bin/python benchmarks/app_slider.py [--moves 20] [--write docs/BENCHMARKS.md]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import streamlit  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

import chunker  # noqa: E402
from benchmarks.engine import publish  # noqa: E402
from chunk_inspector.app.frame import SIZES  # noqa: E402
from tests.browser.harness import IDLE, launch, metric, open_app, serve_app  # noqa: E402

GOAL = 0.5  # seconds, from issue 3
TARGETS = (128, 192, 256)
FIRST_CAP = 256
_SHOWN = """(want) => {
    const box = [...document.querySelectorAll('[data-testid="stMetric"]')].find(m => m.innerText.startsWith('Chunks'));
    return box && box.querySelector('[data-testid="stMetricValue"]').innerText.trim() === want;
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=40, help="at most this many slider moves (default 40)")
    parser.add_argument("--write", type=Path, help="update this Markdown file between the app-slider markers")
    args = parser.parse_args()

    sample = max((ROOT / "sample_docs").glob("*.md"), key=lambda p: p.stat().st_size)
    text = sample.read_text(encoding="utf-8")
    doc = chunker.parse(text, name=sample.name)

    def count(target: int, cap: int) -> str:
        return str(len(chunker.chunk(doc, target=target, hard_cap=cap)))

    times: list[float] = []  # key press -> the new chunk count on the page
    settled: list[float] = []  # key press -> the whole page redrawn (the script idle again)
    first_loads: list[float] = []
    with serve_app() as url, sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.set_default_timeout(120_000)
        for target in TARGETS:
            stops = [size for size in SIZES if size >= max(target, FIRST_CAP)]
            start = time.perf_counter()
            open_app(page, url, f"?sample={sample.name}&target={target}&hard_cap={stops[0]}")
            first_loads.append(time.perf_counter() - start)
            shown = count(target, stops[0])
            assert metric(page, "Chunks") == shown, "the page does not show the engine's count"
            thumb = page.get_by_role("slider").first
            presses = 0
            for cap in stops[1:]:
                presses += 1
                want = count(target, cap)
                if want == shown:
                    continue
                thumb.focus()
                start = time.perf_counter()
                for _ in range(presses):
                    thumb.press("ArrowRight")
                page.wait_for_function(_SHOWN, arg=want, polling="raf")
                times.append(time.perf_counter() - start)
                page.wait_for_selector(IDLE)
                settled.append(time.perf_counter() - start)
                shown, presses = want, 0
                if len(times) >= args.moves:
                    break
        browser.close()

    median, worst = statistics.median(times), max(times)
    size_kb = sample.stat().st_size / 1024
    publish(
        [
            f"Sample: `sample_docs/{sample.name}` ({size_kb:.0f} KB, {text.count(chr(10)) + 1:,} lines). "
            f"The hard cap walked up its stops with the keyboard at targets {', '.join(map(str, TARGETS))}: "
            f"{len(times)} moves, each to a new setting (a real re-pack, not a cache hit).",
            "",
            "| measure | seconds | goal | met |",
            "|---|---:|---|---|",
            f"| first load (parse + count + pack + render) | {first_loads[0]:.2f} | - | - |",
            f"| slider move → new chunk count shown, median | {median:.3f} | ≤ {GOAL} | "
            f"{'yes' if median <= GOAL else 'no'} |",
            f"| slider move → new chunk count shown, slowest | {worst:.3f} | - | - |",
            f"| slider move → whole page redrawn, median | {statistics.median(settled):.3f} | - | - |",
            "",
            f"Machine: {platform.machine()}, Python {platform.python_version()}, streamlit {streamlit.__version__}, "
            "headless Chromium.",
        ],
        args.write,
        "app-slider",
        "\n## The app: a slider move in the browser\n\nCommand: `make bench-app` (that is, "
        "`.venv/bin/python benchmarks/app_slider.py --write docs/BENCHMARKS.md`).\n",
    )


if __name__ == "__main__":
    main()
