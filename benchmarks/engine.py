"""Engine speed against the floor, on the shared corpus (docs/method.md §8).

The floor for a document is markdown-it-py's full parse (CommonMark + tables +
strikethrough) plus one tiktoken cl100k_base pass over its text. Measured:

- ``chunk_markdown`` (parse + pack at 512/1024), goal: within 1.3x the floor;
- the same at 256/512 (the peers benchmark's setting: more blocks to cut);
- the same with the parser of record forced (``CHUNKER_PARSER=markdown-it``), to show
  what the compiled fast path (``chunker/fastparse.py``) buys;
- ``parse`` alone;
- re-chunking an already parsed document at new limits (256/512), under each strategy, goal:
  within 0.1x;
- ``chunk_markdown`` under ``balanced`` (it must not get slower);
- linearity: chunk_markdown on a 2 MB document vs a 1 MB one, goal: at most 2.2x; and the same for
  re-chunking one code block of 1 and 2 MB (a fence left open);
- and, in a second table, each strategy's chunks on the corpus at 256/512 (sizes, small
  chunks, the share starting at a heading, structural defects).

Each figure is the best of ``--repeat`` rounds over the whole corpus, in one process, the
measures interleaved round by round, so that drift in machine speed (other jobs on a shared
machine) hits floor and engine alike: compare the ratios, not the seconds. Garbage is collected
before each timed run (``gc.collect()``; the collector stays on while it runs): a full collection
walks every object alive, so one owed to the untimed set-up (the re-chunk's parse and first
chunking of 127 documents) would otherwise fall inside the window or not by chance (30-40 ms,
about a third of a re-chunk).
Usage: python benchmarks/engine.py [--write docs/BENCHMARKS.md] [--repeat 5]
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import chunker  # noqa: E402
from chunker import fastparse  # noqa: E402
from chunker.tokens import get_tokenizer  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "real"
BIG = CORPUS / "dify-corpus" / "large_concat_1mb.md"
MB = 1_000_000
# The largest document of benchmarks/app_load.py at its defaults (8 documents over 1-5 MB, seed 14: the
# eighth, 5 MB, seed 14 + 7), and the corpus file in it that holds a construct on which markdown-it.rs
# and markdown-it-py may part ways (fastparse.diverges): a paragraph's last line "38.", an empty list item.
LOAD_BYTES, LOAD_SEED = 5 * MB, 14 + 7
DIVERGENT_FILE, DIVERGENT_LINE, NEUTRAL_LINE = "public-docs/rustbook_ch02.md", "\n38.\n", "\n38\n"


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def rechunk_one(text: str, repeat: int) -> float:
    """Best time to re-chunk ``text`` at 256/512, parsed and chunked at 512/1024 once (untimed) each round."""
    times = []
    for _ in range(repeat):
        doc = chunker.parse(text, name="doc.md")
        chunker.chunk(doc, target=512, hard_cap=1024)
        gc.collect()
        start = time.perf_counter()
        chunker.chunk(doc, target=256, hard_cap=512)
        times.append(time.perf_counter() - start)
    return min(times)


def closes_its_blocks(text: str) -> bool:
    """Whether a heading after ``text`` is a heading (no code fence or HTML block left open at its end)."""
    doc = chunker.parse(text.rstrip("\n") + "\n\n# app-load sentinel\n", name="check.md")
    return doc.blocks[-1].kind == "heading" and doc.blocks[-1].title == "app-load sentinel"


def load_corpus(corpus: Path) -> tuple[list[tuple[str, str]], list[str]]:
    """The corpus files that the load documents join, as (path under ``corpus``, text), and those left out:
    the files that leave a code fence open at their end (it would swallow every file after them)."""
    texts, left_out = [], []
    for path in sorted(corpus.rglob("*.md")):
        name, text = str(path.relative_to(corpus)), path.read_text(encoding="utf-8")
        if closes_its_blocks(text):
            texts.append((name, text))
        else:
            left_out.append(name)
    return texts, left_out


def load_document_parts(texts: list[tuple[str, str]], want: int, seed: int) -> list[tuple[str, str]]:
    """The pieces of one load document of ``benchmarks/app_load.py`` as (file, text): the files of ``texts``
    in a shuffled order (shuffled again for each repeat), each followed by a blank line, until ``want`` bytes
    of UTF-8; the last piece cut at its last line end within them (left out if it has none)."""
    rng = random.Random(seed)
    parts: list[tuple[str, str]] = []
    size = 0
    while size < want:
        order = list(range(len(texts)))
        rng.shuffle(order)
        for i in order:
            name, text = texts[i]
            parts.append((name, text.rstrip("\n") + "\n\n"))
            size += len(parts[-1][1].encode("utf-8"))
            if size >= want:
                break
    name, last = parts.pop()
    data = last.encode("utf-8")[: len(last.encode("utf-8")) - (size - want)]
    if b"\n" in data:
        parts.append((name, data[: data.rfind(b"\n") + 1].decode("utf-8")))
    return parts


def large_document_table(repeat: int) -> str:
    """``parse`` of the 5 MB load document, which holds copies of a divergent construct, against the same
    text without them: without the file, and with the construct's line made ordinary (see LOAD_BYTES)."""
    texts, _ = load_corpus(CORPUS)
    parts = load_document_parts(texts, LOAD_BYTES, LOAD_SEED)
    copies = sum(name == DIVERGENT_FILE for name, _ in parts)
    load = "".join(text for _, text in parts)
    without = "".join(text for name, text in parts if name != DIVERGENT_FILE)
    neutral = "".join(
        text.replace(DIVERGENT_LINE, NEUTRAL_LINE) if name == DIVERGENT_FILE else text for name, text in parts
    )
    # Only the load document holds a divergent construct outside code: without a region parser, the fast
    # path refuses it and takes the other two.
    assert copies and fastparse.top_level_blocks(load) is None
    assert fastparse.top_level_blocks(without) is not None and fastparse.top_level_blocks(neutral) is not None

    def timed(text: str, parser_of_record: bool = False) -> Callable[[], None]:
        def run() -> None:
            if not parser_of_record:
                chunker.parse(text, name="load.md")
                return
            os.environ[fastparse.PARSER_ENV] = "markdown-it"
            try:
                chunker.parse(text, name="load.md")
            finally:
                del os.environ[fastparse.PARSER_ENV]

        return run

    measures = {
        "load": timed(load),
        "without": timed(without),
        "neutral": timed(neutral),
        "record": timed(load, parser_of_record=True),
    }
    runs: dict[str, list[float]] = {key: [] for key in measures}
    keys = list(measures)
    load_before = os.getloadavg()[0]
    for round_ in range(repeat):  # each round in another order: no measure always runs first (or after another)
        for key in keys[round_ % len(keys) :] + keys[: round_ % len(keys)]:
            runs[key].append(best_of(1, measures[key]))
    load_after = os.getloadavg()[0]
    best = {key: min(times) for key, times in runs.items()}
    # each round's time against the same round's time without the divergent file, the median of those:
    # on a shared machine the best of each alone may come from different moments
    ratio = {key: statistics.median(t / w for t, w in zip(runs[key], runs["without"], strict=True)) for key in runs}
    mb = {key: len(text.encode("utf-8")) / MB for key, text in (("load", load), ("without", without))}
    rows = [
        (f"the load document ({mb['load']:.2f} MB, {copies} copies of `{DIVERGENT_FILE}`)", "load", "≤ 1.3×"),
        (f"the same without those copies ({mb['without']:.2f} MB)", "without", "-"),
        (
            f"the same with the construct's line `{DIVERGENT_LINE.strip()}` read as `{NEUTRAL_LINE.strip()}` "
            "in each copy (no construct; the same text otherwise)",
            "neutral",
            "-",
        ),
        (
            "the load document on markdown-it-py alone (`CHUNKER_PARSER=markdown-it`; what falling back for the "
            "whole text cost)",
            "record",
            "-",
        ),
    ]
    lines = [
        f"`parse` of the {LOAD_BYTES // MB} MB load document of `benchmarks/app_load.py` (its largest at its "
        f"defaults); {repeat} interleaved rounds, the order turned by one each round. Ratio: the median over the "
        "rounds of each round's time against the same round's time without the divergent file.",
        "",
        "| large document with a divergent construct | best s | median s | ratio | goal | met |",
        "|---|---:|---:|---:|---|---|",
        *(
            f"| {name} | {best[key]:.2f} | {statistics.median(runs[key]):.2f} | {ratio[key]:.2f} | {goal} | "
            f"{_yes(ratio[key] <= 1.3) if goal != '-' else '-'} |"
            for name, key, goal in rows
        ),
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores shared with other jobs "
        f"(load average {load_before:.2f} before, {load_after:.2f} after), Python {platform.python_version()}, "
        f"markdown-it-py {version('markdown-it-py')}, {_fast_path()}. Command: "
        f"`.venv/bin/python benchmarks/engine.py --only large --repeat {repeat} --write docs/BENCHMARKS.md` "
        "(the full benchmark writes it too).",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", type=Path, help="write the results table into this Markdown file")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--only", choices=["large"], help="only the large-document table (the 5 MB load document; a minute or two)"
    )
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"the shared corpus is not at {CORPUS}; nothing to measure", file=sys.stderr)
        return 1
    if args.only == "large":
        publish([large_document_table(args.repeat)], args.write, "engine-large")
        return 0

    from markdown_it import MarkdownIt

    files = sorted(CORPUS.rglob("*.md"))
    texts = [(p.name, p.read_bytes().decode("utf-8", errors="replace")) for p in files]
    size = sum(len(t.encode()) for _, t in texts)
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    # markdown-it's default maxNesting (20) silently stops parsing a list nested 10+
    # deep and swallows the rest of the document into it; the engine parses with
    # 100. The second floor gives markdown-it the same limit, for a like-for-like view.
    md_deep = MarkdownIt("commonmark", {"maxNesting": 100}).enable(["table", "strikethrough"])
    encode = get_tokenizer("cl100k_base")._encoding.encode_ordinary

    def floor() -> None:
        for _, text in texts:
            md.parse(text)
            encode(text)

    def floor_deep() -> None:
        for _, text in texts:
            md_deep.parse(text)
            encode(text)

    def whole(target: int = 512, hard_cap: int = 1024) -> Callable[[], None]:
        def run() -> None:
            for name, text in texts:
                chunker.chunk_markdown(text, name=name, target=target, hard_cap=hard_cap)

        return run

    def reference() -> None:
        """chunk_markdown with markdown-it-py as the only parser (the fast path switched off)."""
        os.environ[fastparse.PARSER_ENV] = "markdown-it"
        try:
            whole()()
        finally:
            del os.environ[fastparse.PARSER_ENV]

    def parse_only() -> None:
        for name, text in texts:
            chunker.parse(text, name=name)

    def rechunk_after_first_view(strategy: str) -> float:
        """A slider move: documents parsed and chunked once (untimed), then re-chunked at new limits."""
        docs = [chunker.parse(text, name=name) for name, text in texts]
        for doc in docs:
            chunker.chunk(doc, target=512, hard_cap=1024, strategy=strategy)
        gc.collect()
        start = time.perf_counter()
        for doc in docs:
            chunker.chunk(doc, target=256, hard_cap=512, strategy=strategy)
        return time.perf_counter() - start

    def whole_balanced() -> None:
        for name, text in texts:
            chunker.chunk_markdown(text, name=name, strategy="balanced")

    big = BIG.read_text(encoding="utf-8")
    double = big + "\n\n" + big

    # Interleaved, so that drift in machine speed hits floor and engine alike.
    measures: dict[str, Callable[[], object]] = {
        "floor": floor,
        "deep": floor_deep,
        "whole": whole(),
        "whole256": whole(256, 512),
        "reference": reference,
        "parse": parse_only,
        "whole balanced": whole_balanced,
    }
    runs: dict[str, list[float]] = {key: [] for key in [*measures, *(f"rechunk {s}" for s in chunker.STRATEGIES)]}
    load_before = os.getloadavg()[0]
    for _ in range(args.repeat):
        for key, fn in measures.items():
            runs[key].append(best_of(1, fn))
        for strategy in chunker.STRATEGIES:
            runs[f"rechunk {strategy}"].append(rechunk_after_first_view(strategy))
    best = {key: min(times) for key, times in runs.items()}
    t_floor, t_floor_deep, t_whole = (best[k] for k in ("floor", "deep", "whole"))
    t_1mb = best_of(args.repeat, lambda: chunker.chunk_markdown(big, name="1mb.md"))
    t_2mb = best_of(args.repeat, lambda: chunker.chunk_markdown(double, name="2mb.md"))
    # A code fence left open swallows the rest of the document into one code block (four corpus
    # files end so): re-chunked (256/512, after a first view at 512/1024), cut into pieces.
    fenced = "# Open fence\n\n" + "`" * 20 + "\n" + big.replace("```", "~~~")
    t_code = {
        mb: rechunk_one(fenced if mb == 1 else fenced + "\n\n" + big.replace("```", "~~~"), args.repeat)
        for mb in (1, 2)
    }
    load_after = os.getloadavg()[0]

    rows = [
        ("floor: markdown-it-py parse + one tiktoken pass", t_floor, 1.0, "-", True),
        ("`chunk_markdown` (parse + pack, 512/1024)", t_whole, t_whole / t_floor, "≤ 1.3×", t_whole / t_floor <= 1.3),
        ("`chunk_markdown` at 256/512 (the peers' setting)", best["whole256"], best["whole256"] / t_floor, "-", True),
        (
            "`chunk_markdown` 512/1024, parser of record only (`CHUNKER_PARSER=markdown-it`)",
            best["reference"],
            best["reference"] / t_floor,
            "-",
            True,
        ),
        ("`parse` alone (blocks, tree, exact counts)", best["parse"], best["parse"] / t_floor, "-", True),
        *(
            (
                f"re-chunk a parsed document (256/512), `{s}`{' (default)' if s == chunker.DEFAULT_STRATEGY else ''}",
                best[f"rechunk {s}"],
                best[f"rechunk {s}"] / t_floor,
                "≤ 0.1×",
                best[f"rechunk {s}"] / t_floor <= 0.1,
            )
            for s in chunker.STRATEGIES
        ),
        (
            "`chunk_markdown` (512/1024), `balanced`",
            best["whole balanced"],
            best["whole balanced"] / t_floor,
            "-",
            True,
        ),
        ("floor with maxNesting=100 (the engine's parse depth)", t_floor_deep, t_floor_deep / t_floor, "-", True),
        (
            "`chunk_markdown` against that floor",
            t_whole,
            t_whole / t_floor_deep,
            "≤ 1.3×",
            t_whole / t_floor_deep <= 1.3,
        ),
    ]
    lines = [
        f"Corpus: {len(texts)} documents, {size / 1e6:.2f} MB (`../shared/corpus/real`), best of {args.repeat} "
        "interleaved rounds.",
        "",
        "| measure | seconds | × floor | goal | met |",
        "|---|---:|---:|---|---|",
    ]
    # three decimals under 0.2: a re-chunk near its goal of 0.1 reads 0.097 or 0.103, not 0.10 either way
    lines += [
        f"| {n} | {t:.3f} | {r:.{3 if r < 0.2 else 2}f} | {g} | {'yes' if ok else 'no'} |" for n, t, r, g, ok in rows
    ]
    ratio = t_2mb / t_1mb
    lines += [
        "",
        "| linearity | seconds | ratio | goal | met |",
        "|---|---:|---:|---|---|",
        f"| `chunk_markdown`, 1 MB document | {t_1mb:.3f} | 1.00 | - | - |",
        f"| `chunk_markdown`, 2 MB (the same, twice) | {t_2mb:.3f} | {ratio:.2f} | ≤ 2.2× | {_yes(ratio <= 2.2)} |",
        f"| re-chunk one 1 MB code block (a fence left open; 256/512) | {t_code[1]:.3f} | 1.00 | - | - |",
        f"| re-chunk one 2 MB code block | {t_code[2]:.3f} | {t_code[2] / t_code[1]:.2f} | ≤ 2.2× "
        f"| {_yes(t_code[2] / t_code[1] <= 2.2)} |",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores shared with other jobs "
        f"(load average {load_before:.2f} before, {load_after:.2f} after), Python {platform.python_version()}, "
        f"markdown-it-py {version('markdown-it-py')}, {_fast_path()}, tiktoken {version('tiktoken')}.",
    ]
    table = "\n".join(lines)
    print(table)
    strategies = strategies_table(texts)
    print(strategies)
    large = large_document_table(args.repeat)
    print(large)
    if args.write:
        write_section(args.write, "engine", table)
        write_section(args.write, "engine-large", large)
        write_section(args.write, "strategies", strategies)
    return 0


