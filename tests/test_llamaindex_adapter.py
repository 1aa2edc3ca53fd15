"""The LlamaIndex NodeParser (chunk_inspector.pipelines.llamaindex) against the real llama-index-core."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

import chunker
from chunk_inspector.pipelines.extras import METADATA_KEYS, MissingExtraError
from chunker.decode import InputError
from tests.readme_snippets import doc_blocks

pytest.importorskip("llama_index.core", reason="the [llamaindex] extra is not installed")

from llama_index.core import Document, StorageContext
from llama_index.core.node_parser import NodeParser, get_leaf_nodes, get_root_nodes
from llama_index.core.retrievers import (
    AutoMergingRetriever,
    BaseRetriever,
)
from llama_index.core.schema import MetadataMode, NodeRelationship, NodeWithScore, QueryBundle, TextNode

from chunk_inspector.pipelines.llamaindex import MarkdownChunkNodeParser

ROOT = Path(__file__).resolve().parent.parent
TEXT = (ROOT / "sample_docs" / "poetry_cli.md").read_text(encoding="utf-8")
LIMITS = {"target": 256, "hard_cap": 512}


def _nodes(include_sections: bool) -> tuple[list[Any], chunker.ChunkSet]:
    parser = MarkdownChunkNodeParser.from_defaults(include_sections=include_sections, **LIMITS)
    doc = Document(text=TEXT, id_="poetry", metadata={"file_name": "poetry_cli.md", "team": "docs"})
    chunks = chunker.chunk_markdown(TEXT, name="poetry_cli.md", **LIMITS)
    return parser.get_nodes_from_documents([doc]), chunks


def test_is_a_node_parser_with_checked_options() -> None:
    assert isinstance(MarkdownChunkNodeParser.from_defaults(), NodeParser)
    with pytest.raises(chunker.ConfigError):
        MarkdownChunkNodeParser.from_defaults(target=600, hard_cap=512)
    with pytest.raises(chunker.ConfigError, match=r"unknown option chunk_size=: give hard_cap="):
        MarkdownChunkNodeParser.from_defaults(chunk_size=512)  # LlamaIndex's name for it: refused naming ours


def test_chunk_nodes_carry_offsets_and_metadata() -> None:
    """One TextNode per chunk, in order: its char_span as start/end_char_idx, our metadata plus the source's."""
    nodes, chunks = _nodes(include_sections=False)
    assert [n.text for n in nodes] == [c.markdown for c in chunks]
    for node, chunk in zip(nodes, chunks, strict=True):
        assert isinstance(node, TextNode)
        assert (node.start_char_idx, node.end_char_idx) == chunk.char_span
        assert node.text == chunk.added_prefix + TEXT[node.start_char_idx : node.end_char_idx] + chunk.added_suffix
        assert node.node_id == f"poetry#{chunk.id}"
        assert set(METADATA_KEYS) | {"file_name", "team", "breadcrumb_line"} == set(node.metadata)
        assert node.metadata["breadcrumb"] == chunk.breadcrumb and node.metadata["flags"] == chunk.flags
        assert node.metadata["char_span"] == list(chunk.char_span) and node.metadata["token_count"] == chunk.token_count
        assert node.ref_doc_id == "poetry"


def test_offsets_are_ours_even_where_a_text_search_would_miss() -> None:
    """A chunk with a re-opened fence is not found verbatim in the source; its offsets are still exact."""
    code = (
        "# Code\n\n```python\n" + "".join(f"value_{n} = compute({n}, 'some text here')\n" for n in range(300)) + "```\n"
    )
    parser = MarkdownChunkNodeParser.from_defaults(target=128, hard_cap=256)
    nodes = parser.get_nodes_from_documents([Document(text=code, id_="code")])
    chunks = chunker.chunk_markdown(code, target=128, hard_cap=256)
    assert any(c.added_prefix for c in chunks)
    assert [(n.start_char_idx, n.end_char_idx) for n in nodes] == [c.char_span for c in chunks]


def test_embedder_sees_the_breadcrumb_only_of_our_metadata() -> None:
    nodes, _ = _nodes(include_sections=False)
    shown = nodes[1].get_content(metadata_mode=MetadataMode.EMBED)
    assert "file_name: poetry_cli.md" in shown
    assert "char_span" not in shown and "ancestor_ids" not in shown


def test_the_breadcrumb_shown_reads_as_contextualize_writes_it() -> None:
    """The embedder and the LLM once saw the breadcrumb as a Python list (``breadcrumb: ['poetry_cli.md',
    'Commands']``): they see the line of ``contextualize()`` (``poetry_cli.md › Commands``), the document by its
    file name, and the list stays in the metadata, as in the other adapters."""
    nodes, chunks = _nodes(include_sections=False)
    for node, chunk in zip(nodes, chunks, strict=True):
        line = chunk.contextualize().split("\n\n", 1)[0]
        assert " › " in line or len(chunk.breadcrumb) == 1
        for mode in (MetadataMode.EMBED, MetadataMode.LLM):
            shown = node.get_content(metadata_mode=mode)
            assert shown == f"file_name: poetry_cli.md\nteam: docs\nbreadcrumb_line: {line}\n\n{chunk.markdown}".strip()
            assert "['" not in shown
        assert node.metadata["breadcrumb"] == chunk.breadcrumb
    deep = chunker.chunk_markdown(
        "# A\n\nSome text that is long enough here.\n\n## B\n\nText that is also long enough to split.\n",
        name="docs/guide.md",
        target=16,
        hard_cap=16,
    )
    assert [c.context_line() for c in deep] == ["guide.md › A", "guide.md › A › B"]


