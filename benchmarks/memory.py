"""Memory of the engine per MB of text, beside the floor (issue 14): peak RSS growth and what a Document keeps.

Inputs: ``corpus``, the real documents under ``../shared/corpus/real`` (``*.md``, recursively,
in sorted path order) joined by blank lines up to 1 MB (whole documents; one that would take
the text past 1 MB is left out); and ``large``, the corpus's own 1 MB concatenation
``dify-corpus/large_concat_1mb.md`` (changelogs and READMEs: three times the blocks and sections
per MB). Each is repeated (joined by a blank line) to 2 and 5 MB. MB here is 2**20 bytes, of
the text's UTF-8 and of memory alike.

Each figure comes from a fresh process (``--child MEASURE SIZE``): it imports everything,
builds the text, warms up (chunks the first 20 KB of it, or parses them with markdown-it-py,
or encodes them), collects garbage and takes its resident set size as the baseline; then it
runs the measure once. Peak growth is ``ru_maxrss`` (the process's peak) minus that baseline.
Measures:

- ``chunk_markdown`` (parse + pack at 512/1024), goal: peak growth at most 25 MB per MB;
- ``parse`` alone, peak growth, and what the parsed ``Document`` it returns keeps, held, after
  a full garbage collection (goal: at most 10 MB per MB): the Python heap it holds, measured in
  a process of its own under ``tracemalloc`` (the text itself excluded: it was there before);
  and the growth of RSS, as it is and after ``malloc_trim(0)`` (glibc keeps memory that the
  parse freed, in holes between live blocks; the next parse reuses it; trimmed, RSS is what
  live objects pin);
- markdown-it-py's own parse, ``MarkdownIt("commonmark").parse`` (the floor's parser, with
  inline parsing and the default nesting limit of 20), and markdown-it-py as the engine runs it
  when it parses with the parser of record (``chunker/parse.py``: blocks only, tables,
  ``maxNesting`` 100);
- one tiktoken pass: ``cl100k_base`` ``encode`` of the text (special tokens as ordinary text).

``--baseline REV`` measures the engine rows also for the ``chunker`` package of git revision
REV (taken with ``git archive``), in the same run, for a before/after table.
Usage: python benchmarks/memory.py [--write docs/BENCHMARKS.md] [--baseline REV] [--sizes 1,2,5] [--inputs corpus,large]
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import platform
import resource
import subprocess
import sys
import tarfile
import tempfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "real"
LARGE = CORPUS / "dify-corpus" / "large_concat_1mb.md"
INPUTS = {"corpus": "the real corpus joined up to 1 MB", "large": "`dify-corpus/large_concat_1mb.md`"}
MB = 1 << 20
WARM_UP_CHARS = 20_000

ENGINE_MEASURES = ("chunk", "parse", "parse-traced")
FLOOR_MEASURES = ("markdown-it", "markdown-it-engine", "tiktoken")


def input_text(name: str, megabytes: int) -> str:
    """Input ``name`` (see the module notes), repeated ``megabytes`` times."""
    one = corpus_text() if name == "corpus" else LARGE.read_bytes().decode("utf-8", errors="replace")
    return "\n\n".join([one] * megabytes)


def corpus_text() -> str:
    """The real corpus joined by blank lines up to 1 MB."""
    parts: list[str] = []
    size = 0
    for path in sorted(CORPUS.rglob("*.md")):
        text = path.read_bytes().decode("utf-8", errors="replace")
        grown = len(text.encode("utf-8")) + (2 if parts else 0)
        if size + grown > MB:
            continue
        parts.append(text)
        size += grown
    return "\n\n".join(parts)


def _rss() -> float:
    """Resident set size now, in MB."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / MB


