"""LlamaIndex: the engine as a ``NodeParser`` of llama-index-core (the ``[llamaindex]`` extra).

``MarkdownChunkNodeParser.from_defaults(target=384, hard_cap=1024, tokenizer="cl100k_base",
include_sections=False, **options)`` turns Documents (or any text nodes) into ``TextNode``\\ s:

- one node per chunk, its text the chunk's markdown, ``start_char_idx``/``end_char_idx`` its
  exact ``char_span`` in the source, its metadata the source's plus ours
  (:func:`chunk_inspector.extras.chunk_metadata`) and ``breadcrumb_line``, the breadcrumb as the first
  line of ``Chunk.contextualize()`` writes it (``Chunk.context_line()``: ``guide.md › Install``): LlamaIndex
  shows a metadata value as ``str(value)``, so that line is the one shown to the embedder and the LLM, and the rest, the
  ``breadcrumb`` list included, is excluded from both;
- with ``include_sections=True``, also one node per section of our hierarchy (its text the
  section's source, metadata ``document``, ``id``, ``kind``, ``title``, ``level``, spans,
  ``token_count``, ``parent_id``, ``ancestor_ids``), sections first in document order, then
  the chunks: all of them for the docstore, ``get_leaf_nodes(nodes)`` (the chunks) for the
  vector index, as with ``HierarchicalNodeParser`` and the ``AutoMergingRetriever``;
- relationships from our hierarchy: ``PARENT`` (the section a node hangs under; none for a
  node under the document itself, whose source is the Document, as for
  ``HierarchicalNodeParser``'s roots), ``CHILD`` (a section's sections and chunks, in order),
  ``PREVIOUS``/``NEXT`` (reading order among nodes of the same kind), ``SOURCE`` (the Document).

Node ids are ``"<source node id>#<our id>"`` (``#c3``, ``#s2``), so they are stable for a
Document with a stable id. With ``content_ids=True`` a chunk's node is named by its content instead,
``"<source node id>#<content_sha256>"`` (``~2``, ``~3`` after a text the document repeats), and its
``hash`` is the SHA-256 of what the embedding model is given (``get_content(MetadataMode.EMBED)``: the
markdown and the breadcrumb), not of its positions: an ``IngestionPipeline`` with a docstore and
``DocstoreStrategy.DUPLICATES_ONLY`` then embeds only the chunks of a new revision whose text (or
breadcrumb) it has not seen (docs/pipelines.md, "Re-indexing only what changed").
The document name (the breadcrumbs' first element) is the source's
``metadata["file_name"]`` (what ``SimpleDirectoryReader`` sets), else ``"source"``, else ``name``.
Importing this module imports llama-index-core; without it, it raises
:class:`~chunk_inspector.extras.MissingExtraError`.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from typing import Any

from chunk_inspector.pipelines.extras import METADATA_KEYS, chunk_metadata, options_of, require

require("llama_index.core", "llamaindex", "chunk_inspector.pipelines.llamaindex")

from llama_index.core.bridge.pydantic import Field, PrivateAttr  # noqa: E402
from llama_index.core.node_parser import NodeParser  # noqa: E402
from llama_index.core.schema import (  # noqa: E402
    BaseNode,
    Document,
    MetadataMode,
    NodeRelationship,
    RelatedNodeInfo,
    TextNode,
)

import chunker  # noqa: E402

__all__ = ["LINE_KEY", "ContentNode", "MarkdownChunkNodeParser"]

LINE_KEY = "breadcrumb_line"  # the one metadata a chunk's node shows: Chunk.context_line()
_HIDDEN = list(METADATA_KEYS)
_SECTION_HIDDEN = ["document", "id", "kind", "level", "byte_span", "char_span", "line_span", "token_count"]
_SECTION_HIDDEN += ["parent_id", "ancestor_ids"]


class ContentNode(TextNode):
    """A chunk's node under ``content_ids=True``: a TextNode whose ``hash`` is the SHA-256 of what the embedding
    model is given, so that a chunk that only moved (other id, spans, lines) hashes as before.

    LlamaIndex's own TextNode hashes its text with all its metadata, positions included, so the docstore would
    take every chunk after an edit for new. Stored in a docstore, it is written and read back as a TextNode.
    """

    @classmethod
    def class_name(cls) -> str:
        return "TextNode"

    @property
    def hash(self) -> str:
        embedded = self.get_content(metadata_mode=MetadataMode.EMBED)
        return hashlib.sha256(embedded.encode("utf-8", "surrogatepass")).hexdigest()


class MarkdownChunkNodeParser(NodeParser):
    """Chunk Inspector's chunks (and, if asked, sections) as LlamaIndex TextNodes with our hierarchy."""

    target: int = chunker.DEFAULT_TARGET
    hard_cap: int = chunker.DEFAULT_HARD_CAP
    tokenizer: Any = "cl100k_base"  # a chunker.TokenizerLike; Any, as pydantic builds no schema for a Protocol
    options: dict[str, Any] = Field(default_factory=dict)
    _checked: Any = PrivateAttr(default=None)  # the options' one value, made by model_post_init
    include_sections: bool = False
    name: str = "document.md"
    content_ids: bool = False  # chunk nodes named and hashed by content (ContentNode), for de-duplication

    @classmethod
    def class_name(cls) -> str:
        return "MarkdownChunkNodeParser"

    @classmethod
    def from_defaults(
        cls,
        *,
        target: int = chunker.DEFAULT_TARGET,
        hard_cap: int = chunker.DEFAULT_HARD_CAP,
        tokenizer: Any = "cl100k_base",
        include_sections: bool = False,
        name: str = "document.md",
        include_prev_next_rel: bool = True,
        content_ids: bool = False,
        **options: Any,
    ) -> MarkdownChunkNodeParser:
        """The parser; ``options`` are :class:`chunker.ChunkOptions`' keywords (bad ones raise ConfigError here)."""
        options_of(None, tokenizer, {"target": target, "hard_cap": hard_cap, **options})
        return cls(
            target=target,
            hard_cap=hard_cap,
            tokenizer=tokenizer,
            options=dict(options),
            include_sections=include_sections,
            name=name,
            include_prev_next_rel=include_prev_next_rel,
            content_ids=content_ids,
        )

    def model_post_init(self, context: Any, /) -> None:
        """Checks the options of a parser made directly (pydantic reports a ConfigError as a ValidationError)."""
        keywords = {"target": self.target, "hard_cap": self.hard_cap, **self.options}
        self._checked = options_of(None, self.tokenizer, keywords)

    def chunk_options(self) -> chunker.ChunkOptions:
        """The one options value this parser chunks with (:class:`chunker.ChunkOptions`)."""
        checked: chunker.ChunkOptions = self._checked
        return checked

    def _parse_nodes(self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any) -> list[BaseNode]:
        out: list[BaseNode] = []
        for node in nodes:
            out.extend(self._nodes_of(node))
        return out

    def _nodes_of(self, source: BaseNode) -> list[BaseNode]:
        text = source.get_content()
        meta = source.metadata
        name = str(meta.get("file_name") or meta.get("source") or self.name)
        chunks = chunker.chunk_markdown(text, name=name, tokenizer=self.tokenizer, options=self.chunk_options())
        tree = chunks.hierarchy()
        key = source.node_id
        origin = source.as_related_node_info()  # once: it hashes the whole source

        names = _content_names(chunks) if self.content_ids else {}

        def node_id(item_id: str) -> str:
            return f"{key}#{names.get(item_id, item_id)}"

        def ref(item_id: str) -> RelatedNodeInfo:
            return RelatedNodeInfo(node_id=node_id(item_id))

        by_id = {c.id: c for c in chunks}
        built: list[BaseNode] = []
        for item in tree.nodes():
            if item.kind == "document" or (item.kind == "section" and not self.include_sections):
                continue
            rels: dict[NodeRelationship, Any] = {NodeRelationship.SOURCE: origin}
            if item.parent_id is not None and item.parent_id != "d":
                rels[NodeRelationship.PARENT] = ref(item.parent_id)
            if item.children_ids:
                rels[NodeRelationship.CHILD] = [ref(child) for child in item.children_ids]
            if self.include_prev_next_rel and item.prev_id is not None:
                rels[NodeRelationship.PREVIOUS] = ref(item.prev_id)
            if self.include_prev_next_rel and item.next_id is not None:
                rels[NodeRelationship.NEXT] = ref(item.next_id)
            start, end = item.char_span
            if item.kind == "chunk":
                c = by_id[item.id]
                body, metadata, hidden = (
                    c.markdown,
                    {**chunk_metadata(chunks, c), LINE_KEY: c.context_line()},
                    _HIDDEN,
                )
            else:
                body, hidden = text[start:end], _SECTION_HIDDEN
                ancestors = [a.id for a in tree.ancestors(item.id)]
                metadata = {
                    "document": name,
                    "id": item.id,
                    "kind": "section",
                    "title": item.title,
                    "level": item.level,
                    "byte_span": list(item.byte_span),
                    "char_span": [start, end],
                    "line_span": list(item.line_span),
                    "token_count": item.tokens,
                    "parent_id": item.parent_id,
                    "ancestor_ids": ancestors,
                }
            node_class: type[TextNode] = ContentNode if item.kind == "chunk" and self.content_ids else TextNode
            built.append(
                node_class(
                    id_=node_id(item.id),
                    text=body,
                    metadata=metadata,
                    start_char_idx=start,
                    end_char_idx=end,
                    relationships=rels,
                    excluded_embed_metadata_keys=[*source.excluded_embed_metadata_keys, *hidden],
                    excluded_llm_metadata_keys=[*source.excluded_llm_metadata_keys, *hidden],
                )
            )
        # Sections first (parents before children, as HierarchicalNodeParser returns them), then chunks.
        return sorted(built, key=lambda n: n.metadata.get("kind") != "section")

    def _postprocess_parsed_nodes(self, nodes: list[BaseNode], parent_doc_map: dict[str, Document]) -> list[BaseNode]:
        """LlamaIndex's pass (the source's metadata merged in), keeping our offsets and PREVIOUS/NEXT.

        Its own pass would search each node's text in the source (a chunk with a re-opened fence is not
        found there; a repeated passage may be found too early) and link neighbours in list order.
        """
        ours = {
            n.node_id: (
                getattr(n, "start_char_idx", None),
                getattr(n, "end_char_idx", None),
                n.relationships.get(NodeRelationship.PREVIOUS),
                n.relationships.get(NodeRelationship.NEXT),
            )
            for n in nodes
        }
        nodes = super()._postprocess_parsed_nodes(nodes, parent_doc_map)
        for n in nodes:
            start, end, prev, nxt = ours[n.node_id]
            if isinstance(n, TextNode):
                n.start_char_idx, n.end_char_idx = start, end
            for rel, value in ((NodeRelationship.PREVIOUS, prev), (NodeRelationship.NEXT, nxt)):
                if value is None:
                    n.relationships.pop(rel, None)
                else:
                    n.relationships[rel] = value
        return nodes


def _content_names(chunks: chunker.ChunkSet) -> dict[str, str]:
    """Each chunk's name under ``content_ids``: its content_sha256, with ``~2``, ``~3`` after a repeated text."""
    seen: Counter[str] = Counter()
    names = {}
    for c in chunks:
        seen[c.content_sha256] += 1
        n = seen[c.content_sha256]
        names[c.id] = c.content_sha256 if n == 1 else f"{c.content_sha256}~{n}"
    return names
