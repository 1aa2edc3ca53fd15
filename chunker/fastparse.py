"""The compiled fast path for the top-level block parse: markdown-it-pyrs (markdown-it.rs).

markdown-it-py stays the parser of record (``chunker/parse.py``); this module gives the
same top-level blocks about four times faster, as line ranges. ``tests/test_fastpath.py``
proves it: the same blocks, spans, titles and counts on every document of the shared
corpus and every CommonMark spec example, and on generated Markdown. Only block rules
are enabled (the "zero" preset plus the block rules), so no inline parsing happens.

Memory: markdown-it.rs hands its tree over as Python objects, inline text included, up to
about 50 bytes per byte of text. So the top level is parsed in pieces of about 64 K
characters, each tree dropped once its blocks are read (:class:`_Pieces`; a table longer than a
piece, two objects a cell in such a tree, is measured by markdown-it-py's table rule instead:
:func:`_table_end`), and the checks
below read the text in pieces too (:func:`_scan_pieces`) instead of copies of all of it;
``tests/test_pieces.py`` shows that the pieces give what the whole gives.

Where the text holds a construct on which the two parsers may part ways (:func:`diverges`),
only a region of top-level blocks around it is parsed by markdown-it-py, through the
caller's ``region_parser``; the rest of the text keeps the fast path (:func:`_with_regions`
says where a region may start and end, and why). Without a ``region_parser`` such a text
gets ``None``.

:func:`top_level_blocks` returns ``None`` wherever it cannot promise markdown-it-py's
answer, and the caller then parses the whole text with markdown-it-py:

- markdown-it-pyrs is not installed (it is a dependency, but the engine works without it),
  or the environment variable ``CHUNKER_PARSER`` is ``markdown-it``;
- the text holds lone surrogates, which a Rust string cannot;
- containers nest deep enough to reach markdown-it-py's nesting limit (``maxNesting``),
  past which markdown-it-py stops parsing and the compiled parser does not.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from chunker.spans import line_bounds

try:
    import markdown_it_pyrs
except ImportError:  # pragma: no cover - a dependency; the engine works without it
    markdown_it_pyrs = None  # type: ignore[assignment]

__all__ = ["AVAILABLE", "PARSER_ENV", "RawBlock", "RawInner", "enabled", "inner_blocks", "top_level_blocks"]

AVAILABLE = markdown_it_pyrs is not None
PARSER_ENV = "CHUNKER_PARSER"  # "markdown-it" forces the parser of record

# (kind, first line, stop line, heading level, heading inline source, fence info); lines 0-based, stop exclusive
RawBlock = tuple[str, int, int, int, str, str]

# The block rules of markdown-it-py's commonmark preset plus GFM tables; no inline rule.
_BLOCK_RULES: list[Any] = [
    "blockquote", "code", "fence", "heading", "hr", "lheading", "list", "paragraph", "reference", "html_block", "table",
]  # fmt: skip
# (kind, first line, stop line, children, fence info, fence characters); lines 0-based, stop exclusive
RawInner = tuple[str, int, int, tuple["RawInner", ...], str, str]

_KIND_BY_NODE = {
    "heading": "heading",
    "lheading": "heading",
    "paragraph": "paragraph",
    "bullet_list": "list",
    "ordered_list": "list",
    "blockquote": "blockquote",
    "table": "table",
    "fence": "code",
    "code_block": "code",
    "html_block": "html",
    "hr": "hr",
}

# markdown-it-py's nesting limit as the engine sets it (parse.py), and a margin below it.
MAX_NESTING = 100
_SAFE_NESTING = MAX_NESTING - 10
# A block nested in containers starts on a line that carries all their markers and
# indentation: a ">" is one level in one column, a list and its item two levels in at least
# two columns, but for an empty item at the end of a line; so a block's level is at most the
# columns of its line's prefix plus one. A tab is at most four columns. A text with no line
# whose prefix has 88 characters, or 22 with a tab among them, stays below level 89, under
# MAX_NESTING; only a text with such a line gets its depth measured.
_INNER_KIND_BY_NODE = {**_KIND_BY_NODE, "list_item": "item", "thead": "thead", "tbody": "tbody", "trow": "row"}
_MAYBE_DEEP = re.compile(r"\n(?:[ >*+\-0-9.)]{88}|(?=[ >*+\-0-9.)]*\t)[ \t>*+\-0-9.)]{22})")
# markdown-it.rs recurses once per level and has no nesting limit: 100,000 nested ">" overflow
# its stack (a segfault). By the same count, a text with no prefix of 1,000 characters (250
# with a tab) nests fewer than 4,001 levels, which it parses without trouble; any other text
# goes to markdown-it-py, whose limit stops it at depth 100.
_PREFIX = re.compile(r"[ \t>*+\-0-9.)]*")
_TOO_DEEP, _TOO_DEEP_TAB = 1000, 250
# markdown-it.rs takes time quadratic in a run of lines that open like link reference
# definitions ("[x]: ..."): 4,000 in a row take a second (markdown-it-py: 0.1 s). A run with
# more than _MANY_DEFINITIONS of them goes to markdown-it-py.
_DEFINITION_LINE = re.compile(r"\n[ \t>]*\[[^\n]*\]:")
_MANY_DEFINITIONS = 200
# Constructs on which markdown-it.rs and markdown-it-py part ways, found by differential
# fuzzing (tests/test_fastpath.py); where one occurs, markdown-it-py parses a region around it. Mostly the
# places where markdown-it-py lets a list item or a table end a blockquote's lazy
# paragraph or a table, where CommonMark and markdown-it.rs go on. Found by
# :func:`diverges` in linear time: each scan jumps between candidate lines in C.
_MARKER = r"(?:[-+*]|\d{1,9}[.)])"
_CONTAINER_PREFIX = r"(?:[ \t>]|" + _MARKER + r"[ \t])*"
# a line of container markers only, ending in a list marker: an empty list item (the markers
# written marker first, so that a line without one fails at once: this scan meets every line)
_EMPTY_ITEM = re.compile(r"\n[ \t>]*" + _MARKER + r"(?:[ \t]+" + _MARKER + r")*[ \t]*(?=\n)")
# the markers before a blockquote's ">" (in list items too); an empty quote in a container (">>", "> - >")
_QUOTE_PREFIX = re.compile(_CONTAINER_PREFIX)
_ORDERED_LINE = re.compile(r"\n[ \t>]*(\d{1,9})[.)](?:[ \t]|\n)")
_CONTAINER_LINE = re.compile(r"\n[ \t]*(?:>|" + _MARKER + r"[ \t])")
# a line of "|", ":", "-" only (and its container markers): a table delimiter row, a
# setext underline or a rule. Its one "-" is checked ahead and the rest read possessively: "any
# of them, a dash, any of them" tried each dash of a line of " -" pairs that ends otherwise as the
# one, reading to the line's end each time (an 80 KB line took 43 s).
_DASH_LINE = re.compile(r"\n(?=[^\n-]*-)[ \t>]*+[|:\- \t]*+(?=\n)")
_DASHES = re.compile(r"[ \t>]*:?-+:?[ \t]*")
_BLANK_LINE = re.compile(r"\n[ \t]*(?=\n)")
# Inside a block (inner_blocks) also: a tab among a line's container markers and
# indentation, and HTML after them. Falling back there costs one block's parse.
_DIVERGENT_INSIDE = re.compile(r"\n(?:[ >*+\-.)0-9]*\t|[ \t>]*(?:" + _MARKER + r"[ \t]+)*<)")


def diverges(text: str, code: Sequence[tuple[int, int]] = ()) -> bool:
    """Whether ``text`` holds a construct on which the two parsers may disagree (see above).

    ``code`` are the line ranges ``[first, stop)`` of the top-level code blocks, in order:
    a construct wholly inside one is code to both parsers (they agree on everything before
    the first construct outside code), so it does not count.

    Each construct lies within a run of non-blank lines, so the text is read in pieces that
    start at blank lines (:func:`_scan_pieces`): no copy of the whole text is made.
    """
    firsts = [first for first, _ in code]
    return any(next(_constructs_in(piece, line, code, firsts), None) for line, piece in _scan_pieces(text))


def constructs(text: str, code: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """The lines ``(first, last)`` (0-based, inclusive) of every construct that :func:`diverges` finds
    in ``text`` outside ``code``, in the order found (not sorted)."""
    firsts = [first for first, _ in code]
    return [found for line, piece in _scan_pieces(text) for found in _constructs_in(piece, line, code, firsts)]


def _constructs_in(
    text: str, line: int, code: Sequence[tuple[int, int]], firsts: list[int]
) -> Iterator[tuple[int, int]]:
    """:func:`constructs` in one piece of the text (``text``: as :func:`_scan_pieces` gives it, from ``line``)."""
    starts: list[int] = []

    def found(start: int, end: int) -> tuple[int, int] | None:
        """The lines from the one after ``text[start]`` ("\\n") to the one holding ``text[end - 1]``
        (``(first, last)``, in the caller's lines), or ``None`` where they lie within one code block."""
        if not starts:
            starts.extend(line_bounds(text)[0])
        # a line of the caller's text: "text" has one more in front, and starts at its line ``line``
        first = bisect_right(starts, start + 1) - 2 + line
        last = bisect_right(starts, max(end - 1, start + 1)) - 2 + line
        k = bisect_right(firsts, first) - 1
        return None if k >= 0 and last < code[k][1] else (first, last)

    for item in _EMPTY_ITEM.finditer(text):
        if lines := found(item.start(), item.end()):
            yield lines
    position, searched = text.find(">"), 0
    while position >= 0:  # blockquote lines: a ">" after nothing but container markers
        line_start = text.rfind("\n", 0, position) + 1
        line_end = text.index("\n", position)
        if _QUOTE_PREFIX.fullmatch(text, line_start, position):
            body = text[line_start:line_end].rstrip(" \t")  # an empty blockquote in a container: ">>", "> - >"
            if (
                body.endswith(">")
                and body[:-1].strip(" \t")
                and _QUOTE_PREFIX.fullmatch(body, 0, len(body) - 1)
                and (lines := found(line_start - 1, line_end))
            ):
                yield lines
            if line_end >= searched:  # once per run of lines: an ordered item in the quote's paragraph
                searched = _run_end(text, line_end)
                for ordered in _ORDERED_LINE.finditer(text, line_end, searched):
                    if lines := found(line_start - 1, ordered.end()):
                        yield lines
        # No later ">" on this line follows container markers only: on to the next line.
        position = text.find(">", line_end)
    run_end, container = -1, None
    for dashes in _DASH_LINE.finditer(text):
        start, end = dashes.start(), dashes.end()
        if "|" in text[start:end]:  # a delimiter row: a table in a container, or items among its rows
            if start >= run_end:  # the first of its run: look at the run once
                run_start, run_end = _run_start(text, start), _run_end(text, end)
                container = _CONTAINER_LINE.search(text, run_start, run_end)
                items = [item.end() for item in _ORDERED_LINE.finditer(text, end, run_end) if item.group(1) != "1"]
                if items and (lines := found(start, items[-1])):
                    yield lines
            if container and container.start() < start and (lines := found(container.start(), end)):
                yield lines
        elif _DASHES.fullmatch(text, start + 1, end):  # a pipe over dashes: a one-column table to markdown-it-py
            above = text.rfind("\n", 0, start)
            if "|" in text[above + 1 : start] and (lines := found(above, end)):
                yield lines


# Characters per piece that diverges() and the checks before a parse read at once (at least).
_SCAN_PIECE_CHARS = 1 << 16
# A line break before a blank line (or the end): where a piece of those scans may end.
_BEFORE_BLANK = re.compile(r"(?:\r\n|\r(?!\n)|\n)(?=[ \t]*(?:[\r\n]|\Z))")


def _scan_pieces(text: str) -> Iterator[tuple[int, str]]:
    """The text in pieces, each with its first line: ``(line, "\\n" + piece + "\\n")``, line breaks
    made ``\\n``. A piece but the first starts at a blank line, so a run of non-blank lines lies
    in one piece; a text without a blank line is one piece."""
    first, line, length = 0, 0, len(text)
    while first < length or not first:
        found = _BEFORE_BLANK.search(text, first + _SCAN_PIECE_CHARS) if length - first > _SCAN_PIECE_CHARS else None
        stop = found.end() if found else length
        piece = text[first:stop] if first or stop < length else text
        if "\r" in piece:
            piece = piece.replace("\r\n", "\n").replace("\r", "\n")
        yield line, "\n" + piece + "\n"
        if stop >= length:
            return
        line += piece.count("\n")
        first = stop


def _run_end(text: str, line_end: int) -> int:
    """Where the run of non-blank lines ends, given the "\\n" that ends one of its lines (at a blank line's "\\n")."""
    blank = _BLANK_LINE.search(text, line_end)
    return blank.start() if blank else len(text)


def _run_start(text: str, position: int) -> int:
    """Where the run of non-blank lines holding the line break at ``position`` starts."""
    while position > 0:
        previous = text.rfind("\n", 0, position)
        if not text[previous + 1 : position].strip(" \t"):
            return position
        position = previous
    return 0


_CONTAINERS = frozenset({"blockquote", "bullet_list", "ordered_list", "list_item"})
_SURROGATE = re.compile("[\ud800-\udfff]")

_parser: Any = None


def enabled() -> bool:
    """True when the fast path is installed and not switched off by ``CHUNKER_PARSER=markdown-it``."""
    return AVAILABLE and os.environ.get(PARSER_ENV, "").strip().lower() != "markdown-it"


def _md() -> Any:
    global _parser
    if _parser is None:
        _parser = markdown_it_pyrs.MarkdownIt("zero").enable_many(_BLOCK_RULES)
    return _parser


def top_level_blocks(
    body: str,
    byte_line_starts: Sequence[int] | None = None,
    atx_heading: Callable[[int], tuple[int, str] | None] | None = None,
    line_starts: Sequence[int] | None = None,
    region_parser: Callable[[str], list[RawBlock]] | None = None,
) -> list[RawBlock] | None:
    """Top-level blocks of ``body`` as markdown-it-py finds them, or ``None`` (see module notes).

    ``byte_line_starts`` are the UTF-8 offsets of the line starts of ``body`` when the caller
    has them (:meth:`chunker.spans.SourceMap.byte_lines`), ``line_starts`` their offsets in
    ``body``. Link reference definitions yield no block, as with markdown-it-py; the caller
    fills such gaps. Heading titles are the inline source. ``atx_heading(line)``, when given,
    reads the level and inline source of the ATX heading on that line from the text (``None``:
    take them from the tree, which costs more).

    The text is parsed in pieces of about :data:`PIECE_CHARS` characters (see
    :class:`_Pieces`), so that only one piece's tree is alive at a time.

    ``region_parser(text)``, when given, parses a region of the text with markdown-it-py and
    returns its top-level blocks as this function does (lines counted from the region's first,
    titles as inline source): the regions around divergent constructs go to it (see
    :func:`_with_regions`). Without it, a text holding such a construct gets ``None``.
    """
    if not enabled() or not (body.isascii() or _SURROGATE.search(body) is None):  # a lone surrogate: see _tree
        return None
    deep = _deep_prefixes(body)
    if deep is None or _many_definitions(body):
        return None
    if byte_line_starts is None:
        byte_line_starts = line_bounds(body if body.isascii() else body.encode("utf-8"))[0]
    if line_starts is None:
        line_starts = byte_line_starts if body.isascii() else line_bounds(body)[0]
    starts = byte_line_starts
    kinds = _KIND_BY_NODE
    blocks: list[RawBlock] = []
    append = blocks.append
    code: list[tuple[int, int]] = []
    nested: list[tuple[int, int]] = []  # code blocks inside the containers
    maybe_code = _MAYBE_CODE.search
    # The lines a node touches, as _lines finds them. Nodes come in order, and a line holds at
    # least one byte: the line holding byte b is at most b - starts[k] lines after line k.
    # Searching only there keeps each search to nearby entries of a long list.
    lines, first = len(starts), 0
    pieces = _Pieces(body, starts, line_starts, deep)
    for nodes, base in pieces:
        for node in nodes:
            name = node.name
            kind = kinds.get(name)
            if kind is None:  # "definition": a link reference definition, no token in markdown-it-py either
                continue
            start, end = node.srcmap
            start += base
            end += base
            hi = first + start - starts[first] + 1
            first = bisect_right(starts, start, first, hi if hi < lines else lines) - 1
            last = end - 1 if end > start else start
            hi = first + last - starts[first] + 1
            stop = bisect_right(starts, last, first, hi if hi < lines else lines)
            if kind == "heading":
                read = atx_heading(first) if atx_heading is not None and name == "heading" else None
                if read is not None:
                    append((kind, first, stop, read[0], read[1], ""))
                    continue
                children = node.children
                title = (
                    str(children[0].meta.get("content", ""))
                    if len(children) == 1
                    else "".join(str(child.meta.get("content", "")) for child in children)
                )
                append((kind, first, stop, int(node.meta["level"]), title, ""))
            elif kind == "code":
                code.append((first, stop))
                info = str(node.meta.get("info", "")).strip() if name == "fence" else ""
                append((kind, first, stop, 0, "", info))
            else:
                if (kind == "list" or kind == "blockquote") and maybe_code(
                    body, line_starts[first], line_starts[stop] if stop < lines else len(body)
                ):
                    nested.extend(_lines(inner.srcmap, starts, base) for inner in _code_blocks(node.children))
                append((kind, first, stop, 0, "", ""))
    if pieces.failed:
        return None
    # Constructs inside code blocks do not count: the top-level ones first; only when that
    # is not enough, those nested in lists and quotes too.
    if not diverges(body, code):
        return blocks
    found = constructs(body, sorted(code + nested))
    if not found:
        return blocks
    if region_parser is None:
        return None
    return _with_regions(body, line_starts, blocks, _runs(body, line_starts, found), region_parser)


# Characters of text past a divergent construct's run of lines that a region parsed by
# markdown-it-py takes in at first (doubled until it ends where both parsers start afresh).
REGION_CHARS = 16
# Where the regions have parsed more than this many characters, and more than all the text
# before the next region (constructs close together: each region parses some text twice,
# some of it more), markdown-it-py parses the rest of the text as one region instead.
DENSE_CHARS = 1 << 16
# A blank line to markdown-it: spaces and tabs only (matched at a line start).
_BLANK = re.compile(r"[ \t]*(?:[\r\n]|\Z)")


def _blank(body: str, starts: Sequence[int], line: int) -> bool:
    return _BLANK.match(body, starts[line]) is not None


def _runs(body: str, starts: Sequence[int], found: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The runs of non-blank lines ``[first, stop)`` that hold the constructs ``found`` (lines
    ``(first, last)``), in order, each once: the line before a run is blank (or there is none)."""
    lines = len(starts)
    runs: list[tuple[int, int]] = []
    for first, last in sorted(found):
        stop = last + 1
        if runs and first < runs[-1][1]:  # in the run before (a construct lies within one run)
            first, previous = runs.pop()
            stop = max(stop, previous)
        else:
            while first > 0 and not _blank(body, starts, first - 1):
                first -= 1
        while stop < lines and not _blank(body, starts, stop):
            stop += 1
        runs.append((first, stop))
    return runs


def _with_regions(
    body: str,
    starts: Sequence[int],
    blocks: list[RawBlock],
    runs: list[tuple[int, int]],
    region_parser: Callable[[str], list[RawBlock]],
) -> list[RawBlock]:
    """The fast path's ``blocks`` of ``body``, but for regions around the ``runs`` of lines that
    hold divergent constructs, whose blocks ``region_parser`` (markdown-it-py) gives.

    Why a region's blocks are markdown-it-py's blocks of the whole text. Both parsers read
    forward, and at a line where a top-level block starts they hold no state that earlier lines
    set (inline rules are off; link reference definitions only matter to them): from such a
    line on, each parses the text as if it began there. Call such a line, for both parsers
    at once, a clean start; ``cursor`` always is one (line 0 first). Each region:

    - Start: the last fast block that starts after ``cursor`` and before the run (else
      ``cursor``). The text from ``cursor`` to the run, ``P``, holds no divergent construct
      (its runs of lines are the text's, the line before the run being blank), so the two
      parsers give ``P`` the same blocks. A parser that parses ``P`` alone parses it as it
      parses the whole text until a rule reads past ``P``'s end; the line before that end is
      blank, and only a block that is still open at a blank line reads on past it, to the
      end (a fence, an HTML block, a list, indented code): so every block of ``P`` but its
      last is the whole text's, for both parsers, and the whole text's next block starts
      where ``P``'s last one does. That line is a clean start.
    - End: markdown-it-py parses the lines from the start to a line after a blank line at
      least :data:`REGION_CHARS` characters past the run, ``Q``. By the same argument every
      block of ``Q`` but its last is the whole text's, and so is every start of a block of
      ``Q``. The region ends at the last of those starts that lies after the run, follows a
      blank line and is the start of a fast block too: a clean start for markdown-it-py by the
      argument, for markdown-it.rs because a fast block starts there. Where there is none,
      ``Q`` grows, each time to a blank line twice as many characters further on, at most to
      the end of the text.

    The next region starts from there; after the last one, the fast blocks. Where the regions
    have parsed much text (:data:`DENSE_CHARS`), more than lies before the next one, that
    one runs to the end of the text. The region's line
    numbers are its own: shifted by its first line. ``tests/test_fastpath.py`` puts the
    constructs at every position, with regions as small as they go, against markdown-it-py.
    """
    lines = len(starts)
    firsts = [block[1] for block in blocks]
    out: list[RawBlock] = []
    cursor = k = parsed = 0
    while k < len(runs):
        run_first, run_stop = runs[k]
        i = bisect_left(firsts, run_first) - 1
        start = firsts[i] if i >= 0 and firsts[i] >= cursor else cursor
        out.extend(blocks[bisect_left(firsts, cursor) : bisect_left(firsts, start)])
        # constructs so close together that the regions have parsed more than the text before this one
        dense = parsed > DENSE_CHARS and parsed > starts[start]
        window, end = REGION_CHARS, run_stop
        while True:  # each try ends further on: a blank line at least twice as many characters on
            end = lines if dense else _line_after_blank(body, starts, end, window)
            region_end = starts[end] if end < lines else len(body)
            parsed += region_end - starts[start]
            region = region_parser(body[starts[start] : region_end])
            if end >= lines:  # to the end of the text
                out.extend(_shifted(block, start) for block in region)
                return out
            resume = _resume(body, starts, firsts, [first + start for _, first, *_ in region], run_stop)
            if resume is not None:
                break
            window *= 2
        out.extend(_shifted(block, start) for block in region if block[1] + start < resume)
        cursor = resume
        while k < len(runs) and runs[k][0] < resume:
            k += 1
    out.extend(blocks[bisect_left(firsts, cursor) :])
    return out


def _shifted(block: RawBlock, lines: int) -> RawBlock:
    kind, first, stop, level, title, info = block
    return kind, first + lines, stop + lines, level, title, info


def _line_after_blank(body: str, starts: Sequence[int], line: int, chars: int) -> int:
    """The line after the first blank line that starts at least ``chars`` characters after
    line ``line`` does (and not before it); the number of lines if there is none. Always
    after ``line``."""
    lines = len(starts)
    if line >= lines:
        return lines
    line = max(line, bisect_left(starts, starts[line] + chars))
    while line < lines and not _blank(body, starts, line):
        line += 1
    return min(line + 1, lines)


def _resume(body: str, starts: Sequence[int], firsts: list[int], region_firsts: list[int], after: int) -> int | None:
    """The last of ``region_firsts`` (markdown-it-py's block starts) from line ``after`` on that
    follows a blank line and is one of ``firsts`` (the fast path's): where a region may end."""
    for line in reversed(region_firsts):
        if line < after:
            return None
        at = bisect_left(firsts, line)
        if at < len(firsts) and firsts[at] == line and _blank(body, starts, line - 1):
            return line
    return None


# What a list or blockquote holding a code block holds: a fence, or a line indented four
# columns past its markers (a tab, or four spaces in a row). Only such containers are walked
# for the code blocks in them (for :func:`diverges`); the trees are gone when it runs.
_MAYBE_CODE = re.compile(r"```|~~~|\t| {4}")


# Characters of text per piece of the top-level parse (at least; see _Pieces). The tree of a
# piece takes up to about 50 bytes per byte of text (markdown-it.rs nodes as Python objects,
# inline text included), so a piece's tree stays within a few MB whatever the document's size.
PIECE_CHARS = 1 << 16


class _Pieces:
    """The top-level nodes of ``body``, piece by piece: iterate for ``(nodes, byte offset of the piece)``.

    A piece runs from a line where a top-level block starts (the first: line 0) to a line
    start at least :data:`PIECE_CHARS` characters on, or the end. Its last top-level node may
    be cut short by the piece's end, so it is not taken: the next piece starts at its first
    line and parses it again, whole. Everything before it is what the whole text gives: the
    block rules read forward, and each block before the last one was decided by lines before
    the start of the last one (a rule that reaches the end of the piece makes the last block);
    at a top-level block start the parser holds no state (reference definitions only matter
    to inline parsing, which is off). A piece holding a single node grows, twice as long each
    time, until it holds two or reaches the end. tests/test_pieces.py checks the blocks against
    one parse of the whole text, with pieces of one line.

    ``failed`` is set (and iteration stops) where the whole text must go to markdown-it-py:
    a lone surrogate, or nesting near markdown-it-py's limit.
    """

    def __init__(self, body: str, byte_starts: Sequence[int], starts: Sequence[int], deep: bool) -> None:
        self.body, self.byte_starts, self.starts, self.deep = body, byte_starts, starts, deep
        self.failed = False

    def __iter__(self) -> Iterator[tuple[list[Any], int]]:
        body, byte_starts, starts = self.body, self.byte_starts, self.starts
        lines, length, md = len(starts), len(body), _md()
        line, window = 0, PIECE_CHARS
        while line < lines:
            start = starts[line]
            stop_line = bisect_left(starts, start + window, line + 1)
            end = starts[stop_line] if stop_line < lines else length
            try:
                nodes = md.tree(body[start:end]).children
            except UnicodeEncodeError:  # lone surrogates
                self.failed = True
                return
            if self.deep and _depth(nodes, 0) >= _SAFE_NESTING:
                self.failed = True
                return
            base = byte_starts[line]
            cut = self._shorter_table(nodes, base, line)
            if cut is not None:  # markdown-it-py ends a table sooner: the piece ends with it, the next starts after
                at, stop = cut
                yield [*nodes[:at], _Block("table", (nodes[at].srcmap[0], self._byte_at(stop) - base))], base
                del nodes
                line, window = stop, PIECE_CHARS
                continue
            if stop_line >= lines:  # the last piece: every node is whole
                yield nodes, base
                return
            if len(nodes) < 2:  # a node that may go on past the piece (or none at all: blank lines)
                if not nodes:
                    line, window = stop_line, PIECE_CHARS
                    continue
                if nodes[0].name == "table":  # its end found without a tree of every cell (see _table_end)
                    first = bisect_right(byte_starts, base + nodes[0].srcmap[0], line) - 1
                    table_stop = _table_end(body, starts, first)
                    if table_stop is not None and table_stop > first:
                        yield [_Block("table", (nodes[0].srcmap[0], self._byte_at(table_stop) - base))], base
                        del nodes
                        line, window = table_stop, PIECE_CHARS
                        continue
                window *= 2
                continue
            last = nodes.pop()  # parsed again, whole, at the start of the next piece
            yield nodes, base
            del nodes
            next_line = bisect_right(byte_starts, base + last.srcmap[0], line) - 1
            if next_line <= line:  # cannot happen (nodes start on lines of their own); never loop on it
                self.failed = True
                return
            line, window = next_line, PIECE_CHARS

    def _byte_at(self, line: int) -> int:
        """The UTF-8 offset where ``line`` starts (the text's end for the line after the last)."""
        if line < len(self.starts):
            return self.byte_starts[line]
        return self.byte_starts[-1] + _utf8_len(self.body[self.starts[-1] :])

    def _shorter_table(self, nodes: list[Any], base: int, line: int) -> tuple[int, int] | None:
        """The index among ``nodes`` of a table that markdown-it-py ends on an earlier line than markdown-it.rs,
        with that line; None where there is none. markdown-it-py ends a table once it would fill in more than
        65,536 missing cells (a wide header over rows of a cell or two); markdown-it.rs goes on. Only a table
        with more columns times rows than that is measured again (:func:`_table_end`)."""
        for at, node in enumerate(nodes):
            if node.name != "table" or len(node.children) < 2:
                continue
            head, rows = node.children[0], len(node.children[1].children)
            columns = len(head.children[0].children) if head.children else 0
            if columns * rows <= _MAX_FILLED_CELLS:
                continue
            first = bisect_right(self.byte_starts, base + node.srcmap[0], line) - 1
            stop = _table_end(self.body, self.starts, first)
            end = node.srcmap[1] + base
            if stop is not None and stop > first and self._byte_at(stop) <= max(end - 1, base + node.srcmap[0]):
                return at, stop
        return None


class _Block:
    """A top-level node as :class:`_Pieces` hands it on without markdown-it.rs's tree: its name and source map
    (UTF-8 offsets from the piece's start), nothing inside."""

    __slots__ = ("children", "meta", "name", "srcmap")

    def __init__(self, name: str, srcmap: tuple[int, int]) -> None:
        self.name, self.srcmap = name, srcmap
        self.children: tuple[Any, ...] = ()
        self.meta: dict[str, Any] = {}


def _utf8_len(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


_py_parser: Any = None
_MAX_FILLED_CELLS = 0x10000  # markdown-it-py's MAX_AUTOCOMPLETED_CELLS: a table ends past so many cells filled in


class _Sink:
    """What markdown-it-py's block state gives a rule in place of its token stream: nothing kept."""

    @staticmethod
    def append(token: Any) -> None:
        return None


def _table_end(body: str, starts: Sequence[int], line: int) -> int | None:
    """The line after the table that starts on ``line`` of ``body``, as markdown-it-py's table rule (the parser
    of record) finds it, or ``None`` where there is no table there.

    A table longer than a piece is one node, and markdown-it.rs's tree of it holds two objects per cell: parsed
    whole (in pieces doubling until one holds it), a 5 MB table of 50,000 columns took 6 GB and 30 s, a 1 MB
    table of 5 columns 1.1 GB. Here the rule itself reads the table's lines, its tokens dropped as it makes
    them, up to the first blank line (where any table ends)."""
    global _py_parser
    from markdown_it import MarkdownIt
    from markdown_it.rules_block.state_block import StateBlock
    from markdown_it.rules_block.table import table

    if _py_parser is None:
        _py_parser = MarkdownIt("commonmark", {"maxNesting": MAX_NESTING}).enable(["table"])
    stop, lines = line, len(starts)
    while stop < lines and not _blank(body, starts, stop):
        stop += 1
    text = body[starts[line] : starts[stop] if stop < lines else len(body)]
    state = StateBlock(text.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "\ufffd"), _py_parser, {}, [])
    state.tokens = _Sink()  # type: ignore[assignment]
    if not table(state, 0, state.lineMax, False):
        return None
    return line + state.line


def inner_blocks(text: str) -> list[RawInner] | None:
    """Every block inside ``text`` (one top-level block), nested, as markdown-it-py finds them; or ``None``.

    Line ranges follow markdown-it-py's token maps, but for trailing blank lines
    (markdown-it-py counts those after a list item into it), which the caller trims on
    both paths alike. A tight list item's paragraph, which markdown-it.rs leaves out of
    its tree, is restored from its text; a table head spans the header row only, as in
    markdown-it-py.
    """
    if _DIVERGENT_INSIDE.search("\n" + text.replace("\r", "\n")):
        return None
    parsed = _tree(text, None)
    if parsed is None or not _agrees(text, *parsed):
        return None
    root, line_starts = parsed
    return _inner(root.children, "", line_starts)


# Nodes that hold no block: only their inline text (markdown-it.rs's "text" leaves, no inline
# rule being enabled). A table cell is transparent and holds none either.
_LEAVES = frozenset(
    {"paragraph", "heading", "lheading", "fence", "code_block", "html_block", "hr", "tcell", "definition"}
)


def _inner(nodes: Any, parent: str, line_starts: list[int]) -> list[RawInner]:
    out: list[RawInner] = []
    kinds, leaves = _INNER_KIND_BY_NODE, _LEAVES
    for node in nodes:
        name = node.name
        children: tuple[RawInner, ...]
        if name == "text":  # a leaf: inline content, or the paragraph of a tight list item
            if parent != "list_item":
                continue
            kind = "paragraph"
            children = ()
        elif name in leaves:  # nothing inside to walk
            kind = kinds.get(name, "")
            if not kind:  # a table cell, a definition
                continue
            children = ()
        else:
            kind = kinds.get(name, "")
            inner = _inner(node.children, name, line_starts)
            if not kind:  # transparent, as in markdown-it-py
                out.extend(inner)
                continue
            children = tuple(inner)
        start, end = node.srcmap
        first = bisect_right(line_starts, start) - 1
        stop = first + 1 if kind == "thead" else bisect_right(line_starts, end - 1 if end > start else start, first)
        info = fence = ""
        if name == "fence":
            meta = node.meta
            info = str(meta.get("info", "")).strip()
            fence = str(meta.get("marker", "")) * int(meta.get("marker_len", 0))
        out.append((kind, first, stop, children, info, fence))
    return out


def _lines(srcmap: tuple[int, int], line_starts: Sequence[int], base: int = 0) -> tuple[int, int]:
    """The lines ``[first, stop)`` that a node's source map (offsets into the UTF-8 text from ``base``) touches."""
    start, end = srcmap
    start += base
    end += base
    return bisect_right(line_starts, start) - 1, bisect_right(line_starts, max(end - 1, start))


def _tree(text: str, byte_line_starts: list[int] | None) -> tuple[Any, list[int]] | None:
    """markdown-it.rs's tree of ``text`` and the UTF-8 offsets of its line starts (which its
    source maps use); ``None`` where markdown-it-py's answer could differ, as far as can be
    told before the caller looks for divergent constructs (:func:`diverges`).
    ``byte_line_starts``: those offsets, if the caller has them."""
    if not enabled():
        return None
    deep = _deep_prefixes(text)
    if deep is None or _many_definitions(text):
        return None
    try:
        root = _md().tree(text)
    except UnicodeEncodeError:  # lone surrogates
        return None
    if deep and _depth(root.children, 0) >= _SAFE_NESTING:
        return None
    if byte_line_starts is None:
        byte_line_starts = line_bounds(text if text.isascii() else text.encode("utf-8"))[0]
    return root, byte_line_starts


def _agrees(text: str, root: Any, line_starts: list[int]) -> bool:
    """Whether no construct on which the parsers may part ways lies outside code (:func:`diverges`).

    Constructs inside code blocks do not count: the top-level ones first; only when that
    is not enough, those nested in lists and quotes too (a walk of the containers).
    """
    return not (
        diverges(text, [_lines(node.srcmap, line_starts) for node in root.children if node.name in _CODE])
        and diverges(text, sorted(_lines(node.srcmap, line_starts) for node in _code_blocks(root.children)))
    )


def _many_definitions(text: str) -> bool:
    """Whether a run of lines holds more than _MANY_DEFINITIONS that open like link reference definitions."""
    if text.count("]:") <= _MANY_DEFINITIONS:  # each such line holds one: not enough of them at all
        return False
    for _, padded in _scan_pieces(text):  # a run of lines lies in one piece
        run_end = count = 0
        for line in _DEFINITION_LINE.finditer(padded):
            if line.start() >= run_end:
                run_end, count = _run_end(padded, line.start()), 0
            count += 1
            if count > _MANY_DEFINITIONS:
                return True
    return False


def _deep_prefixes(text: str) -> bool | None:
    """Whether a line's prefix of container markers is long enough that nesting must be measured;
    ``None`` when one is too long to give the text to markdown-it.rs at all."""
    found = False
    for _, padded in _scan_pieces(text):
        for match in _MAYBE_DEEP.finditer(padded):
            prefix = _PREFIX.match(padded, match.start() + 1)
            assert prefix is not None  # the pattern always matches, if only the empty string
            if len(prefix.group()) >= (_TOO_DEEP_TAB if "\t" in prefix.group() else _TOO_DEEP):
                return None
            found = True
    return found


_CODE = frozenset({"fence", "code_block"})


def _code_blocks(nodes: Any) -> Iterator[Any]:
    """Code blocks among ``nodes`` and inside the containers among them, outermost first."""
    for node in nodes:
        if node.name in _CODE:
            yield node
        elif node.name in _CONTAINERS:
            yield from _code_blocks(node.children)


def _depth(nodes: Any, level: int) -> int:
    """The deepest markdown-it-py nesting level that the content of containers in ``nodes`` reaches.

    ``nodes`` sit at ``level``; markdown-it-py parses the content of a blockquote, a list
    (its items) and a list item one level deeper than the container.
    """
    if level >= _SAFE_NESTING:  # deep enough to decide: recursion stays under Python's limit
        return level
    deepest = level
    for node in nodes:
        if node.name in _CONTAINERS:
            deepest = max(deepest, _depth(node.children, level + 1))
            if deepest >= _SAFE_NESTING:
                break
    return deepest
