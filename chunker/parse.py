"""Markdown text -> :class:`Document` (spec §2-§4). The only module that imports markdown_it.

Only block structure is parsed for the whole document (inline parsing is what
makes a full markdown-it parse slow); heading titles alone get an inline parse.
Lines that markdown-it consumes without a token (link reference definitions)
become ``text`` blocks, so no source line is ever dropped.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from typing import Any

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token

from chunker.model import Block, Document, Section, cumulative_tokens, region_tokens
from chunker.spans import SourceMap
from chunker.tokens import Tokenizer, get_tokenizer

__all__ = ["InnerNode", "inner_structure", "parse"]

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
_BLANK = re.compile(r"[ \t\f\v]*\Z")
_WHITESPACE = re.compile(r"\s+")
_FRONT_MATTER_FENCES = {"---": ("---", "..."), "+++": ("+++",)}


@functools.cache
def _block_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"maxNesting": 100}).enable(["table", "strikethrough"])
    md.disable("inline")  # chunking needs block structure only
    return md


@functools.cache
def _inline_parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable(["strikethrough"])


def parse(text: str, name: str = "document.md", tokenizer: Any = None) -> Document:
    """Parse Markdown ``text`` into a Document with spans and token counts.

    ``tokenizer`` is an encoding name, model name, callable ``str -> int`` or
    :class:`~chunker.tokens.Tokenizer` (default ``cl100k_base``). Never raises on
    content; raises :class:`~chunker.errors.TokenizerError` for a bad tokenizer.
    """
    counter = get_tokenizer(tokenizer)
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    source = SourceMap(text)
    front_matter, fm_lines = _front_matter(text, source)
    ranges = _block_ranges(text, source, fm_lines)
    blocks = _count(text, source, counter, ranges)
    fm_block = None
    if fm_lines:
        fm_block, blocks = blocks[0], blocks[1:]
    root = _build_tree(name, blocks, source)
    return Document(
        name=name,
        text=text,
        tokenizer=counter,
        blocks=tuple(blocks),
        root=root,
        token_count=_document_tokens(text, counter, ([fm_block] if fm_block else []) + blocks),
        front_matter=front_matter,
        front_matter_block=fm_block,
    )


@dataclass(frozen=True, slots=True)
class _Range:
    kind: str
    first: int  # 0-based line
    stop: int  # exclusive
    level: int = 0
    title: str = ""
    info: str = ""


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
            if not isinstance(data, dict):
                return None, 0
            return _json_safe(data), line + 1
    return None, 0


def _json_safe(value: Any) -> Any:
    """YAML gives dates and other non-JSON values; keep them as strings."""
    if isinstance(value, dict):
        return {str(key): _json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(item) for item in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _block_ranges(text: str, source: SourceMap, fm_lines: int) -> list[_Range]:
    """Top-level blocks as line ranges, trimmed of trailing blank lines, gaps filled."""
    body = text
    if fm_lines:  # keep line numbers: the front matter lines become empty lines
        body = "\n" * fm_lines + text[source.line_starts[fm_lines] :] if fm_lines < source.line_count else ""
    tokens = _block_parser().parse(body)
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
            title = plain_text(tokens[i + 1].content)
        elif token.type == "fence":
            info = token.info.strip()
        found.append(_Range(kind, first, stop, level, title, info))
        i = _skip_block(tokens, i)
    blank = [bool(_BLANK.match(text, source.line_starts[n], source.line_end(n))) for n in range(source.line_count)]
    ranges: list[_Range] = []
    if fm_lines:
        ranges.append(_Range("front_matter", 0, fm_lines))
    cursor = fm_lines
    for rng in found:
        first = max(rng.first, cursor)  # defensive: never overlap the previous block
        ranges.extend(_gap_blocks(blank, cursor, first))
        stop = rng.stop
        while stop > first and blank[stop - 1]:
            stop -= 1
        if stop > first:
            ranges.append(_Range(rng.kind, first, stop, rng.level, rng.title, rng.info))
        cursor = max(cursor, rng.stop)
    ranges.extend(_gap_blocks(blank, cursor, source.line_count))
    return ranges


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


def _gap_blocks(blank: list[bool], first: int, stop: int) -> list[_Range]:
    """Non-blank lines that no markdown-it token covers (e.g. link reference definitions)."""
    out: list[_Range] = []
    line = first
    while line < stop:
        if blank[line]:
            line += 1
            continue
        start = line
        while line < stop and not blank[line]:
            line += 1
        out.append(_Range("text", start, line))
    return out


def _count(text: str, source: SourceMap, counter: Tokenizer, ranges: list[_Range]) -> list[Block]:
    spans = [source.lines_to_chars(rng.first, rng.stop) for rng in ranges]
    blocks = []
    for n, (rng, span) in enumerate(zip(ranges, spans, strict=True)):
        piece = text[span[0] : span[1]]
        following = spans[n + 1][0] if n + 1 < len(spans) else len(text)
        blocks.append(
            Block(
                kind=rng.kind,
                char_span=span,
                byte_span=source.byte_span(span),
                line_span=(rng.first + 1, rng.stop),
                tokens=counter.count(piece),
                join_tokens=counter.join_cost(piece, text[span[1] : following]),
                level=rng.level,
                title=rng.title,
                info=rng.info,
            )
        )
    return blocks


def _document_tokens(text: str, counter: Tokenizer, blocks: list[Block]) -> int:
    if not counter.line_additive or not blocks:
        return counter.count(text)
    leading = counter.count(text[: blocks[0].start])
    return leading + sum(block.tokens + block.join_tokens for block in blocks)


def _build_tree(name: str, blocks: list[Block], source: SourceMap) -> Section:
    """Nest sections by heading level; a skipped level nests under the nearest shallower heading."""
    # Each open frame: [level, title, first, direct_end or None, children]
    stack: list[list[Any]] = [[0, name, 0, None, []]]
    cumulative = cumulative_tokens(blocks)

    def close(frame: list[Any], end: int) -> Section:
        level, title, first, direct_end, children = frame
        if direct_end is None:
            direct_end = end
        heading = blocks[first] if level else None
        span = (blocks[first].start, blocks[end - 1].end) if end > first else (0, 0)
        own = region_tokens(cumulative, blocks, first, direct_end)
        return Section(
            level=level,
            title=title,
            heading=heading,
            blocks=tuple(blocks[first + (1 if level else 0) : direct_end]),
            children=tuple(children),
            first=first,
            direct_end=direct_end,
            end=end,
            char_span=span,
            byte_span=source.byte_span(span),
            line_span=source.line_span(span) if end > first else (1, 1),
            own_tokens=own,
            tokens=region_tokens(cumulative, blocks, first, end),
        )

    for index, block in enumerate(blocks):
        if block.kind != "heading":
            continue
        while stack[-1][0] >= block.level:
            frame = stack.pop()
            stack[-1][4].append(close(frame, index))
        if stack[-1][3] is None:
            stack[-1][3] = index
        stack.append([block.level, block.title, index, None, []])
    while len(stack) > 1:
        frame = stack.pop()
        stack[-1][4].append(close(frame, len(blocks)))
    return close(stack[0], len(blocks))


def plain_text(inline_source: str) -> str:
    """Plain text of an inline Markdown fragment: ``Use **bold** here`` -> ``Use bold here``."""
    if not inline_source.strip():
        return ""
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
    """A block nested inside a top-level block, as 0-based line range ``[first, stop)``."""

    kind: str
    first: int
    stop: int
    children: tuple[InnerNode, ...] = ()
    info: str = ""
    fence: str = ""  # the fence characters of a fenced code block, e.g. "```"


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
    and only when it must be cut. Line numbers are document lines.
    """
    tokens = _block_parser().parse(text)
    nodes, _ = _inner_nodes(tokens, 0, 0, first_line)
    return nodes


