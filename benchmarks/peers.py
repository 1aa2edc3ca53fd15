"""The engine against the peer chunkers on the shared corpus: quality and speed (issue 5).

Every document of ``../shared/corpus/real/`` goes through our engine (``target=256,
hard_cap=512``) and each installed peer (``chunk_inspector.peers.chunkers``: LangChain, LlamaIndex,
chonkie, semchunk, semantic-text-splitter, each configured as its documentation recommends
for Markdown, maximum size 512, 256 for a second size knob), all counting cl100k_base.

Quality (``chunk_inspector.peers.metrics``), summed over the corpus: chunks over the cap on
recount of what the chunker would embed, chunks with an unbalanced code fence, table pieces
without their header, heading-only chunks, chunks under 50 tokens, chunks with heading
metadata, coverage of the source, chunk count and tokens embedded.

Speed: each document is timed once per round for every chunker and for the floor
(markdown-it-py's full parse + one tiktoken pass), interleaved document by document in a
rotating order, in one process; each (chunker, document) keeps its best round. Reported:
the median per document and the corpus total as a ratio to the floor. Peers get a fresh
splitter each round (built untimed) so their per-instance caches never see a text twice.

Usage: .venv-peers/bin/python benchmarks/peers.py [--write docs/BENCHMARKS.md] [--repeat 3] [--peers a,b]
(``make bench-peers`` creates .venv-peers with ``pip install -e '.[peers]'`` and runs this).
"""

from __future__ import annotations

import argparse
import inspect
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import chunker  # noqa: E402
from benchmarks.engine import write_section  # noqa: E402
from chunk_inspector.peers.chunkers import (  # noqa: E402
    PEERS,
    PeerChunk,
    available_peers,
    engine_chunks,
    make_splitter,
    peer_version,
)
from chunk_inspector.peers.metrics import ChunkMetrics, measure  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "real"
HARD_CAP, TARGET, SMALL = 512, 256, chunker.SMALL_TOKENS
ENGINE = "chunk-inspector"
ENGINE_MIN = "chunk-inspector, min_tokens=50"
FLOOR = "floor"
FLOOR_DEEP = "floor-deep"
TOKENS_ONLY = "tokens"
# The engine at its defaults, and with min_tokens (docs/method.md §6) once chunk() has that option.
ENGINES: dict[str, dict[str, int]] = {ENGINE: {}}
if "min_tokens" in inspect.signature(chunker.chunk).parameters:
    ENGINES[ENGINE_MIN] = {"min_tokens": SMALL}


@dataclass
class Totals:
    """One chunker's quality over the corpus, and the documents behind each non-zero defect count."""

    metrics: dict[str, int] = field(default_factory=dict)
    covered: float = 0.0  # non-whitespace source characters covered, summed over documents
    size: int = 0  # non-whitespace source characters, summed
    worst: tuple[float, str] = (1.0, "")
    where: dict[str, list[str]] = field(default_factory=dict)
    failed: list[str] = field(default_factory=list)

    def add(self, name: str, m: ChunkMetrics, size: int) -> None:
        for f in fields(m):
            if f.name != "coverage":
                self.metrics[f.name] = self.metrics.get(f.name, 0) + getattr(m, f.name)
                if f.name in DEFECTS and getattr(m, f.name):
                    self.where.setdefault(f.name, []).append(f"{name} ({getattr(m, f.name)})")
        self.covered += m.coverage * size
        self.size += size
        self.worst = min(self.worst, (m.coverage, name))


DEFECTS = ("over_cap", "unbalanced_fence", "headless_table", "heading_only", "small")


def load_corpus() -> list[tuple[str, str]]:
    files = sorted(CORPUS.rglob("*.md"))
    return [(str(p.relative_to(CORPUS)), p.read_bytes().decode("utf-8", errors="replace")) for p in files]


