"""Churn: what a small edit of a document costs an index that re-embeds only the chunks it has not seen.

LangChain's indexing API and LlamaIndex's docstore skip a chunk whose content hash they have
already stored, so a day's re-indexing costs the chunks whose text changed. On the revision pairs of
``benchmarks/revisions`` (consecutive commits of real Markdown files, each changing at most 5% of
the old version's lines; see its README), every chunker chunks the old and the new version, and for
each chunker and hard cap this reports:

- *chunks*: the new versions' chunks, all pairs together;
- *tokens re-embedded*: the share of the new versions' tokens (cl100k_base, counted on each chunk's
  text) that lie in chunks whose exact text (engine: ``Chunk.markdown``; peer: ``PeerChunk.text``) is
  not among the old version's chunk texts;
- *of them, touching no changed line*: the share of the new versions' tokens in re-embedded chunks
  whose lines hold no changed line: text that did not change but moved to a new chunk. The
  changed lines of the new version are those difflib (on lines) marks replaced or inserted; where
  lines were only deleted, the two lines either side of the gap count as changed. A chunk's lines
  come from its character span; a peer chunk without one counts as touching a change.

Shares are pooled: all pairs' re-embedded tokens over all pairs' tokens. Rows per hard cap: the
engine under each strategy of ``chunker.STRATEGIES`` at target ``min(DEFAULT_TARGET, cap)`` and its
default strategy at target ``cap // 2``; each installed peer (``available_peers()``, or ``--peers``)
through ``run_peer(name, text, hard_cap=cap, target=cap // 2)``. Each revision is chunked once per
chunker and cap (a revision shared by two pairs is chunked once). Deterministic.

Usage: .venv-peers/bin/python benchmarks/churn.py [--write docs/BENCHMARKS.md] [--caps 256,512,1024]
       [--limit N] [--peers all|none|NAME,...] [--details FILE.tsv]
(``make bench-churn``; in ``.venv`` without the peers, ``--peers none`` gives the engine's rows alone.)
"""

from __future__ import annotations

import argparse
import bisect
import csv
import difflib
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import chunker  # noqa: E402
from benchmarks.engine import publish  # noqa: E402
from benchmarks.peers import engine_revision  # noqa: E402
from chunk_inspector.peers.chunkers import PEERS, available_peers, peer_version, run_peer  # noqa: E402

REVISIONS = ROOT / "benchmarks" / "revisions"
MANIFEST = REVISIONS / "MANIFEST.tsv"
DEFAULT_CAPS = "256,512,1024"

# One chunk as measured: its text, its (start, end) in the source when known, its tokens.
Piece = tuple[str, tuple[int, int] | None, int]


@dataclass(frozen=True)
class Contender:
    """One row of a table: a chunker at its limits."""

    label: str
    hard_cap: int
    target: int
    strategy: str | None = None  # the engine's strategy; None for a peer
    peer: str | None = None


@dataclass(frozen=True)
class Pair:
    project: str
    path: str
    old: Path
    new: Path


@dataclass
class Tally:
    """A contender's totals over the pairs."""

    chunks: int = 0
    tokens: int = 0
    reembedded: int = 0
    untouched: int = 0  # re-embedded tokens in chunks that touch no changed line
    no_span: int = 0  # new chunks without a character span (counted as touching a change)
    errors: int = 0  # pairs the chunker failed on (left out of its totals)

    def share(self, part: int) -> str:
        return f"{part / self.tokens:.1%}" if self.tokens else "–"


def load_pairs(limit: int | None = None) -> list[Pair]:
    with MANIFEST.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    pairs = [Pair(r["project"], r["path"], REVISIONS / r["old_file"], REVISIONS / r["new_file"]) for r in rows]
    return pairs[:limit] if limit is not None else pairs


def read(path: Path) -> str:
    with path.open(encoding="utf-8", newline="") as f:
        return f.read()


