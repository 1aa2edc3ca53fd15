"""Re-indexing only what changed: the frameworks' own de-duplication, fed our chunks, embeds only the chunks
`chunker diff` calls added, and drops those it calls removed (docs/pipelines.md, "Re-indexing only what changed").

The revisions are a real edit (the Rust book, one commit, four lines): a few chunks change, and most of the
others move (their ids, spans and lines change) without changing their text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import chunker
from chunk_inspector.revisions import DocumentDiff, diff_chunks
from tests.readme_snippets import doc_blocks

pytest.importorskip("langchain_text_splitters", reason="the [langchain] extra is not installed")
pytest.importorskip("llama_index.core", reason="the [llamaindex] extra is not installed")

from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings
from langchain_core.indexing import InMemoryRecordManager, index
from langchain_core.vectorstores import InMemoryVectorStore
from llama_index.core import Document as LlamaDocument
from llama_index.core.bridge.pydantic import Field
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.ingestion import DocstoreStrategy, IngestionPipeline
from llama_index.core.schema import BaseNode, MetadataMode
from llama_index.core.storage.docstore import SimpleDocumentStore
from llama_index.core.vector_stores import SimpleVectorStore

from chunk_inspector.pipelines.langchain import MarkdownChunkSplitter, content_key
from chunk_inspector.pipelines.llamaindex import MarkdownChunkNodeParser

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "benchmarks" / "revisions" / "rust-book" / "ch09-02-recoverable-errors-with-result"
OLD = (FOLDER / "03-42ca0ef484.md").read_text(encoding="utf-8")
NEW = (FOLDER / "04-699adc6f5c.md").read_text(encoding="utf-8")
NAME = "ch09-02.md"
LIMITS = {"target": 128, "hard_cap": 256}


def revisions() -> tuple[chunker.ChunkSet, chunker.ChunkSet, DocumentDiff]:
    old = chunker.chunk_markdown(OLD, name=NAME, **LIMITS)
    new = chunker.chunk_markdown(NEW, name=NAME, **LIMITS)
    diff = diff_chunks(old, new, NAME)
    moved = [c for c in diff.kept if c.id != next(o.id for o in old if o.content_sha256 == c.content_sha256)]
    assert diff.added and diff.removed and len(moved) > 10, "the pair is an edit that moves most chunks"
    return old, new, diff


class CountingEmbeddings(Embeddings):
    """LangChain's deterministic fake embedding, keeping every text it was asked to embed."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.fake = DeterministicFakeEmbedding(size=8)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.texts += texts
        return self.fake.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.fake.embed_query(text)


def langchain_index(key_encoder: Any) -> tuple[CountingEmbeddings, InMemoryVectorStore, dict[str, Any]]:
    """Index OLD, then NEW, into one vector store with incremental cleanup; the embedder then holds NEW's texts
    only, and the second run's result is returned."""
    splitter = MarkdownChunkSplitter(**LIMITS)
    embedder = CountingEmbeddings()
    store = InMemoryVectorStore(embedder)
    records = InMemoryRecordManager("chunks")
    records.create_schema()

    def run(text: str) -> dict[str, Any]:
        docs = splitter.split_documents([Document(page_content=text, metadata={"source": NAME})])
        # One batch per document: incremental cleanup runs after each batch (docs/pipelines.md).
        return dict(
            index(
                docs,
                records,
                store,
                cleanup="incremental",
                source_id_key="document",
                key_encoder=key_encoder,
                batch_size=1_000,
            )
        )

    run(OLD)
    embedder.texts.clear()
    return embedder, store, run(NEW)


def test_langchain_indexing_with_content_key_embeds_only_the_added_chunks() -> None:
    """langchain_core.indexing.index keyed by content_key: the edit embeds exactly the chunks `chunker diff`
    calls added, skips the kept ones (moved or not), deletes the removed ones; the store then holds NEW."""
    _, new, diff = revisions()
    embedder, store, result = langchain_index(content_key)
    assert sorted(embedder.texts) == sorted(c.markdown for c in diff.added)
    assert result == {
        "num_added": len(diff.added),
        "num_updated": 0,
        "num_skipped": len(diff.kept),
        "num_deleted": len(diff.removed),
    }
    stored = store.get_by_ids(list(store.store))
    assert sorted(d.page_content for d in stored) == sorted(c.markdown for c in new)


def test_langchain_default_keys_re_embed_the_chunks_that_only_moved() -> None:
    """LangChain's own keys hash the metadata too (ids, spans): the same edit re-embeds every chunk that moved."""
    _, _, diff = revisions()
    embedder, _, result = langchain_index("sha256")
    assert result["num_added"] == len(embedder.texts) > len(diff.added) + 10
    assert {c.markdown for c in diff.added} <= set(embedder.texts)