def engine_revision() -> str:
    """The commit the engine was measured at, marked dirty when chunker/ has uncommitted changes."""
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "chunker"], cwd=ROOT, capture_output=True, text=True)
    except OSError:
        return "unknown"
    if rev.returncode:
        return "unknown"
    return rev.stdout.strip() + (" + uncommitted changes in chunker/" if dirty.stdout.strip() else "")


def quality(texts: list[tuple[str, str]], peers: list[str]) -> dict[str, Totals]:
    count = chunker.get_tokenizer("cl100k_base").count
    totals = {n: Totals() for n in [*ENGINES, *peers]}
    splitters = {n: make_splitter(n, hard_cap=HARD_CAP, target=TARGET) for n in peers}
    for name, text in texts:
        doc = chunker.parse(text, name=name)
        skip = doc.front_matter_block.char_span if doc.front_matter_block is not None else None
        size = len("".join(text.split()))
        if skip is not None:
            size -= len("".join(text[skip[0] : skip[1]].split()))
        runs: dict[str, Callable[[], list[PeerChunk]]] = {
            e: lambda doc=doc, opts=opts: engine_chunks(chunker.chunk(doc, target=TARGET, hard_cap=HARD_CAP, **opts))
            for e, opts in ENGINES.items()
        }
        runs.update({n: (lambda s=splitters[n], t=text: s(t)) for n in peers})
        for who, run in runs.items():
            try:
                chunks = run()
            except Exception as exc:  # a peer that fails on a document is reported, not fatal
                totals[who].failed.append(f"{name}: {type(exc).__name__}")
                continue
            totals[who].add(name, measure(text, chunks, count, hard_cap=HARD_CAP, skip=skip), size)
    return totals