def contenders(cap: int, peers: list[str]) -> list[Contender]:
    """The engine under each strategy at ``min(DEFAULT_TARGET, cap)``, its default strategy at ``cap // 2``
    (when that differs), then the peers at this cap."""
    target = min(chunker.DEFAULT_TARGET, cap)
    out = [Contender(f"engine, {s} {target}/{cap}", cap, target, strategy=s) for s in chunker.STRATEGIES]
    if cap // 2 != target:
        half = cap // 2
        out.append(Contender(f"engine, {chunker.DEFAULT_STRATEGY} {half}/{cap}", cap, half, chunker.DEFAULT_STRATEGY))
    out += [Contender(PEERS[p].label, cap, cap // 2, peer=p) for p in peers]
    return out


class Chunker:
    """Chunks revisions with contenders, each (revision, contender) once; each revision parsed once."""

    def __init__(self) -> None:
        self.count = chunker.get_tokenizer("cl100k_base").count
        self.docs: dict[Path, chunker.Document] = {}
        self.cache: dict[tuple[Path, Contender], list[Piece]] = {}

    def pieces(self, path: Path, text: str, who: Contender) -> list[Piece]:
        key = (path, who)
        if key not in self.cache:
            self.cache[key] = self._chunk(path, text, who)
        return self.cache[key]

    def _chunk(self, path: Path, text: str, who: Contender) -> list[Piece]:
        if who.peer is not None:
            peer_chunks = run_peer(who.peer, text, hard_cap=who.hard_cap, target=who.target)
            return [(c.text, c.char_span, self.count(c.text)) for c in peer_chunks]
        if path not in self.docs:
            self.docs[path] = chunker.parse(text, name=path.name)
            assert self.docs[path].text == text, f"{path}: the parsed text is not the source"
        doc = self.docs[path]
        chunks = chunker.chunk(doc, who.target, who.hard_cap, strategy=who.strategy or chunker.DEFAULT_STRATEGY)
        return [(c.markdown, (c.char_span[0], c.char_span[1]), self.count(c.markdown)) for c in chunks]

    def forget(self, path: Path) -> None:
        """Drop what is kept for a revision no later pair uses."""
        self.docs.pop(path, None)
        for key in [k for k in self.cache if k[0] == path]:
            del self.cache[key]


def changed_lines(old: str, new: str) -> list[int]:
    """The new version's changed lines (0-based, sorted): replaced or inserted ones, and for a deletion
    the lines either side of the gap."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    changed: set[int] = set()
    for tag, _, _, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("replace", "insert"):
            changed.update(range(j1, j2))
        elif tag == "delete":
            changed.update(j for j in (j1 - 1, j1) if 0 <= j < len(b))
    return sorted(changed)


def line_starts(text: str) -> list[int]:
    starts, at = [0], 0
    for line in text.splitlines(keepends=True):
        at += len(line)
        starts.append(at)
    return starts


def touches(span: tuple[int, int] | None, starts: list[int], changed: list[int]) -> bool:
    """Whether a chunk at ``span`` holds a changed line (True when it has no span)."""
    if span is None:
        return True
    first = bisect.bisect_right(starts, span[0]) - 1
    last = bisect.bisect_right(starts, max(span[0], span[1] - 1)) - 1
    at = bisect.bisect_left(changed, first)
    return at < len(changed) and changed[at] <= last


def measure(
    pairs: list[Pair],
    caps: list[int],
    peers: list[str],
    details: Callable[[list[str]], None] | None = None,
) -> dict[int, dict[Contender, Tally]]:
    tallies = {cap: {who: Tally() for who in contenders(cap, peers)} for cap in caps}
    work = Chunker()
    last_use = {p: i for i, pair in enumerate(pairs) for p in (pair.old, pair.new)}
    for i, pair in enumerate(pairs):
        old, new = read(pair.old), read(pair.new)
        changed = changed_lines(old, new)
        starts = line_starts(new)
        for cap in caps:
            for who, tally in tallies[cap].items():
                try:
                    before = {text for text, _, _ in work.pieces(pair.old, old, who)}
                    after = work.pieces(pair.new, new, who)
                except Exception as exc:  # a peer's failure on one text: reported, never a crash
                    print(f"{who.label} at {cap} failed on {pair.new}: {exc}", file=sys.stderr)
                    tally.errors += 1
                    continue
                tokens = sum(n for _, _, n in after)
                fresh = [(span, n) for text, span, n in after if text not in before]
                reembedded = sum(n for _, n in fresh)
                untouched = sum(n for span, n in fresh if not touches(span, starts, changed))
                tally.chunks += len(after)
                tally.tokens += tokens
                tally.reembedded += reembedded
                tally.untouched += untouched
                tally.no_span += sum(span is None for _, span, _ in after)
                if details is not None:
                    rel = pair.new.relative_to(REVISIONS).as_posix()
                    details([rel, who.label, str(cap), str(len(after)), str(tokens), str(reembedded), str(untouched)])
        for path in (pair.old, pair.new):
            if last_use[path] == i:
                work.forget(path)
    return tallies


def table(cap: int, tallies: dict[Contender, Tally]) -> list[str]:
    rows = [
        f"#### Hard cap {cap}",
        "",
        "| chunker | chunks | tokens re-embedded | of them in chunks that touch no changed line |",
        "|---|---:|---:|---:|",
    ]
    notes = []
    for who, t in sorted(
        tallies.items(), key=lambda item: (item[1].reembedded / max(item[1].tokens, 1), item[0].label)
    ):
        rows.append(f"| {who.label} | {t.chunks:,} | {t.share(t.reembedded)} | {t.share(t.untouched)} |")
        if t.no_span:
            notes.append(f"{who.label}: {t.no_span:,} of {t.chunks:,} chunks had no span (counted as touching)")
        if t.errors:
            notes.append(f"{who.label}: failed on {t.errors} pairs (left out)")
    return [*rows, "", *(f"- {n}" for n in notes), *([""] if notes else [])]


HEADING = f"""
## Churn: what a small edit costs an index that re-embeds only new chunks

Command: `make bench-churn` (`.venv-peers/bin/python benchmarks/churn.py --write docs/BENCHMARKS.md`).
LangChain's indexing API and LlamaIndex's docstore skip a chunk whose content hash they have seen, so
what a chunker costs a team each day is the share of chunks whose text changes when the document
changes a little. The documents: the revision pairs of `benchmarks/revisions/` (its README says how
they were chosen, from where, and under which licences): consecutive commits of Markdown files of
FastAPI's docs, the Rust book, mkdocs-material's reference pages, and axios', pyenv's and
youtube-dl's READMEs and other pages, each new version changing at least one and at most 5% of the
old version's lines. Every chunker chunks both versions at each hard cap: the engine under each
strategy at target min({chunker.DEFAULT_TARGET}, cap) and under its default strategy
({chunker.DEFAULT_STRATEGY}) at cap/2; the peers at hard_cap=cap, target=cap/2, as
`chunk_inspector/peers/chunkers.py` sets them up. *Tokens re-embedded*: the share of the new versions' tokens
(cl100k_base, on each chunk's text) in chunks whose exact text was not among the old version's chunk
texts. *Of them in chunks that touch no changed line*: the part of that share in chunks that hold no
line difflib marks changed (for a pure deletion, the lines either side of the gap): unchanged text
re-embedded only because chunk boundaries moved. Pooled over all pairs; each table sorted by tokens
re-embedded.
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", type=Path, help="write the tables as a section of this Markdown file")
    parser.add_argument("--caps", default=DEFAULT_CAPS, help="hard caps, comma-separated (default %(default)s)")
    parser.add_argument("--limit", type=int, help="the first N pairs only (a quick check)")
    parser.add_argument("--peers", default="all", help="'all' installed (default), 'none', or names, comma-separated")
    parser.add_argument("--details", type=Path, help="also write per-pair figures to this TSV file")
    args = parser.parse_args()
    caps = [int(c) for c in args.caps.split(",")]
    installed = available_peers()
    if args.peers == "all":
        peers = installed
    elif args.peers == "none":
        peers = []
    else:
        peers = args.peers.split(",")
        missing = [p for p in peers if p not in installed]
        if missing:
            parser.error(f"not installed: {', '.join(missing)} (installed: {', '.join(installed) or 'none'})")
    pairs = load_pairs(args.limit)
    started = time.perf_counter()
    details_file = args.details.open("w", encoding="utf-8", newline="") if args.details else None
    try:
        writer = csv.writer(details_file, delimiter="\t", lineterminator="\n") if details_file else None
        if writer is not None:
            writer.writerow(["new_file", "chunker", "cap", "chunks", "tokens", "reembedded", "untouched"])
        tallies = measure(pairs, caps, peers, writer.writerow if writer is not None else None)
    finally:
        if details_file is not None:
            details_file.close()
    projects = sorted({p.project for p in pairs})
    lines = [
        f"Measured at engine {engine_revision()}, {platform.python_implementation()} {platform.python_version()}, "
        f"on {len(pairs)} revision pairs of {len(projects)} projects ({', '.join(projects)}). Peers: "
        + (", ".join(f"{PEERS[p].label} {peer_version(p)}" for p in peers) or "none")
        + ".",
        "",
    ]
    for cap in caps:
        lines += table(cap, tallies[cap])
    command = "python benchmarks/churn.py --write docs/BENCHMARKS.md"
    if args.caps != DEFAULT_CAPS:
        command += f" --caps {args.caps}"
    if args.limit is not None:
        command += f" --limit {args.limit}"
    if args.peers != "all":
        command += f" --peers {args.peers}"
    lines.append(
        f"Took {time.perf_counter() - started:.0f} s. Command: `{command}` (all pairs, all caps: `make bench-churn`)."
    )
    key = "churn"
    if args.caps != DEFAULT_CAPS:
        key += "-" + args.caps.replace(",", "-")
    if args.limit is not None or args.peers != "all":
        key += "-partial"
    publish(lines, args.write, key, HEADING if key == "churn" else "")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