def strategies_table(texts: list[tuple[str, str]], target: int = 256, hard_cap: int = 512) -> str:
    """Each strategy's chunks over the corpus: count, tokens, spread of sizes, chunks under 50 tokens,
    the share starting at a heading, structural defects (``chunk_inspector.peers.metrics``)."""
    from chunk_inspector.peers.chunkers import engine_chunks
    from chunk_inspector.peers.metrics import measure

    count = get_tokenizer("cl100k_base").count
    docs = [chunker.parse(text, name=name) for name, text in texts]
    lines = [
        f"The strategies on the corpus at {target}/{hard_cap} (cl100k_base); their re-chunk times are in the "
        "table above.",
        "",
        "| strategy | chunks | tokens | p10 | median | p90 | s.d. | < 50 tokens | start at a heading | defects "
        "| heading-only |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for strategy in chunker.STRATEGIES:
        sizes: list[int] = []
        at_heading = defects = heading_only = 0
        for doc in docs:
            chunks = chunker.chunk(doc, target, hard_cap, strategy=strategy)
            heading_starts = {b.start for b in doc.blocks if b.kind == "heading"}
            sizes += [c.token_count for c in chunks]
            at_heading += sum(c.char_span[0] in heading_starts for c in chunks)
            m = measure(doc.text, engine_chunks(chunks), count, hard_cap=hard_cap)
            defects += m.over_cap + m.unbalanced_fence + m.headless_table
            heading_only += m.heading_only
        deciles = statistics.quantiles(sizes, n=10)
        default = " (default)" if strategy == chunker.DEFAULT_STRATEGY else ""
        lines.append(
            f"| {strategy}{default} | {len(sizes):,} | {sum(sizes):,} | {deciles[0]:.0f} | "
            f"{statistics.median(sizes):.0f} | {deciles[-1]:.0f} | {statistics.pstdev(sizes):.0f} | "
            f"{sum(n < 50 for n in sizes)} | {at_heading / len(sizes):.0%} | {defects} | {heading_only} |"
        )
    lines += [
        "",
        "Defects: chunks over the hard cap, unbalanced code fences and table pieces without their header. "
        "Heading-only: chunks of headings alone (docs/method.md §5 step 8 allows them for a section with no content). "
        "Command: `python benchmarks/engine.py --write docs/BENCHMARKS.md` (`make bench`).",
    ]
    return "\n".join(lines)


def _fast_path() -> str:
    if not fastparse.AVAILABLE:
        return "no fast path (markdown-it-pyrs not installed)"
    return f"fast path markdown-it-pyrs {version('markdown-it-pyrs')}"


def _yes(ok: bool) -> str:
    return "yes" if ok else "no"


def publish(lines: list[str], path: Path | None, key: str, heading: str = "") -> None:
    """Print a benchmark's table and, given a path, write it as the section ``key`` there (after
    ``heading``, the first time the section is written)."""
    table = "\n".join(lines)
    print(table)
    if path is None:
        return
    if heading and f"<!-- {key}:start -->" not in (path.read_text(encoding="utf-8") if path.exists() else ""):
        with path.open("a", encoding="utf-8") as out:
            out.write(heading)
    write_section(path, key, table)


def write_section(path: Path, key: str, body: str) -> None:
    """Replace the block between `<!-- key:start -->` and `<!-- key:end -->` in ``path``."""
    start, end = f"<!-- {key}:start -->", f"<!-- {key}:end -->"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    block = f"{start}\n{body}\n{end}"
    if start in text and end in text:
        text = text[: text.index(start)] + block + text[text.index(end) + len(end) :]
    else:
        text = text.rstrip() + ("\n\n" if text else "") + block + "\n"
    path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
