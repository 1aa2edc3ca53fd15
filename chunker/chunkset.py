"""Chunks and the chunk set: the engine's output and its versioned JSON (docs/method.md §1, §7)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from chunker import fields
from chunker.errors import ChunkerError
from chunker.hierarchy import Hierarchy, Node, OutlineEntry, layer_records
from chunker.spans import Span
from chunker.wording import quoted

__all__ = ["BREADCRUMB_SEPARATOR", "FLAGS", "Chunk", "ChunkSet", "line_crumbs"]

SCHEMA = "chunk-set"
VERSION = 1
BREADCRUMB_SEPARATOR = " › "
FLAGS = (
    "split_text",
    "split_list",
    "split_code",
    "split_table",
    "split_quote",
    "split_html",
    "hard_cut",
    "heading_only",
    "unbalanced_fence",
    "tiny",
    "breadcrumb_shortened",
)
"""Every flag the engine can put in :attr:`Chunk.flags`: the ``split_*`` flag of a piece of a cut block of that
kind (``chunker.cut``), ``unbalanced_fence`` (``chunker.cut.mend``), and those :func:`chunker.pack.to_chunks`
adds. docs/method.md ("Flags"), docs/json.md, docs/app.md and docs/chunk-set.schema.json name each one
(tests/test_flags.py)."""
_FOLDERS = re.compile(r"^.*[/\\](?=[^/\\])")  # what a document's name holds before its last part


def line_crumbs(breadcrumb: Sequence[str]) -> list[str]:
    """The breadcrumb as the line of ``contextualize()`` writes it: the document by its file name, without
    the folders its name may hold (``docs/guide/install.md`` -> ``install.md``), then the titles.

    A corpus run names each document by its path, and the folders then stand in every chunk's line:
    words that tell no chunk apart, which take an embedding model's window (docs/method.md, Decisions,
    "The breadcrumb line names the document by its file name"). ``breadcrumb`` itself keeps the name.
    """
    if not breadcrumb:
        return []
    return [_FOLDERS.sub("", breadcrumb[0]), *breadcrumb[1:]]


@dataclass(slots=True)
class Chunk:
    """One retrieval-ready chunk.

    ``markdown == added_prefix + text[char_span[0]:char_span[1]] + added_suffix``:
    everything but the engine's additions (a re-opened code fence, a repeated table
    header, a closing fence) is a verbatim slice of the source. ``token_count`` is
    the exact count of ``markdown``.

    ``clause`` is the number of the nearest numbered heading in the breadcrumb
    (``"5.1.2"`` from ``5.1.2 Scope``). ``overlap_span`` is the char span of the
    leading text shared with the previous chunk (option ``overlap``); it starts
    where ``char_span`` starts. ``breadcrumb_line`` is the first line of
    :meth:`contextualize` when it is not the whole breadcrumb (shortened to fit the
    budget, flag ``breadcrumb_shortened``); ``context_tokens`` is the exact count of
    :meth:`contextualize`, set when the chunk set was made with ``breadcrumb_in_budget``.
    """

    id: str
    index: int
    breadcrumb: list[str]
    markdown: str
    token_count: int
    byte_span: Span
    char_span: Span
    line_span: Span
    headings: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    added_prefix: str = ""
    added_suffix: str = ""
    clause: str | None = None
    overlap_span: Span | None = None
    breadcrumb_line: str | None = None
    context_tokens: int | None = None

    def __post_init__(self) -> None:
        if self.id != f"c{self.index + 1}":
            raise ValueError(f"chunk id {self.id!r} does not match index {self.index}")
        if self.token_count < 0:
            raise ValueError(f"negative token_count {self.token_count} on chunk {self.id}")
        overlap = self.overlap_span
        if overlap is not None and not (self.char_span[0] == overlap[0] < overlap[1] <= self.char_span[1]):
            raise ValueError(f"overlap_span {overlap!r} of chunk {self.id} must start its char_span {self.char_span!r}")

    @property
    def content_sha256(self) -> str:
        """The hex SHA-256 of :attr:`markdown` (UTF-8): the chunk's content id. Equal texts have equal ids
        whatever their position, so an index that skips ids it has seen re-embeds only what changed."""
        return hashlib.sha256(self.markdown.encode("utf-8", "surrogatepass")).hexdigest()

    def context_line(self) -> str:
        """The breadcrumb line :meth:`contextualize` puts before the markdown: the breadcrumb joined by
        :data:`BREADCRUMB_SEPARATOR` (:func:`line_crumbs`), or :attr:`breadcrumb_line` where the budget shortened it."""
        if self.breadcrumb_line is not None:
            return self.breadcrumb_line
        return BREADCRUMB_SEPARATOR.join(line_crumbs(self.breadcrumb))

    def contextualize(self) -> str:
        """What an embedder should see: the breadcrumb line (:meth:`context_line`), a blank line, the markdown."""
        return f"{self.context_line()}\n\n{self.markdown}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "index": self.index,
            "breadcrumb": list(self.breadcrumb),
            "markdown": self.markdown,
            "content_sha256": self.content_sha256,
            "token_count": self.token_count,
            "byte_span": list(self.byte_span),
            "char_span": list(self.char_span),
            "line_span": list(self.line_span),
            "headings": list(self.headings),
            "flags": list(self.flags),
            "added_prefix": self.added_prefix,
            "added_suffix": self.added_suffix,
            "clause": self.clause,
            "overlap_span": None if self.overlap_span is None else list(self.overlap_span),
            "breadcrumb_line": self.breadcrumb_line,
            "context_tokens": self.context_tokens,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Chunk:
        """Read :meth:`to_dict` output back; raises :class:`ChunkerError` for a field of the wrong type (a text
        that is not a string, a number that is not a whole one, ``1e400``), a reversed or negative span, or a
        ``char_span`` whose length is not that of the markdown less the engine's additions."""
        try:
            chunk = cls(
                id=fields.text(data["id"]),
                index=fields.whole(data["index"]),
                breadcrumb=fields.texts(data["breadcrumb"]),
                markdown=fields.text(data["markdown"]),
                token_count=fields.whole(data["token_count"]),
                byte_span=fields.span(data["byte_span"]),
                char_span=fields.span(data["char_span"]),
                line_span=fields.span(data["line_span"]),
                headings=fields.texts(data.get("headings", [])),
                flags=fields.texts(data.get("flags", [])),
                added_prefix=fields.text(data.get("added_prefix", "")),
                added_suffix=fields.text(data.get("added_suffix", "")),
                clause=fields.optional_text(data.get("clause")),
                overlap_span=None if data.get("overlap_span") is None else fields.span(data["overlap_span"]),
                breadcrumb_line=fields.optional_text(data.get("breadcrumb_line")),
                context_tokens=None if data.get("context_tokens") is None else fields.whole(data["context_tokens"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ChunkerError(f"malformed chunk {quoted(data.get('id', '?'))}: {exc}") from None
        body = len(chunk.markdown) - len(chunk.added_prefix) - len(chunk.added_suffix)
        if chunk.char_span[1] - chunk.char_span[0] != body:
            raise ChunkerError(
                f"chunk {chunk.id!r}: its char_span {chunk.char_span!r} is not {body:,} characters long, "
                "the length of its markdown less the added prefix and suffix"
            )
        stated = data.get("content_sha256")  # absent from JSON written before it existed
        if stated is not None and stated != chunk.content_sha256:
            raise ChunkerError(f"chunk {chunk.id!r}: its content_sha256 is not the SHA-256 of its markdown")
        return chunk


class ChunkSet(Sequence[Chunk]):
    """The chunks of one document, with the document header and the config that made them.

    ``outline`` is the document's section outline (:func:`chunker.hierarchy.outline`),
    written to the JSON and used by the hierarchy navigation and :meth:`layers`;
    None for a chunk set read from JSON written before it existed. It may be given
    as a function that makes it, called on first use (the engine's chunk sets: most
    callers never ask). ``text`` is the source, kept in memory only, for the text of
    the document and section layers.
    """

    __slots__ = ("_chunks", "_outline", "_text", "_tree", "config", "document")

    def __init__(
        self,
        chunks: Sequence[Chunk],
        document: dict[str, Any],
        config: dict[str, Any],
        outline: Sequence[OutlineEntry] | Callable[[], Sequence[OutlineEntry]] | None = None,
        text: str | None = None,
    ) -> None:
        self._chunks = tuple(chunks)
        self.document = document
        self.config = config
        self._outline = outline if outline is None or callable(outline) else tuple(outline)
        self._text = text
        self._tree: Hierarchy | None = None

    @property
    def outline(self) -> tuple[OutlineEntry, ...] | None:
        """The document's section outline, or None (see the class notes)."""
        outline = self._outline
        if callable(outline):
            outline = self._outline = tuple(outline())
        return outline

    def __getstate__(self) -> object:
        """Pickle with the outline made: a function that makes it may not pickle."""
        _ = self.outline
        return object.__getstate__(self)

    def __len__(self) -> int:
        return len(self._chunks)

    @overload
    def __getitem__(self, index: int) -> Chunk: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Chunk]: ...
    def __getitem__(self, index: int | slice) -> Chunk | Sequence[Chunk]:
        return self._chunks[index]

    def __iter__(self) -> Iterator[Chunk]:
        return iter(self._chunks)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ChunkSet):
            return NotImplemented
        return (self._chunks, self.document, self.config, self.outline) == (
            other._chunks,
            other.document,
            other.config,
            other.outline,
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ChunkSet({self.document.get('name')!r}, {len(self)} chunks, config={self.config!r})"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "schema": SCHEMA,
            "version": VERSION,
            "document": dict(self.document),
            "config": dict(self.config),
        }
        if self.outline is not None:
            data["outline"] = [entry.to_dict() for entry in self.outline]
        data["chunks"] = [chunk.to_dict() for chunk in self._chunks]
        return data

    def to_json(self, indent: int | None = 2) -> str:
        """Versioned JSON; byte-identical for the same input and config."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent) + "\n"

    def to_jsonl(self) -> str:
        """One chunk per line, each carrying the document name."""
        name = self.document.get("name")
        lines = (json.dumps({"document": name, **chunk.to_dict()}, ensure_ascii=False) for chunk in self._chunks)
        return "".join(line + "\n" for line in lines)

    @classmethod
    def from_json(cls, data: str | dict[str, Any]) -> ChunkSet:
        """Read :meth:`to_json` output back; raises ChunkerError on anything else."""
        try:
            raw = json.loads(data) if isinstance(data, str) else data
        except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
            raise ChunkerError(f"not JSON: {exc}") from None
        if not isinstance(raw, dict) or raw.get("schema") != SCHEMA:
            raise ChunkerError(
                f"not a chunk-set JSON (schema={raw.get('schema') if isinstance(raw, dict) else None!r})"
            )
        if raw.get("version") != VERSION:
            raise ChunkerError(
                f"chunk-set version {raw.get('version')!r} is not supported (this engine reads {VERSION})"
            )
        items = raw.get("chunks", [])
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            raise ChunkerError("the chunks of a chunk-set JSON are a list of objects")
        for key in ("document", "config"):
            if not isinstance(raw.get(key, {}), dict):
                raise ChunkerError(f"the {key} of a chunk-set JSON is an object")
        chunks = [Chunk.from_dict(item) for item in items]
        outline = raw.get("outline")  # absent from JSON written before the hierarchy: still version 1
        if outline is not None and not (isinstance(outline, list) and all(isinstance(e, dict) for e in outline)):
            raise ChunkerError("the outline of a chunk-set JSON is a list of objects")
        entries = None if outline is None else [OutlineEntry.from_dict(item) for item in outline]
        return cls(chunks, raw.get("document", {}), raw.get("config", {}), entries)

    # -- hierarchy (docs/method.md §6) and layers (docs/method.md §7); the logic is in chunker.hierarchy ----------

    def hierarchy(self) -> Hierarchy:
        """Document → sections → chunks, built on first use and kept."""
        if self._tree is None:
            self._tree = Hierarchy(self._chunks, self.document, self.outline)
        return self._tree

    def get_chunk(self, node_id: str) -> Node:
        """The node with this id: ``"d"``, a section ``"s3"`` or a chunk ``"c7"``."""
        return self.hierarchy().get(node_id)

    def get_parent(self, node_id: str) -> Node | None:
        """The parent node; None for the document."""
        return self.hierarchy().parent(node_id)

    def get_children(self, node_id: str) -> list[Node]:
        """Direct children, ordered by position."""
        return self.hierarchy().children(node_id)

    def get_ancestors(self, node_id: str) -> list[Node]:
        """Parent, grandparent, … up to the document, nearest first."""
        return self.hierarchy().ancestors(node_id)

    def get_siblings(self, node_id: str) -> list[Node]:
        """The parent's other children, ordered by position."""
        return self.hierarchy().siblings(node_id)

    def leaves(self) -> list[Node]:
        """Nodes without children, in document order (the chunks)."""
        return self.hierarchy().leaves()

    def by_level(self, level: int) -> list[Node]:
        """Nodes at this level (document 0, a section its heading level, a chunk its parent's + 1)."""
        return self.hierarchy().by_level(level)

    def to_tree_dict(self) -> dict[str, Any]:
        """The hierarchy as nested JSON-safe dicts, the document at the top."""
        return self.hierarchy().to_tree_dict()

    def layers(self) -> dict[str, list[dict[str, Any]]]:
        """Records of the ``"documents"``, ``"sections"`` and ``"chunks"`` layers, each with its ``parent_id``."""
        return layer_records(self.hierarchy(), self._chunks, self._text, str(self.document.get("name", "")))

    def layers_jsonl(self) -> dict[str, str]:
        """:meth:`layers` as JSONL text per layer, one record per line."""
        return {
            key: "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
            for key, records in self.layers().items()
        }
