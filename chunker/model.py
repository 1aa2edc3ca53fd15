"""The parsed document: blocks, the heading tree of sections, and its JSON.

A :class:`Document` holds the source text, its top-level blocks in document
order, and a tree of :class:`Section` (the root is the whole document, its
direct blocks are the preamble). Every node carries exact spans (docs/method.md §3) and
token counts (docs/method.md §4). ``Document.to_json`` / ``Document.from_json`` round-trip
losslessly.
"""

from __future__ import annotations

import hashlib
import json
import re
from array import array
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import FrozenInstanceError, InitVar, dataclass, field
from itertools import accumulate, repeat
from operator import add, attrgetter
from typing import Any, Generic, TypeVar, cast

from chunker import fields
from chunker.errors import ChunkerError
from chunker.spans import SourceMap, Span
from chunker.tokens import TextCounts, Tokenizer, TokenizerLike, get_tokenizer, names_a_file
from chunker.wording import quoted

__all__ = ["Block", "BlockSpans", "CacheSlot", "Document", "DocumentCaches", "Section"]

_T = TypeVar("_T")

DOCUMENT_SCHEMA = "document"
DOCUMENT_VERSION = 1

# A line start followed by text that is not white space: a pre-token starts there (chunker.tokens).
_STARTS_LINE_TEXT = re.compile(r"[ \t]*[^\s]")

BLOCK_KINDS = frozenset(
    {"heading", "paragraph", "list", "code", "table", "blockquote", "html", "hr", "text", "front_matter"}
)


class BlockSpans:
    """The spans of a run of blocks as columns: six arrays, one entry per block (docs/method.md §3's spans of
    ``Block``). A parsed document's blocks share one: a span kept as a tuple of two ints costs
    about 130 bytes a block, and on changelogs (a block per 70 bytes of text) three of them came
    to 4 MB per MB of text. ``byte_starts``/``byte_ends`` are the char columns for ASCII text."""

    __slots__ = ("byte_ends", "byte_starts", "char_ends", "char_starts", "line_firsts", "line_stops")

    def __init__(
        self,
        char_starts: array[int],
        char_ends: array[int],
        byte_starts: array[int],
        byte_ends: array[int],
        line_firsts: array[int],
        line_stops: array[int],
    ) -> None:
        self.char_starts, self.char_ends = char_starts, char_ends
        self.byte_starts, self.byte_ends = byte_starts, byte_ends
        self.line_firsts, self.line_stops = line_firsts, line_stops


