"""The chunk hierarchy (docs/method.md §6) and the three layers (docs/method.md §7): document → sections → chunks.

In: a chunk set's chunks, its document header, and the section outline taken
from the Document at chunk time (:func:`outline`). Out: a :class:`Hierarchy`
of :class:`Node`, whose ids are ``"d"`` (the document), ``"s1"``, ``"s2"``, …
(every section of the outline, numbered in document order) and the chunk ids.

- A chunk hangs under the deepest section whose span holds the chunk's whole
  span: a chunk holding several whole sections hangs under their common parent,
  the preamble's chunks under the document.
- A section is a node when a chunk hangs at or below it, so every leaf is a
  chunk (the document is the one leaf of a chunk set without chunks). Sections
  whose text sits inside a bigger chunk are not nodes.
- Levels: the document 0, a section its heading level, a chunk its parent's + 1.
- Children are ordered by position; ``prev_id``/``next_id`` link nodes of the
  same kind in reading order (c1 → c2 → …, sections in document order).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from chunker import fields
from chunker.errors import ChunkerError
from chunker.model import CacheSlot, Document
from chunker.spans import Span
from chunker.wording import quoted

__all__ = ["DOCUMENT_ID", "Hierarchy", "Node", "OutlineEntry", "UnknownNodeError", "layer_records", "outline"]

DOCUMENT_ID = "d"
KINDS = ("document", "section", "chunk")


class ChunkFields(Protocol):
    """What the hierarchy reads of a chunk (:class:`chunker.chunkset.Chunk` is one). Named here rather than
    imported: the chunk set, made of chunks, builds its hierarchy from this module."""

    @property
    def id(self) -> str: ...
    @property
    def markdown(self) -> str: ...
    @property
    def token_count(self) -> int: ...
    @property
    def byte_span(self) -> Span: ...
    @property
    def char_span(self) -> Span: ...
    @property
    def line_span(self) -> Span: ...
    @property
    def headings(self) -> list[str]: ...
    @property
    def added_prefix(self) -> str: ...
    @property
    def added_suffix(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...


class UnknownNodeError(ChunkerError, KeyError):
    """No node of the hierarchy has this id."""


@dataclass(frozen=True, slots=True)
class OutlineEntry:
    """The document or one of its sections, as a chunk set remembers it (no blocks, no text).

    ``own_tokens`` counts the heading and direct content (for the document: the
    preamble), ``tokens`` the whole subtree (for the document: the whole text).
    """

    id: str
    parent_id: str | None
    level: int
    title: str
    byte_span: Span
    char_span: Span
    line_span: Span
    own_tokens: int
    tokens: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "parent_id": self.parent_id,
            "level": self.level,
            "title": self.title,
            "byte_span": list(self.byte_span),
            "char_span": list(self.char_span),
            "line_span": list(self.line_span),
            "own_tokens": self.own_tokens,
            "tokens": self.tokens,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> OutlineEntry:
        try:
            return cls(
                id=fields.text(data["id"]),
                parent_id=fields.optional_text(data["parent_id"]),
                level=fields.whole(data["level"]),
                title=fields.text(data["title"]),
                byte_span=fields.span(data["byte_span"]),
                char_span=fields.span(data["char_span"]),
                line_span=fields.span(data["line_span"]),
                own_tokens=fields.whole(data["own_tokens"]),
                tokens=fields.whole(data["tokens"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ChunkerError(f"malformed outline entry {quoted(data.get('id', '?'))}: {exc}") from None


_OUTLINE: CacheSlot[tuple[OutlineEntry, ...]] = CacheSlot("outline")


def outline(doc: Document) -> tuple[OutlineEntry, ...]:
    """The document entry (id ``"d"``, the whole text) then every section in document order.

    Limit-independent, so kept in the document's caches: re-chunking with new limits reuses it.
    """
    cached = doc.caches.get(_OUTLINE)
    if cached is not None:
        return cached
    whole = (0, len(doc.text))
    entries = [
        OutlineEntry(
            DOCUMENT_ID,
            None,
            0,
            doc.name,
            doc.source.byte_span(whole),
            whole,
            doc.source.line_span(whole),
            doc.root.own_tokens,
            doc.token_count,
        )
    ]
    ids = {id(doc.root): DOCUMENT_ID}
    stack = [(doc.root, child) for child in reversed(doc.root.children)]
    while stack:
        parent, section = stack.pop()
        ids[id(section)] = sid = f"s{len(entries)}"
        entries.append(
            OutlineEntry(
                sid,
                ids[id(parent)],
                section.level,
                section.title,
                section.byte_span,
                section.char_span,
                section.line_span,
                section.own_tokens,
                section.tokens,
            )
        )
        stack.extend((section, child) for child in reversed(section.children))
    return doc.caches.put(_OUTLINE, tuple(entries))


@dataclass(frozen=True, slots=True)
class Node:
    """One node of the hierarchy: the document, a section or a chunk.

    Spans follow docs/method.md §3. ``own_tokens`` is what the node holds itself (a
    section's heading and direct content, the document's preamble, a chunk's
    whole count); ``tokens`` its whole subtree (a chunk: its ``token_count``).
    """

    id: str
    kind: str  # "document" | "section" | "chunk"
    title: str
    level: int
    parent_id: str | None
    children_ids: tuple[str, ...]
    prev_id: str | None
    next_id: str | None
    byte_span: Span
    char_span: Span
    line_span: Span
    own_tokens: int
    tokens: int

    @property
    def is_leaf(self) -> bool:
        return not self.children_ids

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe fields, ``is_leaf`` included, spans as two-element lists."""
        return {
            "id": self.id,
            "kind": self.kind,
            "title": self.title,
            "level": self.level,
            "parent_id": self.parent_id,
            "children_ids": list(self.children_ids),
            "prev_id": self.prev_id,
            "next_id": self.next_id,
            "is_leaf": self.is_leaf,
            "byte_span": list(self.byte_span),
            "char_span": list(self.char_span),
            "line_span": list(self.line_span),
            "own_tokens": self.own_tokens,
            "tokens": self.tokens,
        }


