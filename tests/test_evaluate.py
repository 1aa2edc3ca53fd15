"""Retrieval metrics (docs/evaluation.md §2) on hand-made spans, and the evaluation over a small set with a fixed
ranking."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

import chunker
from chunk_inspector.evaluate.metrics import Contender, IndexedChunk, evaluate, index_chunks, span_scores
from chunk_inspector.evaluate.questions import read_question_set
from chunk_inspector.evaluate.retrievers import BM25Retriever, top_indexes


def test_recall_precision_iou_of_one_chunk_over_half_a_reference() -> None:
    """Reference 10..30, chunk 20..60: 10 of 20 covered; precision 10/40; IoU 10/(40 + 10)."""
    s = span_scores([(10, 30)], [(20, 60)])
    assert (s.recall, s.precision, s.iou) == (0.5, 0.25, 0.2)


def test_overlapping_chunks_count_twice_in_precision_but_cover_once() -> None:
    s = span_scores([(0, 10)], [(0, 10), (5, 10)])
    assert s.recall == 1.0
    assert s.precision == 10 / 15
    assert s.iou == 10 / 15


def test_two_references_and_chunks_of_elsewhere() -> None:
    """Refs 0..10 and 50..60 (20 chars); one chunk covers the first; 30 chars retrieved from another document."""
    s = span_scores([(0, 10), (50, 60)], [(0, 20)], elsewhere=30)
    assert s.recall == 0.5
    assert s.precision == 10 / 50
    assert s.iou == 10 / (50 + 10)


def test_nothing_retrieved_scores_zero() -> None:
    s = span_scores([(0, 10)], [])
    assert (s.recall, s.precision, s.iou) == (0.0, 0.0, 0.0)


def test_top_indexes_breaks_ties_by_lower_index() -> None:
    assert top_indexes([0.0, 2.0, 2.0, 1.0], 3) == [1, 2, 3]
    assert top_indexes([0.0, 0.0, 0.0], 5) == [0, 1, 2]


class FixedRanking:
    """A retriever that returns the same ranking for every query."""

    name = "fixed"

    def __init__(self, order: list[int]) -> None:
        self.order = order

    def rank(self, texts: Sequence[str], queries: Sequence[str], depth: int) -> list[list[int]]:
        return [self.order[:depth] for _ in queries]


DOC_A = "alpha " * 20 + "\n"  # 121 characters
DOC_B = "beta " * 20 + "\n"


def _set() -> tuple[list[IndexedChunk], object]:
    chunks = [
        IndexedChunk("b.md", (0, 50), DOC_B[:50], 600),
        IndexedChunk("a.md", (0, 60), DOC_A[:60], 300),
        IndexedChunk("a.md", (60, 121), DOC_A[60:], 300),
        IndexedChunk("b.md", (50, 101), DOC_B[50:], 10),
    ]
    line = {
        "id": "q1",
        "document": "a.md",
        "question": "where is alpha?",
        "kind": "prose",
        "references": [{"content": DOC_A[54:66], "start_index": 54, "end_index": 66}],
    }
    questions = read_question_set(
        json.dumps(line),
        "jsonl",
        {"a.md": DOC_A, "b.md": DOC_B},
    )
    return chunks, questions


def test_budget_takes_chunks_in_rank_order_while_they_fit() -> None:
    """Ranked b1 (600), a1 (300), a2 (300): a budget of 1,000 takes the first two; a2 would overflow."""
    chunks, questions = _set()
    ev = evaluate(questions, Contender("fixed"), FixedRanking([0, 1, 2, 3]), k=3, budget=1000, chunks=chunks)  # type: ignore[arg-type]
    (result,) = ev.results
    assert result.in_budget == 2
    assert result.at_budget.recall == 0.5  # a1 covers 54..60 of 54..66
    assert result.at_budget.precision == 6 / 110  # 50 (b1) + 60 (a1) characters retrieved
    assert result.at_k.recall == 1.0  # k=3 takes a2 too
    assert result.first_rank == 2
    assert result.holders == (1, 2)
    assert result.precision_omega == 12 / 121


def test_at_least_one_chunk_even_over_the_budget() -> None:
    chunks, questions = _set()
    ev = evaluate(questions, Contender("fixed"), FixedRanking([0, 1, 2, 3]), budget=100, chunks=chunks)  # type: ignore[arg-type]
    assert ev.results[0].in_budget == 1
    assert ev.results[0].at_budget.recall == 0.0
    assert ev.misses() == list(ev.results)


def test_mean_and_kinds() -> None:
    chunks, questions = _set()
    ev = evaluate(questions, Contender("fixed"), FixedRanking([1, 2, 0, 3]), budget=1000, chunks=chunks)  # type: ignore[arg-type]
    assert ev.mean()["recall@budget"] == 1.0
    assert ev.by_kind() == {"prose": ev.mean()}
    assert ev.misses() == []
    assert ev.summary()["chunks"] == 4


GUIDE = """# Guide

