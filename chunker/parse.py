"""Markdown text -> :class:`Document` (docs/method.md §2-§4). The only module that imports markdown_it.

Only block structure is parsed for the whole document (inline parsing is what
makes a full markdown-it parse slow); heading titles alone get an inline parse.
Lines that markdown-it consumes without a token (link reference definitions)
become ``text`` blocks, so no source line is ever dropped.

markdown-it-py is the parser of record. The top-level blocks come from the compiled
fast path in :mod:`chunker.fastparse` when it is installed and can promise the same
answer (proven equal by ``tests/test_fastpath.py``); ``CHUNKER_PARSER=markdown-it``
forces markdown-it-py. Token counting starts before the parse (:class:`TextCounts`),
so that encoding the text overlaps finding its blocks.
"""

from __future__ import annotations

import functools
import re
import tomllib
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token

try:  # how markdown-it-py trims a heading's content
    from markdown_it.common.utils import mdTrim as _md_trim
except ImportError:  # pragma: no cover - markdown-it-py 3 trims with str.strip

    def _md_trim(string: str) -> str:
        return string.strip()


from chunker import fastparse
from chunker.collector import collector_paused
from chunker.decode import check_unicode
from chunker.model import Block, BlockSpans, Document, Section, cumulative_tokens, new_blocks, new_section
from chunker.spans import SourceMap, line_bounds
from chunker.tokens import TextCounts, Tokenizer, TokenizerLike, get_tokenizer
from chunker.wording import quoted

__all__ = ["InnerNode", "fence_closes", "inner_structure", "parse", "unclosed_fence"]

_KIND_BY_TOKEN = {
    "heading_open": "heading",
    "paragraph_open": "paragraph",
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "blockquote_open": "blockquote",
    "table_open": "table",
    "fence": "code",
    "code_block": "code",
    "html_block": "html",
    "hr": "hr",
}
_NON_BLANK = re.compile(r"[^ \t\f\v\r\n]")
_WHITESPACE = re.compile(r"\s+")
_FRONT_MATTER_FENCES = {"---": ("---", "..."), "+++": ("+++",)}


@functools.cache
def _block_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"maxNesting": fastparse.MAX_NESTING}).enable(["table", "strikethrough"])
    md.disable("inline")  # chunking needs block structure only
    return md


def _block_tokens(text: str) -> list[Token]:
    """markdown-it-py's block tokens of ``text``.

    A text that does not end with a line break gets one: markdown-it-py 4.3 raises
    IndexError on an unclosed HTML block in a list item in a blockquote whose last line
    has no break (``"> - <?php\\n>"``). The break adds no line, so no map changes.
    """
    if text and not text.endswith(("\n", "\r")):
        text += "\n"
    tokens: list[Token] = _block_parser().parse(text)
    return tokens


@functools.cache
def _inline_parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable(["strikethrough"])


def parse(text: str, name: str = "document.md", tokenizer: TokenizerLike = None) -> Document:
    """Parse Markdown ``text`` into a Document with spans and token counts.

    ``tokenizer`` is an encoding name, model name, callable ``str -> int`` or
    :class:`~chunker.tokens.Tokenizer` (default ``cl100k_base``). Never raises on
    Markdown; raises :class:`~chunker.errors.TokenizerError` for a bad tokenizer and
    :class:`~chunker.decode.InputError` for a text or name with a lone surrogate, which
    UTF-8 and so the chunks' JSON cannot hold.
    """
    counter = get_tokenizer(tokenizer)
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    if isinstance(name, str):
        check_unicode(name, f"the document name {quoted(name)}")
    check_unicode(text, f"the text of {quoted(name)}")
    with collector_paused():
        return _parse(text, name, counter)


