"""chunk_inspector.view: the heading tree's chunk lists against their definition."""

from __future__ import annotations

from pathlib import Path

import pytest

import chunker
from chunk_inspector import view

SAMPLES = Path(__file__).resolve().parents[1] / "sample_docs"


def brute_force(doc: chunker.Document, chunks: chunker.ChunkSet) -> list[str]:
    """Each section's chunks by testing every chunk (the definition the tree's bisection must match)."""
    spans = []
    if doc.preamble:
        spans.append((doc.preamble[0].start, doc.preamble[-1].end))
    spans += [section.char_span for section in doc.sections_in_order()]
    return [
        view._id_ranges([c.index + 1 for c in chunks if c.char_span[0] < end and c.char_span[1] > start])
        for start, end in spans
    ]


@pytest.mark.parametrize("name", ["jest_changelog.md", "asyncapi_spec.md", "poetry_cli.md", "rust_blog_gccrs.md"])
@pytest.mark.parametrize("options", [{}, {"overlap": 40, "min_tokens": 30}], ids=["plain", "overlap"])
def test_tree_rows_list_every_chunk_that_holds_a_sections_text(name: str, options: dict[str, int]) -> None:
    doc = chunker.parse((SAMPLES / name).read_text(encoding="utf-8"), name=name)
    chunks = chunker.chunk(doc, target=128, hard_cap=256, **options)
    rows = view.tree_rows(doc, chunks, 256)
    assert list(rows["chunks"]) == brute_force(doc, chunks)
    assert rows["chunks"].str.len().gt(0).all(), "every section's text is in some chunk"


@pytest.mark.parametrize("name", ["asyncapi_spec.md", "poetry_cli.md"])
def test_tree_rows_read_each_sections_spans_and_any_chunks_given(name: str) -> None:
    """Spans and lines are each section's own; chunks not numbered 0..n-1 (a subset) are listed by their ids."""
    doc = chunker.parse((SAMPLES / name).read_text(encoding="utf-8"), name=name)
    chunks = chunker.chunk(doc, target=128, hard_cap=256)
    rows = view.tree_rows(doc, chunks, 256)
    sections = doc.sections_in_order()
    tail = rows.iloc[len(rows) - len(sections) :]
    assert list(zip(tail["start"], tail["end"], strict=True)) == [s.char_span for s in sections]
    assert list(tail["line"]) == [s.line_span[0] for s in sections]
    assert list(tail["over cap"]) == ["⚠" if s.tokens > 256 else "" for s in sections]
    every_other = chunks[1::2]
    assert list(view.tree_rows(doc, every_other, 256)["chunks"]) == brute_force(doc, every_other)
    assert set(view.tree_rows(doc, [], 256)["chunks"]) == {""}
