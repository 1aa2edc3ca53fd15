"""Progress of long work (chunk_inspector/evaluate/progress.py): the estimate of the time left, the parts of a
share, and what an embedding retriever and evaluate() report as they go, with a fake embedding (no torch)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import pytest

import chunker
from chunk_inspector.evaluate.embedding import CallableRetriever, EmbeddingRetriever
from chunk_inspector.evaluate.metrics import (
    CHUNKING_SHARE,
    CHUNKING_SHARE_RANKED_AT_ONCE,
    Contender,
    chunking_share,
    evaluate,
)
from chunk_inspector.evaluate.progress import FEW, MIN_SECONDS, WINDOW, accepts_progress, scaled, time_left
from chunk_inspector.evaluate.questions import QuestionSet, read_question_set
from chunk_inspector.evaluate.ranking import rank_with
from chunk_inspector.evaluate.retrievers import get_retriever

DOCS = {
    "harbour.md": "# Harbour\n\nBoats moor at the north quay.\n\n## Tides\n\nHigh tide is at noon.\n\n"
    "## Fuel\n\nDiesel is sold at the south pontoon.\n",
    "light.md": "# Lighthouse\n\nThe lamp is lit at dusk.\n\n## Fog\n\nThe horn sounds every thirty seconds.\n",
}


def make_set() -> QuestionSet:
    rows = []
    for n, (doc, question, excerpt) in enumerate(
        [
            ("harbour.md", "When is high tide?", "High tide is at noon."),
            ("harbour.md", "Where is diesel sold?", "Diesel is sold at the south pontoon."),
            ("light.md", "How often does the horn sound?", "The horn sounds every thirty seconds."),
        ]
    ):
        start = DOCS[doc].index(excerpt)
        rows.append(
            {
                "id": f"q{n}",
                "document": doc,
                "question": question,
                "references": [{"content": excerpt, "start_index": start, "end_index": start + len(excerpt)}],
            }
        )
    return read_question_set("".join(json.dumps(r) + "\n" for r in rows), "jsonl", DOCS, name="harbour.jsonl")


def fake_embed(texts: list[str]) -> list[list[float]]:
    """Each word hashed into one of 16 buckets: deterministic, instant."""
    rows = []
    for text in texts:
        row = [0.0] * 16
        for word in text.lower().split():
            row[hashlib.sha256(word.encode()).digest()[0] % 16] += 1.0
        rows.append(row)
    return rows


class Heard:
    """A progress callable that keeps what it hears."""

    def __init__(self) -> None:
        self.calls: list[tuple[float, str]] = []

    def __call__(self, share: float, line: str) -> None:
        self.calls.append((share, line))

    @property
    def shares(self) -> list[float]:
        return [share for share, _ in self.calls]

    @property
    def lines(self) -> list[str]:
        return [line for _, line in self.calls]


def assert_monotone_to_one(heard: Heard) -> None:
    assert heard.calls, "no progress was reported"
    assert all(0.0 <= s <= 1.0 for s in heard.shares)
    assert heard.shares == sorted(heard.shares), heard.calls
    assert heard.shares[-1] == 1.0


# -- the estimate -------------------------------------------------------------------------


def steady(rate: float, seconds: float, steps: int, start: float = 0.0) -> list[tuple[float, float]]:
    """``steps + 1`` reports ``seconds / steps`` apart, the share growing by ``rate`` a second from ``start``."""
    return [(n * seconds / steps, start + rate * n * seconds / steps) for n in range(steps + 1)]


def test_no_estimate_until_a_few_steps_have_gone() -> None:
    samples = steady(0.05, 10.0, 5)
    assert [time_left(samples[: n + 1]) for n in range(FEW)] == [None] * FEW
    assert time_left(samples[: FEW + 1]) == "about 15 s left"  # 0.3 in 6 s: 0.7 left at 0.05 a second


def test_no_estimate_over_a_short_while_nor_when_stalled_nor_when_done() -> None:
    assert time_left(steady(0.1, MIN_SECONDS - 0.5, 6)) is None  # a quick run (BM25) shows none
    assert time_left([(0.0, 0.2), (2.0, 0.2), (4.0, 0.2), (6.0, 0.2)]) is None
    assert time_left(steady(0.25, 4.0, 4)) is None  # all done


def test_the_estimate_is_the_rate_of_the_last_steps_in_words() -> None:
    assert time_left(steady(0.02, 10.0, 5)) == "about 40 s left"  # 0.8 left at 0.02 a second
    assert time_left(steady(0.1, 4.0, 4)) == "a few seconds left"  # 6 s
    assert time_left(steady(0.001, 10.0, 5)) == "about 16 min left"
    assert time_left(steady(0.5 / 57, 57.0, 5)) == "about 55 s left"
    assert time_left(steady(0.5 / 58, 58.0, 5)) == "about 1 min left"


def test_quick_early_steps_are_forgotten_once_the_window_has_passed_them() -> None:
    """Ten documents chunked in a second (a tenth of the share), then batches of 0.05 every 10 s: once the
    window holds batches only, the estimate is theirs (half left at 0.005 a second: 100 s), not the whole run's
    (half in 81 s)."""
    samples = [(0.1 * n, 0.01 * n) for n in range(11)]
    samples += [(1.0 + 10 * k, 0.1 + 0.05 * k) for k in range(1, 9)]
    assert len(samples) > WINDOW + 1
    assert time_left(samples) == "about 2 min left"
    assert time_left(samples[:12]) == "about 1 min left"  # one batch in: the window still holds the quick steps


# -- parts of a share -------------------------------------------------------------------------


def test_scaled_maps_a_part_into_its_range_with_a_prefix() -> None:
    heard = Heard()
    part = scaled(heard, 0.5, 0.75, "Peer 2 of 4: ")
    assert part is not None
    part(0.0, "a")
    part(0.5, "b")
    part(1.5, "c")  # clamped
    assert heard.calls == [(0.5, "Peer 2 of 4: a"), (0.625, "Peer 2 of 4: b"), (0.75, "Peer 2 of 4: c")]
    assert scaled(None, 0.0, 1.0) is None


def test_accepts_progress_reads_the_signature() -> None:
    def plain(texts: Sequence[str], queries: Sequence[str], depth: int) -> list[list[int]]:
        return []

    def hooked(texts: Sequence[str], queries: Sequence[str], depth: int, progress: Any = None) -> list[list[int]]:
        return []

    def anything(*args: Any, **kwargs: Any) -> None:
        return None

    assert not accepts_progress(plain)
    assert accepts_progress(hooked)
    assert not accepts_progress(anything)  # **kwargs is not a promise to report


# -- what an embedding retriever reports -------------------------------------------------------------------


def test_an_embedding_retriever_reports_every_batch_with_its_counts() -> None:
    """7 distinct texts in batches of 3 and 1 query: the share grows by each batch to 1; each line counts."""
    heard = Heard()
    retriever = CallableRetriever(fake_embed, batch_size=3)
    texts = [f"text number {n}" for n in range(7)] + ["text number 0"]  # a duplicate: embedded once
    ranked = retriever.rank(texts, ["number 5"], depth=2, progress=heard)
    assert ranked == CallableRetriever(fake_embed, batch_size=3).rank(texts, ["number 5"], depth=2)
    assert_monotone_to_one(heard)
    assert heard.lines == [
        "embedding chunks: 0 of 7",
        "embedding chunks: 3 of 7",
        "embedding chunks: 6 of 7",
        "embedding chunks: 7 of 7",
        "embedding questions: 0 of 1",
        "embedding questions: 1 of 1",
    ]
    assert heard.shares[:4] == pytest.approx([0.0, 3 / 8, 6 / 8, 7 / 8])  # the texts' part: 7 of 8 embedded


def test_texts_embedded_before_are_not_reported_again() -> None:
    retriever = CallableRetriever(fake_embed, batch_size=3)
    texts = [f"text number {n}" for n in range(5)]
    retriever.rank(texts, ["number 1"], depth=2)
    heard = Heard()
    retriever.rank(texts, ["number 2"], depth=2, progress=heard)
    assert heard.lines == ["embedding questions: 0 of 1", "embedding questions: 1 of 1"]
    assert_monotone_to_one(heard)


def test_a_subclass_whose_embed_unique_takes_no_progress_still_ranks() -> None:
    """An embedder of yours that overrides embed_unique the old way is called without the hook."""

    class Old(EmbeddingRetriever):
        def embed_unique(self, texts: list[str]) -> Any:  # type: ignore[override]
            import numpy as np

            rows = np.asarray(fake_embed(texts), dtype=np.float32)
            return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)

    heard = Heard()
    texts = ["the quay", "the lamp", "the horn"]
    assert rank_with(Old(), texts, ["lamp"], 3, heard)[0][0] == 1
    assert heard.calls == [(1.0, "ranked")]


# -- what evaluate() reports -----------------------------------------------------------------------------


def test_evaluate_reports_the_chunking_then_the_embedding_to_the_end() -> None:
    heard = Heard()
    questions = make_set()
    options = chunker.ChunkOptions(target=8, hard_cap=16, min_tokens=0)
    retriever = CallableRetriever(fake_embed, batch_size=2)
    ev = evaluate(questions, Contender.engine(options), retriever, progress=heard)
    plain = evaluate(questions, Contender.engine(options), CallableRetriever(fake_embed, batch_size=2))
    assert [r.ranking for r in ev.results] == [r.ranking for r in plain.results]  # the hook changes nothing
    assert_monotone_to_one(heard)
    n = len({c.text for c in ev.chunks})
    assert heard.lines[:3] == ["chunking harbour.md (1 of 2)", "chunking light.md (2 of 2)", f"chunked: {n} chunks"]
    assert heard.shares[2] == CHUNKING_SHARE
    assert f"ranking {len(ev.chunks)} chunks with callable" in heard.lines
    assert f"embedding chunks: {n} of {n}" in heard.lines
    assert "embedding questions: 3 of 3" in heard.lines
    embedded = [s for s, line in heard.calls if line.startswith("embedding chunks")]
    assert len(embedded) == (n + 1) // 2 + 1  # before each batch of 2, and at the end
    # the texts' part of the ranking's share is theirs by count: n texts of n + 3 embedded
    assert embedded[0] == CHUNKING_SHARE
    assert embedded[-1] == pytest.approx(CHUNKING_SHARE + (1 - CHUNKING_SHARE) * n / (n + 3))


def test_evaluate_with_a_retriever_that_has_no_hook_reports_its_start_and_end() -> None:
    """A retriever of yours with the plain rank(texts, queries, depth), and BM25: they rank as before, in one
    step, so the chunking, document by document, takes most of the bar: a peer's chunking was 87-93% of its run
    with BM25 on the retrieval set while its bar sat in the first tenth (CHUNKING_SHARE) until the end."""

    class Plain:
        name = "plain"

        def rank(self, texts: Sequence[str], queries: Sequence[str], depth: int) -> list[list[int]]:
            return [list(range(min(depth, len(texts)))) for _ in queries]

    for retriever in (Plain(), get_retriever("bm25")):
        heard = Heard()
        ev = evaluate(
            make_set(), Contender.engine(chunker.ChunkOptions(8, 16, min_tokens=0)), retriever, progress=heard
        )
        assert_monotone_to_one(heard)
        assert heard.calls[-2:] == [
            (CHUNKING_SHARE_RANKED_AT_ONCE, f"ranking {len(ev.chunks)} chunks with {retriever.name}"),
            (1.0, "ranked"),
        ]
        assert heard.calls[:2] == [(0.0, "chunking harbour.md (1 of 2)"), (0.4, "chunking light.md (2 of 2)")]
        assert chunking_share(retriever) == CHUNKING_SHARE_RANKED_AT_ONCE > 0.5
    assert chunking_share(CallableRetriever(fake_embed)) == CHUNKING_SHARE