_FENCE_LIKE = re.compile(r"^[ \t>]*(?:`{3,}|~{3,})", re.MULTILINE)


def unclosed_fence(markdown: str) -> str:
    """The opening line's indent and fence (e.g. ``"> ```"``) of a code fence in ``markdown``
    that no closing fence ends, or ``""`` when every fence is closed.

    Used on pieces of non-code blocks: a line such as a lone "```" inside an HTML
    block is HTML in its source, but a fence opener when a piece holds it alone.
    """
    if _FENCE_LIKE.search(markdown) is None:  # the common case, without a parse
        return ""
    lines = markdown.splitlines()
    for token in _block_parser().parse(markdown):
        if token.type != "fence" or token.map is None:
            continue
        first, stop = token.map
        closing = lines[stop - 1].lstrip(" \t>").rstrip() if first < stop - 1 < len(lines) else ""
        if not (len(closing) >= len(token.markup) and set(closing) == {token.markup[0]}):
            opening = lines[first]
            return opening[: len(opening) - len(opening.lstrip(" \t>"))] + token.markup
    return ""


def _inner_nodes(tokens: list[Token], i: int, level: int, offset: int) -> tuple[list[InnerNode], int]:
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
            children, i = _inner_nodes(tokens, i + 1, level + 1, offset)
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
                stop=token.map[1] + offset,
                children=tuple(children),
                info=token.info.strip() if token.type == "fence" else "",
                fence=token.markup if token.type == "fence" else "",
            )
        )
    return nodes, i