class Hierarchy:
    """Document → sections → chunks, built once from a chunk set; read-only navigation by id."""

    __slots__ = ("_nodes", "_order")

    def __init__(
        self, chunks: Sequence[ChunkFields], header: Mapping[str, Any], entries: Sequence[OutlineEntry] | None
    ) -> None:
        entries = tuple(entries) if entries else (_fallback_entry(chunks, header),)
        if entries[0].id != DOCUMENT_ID or entries[0].parent_id is not None:
            raise ChunkerError(f"an outline starts with the document entry {DOCUMENT_ID!r}, got {entries[0].id!r}")
        # Each id once, each parent before its children (the outline is in document order): no entry can be its
        # own ancestor, and the walks below end (two entries "s1", one under the other, once never did).
        kids: dict[str, list[OutlineEntry]] = {DOCUMENT_ID: []}
        for entry in entries[1:]:
            if entry.id in kids:
                raise ChunkerError(f"the outline names {entry.id!r} twice")
            if entry.parent_id not in kids:
                raise ChunkerError(f"outline entry {entry.id!r} has a parent {entry.parent_id!r} not named before it")
            kids[entry.parent_id].append(entry)
            kids[entry.id] = []
        by_id = {entry.id: entry for entry in entries}
        chunk_ids = [chunk.id for chunk in chunks]
        if len(set(chunk_ids)) != len(chunk_ids) or not kids.keys().isdisjoint(chunk_ids):
            raise ChunkerError("a chunk id is named twice, or is also the id of a section")
        starts = {key: [e.char_span[0] for e in value] for key, value in kids.items()}

        parent_of = {chunk.id: _deepest(chunk.char_span, kids, starts) for chunk in chunks}
        kept = {DOCUMENT_ID}
        for holder in parent_of.values():
            while holder not in kept:
                kept.add(holder)
                holder = by_id[holder].parent_id or DOCUMENT_ID
        sections = [entry for entry in entries[1:] if entry.id in kept]

        # (start, -end, kind, ordinal): containing nodes before contained ones, sections before chunks.
        keyed: dict[str, list[tuple[tuple[int, int, int, int], str]]] = {key: [] for key in kept}
        for n, entry in enumerate(sections):
            assert entry.parent_id is not None
            keyed[entry.parent_id].append(((entry.char_span[0], -entry.char_span[1], 0, n), entry.id))
        for n, chunk in enumerate(chunks):
            keyed[parent_of[chunk.id]].append(((chunk.char_span[0], -chunk.char_span[1], 1, n), chunk.id))
        children = {key: tuple(child for _, child in sorted(value)) for key, value in keyed.items()}

        nodes: dict[str, Node] = {}
        doc = entries[0]
        nodes[DOCUMENT_ID] = _entry_node(doc, "document", children[DOCUMENT_ID], None, None)
        for n, entry in enumerate(sections):
            prev_id = sections[n - 1].id if n else None
            next_id = sections[n + 1].id if n + 1 < len(sections) else None
            nodes[entry.id] = _entry_node(entry, "section", children[entry.id], prev_id, next_id)
        for n, chunk in enumerate(chunks):
            parent = nodes[parent_of[chunk.id]]
            nodes[chunk.id] = Node(
                id=chunk.id,
                kind="chunk",
                title=chunk.headings[0] if chunk.headings else parent.title,
                level=parent.level + 1,
                parent_id=parent.id,
                children_ids=(),
                prev_id=chunks[n - 1].id if n else None,
                next_id=chunks[n + 1].id if n + 1 < len(chunks) else None,
                byte_span=chunk.byte_span,
                char_span=chunk.char_span,
                line_span=chunk.line_span,
                own_tokens=chunk.token_count,
                tokens=chunk.token_count,
            )
        self._nodes = nodes
        self._order = self._preorder()

    def _preorder(self) -> tuple[str, ...]:
        out: list[str] = []
        stack = [DOCUMENT_ID]
        while stack:
            node = self._nodes[stack.pop()]
            out.append(node.id)
            stack.extend(reversed(node.children_ids))
        return tuple(out)

    # -- navigation ---------------------------------------------------------------

    def get(self, node_id: str) -> Node:
        """The node with this id; raises :class:`UnknownNodeError` for any other string."""
        try:
            return self._nodes[node_id]
        except (KeyError, TypeError):
            raise UnknownNodeError(f"no node {node_id!r} in this hierarchy (ids: 'd', 's1'…, 'c1'…)") from None

    def nodes(self) -> list[Node]:
        """Every node, depth first in document order (the document first)."""
        return [self._nodes[key] for key in self._order]

    def parent(self, node_id: str) -> Node | None:
        """The parent node, None for the document."""
        parent_id = self.get(node_id).parent_id
        return None if parent_id is None else self._nodes[parent_id]

    def children(self, node_id: str) -> list[Node]:
        """Direct children, ordered by position."""
        return [self._nodes[key] for key in self.get(node_id).children_ids]

    def ancestors(self, node_id: str) -> list[Node]:
        """Parent, grandparent, … up to the document (nearest first); empty for the document."""
        out: list[Node] = []
        parent = self.parent(node_id)
        while parent is not None:
            out.append(parent)
            parent = self.parent(parent.id)
        return out

    def siblings(self, node_id: str) -> list[Node]:
        """The parent's other children, ordered by position; empty for the document."""
        parent = self.parent(node_id)
        return [] if parent is None else [node for node in self.children(parent.id) if node.id != node_id]

    def leaves(self) -> list[Node]:
        """The nodes without children, in document order: the chunks (or the document alone)."""
        return [node for node in self.nodes() if node.is_leaf]

    def by_level(self, level: int) -> list[Node]:
        """The nodes at ``level`` (sections and chunks may share one), in document order."""
        return [node for node in self.nodes() if node.level == level]

    def to_tree_dict(self) -> dict[str, Any]:
        """The document node as nested JSON-safe dicts: each node's fields plus ``children`` (no cycles)."""

        def build(node: Node) -> dict[str, Any]:
            data = node.to_dict()
            del data["children_ids"]
            data["children"] = [build(self._nodes[key]) for key in node.children_ids]
            return data

        return build(self._nodes[DOCUMENT_ID])


