"""Retrievers for evaluation (``EVAL.md`` §3): rank indexed texts for each question.

A retriever has one method, ``rank(texts, queries, depth)``: for each query, the indexes
of the ``depth`` best texts, best first, ties broken by the lower index so that every run
gives the same ranking.

- ``"bm25"`` (:class:`BM25Retriever`): weight-free, fast, deterministic, always available
  (``bm25s``, Lucene's BM25 with k1=1.5, b=0.75; lower-cased words of two or more
  characters, English stop words removed, Snowball-stemmed);
- ``"dense"``: a sentence-transformers model (:mod:`chunk_inspector.dense`), when the
  ``[dense]`` extra is installed.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from chunker.errors import ChunkerError

__all__ = ["RETRIEVERS", "BM25Retriever", "Retriever", "get_retriever", "top_indexes"]

RETRIEVERS = ("bm25", "dense")


class Retriever(Protocol):
    """Ranks texts for queries: ``rank(texts, queries, depth)[q]`` is the best ``depth`` indexes for query ``q``."""

    name: str

    def rank(self, texts: Sequence[str], queries: Sequence[str], depth: int) -> list[list[int]]: ...


def top_indexes(scores: Any, depth: int) -> list[int]:
    """The indexes of the ``depth`` highest scores, best first, ties to the lower index."""
    order = np.lexsort((np.arange(len(scores)), -np.asarray(scores, dtype=np.float64)))
    return [int(i) for i in order[:depth]]


@functools.cache
def _stemmer() -> Any:
    import Stemmer  # PyStemmer, a dependency of this package

    return Stemmer.Stemmer("english")


class BM25Retriever:
    """BM25 over the texts through ``bm25s``; one index per call of :meth:`rank`."""

    name = "bm25"

    def __init__(self, k1: float = 1.5, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b

    def words(self, texts: Sequence[str]) -> list[list[str]]:
        """The terms BM25 sees in each text (lower-cased, stop words out, stemmed)."""
        import bm25s

        tokens: list[list[str]] = bm25s.tokenize(
            list(texts), stopwords="en", stemmer=_stemmer(), return_ids=False, show_progress=False
        )
        return tokens

    def rank(self, texts: Sequence[str], queries: Sequence[str], depth: int) -> list[list[int]]:
        import bm25s

        if not texts:
            return [[] for _ in queries]
        index = bm25s.BM25(k1=self.k1, b=self.b)
        index.index(self.words(texts), show_progress=False)
        depth = min(depth, len(texts))
        out: list[list[int]] = []
        for query in self.words(queries):
            terms = [t for t in query if t in index.vocab_dict]
            scores = index.get_scores(terms) if terms else np.zeros(len(texts))
            out.append(top_indexes(scores, depth))
        return out


def get_retriever(name: str) -> Retriever:
    """The retriever called ``name`` (one of :data:`RETRIEVERS`); a clear error when it cannot be had."""
    if name == "bm25":
        return BM25Retriever()
    if name == "dense":
        from chunk_inspector.dense import DenseRetriever

        return DenseRetriever()
    raise ChunkerError(f"unknown retriever {name!r}: choose one of {', '.join(RETRIEVERS)}")
