"""The LangChain TextSplitter (chunk_inspector.pipelines.langchain) against the real langchain-text-splitters."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import chunker
from chunk_inspector.cli.commands import main
from chunk_inspector.pipelines.extras import METADATA_KEYS, MissingExtraError
from tests.readme_snippets import doc_blocks

pytest.importorskip("langchain_text_splitters", reason="the [langchain] extra is not installed")

from langchain_core.documents import Document
from langchain_text_splitters import TextSplitter

from chunk_inspector.pipelines.langchain import MarkdownChunkSplitter

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_docs"
TEXT = (SAMPLES / "poetry_cli.md").read_text(encoding="utf-8")


def test_is_a_text_splitter_with_the_caps_as_lengths() -> None:
    """It is a TextSplitter: chunk_size is the hard cap, chunk_overlap the overlap."""
    splitter = MarkdownChunkSplitter(target=256, hard_cap=512, overlap=40)
    assert isinstance(splitter, TextSplitter)
    assert (splitter._chunk_size, splitter._chunk_overlap) == (512, 40)


def test_split_text_is_the_chunks_markdown() -> None:
    chunks = chunker.chunk_markdown(TEXT, target=256, hard_cap=512)
    assert MarkdownChunkSplitter(target=256, hard_cap=512).split_text(TEXT) == [c.markdown for c in chunks]


def test_documents_carry_our_metadata_and_exact_offsets() -> None:
    """Every Document has the input's metadata plus ours; its spans point back into the source."""
    splitter = MarkdownChunkSplitter(target=256, hard_cap=512, add_start_index=True)
    docs = splitter.split_documents([Document(page_content=TEXT, metadata={"source": "poetry_cli.md", "lang": "en"})])
    chunks = chunker.chunk_markdown(TEXT, name="poetry_cli.md", target=256, hard_cap=512)
    assert len(docs) == len(chunks) > 1
    encoded = TEXT.encode("utf-8")
    for doc, chunk in zip(docs, chunks, strict=True):
        meta = doc.metadata
        assert set(METADATA_KEYS) | {"source", "lang", "start_index"} == set(meta)
        assert meta["document"] == "poetry_cli.md" and meta["breadcrumb"][0] == "poetry_cli.md"
        assert (meta["id"], meta["token_count"], meta["flags"], meta["clause"]) == (
            chunk.id,
            chunk.token_count,
            chunk.flags,
            chunk.clause,
        )
        assert meta["headings"] == chunk.headings and meta["breadcrumb"] == chunk.breadcrumb
        start, end = meta["char_span"]
        assert meta["start_index"] == start
        assert doc.page_content == chunk.added_prefix + TEXT[start:end] + chunk.added_suffix
        b_start, b_end = meta["byte_span"]
        assert encoded[b_start:b_end].decode("utf-8") == TEXT[start:end]
        first, last = meta["line_span"]
        assert TEXT.splitlines()[first - 1 : last][0] == TEXT[start:end].splitlines()[0]
        parent = chunks.get_parent(chunk.id)
        assert parent is not None and meta["parent_id"] == parent.id
        assert (
            meta["ancestor_ids"] == [n.id for n in chunks.get_ancestors(chunk.id)] and meta["ancestor_ids"][-1] == "d"
        )


def test_create_documents_names_each_text() -> None:
    """Without a `source`, the splitter's `name` is the document name; metadata is copied per chunk."""
    splitter = MarkdownChunkSplitter(name="guide.md")
    shared = {"tags": ["a"]}
    docs = splitter.create_documents(["# A\n\none\n", "# B\n\ntwo\n"], [shared, {"source": "b.md"}])
    assert [d.metadata["breadcrumb"] for d in docs] == [["guide.md", "A"], ["b.md", "B"]]
    docs[0].metadata["tags"].append("changed")
    assert shared == {"tags": ["a"]}
    assert "start_index" not in docs[0].metadata


def test_options_reach_the_engine_and_bad_ones_raise_at_once() -> None:
    text = "# Notes\n\n" + " ".join(f"Sentence number {n} is here." for n in range(400)) + "\n"
    docs = MarkdownChunkSplitter(target=128, hard_cap=256, overlap=30).create_documents([text])
    assert len(docs) > 2
    chunks = chunker.chunk_markdown(text, target=128, hard_cap=256, overlap=30)
    assert [d.page_content for d in docs] == [c.markdown for c in chunks]
    with pytest.raises(chunker.ConfigError):
        MarkdownChunkSplitter(target=600, hard_cap=512)


def test_langchains_own_size_names_are_refused_naming_ours() -> None:
    """RecursiveCharacterTextSplitter(chunk_size=…, chunk_overlap=…) swapped for ours: one ConfigError naming
    hard_cap and overlap (it was a TypeError about ChunkOptions.__init__, which the caller never called)."""
    with pytest.raises(chunker.ConfigError, match=r"unknown option chunk_size=: give hard_cap="):
        MarkdownChunkSplitter(chunk_size=512)
    with pytest.raises(chunker.ConfigError, match=r"unknown option chunk_overlap=: give overlap="):
        MarkdownChunkSplitter(hard_cap=512, chunk_overlap=50)
    with pytest.raises(chunker.ConfigError, match=r"unknown option colour=: the options are target, hard_cap"):
        MarkdownChunkSplitter(colour="red")
    splitter = MarkdownChunkSplitter(target=256, hard_cap=512, overlap=50)
    assert (splitter._chunk_size, splitter._chunk_overlap) == (512, 50)  # what LangChain reads: ours


def test_transform_documents_is_split_documents() -> None:
    splitter = MarkdownChunkSplitter(target=256, hard_cap=512)
    docs = [Document(page_content=TEXT, metadata={"source": "p.md"})]
    assert list(splitter.transform_documents(docs)) == splitter.split_documents(docs)


def test_missing_langchain_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain_text_splitters", None)
    monkeypatch.delitem(sys.modules, "chunk_inspector.pipelines.langchain")
    with pytest.raises(MissingExtraError, match=r"pip install 'chunk-inspector\[langchain\]'"):
        import chunk_inspector.pipelines.langchain  # noqa: F401


def test_readme_snippet_runs_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    (snippet,) = doc_blocks("docs/pipelines.md", "## LangChain")
    monkeypatch.chdir(ROOT)
    namespace: dict[str, Any] = {}
    exec(compile(snippet, "README.md", "exec"), namespace)
    assert namespace["meta"]["id"] == "c2"
    assert namespace["texts"] == [d.page_content for d in namespace["docs"]]


def test_the_folder_snippet_gives_the_chunks_of_a_directory_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """docs/pipelines.md, "A folder of Markdown files": the snippet runs as written and its Documents are the
    records of `chunker sample_docs -o OUT`'s chunks.jsonl, document by document, chunk by chunk."""
    (snippet,) = doc_blocks("docs/pipelines.md", "## A folder of Markdown files")
    monkeypatch.chdir(ROOT)
    namespace: dict[str, Any] = {}
    exec(compile(snippet, "docs/pipelines.md", "exec"), namespace)
    assert main(["sample_docs", "-o", str(tmp_path / "out"), "-q"]) == 0
    lines = (tmp_path / "out" / "chunks.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert len({r["document"] for r in records}) > 3
    documents = namespace["chunks"]
    assert [(d.metadata["document"], d.metadata["id"], d.page_content) for d in documents] == [
        (r["document"], r["id"], r["markdown"]) for r in records
    ]
