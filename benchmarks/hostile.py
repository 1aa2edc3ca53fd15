"""Hostile shapes: the engine's time per MB on text that is one construct repeated, at three sizes.

Each shape is built to each size (MB of UTF-8; default 0.2, 0.4 and 0.8): 40,000-odd setext
headings, ATX headings, headings nested six deep, one line of words with no line break, tiny
tables, one long list, lists of one item each, lists nested 60 deep, block quotes nested 60 deep,
link reference definitions, one-word paragraphs, blank lines, tiny fences, one long table, HTML
blocks; and, to compare with, real text (the first 100 KB of ``dify-corpus/large_concat_1mb.md``
of the shared corpus, to a blank line, repeated: the same mix at every size).

For each shape and size: the parse (``chunker.parse``, best of ``--repeat``) and then the first
chunking of the parsed document under each strategy at the default limits (384/1024) and at
128/256 (the document's caches emptied before each, so that each is a first chunking, as in
``chunk_markdown``). A cell is the parse plus one chunking: what ``chunk_markdown`` takes with that
strategy and those limits. Timed in CPU seconds of the process (``time.process_time``: the parse's
background encoding thread included), which other jobs on a shared machine disturb far less than
the wall clock. Reported per MB, so that a linear shape reads the same at every size:
the first table gives, per shape, the worst of the six settings at each size, how that grows
from the smallest size to the largest (1.00: linear), and how it compares with real text at the
largest size; the second, every setting at the largest size.

``--baseline REV`` measures the ``chunker`` package of git revision REV too (taken with ``git
archive``, in a process of its own), for a before/after column.

Usage: python benchmarks/hostile.py [--write docs/BENCHMARKS.md] [--sizes 0.2,0.4,0.8] [--repeat 1]
       [--shapes NAME,...] [--baseline REV]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from importlib.metadata import version
from itertools import count
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT.parent / "shared" / "corpus" / "real" / "dify-corpus" / "large_concat_1mb.md"

# The six settings: (strategy, target, hard cap); the first three at the default limits.
SETTINGS = [(s, 384, 1024) for s in ("optimal", "balanced", "reference")] + [
    (s, 128, 256) for s in ("optimal", "balanced", "reference")
]


def _repeat(unit: str) -> Callable[[int], str]:
    """A text of ``unit`` repeated to at least ``size`` characters."""
    return lambda size: unit * -(-size // len(unit))


def _numbered(make: Callable[[int], str]) -> Callable[[int], str]:
    """A text of ``make(0) + make(1) + ...`` up to at least ``size`` characters."""

    def build(size: int) -> str:
        parts, length = [], 0
        for n in count():
            if length >= size:
                return "".join(parts)
            parts.append(make(n))
            length += len(parts[-1])
        raise AssertionError  # pragma: no cover - count() never ends

    return build


def _real(size: int) -> str:
    """The first 100 KB or so of real text (to a blank line), repeated: the same mix at every size."""
    text = REAL.read_text(encoding="utf-8")
    unit = text[: text.find("\n\n", 100_000) + 2]
    return unit * -(-size // len(unit))


# (key, what it is, build(size in characters) -> text); all ASCII but the real text, so characters are bytes
SHAPES: list[tuple[str, str, Callable[[int], str]]] = [
    ("real", "real text: the first 100 KB of `large_concat_1mb.md` (to a blank line), repeated", _real),
    ("setext-h1", "setext headings `Title\\n===\\n`", _repeat("Title\n===\n")),
    ("setext-h2", "setext headings `Title\\n---\\n`", _repeat("Title\n---\n")),
    ("atx", "ATX headings `# H\\n`", _repeat("# H\n")),
    (
        "nested-headings",
        "headings nested six deep, `# h` to `###### h`",
        _repeat("".join(f"{'#' * n} h\n" for n in range(1, 7))),
    ),
    ("one-line", "one line of words, no line break", _repeat("word ")),
    ("tiny-tables", "tables of one row `| a | b |`", _repeat("| a | b |\n|---|---|\n| 1 | 2 |\n\n")),
    ("long-table", "one table of two-cell rows", lambda size: "| a | b |\n|---|---|\n" + _repeat("| 1 | 2 |\n")(size)),
    ("long-list", "one list of one-word items `- x`", _repeat("- x\n")),
    ("one-item-lists", "lists of one item each (markers alternate)", _repeat("- a\n\n+ b\n\n")),
    ("nested-lists", "lists nested 60 deep, again and again", _repeat("".join("  " * d + "- x\n" for d in range(60)))),
    ("nested-quotes", "block quotes nested 60 deep", _repeat("> " * 60 + "x\n\n")),
    ("link-definitions", "link reference definitions `[aN]: b`", _numbered(lambda n: f"[a{n}]: b\n")),
    ("paragraphs", "one-word paragraphs `a\\n\\n`", _repeat("a\n\n")),
    ("blank-lines", "blank lines between two words", lambda size: "a" + "\n" * size + "b\n"),
    ("tiny-fences", "fences of one line", _repeat("```\nx\n```\n")),
    ("html-blocks", "HTML blocks `<div>`", _repeat("<div>\nx\n</div>\n\n")),
]


def measure(key: str, megabytes: float, repeat: int) -> dict[str, float]:
    """Seconds of the parse and of each setting's first chunking of one shape at one size."""
    import chunker

    build = dict((k, b) for k, _, b in SHAPES)[key]
    text = build(int(megabytes * 1_000_000))
    out: dict[str, float] = {"mb": len(text.encode("utf-8")) / 1e6}
    best = float("inf")
    doc = None
    for _ in range(repeat):
        doc = None
        gc.collect()
        start = time.process_time()
        doc = chunker.parse(text, name=f"{key}.md")
        best = min(best, time.process_time() - start)
    assert doc is not None
    out["parse"] = best
    for strategy, target, cap in SETTINGS:
        best = float("inf")
        for _ in range(repeat):
            object.__setattr__(doc, "caches", type(doc.caches)())  # a first chunking, as chunk_markdown's
            gc.collect()
            start = time.process_time()
            chunker.chunk(doc, target=target, hard_cap=cap, strategy=strategy)
            best = min(best, time.process_time() - start)
        out[f"{strategy} {target}/{cap}"] = best
    return out


