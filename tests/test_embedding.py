"""Your own embedding function as a retriever (chunk_inspector/evaluate/embedding.py), with a stand-in for an API:
deterministic fake embeddings, no network, no torch."""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from chunk_inspector.evaluate.embedding import CallableRetriever
from chunk_inspector.evaluate.metrics import Contender, evaluate
from chunk_inspector.evaluate.questions import load_question_set, read_question_set
from chunker.errors import ChunkerError
from tests.readme_snippets import ROOT, doc_blocks

DIM = 64


def bag_of_words(texts: list[str]) -> list[list[float]]:
    """A stand-in embedding: each lower-cased word hashed into one of 64 buckets (unnormalized counts)."""
    rows = []
    for text in texts:
        row = [0.0] * DIM
        for word in text.lower().split():
            row[int(hashlib.sha256(word.strip(".,?!`").encode()).hexdigest(), 16) % DIM] += 1.0
        rows.append(row)
    return rows


def test_ranks_by_cosine_of_the_callable_s_vectors() -> None:
    texts = ["purple theme colour", "install with pip", "restart the daemon", "purple purple purple socks"]
    queries = ["how do I install it with pip", "purple colour theme"]
    ranked = CallableRetriever(bag_of_words).rank(texts, queries, depth=4)
    vectors = np.array(bag_of_words(texts), dtype=np.float64)
    asked = np.array(bag_of_words(queries), dtype=np.float64)
    cosine = (asked @ vectors.T) / np.outer(np.linalg.norm(asked, axis=1), np.linalg.norm(vectors, axis=1))
    expected = [sorted(range(4), key=lambda i, row=row: (-round(float(row[i]), 6), i)) for row in cosine]
    assert ranked == expected
    assert ranked[0][0] == 1 and ranked[1][0] == 0


def test_batches_hold_at_most_batch_size_distinct_texts_and_texts_are_embedded_once() -> None:
    calls: list[list[str]] = []

    def embed(texts: list[str]) -> Any:
        calls.append(list(texts))
        return bag_of_words(texts)

    retriever = CallableRetriever(embed, name="api", batch_size=3)
    texts = [f"text number {n}" for n in range(7)] + ["text number 0"]
    retriever.rank(texts, ["number 5"], depth=2)
    retriever.rank(texts, ["number 6", "number 6"], depth=2)  # the texts' embeddings are kept
    assert [len(c) for c in calls] == [3, 3, 1, 1, 1]
    assert sorted(t for c in calls[:3] for t in c) == sorted(set(texts))
    assert retriever.name == "api"


def test_ties_go_to_the_lower_index_and_a_zero_vector_matches_nothing() -> None:
    def embed(texts: list[str]) -> list[list[float]]:
        return [[0.0, 0.0] if t == "blank" else [1.0, 1.0] for t in texts]

    assert CallableRetriever(embed).rank(["a", "blank", "b"], ["q"], depth=3) == [[0, 2, 1]]


@pytest.mark.parametrize(
    ("output", "message"),
    [
        (lambda texts: [[1.0, 2.0]] * (len(texts) + 1), "not one vector per text"),
        (lambda texts: [1.0] * len(texts), "not one vector per text"),
        (lambda texts: [["a", "b"]] * len(texts), "not a list of number vectors"),
        (lambda texts: [[float("nan"), 1.0]] * len(texts), "NaN or infinite"),
        (lambda texts: [[]] * len(texts), "not one vector per text"),
    ],
)
def test_a_callable_that_returns_something_else_is_one_line(output: Any, message: str) -> None:
    with pytest.raises(ChunkerError, match=message):
        CallableRetriever(output, name="api").rank(["a", "b"], ["q"], depth=1)


def test_queries_and_texts_of_different_widths_are_refused() -> None:
    def embed(texts: list[str]) -> list[list[float]]:
        return [[1.0] * (3 if t.startswith("q") else 4) for t in texts]

    with pytest.raises(ChunkerError, match="3 dimensions, texts to 4"):
        CallableRetriever(embed).rank(["a"], ["q"], depth=1)
    with pytest.raises(ChunkerError, match="a function"):
        CallableRetriever("not callable")  # type: ignore[arg-type]
    with pytest.raises(ChunkerError, match="at least 1"):
        CallableRetriever(embed, batch_size=0)