class Block:
    """One top-level block of the source.

    ``char_span``/``byte_span`` exclude the line break and blank lines after the
    block; ``tokens`` is the exact count of ``text[char_span]``; ``join_tokens`` is
    what joining it to the next block (through the source text between them) adds.

    Immutable, compared and hashed by these values like a frozen dataclass. A block the parser
    makes reads its spans from the :class:`BlockSpans` its document's blocks share (``_spans``,
    at entry ``_at``); one made by ``Block(...)`` keeps its three spans in a tuple (``_at`` is
    ``None``).
    """

    __slots__ = ("_at", "_spans", "info", "join_tokens", "kind", "level", "title", "tokens")

    FIELDS = ("kind", "char_span", "byte_span", "line_span", "tokens", "join_tokens", "level", "title", "info")

    kind: str
    _spans: Any  # BlockSpans, or (char_span, byte_span, line_span) when _at is None
    _at: int | None
    tokens: int
    join_tokens: int
    level: int  # heading level, 0 for other blocks
    title: str  # plain-text heading title
    info: str  # code fence info string

    def __init__(
        self,
        kind: str,
        char_span: Span,
        byte_span: Span,
        line_span: Span,
        tokens: int,
        join_tokens: int = 0,
        level: int = 0,
        title: str = "",
        info: str = "",
    ) -> None:
        if kind not in BLOCK_KINDS:
            raise ValueError(f"unknown block kind {kind!r}")
        if not 0 <= char_span[0] <= char_span[1]:
            raise ValueError(f"bad char_span {char_span!r} for a {kind} block")
        if tokens < 0:
            raise ValueError(f"negative token count {tokens} for a {kind} block")
        _b_kind(self, kind)
        _b_spans(self, (tuple(char_span), tuple(byte_span), tuple(line_span)))
        _b_at(self, None)
        _b_tokens(self, tokens)
        _b_join_tokens(self, join_tokens)
        _b_level(self, level)
        _b_title(self, title)
        _b_info(self, info)

    @property
    def char_span(self) -> Span:
        at, spans = self._at, self._spans
        if at is None:
            return spans[0]  # type: ignore[no-any-return]
        return (spans.char_starts[at], spans.char_ends[at])

    @property
    def byte_span(self) -> Span:
        at, spans = self._at, self._spans
        if at is None:
            return spans[1]  # type: ignore[no-any-return]
        return (spans.byte_starts[at], spans.byte_ends[at])

    @property
    def line_span(self) -> Span:
        at, spans = self._at, self._spans
        if at is None:
            return spans[2]  # type: ignore[no-any-return]
        return (spans.line_firsts[at], spans.line_stops[at])

    @property
    def start(self) -> int:
        at, spans = self._at, self._spans
        return spans[0][0] if at is None else spans.char_starts[at]  # type: ignore[no-any-return]

    @property
    def end(self) -> int:
        at, spans = self._at, self._spans
        return spans[0][1] if at is None else spans.char_ends[at]  # type: ignore[no-any-return]

    def values(self) -> tuple[Any, ...]:
        """The block's values in the order of :attr:`FIELDS` (and of the constructor's arguments)."""
        return (
            self.kind, self.char_span, self.byte_span, self.line_span, self.tokens, self.join_tokens, self.level,
            self.title, self.info,
        )  # fmt: skip

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Block):
            return NotImplemented
        return self.values() == other.values()

    def __hash__(self) -> int:
        return hash(self.values())

    def __repr__(self) -> str:
        return (
            "Block("
            + ", ".join(f"{name}={value!r}" for name, value in zip(Block.FIELDS, self.values(), strict=True))
            + ")"
        )

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Block, self.values())

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": self.kind,
            "byte_span": list(self.byte_span),
            "char_span": list(self.char_span),
            "line_span": list(self.line_span),
            "tokens": self.tokens,
            "join_tokens": self.join_tokens,
        }
        if self.kind == "heading":
            data["level"] = self.level
            data["title"] = self.title
        if self.info:
            data["info"] = self.info
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Block:
        """Read :meth:`to_dict` output back; a field of another type is a ``TypeError`` (:mod:`chunker.fields`)."""
        return cls(
            kind=fields.text(data["kind"]),
            char_span=fields.span(data["char_span"]),
            byte_span=fields.span(data["byte_span"]),
            line_span=fields.span(data["line_span"]),
            tokens=fields.whole(data["tokens"]),
            join_tokens=fields.whole(data["join_tokens"]),
            level=fields.whole(data.get("level", 0)),
            title=fields.text(data.get("title", "")),
            info=fields.text(data.get("info", "")),
        )