def warm_up() -> None:
    """Load the tokenizer and every module a chunking imports, outside the timed runs."""
    import chunker

    text = "# A\n\n" + "Some words here. " * 400 + "\n\n- a\n- b\n\n| a |\n|---|\n| 1 |\n\n```\nx\n```\n"
    for strategy, target, cap in SETTINGS:
        chunker.chunk_markdown(text, target=target, hard_cap=cap, strategy=strategy)


def run_child(engine: Path | None, keys: list[str], sizes: list[float], repeat: int) -> dict[str, Any]:
    """:func:`measure` of every shape and size in a fresh process (the engine at ``engine``, else this one)."""
    args = [sys.executable, str(Path(__file__).resolve()), "--child", "--repeat", str(repeat)]
    args += ["--shapes", ",".join(keys), "--sizes", ",".join(map(str, sizes))]
    if engine is not None:
        args += ["--engine", str(engine)]
    done = subprocess.run(args, check=True, capture_output=True, text=True, cwd=ROOT)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _per_mb(cell: dict[str, float], setting: str) -> float:
    return (cell["parse"] + cell[setting]) / cell["mb"]


def _worst(cell: dict[str, float]) -> tuple[float, str]:
    return max((_per_mb(cell, f"{s} {t}/{c}"), f"{s} {t}/{c}") for s, t, c in SETTINGS)