def _parse(text: str, name: str, counter: Tokenizer) -> Document:
    counts = counter.text_counts(text)  # first: the encoding may run while the blocks are found
    source = SourceMap(text)
    front_matter, fm_lines = _front_matter(text, source)
    ranges = _block_ranges(text, source, fm_lines)
    blocks = tuple(_count(text, source, counts, ranges))
    token_count = counts.whole()
    if token_count is None:
        token_count = counts.total([(b.tokens, b.join_tokens) for b in blocks], blocks[0].start if blocks else 0)
    fm_block = None
    if fm_lines:
        fm_block, blocks = blocks[0], blocks[1:]
    root = _build_tree(name, blocks)
    return Document(
        name=name,
        text=text,
        tokenizer=counter,
        blocks=blocks,
        root=root,
        token_count=token_count,
        front_matter=front_matter,
        front_matter_block=fm_block,
        prepared_source=source,
        counts=counts,
    )


# A top-level block: (kind, first line, stop line, heading level, title, fence info); lines 0-based, stop exclusive
_Range = tuple[str, int, int, int, str, str]


def _front_matter(text: str, source: SourceMap) -> tuple[dict[str, Any] | None, int]:
    """YAML (``---``) or TOML (``+++``) front matter at the very top, if it parses to a mapping."""
    if source.line_count < 2:
        return None, 0
    opener = text[: source.line_end(0)].rstrip()
    closers = _FRONT_MATTER_FENCES.get(opener)
    if closers is None:
        return None, 0
    for line in range(1, source.line_count):
        if text[source.line_starts[line] : source.line_end(line)].rstrip() in closers:
            body = text[source.line_starts[1] : source.line_starts[line]] if line > 1 else ""
            try:
                data = tomllib.loads(body) if opener == "+++" else yaml.safe_load(body)
            except Exception:  # not front matter after all: the lines stay Markdown
                return None, 0
            if data is None:
                data = {}
            data = _json_safe(data) if isinstance(data, dict) else None
            return (None, 0) if data is None else (data, line + 1)
    return None, 0


_FRONT_MATTER_VALUES = 100_000
"""The most values front matter may hold, counted as JSON would write them (YAML's aliases expanded)."""

_FRONT_MATTER_DEPTH = 100
"""The deepest front matter may nest."""


