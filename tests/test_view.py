"""chunk_inspector.view: the heading tree's chunk lists against their definition."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
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


def test_a_page_of_the_tree_gets_the_same_chunk_columns_as_the_whole_tree() -> None:
    """The app sends a page of the heading tree: its rows, made from the document's heading_tree, are those
    rows of the whole table."""
    doc = chunker.parse((SAMPLES / "jest_changelog.md").read_text(encoding="utf-8"), name="jest_changelog.md")
    chunks = chunker.chunk(doc, target=128, hard_cap=256)
    whole = view.tree_rows(doc, chunks, 256)
    assert len(whole) > 100
    tree = view.heading_tree(doc)
    assert list(tree.columns) == ["section", "level", "own", "subtree", "line", "start", "end"]
    for first, stop in view.page_spans(len(tree), 40):
        page = view.tree_rows(doc, chunks, 256, tree.iloc[first:stop])
        assert page.reset_index(drop=True).equals(whole.iloc[first:stop].reset_index(drop=True))
    assert list(tree.columns) == ["section", "level", "own", "subtree", "line", "start", "end"], "left as it was"


def test_page_spans_cover_every_row_once() -> None:
    assert view.page_spans(0) == [(0, 0)]
    assert view.page_spans(view.PAGE_ROWS) == [(0, view.PAGE_ROWS)]
    assert view.page_spans(2_500, 1_000) == [(0, 1_000), (1_000, 2_000), (2_000, 2_500)]


def test_rows_matching_finds_the_query_in_any_case_and_as_plain_text() -> None:
    table = pd.DataFrame(
        {"section": ["# Install", "## install (pip)", "## Usage [a-z]+", "## Other"], "n": [1, 2, 3, 4]}
    )
    assert list(view.rows_matching(table, "INSTALL", ["section"])["n"]) == [1, 2]
    assert list(view.rows_matching(table, "(pip)", ["section"])["n"]) == [2], "parentheses are text, not a group"
    assert list(view.rows_matching(table, "[a-z]+", ["section"])["n"]) == [3], "brackets are text, not a class"
    assert list(view.rows_matching(table, "", ["section"])["n"]) == [1, 2, 3, 4]
    assert view.rows_matching(table, "absent", ["section"]).empty


@pytest.mark.parametrize(
    "sizes", [[1], [0, 0, 3], [511, 512, 1, 40], list(range(1, 1025)), [7] * 50 + [2048], []], ids=str
)
def test_size_bins_count_every_chunk_once_in_round_bins(sizes: list[int]) -> None:
    """The histogram is drawn from these bins: at most 40 from 0, each 1, 2 or 5 times a power of ten wide."""
    counts, edges = view.size_bins(sizes)
    assert len(counts) <= 40 and edges[0] == 0 and len(edges) == len(counts) + 1
    width = int(edges[1] - edges[0])
    assert (np.diff(edges) == width).all() and str(width).strip("0") in {"1", "2", "5"}
    assert int(counts.sum()) == len(sizes)
    for size in sizes:  # each in the bin [edge, next edge)
        assert counts[size // width] > 0
    if sizes:
        assert counts[max(sizes) // width] > 0 and len(counts) == max(sizes) // width + 1


def test_the_size_histogram_draws_the_bins_with_the_target_and_cap_marked() -> None:
    figure = view.size_histogram([10, 20, 20, 300], target=256, hard_cap=512)
    bars = figure["data"][0]
    counts, edges = view.size_bins([10, 20, 20, 300])
    assert bars["type"] == "bar" and list(bars["y"]) == list(counts) and bars["width"] == edges[1] - edges[0]
    assert list(bars["x"]) == [(a + b) / 2 for a, b in itertools.pairwise(edges)]
    assert [shape["x0"] for shape in figure["layout"]["shapes"]] == [256, 512]