def _deepest(span: Span, kids: Mapping[str, list[OutlineEntry]], starts: Mapping[str, list[int]]) -> str:
    """Id of the deepest outline entry whose char span holds ``span`` (siblings are disjoint and ordered)."""
    current = DOCUMENT_ID
    while True:
        n = bisect_right(starts[current], span[0]) - 1
        if n < 0:
            return current
        candidate = kids[current][n]
        if span[1] > candidate.char_span[1]:
            return current
        current = candidate.id


def _entry_node(entry: OutlineEntry, kind: str, children: tuple[str, ...], prev: str | None, nxt: str | None) -> Node:
    return Node(
        id=entry.id,
        kind=kind,
        title=entry.title,
        level=entry.level,
        parent_id=entry.parent_id,
        children_ids=children,
        prev_id=prev,
        next_id=nxt,
        byte_span=entry.byte_span,
        char_span=entry.char_span,
        line_span=entry.line_span,
        own_tokens=entry.own_tokens,
        tokens=entry.tokens,
    )


def _fallback_entry(chunks: Sequence[ChunkFields], header: Mapping[str, Any]) -> OutlineEntry:
    """The document alone, for a chunk set read from JSON written before the outline existed."""
    chars = max((chunk.char_span[1] for chunk in chunks), default=0)
    try:
        tokens = fields.whole(header.get("token_count", 0))
        return OutlineEntry(
            DOCUMENT_ID,
            None,
            0,
            str(header.get("name", "")),
            fields.span([0, header.get("bytes", 0)]),
            (0, chars),
            (1, max(fields.whole(header.get("lines", 1)), 1)),
            tokens,
            tokens,
        )
    except (TypeError, ValueError) as exc:
        raise ChunkerError(f"malformed document header of a chunk set without an outline: {exc}") from None