Intro text about the guide.

## Install

Run pip install gizmo to install the gizmo package on your machine.

## Configure

Set the colour option to purple in the settings file to change the theme.
"""


def test_engine_chunks_keep_their_spans_and_bm25_finds_the_answer() -> None:
    """End to end on a tiny document: the chunk holding the answer is ranked first by BM25."""
    at = GUIDE.index("Set the colour")
    reference = GUIDE[at : GUIDE.index("\n", at)]
    questions = read_question_set(
        '{"id": "c", "document": "guide.md", "question": "How do I make the theme purple?", "kind": "prose", '
        f'"references": [{{"content": "{reference}", "start_index": {at}, "end_index": {at + len(reference)}}}]}}',
        "jsonl",
        {"guide.md": GUIDE},
    )
    contender = Contender.engine(chunker.ChunkOptions(16, 32), index="markdown")
    chunks = index_chunks(contender, questions.documents)
    for c in chunks:
        assert c.char_span is not None
        assert GUIDE[c.char_span[0] : c.char_span[1]] == c.text
    assert len(chunks) > 1
    ev = evaluate(questions, contender, BM25Retriever(), chunks=chunks)
    assert ev.results[0].first_rank == 1
    assert ev.results[0].at_k.recall == 1.0


def test_context_index_puts_the_breadcrumb_in_front_and_counts_it() -> None:
    contender = Contender.engine(chunker.ChunkOptions(16, 32), index="context")
    chunks = index_chunks(contender, {"guide.md": GUIDE})
    count = chunker.get_tokenizer("cl100k_base").count
    assert chunks[-1].text.startswith("guide.md › Guide › Configure\n\n## Configure\n\nSet the colour")
    assert all(c.tokens == count(c.text) for c in chunks)


def test_unknown_peer_is_refused() -> None:
    from chunk_inspector.peers.chunkers import PeerError

    with pytest.raises(PeerError, match="unknown peer 'nope'"):
        Contender.of_peer("nope", 256)


def test_a_chunk_with_no_span_counts_its_length_and_covers_nothing() -> None:
    """A peer chunk whose text is not found in the source: in the denominators only."""
    chunks, questions = _set()
    chunks[1] = IndexedChunk("a.md", None, DOC_A[:60], 300)
    ev = evaluate(questions, Contender("fixed"), FixedRanking([1, 2]), k=1, chunks=chunks)  # type: ignore[arg-type]
    (result,) = ev.results
    assert (result.at_k.recall, result.at_k.precision) == (0.0, 0.0)
    assert result.at_k.iou == 0.0
    assert result.first_rank == 2 and result.holders == (2,)
    assert result.at_budget.recall == 0.5  # a2 (60..121) covers 60..66 of 54..66
    assert result.at_budget.precision == 6 / (60 + 61)


def test_the_budget_stops_at_the_first_chunk_that_does_not_fit() -> None:
    """Ranked a1 (300), b1 (600), b2 (10), a2 (300), budget 800: a1 only; b2 would fit but comes after b1."""
    chunks, questions = _set()
    ev = evaluate(questions, Contender("fixed"), FixedRanking([1, 0, 3, 2]), budget=800, chunks=chunks)  # type: ignore[arg-type]
    assert ev.results[0].in_budget == 1