@dataclass(frozen=True, slots=True)
class Section:
    """A heading and everything under it; the root (level 0) is the whole document.

    ``first``/``direct_end``/``end`` index the document's block list: the heading
    and direct content are ``blocks[first:direct_end]``, the whole subtree
    ``blocks[first:end]``. ``own_tokens`` counts heading and direct content,
    ``tokens`` the whole subtree, each as one contiguous text. The spans run from the
    subtree's first block to its last, read off those blocks (a section keeps no spans
    of its own: memory).
    """

    level: int
    title: str
    heading: Block | None
    blocks: tuple[Block, ...]
    children: tuple[Section, ...]
    first: int
    direct_end: int
    end: int
    own_tokens: int
    tokens: int

    @property
    def char_span(self) -> Span:
        edges = self._edges()
        return (0, 0) if edges is None else (edges[0].char_span[0], edges[1].char_span[1])

    @property
    def byte_span(self) -> Span:
        edges = self._edges()
        return (0, 0) if edges is None else (edges[0].byte_span[0], edges[1].byte_span[1])

    @property
    def line_span(self) -> Span:
        edges = self._edges()
        return (1, 1) if edges is None else (edges[0].line_span[0], edges[1].line_span[1])

    def _edges(self) -> tuple[Block, Block] | None:
        """The first and the last block of the subtree; None when it has none."""
        head = self.heading or (self.blocks[0] if self.blocks else None)
        if head is None and self.children:
            head = self.children[0].heading  # the root without a preamble: its first section's heading
        if head is None:
            return None
        section = self
        while section.children:
            section = section.children[-1]
        last = section.blocks[-1] if section.blocks else section.heading
        assert last is not None  # a section below the root has its heading
        return head, last

    def walk(self) -> list[Section]:
        """This section and all its descendants, in document order."""
        out = [self]
        for child in self.children:
            out.extend(child.walk())
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "document" if self.heading is None else "section",
            "level": self.level,
            "title": self.title,
            "byte_span": list(self.byte_span),
            "char_span": list(self.char_span),
            "line_span": list(self.line_span),
            "own_tokens": self.own_tokens,
            "tokens": self.tokens,
            "heading": None if self.heading is None else self.heading.to_dict(),
            "blocks": [block.to_dict() for block in self.blocks],
            "children": [child.to_dict() for child in self.children],
        }