# -- the three layers ----------------------------------------------------------------


def layer_records(
    tree: Hierarchy, chunks: Sequence[ChunkFields], text: str | None, name: str
) -> dict[str, list[dict[str, Any]]]:
    """The hierarchy as three flat lists of JSON-safe records: ``documents``, ``sections``, ``chunks``.

    Every record has ``id``, ``kind``, ``parent_id`` (None for the document),
    ``document`` (the name), ``title``, ``level``, spans, ``own_tokens``,
    ``tokens`` and ``text``: the source slice of the document or section, the
    markdown of a chunk (whose other fields follow). Without the source
    (``text`` None: a chunk set read from JSON) the text is rebuilt from the
    chunks: verbatim, but whitespace between chunks becomes plain spaces and line
    breaks, and front matter left out of the chunks is blank.
    """
    source = text if text is not None else _rebuild(chunks, tree.get(DOCUMENT_ID).char_span[1])
    by_id = {chunk.id: chunk for chunk in chunks}
    out: dict[str, list[dict[str, Any]]] = {"documents": [], "sections": [], "chunks": []}
    for node in tree.nodes():
        record: dict[str, Any] = {
            "id": node.id,
            "kind": node.kind,
            "parent_id": node.parent_id,
            "document": name,
            "title": node.title,
            "level": node.level,
            "byte_span": list(node.byte_span),
            "char_span": list(node.char_span),
            "line_span": list(node.line_span),
            "own_tokens": node.own_tokens,
            "tokens": node.tokens,
        }
        if node.kind == "chunk":
            chunk = by_id[node.id]
            record["text"] = chunk.markdown
            record.update((k, v) for k, v in chunk.to_dict().items() if k not in record and k != "markdown")
        else:
            record["text"] = source[node.char_span[0] : node.char_span[1]]
        out[f"{node.kind}s"].append(record)
    return out


def _rebuild(chunks: Sequence[ChunkFields], length: int) -> str:
    """A text of ``length`` chars holding each chunk's source at its char span, whitespace elsewhere."""
    parts: list[str] = []
    cursor, line = 0, 1
    for chunk in sorted(chunks, key=lambda c: c.char_span):
        start, end = chunk.char_span
        body = chunk.markdown[len(chunk.added_prefix) : len(chunk.markdown) - len(chunk.added_suffix)]
        if start > cursor:
            gap = start - cursor
            breaks = min(max(chunk.line_span[0] - line, 0), gap)
            parts.append(" " * (gap - breaks) + "\n" * breaks)
        if end > cursor:
            parts.append(body[max(cursor - start, 0) :])
            cursor, line = end, chunk.line_span[1]
    parts.append(" " * max(length - cursor, 0))
    return "".join(parts)[:length]