def render(results: dict[str, Any], baseline: dict[str, Any] | None, keys: list[str], sizes: list[float]) -> str:
    """The two tables (see the module's docstring)."""
    top = str(sizes[-1])
    real = _worst(results["real"][top])[0] if "real" in results else None
    size_heads = " | ".join(f"{size:g} MB" for size in sizes)
    lines = [
        "CPU seconds per MB of `chunk_markdown` (the parse and a first chunking), the worst of the six settings "
        "(three strategies at 384/1024 and at 128/256), at each size; growth: that figure at the largest "
        "size over the smallest (1.00: linear); × real: against real text at the largest size.",
        "",
        f"| shape | {size_heads} | growth | × real | worst setting |" + (" before (s/MB) |" if baseline else ""),
        f"|---|{'---:|' * len(sizes)}---:|---:|---|" + ("---:|" if baseline else ""),
    ]
    for key in keys:
        cells = [results[key][str(size)] for size in sizes]
        worst = [_worst(cell) for cell in cells]
        growth = worst[-1][0] / worst[0][0]
        times = " | ".join(f"{w:.2f}" for w, _ in worst)
        versus = f"{worst[-1][0] / real:.1f}" if real else "-"
        row = f"| {key} | {times} | {growth:.2f} | {versus} | {worst[-1][1]} |"
        if baseline:
            row += f" {_worst(baseline[key][top])[0]:.2f} |"
        lines.append(row)
    heads = " | ".join(f"{s} {t}/{c}" for s, t, c in SETTINGS)
    lines += [
        "",
        f"Every setting at {sizes[-1]:g} MB, CPU seconds per MB (the parse alone, then the parse and one chunking):",
        "",
        f"| shape | MB | parse | {heads} |",
        f"|---|---:|---:|{'---:|' * len(SETTINGS)}",
    ]
    for key in keys:
        cell = results[key][top]
        cols = " | ".join(f"{_per_mb(cell, f'{s} {t}/{c}'):.2f}" for s, t, c in SETTINGS)
        lines.append(f"| {key} | {cell['mb']:.2f} | {cell['parse'] / cell['mb']:.2f} | {cols} |")
    lines += ["", "Shapes:", ""]
    lines += [f"- `{key}`: {what}" for key, what, _ in SHAPES if key in keys]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", type=Path, help="write the results tables into this Markdown file")
    parser.add_argument("--sizes", default="0.2,0.4,0.8", help="text sizes in MB, comma-separated")
    parser.add_argument("--repeat", type=int, default=1, help="best of this many runs per cell")
    parser.add_argument("--shapes", default="", help="shapes, comma-separated (default: all)")
    parser.add_argument("--baseline", help="also measure the engine of this git revision (before/after)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--engine", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(args.engine) if args.engine is not None else str(ROOT))
    sizes = [float(size) for size in args.sizes.split(",")]
    keys = args.shapes.split(",") if args.shapes else [key for key, _, _ in SHAPES]
    if not REAL.is_file():
        keys = [key for key in keys if key != "real"]
    if args.child:
        warm_up()
        results = {key: {str(size): measure(key, size, args.repeat) for size in sizes} for key in keys}
        print(json.dumps(results))
        return 0
    baseline = None
    load_before = os.getloadavg()[0]
    if args.baseline:
        from benchmarks.memory import extract_engine  # the parent runs with the repository on its path

        with tempfile.TemporaryDirectory() as scratch:
            baseline = run_child(extract_engine(args.baseline, Path(scratch)), keys, [sizes[-1]], args.repeat)
    results = {}
    for key in keys:  # a process per shape: no shape's garbage in another's timing
        results.update(run_child(None, [key], sizes, args.repeat))
        print(f"{key}: {results[key]}", file=sys.stderr)
    load_after = os.getloadavg()[0]
    command = "python benchmarks/hostile.py --write docs/BENCHMARKS.md"
    for flag, value, default in [
        ("--sizes", args.sizes, "0.2,0.4,0.8"),
        ("--repeat", str(args.repeat), "1"),
        ("--shapes", args.shapes, ""),
        ("--baseline", args.baseline or "", ""),
    ]:
        if value != default:
            command += f" {flag} {value}"
    body = render(results, baseline, keys, sizes)
    if baseline:
        body += f"\n\nBefore: the engine of {args.baseline}, in the same run, at {sizes[-1]:g} MB."
    body += (
        f"\n\nMachine: {platform.machine()}, {os.cpu_count()} cores shared with other jobs (load average "
        f"{load_before:.2f} before, {load_after:.2f} after), Python {platform.python_version()}, markdown-it-py "
        f"{version('markdown-it-py')}, markdown-it-pyrs {version('markdown-it-pyrs')}, tiktoken {version('tiktoken')}. "
        f"Command: `.venv/bin/{command}` (or `make bench-hostile`)."
    )
    if not args.write:
        print(body)
    else:
        from benchmarks.engine import publish

        heading = (
            "\n## Hostile shapes\n\nText that is one construct repeated (tens of thousands of headings, "
            "one-word paragraphs, list items, table rows...): time per MB at three sizes, so that a shape whose "
            "time grows faster than its text shows, and beside real text. See `benchmarks/hostile.py`.\n\n"
        )
        publish([body], args.write, "hostile", heading)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