def test_a_file_name_that_is_not_utf8_is_refused_in_one_error() -> None:
    """SimpleDirectoryReader names a file whose name is not UTF-8 with surrogate escapes: its nodes' breadcrumbs
    used to carry them, and the chunk set's JSON could not be written; now one InputError names the name."""
    name = os.fsdecode(b"caf\xe9.md")
    source = Document(text="# T\n\nBody.\n", id_="cafe", metadata={"file_name": name})
    with pytest.raises(InputError, match=r"the document name 'caf\\udce9\.md' is not Unicode text"):
        MarkdownChunkNodeParser.from_defaults().get_nodes_from_documents([source])


def test_relationships_follow_our_hierarchy() -> None:
    """PARENT, CHILD, PREVIOUS and NEXT are the hierarchy's, ids prefixed with the source's id."""
    nodes, chunks = _nodes(include_sections=True)
    tree = chunks.hierarchy()
    expected_ids = [n.id for n in tree.nodes() if n.kind == "section"] + [c.id for c in chunks]
    assert [n.node_id.split("#")[1] for n in nodes] == expected_ids
    for node in nodes:
        ours = tree.get(node.node_id.split("#")[1])
        rels = node.relationships
        assert rels[NodeRelationship.SOURCE].node_id == "poetry"
        parent = rels.get(NodeRelationship.PARENT)
        assert (parent.node_id if parent else None) == (
            None if ours.parent_id in (None, "d") else f"poetry#{ours.parent_id}"
        )
        children = [r.node_id for r in rels.get(NodeRelationship.CHILD, [])]
        assert children == [f"poetry#{c}" for c in ours.children_ids]
        prev, nxt = rels.get(NodeRelationship.PREVIOUS), rels.get(NodeRelationship.NEXT)
        assert (prev.node_id if prev else None) == (ours.prev_id and f"poetry#{ours.prev_id}")
        assert (nxt.node_id if nxt else None) == (ours.next_id and f"poetry#{ours.next_id}")
        start, end = ours.char_span
        assert (node.start_char_idx, node.end_char_idx) == (start, end)
        if ours.kind == "section":
            assert node.text == TEXT[start:end] and node.metadata["title"] == ours.title
    assert [n.node_id for n in get_leaf_nodes(nodes)] == [f"poetry#{c.id}" for c in chunks]
    assert {n.node_id for n in get_root_nodes(nodes)} == {f"poetry#{n}" for n in tree.get("d").children_ids}


class _Fixed(BaseRetriever):
    """A retriever that returns the given nodes, to drive the AutoMergingRetriever without embeddings."""

    def __init__(self, nodes: list[Any]) -> None:
        super().__init__()
        self._found = nodes

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return [NodeWithScore(node=n, score=1.0) for n in self._found]


def test_auto_merging_retrieval_merges_into_our_section() -> None:
    """Retrieving every chunk of a section gives the AutoMergingRetriever that section instead."""
    nodes, chunks = _nodes(include_sections=True)
    tree = chunks.hierarchy()
    section = next(
        n
        for n in tree.nodes()
        if n.kind == "section" and len(n.children_ids) >= 2 and all(tree.get(c).kind == "chunk" for c in n.children_ids)
    )
    storage = StorageContext.from_defaults()
    storage.docstore.add_documents(nodes)
    by_id = {n.node_id: n for n in nodes}
    found = [by_id[f"poetry#{c}"] for c in section.children_ids]
    retriever = AutoMergingRetriever(_Fixed(found), storage)  # type: ignore[arg-type]
    merged = retriever.retrieve("anything")
    assert [r.node.node_id for r in merged] == [f"poetry#{section.id}"]


def test_missing_llama_index_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_index.core", None)
    monkeypatch.delitem(sys.modules, "chunk_inspector.pipelines.llamaindex")
    with pytest.raises(MissingExtraError, match=r"pip install 'chunk-inspector\[llamaindex\]'"):
        import chunk_inspector.pipelines.llamaindex  # noqa: F401


def test_readme_snippet_runs_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    from llama_index.core import Settings

    (snippet,) = doc_blocks("docs/pipelines.md", "## LlamaIndex")
    monkeypatch.chdir(ROOT)
    previous = Settings._embed_model
    namespace: dict[str, Any] = {}
    try:
        exec(compile(snippet, "README.md", "exec"), namespace)
    finally:
        Settings._embed_model = previous
    leaf = namespace["leaf"]
    assert (leaf.node_id, leaf.parent_node.node_id) == ("poetry#c2", "poetry#s1")
    assert namespace["found"]