def test_evaluate_with_a_callable_scores_what_it_ranks() -> None:
    text = "# Guide\n\n## Install\n\nRun pip install gizmo.\n\n## Colour\n\nThe theme is purple.\n"
    at = text.index("The theme is purple.")
    line = (
        '{"id": "c", "document": "g.md", "question": "theme purple", '
        f'"references": [{{"content": "The theme is purple.", "start_index": {at}, "end_index": {at + 20}}}]}}'
    )
    questions = read_question_set(line, "jsonl", {"g.md": text})
    result = evaluate(questions, Contender.engine(), CallableRetriever(bag_of_words, name="bag"))
    assert result.retriever == "bag"
    (only,) = result.results
    assert only.first_rank == 1 and only.at_k.recall == 1.0


class _StandInClient:
    """What the documented snippet calls: ``client.embeddings.create(model=..., input=...)``, as OpenAI's client."""

    def __init__(self) -> None:
        self.embeddings = self
        self.requests: list[int] = []

    def create(self, model: str, input: list[str]) -> Any:
        self.requests.append(len(input))
        data = [type("Item", (), {"embedding": row})() for row in bag_of_words(input)]
        return type("Response", (), {"data": data})()


def test_the_documented_api_model_snippet_runs_with_a_stand_in_client(monkeypatch: pytest.MonkeyPatch) -> None:
    (snippet,) = doc_blocks("docs/evaluation.md", "### An API model, from Python")
    monkeypatch.chdir(ROOT)
    client = _StandInClient()
    namespace: dict[str, Any] = {"client": client}
    exec(compile(snippet, "docs/evaluation.md", "exec"), namespace)
    result = namespace["result"]
    questions = load_question_set(Path("sample_docs/questions.jsonl"), Path("sample_docs"))
    assert len(result.results) == len(questions.questions)
    assert result.retriever == "text-embedding-3-small"
    assert client.requests and max(client.requests) <= namespace["retriever"].batch_size
    again = evaluate(questions, Contender.engine(), CallableRetriever(bag_of_words))
    assert result.mean() == again.mean()  # the same vectors give the same scores, however they are batched


def _counting(calls: list[list[str]]) -> Any:
    def embed(texts: list[str]) -> Any:
        calls.append(list(texts))
        return bag_of_words(texts)

    return embed


def test_a_text_met_before_is_not_embedded_again_and_ranks_as_if_it_were() -> None:
    """The chunks of a new setting are mostly the last setting's: only the new ones are embedded, and the ranking
    is the one a retriever that keeps nothing gives."""
    calls: list[list[str]] = []
    retriever = CallableRetriever(_counting(calls), name="api", batch_size=4)
    first = [f"chunk {n} about topic {n % 3}" for n in range(6)]
    retriever.rank(first, ["topic 1"], depth=3)
    calls.clear()
    second = [*first[2:], "chunk 6 about topic 1", "chunk 7 about topic 2"]
    ranked = retriever.rank(second, ["topic 1", "about chunk 7"], depth=5)
    assert calls == [["chunk 6 about topic 1", "chunk 7 about topic 2"], ["about chunk 7"]]  # "topic 1" was kept
    keeps_nothing = CallableRetriever(bag_of_words, batch_size=4, cache_bytes=0)
    assert ranked == keeps_nothing.rank(second, ["topic 1", "about chunk 7"], depth=5)


def test_the_kept_embeddings_stay_within_cache_bytes_the_least_recently_used_dropped() -> None:
    calls: list[list[str]] = []
    row_bytes = DIM * 4  # float32
    retriever = CallableRetriever(_counting(calls), batch_size=8, cache_bytes=3 * row_bytes)
    retriever.embed(["a", "b", "c"])
    retriever.embed(["a"])  # "a" used again: "b" is now the least recently used
    retriever.embed(["d"])
    assert retriever._cached_bytes == 3 * row_bytes
    calls.clear()
    retriever.embed(["a", "c", "d"])
    assert calls == []
    retriever.embed(["b"])
    assert calls == [["b"]]
    with pytest.raises(ChunkerError, match="cache_bytes must be at least 0"):
        CallableRetriever(bag_of_words, cache_bytes=-1)


def test_sessions_ranking_at_once_get_the_rankings_of_one_at_a_time() -> None:
    """The app shares one retriever between sessions: rankings from threads at once equal those made alone."""
    texts = [f"text {n} of set {n % 5}" for n in range(200)]
    sets = [texts[n : n + 120] for n in range(0, 80, 8)]
    queries = ["set 3", "text 17", "of set 1"]
    alone = [CallableRetriever(bag_of_words, batch_size=7).rank(s, queries, depth=10) for s in sets]
    shared = CallableRetriever(bag_of_words, batch_size=7, cache_bytes=60 * DIM * 4)  # small: texts are dropped
    with ThreadPoolExecutor(max_workers=8) as pool:
        together = list(pool.map(lambda s: shared.rank(s, queries, depth=10), sets * 3))
    assert together == alone * 3