def _peak() -> float:
    """The process's peak resident set size so far, in MB (``ru_maxrss`` is in KB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _trim() -> bool:
    """Give the C heap's free memory back to the system (glibc's ``malloc_trim``); False where there is none."""
    try:
        return bool(ctypes.CDLL("libc.so.6").malloc_trim(0) >= 0)
    except (OSError, AttributeError):
        return False


def child(measure: str, source: str, megabytes: int) -> dict[str, Any]:
    """One measure in this (fresh) process; see the module notes."""
    import tiktoken  # noqa: F401 - imported before the baseline, as chunker imports it
    from markdown_it import MarkdownIt

    import chunker

    text = input_text(source, megabytes)
    warm = text[:WARM_UP_CHARS]
    run: Any
    if measure in ("chunk", "parse", "parse-traced"):
        if measure == "chunk":
            chunker.chunk_markdown(warm)

            def run() -> Any:
                return chunker.chunk_markdown(text)
        else:
            chunker.chunk(chunker.parse(warm))

            def run() -> Any:
                return chunker.parse(text)
    elif measure == "markdown-it":
        md = MarkdownIt("commonmark")
        md.parse(warm)

        def run() -> Any:
            return md.parse(text)
    elif measure == "markdown-it-engine":
        md = MarkdownIt("commonmark", {"maxNesting": 100}).enable(["table", "strikethrough"])
        md.disable("inline")
        md.parse(warm)

        def run() -> Any:
            return md.parse(text)
    elif measure == "tiktoken":
        encoding = chunker.get_tokenizer("cl100k_base")._encoding
        encoding.encode(warm, disallowed_special=())

        def run() -> Any:
            return encoding.encode(text, disallowed_special=())
    else:
        raise SystemExit(f"unknown measure {measure!r}")
    gc.collect()
    out: dict[str, Any] = {"text_mb": len(text.encode("utf-8")) / MB, "str_mb": sys.getsizeof(text) / MB}
    if measure == "parse-traced":
        import tracemalloc

        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        result = run()
        gc.collect()
        out["traced"] = (tracemalloc.get_traced_memory()[0] - before) / MB
        tracemalloc.stop()
        del result
        return out
    _trim()
    base = _rss()
    out["base"] = base
    result = run()
    out["peak"] = _peak() - base
    gc.collect()
    out["retained"] = _rss() - base
    if _trim():
        out["trimmed"] = _rss() - base
    del result
    return out


def measure_in_fresh_process(measure: str, source: str, megabytes: int, engine: Path | None) -> dict[str, Any]:
    args = [sys.executable, str(Path(__file__).resolve()), "--child", measure, source, str(megabytes)]
    if engine is not None:
        args += ["--engine", str(engine)]
    done = subprocess.run(args, check=True, capture_output=True, text=True, cwd=ROOT)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def extract_engine(revision: str, into: Path) -> Path:
    """The ``chunker`` package of git ``revision``, unpacked under ``into``."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", revision, "chunker"], check=True, capture_output=True, cwd=ROOT
    ).stdout
    tar_path = into / "engine.tar"
    tar_path.write_bytes(archive)
    with tarfile.open(tar_path) as tar:
        tar.extractall(into, filter="data")
    return into


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", type=Path, help="write the results tables into this Markdown file")
    parser.add_argument("--baseline", help="also measure the engine of this git revision (before/after)")
    parser.add_argument("--sizes", default="1,2,5", help="text sizes in MB, comma-separated")
    parser.add_argument("--inputs", default="corpus,large", help="inputs, comma-separated: corpus, large")
    parser.add_argument("--child", nargs=3, metavar=("MEASURE", "INPUT", "MB"), help=argparse.SUPPRESS)
    parser.add_argument("--engine", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.engine is not None:
        sys.path.insert(0, str(args.engine))
    if args.child:
        print(json.dumps(child(args.child[0], args.child[1], int(args.child[2]))))
        return 0
    if not CORPUS.is_dir():
        print(f"the shared corpus is not at {CORPUS}; nothing to measure", file=sys.stderr)
        return 1
    sizes = [int(size) for size in args.sizes.split(",")]
    inputs = args.inputs.split(",")
    results: dict[tuple[str, str, str, int], dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        engines: list[tuple[str, Path | None]] = [("", None)]
        if args.baseline:
            engines.insert(0, (args.baseline, extract_engine(args.baseline, Path(scratch))))
        for source in inputs:
            for size in sizes:
                for label, engine in engines:
                    for measure in ENGINE_MEASURES:
                        found = measure_in_fresh_process(measure, source, size, engine)
                        results[label, measure, source, size] = found
                        print(f"{source} {size} MB {label or 'now'} {measure}: {found}", file=sys.stderr)
                for measure in FLOOR_MEASURES:
                    found = measure_in_fresh_process(measure, source, size, None)
                    results["", measure, source, size] = found
                    print(f"{source} {size} MB {measure}: {found}", file=sys.stderr)
    body = "\n\n".join(render(results, source, sizes, [label for label, _ in engines]) for source in inputs)
    command = "python benchmarks/memory.py --write docs/BENCHMARKS.md"
    if args.baseline:
        command += f" --baseline {args.baseline}"
    if args.sizes != "1,2,5":
        command += f" --sizes {args.sizes}"
    if args.inputs != "corpus,large":
        command += f" --inputs {args.inputs}"
    body += (
        f"\n\nMachine: {platform.machine()}, {os.cpu_count()} cores, Linux {platform.release()}, "
        f"Python {platform.python_version()}, markdown-it-py {version('markdown-it-py')}, "
        f"markdown-it-pyrs {version('markdown-it-pyrs')}, tiktoken {version('tiktoken')}. "
        f"Command: `.venv/bin/{command}` (or `make bench-memory`)."
    )
    print(body)
    if args.write:
        from benchmarks.engine import write_section

        write_section(args.write, "memory", body)
    return 0


def render(
    results: dict[tuple[str, str, str, int], dict[str, Any]], source: str, sizes: list[int], labels: list[str]
) -> str:
    """The table of one input: a row per measure (and per engine), a column per size."""

    def row(name: str, label: str, measure: str, key: str, goal: float | None) -> str:
        cells: list[tuple[str, float]] = []
        for size in sizes:
            found = results[label, measure, source, size]
            if key not in found:
                cells.append(("-", 0.0))
                continue
            per_mb = found[key] / found["text_mb"]
            cells.append(
                (f"{per_mb:.1f} ({found[key]:+.0f})" if key != "traced" else f"{per_mb:.1f} ({found[key]:.0f})", per_mb)
            )
        met = "-" if goal is None else ("yes" if all(per_mb <= goal for _, per_mb in cells) else "no")
        return (
            f"| {name} | {' | '.join(text for text, _ in cells)} | {'-' if goal is None else f'≤ {goal:g}'} | {met} |"
        )

    first = results["", "chunk", source, sizes[0]]
    lines = [
        f"**Input: {INPUTS[source]}**, repeated to "
        + ", ".join(f"{results['', 'chunk', source, size]['text_mb']:.2f} MB" for size in sizes)
        + f" of UTF-8 (as a Python `str`: {first['str_mb'] / first['text_mb']:.1f} MB per MB, the text itself, "
        "in no row). Each cell: MB per MB of text (in brackets: MB); one fresh process per cell.",
        "",
        f"| measure | {' | '.join(f'{size} MB' for size in sizes)} | goal per MB | met |",
        f"|---|{'---:|' * len(sizes)}---|---|",
    ]
    for label in labels:
        suffix = f", before ({label})" if label else ""
        lines += [
            row(f"`chunk_markdown` (512/1024), peak RSS growth{suffix}", label, "chunk", "peak", 25),
            row(f"`parse`, peak RSS growth{suffix}", label, "parse", "peak", None),
            row(
                f"a parsed `Document`: Python heap it holds (tracemalloc){suffix}", label, "parse-traced", "traced", 10
            ),
            row(f"a parsed `Document`: RSS growth, held, after gc{suffix}", label, "parse", "retained", None),
            row(f"the same after `malloc_trim(0)`{suffix}", label, "parse", "trimmed", 10),
        ]
    lines += [
        row('markdown-it-py `MarkdownIt("commonmark").parse`, peak RSS growth', "", "markdown-it", "peak", None),
        row(
            "markdown-it-py as the engine runs it (blocks only, `maxNesting` 100), peak",
            "",
            "markdown-it-engine",
            "peak",
            None,
        ),
        row("one tiktoken pass (`cl100k_base` `encode`), peak RSS growth", "", "tiktoken", "peak", None),
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
