"""chunker.chunkset: versioned JSON, JSONL, contextualize, errors on foreign input."""

from __future__ import annotations

import json

import pytest

import chunker
from chunker.chunkset import line_crumbs

TEXT = "---\ntitle: T\n---\nIntro.\n\n# A\n\n" + "Some words here. " * 80 + "\n\n# B\n\nEnd.\n"


def make() -> chunker.ChunkSet:
    return chunker.chunk_markdown(TEXT, name="t.md", target=64, hard_cap=128)


def test_json_has_the_versioned_schema_and_document_header() -> None:
    """to_json carries schema, version, the document header and the config (docs/method.md §7)."""
    data = json.loads(make().to_json())
    assert data["schema"] == "chunk-set" and data["version"] == 1
    doc = data["document"]
    assert set(doc) == {"name", "sha256", "bytes", "lines", "token_count", "tokenizer", "front_matter"}
    assert doc["front_matter"] == {"title": "T"}
    assert doc["bytes"] == len(TEXT.encode()) and doc["lines"] == TEXT.count("\n")
    assert data["config"]["target"] == 64 and data["config"]["hard_cap"] == 128
    first = data["chunks"][0]
    assert first["id"] == "c1" and isinstance(first["char_span"], list) and len(first["char_span"]) == 2


def test_output_is_byte_identical_for_the_same_input_and_config() -> None:
    """Two runs give the same bytes."""
    assert make().to_json() == make().to_json()
    assert make().to_jsonl() == make().to_jsonl()


def test_json_round_trips() -> None:
    """ChunkSet.from_json(to_json()) is equal and serialises to the same bytes."""
    chunks = make()
    again = chunker.ChunkSet.from_json(chunks.to_json())
    assert again == chunks
    assert again.to_json() == chunks.to_json()


def test_jsonl_is_one_chunk_per_line_with_the_document_name() -> None:
    """Each JSONL line is one chunk carrying the document name."""
    chunks = make()
    lines = chunks.to_jsonl().splitlines()
    assert len(lines) == len(chunks)
    for line, chunk in zip(lines, chunks, strict=True):
        record = json.loads(line)
        assert record["document"] == "t.md"
        assert record["id"] == chunk.id and record["markdown"] == chunk.markdown


def test_contextualize_puts_the_breadcrumb_line_first() -> None:
    """contextualize() is breadcrumb line, blank line, markdown."""
    chunk = make()[1]
    assert chunk.contextualize() == " › ".join(chunk.breadcrumb) + "\n\n" + chunk.markdown


def test_sequence_protocol() -> None:
    """A ChunkSet has len, indexing, slicing and iteration in order."""
    chunks = make()
    assert len(chunks) == len(list(chunks)) > 2
    assert chunks[-1].index == len(chunks) - 1
    assert [c.id for c in chunks[:2]] == ["c1", "c2"]


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ("not json", "not JSON"),
        ('{"schema": "other"}', "not a chunk-set JSON"),
        ('{"schema": "chunk-set", "version": 99}', "version 99 is not supported"),
        ('{"schema": "chunk-set", "version": 1, "chunks": [{"id": "c1"}]}', "malformed chunk 'c1'"),
    ],
)
def test_from_json_rejects_other_input_with_a_clear_error(payload: str, message: str) -> None:
    """Foreign or broken JSON raises ChunkerError saying what is wrong."""
    with pytest.raises(chunker.ChunkerError, match=message):
        chunker.ChunkSet.from_json(payload)


def test_front_matter_can_be_included_as_the_first_chunk_content() -> None:
    """include_front_matter=True chunks the front matter with the preamble."""
    chunks = chunker.chunk_markdown(TEXT, name="t.md", target=64, hard_cap=128, include_front_matter=True)
    assert chunks[0].markdown.startswith("---\ntitle: T\n---")
    assert chunks[0].char_span[0] == 0


def test_the_breadcrumb_line_names_the_document_by_its_file_name() -> None:
    """A corpus run names documents by their paths: contextualize() drops the folders (docs/method.md,
    Decisions), the breadcrumb keeps the whole name, and the line counted in the cap is the same line."""
    assert line_crumbs(["docs/guide/install.md", "Linux"]) == ["install.md", "Linux"]
    assert line_crumbs(["C:\\docs\\a.md"]) == ["a.md"]
    assert line_crumbs(["install.md", "A", "B"]) == ["install.md", "A", "B"]
    assert line_crumbs([]) == []
    # Untrusted names: only text is cut, nothing is resolved; a name of slashes alone stays whole.
    assert line_crumbs(["../../etc/passwd"]) == ["passwd"]
    assert line_crumbs(["/" * 100_000]) == ["/" * 100_000]
    assert line_crumbs(["a/" * 100_000]) == ["a/"]
    text = "# Install\n\n## Linux\n\nRun the script.\n"
    for in_budget in (False, True):
        chunks = chunker.chunk_markdown(text, "docs/guide/install.md", breadcrumb_in_budget=in_budget)
        assert chunks[0].breadcrumb[0] == "docs/guide/install.md"
        assert chunks[0].contextualize().startswith("install.md › Install")
        assert "docs/guide" not in chunks[0].contextualize()
    tokenizer = chunker.get_tokenizer("cl100k_base")
    assert chunks[0].context_tokens == tokenizer.count(chunks[0].contextualize())
