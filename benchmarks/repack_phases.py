"""Where the engine's re-pack at a new setting goes, on the 5 MB load document: a profile by phase.

The app's slider move to a new setting is the engine's re-pack (``benchmarks/app_load.py --server-only``).
This parses the load document once, packs it at the defaults (as the app's first view does), then re-packs it
at the new settings of the load benchmark's walk, timing each phase of ``chunker.chunk_with`` in thread CPU
(each phase wrapped once per re-pack, so no profiler's overhead per call), and the cyclic collector's passes
(``gc.callbacks``). It names the engine's internals (``chunker.optimal._Row``, the passes in ``chunker.pack``):
a guide to the engine's work, to be changed with them.

    .venv/bin/python benchmarks/repack_phases.py [--settings 12]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import chunker  # noqa: E402
from benchmarks.app_load import CORPUS, Walk, build_documents  # noqa: E402
from chunker import optimal, pack  # noqa: E402

spent: defaultdict[str, float] = defaultdict(float)  # thread CPU seconds by phase, for the re-pack running


def timed(label: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[label] += time.thread_time() - start

    return wrapper


def instrument() -> None:
    """Wrap the phases of an optimal re-pack, and time the collector's passes."""
    for name, label in (("__init__", "atoms at the new setting (_Row)"), ("solve", "the programme (_Row.solve)")):
        setattr(optimal._Row, name, timed(label, getattr(optimal._Row, name)))
    optimal._Row.drafts = timed("drafts (_Row.drafts)", optimal._Row.drafts)  # type: ignore[method-assign]
    for name in ("exact_counts", "join_small", "overlaps", "to_chunks"):
        setattr(pack, name, timed(name, getattr(pack, name)))
    started = [0.0]

    def collector(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.thread_time()
        else:
            spent["the cyclic collector"] += time.thread_time() - started[0]

    gc.callbacks.append(collector)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--settings", type=int, default=12, help="new settings re-packed (default 12)")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"skipped: the shared corpus is not there ({CORPUS})")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        (path,), _ = build_documents(Path(tmp), 1, low=5.0, high=5.0)
        text = path.read_text(encoding="utf-8")
    doc = chunker.parse(text, name=path.name)
    options = chunker.ChunkOptions()
    chunker.chunk_with(doc, options)
    instrument()
    walk, seen = Walk(step=1), {Walk(step=1).setting}
    totals: list[float] = []
    phases: defaultdict[str, list[float]] = defaultdict(list)
    while len(totals) < args.settings and walk.moves < 200:
        walk.next()
        if walk.setting in seen:
            continue
        seen.add(walk.setting)
        cap, target = walk.setting
        spent.clear()
        start = time.thread_time()
        chunker.chunk_with(doc, replace(options, hard_cap=cap, target=target))
        totals.append(time.thread_time() - start)
        for label, seconds in spent.items():
            phases[label].append(seconds)
        phases["the rest (Packing, ChunkSet, ...)"].append(totals[-1] - sum(spent.values()))
    median = statistics.median(totals)
    print(f"re-pack at a new setting, {len(totals)} settings, {len(text.encode()) / 1e6:.1f} MB: p50 {median:.3f} s")
    print("| phase | p50 s | share |\n|---|---:|---:|")
    for label, values in sorted(phases.items(), key=lambda item: -statistics.median(item[1])):
        print(f"| {label} | {statistics.median(values):.3f} | {statistics.median(values) / median:.0%} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
