"""LangChain: the engine as a ``TextSplitter`` of langchain-text-splitters (the ``[langchain]`` extra).

``MarkdownChunkSplitter(target=384, hard_cap=1024, tokenizer="cl100k_base", **options)`` goes
wherever ``MarkdownHeaderTextSplitter`` or ``RecursiveCharacterTextSplitter`` goes:

- ``split_text(text)``: the chunks' markdown, in order;
- ``create_documents(texts, metadatas)`` and ``split_documents(documents)`` (and
  ``transform_documents``): one ``Document`` per chunk, its ``page_content`` the chunk's
  markdown, its metadata the input document's plus ours (:func:`chunk_inspector.extras.chunk_metadata`:
  ``document``, ``id``, ``breadcrumb``, ``headings``, the spans, ``token_count``, ``flags``,
  ``clause``, ``parent_id``, ``ancestor_ids``); with ``add_start_index=True`` also LangChain's
  ``start_index``, the chunk's exact start in the text (``char_span[0]``).

:func:`content_key` is a ``key_encoder`` for LangChain's indexing API (``langchain_core.indexing.index``):
it keys a chunk by its document and its content, not its position, so that re-indexing a revision embeds
only the chunks whose text changed (docs/pipelines.md, "Re-indexing only what changed").

The document name (the first element of each breadcrumb) is the input's ``metadata["source"]``
when it has one (what LangChain's loaders set), else ``name``. Importing this module imports
langchain-text-splitters; without it, it raises :class:`~chunk_inspector.extras.MissingExtraError`.
"""

from __future__ import annotations

import copy
import hashlib
import uuid
from collections.abc import Iterable
from typing import Any

from chunk_inspector.pipelines.extras import chunk_metadata, options_of, require

require("langchain_text_splitters", "langchain", "chunk_inspector.pipelines.langchain")

from langchain_core.documents import Document  # noqa: E402
from langchain_text_splitters import TextSplitter  # noqa: E402

import chunker  # noqa: E402

__all__ = ["MarkdownChunkSplitter", "content_key"]

# content_key's UUIDs: version 5 in a namespace of ours, so they never collide with another scheme's.
_KEY_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/chunk-inspector/content_key")


def content_key(document: Document) -> str:
    """A ``key_encoder`` for ``langchain_core.indexing.index``: a UUID made of the chunk's document name
    (``metadata["document"]``, else ``metadata["source"]``) and the SHA-256 of its ``page_content`` (our
    chunks' ``content_sha256``). Unlike LangChain's own keys, which hash the metadata too, it stays the same
    when a chunk only moves (its id, spans and lines change with every edit above it). The document is part of
    the key so that two documents sharing a text each keep their own record under incremental cleanup. A UUID,
    since some vector stores take no other ids."""
    meta = document.metadata or {}
    name = str(meta.get("document") or meta.get("source") or "")
    digest = hashlib.sha256(document.page_content.encode("utf-8", "surrogatepass")).hexdigest()
    return str(uuid.uuid5(_KEY_NAMESPACE, f"{name}\x00{digest}"))


class MarkdownChunkSplitter(TextSplitter):
    """Chunk Inspector's chunks as LangChain Documents.

    ``MarkdownChunkSplitter(options=chunker.ChunkOptions(...))``, or the options' keywords
    (``target=…, hard_cap=…, tokenizer=…, overlap=…``); ``tokenizer`` may also be a callable. LangChain's
    ``chunk_size`` is the hard cap and ``chunk_overlap`` the overlap, both in tokens. Bad options raise
    ``chunker.ConfigError`` here, not at the first split.
    """

    def __init__(
        self,
        *,
        options: chunker.ChunkOptions | None = None,
        tokenizer: chunker.TokenizerLike = None,
        name: str = "document.md",
        add_start_index: bool = False,
        **keywords: Any,
    ) -> None:
        checked = options_of(options, tokenizer, keywords)
        super().__init__(
            chunk_size=checked.hard_cap,
            chunk_overlap=checked.overlap,
            add_start_index=add_start_index,
            strip_whitespace=False,
        )
        self.options = checked
        self.tokenizer = tokenizer
        self.name = name

    def chunk(self, text: str, name: str | None = None) -> chunker.ChunkSet:
        """The engine's chunk set for ``text`` (named ``name``, else the splitter's ``name``)."""
        return chunker.chunk_markdown(text, name=name or self.name, tokenizer=self.tokenizer, options=self.options)

    def split_text(self, text: str) -> list[str]:
        """The chunks' markdown, in document order."""
        return [c.markdown for c in self.chunk(text)]

    def create_documents(self, texts: list[str], metadatas: list[dict[Any, Any]] | None = None) -> list[Document]:
        """One Document per chunk of each text, carrying that text's metadata and the chunk's."""
        documents = []
        for n, text in enumerate(texts):
            base = metadatas[n] if metadatas is not None else {}
            source = base.get("source")
            chunks = self.chunk(text, str(source) if source else None)
            for c in chunks:
                metadata = copy.deepcopy(base)
                metadata.update(chunk_metadata(chunks, c))
                if self._add_start_index:
                    metadata["start_index"] = c.char_span[0]
                documents.append(Document(page_content=c.markdown, metadata=metadata))
        return documents

    def split_documents(self, documents: Iterable[Document]) -> list[Document]:
        """``create_documents`` over the documents' text and metadata."""
        docs = list(documents)
        return self.create_documents([d.page_content for d in docs], [d.metadata for d in docs])
