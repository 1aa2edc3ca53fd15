"""How long the Evaluate page takes to show its results after a hard-cap slider move.

Two measures on the bundled question set (``sample_docs/questions.jsonl``, every document
of it indexed together), with the largest sample open in the sidebar:

1. in Python, the page's evaluation (:func:`chunk_inspector.evaluate_view.run_engine`) for a
   hard cap not seen before, the documents already parsed (as the app's cache holds them),
   and the same through :func:`chunk_inspector.evaluate.evaluate` with ``parsed=``;
2. in headless Chromium against ``streamlit run``: the Evaluate page open, the hard cap walked
   up its stops with the keyboard (each a new setting: a real re-pack and re-rank), timed from
   the key press until the page shows the new recall and chunk count (the values computed
   here), and until the whole page is redrawn (the script idle again).

With peer chunkers installed the page also evaluates them at each new setting, after the
engine's results are drawn: they count in "whole page redrawn"; ``--no-peers`` switches them
off on the page first.

    .venv/bin/python benchmarks/app_evaluate.py [--moves 12] [--no-peers] [--write docs/BENCHMARKS.md]
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
from benchmarks.engine import write_section  # noqa: E402
from chunk_inspector.app import evaluate_view  # noqa: E402
from chunk_inspector.app.frame import SIZES  # noqa: E402
from chunk_inspector.evaluate.metrics import DEFAULT_INDEX, Contender, evaluate  # noqa: E402
from chunk_inspector.evaluate.retrievers import get_retriever  # noqa: E402
from chunk_inspector.peers.chunkers import available_peers  # noqa: E402
from tests.browser.harness import IDLE, launch, metric, open_app, serve_app  # noqa: E402

GOAL = 2.0  # seconds, from issue 12
TARGET = 256
_SHOWN = """([recall, chunks]) => {
    const value = (label) => {
        const box = [...document.querySelectorAll('[data-testid="stMetric"]')]
            .find(m => m.innerText.startsWith(label));
        return box && box.querySelector('[data-testid="stMetricValue"]').innerText.trim();
    };
    return value('Recall in budget') === recall && value('Chunks') === chunks;
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=12, help="at most this many slider moves (default 12)")
    parser.add_argument("--no-peers", action="store_true", help="switch the page's Peers toggle off first")
    parser.add_argument("--write", type=Path, help="write the table into this Markdown file")
    args = parser.parse_args()

    samples = ROOT / "sample_docs"
    questions = evaluate_view.load_bundled(samples)
    largest = max((p for p in samples.glob("*.md") if p.name != "README.md"), key=lambda p: p.stat().st_size)
    docs = {name: chunker.parse(text, name=name) for name, text in questions.documents.items()}
    retriever = get_retriever("bm25")
    caps = [size for size in SIZES if size >= TARGET]

    def repack(name: str, doc: chunker.Document, settings: chunker.ChunkOptions) -> chunker.ChunkSet:
        return chunker.chunk_with(doc, settings)

    def shown(cap: int) -> tuple[str, str, float, float]:
        settings = chunker.ChunkOptions(TARGET, cap)
        start = time.perf_counter()
        run = evaluate_view.run_engine(questions, settings, retriever, DEFAULT_INDEX, lambda n, t: docs[n], repack)
        page_path = time.perf_counter() - start
        start = time.perf_counter()
        evaluate(questions, Contender.engine(settings, DEFAULT_INDEX), retriever, parsed=docs)
        direct = time.perf_counter() - start
        ev = run.evaluation
        return f"{ev.mean()['recall@budget']:.3f}", f"{len(ev.chunks):,}", page_path, direct

    expected = {cap: shown(cap) for cap in caps}
    python_times = [expected[cap][2] for cap in caps]
    direct_times = [expected[cap][3] for cap in caps]

    times: list[float] = []
    settled: list[float] = []
    with serve_app() as url, sync_playwright() as playwright:
        browser = launch(playwright)
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.set_default_timeout(120_000)
        start = time.perf_counter()
        open_app(page, url, f"evaluate?sample={largest.name}&target={TARGET}&hard_cap={caps[0]}")
        page.wait_for_selector('[data-testid="stMetric"]')
        first_load = time.perf_counter() - start
        assert metric(page, "Recall in budget") == expected[caps[0]][0], "the page does not show evaluate()'s recall"
        peers = page.locator('[data-testid="stMain"] [data-testid="stCheckbox"]').filter(has_text="Peers")
        if args.no_peers and peers.count():
            peers.click()
            page.wait_for_selector(IDLE)
        thumb = page.get_by_role("slider").first
        current, presses = expected[caps[0]][:2], 0
        for cap in caps[1:]:
            presses += 1
            want = expected[cap][:2]
            if want == current:
                continue
            thumb.focus()
            start = time.perf_counter()
            for _ in range(presses):
                thumb.press("ArrowRight")
            page.wait_for_function(_SHOWN, arg=list(want), polling="raf")
            times.append(time.perf_counter() - start)
            page.wait_for_selector(IDLE)
            settled.append(time.perf_counter() - start)
            current, presses = want, 0
            if len(times) >= args.moves:
                break
        browser.close()

    chars = sum(len(t) for t in questions.documents.values())
    text = "\n".join(
        [
            f"Set: sample_docs/{evaluate_view.BUNDLED}, {len(questions.questions)} questions over "
            f"{len(questions.documents)} documents ({chars / 1024:.0f} K characters); open in the sidebar: "
            f"{largest.name} ({largest.stat().st_size / 1024:.0f} KB); BM25, target {TARGET}, hard caps "
            f"{caps[0]}..{caps[-1]}. Peers on the page: "
            f"{'off' if args.no_peers else ', '.join(available_peers()) or 'none installed'}.",
            "",
            "| measure | median s | slowest s | goal | met |",
            "|---|---:|---:|---|---|",
            f"| evaluation for a new hard cap, the page's path (run_engine, parsed) | "
            f"{statistics.median(python_times):.3f} | {max(python_times):.3f} | - | - |",
            f"| the same through evaluate(..., parsed=) | {statistics.median(direct_times):.3f} | "
            f"{max(direct_times):.3f} | - | - |",
            f"| first load of the Evaluate page (parse all, pack, rank, render) | {first_load:.2f} | - | - | - |",
            f"| slider move → new recall and chunk count shown ({len(times)} moves) | "
            f"{statistics.median(times):.3f} | {max(times):.3f} | ≤ {GOAL} | "
            f"{'yes' if max(times) <= GOAL else 'no'} |",
            f"| slider move → whole page redrawn | {statistics.median(settled):.3f} | {max(settled):.3f} | - | - |",
            "",
            f"Machine: {platform.machine()}, Python {platform.python_version()}, streamlit "
            f"{streamlit.__version__}, headless Chromium. Command: `.venv/bin/python benchmarks/app_evaluate.py"
            f"{' --no-peers' if args.no_peers else ''} --write docs/BENCHMARKS.md` (or `make bench-app-evaluate`).",
        ]
    )
    print(text)
    if args.write is not None:
        write_section(args.write, "app-evaluate" + ("-no-peers" if args.no_peers else ""), text)


if __name__ == "__main__":
    main()
