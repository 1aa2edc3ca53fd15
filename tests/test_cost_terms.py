"""chunker.optimal.cost_terms: a chunk's cost under the optimal packing, term by term (the Inspect page's
"Why this chunk"), equal to what the dynamic programme weighed."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import chunker
from chunker.drafts import Packing
from chunker.optimal import (
    BOUNDARY_AFTER_INTRO,
    BOUNDARY_BEFORE_HEADING,
    BOUNDARY_BETWEEN_BLOCKS,
    CHUNK_COST,
    HEADING_INSIDE,
    SIZE_OVER,
    SIZE_UNDER,
    SMALL_COST,
    _Row,
    cost_terms,
)

SAMPLES = Path(__file__).resolve().parents[1] / "sample_docs"


@pytest.mark.parametrize("name", ["poetry_cli.md", "redux_modern_redux.md", "asyncapi_spec.md", "rust_blog_gccrs.md"])
@pytest.mark.parametrize(("target", "hard_cap"), [(128, 256), (256, 512), (512, 1024)])
def test_the_terms_of_every_chunk_add_up_to_the_least_total_cost(name: str, target: int, hard_cap: int) -> None:
    doc = chunker.parse((SAMPLES / name).read_text(encoding="utf-8"), name=name)
    options = chunker.ChunkOptions(target, hard_cap)
    row = _Row(Packing(doc, options, joins_small_chunks=True))
    cuts = row.solve()
    chunks = chunker.chunk_with(doc, options)
    terms = [cost_terms(doc, options, c) for c in chunks]
    assert all(t is not None for t in terms)
    if len(chunks) == len(cuts):  # no finishing pass joined two of the programme's chunks
        assert sum(t.total for t in terms if t is not None) == pytest.approx(row.total)
    for chunk, t in zip(chunks, terms, strict=True):
        assert t is not None
        d = (t.tokens - target) / target
        assert t.size == pytest.approx((SIZE_OVER if d > 0 else SIZE_UNDER) * d * d)
        assert t.chunk == CHUNK_COST
        assert t.small == (SMALL_COST if t.tokens < row.small else 0.0)
        assert t.tokens == chunk.token_count, "cl100k_base sums exactly: the weighed count is the chunk's"


def test_each_term_on_a_hand_made_document() -> None:
    text = (
        "# Guide\n\nIntro words here.\n\n"
        "## Install\n\nRun the installer like this:\n\n```sh\npip install thing\n```\n\n"
        "## Use\n\nCall it.\n"
    )
    doc = chunker.parse(text, name="guide.md")
    options = chunker.ChunkOptions(16, 16)  # each section its own chunk, the code block apart
    chunks = chunker.chunk_with(doc, options)
    terms = [cost_terms(doc, options, c) for c in chunks]
    assert [c.markdown.splitlines()[0] for c in chunks] == ["# Guide", "## Install", "```sh", "## Use"]
    first, intro, _code, last = terms
    assert first is not None and first.boundary == BOUNDARY_BEFORE_HEADING[2]
    assert first.boundary_after == "before a level-2 heading"
    assert intro is not None and intro.boundary == pytest.approx(BOUNDARY_BETWEEN_BLOCKS + BOUNDARY_AFTER_INTRO)
    assert "introduces" in intro.boundary_after
    assert last is not None and last.boundary == 0.0 and last.boundary_after == "the end of the document"
    assert all(t is not None and t.headings_inside == 0.0 for t in terms)


def test_small_sections_packed_together_pay_for_the_headings_inside() -> None:
    doc = chunker.parse("# A\n\nx.\n\n## B\n\ny.\n\n## C\n\nz.\n", name="small.md")
    options = chunker.ChunkOptions(64, 128)  # each section alone would be small (under 16 tokens)
    (chunk,) = chunker.chunk_with(doc, options)
    terms = cost_terms(doc, options, chunk)
    assert terms is not None
    assert terms.headings_inside == 2 * HEADING_INSIDE[2] and terms.small == SMALL_COST
    assert terms.total == pytest.approx(terms.size + CHUNK_COST + 0.0 + 2 * HEADING_INSIDE[2] + SMALL_COST)


def test_a_chunk_off_the_packings_boundaries_has_no_cost() -> None:
    doc = chunker.parse("# A\n\nOne two three.\n\nFour five six.\n", name="a.md")
    options = chunker.ChunkOptions(16, 32)
    chunk = chunker.chunk_with(doc, options)[0]
    moved = dataclasses.replace(chunk, char_span=(chunk.char_span[0] + 1, chunk.char_span[1]))
    assert cost_terms(doc, options, chunk) is not None
    assert cost_terms(doc, options, moved) is None