class CountingEmbedding(MockEmbedding):
    """LlamaIndex's mock embedding, keeping every text it was asked to embed."""

    texts: list[str] = Field(default_factory=list)

    def _get_text_embedding(self, text: str) -> list[float]:
        self.texts.append(text)
        return super()._get_text_embedding(text)


def llama_index(content_ids: bool) -> tuple[CountingEmbedding, IngestionPipeline, list[BaseNode]]:
    """Run OLD's nodes, then NEW's, through one IngestionPipeline with a docstore (duplicates only) and a vector
    store; the embedder then holds what NEW's run embedded. Returns NEW's nodes too."""
    parser = MarkdownChunkNodeParser.from_defaults(content_ids=content_ids, **LIMITS)
    embedder = CountingEmbedding(embed_dim=8)
    pipeline = IngestionPipeline(
        transformations=[embedder],
        docstore=SimpleDocumentStore(),
        vector_store=SimpleVectorStore(),
        docstore_strategy=DocstoreStrategy.DUPLICATES_ONLY,
    )

    def nodes(text: str) -> list[BaseNode]:
        return parser.get_nodes_from_documents([LlamaDocument(text=text, id_="ch09", metadata={"file_name": NAME})])

    pipeline.run(nodes=nodes(OLD))
    embedder.texts.clear()
    new_nodes = nodes(NEW)
    pipeline.run(nodes=new_nodes)
    return embedder, pipeline, new_nodes


def test_llamaindex_ingestion_with_content_ids_embeds_only_the_added_chunks() -> None:
    """IngestionPipeline with a docstore and DUPLICATES_ONLY, fed nodes named and hashed by content: the edit
    embeds exactly the chunks `chunker diff` calls added; the nodes the docstore holds for the document and NEW
    no longer has are exactly the removed chunks, which the strategy does not delete: deleting them (by node id)
    leaves the vector store holding NEW's chunks."""
    _, new, diff = revisions()
    embedder, pipeline, new_nodes = llama_index(content_ids=True)
    added = [n for n in new_nodes if n.metadata["id"] in {c.id for c in diff.added}]
    assert len(added) == len(diff.added)
    assert sorted(embedder.texts) == sorted(n.get_content(metadata_mode=MetadataMode.EMBED) for n in added)
    docstore, vectors = pipeline.docstore, pipeline.vector_store
    assert docstore is not None and isinstance(vectors, SimpleVectorStore)
    info = docstore.get_ref_doc_info("ch09")
    assert info is not None
    stale = set(info.node_ids) - {n.node_id for n in new_nodes}
    assert stale == {f"ch09#{c.content_sha256}" for c in diff.removed}
    vectors.delete_nodes(sorted(stale))
    for node_id in stale:
        docstore.delete_document(node_id)
    assert set(vectors.data.embedding_dict) == {f"ch09#{c.content_sha256}" for c in new}
    assert sorted(docstore.get_node(f"ch09#{c.content_sha256}").get_content() for c in new) == sorted(
        c.markdown for c in new
    )


def test_llamaindex_default_nodes_re_embed_the_chunks_that_only_moved() -> None:
    """Without content_ids a node's hash covers its metadata (id, spans): the same run re-embeds the moved chunks."""
    _, _, diff = revisions()
    embedder, _, _ = llama_index(content_ids=False)
    assert len(embedder.texts) > len(diff.added) + 10
    assert {c.markdown for c in diff.added} <= {text.split("\n\n", 1)[1] for text in embedder.texts}


def test_the_docs_snippets_run_as_written_and_agree_with_chunker_diff(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/pipelines.md's two snippets, run as written: the LangChain one adds, skips and deletes what
    `chunker diff` calls added, kept and removed; the LlamaIndex one embeds the added and deletes the removed."""
    langchain_snippet, llamaindex_snippet = doc_blocks("docs/pipelines.md", "## Re-indexing only what changed")
    monkeypatch.chdir(ROOT)
    old = chunker.chunk_markdown(OLD, name=NAME, target=256, hard_cap=512)
    diff = diff_chunks(old, chunker.chunk_markdown(NEW, name=NAME, target=256, hard_cap=512), NAME)
    namespace: dict[str, Any] = {}
    exec(compile(langchain_snippet, "docs/pipelines.md", "exec"), namespace)
    assert namespace["result"] == {
        "num_added": len(diff.added),
        "num_updated": 0,
        "num_skipped": len(diff.kept),
        "num_deleted": len(diff.removed),
    }
    namespace = {}
    exec(compile(llamaindex_snippet, "docs/pipelines.md", "exec"), namespace)
    assert namespace["counts"] == (len(diff.added), len(diff.removed))