class CacheSlot(Generic[_T]):
    """One pass's place in a document's :class:`DocumentCaches`, holding a ``_T``.

    The module that owns the pass makes its slot and alone fills and reads it, through its own
    accessor (``cut_cache(doc)``, ``block_units(doc)``, ``block_row(doc)``, ``outline(doc)``,
    ``block_titles(doc)``): so this module, which every pass imports, names none of their types.
    ``name`` says what the slot holds where the caches are listed (the app's memory accounting).
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"CacheSlot({self.name!r})"


class DocumentCaches:
    """Work that does not depend on the limits, kept on a :class:`Document` for re-chunking.

    An opaque store of :class:`CacheSlot` values, each filled by the module that owns its slot, on
    first use; :meth:`by_name` lists what is held.
    """

    __slots__ = ("_values",)

    def __init__(self) -> None:
        self._values: dict[CacheSlot[Any], Any] = {}

    def get(self, slot: CacheSlot[_T]) -> _T | None:
        """What ``slot`` holds, or None before its owner first fills it."""
        return cast("_T | None", self._values.get(slot))

    def put(self, slot: CacheSlot[_T], value: _T) -> _T:
        """Keep ``value`` in ``slot``; returns it."""
        self._values[slot] = value
        return value

    def get_or_make(self, slot: CacheSlot[_T], make: Callable[[], _T]) -> _T:
        """What ``slot`` holds, made by ``make()`` and kept on first use."""
        value = self._values.get(slot)
        if value is None:
            value = self._values[slot] = make()
        return cast("_T", value)

    def by_name(self) -> dict[str, object]:
        """What the caches hold, by slot name (those filled so far)."""
        return {slot.name: value for slot, value in self._values.items()}


_SHA256: CacheSlot[str] = CacheSlot("sha256")  # Document.sha256


@dataclass(frozen=True, slots=True, eq=False)
class Document:
    """A parsed Markdown document. Build it with :func:`chunker.parse`."""

    name: str
    text: str
    tokenizer: Tokenizer
    blocks: tuple[Block, ...]
    root: Section
    token_count: int
    front_matter: dict[str, Any] | None = None
    front_matter_block: Block | None = None
    # The parser's SourceMap of ``text``, reused instead of built again.
    prepared_source: InitVar[SourceMap | None] = None
    # The parser's counts of ``text`` (its whole encoding), for :meth:`lines_tokens`.
    counts: TextCounts | None = field(default=None, repr=False)
    source: SourceMap = field(init=False, repr=False)
    _cumulative: array[int] = field(init=False, repr=False)
    # Limit-independent work kept so that re-chunking with new limits reuses it.
    caches: DocumentCaches = field(init=False, repr=False, compare=False)

    def __post_init__(self, prepared_source: SourceMap | None) -> None:
        source = prepared_source if prepared_source is not None and prepared_source.text is self.text else None
        object.__setattr__(self, "source", source or SourceMap(self.text))
        object.__setattr__(self, "caches", DocumentCaches())
        object.__setattr__(self, "_cumulative", cumulative_tokens(self.blocks))

    @property
    def preamble(self) -> tuple[Block, ...]:
        return self.root.blocks

    @property
    def sections(self) -> tuple[Section, ...]:
        """Top-level sections."""
        return self.root.children

    @property
    def sha256(self) -> str:
        digest = self.caches.get(_SHA256)
        if digest is None:
            digest = self.caches.put(_SHA256, hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).hexdigest())
        return digest

    @property
    def byte_count(self) -> int:
        return self.source.byte_offset(len(self.text))

    @property
    def line_count(self) -> int:
        return self.source.line_count

    def region_tokens(self, first: int, stop: int) -> int:
        """Tokens of the source from the start of block ``first`` to the end of block ``stop - 1``."""
        return region_tokens(self._cumulative, self.blocks, first, stop)

    def lines_tokens(self, spans: Sequence[Span]) -> list[int | None]:
        """Tokens of each ``text[start:end]`` of ``spans`` that is whole lines, the first not blank,
        read off the parse's encoding of the whole text (:meth:`TextCounts.lines`); else ``None``."""
        counts = self.counts
        if counts is None:
            return [None] * len(spans)
        text, source = self.text, self.source
        starts, ends = source.line_starts, source.line_ends
        byte_starts, byte_ends = source.byte_lines()
        lines = len(ends)
        starts_text = _STARTS_LINE_TEXT.match
        aligned: list[tuple[int, int, int, int]] = []
        at: list[int] = []  # where each aligned span is in ``spans``
        for k, (start, end) in enumerate(spans):
            first = bisect_right(starts, start) - 1
            if first < 0 or starts[first] != start or not starts_text(text, start):
                continue
            last = bisect_left(ends, end, first)
            if last == lines or ends[last] != end:
                continue
            aligned.append((start, end, byte_starts[first], byte_ends[last]))
            at.append(k)
        out: list[int | None] = [None] * len(spans)
        for k, tokens in zip(at, counts.lines(aligned), strict=True):
            out[k] = tokens
        return out

    def sections_in_order(self) -> list[Section]:
        """Every section below the root, in document order."""
        return self.root.walk()[1:]

    def metadata(self) -> dict[str, Any]:
        """The document header written into chunk-set JSON (docs/method.md §7)."""
        return {
            "name": self.name,
            "sha256": self.sha256,
            "bytes": self.byte_count,
            "lines": self.line_count,
            "token_count": self.token_count,
            "tokenizer": self.tokenizer.name,
            "front_matter": self.front_matter,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": DOCUMENT_SCHEMA,
            "version": DOCUMENT_VERSION,
            **self.metadata(),
            "front_matter_block": None if self.front_matter_block is None else self.front_matter_block.to_dict(),
            "tree": self.root.to_dict(),
            "text": self.text,
        }

    def to_json(self, indent: int | None = 2) -> str:
        """The whole document (text, tree, counts) as JSON; see :meth:`from_json`."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    @classmethod
    def from_json(cls, data: str | dict[str, Any], tokenizer: TokenizerLike = None) -> Document:
        """Rebuild a Document from :meth:`to_json` output without re-parsing.

        The tokenizer named in the JSON is loaded again by its name; a document counted with a
        callable or a tokenizer.json needs that callable, path or Tokenizer passed as ``tokenizer``
        (the JSON may come from anywhere: it never makes the engine read a file).
        """
        try:
            return cls._from_json(json.loads(data) if isinstance(data, str) else data, tokenizer)
        except ChunkerError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError) as exc:
            raise ChunkerError(f"malformed document JSON: {type(exc).__name__}: {exc}") from None

    @classmethod
    def _from_json(cls, raw: Any, tokenizer: TokenizerLike) -> Document:
        if not isinstance(raw, dict):
            raise ChunkerError(f"not a document JSON: a {type(raw).__name__}, not an object")
        if raw.get("schema") != DOCUMENT_SCHEMA or raw.get("version") != DOCUMENT_VERSION:
            raise ChunkerError(
                f"not a version {DOCUMENT_VERSION} document JSON: "
                f"schema={raw.get('schema')!r}, version={raw.get('version')!r}"
            )
        if tokenizer is None:
            name = fields.text(raw["tokenizer"])
            if name.startswith("callable:"):
                raise ChunkerError(
                    f"this document was counted with {name!r}; "
                    "pass that callable as Document.from_json(..., tokenizer=fn)"
                )
            if names_a_file(name):  # the JSON may come from anywhere: it chooses no file for the engine to read
                raise ChunkerError(
                    f"this document was counted with the tokenizer.json {name!r}; pass it as "
                    "Document.from_json(..., tokenizer=PATH or a Tokenizer): a document's JSON names no file to read"
                )
            tokenizer = name
        blocks: list[Block] = []
        root = _section_from_dict(raw["tree"], blocks)
        fm_block = raw.get("front_matter_block")
        front_matter = raw.get("front_matter")
        if front_matter is not None and not isinstance(front_matter, dict):
            raise TypeError(f"the front matter is an object or null, got {quoted(front_matter)}")
        doc = cls(
            name=fields.text(raw["name"]),
            text=fields.text(raw["text"]),
            tokenizer=get_tokenizer(tokenizer),
            blocks=tuple(blocks),
            root=root,
            token_count=fields.whole(raw["token_count"]),
            front_matter=front_matter,
            front_matter_block=None if fm_block is None else Block.from_dict(fm_block),
        )
        _check_read_back(doc)
        return doc


# Constructors for blocks and sections whose values are valid by construction (the parser's):
# they set the slots directly. Block(...) checks its values first; Section(...), a frozen
# dataclass, sets each field through object.__setattr__, which makes it twice as slow;
# tests/test_parse.py checks that these give what the constructors give.
_new = object.__new__
_b_at, _b_spans, _b_info, _b_join_tokens, _b_kind, _b_level, _b_title, _b_tokens = (
    Block.__dict__[name].__set__
    for name in ("_at", "_spans", "info", "join_tokens", "kind", "level", "title", "tokens")
)
_SECTION_SLOTS = tuple(Section.__dict__[name].__set__ for name in Section.__slots__)
(
    _s_level, _s_title, _s_heading, _s_blocks, _s_children, _s_first, _s_direct_end, _s_end, _s_own, _s_tokens,
) = _SECTION_SLOTS  # fmt: skip


def new_blocks(
    kinds: Sequence[str],
    spans: BlockSpans,
    tokens: Sequence[int],
    join_tokens: Sequence[int],
    levels: Sequence[int],
    titles: Sequence[str],
    infos: Sequence[str],
) -> list[Block]:
    """``[Block(...), ...]`` from columns of field values, the spans as columns too, without the
    checks (see above): the blocks are made first, then each field is set down its column, in C.
    Block k reads its spans at entry k of ``spans``."""
    count = len(kinds)
    blocks = list(map(_new, repeat(Block, count)))
    for setter, column in (
        (_b_kind, kinds), (_b_spans, repeat(spans, count)), (_b_at, range(count)), (_b_tokens, tokens),
        (_b_join_tokens, join_tokens), (_b_level, levels), (_b_title, titles), (_b_info, infos),
    ):  # fmt: skip
        deque(map(setter, blocks, column), maxlen=0)
    return blocks


def new_section(
    level: int,
    title: str,
    heading: Block | None,
    blocks: tuple[Block, ...],
    children: tuple[Section, ...],
    first: int,
    direct_end: int,
    end: int,
    own_tokens: int,
    tokens: int,
) -> Section:
    """``Section(...)``, setting the slots directly (see above)."""
    section = _new(Section)
    _s_level(section, level)
    _s_title(section, title)
    _s_heading(section, heading)
    _s_blocks(section, blocks)
    _s_children(section, children)
    _s_first(section, first)
    _s_direct_end(section, direct_end)
    _s_end(section, end)
    _s_own(section, own_tokens)
    _s_tokens(section, tokens)
    return section


_tokens_of = attrgetter("tokens")
_joins_of = attrgetter("join_tokens")


def cumulative_tokens(blocks: Sequence[Block]) -> array[int]:
    """Prefix sums of block tokens plus joins: entry k covers blocks[:k] (8 bytes an entry: a Document keeps it)."""
    return array("q", accumulate(map(add, map(_tokens_of, blocks), map(_joins_of, blocks)), initial=0))


def region_tokens(cumulative: Sequence[int], blocks: Sequence[Block], first: int, stop: int) -> int:
    """Tokens of the source from the start of blocks[first] to the end of blocks[stop - 1]."""
    if stop <= first:
        return 0
    return cumulative[stop - 1] - cumulative[first] + blocks[stop - 1].tokens


def _check_read_back(doc: Document) -> None:
    """Raise :class:`ChunkerError` unless ``doc``, read from JSON, is as the parser makes them: its blocks in
    order inside the text, their byte and line spans those of their char spans, a heading's level 1 to 6 and
    another block's 0, every section's level its heading's and below its parent's, no negative count. The
    engine trusts these (a span past the text, a join of -10^12 tokens, once failed in chunking)."""
    source, length = doc.source, len(doc.text)
    end = 0
    fm = () if doc.front_matter_block is None else (doc.front_matter_block,)
    for block in (*fm, *doc.blocks):
        start, stop = block.char_span
        where = f"a {block.kind} block at {block.char_span!r}"
        if not end <= start <= stop <= length:
            raise ChunkerError(f"{where} is not inside the text ({length:,} characters), after the block before it")
        if block.byte_span != (source.byte_offset(start), source.byte_offset(stop)):
            raise ChunkerError(f"{where} has the byte_span {block.byte_span!r}, not that of its text")
        lines = (source.line_index(start) + 1, source.line_index(max(stop - 1, start)) + 1)
        if block.line_span != lines:
            raise ChunkerError(f"{where} has the line_span {block.line_span!r}, not {lines!r}")
        if not (1 <= block.level <= 6 if block.kind == "heading" else block.level == 0):
            raise ChunkerError(f"{where} has the level {block.level}")
        if block.tokens + block.join_tokens < 0:
            raise ChunkerError(f"{where} has a join of {block.join_tokens:,} tokens, more than its own")
        end = stop
    if (doc.front_matter_block is not None and doc.front_matter_block.kind != "front_matter") or doc.token_count < 0:
        raise ChunkerError("the front matter block is of another kind, or the token count is negative")
    stack = [doc.root]
    while stack:
        section = stack.pop()
        is_root = section is doc.root
        heading = section.heading
        if (heading is None) != is_root or (heading is not None and heading.kind != "heading"):
            raise ChunkerError(f"the section {quoted(section.title)} has no heading, or a block of another kind")
        if section.level != (0 if heading is None else heading.level) or section.own_tokens < 0 or section.tokens < 0:
            raise ChunkerError(f"the section {quoted(section.title)} has another level than its heading's")
        if any(child.level <= section.level for child in section.children):
            raise ChunkerError(f"a section under {quoted(section.title)} is not at a deeper level")
        stack.extend(section.children)


def _section_from_dict(data: dict[str, Any], blocks: list[Block]) -> Section:
    first = len(blocks)
    heading = None if data["heading"] is None else Block.from_dict(data["heading"])
    if heading is not None:
        blocks.append(heading)
    direct = tuple(Block.from_dict(item) for item in data["blocks"])
    blocks.extend(direct)
    direct_end = len(blocks)
    children = tuple(_section_from_dict(child, blocks) for child in data["children"])
    return Section(
        level=fields.whole(data["level"]),
        title=fields.text(data["title"]),
        heading=heading,
        blocks=direct,
        children=children,
        first=first,
        direct_end=direct_end,
        end=len(blocks),
        own_tokens=fields.whole(data["own_tokens"]),
        tokens=fields.whole(data["tokens"]),
    )
