"""Quality measures of a chunk list, the same for the engine and for every peer.

Plain functions over strings and :class:`~chunk_inspector.peers.PeerChunk` values, so they
work on any chunker's output (whitespace re-flowed or not) and can be tested on hand-made
chunks. Markdown is recognised line by line here (fences, ATX and setext headings, GFM
pipe tables): a chunk is a fragment that a full parser would misread anyway, and the
engine's parser stays in ``chunker/parse.py``.

- :func:`unbalanced_fence`: a chunk that opens a code fence it does not close, or that
  starts inside one (its stray closing fence then opens a fence that never closes);
- :func:`heading_only`: every non-blank line of the chunk is a heading;
- :func:`source_tables` and :func:`headless_table_piece`: a chunk holding rows of a source
  table without that table's header and delimiter lines;
- :func:`coverage`: the share of the source's non-whitespace characters found in some chunk;
- :func:`measure`: all of them, and the counts, over one document's chunks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from chunk_inspector.peers.chunkers import PeerChunk
from chunker import SMALL_TOKENS

__all__ = [
    "ChunkMetrics",
    "Defects",
    "Table",
    "coverage",
    "defects",
    "heading_only",
    "headless_table_piece",
    "measure",
    "source_tables",
    "unbalanced_fence",
]

# Container prefixes a fence may sit behind: block quote markers, indentation, one list marker.
_FENCE_OPEN = re.compile(r"^(?:[ \t]*>)*[ \t]*(?:(?:[-+*]|\d{1,9}[.)])[ \t]+)?(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_FENCE_CLOSE = re.compile(r"^(?:[ \t]*>)*[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*$")
_ATX = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")
# Each run of blanks has one place ("[ \t]*\|?[ \t]*" split a line of blanks every way: 20,000 spaces, 11 s).
_DELIMITER_ROW = re.compile(r"^[ \t]*(?:\|[ \t]*)?:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*(?:\|[ \t]*)?$")


def _fence_opener(line: str) -> str | None:
    """The fence string (```` ``` ````, ``~~~~``) a line opens, or None."""
    match = _FENCE_OPEN.match(line)
    if match is None:
        return None
    fence = match["fence"]
    if fence[0] == "`" and "`" in match["info"]:  # ```foo``` on one line is inline code
        return None
    return fence


def _closes(line: str, fence: str) -> bool:
    match = _FENCE_CLOSE.match(line)
    return match is not None and match["fence"][0] == fence[0] and len(match["fence"]) >= len(fence)


def _code_lines(lines: Sequence[str]) -> tuple[list[bool], str | None]:
    """Per line, whether it is inside a fenced code block (fence lines included), and the
    fence left open at the end (None when every fence closes)."""
    inside: list[bool] = []
    open_fence: str | None = None
    for line in lines:
        if open_fence is None:
            open_fence = _fence_opener(line)
            inside.append(open_fence is not None)
        else:
            inside.append(True)
            if _closes(line, open_fence):
                open_fence = None
    return inside, open_fence


def unbalanced_fence(markdown: str) -> bool:
    """True when ``markdown`` leaves a code fence open at its end."""
    return _code_lines(markdown.splitlines())[1] is not None


def heading_only(markdown: str) -> bool:
    """True when ``markdown`` has text and every non-blank line is an ATX heading or a setext heading."""
    lines = [line for line in markdown.splitlines() if line.strip()]
    if not lines:
        return False
    i = 0
    while i < len(lines):
        if _ATX.match(lines[i]):
            i += 1
        elif i + 1 < len(lines) and _SETEXT_UNDERLINE.match(lines[i + 1]) and not _SETEXT_UNDERLINE.match(lines[i]):
            i += 2
        else:
            return False
    return True


@dataclass(frozen=True, slots=True)
class Table:
    """A GFM table of the source: its header and delimiter lines and its body rows, each stripped."""

    header: str
    delimiter: str
    rows: tuple[str, ...]


def source_tables(text: str) -> tuple[Table, ...]:
    """The pipe tables of ``text`` outside code fences: a line with a ``|``, then a delimiter row
    with a ``|``, then the non-blank lines up to the next blank line or fence."""
    lines = text.splitlines()
    inside, _ = _code_lines(lines)
    tables: list[Table] = []
    i = 1
    while i < len(lines):
        header, delimiter = lines[i - 1], lines[i]
        if (
            not inside[i - 1]
            and not inside[i]
            and "|" in header
            and "|" in delimiter
            and _DELIMITER_ROW.match(delimiter)
            and header.strip()
        ):
            end = i + 1
            while end < len(lines) and lines[end].strip() and not inside[end]:
                end += 1
            rows = tuple(line.strip() for line in lines[i + 1 : end])
            tables.append(Table(header.strip(), delimiter.strip(), rows))
            i = end + 1
        else:
            i += 1
    return tuple(tables)


def headless_table_piece(markdown: str, tables: Iterable[Table]) -> bool:
    """True when ``markdown`` holds a body row of a source table but not that table's header and
    delimiter lines (a row also found in a table whose header the chunk does hold is not counted)."""
    return _TableLines(tables).headless(markdown)


class _TableLines:
    """The source's tables by their lines, so that a chunk is checked by its own lines: looking through every
    row of every table for each chunk took time in chunks × rows (a 2.6 MB table: 50 s on the Compare page)."""

    def __init__(self, tables: Iterable[Table]) -> None:
        self.tables = tuple(tables)
        self.by_header: dict[str, list[int]] = {}
        self.by_row: dict[str, set[int]] = {}
        for n, table in enumerate(self.tables):
            self.by_header.setdefault(table.header, []).append(n)
            for row in table.rows:
                self.by_row.setdefault(row, set()).add(n)

    def headless(self, markdown: str) -> bool:
        lines = {line.strip() for line in markdown.splitlines() if line.strip()}
        headed = {n for line in lines for n in self.by_header.get(line, ()) if self.tables[n].delimiter in lines}
        # A row of a headless table, found in no headed table.
        return any((found := self.by_row.get(line)) and found.isdisjoint(headed) for line in lines)


def coverage(source: str, chunks: Iterable[str], *, skip: tuple[int, int] | None = None) -> float:
    """Share of the non-whitespace characters of ``source`` (outside the ``skip`` char span, such as
    front matter) that some chunk contains.

    Whitespace is ignored on both sides, so chunkers that re-flow lines are judged on their
    content. Each chunk is looked up whole, from where the previous one ended (else anywhere).
    A chunk that is not one contiguous piece of the source is looked up without up to
    :data:`_EDGE_LINES` lines at each end (an added fence or repeated table header), keeping at
    least half of it, those lines then being looked up just before and after it; failing that,
    line by line.
    """
    compact = "".join(source.split())
    covered = bytearray(len(compact))
    cursor = 0

    def cover(at: int, piece: str) -> int:
        if at >= 0:
            covered[at : at + len(piece)] = b"\x01" * len(piece)
        return at

    def follow(piece: str) -> int:
        """Cover the next occurrence of ``piece`` (else the first) and move the cursor past it."""
        nonlocal cursor
        at = compact.find(piece, cursor)
        at = cover(compact.find(piece) if at < 0 else at, piece)
        if at >= 0:
            cursor = at + len(piece)
        return at

    for chunk in chunks:
        lines = [piece for line in chunk.splitlines() if (piece := "".join(line.split()))]
        if not lines or follow("".join(lines)) >= 0:
            continue
        size = sum(map(len, lines))
        for head, tail in _edge_cuts(len(lines)):
            core = "".join(lines[head : len(lines) - tail])
            at = follow(core) if 2 * len(core) >= size else -1  # a small core finds the wrong place
            if at >= 0:  # edge lines: the nearest occurrence before the core, after it
                for piece in lines[:head]:
                    cover(compact.rfind(piece, max(0, at - _NEAR), at), piece)
                for piece in lines[len(lines) - tail :]:
                    cover(compact.find(piece, cursor, cursor + _NEAR), piece)
                break
        else:
            for piece in lines:
                follow(piece)
    total, hit = len(compact), sum(covered)
    if skip is not None:  # compact offsets of the skipped span: its non-whitespace characters
        start = len("".join(source[: skip[0]].split()))
        end = start + len("".join(source[skip[0] : skip[1]].split()))
        total, hit = total - (end - start), hit - sum(covered[start:end])
    return hit / total if total else 1.0


_EDGE_LINES = 3  # a repeated table header is two lines, a re-opened fence one
_NEAR = 20_000  # compact characters around a chunk in which its edge lines are looked for


def _edge_cuts(n: int) -> list[tuple[int, int]]:
    """``(head, tail)`` line counts to drop from a chunk of ``n`` lines, fewest first, leaving one at least."""
    cuts = [(h, t) for h in range(_EDGE_LINES + 1) for t in range(_EDGE_LINES + 1) if 0 < h + t < n]
    return sorted(cuts, key=lambda c: (c[0] + c[1], c))


@dataclass(frozen=True, slots=True)
class ChunkMetrics:
    """Quality of one chunk list: counts of defective chunks (lower is better), ``with_headings``
    and ``coverage`` (higher is better), ``chunks`` and ``tokens`` (the sum over embedded texts)."""

    chunks: int
    over_cap: int
    unbalanced_fence: int
    headless_table: int
    heading_only: int
    small: int
    with_headings: int
    coverage: float
    tokens: int


@dataclass(frozen=True, slots=True)
class Defects:
    """The counts of defective chunks of :class:`ChunkMetrics` alone (what the Compare page shows)."""

    over_cap: int
    unbalanced_fence: int
    headless_table: int
    heading_only: int
    small: int


def defects(
    source: str, chunks: Sequence[PeerChunk], sizes: Sequence[int], *, hard_cap: int, small: int = SMALL_TOKENS
) -> Defects:
    """How many of ``chunks`` (of ``sizes`` tokens each) made from ``source`` have each defect: the measures
    that read each chunk once. (:func:`coverage` looks each chunk up in the whole source: a page that does not
    show it does not pay for it, 13 s of a 2.6 MB table's 17.)

    A fence the source itself leaves open excuses one chunk. A document's only chunk is never counted as
    small: it cannot be bigger.
    """
    tables = source_tables(source)
    open_fences = sum(unbalanced_fence(c.text) for c in chunks)
    return Defects(
        over_cap=sum(size > hard_cap for size in sizes),
        unbalanced_fence=max(0, open_fences - unbalanced_fence(source)),
        headless_table=sum(map(_TableLines(tables).headless, (c.text for c in chunks))) if tables else 0,
        heading_only=sum(heading_only(c.text) for c in chunks),
        small=sum(size < small for size in sizes) if len(chunks) > 1 else 0,
    )


def measure(
    source: str,
    chunks: Sequence[PeerChunk],
    count: Callable[[str], int],
    *,
    hard_cap: int,
    skip: tuple[int, int] | None = None,
    small: int = SMALL_TOKENS,
) -> ChunkMetrics:
    """Every measure of ``chunks`` made from ``source``: :func:`defects`, the chunks with headings, the
    :func:`coverage` and the tokens.

    Tokens are counted on what the chunker would embed (:attr:`PeerChunk.embedded`); the
    Markdown checks look at the chunk text.
    """
    sizes = [count(c.embedded) for c in chunks]
    found = defects(source, chunks, sizes, hard_cap=hard_cap, small=small)
    return ChunkMetrics(
        chunks=len(chunks),
        over_cap=found.over_cap,
        unbalanced_fence=found.unbalanced_fence,
        headless_table=found.headless_table,
        heading_only=found.heading_only,
        small=found.small,
        with_headings=sum(bool(c.headings) for c in chunks),
        coverage=coverage(source, (c.text for c in chunks), skip=skip),
        tokens=sum(sizes),
    )
