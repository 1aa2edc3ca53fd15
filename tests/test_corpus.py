"""The contract on real documents: every file of ../shared/corpus/real and every CommonMark example,
under every packing strategy (docs/method.md §5a).

Skipped, with the reason, where ../shared is absent (a user's clone has no corpus).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import chunker
from tests.conftest import CORPUS, commonmark_examples, corpus_files, requires_corpus
from tests.invariants import check_chunk_set

SETTINGS = [(128, 256), (512, 1024)]
OPTIONS = {"overlap": 50, "min_tokens": 50, "breadcrumb_in_budget": True}  # docs/method.md §6, all at once, at 256/512

pytestmark = [pytest.mark.corpus, requires_corpus]


@pytest.mark.parametrize("strategy", chunker.STRATEGIES)
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: str(p.relative_to(CORPUS)))
def test_real_document_meets_the_contract(path: Path, strategy: str) -> None:
    """Cap, exact counts, exact spans, full coverage and balanced fences at two settings, and with the options."""
    text = path.read_bytes().decode("utf-8", errors="replace")
    doc = chunker.parse(text, name=path.name)
    for target, cap in SETTINGS:
        check_chunk_set(doc, chunker.chunk(doc, target=target, hard_cap=cap, strategy=strategy), cap)
    check_chunk_set(doc, chunker.chunk(doc, target=256, hard_cap=512, strategy=strategy, **OPTIONS), 512)


def test_corpus_is_what_the_readme_says() -> None:
    """Guard: the corpus tests above really ran over 100+ documents."""
    assert len(corpus_files()) >= 100


@pytest.mark.parametrize("strategy", chunker.STRATEGIES)
@pytest.mark.parametrize("example", commonmark_examples(), ids=lambda e: f"example-{e.get('example', '?')}")
def test_commonmark_spec_example_meets_the_contract(example: dict[str, str], strategy: str) -> None:
    """Every construct of the syntax chunks within the contract at both settings and at a tiny cap."""
    doc = chunker.parse(example["markdown"], name="example.md")
    for target, cap in [*SETTINGS, (1, chunker.MIN_HARD_CAP)]:
        check_chunk_set(doc, chunker.chunk(doc, target=target, hard_cap=cap, strategy=strategy), cap)


@pytest.mark.parametrize("strategy", chunker.STRATEGIES)
def test_fatal_fixtures_do_not_raise_or_hang(strategy: str) -> None:
    """Inputs that once crashed or hung Markdown parsers chunk within the contract."""
    path = CORPUS / "commonmark" / "fatal_fixtures.md"
    text = path.read_text(encoding="utf-8")
    for case in text.split("\n.\n"):
        doc = chunker.parse(case, name="fatal.md")
        check_chunk_set(doc, chunker.chunk(doc, target=32, hard_cap=64, strategy=strategy), 64)