def timings(texts: list[tuple[str, str]], peers: list[str], repeat: int) -> dict[str, list[float]]:
    """Best-of-``repeat`` seconds per document for the floor, the engine and each peer."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    # The engine parses with maxNesting=100 (docs/method.md, Decisions): at the default 20, markdown-it
    # stops early on deeply nested lists, which makes the plain floor cheaper than a full parse.
    md_deep = MarkdownIt("commonmark", {"maxNesting": 100}).enable(["table", "strikethrough"])
    encode = chunker.get_tokenizer("cl100k_base")._encoding.encode_ordinary

    def floor(name: str, text: str) -> object:
        md.parse(text)
        return encode(text)

    def floor_deep(name: str, text: str) -> object:
        md_deep.parse(text)
        return encode(text)

    def engine(opts: dict[str, int]) -> Callable[[str, str], object]:
        return lambda name, text: chunker.chunk_markdown(text, name=name, target=TARGET, hard_cap=HARD_CAP, **opts)

    best: dict[str, list[float]] = {
        n: [float("inf")] * len(texts) for n in [FLOOR, FLOOR_DEEP, TOKENS_ONLY, *ENGINES, *peers]
    }
    for round_ in range(repeat):
        runs: dict[str, Callable[[str, str], object]] = {
            FLOOR: floor,
            FLOOR_DEEP: floor_deep,
            TOKENS_ONLY: lambda name, text: encode(text),
        }
        runs.update({e: engine(opts) for e, opts in ENGINES.items()})
        for n in peers:
            split = make_splitter(n, hard_cap=HARD_CAP, target=TARGET)
            runs[n] = lambda name, text, split=split: split(text)
        order = list(runs)
        for i, (name, text) in enumerate(texts):
            shift = (i + round_) % len(order)  # rotate who goes first, document by document
            for who in order[shift:] + order[:shift]:
                start = time.perf_counter()
                try:
                    runs[who](name, text)
                except Exception:
                    continue  # reported by the quality pass
                best[who][i] = min(best[who][i], time.perf_counter() - start)
    return best


def quality_table(totals: dict[str, Totals]) -> list[str]:
    lines = [
        "| chunker | chunks | tokens embedded | over cap | unbalanced fence | table piece without header "
        "| heading only | under 50 tokens | with heading metadata | coverage (corpus / worst document) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for who, t in totals.items():
        m = t.metrics
        share = m["with_headings"] / m["chunks"] if m["chunks"] else 0.0
        lines.append(
            f"| {_label(who)} | {m['chunks']} | {m['tokens']} | {m['over_cap']} | {m['unbalanced_fence']} "
            f"| {m['headless_table']} | {m['heading_only']} | {m['small']} | {share:.0%} "
            f"| {t.covered / t.size:.2%} / {t.worst[0]:.2%} |"
        )
    return lines


def speed_table(best: dict[str, list[float]]) -> list[str]:
    floor_total = sum(best[FLOOR])
    lines = [
        "| chunker | median per document (ms) | corpus total (s) | × floor |",
        "|---|---:|---:|---:|",
    ]
    for who in sorted(best, key=lambda w: sum(best[w])):
        times = [t for t in best[who] if t != float("inf")]
        total = sum(times)
        lines.append(
            f"| {_label(who)} | {statistics.median(times) * 1e3:.2f} | {total:.3f} | {total / floor_total:.2f} |"
        )
    return lines


def _label(who: str) -> str:
    if who in ENGINES:
        return f"**{who}** (this engine)"
    if who == FLOOR:
        return "floor: markdown-it-py parse + one tiktoken pass"
    if who == FLOOR_DEEP:
        return "(floor with maxNesting=100, the engine's parse depth)"
    if who == TOKENS_ONLY:
        return "(one tiktoken pass alone)"
    return PEERS[who].label


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", type=Path, help="write the results into this Markdown file")
    parser.add_argument("--repeat", type=int, default=3, help="timed rounds (each document's best is kept)")
    parser.add_argument("--peers", help="comma-separated subset of the installed peers")
    parser.add_argument("--engine-rev", help="the engine's commit, when this copy is not a git checkout")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"the shared corpus is not at {CORPUS}; nothing to measure", file=sys.stderr)
        return 1
    peers = available_peers()
    if args.peers:
        peers = [p for p in args.peers.split(",") if p in peers]
    missing = [p for p in PEERS if p not in peers]
    if missing:
        print(f"not installed or not selected: {', '.join(missing)} (make bench-peers installs them)", file=sys.stderr)

    texts = load_corpus()
    size = sum(len(t.encode()) for _, t in texts)
    started = time.perf_counter()
    totals = quality(texts, peers)
    best = timings(texts, peers, args.repeat)
    elapsed = time.perf_counter() - started
    rev = args.engine_rev or engine_revision()

    lines = [
        f"Corpus: {len(texts)} documents, {size / 1e6:.2f} MB (`../shared/corpus/real`); tokenizer cl100k_base "
        f"for all; hard cap {HARD_CAP}, target {TARGET} (engine: `chunk_markdown(target={TARGET}, "
        f"hard_cap={HARD_CAP})`).",
        "",
        "Quality, summed over the corpus (lower is better but for heading metadata and coverage):",
        "",
        *quality_table(totals),
        "",
        f"Speed, best of {args.repeat} interleaved rounds per document, one process:",
        "",
        *speed_table(best),
        "",
        "Peers as configured (`chunk_inspector/peers/chunkers.py`):",
        "",
        *[f"- {PEERS[p].label} {peer_version(p)}: {PEERS[p].recipe}." for p in peers],
        "",
        f"Machine: {platform.machine()}, Python {platform.python_version()}, markdown-it-py "
        f"{version('markdown-it-py')}, tiktoken {version('tiktoken')}; engine at {rev}; "
        f"2 cores shared with other jobs (timings are noisy: compare ratios). Whole run {elapsed:.0f} s.",
    ]
    for who, t in totals.items():
        for doc in t.failed:
            lines.append(f"- {_label(who)} failed on {doc}.")
    for engine in ENGINES:
        if totals[engine].where:
            lines += ["", f"Where {engine} is not at zero (document, chunks):", ""]
            lines += [f"- {metric}: {', '.join(docs)}" for metric, docs in totals[engine].where.items()]
    body = "\n".join(lines)
    print(body)
    if args.write:
        write_section(args.write, "peers", body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
