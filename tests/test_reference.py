"""strategy="reference" (docs/method.md §5a): markdown-object's packing, less its defects (chunker/reference.py).

The cases of tests/fixtures/reference_cases.yaml give the chunks derived by hand from
markdown-object's algorithm (processHeading, processChildren, mergeSiblingChunks); the contract
of tests/invariants.py, headings travelling forward, breadcrumbs that hold their chunks, the
preamble apart and sections that fit kept whole hold on the sample documents, the corpus and
generated Markdown.
"""

from __future__ import annotations

import bisect
import itertools
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings

import chunker
from tests.conftest import SAMPLES, corpus_files, requires_corpus
from tests.invariants import check_chunk_set
from tests.test_optimal import OPTIONS, PAIRS
from tests.test_pack import words
from tests.test_pack_small import assert_breadcrumbs_hold_their_chunks, assert_headings_travel_forward
from tests.test_properties import documents, limits

CASES: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "fixtures" / "reference_cases.yaml").read_text(encoding="utf-8")
)


def case_text(blocks: list[str | int]) -> str:
    """The Markdown of a case: its blocks joined by blank lines, a number n a paragraph of n words."""
    return "\n\n".join(words(b) if isinstance(b, int) else b for b in blocks) + "\n"


def outline(chunks: chunker.ChunkSet) -> list[dict[str, list[str]]]:
    return [{"headings": c.headings, "breadcrumb": c.breadcrumb} for c in chunks]


def check_reference(doc: chunker.Document, chunks: chunker.ChunkSet, cap: int) -> None:
    """The contract, and the structure the reference promises (docs/method.md §5 steps 3, 4, 5 and 8)."""
    check_chunk_set(doc, chunks, cap)
    assert_headings_travel_forward(doc, chunks)
    assert_breadcrumbs_hold_their_chunks(doc, chunks)  # and the preamble apart, unless all is one chunk
    assert_sections_that_fit_stay_whole(doc, chunks)


def assert_sections_that_fit_stay_whole(doc: chunker.Document, chunks: chunker.ChunkSet) -> None:
    """Step 4: a section within the cap lies in one chunk.

    Unless its heading follows another heading: a parent's heading that waited for this
    section's content (step 8) may have made it open. Not checked with ``min_tokens`` (a chunk
    under it may take blocks from a neighbour) nor ``breadcrumb_in_budget`` (the cap then
    depends on the path).
    """
    config = chunks.config
    if config["min_tokens"] or config["breadcrumb_in_budget"] or not len(chunks):
        return
    cap, blocks = config["hard_cap"], doc.blocks
    spans = [c.char_span for c in chunks]
    starts = [span[0] for span in spans]
    for section in doc.sections_in_order():
        if section.tokens > cap or (section.first and blocks[section.first - 1].kind == "heading"):
            continue
        start, end = blocks[section.first].start, blocks[section.end - 1].end
        n = bisect.bisect_right(starts, start) - 1
        assert any(spans[k][0] <= start and end <= spans[k][1] for k in (n - 1, n) if k >= 0), (
            f"{doc.name}: section {section.title!r} ({section.tokens} tokens) fits the cap {cap} but is cut"
        )


# -- the cases derived by hand ---------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_reference_case(case: dict[str, Any]) -> None:
    """Each case: the hand-made arithmetic (every section's tokens), then the chunks, then the contract."""
    doc = chunker.parse(case_text(case["blocks"]), name="doc.md")
    assert {s.title: s.tokens for s in doc.sections_in_order()} == case["tokens"]
    cap = case["hard_cap"]
    chunks = chunker.chunk(doc, target=case["target"], hard_cap=cap, strategy="reference", **case.get("options", {}))
    assert outline(chunks) == case["chunks"]
    check_reference(doc, chunks, cap)


def test_the_fixture_covers_the_cases_the_issue_names() -> None:
    names = {c["name"] for c in CASES}
    assert {
        "everything_fits_with_preamble",
        "preamble_alone",
        "parent_with_small_children",
        "parent_must_open",
        "nested_opening",
        "greedy_continuation_after_recursion",
        "sibling_merge",
        "oversized_direct_content",
    } <= names
    assert all(c["why"].strip() for c in CASES)


def test_balanced_carries_on_into_an_opened_child_where_reference_emits_first() -> None:
    """The departure of balanced that the reference does not make: A's heading and intro join the
    chunk of B, a child too big for the cap, instead of being a chunk of their own."""
    case = next(c for c in CASES if c["name"] == "nested_opening")
    doc = chunker.parse(case_text(case["blocks"]), name="doc.md")
    reference = chunker.chunk(doc, case["target"], case["hard_cap"], strategy="reference")
    balanced = chunker.chunk(doc, case["target"], case["hard_cap"], strategy="balanced")
    assert reference[0].headings == ["A"]
    assert balanced[0].headings == ["A", "B", "C"]


def test_reference_is_a_strategy_recorded_in_the_config() -> None:
    assert "reference" in chunker.STRATEGIES
    text = case_text(CASES[0]["blocks"])
    chunks = chunker.chunk_markdown(text, name="doc.md", target=32, hard_cap=64, strategy="reference")
    assert chunks.config["strategy"] == "reference"
    assert chunker.ChunkSet.from_json(chunks.to_json()).to_json() == chunks.to_json()


def test_empty_and_blank_documents() -> None:
    for text, count in (("", 0), ("\n\n  \n", 0), ("# Only a heading\n", 1), ("Only a preamble.\n", 1)):
        doc = chunker.parse(text, name="doc.md")
        chunks = chunker.chunk(doc, 100, 200, strategy="reference")
        check_reference(doc, chunks, 200)
        assert len(chunks) == count


# -- the contract --------------------------------------------------------------------------------


def check_settings(doc: chunker.Document, pairs: list[tuple[int, int]], options: list[dict[str, Any]]) -> None:
    """:func:`check_reference` on ``doc`` chunked under "reference" at each (target, cap) with each options."""
    for (target, cap), more in itertools.product(pairs, options):
        check_reference(doc, chunker.chunk(doc, target=target, hard_cap=cap, strategy="reference", **more), cap)


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.md")), ids=lambda p: p.name)
def test_sample_documents_meet_the_contract(path: Path) -> None:
    """Sample documents at four settings, each with every option."""
    check_settings(chunker.parse(path.read_text(encoding="utf-8"), name=path.name), PAIRS, OPTIONS)


@requires_corpus
@pytest.mark.corpus
def test_corpus_documents_meet_the_contract() -> None:
    for path in corpus_files():
        doc = chunker.parse(path.read_bytes().decode("utf-8", errors="replace"), name=path.name)
        check_settings(doc, [(128, 256), (256, 512)], [{}])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=documents(), lim=limits())
def test_generated_markdown_meets_the_contract(text: str, lim: tuple[int, int, dict[str, Any]]) -> None:
    target, cap, options = lim
    check_settings(chunker.parse(text, name="gen.md"), [(target, cap)], [options])