def _json_safe(data: dict[Any, Any]) -> dict[str, Any] | None:
    """Front matter's data as JSON values (YAML gives dates and other non-JSON values: kept as strings).

    None when that would be over :data:`_FRONT_MATTER_VALUES` values or :data:`_FRONT_MATTER_DEPTH` deep: YAML's
    aliases let a few hundred bytes name more values than memory holds (a "billion laughs"), or a list that
    holds itself. Such lines are not taken as front matter; they stay Markdown, as lines that do not parse do.
    """
    left = _FRONT_MATTER_VALUES

    def copy(value: Any, depth: int) -> Any:
        nonlocal left
        left -= 1
        if left < 0 or depth > _FRONT_MATTER_DEPTH:
            raise _TooBig
        if isinstance(value, dict):
            return {str(key): copy(item, depth + 1) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [copy(item, depth + 1) for item in value]
        if value is None or isinstance(value, bool | int | float | str):
            return value
        return str(value)

    try:
        return copy(data, 0)  # type: ignore[no-any-return]
    except _TooBig:
        return None


class _TooBig(Exception):
    """Front matter over the limits of :func:`_json_safe`."""


def _block_ranges(text: str, source: SourceMap, fm_lines: int) -> list[_Range]:
    """Top-level blocks as line ranges, trimmed of trailing blank lines, gaps filled."""
    body = text
    if fm_lines:  # keep line numbers: the front matter lines become empty lines
        body = "\n" * fm_lines + text[source.line_starts[fm_lines] :] if fm_lines < source.line_count else ""
    starts, ends = source.line_starts, source.line_ends
    # Heading lines and titles repeat in some documents (a changelog's "### Fixed"): each read once.
    headings: dict[str, tuple[int, str] | None] = {}
    titles: dict[str, str] = {}

    def atx_heading(line: int) -> tuple[int, str] | None:  # the body's lines are the text's but for front matter
        source_line = text[starts[line] : ends[line]]
        try:
            return headings[source_line]
        except KeyError:
            found = headings[source_line] = _atx_heading(source_line)
            return found

    found = fastparse.top_level_blocks(
        body,
        None if fm_lines else source.byte_lines()[0],
        atx_heading,
        None if fm_lines else source.line_starts,
        _markdown_it_raw,
    )
    fast = found is not None
    if found is None:
        found = _markdown_it_ranges(body)
    non_blank = _NON_BLANK.search  # a blank line holds nothing but spaces and tabs
    ranges: list[_Range] = []
    append = ranges.append
    if fm_lines:
        append(("front_matter", 0, fm_lines, 0, "", ""))
    cursor = fm_lines
    for block in found:
        kind, first, stop, level, title, info = block
        if first < cursor:  # defensive: never overlap the previous block
            first = cursor
        # the lines between two blocks are mostly blank, often one empty line: one search over all of them
        if first > cursor and starts[cursor] < ends[first - 1] and non_blank(text, starts[cursor], ends[first - 1]):
            ranges.extend(_gap_blocks(text, source, cursor, first))
        last = stop
        while last > first:  # trailing blank lines: a line that ends in a character other than a space is not one
            line_end = ends[last - 1]
            if line_end > starts[last - 1] and text[line_end - 1] not in " \t\f\v":
                break
            if non_blank(text, starts[last - 1], line_end) is not None:
                break
            last -= 1
        if last > first:
            if fast and kind == "heading":
                plain = titles.get(title)
                if plain is None:
                    plain = titles[title] = plain_text(title)
                append((kind, first, last, level, plain, info))
            elif last == stop and first == block[1]:
                append(block)  # as found
            else:
                append((kind, first, last, level, title, info))
        if stop > cursor:
            cursor = stop
    line_count = source.line_count
    if line_count > cursor and non_blank(text, starts[cursor], ends[line_count - 1]) is not None:
        ranges.extend(_gap_blocks(text, source, cursor, line_count))
    return ranges


_ATX_OPENING = re.compile(r" {0,3}(#{1,6})(?=[ \t]|$)")


def _atx_heading(line: str) -> tuple[int, str] | None:
    """Level and inline source of the ATX heading ``line``, as markdown-it-py's heading rule
    takes them (the opening and closing sequences cut, then trimmed); ``None`` for a line that
    does not open like one, or holds a NUL (markdown-it-py reads it as U+FFFD)."""
    opening = _ATX_OPENING.match(line)
    if opening is None or "\x00" in line:
        return None
    start = opening.end()
    maximum = len(line)
    while maximum > start and line[maximum - 1] in " \t":  # state.skipSpacesBack
        maximum -= 1
    end = maximum
    while end > start and line[end - 1] == "#":  # state.skipCharsStrBack: a closing sequence
        end -= 1
    if end > start and line[end - 1] in " \t":
        maximum = end
    return len(opening.group(1)), _md_trim(line[start:maximum])


def _markdown_it_ranges(body: str, plain: bool = True) -> list[_Range]:
    """Top-level blocks from markdown-it-py, the parser of record, untrimmed; heading titles as
    plain text, or (``plain=False``) as their inline source, as the fast path gives them."""
    tokens = _block_tokens(body)
    found: list[_Range] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        kind = _KIND_BY_TOKEN.get(token.type)
        if kind is None or token.map is None or token.level != 0:
            i += 1
            continue
        first, stop = token.map
        level, title, info = 0, "", ""
        if kind == "heading":
            level = int(token.tag[1:])
            title = plain_text(tokens[i + 1].content) if plain else tokens[i + 1].content
        elif token.type == "fence":
            info = token.info.strip()
        found.append((kind, first, stop, level, title, info))
        i = _skip_block(tokens, i)
    return found


def _markdown_it_raw(region: str) -> list[_Range]:
    """A region of the text around constructs that the fast path leaves to markdown-it-py
    (:func:`chunker.fastparse.top_level_blocks`): its blocks, titles as inline source."""
    return _markdown_it_ranges(region, plain=False)


def _skip_block(tokens: list[Token], i: int) -> int:
    """Index after the block that opens at ``tokens[i]``."""
    if tokens[i].nesting != 1:
        return i + 1
    depth = 0
    while i < len(tokens):
        depth += tokens[i].nesting
        i += 1
        if depth == 0:
            break
    return i


def _gap_blocks(text: str, source: SourceMap, first: int, stop: int) -> list[_Range]:
    """Non-blank lines that no markdown-it token covers (e.g. link reference definitions)."""
    starts, ends = source.line_starts, source.line_ends

    def blank(line: int) -> bool:
        return _NON_BLANK.search(text, starts[line], ends[line]) is None

    out: list[_Range] = []
    line = first
    while line < stop:
        if blank(line):
            line += 1
            continue
        start = line
        while line < stop and not blank(line):
            line += 1
        out.append(("text", start, line, 0, "", ""))
    return out


def _count(text: str, source: SourceMap, counts: TextCounts, ranges: list[_Range]) -> list[Block]:
    """The blocks of ``ranges`` with their spans and counts (column by column: the loops run in C)."""
    if not ranges:
        return []
    kinds, firsts, stops, levels, titles, infos = zip(*ranges, strict=True)
    lasts = array("q", map((-1).__add__, stops))  # the last line of each block
    char_starts = array("q", map(source.line_starts.__getitem__, firsts))
    char_ends = array("q", map(source.line_ends.__getitem__, lasts))
    byte_starts, byte_ends = char_starts, char_ends
    if not source.ascii:
        byte_line_starts, byte_line_ends = source.byte_lines()
        byte_starts = array("q", map(byte_line_starts.__getitem__, firsts))
        byte_ends = array("q", map(byte_line_ends.__getitem__, lasts))
    line_firsts = array("q", map((1).__add__, firsts))
    spans = BlockSpans(char_starts, char_ends, byte_starts, byte_ends, line_firsts, array("q", stops))
    tokens, joins = zip(*counts.blocks(char_starts, char_ends, byte_starts, byte_ends), strict=True)
    return new_blocks(kinds, spans, tokens, joins, levels, titles, infos)


def _build_tree(name: str, blocks: tuple[Block, ...]) -> Section:
    """Nest sections by heading level; a skipped level nests under the nearest shallower heading."""
    cumulative = cumulative_tokens(blocks)  # tokens from the first block to the end of block k: [k] + tokens

    def close(frame: list[Any], end: int) -> Section:
        level, title, first, direct_end, children = frame
        if direct_end is None:
            direct_end = end
        tokens = cumulative[end - 1] - cumulative[first] + blocks[end - 1].tokens if end > first else 0
        own = 0
        if direct_end > first:
            own = cumulative[direct_end - 1] - cumulative[first] + blocks[direct_end - 1].tokens
        return new_section(
            level,
            title,
            blocks[first] if level else None,
            blocks[first + 1 if level else first : direct_end],
            tuple(children),
            first,
            direct_end,
            end,
            own,
            tokens,
        )

    # Each open frame: [level, title, first, direct_end or None, children]
    stack: list[list[Any]] = [[0, name, 0, None, []]]
    for index, block in enumerate(blocks):
        if block.kind != "heading":
            continue
        level = block.level
        while stack[-1][0] >= level:
            frame = stack.pop()
            stack[-1][4].append(close(frame, index))
        if stack[-1][3] is None:
            stack[-1][3] = index
        stack.append([level, block.title, index, None, []])
    while len(stack) > 1:
        frame = stack.pop()
        stack[-1][4].append(close(frame, len(blocks)))
    return close(stack[0], len(blocks))


# What can make markdown-it-py's inline parse of a fragment differ from the fragment itself
# (commonmark preset): the characters that start an escape, code, emphasis, strikethrough,
# image, autolink, HTML, entity or line break, or that its normalisation rewrites (NUL, CR);
# a "](" (an inline link; without reference definitions, as here, a bracket alone is text);
# an underscore that is not inside a word (one inside a word can neither open nor close
# emphasis). Without any of them a fragment is one text token.
_INLINE_MARKUP = re.compile(r"[\\`*~!<&\n\r\x00]|\]\(|(?<![^\W_])_|_(?![^\W_])")


def plain_text(inline_source: str) -> str:
    """Plain text of an inline Markdown fragment: ``Use **bold** here`` -> ``Use bold here``."""
    if _INLINE_MARKUP.search(inline_source) is None:  # most titles: no inline parse needed
        return " ".join(inline_source.split())  # as _WHITESPACE.sub(" ", inline_source).strip()
    if not inline_source.strip():
        return ""
    return _parsed_plain_text(inline_source)


def _parsed_plain_text(inline_source: str) -> str:
    """:func:`plain_text` through markdown-it-py's inline parse (tests compare the shortcut with it)."""
    parts: list[str] = []
    for token in _inline_parser().parseInline(inline_source):
        _collect_text(token.children or [], parts)
    return _WHITESPACE.sub(" ", "".join(parts)).strip()


def _collect_text(tokens: list[Token], parts: list[str]) -> None:
    for token in tokens:
        if token.type in ("text", "code_inline"):
            parts.append(token.content)
        elif token.type == "image":
            parts.append(token.content)  # the alt text, already plain
        elif token.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif token.children:
            _collect_text(token.children, parts)


@dataclass(frozen=True, slots=True)
class InnerNode:
    """A block nested inside a top-level block, as 0-based line range ``[first, stop)``.

    ``stop`` follows its last non-blank line.
    """

    kind: str
    first: int
    stop: int
    children: tuple[InnerNode, ...] = ()
    info: str = ""
    fence: str = ""  # the fence characters of a fenced code block, e.g. "```"


_new = object.__new__
_i_kind, _i_first, _i_stop, _i_children, _i_info, _i_fence = (
    InnerNode.__dict__[name].__set__ for name in ("kind", "first", "stop", "children", "info", "fence")
)

_INNER_KIND = {
    **_KIND_BY_TOKEN,
    "list_item_open": "item",
    "thead_open": "thead",
    "tbody_open": "tbody",
    "tr_open": "row",
}


def inner_structure(text: str, first_line: int) -> list[InnerNode]:
    """Block structure inside one top-level block, whose text starts at line ``first_line``.

    A top-level block parses the same on its own, so only its slice is re-parsed,
    and only when it must be cut. Line numbers are document lines; a node's range
    ends at its last non-blank line (markdown-it-py counts blank lines after a list
    item into it, markdown-it.rs does not: trimmed, both paths agree).
    """
    starts, ends = line_bounds(text)
    lines = len(starts)

    def stop_of(first: int, stop: int) -> int:
        if stop > lines:
            stop = lines
        while stop > first:
            end = ends[stop - 1]  # a line that ends in a character other than white space is not blank
            if end > starts[stop - 1] and text[end - 1] not in " \t\f\v":
                break
            if _NON_BLANK.search(text, starts[stop - 1], end) is not None:
                break
            stop -= 1
        return stop

    raw = fastparse.inner_blocks(text)
    if raw is not None:
        return _from_raw(raw, first_line, stop_of)
    tokens = _block_tokens(text)
    nodes, _ = _inner_nodes(tokens, 0, 0, first_line, stop_of)
    return nodes


def _from_raw(raw: Sequence[fastparse.RawInner], offset: int, stop_of: Callable[[int, int], int]) -> list[InnerNode]:
    out: list[InnerNode] = []
    for kind, first, stop, kids, info, fence in raw:
        node = _new(InnerNode)  # InnerNode(...) without the frozen dataclass's per-field __setattr__
        _i_kind(node, kind)
        _i_first(node, first + offset)
        _i_stop(node, stop_of(first, stop) + offset)
        _i_children(node, tuple(_from_raw(kids, offset, stop_of)) if kids else ())
        _i_info(node, info)
        _i_fence(node, fence)
        out.append(node)
    return out


# A line starts after "\n", "\r\n" or a lone "\r", as markdown-it reads line ends.
# Behind quote markers, indentation and list markers ("- ```" opens a fence inside its item).
_FENCE_LIKE = re.compile(r"(?:^|(?<=\r))(?:[ \t>]|(?:[-+*]|\d{1,9}[.)])[ \t])*(?:`{3,}|~{3,})", re.MULTILINE)
_LINE_END = re.compile(r"\r\n?|\n")
_LIST_MARKER = re.compile(r"[-*+]|\d{1,9}[.)]")


def _closed(token: Token) -> bool:
    """Whether a ``fence`` token ends at a closing fence (not at the end of its container).

    markdown-it gives a closed fence the lines of its code and both fence lines, an open one
    its code and its opening line only.
    """
    assert token.map is not None
    content = token.content
    lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
    return lines == token.map[1] - token.map[0] - 2


def unclosed_fence(markdown: str) -> str:
    """The opening line's indent and fence (e.g. ``"> ```"``) of a code fence in ``markdown``
    that no closing fence ends, or ``""`` when every fence is closed.

    Read as CommonMark reads ``markdown`` alone: a closing line indented four columns or more
    past its container is code, not a closing fence. The indent has its list markers blanked,
    so that a closing fence after it stays in the same list item.

    Used on pieces of non-code blocks: a line such as a lone "```" inside an HTML
    block is HTML in its source, but a fence opener when a piece holds it alone.
    """
    if _FENCE_LIKE.search(markdown) is None:  # the common case, without a parse
        return ""
    lines = _LINE_END.split(markdown)
    for token in _block_tokens(markdown):
        if token.type != "fence" or token.map is None or _closed(token):
            continue
        opening = lines[token.map[0]]
        at = opening.find(token.markup)
        indent = opening[:at] if at >= 0 else ""
        return _LIST_MARKER.sub(lambda m: " " * len(m.group()), indent) + token.markup
    return ""


@functools.lru_cache(maxsize=1024)
def fence_closes(opening: str, closing: str) -> bool:
    """Whether ``closing`` closes the fence that ``opening`` opens, the two lines read alone
    (remembered: a document's fences repeat their lines)."""
    return any(
        t.type == "fence" and t.map == [0, 2] and _closed(t) for t in _block_tokens(opening + "\n" + closing + "\n")
    )


def _inner_nodes(
    tokens: list[Token], i: int, level: int, offset: int, stop_of: Callable[[int, int], int]
) -> tuple[list[InnerNode], int]:
    nodes: list[InnerNode] = []
    while i < len(tokens):
        token = tokens[i]
        if token.nesting == -1 and token.level < level:
            return nodes, i
        if token.level != level or token.nesting == -1:
            i += 1
            continue
        kind = _INNER_KIND.get(token.type)
        if token.nesting == 1:
            children, i = _inner_nodes(tokens, i + 1, level + 1, offset, stop_of)
            i += 1  # the closing token
        else:
            children = []
            i += 1
        if kind is None or token.map is None:
            nodes.extend(children)
            continue
        nodes.append(
            InnerNode(
                kind=kind,
                first=token.map[0] + offset,
                stop=stop_of(token.map[0], token.map[1]) + offset,
                children=tuple(children),
                info=token.info.strip() if token.type == "fence" else "",
                fence=token.markup if token.type == "fence" else "",
            )
        )
    return nodes, i
